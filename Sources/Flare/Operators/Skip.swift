extension Signal {
    /// Drops the first `count` values, then forwards every value.
    ///
    /// Terminal events pass through unchanged at any time. `skip(first: 0)`
    /// returns `self`. Observes upstream until either terminates.
    ///
    /// - Precondition: `count >= 0`.
    @inlinable
    public func skip(first count: Int) -> Signal<Value, Error> {
        guard _SkipFirstOperator<Value, Error>.skipsAny(count) else { return self }
        return _lift(_SkipFirstOperator(count: count))
    }

    /// Drops values while `shouldContinue` returns true; from the first value
    /// for which it returns false (that value included), forwards every
    /// value.
    ///
    /// `shouldContinue` is not called again once it has returned false.
    /// Terminal events pass through unchanged at any time. Observes upstream
    /// until either terminates.
    @inlinable
    public func skip(while shouldContinue: @escaping (Value) -> Bool) -> Signal<Value, Error> {
        _lift(_SkipWhileOperator(shouldContinue: shouldContinue))
    }

    /// Drops each value that `isEquivalent` deems equivalent to the last
    /// value forwarded; the first value is always forwarded.
    ///
    /// The comparison is with the last value *forwarded*, not the last one
    /// received. Terminal events pass through unchanged. Observes upstream
    /// until either terminates.
    @inlinable
    public func skipRepeats(_ isEquivalent: @escaping (Value, Value) -> Bool) -> Signal<Value, Error> {
        _lift(_SkipRepeatsOperator(isEquivalent: isEquivalent))
    }

    /// Forwards a value only if its identity, as given by `transform`, has
    /// not been seen before.
    ///
    /// Keeps every identity seen for as long as the signal runs (choose a
    /// small identity to bound the memory). Terminal events pass through
    /// unchanged. Observes upstream until either terminates.
    @inlinable
    public func uniqueValues<Identity: Hashable>(_ transform: @escaping (Value) -> Identity) -> Signal<Value, Error> {
        _lift(_UniqueValuesOperator(transform: transform))
    }

}

extension Signal where Value: OptionalProtocol {
    /// Forwards the non-nil values, unwrapped; drops the nils.
    ///
    /// Constrained on `OptionalProtocol`, as in ReactiveSwift, so that code
    /// generic over optional values can call it. Terminal events pass through
    /// unchanged. Observes upstream until either terminates.
    @inlinable
    public func skipNil() -> Signal<Value.Wrapped, Error> {
        compactMap { $0.optional }
    }
}

extension Signal where Value: Equatable {
    /// Drops each value equal to the last value forwarded; the first value is
    /// always forwarded.
    ///
    /// Terminal events pass through unchanged. Observes upstream until
    /// either terminates.
    @inlinable
    public func skipRepeats() -> Signal<Value, Error> {
        skipRepeats(==)
    }
}

extension Signal where Value: Hashable {
    /// Forwards a value only if no equal value has been seen before.
    ///
    /// Keeps every distinct value seen for as long as the signal runs.
    /// Terminal events pass through unchanged. Observes upstream until
    /// either terminates.
    @inlinable
    public func uniqueValues() -> Signal<Value, Error> {
        uniqueValues { $0 }
    }
}

/// `skip(first:)`.
@usableFromInline
struct _SkipFirstOperator<Value, Error: Swift.Error>: _FilteringOperator {
    @usableFromInline let count: Int

    @inlinable
    init(count: Int) { self.count = count }

    /// Whether `skip(first: count)` drops anything; stops on a negative count.
    @inlinable
    static func skipsAny(_ count: Int) -> Bool {
        flarePrecondition(count >= 0, "skip(first:) needs a non-negative count, got \(count)")
        return count > 0
    }

    @inlinable
    func attach<Sink: _EventSink>(to downstream: consuming Sink) -> (Signal<Value, Error>.Event) -> Void
    where Sink.Value == Value, Sink.Error == Error {
        let downstream = downstream
        let remaining = _DeliveryState(count)
        return { event in
            if case .value = event, remaining.value > 0 {
                remaining.value &-= 1
                return
            }
            downstream.deliverHeld(event)
        }
    }
}

/// `skip(while:)`.
@usableFromInline
struct _SkipWhileOperator<Value, Error: Swift.Error>: _FilteringOperator {
    @usableFromInline let shouldContinue: (Value) -> Bool

    @inlinable
    init(shouldContinue: @escaping (Value) -> Bool) { self.shouldContinue = shouldContinue }

    @inlinable
    func attach<Sink: _EventSink>(to downstream: consuming Sink) -> (Signal<Value, Error>.Event) -> Void
    where Sink.Value == Value, Sink.Error == Error {
        let downstream = downstream
        let isSkipping = _DeliveryState(true)
        return { [shouldContinue] event in
            if isSkipping.value, case let .value(value) = event {
                guard !shouldContinue(value) else { return }
                isSkipping.value = false
            }
            downstream.deliverHeld(event)
        }
    }
}

/// `skipRepeats(_:)`.
@usableFromInline
struct _SkipRepeatsOperator<Value, Error: Swift.Error>: _FilteringOperator {
    @usableFromInline let isEquivalent: (Value, Value) -> Bool

    @inlinable
    init(isEquivalent: @escaping (Value, Value) -> Bool) { self.isEquivalent = isEquivalent }

    @inlinable
    func attach<Sink: _EventSink>(to downstream: consuming Sink) -> (Signal<Value, Error>.Event) -> Void
    where Sink.Value == Value, Sink.Error == Error {
        let downstream = downstream
        let last = _DeliveryState<Value?>(nil)
        return { [isEquivalent] event in
            if case let .value(value) = event {
                if let last = last.value, isEquivalent(last, value) { return }
                last.value = value
            }
            downstream.deliverHeld(event)
        }
    }
}

/// `uniqueValues(_:)`.
@usableFromInline
struct _UniqueValuesOperator<Value, Error: Swift.Error, Identity: Hashable>: _FilteringOperator {
    @usableFromInline let transform: (Value) -> Identity

    @inlinable
    init(transform: @escaping (Value) -> Identity) { self.transform = transform }

    @inlinable
    func attach<Sink: _EventSink>(to downstream: consuming Sink) -> (Signal<Value, Error>.Event) -> Void
    where Sink.Value == Value, Sink.Error == Error {
        let downstream = downstream
        let seen = _DeliveryState(Set<Identity>())
        return { [transform] event in
            if case let .value(value) = event, !seen.value.insert(transform(value)).inserted { return }
            downstream.deliverHeld(event)
        }
    }
}

extension SignalProducer {
    /// `Signal.skip(first:)` on every run: drops the first `count` values.
    /// One link per start.
    ///
    /// - Precondition: `count >= 0`.
    @inlinable
    public func skip(first count: Int) -> SignalProducer<Value, Error> {
        guard _SkipFirstOperator<Value, Error>.skipsAny(count) else { return self }
        return _lift(_SkipFirstOperator(count: count))
    }

    /// `Signal.skip(while:)` on every run: drops values while
    /// `shouldContinue` holds. One link per start.
    @inlinable
    public func skip(while shouldContinue: @escaping (Value) -> Bool) -> SignalProducer<Value, Error> {
        _lift(_SkipWhileOperator(shouldContinue: shouldContinue))
    }

    /// `Signal.skipRepeats(_:)` on every run. One link per start.
    @inlinable
    public func skipRepeats(_ isEquivalent: @escaping (Value, Value) -> Bool) -> SignalProducer<Value, Error> {
        _lift(_SkipRepeatsOperator(isEquivalent: isEquivalent))
    }

    /// `Signal.uniqueValues(_:)` on every run (each run keeps its own set).
    /// One link per start.
    @inlinable
    public func uniqueValues<Identity: Hashable>(_ transform: @escaping (Value) -> Identity) -> SignalProducer<Value, Error> {
        _lift(_UniqueValuesOperator(transform: transform))
    }

    /// `Signal.skipNil()` on every run. One link per start.
    @inlinable
    public func skipNil<Wrapped>() -> SignalProducer<Wrapped, Error> where Value == Wrapped? {
        compactMap { $0 }
    }
}

extension SignalProducer where Value: Equatable {
    /// `Signal.skipRepeats()` on every run. One link per start.
    @inlinable
    public func skipRepeats() -> SignalProducer<Value, Error> {
        skipRepeats(==)
    }
}

extension SignalProducer where Value: Hashable {
    /// `Signal.uniqueValues()` on every run. One link per start.
    @inlinable
    public func uniqueValues() -> SignalProducer<Value, Error> {
        uniqueValues { $0 }
    }
}
