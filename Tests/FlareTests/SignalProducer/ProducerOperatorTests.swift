import Flare
import Foundation
import Testing

/// The terminal events a source can end with.
private let terminals: [Signal<Int, TestError>.Event] = [.completed, .failed(TestError(code: 9)), .interrupted]

/// The values every comparison sends before its terminal event.
private let sourceValues = [1, 2, 2, 3, 1, 4, 5]

/// What `apply` makes of a signal sending `sourceValues` then `terminal`.
private func signalEvents<U, F>(
    _ terminal: Signal<Int, TestError>.Event, _ apply: (Signal<Int, TestError>) -> Signal<U, F>
) -> [String] {
    let (signal, input) = Signal<Int, TestError>.pipe()
    let log = Recorder<String>()
    apply(signal).observe { log.append(describe($0)) }
    for value in sourceValues { input.send(value: value) }
    input.send(terminal)
    return log.items
}

/// What `apply` makes of a producer sending the same, from one start; also
/// counts the source's starts and cleanups.
private func producerEvents<U, F>(
    _ terminal: Signal<Int, TestError>.Event, _ apply: (SignalProducer<Int, TestError>) -> SignalProducer<U, F>,
    starts: Counter, cleanups: Counter
) -> [String] {
    let source = SignalProducer<Int, TestError> { observer, lifetime in
        starts.increment()
        lifetime.observeEnded { cleanups.increment() }
        for value in sourceValues where !lifetime.hasEnded { observer.send(value: value) }
        observer.send(terminal)
    }
    let log = Recorder<String>()
    apply(source).start { log.append(describe($0)) }
    return log.items
}

/// Checks that an operator does on each run of a producer what it does on a
/// signal, for each terminal kind, over two independent starts, and that
/// every run's cleanup runs exactly once.
private func expectSameOnProducer<U, F>(
    _ name: String,
    signal applySignal: (Signal<Int, TestError>) -> Signal<U, F>,
    producer applyProducer: (SignalProducer<Int, TestError>) -> SignalProducer<U, F>,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    for terminal in terminals {
        let expected = signalEvents(terminal, applySignal)
        let starts = Counter()
        let cleanups = Counter()
        let first = producerEvents(terminal, applyProducer, starts: starts, cleanups: cleanups)
        let second = producerEvents(terminal, applyProducer, starts: starts, cleanups: cleanups)
        #expect(first == expected, "\(name), ending with \(describe(terminal))", sourceLocation: sourceLocation)
        #expect(second == expected, "\(name), second start", sourceLocation: sourceLocation)
        #expect(starts.count == 2, "\(name): two starts", sourceLocation: sourceLocation)
        #expect(cleanups.count == 2, "\(name): one cleanup per run", sourceLocation: sourceLocation)
    }
}

@Suite("Operators on producers: the same as on signals, per run")
struct ProducerOperatorTests {
    @Test("transforming operators")
    func transforming() {
        expectSameOnProducer("map", signal: { $0.map { $0 * 10 } }, producer: { $0.map { $0 * 10 } })
        expectSameOnProducer("map(value:)", signal: { $0.map(value: "x") }, producer: { $0.map(value: "x") })
        expectSameOnProducer("map(keyPath)", signal: { $0.map(\.description) }, producer: { $0.map(\.description) })
        expectSameOnProducer(
            "mapError", signal: { $0.mapError { TestError(code: $0.code + 1) } },
            producer: { $0.mapError { TestError(code: $0.code + 1) } })
        expectSameOnProducer("filter", signal: { $0.filter { $0 % 2 == 0 } }, producer: { $0.filter { $0 % 2 == 0 } })
        expectSameOnProducer(
            "compactMap", signal: { $0.compactMap { $0 > 2 ? $0 : nil } },
            producer: { $0.compactMap { $0 > 2 ? $0 : nil } })
        expectSameOnProducer(
            "skipNil", signal: { $0.map { $0 > 2 ? $0 : nil }.skipNil() },
            producer: { $0.map { $0 > 2 ? $0 : nil }.skipNil() })
    }

    @Test("take and skip")
    func takeAndSkip() {
        for n in [0, 1, 3, 20] {
            if n > 0 {
                expectSameOnProducer("take(first: \(n))", signal: { $0.take(first: n) }, producer: { $0.take(first: n) })
            }
            expectSameOnProducer("take(last: \(n))", signal: { $0.take(last: n) }, producer: { $0.take(last: n) })
            expectSameOnProducer("skip(first: \(n))", signal: { $0.skip(first: n) }, producer: { $0.skip(first: n) })
        }
        expectSameOnProducer("take(while:)", signal: { $0.take(while: { $0 < 3 }) }, producer: { $0.take(while: { $0 < 3 }) })
        expectSameOnProducer("skip(while:)", signal: { $0.skip(while: { $0 < 3 }) }, producer: { $0.skip(while: { $0 < 3 }) })
        expectSameOnProducer("skipRepeats", signal: { $0.skipRepeats() }, producer: { $0.skipRepeats() })
        expectSameOnProducer(
            "skipRepeats(_:)", signal: { $0.skipRepeats { $0 / 2 == $1 / 2 } },
            producer: { $0.skipRepeats { $0 / 2 == $1 / 2 } })
        expectSameOnProducer("uniqueValues", signal: { $0.uniqueValues() }, producer: { $0.uniqueValues() })
        expectSameOnProducer(
            "uniqueValues(_:)", signal: { $0.uniqueValues { $0 % 3 } }, producer: { $0.uniqueValues { $0 % 3 } })
        expectSameOnProducer(
            "a chain", signal: { $0.map { $0 + 1 }.take(first: 4).filter { $0 > 2 }.take(last: 2) },
            producer: { $0.map { $0 + 1 }.take(first: 4).filter { $0 > 2 }.take(last: 2) })
    }

    @Test("aggregating, event and side-effect operators")
    func aggregating() {
        expectSameOnProducer("reduce", signal: { $0.reduce(0, +) }, producer: { $0.reduce(0, +) })
        expectSameOnProducer(
            "reduce(into:)", signal: { $0.reduce(into: [Int]()) { $0.append($1) } },
            producer: { $0.reduce(into: [Int]()) { $0.append($1) } })
        expectSameOnProducer("scan", signal: { $0.scan(0, +) }, producer: { $0.scan(0, +) })
        expectSameOnProducer(
            "scan(into:)", signal: { $0.scan(into: 1) { $0 *= $1 } }, producer: { $0.scan(into: 1) { $0 *= $1 } })
        expectSameOnProducer(
            "scanMap", signal: { $0.scanMap(0) { ($0 + $1, "\($0)") } }, producer: { $0.scanMap(0) { ($0 + $1, "\($0)") } })
        expectSameOnProducer(
            "combinePrevious", signal: { $0.combinePrevious().map { "\($0)" } },
            producer: { $0.combinePrevious().map { "\($0)" } })
        expectSameOnProducer(
            "combinePrevious(_:)", signal: { $0.combinePrevious(7).map { "\($0)" } },
            producer: { $0.combinePrevious(7).map { "\($0)" } })
        expectSameOnProducer("collect", signal: { $0.collect() }, producer: { $0.collect() })
        expectSameOnProducer("collect(count:)", signal: { $0.collect(count: 3) }, producer: { $0.collect(count: 3) })
        expectSameOnProducer(
            "collect(_:)", signal: { $0.collect { $0.reduce(0, +) > 4 } }, producer: { $0.collect { $0.reduce(0, +) > 4 } })
        expectSameOnProducer(
            "collect(_:_:)", signal: { $0.collect { $1 < ($0.last ?? 0) } }, producer: { $0.collect { $1 < ($0.last ?? 0) } })
        expectSameOnProducer(
            "attempt", signal: { $0.attempt { $0 == 3 ? .failure(TestError(code: 3)) : .success(()) } },
            producer: { $0.attempt { $0 == 3 ? .failure(TestError(code: 3)) : .success(()) } })
        expectSameOnProducer(
            "attemptMap", signal: { $0.attemptMap { $0 == 4 ? .failure(TestError(code: 4)) : .success($0 * 2) } },
            producer: { $0.attemptMap { $0 == 4 ? .failure(TestError(code: 4)) : .success($0 * 2) } })
        expectSameOnProducer(
            "materialize", signal: { $0.materialize().map { describe($0) } }, producer: { $0.materialize().map { describe($0) } })
        expectSameOnProducer(
            "materializeResults", signal: { $0.materializeResults().map { "\($0)" } },
            producer: { $0.materializeResults().map { "\($0)" } })
        expectSameOnProducer(
            "dematerialize", signal: { $0.materialize().dematerialize() }, producer: { $0.materialize().dematerialize() })
        expectSameOnProducer(
            "dematerializeResults", signal: { $0.materializeResults().dematerializeResults() },
            producer: { $0.materializeResults().dematerializeResults() })
        expectSameOnProducer(
            "negate", signal: { $0.map { $0 > 2 }.negate() }, producer: { $0.map { $0 > 2 }.negate() })
        expectSameOnProducer(
            "promoteValue", signal: { $0.filter { _ in false }.map { _ -> Never in fatalError() }.promoteValue(Int.self) },
            producer: { $0.filter { _ in false }.map { _ -> Never in fatalError() }.promoteValue(Int.self) })
        expectSameOnProducer(
            "promoteError", signal: { $0.materialize().map(describe).promoteError(TestError.self) },
            producer: { $0.materialize().map(describe).promoteError(TestError.self) })
    }

    @Test("on(...) runs its side effects per run; disposed once per run, when it ends")
    func sideEffects() {
        for terminal in terminals {
            let log = Recorder<String>()
            let producer = SignalProducer<Int, TestError> { observer, _ in
                observer.send(value: 1)
                observer.send(terminal)
            }.on(
                event: { log.append("event \(describe($0))") }, failed: { log.append("failed \($0)") },
                completed: { log.append("completed") }, interrupted: { log.append("interrupted") },
                terminated: { log.append("terminated") }, disposed: { log.append("disposed") },
                value: { log.append("value \($0)") })
            producer.start { log.append("observer \(describe($0))") }
            producer.start()
            let once = [
                "event v1", "value 1", "observer v1", "event \(describe(terminal))",
                describe(terminal).replacingOccurrences(of: "(E9)", with: " E9"), "terminated",
                "observer \(describe(terminal))", "disposed",
            ]
            let twice = once + once.filter { !$0.hasPrefix("observer") }
            #expect(log.items == twice)
        }
        let order = Recorder<String>()
        SignalProducer<Int, Never> { observer, _ in
            order.append("handler")
            observer.send(value: 1)
            observer.sendCompleted()
        }.on(starting: { order.append("starting") }, started: { order.append("started") }, value: { order.append("value \($0)") })
            .start()
        #expect(order.items == ["starting", "handler", "value 1", "started"])
        let disposed = Counter()
        let disposable = SignalProducer<Int, Never>.never.on(disposed: { disposed.increment() }).start()
        #expect(disposed.count == 0)
        disposable.dispose()
        #expect(disposed.count == 1)
    }

    @Test("on(starting:started:): nested hooks in start order, once per attempt, none for a run disposed before it started, released once run")
    func startHooks() {
        final class Marker: Sendable {}
        let log = Recorder<String>()
        let attempts = Counter()
        let producer = SignalProducer<Int, TestError> { observer, _ in
            attempts.increment()
            log.append("handler \(attempts.count)")
            if attempts.count < 2 { observer.send(error: TestError(code: 1)) } else { observer.send(value: 7); observer.sendCompleted() }
        }
        .on(starting: { log.append("inner starting") }, started: { log.append("inner started") })
        .map { $0 * 2 }
        .on(starting: { log.append("outer starting") }, started: { log.append("outer started") })
        producer.retry(upTo: 1).start { log.append(describe($0)) }
        #expect(log.items == [
            "outer starting", "inner starting", "handler 1", "inner started", "outer started",
            "outer starting", "inner starting", "handler 2", "v14", "completed", "inner started", "outer started",
        ])

        let skipped = Recorder<String>()
        SignalProducer<Int, Never>(value: 1)
            .on(starting: { skipped.append("starting") }, started: { skipped.append("started") })
            .startWithSignal { signal, interrupter in
                signal.observe { skipped.append(describe($0)) }
                interrupter.dispose()
            }
        #expect(skipped.items == ["interrupted"])

        weak var weakMarker: Marker?
        let handle: Disposable
        do {
            let marker = Marker()
            weakMarker = marker
            handle = SignalProducer<Int, Never>.never
                .on(starting: { withExtendedLifetime(marker) {} }, started: { withExtendedLifetime(marker) {} })
                .start()
        }
        #expect(weakMarker == nil)
        handle.dispose()
    }

    @Test("take(first: 0) interrupts every start at once, without starting upstream")
    func takeNone() {
        let starts = Counter()
        let cleanups = Counter()
        #expect(producerEvents(.completed, { $0.take(first: 0) }, starts: starts, cleanups: cleanups) == ["interrupted"])
        #expect(starts.count == 0)
    }

    @Test("an operator that ends the run interrupts the source: it stops sending and its lifetime ends")
    func operatorEndsTheRun() {
        let sent = Counter()
        let cleanups = Counter()
        let upstreamEvents = Recorder<String>()
        let log = Recorder<String>()
        SignalProducer<Int, Never> { observer, lifetime in
            lifetime.observeEnded { cleanups.increment() }
            for i in 0..<100 where !lifetime.hasEnded {
                sent.increment()
                observer.send(value: i)
            }
            observer.sendCompleted()
        }
        .map { $0 }
        .take(first: 2)
        .map { $0 * 10 }
        .start { log.append(describe($0)) }
        #expect(log.items == ["v0", "v10", "completed"])
        #expect(sent.count == 2)
        #expect(cleanups.count == 1)
        _ = upstreamEvents
    }
}
