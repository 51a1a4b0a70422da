import Flare
import Foundation
import Testing

@Suite("replayLazily(upTo:)")
struct ReplayLazilyTests {
    @Test("starts the source once, on the first start; replays up to the capacity, then the terminal event")
    func replays() {
        let starts = Counter()
        let (signal, input) = Signal<Int, TestError>.pipe()
        let replayed = SignalProducer<Int, TestError> { observer, lifetime in
            starts.increment()
            lifetime += signal.observe(observer)
        }.replayLazily(upTo: 2)
        #expect(starts.count == 0)
        let first = Recorder<String>()
        replayed.start { first.append(describe($0)) }
        #expect(starts.count == 1)
        input.send(value: 1)
        input.send(value: 2)
        input.send(value: 3)
        let second = Recorder<String>()
        replayed.start { second.append(describe($0)) }
        input.send(value: 4)
        input.send(error: TestError(code: 1))
        let third = Recorder<String>()
        replayed.start { third.append(describe($0)) }
        #expect(starts.count == 1)
        #expect(first.items == ["v1", "v2", "v3", "v4", "failed(E1)"])
        #expect(second.items == ["v2", "v3", "v4", "failed(E1)"])
        #expect(third.items == ["v3", "v4", "failed(E1)"])
    }

    @Test("capacity 0 replays only the terminal event; a negative capacity stops with a message")
    func capacityZero() async {
        let replayed = SignalProducer<Int, Never>([1, 2, 3]).replayLazily(upTo: 0)
        let first = Recorder<String>()
        replayed.start { first.append(describe($0)) }
        let late = Recorder<String>()
        replayed.start { late.append(describe($0)) }
        #expect(first.items == ["v1", "v2", "v3", "completed"])
        #expect(late.items == ["completed"])
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = SignalProducer<Int, Never>(value: 1).replayLazily(upTo: -1)
        }
        if let result {
            let stderr = String(decoding: result.standardErrorContent, as: UTF8.self)
            #expect(stderr.contains("replayLazily(upTo:) needs a non-negative capacity, got -1"))
        }
    }

    @Test("a start from inside a delivery gets the replay after the current event, every value once")
    func reentrantStart() {
        let (signal, input) = Signal<Int, Never>.pipe()
        let replayed = SignalProducer(signal).replayLazily(upTo: 1)
        let inner = Recorder<Int>()
        replayed.startWithValues { value in
            if value == 2 { replayed.startWithValues { inner.append($0) } }
        }
        for value in 1...4 { input.send(value: value) }
        #expect(inner.items == [2, 3, 4])
    }

    @Test("a start from inside a delivery hears the buffer (the value being delivered included) before start returns, ahead of the later observers, then the later values after them (ReactiveSwift's order)")
    func nestedStartReplaysBeforeReturning() {
        let (signal, input) = Signal<Int, Never>.pipe()
        let replayed = SignalProducer(signal).replayLazily(upTo: 2)
        let log = Recorder<String>()
        replayed.startWithValues { value in
            log.append("A\(value)")
            guard value == 2 else { return }
            replayed.startWithValues { log.append("N\($0)") }
            log.append("returned")
        }
        replayed.startWithValues { log.append("B\($0)") }
        for value in 1...3 { input.send(value: value) }
        #expect(log.items == ["A1", "B1", "A2", "N1", "N2", "returned", "B2", "A3", "B3", "N3"])
    }

    @Test("a start from inside another run's replay replays at once and hears the later values before that run, as in ReactiveSwift")
    func startInsideAnotherRunsReplay() {
        let (signal, input) = Signal<Int, Never>.pipe()
        let replayed = SignalProducer(signal).replayLazily(upTo: 2)
        replayed.start()
        input.send(value: 1)
        input.send(value: 2)
        let log = Recorder<String>()
        let nested = Counter()
        replayed.startWithValues { value in
            log.append("X\(value)")
            guard value == 1, nested.count == 0 else { return }
            nested.increment()
            replayed.startWithValues { log.append("N\($0)") }
        }
        input.send(value: 3)
        #expect(log.items == ["X1", "N1", "N2", "X2", "N3", "X3"])
    }

    @Test("first() called inside a replay observer returns the buffered value")
    func firstInsideReplayObserver() {
        let (signal, input) = Signal<Int, Never>.pipe()
        let replayed = SignalProducer(signal).replayLazily(upTo: 2)
        replayed.start()
        input.send(value: 1)
        input.send(value: 2)
        let heard = Recorder<String>()
        let done = DispatchSemaphore(value: 0)
        // On another thread: a hang (the nested start waiting for the
        // delivery it is inside) fails the test instead of the suite.
        DispatchQueue.global().async {
            replayed.take(first: 1).startWithValues { _ in
                switch replayed.first() {
                case let .success(value)?: heard.append("first \(value)")
                case nil: heard.append("nil")
                }
            }
            done.signal()
        }
        #expect(done.wait(timeout: .now() + patience) == .success, "first() inside a replay observer did not return")
        #expect(heard.items == ["first 1"])
    }

    @Test("a start on another thread during a long delivery replays the buffer before start returns, then hears what was queued behind the delivery, once, in order")
    func startDuringAnotherThreadsDelivery() {
        let (signal, input) = Signal<Int, Never>.pipe()
        let replayed = SignalProducer(signal).replayLazily(upTo: 1)
        replayed.start()
        input.send(value: 1)
        input.send(value: 2)
        // Another thread holds the replay's domain: a start whose replay
        // observer waits inside the delivery of 2.
        let entered = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let held = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            replayed.startWithValues { value in
                if value == 2 {
                    entered.signal()
                    proceed.wait()
                }
            }
            held.signal()
        }
        entered.wait()
        // Queued behind that delivery, not yet recorded, and more than the
        // capacity: the late run gets them from its place among the
        // events, not from the buffer.
        input.send(value: 3)
        input.send(value: 4)
        let late = Recorder<Int>()
        let heardAtReturn = Locked<[Int]?>(nil)
        let returned = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            replayed.startWithValues { late.append($0) }
            heardAtReturn.withLock { $0 = late.items }
            returned.signal()
        }
        let startReturned = returned.wait(timeout: .now() + patience) == .success
        proceed.signal()
        held.wait()
        if !startReturned { returned.wait() }
        #expect(startReturned, "the start waited for another thread's delivery")
        #expect(heardAtReturn.withLock { $0 } == [2])
        input.send(value: 5)
        #expect(late.items == [2, 3, 4, 5])
    }

    @Test("late starts racing the source on another thread: each gets a gap-free, duplicate-free run of values ending at the last, then completed")
    func lateStartsRacingSource() {
        let count = 4_000
        let (signal, input) = Signal<Int, Never>.pipe()
        let replayed = SignalProducer(signal).replayLazily(upTo: 1)
        replayed.start()
        let runs = Locked<[Recorder<String>]>([])
        onThreads(2) { thread in
            if thread == 0 {
                for value in 0..<count { input.send(value: value) }
                input.sendCompleted()
            } else {
                for _ in 0..<100 {
                    let recorder = Recorder<String>()
                    runs.withLock { $0.append(recorder) }
                    replayed.start { recorder.append(describe($0)) }
                }
            }
        }
        for recorder in runs.withLock({ $0 }) {
            let items = recorder.items
            #expect(items.last == "completed")
            let values = items.dropLast().map { Int($0.dropFirst())! }
            if let first = values.first {
                #expect(values == Array(first..<count))
            }
        }
    }

    @Test("the shared run is disposed once the producer and its runs are gone")
    func disposedWhenReleased() {
        let disposed = Counter()
        var replayed: SignalProducer<Int, Never>? = SignalProducer<Int, Never>.never
            .on(disposed: { disposed.increment() })
            .replayLazily(upTo: 1)
        let run = replayed!.start()
        replayed = nil
        #expect(disposed.count == 0)
        run.dispose()
        #expect(disposed.count == 1)
    }

    @Test("buffered values are released once the producer and its runs are gone, though a disposed run's handle is kept")
    func bufferReleased() {
        weak var weakCanary: Canary?
        var source: SignalProducer<Canary, Never>?
        do {
            let canary = Canary()
            weakCanary = canary
            source = SignalProducer(value: canary)
        }
        var replayed: SignalProducer<Canary, Never>? = source!.replayLazily(upTo: 1)
        let run = replayed!.start()
        run.dispose()
        source = nil
        #expect(weakCanary != nil, "the replay still buffers it for later starts")
        replayed = nil
        #expect(weakCanary == nil)
        withExtendedLifetime(run) {}
    }
}
