import Flare
import Foundation
import Synchronization
import Testing

/// A start-handler producer's run serializes what its handler sends itself
/// (no root signal): sends from several threads, reentrant sends, prompt
/// interruption, termination closing the run, and what the run releases.
@Suite("SignalProducer start handler: the run serializes its own sends")
struct StartHandlerSerializationTests {
    @Test("sends from four threads into one run: each value once, never concurrently, per-sender order, one completion")
    func sendsFromSeveralThreads() {
        let perThread = runningUnderSanitizer ? 2_000 : 20_000
        let values = Recorder<Int>()
        let terminals = Recorder<String>()
        let cleanups = Counter()
        let inside = Unguarded(false)
        let overlaps = Counter()
        let finished = DispatchSemaphore(value: 0)
        let producer = SignalProducer<Int, Never> { observer, lifetime in
            lifetime.observeEnded { cleanups.increment() }
            DispatchQueue.global().async {
                onThreads(4) { thread in
                    for i in 0..<perThread { observer.send(value: thread * perThread + i) }
                }
                observer.sendCompleted()
                observer.send(value: -1)
                finished.signal()
            }
        }.map { $0 }
        producer.start { event in
            // Unguarded: ThreadSanitizer reports these accesses unless the
            // run orders the deliveries itself.
            if inside.value { overlaps.increment() }
            inside.value = true
            if case let .value(value) = event { values.append(value) } else { terminals.append(describe(event)) }
            inside.value = false
        }
        finished.wait()
        let received = values.items
        #expect(received.count == 4 * perThread)
        #expect(Set(received).count == 4 * perThread)
        for thread in 0..<4 {
            let own = received.filter { $0 / perThread == thread }
            #expect(own == own.sorted())
        }
        #expect(overlaps.count == 0)
        #expect(terminals.items == ["completed"])
        #expect(cleanups.count == 1)
    }

    @Test("a send from inside the observer is queued behind the current event (_FIFO); sends after the terminal event are dropped")
    func reentrantSends() {
        let log = Recorder<String>()
        let input = Locked<Signal<Int, Never>.Observer?>(nil)
        let cleanups = Counter()
        SignalProducer<Int, Never> { observer, lifetime in
            lifetime.observeEnded { cleanups.increment() }
            input.withLock { $0 = observer }
            observer.send(value: 1)
            observer.send(value: 2)
            #expect(lifetime.hasEnded)
            observer.send(value: 3)
        }.map { $0 * 10 }.start { event in
            log.append(describe(event))
            let observer = input.withLock { $0 }!
            switch event {
            case .value(10):
                observer.send(value: 5)
                observer.send(value: 6)
            case .value(50):
                observer.sendCompleted()
                observer.send(value: 7)
            default: break
            }
        }
        #expect(log.items == ["v10", "v50", "v60", "completed"])
        #expect(cleanups.count == 1)
        input.withLock { $0 = nil }
        #expect(cleanups.count == 1)
    }

    @Test("disposal during a delivery overtakes the values queued behind it: the delivery finishes, then interrupted")
    func promptInterruption() {
        let log = Recorder<String>()
        let cleanups = Counter()
        let delivering = DispatchSemaphore(value: 0)
        let resume = DispatchSemaphore(value: 0)
        let queued = DispatchSemaphore(value: 0)
        let input = Locked<Signal<Int, Never>.Observer?>(nil)
        let handle = SignalProducer<Int, Never> { observer, lifetime in
            lifetime.observeEnded { cleanups.increment() }
            input.withLock { $0 = observer }
        }.map { $0 }.start { event in
            log.append(describe(event))
            if case .value(0) = event {
                delivering.signal()
                resume.wait()
            }
        }
        let observer = input.withLock { $0 }!
        DispatchQueue.global().async { observer.send(value: 0) }
        delivering.wait()
        // Queued behind the delivery of 0, which holds the run.
        DispatchQueue.global().async {
            for value in 1...5 { observer.send(value: value) }
            queued.signal()
        }
        queued.wait()
        handle.dispose()
        #expect(cleanups.count == 0)
        resume.signal()
        // The delivering thread delivers the interruption, ends the run's
        // lifetime and drops the queued values; wait for it by sending
        // once more (dropped: the run is closed) until the cleanup ran.
        while cleanups.count == 0 { observer.send(value: 99) }
        #expect(log.items == ["v0", "interrupted"])
        #expect(cleanups.count == 1)
        input.withLock { $0 = nil }
    }

    @Test("an operator that ends the run from inside its delivery ends the handler's lifetime before the send returns")
    func endedByAnOperator() {
        let log = Recorder<String>()
        let states = Recorder<Bool>()
        let cleanups = Counter()
        SignalProducer<Int, Never> { observer, lifetime in
            lifetime.observeEnded { cleanups.increment() }
            for value in 0..<5 {
                observer.send(value: value)
                states.append(lifetime.hasEnded)
            }
        }.take(first: 2).map { $0 + 1 }.start { log.append(describe($0)) }
        #expect(log.items == ["v1", "v2", "completed"])
        #expect(states.items == [false, true, true, true, true])
        #expect(cleanups.count == 1)
    }

    @Test("a terminated run releases its chain and observer while the handler keeps its input")
    func releasesChainWhileInputKept() {
        weak var weakCanary: Canary?
        let input = Locked<Signal<Int, Never>.Observer?>(nil)
        let handle: Disposable
        do {
            let canary = Canary()
            weakCanary = canary
            handle = SignalProducer<Int, Never> { observer, _ in
                input.withLock { $0 = observer }
                observer.send(value: 1)
                observer.sendCompleted()
            }.map { $0 }.start { _ in withExtendedLifetime(canary) {} }
        }
        // The input and the handle live on; the chain does not.
        #expect(weakCanary == nil)
        input.withLock { $0 }?.send(value: 2)
        handle.dispose()
        input.withLock { $0 = nil }
    }

    @Test("a kept handle does not keep what the start handler captured, once the handler has run")
    func keptHandleReleasesHandler() {
        weak var weakCanary: Canary?
        var producer: SignalProducer<Int, Never>?
        let input = Locked<Signal<Int, Never>.Observer?>(nil)
        do {
            let canary = Canary()
            weakCanary = canary
            producer = SignalProducer<Int, Never> { observer, _ in
                withExtendedLifetime(canary) {}
                input.withLock { $0 = observer }
            }
        }
        let handle = producer!.start()
        producer = nil
        // The run goes on (its input is kept), its handle too; the handler,
        // and the canary it captured, are gone.
        #expect(weakCanary == nil)
        #expect(!handle.isDisposed)
        handle.dispose()
        input.withLock { $0 = nil }
    }

    @Test("a run is released when its handle and input go, after completion, disposal or abandonment")
    func runReleased() {
        final class Probe: @unchecked Sendable {
            weak var lifetime: Lifetime?
        }
        for ending in ["complete", "dispose", "abandon"] {
            let probe = Probe()
            let interrupted = Counter()
            do {
                let handle = SignalProducer<Int, Never> { observer, lifetime in
                    probe.lifetime = lifetime
                    if ending == "complete" { observer.sendCompleted() }
                    if ending == "dispose" { lifetime.observeEnded { withExtendedLifetime(observer) {} } }
                }.startWithInterrupted { interrupted.increment() }
                if ending == "dispose" { handle.dispose() }
                // Abandoned by its handler, the run lives while its handle
                // does (ReactiveSwift's handle keeps the input observer).
                #expect((probe.lifetime?.hasEnded ?? true) == (ending != "abandon"))
                #expect(interrupted.count == (ending == "dispose" ? 1 : 0))
            }
            // The lifetime belongs to the run: it goes with it.
            #expect(probe.lifetime == nil)
            #expect(interrupted.count == (ending == "complete" ? 0 : 1))
        }
    }
}
