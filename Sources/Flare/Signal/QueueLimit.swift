import CFlare

/// How many events a signal may queue behind a delivery in progress before
/// a sender on another thread waits for the delivering thread to catch up
/// (contract 9: bounded memory under overload).
///
/// A send that finds no delivery in progress delivers at once and never
/// queues. A send from another thread that finds one in progress queues its
/// event and returns; once `limit` events are queued, such a sender waits
/// until the delivering thread has taken one off the queue. It waits without
/// a lock: it spins briefly, then yields, then sleeps on the operating
/// system's wait-on-address primitive (a futex on Linux), and is woken in
/// ticket order, so each sender's events keep its order.
///
/// These sends never wait, whatever the limit: a send from the thread that
/// is delivering for the signal (from inside an observer, directly or through
/// operators derived from the signal), a terminal event, and a disposal.
///
/// The limit belongs to the root signal (made by `Signal.init(_:)` or
/// `pipe`) and covers every signal derived from it by single-input
/// operators, which share its delivery. A multi-input operator (`merge`,
/// `combineLatest`, …) feeds an internal signal with the default limit.
///
/// Memory: each queued event is one node of the event's size plus 16 bytes
/// (rounded up to 32 bytes), so `.default` bounds a signal of `Int` values at
/// 64 KB queued at once.
///
/// Sendable: yes (a value).
public struct QueueLimit: Sendable, Hashable, CustomStringConvertible {
    /// The limit in events, or 0 for none.
    @usableFromInline
    let _events: UInt32

    @inlinable
    init(_uncheckedEvents events: UInt32) {
        self._events = events
    }

    /// At most `count` events queued behind a delivery (1 … 2³⁰).
    public static func events(_ count: Int) -> QueueLimit {
        flarePrecondition(count >= 1 && count <= Int(FLARE_SERIAL_MAX_LIMIT),
                     "QueueLimit.events: \(count) is not in 1...\(FLARE_SERIAL_MAX_LIMIT)")
        return QueueLimit(_uncheckedEvents: UInt32(count))
    }

    /// No limit: a sender never waits, and the queue grows for as long as
    /// senders outpace the delivering thread (contract 9's bound does not
    /// hold).
    public static let unbounded = QueueLimit(_uncheckedEvents: 0)

    /// 2,048 events: a burst of that many events passes without any sender
    /// waiting, while what is queued stays at 64 KB for `Int` values and
    /// 512 KB for the largest pooled events (240-byte payloads). The bench's
    /// contention scenario measures throughput against the limit (see the
    /// README).
    public static let `default` = QueueLimit(_uncheckedEvents: 2048)

    /// Whether senders never wait.
    public var isUnbounded: Bool { _events == 0 }

    /// "unbounded", or the limit in events ("2048 events").
    public var description: String { isUnbounded ? "unbounded" : "\(_events) events" }
}
