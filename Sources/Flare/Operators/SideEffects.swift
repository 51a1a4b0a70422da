extension Signal {
    /// Runs side effects for the events passing through, then forwards each
    /// event unchanged.
    ///
    /// For each event, in this order: `event`, then the closure of its kind
    /// (`value`, `failed`, `completed` or `interrupted`), then `terminated`
    /// if the event is terminal, and only then the event is delivered
    /// downstream. `disposed` runs once, when the returned signal ends: after
    /// its terminal event has been delivered, or when it is released with no
    /// observer left (which also stops its observation of upstream).
    ///
    /// The closures run inside upstream's serialized delivery, one event at a
    /// time; `disposed` runs on whichever thread ends the signal.
    @inlinable
    public func on(
        event: ((Event) -> Void)? = nil,
        failed: ((Error) -> Void)? = nil,
        completed: (() -> Void)? = nil,
        interrupted: (() -> Void)? = nil,
        terminated: (() -> Void)? = nil,
        disposed: (() -> Void)? = nil,
        value: ((Value) -> Void)? = nil
    ) -> Signal<Value, Error> {
        liftCore { downstream in
            if let disposed { downstream.lifetime.observeEnded(disposed) }
            return { received in
                event?(received)
                switch received {
                case let .value(v): value?(v)
                case let .failed(error): failed?(error)
                case .completed: completed?()
                case .interrupted: interrupted?()
                }
                if received.isTerminating { terminated?() }
                downstream.deliverHeld(received)
            }
        }
    }
}
