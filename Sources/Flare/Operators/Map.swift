extension Signal {
    /// Sends `transform(value)` for each value.
    ///
    /// Terminal events pass through unchanged. Runs inside the upstream's
    /// delivery; costs one closure call per event.
    @inlinable
    public func map<U>(_ transform: @escaping (Value) -> U) -> Signal<U, Error> {
        liftCore { downstream in
            let link = Link(transform, downstream)
            return { event in link.map(event) }
        }
    }

    /// Sends `value` for each value: replaces every value by a constant.
    ///
    /// Disfavored in overload resolution, so that a trailing closure always
    /// means `map(_:)` and never a constant of function type.
    @inlinable
    @_disfavoredOverload
    public func map<U>(value: U) -> Signal<U, Error> {
        map { _ in value }
    }

    /// Sends the value at `keyPath` of each value.
    @inlinable
    public func map<U>(_ keyPath: KeyPath<Value, U>) -> Signal<U, Error> {
        map { $0[keyPath: keyPath] }
    }

    /// Sends `failed(transform(error))` for a failure; values, `completed`
    /// and `interrupted` pass through unchanged.
    @inlinable
    public func mapError<F>(_ transform: @escaping (Error) -> F) -> Signal<Value, F> {
        liftCore { downstream in
            { event in
                switch event {
                case let .value(value): downstream.deliverHeld(.value(value))
                case let .failed(error): downstream.deliverHeld(.failed(transform(error)))
                case .completed: downstream.deliverHeld(.completed)
                case .interrupted: downstream.deliverHeld(.interrupted)
                }
            }
        }
    }
}
