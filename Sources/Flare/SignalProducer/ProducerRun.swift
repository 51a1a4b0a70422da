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
    /// One flag per link output, index 0 being the source's own.
    @usableFromInline
    let terminated: UnsafeMutablePointer<Bool>

    @usableFromInline
    let linkCount: Int

    private let disposed = Atomic<Bool>(false)

    /// Sends `interrupted` into the root. Set by `connect`, before the run is
    /// handed out.
    private var interruptSource: (() -> Void)?

    /// Runs the source's start handler. Set by `connect`, run once.
    private var startSource: (() -> Void)?

    /// The root signal's lifetime, once connected.
    private var sourceLifetime: Lifetime?

    /// A lifetime handed out before the root existed (a link's attach asked
    /// for it), ended by the root's.
    private var earlyLifetime: (lifetime: Lifetime, token: Lifetime.Token)?

    @usableFromInline
    init(linkCount: Int) {
        self.linkCount = linkCount
        terminated = .allocate(capacity: linkCount)
        terminated.initialize(repeating: false, count: linkCount)
    }

    deinit {
        terminated.deallocate()
    }

    /// Called by the source when it has made its root signal: how to
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

    /// Runs the source's start handler, unless the run was disposed first.
    @usableFromInline
    func startIfNotDisposed() {
        let start = startSource
        startSource = nil
        if !isDisposed { start?() }
    }

    /// The run's lifetime: it ends when the root terminates.
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
    /// the root's delivery, so the interruption is queued behind the
    /// current event and delivered before anything else queued.
    @usableFromInline
    func outputTerminated() {
        if !terminated[0] { interruptSource?() }
    }

    /// Interrupts the run (any thread).
    @usableFromInline
    func interrupt() {
        interruptSource?()
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
        interruptSource?()
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
        guard !run.terminated[index] else { return }
        if event.isTerminating { run.terminated[index] = true }
        action(event)
    }

    @inlinable
    @inline(__always)
    func deliverHeld(value: Value) {
        guard !run.terminated[index] else { return }
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
