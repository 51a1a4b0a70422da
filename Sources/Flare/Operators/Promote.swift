extension Signal where Error == Never {
    /// Gives a signal that cannot fail an error type, so that it can be
    /// combined with signals that can.
    ///
    /// Values, `completed` and `interrupted` pass through unchanged; no
    /// failure is ever sent. Observes upstream until either terminates.
    @inlinable
    public func promoteError<F>(_: F.Type = F.self) -> Signal<Value, F> {
        _lift(_PromoteErrorOperator())
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
        _lift(_PromoteValueOperator())
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

/// `promoteError`.
@usableFromInline
struct _PromoteErrorOperator<Value, F: Swift.Error>: _UnaryOperator {
    @usableFromInline typealias Input = Value
    @usableFromInline typealias Output = Value
    @usableFromInline typealias InputError = Never
    @usableFromInline typealias OutputError = F

    @inlinable
    init() {}

    @inlinable
    func attach<Sink: _EventSink>(to downstream: consuming Sink) -> (Signal<Value, Never>.Event) -> Void
    where Sink.Value == Value, Sink.Error == F {
        let downstream = downstream
        return { event in
            switch event {
            case let .value(value): downstream.deliverHeld(.value(value))
            case let .failed(never): switch never {}
            case .completed: downstream.deliverHeld(.completed)
            case .interrupted: downstream.deliverHeld(.interrupted)
            }
        }
    }
}

/// `promoteValue`.
@usableFromInline
struct _PromoteValueOperator<U, Error: Swift.Error>: _UnaryOperator {
    @usableFromInline typealias Input = Never
    @usableFromInline typealias Output = U
    @usableFromInline typealias InputError = Error
    @usableFromInline typealias OutputError = Error

    @inlinable
    init() {}

    @inlinable
    func attach<Sink: _EventSink>(to downstream: consuming Sink) -> (Signal<Never, Error>.Event) -> Void
    where Sink.Value == U, Sink.Error == Error {
        let downstream = downstream
        return { event in
            switch event {
            case let .value(never): switch never {}
            case let .failed(error): downstream.deliverHeld(.failed(error))
            case .completed: downstream.deliverHeld(.completed)
            case .interrupted: downstream.deliverHeld(.interrupted)
            }
        }
    }
}

extension SignalProducer where Error == Never {
    /// `Signal.promoteError(_:)` on every run. One link per start.
    @inlinable
    public func promoteError<F>(_: F.Type = F.self) -> SignalProducer<Value, F> {
        _lift(_PromoteErrorOperator())
    }

    /// Returns `self`: promoting `Never` to `Never` changes nothing.
    @inlinable
    public func promoteError(_: Error.Type = Error.self) -> SignalProducer<Value, Error> {
        self
    }
}

extension SignalProducer where Value == Never {
    /// `Signal.promoteValue(_:)` on every run. One link per start.
    @inlinable
    public func promoteValue<U>(_: U.Type = U.self) -> SignalProducer<U, Error> {
        _lift(_PromoteValueOperator())
    }

    /// Returns `self`: promoting `Never` to `Never` changes nothing.
    @inlinable
    public func promoteValue(_: Value.Type = Value.self) -> SignalProducer<Value, Error> {
        self
    }
}
