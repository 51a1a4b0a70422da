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
    /// A value sent while another thread delivers goes into this thread's
    /// batch (`sendBatched`), taking credits of the queue limit in groups
    /// and waiting for them if the queue is full. A value sent by the thread
    /// that is delivering (a reentrant send, or one from inside the domain's
    /// delivery through an operator) is queued in a node of its own and
    /// never waits (see `flare_serial_reserve`); nor do terminal events.
    /// The core decides what to queue (`flare_queue_kind`: drop the event
    /// once the word is closed; for `interrupted`, request prompt
    /// interruption, which the drainer honours before anything still
    /// queued, see `drain`).
    @inlinable
    @inline(never)
    func sendQueued(_ event: Event) {
        if case .value = event {
            switch Self.sendBatched(event, serial: serial) {
            case .done:
                return
            case .acquired(let own):
                deliverAndLeave(own)
                return
            case .node:
                break
            }
        }
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

    /// What `sendBatched` did with a value.
    @usableFromInline
    enum BatchedSend {
        /// Queued in this thread's batch, or dropped (the word is closed).
        case done
        /// Take the node path: this thread holds the word (a reentrant
        /// send, queued behind the current event).
        case node
        /// The word was idle after all: the caller holds it now and
        /// delivers the event itself (`deliverAndLeave`).
        case acquired(Event)
    }

    /// A value sent into `serial` while another thread delivers: appended
    /// to this thread's batch for the domain (flare_batch.h), which the
    /// drainer takes whole, so that the event costs no cache-line transfer
    /// of its own. Takes credits of the queue limit in groups, waiting for
    /// them as `flare_queue_kind` does for a slot (contract 9).
    @inlinable
    static func sendBatched(_ event: Event, serial: UnsafeMutablePointer<flare_serial>) -> BatchedSend {
        // Slots are 16-byte aligned, as the pool's nodes (`makeNode`).
        flarePrecondition(MemoryLayout<Event>.alignment <= 16, "event alignment above 16 bytes")
        var tx = flare_batch_send()
        switch flare_batch_begin(serial, MemoryLayout<Event>.size, &tx) {
        case FLARE_BATCH_SLOT:
            break
        case FLARE_BATCH_CLOSED:
            return .done
        default:
            return .node
        }
        tx.slot.unsafelyUnwrapped.bindMemory(to: Event.self, capacity: 1).initialize(to: event)
        while true {
            switch flare_batch_commit(&tx) {
            case FLARE_BATCH_SLOT:
                #if DEBUG
                if tx.batch.unsafelyUnwrapped.pointee.counted { flare_serial_debug_note_queued(serial, 1) }
                #endif
                return .done
            case FLARE_BATCH_MOVE:
                let from = tx.slot.unsafelyUnwrapped.assumingMemoryBound(to: Event.self)
                tx.moved_to.unsafelyUnwrapped.bindMemory(to: Event.self, capacity: 1).moveInitialize(from: from, count: 1)
            case FLARE_BATCH_ACQUIRED:
                let own = tx.slot.unsafelyUnwrapped.assumingMemoryBound(to: Event.self).move()
                flare_batch_return_own_credits(&tx)
                return .acquired(own)
            default:
                tx.slot.unsafelyUnwrapped.assumingMemoryBound(to: Event.self).deinitialize(count: 1)
                return .done
            }
        }
    }

    /// Moves the event out of a batch's slot (`FLARE_DRAIN_DELIVER_SLOT`);
    /// the slot is the batch's, not freed.
    @inlinable
    static func takeSlot(_ slot: UnsafeMutableRawPointer, counted: Bool, serial: UnsafeMutablePointer<flare_serial>) -> Event {
        #if DEBUG
        if counted { flare_serial_debug_note_queued(serial, -1) }
        #endif
        return slot.assumingMemoryBound(to: Event.self).move()
    }

    /// Destroys the event in a batch's slot (`FLARE_DRAIN_DROP_SLOT`).
    @inlinable
    static func dropSlot(_ slot: UnsafeMutableRawPointer, counted: Bool, serial: UnsafeMutablePointer<flare_serial>) {
        _ = takeSlot(slot, counted: counted, serial: serial)
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
            case FLARE_DRAIN_DELIVER_SLOT:
                if !drainingBatch { drainingBatch = true }
                let event = Self.takeSlot(d.slot.unsafelyUnwrapped, counted: d.counted, serial: serial)
                flare_drain_taken(&d)
                if deliver(event) {
                    finishRootTermination(pending: d.next)
                    return
                }
            case FLARE_DRAIN_RELEASE:
                _releaseObserverContext(d.ctx)
            case FLARE_DRAIN_INTERRUPT:
                // Before a batch's slot there is no node: the slot stays
                // queued, and the termination drops it.
                if let node = d.node { destroyEvent(node) }
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
            case FLARE_DRAIN_DROP_SLOT:
                Self.dropSlot(d.slot.unsafelyUnwrapped, counted: d.counted, serial: serial)
            case FLARE_DRAIN_RELEASE:
                _releaseObserverContext(d.ctx)
            default:
                lifetimeToken.dispose()
                return
            }
        }
    }
}
