import CFlare
import Synchronization

// Flattening: a stream of streams into a stream of values.
//
// Every flatten runs on the funnel (`Funnel.swift`). The outer stream's
// events and the events of every inner run it starts are sent, tagged, into
// one internal root signal; the strategy's logic (`_FlattenEngine.handle`)
// runs inside that signal's serialized delivery. Starting, replacing,
// queueing and disposing inners therefore needs no lock, whatever threads
// the inners send from.
//
// Each started inner has a node (`_FlattenInner`), and its events are tagged
// with that node and the generation it serves the inner under. A node is active
// from its start until its inner ends or the strategy drops it (`.latest`
// replaced it, `.race` lost it, the output ended); the logic ignores every
// event of an inactive node, or of an earlier generation (a node serves one
// inner after another), so an event a replaced or losing inner sent before
// the switch, still queued behind it, is never delivered.
//
// An inner is started from inside the internal signal's delivery. What it
// sends synchronously while starting is handed to the logic at once when
// nothing is queued behind the current event (`_FlattenEngine.deliverDirectly`:
// it would be the next event delivered); when something is, that is
// delivered first, in place (`queueStartingEvent`), so the inner's events
// never pile up behind a start that may not end; never inside a delivery
// of the output. `.concat` and
// `.concurrent` start their next inner when the previous one's terminal
// event is handled; when that event was handed over (the inner ended while
// starting), the next inner starts once that start has returned, in the
// loop of `_FlattenEngine.refill`: starts never nest, so a million
// synchronous inners in a row use constant stack, and every inner's events
// may be handed over, so a long synchronous inner started there queues
// nothing.

/// A flatten's state and logic. Every method runs inside the internal
/// signal's serialized delivery, except `disposeAll`, which also runs once
/// the internal signal has closed (after every delivery): no lock.
@usableFromInline
final class _FlattenEngine<Outer, U, E: Swift.Error> {
    @usableFromInline typealias Inner = _FlattenInner<Outer, U, E>

    @usableFromInline let kind: FlattenStrategy._Kind
    @usableFromInline let limit: Int
    @usableFromInline let transform: (Outer) -> SignalProducer<U, E>
    @usableFromInline let downstream: _HeldCore<U, E>
    @usableFromInline let input: Signal<_FlattenTag<Outer, U, E>, Never>.Observer

    /// The internal signal's core, and its serial word.
    @usableFromInline let funnelCore: _SignalCore<_FlattenTag<Outer, U, E>, Never>
    @usableFromInline let serial: UnsafeMutablePointer<flare_serial>

    // Touched only inside the internal signal's serialized delivery (or
    // after it closed): no dynamic exclusivity checks (see `_FlattenInner`).

    /// The active inner runs, newest first.
    @usableFromInline @exclusivity(unchecked) var head: Inner?
    @usableFromInline @exclusivity(unchecked) var activeCount = 0

    /// Inners waiting for a slot (`.concat`, `.concurrent`).
    @usableFromInline @exclusivity(unchecked) var waiting = _FIFO<SignalProducer<U, E>>()

    @usableFromInline @exclusivity(unchecked) var outerCompleted = false

    /// `.race`: a winner was chosen; later inners are not started.
    @usableFromInline @exclusivity(unchecked) var decided = false

    @usableFromInline @exclusivity(unchecked) var isTerminated = false

    /// Set (on any thread) when the producer run this flatten serves
    /// begins to end, before its outer run is disposed: no inner starts
    /// from then on. Disposing the outer first (`merge`, `concat`,
    /// `concurrent`) delivers its `interrupted`, which an operator between
    /// may turn into a value (`materialize`): that value must not start an
    /// inner during the teardown, as ReactiveSwift's ended lifetime refuses
    /// it. Relaxed: only the ending thread's own teardown needs to see it
    /// (program order); another thread that misses it starts an inner that
    /// the teardown's `disposeAll` disposes.
    @usableFromInline let ending = Atomic<Bool>(false)

    /// The inner whose own event ends the flatten (a failure; `.race` and
    /// `.throttle`: an interruption), once inner_ended has reported it:
    /// the `drop` that follows does not report it again as disposed. Set
    /// only while inner_ended is traced.
    @usableFromInline @exclusivity(unchecked) var traceEnding: ObjectIdentifier?

    /// The inner being started (`start`; `_FlattenInner.identity`, or 0),
    /// whose events sent meanwhile may be handled at once
    /// (`deliverDirectly`). Written by the drainer only; atomic (relaxed)
    /// because every inner's observer, on any thread, reads it first.
    @usableFromInline let starting = Atomic<UInt>(0)

    /// The nodes of inners that have left the active list, for the next
    /// starts. A node lives as long as the engine, or until `disposeAll`
    /// once the internal signal has closed: queued events name their node
    /// unretained (see `_FlattenTag`), so a node is never freed while an
    /// event may name it. A spare serves a new inner once no chain holds it
    /// (`reusableNode`). So the engine holds as many nodes as it ever had
    /// active inners at once, plus those still held by the chains of ended
    /// or dropped inners when starts looked. This is the oldest spare; each
    /// holds the next younger one in `next`.
    @usableFromInline @exclusivity(unchecked) var spares: Inner?

    /// The youngest spare.
    @usableFromInline @exclusivity(unchecked) unowned(unsafe) var youngestSpare: Inner?

    /// An event `deliverDirectly` handed over is being handled: no inner
    /// starts meanwhile (see `refill`), and an event sent then is queued.
    @usableFromInline @exclusivity(unchecked) var deliveringDirectly = false

    /// The events queued behind the current one are being delivered in
    /// place, for the inner being started (`queueStartingEvent`): an inner
    /// that one of them would start starts once that start has returned
    /// (`startOrDefer`), and an event sent then is queued.
    @usableFromInline @exclusivity(unchecked) var drainingInPlace = false

    /// `.concat`, `.concurrent`: a slot was freed while an event was handed
    /// over, or while a `refill` loop ran: the start that handed it over
    /// refills once it returns, or the loop goes on (see `refill`).
    @usableFromInline @exclusivity(unchecked) var refillPending = false

    /// A `refill` loop is running: a start inside it leaves refilling to it.
    @usableFromInline @exclusivity(unchecked) var refilling = false

    @inlinable
    init(
        _ strategy: FlattenStrategy, transform: @escaping (Outer) -> SignalProducer<U, E>,
        downstream: _HeldCore<U, E>, input: Signal<_FlattenTag<Outer, U, E>, Never>.Observer,
        funnelCore: _SignalCore<_FlattenTag<Outer, U, E>, Never>
    ) {
        kind = strategy._kind
        if case let .concurrent(limit) = strategy._kind {
            self.limit = limit > UInt(Int.max) ? Int.max : Int(limit)
        } else {
            self.limit = 1
        }
        self.transform = transform
        self.downstream = downstream
        self.input = input
        self.funnelCore = funnelCore
        self.serial = funnelCore.serial
    }

    @inlinable
    func handle(_ tag: _FlattenTag<Outer, U, E>) {
        guard !isTerminated else { return }
        switch tag {
        case let .inner(node, generation, event):
            node._withUnsafeGuaranteedRef { node in
                if node.generation.load(ordering: .relaxed) == generation, node.isActive { innerEvent(event, of: node) }
            }
        case let .outer(event):
            switch event {
            case let .value(value): outerValue(value)
            case let .failed(error): terminate(.failed(error))
            case .completed:
                outerCompleted = true
                completeIfDone()
            case .interrupted: terminate(.interrupted)
            }
        }
    }

    @inlinable
    func outerValue(_ value: Outer) {
        let producer = transform(value)
        // `transform` is user code: it may have ended the output
        // (`disposeAllHeld`).
        guard !isTerminated else { return }
        switch kind {
        case .concurrent:
            if activeCount < limit {
                startOrDefer(producer)
            } else {
                waiting.append(producer)
            }
        case .latest:
            if let current = head { drop(current) }
            // A start deferred before this one is replaced: it never ran.
            if drainingInPlace { waiting = _FIFO() }
            startOrDefer(producer)
        case .race:
            if !decided { startOrDefer(producer) }
        case .throttle:
            if activeCount == 0, waiting.isEmpty { startOrDefer(producer) }
        }
    }

    /// Starts `producer`, or, while queued events are delivered in place
    /// for an inner that is starting (`drainingInPlace`), queues it to start
    /// once that start has returned (`refill`): starts never nest, so what
    /// the new inner sends while starting may be handed over too.
    @inlinable
    func startOrDefer(_ producer: SignalProducer<U, E>) {
        if drainingInPlace {
            waiting.append(producer)
            refillPending = true
        } else {
            start(producer)
        }
    }

    /// Whether `refill` may start the next waiting inner: a slot is free
    /// (`.race`: no inner has won yet).
    @inlinable
    var mayStartWaiting: Bool {
        kind == .race ? !decided : activeCount < limit
    }

    @inlinable
    func innerEvent(_ event: Signal<U, E>.Event, of node: Inner) {
        if kind == .race, !decided { decide(node) }
        switch event {
        case let .value(value):
            downstream.deliverHeld(value: value)
        case .completed:
            if flare_trace_inners_on() { traceInnerEnded(node, how: Int32(FLARE_TRACE_COMPLETED)) }
            innerEnded(node)
        case .interrupted:
            switch kind {
            case .race, .throttle:
                if flare_trace_inners_on() { traceInnerEnded(node, how: Int32(FLARE_TRACE_INTERRUPTED), ending: true) }
                terminate(.interrupted)
            default:
                if flare_trace_inners_on() { traceInnerEnded(node, how: Int32(FLARE_TRACE_INTERRUPTED)) }
                innerEnded(node)
            }
        case let .failed(error):
            if flare_trace_inners_on() { traceInnerEnded(node, how: Int32(FLARE_TRACE_FAILED), ending: true) }
            terminate(.failed(error))
        }
    }

    /// The strategy as inner_started reports it (FLARE_TRACE_MERGE …).
    @usableFromInline
    var traceStrategy: Int32 {
        switch kind {
        case let .concurrent(limit):
            Int32(limit == 1 ? FLARE_TRACE_CONCAT : limit == .max ? FLARE_TRACE_MERGE : FLARE_TRACE_CONCURRENT)
        case .latest: Int32(FLARE_TRACE_LATEST)
        case .race: Int32(FLARE_TRACE_RACE)
        case .throttle: Int32(FLARE_TRACE_THROTTLE)
        }
    }

    /// inner_started for `node`, just made active (traced only).
    @usableFromInline
    @inline(never)
    func traceInnerStarted(_ node: Inner) {
        flare_trace_inner_started(
            funnelCore.raw, Unmanaged.passUnretained(node).toOpaque(),
            UInt64(node.generation.load(ordering: .relaxed)), traceStrategy)
    }

    /// inner_ended for `node`, ended by its own event (`how`) or dropped
    /// (FLARE_TRACE_DISPOSED), once per inner: `ending` marks the event
    /// that ends the whole flatten, whose `dropAll` then skips the node
    /// (`traceEnding`; nodes are reused only while the flatten lives).
    @usableFromInline
    @inline(never)
    func traceInnerEnded(_ node: Inner, how: Int32, ending: Bool = false) {
        if ending {
            traceEnding = ObjectIdentifier(node)
        } else if how == Int32(FLARE_TRACE_DISPOSED), traceEnding == ObjectIdentifier(node) {
            return
        }
        flare_trace_inner_ended(
            funnelCore.raw, Unmanaged.passUnretained(node).toOpaque(),
            UInt64(node.generation.load(ordering: .relaxed)), how)
    }

    /// `.race`: `winner` sent the first event; the others are dropped.
    @usableFromInline
    func decide(_ winner: Inner) {
        decided = true
        // Starts deferred while draining in place lost before they ran.
        waiting = _FIFO()
        dropAll(except: winner)
    }

    /// Drops every active inner but `kept`, oldest first: ReactiveSwift
    /// disposes a flatten's inners in the order they started (it adds them
    /// to a `CompositeDisposable`, which disposes in insertion order). The
    /// list runs newest first, so this walks it back from its end. Dropping
    /// a node unlinks no other (its run's `interrupted` is ignored, or
    /// queued), so the node before it is still listed, held by the list.
    @usableFromInline
    func dropAll(except kept: Inner?) {
        guard var node = head else { return }
        while let older = node.next { node = older }
        while true {
            let newer = node.previous
            // A disposal runs user code, which may have dropped every inner
            // (`disposeAllHeld`): the nodes left are then unlinked.
            if node !== kept, node.isActive { drop(node) }
            guard let newer else { return }
            node = newer
        }
    }

    /// Starts an inner run as an active node. What it sends while
    /// starting is handled at once if nothing is queued (see
    /// `deliverDirectly`), else queued behind the current event. The run is
    /// the node's before it starts, so that an inner dropped while starting
    /// (the output ended by one of its events) is disposed.
    @inlinable
    func start(_ producer: SignalProducer<U, E>) {
        // A step before it ran user code (a disposal dropping an inner, the
        // transform) that may have ended the output (`disposeAllHeld`), or
        // the run is ending (`ending`).
        guard !isTerminated, !ending.load(ordering: .relaxed) else { return }
        let node = reusableNode() ?? Inner(engine: self)
        node.isActive = true
        // The old head moves into the node (`take`: no retain, no release).
        let oldHead = head.take()
        oldHead?.previous = node
        node.next = consume oldHead
        head = node
        activeCount += 1
        if flare_trace_inners_on() { traceInnerStarted(node) }
        let run = producer._makeRun({ [node] event in node.send(event) })
        node.run = run
        let outer = starting.load(ordering: .relaxed)
        starting.store(Inner.identity(node), ordering: .relaxed)
        run.startIfNotDisposed()
        starting.store(outer, ordering: .relaxed)
        if !node.isActive { node.run = nil }
        // The inner ended while starting and freed its slot, or starts were
        // deferred while it started (`startOrDefer`): start the next ones
        // now that this start has returned (see `refill`).
        if refillPending { refill() }
    }

    /// A spare node that no inner's chain holds any more (the engine's is
    /// its only reference: `isKnownUniquelyReferenced`), under a new
    /// generation, or nil. The oldest spares are tried first, two at most;
    /// one still held goes to the back. An inner that ended while starting
    /// has let go of its node by the next start, one that ended on another
    /// thread once its run has terminated there, a dropped one once its run
    /// has delivered its `interrupted`: the oldest spare is almost always
    /// free, and the spares stay as many as the inners active at once.
    ///
    /// Only a node that no chain holds can serve a new inner: an inner
    /// whose chain still holds it could still send, tagged with whatever
    /// generation it reads. Once unique it stays so (every reference is
    /// copied from an existing one), and every event its earlier inners
    /// sent carries the generation before this bump. The acquire
    /// fence pairs with the runtime's releasing decrement of the last
    /// chain's reference, so that the earlier inners' reads of
    /// `generation` happen before the bump here (without it, a late read
    /// could see the new generation, load-buffering).
    @inlinable
    func reusableNode() -> Inner? {
        for _ in 0..<2 {
            // Moves only (`take`): no reference count is touched but the check.
            guard var oldest = spares.take() else { return nil }
            spares = oldest.next.take()
            if spares == nil { youngestSpare = nil }
            if isKnownUniquelyReferenced(&oldest) {
                atomicMemoryFence(ordering: .acquiring)
                oldest.generation.store(oldest.generation.load(ordering: .relaxed) &+ 1, ordering: .relaxed)
                return oldest
            }
            keepSpare(oldest)
        }
        return nil
    }

    /// Adds `node` (off the active list, `next` nil) as the youngest spare.
    @inlinable
    func keepSpare(_ node: Inner) {
        if let youngest = youngestSpare { youngest.next = node } else { spares = node }
        youngestSpare = node
    }

    /// Called by an inner's observer on the thread holding the internal
    /// signal's serial word: handles `event` now, and returns true, if
    /// `node` is the inner being started and nothing is queued behind the
    /// current event, neither on the word (`BUSY`: no node pushed) nor in
    /// the hands of a drain (`holdsTakenEvents`); else returns false and the
    /// caller queues it.
    ///
    /// Why that is the same as queueing it: a queued event would be the next
    /// one delivered, and the engine does nothing after starting an inner
    /// that the event's handling could observe in another order (`start`
    /// is the last step of `outerValue`; `innerEnded` and `completeIfDone`
    /// check `isTerminated` again). The event cannot overtake anything sent
    /// before it: an earlier send, by this thread (program order) or by one
    /// whose push happened before it (the word's coherence), is on the word
    /// or in the batch. And it cannot reenter a delivery of the output:
    /// inners start only from the engine's own steps, never from inside a
    /// downstream delivery, and one event at a time is handed over here
    /// (`deliveringDirectly`). No inner starts while one is handled: a slot
    /// it frees is refilled once the start on the stack returns (`refill`),
    /// as the queued event's handling would have refilled it next, so
    /// `concat`'s chain of synchronous inners runs in one loop, in constant
    /// stack.
    @inlinable
    func deliverDirectly(_ event: Signal<U, E>.Event, of node: Inner) -> Bool {
        guard starting.load(ordering: .relaxed) == Inner.identity(node), !deliveringDirectly, !drainingInPlace,
              !funnelCore.holdsTakenEvents, flare_serial_peek(serial) == UInt(FLARE_SERIAL_BUSY)
        else { return false }
        deliveringDirectly = true
        if !isTerminated, node.isActive { innerEvent(event, of: node) }
        deliveringDirectly = false
        // What the delivery queued behind the current event (a send from
        // the output's observer into the outer or another input) is
        // delivered now, in place, as it would be before the inner's next
        // event (`queueStartingEvent`): an inner it drops, or an end of the
        // output, then stops the inner before its next element, not after
        // it, as in ReactiveSwift.
        if flare_serial_peek(serial) != UInt(FLARE_SERIAL_BUSY) || funnelCore.holdsTakenEvents, mayHandle(node) {
            _ = drainQueuedInPlace()
            if !mayHandle(node) { node.run?.dispose() }
        }
        return true
    }

    /// Delivers in place what is queued on the internal signal's word, up to
    /// what would end it (see `queueStartingEvent`); returns whether the
    /// queue was emptied.
    @inlinable
    func drainQueuedInPlace() -> Bool {
        let engineObserver = UnsafeRawPointer(Unmanaged.passUnretained(funnelCore).toOpaque())
        drainingInPlace = true
        let emptied = funnelCore.drainInPlace(keeping: engineObserver)
        drainingInPlace = false
        return emptied
    }

    /// An event of the inner being started that `deliverDirectly` could not
    /// hand over (something is queued behind the current event): what is
    /// queued is delivered in place, then the event is handed over; or it is
    /// dropped, with the inner's run disposed, if the inner was dropped, the
    /// output has ended, or the internal signal is being interrupted.
    ///
    /// Drain in place (`_SerialDriver.drainInPlace`): this thread holds the
    /// internal signal's word, and will until the start returns; queued
    /// behind the current event, the inner's events would wait for it, all
    /// of them, however many a synchronous inner sends. So the queued
    /// events are delivered here, in their order, as the drain after the
    /// current event would deliver them next (the engine does nothing after
    /// a start that their handling could observe in another order, as for
    /// `deliverDirectly`), and then the inner's event is the next one and
    /// is handed over: the queue holds what other threads sent meanwhile,
    /// never the inner's own events. An inner that one of them would start
    /// waits until this start has returned (`startOrDefer`); one that drops
    /// this inner (`.latest`, `.race`) or ends the output does it here, and
    /// the inner's run, disposed, stops at its next event. Not while an
    /// event is handed over (`deliveringDirectly`: the output's observer is
    /// on the stack, and the inner sent from inside it) or already in place:
    /// then the event is queued behind the current one, as any reentrant
    /// send.
    ///
    /// The drain in place stops before what would end the internal signal
    /// or release the engine's own observer, both in use by the delivery
    /// that started the inner (see `flare_drain_next_in_place`), and leaves
    /// them, with what follows, to the drain after that delivery. The
    /// interruption (the output disposed, or its run's handle, from any
    /// thread) is one: it overtakes whatever is queued (contract 8), but it
    /// is handled only when the current delivery returns, and that delivery
    /// is this start: a synchronous inner that never ends would keep it for
    /// ever, the disposal never reaching the inner. So the inner run is
    /// interrupted here, on the thread that runs it: a synchronous source
    /// sees the request before its next event. The event is dropped: it
    /// would be queued behind the interruption, which drops it. The engine's
    /// observer is removed only once the output has ended, which disposed
    /// the inner. Out of line, off the path of an event handed over
    /// (specialized with the flatten, as the queueing it replaces was).
    @inlinable
    @inline(never)
    func queueStartingEvent(_ event: Signal<U, E>.Event, of node: Inner) {
        if !deliveringDirectly, !drainingInPlace, mayHandle(node) {
            // Until the event can be handed over: another thread may queue
            // more behind the current event while this one delivers.
            while drainQueuedInPlace() {
                if deliverDirectly(event, of: node) { return }
            }
        }
        guard mayHandle(node) else {
            node.run?.dispose()
            return
        }
        input.send(value: node.tagged(event))
    }

    /// Whether an event of `node` sent now may still be handled: the node is
    /// active, the output open, and the internal signal not being
    /// interrupted (relaxed, see `flare_core_interrupt_requested`: read
    /// again at each of the inner's events, it sees the request within a
    /// few of them).
    @inlinable
    func mayHandle(_ node: Inner) -> Bool {
        !isTerminated && node.isActive && !flare_core_interrupt_requested(funnelCore.raw)
    }

    /// Removes `node` from the active list: its events are ignored from now
    /// on.
    @inlinable
    func unlink(_ node: Inner) {
        node.isActive = false
        // The successor moves out of the node into its place (`take`: no
        // retain).
        let next = node.next.take()
        next?.previous = node.previous
        // Kept for a later start (before the list lets it go: a queued
        // event names its node unretained, so the list may hold the only
        // reference); never once the flatten has ended, when the caller
        // holds the node.
        if !isTerminated { keepSpare(node) }
        if let previous = node.previous { previous.next = next } else { head = next }
        node.previous = nil
        activeCount -= 1
    }

    /// Removes `node` and disposes its run.
    @inlinable
    func drop(_ node: Inner) {
        if flare_trace_inners_on() { traceInnerEnded(node, how: Int32(FLARE_TRACE_DISPOSED)) }
        unlink(node)
        let run = node.run
        node.run = nil
        run?.dispose()
    }

    @inlinable
    func innerEnded(_ node: Inner) {
        unlink(node)
        node.run = nil
        if case .concurrent = kind { refill() }
        completeIfDone()
    }

    /// `.concat`, `.concurrent`: starts waiting inners while slots are free.
    ///
    /// The loop that replaces recursion. Called while an event is handed
    /// over (`deliveringDirectly`: an inner ended while starting), it only
    /// notes the free slot, and the start on the stack refills once it
    /// returns; called inside a running loop (a start in it ended its inner
    /// the same way), it leaves the slot to that loop. So inners never
    /// start inside a start: each one starts at the loop's level, where
    /// what it sends synchronously is handed over while nothing is queued,
    /// instead of queued behind the start that would have nested it, which
    /// let a long synchronous inner fill the internal signal's queue.
    @inlinable
    func refill() {
        if deliveringDirectly || drainingInPlace || refilling {
            refillPending = true
            return
        }
        refilling = true
        while !isTerminated, mayStartWaiting, !waiting.isEmpty {
            refillPending = false
            start(waiting.removeFirst())
        }
        refillPending = false
        refilling = false
    }

    @inlinable
    func completeIfDone() {
        if !isTerminated, outerCompleted, activeCount == 0, waiting.isEmpty { terminate(.completed) }
    }

    /// Ends the output with `event`, and disposes every active inner run.
    @usableFromInline
    func terminate(_ event: Signal<U, E>.Event) {
        isTerminated = true
        downstream.deliverHeld(event)
        disposeAll()
    }

    /// Disposes every active inner run, oldest first (`dropAll`), and
    /// forgets the waiting ones and the spare nodes (which hold the engine).
    /// Each run is disposed once: it leaves the list first.
    /// `disposeAll`, at once, if this thread holds the internal signal's
    /// word, else nothing. Called when the run of a flatten's producer
    /// ends (`SignalProducer._flattening`): its output ended or it was
    /// disposed, maybe from inside one of the engine's steps lower on this
    /// thread's stack (an inner's synchronous start, a delivery of the
    /// output). The internal signal's own end, which disposes the inners
    /// too, is queued behind that step: a synchronous inner would run on
    /// until it returns, for ever if it never ends. Disposing the inners
    /// here stops a synchronous inner before its next element, as in
    /// ReactiveSwift. Holding the word, this thread is the only one that
    /// touches the engine, and every step that calls out (user code, a
    /// delivery, a disposal) checks `isTerminated` or the node's
    /// `isActive` when it returns. On another thread the word's holder
    /// handles the internal signal's end after the event it delivers.
    @usableFromInline
    func disposeAllHeld() {
        guard flare_serial_held_by_caller(serial) else { return }
        disposeAll()
    }

    /// The run this flatten serves begins to end (see `ending`).
    @inlinable
    func beginEnding() {
        ending.store(true, ordering: .relaxed)
    }

    @usableFromInline
    func disposeAll() {
        isTerminated = true
        waiting = _FIFO()
        // One at a time: releasing the chain from its end would recurse.
        while let spare = spares.take() { spares = spare.next.take() }
        youngestSpare = nil
        dropAll(except: nil)
    }
}
