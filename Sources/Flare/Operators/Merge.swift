extension Signal {
    /// Sends every value of this signal and of `other`, as they arrive.
    ///
    /// - Values: each value of either input, once, in the order the two
    ///   inputs' deliveries reach the output's serialization point.
    /// - `completed` once both inputs have completed.
    /// - `failed` at the first failure of either input.
    /// - `interrupted` at the first interruption of either input.
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
    /// - `completed` once every input has completed. If `signals` is empty,
    ///   the returned signal has already completed (observing it sends
    ///   `interrupted`, as for any terminated signal).
    /// - `failed` at the first failure of any input; `interrupted` at the
    ///   first interruption of any input.
    ///
    /// Input observations are disposed as soon as the output terminates, or
    /// when it has lost every observer and reference.
    @inlinable
    public static func merge<Seq: Sequence>(_ signals: Seq) -> Signal<Value, Error>
    where Seq.Element == Signal<Value, Error> {
        let inputs = Array(signals)
        guard !inputs.isEmpty else { return .empty }
        return funnel({ (downstream: HeldCore<Value, Error>) in
            var running = inputs.count
            return { (event: Event) in
                if case .completed = event {
                    running -= 1
                    if running == 0 { downstream.deliverHeld(.completed) }
                } else {
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
    public func merge<Other: SignalProducerConvertible>(
        with other: Other
    ) -> SignalProducer<Value, Error> where Other.Value == Value, Other.Error == Error {
        SignalProducer.merge([self, other.producer])
    }

    /// `Signal.merge(_:)` of one run of each producer, started in order.
    /// With no producer, the runs complete at once.
    public static func merge<Seq: Sequence>(_ producers: Seq) -> SignalProducer<Value, Error>
    where Seq.Element: SignalProducerConvertible, Seq.Element.Value == Value, Seq.Element.Error == Error {
        let inputs = producers.map(\.producer)
        guard !inputs.isEmpty else { return .empty }
        return startingTogether(inputs) { Signal.merge($0) }
    }

    /// `Signal.merge(_:)` of one run of each producer, started in order.
    public static func merge<Producer: SignalProducerConvertible>(_ producers: Producer...) -> SignalProducer<Value, Error>
    where Producer.Value == Value, Producer.Error == Error {
        merge(producers)
    }
}
