extension Signal {
    /// Pairs each value of this signal with the latest value of `samplee`.
    ///
    /// - Values: each value of this signal sends the pair with `samplee`'s
    ///   latest value; a value sent before `samplee` has sent any is dropped.
    /// - Terminal events of this signal (`completed`, `failed`,
    ///   `interrupted`) pass through at once.
    /// - Every terminal event of `samplee` is ignored: its last value keeps
    ///   being used.
    ///
    /// Both inputs are funnelled through one serialization point. Both input
    /// observations are disposed as soon as the output terminates, or when it
    /// has lost every observer and reference.
    @inlinable
    public func withLatest<U>(from samplee: Signal<U, Never>) -> Signal<(Value, U), Error> {
        _funnel({ (downstream: _HeldCore<(Value, U), Error>) in
            let latest = _DeliveryState<U?>(nil)
            return { (tag: _Pair<Event, Signal<U, Never>.Event>) in
                switch tag {
                case let .first(.value(value)):
                    if let latest = latest.value { downstream.deliverHeld(.value((value, latest))) }
                case let .first(.failed(error)):
                    downstream.deliverHeld(.failed(error))
                case .first(.completed):
                    downstream.deliverHeld(.completed)
                case .first(.interrupted):
                    downstream.deliverHeld(.interrupted)
                case let .second(.value(value)):
                    latest.value = value
                case .second:
                    break
                }
            }
        }, connect: { input, observations in
            observations += samplee.observe { input.send(value: .second($0)) }
            observations += self.observe { input.send(value: .first($0)) }
        })
    }
}

extension SignalProducer {
    /// `Signal.withLatest(from:)` of a run of this producer and one of
    /// `samplee`, `samplee` started first (so that its values sent while
    /// starting are already the latest).
    @inlinable
    public func withLatest<U>(from samplee: SignalProducer<U, Never>) -> SignalProducer<(Value, U), Error> {
        liftRight { left in { right in left.withLatest(from: right) } }(samplee)
    }

    /// `withLatest(from:)` with a samplee of any producer-convertible type.
    @inlinable
    public func withLatest<Samplee: SignalProducerConvertible>(
        from samplee: Samplee
    ) -> SignalProducer<(Value, Samplee.Value), Error> where Samplee.Error == Never {
        liftRight { left in { right in left.withLatest(from: right) } }(samplee.producer)
    }
}
