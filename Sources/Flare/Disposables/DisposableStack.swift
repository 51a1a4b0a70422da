import Synchronization

/// The lock-free stack of disposables that a `CompositeDisposable` and a
/// `Lifetime` each hold inline, so that neither needs a second object.
///
/// Additions are pushed on an atomic stack; `dispose()` seals it with one
/// exchange and disposes what it took in the order of addition (first
/// added, first disposed). Removed handles are pruned by the additions:
/// once as many nodes were pushed since the last pruning as survived it (at
/// least 32), the next addition drops the removed ones, so a long-lived
/// stack with many add/remove cycles stays within about twice its live
/// additions, plus 32, at O(1) amortized per addition. A removed addition
/// is released when it is pruned, or when the stack is disposed or
/// dropped.
///
/// Which operations may run concurrently: all of them (`add`, a handle's
/// `dispose`, `dispose`, `isDisposed`), from any threads; `deinit` only
/// once nothing else can reach the stack.
struct _DisposableStack: ~Copyable {
    /// A node of the stack, and the handle returned by `add`.
    final class Node: Disposable, @unchecked Sendable {
        let disposable: Disposable
        // Written before the node is published by the stack's CAS (release);
        // read by whoever owns the node after an acquire of the stack.
        var next: Node?
        /// Claimed exactly once: by the handle (removal) or by the stack
        /// (disposal of `disposable`). The node knows nothing of its stack,
        /// which prunes it later (see `prune`): a reference back would have
        /// to be weak, whose side table is one more allocation per stack,
        /// and every run's lifetime is one.
        let claimed = Atomic<Bool>(false)

        init(_ disposable: Disposable) {
            self.disposable = disposable
        }

        var isDisposed: Bool { claimed.load(ordering: .acquiring) }

        /// Removes the disposable from its stack without disposing it.
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

    init() {}

    deinit {
        let bits = head.load(ordering: .acquiring)
        if bits != Self.sealed, bits != 0 {
            // Drop the chain iteratively so a long chain cannot overflow the stack.
            var node: Node? = Unmanaged<Node>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).takeRetainedValue()
            while let n = node { node = n.next; n.next = nil }
        }
    }

    /// Whether `dispose()` has been called. A reader that sees `true` also
    /// sees the disposal's effects (acquire).
    var isDisposed: Bool { head.load(ordering: .acquiring) == Self.sealed }

    /// Adds `disposable`, or disposes it at once if the stack is disposed.
    /// Returns the handle that removes it, or nil if nothing was added.
    ///
    /// - Complexity: O(1): one node pushed with a CAS, retried only when
    ///   another thread changed the stack meanwhile; every pruning bound's
    ///   worth of additions, one O(n) pruning.
    func add(_ disposable: Disposable?) -> Disposable? {
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

    /// Disposes every addition not taken back out, in the order of
    /// addition, on the first call only; later additions are disposed at
    /// once.
    ///
    /// - Complexity: O(n) for the n additions: one exchange seals the
    ///   stack, then each is disposed.
    func dispose() {
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
}
