extension Signal {
    /// Builds a signal derived from this one by a single-input operator.
    ///
    /// `makeAction` receives the derived signal's core (as a `HeldCore`) and
    /// returns the closure that observes this signal. That closure runs only inside this
    /// signal's serialized delivery, which holds the serial word both
    /// signals share, so it delivers to the derived signal directly
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
    /// object (`MapLink`, `FilterLink`, `CompactMapLink`) and return
    /// `{ link.receive($0) }`.
    ///
    /// The derived signal observes this one for as long as it is alive: its
    /// termination (by a terminal event, or because it lost its last
    /// observer and reference) disposes the observation.
    @inlinable
    func liftCore<U, F>(
        _ makeAction: (HeldCore<U, F>) -> Observer.Action
    ) -> Signal<U, F> {
        let downstream = SignalCore<U, F>(derivedFrom: core)
        let signal = Signal<U, F>(core: downstream)
        let upstreamObservation = core.observe(Observer(makeAction(HeldCore(downstream))))
        downstream.lifetime += upstreamObservation
        return signal
    }
}
