import CFlare
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Orders a property's writers: one at a time, for an O(1) publish and
/// enqueue, or for the whole closure of `modify`, which is user code and may
/// take as long as it likes. Never held while an observer runs.
///
/// The word `owner` is 0 when the gate is open; otherwise it holds the
/// holder's `flare_thread_tag()` (odd), with `sleepersBit` set once a writer
/// may be asleep waiting for it. Recording the holder also lets a nested
/// `modify` of the same property stop with a message instead of waiting for
/// itself.
///
/// A writer that finds the gate held polls a few times (a `value` set holds
/// it for a few instructions), yields a few times (the holder may share its
/// core), then sleeps: it reads a ticket of the parking
/// spot keyed by the holder's tag (`flare_park.h`), announces itself by
/// setting `sleepersBit` on that same holder's word (a releasing CAS, which
/// fails if the holder has left or changed), and parks on the ticket. The
/// holder leaves with an acquire-release exchange to 0: if it finds
/// `sleepersBit`, it moves its spot forward and wakes every writer parked
/// there, which all try again. The exchange reads the announcement, so the
/// sleeper's ticket load happens before the holder's increment: the futex
/// either sees the new ticket and returns, or is woken by the wake that
/// follows it (no lost wake-up). Thread tags are reused only after a thread
/// exits; writers that share a spot cost each other spurious wake-ups.
/// Checked by Tests/Model/gate.pml.
///
/// Orderings: entering is an acquiring CAS and leaving an acquire-release
/// exchange, so everything a holder did under the gate happens before what
/// the next holder does.
@usableFromInline
struct _WriteGate: ~Copyable {
    @usableFromInline
    let owner = Atomic<UInt>(0)

    /// Set on the holder's word by a writer that is about to sleep.
    @inlinable
    static var sleepersBit: UInt { 2 }

    /// Polls before a waiting writer yields: enough to outlast a `value` set
    /// on another core, far less than a sleep and wake-up.
    @inlinable
    static var polls: Int { 64 }

    /// Yields after the polls, before a waiting writer parks.
    @inlinable
    static var yields: Int { 16 }

    @inlinable
    init() {}

    @inlinable
    func enter(_ operation: StaticString) {
        let me = UInt(flare_thread_tag())
        // Only this thread ever stores `me`: seeing it means holding the gate.
        flarePrecondition(
            owner.load(ordering: .relaxed) & ~Self.sleepersBit != me,
            "\(operation): nested modification of the same property from inside its own modify (exclusive access)")
        if _fastPath(owner.compareExchange(expected: 0, desired: me, ordering: .acquiring).exchanged) { return }
        enterContended(me)
    }

    @inlinable
    @inline(never)
    func enterContended(_ me: UInt) {
        var polled = 0
        while true {
            let seen = owner.load(ordering: .relaxed)
            if seen == 0 {
                if owner.compareExchange(expected: 0, desired: me, ordering: .acquiring).exchanged { return }
                continue
            }
            if polled < Self.polls + Self.yields {
                if polled >= Self.polls { sched_yield() }
                polled += 1
                continue
            }
            let key = UnsafeRawPointer(bitPattern: seen & ~Self.sleepersBit)
            let ticket = flare_park_ticket(key)
            if owner.compareExchange(expected: seen, desired: seen | Self.sleepersBit, ordering: .releasing).exchanged {
                flare_park(key, ticket)
            }
        }
    }

    @inlinable
    func leave() {
        let previous = owner.exchange(0, ordering: .acquiringAndReleasing)
        if previous & Self.sleepersBit != 0 {
            flare_unpark_all(UnsafeRawPointer(bitPattern: previous & ~Self.sleepersBit))
        }
    }
}
