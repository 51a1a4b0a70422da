import CFlare

extension Signal {
    /// Splits this signal into one signal per key (ReactiveObjC's
    /// `groupBy:`, `RACGroupedSignal`).
    ///
    /// The first time a value has a new key, sends `(key, group)`, then the
    /// value on `group`; later values with that key go to the same group.
    /// This signal's terminal event ends every group, in the order the
    /// groups were created, then the result.
    ///
    /// The groups are delivered inside this signal's serialized delivery,
    /// sharing its serialization point: routing a value is one dictionary
    /// lookup, and a group nobody observes costs nothing more.
    @inlinable
    public func group<Key: Hashable>(by key: @escaping (Value) -> Key) -> Signal<(Key, Signal<Value, Error>), Error> {
        group(by: key, transform: { $0 })
    }

    /// `group(by:)`, sending `transform` of each value to its group
    /// (ReactiveObjC's `groupBy:transform:`).
    @inlinable
    public func group<Key: Hashable, U>(
        by key: @escaping (Value) -> Key, transform: @escaping (Value) -> U
    ) -> Signal<(Key, Signal<U, Error>), Error> {
        _liftCore { (downstream: _HeldCore<(Key, Signal<U, Error>), Error>) in
            let router = _GroupRouter<Key, U, Error>()
            return { event in
                switch event {
                case let .value(value):
                    let groupKey = key(value)
                    if let group = router.groups[groupKey] {
                        if flare_core_is_alive(group.raw) { group.deliverHeld(value: transform(value)) }
                    } else {
                        let core = _SignalCore<U, Error>(derivedFrom: downstream.core)
                        let group = _HeldCore(core)
                        router.add(group, for: groupKey)
                        downstream.deliverHeld(value: (groupKey, Signal<U, Error>(_core: core)))
                        group.deliverHeld(value: transform(value))
                    }
                case let .failed(error):
                    router.end(.failed(error))
                    downstream.deliverHeldOutOfLine(.failed(error))
                case .completed:
                    router.end(.completed)
                    downstream.deliverHeldOutOfLine(.completed)
                case .interrupted:
                    router.end(.interrupted)
                    downstream.deliverHeldOutOfLine(.interrupted)
                }
            }
        }
    }
}

/// The groups of one `group(by:)`, touched only inside the input's
/// serialized delivery. If the result is abandoned (neither referenced nor
/// observed) before the input ends, the router is released when its
/// observation is removed, after the last delivery that could use it, and
/// interrupts the groups still open.
@usableFromInline
final class _GroupRouter<Key: Hashable, Value, Error: Swift.Error> {
    /// Each key's group, for routing a value.
    @usableFromInline
    @exclusivity(unchecked)
    var groups: [Key: _HeldCore<Value, Error>] = [:]

    /// The groups in the order they were created: the order they end in, as
    /// ReactiveObjC's `groupBy:` ends them (a dictionary's order is not
    /// stable from one run to the next).
    @usableFromInline
    @exclusivity(unchecked)
    var created: [_HeldCore<Value, Error>] = []

    @inlinable
    init() {}

    @inlinable
    func add(_ group: _HeldCore<Value, Error>, for key: Key) {
        groups[key] = group
        created.append(group)
    }

    @inlinable
    func end(_ event: Signal<Value, Error>.Event) {
        let open = created
        groups = [:]
        created = []
        for group in open { group.deliverHeld(event) }
    }

    deinit {
        for group in created { group.deliverHeld(.interrupted) }
    }
}

extension SignalProducer {
    /// `Signal.group(by:)` on every run.
    @inlinable
    public func group<Key: Hashable>(by key: @escaping (Value) -> Key) -> SignalProducer<(Key, Signal<Value, Error>), Error> {
        lift { $0.group(by: key) }
    }

    /// `Signal.group(by:transform:)` on every run.
    @inlinable
    public func group<Key: Hashable, U>(
        by key: @escaping (Value) -> Key, transform: @escaping (Value) -> U
    ) -> SignalProducer<(Key, Signal<U, Error>), Error> {
        lift { $0.group(by: key, transform: transform) }
    }
}
