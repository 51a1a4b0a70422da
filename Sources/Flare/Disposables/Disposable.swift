import Synchronization

/// A resource that can be released: an observation, a scheduled action, a
/// generator's work.
///
/// Every disposable in Flare is safe to dispose from any thread, any number of
/// times; only the first `dispose()` has an effect.
///
/// Sendable: every disposable is (the protocol requires it): disposing is
/// safe from any thread.
public protocol Disposable: AnyObject, Sendable {
    /// Whether `dispose()` has been called.
    var isDisposed: Bool { get }

    /// Releases the resource. Idempotent and thread-safe.
    ///
    /// Thread-safety: call from any thread, any number of times, also from
    /// inside the work being disposed; only the first call has an effect.
    /// Flare's disposables never wait for work in progress.
    ///
    /// - Complexity: O(1) for Flare's disposables of one resource (an
    ///   observation, a run, a scheduled action), plus the action an
    ///   `AnyDisposable` runs; O(n) for a `CompositeDisposable` of n.
    func dispose()
}

/// A disposable that runs an action exactly once, on the first `dispose()`.
///
/// Thread-safety: lock-free; one atomic exchange decides which caller runs the
/// action.
///
/// Sendable: yes; its action runs once, on the thread that disposes first.
public final class AnyDisposable: Disposable, @unchecked Sendable {
    // Written once in `init`, read and cleared only by the caller that wins
    // `state`'s exchange, so no two threads touch it at once.
    private var action: (() -> Void)?
    private let state = Atomic<Bool>(false)

    /// Whether `dispose()` has been called. A reader that sees `true` also
    /// sees everything the action did (acquire).
    public var isDisposed: Bool { state.load(ordering: .acquiring) }

    /// A disposable that runs `action` when disposed.
    public init(_ action: @escaping () -> Void) {
        self.action = action
    }

    /// A disposable that does nothing but record that it has been disposed.
    public init() {
        self.action = nil
    }

    /// A disposable that forwards disposal to `disposable`.
    public convenience init(_ disposable: Disposable) {
        self.init { disposable.dispose() }
    }

    /// Runs the action, on the first call only. Lock-free, from any thread.
    public func dispose() {
        // acquiring-and-releasing: the winner must see `action` as written by
        // `init`; later `isDisposed` readers must see the effects of disposal.
        guard !state.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let body = action
        action = nil
        body?()
    }
}

/// A disposable that disposes every disposable added to it.
///
/// Adding to a disposed composite disposes the addition at once. `add` returns
/// a handle that takes the addition back out without disposing it.
///
/// Thread-safety: lock-free. Additions are pushed on an atomic stack; disposal
/// seals the stack with one CAS and disposes what it holds in the order of
/// addition (first added, first disposed), as ReactiveSwift does, before
/// `dispose()` returns; so a `Lifetime` runs its `observeEnded` actions in
/// the order they were added. Removed handles are pruned by the additions,
/// in place (a disposal racing a pruning still finds every addition): once
/// as many nodes were pushed since the last pruning as survived it (at
/// least 32), the next addition unlinks the removed ones, so a long-lived
/// composite with many add/remove cycles stays within about twice its live
/// additions, plus 32, at O(1) amortized per addition. A removed addition
/// is released when it is pruned, or when the composite is disposed or
/// released.
///
/// Sendable: yes; adding and disposing are lock-free from any thread.
public final class CompositeDisposable: Disposable, @unchecked Sendable {
    private let stack = _DisposableStack()

    /// Whether `dispose()` has been called (as in ReactiveSwift, `true` as
    /// soon as it is: its disposals may still be under way on the thread
    /// that called it).
    public var isDisposed: Bool { stack.isDisposed }

    /// An empty composite disposable.
    public init() {}

    /// A composite disposable holding `disposables`.
    public convenience init<S: Sequence>(_ disposables: S) where S.Element == Disposable {
        self.init()
        for d in disposables { add(d) }
    }

    /// A composite disposable holding the non-nil `disposables`.
    public convenience init<S: Sequence>(_ disposables: S) where S.Element == Disposable? {
        self.init()
        for d in disposables { add(d) }
    }

    /// Adds `disposable`; disposes it at once if the composite is disposed.
    ///
    /// Thread-safety: lock-free; call from any thread, concurrently with
    /// other additions, removals and `dispose()`.
    ///
    /// - Complexity: O(1): allocates one node and pushes it with a CAS,
    ///   retried only when another thread changed the stack meanwhile.
    ///   Disposing the returned handle is O(1); now and then an addition
    ///   prunes the removed handles from the whole stack, O(n), which is
    ///   O(1) amortized per addition.
    ///
    /// - Returns: A handle whose `dispose()` removes `disposable` again
    ///   without disposing it, or `nil` if nothing was added.
    @discardableResult
    public func add(_ disposable: Disposable?) -> Disposable? {
        stack.add(disposable)
    }

    /// Adds an action to run on disposal.
    @discardableResult
    public func add(_ action: @escaping () -> Void) -> Disposable? {
        stack.add(AnyDisposable(action))
    }

    /// Disposes every disposable added and not taken back out, in the order
    /// of addition, on the first call only, and returns once each addition
    /// made before the call is disposed, whatever other threads are adding
    /// meanwhile. Lock-free, from any thread: it never waits for another
    /// thread. Later additions are disposed at once; a second call that
    /// finds the composite disposed returns at once, as in ReactiveSwift.
    ///
    /// - Complexity: O(n) for the n disposables added: one CAS seals the
    ///   composite, then each is disposed.
    public func dispose() {
        stack.dispose()
    }

    /// Adds `rhs` to `lhs`; see `add(_:)`.
    @discardableResult
    public static func += (lhs: CompositeDisposable, rhs: Disposable?) -> Disposable? {
        lhs.add(rhs)
    }

    /// Adds an action to `lhs`; see `add(_:)`.
    @discardableResult
    public static func += (lhs: CompositeDisposable, rhs: @escaping () -> Void) -> Disposable? {
        lhs.add(rhs)
    }
}

/// A disposable that disposes its inner disposable when it is deinitialized.
///
/// Sendable: yes, as its inner disposable is.
public final class ScopedDisposable<Inner: Disposable>: Disposable, @unchecked Sendable {
    /// The disposable disposed when this one is.
    public let inner: Inner

    /// Whether the inner disposable has been disposed.
    public var isDisposed: Bool { inner.isDisposed }

    /// A scoped disposable that disposes `disposable` when it goes away.
    public init(_ disposable: Inner) {
        inner = disposable
    }

    deinit { inner.dispose() }

    /// Disposes the inner disposable now.
    public func dispose() { inner.dispose() }
}

extension ScopedDisposable where Inner == AnyDisposable {
    /// Wraps any disposable.
    public convenience init(_ disposable: Disposable) {
        self.init(AnyDisposable(disposable))
    }
}

extension ScopedDisposable where Inner == CompositeDisposable {
    /// Adds `rhs` to the inner composite; see `CompositeDisposable.add(_:)`.
    @discardableResult
    public static func += (lhs: ScopedDisposable<CompositeDisposable>, rhs: Disposable?) -> Disposable? {
        lhs.inner.add(rhs)
    }

    /// Adds an action to the inner composite.
    @discardableResult
    public static func += (lhs: ScopedDisposable<CompositeDisposable>, rhs: @escaping () -> Void) -> Disposable? {
        lhs.inner.add(rhs)
    }
}

/// A disposable that holds one inner disposable at a time.
///
/// Setting `inner` disposes the previous inner disposable. Once the serial
/// disposable is disposed, its inner one is disposed and anything set later
/// is disposed at once.
///
/// Thread-safety: the slot is swapped under a short internal lock, and the
/// replaced disposable is disposed after the lock is released, so an inner
/// disposable may itself touch this serial disposable. Reading `inner`
/// needs to retain what it reads, which no single atomic word can do safely,
/// hence the lock; `SerialDisposable` is never on a send path.
///
/// Sendable: yes; setting `inner` and disposing are safe from any thread.
public final class SerialDisposable: Disposable, @unchecked Sendable {
    private struct Slot {
        var inner: Disposable?
        var isDisposed = false
    }

    private let slot: _PThreadMutex<Slot>

    /// Whether `dispose()` has been called.
    public var isDisposed: Bool { slot.withLock { $0.isDisposed } }

    /// A serial disposable holding `disposable`, if any.
    public init(_ disposable: Disposable? = nil) {
        slot = _PThreadMutex(Slot(inner: disposable))
    }

    /// The current inner disposable. Setting it disposes the previous one; on
    /// a disposed serial disposable, the new value is disposed at once.
    public var inner: Disposable? {
        get { slot.withLock { $0.inner } }
        set {
            let replaced: Disposable? = slot.withLock { slot in
                if slot.isDisposed { return newValue }
                defer { slot.inner = newValue }
                return slot.inner
            }
            replaced?.dispose()
        }
    }

    /// Disposes the inner disposable, and every one set from now on.
    public func dispose() {
        let replaced: Disposable? = slot.withLock { slot in
            slot.isDisposed = true
            defer { slot.inner = nil }
            return slot.inner
        }
        replaced?.dispose()
    }
}
