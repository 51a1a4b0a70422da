extension SignalProducer {
    /// Waits for a run of this producer to complete, ignoring its values,
    /// then starts a run of `replacement` and forwards its events.
    ///
    /// A failure or interruption of this producer's run is forwarded at once
    /// and `replacement` is not started. Disposing the run interrupts
    /// whichever run is going on.
    ///
    /// The overloads taking a `SignalProducer` (beside the generic ones)
    /// let an implicit member such as `.empty` or `.init(value:)` stand for
    /// the replacement.
    @inlinable
    public func then<U>(_ replacement: SignalProducer<U, Error>) -> SignalProducer<U, Error> {
        _thenStart(replacement)
    }

    /// `then(_:)` with a replacement that cannot fail.
    ///
    /// Disfavoured, so that `.init(value:)` as the replacement picks the
    /// overload whose replacement error is this producer's instead of being
    /// ambiguous; a replacement typed `SignalProducer<U, Never>` gets the
    /// generic overload, with the same semantics.
    @_disfavoredOverload
    @inlinable
    public func then<U>(_ replacement: SignalProducer<U, Never>) -> SignalProducer<U, Error> {
        _thenStart(replacement.promoteError(Error.self))
    }

    /// `then(_:)` with a replacement of the same type: the overload the
    /// compiler prefers when both would do.
    @inlinable
    public func then(_ replacement: SignalProducer<Value, Error>) -> SignalProducer<Value, Error> {
        _thenStart(replacement)
    }

    /// `then(_:)` with a replacement of any producer-convertible type.
    @inlinable
    public func then<Replacement: SignalProducerConvertible>(
        _ replacement: Replacement
    ) -> SignalProducer<Replacement.Value, Error> where Replacement.Error == Error {
        _thenStart(replacement.producer)
    }

    /// `then(_:)` with a replacement that cannot fail.
    @inlinable
    public func then<Replacement: SignalProducerConvertible>(
        _ replacement: Replacement
    ) -> SignalProducer<Replacement.Value, Error> where Replacement.Error == Never {
        _thenStart(replacement.producer.promoteError(Error.self))
    }

    /// `then(_:)` with a replacement of the same type: the overload the
    /// compiler prefers when both would do.
    @inlinable
    public func then<Replacement: SignalProducerConvertible>(
        _ replacement: Replacement
    ) -> SignalProducer<Value, Error> where Replacement.Value == Value, Replacement.Error == Error {
        _thenStart(replacement.producer)
    }

    /// The body of every `then`.
    @inlinable
    func _thenStart<U>(_ replacement: SignalProducer<U, Error>) -> SignalProducer<U, Error> {
        // Both runs are in the lifetime before they start (`_start`): an
        // end of the output meanwhile (a downstream `take`) stops either.
        // The first has terminated when the replacement starts: keeping its
        // handle costs nothing more than a SerialDisposable would.
        SignalProducer<U, Error> { observer, lifetime in
            self._start({ event in
                switch event {
                case .value: break
                case let .failed(error): observer.send(error: error)
                case .completed: replacement._start(observer, during: lifetime)
                case .interrupted: observer.sendInterrupted()
                }
            }, during: lifetime)
        }
    }
}

extension SignalProducer where Error == Never {
    /// `then(_:)` for a producer that cannot fail: the replacement's error
    /// type is the result's.
    @inlinable
    public func then<U, F>(_ replacement: SignalProducer<U, F>) -> SignalProducer<U, F> {
        promoteError(F.self)._thenStart(replacement)
    }

    /// `then(_:)` for a producer and a replacement that cannot fail.
    @inlinable
    public func then<U>(_ replacement: SignalProducer<U, Never>) -> SignalProducer<U, Never> {
        _thenStart(replacement)
    }

    /// `then(_:)` with a replacement of the same type.
    @inlinable
    public func then(_ replacement: SignalProducer<Value, Never>) -> SignalProducer<Value, Never> {
        _thenStart(replacement)
    }

    /// `then(_:)` for a producer that cannot fail, with a replacement of any
    /// producer-convertible type: the replacement's error type is the
    /// result's.
    @inlinable
    public func then<Replacement: SignalProducerConvertible>(
        _ replacement: Replacement
    ) -> SignalProducer<Replacement.Value, Replacement.Error> {
        promoteError(Replacement.Error.self)._thenStart(replacement.producer)
    }

    /// `then(_:)` for a producer and a replacement that cannot fail.
    @inlinable
    public func then<Replacement: SignalProducerConvertible>(
        _ replacement: Replacement
    ) -> SignalProducer<Replacement.Value, Never> where Replacement.Error == Never {
        _thenStart(replacement.producer)
    }

    /// `then(_:)` with a replacement of the same type.
    @inlinable
    public func then<Replacement: SignalProducerConvertible>(
        _ replacement: Replacement
    ) -> SignalProducer<Value, Never> where Replacement.Value == Value, Replacement.Error == Never {
        _thenStart(replacement.producer)
    }
}
