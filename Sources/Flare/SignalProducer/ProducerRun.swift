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
final class ProducerRun: Disposable, @unchecked Sendable {
    /// Bit `i` set: link output `i` has delivered its terminal event (index
    /// 0 is the source's own output). Outputs beyond 64 use `overflow`.
    @usableFromInline
    @exclusivity(unchecked)
    var terminatedBits: UInt64 = 0

    @usableFromInline
    let overflow: UnsafeMutablePointer<Bool>?

    /// The index of the run's last output: the one the observer receives.
    @usableFromInline
    let lastIndex: Int

    private let disposed = Atomic<Bool>(false)

    /// Sends `interrupted` into the root. Set by `connect`, before the run is
    /// handed out.
    @exclusivity(unchecked)
    private var interruptSource: (() -> Void)?

    /// Runs the source's start handler. Set by `connect`, run once.
    @exclusivity(unchecked)
    private var startSource: (() -> Void)?

    /// The root signal's lifetime, once connected.
    @exclusivity(unchecked)
    private var sourceLifetime: Lifetime?

    /// A lifetime handed out before the root existed (a link's attach asked
    /// for it), or the lifetime of a synchronous run; ended by the root's,
    /// or when the synchronous run ends.
    @exclusivity(unchecked)
    private var earlyLifetime: (lifetime: Lifetime, token: Lifetime.Token)?

    // The variables above and below are written only before the run is
    // handed out, or inside its serialized delivery (or, for a synchronous
    // run, by whichever thread the state word designates): the state word or
    // the root's serial word orders every access, so Swift's dynamic
    // exclusivity checks, which cost a thread-local lookup per access, are
    // turned off for them.

    // A synchronous run (a source that sends all its events inside `start`,
    // on the starting thread: `init(value:)`, a sequence …) has no root
    // signal. Its only concurrency is an interruption from another thread
    // (or from inside a delivery), serialized against the source's
    // deliveries by one state word.

    /// No delivery in progress.
    @usableFromInline static let idle = 0
    /// The source is delivering an event.
    @usableFromInline static let delivering = 1
    /// An interruption arrived during a delivery; the deliverer handles it.
    @usableFromInline static let interruptRequested = 2
    /// The run is over: nothing more is delivered.
    @usableFromInline static let done = 4

    @usableFromInline
    let syncState = Atomic<Int>(0)

    /// Whether the source is synchronous (set by `connectSynchronous`).
    @exclusivity(unchecked)
    private var isSynchronous = false

    /// Delivers `interrupted` to the synchronous source's output.
    @exclusivity(unchecked)
    private var interruptOutput: (() -> Void)?

    @usableFromInline
    init(linkCount: Int) {
        lastIndex = linkCount - 1
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

    /// Whether output `index` has delivered its terminal event.
    @inlinable
    @inline(__always)
    func isTerminated(_ index: Int) -> Bool {
        if _fastPath(index < 64) { return terminatedBits & (1 &<< UInt64(index)) != 0 }
        return overflow.unsafelyUnwrapped[index - 64]
    }

    @inlinable
    func markTerminated(_ index: Int) {
        if index < 64 {
            terminatedBits |= 1 &<< UInt64(index)
        } else {
            overflow.unsafelyUnwrapped[index - 64] = true
        }
    }

    /// Called by a source when it has made its root signal: how to
    /// interrupt it, how to start it, and its lifetime.
    @usableFromInline
    func connect(lifetime: Lifetime, interrupt: @escaping () -> Void, start: @escaping () -> Void) {
        sourceLifetime = lifetime
        interruptSource = interrupt
        startSource = start
        if let early = earlyLifetime {
            lifetime.observeEnded { early.token.dispose() }
            earlyLifetime = nil
        }
    }

    /// Called by a synchronous source: how to deliver `interrupted` to its
    /// output, and how to start it (sending with `emit`).
    @usableFromInline
    func connectSynchronous(interruptOutput: @escaping () -> Void, start: @escaping () -> Void) {
        isSynchronous = true
        self.interruptOutput = interruptOutput
        startSource = start
    }

    /// Begins a synchronous source's deliveries: false if the run was
    /// interrupted before it started.
    @usableFromInline
    func beginSynchronous() -> Bool {
        syncState.compareExchange(expected: Self.idle, desired: Self.delivering, ordering: .acquiring).exchanged
    }

    /// Delivers `event` from a synchronous source to `sink`, unless an
    /// interruption was requested; returns whether the source may send
    /// more. One plain load per event: the source holds the state word for
    /// its whole run, and an interrupter only raises a flag in it.
    @inlinable
    func emit<Value, Error>(_ event: Signal<Value, Error>.Event, to sink: ProducerSink<Value, Error>) -> Bool {
        guard !isInterruptRequested else { return false }
        sink.deliverHeld(event)
        return !event.isTerminating
    }

    /// Whether a synchronous source should stop: an interruption (disposal,
    /// or an operator that ended the run) was requested.
    @inlinable
    var isInterruptRequested: Bool {
        syncState.load(ordering: .acquiring) & Self.interruptRequested != 0
    }

    /// Ends a synchronous source's deliveries: if an interruption arrived
    /// before the source sent its terminal event, delivers `interrupted`
    /// now. The run is then over.
    @usableFromInline
    func endSynchronous() {
        if !syncState.compareExchange(expected: Self.delivering, desired: Self.done, ordering: .acquiringAndReleasing).exchanged {
            syncState.store(Self.done, ordering: .releasing)
            if !isTerminated(0) { interruptOutput?() }
        }
        finishSynchronous()
    }

    /// Interrupts a synchronous run: at once if its source has not started
    /// (the caller delivers `interrupted`), else by asking the source, which
    /// sees the request before its next event.
    private func interruptSynchronous() {
        var state = syncState.load(ordering: .acquiring)
        while true {
            if state & (Self.done | Self.interruptRequested) != 0 { return }
            let desired = state == Self.idle ? Self.done : state | Self.interruptRequested
            let (exchanged, current) = syncState.compareExchange(
                expected: state, desired: desired, ordering: .acquiringAndReleasing)
            if exchanged { break }
            state = current
        }
        if state == Self.idle {
            interruptOutput?()
            finishSynchronous()
        }
    }

    /// The synchronous run is over: ends its lifetime, drops its closures.
    @usableFromInline
    func finishSynchronous() {
        interruptOutput = nil
        earlyLifetime?.token.dispose()
    }

    /// Runs the source's start handler, unless the run was disposed first.
    @usableFromInline
    func startIfNotDisposed() {
        let start = startSource
        startSource = nil
        if !isDisposed { start?() }
    }

    /// The run's lifetime: it ends when the run terminates.
    @usableFromInline
    var lifetime: Lifetime {
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
    func outputTerminated() {
        if !isTerminated(0) { interrupt() }
    }

    /// Interrupts the run (any thread).
    @usableFromInline
    func interrupt() {
        if isSynchronous {
            interruptSynchronous()
        } else {
            interruptSource?()
        }
    }

    /// Whether `dispose()` has been called.
    @usableFromInline
    var isDisposed: Bool { disposed.load(ordering: .acquiring) }

    /// Interrupts the run: the observer receives `interrupted` (after the
    /// one delivery already starting on another thread, if any) and the
    /// run's lifetime ends. Idempotent; any thread.
    @usableFromInline
    func dispose() {
        guard !disposed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        interrupt()
    }
}

/// A link's output inside a producer run: the next link's closure, behind
/// the link's terminated flag.
@usableFromInline
struct ProducerSink<Value, Error: Swift.Error>: EventSink {
    @usableFromInline let action: (Signal<Value, Error>.Event) -> Void
    @usableFromInline let run: ProducerRun
    @usableFromInline let index: Int

    @inlinable
    init(_ action: @escaping (Signal<Value, Error>.Event) -> Void, run: ProducerRun, index: Int) {
        self.action = action
        self.run = run
        self.index = index
    }

    @inlinable
    @inline(__always)
    func deliverHeld(_ event: Signal<Value, Error>.Event) {
        guard !run.isTerminated(index) else { return }
        guard event.isTerminating else { return action(event) }
        run.markTerminated(index)
        action(event)
        if index == run.lastIndex { run.outputTerminated() }
    }

    @inlinable
    @inline(__always)
    func deliverHeld(value: Value) {
        guard !run.isTerminated(index) else { return }
        action(.value(value))
    }

    @inlinable
    @inline(never)
    func deliverHeldOutOfLine(_ event: Signal<Value, Error>.Event) {
        deliverHeld(event)
    }

    @inlinable
    var lifetime: Lifetime { run.lifetime }
}
