import CFlare
import Flare
import Foundation
import Synchronization
import Testing

@Suite("Bad input and hostile use")
struct HostileUseTests {
    @Test("an observer that sends to its own signal 100 000 times: queued, in order, no stack growth")
    func selfFeedingObserver() {
        let (signal, input) = Signal<Int, Never>.pipe()
        let log = Recorder<Int>()
        signal.observeValues { value in
            log.append(value)
            if value < 100_000 { input.send(value: value + 1) }
        }
        input.send(value: 1)
        let items = log.items
        #expect(items.count == 100_000)
        #expect(items == Array(1...100_000))
        // The observer holds `input`, which holds the signal, which holds the
        // observer: end the signal so that cycle (and the log) is released.
        input.sendCompleted()
    }

    @Test("releasing the last reference to a signal and its input from inside its own callback")
    func releaseFromInsideCallback() {
        weak var weakSignal: Signal<Int, Never>?
        weak var weakCanary: Canary?
        let log = Recorder<String>()
        final class Holder: @unchecked Sendable {
            var signal: Signal<Int, Never>?
            var input: Signal<Int, Never>.Observer?
        }
        let holder = Holder()
        do {
            let (signal, input) = Signal<Int, Never>.pipe()
            let canary = Canary()
            weakCanary = canary
            weakSignal = signal
            holder.signal = signal
            holder.input = input
            signal.observe { event in
                log.append(describe(event))
                withExtendedLifetime(canary) {}
                if event.value == 1 {
                    holder.signal = nil
                    holder.input = nil  // interrupts: queued behind this delivery
                }
            }
        }
        holder.input?.send(value: 1)
        #expect(log.items == ["v1", "interrupted"])
        #expect(weakSignal == nil)
        #expect(weakCanary == nil)
    }

    @Test("disposing from another thread while the observer is running")
    func disposeWhileRunning() {
        let (signal, input) = Signal<Int, Never>.pipe()
        let entered = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let log = Recorder<Int>()
        let disposable = signal.observeValues { value in
            log.append(value)
            if value == 1 {
                entered.signal()
                proceed.wait()
            }
        }
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            input.send(value: 1)
            input.send(value: 2)
            done.signal()
        }
        entered.wait()
        disposable?.dispose()  // returns at once although the observer is running
        #expect(disposable?.isDisposed == true)
        proceed.signal()
        done.wait()
        #expect(log.items == [1])
    }

    @Test("one million observers attached and removed")
    func millionObservers() {
        millionObserversRoundTrip()
    }
}

/// Attaches a million observers, delivers to all, disposes all; returns
/// whether every observer closure was released.
func millionObserversRoundTrip() {
        let (signal, input) = Signal<Int, Never>.pipe()
        let count = 1_000_000
        let hits = Counter()
        weak var weakCanary: Canary?
        var disposables: [Disposable] = []
        disposables.reserveCapacity(count)
        do {
            let canary = Canary()
            weakCanary = canary
            for _ in 0..<count {
                disposables.append(signal.observeValues { _ in hits.increment(); withExtendedLifetime(canary) {} }!)
            }
        }
        input.send(value: 1)
        #expect(hits.count == count)
        for d in disposables.reversed() { d.dispose() }
        input.send(value: 2)
        #expect(hits.count == count)
        #expect(weakCanary == nil)
        disposables.removeAll()
        withExtendedLifetime(input) {}
}

extension HostileUseTests {

    @Test("terminal events from many threads at once: one terminal, lifetime ended once")
    func terminateFromManyThreads() {
        for _ in 0..<100 {
            let ended = Counter()
            let (signal, input) = Signal<Int, TestError>.pipe(disposable: AnyDisposable { ended.increment() })
            let terminals = Counter()
            signal.observe { if $0.isTerminating { terminals.increment() } }
            DispatchQueue.concurrentPerform(iterations: 4) { i in
                switch i {
                case 0: input.sendCompleted()
                case 1: input.send(error: TestError(code: 1))
                case 2: input.sendInterrupted()
                default: input.sendCompleted()
                }
            }
            #expect(terminals.count == 1)
            #expect(ended.count == 1)
        }
    }
}
