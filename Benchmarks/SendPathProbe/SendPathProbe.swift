import Flare

/// The steady-state send: what `input.send(value:)` compiles to in a client.
@inline(never)
public func probeSend(_ input: Signal<Int, Never>.Observer, _ value: Int) {
    input.send(value: value)
}

/// Specializes `pipe()` here, so that its input closure (which `probeSend`
/// calls) is emitted in this object.
public func probePipe() -> (output: Signal<Int, Never>, input: Signal<Int, Never>.Observer) {
    Signal<Int, Never>.pipe()
}

/// Specializes `map` here, so that the link a value passes through is
/// emitted in this object.
public func probeMap(_ signal: Signal<Int, Never>) -> Signal<Int, Never> {
    signal.map { $0 &+ 1 }
}

/// Specializes stateful operators here, so that their per-event closures
/// are emitted in this object: they must keep their state without Swift's
/// dynamic exclusivity checks (`_DeliveryState`).
public func probeStateful(_ signal: Signal<Int, Never>) -> Signal<[Int], Never> {
    signal
        .scan(0, &+)
        .skipRepeats()
        .combinePrevious()
        .map { $0.0 &+ $0.1 }
        .skip(first: 1)
        .take(first: 1_000_000)
        .collect(count: 4)
}
