extension SignalProducer {
    /// A producer whose every start starts `inputs` in order, the first
    /// first, each with `startWithSignal`, and forwards what `combine` makes
    /// of their signals. Every input's signal is set up before any input
    /// starts, so nothing an input sends while starting is missed. Disposing
    /// the run interrupts every input's run.
    ///
    /// How the multi-input operators (`combineLatest`, `zip`, `merge` and
    /// their static forms) apply to producers: the operator's body is the
    /// signal operator's.
    @usableFromInline
    static func startingTogether<V, E>(
        _ inputs: [SignalProducer<V, E>], _ combine: @escaping ([Signal<V, E>]) -> Signal<Value, Error>
    ) -> SignalProducer {
        SignalProducer { observer, lifetime in
            withStartedSignals(of: inputs[...], during: lifetime) { signals in
                lifetime += combine(signals).observe(observer)
            }
        }
    }

    /// This producer with its values as `Any`, so that producers of
    /// different value types can share one N-input engine.
    @usableFromInline
    var erased: SignalProducer<Any, Error> {
        map { $0 as Any }
    }
}

/// Sets up the signals of `producers` (the last one's first), hands them to
/// `setup`, then lets them start, the first first: each `startWithSignal`
/// starts its producer when its setup returns, and the first producer's is
/// the innermost.
private func withStartedSignals<V, E>(
    of producers: ArraySlice<SignalProducer<V, E>>, during lifetime: Lifetime, _ setup: ([Signal<V, E>]) -> Void
) {
    guard let last = producers.last else {
        setup([])
        return
    }
    last.startWithSignal { signal, interrupter in
        lifetime += interrupter
        withStartedSignals(of: producers.dropLast(), during: lifetime) { setup($0 + [signal]) }
    }
}

extension Signal {
    /// Pairs each value of this signal with the latest value of a run of
    /// `samplee`, started when the returned signal is made; see
    /// `withLatest(from:)` for a signal. The run is interrupted when the
    /// returned signal ends.
    public func withLatest<Samplee: SignalProducerConvertible>(
        from samplee: Samplee
    ) -> Signal<(Value, Samplee.Value), Error> where Samplee.Error == Never {
        Signal<(Value, Samplee.Value), Error> { observer, lifetime in
            samplee.producer.startWithSignal { sampleeSignal, interrupter in
                lifetime += interrupter
                lifetime += self.withLatest(from: sampleeSignal).observe(observer)
            }
        }
    }
}
