extension Signal {
    /// Sends only the values for which `isIncluded` returns true.
    ///
    /// Terminal events pass through unchanged.
    @inlinable
    public func filter(_ isIncluded: @escaping (Value) -> Bool) -> Signal<Value, Error> {
        liftCore { downstream in
            { event in
                if case let .value(value) = event, !isIncluded(value) { return }
                downstream.deliverHeld(event)
            }
        }
    }

    /// Sends the non-nil results of `transform`; drops the values for which
    /// it returns nil.
    ///
    /// Terminal events pass through unchanged.
    @inlinable
    public func compactMap<U>(_ transform: @escaping (Value) -> U?) -> Signal<U, Error> {
        liftCore { downstream in
            { event in
                switch event {
                case let .value(value):
                    if let mapped = transform(value) { downstream.deliverHeld(.value(mapped)) }
                case let .failed(error): downstream.deliverHeld(.failed(error))
                case .completed: downstream.deliverHeld(.completed)
                case .interrupted: downstream.deliverHeld(.interrupted)
                }
            }
        }
    }
}
