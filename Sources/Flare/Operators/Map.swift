/// `map`: `transform` applied to each value; terminal events unchanged.
@usableFromInline
struct _MapOperator<Input, Output, Error: Swift.Error>: _UnaryOperator {
    @usableFromInline typealias InputError = Error
    @usableFromInline typealias OutputError = Error

    @usableFromInline let transform: (Input) -> Output

    @inlinable
    init(_ transform: @escaping (Input) -> Output) { self.transform = transform }

    @inlinable
    func attach<Sink: _EventSink>(to downstream: consuming Sink) -> (Signal<Input, Error>.Event) -> Void
    where Sink.Value == Output, Sink.Error == Error {
        let link = _Link(transform, downstream)
        return { event in link.map(event) }
    }
}

/// `mapError`: `transform` applied to a failure; the rest unchanged.
@usableFromInline
struct _MapErrorOperator<Value, InputError: Swift.Error, OutputError: Swift.Error>: _UnaryOperator {
    @usableFromInline typealias Input = Value
    @usableFromInline typealias Output = Value

    @usableFromInline let transform: (InputError) -> OutputError

    @inlinable
    init(_ transform: @escaping (InputError) -> OutputError) { self.transform = transform }

    @inlinable
    func attach<Sink: _EventSink>(to downstream: consuming Sink) -> (Signal<Value, InputError>.Event) -> Void
    where Sink.Value == Value, Sink.Error == OutputError {
        let downstream = downstream
        return { [transform] event in
            switch event {
            case let .value(value): downstream.deliverHeld(.value(value))
            case let .failed(error): downstream.deliverHeld(.failed(transform(error)))
            case .completed: downstream.deliverHeld(.completed)
            case .interrupted: downstream.deliverHeld(.interrupted)
            }
        }
    }
}

extension Signal {
    /// Sends `transform(value)` for each value.
    ///
    /// Terminal events pass through unchanged. Runs inside the upstream's
    /// delivery; costs one closure call per event.
    @inlinable
    public func map<U>(_ transform: @escaping (Value) -> U) -> Signal<U, Error> {
        _lift(_MapOperator(transform))
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
        _lift(_MapErrorOperator(transform))
    }
}

extension SignalProducer {
    /// Sends `transform(value)` for each value of every run.
    ///
    /// Terminal events pass through unchanged. Adds one link to each start
    /// (one allocation); costs one closure call per event.
    @inlinable
    public func map<U>(_ transform: @escaping (Value) -> U) -> SignalProducer<U, Error> {
        _lift(_MapOperator(transform))
    }

    /// Sends `value` for each value: replaces every value by a constant.
    ///
    /// Disfavored in overload resolution, so that a trailing closure always
    /// means `map(_:)` and never a constant of function type.
    @inlinable
    @_disfavoredOverload
    public func map<U>(value: U) -> SignalProducer<U, Error> {
        map { _ in value }
    }

    /// Sends the value at `keyPath` of each value.
    @inlinable
    public func map<U>(_ keyPath: KeyPath<Value, U>) -> SignalProducer<U, Error> {
        map { $0[keyPath: keyPath] }
    }

    /// Sends `failed(transform(error))` for a failure; values, `completed`
    /// and `interrupted` pass through unchanged.
    @inlinable
    public func mapError<F>(_ transform: @escaping (Error) -> F) -> SignalProducer<Value, F> {
        _lift(_MapErrorOperator(transform))
    }
}
