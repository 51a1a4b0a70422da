import CFlare

extension _SignalCore {
    // MARK: Delivery (holding the serial word)

    /// Delivers one event to this core's observers. The caller holds the
    /// domain's serial word. Returns whether the event was terminal and
    /// ended this core.
    @inlinable
    @inline(__always)
    func deliver(_ event: Event) -> Bool {
        Self.deliver(event, raw: raw, core: self)
    }

    /// `deliver` given the C core's address, so that a caller that has it at
    /// hand (a `_HeldCore` in an operator's closure context) skips loading it
    /// from the object: values are delivered without touching `core`.
    @inlinable
    @inline(__always)
    static func deliver(_ event: Event, raw: UnsafeMutablePointer<flare_core>, core: _SignalCore) -> Bool {
        assert(flare_core_may_deliver(raw), "Flare: a delivery without holding the serial word")
        flare_core_begin_delivery(raw)
        guard case let .value(value) = event else { return core.deliverTerminal(event) }
        deliverSpliced(value: value, raw: raw)
        return false
    }

    /// Delivers `value` to the observers in the private array; the
    /// caller holds the serial word and has spliced the additions.
    @inlinable
    @inline(__always)
    static func deliverSpliced(value: Value, raw: UnsafeMutablePointer<flare_core>) {
        // The probes' one test on this path (flare_trace.h, T1): two loads
        // of semaphores nothing writes while untraced, and a branch to an
        // out-of-line call that takes `value` at +0.
        if _slowPath(flare_trace_events_on()) { traceValue(value, raw: raw) }
        let count = raw.pointee.count
        guard count != 0 else { return }
        let items = raw.pointee.items.unsafelyUnwrapped
        // One observer is the common case (every link of an operator chain,
        // most signals): no loop, no counters, nothing live across the call.
        // `flare_entry_observer`'s test, spelled out so that `_fastPath`
        // keeps the call in line (through the C function the compiler laid
        // the active case out of line).
        if count == 1 {
            let entry = items[0].unsafelyUnwrapped
            if _fastPath(flare_entry_is_active(entry)) {
                Unmanaged<Observer>.fromOpaque(flare_entry_ctx(entry).unsafelyUnwrapped)._withUnsafeGuaranteedRef { $0.send(value: value) }
            } else {
                flare_core_note_dead(raw, 1)
            }
            return
        }
        deliverLoop(value: value, raw: raw, count: count, items: items)
    }

    /// `deliverSpliced` for two observers or more: out of line, so that the
    /// single-observer path it is inlined into keeps few registers live.
    @inlinable
    @inline(never)
    static func deliverLoop(
        value: Value, raw: UnsafeMutablePointer<flare_core>,
        count: Int, items: UnsafeMutablePointer<UnsafeMutablePointer<flare_entry>?>
    ) {
        var dead = 0
        var i = 0
        while i < count {
            if let ctx = flare_entry_observer(items[i].unsafelyUnwrapped) {
                Unmanaged<Observer>.fromOpaque(ctx)._withUnsafeGuaranteedRef { $0.send(value: value) }
            } else {
                dead &+= 1
            }
            i &+= 1
        }
        flare_core_note_dead(raw, dead)
    }

    /// Delivers a terminal event: each observer still active is claimed
    /// (exactly once, against concurrent disposal), receives the event and is
    /// released; then the core is sealed in one step, and the observers that
    /// attached while the event was being delivered receive `interrupted`.
    /// Every delivery to an observer attached before the terminal event
    /// happens before the seal, so an `observe` that finds the signal sealed
    /// (and interrupts its own observer on its own thread) sees all of it;
    /// the `interrupted` calls to late observers are not serialized with one
    /// another (contract 5). Sealing at once keeps this bounded: an attacher
    /// in a loop cannot hold the terminating thread here.
    ///
    /// Out of line (it runs once per signal) but `@inlinable`, so that it is
    /// specialized with its caller: a run of a producer terminates once per
    /// start, which for a flattened or retried producer is once per event,
    /// and the unspecialized body asks the runtime for the event's metadata
    /// at each observer.
    @inlinable
    @inline(never)
    func deliverTerminal(_ event: Event) -> Bool {
        guard flare_core_begin_termination(raw) else { return false }
        if _slowPath(flare_trace_events_on() || flare_trace_signal_ended_on()) { Self.traceTerminal(event, raw: raw) }
        let count = raw.pointee.count
        if let items = raw.pointee.items {
            for i in 0..<count {
                if let ctx = flare_entry_take_done(items[i].unsafelyUnwrapped) {
                    let observer = Unmanaged<Observer>.fromOpaque(ctx)
                    observer._withUnsafeGuaranteedRef { $0.send(event) }
                    observer.release()
                }
            }
        }
        var late = flare_core_end_termination(raw)
        while let ctx = flare_late_next(&late) {
            let observer = Unmanaged<Observer>.fromOpaque(ctx)
            observer._withUnsafeGuaranteedRef { $0.sendInterrupted() }
            observer.release()
        }
        return true
    }

    // MARK: Observing

    /// Attaches `observer`. Lock-free and O(1); see `flare_core_attach`.
    ///
    /// - Returns: A disposable that detaches the observer, or `nil` if the
    ///   signal had already terminated, in which case the observer has been
    ///   sent `interrupted`.
    @inlinable
    func observe(_ observer: Observer) -> Disposable? {
        flare_core_retain(raw)
        // The entry is complete before it is published: the observer, and
        // the core retained for the handle (the entry's owner word).
        let entry = flare_entry_new(
            Unmanaged.passRetained(observer).toOpaque(), Unmanaged.passRetained(self).toOpaque()
        )!
        // The handle is made before the entry is published, so that a
        // disposal right after `observe` returns finds the entry still on
        // top of the additions (and takes it back) more often: a drain
        // that splices it in the meantime must take the stack and mark it.
        let handle = _Observation<Value, Error>(entry: entry)
        if flare_core_attach(raw, entry) == FLARE_ATTACHED {
            return handle
        }
        // Terminated: the handle, never returned, holds the last reference
        // to the entry until it goes.
        withExtendedLifetime(handle) {
            if flare_entry_claim(entry, UInt32(FLARE_ENTRY_DONE)) {
                observer.sendInterrupted()
                _releaseObserverContext(flare_entry_ctx(entry))
            }
        }
        dropRetainer()
        return nil
    }

    /// Detaches the observer of `entry`; see `flare_entry_dispose`.
    func dispose(_ entry: UnsafeMutablePointer<flare_entry>) {
        switch flare_entry_dispose(raw, entry) {
        case FLARE_DISPOSE_RELEASE:
            _releaseObserverContext(flare_entry_ctx(entry))
            dropRetainer()
        case FLARE_DISPOSE_DEFERRED:
            dropRetainer()
        default:
            break
        }
    }

    /// Drops a retainer (an observer, or the `Signal` handle). When none is
    /// left, nothing can ever observe the signal again, so it is interrupted
    /// and its generator's lifetime ends.
    @usableFromInline
    func dropRetainer() {
        guard flare_core_release(raw) else { return }
        lostLastRetainer()
    }

    /// `dropRetainer`'s rare half, apart so that the common one, reached
    /// from unspecialized code (a disposable's `dispose`), instantiates no
    /// generic metadata.
    @usableFromInline
    @inline(never)
    func lostLastRetainer() {
        if isRoot {
            send(.interrupted)
        } else if flare_core_abandon(raw) {
            if flare_trace_signal_ended_on() { flare_trace_signal_ended(raw, Int32(FLARE_TRACE_ABANDONED), 0) }
            lifetime._end()
        }
    }
}
