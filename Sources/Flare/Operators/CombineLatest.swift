/// The engine of every form of `combineLatest`: once every input has sent a
/// value, the latest values (as `shape` flattens them) for every value of
/// any input;
/// `completed` once every input has completed; `failed` or `interrupted` at
/// the first failure or interruption of any input.
@inlinable
func _combineLatestEngine<Inputs: _InputList, Shape: _TupleShape>(
    _ inputs: Inputs, as shape: Shape.Type
) -> Signal<Shape.Flat, Inputs.Failure> where Shape.Nested == Inputs.Values {
    _funnel(inputs) { (downstream: _HeldCore<Shape.Flat, Inputs.Failure>) in
        let state = _DeliveryState(_CombineLatestState(inputs.makeLatest(), count: inputs.count))
        return { tag in state.value.receive(tag).deliver(to: downstream, as: Shape.self) }
    }
}

/// The state of a `combineLatest`.
@usableFromInline
struct _CombineLatestState<Latest: _LatestValues> {
    @usableFromInline
    var latest: Latest

    /// Inputs with no value yet.
    @usableFromInline
    var missing: Int

    /// Inputs that have not completed.
    @usableFromInline
    var running: Int

    @inlinable
    init(_ latest: Latest, count: Int) {
        self.latest = latest
        missing = count
        running = count
    }

    @inlinable
    mutating func receive(_ tag: Latest.Tag) -> _EngineOutput<Latest.Values, Latest.Failure> {
        switch latest.receive(tag) {
        case let .value(isFirst):
            if isFirst { missing -= 1 }
            return missing == 0 ? .value(latest.values()) : .nothing
        case .completed:
            running -= 1
            return running == 0 ? .completed : .nothing
        case let .failed(error):
            return .failed(error)
        case .interrupted:
            return .interrupted
        }
    }
}

extension Signal {
    /// Combines the latest value of this signal with the latest value of
    /// `other`.
    ///
    /// - Values: once both inputs have sent a value, every value of either
    ///   input sends the pair of the latest values. Values sent before the
    ///   other input's first value only update the latest.
    /// - `completed` once both inputs have completed (an input that completed
    ///   keeps contributing its last value).
    /// - `failed` at the first failure of either input.
    /// - `interrupted` at the first interruption of either input.
    ///
    /// Both inputs are funnelled through one serialization point, so the
    /// output is never delivered concurrently even when the inputs send from
    /// different threads. Both input observations are disposed as soon as the
    /// output terminates, or when it has lost every observer and reference.
    @inlinable
    public func combineLatest<U>(with other: Signal<U, Error>) -> Signal<(Value, U), Error> {
        _combineLatestEngine(_InputPair(_SingleInput(self), _SingleInput(other)), as: _AsIs.self)
    }

    /// Combines the latest values of all `signals`, in input order.
    ///
    /// The N-input form of `combineLatest(with:)`:
    /// - Values: once every input has sent a value, every value of any input
    ///   sends the array of the latest values.
    /// - `completed` once every input has completed; `failed` or
    ///   `interrupted` at the first failure or interruption of any input.
    ///
    /// If `signals` is empty, the returned signal never sends any event.
    /// Input observations are disposed as soon as the output terminates, or
    /// when it has lost every observer and reference.
    @inlinable
    public static func combineLatest<S: Sequence>(_ signals: S) -> Signal<[Value], Error>
    where S.Element == Signal<Value, Error> {
        let inputs = Array(signals)
        guard !inputs.isEmpty else { return .never }
        return _combineLatestEngine(_InputArray(inputs), as: _AsIs.self)
    }

    /// Combines the latest values of `a` and `b`, as `combineLatest(with:)`.
    @inlinable
    public static func combineLatest<B>(
        _ a: Signal<Value, Error>, _ b: Signal<B, Error>
    ) -> Signal<(Value, B), Error> {
        a.combineLatest(with: b)
    }

    /// Combines the latest values of all the signals, as
    /// `combineLatest(with:)` does for two: a tuple once every input has sent
    /// a value, then one per value of any input; `completed` once all have
    /// completed; `failed`/`interrupted` at the first failure/interruption.
    @inlinable
    public static func combineLatest<B, C>(
        _ a: Signal<Value, Error>, _ b: Signal<B, Error>, _ c: Signal<C, Error>
    ) -> Signal<(Value, B, C), Error> {
        _combineLatestEngine(_InputPair(_SingleInput(a), _InputPair(_SingleInput(b), _SingleInput(c))), as: _Tuple3.self)
    }

    /// Combines the latest values of all the signals, as
    /// `combineLatest(with:)` does for two.
    @inlinable
    public static func combineLatest<B, C, D>(
        _ a: Signal<Value, Error>, _ b: Signal<B, Error>, _ c: Signal<C, Error>, _ d: Signal<D, Error>
    ) -> Signal<(Value, B, C, D), Error> {
        _combineLatestEngine(_InputPair(_InputPair(_SingleInput(a), _SingleInput(b)), _InputPair(_SingleInput(c), _SingleInput(d))), as: _Tuple4.self)
    }

    /// Combines the latest values of all the signals, as
    /// `combineLatest(with:)` does for two.
    @inlinable
    public static func combineLatest<B, C, D, E>(
        _ a: Signal<Value, Error>, _ b: Signal<B, Error>, _ c: Signal<C, Error>, _ d: Signal<D, Error>,
        _ e: Signal<E, Error>
    ) -> Signal<(Value, B, C, D, E), Error> {
        _combineLatestEngine(_InputPair(_InputPair(_SingleInput(a), _SingleInput(b)), _InputPair(_SingleInput(c), _InputPair(_SingleInput(d), _SingleInput(e)))), as: _Tuple5.self)
    }

    /// Combines the latest values of all the signals, as
    /// `combineLatest(with:)` does for two.
    @inlinable
    public static func combineLatest<B, C, D, E, F>(
        _ a: Signal<Value, Error>, _ b: Signal<B, Error>, _ c: Signal<C, Error>, _ d: Signal<D, Error>,
        _ e: Signal<E, Error>, _ f: Signal<F, Error>
    ) -> Signal<(Value, B, C, D, E, F), Error> {
        _combineLatestEngine(_InputPair(_InputPair(_SingleInput(a), _InputPair(_SingleInput(b), _SingleInput(c))), _InputPair(_SingleInput(d), _InputPair(_SingleInput(e), _SingleInput(f)))), as: _Tuple6.self)
    }

    /// Combines the latest values of all the signals, as
    /// `combineLatest(with:)` does for two.
    @inlinable
    public static func combineLatest<B, C, D, E, F, G>(
        _ a: Signal<Value, Error>, _ b: Signal<B, Error>, _ c: Signal<C, Error>, _ d: Signal<D, Error>,
        _ e: Signal<E, Error>, _ f: Signal<F, Error>, _ g: Signal<G, Error>
    ) -> Signal<(Value, B, C, D, E, F, G), Error> {
        _combineLatestEngine(_InputPair(_InputPair(_SingleInput(a), _InputPair(_SingleInput(b), _SingleInput(c))), _InputPair(_InputPair(_SingleInput(d), _SingleInput(e)), _InputPair(_SingleInput(f), _SingleInput(g)))), as: _Tuple7.self)
    }

    /// Combines the latest values of all the signals, as
    /// `combineLatest(with:)` does for two.
    @inlinable
    public static func combineLatest<B, C, D, E, F, G, H>(
        _ a: Signal<Value, Error>, _ b: Signal<B, Error>, _ c: Signal<C, Error>, _ d: Signal<D, Error>,
        _ e: Signal<E, Error>, _ f: Signal<F, Error>, _ g: Signal<G, Error>, _ h: Signal<H, Error>
    ) -> Signal<(Value, B, C, D, E, F, G, H), Error> {
        _combineLatestEngine(_InputPair(_InputPair(_InputPair(_SingleInput(a), _SingleInput(b)), _InputPair(_SingleInput(c), _SingleInput(d))), _InputPair(_InputPair(_SingleInput(e), _SingleInput(f)), _InputPair(_SingleInput(g), _SingleInput(h)))), as: _Tuple8.self)
    }

    /// Combines the latest values of all the signals, as
    /// `combineLatest(with:)` does for two.
    @inlinable
    public static func combineLatest<B, C, D, E, F, G, H, I>(
        _ a: Signal<Value, Error>, _ b: Signal<B, Error>, _ c: Signal<C, Error>, _ d: Signal<D, Error>,
        _ e: Signal<E, Error>, _ f: Signal<F, Error>, _ g: Signal<G, Error>, _ h: Signal<H, Error>,
        _ i: Signal<I, Error>
    ) -> Signal<(Value, B, C, D, E, F, G, H, I), Error> {
        _combineLatestEngine(_InputPair(_InputPair(_InputPair(_SingleInput(a), _SingleInput(b)), _InputPair(_SingleInput(c), _SingleInput(d))), _InputPair(_InputPair(_SingleInput(e), _SingleInput(f)), _InputPair(_SingleInput(g), _InputPair(_SingleInput(h), _SingleInput(i))))), as: _Tuple9.self)
    }

    /// Combines the latest values of all the signals, as
    /// `combineLatest(with:)` does for two.
    @inlinable
    public static func combineLatest<B, C, D, E, F, G, H, I, J>(
        _ a: Signal<Value, Error>, _ b: Signal<B, Error>, _ c: Signal<C, Error>, _ d: Signal<D, Error>,
        _ e: Signal<E, Error>, _ f: Signal<F, Error>, _ g: Signal<G, Error>, _ h: Signal<H, Error>,
        _ i: Signal<I, Error>, _ j: Signal<J, Error>
    ) -> Signal<(Value, B, C, D, E, F, G, H, I, J), Error> {
        _combineLatestEngine(_InputPair(_InputPair(_InputPair(_SingleInput(a), _SingleInput(b)), _InputPair(_SingleInput(c), _InputPair(_SingleInput(d), _SingleInput(e)))), _InputPair(_InputPair(_SingleInput(f), _SingleInput(g)), _InputPair(_SingleInput(h), _InputPair(_SingleInput(i), _SingleInput(j))))), as: _Tuple10.self)
    }
}

extension SignalProducer {
    /// `Signal.combineLatest(with:)` of a run of this producer and one of
    /// `other`, this one started first. Each start starts both; disposing
    /// the run interrupts both.
    @inlinable
    public func combineLatest<U>(with other: SignalProducer<U, Error>) -> SignalProducer<(Value, U), Error> {
        liftLeft { left in { right in left.combineLatest(with: right) } }(other)
    }

    /// `combineLatest(with:)` with a producer-convertible of any type.
    @inlinable
    public func combineLatest<Other: SignalProducerConvertible>(
        with other: Other
    ) -> SignalProducer<(Value, Other.Value), Error> where Other.Error == Error {
        liftLeft { left in { right in left.combineLatest(with: right) } }(other.producer)
    }

    /// `Signal.combineLatest` of one run of each producer, started in order.
    /// With no producer, the runs never send any event.
    @inlinable
    public static func combineLatest<S: Sequence>(_ producers: S) -> SignalProducer<[Value], Error>
    where S.Element: SignalProducerConvertible, S.Element.Value == Value, S.Element.Error == Error {
        SignalProducer<[Value], Error>._startingTogether(producers.map(\.producer)) { Signal.combineLatest($0) }
    }

    /// `combineLatest(_:)` of a sequence, except that with no producer each
    /// run sends `emptySentinel`, then completes.
    @inlinable
    public static func combineLatest<S: Sequence>(_ producers: S, emptySentinel: [Value]) -> SignalProducer<[Value], Error>
    where S.Element: SignalProducerConvertible, S.Element.Value == Value, S.Element.Error == Error {
        let inputs = producers.map(\.producer)
        guard !inputs.isEmpty else { return SignalProducer<[Value], Error>(value: emptySentinel) }
        return SignalProducer<[Value], Error>._startingTogether(inputs) { Signal.combineLatest($0) }
    }

    /// `Signal.combineLatest` of one run of each producer, started in argument
    /// order.
    @inlinable
    public static func combineLatest<A: SignalProducerConvertible, B: SignalProducerConvertible>(
        _ a: A, _ b: B
    ) -> SignalProducer<(Value, B.Value), Error>
    where A.Value == Value, A.Error == Error, B.Error == Error {
        a.producer.combineLatest(with: b)
    }

    /// `Signal.combineLatest` of one run of each producer, started in argument
    /// order.
    @inlinable
    public static func combineLatest<A: SignalProducerConvertible, B: SignalProducerConvertible, C: SignalProducerConvertible>(
        _ a: A, _ b: B, _ c: C
    ) -> SignalProducer<(Value, B.Value, C.Value), Error>
    where A.Value == Value, A.Error == Error, B.Error == Error, C.Error == Error {
        _startingTogether(_ProducerPair(_SingleProducer(a.producer), _ProducerPair(_SingleProducer(b.producer), _SingleProducer(c.producer)))) {
            _combineLatestEngine($0, as: _Tuple3.self)
        }
    }

    /// `Signal.combineLatest` of one run of each producer, started in argument
    /// order.
    @inlinable
    public static func combineLatest<A: SignalProducerConvertible, B: SignalProducerConvertible, C: SignalProducerConvertible, D: SignalProducerConvertible>(
        _ a: A, _ b: B, _ c: C, _ d: D
    ) -> SignalProducer<(Value, B.Value, C.Value, D.Value), Error>
    where A.Value == Value, A.Error == Error, B.Error == Error, C.Error == Error, D.Error == Error {
        _startingTogether(_ProducerPair(_ProducerPair(_SingleProducer(a.producer), _SingleProducer(b.producer)), _ProducerPair(_SingleProducer(c.producer), _SingleProducer(d.producer)))) {
            _combineLatestEngine($0, as: _Tuple4.self)
        }
    }

    /// `Signal.combineLatest` of one run of each producer, started in argument
    /// order.
    @inlinable
    public static func combineLatest<A: SignalProducerConvertible, B: SignalProducerConvertible, C: SignalProducerConvertible, D: SignalProducerConvertible, E: SignalProducerConvertible>(
        _ a: A, _ b: B, _ c: C, _ d: D, _ e: E
    ) -> SignalProducer<(Value, B.Value, C.Value, D.Value, E.Value), Error>
    where A.Value == Value, A.Error == Error, B.Error == Error, C.Error == Error, D.Error == Error, E.Error == Error {
        _startingTogether(_ProducerPair(_ProducerPair(_SingleProducer(a.producer), _SingleProducer(b.producer)), _ProducerPair(_SingleProducer(c.producer), _ProducerPair(_SingleProducer(d.producer), _SingleProducer(e.producer))))) {
            _combineLatestEngine($0, as: _Tuple5.self)
        }
    }

    /// `Signal.combineLatest` of one run of each producer, started in argument
    /// order.
    @inlinable
    public static func combineLatest<A: SignalProducerConvertible, B: SignalProducerConvertible, C: SignalProducerConvertible, D: SignalProducerConvertible, E: SignalProducerConvertible, F: SignalProducerConvertible>(
        _ a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F
    ) -> SignalProducer<(Value, B.Value, C.Value, D.Value, E.Value, F.Value), Error>
    where A.Value == Value, A.Error == Error, B.Error == Error, C.Error == Error, D.Error == Error, E.Error == Error, F.Error == Error {
        _startingTogether(_ProducerPair(_ProducerPair(_SingleProducer(a.producer), _ProducerPair(_SingleProducer(b.producer), _SingleProducer(c.producer))), _ProducerPair(_SingleProducer(d.producer), _ProducerPair(_SingleProducer(e.producer), _SingleProducer(f.producer))))) {
            _combineLatestEngine($0, as: _Tuple6.self)
        }
    }

    /// `Signal.combineLatest` of one run of each producer, started in argument
    /// order.
    @inlinable
    public static func combineLatest<A: SignalProducerConvertible, B: SignalProducerConvertible, C: SignalProducerConvertible, D: SignalProducerConvertible, E: SignalProducerConvertible, F: SignalProducerConvertible, G: SignalProducerConvertible>(
        _ a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F, _ g: G
    ) -> SignalProducer<(Value, B.Value, C.Value, D.Value, E.Value, F.Value, G.Value), Error>
    where A.Value == Value, A.Error == Error, B.Error == Error, C.Error == Error, D.Error == Error, E.Error == Error, F.Error == Error, G.Error == Error {
        _startingTogether(_ProducerPair(_ProducerPair(_SingleProducer(a.producer), _ProducerPair(_SingleProducer(b.producer), _SingleProducer(c.producer))), _ProducerPair(_ProducerPair(_SingleProducer(d.producer), _SingleProducer(e.producer)), _ProducerPair(_SingleProducer(f.producer), _SingleProducer(g.producer))))) {
            _combineLatestEngine($0, as: _Tuple7.self)
        }
    }

    /// `Signal.combineLatest` of one run of each producer, started in argument
    /// order.
    @inlinable
    public static func combineLatest<A: SignalProducerConvertible, B: SignalProducerConvertible, C: SignalProducerConvertible, D: SignalProducerConvertible, E: SignalProducerConvertible, F: SignalProducerConvertible, G: SignalProducerConvertible, H: SignalProducerConvertible>(
        _ a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F, _ g: G, _ h: H
    ) -> SignalProducer<(Value, B.Value, C.Value, D.Value, E.Value, F.Value, G.Value, H.Value), Error>
    where A.Value == Value, A.Error == Error, B.Error == Error, C.Error == Error, D.Error == Error, E.Error == Error, F.Error == Error, G.Error == Error, H.Error == Error {
        _startingTogether(_ProducerPair(_ProducerPair(_ProducerPair(_SingleProducer(a.producer), _SingleProducer(b.producer)), _ProducerPair(_SingleProducer(c.producer), _SingleProducer(d.producer))), _ProducerPair(_ProducerPair(_SingleProducer(e.producer), _SingleProducer(f.producer)), _ProducerPair(_SingleProducer(g.producer), _SingleProducer(h.producer))))) {
            _combineLatestEngine($0, as: _Tuple8.self)
        }
    }

    /// `Signal.combineLatest` of one run of each producer, started in argument
    /// order.
    @inlinable
    public static func combineLatest<A: SignalProducerConvertible, B: SignalProducerConvertible, C: SignalProducerConvertible, D: SignalProducerConvertible, E: SignalProducerConvertible, F: SignalProducerConvertible, G: SignalProducerConvertible, H: SignalProducerConvertible, I: SignalProducerConvertible>(
        _ a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F, _ g: G, _ h: H, _ i: I
    ) -> SignalProducer<(Value, B.Value, C.Value, D.Value, E.Value, F.Value, G.Value, H.Value, I.Value), Error>
    where A.Value == Value, A.Error == Error, B.Error == Error, C.Error == Error, D.Error == Error, E.Error == Error, F.Error == Error, G.Error == Error, H.Error == Error, I.Error == Error {
        _startingTogether(_ProducerPair(_ProducerPair(_ProducerPair(_SingleProducer(a.producer), _SingleProducer(b.producer)), _ProducerPair(_SingleProducer(c.producer), _SingleProducer(d.producer))), _ProducerPair(_ProducerPair(_SingleProducer(e.producer), _SingleProducer(f.producer)), _ProducerPair(_SingleProducer(g.producer), _ProducerPair(_SingleProducer(h.producer), _SingleProducer(i.producer)))))) {
            _combineLatestEngine($0, as: _Tuple9.self)
        }
    }

    /// `Signal.combineLatest` of one run of each producer, started in argument
    /// order.
    @inlinable
    public static func combineLatest<A: SignalProducerConvertible, B: SignalProducerConvertible, C: SignalProducerConvertible, D: SignalProducerConvertible, E: SignalProducerConvertible, F: SignalProducerConvertible, G: SignalProducerConvertible, H: SignalProducerConvertible, I: SignalProducerConvertible, J: SignalProducerConvertible>(
        _ a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F, _ g: G, _ h: H, _ i: I, _ j: J
    ) -> SignalProducer<(Value, B.Value, C.Value, D.Value, E.Value, F.Value, G.Value, H.Value, I.Value, J.Value), Error>
    where A.Value == Value, A.Error == Error, B.Error == Error, C.Error == Error, D.Error == Error, E.Error == Error, F.Error == Error, G.Error == Error, H.Error == Error, I.Error == Error, J.Error == Error {
        _startingTogether(_ProducerPair(_ProducerPair(_ProducerPair(_SingleProducer(a.producer), _SingleProducer(b.producer)), _ProducerPair(_SingleProducer(c.producer), _ProducerPair(_SingleProducer(d.producer), _SingleProducer(e.producer)))), _ProducerPair(_ProducerPair(_SingleProducer(f.producer), _SingleProducer(g.producer)), _ProducerPair(_SingleProducer(h.producer), _ProducerPair(_SingleProducer(i.producer), _SingleProducer(j.producer)))))) {
            _combineLatestEngine($0, as: _Tuple10.self)
        }
    }
}
