extension Signal {
    /// Replaces a failure with a run of the producer `transform` makes of
    /// the error: values, `completed` and `interrupted` of this signal pass
    /// through; at its failure, the replacement starts and its events are
    /// forwarded in its place.
    ///
    /// The replacement run is disposed when the returned signal ends (a
    /// terminal event, or losing its last observer and reference).
    @inlinable
    public func flatMapError<F>(_ transform: @escaping (Error) -> SignalProducer<Value, F>) -> Signal<Value, F> {
        _flatMapError(transform)
    }

    /// The body of every `flatMapError` on a signal.
    @inlinable
    func _flatMapError<F>(_ transform: @escaping (Error) -> SignalProducer<Value, F>) -> Signal<Value, F> {
        Signal<Value, F> { observer, lifetime in
            // Only one source sends at a time: the replacement starts after
            // this signal's last event. No state is shared, nothing to lock.
            lifetime += self.observe(_replacingFailure(into: observer, during: lifetime, transform))
        }
    }

    /// `flatMapError(_:)` with a replacement of any producer-convertible
    /// type (a signal, a property …).
    @inlinable
    public func flatMapError<Inner: SignalProducerConvertible>(
        _ transform: @escaping (Error) -> Inner
    ) -> Signal<Value, Inner.Error> where Inner.Value == Value {
        flatMapError { transform($0).producer }
    }

    /// `flatMapError(_:)` with a replacement that cannot fail: the overload
    /// an implicit member such as `{ _ in .init(value: 0) }` resolves to.
    @inlinable
    public func flatMapError(_ transform: @escaping (Error) -> SignalProducer<Value, Never>) -> Signal<Value, Never> {
        _flatMapError(transform)
    }
}

extension SignalProducer {
    /// `Signal.flatMapError(_:)` on every run: at the run's failure, a run
    /// of the replacement starts in its place. Disposing the run disposes
    /// whichever is going on.
    @inlinable
    public func flatMapError<F>(_ transform: @escaping (Error) -> SignalProducer<Value, F>) -> SignalProducer<Value, F> {
        _flatMapError(transform)
    }

    /// `flatMapError(_:)` with a replacement of any producer-convertible
    /// type.
    @inlinable
    public func flatMapError<Inner: SignalProducerConvertible>(
        _ transform: @escaping (Error) -> Inner
    ) -> SignalProducer<Value, Inner.Error> where Inner.Value == Value {
        flatMapError { transform($0).producer }
    }

    /// `flatMapError(_:)` with a replacement that cannot fail: the overload
    /// an implicit member such as `{ _ in .init(value: 0) }` resolves to.
    @inlinable
    public func flatMapError(_ transform: @escaping (Error) -> SignalProducer<Value, Never>) -> SignalProducer<Value, Never> {
        _flatMapError(transform)
    }

    /// The body of every `flatMapError` on a producer: the same events as
    /// `Signal._flatMapError`, with this producer's run observed directly
    /// (no signal per start between it and the replacement). Its events
    /// and the replacement's never overlap: the replacement starts inside
    /// the failure's delivery, after this run's last event; the run's
    /// observer serializes them anyway.
    @inlinable
    func _flatMapError<F>(_ transform: @escaping (Error) -> SignalProducer<Value, F>) -> SignalProducer<Value, F> {
        SignalProducer<Value, F> { observer, lifetime in
            self._start(_replacingFailure(into: observer, during: lifetime, transform), during: lifetime)
        }
    }
}

/// What `flatMapError` does with each event of its source (a signal's, or a
/// producer's run): values, `completed` and `interrupted` go to `observer`;
/// the failure starts the replacement into `observer`, disposed when
/// `lifetime` ends.
@inlinable
func _replacingFailure<Value, Error: Swift.Error, F: Swift.Error>(
    into observer: Signal<Value, F>.Observer, during lifetime: Lifetime,
    _ transform: @escaping (Error) -> SignalProducer<Value, F>
) -> (Signal<Value, Error>.Event) -> Void {
    { event in
        switch event {
        case let .value(value): observer.send(value: value)
        case let .failed(error): transform(error)._start(observer, during: lifetime)
        case .completed: observer.sendCompleted()
        case .interrupted: observer.sendInterrupted()
        }
    }
}
