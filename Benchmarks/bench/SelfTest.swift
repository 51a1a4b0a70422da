import MutexBaseline

/// `bench --selftest`: checks that the baselines keep the contracts the
/// comparison relies on (a baseline that skipped work would win unfairly).
/// Not timed; exits non-zero on the first failure.
func runSelfTest() {
    checkBaseline("Locked", LockedSignal<Int, Never>.pipe, { $0.send(value: $1) }, { $0.sendCompleted() })
    checkBaseline("Snapshot", SnapshotSignal<Int, Never>.pipe, { $0.send(value: $1) }, { $0.sendCompleted() })
    checkLockedReentrantObserveAndDispose()
    progress("selftest: baselines OK")
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
