import Flare
import Foundation
import Synchronization
import Testing

/// The start path's ownership: a run's chain holds the run unowned, a
/// synchronous source lives in its run and is released when the run ends,
/// and a root signal holds its run for as long as it may deliver.
@Suite("SignalProducer: what a started producer keeps alive and releases")
struct ProducerReleaseTests {
    @Test("a run whose handle is released keeps delivering, from another thread, until it ends")
    func releasedHandleKeepsDelivering() {
        weak var weakCanary: Canary?
        let log = Recorder<String>()
        let cleanups = Counter()
        let input = Locked<Signal<Int, Never>.Observer?>(nil)
        do {
            let canary = Canary()
            weakCanary = canary
            let producer = SignalProducer<Int, Never> { observer, lifetime in
                lifetime.observeEnded { cleanups.increment() }
                input.withLock { $0 = observer }
            }.map { $0 * 10 }.filter { $0 != 20 }.map { $0 + 1 }
            // The handle is released at once: only the root's observer keeps
            // the run (and the flags its links check) alive.
            producer.start { event in
                withExtendedLifetime(canary) {}
                log.append(describe(event))
            }
        }
        let sent = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            let observer = input.withLock { $0 }!
            for value in 1...3 { observer.send(value: value) }
            observer.sendCompleted()
            observer.send(value: 4)
            sent.signal()
        }
        sent.wait()
        #expect(log.items == ["v11", "v31", "completed"])
        #expect(cleanups.count == 1)
        input.withLock { $0 = nil }
        #expect(weakCanary == nil)
    }

    @Test("a synchronous run releases its chain and observer when it ends, while its handle lives on")
    func synchronousRunReleasesItsChain() {
        weak var weakCanary: Canary?
        let log = Recorder<String>()
        let disposed = Counter()
        let handle: Disposable
        do {
            let canary = Canary()
            weakCanary = canary
            handle = SignalProducer<Int, Never>(values: 1, 2, 3)
                .on(disposed: { disposed.increment() })
                .map { $0 + 1 }
                .start { event in
                    withExtendedLifetime(canary) {}
                    log.append(describe(event))
                }
        }
        #expect(log.items == ["v2", "v3", "v4", "completed"])
        #expect(weakCanary == nil)
        #expect(disposed.count == 1)
        handle.dispose()
        #expect(log.items == ["v2", "v3", "v4", "completed"])
        #expect(disposed.count == 1)
    }

    @Test("a synchronous run disposed before its source starts: interrupted once, lifetime ended once, chain released")
    func synchronousRunDisposedBeforeStart() {
        weak var weakCanary: Canary?
        let log = Recorder<String>()
        let disposed = Counter()
        let iterated = Counter()
        do {
            let canary = Canary()
            weakCanary = canary
            let producer = SignalProducer<Int, Never>((0..<10).lazy.map { value in iterated.increment(); return value })
                .on(disposed: { disposed.increment() })
                .map { value in withExtendedLifetime(canary) { value } }
            producer.startWithSignal { signal, handle in
                signal.observe { log.append(describe($0)) }
                handle.dispose()
                handle.dispose()
            }
        }
        #expect(log.items == ["interrupted"])
        #expect(iterated.count == 0)
        #expect(disposed.count == 1)
        #expect(weakCanary == nil)
    }

    @Test("a synchronous run ended by a link (take) from inside its delivery: the source stops, lifetime ended once")
    func synchronousRunEndedByLink() {
        let log = Recorder<String>()
        let disposed = Counter()
        let iterated = Counter()
        let handle = SignalProducer<Int, Never>((0..<1_000).lazy.map { value in iterated.increment(); return value })
            .on(disposed: { disposed.increment() })
            .filter { $0 % 2 == 0 }
            .take(first: 3)
            .map { $0 * 2 }
            .start { log.append(describe($0)) }
        #expect(log.items == ["v0", "v4", "v8", "completed"])
        #expect(iterated.count == 5)
        #expect(disposed.count == 1)
        handle.dispose()
        #expect(disposed.count == 1)
        #expect(log.items == ["v0", "v4", "v8", "completed"])
    }

    @Test("synchronous runs disposed from another thread at any point: an in-order prefix, one terminal event, lifetime ended once")
    func synchronousRunsRacingDisposal() {
        for round in 0..<300 {
            let values = Recorder<Int>()
            let terminals = Recorder<String>()
            let disposed = Counter()
            let handle = Locked<Disposable?>(nil)
            let ready = DispatchSemaphore(value: 0)
            let done = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                ready.wait()
                // Spin a little, by round, so that the disposal lands before,
                // during and after the source's run.
                var spin = 0
                while spin < (round % 30) * 50 { spin += 1 }
                handle.withLock { $0 }?.dispose()
                done.signal()
            }
            SignalProducer<Int, Never>(0..<200)
                .on(disposed: { disposed.increment() })
                .map { $0 + 1 }
                .filter { _ in true }
                .startWithSignal { signal, interrupter in
                    signal.observe { event in
                        if case let .value(value) = event { values.append(value) } else { terminals.append(describe(event)) }
                    }
                    handle.withLock { $0 = interrupter }
                    ready.signal()
                }
            done.wait()
            let received = values.items
            #expect(received == Array(1..<(received.count + 1)))
            #expect(terminals.items == (received.count == 200 ? ["completed"] : ["interrupted"])
                || terminals.items == ["interrupted"])
            #expect(terminals.items.count == 1)
            #expect(disposed.count == 1)
        }
    }
}
