extension Signal {
    /// Sends `transform(value)` for each value.
    ///
    /// Terminal events pass through unchanged. Runs inside the upstream's
    /// delivery; costs one closure call per event.
    @inlinable
    public func map<U>(_ transform: @escaping (Value) -> U) -> Signal<U, Error> {
        liftCore { downstream in
            let link = MapLink<Value, U, Error>(transform, downstream)
            return { event in link.receive(event) }
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

/// `map`'s state, in one object: the observing closure then captures a
/// single reference, and Swift enters it through a forwarder of a few
/// instructions instead of one that unpacks a multi-value context. Hot
/// stateless operators (`map`, `filter`, `compactMap`) are built this way;
/// see `liftCore`.
@usableFromInline
final class MapLink<Value, U, Error: Swift.Error> {
    @usableFromInline let transform: (Value) -> U
    @usableFromInline let downstream: HeldCore<U, Error>

    @inlinable
    init(_ transform: @escaping (Value) -> U, _ downstream: HeldCore<U, Error>) {
        self.transform = transform
        self.downstream = downstream
    }

    @inlinable
    @inline(__always)
    func receive(_ event: Signal<Value, Error>.Event) {
        switch event {
        case let .value(value): downstream.deliverHeld(value: transform(value))
        case let .failed(error): downstream.deliverHeldOutOfLine(.failed(error))
        case .completed: downstream.deliverHeldOutOfLine(.completed)
        case .interrupted: downstream.deliverHeldOutOfLine(.interrupted)
        }
    }
}
