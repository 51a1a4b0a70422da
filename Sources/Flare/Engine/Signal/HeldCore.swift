import CFlare

/// A derived core as a single-input operator's observer closure captures
/// it: the core, and the address of its C core, kept in the closure's own
/// context. A value passing through a chain of operators then reaches each
/// link's observers one dependent load sooner than through `core.raw`.
@usableFromInline
struct _HeldCore<Value, Error: Swift.Error> {
    @usableFromInline
    let core: _SignalCore<Value, Error>

    /// `core.raw`, cached.
    @usableFromInline
    let raw: UnsafeMutablePointer<flare_core>

    @inlinable
    init(_ core: _SignalCore<Value, Error>) {
        self.core = core
        self.raw = core.raw
    }

    /// The derived signal's lifetime.
    @inlinable
    var lifetime: Lifetime { core.lifetime }

    /// Delivers an event to the derived core from inside its upstream's
    /// delivery (which holds the serial word).
    @inlinable
    @inline(__always)
    func deliverHeld(_ event: Signal<Value, Error>.Event) {
        if _SignalCore.deliver(event, raw: raw, core: core) { core.lifetime._end() }
    }

    /// `deliverHeld(.value(value))`, for a link that knows it has a value:
    /// no second look at the event's kind.
    @inlinable
    @inline(__always)
    func deliverHeld(value: Value) {
        assert(flare_core_may_deliver(raw), "Flare: a delivery without holding the serial word")
        flare_core_begin_delivery(raw)
        _SignalCore<Value, Error>.deliverSpliced(value: value, raw: raw)
    }

    /// `deliverHeld` for the rarer events, kept out of the links' value path.
    @inlinable
    @inline(never)
    func deliverHeldOutOfLine(_ event: Signal<Value, Error>.Event) {
        deliverHeld(event)
    }
}

/// The disposable returned by `observe`: detaches one observer.
///
/// One word: the entry. The signal's core, which the handle keeps alive, is
/// kept retained in the entry's `owner` word, so that the handle is the
/// smallest object Swift allocates (every attached observer has one).
@usableFromInline
final class _Observation<Value, Error: Swift.Error>: Disposable, @unchecked Sendable {
    @usableFromInline
    let entry: UnsafeMutablePointer<flare_entry>

    /// Takes over the handle's reference to `entry` and the core retained
    /// in its owner word.
    @inlinable
    init(entry: UnsafeMutablePointer<flare_entry>) {
        self.entry = entry
    }

    deinit {
        let core = entry.pointee.owner.unsafelyUnwrapped
        flare_entry_unref(entry)
        Unmanaged<_SignalCore<Value, Error>>.fromOpaque(core).release()
    }

    /// True once the observer no longer receives events: disposed, or
    /// terminated. An acquire load: a thread that sees `true` sees what the
    /// disposing thread did before `dispose()` (the delivery path's check,
    /// `flare_entry_is_active`, is relaxed).
    @usableFromInline
    var isDisposed: Bool { flare_entry_is_claimed(entry) }

    @usableFromInline
    func dispose() {
        Unmanaged<_SignalCore<Value, Error>>.fromOpaque(entry.pointee.owner.unsafelyUnwrapped)
            ._withUnsafeGuaranteedRef { $0.dispose(entry) }
    }
}
