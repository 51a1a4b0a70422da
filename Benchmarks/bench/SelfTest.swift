import MallocCounter
import MutexBaseline

/// `bench --selftest`: checks that the baselines keep the contracts the
/// comparison relies on (a baseline that skipped work would win unfairly).
/// Not timed; exits non-zero on the first failure.
func runSelfTest() {
    checkBaseline("Locked", LockedSignal<Int, Never>.pipe, { $0.send(value: $1) }, { $0.sendCompleted() })
    checkBaseline("Snapshot", SnapshotSignal<Int, Never>.pipe, { $0.send(value: $1) }, { $0.sendCompleted() })
    checkLockedReentrantObserveAndDispose()
    checkCombining(LockedSignal<Int, TestError>.self, "Locked")
    checkCombining(SnapshotSignal<Int, TestError>.self, "Snapshot")
    progress("selftest: baselines OK")
    checkFlareAllocatesNothingPerEvent()
    checkNoRuntimeLookupsPerEvent()
    checkAppScenarios()
}

/// Guards Flare's claim of zero heap allocations per delivered event, with
/// the malloc counter: a send to 10 observers attached with
/// `observeValues`, and a value through a map→filter→map chain, each
/// 10,000 times after a warm-up. Uncontended sends only: a send queued
/// behind another thread's delivery allocates its node (from a pool).
func checkFlareAllocatesNothingPerEvent() {
    guard mc_is_active() != 0 else {
        progress("selftest: malloc counter inactive on this platform: allocation check skipped")
        return
    }
    for (name, depth, observers) in [("fan-out to 10", 0, 10), ("map→filter→map", 3, 1)] {
        let perEvent = AllocationsPerEvent(chainDepth: depth, observers: observers)
            .run(FlareContender.self, amount: 10_000).values[0]
        check(perEvent == 0, "Flare allocated \(perEvent) times per event (\(name)): a delivered event must allocate nothing")
    }
    progress("selftest: Flare allocates nothing per delivered event")
}

/// The observation API the two baselines share.
protocol BaselineSignal: AnyObject, Sendable {
    associatedtype Handle
    func observe(_ action: @escaping (BaselineEvent<Int, Never>) -> Void) -> Handle?
    func map(_ transform: @escaping (Int) -> Int) -> Self
    func filter(_ isIncluded: @escaping (Int) -> Bool) -> Self
}

protocol BaselineHandle { func dispose() }

extension LockedSignal<Int, Never>: BaselineSignal {
    typealias Handle = Observation
    func observe(_ action: @escaping (BaselineEvent<Int, Never>) -> Void) -> Observation? { observe(Observer(action)) }
}
extension LockedSignal<Int, Never>.Observation: BaselineHandle {}
extension SnapshotSignal<Int, Never>: BaselineSignal {
    typealias Handle = Observation
    func observe(_ action: @escaping (BaselineEvent<Int, Never>) -> Void) -> Observation? { observe(Observer(action)) }
}
extension SnapshotSignal<Int, Never>.Observation: BaselineHandle {}

final class Log: @unchecked Sendable {
    var items: [String] = []
}

final class HandleBox<H>: @unchecked Sendable {
    var handle: H?
}

func checkBaseline<S: BaselineSignal, I: Sendable>(
    _ name: String, _ pipe: () -> (output: S, input: I),
    _ send: @escaping @Sendable (I, Int) -> Void, _ complete: (I) -> Void
) where S.Handle: BaselineHandle {
    // Order, termination, late observe.
    do {
        let (output, input) = pipe()
        let log = Log()
        _ = output.observe { e in log.items.append("a\(e)") }
        _ = output.observe { e in log.items.append("b\(e)") }
        send(input, 1)
        complete(input)
        send(input, 2)
        _ = output.observe { e in log.items.append("c\(e)") }
        check(log.items == ["avalue(1)", "bvalue(1)", "acompleted", "bcompleted", "cinterrupted"],
              "\(name): order/termination: \(log.items)")
    }
    // Reentrant send is queued after the current event (FIFO, all observers).
    do {
        let (output, input) = pipe()
        let log = Log()
        _ = output.observe { e in
            if case let .value(v) = e { log.items.append("a\(v)"); if v == 1 { send(input, 2); send(input, 3) } }
        }
        _ = output.observe { e in if case let .value(v) = e { log.items.append("b\(v)") } }
        send(input, 1)
        check(log.items == ["a1", "b1", "a2", "b2", "a3", "b3"], "\(name): reentrant send: \(log.items)")
    }
    // Dispose stops delivery, from outside and from inside the observer.
    do {
        let (output, input) = pipe()
        let log = Log()
        let h = output.observe { e in if case let .value(v) = e { log.items.append("a\(v)") } }
        let box = HandleBox<S.Handle>()
        box.handle = output.observe { e in
            if case let .value(v) = e { log.items.append("b\(v)"); box.handle?.dispose() }
        }
        send(input, 1)
        h?.dispose()
        h?.dispose()
        send(input, 2)
        check(log.items == ["a1", "b1"], "\(name): dispose: \(log.items)")
    }
    // Chains forward values and termination.
    do {
        let (output, input) = pipe()
        let log = Log()
        _ = output.map { $0 * 10 }.filter { $0 != 20 }.map { $0 + 1 }.observe { e in log.items.append("\(e)") }
        for v in 1...3 { send(input, v) }
        complete(input)
        check(log.items == ["value(11)", "value(31)", "completed"], "\(name): chain: \(log.items)")
    }
    // Two threads sending: every event delivered once, never concurrently.
    do {
        let (output, input) = pipe()
        let sink = Sink.make()
        defer { sink.free() }
        let inside = Shared()
        for _ in 0..<4 {
            _ = output.observe { e in
                check(inside.count.add(1, ordering: .acquiringAndReleasing).newValue == 1, "\(name): concurrent delivery")
                if case let .value(v) = e { sink.add(v) }
                inside.count.subtract(1, ordering: .acquiringAndReleasing)
            }
        }
        let r = runTwoSenders(duration: 20_000_000, senderA: { send(input, $0) }, senderB: { send(input, $0) })
        check(sink.total == 4 &* (triangular(r.sentA) &+ triangular(r.sentB)), "\(name): lost events under contention")
    }
}

/// Locked runs reentrant observe/dispose without the lock it already holds.
func checkLockedReentrantObserveAndDispose() {
    let (output, input) = LockedSignal<Int, Never>.pipe()
    let log = Log()
    let box = HandleBox<LockedSignal<Int, Never>.Observation>()
    let victim = HandleBox<LockedSignal<Int, Never>.Observation>()
    _ = output.observe { e in
        guard case let .value(v) = e else { return }
        log.items.append("a\(v)")
        if v == 1 {
            box.handle = output.observe { e in if case let .value(v) = e { log.items.append("late\(v)") } }
            victim.handle?.dispose()
        }
    }
    victim.handle = output.observe { e in if case let .value(v) = e { log.items.append("victim\(v)") } }
    input.send(value: 1)
    input.send(value: 2)
    check(log.items == ["a1", "a2", "late2"], "Locked: reentrant observe/dispose: \(log.items)")
}

// MARK: merge and combineLatest

struct TestError: Error, Equatable {}

/// What the combining checks need from a baseline, with an error type so
/// that failure can be sent.
protocol CombiningBaseline: AnyObject, Sendable, SendableMetatype {
    associatedtype Input: Sendable
    static func makePipe() -> (output: Self, input: Input)
    static func send(_ input: Input, _ event: BaselineEvent<Int, TestError>)
    func observeEvents(_ action: @escaping (BaselineEvent<Int, TestError>) -> Void)
    func merged(with other: Self) -> Self
    /// `combineLatest(with:)` mapped to `first * 100 + second`, so the log
    /// shows the pair.
    func combinedPairs(with other: Self) -> Self
}

extension LockedSignal<Int, TestError>: CombiningBaseline {
    static func makePipe() -> (output: LockedSignal, input: Input) { pipe() }
    static func send(_ input: Input, _ event: Event) { input.send(event) }
    func observeEvents(_ action: @escaping (Event) -> Void) { observe(Observer(action)) }
    func merged(with other: LockedSignal) -> LockedSignal { merge(with: other) }
    func combinedPairs(with other: LockedSignal) -> LockedSignal { combineLatest(with: other).map { $0 * 100 + $1 } }
}

extension SnapshotSignal<Int, TestError>: CombiningBaseline {
    static func makePipe() -> (output: SnapshotSignal, input: Input) { pipe() }
    static func send(_ input: Input, _ event: Event) { input.send(event) }
    func observeEvents(_ action: @escaping (Event) -> Void) { observe(Observer(action)) }
    func merged(with other: SnapshotSignal) -> SnapshotSignal { merge(with: other) }
    func combinedPairs(with other: SnapshotSignal) -> SnapshotSignal { combineLatest(with: other).map { $0 * 100 + $1 } }
}

/// merge and combineLatest: values, termination as ReactiveSwift, and two
/// threads sending to the two inputs.
func checkCombining<S: CombiningBaseline>(_: S.Type, _ name: String) {
    typealias Step = (input: Int, event: BaselineEvent<Int, TestError>)
    /// Builds the operator over two fresh pipes, sends `steps` (input 0 or
    /// 1), and returns the output's log, events after termination included.
    func log(_ combine: (S, S) -> S, _ steps: [Step]) -> [String] {
        let (a, inputA) = S.makePipe()
        let (b, inputB) = S.makePipe()
        let log = Log()
        combine(a, b).observeEvents { log.items.append("\($0)") }
        for step in steps { S.send(step.input == 0 ? inputA : inputB, step.event) }
        return log.items
    }
    let merge: (S, S) -> S = { $0.merged(with: $1) }
    let combine: (S, S) -> S = { $0.combinedPairs(with: $1) }
    func expect(_ what: String, _ got: [String], _ want: [String]) {
        check(got == want, "\(name) \(what): \(got)")
    }

    expect("merge values/completion",
           log(merge, [(0, .value(1)), (1, .value(2)), (0, .completed), (1, .value(3)), (0, .value(9)), (1, .completed)]),
           ["value(1)", "value(2)", "value(3)", "completed"])
    expect("merge failure",
           log(merge, [(0, .value(1)), (1, .failed(TestError())), (0, .value(2)), (0, .completed)]),
           ["value(1)", "failed(bench.TestError())"])
    expect("merge interruption",
           log(merge, [(0, .completed), (1, .interrupted), (1, .value(2))]),
           ["interrupted"])
    expect("combineLatest values/completion",
           log(combine, [(0, .value(1)), (0, .value(2)), (1, .value(5)), (0, .value(3)), (1, .value(6)),
                         (1, .completed), (0, .value(4)), (0, .completed), (1, .value(7))]),
           ["value(205)", "value(305)", "value(306)", "value(406)", "completed"])
    expect("combineLatest completion without values",
           log(combine, [(0, .value(1)), (0, .completed), (1, .completed)]),
           ["completed"])
    expect("combineLatest failure",
           log(combine, [(0, .value(1)), (1, .value(2)), (0, .failed(TestError())), (1, .value(3))]),
           ["value(102)", "failed(bench.TestError())"])
    expect("combineLatest interruption",
           log(combine, [(1, .value(2)), (1, .interrupted), (0, .value(1)), (0, .completed)]),
           ["interrupted"])

    // Two threads: merge delivers every value once, never concurrently.
    do {
        let (a, inputA) = S.makePipe()
        let (b, inputB) = S.makePipe()
        let sink = Sink.make()
        defer { sink.free() }
        let inside = Shared()
        let terminal = Log()
        a.merged(with: b).observeEvents { e in
            check(inside.count.add(1, ordering: .acquiringAndReleasing).newValue == 1, "\(name) merge: concurrent delivery")
            if case let .value(v) = e { sink.add(v) } else { terminal.items.append("\(e)") }
            inside.count.subtract(1, ordering: .acquiringAndReleasing)
        }
        let r = runTwoSenders(duration: 20_000_000,
                              senderA: { S.send(inputA, .value($0)) }, senderB: { S.send(inputB, .value($0)) })
        S.send(inputA, .completed)
        S.send(inputB, .completed)
        check(sink.total == triangular(r.sentA) &+ triangular(r.sentB), "\(name) merge: lost events under contention")
        check(terminal.items == ["completed"], "\(name) merge: terminal events \(terminal.items)")
    }
    // Two threads: combineLatest, primed, sends one event per value, never
    // concurrently, and its last value is the pair of the last values sent.
    do {
        let (a, inputA) = S.makePipe()
        let (b, inputB) = S.makePipe()
        let sink = Sink.make()
        defer { sink.free() }
        let inside = Shared()
        let terminal = Log()
        a.combinedPairs(with: b).observeEvents { e in
            check(inside.count.add(1, ordering: .acquiringAndReleasing).newValue == 1,
                  "\(name) combineLatest: concurrent delivery")
            if case let .value(v) = e { sink.record(v) } else { terminal.items.append("\(e)") }
            inside.count.subtract(1, ordering: .acquiringAndReleasing)
        }
        S.send(inputA, .value(0))
        S.send(inputB, .value(0))
        let r = runTwoSenders(duration: 20_000_000,
                              senderA: { S.send(inputA, .value($0)) }, senderB: { S.send(inputB, .value($0)) })
        S.send(inputA, .completed)
        S.send(inputB, .completed)
        check(sink.total == 1 &+ r.sentA &+ r.sentB, "\(name) combineLatest: \(sink.total) events for \(r.sentA)+\(r.sentB) values")
        check(sink.last == r.sentA &* 100 &+ r.sentB, "\(name) combineLatest: last value \(sink.last)")
        check(terminal.items == ["completed"], "\(name) combineLatest: terminal events \(terminal.items)")
    }
}
