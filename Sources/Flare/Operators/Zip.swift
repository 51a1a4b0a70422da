/// The engine of every form of `zip`: the Nth value of every
/// input as soon as each has sent its Nth (values waiting for the others are
/// queued, without bound); `completed` once every input has completed, or as
/// soon as one has completed with no value left waiting (no further tuple
/// can be formed); `failed` or `interrupted` at the first failure or
/// interruption of any input.
@inlinable
func _zipEngine<Inputs: _InputList, Shape: _TupleShape>(
    _ inputs: Inputs, as shape: Shape.Type
) -> Signal<Shape.Flat, Inputs.Failure> where Shape.Nested == Inputs.Values {
    _funnel(inputs) { (downstream: _HeldCore<Shape.Flat, Inputs.Failure>) in
        let state = _DeliveryState(_ZipState(inputs.makeQueues(), count: inputs.count))
        return { tag in state.value.receive(tag).deliver(to: downstream, as: Shape.self) }
    }
}

/// The state of a `zip`.
@usableFromInline
struct _ZipState<Queues: _QueuedValues> {
    @usableFromInline
    var queues: Queues

    @usableFromInline
    let count: Int

    /// Inputs with at least one value waiting.
    @usableFromInline
    var ready = 0

    /// Inputs that have completed.
    @usableFromInline
    var completed = 0

    @inlinable
    init(_ queues: Queues, count: Int) {
        self.queues = queues
        self.count = count
    }

    @inlinable
    mutating func receive(_ tag: Queues.Tag) -> _EngineOutput<Queues.Values, Queues.Failure> {
        var change = _QueueChange()
        switch queues.receive(tag, othersReady: ready == count - 1, &change) {
        case let .tuple(values):
            ready -= change.emptied
            return change.exhausted ? .lastValue(values) : .value(values)
        case .queued:
            if change.filledEmpty { ready += 1 }
            return .nothing
        case let .completed(queueIsEmpty):
            completed += 1
            return queueIsEmpty || completed == count ? .completed : .nothing
        case let .failed(error):
            return .failed(error)
        case .interrupted:
            return .interrupted
        }
    }
}

extension Signal {
    /// Pairs the Nth value of this signal with the Nth value of `other`.
    ///
    /// - Values: each pair is sent as soon as both inputs have sent their Nth
    ///   value; values waiting for their partner are buffered, without bound.
    /// - `completed` when both inputs have completed, or as soon as one input
    ///   has completed with none of its values left waiting for a partner
    ///   (no further pair can then be formed).
    /// - `failed` at the first failure of either input.
    /// - `interrupted` at the first interruption of either input.
    ///
    /// Both inputs are funnelled through one serialization point. Both input
    /// observations, and the buffered values, are released as soon as the
    /// output terminates, or when it has lost every observer and reference.
    @inlinable
    public func zip<U>(with other: Signal<U, Error>) -> Signal<(Value, U), Error> {
        _zipEngine(_InputPair(_SingleInput(self), _SingleInput(other)), as: _AsIs.self)
    }

    /// Zips the values of all `signals`: the Nth array holds the Nth value of
    /// every input, in input order.
    ///
    /// The N-input form of `zip(with:)`: an array as soon as every input has
    /// sent its Nth value; `completed` when every input has completed, or
    /// as soon as one has completed with no value left waiting; `failed` or
    /// `interrupted` at the first failure or interruption of any input.
    ///
    /// If `signals` is empty, the returned signal never sends any event.
    /// Input observations and buffered values are released as soon as the
    /// output terminates, or when it has lost every observer and reference.
    @inlinable
    public static func zip<S: Sequence>(_ signals: S) -> Signal<[Value], Error>
    where S.Element == Signal<Value, Error> {
        let inputs = Array(signals)
        guard !inputs.isEmpty else { return .never }
        return _zipEngine(_InputArray(inputs), as: _AsIs.self)
    }

    /// Zips the values of `a` and `b`, as `zip(with:)`.
    @inlinable
    public static func zip<B>(_ a: Signal<Value, Error>, _ b: Signal<B, Error>) -> Signal<(Value, B), Error> {
        a.zip(with: b)
    }

    /// Zips the values of all the signals, as `zip(with:)` does for two: the
    /// Nth tuple holds the Nth value of every input.
    @inlinable
    public static func zip<B, C>(
        _ a: Signal<Value, Error>, _ b: Signal<B, Error>, _ c: Signal<C, Error>
    ) -> Signal<(Value, B, C), Error> {
        _zipEngine(_InputPair(_SingleInput(a), _InputPair(_SingleInput(b), _SingleInput(c))), as: _Tuple3.self)
    }

    /// Zips the values of all the signals, as `zip(with:)` does for two: the
    /// Nth tuple holds the Nth value of every input.
    @inlinable
    public static func zip<B, C, D>(
        _ a: Signal<Value, Error>, _ b: Signal<B, Error>, _ c: Signal<C, Error>, _ d: Signal<D, Error>
    ) -> Signal<(Value, B, C, D), Error> {
        _zipEngine(_InputPair(_InputPair(_SingleInput(a), _SingleInput(b)), _InputPair(_SingleInput(c), _SingleInput(d))), as: _Tuple4.self)
    }

    /// Zips the values of all the signals, as `zip(with:)` does for two: the
    /// Nth tuple holds the Nth value of every input.
    @inlinable
    public static func zip<B, C, D, E>(
        _ a: Signal<Value, Error>,
        _ b: Signal<B, Error>,
        _ c: Signal<C, Error>,
        _ d: Signal<D, Error>,
        _ e: Signal<E, Error>
    ) -> Signal<(Value, B, C, D, E), Error> {
        _zipEngine(_InputPair(_InputPair(_SingleInput(a), _SingleInput(b)), _InputPair(_SingleInput(c), _InputPair(_SingleInput(d), _SingleInput(e)))), as: _Tuple5.self)
    }

    /// Zips the values of all the signals, as `zip(with:)` does for two: the
    /// Nth tuple holds the Nth value of every input.
    @inlinable
    public static func zip<B, C, D, E, F>(
        _ a: Signal<Value, Error>,
        _ b: Signal<B, Error>,
        _ c: Signal<C, Error>,
        _ d: Signal<D, Error>,
        _ e: Signal<E, Error>,
        _ f: Signal<F, Error>
    ) -> Signal<(Value, B, C, D, E, F), Error> {
        _zipEngine(_InputPair(_InputPair(_SingleInput(a), _InputPair(_SingleInput(b), _SingleInput(c))), _InputPair(_SingleInput(d), _InputPair(_SingleInput(e), _SingleInput(f)))), as: _Tuple6.self)
    }

    /// Zips the values of all the signals, as `zip(with:)` does for two: the
    /// Nth tuple holds the Nth value of every input.
    @inlinable
    public static func zip<B, C, D, E, F, G>(
        _ a: Signal<Value, Error>,
        _ b: Signal<B, Error>,
        _ c: Signal<C, Error>,
        _ d: Signal<D, Error>,
        _ e: Signal<E, Error>,
        _ f: Signal<F, Error>,
        _ g: Signal<G, Error>
    ) -> Signal<(Value, B, C, D, E, F, G), Error> {
        _zipEngine(_InputPair(_InputPair(_SingleInput(a), _InputPair(_SingleInput(b), _SingleInput(c))), _InputPair(_InputPair(_SingleInput(d), _SingleInput(e)), _InputPair(_SingleInput(f), _SingleInput(g)))), as: _Tuple7.self)
    }

    /// Zips the values of all the signals, as `zip(with:)` does for two: the
    /// Nth tuple holds the Nth value of every input.
    @inlinable
    public static func zip<B, C, D, E, F, G, H>(
        _ a: Signal<Value, Error>,
        _ b: Signal<B, Error>,
        _ c: Signal<C, Error>,
        _ d: Signal<D, Error>,
        _ e: Signal<E, Error>,
        _ f: Signal<F, Error>,
        _ g: Signal<G, Error>,
        _ h: Signal<H, Error>
    ) -> Signal<(Value, B, C, D, E, F, G, H), Error> {
        _zipEngine(_InputPair(_InputPair(_InputPair(_SingleInput(a), _SingleInput(b)), _InputPair(_SingleInput(c), _SingleInput(d))), _InputPair(_InputPair(_SingleInput(e), _SingleInput(f)), _InputPair(_SingleInput(g), _SingleInput(h)))), as: _Tuple8.self)
    }

    /// Zips the values of all the signals, as `zip(with:)` does for two: the
    /// Nth tuple holds the Nth value of every input.
    @inlinable
    public static func zip<B, C, D, E, F, G, H, I>(
        _ a: Signal<Value, Error>,
        _ b: Signal<B, Error>,
        _ c: Signal<C, Error>,
        _ d: Signal<D, Error>,
        _ e: Signal<E, Error>,
        _ f: Signal<F, Error>,
        _ g: Signal<G, Error>,
        _ h: Signal<H, Error>,
        _ i: Signal<I, Error>
    ) -> Signal<(Value, B, C, D, E, F, G, H, I), Error> {
        _zipEngine(_InputPair(_InputPair(_InputPair(_SingleInput(a), _SingleInput(b)), _InputPair(_SingleInput(c), _SingleInput(d))), _InputPair(_InputPair(_SingleInput(e), _SingleInput(f)), _InputPair(_SingleInput(g), _InputPair(_SingleInput(h), _SingleInput(i))))), as: _Tuple9.self)
    }

    /// Zips the values of all the signals, as `zip(with:)` does for two: the
    /// Nth tuple holds the Nth value of every input.
    @inlinable
    public static func zip<B, C, D, E, F, G, H, I, J>(
        _ a: Signal<Value, Error>,
        _ b: Signal<B, Error>,
        _ c: Signal<C, Error>,
        _ d: Signal<D, Error>,
        _ e: Signal<E, Error>,
        _ f: Signal<F, Error>,
        _ g: Signal<G, Error>,
        _ h: Signal<H, Error>,
        _ i: Signal<I, Error>,
        _ j: Signal<J, Error>
    ) -> Signal<(Value, B, C, D, E, F, G, H, I, J), Error> {
        _zipEngine(_InputPair(_InputPair(_InputPair(_SingleInput(a), _SingleInput(b)), _InputPair(_SingleInput(c), _InputPair(_SingleInput(d), _SingleInput(e)))), _InputPair(_InputPair(_SingleInput(f), _SingleInput(g)), _InputPair(_SingleInput(h), _InputPair(_SingleInput(i), _SingleInput(j))))), as: _Tuple10.self)
    }
}

extension SignalProducer {
    /// `Signal.zip(with:)` of a run of this producer and one of `other`,
    /// this one started first. Each start starts both; disposing the run
    /// interrupts both.
    @inlinable
    public func zip<U>(with other: SignalProducer<U, Error>) -> SignalProducer<(Value, U), Error> {
        liftLeft { left in { right in left.zip(with: right) } }(other)
    }

    /// `zip(with:)` with a producer-convertible of any type.
    @inlinable
    public func zip<Other: SignalProducerConvertible>(
        with other: Other
    ) -> SignalProducer<(Value, Other.Value), Error> where Other.Error == Error {
        liftLeft { left in { right in left.zip(with: right) } }(other.producer)
    }

    /// `Signal.zip` of one run of each producer, started in order.
    /// With no producer, the runs never send any event, as on signals.
    @inlinable
    public static func zip<S: Sequence>(_ producers: S) -> SignalProducer<[Value], Error>
    where S.Element: SignalProducerConvertible, S.Element.Value == Value, S.Element.Error == Error {
        SignalProducer<[Value], Error>._startingTogether(producers.map(\.producer)) { Signal.zip($0) }
    }

    /// `zip(_:)` of a sequence, except that with no producer each run sends
    /// `emptySentinel`, then completes.
    @inlinable
    public static func zip<S: Sequence>(_ producers: S, emptySentinel: [Value]) -> SignalProducer<[Value], Error>
    where S.Element: SignalProducerConvertible, S.Element.Value == Value, S.Element.Error == Error {
        let inputs = producers.map(\.producer)
        guard !inputs.isEmpty else { return SignalProducer<[Value], Error>(value: emptySentinel) }
        return SignalProducer<[Value], Error>._startingTogether(inputs) { Signal.zip($0) }
    }

    /// `Signal.zip` of one run of each producer, started in argument
    /// order.
    @inlinable
    public static func zip<A: SignalProducerConvertible, B: SignalProducerConvertible>(
        _ a: A, _ b: B
    ) -> SignalProducer<(Value, B.Value), Error>
    where A.Value == Value, A.Error == Error, B.Error == Error {
        a.producer.zip(with: b)
    }

    /// `Signal.zip` of one run of each producer, started in argument
    /// order.
    @inlinable
    public static func zip<A: SignalProducerConvertible, B: SignalProducerConvertible, C: SignalProducerConvertible>(
        _ a: A, _ b: B, _ c: C
    ) -> SignalProducer<(Value, B.Value, C.Value), Error>
    where A.Value == Value, A.Error == Error, B.Error == Error, C.Error == Error {
        _startingTogether(_ProducerPair(_SingleProducer(a.producer), _ProducerPair(_SingleProducer(b.producer), _SingleProducer(c.producer)))) {
            _zipEngine($0, as: _Tuple3.self)
        }
    }

    /// `Signal.zip` of one run of each producer, started in argument
    /// order.
    @inlinable
    public static func zip<A: SignalProducerConvertible, B: SignalProducerConvertible, C: SignalProducerConvertible, D: SignalProducerConvertible>(
        _ a: A, _ b: B, _ c: C, _ d: D
    ) -> SignalProducer<(Value, B.Value, C.Value, D.Value), Error>
    where A.Value == Value, A.Error == Error, B.Error == Error, C.Error == Error, D.Error == Error {
        _startingTogether(_ProducerPair(_ProducerPair(_SingleProducer(a.producer), _SingleProducer(b.producer)), _ProducerPair(_SingleProducer(c.producer), _SingleProducer(d.producer)))) {
            _zipEngine($0, as: _Tuple4.self)
        }
    }

    /// `Signal.zip` of one run of each producer, started in argument
    /// order.
    @inlinable
    public static func zip<A: SignalProducerConvertible, B: SignalProducerConvertible, C: SignalProducerConvertible, D: SignalProducerConvertible, E: SignalProducerConvertible>(
        _ a: A, _ b: B, _ c: C, _ d: D, _ e: E
    ) -> SignalProducer<(Value, B.Value, C.Value, D.Value, E.Value), Error>
    where A.Value == Value, A.Error == Error, B.Error == Error, C.Error == Error, D.Error == Error, E.Error == Error {
        _startingTogether(_ProducerPair(_ProducerPair(_SingleProducer(a.producer), _SingleProducer(b.producer)), _ProducerPair(_SingleProducer(c.producer), _ProducerPair(_SingleProducer(d.producer), _SingleProducer(e.producer))))) {
            _zipEngine($0, as: _Tuple5.self)
        }
    }

    /// `Signal.zip` of one run of each producer, started in argument
    /// order.
    @inlinable
    public static func zip<A: SignalProducerConvertible, B: SignalProducerConvertible, C: SignalProducerConvertible, D: SignalProducerConvertible, E: SignalProducerConvertible, F: SignalProducerConvertible>(
        _ a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F
    ) -> SignalProducer<(Value, B.Value, C.Value, D.Value, E.Value, F.Value), Error>
    where A.Value == Value, A.Error == Error, B.Error == Error, C.Error == Error, D.Error == Error, E.Error == Error, F.Error == Error {
        _startingTogether(_ProducerPair(_ProducerPair(_SingleProducer(a.producer), _ProducerPair(_SingleProducer(b.producer), _SingleProducer(c.producer))), _ProducerPair(_SingleProducer(d.producer), _ProducerPair(_SingleProducer(e.producer), _SingleProducer(f.producer))))) {
            _zipEngine($0, as: _Tuple6.self)
        }
    }

    /// `Signal.zip` of one run of each producer, started in argument
    /// order.
    @inlinable
    public static func zip<A: SignalProducerConvertible, B: SignalProducerConvertible, C: SignalProducerConvertible, D: SignalProducerConvertible, E: SignalProducerConvertible, F: SignalProducerConvertible, G: SignalProducerConvertible>(
        _ a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F, _ g: G
    ) -> SignalProducer<(Value, B.Value, C.Value, D.Value, E.Value, F.Value, G.Value), Error>
    where A.Value == Value, A.Error == Error, B.Error == Error, C.Error == Error, D.Error == Error, E.Error == Error, F.Error == Error, G.Error == Error {
        _startingTogether(_ProducerPair(_ProducerPair(_SingleProducer(a.producer), _ProducerPair(_SingleProducer(b.producer), _SingleProducer(c.producer))), _ProducerPair(_ProducerPair(_SingleProducer(d.producer), _SingleProducer(e.producer)), _ProducerPair(_SingleProducer(f.producer), _SingleProducer(g.producer))))) {
            _zipEngine($0, as: _Tuple7.self)
        }
    }

    /// `Signal.zip` of one run of each producer, started in argument
    /// order.
    @inlinable
    public static func zip<A: SignalProducerConvertible, B: SignalProducerConvertible, C: SignalProducerConvertible, D: SignalProducerConvertible, E: SignalProducerConvertible, F: SignalProducerConvertible, G: SignalProducerConvertible, H: SignalProducerConvertible>(
        _ a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F, _ g: G, _ h: H
    ) -> SignalProducer<(Value, B.Value, C.Value, D.Value, E.Value, F.Value, G.Value, H.Value), Error>
    where A.Value == Value, A.Error == Error, B.Error == Error, C.Error == Error, D.Error == Error, E.Error == Error, F.Error == Error, G.Error == Error, H.Error == Error {
        _startingTogether(_ProducerPair(_ProducerPair(_ProducerPair(_SingleProducer(a.producer), _SingleProducer(b.producer)), _ProducerPair(_SingleProducer(c.producer), _SingleProducer(d.producer))), _ProducerPair(_ProducerPair(_SingleProducer(e.producer), _SingleProducer(f.producer)), _ProducerPair(_SingleProducer(g.producer), _SingleProducer(h.producer))))) {
            _zipEngine($0, as: _Tuple8.self)
        }
    }

    /// `Signal.zip` of one run of each producer, started in argument
    /// order.
    @inlinable
    public static func zip<A: SignalProducerConvertible, B: SignalProducerConvertible, C: SignalProducerConvertible, D: SignalProducerConvertible, E: SignalProducerConvertible, F: SignalProducerConvertible, G: SignalProducerConvertible, H: SignalProducerConvertible, I: SignalProducerConvertible>(
        _ a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F, _ g: G, _ h: H, _ i: I
    ) -> SignalProducer<(Value, B.Value, C.Value, D.Value, E.Value, F.Value, G.Value, H.Value, I.Value), Error>
    where A.Value == Value, A.Error == Error, B.Error == Error, C.Error == Error, D.Error == Error, E.Error == Error, F.Error == Error, G.Error == Error, H.Error == Error, I.Error == Error {
        _startingTogether(_ProducerPair(_ProducerPair(_ProducerPair(_SingleProducer(a.producer), _SingleProducer(b.producer)), _ProducerPair(_SingleProducer(c.producer), _SingleProducer(d.producer))), _ProducerPair(_ProducerPair(_SingleProducer(e.producer), _SingleProducer(f.producer)), _ProducerPair(_SingleProducer(g.producer), _ProducerPair(_SingleProducer(h.producer), _SingleProducer(i.producer)))))) {
            _zipEngine($0, as: _Tuple9.self)
        }
    }

    /// `Signal.zip` of one run of each producer, started in argument
    /// order.
    @inlinable
    public static func zip<A: SignalProducerConvertible, B: SignalProducerConvertible, C: SignalProducerConvertible, D: SignalProducerConvertible, E: SignalProducerConvertible, F: SignalProducerConvertible, G: SignalProducerConvertible, H: SignalProducerConvertible, I: SignalProducerConvertible, J: SignalProducerConvertible>(
        _ a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F, _ g: G, _ h: H, _ i: I, _ j: J
    ) -> SignalProducer<(Value, B.Value, C.Value, D.Value, E.Value, F.Value, G.Value, H.Value, I.Value, J.Value), Error>
    where A.Value == Value, A.Error == Error, B.Error == Error, C.Error == Error, D.Error == Error, E.Error == Error, F.Error == Error, G.Error == Error, H.Error == Error, I.Error == Error, J.Error == Error {
        _startingTogether(_ProducerPair(_ProducerPair(_ProducerPair(_SingleProducer(a.producer), _SingleProducer(b.producer)), _ProducerPair(_SingleProducer(c.producer), _ProducerPair(_SingleProducer(d.producer), _SingleProducer(e.producer)))), _ProducerPair(_ProducerPair(_SingleProducer(f.producer), _SingleProducer(g.producer)), _ProducerPair(_SingleProducer(h.producer), _ProducerPair(_SingleProducer(i.producer), _SingleProducer(j.producer)))))) {
            _zipEngine($0, as: _Tuple10.self)
        }
    }
}
