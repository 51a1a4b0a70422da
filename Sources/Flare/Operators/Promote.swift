extension Signal where Error == Never {
    /// Gives a signal that cannot fail an error type, so that it can be
    /// combined with signals that can.
    ///
    /// Values, `completed` and `interrupted` pass through unchanged; no
    /// failure is ever sent. Observes upstream until either terminates.
    @inlinable
    public func promoteError<F>(_: F.Type = F.self) -> Signal<Value, F> {
        liftCore { downstream in
            { event in
                switch event {
                case let .value(value): downstream.deliverHeld(.value(value))
                case let .failed(never): switch never {}
                case .completed: downstream.deliverHeld(.completed)
                case .interrupted: downstream.deliverHeld(.interrupted)
                }
            }
        }
    }

    /// Returns `self`: promoting `Never` to `Never` changes nothing.
    ///
    /// This overload lets `promoteError()` without a type context compile,
    /// as in ReactiveSwift.
    @inlinable
    public func promoteError(_: Error.Type = Error.self) -> Signal<Value, Error> {
        self
    }
}

extension Signal where Value == Never {
    /// Gives a signal that sends no values a value type, so that it can be
    /// combined with signals that do.
    ///
    /// Terminal events pass through unchanged; no value is ever sent.
    /// Observes upstream until either terminates.
    @inlinable
    public func promoteValue<U>(_: U.Type = U.self) -> Signal<U, Error> {
        liftCore { downstream in
            { event in
                switch event {
                case let .value(never): switch never {}
                case let .failed(error): downstream.deliverHeld(.failed(error))
                case .completed: downstream.deliverHeld(.completed)
                case .interrupted: downstream.deliverHeld(.interrupted)
                }
            }
        }
    }

    /// Returns `self`: promoting `Never` to `Never` changes nothing.
    ///
    /// This overload lets `promoteValue()` without a type context compile,
    /// as in ReactiveSwift.
    @inlinable
    public func promoteValue(_: Value.Type = Value.self) -> Signal<Value, Error> {
        self
    }
}
