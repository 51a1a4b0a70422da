// map and filter for both baselines, so operator chains can be compared.
// Each derived signal is a pipe whose input is fed from an observer of the
// upstream; terminal events are forwarded. The derived signal lives as long
// as the upstream holds that observer (until it terminates).

extension LockedSignal {
    /// Values transformed by `transform`.
    @inlinable
    public func map<U>(_ transform: @escaping (Value) -> U) -> LockedSignal<U, Error> {
        let (output, input) = LockedSignal<U, Error>.pipe()
        observe(Observer { event in input.send(event.map(transform)) })
        return output
    }

    /// Only the values for which `isIncluded` is true.
    @inlinable
    public func filter(_ isIncluded: @escaping (Value) -> Bool) -> LockedSignal<Value, Error> {
        let (output, input) = LockedSignal<Value, Error>.pipe()
        observe(Observer { event in
            if case let .value(v) = event, !isIncluded(v) { return }
            input.send(event)
        })
        return output
    }
}

extension SnapshotSignal {
    /// Values transformed by `transform`.
    @inlinable
    public func map<U>(_ transform: @escaping (Value) -> U) -> SnapshotSignal<U, Error> {
        let (output, input) = SnapshotSignal<U, Error>.derivedPipe()
        observe(Observer { event in input.send(event.map(transform)) })
        return output
    }

    /// Only the values for which `isIncluded` is true.
    @inlinable
    public func filter(_ isIncluded: @escaping (Value) -> Bool) -> SnapshotSignal<Value, Error> {
        let (output, input) = SnapshotSignal<Value, Error>.derivedPipe()
        observe(Observer { event in
            if case let .value(v) = event, !isIncluded(v) { return }
            input.send(event)
        })
        return output
    }
}
