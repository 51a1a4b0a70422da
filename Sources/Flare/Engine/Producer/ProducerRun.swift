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

    /// The run's lifetime: a start-handler run's from the start
    /// (`makeLifetime`), any other run's once a link's attach first asks
    /// for it (`lifetime`). Ended when the run's source has delivered its
    /// terminal event (`sourceEnded`), or when the run goes. Retained by
    /// hand (released in `deinit`), so that ending it, once per run, calls
    /// it at +0: a class variable read into a local is retained around the
    /// call.
    @exclusivity(unchecked)
    private var ownLifetime: Unmanaged<Lifetime>?

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

    /// The run's source: one function for its two steps, made where the
    /// run's types are concrete (the subclass's initializer), capturing
    /// nothing. Every run follows the same protocol:
    /// - `sourceEntry(run, false)`, *start*: called once, by the thread
    ///   that starts the run (between the chain's start hooks). The source
    ///   starts, unless the run was interrupted first (then it does
    ///   nothing: the interruption has delivered, or will deliver,
    ///   `interrupted`).
    /// - `sourceEntry(run, true)`, *interrupt*: called by `dispose()` (once)
    ///   and when the chain's last link has terminated (`outputTerminated`),
    ///   from any thread, also from inside one of the run's deliveries,
    ///   before, during or after the start. The source ends the run with
    ///   `interrupted` (unless it has terminated): at once if it has not
    ///   started, else promptly (after at most the delivery already under
    ///   way, contract 4), overtaking whatever is queued (contract 8).
    /// Once the source has delivered its terminal event it releases the
    /// chain and ends the run's lifetime (`sourceEnded`).
    ///
    /// The sources: a synchronous one (`_SynchronousRun`: `init(value:)`, a
    /// sequence …) sends everything inside its start, holding the state
    /// word; a start handler (`_HandlerRun`) serializes what it is sent on a
    /// serial word of its own; an action's execution (`_ActionExecution`)
    /// relays its work's run; a property's or a replay's start
    /// (`_DomainRelay`) is fed by the domain it attaches to.
    ///
    /// A function rather than an overridden method or a closure per start:
    /// a class generic over the run's types would be entered, from here,
    /// through its unspecialized code (generic metadata looked up on every
    /// start), and a closure capturing the source would be one more object
    /// to retain. Not optional: a function type inside an `Optional` is
    /// stored at the most general abstraction, and storing or calling it
    /// would allocate a reabstraction thunk.
    @usableFromInline
    let sourceEntry: (_ProducerRun, _ interrupt: Bool) -> Void

    @usableFromInline
    init(linkCount: Int, sourceEntry: @escaping (_ProducerRun, _ interrupt: Bool) -> Void) {
        lastIndex = linkCount - 1
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
        if let ownLifetime {
            ownLifetime._withUnsafeGuaranteedRef { $0._end() }
            ownLifetime.release()
        }
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

    /// Gives a start-handler run its lifetime from the start (the handler
    /// receives it), ended by `sourceEnded` or when the run goes.
    @usableFromInline
    final func makeLifetime() {
        ownLifetime = Unmanaged.passRetained(Lifetime())
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

    /// The source has delivered its terminal event (and released the
    /// chain): ends the run's lifetime, if a link asked for one (a run other
    /// than a start handler's has none of its own: `lifetime` makes it only
    /// if asked). Called where the source delivers (its deliveries are
    /// serialized), as `lifetime` is read.
    @usableFromInline
    final func sourceEnded() {
        ownLifetime?._withUnsafeGuaranteedRef { $0._end() }
    }

    /// The synchronous source has sent its events: releases the state word
    /// and returns whether `interrupted` must still be delivered (an
    /// interruption was requested meanwhile, and the source's output has not
    /// terminated).
    @usableFromInline
    final func endSynchronousDelivery() -> Bool {
        state.endStartDone() && !isTerminated(0)
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

    /// Starts the source (which does nothing if the run was interrupted
    /// first).
    private final func startSource() {
        sourceEntry(self, false)
    }

    /// The run's lifetime: it ends when the run terminates.
    @usableFromInline
    final var lifetime: Lifetime {
        if let ownLifetime { return ownLifetime.takeUnretainedValue() }
        let made = Unmanaged.passRetained(Lifetime())
        ownLifetime = made
        return made.takeUnretainedValue()
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
        sourceEntry(self, true)
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
