import CFlare

// The one Swift driver of a serial word (docs/core-algorithm.md §2, §5a):
// the steps of flare_deliver.h and flare_drain.h (their order: flare.h),
// written once for every object that holds a serial word and delivers its
// events itself: a root signal's core
// (`_SignalCore`, its observer bag behind the word), a start-handler run
// (`_HandlerRun`, one sink behind the word), and through the command
// signal's core, the domains of a property (`_PropertyChannel`) and of a
// replay (`_ReplayDomain`), whose commands are carried out by the thread
// that holds the word.
//
// The protocol they share, as invariants:
//
// W1. Exactly one thread holds the word at a time (§2, S1); it alone calls
//     `deliver`, touches the driver's drainer-private state (the bag's
//     array, a run's sink, a domain's relay lists) and moves the word out
//     of a busy state.
// W2. A thread that has something to do in the domain either takes the idle
//     word (`flare_serial_try_acquire`, or `flare_serial_push` answering
//     `FLARE_PUSH_ACQUIRED`) and does it at once, or queues it as a node
//     behind the holder (`FLARE_PUSH_QUEUED`), which does it before letting
//     go: "run now if idle, else queue behind the delivery"
//     (`send`, `acquireOrQueue`). A value sent while another thread holds
//     the word goes into the sending thread's batch instead of a node of
//     its own (flare_batch.h, `_EventSlot.send`). Nothing waits for the
//     word itself; a value sent from another thread may wait for credits
//     of the queue limit before it queues (`flare_serial_reserve_n`,
//     contract 9), never while holding this word (waits.h); commands never
//     wait.
// W3. The holder leaves only through `flare_serial_release`: what it
//     returns was queued meanwhile and is drained (`drain`) before the word
//     is idle again, in FIFO order, `interrupted` first when one was
//     requested (contract 8). A holder that must hand an event over from
//     inside its own delivery (a flatten's starting inner) first delivers
//     what is queued in place (`drainInPlace`), stopping before an
//     interruption and before the removal of its own entry; what it stops
//     before stays in the drain state and is resumed, still in order,
//     before the holder lets go (`leaveResuming`).
// W4. A terminal event delivered by the holder closes the word
//     (`finishTermination`): events queued after it are dropped, removals
//     completed, and then the driver's own end runs once (`didTerminate`:
//     a root ends its generator's lifetime; a run releases its chain and
//     ends its lifetime).
// W5. The driver adds no atomic operation to those of flare_serial.h,
//     flare_limit.h, flare_deliver.h and flare_drain.h: its orderings are
//     the rows of §11 for those steps.
//
// Everything here is `@inlinable`, so that it is specialized for the
// driver's concrete event type in the caller: generic code would look up
// the event type's metadata at every queued event.

/// Where `acquireOrQueue` put an event.
@usableFromInline
enum _SerialPlace {
    /// The caller holds the serial word: it must do what the event stands
    /// for, then `leave()`.
    case acquired
    /// Behind the delivery in progress, which will deliver it.
    case queued
    /// The word is closed; the event was dropped.
    case closed
}

/// An object that holds a serial word and delivers its events (see the
/// invariants above). Conformers supply the word, the C core whose drain
/// steps the driver follows, the delivery of one event while holding the
/// word, and what happens once the word has closed; the extension supplies
/// sending, queueing, draining and termination.
@usableFromInline
protocol _SerialDriver: AnyObject {
    associatedtype Value
    associatedtype Error: Swift.Error

    /// The serial word.
    var serial: UnsafeMutablePointer<flare_serial> { get }

    /// The C core whose steps the drain follows: a root's bag, or a core
    /// that is never observed and carries only the prompt-interrupt flag.
    var drainCore: UnsafeMutablePointer<flare_core> { get }

    /// Holding the word: delivers `event`; returns whether it was terminal
    /// and ended the driver (the caller then finishes the termination).
    func deliver(_ event: Signal<Value, Error>.Event) -> Bool

    /// The word is closed and nothing queued remains: the driver's own end.
    /// Called once, by the holder that delivered the terminal event.
    func didTerminate()

    /// Holding the word: the state of the drain in progress while it may
    /// hold taken events behind the one being delivered, else nil
    /// (`flare_drain_current`): what `drainInPlace` resumes, and what
    /// flatten's direct handover reads. Only a driver that drains in place
    /// reads it.
    var currentDrain: UnsafeMutablePointer<flare_drain>? { get }
}

extension _SerialDriver {
    /// A driver that never drains in place never has a drain state left
    /// over by one (see `leaveResuming`): nothing to read.
    @inlinable
    var currentDrain: UnsafeMutablePointer<flare_drain>? { nil }

    /// Holding the word: whether events taken from it wait in the hands of
    /// the drain in progress, behind the one being delivered.
    @inlinable
    var holdsTakenEvents: Bool {
        guard let d = currentDrain else { return false }
        return d.pointee.next != nil
    }

    /// Sends `event` from any thread: delivers it at once if the word is
    /// idle, else queues it behind the delivery in progress (which may be
    /// this thread's own: a reentrant send).
    @inlinable
    func send(_ event: Signal<Value, Error>.Event) {
        if _fastPath(flare_serial_try_acquire(serial)) {
            deliverAndLeave(event)
        } else {
            sendQueued(event)
        }
    }

    /// Having acquired the word: delivers `event`, then either finishes the
    /// termination it caused or releases the word, draining what was queued
    /// meanwhile.
    @inlinable
    @inline(__always)
    func deliverAndLeave(_ event: Signal<Value, Error>.Event) {
        let terminated = deliver(event)
        if _slowPath(currentDrain != nil) {
            leaveResuming(terminated: terminated)
        } else if terminated {
            finishTermination(pending: nil)
        } else if let pending = flare_serial_release(serial) {
            drain(pending)
        }
    }

    /// Releases the word taken by `acquireOrQueue` (or by a `send` that
    /// delivered by other means), draining what was queued meanwhile.
    @inlinable
    func leave() {
        if _slowPath(currentDrain != nil) {
            leaveResuming(terminated: false)
        } else if let pending = flare_serial_release(serial) {
            drain(pending)
        }
    }

    /// The leave of a delivery during which a drain in place stopped with
    /// events taken from the word (`drainInPlace`): they were queued before
    /// anything pushed since, so they are drained (or, after a terminal
    /// event, dropped) first, from the drain state left on the heap, which
    /// goes once it is done.
    @inlinable
    @inline(never)
    func leaveResuming(terminated: Bool) {
        let d = currentDrain.unsafelyUnwrapped
        if terminated {
            finishTermination(resuming: d)
        } else {
            drain(resuming: d)
        }
        d.deinitialize(count: 1)
        d.deallocate()
    }

    /// The kind of `event` as the core's protocol tells them apart.
    @inlinable
    static func eventClass(_ event: Signal<Value, Error>.Event) -> flare_event_class {
        switch event {
        case .value: FLARE_EVENT_VALUE
        case .interrupted: FLARE_EVENT_INTERRUPTED
        case .failed, .completed: FLARE_EVENT_TERMINAL
        }
    }

    /// The contended or reentrant send: queues `event` behind the drain in
    /// progress. Out of line, but `@inlinable` like everything a drain runs.
    ///
    /// A value sent while another thread delivers goes into this thread's
    /// batch (`_EventSlot.send`), taking credits of the queue limit in
    /// groups and waiting for them if the queue is full. The queue's order
    /// is still the order of the sends: an event sent after another one's
    /// send returned, on any thread, is delivered after it (the core
    /// appends to a batch only while it is the word's top, flare_batch.h
    /// I4), which per-inner order in flatten's funnel relies on. A value sent by
    /// the thread that is delivering (a reentrant send, or one from inside
    /// the domain's delivery through an operator) is queued in a node of
    /// its own and never waits (see `flare_serial_reserve`); nor do
    /// terminal events. The core decides what to queue (`flare_queue_kind`:
    /// drop the event once the word is closed; for `interrupted`, request
    /// prompt interruption, which the drainer honours before anything
    /// still queued, see `drain`).
    @inlinable
    @inline(never)
    func sendQueued(_ event: Signal<Value, Error>.Event) {
        let serial = serial
        if flare_trace_event_queued_on() {
            flare_trace_event_queued(serial, drainCore, _traceKind(event), flare_serial_held_by_caller(serial))
        }
        // A reentrant send (this thread holds the word) takes the node path
        // without entering the core's batch code, which would answer NODE.
        if case .value = event, !flare_serial_held_by_caller(serial) {
            switch _EventSlot.send(event, serial: serial) {
            case .done, .closed:
                return
            case .acquired(let own):
                deliverAndLeave(own)
                return
            case .node:
                break
            }
        }
        let kind = flare_queue_kind(drainCore, Self.eventClass(event))
        if kind == Int(FLARE_QUEUE_DROP) { return }
        let node = _EventNode.make(event, kind: UInt(bitPattern: kind), serial: serial)
        switch flare_serial_push(serial, node, true) {
        case FLARE_PUSH_QUEUED:
            return
        case FLARE_PUSH_ACQUIRED:
            // The word was idle after all: deliver it ourselves, and give
            // back the slot the node held (we hold the word now).
            let counted = flare_node_is_counted(node)
            let event = _EventNode<Signal<Value, Error>.Event>.take(node, serial: serial)
            flare_serial_return_own_slot(serial, counted)
            deliverAndLeave(event)
        default:
            _EventNode<Signal<Value, Error>.Event>.drop(node, serial: serial)
        }
    }

    /// Takes the word if it is idle (the caller then does what `event`
    /// stands for itself and calls `leave()`), else queues `event` behind
    /// the delivery in progress, which delivers it. The event takes no slot
    /// of the queue limit and never waits: a domain's commands (a change,
    /// an attach, a detach) are queued under a gate or by a thread that may
    /// hold another word. From another thread, into a domain without a
    /// limit, it goes into that thread's batch (`queueBehind`).
    @inlinable
    @inline(__always)
    func acquireOrQueue(_ event: Signal<Value, Error>.Event) -> _SerialPlace {
        if _fastPath(flare_serial_try_acquire(serial)) { return .acquired }
        return queueBehind(event)
    }

    /// `acquireOrQueue` for a caller that found the word busy (or holds it
    /// itself and wants `event` after the current delivery).
    @inlinable
    @inline(never)
    func queueBehind(_ event: Signal<Value, Error>.Event) -> _SerialPlace {
        if flare_trace_event_queued_on() {
            flare_trace_event_queued(serial, drainCore, _traceKind(event), flare_serial_held_by_caller(serial))
        }
        // From another thread than the holder, into a word without a limit
        // (commands never wait for credits), a value goes into this
        // thread's batch, in the order of the sends as a node would be: a
        // property's changes, queued under its gate, stay in gate order.
        if case .value = event, flare_serial_is_unlimited(serial), !flare_serial_held_by_caller(serial) {
            switch _EventSlot.send(event, serial: serial) {
            case .done:
                return .queued
            case .closed:
                return .closed
            case .acquired:
                return .acquired
            case .node:
                break
            }
        }
        let node = _EventNode.make(event, kind: UInt(FLARE_NODE_EVENT), serial: serial)
        switch flare_serial_push(serial, node, true) {
        case FLARE_PUSH_QUEUED:
            return .queued
        case FLARE_PUSH_ACQUIRED:
            _EventNode<Signal<Value, Error>.Event>.drop(node, serial: serial)
            return .acquired
        default:
            _EventNode<Signal<Value, Error>.Event>.drop(node, serial: serial)
            return .closed
        }
    }

    /// Runs `body` now, holding the word, if the word is idle, else queues
    /// `command` behind the delivery in progress, whose delivery of it must
    /// do what `body` does.
    @inlinable
    @inline(__always)
    func perform(_ command: @autoclosure () -> Signal<Value, Error>.Event, _ body: () -> Void) {
        // The command is made only to be queued: building it retains what
        // it carries.
        if _fastPath(flare_serial_try_acquire(serial)) || queueBehind(command()) == .acquired {
            body()
            leave()
        }
    }

    /// Delivers the nodes queued behind this drainer, FIFO, until the word
    /// is released or the driver terminates, following the core's verdicts
    /// (`flare_drain_next`, flare_drain.h): deliver a node's event, release
    /// the context of an observer disposed during the drain, or deliver
    /// `interrupted` at once when one was sent meanwhile (contract 8). The
    /// core returns the slots of counted nodes (contract 9) once the node
    /// is freed (`flare_drain_taken`), before its delivery.
    @inlinable
    @inline(never)
    func drain(_ first: UnsafeMutablePointer<flare_node>) {
        if flare_trace_drain_started_on() { flare_trace_drain_started(serial, drainCore) }
        var d = flare_drain()
        withUnsafeMutablePointer(to: &d) { d in
            // Publishes `d` (`flare_drain_current`) until the release.
            flare_drain_begin(d, drainCore, first)
            drain(resuming: d)
        }
    }

    /// `drain`'s loop over its state `d`, the published one.
    @inlinable
    @inline(__always)
    func drain(resuming d: UnsafeMutablePointer<flare_drain>) {
        let serial = serial
        while true {
            switch flare_drain_next(d) {
            case FLARE_DRAIN_DELIVER:
                let event = _EventNode<Signal<Value, Error>.Event>.take(d.pointee.node.unsafelyUnwrapped, serial: serial)
                flare_drain_taken(d)
                if deliver(event) {
                    finishTermination(resuming: d)
                    return
                }
            case FLARE_DRAIN_DELIVER_SLOT:
                let event = _EventSlot<Signal<Value, Error>.Event>.take(
                    d.pointee.slot.unsafelyUnwrapped, counted: d.pointee.counted, serial: serial)
                flare_drain_taken(d)
                if deliver(event) {
                    finishTermination(resuming: d)
                    return
                }
            case FLARE_DRAIN_RELEASE:
                _releaseObserverContext(d.pointee.ctx)
            case FLARE_DRAIN_INTERRUPT:
                // Before a batch's slot there is no node: the slot stays
                // queued, and the termination drops it.
                if let node = d.pointee.node { _EventNode<Signal<Value, Error>.Event>.drop(node, serial: serial) }
                interruptPromptly(pending: d.pointee.next)
                return
            default:
                return
            }
        }
    }

    /// Drain in place (flare_drain.h): holding the word, from inside the
    /// delivery of an event to the bag whose owner word is `owner`, delivers
    /// what is queued behind it (what the drain in progress holds, then what
    /// was pushed since), in the order `drain` would, keeping the word; the
    /// delivery then goes on, and the drain that follows it finds what was
    /// queued later. Returns true once nothing is queued (the word reads
    /// BUSY). Returns false if it stopped before a step that would end what
    /// the delivery in progress uses (an interruption, a terminal event, the
    /// removal of one of `owner`'s entries): what the drain holds is then
    /// left to the drain that follows the delivery, in the drain loop's
    /// state or, when the holder is in no loop, in a state on the heap that
    /// its leave resumes (`leaveResuming`). Deliveries made here are nested
    /// in the current one, so only a driver whose deliveries allow it calls
    /// this (flatten's funnel, whose one observer is the engine:
    /// `_FlattenEngine.queueStartingEvent`).
    ///
    /// - Complexity: O(n) in the events queued; no allocation unless the
    ///   deliveries allocate, or it stops with events taken outside a drain
    ///   loop (one drain state).
    @inlinable
    @inline(never)
    func drainInPlace(keeping owner: UnsafeRawPointer) -> Bool {
        if let d = currentDrain { return drainInPlace(resuming: d, keeping: owner) }
        guard let first = flare_serial_take_pushed(serial) else { return true }
        var taken = flare_drain()
        let emptied = withUnsafeMutablePointer(to: &taken) { d in
            flare_drain_begin(d, drainCore, first)
            return drainInPlace(resuming: d, keeping: owner)
        }
        if emptied {
            flare_drain_publish(serial, nil)
            return true
        }
        let kept = UnsafeMutablePointer<flare_drain>.allocate(capacity: 1)
        kept.initialize(to: taken)
        flare_drain_publish(serial, kept)
        return false
    }

    /// `drainInPlace`'s loop over the drain state `d`.
    @inlinable
    func drainInPlace(resuming d: UnsafeMutablePointer<flare_drain>, keeping owner: UnsafeRawPointer) -> Bool {
        let serial = serial
        while true {
            switch flare_drain_next_in_place(d, owner) {
            case FLARE_DRAIN_DELIVER:
                let node = d.pointee.node.unsafelyUnwrapped
                guard Self.holdsValue(node) else {
                    flare_drain_put_back(d)
                    return false
                }
                let event = _EventNode<Signal<Value, Error>.Event>.take(node, serial: serial)
                flare_drain_taken(d)
                // A value never ends the driver.
                _ = deliver(event)
            case FLARE_DRAIN_DELIVER_SLOT:
                let event = _EventSlot<Signal<Value, Error>.Event>.take(
                    d.pointee.slot.unsafelyUnwrapped, counted: d.pointee.counted, serial: serial)
                flare_drain_taken(d)
                _ = deliver(event)
            case FLARE_DRAIN_RELEASE:
                _releaseObserverContext(d.pointee.ctx)
            case FLARE_DRAIN_STOP:
                return false
            default:
                return true
            }
        }
    }

    /// Whether the event queued in `node` is a value.
    @inlinable
    static func holdsValue(_ node: UnsafeMutablePointer<flare_node>) -> Bool {
        let payload = UnsafeMutableRawPointer(node) + _EventNode<Signal<Value, Error>.Event>.payloadOffset
        if case .value = payload.assumingMemoryBound(to: Signal<Value, Error>.Event.self).pointee { return true }
        return false
    }

    /// An interruption was requested while events were queued: delivers
    /// `interrupted` now, ahead of them, then terminates as after any
    /// terminal event, dropping what is still queued (the interrupter's own
    /// node among it). Only the holder ends the driver, and it has not
    /// terminated (it would have closed the word), so the delivery always
    /// terminates it.
    @inlinable
    @inline(never)
    func interruptPromptly(pending: UnsafeMutablePointer<flare_node>?) {
        _ = deliver(.interrupted)
        finishTermination(pending: pending)
    }

    /// After the terminal event: closes the word, drops the events sent
    /// after it, completes pending removals (`flare_drain_close`,
    /// `flare_drain_next_closed`), then ends the driver (`didTerminate`).
    @inlinable
    @inline(never)
    func finishTermination(pending: UnsafeMutablePointer<flare_node>?) {
        var d = flare_drain()
        withUnsafeMutablePointer(to: &d) { d in
            flare_drain_begin(d, drainCore, pending)
            finishTermination(resuming: d)
        }
    }

    /// `finishTermination` for a drain state `d` that still holds what was
    /// queued after the terminal event.
    @inlinable
    func finishTermination(resuming d: UnsafeMutablePointer<flare_drain>) {
        let serial = serial
        flare_drain_close(d)
        while true {
            switch flare_drain_next_closed(d) {
            case FLARE_DRAIN_DROP:
                _EventNode<Signal<Value, Error>.Event>.drop(d.pointee.node.unsafelyUnwrapped, serial: serial)
            case FLARE_DRAIN_DROP_SLOT:
                _EventSlot<Signal<Value, Error>.Event>.drop(
                    d.pointee.slot.unsafelyUnwrapped, counted: d.pointee.counted, serial: serial)
            case FLARE_DRAIN_RELEASE:
                _releaseObserverContext(d.pointee.ctx)
            default:
                didTerminate()
                return
            }
        }
    }
}

/// The layout of a queued event: the C node header, then the event.
@usableFromInline
enum _EventNode<Event> {
    @inlinable
    static var payloadOffset: Int {
        let align = MemoryLayout<Event>.alignment
        return (MemoryLayout<flare_node>.stride + align - 1) & ~(align - 1)
    }

    /// Bytes of a queued event node.
    @inlinable
    static var size: Int { payloadOffset + MemoryLayout<Event>.size }

    /// A node holding `event`, of kind `FLARE_NODE_EVENT` or, if it holds a
    /// slot of `serial`'s queue limit, `FLARE_NODE_COUNTED`.
    @inlinable
    static func make(_ event: Event, kind: UInt, serial: UnsafeMutablePointer<flare_serial>) -> UnsafeMutablePointer<flare_node> {
        // The pool's memory is 16-byte aligned, as malloc's; wider events
        // would need another allocator, and no Swift enum of values is wider.
        flarePrecondition(MemoryLayout<Event>.alignment <= 16, "event alignment above 16 bytes")
        let node = flare_node_alloc(size)!
        node.initialize(to: flare_node(next: nil, kind: kind))
        (UnsafeMutableRawPointer(node) + payloadOffset).bindMemory(to: Event.self, capacity: 1).initialize(to: event)
        #if DEBUG
        if kind == UInt(FLARE_NODE_COUNTED) { flare_serial_debug_note_queued(serial, 1) }
        #endif
        return node
    }

    /// Moves the event out of `node`, queued on `serial`, and frees the node.
    @inlinable
    static func take(_ node: UnsafeMutablePointer<flare_node>, serial: UnsafeMutablePointer<flare_serial>) -> Event {
        #if DEBUG
        if flare_node_is_counted(node) { flare_serial_debug_note_queued(serial, -1) }
        #endif
        let event = (UnsafeMutableRawPointer(node) + payloadOffset).assumingMemoryBound(to: Event.self).move()
        flare_node_free(node, size)
        return event
    }

    /// Destroys the event in `node` and frees the node.
    @inlinable
    static func drop(_ node: UnsafeMutablePointer<flare_node>, serial: UnsafeMutablePointer<flare_serial>) {
        _ = take(node, serial: serial)
    }
}

/// What `_EventSlot.send` did with a value.
@usableFromInline
enum _BatchedSend<Event> {
    /// Queued in this thread's batch.
    case done
    /// Dropped: the word is closed.
    case closed
    /// Take the node path: this thread holds the word (a reentrant send,
    /// queued behind the current event), the event is too big for a slot,
    /// or both of this thread's batches for the word are still being
    /// delivered (batch.c `fresh`).
    case node
    /// The word was idle after all: the caller holds it now and delivers
    /// the event itself (`deliverAndLeave`).
    case acquired(Event)
}

/// A queued event in a slot of the sending thread's batch (flare_batch.h).
@usableFromInline
enum _EventSlot<Event> {
    /// A value sent into `serial` while another thread delivers: appended
    /// to this thread's batch for the domain, which the drainer takes
    /// whole, so that the event costs no cache-line transfer of its own.
    /// Takes credits of the queue limit in groups, waiting for them as a
    /// limited sender waits for a slot (contract 9).
    @inlinable
    @inline(never)
    static func send(_ event: Event, serial: UnsafeMutablePointer<flare_serial>) -> _BatchedSend<Event> {
        // Slots are 16-byte aligned, as the pool's nodes (`_EventNode.make`).
        flarePrecondition(MemoryLayout<Event>.alignment <= 16, "event alignment above 16 bytes")
        var tx = flare_batch_send()
        switch flare_batch_begin(serial, MemoryLayout<Event>.size, &tx) {
        case FLARE_BATCH_SLOT:
            break
        case FLARE_BATCH_CLOSED:
            return .closed
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
                return .closed
            }
        }
    }

    /// Moves the event out of a batch's slot (`FLARE_DRAIN_DELIVER_SLOT`);
    /// the slot is the batch's, not freed.
    @inlinable
    static func take(_ slot: UnsafeMutableRawPointer, counted: Bool, serial: UnsafeMutablePointer<flare_serial>) -> Event {
        #if DEBUG
        if counted { flare_serial_debug_note_queued(serial, -1) }
        #endif
        return slot.assumingMemoryBound(to: Event.self).move()
    }

    /// Destroys the event in a batch's slot (`FLARE_DRAIN_DROP_SLOT`).
    @inlinable
    static func drop(_ slot: UnsafeMutableRawPointer, counted: Bool, serial: UnsafeMutablePointer<flare_serial>) {
        _ = take(slot, counted: counted, serial: serial)
    }
}
