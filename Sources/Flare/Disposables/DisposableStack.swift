import Synchronization

/// The lock-free stack of disposables that a `CompositeDisposable` and a
/// `Lifetime` each hold inline, so that neither needs a second object.
///
/// Additions are pushed on an atomic stack; `dispose()` seals it with one
/// CAS and disposes what it holds in the order of addition (first added,
/// first disposed), before it returns. Removed handles are pruned by the
/// additions: once as many nodes were pushed since the last pruning as
/// survived it (at least 32), the next addition unlinks the removed ones
/// in place, so a long-lived stack with many add/remove cycles stays
/// within about twice its live additions, plus 32, at O(1) amortized per
/// addition. A removed addition is released when it is pruned, or when the
/// stack is disposed or dropped.
///
/// The protocol (model-checked by Tests/Model/stack.pml; the orderings are
/// argued in docs/core-algorithm.md's table for this stack):
///
/// - `head` holds the newest node's address (0: none), or-ed with `sealed`
///   (disposed) and `pruning` (a pruner is at work below the node it
///   started from). Only a push changes the address while the stack is
///   open; a push keeps `pruning`.
/// - S1. A node's `state` moves once, from `live`: to `removed` by its
///   handle, or to `taken` by the disposer. Only `removed` nodes are
///   pruned; only `taken` ones are disposed, by the disposer alone.
/// - S2. One pruner at a time (it sets `pruning` from a word with no flag).
///   It never detaches the chain: it only rewrites a kept node's `next` to
///   skip `removed` nodes, which every traversal may skip too, and strings
///   the unlinked nodes on a private garbage list through `aux`, leaving
///   their `next` as it was. A traversal that reached an unlinked node
///   therefore still reaches every node not removed, and the nodes' order
///   is never changed.
/// - S3. The disposer seals `head` (keeping `pruning`); every node pushed
///   before is on the chain from the address it took. It takes the `live`
///   ones (S1) newest first, stringing them through `aux` oldest first,
///   and disposes them: it never waits for a pruner, and a pruner never
///   holds a node the disposer needs.
/// - S4. The last of the pruner and the disposer to finish releases the
///   nodes. A pruner that leaves an open stack releases its garbage: a
///   later disposer reads the chain after the pruner's edits and cannot
///   reach it. If the stack was sealed under a pruner, the pruner hands its
///   garbage to the disposer through `head` (`garbage | sealed`), or the
///   disposer, done first, hands the chain to the pruner (`top | sealed |
///   pruning`); whoever takes the other's share releases everything.
///
/// Which operations may run concurrently: all of them (`add`, a handle's
/// `dispose`, `dispose`, `isDisposed`), from any threads; `deinit` only
/// once nothing else can reach the stack. A second `dispose()` that finds
/// the stack sealed returns at once, as ReactiveSwift's does, though the
/// first may still be disposing.
///
/// Concurrency table (who touches what; the atomics' orderings are in
/// docs/core-algorithm.md):
///
/// | field | written by | read by |
/// |---|---|---|
/// | `head` | pushes (CAS), the pruner (CAS, its `pruning` flag and hand-over), the disposer (sealing CAS, hand-over) | everyone |
/// | node `next` | its pusher before publishing it; then the pruner (S2) | the pruner, the disposer, whoever releases the chain |
/// | node `aux` | the pruner (its garbage), the disposer (the nodes it took): disjoint by S1 | the same thread, or the one it hands over to (S4) |
/// | node `state` | its handle, the disposer (CAS from `live`) | the pruner, `isDisposed` |
/// | `unpruned`, `pruneBound` | additions, the pruner | additions (hints only) |
struct _DisposableStack: ~Copyable {
    /// A node of the stack, and the handle returned by `add`.
    final class Node: Disposable, @unchecked Sendable {
        static let live: UInt8 = 0
        static let removed: UInt8 = 1
        static let taken: UInt8 = 2

        let disposable: Disposable
        /// The next older node's address (0: the bottom), holding one
        /// reference to it. Atomic: the disposer may read it while the
        /// pruner rewrites it (S2).
        let next = Atomic<UInt>(0)
        /// A private link, never followed by a reference count: the
        /// pruner's garbage list, or the disposer's list of what it took.
        var aux: UInt = 0
        /// `live`, then `removed` or `taken` for good (S1). The node knows
        /// nothing of its stack, which prunes it later: a reference back
        /// would have to be weak, whose side table is one more allocation
        /// per stack, and every run's lifetime is one.
        let state = Atomic<UInt8>(Node.live)

        init(_ disposable: Disposable) {
            self.disposable = disposable
        }

        var isDisposed: Bool { state.load(ordering: .acquiring) != Node.live }

        /// Removes the disposable from its stack without disposing it; too
        /// late if the stack's disposal has taken it.
        func dispose() {
            _ = state.compareExchange(
                expected: Node.live, desired: Node.removed, ordering: .acquiringAndReleasing)
        }
    }

    private static let sealed: UInt = 1
    private static let pruning: UInt = 2
    private static let flags: UInt = 3

    private let head = Atomic<UInt>(0)
    /// Nodes pushed since the last pruning, and how many trigger the next
    /// (the survivors of the last, at least 32): hints that bound memory,
    /// on which nothing else is decided. 32 bits each, so that a lifetime
    /// (16 bytes of stack) and its object stay within one allocator class.
    private let unpruned = Atomic<Int32>(0)
    private let pruneBound = Atomic<Int32>(32)

    init() {}

    deinit {
        // A pruner runs inside an addition and a disposer inside dispose(),
        // each on a living owner: both are done. A sealed stack's nodes were
        // released by whichever finished last (S4).
        let bits = head.load(ordering: .acquiring)
        if bits & Self.sealed == 0 { Self.releaseChain(bits & ~Self.flags) }
    }

    /// Whether `dispose()` has been called (its disposals may still be under
    /// way on another thread).
    var isDisposed: Bool { head.load(ordering: .acquiring) & Self.sealed != 0 }

    /// Adds `disposable`, or disposes it at once if the stack is disposed.
    /// Returns the handle that removes it, or nil if nothing was added.
    ///
    /// - Complexity: O(1): one node pushed with a CAS, retried only when
    ///   another thread changed the stack meanwhile; every pruning bound's
    ///   worth of additions, one O(n) pruning.
    func add(_ disposable: Disposable?) -> Disposable? {
        guard let disposable else { return nil }
        var old = head.load(ordering: .relaxed)
        // Already disposed: no node.
        if old & Self.sealed != 0 {
            disposable.dispose()
            return nil
        }
        let node = Node(disposable)
        let bits = Self.bits(Unmanaged.passRetained(node))
        while true {
            if old & Self.sealed != 0 {
                Self.node(bits).release()
                disposable.dispose()
                return nil
            }
            // The node's `next` takes over the reference `head` held on the
            // old top; `old` is never dereferenced here, so a top released
            // meanwhile costs nothing but a failed CAS.
            node.next.store(old & ~Self.flags, ordering: .relaxed)
            // releasing: publishes the node (its `next`, its disposable).
            let (done, current) = head.compareExchange(
                expected: old, desired: bits | (old & Self.pruning),
                successOrdering: .releasing, failureOrdering: .relaxed)
            if done { break }
            old = current
        }
        let pushed = unpruned.add(1, ordering: .relaxed).newValue
        if pushed >= pruneBound.load(ordering: .relaxed) { prune(pushed) }
        return node
    }

    /// Disposes every addition not taken back out, in the order of
    /// addition, on the first call only, and returns once all of them are
    /// disposed; later additions are disposed at once.
    ///
    /// - Complexity: O(n) for the n additions: one CAS seals the stack,
    ///   then each is taken and disposed.
    func dispose() {
        var old = head.load(ordering: .relaxed)
        while true {
            if old & Self.sealed != 0 { return }
            // acquiring: we now own the nodes pushed (released) before. The
            // `pruning` flag stays: the pruner sees the seal when it leaves.
            let (done, current) = head.compareExchange(
                expected: old, desired: Self.sealed | (old & Self.pruning),
                successOrdering: .acquiring, failureOrdering: .relaxed)
            if done { break }
            old = current
        }
        let top = old & ~Self.flags
        // Take the live nodes, newest first; each taken one is put in front
        // of `taken`, which thus lists them oldest first (S3).
        var taken: UInt = 0
        var at = top
        while at != 0 {
            let current = at
            at = Self.node(current)._withUnsafeGuaranteedRef { n in
                if n.state.compareExchange(
                    expected: Node.live, desired: Node.taken, ordering: .acquiringAndReleasing
                ).exchanged {
                    n.aux = taken
                    taken = current
                }
                return n.next.load(ordering: .relaxed)
            }
        }
        while taken != 0 {
            taken = Self.node(taken)._withUnsafeGuaranteedRef { n in
                n.disposable.dispose()
                return n.aux
            }
        }
        if old & Self.pruning == 0 {
            Self.releaseChain(top)
        } else {
            releaseAfterPruner(top)
        }
    }

    /// The disposer's end when it sealed the stack under a pruner (S4): hand
    /// the chain from `top` to the pruner if it is still at work, or take
    /// the garbage it handed over and release everything.
    private func releaseAfterPruner(_ top: UInt) {
        var old = head.load(ordering: .relaxed)
        while old & Self.pruning != 0 {
            // releasing: the pruner that takes the chain releases it after
            // everything done here (the disposals, the `aux` links).
            let (done, current) = head.compareExchange(
                expected: old, desired: top | Self.sealed | Self.pruning,
                successOrdering: .releasing, failureOrdering: .relaxed)
            if done { return }
            old = current
        }
        // acquiring: the pruner's garbage list (its `aux` links).
        let garbage = head.exchange(Self.sealed, ordering: .acquiring) & ~Self.flags
        Self.releaseGarbage(garbage)
        Self.releaseChain(top)
    }

    /// Called by an addition that found `pushed` nodes pushed since the
    /// last pruning, reaching the bound: if no other pruner is at work and
    /// the stack is open, unlinks the removed nodes below the top it sees
    /// (kept, as a newer node may link to it), in place (S2); the next
    /// pruning comes after as many pushes as survived, at least 32.
    @inline(never)
    private func prune(_ pushed: Int32) {
        let bits = head.load(ordering: .relaxed)
        guard bits & Self.flags == 0, bits != 0 else { return }
        // acquiring: the nodes pushed so far, and their links.
        guard head.compareExchange(
            expected: bits, desired: bits | Self.pruning,
            successOrdering: .acquiring, failureOrdering: .relaxed
        ).exchanged else { return }
        unpruned.subtract(pushed, ordering: .relaxed)
        var garbage: UInt = 0
        var survivors: Int32 = 1
        var kept = bits
        var at = Self.node(kept)._withUnsafeGuaranteedRef { $0.next.load(ordering: .relaxed) }
        while at != 0 {
            let current = at
            at = Self.node(current)._withUnsafeGuaranteedRef { n in
                let next = n.next.load(ordering: .relaxed)
                // Acquire: pairs with the handle's CAS, so a removed node is
                // released only after its remover is done with it.
                if n.state.load(ordering: .acquiring) == Node.removed {
                    // The kept node's link takes over the reference `n.next`
                    // holds; `n.next` stays as it is for a disposer on `n`.
                    Self.node(kept)._withUnsafeGuaranteedRef { $0.next.store(next, ordering: .relaxed) }
                    n.aux = garbage
                    garbage = current
                } else {
                    kept = current
                    survivors &+= 1
                }
                return next
            }
        }
        pruneBound.store(max(32, survivors), ordering: .relaxed)
        leave(garbage)
    }

    /// The pruner's end (S4): clear `pruning` and release the garbage if
    /// the stack is still open; otherwise release everything if the
    /// disposer handed the chain over, or hand the garbage to the disposer.
    private func leave(_ garbage: UInt) {
        var old = head.load(ordering: .relaxed)
        while true {
            if old & Self.sealed == 0 {
                // releasing: a later disposer, acquiring `head`, reads the
                // links as rewritten and never reaches the garbage.
                let (done, current) = head.compareExchange(
                    expected: old, desired: old & ~Self.pruning,
                    successOrdering: .releasing, failureOrdering: .relaxed)
                if done {
                    Self.releaseGarbage(garbage)
                    return
                }
                old = current
            } else if old & ~Self.flags != 0 {
                // acquiring: the disposer is done with the chain it handed over.
                let chain = head.exchange(Self.sealed, ordering: .acquiring) & ~Self.flags
                Self.releaseGarbage(garbage)
                Self.releaseChain(chain)
                return
            } else {
                // releasing: the garbage's `aux` links, for the disposer.
                let (done, current) = head.compareExchange(
                    expected: old, desired: garbage | Self.sealed,
                    successOrdering: .releasing, failureOrdering: .relaxed)
                if done { return }
                old = current
            }
        }
    }

    @inline(__always)
    private static func bits(_ node: Unmanaged<Node>) -> UInt {
        UInt(bitPattern: node.toOpaque())
    }

    @inline(__always)
    private static func node(_ bits: UInt) -> Unmanaged<Node> {
        Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: bits).unsafelyUnwrapped)
    }

    /// Releases the chain from `top`, linked through `next`, iteratively (a
    /// node's deinit does not follow its link, so a long chain cannot
    /// overflow the stack).
    private static func releaseChain(_ top: UInt) {
        var at = top
        while at != 0 {
            let node = Self.node(at)
            at = node._withUnsafeGuaranteedRef { $0.next.load(ordering: .relaxed) }
            node.release()
        }
    }

    /// Releases the pruner's garbage list from `top`, linked through `aux`.
    private static func releaseGarbage(_ top: UInt) {
        var at = top
        while at != 0 {
            let node = Self.node(at)
            at = node._withUnsafeGuaranteedRef { $0.aux }
            node.release()
        }
    }
}
