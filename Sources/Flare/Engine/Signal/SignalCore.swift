import CFlare

/// Owns a serial word: the serialization domain shared by a root signal and
/// every signal derived from it by single-input operators.
@usableFromInline
final class _SerialDomain: @unchecked Sendable {
    @usableFromInline
    let serial: UnsafeMutablePointer<flare_serial>

    init(queueLimit: QueueLimit) {
        serial = allocateLineAligned(flare_serial.self)
        flare_serial_init(serial)
        flare_serial_set_limit(serial, queueLimit._events)
    }

    deinit {
        serial.deallocate()
    }
}

/// Memory for one `T` starting on a `FLARE_CACHE_LINE` (128-byte) boundary,
/// as the C core's layout assumes. Freed with `deallocate()`.
func allocateLineAligned<T>(_: T.Type) -> UnsafeMutablePointer<T> {
    UnsafeMutableRawPointer.allocate(byteCount: MemoryLayout<T>.stride, alignment: Int(FLARE_CACHE_LINE))
        .bindMemory(to: T.self, capacity: 1)
}

/// Releases an observer context handed to the C core as a retained opaque
/// pointer. Observers of every type are released the same way.
@usableFromInline
func _releaseObserverContext(_ ctx: UnsafeMutableRawPointer?) {
    guard let ctx else { return }
    Unmanaged<AnyObject>.fromOpaque(ctx).release()
}

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

    /// Keeps `raw` and `serial`, which every send reads, out of the
    /// 128-byte block of the object's header: every observer's handle
    /// retains its core, so every observe and dispose writes the reference
    /// count there (see `FLARE_CACHE_LINE`).
    @usableFromInline
    let headerGap: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) =
        (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)

    @usableFromInline
    let raw: UnsafeMutablePointer<flare_core>

    @usableFromInline
    let serial: UnsafeMutablePointer<flare_serial>

    /// Keeps the serial word alive for as long as this core uses it.
    @usableFromInline
    let domain: _SerialDomain

    @usableFromInline
    let isRoot: Bool

    /// Ends the generator's lifetime when the signal terminates.
    @usableFromInline
    let lifetimeToken: Lifetime.Token

    /// The generator's lifetime.
    @usableFromInline
    let lifetime: Lifetime

    /// True while `drain` delivers events it took from the serial word:
    /// more of them may be waiting behind the one being delivered, in the
    /// drainer's hands rather than on the word. Read and written only by the
    /// thread holding the word (no dynamic exclusivity checks, as for the
    /// producer runs' state). A multi-input operator's logic reads it to
    /// tell whether anything at all is queued behind the current event
    /// (flatten's inners, `_FlattenEngine.deliverDirectly`).
    @usableFromInline
    @exclusivity(unchecked)
    var drainingBatch = false

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
        let (lifetime, token) = Lifetime.make()
        self.lifetime = lifetime
        self.lifetimeToken = token
    }

    /// Marks the core reachable by other threads: from now on only the
    /// domain's drainer may deliver to it (`flare_core_may_deliver`).
    @inlinable
    func publish() { flare_core_publish(raw) }

    deinit {
        flare_core_destroy(raw, releaseContextThunk)
        raw.deallocate()
    }

    // MARK: Sending (root cores)

    /// Sends `event` into a root signal from any thread.
    ///
    /// If no delivery is in progress, delivers at once on this thread without
    /// allocating; otherwise queues the event behind the delivery in progress
    /// (which may be this thread's own: a reentrant send) and returns. A
    /// value sent from another thread first waits for a slot if the queue
    /// holds the domain's `QueueLimit` (contract 9).
    @inlinable
    func send(_ event: Event) {
        if _fastPath(flare_serial_try_acquire(serial)) {
            deliverAndLeave(event)
        } else {
            sendQueued(event)
        }
    }

    /// Having acquired the serial word: delivers `event`, then either
    /// finishes the termination it caused or releases the word, draining
    /// whatever was queued meanwhile.
    @inlinable
    @inline(__always)
    func deliverAndLeave(_ event: Event) {
        if deliver(event) {
            finishRootTermination(pending: nil)
        } else if let pending = flare_serial_release(serial) {
            drain(pending)
        }
    }

    /// Layout of a queued event: the C node header, then the event.
    @inlinable
    static var payloadOffset: Int {
        let align = MemoryLayout<Event>.alignment
        return (MemoryLayout<flare_node>.stride + align - 1) & ~(align - 1)
    }

    /// The contended or reentrant send: queues `event` behind the drain in
    /// progress. Out of line, but `@inlinable` like everything a drain runs,
    /// so that it is specialized in the caller: generic code here would look
    /// up the event type's metadata at every queued event.
    ///
    /// A value takes a slot of the queue limit first, waiting for one if
    /// the queue is full, unless this thread is the one delivering (a
    /// reentrant send, or one from inside the domain's delivery through an
    /// operator): see `flare_serial_reserve`. Terminal events never wait.
    /// The core decides what to queue (`flare_queue_kind`: drop the event
    /// once the word is closed; for `interrupted`, request prompt
    /// interruption, which the drainer honours before anything still
    /// queued, see `drain`).
    @inlinable
    @inline(never)
    func sendQueued(_ event: Event) {
        let kind = flare_queue_kind(raw, Self.eventClass(event))
        if kind == Int(FLARE_QUEUE_DROP) { return }
        let node = makeNode(event, kind: UInt(bitPattern: kind))
        switch flare_serial_push(serial, node, true) {
        case FLARE_PUSH_QUEUED:
            return
        case FLARE_PUSH_ACQUIRED:
            // The word was idle after all: deliver it ourselves, and give
            // back the slot the node held (we hold the word now).
            let counted = flare_node_is_counted(node)
            let event = takeEvent(node)
            flare_serial_return_own_slot(serial, counted)
            deliverAndLeave(event)
        default:
            destroyEvent(node)
        }
    }

    /// The kind of `event` as the core's protocol tells them apart.
    @inlinable
    static func eventClass(_ event: Event) -> flare_event_class {
        switch event {
        case .value: FLARE_EVENT_VALUE
        case .interrupted: FLARE_EVENT_INTERRUPTED
        case .failed, .completed: FLARE_EVENT_TERMINAL
        }
    }

    /// Bytes of a queued event node: the C header, then the event.
    @inlinable
    static var nodeSize: Int { payloadOffset + MemoryLayout<Event>.size }

    /// A node holding `event`, of kind `FLARE_NODE_EVENT` or, if it holds a
    /// slot of the queue limit, `FLARE_NODE_COUNTED`.
    @inlinable
    func makeNode(_ event: Event, kind: UInt) -> UnsafeMutablePointer<flare_node> {
        Self.makeNode(event, kind: kind, serial: serial)
    }

    /// `makeNode` for a node queued on `serial` (also used by producer runs
    /// that serialize their start handler's sends themselves).
    @inlinable
    static func makeNode(_ event: Event, kind: UInt, serial: UnsafeMutablePointer<flare_serial>) -> UnsafeMutablePointer<flare_node> {
        // The pool's memory is 16-byte aligned, as malloc's; wider events
        // would need another allocator, and no Swift enum of values is wider.
        flarePrecondition(MemoryLayout<Event>.alignment <= 16, "event alignment above 16 bytes")
        let node = flare_node_alloc(Self.nodeSize)!
        node.initialize(to: flare_node(next: nil, kind: kind))
        (UnsafeMutableRawPointer(node) + Self.payloadOffset).bindMemory(to: Event.self, capacity: 1).initialize(to: event)
        #if DEBUG
        if kind == UInt(FLARE_NODE_COUNTED) { flare_serial_debug_note_queued(serial, 1) }
        #endif
        return node
    }

    /// Moves the event out of `node` and frees the node.
    @inlinable
    func takeEvent(_ node: UnsafeMutablePointer<flare_node>) -> Event {
        Self.takeEvent(node, serial: serial)
    }

    /// `takeEvent` for a node that was queued on `serial`.
    @inlinable
    static func takeEvent(_ node: UnsafeMutablePointer<flare_node>, serial: UnsafeMutablePointer<flare_serial>) -> Event {
        #if DEBUG
        if flare_node_is_counted(node) { flare_serial_debug_note_queued(serial, -1) }
        #endif
        let event = (UnsafeMutableRawPointer(node) + Self.payloadOffset).assumingMemoryBound(to: Event.self).move()
        flare_node_free(node, Self.nodeSize)
        return event
    }

    @inlinable
    func destroyEvent(_ node: UnsafeMutablePointer<flare_node>) {
        _ = takeEvent(node)
    }

    /// Delivers the nodes queued behind this drainer, FIFO, until the serial
    /// word is released or the signal terminates, following the core's
    /// verdicts (`flare_drain_next`, flare_drain.h): deliver a node's event,
    /// release the context of an observer disposed during the drain, or
    /// deliver `interrupted` at once when one was sent meanwhile (contract
    /// 8). The core returns the slots of counted nodes (contract 9) once
    /// the node is freed (`flare_drain_taken`), before its delivery.
    @inlinable
    @inline(never)
    func drain(_ first: UnsafeMutablePointer<flare_node>) {
        drainingBatch = true
        var d = flare_drain()
        flare_drain_begin(&d, raw, first)
        while true {
            // `flare_drain_next` releases the word once the batch in hand is
            // done (`d.next` nil): the flag is cleared before that, while
            // this thread still holds the word. Cleared after (a `defer`),
            // it raced with the next holder's `true` and could hide that
            // holder's batch from flatten's direct handover.
            // Written only when it changes: the flag shares a line with
            // fields every sender reads, and a store per event would take
            // that line from them.
            if d.next == nil, drainingBatch { drainingBatch = false }
            switch flare_drain_next(&d) {
            case FLARE_DRAIN_DELIVER:
                if !drainingBatch { drainingBatch = true }
                let event = takeEvent(d.node.unsafelyUnwrapped)
                flare_drain_taken(&d)
                if deliver(event) {
                    finishRootTermination(pending: d.next)
                    return
                }
            case FLARE_DRAIN_RELEASE:
                _releaseObserverContext(d.ctx)
            case FLARE_DRAIN_INTERRUPT:
                destroyEvent(d.node.unsafelyUnwrapped)
                interruptPromptly(pending: d.next)
                return
            default:
                return
            }
        }
    }

    /// An interruption was requested while events were queued: delivers
    /// `interrupted` now, ahead of them, then terminates as after any
    /// terminal event, dropping what is still queued (the interrupter's own
    /// node among it) and completing pending removals. Only a root's drainer
    /// changes a root's lifecycle, and it has not terminated (it would have
    /// closed the word), so the delivery always terminates the core.
    @usableFromInline
    @inline(never)
    func interruptPromptly(pending: UnsafeMutablePointer<flare_node>?) {
        _ = deliver(.interrupted)
        finishRootTermination(pending: pending)
    }

    /// After a root's terminal event: closes the serial word, drops the events
    /// sent after the terminal one, completes pending removals
    /// (`flare_drain_close`, `flare_drain_next_closed`), and ends the
    /// generator's lifetime.
    @usableFromInline
    @inline(never)
    func finishRootTermination(pending: UnsafeMutablePointer<flare_node>?) {
        var d = flare_drain()
        flare_drain_begin(&d, raw, pending)
        flare_drain_close(&d)
        while true {
            switch flare_drain_next_closed(&d) {
            case FLARE_DRAIN_DROP:
                destroyEvent(d.node.unsafelyUnwrapped)
            case FLARE_DRAIN_RELEASE:
                _releaseObserverContext(d.ctx)
            default:
                lifetimeToken.dispose()
                return
            }
        }
    }

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
            lifetimeToken.dispose()
        }
    }
}

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
        if _SignalCore.deliver(event, raw: raw, core: core) { core.lifetimeToken.dispose() }
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
