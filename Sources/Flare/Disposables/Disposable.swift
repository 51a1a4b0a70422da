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
/// seals the stack with one exchange and disposes what it took in the order
/// of addition (first added, first disposed), as ReactiveSwift does; so a
/// `Lifetime` runs its `observeEnded` actions in the order they were added.
/// Removed handles are pruned by the additions: once as many nodes were
/// pushed since the last pruning as survived it (at least 32), the next
/// addition drops the removed ones, so a long-lived composite with many
/// add/remove cycles stays within about twice its live additions, plus 32,
/// at O(1) amortized per addition. A removed addition is released when it
/// is pruned, or when the composite is disposed or released.
///
/// Sendable: yes; adding and disposing are lock-free from any thread.
public final class CompositeDisposable: Disposable, @unchecked Sendable {
    /// A node of the stack, and the handle returned by `add`.
    private final class Node: Disposable, @unchecked Sendable {
        let disposable: Disposable
        // Written before the node is published by the stack's CAS (release);
        // read by whoever owns the node after an acquire of the stack.
        var next: Node?
        /// Claimed exactly once: by the handle (removal) or by the composite
        /// (disposal of `disposable`). The node knows nothing of its
        /// composite, which prunes it later (see `prune`): a reference back
        /// would have to be weak, whose side table is one more allocation
        /// per composite, and every run's lifetime is one.
        let claimed = Atomic<Bool>(false)

        init(_ disposable: Disposable) {
            self.disposable = disposable
        }

        var isDisposed: Bool { claimed.load(ordering: .acquiring) }

        /// Removes the disposable from its composite without disposing it.
        func dispose() {
            _ = claimed.exchange(true, ordering: .acquiringAndReleasing)
        }
    }

    private static let sealed: UInt = 1

    /// 0: empty; 1: sealed (disposed); otherwise the retained top `Node`.
    private let head = Atomic<UInt>(0)
    /// Nodes pushed since the last pruning, and how many trigger the next
    /// (the survivors of the last, at least 32): hints that bound memory,
    /// on which nothing else is decided.
    private let unpruned = Atomic<Int>(0)
    private let pruneBound = Atomic<Int>(32)

    /// Whether `dispose()` has been called. A reader that sees `true` also
    /// sees the disposal's effects (acquire).
    public var isDisposed: Bool { head.load(ordering: .acquiring) == Self.sealed }

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

    deinit {
        var bits = head.load(ordering: .acquiring)
        if bits != Self.sealed, bits != 0 {
            // Drop the chain iteratively so a long chain cannot overflow the stack.
            var node: Node? = Unmanaged<Node>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).takeRetainedValue()
            while let n = node { node = n.next; n.next = nil }
            bits = 0
        }
    }

    /// Adds `disposable`; disposes it at once if the composite is disposed.
    ///
    /// Thread-safety: lock-free; call from any thread, concurrently with
    /// other additions, removals and `dispose()`.
    ///
    /// - Complexity: O(1): allocates one node and pushes it with a CAS,
    ///   retried only when another thread changed the stack meanwhile.
    ///   Disposing the returned handle is O(1), but every 32nd removal
    ///   prunes the removed handles from the whole stack, O(n).
    ///
    /// - Returns: A handle whose `dispose()` removes `disposable` again
    ///   without disposing it, or `nil` if nothing was added.
    @discardableResult
    public func add(_ disposable: Disposable?) -> Disposable? {
        guard let disposable else { return nil }
        // Already disposed: no node.
        if isDisposed {
            disposable.dispose()
            return nil
        }
        let node = Node(disposable)
        if !push(chainTop: node, chainBottom: node) {
            disposable.dispose()
            return nil
        }
        let pushed = unpruned.add(1, ordering: .relaxed).newValue
        if pushed >= pruneBound.load(ordering: .relaxed) { prune(pushed) }
        return node
    }

    /// Adds an action to run on disposal.
    @discardableResult
    public func add(_ action: @escaping () -> Void) -> Disposable? {
        add(AnyDisposable(action))
    }

    /// Disposes every disposable added and not taken back out, in the order
    /// of addition, on the first call only. Lock-free, from any thread;
    /// later additions are disposed at once.
    ///
    /// - Complexity: O(n) for the n disposables added: one exchange seals
    ///   the composite, then each is disposed.
    public func dispose() {
        // One exchange seals the stack: later pushes fail and dispose their own
        // node. acquiring: we now own the nodes pushed (released) before.
        let bits = head.exchange(Self.sealed, ordering: .acquiringAndReleasing)
        guard bits != Self.sealed else { return }
        let top: Node? = bits == 0 ? nil : Unmanaged<Node>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).takeRetainedValue()
        // The stack is newest first: reversed in place (no allocation), it
        // is in the order of addition.
        var node = Self.reversed(top)
        while let n = node {
            node = n.next
            n.next = nil
            if !n.claimed.exchange(true, ordering: .acquiringAndReleasing) {
                n.disposable.dispose()
            }
        }
    }

    /// The chain from `top`, linked through `next`, in reverse order; returns
    /// its new top. The caller owns every node of the chain.
    private static func reversed(_ top: Node?) -> Node? {
        var reversed: Node?
        var node = top
        while let n = node {
            node = n.next
            n.next = reversed
            reversed = n
        }
        return reversed
    }

    /// Pushes the chain `top … bottom` (linked through `next`). Returns false,
    /// having pushed nothing, if the stack is sealed.
    private func push(chainTop: Node, chainBottom: Node) -> Bool {
        let topBits = UInt(bitPattern: Unmanaged.passRetained(chainTop).toOpaque())
        var old = head.load(ordering: .relaxed)
        while true {
            if old == Self.sealed {
                Unmanaged<Node>.fromOpaque(UnsafeRawPointer(bitPattern: topBits)!).release()
                return false
            }
            // The bottom's `next` takes over the retain that `head` held on `old`.
            chainBottom.next = old == 0 ? nil : Unmanaged<Node>.fromOpaque(UnsafeRawPointer(bitPattern: old)!).takeUnretainedValue()
            // releasing: publishes the chain's `next` links to the next owner.
            let (done, current) = head.compareExchange(
                expected: old, desired: topBits, ordering: .acquiringAndReleasing)
            if done {
                if old != 0 { Unmanaged<Node>.fromOpaque(UnsafeRawPointer(bitPattern: old)!).release() }
                return true
            }
            old = current
        }
    }

    /// Called by an addition that found `pushed` nodes pushed since the
    /// last pruning, reaching the bound: takes the whole stack, unlinks the
    /// removed nodes (claimed by their handles) and pushes the survivors
    /// back, in their order; the next pruning comes after as many pushes as
    /// survived, at least 32. If the stack changed meanwhile, another
    /// addition prunes later. A concurrent `dispose()` either finds the
    /// nodes in the stack or, if it sealed the stack while they were taken,
    /// the push back fails and they are disposed here: no node is ever lost.
    @inline(never)
    private func prune(_ pushed: Int) {
        let bits = head.load(ordering: .relaxed)
        guard bits != Self.sealed, bits != 0 else { return }
        guard head.compareExchange(expected: bits, desired: 0, ordering: .acquiringAndReleasing).exchanged else { return }
        unpruned.subtract(pushed, ordering: .relaxed)
        // Owned now: filtered in place, newest first, as the stack links it.
        var top: Node?
        var bottom: Node?
        var survivors = 0
        var node: Node? = Unmanaged<Node>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).takeRetainedValue()
        while let n = node {
            node = n.next
            n.next = nil
            // Acquire: pairs with the handle's exchange, so a removed node
            // is dropped only after its remover is done with it.
            if n.claimed.load(ordering: .acquiring) { continue }
            if let last = bottom { last.next = n } else { top = n }
            bottom = n
            survivors += 1
        }
        pruneBound.store(max(32, survivors), ordering: .relaxed)
        guard let top, let bottom else { return }
        if !push(chainTop: top, chainBottom: bottom) {
            // Disposed meanwhile: these are disposed here, oldest first.
            var n = Self.reversed(top)
            while let cur = n {
                n = cur.next
                cur.next = nil
                if !cur.claimed.exchange(true, ordering: .acquiringAndReleasing) { cur.disposable.dispose() }
            }
        }
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
