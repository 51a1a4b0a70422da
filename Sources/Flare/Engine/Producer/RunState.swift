import Synchronization

/// The state word of one start of a producer whose source is not a signal:
/// who starts it, who delivers `interrupted`, and when it is over. Used by
/// a synchronous run (`_SynchronousRun`), a relayed run (`_DomainRelay`:
/// property producers, `replayLazily`) and an action's execution
/// (`_ActionExecution`). It moves only forward:
///
///     idle ──beginStart──▶ starting ──endStart──▶ live
///       │                     │  └──endStartDone──▶ done
///       └─requestInterrupt──▶ done|requested
///
///     starting, live ──requestInterrupt──▶ (same)|requested
///     live ──finish──▶ live|done            (while `requested` is clear)
///
/// Invariants:
/// - R1. Exactly one of the starter's `beginStart` and an interrupter's
///   `requestInterrupt` from `idle` succeeds: whoever wins delivers what
///   the run gets first; the loser does nothing (the interrupter from
///   `idle` delivers `interrupted` alone, and the start does nothing).
/// - R2. `requested` is set at most once, by the first interrupter that
///   finds the run not over; later interrupters (and those that find
///   `done`) return at once.
/// - R3. An interruption requested while `starting` is carried out by the
///   starter: its `endStart` (or `endStartDone`) fails (or reports it).
/// - R4. A source checks `isInterruptRequested` before each event it
///   delivers and delivers `interrupted` instead once it is set: after
///   `dispose()` returns, at most the delivery already starting lands
///   (contract 4), by coherence on this one word (as an entry's claim,
///   docs/core-algorithm.md §4 step 1).
/// - R5. What the starter publishes before `endStart` (a relay's buffer, an
///   action's work) is seen by an interrupter that reads `live` (release
///   CAS, acquire load).
///
/// Orderings: the rows of `_RunState` in docs/core-algorithm.md §11.
@usableFromInline
struct _RunState: ~Copyable {
    @usableFromInline static var idle: Int { 0 }
    @usableFromInline static var starting: Int { 1 }
    @usableFromInline static var live: Int { 2 }
    @usableFromInline static var done: Int { 4 }
    @usableFromInline static var requested: Int { 8 }

    @usableFromInline
    let word: Atomic<Int>

    @inlinable
    init() { word = Atomic(0) }

    /// What `requestInterrupt` found, and so what its caller must do.
    @usableFromInline
    enum Interrupt {
        /// The run had not started: the caller alone delivers
        /// `interrupted` (the start will do nothing).
        case notStarted
        /// The starter is starting it: it will see the request (R3).
        case starting
        /// The run is live: the caller stops its source.
        case live
        /// Already over, or interrupted by someone else: nothing to do.
        case over
    }

    /// idle → starting: false if the run was interrupted before it started
    /// (the interrupter has delivered `interrupted`).
    @inlinable
    func beginStart() -> Bool {
        word.compareExchange(expected: Self.idle, desired: Self.starting, ordering: .acquiring).exchanged
    }

    /// starting → live, publishing what the starter wrote before: false if
    /// an interruption was requested meanwhile, which the starter must then
    /// carry out (the interrupter left it).
    @inlinable
    func endStart() -> Bool {
        word.compareExchange(expected: Self.starting, desired: Self.live, ordering: .acquiringAndReleasing).exchanged
    }

    /// starting → done, for a start that ends the run itself (a synchronous
    /// source that has sent everything, a disabled action): returns whether
    /// an interruption was requested meanwhile.
    @inlinable
    func endStartDone() -> Bool {
        if word.compareExchange(expected: Self.starting, desired: Self.done, ordering: .acquiringAndReleasing).exchanged {
            return false
        }
        word.store(Self.done | Self.requested, ordering: .releasing)
        return true
    }

    /// Requests the run's interruption (any thread, also from inside one of
    /// its deliveries) and says what the caller must do.
    @inlinable
    func requestInterrupt() -> Interrupt {
        var current = word.load(ordering: .acquiring)
        while true {
            if current & (Self.done | Self.requested) != 0 { return .over }
            let desired = current == Self.idle ? Self.done | Self.requested : current | Self.requested
            let (exchanged, now) = word.compareExchange(
                expected: current, desired: desired, ordering: .acquiringAndReleasing)
            if exchanged { break }
            current = now
        }
        switch current {
        case Self.idle: return .notStarted
        case Self.starting: return .starting
        default: return .live
        }
    }

    /// Whether an interruption was requested (R4). Relaxed: the source acts
    /// on it only by delivering `interrupted` instead of its next event.
    @inlinable
    var isInterruptRequested: Bool {
        word.load(ordering: .relaxed) & Self.requested != 0
    }

    /// The run's terminal event is being delivered by its source: sets
    /// `done`, unless an interruption was requested, so that a later
    /// interrupter returns at once. Returns whether it set it: then no
    /// interrupter holds on to the run's source, nor can one reach it.
    @inlinable
    func finish() -> Bool {
        var current = word.load(ordering: .relaxed)
        while current & Self.requested == 0 {
            let (exchanged, now) = word.compareExchange(
                expected: current, desired: current | Self.done, ordering: .releasing)
            if exchanged { return true }
            current = now
        }
        return false
    }
}
