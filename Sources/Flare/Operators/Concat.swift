extension SignalProducer {
    /// A producer whose runs forward a run of this producer, then, once it
    /// has completed, a run of `next`: `flatten(.concat)` of the two.
    ///
    /// A failure of either is forwarded, and `next` never starts after a
    /// failure of this one. An `interrupted` of this one's run counts as its
    /// completion (as for any `.concat` inner). ReactiveObjC's `concat:`.
    @inlinable
    public func concat(_ next: SignalProducer<Value, Error>) -> SignalProducer<Value, Error> {
        SignalProducer<SignalProducer<Value, Error>, Error>([self, next]).flatten(.concat)
    }

    /// `concat(_:)` with a follow-up of any producer-convertible type.
    @inlinable
    public func concat<Next: SignalProducerConvertible>(
        _ next: Next
    ) -> SignalProducer<Value, Error> where Next.Value == Value, Next.Error == Error {
        concat(next.producer)
    }

    /// This producer's events, then `value` once it has completed.
    @inlinable
    public func concat(value: Value) -> SignalProducer<Value, Error> {
        concat(SignalProducer(value: value))
    }

    /// This producer's events, then a failure with `error` once it has
    /// completed.
    @inlinable
    public func concat(error: Error) -> SignalProducer<Value, Error> {
        concat(SignalProducer(error: error))
    }

    /// A run of `previous`, then, once it has completed, a run of this
    /// producer: `previous.concat(self)`.
    @inlinable
    public func prefix(_ previous: SignalProducer<Value, Error>) -> SignalProducer<Value, Error> {
        previous.concat(self)
    }

    /// `prefix(_:)` with a prefix of any producer-convertible type.
    @inlinable
    public func prefix<Previous: SignalProducerConvertible>(
        _ previous: Previous
    ) -> SignalProducer<Value, Error> where Previous.Value == Value, Previous.Error == Error {
        prefix(previous.producer)
    }

    /// `value`, then this producer's events. ReactiveObjC's `startWith:`.
    @inlinable
    public func prefix(value: Value) -> SignalProducer<Value, Error> {
        prefix(SignalProducer(value: value))
    }
}
