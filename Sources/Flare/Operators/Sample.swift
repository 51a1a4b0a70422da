extension Signal {
    /// Sends the latest value of this signal paired with each value of
    /// `sampler`.
    ///
    /// - Values: each value of `sampler` sends this signal's latest value
    ///   with it; a sampler value arriving before this signal has sent any
    ///   value sends nothing. A latest value may be sent several times.
    /// - `completed` once both this signal and `sampler` have completed.
    /// - `failed` when this signal fails.
    /// - `interrupted` when either input is interrupted.
    ///
    /// Both inputs are funnelled through one serialization point. Both input
    /// observations are disposed as soon as the output terminates, or when it
    /// has lost every observer and reference.
    @inlinable
    public func sample<T>(with sampler: Signal<T, Never>) -> Signal<(Value, T), Error> {
        _funnel({ (downstream: _HeldCore<(Value, T), Error>) in
            let latest = _DeliveryState<Value?>(nil)
            let sourceCompleted = _DeliveryState(false)
            let samplerCompleted = _DeliveryState(false)
            return { (tag: _Pair<Event, Signal<T, Never>.Event>) in
                switch tag {
                case let .first(.value(value)):
                    latest.value = value
                case let .first(.failed(error)):
                    downstream.deliverHeld(.failed(error))
                case .first(.completed):
                    sourceCompleted.value = true
                    if samplerCompleted.value { downstream.deliverHeld(.completed) }
                case .first(.interrupted), .second(.interrupted):
                    downstream.deliverHeld(.interrupted)
                case let .second(.value(samplerValue)):
                    if let latest = latest.value { downstream.deliverHeld(.value((latest, samplerValue))) }
                case .second(.completed):
                    samplerCompleted.value = true
                    if sourceCompleted.value { downstream.deliverHeld(.completed) }
                case .second(.failed):
                    break
                }
            }
        }, connect: { input, observations in
            observations += self.observe { input.send(value: .first($0)) }
            observations += sampler.observe { input.send(value: .second($0)) }
        })
    }

    /// Sends the latest value of this signal each time `sampler` sends a
    /// value.
    ///
    /// The events are those of `sample(with:)` without the sampler's value:
    /// nothing for a sampler value arriving before this signal's first value;
    /// `completed` once both inputs have completed; `failed` when this signal
    /// fails; `interrupted` when either is interrupted. Both input
    /// observations are disposed as soon as the output terminates.
    @inlinable
    public func sample(on sampler: Signal<(), Never>) -> Signal<Value, Error> {
        sample(with: sampler).map { $0.0 }
    }
}

extension SignalProducer {
    /// `Signal.sample(with:)` of a run of this producer and one of
    /// `sampler`, this one started first.
    @inlinable
    public func sample<U>(with sampler: SignalProducer<U, Never>) -> SignalProducer<(Value, U), Error> {
        liftLeft { left in { right in left.sample(with: right) } }(sampler)
    }

    /// `sample(with:)` with a sampler of any producer-convertible type.
    @inlinable
    public func sample<Sampler: SignalProducerConvertible>(
        with sampler: Sampler
    ) -> SignalProducer<(Value, Sampler.Value), Error> where Sampler.Error == Never {
        liftLeft { left in { right in left.sample(with: right) } }(sampler.producer)
    }

    /// `Signal.sample(on:)` of a run of this producer and one of `sampler`,
    /// this one started first.
    @inlinable
    public func sample(on sampler: SignalProducer<(), Never>) -> SignalProducer<Value, Error> {
        liftLeft { left in { right in left.sample(on: right) } }(sampler)
    }

    /// `sample(on:)` with a sampler of any producer-convertible type.
    @inlinable
    public func sample<Sampler: SignalProducerConvertible>(
        on sampler: Sampler
    ) -> SignalProducer<Value, Error> where Sampler.Value == (), Sampler.Error == Never {
        liftLeft { left in { right in left.sample(on: right) } }(sampler.producer)
    }
}
