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

extension SignalProducer where Value == Bool {
    /// `Signal.and(_:)` of a run of this producer and one of `booleans`,
    /// this one started first.
    @inlinable
    public func and(_ booleans: SignalProducer<Bool, Error>) -> SignalProducer<Bool, Error> {
        liftLeft { left in { right in left.and(right) } }(booleans)
    }

    /// `and(_:)` with booleans of any producer-convertible type.
    @inlinable
    public func and<Booleans: SignalProducerConvertible>(
        _ booleans: Booleans
    ) -> SignalProducer<Bool, Error> where Booleans.Value == Bool, Booleans.Error == Error {
        liftLeft { left in { right in left.and(right) } }(booleans.producer)
    }

    /// `Signal.or(_:)` of a run of this producer and one of `booleans`,
    /// this one started first.
    @inlinable
    public func or(_ booleans: SignalProducer<Bool, Error>) -> SignalProducer<Bool, Error> {
        liftLeft { left in { right in left.or(right) } }(booleans)
    }

    /// `or(_:)` with booleans of any producer-convertible type.
    @inlinable
    public func or<Booleans: SignalProducerConvertible>(
        _ booleans: Booleans
    ) -> SignalProducer<Bool, Error> where Booleans.Value == Bool, Booleans.Error == Error {
        liftLeft { left in { right in left.or(right) } }(booleans.producer)
    }

    /// `Signal.all(_:)` of one run of each producer, started in order.
    /// With no producer, each run sends `true` (the logical AND of nothing)
    /// and completes, as in ReactiveSwift.
    @inlinable
    public static func all<BooleansCollection: Collection>(_ booleans: BooleansCollection) -> SignalProducer<Bool, Error>
    where BooleansCollection.Element: SignalProducerConvertible,
          BooleansCollection.Element.Value == Bool, BooleansCollection.Element.Error == Error {
        guard !booleans.isEmpty else { return SignalProducer(value: true) }
        return _startingTogether(booleans.map(\.producer)) { Signal.all($0) }
    }

    /// `Signal.all(_:)` of one run of each producer, started in order.
    @inlinable
    public static func all<Booleans: SignalProducerConvertible>(_ booleans: Booleans...) -> SignalProducer<Bool, Error>
    where Booleans.Value == Bool, Booleans.Error == Error {
        all(booleans)
    }

    /// `Signal.any(_:)` of one run of each producer, started in order.
    /// With no producer, each run sends `false` (the logical OR of nothing)
    /// and completes, as in ReactiveSwift.
    @inlinable
    public static func any<BooleansCollection: Collection>(_ booleans: BooleansCollection) -> SignalProducer<Bool, Error>
    where BooleansCollection.Element: SignalProducerConvertible,
          BooleansCollection.Element.Value == Bool, BooleansCollection.Element.Error == Error {
        guard !booleans.isEmpty else { return SignalProducer(value: false) }
        return _startingTogether(booleans.map(\.producer)) { Signal.any($0) }
    }

    /// `Signal.any(_:)` of one run of each producer, started in order.
    @inlinable
    public static func any<Booleans: SignalProducerConvertible>(_ booleans: Booleans...) -> SignalProducer<Bool, Error>
    where Booleans.Value == Bool, Booleans.Error == Error {
        any(booleans)
    }
}
