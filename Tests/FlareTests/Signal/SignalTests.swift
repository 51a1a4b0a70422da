import Flare
import Foundation
import Synchronization
import Testing

@Suite("Signal: grammar, observe, lifetime")
struct SignalTests {
    @Test("values then one terminal event, nothing after it")
    func grammar() {
        let (signal, input) = Signal<Int, TestError>.pipe()
        let log = Recorder<String>()
        signal.observe { log.append(describe($0)) }
        input.send(value: 1)
        input.send(value: 2)
        input.send(error: TestError(code: 7))
        input.send(value: 3)
        input.sendCompleted()
        input.sendInterrupted()
        #expect(log.items == ["v1", "v2", "failed(E7)"])
    }

    @Test("observers are called in attach order and see the same sequence")
    func attachOrder() {
        let (signal, input) = Signal<Int, Never>.pipe()
        let log = Recorder<String>()
        for name in ["a", "b", "c"] {
            signal.observeValues { log.append("\(name)\($0)") }
        }
        input.send(value: 1)
        input.send(value: 2)
        #expect(log.items == ["a1", "b1", "c1", "a2", "b2", "c2"])
    }

    @Test("an observer receives only events sent after observe returns")
    func observeLate() {
        let (signal, input) = Signal<Int, Never>.pipe()
        let log = Recorder<Int>()
        input.send(value: 1)
        signal.observeValues { log.append($0) }
        input.send(value: 2)
        #expect(log.items == [2])
    }

    @Test("observing a terminated signal delivers interrupted and returns nil")
    func observeTerminated() {
        let (signal, input) = Signal<Int, Never>.pipe()
        input.sendCompleted()
        let log = Recorder<String>()
        let disposable = signal.observe { log.append(describe($0)) }
        #expect(disposable == nil)
        #expect(log.items == ["interrupted"])
    }

    @Test("observe family routes each kind of event")
    func observeFamily() {
        let (signal, input) = Signal<Int, TestError>.pipe()
        let log = Recorder<String>()
        signal.observeValues { log.append("value \($0)") }
        signal.observeFailed { log.append("failed \($0)") }
        signal.observeCompleted { log.append("completed") }
        signal.observeInterrupted { log.append("interrupted") }
        signal.observeResult { result in
            switch result {
            case let .success(v): log.append("result \(v)")
            case let .failure(e): log.append("result \(e)")
            }
        }
        input.send(value: 4)
        input.send(error: TestError(code: 1))
        #expect(log.items == ["value 4", "result 4", "failed E1", "result E1"])
    }

    @Test("a value sent from inside an observer is delivered after the current one, to everyone")
    func reentrantSend() {
        let (signal, input) = Signal<Int, Never>.pipe()
        let log = Recorder<String>()
        signal.observeValues { value in
            log.append("a\(value)")
            if value < 3 { input.send(value: value + 10) ; input.send(value: value + 1) }
        }
        signal.observeValues { log.append("b\($0)") }
        input.send(value: 1)
        #expect(log.items == [
            "a1", "b1",
            "a11", "b11", "a2", "b2",
            "a12", "b12", "a3", "b3",
        ])
        // The observer holds `input`, which holds the signal, which holds the
        // observer: end the signal so that cycle is released.
        input.sendCompleted()
    }

    @Test("a terminal event sent from inside an observer ends delivery after the current event")
    func reentrantTerminal() {
        let (signal, input) = Signal<Int, Never>.pipe()
        let log = Recorder<String>()
        signal.observe { event in
            log.append("a:" + describe(event))
            if event.value == 1 { input.sendCompleted(); input.send(value: 99) }
        }
        signal.observe { log.append("b:" + describe($0)) }
        input.send(value: 1)
        input.send(value: 2)
        #expect(log.items == ["a:v1", "b:v1", "a:completed", "b:completed"])
    }

    @Test("an observer disposed inside another's callback misses the event being delivered")
    func disposeFromPeer() {
        let (signal, input) = Signal<Int, Never>.pipe()
        let log = Recorder<String>()
        let later = Locked<Disposable?>(nil)
        signal.observeValues { value in
            log.append("a\(value)")
            if value == 2 { later.withLock { $0?.dispose() } }
        }
        let disposable = signal.observeValues { log.append("b\($0)") }
        later.withLock { $0 = disposable }
        input.send(value: 1)
        input.send(value: 2)
        input.send(value: 3)
        #expect(log.items == ["a1", "b1", "a2", "a3"])
        #expect(disposable?.isDisposed == true)
    }

    @Test("an observer can dispose itself from its own callback")
    func disposeSelf() {
        let (signal, input) = Signal<Int, Never>.pipe()
        let log = Recorder<Int>()
        let me = Locked<Disposable?>(nil)
        let disposable = signal.observeValues { value in
            log.append(value)
            me.withLock { $0?.dispose() }
        }
        me.withLock { $0 = disposable }
        input.send(value: 1)
        input.send(value: 2)
        #expect(log.items == [1])
    }

    @Test("an observer attached inside a callback receives from the next event on")
    func observeFromCallback() {
        let (signal, input) = Signal<Int, Never>.pipe()
        let log = Recorder<String>()
        let attached = Atomic<Bool>(false)
        signal.observeValues { value in
            log.append("a\(value)")
            if !attached.exchange(true, ordering: .relaxed) {
                signal.observeValues { log.append("late\($0)") }
            }
        }
        input.send(value: 1)
        input.send(value: 2)
        #expect(log.items == ["a1", "a2", "late2"])
    }

    @Test("an observer attached from inside the terminal event's delivery hears interrupted before observe returns (ReactiveSwift's order)")
    func observeFromTerminalDelivery() {
        let (signal, input) = Signal<Int, Never>.pipe()
        let log = Recorder<String>()
        signal.observe { event in
            log.append("a " + describe(event))
            let disposable = signal.observe { log.append("late " + describe($0)) }
            log.append("observe returned \(disposable == nil ? "nil" : "a disposable")")
        }
        signal.observe { log.append("b " + describe($0)) }
        input.sendCompleted()
        #expect(log.items == ["a completed", "late interrupted", "observe returned nil", "b completed"])
    }

    @Test("dispose is idempotent and sends after termination are ignored")
    func hostileRepeats() {
        let (signal, input) = Signal<Int, Never>.pipe()
        let log = Recorder<String>()
        let d = signal.observe { log.append(describe($0)) }
        d?.dispose()
        d?.dispose()
        let e = signal.observe { log.append("2:" + describe($0)) }
        input.sendCompleted()
        input.sendCompleted()
        input.send(value: 1)
        e?.dispose()
        #expect(log.items == ["2:completed"])
    }

    @Test("a disposed observer's closure is released at once")
    func disposeReleases() {
        let (signal, input) = Signal<Int, Never>.pipe()
        weak var weakCanary: Canary?
        var disposable: Disposable?
        do {
            let canary = Canary()
            weakCanary = canary
            disposable = signal.observeValues { _ in withExtendedLifetime(canary) {} }
        }
        input.send(value: 1)
        #expect(weakCanary != nil)
        disposable?.dispose()
        #expect(weakCanary == nil)
        withExtendedLifetime(input) {}
    }

    @Test("observers are released when the signal terminates")
    func terminationReleases() {
        let (signal, input) = Signal<Int, Never>.pipe()
        weak var weakCanary: Canary?
        do {
            let canary = Canary()
            weakCanary = canary
            signal.observeValues { _ in withExtendedLifetime(canary) {} }
        }
        #expect(weakCanary != nil)
        input.sendCompleted()
        #expect(weakCanary == nil)
    }

    @Test("an observer disposed during a delivery is released when that event is done, or at once if no delivery has picked it up")
    func disposeDuringDeliveryReleases() {
        let (signal, input) = Signal<Int, Never>.pipe()
        weak var weakSpliced: Canary?
        weak var weakFresh: Canary?
        weak var weakCovered: Canary?
        var spliced: Disposable?
        var later: Disposable?
        var releasedInside: [Bool] = []
        do {
            let canary = Canary()
            weakSpliced = canary
            spliced = signal.observeValues { _ in withExtendedLifetime(canary) {} }
        }
        let driver = signal.observeValues { value in
            guard value == 2 else { return }
            // Attached during this delivery: it has seen no event, so its
            // disposal takes it back and releases it before returning.
            do {
                let canary = Canary()
                weakFresh = canary
                let fresh = signal.observeValues { _ in withExtendedLifetime(canary) {} }
                fresh?.dispose()
            }
            releasedInside.append(weakFresh == nil)
            // The same, attached before another observer that is still
            // attached: no drain will deliver to it, so it is released at
            // once too (the next event's drain drops its entry).
            do {
                let canary = Canary()
                weakCovered = canary
                let covered = signal.observeValues { _ in withExtendedLifetime(canary) {} }
                later = signal.observeValues { _ in }
                covered?.dispose()
            }
            releasedInside.append(weakCovered == nil)
            // Attached before this event: the delivery in progress may still
            // be using it, so it is released once the event is done.
            spliced?.dispose()
            releasedInside.append(weakSpliced == nil)
        }
        input.send(value: 1)
        input.send(value: 2)
        #expect(releasedInside == [true, true, false])
        #expect(weakSpliced == nil)
        input.send(value: 3)
        withExtendedLifetime((driver, later)) {}
    }

    @Test("a signal with no observers and no reference is released and its lifetime ends once")
    func unreferencedSignalEnds() {
        let ended = Counter()
        weak var weakSignal: Signal<Int, Never>?
        var input: Signal<Int, Never>.Observer?
        do {
            let signal = Signal<Int, Never> { observer, lifetime in
                input = observer
                lifetime.observeEnded { ended.increment() }
            }
            weakSignal = signal
        }
        #expect(weakSignal == nil)
        #expect(ended.count == 1)
        input?.send(value: 1)
        input = nil
        #expect(ended.count == 1)
    }

    @Test("an observed signal stays alive without a reference, until its last observer goes")
    func observedSignalStaysAlive() {
        let ended = Counter()
        let log = Recorder<String>()
        var input: Signal<Int, Never>.Observer?
        var disposable: Disposable?
        do {
            let signal = Signal<Int, Never> { observer, lifetime in
                input = observer
                lifetime.observeEnded { ended.increment() }
            }
            disposable = signal.observe { log.append(describe($0)) }
        }
        input?.send(value: 1)
        #expect(log.items == ["v1"])
        #expect(ended.count == 0)
        disposable?.dispose()
        #expect(ended.count == 1)
        input?.send(value: 2)
        #expect(log.items == ["v1"])
    }

    @Test("releasing the input interrupts the signal")
    func releasingInputInterrupts() {
        let log = Recorder<String>()
        let disposed = Counter()
        var pipe: (output: Signal<Int, Never>, input: Signal<Int, Never>.Observer)? =
            Signal<Int, Never>.pipe(disposable: AnyDisposable { disposed.increment() })
        pipe!.output.observe { log.append(describe($0)) }
        pipe!.input.send(value: 1)
        let output = pipe!.output
        pipe = nil
        #expect(log.items == ["v1", "interrupted"])
        #expect(disposed.count == 1)
        withExtendedLifetime(output) {}
    }

    @Test("never sends nothing; empty completes")
    func neverAndEmpty() {
        let log = Recorder<String>()
        let never = Signal<Int, Never>.never
        let d = never.observe { log.append("never " + describe($0)) }
        Signal<Int, Never>.empty.observe { log.append("empty " + describe($0)) }
        #expect(log.items == ["empty interrupted"])
        d?.dispose()
        #expect(log.items == ["empty interrupted"])
    }

    @Test("a generator that terminates synchronously")
    func synchronousGenerator() {
        let log = Recorder<String>()
        let ended = Counter()
        let signal = Signal<Int, Never> { observer, lifetime in
            lifetime.observeEnded { ended.increment() }
            observer.send(value: 1)
            observer.sendCompleted()
        }
        #expect(ended.count == 1)
        signal.observe { log.append(describe($0)) }
        #expect(log.items == ["interrupted"])
    }

    @Test("Event accessors")
    func eventAccessors() {
        typealias E = Signal<Int, TestError>.Event
        #expect(E.value(3).value == 3)
        #expect(E.value(3).isTerminating == false)
        #expect(E.failed(TestError(code: 2)).error == TestError(code: 2))
        #expect(E.completed.isTerminating && E.completed.isCompleted)
        #expect(E.interrupted.isTerminating && !E.interrupted.isCompleted)
        #expect(E.value(3).map { $0 * 2 } == .value(6))
        #expect(E.failed(TestError(code: 2)).mapError { TestError(code: $0.code + 1) } == .failed(TestError(code: 3)))
    }
}
