// Composition of properties. A composed property is a view of its sources
// built from their producers (`Property(unsafeProducer:)`): it holds the
// latest value they sent, reads it without a lock, and does not retain them.

extension PropertyProtocol {
    /// The composed property of `transform(producer)`.
    @inlinable
    func lift<U>(_ transform: (SignalProducer<Value, Never>) -> SignalProducer<U, Never>) -> Property<U> {
        Property(unsafeProducer: transform(producer))
    }

    /// A property whose value is `transform` of this one's.
    @inlinable
    public func map<U>(_ transform: @escaping (Value) -> U) -> Property<U> {
        lift { $0.map(transform) }
    }

    /// A property whose value is always `value`, changing when this one does.
    ///
    /// Disfavored in overload resolution, as `Signal.map(value:)`, so that a
    /// trailing closure always means `map(_:)` and never a constant of
    /// function type.
    @inlinable
    @_disfavoredOverload
    public func map<U>(value: U) -> Property<U> {
        lift { $0.map { _ in value } }
    }

    /// A property whose value is this one's at `keyPath`.
    @inlinable
    public func map<U>(_ keyPath: KeyPath<Value, U>) -> Property<U> {
        lift { $0.map { $0[keyPath: keyPath] } }
    }

    /// A property that takes on this one's values that pass `predicate`,
    /// starting at `initial` (in case the current value does not pass).
    @inlinable
    public func filter(initial: Value, _ predicate: @escaping (Value) -> Bool) -> Property<Value> {
        Property(initial: initial, then: producer.filter(predicate))
    }

    /// A property holding the latest values of this one and `other`
    /// (`Signal.combineLatest(with:)`).
    @inlinable
    public func combineLatest<P: PropertyProtocol>(with other: P) -> Property<(Value, P.Value)> {
        Property.combineLatest(self, other)
    }

    /// A property holding pairs of this one's and `other`'s values, zipped
    /// in order (`Signal.zip(with:)`).
    @inlinable
    public func zip<P: PropertyProtocol>(with other: P) -> Property<(Value, P.Value)> {
        Property.zip(self, other)
    }

    /// A property holding the previous and the current value; `initial` is
    /// the previous one of the first value.
    @inlinable
    public func combinePrevious(_ initial: Value) -> Property<(Value, Value)> {
        lift { $0.combinePrevious(initial) }
    }

    /// A property that ignores a value equivalent to the one before it.
    @inlinable
    public func skipRepeats(_ isEquivalent: @escaping (Value, Value) -> Bool) -> Property<Value> {
        lift { $0.skipRepeats(isEquivalent) }
    }

    /// A property that takes on only values whose identity it has not held
    /// before (the identities are retained).
    @inlinable
    public func uniqueValues<Identity: Hashable>(_ transform: @escaping (Value) -> Identity) -> Property<Value> {
        lift { $0.uniqueValues(transform) }
    }
}

extension PropertyProtocol {
    /// A property whose value is the value of the property `transform`
    /// makes of this one's, flattened by `strategy` (see ``FlattenStrategy``):
    /// with `.latest`, it follows the property made of the latest value;
    /// with `.merge`, it takes the latest value of any of them.
    ///
    /// Every inner property sends its current value when it starts, so the
    /// composed property has a value at once. With `.concat` (and
    /// `.concurrent(limit:)` at its limit), an inner property runs until it
    /// deinitialises, so later ones wait until then, as in ReactiveSwift.
    @inlinable
    public func flatMap<P: PropertyProtocol>(
        _ strategy: FlattenStrategy, _ transform: @escaping (Value) -> P
    ) -> Property<P.Value> {
        lift { $0.flatMap(strategy) { transform($0).producer } }
    }
}

extension PropertyProtocol where Value: PropertyProtocol {
    /// A property whose value is the value of the property this one holds,
    /// flattened by `strategy`: ``flatMap(_:_:)`` with the identity.
    @inlinable
    public func flatten(_ strategy: FlattenStrategy) -> Property<Value.Value> {
        lift { $0.flatMap(strategy) { $0.producer } }
    }
}

extension PropertyProtocol where Value: Equatable {
    /// A property that ignores a value equal to the one before it.
    @inlinable
    public func skipRepeats() -> Property<Value> {
        lift { $0.skipRepeats() }
    }
}

extension PropertyProtocol where Value: Hashable {
    /// A property that takes on only values it has not held before (they
    /// are retained).
    @inlinable
    public func uniqueValues() -> Property<Value> {
        lift { $0.uniqueValues() }
    }
}

extension PropertyProtocol where Value == Bool {
    /// A property holding the negation of this one's value.
    @inlinable
    public func negate() -> Property<Bool> {
        lift { $0.negate() }
    }

    /// A property holding the logical AND of this one's and `property`'s values.
    @inlinable
    public func and<P: PropertyProtocol>(_ property: P) -> Property<Bool> where P.Value == Bool {
        lift { $0.and(property.producer) }
    }

    /// A property holding the logical OR of this one's and `property`'s values.
    @inlinable
    public func or<P: PropertyProtocol>(_ property: P) -> Property<Bool> where P.Value == Bool {
        lift { $0.or(property.producer) }
    }

    /// A property holding the logical AND of the values of `properties`
    /// (true if there are none).
    @inlinable
    public static func all<P: PropertyProtocol, Properties: Collection>(_ properties: Properties) -> Property<Bool>
    where P.Value == Bool, Properties.Element == P {
        Property(initial: properties.allSatisfy { $0.value }, then: SignalProducer.all(properties.map(\.producer)))
    }

    /// A property holding the logical OR of the values of `properties`
    /// (false if there are none).
    @inlinable
    public static func any<P: PropertyProtocol, Properties: Collection>(_ properties: Properties) -> Property<Bool>
    where P.Value == Bool, Properties.Element == P {
        Property(initial: properties.contains { $0.value }, then: SignalProducer.any(properties.map(\.producer)))
    }

    /// `all(_:)` of the properties listed: a property holding the logical
    /// AND of their values.
    @inlinable
    public static func all<P: PropertyProtocol>(_ properties: P...) -> Property<Bool> where P.Value == Bool {
        all(properties)
    }

    /// `any(_:)` of the properties listed: a property holding the logical
    /// OR of their values.
    @inlinable
    public static func any<P: PropertyProtocol>(_ properties: P...) -> Property<Bool> where P.Value == Bool {
        any(properties)
    }
}

extension PropertyProtocol {
    /// A property holding the latest values of the given properties (`Signal.combineLatest`).
    @inlinable
    public static func combineLatest<A: PropertyProtocol, B: PropertyProtocol>(_ a: A, _ b: B) -> Property<(Value, B.Value)> where A.Value == Value {
        a.lift { SignalProducer.combineLatest($0, b) }
    }

    /// A property holding the latest values of the given properties (`Signal.combineLatest`).
    @inlinable
    public static func combineLatest<A: PropertyProtocol, B: PropertyProtocol, C: PropertyProtocol>(_ a: A, _ b: B, _ c: C) -> Property<(Value, B.Value, C.Value)> where A.Value == Value {
        a.lift { SignalProducer.combineLatest($0, b, c) }
    }

    /// A property holding the latest values of the given properties (`Signal.combineLatest`).
    @inlinable
    public static func combineLatest<A: PropertyProtocol, B: PropertyProtocol, C: PropertyProtocol, D: PropertyProtocol>(_ a: A, _ b: B, _ c: C, _ d: D) -> Property<(Value, B.Value, C.Value, D.Value)> where A.Value == Value {
        a.lift { SignalProducer.combineLatest($0, b, c, d) }
    }

    /// A property holding the latest values of the given properties (`Signal.combineLatest`).
    @inlinable
    public static func combineLatest<A: PropertyProtocol, B: PropertyProtocol, C: PropertyProtocol, D: PropertyProtocol, E: PropertyProtocol>(_ a: A, _ b: B, _ c: C, _ d: D, _ e: E) -> Property<(Value, B.Value, C.Value, D.Value, E.Value)> where A.Value == Value {
        a.lift { SignalProducer.combineLatest($0, b, c, d, e) }
    }

    /// A property holding the latest values of the given properties (`Signal.combineLatest`).
    @inlinable
    public static func combineLatest<A: PropertyProtocol, B: PropertyProtocol, C: PropertyProtocol, D: PropertyProtocol, E: PropertyProtocol, F: PropertyProtocol>(_ a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F) -> Property<(Value, B.Value, C.Value, D.Value, E.Value, F.Value)> where A.Value == Value {
        a.lift { SignalProducer.combineLatest($0, b, c, d, e, f) }
    }

    /// A property holding the latest values of the given properties (`Signal.combineLatest`).
    @inlinable
    public static func combineLatest<A: PropertyProtocol, B: PropertyProtocol, C: PropertyProtocol, D: PropertyProtocol, E: PropertyProtocol, F: PropertyProtocol, G: PropertyProtocol>(_ a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F, _ g: G) -> Property<(Value, B.Value, C.Value, D.Value, E.Value, F.Value, G.Value)> where A.Value == Value {
        a.lift { SignalProducer.combineLatest($0, b, c, d, e, f, g) }
    }

    /// A property holding the latest values of the given properties (`Signal.combineLatest`).
    @inlinable
    public static func combineLatest<A: PropertyProtocol, B: PropertyProtocol, C: PropertyProtocol, D: PropertyProtocol, E: PropertyProtocol, F: PropertyProtocol, G: PropertyProtocol, H: PropertyProtocol>(_ a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F, _ g: G, _ h: H) -> Property<(Value, B.Value, C.Value, D.Value, E.Value, F.Value, G.Value, H.Value)> where A.Value == Value {
        a.lift { SignalProducer.combineLatest($0, b, c, d, e, f, g, h) }
    }

    /// A property holding the latest values of the given properties (`Signal.combineLatest`).
    @inlinable
    public static func combineLatest<A: PropertyProtocol, B: PropertyProtocol, C: PropertyProtocol, D: PropertyProtocol, E: PropertyProtocol, F: PropertyProtocol, G: PropertyProtocol, H: PropertyProtocol, I: PropertyProtocol>(_ a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F, _ g: G, _ h: H, _ i: I) -> Property<(Value, B.Value, C.Value, D.Value, E.Value, F.Value, G.Value, H.Value, I.Value)> where A.Value == Value {
        a.lift { SignalProducer.combineLatest($0, b, c, d, e, f, g, h, i) }
    }

    /// A property holding the latest values of the given properties (`Signal.combineLatest`).
    @inlinable
    public static func combineLatest<A: PropertyProtocol, B: PropertyProtocol, C: PropertyProtocol, D: PropertyProtocol, E: PropertyProtocol, F: PropertyProtocol, G: PropertyProtocol, H: PropertyProtocol, I: PropertyProtocol, J: PropertyProtocol>(_ a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F, _ g: G, _ h: H, _ i: I, _ j: J) -> Property<(Value, B.Value, C.Value, D.Value, E.Value, F.Value, G.Value, H.Value, I.Value, J.Value)> where A.Value == Value {
        a.lift { SignalProducer.combineLatest($0, b, c, d, e, f, g, h, i, j) }
    }

    /// A property holding the latest values of `properties`, or `nil` if there are none.
    @inlinable
    public static func combineLatest<S: Sequence>(_ properties: S) -> Property<[S.Element.Value]>? where S.Element: PropertyProtocol {
        let producers = properties.map(\.producer)
        guard !producers.isEmpty else { return nil }
        return Property(unsafeProducer: SignalProducer.combineLatest(producers))
    }

    /// A property holding the latest values of `properties`; with none, the constant
    /// `emptySentinel`.
    @inlinable
    public static func combineLatest<S: Sequence>(_ properties: S, emptySentinel: [S.Element.Value]) -> Property<[S.Element.Value]>
    where S.Element: PropertyProtocol {
        let producers = properties.map(\.producer)
        guard !producers.isEmpty else { return Property(value: emptySentinel) }
        return Property(unsafeProducer: SignalProducer.combineLatest(producers))
    }

    /// A property holding the values, zipped in order, of the given properties (`Signal.zip`).
    @inlinable
    public static func zip<A: PropertyProtocol, B: PropertyProtocol>(_ a: A, _ b: B) -> Property<(Value, B.Value)> where A.Value == Value {
        a.lift { SignalProducer.zip($0, b) }
    }

    /// A property holding the values, zipped in order, of the given properties (`Signal.zip`).
    @inlinable
    public static func zip<A: PropertyProtocol, B: PropertyProtocol, C: PropertyProtocol>(_ a: A, _ b: B, _ c: C) -> Property<(Value, B.Value, C.Value)> where A.Value == Value {
        a.lift { SignalProducer.zip($0, b, c) }
    }

    /// A property holding the values, zipped in order, of the given properties (`Signal.zip`).
    @inlinable
    public static func zip<A: PropertyProtocol, B: PropertyProtocol, C: PropertyProtocol, D: PropertyProtocol>(_ a: A, _ b: B, _ c: C, _ d: D) -> Property<(Value, B.Value, C.Value, D.Value)> where A.Value == Value {
        a.lift { SignalProducer.zip($0, b, c, d) }
    }

    /// A property holding the values, zipped in order, of the given properties (`Signal.zip`).
    @inlinable
    public static func zip<A: PropertyProtocol, B: PropertyProtocol, C: PropertyProtocol, D: PropertyProtocol, E: PropertyProtocol>(_ a: A, _ b: B, _ c: C, _ d: D, _ e: E) -> Property<(Value, B.Value, C.Value, D.Value, E.Value)> where A.Value == Value {
        a.lift { SignalProducer.zip($0, b, c, d, e) }
    }

    /// A property holding the values, zipped in order, of the given properties (`Signal.zip`).
    @inlinable
    public static func zip<A: PropertyProtocol, B: PropertyProtocol, C: PropertyProtocol, D: PropertyProtocol, E: PropertyProtocol, F: PropertyProtocol>(_ a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F) -> Property<(Value, B.Value, C.Value, D.Value, E.Value, F.Value)> where A.Value == Value {
        a.lift { SignalProducer.zip($0, b, c, d, e, f) }
    }

    /// A property holding the values, zipped in order, of the given properties (`Signal.zip`).
    @inlinable
    public static func zip<A: PropertyProtocol, B: PropertyProtocol, C: PropertyProtocol, D: PropertyProtocol, E: PropertyProtocol, F: PropertyProtocol, G: PropertyProtocol>(_ a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F, _ g: G) -> Property<(Value, B.Value, C.Value, D.Value, E.Value, F.Value, G.Value)> where A.Value == Value {
        a.lift { SignalProducer.zip($0, b, c, d, e, f, g) }
    }

    /// A property holding the values, zipped in order, of the given properties (`Signal.zip`).
    @inlinable
    public static func zip<A: PropertyProtocol, B: PropertyProtocol, C: PropertyProtocol, D: PropertyProtocol, E: PropertyProtocol, F: PropertyProtocol, G: PropertyProtocol, H: PropertyProtocol>(_ a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F, _ g: G, _ h: H) -> Property<(Value, B.Value, C.Value, D.Value, E.Value, F.Value, G.Value, H.Value)> where A.Value == Value {
        a.lift { SignalProducer.zip($0, b, c, d, e, f, g, h) }
    }

    /// A property holding the values, zipped in order, of the given properties (`Signal.zip`).
    @inlinable
    public static func zip<A: PropertyProtocol, B: PropertyProtocol, C: PropertyProtocol, D: PropertyProtocol, E: PropertyProtocol, F: PropertyProtocol, G: PropertyProtocol, H: PropertyProtocol, I: PropertyProtocol>(_ a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F, _ g: G, _ h: H, _ i: I) -> Property<(Value, B.Value, C.Value, D.Value, E.Value, F.Value, G.Value, H.Value, I.Value)> where A.Value == Value {
        a.lift { SignalProducer.zip($0, b, c, d, e, f, g, h, i) }
    }

    /// A property holding the values, zipped in order, of the given properties (`Signal.zip`).
    @inlinable
    public static func zip<A: PropertyProtocol, B: PropertyProtocol, C: PropertyProtocol, D: PropertyProtocol, E: PropertyProtocol, F: PropertyProtocol, G: PropertyProtocol, H: PropertyProtocol, I: PropertyProtocol, J: PropertyProtocol>(_ a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F, _ g: G, _ h: H, _ i: I, _ j: J) -> Property<(Value, B.Value, C.Value, D.Value, E.Value, F.Value, G.Value, H.Value, I.Value, J.Value)> where A.Value == Value {
        a.lift { SignalProducer.zip($0, b, c, d, e, f, g, h, i, j) }
    }

    /// A property holding the values, zipped in order, of `properties`, or `nil` if there are none.
    @inlinable
    public static func zip<S: Sequence>(_ properties: S) -> Property<[S.Element.Value]>? where S.Element: PropertyProtocol {
        let producers = properties.map(\.producer)
        guard !producers.isEmpty else { return nil }
        return Property(unsafeProducer: SignalProducer.zip(producers))
    }

    /// A property holding the values, zipped in order, of `properties`; with none, the constant
    /// `emptySentinel`.
    @inlinable
    public static func zip<S: Sequence>(_ properties: S, emptySentinel: [S.Element.Value]) -> Property<[S.Element.Value]>
    where S.Element: PropertyProtocol {
        let producers = properties.map(\.producer)
        guard !producers.isEmpty else { return Property(value: emptySentinel) }
        return Property(unsafeProducer: SignalProducer.zip(producers))
    }

}


extension Signal {
    /// `throttle(while:on:)` gated by a property: values are held back while
    /// its value is `true` (its current value applies from the start).
    @inlinable
    public func throttle<P: PropertyProtocol>(while shouldThrottle: P, on scheduler: Scheduler) -> Signal<Value, Error>
    where P.Value == Bool {
        var result: Signal<Value, Error>?
        shouldThrottle.producer.startWithSignal { gate, interrupter in
            let throttled = self.throttle(while: gate, on: scheduler)
            throttled._core.lifetime += interrupter
            result = throttled
        }
        return result!
    }
}
