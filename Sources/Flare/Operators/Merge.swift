extension Signal {
    /// Sends every value of this signal and of `other`, as they arrive.
    ///
    /// - Values: each value of either input, once, in the order the two
    ///   inputs' deliveries reach the output's serialization point.
    /// - `completed` once both inputs have ended: an input's `interrupted`
    ///   counts as its completion, as in ReactiveSwift (whose merge is a
    ///   `.merge` flatten of the inputs).
    /// - `failed` at the first failure of either input.
    ///
    /// The output is never delivered concurrently, even when the inputs send
    /// from different threads at once. Both input observations are disposed
    /// as soon as the output terminates, or when it has lost every observer
    /// and reference.
    @inlinable
    public func merge(with other: Signal<Value, Error>) -> Signal<Value, Error> {
        Signal.merge([self, other])
    }

    /// Sends every value of every signal in `signals`, as they arrive.
    ///
    /// - Values: each value of any input, once, in the order the inputs'
    ///   deliveries reach the output's serialization point.
    /// - `completed` once every input has ended: an input's `interrupted`
    ///   counts as its completion, as in ReactiveSwift (whose merge is a
    ///   `.merge` flatten of the inputs), and so does an input that had
    ///   already terminated. If `signals` is empty, the returned signal has
    ///   already completed (observing it sends `interrupted`, as for any
    ///   terminated signal).
    /// - `failed` at the first failure of any input.
    ///
    /// Input observations are disposed as soon as the output terminates, or
    /// when it has lost every observer and reference.
    @inlinable
    public static func merge<Seq: Sequence>(_ signals: Seq) -> Signal<Value, Error>
    where Seq.Element == Signal<Value, Error> {
        let inputs = Array(signals)
        guard !inputs.isEmpty else { return .empty }
        return _funnel({ (downstream: _HeldCore<Value, Error>) in
            let running = _DeliveryState(inputs.count)
            return { (event: Event) in
                switch event {
                case .completed, .interrupted:
                    running.value -= 1
                    if running.value == 0 { downstream.deliverHeld(.completed) }
                case .value, .failed:
                    downstream.deliverHeld(event)
                }
            }
        }, connect: { input, observations in
            // Values need no tag: only completions are counted.
            for signal in inputs {
                observations += signal.observe { input.send(value: $0) }
            }
        })
    }

    /// Sends every value of every signal in `signals`, as they arrive; see
    /// `merge(_:)` for a sequence.
    @inlinable
    public static func merge(_ signals: Signal<Value, Error>...) -> Signal<Value, Error> {
        merge(signals)
    }
}

extension SignalProducer {
    /// `Signal.merge(with:)` of a run of this producer and one of `other`,
    /// this one started first: every value of both, as they arrive.
    @inlinable
    public func merge(with other: SignalProducer<Value, Error>) -> SignalProducer<Value, Error> {
        SignalProducer.merge([self, other])
    }

    /// `merge(with:)` with a producer-convertible of any type (a signal, a
    /// property …).
    @inlinable
    public func merge<Other: SignalProducerConvertible>(
        with other: Other
    ) -> SignalProducer<Value, Error> where Other.Value == Value, Other.Error == Error {
        SignalProducer.merge([self, other.producer])
    }

    /// One run of each producer, started in order, every value as it
    /// arrives: `flatten(.merge)` of the producers. Each run starts once
    /// the ones before it have returned from their start; once the output
    /// has ended (an input failed while starting), the later producers are
    /// not started at all, as in ReactiveSwift. Disposing a run interrupts
    /// every input's run, in the order they started. With no producer, the
    /// runs complete at once.
    @inlinable
    public static func merge<Seq: Sequence>(_ producers: Seq) -> SignalProducer<Value, Error>
    where Seq.Element: SignalProducerConvertible, Seq.Element.Value == Value, Seq.Element.Error == Error {
        let inputs = producers.map(\.producer)
        guard !inputs.isEmpty else { return .empty }
        return SignalProducer<SignalProducer<Value, Error>, Error>(inputs).flatten(.merge)
    }
}

extension SignalProducer {
    /// `merge(_:)` of 2 producers of any producer-convertible types: one
    /// run of each, started in order, every value as it arrives.
    @inlinable
    public static func merge<A: SignalProducerConvertible, B: SignalProducerConvertible>(
        _ a: A, _ b: B
    ) -> SignalProducer<Value, Error> where A.Value == Value, A.Error == Error, B.Value == Value, B.Error == Error {
        merge([a.producer, b.producer])
    }

    /// `merge(_:)` of 3 producers of any producer-convertible types: one
    /// run of each, started in order, every value as it arrives.
    @inlinable
    public static func merge<A: SignalProducerConvertible, B: SignalProducerConvertible, C: SignalProducerConvertible>(
        _ a: A, _ b: B, _ c: C
    ) -> SignalProducer<Value, Error> where A.Value == Value, A.Error == Error, B.Value == Value, B.Error == Error, C.Value == Value, C.Error == Error {
        merge([a.producer, b.producer, c.producer])
    }

    /// `merge(_:)` of 4 producers of any producer-convertible types: one
    /// run of each, started in order, every value as it arrives.
    @inlinable
    public static func merge<A: SignalProducerConvertible, B: SignalProducerConvertible, C: SignalProducerConvertible, D: SignalProducerConvertible>(
        _ a: A, _ b: B, _ c: C, _ d: D
    ) -> SignalProducer<Value, Error> where A.Value == Value, A.Error == Error, B.Value == Value, B.Error == Error, C.Value == Value, C.Error == Error, D.Value == Value, D.Error == Error {
        merge([a.producer, b.producer, c.producer, d.producer])
    }

    /// `merge(_:)` of 5 producers of any producer-convertible types: one
    /// run of each, started in order, every value as it arrives.
    @inlinable
    public static func merge<A: SignalProducerConvertible, B: SignalProducerConvertible, C: SignalProducerConvertible, D: SignalProducerConvertible, E: SignalProducerConvertible>(
        _ a: A, _ b: B, _ c: C, _ d: D, _ e: E
    ) -> SignalProducer<Value, Error> where A.Value == Value, A.Error == Error, B.Value == Value, B.Error == Error, C.Value == Value, C.Error == Error, D.Value == Value, D.Error == Error, E.Value == Value, E.Error == Error {
        merge([a.producer, b.producer, c.producer, d.producer, e.producer])
    }

    /// `merge(_:)` of 6 producers of any producer-convertible types: one
    /// run of each, started in order, every value as it arrives.
    @inlinable
    public static func merge<A: SignalProducerConvertible, B: SignalProducerConvertible, C: SignalProducerConvertible, D: SignalProducerConvertible, E: SignalProducerConvertible, F: SignalProducerConvertible>(
        _ a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F
    ) -> SignalProducer<Value, Error> where A.Value == Value, A.Error == Error, B.Value == Value, B.Error == Error, C.Value == Value, C.Error == Error, D.Value == Value, D.Error == Error, E.Value == Value, E.Error == Error, F.Value == Value, F.Error == Error {
        merge([a.producer, b.producer, c.producer, d.producer, e.producer, f.producer])
    }

    /// `merge(_:)` of 7 producers of any producer-convertible types: one
    /// run of each, started in order, every value as it arrives.
    @inlinable
    public static func merge<A: SignalProducerConvertible, B: SignalProducerConvertible, C: SignalProducerConvertible, D: SignalProducerConvertible, E: SignalProducerConvertible, F: SignalProducerConvertible, G: SignalProducerConvertible>(
        _ a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F, _ g: G
    ) -> SignalProducer<Value, Error> where A.Value == Value, A.Error == Error, B.Value == Value, B.Error == Error, C.Value == Value, C.Error == Error, D.Value == Value, D.Error == Error, E.Value == Value, E.Error == Error, F.Value == Value, F.Error == Error, G.Value == Value, G.Error == Error {
        merge([a.producer, b.producer, c.producer, d.producer, e.producer, f.producer, g.producer])
    }

    /// `merge(_:)` of 8 producers of any producer-convertible types: one
    /// run of each, started in order, every value as it arrives.
    @inlinable
    public static func merge<A: SignalProducerConvertible, B: SignalProducerConvertible, C: SignalProducerConvertible, D: SignalProducerConvertible, E: SignalProducerConvertible, F: SignalProducerConvertible, G: SignalProducerConvertible, H: SignalProducerConvertible>(
        _ a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F, _ g: G, _ h: H
    ) -> SignalProducer<Value, Error> where A.Value == Value, A.Error == Error, B.Value == Value, B.Error == Error, C.Value == Value, C.Error == Error, D.Value == Value, D.Error == Error, E.Value == Value, E.Error == Error, F.Value == Value, F.Error == Error, G.Value == Value, G.Error == Error, H.Value == Value, H.Error == Error {
        merge([a.producer, b.producer, c.producer, d.producer, e.producer, f.producer, g.producer, h.producer])
    }

    /// `merge(_:)` of 9 producers of any producer-convertible types: one
    /// run of each, started in order, every value as it arrives.
    @inlinable
    public static func merge<A: SignalProducerConvertible, B: SignalProducerConvertible, C: SignalProducerConvertible, D: SignalProducerConvertible, E: SignalProducerConvertible, F: SignalProducerConvertible, G: SignalProducerConvertible, H: SignalProducerConvertible, I: SignalProducerConvertible>(
        _ a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F, _ g: G, _ h: H, _ i: I
    ) -> SignalProducer<Value, Error> where A.Value == Value, A.Error == Error, B.Value == Value, B.Error == Error, C.Value == Value, C.Error == Error, D.Value == Value, D.Error == Error, E.Value == Value, E.Error == Error, F.Value == Value, F.Error == Error, G.Value == Value, G.Error == Error, H.Value == Value, H.Error == Error, I.Value == Value, I.Error == Error {
        merge([a.producer, b.producer, c.producer, d.producer, e.producer, f.producer, g.producer, h.producer, i.producer])
    }

    /// `merge(_:)` of 10 producers of any producer-convertible types: one
    /// run of each, started in order, every value as it arrives.
    @inlinable
    public static func merge<A: SignalProducerConvertible, B: SignalProducerConvertible, C: SignalProducerConvertible, D: SignalProducerConvertible, E: SignalProducerConvertible, F: SignalProducerConvertible, G: SignalProducerConvertible, H: SignalProducerConvertible, I: SignalProducerConvertible, J: SignalProducerConvertible>(
        _ a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F, _ g: G, _ h: H, _ i: I, _ j: J
    ) -> SignalProducer<Value, Error> where A.Value == Value, A.Error == Error, B.Value == Value, B.Error == Error, C.Value == Value, C.Error == Error, D.Value == Value, D.Error == Error, E.Value == Value, E.Error == Error, F.Value == Value, F.Error == Error, G.Value == Value, G.Error == Error, H.Value == Value, H.Error == Error, I.Value == Value, I.Error == Error, J.Value == Value, J.Error == Error {
        merge([a.producer, b.producer, c.producer, d.producer, e.producer, f.producer, g.producer, h.producer, i.producer, j.producer])
    }
}
