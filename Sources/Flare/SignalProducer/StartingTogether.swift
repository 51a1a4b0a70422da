extension SignalProducer {
    /// A producer whose every start starts `inputs` in order, the first
    /// first, each with `startWithSignal`, and forwards what `combine` makes
    /// of their signals. Every input's signal is set up before any input
    /// starts, so nothing an input sends while starting is missed. Disposing
    /// the run interrupts every input's run.
    ///
    /// How the multi-input operators (`combineLatest`, `zip`, `merge` and
    /// their sequence forms) apply to producers: the operator's body is the
    /// signal operator's.
    @inlinable
    static func _startingTogether<V, E>(
        _ inputs: [SignalProducer<V, E>], _ combine: @escaping ([Signal<V, E>]) -> Signal<Value, Error>
    ) -> SignalProducer {
        SignalProducer { observer, lifetime in
            _withStartedSignals(of: inputs[...], during: lifetime) { signals in
                lifetime += combine(signals).observe(observer)
            }
        }
    }
}

/// Sets up the signals of `producers` (the last one's first), hands them to
/// `setup`, then lets them start, the first first: each `startWithSignal`
/// starts its producer when its setup returns, and the first producer's is
/// the innermost.
@inlinable
func _withStartedSignals<V, E>(
    of producers: ArraySlice<SignalProducer<V, E>>, during lifetime: Lifetime, _ setup: ([Signal<V, E>]) -> Void
) {
    guard let last = producers.last else {
        setup([])
        return
    }
    last.startWithSignal { signal, interrupter in
        lifetime += interrupter
        _withStartedSignals(of: producers.dropLast(), during: lifetime) { setup($0 + [signal]) }
    }
}

extension SignalProducer {
    /// `_startingTogether` for producers of different value types: every
    /// start starts those of `inputs` in order, the first first, and
    /// forwards what `combine` makes of their signals (typed as `inputs`
    /// lists them). How the static forms of `combineLatest` and `zip` apply
    /// to producers.
    @inlinable
    static func _startingTogether<Inputs: _ProducerList, Output>(
        _ inputs: Inputs, _ combine: @escaping (Inputs.Signals) -> Signal<Output, Error>
    ) -> SignalProducer<Output, Error> where Inputs.Signals.Failure == Error {
        SignalProducer<Output, Error> { observer, lifetime in
            inputs.startWithSignals(during: lifetime) { signals in
                lifetime += combine(signals).observe(observer)
            }
        }
    }
}

/// Producers of any value types, as the input list their runs' signals make.
@usableFromInline
protocol _ProducerList {
    associatedtype Signals: _InputList

    /// Sets up the signals of the producers (the last one's first), hands
    /// them to `setup`, then lets them start, the first first (as
    /// `_withStartedSignals`). Disposing `lifetime` interrupts every run.
    func startWithSignals(during lifetime: Lifetime, _ setup: (Signals) -> Void)
}

/// One producer: a leaf of the tree.
@usableFromInline
struct _SingleProducer<Value, Failure: Swift.Error>: _ProducerList {
    @usableFromInline
    let producer: SignalProducer<Value, Failure>

    @inlinable
    init(_ producer: SignalProducer<Value, Failure>) {
        self.producer = producer
    }

    @inlinable
    func startWithSignals(during lifetime: Lifetime, _ setup: (_SingleInput<Value, Failure>) -> Void) {
        producer.startWithSignal { signal, interrupter in
            lifetime += interrupter
            setup(_SingleInput(signal))
        }
    }
}

/// The producers of `first`, then those of `second`: a node of the tree.
@usableFromInline
struct _ProducerPair<First: _ProducerList, Second: _ProducerList>: _ProducerList
where First.Signals.Failure == Second.Signals.Failure {
    @usableFromInline
    let first: First
    @usableFromInline
    let second: Second

    @inlinable
    init(_ first: First, _ second: Second) {
        self.first = first
        self.second = second
    }

    @inlinable
    func startWithSignals(during lifetime: Lifetime, _ setup: (_InputPair<First.Signals, Second.Signals>) -> Void) {
        // The outer setup returns last: `second`'s producers start after
        // `first`'s.
        second.startWithSignals(during: lifetime) { secondSignals in
            first.startWithSignals(during: lifetime) { firstSignals in
                setup(_InputPair(firstSignals, secondSignals))
            }
        }
    }
}

extension Signal {
    /// Pairs each value of this signal with the latest value of a run of
    /// `samplee`, started when the returned signal is made; see
    /// `withLatest(from:)` for a signal. The run is interrupted when the
    /// returned signal ends.
    @inlinable
    public func withLatest<U>(from samplee: SignalProducer<U, Never>) -> Signal<(Value, U), Error> {
        Signal<(Value, U), Error> { observer, lifetime in
            samplee.startWithSignal { sampleeSignal, interrupter in
                lifetime += interrupter
                lifetime += self.withLatest(from: sampleeSignal).observe(observer)
            }
        }
    }

    /// `withLatest(from:)` with a samplee of any producer-convertible type
    /// (a property …).
    @inlinable
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
