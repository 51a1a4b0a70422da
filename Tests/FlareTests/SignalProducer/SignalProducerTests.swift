import Flare
import Foundation
import Synchronization
import Testing

/// Records a producer's events as text, and its lifetime's end.
private func record<V, E>(_ producer: SignalProducer<V, E>) -> (log: Recorder<String>, disposable: Disposable) {
    let log = Recorder<String>()
    let disposable = producer.start { log.append(describe($0)) }
    return (log, disposable)
}

@Suite("SignalProducer: initializers, starting, disposal")
struct SignalProducerTests {
    @Test("value, error, result and action initializers, at every start")
    func initializers() {
        #expect(record(SignalProducer<Int, TestError>(value: 1)).log.items == ["v1", "completed"])
        #expect(record(SignalProducer<Int, TestError>(error: TestError(code: 2))).log.items == ["failed(E2)"])
        #expect(record(SignalProducer<Int, TestError>(result: .success(3))).log.items == ["v3", "completed"])
        #expect(record(SignalProducer<Int, TestError>(result: .failure(TestError(code: 4)))).log.items == ["failed(E4)"])
        let calls = Counter()
        let lazy = SignalProducer<Int, Never> { () -> Int in calls.increment(); return calls.count }
        #expect(calls.count == 0)
        #expect(record(lazy).log.items == ["v1", "completed"])
        #expect(record(lazy).log.items == ["v2", "completed"])
        let resulting = SignalProducer<Int, TestError> { () -> Result<Int, TestError> in .failure(TestError(code: 5)) }
        #expect(record(resulting).log.items == ["failed(E5)"])
        let throwing = SignalProducer<Int, Swift.Error> { () throws -> Int in throw TestError(code: 6) }
        #expect(record(throwing).log.items == ["failed(E6)"])
        let returning = SignalProducer<Int, Swift.Error> { () throws -> Int in 7 }
        #expect(record(returning).log.items == ["v7", "completed"])
    }

    @Test("sequence, values:, empty, never, a signal, and convertibles")
    func sources() {
        #expect(record(SignalProducer<Int, Never>([1, 2, 3])).log.items == ["v1", "v2", "v3", "completed"])
        #expect(record(SignalProducer<Int, Never>(values: 4, 5, 6, 7)).log.items == ["v4", "v5", "v6", "v7", "completed"])
        #expect(record(SignalProducer<Int, Never>.empty).log.items == ["completed"])
        let never = record(SignalProducer<Int, Never>.never)
        #expect(never.log.items == [])
        never.disposable.dispose()
        #expect(never.log.items == ["interrupted"])

        let (signal, input) = Signal<Int, Never>.pipe()
        input.send(value: 0)
        let fromSignal = record(SignalProducer(signal))
        let converted = record(SignalProducer(signal.producer))
        input.send(value: 1)
        fromSignal.disposable.dispose()
        input.send(value: 2)
        input.sendCompleted()
        #expect(fromSignal.log.items == ["v1", "interrupted"])
        #expect(converted.log.items == ["v1", "v2", "completed"])
        let again = SignalProducer(SignalProducer<Int, Never>(value: 9))
        #expect(record(again).log.items == ["v9", "completed"])
    }

    @Test("every start runs the start handler again, independently")
    func restartIndependence() {
        let starts = Counter()
        let cleanups = Counter()
        let producer = SignalProducer<Int, Never> { observer, lifetime in
            starts.increment()
            let run = starts.count
            lifetime.observeEnded { cleanups.increment() }
            observer.send(value: run * 10)
            observer.send(value: run * 10 + 1)
            observer.sendCompleted()
        }.map { $0 + 1 }
        let first = record(producer)
        let second = record(producer)
        #expect(starts.count == 2)
        #expect(cleanups.count == 2)
        #expect(first.log.items == ["v11", "v12", "completed"])
        #expect(second.log.items == ["v21", "v22", "completed"])
    }

    @Test("start family: values, result, completed, failed, interrupted")
    func startFamily() {
        let values = Recorder<Int>()
        SignalProducer<Int, Never>(values: 1, 2).startWithValues { values.append($0) }
        #expect(values.items == [1, 2])
        let results = Recorder<String>()
        SignalProducer<Int, TestError> { observer, _ in
            observer.send(value: 1)
            observer.send(error: TestError(code: 1))
        }.startWithResult { results.append("\($0)") }
        #expect(results.items == ["success(1)", "failure(E1)"])
        let completed = Counter()
        SignalProducer<Int, Never>(value: 1).startWithCompleted { completed.increment() }
        #expect(completed.count == 1)
        let failed = Recorder<TestError>()
        SignalProducer<Int, TestError>(error: TestError(code: 3)).startWithFailed { failed.append($0) }
        #expect(failed.items == [TestError(code: 3)])
        let interrupted = Counter()
        SignalProducer<Int, Never>.never.startWithInterrupted { interrupted.increment() }.dispose()
        #expect(interrupted.count == 1)
        var started = false
        SignalProducer<Int, Never> { _, _ in started = true }.start()
        #expect(started)
    }

    @Test("startWithSignal: the signal and its handle exist before the start handler runs")
    func startWithSignal() {
        let order = Recorder<String>()
        let producer = SignalProducer<Int, Never> { observer, _ in
            order.append("start")
            observer.send(value: 1)
            observer.sendCompleted()
        }.map { $0 * 2 }
        let result = producer.startWithSignal { signal, handle -> Int in
            order.append("setup")
            signal.observe { order.append(describe($0)) }
            #expect(!handle.isDisposed)
            return 42
        }
        #expect(result == 42)
        #expect(order.items == ["setup", "start", "v2", "completed"])
    }

    @Test("startWithSignal: disposing the handle inside setup means the start handler never runs")
    func startWithSignalDisposedInSetup() {
        let started = Counter()
        let log = Recorder<String>()
        SignalProducer<Int, Never> { _, _ in started.increment() }.map { $0 }.startWithSignal { signal, handle in
            signal.observe { log.append(describe($0)) }
            handle.dispose()
        }
        #expect(started.count == 0)
        #expect(log.items == ["interrupted"])
    }

    @Test("startWithSignal: a setup that keeps no reference to the signal still starts the source, then the run is interrupted")
    func startWithSignalReleasedInSetup() {
        let effects = Counter()
        let cleanups = Counter()
        SignalProducer<Int, Never> { _, lifetime in
            effects.increment()
            lifetime.observeEnded { cleanups.increment() }
        }.startWithSignal { _, _ in }
        #expect(effects.count == 1)
        #expect(cleanups.count == 1)
        // ReactiveSwift's SignalProducerSpec: side effects of a synchronous
        // source run though the signal was not kept.
        let values = Recorder<Int>()
        SignalProducer<Int, Never>(value: 42).on(value: { values.append($0) }).startWithSignal { _, _ in }
        #expect(values.items == [42])
    }

    @Test("dispose from inside the start handler: interrupted, cleanup once, later sends ignored")
    func disposeInsideStartHandler() {
        let cleanups = Counter()
        let log = Recorder<String>()
        let handle = Locked<Disposable?>(nil)
        let producer = SignalProducer<Int, Never> { observer, lifetime in
            lifetime.observeEnded { cleanups.increment() }
            observer.send(value: 1)
            handle.withLock { $0 }?.dispose()
            observer.send(value: 2)
            observer.sendCompleted()
        }
        producer.startWithSignal { signal, interrupter in
            signal.observe { log.append(describe($0)) }
            handle.withLock { $0 = interrupter }
        }
        #expect(log.items == ["v1", "interrupted"])
        #expect(cleanups.count == 1)
    }

    @Test("dispose from inside the observer: nothing more is delivered, the source stops, cleanup once")
    func disposeFromObserver() {
        let log = Recorder<String>()
        let cleanups = Counter()
        let sent = Counter()
        let producer = SignalProducer<Int, Never> { observer, lifetime in
            lifetime.observeEnded { cleanups.increment() }
            for i in 0..<10 where !lifetime.hasEnded {
                sent.increment()
                observer.send(value: i)
            }
        }.map { $0 }
        producer.startWithSignal { signal, handle in
            signal.observe { event in
                log.append(describe(event))
                if case .value(1) = event { handle.dispose() }
            }
        }
        #expect(log.items == ["v0", "v1", "interrupted"])
        #expect(sent.count == 2)
        #expect(cleanups.count == 1)
    }

    @Test("dispose from another thread during delivery: at most the delivery starting, then interrupted, cleanup once")
    func disposeFromAnotherThread() {
        for _ in 0..<30 {
            let received = Counter()
            let afterDispose = Counter()
            let disposedFlag = Atomic<Bool>(false)
            let cleanups = Counter()
            let log = Recorder<String>()
            let finished = DispatchSemaphore(value: 0)
            let producer = SignalProducer<Int, Never> { observer, lifetime in
                lifetime.observeEnded { cleanups.increment() }
                DispatchQueue.global().async {
                    var i = 0
                    while i < 1_000_000, !lifetime.hasEnded { observer.send(value: i); i += 1 }
                    finished.signal()
                }
            }.map { $0 + 1 }.filter { _ in true }
            let disposable = producer.start { event in
                if case .value = event {
                    received.increment()
                    if disposedFlag.load(ordering: .acquiring) { afterDispose.increment() }
                } else {
                    log.append(describe(event))
                }
            }
            while received.count < 10 {}
            disposable.dispose()
            disposedFlag.store(true, ordering: .releasing)
            finished.wait()
            #expect(afterDispose.count <= 1)
            #expect(log.items == ["interrupted"])
            #expect(cleanups.count == 1)
            disposable.dispose()
            #expect(cleanups.count == 1)
        }
    }

    @Test("a synchronous source disposed from another thread mid-sequence: at most the delivery starting, then interrupted")
    func disposeSynchronousSourceFromAnotherThread() {
        for _ in 0..<30 {
            let received = Counter()
            let afterDispose = Counter()
            let disposedFlag = Atomic<Bool>(false)
            let terminals = Recorder<String>()
            let disposed = Counter()
            let handle = Locked<Disposable?>(nil)
            let started = DispatchSemaphore(value: 0)
            let finished = DispatchSemaphore(value: 0)
            let producer = SignalProducer<Int, Never>(0..<100_000_000).map { $0 + 1 }.on(disposed: { disposed.increment() })
            DispatchQueue.global().async {
                producer.startWithSignal { signal, interrupter in
                    signal.observe { event in
                        if case .value = event {
                            received.increment()
                            if disposedFlag.load(ordering: .acquiring) { afterDispose.increment() }
                        } else {
                            terminals.append(describe(event))
                        }
                    }
                    handle.withLock { $0 = interrupter }
                    started.signal()
                }
                finished.signal()
            }
            started.wait()
            while received.count < 10 {}
            handle.withLock { $0 }?.dispose()
            disposedFlag.store(true, ordering: .releasing)
            finished.wait()
            #expect(afterDispose.count <= 1)
            #expect(terminals.items == ["interrupted"])
            #expect(disposed.count == 1)
        }
    }

    @Test("a synchronous source: disposal inside setup, from the observer, and by an operator")
    func synchronousSourceDisposal() {
        let log = Recorder<String>()
        SignalProducer<Int, Never>(values: 1, 2, 3).startWithSignal { signal, handle in
            signal.observe { log.append(describe($0)) }
            handle.dispose()
        }
        #expect(log.items == ["interrupted"])
        let fromObserver = Recorder<String>()
        SignalProducer<Int, Never>(0..<10).startWithSignal { signal, handle in
            signal.observe { event in
                fromObserver.append(describe(event))
                if case .value(1) = event { handle.dispose() }
            }
        }
        #expect(fromObserver.items == ["v0", "v1", "interrupted"])
        let iterated = Counter()
        let taken = Recorder<String>()
        SignalProducer<Int, Never>((0..<1_000_000).lazy.map { value in iterated.increment(); return value })
            .take(first: 2).start { taken.append(describe($0)) }
        #expect(taken.items == ["v0", "v1", "completed"])
        #expect(iterated.count == 2)
    }

    @Test("disposing a run that has completed runs no cleanup again")
    func disposeAfterCompletion() {
        let cleanups = Counter()
        let log = Recorder<String>()
        let disposable = SignalProducer<Int, Never> { observer, lifetime in
            lifetime.observeEnded { cleanups.increment() }
            observer.send(value: 1)
            observer.sendCompleted()
        }.start { log.append(describe($0)) }
        #expect(cleanups.count == 1)
        disposable.dispose()
        #expect(cleanups.count == 1)
        #expect(log.items == ["v1", "completed"])
    }

    @Test("memory is released after completion, disposal and an abandoned start")
    func memoryReleased() {
        weak var afterCompletion: Canary?
        weak var afterDisposal: Canary?
        weak var abandoned: Canary?
        do {
            let canary = Canary()
            afterCompletion = canary
            SignalProducer<Int, Never> { observer, lifetime in
                lifetime.observeEnded { withExtendedLifetime(canary) {} }
                observer.sendCompleted()
            }.map { $0 }.start()
        }
        #expect(afterCompletion == nil)
        do {
            let canary = Canary()
            afterDisposal = canary
            let disposable = SignalProducer<Int, Never> { observer, lifetime in
                lifetime.observeEnded { withExtendedLifetime((canary, observer)) {} }
            }.map { $0 }.start { _ in withExtendedLifetime(canary) {} }
            disposable.dispose()
        }
        #expect(afterDisposal == nil)
        do {
            let canary = Canary()
            abandoned = canary
            let interrupted = Counter()
            // The start handler drops its observer without a terminal event.
            SignalProducer<Int, Never> { _, lifetime in
                lifetime.observeEnded { withExtendedLifetime(canary) {} }
            }.map { $0 }.startWithInterrupted { interrupted.increment() }
            #expect(interrupted.count == 1)
        }
        #expect(abandoned == nil)
    }
}
