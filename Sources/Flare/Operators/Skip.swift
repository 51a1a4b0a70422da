extension Signal {
    /// Drops the first `count` values, then forwards every value.
    ///
    /// Terminal events pass through unchanged at any time. `skip(first: 0)`
    /// returns `self`. Observes upstream until either terminates.
    ///
    /// - Precondition: `count >= 0`.
    @inlinable
    public func skip(first count: Int) -> Signal<Value, Error> {
        precondition(count >= 0, "skip(first:) needs a non-negative count")
        guard count > 0 else { return self }
        return liftCore { downstream in
            var remaining = count
            return { event in
                if case .value = event, remaining > 0 {
                    remaining &-= 1
                    return
                }
                downstream.deliverHeld(event)
            }
        }
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
        liftCore { downstream in
            var isSkipping = true
            return { event in
                if isSkipping, case let .value(value) = event {
                    guard !shouldContinue(value) else { return }
                    isSkipping = false
                }
                downstream.deliverHeld(event)
            }
        }
    }

    /// Drops each value that `isEquivalent` deems equivalent to the last
    /// value forwarded; the first value is always forwarded.
    ///
    /// The comparison is with the last value *forwarded*, not the last one
    /// received. Terminal events pass through unchanged. Observes upstream
    /// until either terminates.
    @inlinable
    public func skipRepeats(_ isEquivalent: @escaping (Value, Value) -> Bool) -> Signal<Value, Error> {
        liftCore { downstream in
            var last: Value?
            return { event in
                if case let .value(value) = event {
                    if let last, isEquivalent(last, value) { return }
                    last = value
                }
                downstream.deliverHeld(event)
            }
        }
    }

    /// Forwards a value only if its identity, as given by `transform`, has
    /// not been seen before.
    ///
    /// Keeps every identity seen for as long as the signal runs (choose a
    /// small identity to bound the memory). Terminal events pass through
    /// unchanged. Observes upstream until either terminates.
    @inlinable
    public func uniqueValues<Identity: Hashable>(_ transform: @escaping (Value) -> Identity) -> Signal<Value, Error> {
        liftCore { downstream in
            var seen = Set<Identity>()
            return { event in
                if case let .value(value) = event, !seen.insert(transform(value)).inserted { return }
                downstream.deliverHeld(event)
            }
        }
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
