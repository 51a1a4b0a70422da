import Foundation
import Testing

@testable import Flare

/// A producer whose runs count their starts and cleanups, and send what the
/// test pushes into the last run's observer.
private final class Source<Value, Failure: Swift.Error>: @unchecked Sendable {
    let starts = Counter()
    let cleanups = Counter()
    private(set) var observer: Signal<Value, Failure>.Observer?

    var producer: SignalProducer<Value, Failure> {
        SignalProducer { observer, lifetime in
            self.starts.increment()
            self.observer = observer
            lifetime.observeEnded { self.cleanups.increment() }
        }
    }
}

@Suite("timeout, flatMapError, take(until:), take(during:) on producers: runs observed directly")
struct ProducerReplacementTests {
    @Test("timeout: values pass through; at the deadline the run fails, the source's run ends and the timer is gone")
    func timeoutFires() {
        let scheduler = TestScheduler()
        let source = Source<Int, TestError>()
        let log = Recorder<String>()
        source.producer.timeout(after: 2, raising: TestError(code: 9), on: scheduler).start { log.append(describe($0)) }
        #expect(source.starts.count == 1)
        #expect(scheduler.pendingCount == 1)
        source.observer?.send(value: 1)
        scheduler.advance(by: .seconds(1))
        source.observer?.send(value: 2)
        #expect(log.items == ["v1", "v2"])
        scheduler.advance(by: .seconds(1))
        #expect(log.items == ["v1", "v2", "failed(E9)"])
        #expect(source.cleanups.count == 1)
        #expect(scheduler.pendingCount == 0)
        source.observer?.send(value: 3)
        #expect(log.items == ["v1", "v2", "failed(E9)"])
    }

    @Test("timeout: a run that ends first drops its timer; each start counts from its own start")
    func timeoutPerRun() {
        let scheduler = TestScheduler()
        let source = Source<Int, TestError>()
        let producer = source.producer.timeout(after: 2, raising: TestError(code: 9), on: scheduler)
        let first = Recorder<String>()
        producer.start { first.append(describe($0)) }
        source.observer?.sendCompleted()
        #expect(first.items == ["completed"])
        #expect(scheduler.pendingCount == 0)
        scheduler.advance(by: .seconds(1))
        let second = Recorder<String>()
        producer.start { second.append(describe($0)) }
        scheduler.advance(by: .seconds(1))
        #expect(second.items == [])
        scheduler.advance(by: .seconds(1))
        #expect(second.items == ["failed(E9)"])
        #expect(first.items == ["completed"])
        #expect(source.starts.count == 2)
        #expect(source.cleanups.count == 2)
    }

    @Test("timeout: disposing the run interrupts the source's run and drops the timer")
    func timeoutDisposal() {
        let scheduler = TestScheduler()
        let source = Source<Int, TestError>()
        let log = Recorder<String>()
        let disposable = source.producer.timeout(after: 2, raising: TestError(code: 9), on: scheduler)
            .start { log.append(describe($0)) }
        disposable.dispose()
        #expect(log.items == ["interrupted"])
        #expect(source.cleanups.count == 1)
        #expect(scheduler.pendingCount == 0)
        scheduler.advance(by: .seconds(3))
        #expect(log.items == ["interrupted"])
    }

    @Test("timeout on a producer that cannot fail: its events, then the promoted error")
    func timeoutPromoting() {
        let scheduler = TestScheduler()
        let (signal, input) = Signal<Int, Never>.pipe()
        let log = Recorder<String>()
        SignalProducer(signal).timeout(after: 1, raising: TestError(code: 4), on: scheduler).start { log.append(describe($0)) }
        input.send(value: 7)
        scheduler.advance(by: .seconds(1))
        input.send(value: 8)
        #expect(log.items == ["v7", "failed(E4)"])
    }

    @Test("flatMapError: values pass through; at the failure the replacement starts, the source's run ends, the replacement's events follow")
    func flatMapErrorReplaces() {
        let source = Source<Int, TestError>()
        let replacement = Source<Int, TestError>()
        let log = Recorder<String>()
        source.producer.flatMapError { error in replacement.producer.map { $0 + error.code * 100 } }
        .start { log.append(describe($0)) }
        source.observer?.send(value: 1)
        source.observer?.send(error: TestError(code: 2))
        #expect(replacement.starts.count == 1)
        #expect(source.cleanups.count == 1)
        replacement.observer?.send(value: 5)
        replacement.observer?.send(error: TestError(code: 3))
        #expect(log.items == ["v1", "v205", "failed(E3)"])
        #expect(replacement.cleanups.count == 1)
    }

    @Test("flatMapError: completed and interrupted of the source pass through; no replacement starts")
    func flatMapErrorTerminals() {
        for terminal in ["completed", "interrupted"] {
            let source = Source<Int, TestError>()
            let replacement = Source<Int, TestError>()
            let log = Recorder<String>()
            source.producer.flatMapError { _ in replacement.producer }.start { log.append(describe($0)) }
            if terminal == "completed" { source.observer?.sendCompleted() } else { source.observer?.sendInterrupted() }
            #expect(log.items == [terminal])
            #expect(replacement.starts.count == 0)
            #expect(source.cleanups.count == 1)
        }
    }

    @Test("flatMapError: disposing before the failure interrupts the source's run and starts nothing")
    func flatMapErrorDisposalBeforeFailure() {
        let source = Source<Int, TestError>()
        let replacement = Source<Int, TestError>()
        let log = Recorder<String>()
        let disposable = source.producer.flatMapError { _ in replacement.producer }.start { log.append(describe($0)) }
        disposable.dispose()
        #expect(log.items == ["interrupted"])
        #expect(source.cleanups.count == 1)
        source.observer?.send(error: TestError(code: 1))
        #expect(replacement.starts.count == 0)
        #expect(log.items == ["interrupted"])
    }

    @Test("take(until:): the trigger starts first; its value completes the run and interrupts the source's run")
    func takeUntilFires() {
        let source = Source<Int, TestError>()
        let trigger = Source<(), Never>()
        let log = Recorder<String>()
        source.producer.take(until: trigger.producer).start { log.append(describe($0)) }
        #expect(trigger.starts.count == 1)
        #expect(source.starts.count == 1)
        source.observer?.send(value: 1)
        trigger.observer?.send(value: ())
        source.observer?.send(value: 2)
        #expect(log.items == ["v1", "completed"])
        #expect(source.cleanups.count == 1)
        #expect(trigger.cleanups.count == 1)
    }

    @Test("take(until:): a trigger that fires while starting ends the run before the source starts")
    func takeUntilImmediate() {
        let source = Source<Int, TestError>()
        let log = Recorder<String>()
        source.producer.take(until: SignalProducer<(), Never>(value: ())).start { log.append(describe($0)) }
        #expect(log.items == ["completed"])
        #expect(source.starts.count == 0)
        // A terminated signal's producer sends `interrupted`, which a
        // trigger's run may send and is ignored: the source starts.
        let signalTrigger = Signal<(), Never>.pipe()
        signalTrigger.input.sendCompleted()
        let second = Recorder<String>()
        source.producer.take(until: signalTrigger.output).start { second.append(describe($0)) }
        source.observer?.send(value: 3)
        // Ended, or the run (kept by the observer `source` holds) and the
        // source (kept by the run's cleanup) would keep each other.
        source.observer?.sendCompleted()
        #expect(second.items == ["v3", "completed"])
        #expect(source.starts.count == 1)
    }

    @Test("take(until:): the trigger's interruption is ignored; the source's terminal event ends the trigger's run")
    func takeUntilTerminals() {
        let source = Source<Int, TestError>()
        let trigger = Source<(), Never>()
        let log = Recorder<String>()
        source.producer.take(until: trigger.producer).start { log.append(describe($0)) }
        trigger.observer?.sendInterrupted()
        source.observer?.send(value: 1)
        source.observer?.send(error: TestError(code: 5))
        #expect(log.items == ["v1", "failed(E5)"])
        #expect(trigger.cleanups.count == 1)
        #expect(source.cleanups.count == 1)
    }

    @Test("take(until:): disposing the run interrupts both runs")
    func takeUntilDisposal() {
        let source = Source<Int, TestError>()
        let trigger = Source<(), Never>()
        let log = Recorder<String>()
        let disposable = source.producer.take(until: trigger.producer).start { log.append(describe($0)) }
        disposable.dispose()
        #expect(log.items == ["interrupted"])
        #expect(source.cleanups.count == 1)
        #expect(trigger.cleanups.count == 1)
    }

    @Test("take(during:): the lifetime's end completes the run and interrupts the source's run; after it, a start is interrupted")
    func takeDuring() {
        let source = Source<Int, TestError>()
        let (lifetime, token) = Lifetime.make()
        let log = Recorder<String>()
        let producer = source.producer.take(during: lifetime)
        producer.start { log.append(describe($0)) }
        source.observer?.send(value: 1)
        token.dispose()
        source.observer?.send(value: 2)
        #expect(log.items == ["v1", "completed"])
        #expect(source.cleanups.count == 1)
        // As in ReactiveSwift (the run's signal completed before it was
        // observed): interrupted, and the source does not start.
        let late = Recorder<String>()
        producer.start { late.append(describe($0)) }
        #expect(late.items == ["interrupted"])
        #expect(source.starts.count == 1)
    }

    @Test("take(during:): a run that ends first lets go of the lifetime's handler and the run")
    func takeDuringRelease() {
        let (lifetime, token) = Lifetime.make()
        weak var weakObserver: Signal<Int, TestError>.Observer?
        do {
            let source = Source<Int, TestError>()
            let log = Recorder<String>()
            source.producer.take(during: lifetime).start { log.append(describe($0)) }
            weakObserver = source.observer
            source.observer?.sendCompleted()
            #expect(log.items == ["completed"])
        }
        #expect(weakObserver == nil)
        token.dispose()
    }
}
