import Flare
import FlareTestSupport
import Foundation
import Synchronization
import Testing

/// The runs of a property's producer and of `replayLazily(upTo:)` come
/// straight from the property's (the replay's) serialized domain. These
/// tests pin the windows that design opens: a start while another thread
/// delivers (its first value at once, then the later changes behind it), a
/// dispose racing the domain's deliveries, and what a run releases.
@Suite("Property and replay producers: starts racing deliveries and disposals")
struct PropertyAndReplayStartTests {
    /// Holds the property's domain on another thread: `property.value = 1`
    /// runs there, and its observer waits inside the delivery until
    /// `release` is called.
    final class HeldDelivery: @unchecked Sendable {
        let entered = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        var observation: Disposable?

        convenience init(_ property: MutableProperty<Int>) {
            self.init(property.signal) { property.value = $0 }
        }

        init(_ signal: Signal<Int, Never>, set: @escaping @Sendable (Int) -> Void) {
            observation = signal.observeValues { [entered, proceed] value in
                if value == 1 {
                    entered.signal()
                    proceed.wait()
                }
            }
            DispatchQueue.global().async { [finished] in
                set(1)
                finished.signal()
            }
            entered.wait()
        }

        func release() {
            proceed.signal()
            finished.wait()
            observation?.dispose()
        }
    }

    @Test("a start while another thread delivers gets the current value at once, then every later change once, in order")
    func startWhileAnotherThreadDelivers() {
        let property = MutableProperty(0)
        let held = HeldDelivery(property)
        // Queued behind the held delivery.
        property.value = 2
        let run = Recorder<String>()
        let disposable = property.producer.start { run.append(describe($0)) }
        // Delivered before `start` returned, though the domain is held.
        #expect(run.items == ["v2"])
        property.value = 3
        property.value = 4
        #expect(run.items == ["v2"])
        held.release()
        #expect(run.items == ["v2", "v3", "v4"])
        property.value = 5
        disposable.dispose()
        property.value = 6
        #expect(run.items == ["v2", "v3", "v4", "v5", "interrupted"])
    }

    @Test("a run started while another thread delivers, disposed before that delivery ends: interrupted, nothing after, released")
    func bufferedRunDisposedWhileHeld() {
        let property = MutableProperty(0)
        weak var weakCanary: Canary?
        let run = Recorder<String>()
        let held = HeldDelivery(property)
        let disposable: Disposable
        do {
            let canary = Canary()
            weakCanary = canary
            disposable = property.producer.start { event in
                withExtendedLifetime(canary) { run.append(describe(event)) }
            }
        }
        property.value = 2
        disposable.dispose()
        #expect(run.items == ["v1", "interrupted"])
        held.release()
        property.value = 3
        #expect(run.items == ["v1", "interrupted"])
        // The handle lives on; the run's chain and observer are released.
        #expect(weakCanary == nil)
        withExtendedLifetime(disposable) {}
    }

    @Test("a run started while another thread delivers completes after the queued changes when the property ends")
    func bufferedRunCompletesWhenPropertyEnds() {
        let (values, input) = Signal<Int, Never>.pipe()
        let property = Property(initial: 0, then: values)
        let held = HeldDelivery(property.signal) { input.send(value: $0) }
        let run = Recorder<String>()
        property.producer.start { run.append(describe($0)) }
        input.send(value: 2)
        input.sendCompleted()
        #expect(run.items == ["v1"])
        held.release()
        #expect(run.items == ["v1", "v2", "completed"])
        let late = Recorder<String>()
        property.producer.start { late.append(describe($0)) }
        #expect(late.items == ["v2", "completed"])
    }

    @Test("an operator that ends a property run (take) from inside its first value: the run ends, later sets reach nothing, released")
    func takeEndsRunFromInsideDelivery() {
        let property = MutableProperty(1)
        weak var weakCanary: Canary?
        let run = Recorder<String>()
        let ended = Counter()
        let disposable: Disposable
        do {
            let canary = Canary()
            weakCanary = canary
            disposable = property.producer
                .on(disposed: { ended.increment() })
                .take(first: 2)
                .start { event in withExtendedLifetime(canary) { run.append(describe(event)) } }
        }
        property.value = 2
        property.value = 3
        #expect(run.items == ["v1", "v2", "completed"])
        #expect(ended.count == 1)
        #expect(weakCanary == nil)
        disposable.dispose()
        #expect(ended.count == 1)
    }

    @Test("runs that received live changes release their chain when disposed or completed, while their handles live on")
    func liveRunsReleaseTheirChain() {
        var property: MutableProperty<Int>? = MutableProperty(0)
        weak var disposedCanary: Canary?
        weak var completedCanary: Canary?
        let handles: [Disposable]
        do {
            let a = Canary(), b = Canary()
            disposedCanary = a
            completedCanary = b
            handles = [
                property!.producer.startWithValues { _ in withExtendedLifetime(a) {} },
                property!.producer.startWithValues { _ in withExtendedLifetime(b) {} },
            ]
        }
        property!.value = 1
        property!.value = 2
        handles[0].dispose()
        #expect(disposedCanary == nil)
        #expect(completedCanary != nil)
        property = nil
        #expect(completedCanary == nil)
        withExtendedLifetime(handles) {}
    }

    @Test("a run disposed from another thread while sets are delivered: at most the delivery already starting, then interrupted, once")
    func disposeRacingDelivery() {
        for round in 0..<40 {
            let property = MutableProperty(0)
            let afterDispose = Counter()
            let disposed = Atomic<Bool>(false)
            let received = Counter()
            let terminals = Recorder<String>()
            let valueAfterTerminal = Counter()
            let disposable = property.producer.start { event in
                if case .value = event {
                    received.increment()
                    if disposed.load(ordering: .acquiring) { afterDispose.increment() }
                    if !terminals.items.isEmpty { valueAfterTerminal.increment() }
                } else {
                    terminals.append(describe(event))
                }
            }
            let started = DispatchSemaphore(value: 0)
            let done = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                started.signal()
                for i in 1...50_000 { property.value = i }
                done.signal()
            }
            started.wait()
            while received.count < 5 + round {}
            disposable.dispose()
            disposed.store(true, ordering: .releasing)
            done.wait()
            #expect(afterDispose.count <= 1)
            #expect(terminals.items == ["interrupted"])
            #expect(valueAfterTerminal.count == 0)
        }
    }

    @Test("a run that went through a buffer, disposed while the domain goes on delivering to it: interrupted once, nothing after, and the domain never reads what the buffer's delivery writes")
    func bufferedRunDisposedDuringDeliveries() {
        let property = MutableProperty(0)
        let setterDone = Counter()
        // Slow deliveries keep the domain busy, so that most starts find
        // another thread delivering and go through a buffer.
        property.signal.observeValues { _ in
            for _ in 0..<20 { _ = setterDone.count }
        }
        let runs = Locked<[Recorder<String>]>([])
        onThreads(2) { thread in
            if thread == 0 {
                for i in 1...200_000 { property.value = i }
                setterDone.increment()
                return
            }
            while setterDone.count == 0 {
                let recorder = Recorder<String>()
                // Relaxed on both sides: the wait orders nothing between
                // the domain's delivery and the disposal below, so
                // ThreadSanitizer sees any variable both touch.
                let received = Counter()
                runs.withLock { $0.append(recorder) }
                let disposable = property.producer.start { event in
                    recorder.append(describe(event))
                    received.increment()
                }
                while received.count < 2 && setterDone.count == 0 { sched_yield() }
                disposable.dispose()
            }
        }
        for recorder in runs.withLock({ $0 }) {
            let items = recorder.items
            #expect(items.last == "interrupted")
            #expect(items.filter { !$0.hasPrefix("v") }.count == 1)
            let values = items.dropLast().map { Int($0.dropFirst())! }
            #expect(values == Array(values.sorted()), "\(values)")
            #expect(Set(values).count == values.count, "\(values)")
        }
    }

    @Test("starts and disposes from two threads while a third sets: every run gap-free and duplicate-free from its first value, ending with interrupted")
    func startsFromTwoThreadsRacingSets() {
        let property = MutableProperty(-1)
        let all = Recorder<Int>()
        property.signal.observeValues { all.append($0) }
        let runs = Locked<[Recorder<String>]>([])
        onThreads(3) { thread in
            if thread == 0 {
                for i in 0..<6_000 { property.value = i }
            } else {
                for i in 0..<150 {
                    let recorder = Recorder<String>()
                    runs.withLock { $0.append(recorder) }
                    let disposable = property.producer.start { recorder.append(describe($0)) }
                    // Some runs end at once, some after a while.
                    if i % 3 == 0 {
                        disposable.dispose()
                    } else {
                        for _ in 0..<(i * 7 % 50) { _ = property.value }
                        disposable.dispose()
                    }
                }
            }
        }
        let history = [-1] + all.items
        let position = Dictionary(uniqueKeysWithValues: history.enumerated().map { ($1, $0) })
        for recorder in runs.withLock({ $0 }) {
            let items = recorder.items
            #expect(items.last == "interrupted")
            #expect(items.filter { !$0.hasPrefix("v") }.count == 1)
            let values = items.dropLast().map { Int($0.dropFirst())! }
            guard let first = values.first, let start = position[first] else {
                Issue.record("a run received no value")
                continue
            }
            #expect(values == Array(history[start..<(start + values.count)]))
        }
    }

    @Test("replay: a run disposed from another thread while the source sends: at most the delivery already starting, then interrupted")
    func replayDisposeRacingDelivery() {
        for round in 0..<40 {
            let (signal, input) = Signal<Int, Never>.pipe()
            let replayed = SignalProducer(signal).replayLazily(upTo: 3)
            replayed.start()
            input.send(value: 0)
            let afterDispose = Counter()
            let disposed = Atomic<Bool>(false)
            let received = Counter()
            let terminals = Recorder<String>()
            let disposable = replayed.start { event in
                if case .value = event {
                    received.increment()
                    if disposed.load(ordering: .acquiring) { afterDispose.increment() }
                } else {
                    terminals.append(describe(event))
                }
            }
            let started = DispatchSemaphore(value: 0)
            let done = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                started.signal()
                for i in 1...50_000 { input.send(value: i) }
                done.signal()
            }
            started.wait()
            while received.count < 5 + round {}
            disposable.dispose()
            disposed.store(true, ordering: .releasing)
            done.wait()
            #expect(afterDispose.count <= 1)
            #expect(terminals.items == ["interrupted"])
        }
    }

    @Test("replay: an operator ending a late run inside its replay stops the replay; the shared run goes on; the ended run is released")
    func replayTakeInsideReplay() {
        let (signal, input) = Signal<Int, Never>.pipe()
        let replayed = SignalProducer(signal).replayLazily(upTo: 5)
        let first = Recorder<Int>()
        replayed.startWithValues { first.append($0) }
        for value in 1...5 { input.send(value: value) }
        weak var weakCanary: Canary?
        let late = Recorder<String>()
        let handle: Disposable
        do {
            let canary = Canary()
            weakCanary = canary
            handle = replayed.take(first: 2).start { event in
                withExtendedLifetime(canary) { late.append(describe(event)) }
            }
        }
        #expect(late.items == ["v1", "v2", "completed"])
        #expect(weakCanary == nil)
        input.send(value: 6)
        #expect(first.items == [1, 2, 3, 4, 5, 6])
        #expect(late.items == ["v1", "v2", "completed"])
        withExtendedLifetime(handle) {}
    }

    @Test("replay: a run disposed from inside its own replay gets nothing more of it")
    func replayDisposedInsideReplay() {
        let (signal, input) = Signal<Int, Never>.pipe()
        let replayed = SignalProducer(signal).replayLazily(upTo: 4)
        let late = Recorder<String>()
        // A start from inside a delivery of the replay replays before
        // `start` returns: the disposal reaches it through the interrupt
        // handle `startWithSignal` hands over first.
        let first = replayed.startWithValues { value in
            guard value == 5 else { return }
            replayed.startWithSignal { signal, interrupter in
                signal.observe { event in
                    late.append(describe(event))
                    if case .value(2) = event { interrupter.dispose() }
                }
            }
        }
        for value in 1...5 { input.send(value: value) }
        #expect(late.items == ["v2", "interrupted"])
        input.send(value: 6)
        #expect(late.items == ["v2", "interrupted"])
        first.dispose()
    }
}
