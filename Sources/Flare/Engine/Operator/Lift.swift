extension Signal {
    /// Builds a signal derived from this one by a single-input operator.
    ///
    /// `makeAction` receives the derived signal's core (as a `_HeldCore`) and
    /// returns the closure that observes this signal. That closure runs only
    /// inside this signal's serialized delivery, which holds the serial word
    /// both signals share, so it delivers to the derived signal directly
    /// (`deliverHeld`): the operator adds no second serialization point, no
    /// queue and no allocation per event. Operator state captured by the
    /// closure is touched only there, so it needs no lock. `deliverHeld` must
    /// only be called from inside that closure, never later or from another
    /// thread, which is why this stays internal.
    ///
    /// A closure that captures several values is entered through a
    /// forwarder that unpacks its context; one that captures a single object
    /// through a much shorter one. The operators that sit in long chains
    /// (`map`, `filter`, `compactMap`) therefore keep their state in one
    /// `_Link` object and return `{ link.map($0) }` (or `filter`,
    /// `compactMap`).
    ///
    /// The derived signal observes this one for as long as it is alive: its
    /// termination (by a terminal event, or because it lost its last
    /// observer and reference) disposes the observation.
    @inlinable
    func _liftCore<U, F>(
        _ makeAction: (_HeldCore<U, F>) -> Observer.Action
    ) -> Signal<U, F> {
        let downstream = _SignalCore<U, F>(derivedFrom: _core)
        let signal = Signal<U, F>(_core: downstream)
        let upstreamObservation = _core.observe(Observer(makeAction(_HeldCore(downstream))))
        // From here on only the domain's drainer may deliver to it (the
        // debug checks hold the lifting thread to that too).
        downstream.publish()
        downstream.lifetime += upstreamObservation
        return signal
    }
}

/// The state of a stateless single-input operator, in one object: its
/// function and the sink it delivers to. The observing closure then
/// captures a single reference and Swift enters it through a forwarder of a
/// few instructions instead of one that unpacks a multi-value context (see
/// `_liftCore`). Each operator's step is a method constrained on the
/// function's result.
@usableFromInline
final class _Link<Value, Error: Swift.Error, Downstream: _EventSink, Result> where Downstream.Error == Error {
    @usableFromInline let function: (Value) -> Result
    @usableFromInline let downstream: Downstream

    @inlinable
    init(_ function: @escaping (Value) -> Result, _ downstream: Downstream) {
        self.function = function
        self.downstream = downstream
    }
}

extension _Link where Result == Downstream.Value {
    /// `map`: values go through the function, the rest unchanged.
    @inlinable
    @inline(__always)
    func map(_ event: Signal<Value, Error>.Event) {
        switch event {
        case let .value(value): downstream.deliverHeld(value: function(value))
        case let .failed(error): downstream.deliverHeldOutOfLine(.failed(error))
        case .completed: downstream.deliverHeldOutOfLine(.completed)
        case .interrupted: downstream.deliverHeldOutOfLine(.interrupted)
        }
    }
}

extension _Link where Result == Bool, Downstream.Value == Value {
    /// `filter`: values the function rejects are dropped, the rest unchanged.
    @inlinable
    @inline(__always)
    func filter(_ event: Signal<Value, Error>.Event) {
        if case let .value(value) = event {
            if function(value) { downstream.deliverHeld(value: value) }
        } else {
            downstream.deliverHeldOutOfLine(event)
        }
    }
}

extension _Link where Result == Downstream.Value? {
    /// `compactMap`: values go through the function and nil results are
    /// dropped; the rest unchanged.
    @inlinable
    @inline(__always)
    func compactMap(_ event: Signal<Value, Error>.Event) {
        switch event {
        case let .value(value):
            if let mapped = function(value) { downstream.deliverHeld(value: mapped) }
        case let .failed(error): downstream.deliverHeldOutOfLine(.failed(error))
        case .completed: downstream.deliverHeldOutOfLine(.completed)
        case .interrupted: downstream.deliverHeldOutOfLine(.interrupted)
        }
    }
}
