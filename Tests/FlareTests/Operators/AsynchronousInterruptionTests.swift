import Dispatch
import Flare
import Foundation
import Testing

/// The time operators that deliver on a scheduler, each applied to a
/// producer with a given scheduler, by name.
private let asynchronousOperators: [(name: String, apply: @Sendable (SignalProducer<Int, Never>, TestScheduler) -> SignalProducer<Int, Never>)] = [
    ("observe(on:)", { $0.observe(on: $1) }),
    ("delay", { $0.delay(10, on: $1) }),
    ("throttle", { $0.throttle(10, on: $1) }),
    ("throttle(while:)", { $0.throttle(while: SignalProducer(value: false), on: $1) }),
    ("debounce discarding", { $0.debounce(10, on: $1, discardWhenCompleted: true) }),
    ("debounce keeping", { $0.debounce(10, on: $1, discardWhenCompleted: false) }),
    ("lazyMap", { $0.lazyMap(on: $1) { $0 * 2 } }),
    ("collect(every:)", { $0.collect(every: .seconds(10), on: $1).map { $0.count } }),
]

@Suite("Asynchronous operators: disposal delivers interrupted on the scheduler")
struct AsynchronousInterruptionTests {
    @Test("disposing a run: nothing on the disposing thread, then only interrupted, from the scheduler")
    func interruptedOnTheScheduler() {
        for op in asynchronousOperators {
            let scheduler = TestScheduler()
            let log = Recorder<String>()
            let run = op.apply(SignalProducer(0..<128), scheduler).start { log.append(describe($0)) }
            #expect(log.items == [], "\(op.name)")
            run.dispose()
            #expect(log.items == [], "\(op.name): interrupted waits for the scheduler")
            scheduler.run()
            #expect(log.items == ["interrupted"], "\(op.name)")
        }
    }

    @Test("observe(on:): values delivered before disposal stay, those still scheduled are dropped, the upstream ends at once")
    func observeOnOrder() {
        let scheduler = TestScheduler()
        let upstreamEnded = Counter()
        let (signal, input) = Signal<Int, Never>.pipe()
        let producer = SignalProducer<Int, Never> { observer, lifetime in
            lifetime.observeEnded { upstreamEnded.increment() }
            lifetime += signal.observe(observer)
        }
        let log = Recorder<String>()
        let run = producer.observe(on: scheduler).start { log.append(describe($0)) }
        input.send(value: 1)
        scheduler.advance()
        input.send(value: 2)
        input.send(value: 3)
        run.dispose()
        #expect(upstreamEnded.count == 1)
        #expect(log.items == ["v1"])
        scheduler.run()
        #expect(log.items == ["v1", "interrupted"])
        input.send(value: 4)
        scheduler.run()
        #expect(log.items == ["v1", "interrupted"])
    }

    @Test("observe(on:) a queue: values still queued at disposal are dropped, interrupted follows on the queue")
    func observeOnQueueDisposal() {
        let key = DispatchSpecificKey<String>()
        let scheduler = QueueScheduler(name: "flare.test.observeOnDisposal")
        scheduler.queue.setSpecific(key: key, value: "hop")
        let (signal, input) = Signal<Int, Never>.pipe()
        let log = Recorder<String>()
        let offQueue = Counter()
        let done = DispatchSemaphore(value: 0)
        let run = SignalProducer(signal).observe(on: scheduler).start { event in
            if DispatchQueue.getSpecific(key: key) != "hop" { offQueue.increment() }
            log.append(describe(event))
            if event.isTerminating { done.signal() }
        }
        input.send(value: 1)
        // Hold the queue: 2 and 3 wait behind this action.
        let release = DispatchSemaphore(value: 0)
        let holding = DispatchSemaphore(value: 0)
        scheduler.schedule {
            holding.signal()
            release.wait()
        }
        holding.wait()
        input.send(value: 2)
        input.send(value: 3)
        run.dispose()
        release.signal()
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(log.items == ["v1", "interrupted"])
        #expect(offQueue.count == 0)
    }

    @Test("observe(on:) of an upstream that has completed: disposal replaces the scheduled completed with interrupted")
    func terminatedUpstream() {
        let scheduler = TestScheduler()
        let log = Recorder<String>()
        let run = SignalProducer<Int, Never>(value: 1).observe(on: scheduler).startWithSignal { signal, interrupter in
            signal.observe { log.append(describe($0)) }
            return interrupter
        }
        run.dispose()
        #expect(log.items == [])
        scheduler.run()
        #expect(log.items == ["interrupted"])
    }

    @Test("observe(on:) a queue: interrupted arrives on the queue, after the action the queue was running, and no value still scheduled")
    func interruptedOnTheQueue() {
        let key = DispatchSpecificKey<String>()
        let queue = QueueScheduler(name: "flare.test.asyncInterruption")
        queue.queue.setSpecific(key: key, value: "target")
        let (signal, input) = Signal<Int, Never>.pipe()
        let log = Recorder<String>()
        let done = DispatchSemaphore(value: 0)
        let run = signal.producer.observe(on: queue).start { event in
            let place = DispatchQueue.getSpecific(key: key) ?? "elsewhere"
            log.append("\(describe(event)) on \(place)")
            if event.isTerminating { done.signal() }
        }
        // Holds the queue, so that the values below wait behind it.
        let holding = DispatchSemaphore(value: 0)
        let held = DispatchSemaphore(value: 0)
        queue.schedule {
            held.signal()
            holding.wait()
        }
        held.wait()
        input.send(value: 1)
        input.send(value: 2)
        run.dispose()
        #expect(log.items == [])
        holding.signal()
        done.wait()
        #expect(log.items == ["interrupted on target"])
    }

    @Test("an operator after observe(on:) ending the run: its terminal event on the scheduler, the upstream ended, nothing more")
    func endedByALaterOperator() {
        let scheduler = TestScheduler()
        let upstreamEnded = Counter()
        let (signal, input) = Signal<Int, Never>.pipe()
        let producer = SignalProducer<Int, Never> { observer, lifetime in
            lifetime.observeEnded { upstreamEnded.increment() }
            lifetime += signal.observe(observer)
        }
        let log = Recorder<String>()
        producer.observe(on: scheduler).take(first: 1).start { log.append(describe($0)) }
        input.send(value: 1)
        input.send(value: 2)
        scheduler.advance()
        #expect(log.items == ["v1", "completed"])
        #expect(upstreamEnded.count == 1)
        scheduler.run()
        #expect(log.items == ["v1", "completed"])
    }

    @Test("disposed inside startWithSignal's setup: the handler never runs, interrupted at once")
    func disposedBeforeStart() {
        let scheduler = TestScheduler()
        let starts = Counter()
        let producer = SignalProducer<Int, Never> { _, _ in starts.increment() }.observe(on: scheduler)
        let log = Recorder<String>()
        producer.startWithSignal { signal, interrupter in
            signal.observe { log.append(describe($0)) }
            interrupter.dispose()
        }
        #expect(log.items == ["interrupted"])
        #expect(starts.count == 0)
        scheduler.run()
        #expect(log.items == ["interrupted"])
    }

    @Test("a disposed run, its operator and the upstream are released once interrupted has been delivered")
    func released() {
        let scheduler = TestScheduler()
        weak var weakCanary: Canary?
        var run: Disposable?
        do {
            let canary = Canary()
            weakCanary = canary
            run = SignalProducer<Int, Never> { observer, lifetime in
                // Keeps its observer (releasing it would interrupt the run).
                lifetime.observeEnded { withExtendedLifetime((canary, observer)) {} }
                observer.send(value: 1)
            }.delay(5, on: scheduler).start()
        }
        run?.dispose()
        scheduler.run()
        #expect(weakCanary == nil)
        withExtendedLifetime(run) {}
    }
}
