import CFlare

private let releaseContextThunk: @convention(c) (UnsafeMutableRawPointer?) -> Void = { ctx in
    _releaseObserverContext(ctx)
}

/// The engine of one signal: its C core (observer bag and lifecycle), the
/// serial word of its domain, and the lifetime of its generator.
///
/// A **root** core (made by `Signal.init(_:)` or `pipe`) owns its serial
/// word: `send` acquires it, delivers, and drains what other threads queued
/// meanwhile. A **derived** core (made by a single-input operator) shares
/// its upstream's word and is only ever delivered to from inside the
/// upstream's delivery (`_HeldCore.deliverHeld`), which already holds the
/// word: a chain of operators has one serialization point, not one per link.
///
/// Thread-safety: `send`, `observe` and `dispose` may be called from any
/// thread, concurrently. Everything else runs only while holding the serial
/// word.
@usableFromInline
final class _SignalCore<Value, Error: Swift.Error>: @unchecked Sendable {
    @usableFromInline typealias Event = Signal<Value, Error>.Event
    @usableFromInline typealias Observer = Signal<Value, Error>.Observer

    @usableFromInline
    let raw: UnsafeMutablePointer<flare_core>

    @usableFromInline
    let serial: UnsafeMutablePointer<flare_serial>

    /// Keeps the serial word alive for as long as this core uses it.
    @usableFromInline
    let domain: _SerialDomain

    @usableFromInline
    let isRoot: Bool

    /// The generator's lifetime: ended when the signal terminates
    /// (`didTerminate`, `_HeldCore.deliverHeld`), when a derived core loses
    /// its last retainer, or when the core goes.
    @usableFromInline
    let lifetime = Lifetime()

    /// Holding the word: the state of the drain in progress while events it
    /// took from the serial word may wait behind the one being delivered,
    /// in the drainer's hands rather than on the word
    /// (`flare_drain_current`). Flatten's engine reads it to tell whether
    /// anything at all is queued behind the current event, and drains that
    /// in place (`_FlattenEngine.queueStartingEvent`).
    @inlinable
    var currentDrain: UnsafeMutablePointer<flare_drain>? { flare_drain_current(serial) }

    /// A root core with a fresh serial word, whose queue holds at most
    /// `queueLimit` events sent from other threads.
    @usableFromInline
    convenience init(queueLimit: QueueLimit = .default) {
        self.init(domain: _SerialDomain(queueLimit: queueLimit), isRoot: true)
    }

    /// A derived core in `upstream`'s domain.
    @usableFromInline
    convenience init<U, F>(derivedFrom upstream: _SignalCore<U, F>) {
        self.init(domain: upstream.domain, isRoot: false)
    }

    private init(domain: _SerialDomain, isRoot: Bool) {
        self.domain = domain
        self.serial = domain.serial
        self.isRoot = isRoot
        raw = allocateLineAligned(flare_core.self)
        flare_core_init(raw, domain.serial)
        // A root is delivered to only through its serial word, from the
        // start; a derived core is published by `_liftCore`.
        if isRoot { flare_core_publish(raw) }
    }

    /// Marks the core reachable by other threads: from now on only the
    /// domain's drainer may deliver to it (`flare_core_may_deliver`).
    @inlinable
    func publish() { flare_core_publish(raw) }

    deinit {
        lifetime._end()
        flare_core_destroy(raw, releaseContextThunk)
        raw.deallocate()
    }

    // MARK: Driving the serial word (root cores)

    // A root core drives its domain's word with `_SerialDriver`'s steps
    // (SerialDriver.swift): `send`, `drain`, `finishTermination`. A derived
    // core never does: it is delivered to from inside its upstream's
    // delivery (`_HeldCore.deliverHeld`).

    /// The core whose drain steps the driver follows: this one.
    @inlinable
    var drainCore: UnsafeMutablePointer<flare_core> { raw }

    /// A root's word has closed after its terminal event: ends the
    /// generator's lifetime.
    @inlinable
    func didTerminate() {
        lifetime._end()
    }
}

extension _SignalCore: _SerialDriver {}
