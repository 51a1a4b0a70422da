import CFlare
import Synchronization

/// One start of a producer: what its chain of links shares, and the handle
/// `start` returns.
///
/// Starting a producer builds, once, the closures of all its operators (its
/// *links*), from the observer back to the source, and attaches the first
/// to the source's root signal: every link runs inside that root's
/// serialized delivery, so a chain of k operators costs one serialization
/// point and k closures, never k signals.
///
/// Each link's output has a flag, set once a terminal event went through it,
/// after which nothing more goes through: the grammar a derived signal's
/// core enforces for a signal's operators. The flags are touched only inside
/// the root's delivery.
///
/// Disposing the run sends `interrupted` into the root, which overtakes
/// whatever is queued (contract 8) and ends the run's lifetime.
@usableFromInline
class _ProducerRun: Disposable, @unchecked Sendable {
    /// Bit `i` set: link output `i` has delivered its terminal event (index
    /// 0 is the source's own output). Outputs beyond 64 use `overflow`.
    @usableFromInline
    @exclusivity(unchecked)
    final var terminatedBits: UInt64 = 0

    @usableFromInline
    let overflow: UnsafeMutablePointer<Bool>?

    /// The index of the run's last output: the one the observer receives.
    @usableFromInline
    let lastIndex: Int

    private let disposed = Atomic<Bool>(false)

    /// What the chain's `on(starting:started:)` links run around the
    /// source's start (see `addStartHooks`); nil for almost every run. Set
    /// by the links' attach, before the run is handed out; taken when the
    /// run starts.
    @exclusivity(unchecked)
    private var startHooks: _StartHooks?

    /// A start-handler run's own lifetime (`adoptLifetime`), from the start.
    @exclusivity(unchecked)
    private var sourceLifetime: Lifetime?

    /// The lifetime of any other run, made when a link's attach first asks
    /// for it (`lifetime`); ended when the run's source has delivered its
    /// terminal event (`relayEnded`, or when the synchronous run ends).
    @exclusivity(unchecked)
    private var earlyLifetime: (lifetime: Lifetime, token: Lifetime.Token)?

    // The variables above and below are written only before the run is
    // handed out, or inside its serialized delivery (or, for a synchronous
    // run, by whichever thread the state word designates): the state word or
    // the root's serial word orders every access, so Swift's dynamic
    // exclusivity checks, which cost a thread-local lookup per access, are
    // turned off for them.

    /// The run's state word (`_RunState`: idle → starting → live or done,
    /// plus `requested`), which serializes the start of its source against
    /// an interruption from any thread (or from inside a delivery). A
    /// synchronous source holds it (starting) while it sends everything;
    /// a relaying source (`_ActionExecution`, `_DomainRelay`) moves it to
    /// live once what interrupters read is published. A start-handler run
    /// does not use it: its serial word orders its start and interruption
    /// (`_HandlerRun`).
    @usableFromInline
    let state = _RunState()

    /// What kind of source feeds the run.
    @usableFromInline
    enum SourceKind: UInt8 {
        /// A synchronous source: the run is a `_SynchronousRun`, which holds
        /// the source (see there).
        case synchronous
        /// A start handler: the run is a `_HandlerRun`, which serializes
        /// what the handler sends itself, with no root signal (see there).
        case handler
        /// A run whose events are relayed from elsewhere: an `Action`'s
        /// execution (`_ActionExecution`) or a start attached to a
        /// property's or a replay's domain (`_DomainRelay`). No root signal
        /// and no lifetime of its own (see `relayEnded`).
        case relay
    }

    @usableFromInline
    let sourceKind: SourceKind

    /// Whether the source is synchronous (see `SourceKind`).
    @inlinable
    final var isSynchronous: Bool { sourceKind == .synchronous }

    /// How the source is started and interrupted, with the run: a function
    /// made where the run's types are concrete, capturing nothing. For a
    /// synchronous run (`_SynchronousRun`): `interrupt` false, called by the
    /// starter once it holds the state word, runs the source (its events,
    /// then, if `endSynchronousDelivery()` says so, `interrupted`); true,
    /// called by an interrupter that found the run not started, delivers
    /// `interrupted`. Either releases the source and its chain before
    /// returning. For a start-handler run (`_HandlerRun`): false runs the
    /// handler, true sends `interrupted` into the run. For a relaying run
    /// (`_ActionExecution`, `_DomainRelay`): false starts the relay, true
    /// interrupts it.
    ///
    /// A function rather than an overridden method or a closure per start:
    /// a class generic over the run's types would be entered, from here,
    /// through its unspecialized code (generic metadata looked up on every
    /// start), and a closure capturing the relay would be one more object to
    /// retain. A constant, set by the subclass's initializer. Not optional: a function type inside an `Optional` is stored
    /// at the most general abstraction, and storing or calling it would
    /// allocate a reabstraction thunk.
    @usableFromInline
    let sourceEntry: (_ProducerRun, _ interrupt: Bool) -> Void

    @usableFromInline
    init(linkCount: Int, sourceKind: SourceKind, sourceEntry: @escaping (_ProducerRun, _ interrupt: Bool) -> Void) {
        lastIndex = linkCount - 1
        self.sourceKind = sourceKind
        self.sourceEntry = sourceEntry
        if linkCount > 64 {
            let extra = UnsafeMutablePointer<Bool>.allocate(capacity: linkCount - 64)
            extra.initialize(repeating: false, count: linkCount - 64)
            overflow = extra
        } else {
            overflow = nil
        }
    }

    deinit {
        overflow?.deallocate()
    }

    /// A start-handler run's serial word, followed (at `FLARE_CACHE_LINE`)
    /// by a C core that is never observed: it carries the prompt-interrupt
    /// flag the drain protocol's steps read (`flare_queue_kind`,
    /// `flare_drain_next`). One allocation, with the queue limit of a root
    /// signal's word. Freed by `destroySerialBlock`.
    @usableFromInline
    static func makeSerialBlock() -> UnsafeMutableRawPointer {
        let block = UnsafeMutableRawPointer.allocate(
            byteCount: Int(FLARE_CACHE_LINE) + MemoryLayout<flare_core>.stride, alignment: Int(FLARE_CACHE_LINE))
        let serial = block.bindMemory(to: flare_serial.self, capacity: 1)
        flare_serial_init(serial)
        flare_serial_set_limit(serial, QueueLimit.default._events)
        let core = (block + Int(FLARE_CACHE_LINE)).bindMemory(to: flare_core.self, capacity: 1)
        flare_core_init(core, serial)
        flare_core_publish(core)
        return block
    }

    /// Frees a block of `makeSerialBlock`, once nothing can use it.
    @usableFromInline
    static func destroySerialBlock(_ block: UnsafeMutableRawPointer) {
        // Never observed: no context to release.
        flare_core_destroy((block + Int(FLARE_CACHE_LINE)).assumingMemoryBound(to: flare_core.self), nil)
        block.deallocate()
    }

    /// Gives a start-handler run its own lifetime, ended by disposing `end`
    /// (no token: the run ends it when it terminates, or when it goes).
    @usableFromInline
    final func adoptLifetime(endedBy end: CompositeDisposable) {
        sourceLifetime = Lifetime(end)
    }

    /// Whether output `index` has delivered its terminal event.
    @inlinable
    @inline(__always)
    final func isTerminated(_ index: Int) -> Bool {
        if _fastPath(index < 64) { return terminatedBits & (1 &<< UInt64(index)) != 0 }
        return overflow.unsafelyUnwrapped[index - 64]
    }

    @inlinable
    final func markTerminated(_ index: Int) {
        if index < 64 {
            terminatedBits |= 1 &<< UInt64(index)
        } else {
            overflow.unsafelyUnwrapped[index - 64] = true
        }
    }

    // A run whose events are relayed from elsewhere has no root signal and
    // no lifetime of its own: `lifetime` makes one only if asked, and the
    // source ends it with `relayEnded()` once its terminal event has been
    // delivered.

    /// Adds the hooks of an `on(starting:started:)` link: `starting` runs
    /// right before the source starts, `started` right after it returned.
    /// Links attach from the observer back to the source, so a link attached
    /// later is nearer the source: its `starting` runs after, and its
    /// `started` before, those of the links attached earlier, as when each
    /// link's producer starts the next.
    @usableFromInline
    final func addStartHooks(starting: @escaping () -> Void, started: @escaping () -> Void) {
        if let hooks = startHooks {
            let (outerStarting, outerStarted) = (hooks.starting, hooks.started)
            hooks.starting = { outerStarting(); starting() }
            hooks.started = { started(); outerStarted() }
        } else {
            startHooks = _StartHooks(starting: starting, started: started)
        }
    }

    /// A relaying source has delivered its terminal event: ends the run's
    /// lifetime, if one was made. Called where the source delivers (its
    /// deliveries are serialized), as `lifetime` is read.
    @usableFromInline
    final func relayEnded() {
        earlyLifetime?.token.dispose()
    }

    /// The synchronous source has sent its events: releases the state word
    /// and returns whether `interrupted` must still be delivered (an
    /// interruption was requested meanwhile, and the source's output has not
    /// terminated).
    @usableFromInline
    final func endSynchronousDelivery() -> Bool {
        state.endStartDone() && !isTerminated(0)
    }

    /// Runs a synchronous source, unless the run was interrupted before it
    /// started (the interrupter then delivered `interrupted`).
    private final func startSynchronous() {
        guard state.beginStart() else { return }
        sourceEntry(self, false)
        finishSynchronous()
    }

    /// Delivers `event` from a synchronous source to `sink`, unless an
    /// interruption was requested; returns whether the source may send
    /// more. One plain load per event: the source holds the state word for
    /// its whole run, and an interrupter only raises a flag in it.
    @inlinable
    final func emit<Value, Error>(_ event: Signal<Value, Error>.Event, to sink: _ProducerSink<Value, Error>) -> Bool {
        guard !isInterruptRequested else { return false }
        sink.deliverHeld(event)
        return !event.isTerminating
    }

    /// Whether a synchronous source should stop: an interruption (disposal,
    /// or an operator that ended the run) was requested.
    @inlinable
    final var isInterruptRequested: Bool {
        state.isInterruptRequested
    }

    /// Interrupts a synchronous run: at once if its source has not started
    /// (the caller delivers `interrupted`), else by asking the source, which
    /// sees the request before its next event.
    private final func interruptSynchronous() {
        if state.requestInterrupt() == .notStarted {
            sourceEntry(self, true)
            finishSynchronous()
        }
    }

    /// The synchronous run is over (its source and chain are released):
    /// ends its lifetime.
    private final func finishSynchronous() {
        earlyLifetime?.token.dispose()
    }

    /// Runs the source's start handler, unless the run was disposed first
    /// (and, around it, the chain's start hooks: see `startHooks`).
    @usableFromInline
    final func startIfNotDisposed() {
        if _slowPath(startHooks != nil) { return startWithHooks() }
        startSource()
    }

    /// `startIfNotDisposed` for a run whose chain has start hooks: takes
    /// them (so that the run does not keep them), and unless the run was
    /// disposed first, runs `starting` right before the source starts and
    /// `started` right after (once a synchronous source has sent everything).
    @inline(never)
    private final func startWithHooks() {
        let hooks = startHooks.take().unsafelyUnwrapped
        let runsHooks = !isDisposed
        if runsHooks { hooks.starting() }
        startSource()
        if runsHooks { hooks.started() }
    }

    /// Starts the source (which does nothing if the run was disposed first).
    private final func startSource() {
        switch sourceKind {
        case .synchronous: return startSynchronous()
        case .handler:
            // Checks `isDisposed` itself, after releasing the handler.
            return sourceEntry(self, false)
        case .relay:
            guard !isDisposed else { return }
            return sourceEntry(self, false)
        }
    }

    /// The run's lifetime: it ends when the run terminates.
    @usableFromInline
    final var lifetime: Lifetime {
        if let sourceLifetime { return sourceLifetime }
        if let early = earlyLifetime { return early.lifetime }
        let made = Lifetime.make()
        earlyLifetime = made
        return made.lifetime
    }

    /// The last link delivered a terminal event. Unless the source itself
    /// sent it, ends the source: an operator ended the run. Called inside
    /// the run's delivery, so the interruption is delivered right after the
    /// current event, before anything else.
    @usableFromInline
    final func outputTerminated() {
        if !isTerminated(0) { interrupt() }
    }

    /// Interrupts the run (any thread).
    @usableFromInline
    final func interrupt() {
        switch sourceKind {
        case .synchronous: interruptSynchronous()
        case .handler, .relay: sourceEntry(self, true)
        }
    }

    /// Whether `dispose()` has been called.
    @usableFromInline
    final var isDisposed: Bool { disposed.load(ordering: .acquiring) }

    /// Interrupts the run: the observer receives `interrupted` (after the
    /// one delivery already starting on another thread, if any) and the
    /// run's lifetime ends. Idempotent; any thread.
    @usableFromInline
    final func dispose() {
        guard !disposed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        interrupt()
    }
}

/// The start hooks of a run (`_ProducerRun.addStartHooks`).
@usableFromInline
final class _StartHooks {
    @usableFromInline var starting: () -> Void
    @usableFromInline var started: () -> Void

    @usableFromInline
    init(starting: @escaping () -> Void, started: @escaping () -> Void) {
        self.starting = starting
        self.started = started
    }
}
