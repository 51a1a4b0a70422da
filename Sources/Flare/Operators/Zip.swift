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
        funnel({ (downstream: HeldCore<(Value, U), Error>) in
            var firstQueue = FIFO<Value>()
            var secondQueue = FIFO<U>()
            var firstCompleted = false
            var secondCompleted = false
            return { (tag: Pair<Event, Signal<U, Error>.Event>) in
                switch tag {
                case let .first(.value(value)):
                    if secondQueue.isEmpty {
                        firstQueue.append(value)
                        return
                    }
                    downstream.deliverHeld(.value((value, secondQueue.removeFirst())))
                    if secondCompleted, secondQueue.isEmpty { downstream.deliverHeld(.completed) }
                case let .second(.value(value)):
                    if firstQueue.isEmpty {
                        secondQueue.append(value)
                        return
                    }
                    downstream.deliverHeld(.value((firstQueue.removeFirst(), value)))
                    if firstCompleted, firstQueue.isEmpty { downstream.deliverHeld(.completed) }
                case .first(.completed):
                    firstCompleted = true
                    if secondCompleted || firstQueue.isEmpty { downstream.deliverHeld(.completed) }
                case .second(.completed):
                    secondCompleted = true
                    if firstCompleted || secondQueue.isEmpty { downstream.deliverHeld(.completed) }
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
        let count = inputs.count
        return funnel(inputs) { (downstream: HeldCore<[Value], Error>) in
            var queues = ContiguousArray(repeating: FIFO<Value>(), count: count)
            var completed = ContiguousArray(repeating: false, count: count)
            // Inputs with at least one value waiting.
            var ready = 0
            var completedCount = 0
            // Whether an input has completed with nothing waiting: no further
            // tuple can be formed.
            func isExhausted() -> Bool {
                if completedCount == count { return true }
                for index in 0..<count where completed[index] && queues[index].isEmpty { return true }
                return false
            }
            return { tagged in
                switch tagged.event {
                case let .value(value):
                    if queues[tagged.index].isEmpty { ready += 1 }
                    queues[tagged.index].append(value)
                    guard ready == count else { return }
                    var tuple: [Value] = []
                    tuple.reserveCapacity(count)
                    for index in 0..<count {
                        tuple.append(queues[index].removeFirst())
                        if queues[index].isEmpty { ready -= 1 }
                    }
                    downstream.deliverHeld(.value(tuple))
                    if completedCount > 0, isExhausted() { downstream.deliverHeld(.completed) }
                case .completed:
                    completed[tagged.index] = true
                    completedCount += 1
                    if isExhausted() { downstream.deliverHeld(.completed) }
                case let .failed(error):
                    downstream.deliverHeld(.failed(error))
                case .interrupted:
                    downstream.deliverHeld(.interrupted)
                }
            }
        }
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
        Signal<Any, Error>.zip([a.erased, b.erased, c.erased])
            .map { ($0[0] as! Value, $0[1] as! B, $0[2] as! C) }
    }

    /// Zips the values of all the signals, as `zip(with:)` does for two: the
    /// Nth tuple holds the Nth value of every input.
    @inlinable
    public static func zip<B, C, D>(
        _ a: Signal<Value, Error>, _ b: Signal<B, Error>, _ c: Signal<C, Error>, _ d: Signal<D, Error>
    ) -> Signal<(Value, B, C, D), Error> {
        Signal<Any, Error>.zip([a.erased, b.erased, c.erased, d.erased])
            .map { ($0[0] as! Value, $0[1] as! B, $0[2] as! C, $0[3] as! D) }
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
        Signal<Any, Error>.zip([a.erased, b.erased, c.erased, d.erased, e.erased]).map {
            (
                $0[0] as! Value, $0[1] as! B, $0[2] as! C, $0[3] as! D,
                $0[4] as! E
            )
        }
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
        Signal<Any, Error>.zip([a.erased, b.erased, c.erased, d.erased, e.erased, f.erased]).map {
            (
                $0[0] as! Value, $0[1] as! B, $0[2] as! C, $0[3] as! D,
                $0[4] as! E, $0[5] as! F
            )
        }
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
        Signal<Any, Error>.zip([a.erased, b.erased, c.erased, d.erased, e.erased, f.erased, g.erased]).map {
            (
                $0[0] as! Value, $0[1] as! B, $0[2] as! C, $0[3] as! D,
                $0[4] as! E, $0[5] as! F, $0[6] as! G
            )
        }
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
        Signal<Any, Error>.zip([a.erased, b.erased, c.erased, d.erased, e.erased, f.erased, g.erased, h.erased]).map {
            (
                $0[0] as! Value, $0[1] as! B, $0[2] as! C, $0[3] as! D,
                $0[4] as! E, $0[5] as! F, $0[6] as! G, $0[7] as! H
            )
        }
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
        Signal<Any, Error>.zip([a.erased, b.erased, c.erased, d.erased, e.erased, f.erased, g.erased, h.erased, i.erased]).map {
            (
                $0[0] as! Value, $0[1] as! B, $0[2] as! C, $0[3] as! D,
                $0[4] as! E, $0[5] as! F, $0[6] as! G, $0[7] as! H,
                $0[8] as! I
            )
        }
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
        Signal<Any, Error>.zip([a.erased, b.erased, c.erased, d.erased, e.erased, f.erased, g.erased, h.erased, i.erased, j.erased]).map {
            (
                $0[0] as! Value, $0[1] as! B, $0[2] as! C, $0[3] as! D,
                $0[4] as! E, $0[5] as! F, $0[6] as! G, $0[7] as! H,
                $0[8] as! I, $0[9] as! J
            )
        }
    }
}

extension SignalProducer {
    /// `Signal.zip(with:)` of a run of this producer and one of `other`,
    /// this one started first. Each start starts both; disposing the run
    /// interrupts both.
    public func zip<Other: SignalProducerConvertible>(
        with other: Other
    ) -> SignalProducer<(Value, Other.Value), Error> where Other.Error == Error {
        liftLeft { left in { right in left.zip(with: right) } }(other.producer)
    }

    /// `Signal.zip` of one run of each producer, started in order.
    /// With no producer, the runs never send any event, as on signals.
    public static func zip<S: Sequence>(_ producers: S) -> SignalProducer<[Value], Error>
    where S.Element: SignalProducerConvertible, S.Element.Value == Value, S.Element.Error == Error {
        SignalProducer<[Value], Error>.startingTogether(producers.map(\.producer)) { Signal.zip($0) }
    }

    /// `Signal.zip` of one run of each producer, started in argument
    /// order.
    public static func zip<A: SignalProducerConvertible, B: SignalProducerConvertible>(
        _ a: A, _ b: B
    ) -> SignalProducer<(Value, B.Value), Error>
    where A.Value == Value, A.Error == Error, B.Error == Error {
        SignalProducer<[Any], Error>.startingTogether([a.producer.erased, b.producer.erased]) { Signal<Any, Error>.zip($0) }
            .map { ($0[0] as! Value, $0[1] as! B.Value) }
    }

    /// `Signal.zip` of one run of each producer, started in argument
    /// order.
    public static func zip<A: SignalProducerConvertible, B: SignalProducerConvertible, C: SignalProducerConvertible>(
        _ a: A, _ b: B, _ c: C
    ) -> SignalProducer<(Value, B.Value, C.Value), Error>
    where A.Value == Value, A.Error == Error, B.Error == Error, C.Error == Error {
        SignalProducer<[Any], Error>.startingTogether([a.producer.erased, b.producer.erased, c.producer.erased]) { Signal<Any, Error>.zip($0) }
            .map { ($0[0] as! Value, $0[1] as! B.Value, $0[2] as! C.Value) }
    }

    /// `Signal.zip` of one run of each producer, started in argument
    /// order.
    public static func zip<A: SignalProducerConvertible, B: SignalProducerConvertible, C: SignalProducerConvertible, D: SignalProducerConvertible>(
        _ a: A, _ b: B, _ c: C, _ d: D
    ) -> SignalProducer<(Value, B.Value, C.Value, D.Value), Error>
    where A.Value == Value, A.Error == Error, B.Error == Error, C.Error == Error, D.Error == Error {
        SignalProducer<[Any], Error>.startingTogether([a.producer.erased, b.producer.erased, c.producer.erased, d.producer.erased]) { Signal<Any, Error>.zip($0) }
            .map { ($0[0] as! Value, $0[1] as! B.Value, $0[2] as! C.Value, $0[3] as! D.Value) }
    }

    /// `Signal.zip` of one run of each producer, started in argument
    /// order.
    public static func zip<A: SignalProducerConvertible, B: SignalProducerConvertible, C: SignalProducerConvertible, D: SignalProducerConvertible, E: SignalProducerConvertible>(
        _ a: A, _ b: B, _ c: C, _ d: D, _ e: E
    ) -> SignalProducer<(Value, B.Value, C.Value, D.Value, E.Value), Error>
    where A.Value == Value, A.Error == Error, B.Error == Error, C.Error == Error, D.Error == Error, E.Error == Error {
        SignalProducer<[Any], Error>.startingTogether([a.producer.erased, b.producer.erased, c.producer.erased, d.producer.erased, e.producer.erased]) { Signal<Any, Error>.zip($0) }
            .map { ($0[0] as! Value, $0[1] as! B.Value, $0[2] as! C.Value, $0[3] as! D.Value, $0[4] as! E.Value) }
    }

    /// `Signal.zip` of one run of each producer, started in argument
    /// order.
    public static func zip<A: SignalProducerConvertible, B: SignalProducerConvertible, C: SignalProducerConvertible, D: SignalProducerConvertible, E: SignalProducerConvertible, F: SignalProducerConvertible>(
        _ a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F
    ) -> SignalProducer<(Value, B.Value, C.Value, D.Value, E.Value, F.Value), Error>
    where A.Value == Value, A.Error == Error, B.Error == Error, C.Error == Error, D.Error == Error, E.Error == Error, F.Error == Error {
        SignalProducer<[Any], Error>.startingTogether([a.producer.erased, b.producer.erased, c.producer.erased, d.producer.erased, e.producer.erased, f.producer.erased]) { Signal<Any, Error>.zip($0) }
            .map { ($0[0] as! Value, $0[1] as! B.Value, $0[2] as! C.Value, $0[3] as! D.Value, $0[4] as! E.Value, $0[5] as! F.Value) }
    }

    /// `Signal.zip` of one run of each producer, started in argument
    /// order.
    public static func zip<A: SignalProducerConvertible, B: SignalProducerConvertible, C: SignalProducerConvertible, D: SignalProducerConvertible, E: SignalProducerConvertible, F: SignalProducerConvertible, G: SignalProducerConvertible>(
        _ a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F, _ g: G
    ) -> SignalProducer<(Value, B.Value, C.Value, D.Value, E.Value, F.Value, G.Value), Error>
    where A.Value == Value, A.Error == Error, B.Error == Error, C.Error == Error, D.Error == Error, E.Error == Error, F.Error == Error, G.Error == Error {
        SignalProducer<[Any], Error>.startingTogether([a.producer.erased, b.producer.erased, c.producer.erased, d.producer.erased, e.producer.erased, f.producer.erased, g.producer.erased]) { Signal<Any, Error>.zip($0) }
            .map { ($0[0] as! Value, $0[1] as! B.Value, $0[2] as! C.Value, $0[3] as! D.Value, $0[4] as! E.Value, $0[5] as! F.Value, $0[6] as! G.Value) }
    }

    /// `Signal.zip` of one run of each producer, started in argument
    /// order.
    public static func zip<A: SignalProducerConvertible, B: SignalProducerConvertible, C: SignalProducerConvertible, D: SignalProducerConvertible, E: SignalProducerConvertible, F: SignalProducerConvertible, G: SignalProducerConvertible, H: SignalProducerConvertible>(
        _ a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F, _ g: G, _ h: H
    ) -> SignalProducer<(Value, B.Value, C.Value, D.Value, E.Value, F.Value, G.Value, H.Value), Error>
    where A.Value == Value, A.Error == Error, B.Error == Error, C.Error == Error, D.Error == Error, E.Error == Error, F.Error == Error, G.Error == Error, H.Error == Error {
        SignalProducer<[Any], Error>.startingTogether([a.producer.erased, b.producer.erased, c.producer.erased, d.producer.erased, e.producer.erased, f.producer.erased, g.producer.erased, h.producer.erased]) { Signal<Any, Error>.zip($0) }
            .map { ($0[0] as! Value, $0[1] as! B.Value, $0[2] as! C.Value, $0[3] as! D.Value, $0[4] as! E.Value, $0[5] as! F.Value, $0[6] as! G.Value, $0[7] as! H.Value) }
    }

    /// `Signal.zip` of one run of each producer, started in argument
    /// order.
    public static func zip<A: SignalProducerConvertible, B: SignalProducerConvertible, C: SignalProducerConvertible, D: SignalProducerConvertible, E: SignalProducerConvertible, F: SignalProducerConvertible, G: SignalProducerConvertible, H: SignalProducerConvertible, I: SignalProducerConvertible>(
        _ a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F, _ g: G, _ h: H, _ i: I
    ) -> SignalProducer<(Value, B.Value, C.Value, D.Value, E.Value, F.Value, G.Value, H.Value, I.Value), Error>
    where A.Value == Value, A.Error == Error, B.Error == Error, C.Error == Error, D.Error == Error, E.Error == Error, F.Error == Error, G.Error == Error, H.Error == Error, I.Error == Error {
        SignalProducer<[Any], Error>.startingTogether([a.producer.erased, b.producer.erased, c.producer.erased, d.producer.erased, e.producer.erased, f.producer.erased, g.producer.erased, h.producer.erased, i.producer.erased]) { Signal<Any, Error>.zip($0) }
            .map { ($0[0] as! Value, $0[1] as! B.Value, $0[2] as! C.Value, $0[3] as! D.Value, $0[4] as! E.Value, $0[5] as! F.Value, $0[6] as! G.Value, $0[7] as! H.Value, $0[8] as! I.Value) }
    }

    /// `Signal.zip` of one run of each producer, started in argument
    /// order.
    public static func zip<A: SignalProducerConvertible, B: SignalProducerConvertible, C: SignalProducerConvertible, D: SignalProducerConvertible, E: SignalProducerConvertible, F: SignalProducerConvertible, G: SignalProducerConvertible, H: SignalProducerConvertible, I: SignalProducerConvertible, J: SignalProducerConvertible>(
        _ a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F, _ g: G, _ h: H, _ i: I, _ j: J
    ) -> SignalProducer<(Value, B.Value, C.Value, D.Value, E.Value, F.Value, G.Value, H.Value, I.Value, J.Value), Error>
    where A.Value == Value, A.Error == Error, B.Error == Error, C.Error == Error, D.Error == Error, E.Error == Error, F.Error == Error, G.Error == Error, H.Error == Error, I.Error == Error, J.Error == Error {
        SignalProducer<[Any], Error>.startingTogether([a.producer.erased, b.producer.erased, c.producer.erased, d.producer.erased, e.producer.erased, f.producer.erased, g.producer.erased, h.producer.erased, i.producer.erased, j.producer.erased]) { Signal<Any, Error>.zip($0) }
            .map { ($0[0] as! Value, $0[1] as! B.Value, $0[2] as! C.Value, $0[3] as! D.Value, $0[4] as! E.Value, $0[5] as! F.Value, $0[6] as! G.Value, $0[7] as! H.Value, $0[8] as! I.Value, $0[9] as! J.Value) }
    }
}
