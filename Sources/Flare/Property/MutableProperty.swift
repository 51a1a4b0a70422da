/// A value that can be set from any thread and observed: ReactiveSwift's
/// `MutableProperty`, ReactiveObjC's `RACBehaviorSubject`.
///
/// Concurrency contract (contract 11):
/// - Reading `value` takes no lock and never waits (see the Properties
///   article for the scheme).
/// - Observers of `signal` and of `producer`'s runs see the changes in the
///   order they were made, each exactly once, serialized; no lock is held
///   while an observer runs.
/// - A set (or `modify`, `swap`) from inside an observer of this property is
///   neither a deadlock nor a crash: it is applied at once and delivered
///   after the delivery in progress, in order, in constant stack.
/// - Once every setter has returned, the last value delivered equals
///   `value`.
/// - `modify` runs its closure exactly once, with exclusive access; a
///   `modify` (or a set) of the same property from inside that closure stops
///   the program with a message, as ReactiveSwift does.
///
/// Usable as a property wrapper: `@MutableProperty var name = ""` exposes
/// the property itself as `$name`.
@propertyWrapper
public final class MutableProperty<Value>: ComposableMutablePropertyProtocol {
    @usableFromInline
    let _channel: _PropertyChannel<Value>

    @usableFromInline
    let _token: Lifetime.Token

    /// The lifetime of the property: it ends when the property deinitializes.
    public let lifetime: Lifetime

    /// Sends every change, then completes when the property deinitializes.
    ///
    /// Thread-safety: observe from any thread; the changes arrive one at a
    /// time, in the order they were made.
    ///
    /// - Complexity: O(1): a stored signal.
    public let signal: Signal<Value, Never>

    /// A property whose value is `initialValue`.
    @inlinable
    public init(_ initialValue: Value) {
        (_channel, signal) = _PropertyChannel.make(initialValue)
        (lifetime, _token) = Lifetime.make()
    }

    /// A property whose value is `wrappedValue` (the property-wrapper form).
    @inlinable
    public convenience init(wrappedValue: Value) {
        self.init(wrappedValue)
    }

    deinit {
        _channel.complete()
    }

    /// The current value. Reading takes no lock; setting notifies every
    /// observer (after the delivery in progress, if any).
    ///
    /// Thread-safety: get and set from any thread, also from inside an
    /// observer of this property. A read never waits for a writer. A set
    /// waits only while another writer holds the property's write gate (for
    /// its publish, or the whole closure of a `modify`), never for an
    /// observer.
    ///
    /// - Complexity: get: O(1), lock-free; plain-bytes values up to 32
    ///   bytes are copied without allocating or retaining, other values are
    ///   copied (retaining what they reference). Set: O(1) to publish (a
    ///   value with references takes one allocation); then, if no delivery
    ///   is in progress, O(n) to deliver it to the n observers of `signal`
    ///   and runs of `producer`, followed by what was queued meanwhile;
    ///   otherwise one node queued behind the delivery in progress.
    @inlinable
    public var value: Value {
        get { _channel.value }
        set { _channel.setKeepingSignal(newValue) }
    }

    /// `value`, for the property-wrapper form.
    @inlinable
    public var wrappedValue: Value {
        get { _channel.value }
        set { _channel.setKeepingSignal(newValue) }
    }

    /// The property itself (`$name` for `@MutableProperty var name`).
    @inlinable
    public var projectedValue: MutableProperty<Value> { self }

    /// Sends the current value, then every change, with no gap and no
    /// duplicate even when sets race with the start; completes when the
    /// property deinitializes. Does not retain the property.
    ///
    /// Thread-safety: start from any thread, also from inside an observer of
    /// this property.
    ///
    /// - Complexity: O(1) to get (a producer with one closure). A start is
    ///   O(1) plus its operators: it attaches a run to the property, with no
    ///   signal, observer or lifetime of its own, holding the write gate for
    ///   the attach only.
    @inlinable
    public var producer: SignalProducer<Value, Never> {
        SignalProducer(_channel: _channel, signal: signal)
    }

    /// Replaces the value and returns the previous one, atomically.
    @discardableResult
    public func swap(_ newValue: Value) -> Value {
        _channel.modify("MutableProperty.swap") { value in
            defer { value = newValue }
            return value
        }
    }

    /// Runs `action` with exclusive access to the value, exactly once, then
    /// notifies the observers of the result (also if `action` throws).
    ///
    /// Other writers wait while `action` runs, asleep (they use no CPU);
    /// readers and observers do not wait. Modifying the same property from
    /// inside `action` stops the program with a message.
    ///
    /// Thread-safety: call from any thread, but not from inside `action`.
    ///
    /// - Complexity: one call of `action`, holding the write gate; then the
    ///   cost of a set (see ``value``).
    @discardableResult
    public func modify<Result>(_ action: (inout Value) throws -> Result) rethrows -> Result {
        try _channel.modify("MutableProperty.modify", action)
    }

    /// Calls `action` with the current value. Takes no lock: a change made
    /// meanwhile by another thread is not excluded.
    @discardableResult
    public func withValue<Result>(_ action: (Value) throws -> Result) rethrows -> Result {
        try action(_channel.value)
    }
}

extension MutableProperty: @unchecked Sendable {}

extension SignalProducer where Error == Never {
    /// The producer of a property's channel: each run gets the current value,
    /// then every later change, straight from the property's serialized
    /// domain (see `_PropertyChannel.start(_:)`): no signal, observer or
    /// lifetime per start. A run keeps `signal` (the property's signal)
    /// alive until it ends, as a composed property's producer must keep its
    /// sources' observation going.
    @inlinable
    init(_channel channel: _PropertyChannel<Value>, signal: Signal<Value, Never>) {
        self.init(_relayingFrom: channel, anchor: signal)
    }
}
