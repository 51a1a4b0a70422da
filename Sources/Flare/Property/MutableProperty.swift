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
    let channel: _PropertyChannel<Value>

    @usableFromInline
    let token: Lifetime.Token

    /// The lifetime of the property: it ends when the property deinitializes.
    public let lifetime: Lifetime

    /// Sends every change, then completes when the property deinitializes.
    public let signal: Signal<Value, Never>

    /// A property whose value is `initialValue`.
    @inlinable
    public init(_ initialValue: Value) {
        (channel, signal) = _PropertyChannel.make(initialValue)
        (lifetime, token) = Lifetime.make()
    }

    /// A property whose value is `wrappedValue` (the property-wrapper form).
    @inlinable
    public convenience init(wrappedValue: Value) {
        self.init(wrappedValue)
    }

    deinit {
        channel.complete()
    }

    /// The current value. Reading takes no lock; setting notifies every
    /// observer (after the delivery in progress, if any).
    @inlinable
    public var value: Value {
        get { channel.value }
        set { channel.set(newValue) }
    }

    /// `value`, for the property-wrapper form.
    @inlinable
    public var wrappedValue: Value {
        get { channel.value }
        set { channel.set(newValue) }
    }

    /// The property itself (`$name` for `@MutableProperty var name`).
    @inlinable
    public var projectedValue: MutableProperty<Value> { self }

    /// Sends the current value, then every change, with no gap and no
    /// duplicate even when sets race with the start; completes when the
    /// property deinitializes. Does not retain the property.
    @inlinable
    public var producer: SignalProducer<Value, Never> {
        SignalProducer(channel: channel, signal: signal)
    }

    /// Replaces the value and returns the previous one, atomically.
    @discardableResult
    public func swap(_ newValue: Value) -> Value {
        channel.modify("MutableProperty.swap") { value in
            defer { value = newValue }
            return value
        }
    }

    /// Runs `action` with exclusive access to the value, exactly once, then
    /// notifies the observers of the result (also if `action` throws).
    ///
    /// Other writers wait while `action` runs; readers do not. Modifying the
    /// same property from inside `action` stops the program with a message.
    @discardableResult
    public func modify<Result>(_ action: (inout Value) throws -> Result) rethrows -> Result {
        try channel.modify("MutableProperty.modify", action)
    }

    /// Calls `action` with the current value. Takes no lock: a change made
    /// meanwhile by another thread is not excluded.
    @discardableResult
    public func withValue<Result>(_ action: (Value) throws -> Result) rethrows -> Result {
        try action(channel.value)
    }
}

extension MutableProperty: @unchecked Sendable {}

extension SignalProducer where Error == Never {
    /// The producer of a property's channel: each run gets the current value,
    /// then every later change (see `_PropertyChannel.start(into:)`). Keeps
    /// `signal` (the property's signal) alive, as a composed property's
    /// producer must keep its sources' observation going.
    @inlinable
    init(channel: _PropertyChannel<Value>, signal: Signal<Value, Never>) {
        self.init(_depth: 0) { run, sink in
            let core = _SignalCore<Value, Never>()
            let handle = Signal(_core: core)
            // The observer holds the run (see `_ProducerSink`).
            _ = core.observe(Signal.Observer { [run] event in
                withExtendedLifetime(run) { sink.deliverHeld(event) }
            })
            run.connect(
                lifetime: core.lifetime,
                interrupt: { handle.core.send(.interrupted) },
                start: { withExtendedLifetime(signal) { channel.start(into: core) } })
        }
    }
}
