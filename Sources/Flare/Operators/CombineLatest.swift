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
        typealias Output = Signal<(Value, U), Error>.Event
        return funnel({ (downstream: HeldCore<(Value, U), Error>) in
            var latestFirst: Value?
            var latestSecond: U?
            var firstCompleted = false
            var secondCompleted = false
            return { (tag: Pair<Event, Signal<U, Error>.Event>) in
                switch tag {
                case let .first(.value(value)):
                    latestFirst = value
                    if let second = latestSecond { downstream.deliverHeld(.value((value, second))) }
                case let .second(.value(value)):
                    latestSecond = value
                    if let first = latestFirst { downstream.deliverHeld(.value((first, value))) }
                case .first(.completed):
                    firstCompleted = true
                    if secondCompleted { downstream.deliverHeld(.completed) }
                case .second(.completed):
                    secondCompleted = true
                    if firstCompleted { downstream.deliverHeld(.completed) }
                case let .first(.failed(error)), let .second(.failed(error)):
                    downstream.deliverHeld(.failed(error))
                case .first(.interrupted), .second(.interrupted):
                    downstream.deliverHeld(.interrupted)
                }
            }
        }, connect: { input, observations in
            observations += self.observe { input.send(value: .first($0)) }
            observations += other.observe { input.send(value: .second($0)) }
        })
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
        let count = inputs.count
        return funnel(inputs) { (downstream: HeldCore<[Value], Error>) in
            // `partial` fills up until every input has a value; from then on
            // `latest` holds them all and is updated in place.
            var partial = ContiguousArray<Value?>(repeating: nil, count: count)
            var missing = count
            var latest: [Value] = []
            var completed = 0
            return { tagged in
                switch tagged.event {
                case let .value(value):
                    if missing == 0 {
                        latest[tagged.index] = value
                        downstream.deliverHeld(.value(latest))
                    } else {
                        if partial[tagged.index] == nil { missing -= 1 }
                        partial[tagged.index] = value
                        if missing == 0 {
                            latest = partial.map { $0.unsafelyUnwrapped }
                            partial = []
                            downstream.deliverHeld(.value(latest))
                        }
                    }
                case .completed:
                    completed += 1
                    if completed == count { downstream.deliverHeld(.completed) }
                case let .failed(error):
                    downstream.deliverHeld(.failed(error))
                case .interrupted:
                    downstream.deliverHeld(.interrupted)
                }
            }
        }
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
        Signal<Any, Error>.combineLatest([a.erased, b.erased, c.erased])
            .map { ($0[0] as! Value, $0[1] as! B, $0[2] as! C) }
    }

    /// Combines the latest values of all the signals, as
    /// `combineLatest(with:)` does for two.
    @inlinable
    public static func combineLatest<B, C, D>(
        _ a: Signal<Value, Error>, _ b: Signal<B, Error>, _ c: Signal<C, Error>, _ d: Signal<D, Error>
    ) -> Signal<(Value, B, C, D), Error> {
        Signal<Any, Error>.combineLatest([a.erased, b.erased, c.erased, d.erased])
            .map { ($0[0] as! Value, $0[1] as! B, $0[2] as! C, $0[3] as! D) }
    }

    /// Combines the latest values of all the signals, as
    /// `combineLatest(with:)` does for two.
    @inlinable
    public static func combineLatest<B, C, D, E>(
        _ a: Signal<Value, Error>, _ b: Signal<B, Error>, _ c: Signal<C, Error>, _ d: Signal<D, Error>,
        _ e: Signal<E, Error>
    ) -> Signal<(Value, B, C, D, E), Error> {
        Signal<Any, Error>.combineLatest([a.erased, b.erased, c.erased, d.erased, e.erased])
            .map { ($0[0] as! Value, $0[1] as! B, $0[2] as! C, $0[3] as! D, $0[4] as! E) }
    }

    /// Combines the latest values of all the signals, as
    /// `combineLatest(with:)` does for two.
    @inlinable
    public static func combineLatest<B, C, D, E, F>(
        _ a: Signal<Value, Error>, _ b: Signal<B, Error>, _ c: Signal<C, Error>, _ d: Signal<D, Error>,
        _ e: Signal<E, Error>, _ f: Signal<F, Error>
    ) -> Signal<(Value, B, C, D, E, F), Error> {
        Signal<Any, Error>.combineLatest([a.erased, b.erased, c.erased, d.erased, e.erased, f.erased])
            .map { ($0[0] as! Value, $0[1] as! B, $0[2] as! C, $0[3] as! D, $0[4] as! E, $0[5] as! F) }
    }

    /// Combines the latest values of all the signals, as
    /// `combineLatest(with:)` does for two.
    @inlinable
    public static func combineLatest<B, C, D, E, F, G>(
        _ a: Signal<Value, Error>, _ b: Signal<B, Error>, _ c: Signal<C, Error>, _ d: Signal<D, Error>,
        _ e: Signal<E, Error>, _ f: Signal<F, Error>, _ g: Signal<G, Error>
    ) -> Signal<(Value, B, C, D, E, F, G), Error> {
        Signal<Any, Error>.combineLatest([a.erased, b.erased, c.erased, d.erased, e.erased, f.erased, g.erased])
            .map {
                ($0[0] as! Value, $0[1] as! B, $0[2] as! C, $0[3] as! D, $0[4] as! E, $0[5] as! F, $0[6] as! G)
            }
    }

    /// Combines the latest values of all the signals, as
    /// `combineLatest(with:)` does for two.
    @inlinable
    public static func combineLatest<B, C, D, E, F, G, H>(
        _ a: Signal<Value, Error>, _ b: Signal<B, Error>, _ c: Signal<C, Error>, _ d: Signal<D, Error>,
        _ e: Signal<E, Error>, _ f: Signal<F, Error>, _ g: Signal<G, Error>, _ h: Signal<H, Error>
    ) -> Signal<(Value, B, C, D, E, F, G, H), Error> {
        Signal<Any, Error>.combineLatest([
            a.erased, b.erased, c.erased, d.erased, e.erased, f.erased, g.erased, h.erased,
        ]).map {
            ($0[0] as! Value, $0[1] as! B, $0[2] as! C, $0[3] as! D, $0[4] as! E, $0[5] as! F, $0[6] as! G,
             $0[7] as! H)
        }
    }

    /// Combines the latest values of all the signals, as
    /// `combineLatest(with:)` does for two.
    @inlinable
    public static func combineLatest<B, C, D, E, F, G, H, I>(
        _ a: Signal<Value, Error>, _ b: Signal<B, Error>, _ c: Signal<C, Error>, _ d: Signal<D, Error>,
        _ e: Signal<E, Error>, _ f: Signal<F, Error>, _ g: Signal<G, Error>, _ h: Signal<H, Error>,
        _ i: Signal<I, Error>
    ) -> Signal<(Value, B, C, D, E, F, G, H, I), Error> {
        Signal<Any, Error>.combineLatest([
            a.erased, b.erased, c.erased, d.erased, e.erased, f.erased, g.erased, h.erased, i.erased,
        ]).map {
            ($0[0] as! Value, $0[1] as! B, $0[2] as! C, $0[3] as! D, $0[4] as! E, $0[5] as! F, $0[6] as! G,
             $0[7] as! H, $0[8] as! I)
        }
    }

    /// Combines the latest values of all the signals, as
    /// `combineLatest(with:)` does for two.
    @inlinable
    public static func combineLatest<B, C, D, E, F, G, H, I, J>(
        _ a: Signal<Value, Error>, _ b: Signal<B, Error>, _ c: Signal<C, Error>, _ d: Signal<D, Error>,
        _ e: Signal<E, Error>, _ f: Signal<F, Error>, _ g: Signal<G, Error>, _ h: Signal<H, Error>,
        _ i: Signal<I, Error>, _ j: Signal<J, Error>
    ) -> Signal<(Value, B, C, D, E, F, G, H, I, J), Error> {
        Signal<Any, Error>.combineLatest([
            a.erased, b.erased, c.erased, d.erased, e.erased, f.erased, g.erased, h.erased, i.erased, j.erased,
        ]).map {
            ($0[0] as! Value, $0[1] as! B, $0[2] as! C, $0[3] as! D, $0[4] as! E, $0[5] as! F, $0[6] as! G,
             $0[7] as! H, $0[8] as! I, $0[9] as! J)
        }
    }
}

extension Signal where Value == Bool {
    /// Sends the logical AND of the latest values of this signal and
    /// `signal`, with the event semantics of `combineLatest(with:)`.
    @inlinable
    public func and(_ signal: Signal<Bool, Error>) -> Signal<Bool, Error> {
        Signal.all([self, signal])
    }

    /// Sends the logical OR of the latest values of this signal and
    /// `signal`, with the event semantics of `combineLatest(with:)`.
    @inlinable
    public func or(_ signal: Signal<Bool, Error>) -> Signal<Bool, Error> {
        Signal.any([self, signal])
    }

    /// Sends the logical AND of the latest values of `booleans`, with the
    /// event semantics of the sequence form of `combineLatest`: a first value
    /// once every input has sent one, then one per input value; never any
    /// event if `booleans` is empty.
    @inlinable
    public static func all<BooleansCollection: Collection>(_ booleans: BooleansCollection) -> Signal<Bool, Error>
    where BooleansCollection.Element == Signal<Bool, Error> {
        combineLatest(booleans).map { !$0.contains(false) }
    }

    /// Sends the logical AND of the latest values of `booleans`; see
    /// `all(_:)` for a collection.
    @inlinable
    public static func all(_ booleans: Signal<Bool, Error>...) -> Signal<Bool, Error> {
        all(booleans)
    }

    /// Sends the logical OR of the latest values of `booleans`, with the
    /// event semantics of the sequence form of `combineLatest`: a first value
    /// once every input has sent one, then one per input value; never any
    /// event if `booleans` is empty.
    @inlinable
    public static func any<BooleansCollection: Collection>(_ booleans: BooleansCollection) -> Signal<Bool, Error>
    where BooleansCollection.Element == Signal<Bool, Error> {
        combineLatest(booleans).map { $0.contains(true) }
    }

    /// Sends the logical OR of the latest values of `booleans`; see
    /// `any(_:)` for a collection.
    @inlinable
    public static func any(_ booleans: Signal<Bool, Error>...) -> Signal<Bool, Error> {
        any(booleans)
    }
}

extension SignalProducer {
    /// `Signal.combineLatest(with:)` of a run of this producer and one of
    /// `other`, this one started first. Each start starts both; disposing
    /// the run interrupts both.
    public func combineLatest<Other: SignalProducerConvertible>(
        with other: Other
    ) -> SignalProducer<(Value, Other.Value), Error> where Other.Error == Error {
        liftLeft { left in { right in left.combineLatest(with: right) } }(other.producer)
    }

    /// `Signal.combineLatest` of one run of each producer, started in order.
    /// With no producer, the runs never send any event.
    public static func combineLatest<S: Sequence>(_ producers: S) -> SignalProducer<[Value], Error>
    where S.Element: SignalProducerConvertible, S.Element.Value == Value, S.Element.Error == Error {
        SignalProducer<[Value], Error>.startingTogether(producers.map(\.producer)) { Signal.combineLatest($0) }
    }

    /// `Signal.combineLatest` of one run of each producer, started in argument
    /// order.
    public static func combineLatest<A: SignalProducerConvertible, B: SignalProducerConvertible>(
        _ a: A, _ b: B
    ) -> SignalProducer<(Value, B.Value), Error>
    where A.Value == Value, A.Error == Error, B.Error == Error {
        SignalProducer<[Any], Error>.startingTogether([a.producer.erased, b.producer.erased]) { Signal<Any, Error>.combineLatest($0) }
            .map { ($0[0] as! Value, $0[1] as! B.Value) }
    }

    /// `Signal.combineLatest` of one run of each producer, started in argument
    /// order.
    public static func combineLatest<A: SignalProducerConvertible, B: SignalProducerConvertible, C: SignalProducerConvertible>(
        _ a: A, _ b: B, _ c: C
    ) -> SignalProducer<(Value, B.Value, C.Value), Error>
    where A.Value == Value, A.Error == Error, B.Error == Error, C.Error == Error {
        SignalProducer<[Any], Error>.startingTogether([a.producer.erased, b.producer.erased, c.producer.erased]) { Signal<Any, Error>.combineLatest($0) }
            .map { ($0[0] as! Value, $0[1] as! B.Value, $0[2] as! C.Value) }
    }

    /// `Signal.combineLatest` of one run of each producer, started in argument
    /// order.
    public static func combineLatest<A: SignalProducerConvertible, B: SignalProducerConvertible, C: SignalProducerConvertible, D: SignalProducerConvertible>(
        _ a: A, _ b: B, _ c: C, _ d: D
    ) -> SignalProducer<(Value, B.Value, C.Value, D.Value), Error>
    where A.Value == Value, A.Error == Error, B.Error == Error, C.Error == Error, D.Error == Error {
        SignalProducer<[Any], Error>.startingTogether([a.producer.erased, b.producer.erased, c.producer.erased, d.producer.erased]) { Signal<Any, Error>.combineLatest($0) }
            .map { ($0[0] as! Value, $0[1] as! B.Value, $0[2] as! C.Value, $0[3] as! D.Value) }
    }

    /// `Signal.combineLatest` of one run of each producer, started in argument
    /// order.
    public static func combineLatest<A: SignalProducerConvertible, B: SignalProducerConvertible, C: SignalProducerConvertible, D: SignalProducerConvertible, E: SignalProducerConvertible>(
        _ a: A, _ b: B, _ c: C, _ d: D, _ e: E
    ) -> SignalProducer<(Value, B.Value, C.Value, D.Value, E.Value), Error>
    where A.Value == Value, A.Error == Error, B.Error == Error, C.Error == Error, D.Error == Error, E.Error == Error {
        SignalProducer<[Any], Error>.startingTogether([a.producer.erased, b.producer.erased, c.producer.erased, d.producer.erased, e.producer.erased]) { Signal<Any, Error>.combineLatest($0) }
            .map { ($0[0] as! Value, $0[1] as! B.Value, $0[2] as! C.Value, $0[3] as! D.Value, $0[4] as! E.Value) }
    }

    /// `Signal.combineLatest` of one run of each producer, started in argument
    /// order.
    public static func combineLatest<A: SignalProducerConvertible, B: SignalProducerConvertible, C: SignalProducerConvertible, D: SignalProducerConvertible, E: SignalProducerConvertible, F: SignalProducerConvertible>(
        _ a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F
    ) -> SignalProducer<(Value, B.Value, C.Value, D.Value, E.Value, F.Value), Error>
    where A.Value == Value, A.Error == Error, B.Error == Error, C.Error == Error, D.Error == Error, E.Error == Error, F.Error == Error {
        SignalProducer<[Any], Error>.startingTogether([a.producer.erased, b.producer.erased, c.producer.erased, d.producer.erased, e.producer.erased, f.producer.erased]) { Signal<Any, Error>.combineLatest($0) }
            .map { ($0[0] as! Value, $0[1] as! B.Value, $0[2] as! C.Value, $0[3] as! D.Value, $0[4] as! E.Value, $0[5] as! F.Value) }
    }

    /// `Signal.combineLatest` of one run of each producer, started in argument
    /// order.
    public static func combineLatest<A: SignalProducerConvertible, B: SignalProducerConvertible, C: SignalProducerConvertible, D: SignalProducerConvertible, E: SignalProducerConvertible, F: SignalProducerConvertible, G: SignalProducerConvertible>(
        _ a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F, _ g: G
    ) -> SignalProducer<(Value, B.Value, C.Value, D.Value, E.Value, F.Value, G.Value), Error>
    where A.Value == Value, A.Error == Error, B.Error == Error, C.Error == Error, D.Error == Error, E.Error == Error, F.Error == Error, G.Error == Error {
        SignalProducer<[Any], Error>.startingTogether([a.producer.erased, b.producer.erased, c.producer.erased, d.producer.erased, e.producer.erased, f.producer.erased, g.producer.erased]) { Signal<Any, Error>.combineLatest($0) }
            .map { ($0[0] as! Value, $0[1] as! B.Value, $0[2] as! C.Value, $0[3] as! D.Value, $0[4] as! E.Value, $0[5] as! F.Value, $0[6] as! G.Value) }
    }

    /// `Signal.combineLatest` of one run of each producer, started in argument
    /// order.
    public static func combineLatest<A: SignalProducerConvertible, B: SignalProducerConvertible, C: SignalProducerConvertible, D: SignalProducerConvertible, E: SignalProducerConvertible, F: SignalProducerConvertible, G: SignalProducerConvertible, H: SignalProducerConvertible>(
        _ a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F, _ g: G, _ h: H
    ) -> SignalProducer<(Value, B.Value, C.Value, D.Value, E.Value, F.Value, G.Value, H.Value), Error>
    where A.Value == Value, A.Error == Error, B.Error == Error, C.Error == Error, D.Error == Error, E.Error == Error, F.Error == Error, G.Error == Error, H.Error == Error {
        SignalProducer<[Any], Error>.startingTogether([a.producer.erased, b.producer.erased, c.producer.erased, d.producer.erased, e.producer.erased, f.producer.erased, g.producer.erased, h.producer.erased]) { Signal<Any, Error>.combineLatest($0) }
            .map { ($0[0] as! Value, $0[1] as! B.Value, $0[2] as! C.Value, $0[3] as! D.Value, $0[4] as! E.Value, $0[5] as! F.Value, $0[6] as! G.Value, $0[7] as! H.Value) }
    }

    /// `Signal.combineLatest` of one run of each producer, started in argument
    /// order.
    public static func combineLatest<A: SignalProducerConvertible, B: SignalProducerConvertible, C: SignalProducerConvertible, D: SignalProducerConvertible, E: SignalProducerConvertible, F: SignalProducerConvertible, G: SignalProducerConvertible, H: SignalProducerConvertible, I: SignalProducerConvertible>(
        _ a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F, _ g: G, _ h: H, _ i: I
    ) -> SignalProducer<(Value, B.Value, C.Value, D.Value, E.Value, F.Value, G.Value, H.Value, I.Value), Error>
    where A.Value == Value, A.Error == Error, B.Error == Error, C.Error == Error, D.Error == Error, E.Error == Error, F.Error == Error, G.Error == Error, H.Error == Error, I.Error == Error {
        SignalProducer<[Any], Error>.startingTogether([a.producer.erased, b.producer.erased, c.producer.erased, d.producer.erased, e.producer.erased, f.producer.erased, g.producer.erased, h.producer.erased, i.producer.erased]) { Signal<Any, Error>.combineLatest($0) }
            .map { ($0[0] as! Value, $0[1] as! B.Value, $0[2] as! C.Value, $0[3] as! D.Value, $0[4] as! E.Value, $0[5] as! F.Value, $0[6] as! G.Value, $0[7] as! H.Value, $0[8] as! I.Value) }
    }

    /// `Signal.combineLatest` of one run of each producer, started in argument
    /// order.
    public static func combineLatest<A: SignalProducerConvertible, B: SignalProducerConvertible, C: SignalProducerConvertible, D: SignalProducerConvertible, E: SignalProducerConvertible, F: SignalProducerConvertible, G: SignalProducerConvertible, H: SignalProducerConvertible, I: SignalProducerConvertible, J: SignalProducerConvertible>(
        _ a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F, _ g: G, _ h: H, _ i: I, _ j: J
    ) -> SignalProducer<(Value, B.Value, C.Value, D.Value, E.Value, F.Value, G.Value, H.Value, I.Value, J.Value), Error>
    where A.Value == Value, A.Error == Error, B.Error == Error, C.Error == Error, D.Error == Error, E.Error == Error, F.Error == Error, G.Error == Error, H.Error == Error, I.Error == Error, J.Error == Error {
        SignalProducer<[Any], Error>.startingTogether([a.producer.erased, b.producer.erased, c.producer.erased, d.producer.erased, e.producer.erased, f.producer.erased, g.producer.erased, h.producer.erased, i.producer.erased, j.producer.erased]) { Signal<Any, Error>.combineLatest($0) }
            .map { ($0[0] as! Value, $0[1] as! B.Value, $0[2] as! C.Value, $0[3] as! D.Value, $0[4] as! E.Value, $0[5] as! F.Value, $0[6] as! G.Value, $0[7] as! H.Value, $0[8] as! I.Value, $0[9] as! J.Value) }
    }
}

extension SignalProducer where Value == Bool {
    /// `Signal.and(_:)` of a run of this producer and one of `booleans`,
    /// this one started first.
    public func and<Booleans: SignalProducerConvertible>(
        _ booleans: Booleans
    ) -> SignalProducer<Bool, Error> where Booleans.Value == Bool, Booleans.Error == Error {
        liftLeft { left in { right in left.and(right) } }(booleans.producer)
    }

    /// `Signal.or(_:)` of a run of this producer and one of `booleans`,
    /// this one started first.
    public func or<Booleans: SignalProducerConvertible>(
        _ booleans: Booleans
    ) -> SignalProducer<Bool, Error> where Booleans.Value == Bool, Booleans.Error == Error {
        liftLeft { left in { right in left.or(right) } }(booleans.producer)
    }

    /// `Signal.all(_:)` of one run of each producer, started in order.
    public static func all<BooleansCollection: Collection>(_ booleans: BooleansCollection) -> SignalProducer<Bool, Error>
    where BooleansCollection.Element: SignalProducerConvertible,
          BooleansCollection.Element.Value == Bool, BooleansCollection.Element.Error == Error {
        startingTogether(booleans.map(\.producer)) { Signal.all($0) }
    }

    /// `Signal.all(_:)` of one run of each producer, started in order.
    public static func all<Booleans: SignalProducerConvertible>(_ booleans: Booleans...) -> SignalProducer<Bool, Error>
    where Booleans.Value == Bool, Booleans.Error == Error {
        all(booleans)
    }

    /// `Signal.any(_:)` of one run of each producer, started in order.
    public static func any<BooleansCollection: Collection>(_ booleans: BooleansCollection) -> SignalProducer<Bool, Error>
    where BooleansCollection.Element: SignalProducerConvertible,
          BooleansCollection.Element.Value == Bool, BooleansCollection.Element.Error == Error {
        startingTogether(booleans.map(\.producer)) { Signal.any($0) }
    }

    /// `Signal.any(_:)` of one run of each producer, started in order.
    public static func any<Booleans: SignalProducerConvertible>(_ booleans: Booleans...) -> SignalProducer<Bool, Error>
    where Booleans.Value == Bool, Booleans.Error == Error {
        any(booleans)
    }
}
