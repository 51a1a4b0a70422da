extension Signal {
    /// Sends only the values for which `isIncluded` returns true.
    ///
    /// Terminal events pass through unchanged.
    @inlinable
    public func filter(_ isIncluded: @escaping (Value) -> Bool) -> Signal<Value, Error> {
        liftCore { downstream in
            let link = Link(isIncluded, downstream)
            return { event in link.filter(event) }
        }
    }

    /// Sends the non-nil results of `transform`; drops the values for which
    /// it returns nil.
    ///
    /// Terminal events pass through unchanged.
    @inlinable
    public func compactMap<U>(_ transform: @escaping (Value) -> U?) -> Signal<U, Error> {
        liftCore { downstream in
            let link = Link(transform, downstream)
            return { event in link.compactMap(event) }
        }
    }
}

extension Signal where Value: Equatable {
    /// Drops every value equal to `value`; sends the others.
    ///
    /// ReactiveObjC's `ignore:`, which ReactiveSwift dropped; the same as
    /// `filter { $0 != value }`. Terminal events pass through unchanged.
    @inlinable
    public func ignore(_ value: Value) -> Signal<Value, Error> {
        filter { $0 != value }
    }
}
