extension Signal {
    /// Sends only the values for which `isIncluded` returns true.
    ///
    /// Terminal events pass through unchanged.
    @inlinable
    public func filter(_ isIncluded: @escaping (Value) -> Bool) -> Signal<Value, Error> {
        liftCore { downstream in
            let link = FilterLink<Value, Error>(isIncluded, downstream)
            return { event in link.receive(event) }
        }
    }

    /// Sends the non-nil results of `transform`; drops the values for which
    /// it returns nil.
    ///
    /// Terminal events pass through unchanged.
    @inlinable
    public func compactMap<U>(_ transform: @escaping (Value) -> U?) -> Signal<U, Error> {
        liftCore { downstream in
            let link = CompactMapLink<Value, U, Error>(transform, downstream)
            return { event in link.receive(event) }
        }
    }
}

/// `filter`'s state, in one object (see `MapLink`).
@usableFromInline
final class FilterLink<Value, Error: Swift.Error> {
    @usableFromInline let isIncluded: (Value) -> Bool
    @usableFromInline let downstream: HeldCore<Value, Error>

    @inlinable
    init(_ isIncluded: @escaping (Value) -> Bool, _ downstream: HeldCore<Value, Error>) {
        self.isIncluded = isIncluded
        self.downstream = downstream
    }

    @inlinable
    @inline(__always)
    func receive(_ event: Signal<Value, Error>.Event) {
        if case let .value(value) = event {
            if isIncluded(value) { downstream.deliverHeld(value: value) }
        } else {
            downstream.deliverHeldOutOfLine(event)
        }
    }
}

/// `compactMap`'s state, in one object (see `MapLink`).
@usableFromInline
final class CompactMapLink<Value, U, Error: Swift.Error> {
    @usableFromInline let transform: (Value) -> U?
    @usableFromInline let downstream: HeldCore<U, Error>

    @inlinable
    init(_ transform: @escaping (Value) -> U?, _ downstream: HeldCore<U, Error>) {
        self.transform = transform
        self.downstream = downstream
    }

    @inlinable
    @inline(__always)
    func receive(_ event: Signal<Value, Error>.Event) {
        switch event {
        case let .value(value):
            if let mapped = transform(value) { downstream.deliverHeld(value: mapped) }
        case let .failed(error): downstream.deliverHeldOutOfLine(.failed(error))
        case .completed: downstream.deliverHeldOutOfLine(.completed)
        case .interrupted: downstream.deliverHeldOutOfLine(.interrupted)
        }
    }
}
