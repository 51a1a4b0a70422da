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
