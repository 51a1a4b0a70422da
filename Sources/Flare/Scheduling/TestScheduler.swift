import Dispatch
import Foundation
import Synchronization

/// A scheduler with a virtual clock, for tests.
///
/// Nothing runs until the clock is moved with `advance`, `advance(by:)`,
/// `advance(to:)` or `run()`; then every action due by the new date runs, on
/// the calling thread, in date order. Actions due at the same date run in the
/// order they were scheduled. While an action runs, `currentDate` is its due
/// date (or the clock's date, if that is later: the clock never moves back
/// while advancing). A repeating action is due again `interval` after its
/// previous due date, so advancing across several intervals runs it once per
/// interval.
///
/// Tasks that sleep on the scheduler or iterate its `timer` (see
/// `DateScheduler`) are driven with the `@MainActor` async overloads of
/// `advance`, `advance(by:)`, `advance(to:)` and `run()`, which an async
/// caller gets by writing `await scheduler.advance(by:)`: they let pending
/// tasks run before the clock moves and after each action. In an async
/// context, Swift resolves `scheduler.advance(...)` to those overloads; the
/// synchronous ones are reached from synchronous code (a synchronous helper
/// function or closure), as in ReactiveSwift.
///
/// Thread-safety: every method may be called from any thread. The queue and
/// the clock are guarded by a mutex, and actions run outside it, so an action
/// may schedule, dispose, advance or rewind on the same scheduler.
///
/// Sendable: yes; its queue is guarded, so actions may be scheduled from
/// any thread, while the clock is moved by the test.
public final class TestScheduler: DateScheduler {
    /// A queued action, and the disposable that cancels it. A repeating
    /// action is one object, requeued after each run.
    private final class Entry: Disposable, @unchecked Sendable {
        // `@unchecked Sendable`: `due` and `sequence` are read and written
        // only under the owning scheduler's mutex; `action` and `state` are
        // immutable; `disposed` is atomic.

        /// The date the action is due. Under the mutex: no dynamic
        /// exclusivity checks.
        @exclusivity(unchecked) var due: Date
        /// Tie-breaker among actions due at the same date: scheduling order.
        @exclusivity(unchecked) var sequence: UInt64 = 0
        /// The repetition interval in seconds, or nil for a one-shot action.
        let interval: TimeInterval?
        let action: () -> Void
        /// The scheduler's queue and clock, held strongly: a weak reference
        /// to the scheduler would cost an atomic operation on its side table
        /// at each schedule, disposal and release. The cycle through the
        /// queue is broken when the scheduler goes (`deinit`).
        let state: _PThreadMutex<State>
        private let disposed = Atomic<Bool>(false)

        init(due: Date, interval: TimeInterval?, state: _PThreadMutex<State>, action: @escaping @Sendable () -> Void) {
            self.due = due
            self.interval = interval
            self.state = state
            self.action = action
        }

        var isDisposed: Bool { disposed.load(ordering: .acquiring) }

        func dispose() {
            guard !disposed.exchange(true, ordering: .acquiringAndReleasing) else { return }
            TestScheduler.remove(self, from: state)
        }

        /// Whether `self` is due strictly before `other`.
        func precedes(_ other: Entry) -> Bool {
            due < other.due || (due == other.due && sequence < other.sequence)
        }
    }

    private struct State {
        var now: Date
        /// Pending actions, sorted by (due, sequence).
        var queue: [Entry] = []
        var nextSequence: UInt64 = 0

        /// Inserts `entry` after every action due at or before its date.
        mutating func enqueue(_ entry: Entry) {
            entry.sequence = nextSequence
            nextSequence += 1
            queue.insert(entry, at: index { $0.precedes(entry) })
        }

        /// The first index whose entry does not satisfy `isBefore` (binary
        /// search; `isBefore` must hold for a prefix of the queue).
        func index(where isBefore: (Entry) -> Bool) -> Int {
            var low = 0
            var high = queue.count
            while low < high {
                let mid = (low + high) / 2
                if isBefore(queue[mid]) { low = mid + 1 } else { high = mid }
            }
            return low
        }
    }

    private let state: _PThreadMutex<State>

    /// A scheduler whose clock starts at `startDate`.
    public init(startDate: Date = Date(timeIntervalSinceReferenceDate: 0)) {
        state = _PThreadMutex(State(now: startDate))
    }

    deinit {
        // The queued actions hold the queue (`Entry.state`): drop them, out
        // of the mutex, as their release may run arbitrary deinitializers.
        let dropped = state.withLock { s in
            let queued = s.queue
            s.queue = []
            return queued
        }
        withExtendedLifetime(dropped) {}
    }

    /// The virtual date.
    public var currentDate: Date {
        state.withLock { $0.now }
    }

    /// The number of actions waiting to run; for tests of the scheduler.
    internal var pendingCount: Int {
        state.withLock { $0.queue.count }
    }

    /// Queues `action` to run at `currentDate`: on the next `advance`.
    ///
    /// - Returns: A disposable that removes the action from the queue.
    @discardableResult
    public func schedule(_ action: @escaping @Sendable () -> Void) -> Disposable? {
        state.withLock { s in
            let entry = Entry(due: s.now, interval: nil, state: state, action: action)
            s.enqueue(entry)
            return entry
        }
    }

    /// Queues `action` to run `delay` after `currentDate`.
    ///
    /// - Returns: A disposable that removes the action from the queue.
    @discardableResult
    public func schedule(after delay: DispatchTimeInterval, action: @escaping @Sendable () -> Void) -> Disposable? {
        state.withLock { s in
            let entry = Entry(due: s.now.addingTimeInterval(delay), interval: nil, state: state, action: action)
            s.enqueue(entry)
            return entry
        }
    }

    /// Queues `action` to run when the clock reaches `date` (on the next
    /// `advance` if `date` is past).
    ///
    /// - Returns: A disposable that removes the action from the queue.
    @discardableResult
    public func schedule(after date: Date, action: @escaping @Sendable () -> Void) -> Disposable? {
        enqueue(Entry(due: date, interval: nil, state: state, action: action))
    }

    /// Queues `action` to run at `date` and again every `interval` of virtual
    /// time. `leeway` is ignored: virtual time is exact.
    ///
    /// - Precondition: `interval` is positive (`.never` runs the action
    ///   once). A zero interval would be due again at the same date forever,
    ///   so no `advance` could return; ReactiveSwift hangs there, Flare stops.
    /// - Returns: A disposable that ends the repetition.
    @discardableResult
    public func schedule(
        after date: Date,
        interval: DispatchTimeInterval,
        leeway: DispatchTimeInterval,
        action: @escaping @Sendable () -> Void
    ) -> Disposable? {
        let seconds = interval.timeInterval
        flarePrecondition(seconds > 0, "TestScheduler needs a positive repetition interval")
        return enqueue(Entry(due: date, interval: seconds.isFinite ? seconds : nil, state: state, action: action))
    }

    /// Advances the clock by one nanosecond, running what is due: in
    /// practice, every action scheduled "now".
    public func advance() {
        advance(by: .nanoseconds(1))
    }

    /// Advances the clock by `interval`, running every action due by then.
    ///
    /// Thread-safety and complexity: see `advance(to:)`.
    ///
    /// - Precondition: `interval` is not negative.
    public func advance(by interval: DispatchTimeInterval) {
        advance(by: interval.timeInterval)
    }

    /// Advances the clock by `interval` seconds, running every action due by
    /// then.
    ///
    /// - Precondition: `interval` is not negative.
    public func advance(by interval: TimeInterval) {
        flarePrecondition(interval >= 0, "TestScheduler.advance(by:) needs a non-negative interval, got \(interval) s; use rewind(by:)")
        advance(to: currentDate.addingTimeInterval(interval))
    }

    /// Advances the clock to `newDate`, running every action due by then, in
    /// order, including actions that those actions schedule for dates up to
    /// `newDate`. Returns when none is left due.
    ///
    /// Thread-safety: call from any thread. The actions run on the calling
    /// thread, outside the scheduler's mutex, so they may schedule, dispose,
    /// advance or rewind on this scheduler.
    ///
    /// - Complexity: O(k · n) for k actions run out of n pending: each is
    ///   taken off the front of the sorted queue, and a repeating one put
    ///   back in place, O(n) each.
    ///
    /// - Precondition: `newDate` is not before `currentDate`.
    public func advance(to newDate: Date) {
        flarePrecondition(newDate >= currentDate, "TestScheduler.advance(to:) needs a date not before \(currentDate), got \(newDate); use rewind(by:)")
        while let entry = nextDue(by: newDate) {
            run(entry)
        }
    }

    /// Runs every queued action, and those they queue, advancing the clock to
    /// `Date.distantFuture`.
    ///
    /// A repeating action that is not disposed keeps being due until then, so
    /// `run()` does not return in practice while one is queued: dispose it
    /// first, or use `advance(to:)`.
    public func run() {
        advance(to: .distantFuture)
    }

    /// Moves the clock back by `interval`, as when the user changes the
    /// device's clock. Queued actions keep their dates.
    ///
    /// - Precondition: `interval` is not negative.
    public func rewind(by interval: DispatchTimeInterval) {
        let seconds = interval.timeInterval
        flarePrecondition(seconds >= 0, "TestScheduler cannot rewind by a negative interval; use advance(by:)")
        state.withLock { $0.now = $0.now.addingTimeInterval(-seconds) }
    }

    // MARK: Queue

    /// Queues `entry`, `interval` seconds after its previous due date if
    /// `interval` is given (a repetition).
    @discardableResult
    private func enqueue(_ entry: Entry, after interval: TimeInterval? = nil) -> Disposable {
        state.withLock { s in
            if let interval { entry.due = entry.due.addingTimeInterval(interval) }
            s.enqueue(entry)
        }
        // Disposed while it was out of the queue being run: `remove` found
        // nothing then, so take it out now.
        if entry.isDisposed { Self.remove(entry, from: state) }
        return entry
    }

    /// Takes the first action due by `date` off the queue and moves the clock
    /// to its due date; or, if none is due, moves the clock to `date` and
    /// returns nil. One critical section, so an action scheduled concurrently
    /// is either taken or scheduled relative to the new date.
    private func nextDue(by date: Date) -> Entry? {
        state.withLock { s in
            guard let first = s.queue.first, first.due <= date else {
                if s.now < date { s.now = date }
                return nil
            }
            s.queue.removeFirst()
            if s.now < first.due { s.now = first.due }
            return first
        }
    }

    /// Runs an entry `nextDue` took off the queue, and requeues it if it
    /// repeats.
    private func run(_ entry: Entry) {
        // A disposal that won the race after the entry left the queue.
        if entry.isDisposed { return }
        entry.action()
        if let interval = entry.interval, !entry.isDisposed {
            enqueue(entry, after: interval)
        }
    }

    private static func remove(_ entry: Entry, from state: _PThreadMutex<State>) {
        state.withLock { s in
            let i = s.index { $0.precedes(entry) }
            if i < s.queue.count, s.queue[i] === entry { s.queue.remove(at: i) }
        }
    }
}

// MARK: - Async advancing

extension TestScheduler {
    /// Advances the clock by one nanosecond, as `advance()` does, letting
    /// pending tasks run first and after each action; see `advance(to:)`.
    @MainActor
    public func advance() async {
        await advance(to: currentDate.addingTimeInterval(0.000_000_001))
    }

    /// Advances the clock by `interval`, as `advance(by:)` does, letting
    /// pending tasks run first and after each action; see `advance(to:)`.
    ///
    /// - Precondition: `interval` is not negative.
    @MainActor
    public func advance(by interval: DispatchTimeInterval) async {
        await advance(by: interval.timeInterval)
    }

    /// Advances the clock by `interval` seconds, as `advance(by:)` does,
    /// letting pending tasks run first and after each action; see
    /// `advance(to:)`.
    ///
    /// - Precondition: `interval` is not negative.
    @MainActor
    public func advance(by interval: TimeInterval) async {
        flarePrecondition(interval >= 0, "TestScheduler.advance(by:) needs a non-negative interval, got \(interval) s; use rewind(by:)")
        await advance(to: currentDate.addingTimeInterval(interval))
    }

    /// Advances the clock to `newDate`, running every action due by then, in
    /// order, as `advance(to:)` does; but before the first action, after
    /// each one, and before returning, it suspends so that tasks that are
    /// ready to run get to run.
    ///
    /// This is what makes the scheduler usable from Swift concurrency: a task
    /// about to call `sleep(for:)`, `sleep(until:)` or `timer(interval:)`
    /// gets to schedule its wake-up before the clock moves, and a task that
    /// an action wakes (a sleep that ends, a timer tick) gets to run, and to
    /// schedule more, before the next action and before this returns. From
    /// a synchronous context the synchronous `advance(to:)` is chosen; from
    /// an asynchronous one, this.
    ///
    /// Which tasks get to run: this is a best effort, as in ReactiveSwift,
    /// not a guarantee; nothing tells the scheduler that a task has finished
    /// what it was doing.
    /// - Tasks isolated to the main actor (a `Task { }` created in a
    ///   `@MainActor` test, for instance) that sleep on the scheduler are the
    ///   reliable case: `sleep(for:)` and `sleep(until:)` run on their
    ///   caller's actor (they are `nonisolated(nonsending)`), so such a task
    ///   schedules its wake-up, and resumes from it, without leaving the main
    ///   actor, and each suspension here yields the main actor 25 times,
    ///   letting its queued jobs run first.
    /// - Other tasks, and tasks iterating `timer(interval:)` (an
    ///   `AsyncStream`, whose iteration hops to the global executor): each of
    ///   the 25 rounds also waits for a background-priority task that only
    ///   yields, which gives jobs queued on the global executor their turn,
    ///   but a thread the system has descheduled may not have finished.
    ///
    /// A task blocked on anything else (I/O, a lock, another actor) is not
    /// waited for. Actions run on the main actor.
    ///
    /// - Complexity: that of the synchronous `advance(to:)`, plus 25
    ///   main-actor yields and 25 short-lived tasks before the first action
    ///   and after each one.
    ///
    /// - Precondition: `newDate` is not before `currentDate`.
    @MainActor
    public func advance(to newDate: Date) async {
        flarePrecondition(newDate >= currentDate, "TestScheduler.advance(to:) needs a date not before \(currentDate), got \(newDate); use rewind(by:)")
        await Self.letReadyTasksRun()
        while let entry = nextDue(by: newDate) {
            run(entry)
            await Self.letReadyTasksRun()
        }
    }

    /// Runs every queued action, and those they and the tasks they wake
    /// queue, advancing the clock to `Date.distantFuture`, as `run()` does,
    /// letting pending tasks run first and after each action; see
    /// `advance(to:)`.
    @MainActor
    public func run() async {
        await advance(to: .distantFuture)
    }

    /// Suspends the caller, on the main actor, while tasks that are ready
    /// to run go first. Each of 25 rounds yields the main actor, which runs
    /// the main-actor jobs already queued (first in, first out), then waits
    /// for a background-priority task that only yields, which gives the
    /// global executor's queued jobs their turn.
    @MainActor
    private static func letReadyTasksRun() async {
        // More rounds than ReactiveSwift's 10: on a loaded machine a woken
        // task's hop through the global executor takes more turns than
        // that, and a task that has not hopped back misses the action.
        for _ in 0..<25 {
            await Task.yield()
            await Task.detached(priority: .background) { await Task.yield() }.value
        }
    }
}
