import Flare

/// Watches whether an operator still observes its upstream.
///
/// `wrap(_:)` puts a `map` between a source and the operator under test. The
/// map's closure holds a canary and counts the values that reach it. While
/// the operator observes the map, the map observes the source; once the
/// operator lets go, the map has neither observer nor reference, so it ends,
/// stops observing the source and releases its closure, and the canary with
/// it. So `isObserved` turning false proves the operator disposed its
/// upstream observation, and `reached` stops counting.
public final class UpstreamProbe: @unchecked Sendable {
    public init() {}

    public let reached = Counter()
    private weak var canary: Canary?

    public func wrap<V, E>(_ signal: Signal<V, E>) -> Signal<V, E> {
        let canary = Canary()
        self.canary = canary
        let reached = self.reached
        return signal.map { value in
            withExtendedLifetime(canary) {}
            reached.increment()
            return value
        }
    }

    public var isObserved: Bool { canary != nil }
}

/// Sends `sent` into a fresh pipe through `op` and returns what an observer
/// of the result received, in `describe` form.
public func run<V, U, F>(_ sent: [Signal<V, TestError>.Event], _ op: (Signal<V, TestError>) -> Signal<U, F>) -> [String] {
    let (signal, input) = Signal<V, TestError>.pipe()
    let log = Recorder<String>()
    op(signal).observe { log.append(describe($0)) }
    for event in sent { input.send(event) }
    return log.items
}

/// `run` for a source that cannot fail.
public func runNever<V, U, F>(_ sent: [Signal<V, Never>.Event], _ op: (Signal<V, Never>) -> Signal<U, F>) -> [String] {
    let (signal, input) = Signal<V, Never>.pipe()
    let log = Recorder<String>()
    op(signal).observe { log.append(describe($0)) }
    for event in sent { input.send(event) }
    return log.items
}

public let e1 = TestError(code: 1)
