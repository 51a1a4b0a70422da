import Flare
import Foundation
import Testing

private func events<V, E>(_ producer: SignalProducer<V, E>) -> [String] {
    let log = Recorder<String>()
    producer.start { log.append(describe($0)) }
    return log.items
}

/// Fails its first `failures` starts (after sending the start's number),
/// then sends it and completes.
private func flaky(failures: Int, starts: Counter) -> SignalProducer<Int, TestError> {
    SignalProducer { observer, _ in
        starts.increment()
        let start = starts.count
        observer.send(value: start)
        if start <= failures {
            observer.send(error: TestError(code: start))
        } else {
            observer.sendCompleted()
        }
    }
}

@Suite("Producer-only operators")
struct ProducerOnlyOperatorTests {
    @Test("then: waits for completion, ignores values, then forwards the replacement's run")
    func then() {
        let starts = Counter()
        let replacement = SignalProducer<String, TestError> { observer, _ in
            starts.increment()
            observer.send(value: "r")
            observer.sendCompleted()
        }
        #expect(events(SignalProducer<Int, TestError>(values: 1, 2).then(replacement)) == ["vr", "completed"])
        #expect(events(SignalProducer<Int, TestError>(error: TestError(code: 1)).then(replacement)) == ["failed(E1)"])
        #expect(starts.count == 1)
        #expect(events(SignalProducer<Int, Never>(value: 1).then(SignalProducer<Int, Never>(value: 2))) == ["v2", "completed"])
        #expect(events(SignalProducer<Int, Never>(value: 1).then(replacement)) == ["vr", "completed"])
        #expect(events(SignalProducer<Int, TestError>(value: 1).then(SignalProducer<String, Never>(value: "n"))) == ["vn", "completed"])
        let (signal, input) = Signal<Int, Never>.pipe()
        let log = Recorder<String>()
        let disposable = SignalProducer(signal).then(SignalProducer<Int, Never>.never).start { log.append(describe($0)) }
        input.sendCompleted()
        disposable.dispose()
        #expect(log.items == ["interrupted"])
    }

    @Test("repeat: runs the producer count times in a row; failures end it")
    func repeatRounds() {
        let starts = Counter()
        let producer = SignalProducer<Int, Never> { observer, _ in
            starts.increment()
            observer.send(value: starts.count)
            observer.sendCompleted()
        }
        #expect(events(producer.repeat(3)) == ["v1", "v2", "v3", "completed"])
        #expect(events(producer.repeat(1)) == ["v4", "completed"])
        #expect(events(producer.repeat(0)) == ["completed"])
        #expect(starts.count == 4)
        let failing = Counter()
        #expect(events(flaky(failures: 5, starts: failing).repeat(3)) == ["v1", "failed(E1)"])
        let (signal, input) = Signal<Int, Never>.pipe()
        let log = Recorder<String>()
        SignalProducer(signal).repeat(2).start { log.append(describe($0)) }
        input.send(value: 1)
        input.sendCompleted()
        #expect(log.items == ["v1", "interrupted"])
    }

    @Test("retry(upTo:): restarts after failures; the last failure is forwarded")
    func retry() {
        let starts = Counter()
        #expect(events(flaky(failures: 2, starts: starts).retry(upTo: 2)) == ["v1", "v2", "v3", "completed"])
        let more = Counter()
        #expect(events(flaky(failures: 5, starts: more).retry(upTo: 2)) == ["v1", "v2", "v3", "failed(E3)"])
        let none = Counter()
        #expect(events(flaky(failures: 5, starts: none).retry(upTo: 0)) == ["v1", "failed(E1)"])
    }

    @Test("repeat and retry end each round (its lifetime) before starting the next (a deliberate difference)")
    func roundsEndBeforeTheNextStarts() {
        var log = Recorder<String>()
        func round(_ last: Signal<Int, TestError>.Event) -> SignalProducer<Int, TestError> {
            SignalProducer { observer, lifetime in
                log.append("start")
                lifetime.observeEnded { log.append("ended") }
                observer.send(last)
            }
        }
        round(.failed(TestError(code: 1))).retry(upTo: 2).start { log.append(describe($0)) }
        // ReactiveSwift 7.2.1 nests the rounds: start, start, start,
        // failed(E1), ended, ended, ended (docs/Differences.md).
        #expect(log.items == ["start", "ended", "start", "ended", "start", "failed(E1)", "ended"])
        log = Recorder<String>()
        round(.completed).repeat(2).start { log.append(describe($0)) }
        #expect(log.items == ["start", "ended", "start", "completed", "ended"])
    }

    @Test("each start of a repeated or retried producer counts its own rounds")
    func roundsCountedPerStart() {
        let starts = Counter()
        let retried = flaky(failures: 100, starts: starts).retry(upTo: 1)
        #expect(events(retried) == ["v1", "v2", "failed(E2)"])
        #expect(events(retried) == ["v3", "v4", "failed(E4)"])
        let repeats = Counter()
        let repeated = SignalProducer<Int, Never> { observer, _ in
            repeats.increment()
            observer.send(value: repeats.count)
            observer.sendCompleted()
        }.repeat(2)
        #expect(events(repeated) == ["v1", "v2", "completed"])
        #expect(events(repeated) == ["v3", "v4", "completed"])
    }

    @Test("retry(upTo:interval:on:): disposing the run cancels the wait for the next attempt")
    func retryWaitCancelledByDisposal() {
        let scheduler = TestScheduler()
        let starts = Counter()
        let log = Recorder<String>()
        let run = flaky(failures: 5, starts: starts).retry(upTo: 3, interval: 5, on: scheduler)
            .start { log.append(describe($0)) }
        #expect(log.items == ["v1"])
        run.dispose()
        scheduler.advance(by: 10)
        #expect(starts.count == 1)
        #expect(log.items == ["v1", "interrupted"])
    }

    @Test("retry(upTo:interval:on:) waits the interval before each restart")
    func retryWithInterval() {
        let scheduler = TestScheduler()
        let starts = Counter()
        let log = Recorder<String>()
        flaky(failures: 2, starts: starts).retry(upTo: 3, interval: 5, on: scheduler).start { log.append(describe($0)) }
        #expect(log.items == ["v1"])
        scheduler.advance(by: 4.9)
        #expect(starts.count == 1)
        scheduler.advance(by: 0.1)
        #expect(log.items == ["v1", "v2"])
        scheduler.advance(by: 5)
        #expect(log.items == ["v1", "v2", "v3", "completed"])
    }

    @Test("repeat and retry of 1,000,000 synchronous rounds run in constant stack")
    func millionRounds() {
        let rounds = 1_000_000
        let values = Counter()
        let completed = Counter()
        SignalProducer<Int, Never>(value: 1).repeat(rounds).start { event in
            if case .value = event { values.increment() }
            if case .completed = event { completed.increment() }
        }
        #expect(values.count == rounds)
        #expect(completed.count == 1)
        let attempts = Counter()
        let failed = Counter()
        SignalProducer<Int, TestError>(error: TestError(code: 0)).on(failed: { _ in attempts.increment() })
            .retry(upTo: rounds).startWithFailed { _ in failed.increment() }
        #expect(attempts.count == rounds + 1)
        #expect(failed.count == 1)
    }

    @Test("disposing a repeat interrupts the round going on and starts no other")
    func disposeRepeat() {
        let starts = Counter()
        let cleanups = Counter()
        let log = Recorder<String>()
        let disposable = SignalProducer<Int, Never> { observer, lifetime in
            starts.increment()
            lifetime.observeEnded { withExtendedLifetime(observer) { cleanups.increment() } }
        }.repeat(5).start { log.append(describe($0)) }
        disposable.dispose()
        #expect(starts.count == 1)
        #expect(cleanups.count == 1)
        #expect(log.items == ["interrupted"])
    }

    @Test("start(on:) runs the start handler on the scheduler")
    func startOn() {
        let scheduler = TestScheduler()
        let starts = Counter()
        let log = Recorder<String>()
        let producer = SignalProducer<Int, Never> { observer, _ in
            starts.increment()
            observer.send(value: 1)
            observer.sendCompleted()
        }.start(on: scheduler)
        producer.start { log.append(describe($0)) }
        #expect(starts.count == 0)
        scheduler.advance()
        #expect(log.items == ["v1", "completed"])
        producer.start().dispose()
        scheduler.advance()
        #expect(starts.count == 1)
    }

    @Test("timer and interval tick on the scheduler until disposed")
    func timerAndInterval() {
        let scheduler = TestScheduler()
        let dates = Recorder<Date>()
        let timer = SignalProducer<Date, Never>.timer(interval: .seconds(2), on: scheduler).startWithValues { dates.append($0) }
        scheduler.advance(by: 5)
        #expect(dates.items == [Date(timeIntervalSinceReferenceDate: 2), Date(timeIntervalSinceReferenceDate: 4)])
        timer.dispose()
        scheduler.advance(by: 5)
        #expect(dates.items.count == 2)
        let ticks = Recorder<String>()
        let counting = SignalProducer<Int, Never>.interval(.seconds(1), on: scheduler).start { ticks.append(describe($0)) }
        scheduler.advance(by: 3)
        counting.dispose()
        #expect(ticks.items == ["v0", "v1", "v2", "interrupted"])
        // As in ReactiveSwift: each element pulled when due, completion one
        // interval after the last.
        let letters = Recorder<String>()
        let pulled = Recorder<String>()
        let source = ["a", "b"].lazy.map { letter -> String in
            pulled.append(letter)
            return letter
        }
        SignalProducer.interval(source, interval: .seconds(1), on: scheduler).start { letters.append(describe($0)) }
        #expect(pulled.items.isEmpty)
        scheduler.advance(by: 1)
        #expect(letters.items == ["va"])
        #expect(pulled.items == ["a"])
        scheduler.advance(by: 1)
        #expect(letters.items == ["va", "vb"])
        scheduler.advance(by: 1)
        #expect(letters.items == ["va", "vb", "completed"])
        let none = Recorder<String>()
        SignalProducer.interval([Int](), interval: .seconds(1), on: scheduler).start { none.append(describe($0)) }
        #expect(none.items.isEmpty)
        scheduler.advance(by: 1)
        #expect(none.items == ["completed"])
    }

    @Test("first, single, last and wait block until the run answers")
    func blocking() {
        let values = SignalProducer<Int, TestError>(values: 1, 2, 3)
        #expect(values.first() == .success(1))
        #expect(values.last() == .success(3))
        #expect(values.single() == nil)
        #expect(SignalProducer<Int, TestError>(value: 7).single() == .success(7))
        #expect(SignalProducer<Int, TestError>.empty.first() == nil)
        #expect(SignalProducer<Int, TestError>(error: TestError(code: 2)).first() == .failure(TestError(code: 2)))
        #expect(throws: Never.self) { try values.wait().get() }
        #expect(throws: TestError(code: 3)) { try SignalProducer<Int, TestError>(error: TestError(code: 3)).wait().get() }
        // A synchronous source stops once the answer is known, as in
        // ReactiveSwift: first() pulls one element of an infinite sequence,
        // single() two.
        let pulled = Counter()
        let naturals = SignalProducer<Int, Never>(sequence(first: 0) { $0 + 1 }.lazy.map { value -> Int in
            pulled.increment()
            return value
        })
        #expect(naturals.first() == .success(0))
        #expect(pulled.count == 1)
        #expect(naturals.single() == nil)
        #expect(pulled.count == 3)
        // From another thread, later; first() disposes the run it started.
        let cleanups = Counter()
        let asynchronous = SignalProducer<Int, TestError> { observer, lifetime in
            lifetime.observeEnded { cleanups.increment() }
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) {
                observer.send(value: 9)
            }
        }
        #expect(asynchronous.first() == .success(9))
        // The disposal may find the value's delivery still returning on the
        // other thread: `interrupted`, and the cleanup, follow it there.
        eventually { cleanups.count > 0 }
        #expect(cleanups.count == 1)
    }
}
