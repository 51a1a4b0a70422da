import Flare
import FlareTestSupport
import Testing

/// The order in which a program sees events, as ReactiveSwift delivers
/// them: each test attaches observers of several kinds in a known order and
/// checks the exact log.
/// A log read in parts: `next()` returns what was appended since the last
/// call.
final class OrderLog: @unchecked Sendable {
    private let recorder = Recorder<String>()
    private var read = 0

    func append(_ line: String) { recorder.append(line) }

    func next() -> [String] {
        let items = recorder.items
        defer { read = items.count }
        return Array(items[read...])
    }
}

@Suite("Event order as ReactiveSwift delivers it")
struct EventOrderTests {
    @Test("a MutableProperty delivers to signal observers, producer runs, mapped properties and bindings in attach order")
    func propertyObserversInAttachOrder() {
        let log = OrderLog()
        var property: MutableProperty<Int>? = MutableProperty(0)
        property!.signal.observe { log.append("signal1 \(describe($0))") }
        let run1 = property!.producer.skip(first: 1).start { log.append("producer1 \(describe($0))") }
        let mapped = property!.map { $0 * 10 }
        mapped.signal.observe { log.append("mapped \(describe($0))") }
        let target = MutableProperty(0)
        target <~ property!
        target.signal.observe { log.append("target \(describe($0))") }
        property!.signal.observe { log.append("signal2 \(describe($0))") }
        property!.producer.skip(first: 1).start { log.append("producer2 \(describe($0))") }
        property!.signal.observe { log.append("signal3 \(describe($0))") }

        property!.value = 1
        #expect(log.next() == [
            "signal1 v1", "producer1 v1", "mapped v10", "target v1", "signal2 v1", "producer2 v1", "signal3 v1",
        ])

        run1.dispose()
        property!.value = 2
        #expect(log.next() == [
            "producer1 interrupted",
            "signal1 v2", "mapped v20", "target v2", "signal2 v2", "producer2 v2", "signal3 v2",
        ])

        // A run started now comes after every observer attached so far.
        property!.producer.skip(first: 1).start { log.append("producer3 \(describe($0))") }
        property!.value = 3
        #expect(log.next() == [
            "signal1 v3", "mapped v30", "target v3", "signal2 v3", "producer2 v3", "signal3 v3", "producer3 v3",
        ])

        property = nil
        #expect(log.next() == [
            "signal1 completed", "mapped completed", "signal2 completed", "producer2 completed",
            "signal3 completed", "producer3 completed",
        ])
        #expect(target.value == 3)
    }

    @Test("producer runs started before any signal observer hear each change first, in attach order, and end first")
    func propertyRunsBeforeEverySignalObserver() {
        let log = OrderLog()
        var property: MutableProperty<Int>? = MutableProperty(0)
        let run1 = property!.producer.skip(first: 1).start { log.append("producer1 \(describe($0))") }
        property!.producer.skip(first: 1).start { log.append("producer2 \(describe($0))") }
        property!.signal.observe { log.append("signal1 \(describe($0))") }
        property!.producer.skip(first: 1).start { log.append("producer3 \(describe($0))") }

        property!.value = 1
        #expect(log.next() == ["producer1 v1", "producer2 v1", "signal1 v1", "producer3 v1"])

        // A run started now comes after the signal observer, even though
        // the first runs are still attached ahead of it.
        run1.dispose()
        property!.producer.skip(first: 1).start { log.append("producer4 \(describe($0))") }
        property!.value = 2
        #expect(log.next() == ["producer1 interrupted", "producer2 v2", "signal1 v2", "producer3 v2", "producer4 v2"])

        property = nil
        #expect(log.next() == [
            "producer2 completed", "signal1 completed", "producer3 completed", "producer4 completed",
        ])
    }

    @Test("an observer attached from inside the delivery to a run that precedes every signal observer hears the next change, not this one")
    func signalObserverAttachedFromInsideAnEarlyRun() {
        let log = OrderLog()
        let property = MutableProperty(0)
        var attached = false
        let run = property.producer.skip(first: 1).startWithValues { value in
            log.append("producer v\(value)")
            if !attached {
                attached = true
                property.signal.observeValues { log.append("signal v\($0)") }
            }
        }
        property.value = 1
        #expect(log.next() == ["producer v1"])
        property.value = 2
        #expect(log.next() == ["producer v2", "signal v2"])
        run.dispose()
        property.value = 3
        #expect(log.next() == ["signal v3"])
    }

    @Test("a producer started and disposed again and again, with and without signal observers, keeps attach order")
    func propertyRunsRestartedAroundSignalObservers() {
        let log = OrderLog()
        let property = MutableProperty(0)
        for round in 0..<3 {
            property.producer.skip(first: 1).take(first: 1).startWithValues { log.append("early\(round) v\($0)") }
            let observer = property.signal.observeValues { log.append("signal\(round) v\($0)") }
            property.producer.skip(first: 1).take(first: 1).startWithValues { log.append("late\(round) v\($0)") }
            property.value = round
            #expect(log.next() == ["early\(round) v\(round)", "signal\(round) v\(round)", "late\(round) v\(round)"])
            observer?.dispose()
        }
        property.value = 9
        #expect(log.next() == [])
    }

    @Test("a producer run started from inside an observer gets the current value at once, then changes after the observers attached before it")
    func propertyRunStartedFromInsideAnObserver() {
        let log = OrderLog()
        let property = MutableProperty(0)
        var nested: Disposable?
        // This observer refers to its own property: disposed at the end, or
        // the cycle would keep both.
        let first = property.signal.observeValues { value in
            log.append("signal1 v\(value)")
            if nested == nil { nested = property.producer.start { log.append("nested \(describe($0))") } }
        }
        property.signal.observeValues { log.append("signal2 v\($0)") }
        property.value = 1
        #expect(log.next() == ["signal1 v1", "nested v1", "signal2 v1"])
        property.value = 2
        #expect(log.next() == ["signal1 v2", "signal2 v2", "nested v2"])
        // The run's segment is gone once it ends; a later run and a later
        // signal observer keep their attach order.
        nested?.dispose()
        property.producer.skip(first: 1).startWithValues { log.append("producer v\($0)") }
        property.signal.observeValues { log.append("signal3 v\($0)") }
        property.value = 3
        #expect(log.next() == ["nested interrupted", "signal1 v3", "signal2 v3", "producer v3", "signal3 v3"])
        first?.dispose()
    }

    @Test("an Action publishes isEnabled, then isExecuting, before its work starts and after its work's terminal event reaches the start, before events")
    func actionStartAndEndOrder() {
        let log = OrderLog()
        let (work, input) = Signal<Int, Never>.pipe()
        let action = Action<Int, Int, Never> { _ in SignalProducer(work) }
        action.isExecuting.signal.observeValues { log.append("isExecuting \($0)") }
        action.isEnabled.signal.observeValues { log.append("isEnabled \($0)") }
        // `values` and `completed` first: ReactiveSwift makes them from
        // `events` when the action is made, Flare on first use.
        action.values.observeValues { log.append("values \($0)") }
        action.completed.observeValues { log.append("completed") }
        action.events.observeValues { log.append("events \(describe($0))") }
        action.apply(1).start { log.append("start \(describe($0))") }
        #expect(log.next() == ["isEnabled false", "isExecuting true"])
        input.send(value: 7)
        #expect(log.next() == ["start v7", "values 7", "events v7"])
        input.sendCompleted()
        #expect(log.next() == [
            "start completed", "isEnabled true", "isExecuting false", "completed", "events completed",
        ])
    }

    @Test("CompositeDisposable and Lifetime dispose in the order of addition")
    func compositeDisposesInAdditionOrder() {
        let log = OrderLog()
        let composite = CompositeDisposable()
        composite += { log.append("first") }
        let removed = composite.add { log.append("removed") }
        composite += AnyDisposable { log.append("second") }
        composite += { log.append("third") }
        removed?.dispose()
        composite.dispose()
        #expect(log.next() == ["first", "second", "third"])

        let (lifetime, token) = Lifetime.make()
        lifetime.observeEnded { log.append("ended 1") }
        lifetime += AnyDisposable { log.append("ended 2") }
        lifetime.observeEnded { log.append("ended 3") }
        token.dispose()
        #expect(log.next() == ["ended 1", "ended 2", "ended 3"])
    }

    @Test("disposing a run: the outer on(disposed:) first, then the inner, then the start handler's lifetime, in its order of addition")
    func runCleanupOrder() {
        for synchronousEnd in [false, true] {
            let log = OrderLog()
            let producer = SignalProducer<Int, Never> { observer, lifetime in
                lifetime.observeEnded { log.append("handler 1") }
                lifetime += AnyDisposable { log.append("handler 2") }
                if synchronousEnd { observer.sendCompleted() }
            }
            let run = producer
                .on(disposed: { log.append("inner") })
                .map { $0 }
                .on(disposed: { log.append("outer") })
                .start { log.append(describe($0)) }
            run.dispose()
            let expected = (synchronousEnd ? ["completed"] : ["interrupted"]) + ["outer", "inner", "handler 1", "handler 2"]
            #expect(log.next() == expected, "synchronousEnd: \(synchronousEnd)")
        }
    }

    @Test("throttle sends from the action it scheduled: it keeps its place among other actions due at the same instant")
    func throttleIsScheduledOnce() {
        let log = OrderLog()
        let scheduler = TestScheduler()
        let (signal, input) = Signal<Int, Never>.pipe()
        signal.throttle(1, on: scheduler).observe { log.append("throttle \(describe($0))") }
        // Due now: scheduled when it arrives, before the other action.
        input.send(value: 1)
        scheduler.schedule { log.append("other now") }
        scheduler.advance()
        #expect(log.next() == ["throttle v1", "other now"])
        // Held until one interval after the last value sent, then sent by
        // the action scheduled for that date, before one scheduled later.
        scheduler.advance(by: .milliseconds(500))
        input.send(value: 2)
        scheduler.schedule(after: .milliseconds(500)) { log.append("other later") }
        scheduler.advance(by: .milliseconds(500))
        #expect(log.next() == ["throttle v2", "other later"])
    }
}
