import Dispatch
import Foundation

/// A serial queue of work items.
///
/// Actions scheduled on one scheduler never run concurrently with each other;
/// whether they run at once, later, or on another thread depends on the
/// scheduler.
///
/// The action is `@Sendable`: a scheduler may run it on another thread, so
/// the compiler checks what it captures (ReactiveSwift's actions are plain
/// closures; in Swift 6 mode, code that captures a mutable local or a
/// non-`Sendable` object in one now has to say how that state is shared).
/// Flare's own operators that schedule work (`observe(on:)`, `delay`,
/// `throttle` …) hand over events of any value type: they vouch for those
/// themselves, so `Value` need not be `Sendable`.
///
/// Schedulers are reference types and are safe to use from any thread.
///
/// Sendable: every scheduler is (the protocol requires it).
public protocol Scheduler: AnyObject, Sendable {
    /// Enqueues `action` on the scheduler.
    ///
    /// Thread-safety: call from any thread; actions scheduled on one
    /// scheduler never run concurrently with each other.
    ///
    /// - Complexity: O(1) for `QueueScheduler` and `UIScheduler` (plus the
    ///   action, when `UIScheduler` or `ImmediateScheduler` runs it at
    ///   once); O(n) for a `TestScheduler` with n pending actions, whose
    ///   queue is a sorted array.
    ///
    /// - Returns: A disposable that cancels the action if it has not started
    ///   yet, or `nil` if the action cannot be cancelled (for example because
    ///   it has already run).
    @discardableResult
    func schedule(_ action: @escaping @Sendable () -> Void) -> Disposable?
}

/// A scheduler that can also run actions at future dates.
public protocol DateScheduler: Scheduler {
    /// The current date as this scheduler sees it: the wall clock for real
    /// schedulers, a virtual clock for `TestScheduler`.
    var currentDate: Date { get }

    /// Schedules `action` to run once, at or after `date`. A date in the past
    /// runs the action as soon as possible.
    ///
    /// - Returns: A disposable that cancels the action if it has not started.
    @discardableResult
    func schedule(after date: Date, action: @escaping @Sendable () -> Void) -> Disposable?

    /// Schedules `action` to run at `date` and then repeatedly every
    /// `interval`, until the returned disposable is disposed.
    ///
    /// - Parameters:
    ///   - date: The date of the first run.
    ///   - interval: The time between runs; must not be negative. `.never`
    ///     runs the action once.
    ///   - leeway: How late each run may be, so the system can coalesce
    ///     timers; must not be negative. Schedulers may ignore it.
    ///   - action: The action to repeat.
    /// - Returns: A disposable that stops the repetition. A run that has not
    ///   started when `dispose()` returns never happens.
    @discardableResult
    func schedule(
        after date: Date,
        interval: DispatchTimeInterval,
        leeway: DispatchTimeInterval,
        action: @escaping @Sendable () -> Void
    ) -> Disposable?
}

extension DateScheduler {
    /// Schedules a repeating action with a leeway of 10% of `interval`, the
    /// value Apple's energy guidelines recommend (and ReactiveSwift's default).
    ///
    /// See `schedule(after:interval:leeway:action:)`. For an interval above
    /// about 200,000 seconds, prefer passing an explicit leeway.
    @discardableResult
    public func schedule(
        after date: Date,
        interval: DispatchTimeInterval,
        action: @escaping @Sendable () -> Void
    ) -> Disposable? {
        schedule(after: date, interval: interval, leeway: interval * 0.1, action: action)
    }

    /// Schedules a repeating action whose first run is `delay` after
    /// `currentDate`; see `schedule(after:interval:leeway:action:)`.
    @discardableResult
    public func schedule(
        after delay: DispatchTimeInterval,
        interval: DispatchTimeInterval,
        leeway: DispatchTimeInterval = .seconds(0),
        action: @escaping @Sendable () -> Void
    ) -> Disposable? {
        schedule(after: currentDate.addingTimeInterval(delay), interval: interval, leeway: leeway, action: action)
    }

    /// Suspends the current task for `interval`, as measured by this
    /// scheduler, without blocking the scheduler. A zero interval returns at
    /// once.
    ///
    /// Cancelling the task ends the sleep at once, cancels the scheduled
    /// wake-up and throws `CancellationError`; so does calling it from an
    /// already-cancelled task.
    ///
    /// Runs on the caller's actor (`nonisolated(nonsending)`): a task on the
    /// main actor schedules its wake-up and resumes from it without leaving
    /// the main actor. With a `TestScheduler`, the sleep ends when the clock
    /// is advanced to its date; from a task, advance with the async
    /// `advance` overloads, which let the sleeping task schedule its wake-up
    /// first.
    ///
    /// - Precondition: `interval` and `leeway` are not negative.
    nonisolated(nonsending) public func sleep(for interval: DispatchTimeInterval, leeway: DispatchTimeInterval = .seconds(0)) async throws {
        flarePrecondition(interval.timeInterval >= 0, "sleep(for:) needs a non-negative interval")
        flarePrecondition(leeway.timeInterval >= 0, "sleep(for:) needs a non-negative leeway")
        try await sleep(untilDate: currentDate.addingTimeInterval(interval))
    }

    /// Suspends the current task until this scheduler reaches `deadline`,
    /// without blocking the scheduler. A deadline already reached
    /// (`deadline <= currentDate`) returns at once; ReactiveSwift traps there
    /// instead. Cancellation behaves as in `sleep(for:leeway:)`.
    ///
    /// - Precondition: `leeway` is not negative.
    nonisolated(nonsending) public func sleep(until deadline: Date, leeway: DispatchTimeInterval = .seconds(0)) async throws {
        flarePrecondition(leeway.timeInterval >= 0, "sleep(until:) needs a non-negative leeway")
        try await sleep(untilDate: deadline)
    }

    /// A stream that yields `currentDate` every `interval`, starting one
    /// interval from now. Dates not yet consumed are buffered.
    ///
    /// The underlying repeating action is disposed when the iterating task is
    /// cancelled, or when the stream and its iterator are released (leaving a
    /// `for await` loop over the stream does that). ReactiveSwift's stream
    /// keeps its timer running after `break`; this one does not.
    ///
    /// - Precondition: `interval` and `leeway` are not negative.
    public func timer(interval: DispatchTimeInterval, leeway: DispatchTimeInterval = .seconds(0)) -> AsyncStream<Date> {
        flarePrecondition(interval.timeInterval >= 0, "timer(interval:) needs a non-negative interval")
        flarePrecondition(leeway.timeInterval >= 0, "timer(interval:) needs a non-negative leeway")
        let ticks = Ticks()
        // Weak: the scheduler's queue must not keep the buffer, hence the
        // stream, alive; releasing the stream is what stops the timer.
        ticks.hold(schedule(after: interval, interval: interval, leeway: leeway) { [weak ticks] in
            ticks?.push(self.currentDate)
        })
        return AsyncStream(unfolding: { await ticks.next() }, onCancel: { ticks.finish() })
    }

    /// Sleeps until `date`; returns at once if this scheduler has reached it.
    ///
    /// Runs on `isolation`, the caller's actor, throughout: the operation
    /// closure names `isolation`, which isolates it to that actor too (a
    /// closure that does not would run on the global executor), so a task
    /// on the main actor schedules its wake-up before it first suspends.
    private func sleep(untilDate date: Date, isolation: isolated (any Actor)? = #isolation) async throws {
        try Task.checkCancellation()
        guard date > currentDate else { return }
        let wakeUp = WakeUp()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation(isolation: isolation) { (continuation: CheckedContinuation<Void, Error>) in
                guard wakeUp.arm(continuation) else { return }
                wakeUp.hold(self.schedule(after: date) { wakeUp.fire(throwing: nil) })
            }
        } onCancel: {
            wakeUp.fire(throwing: CancellationError())
        }
    }
}

/// The rendezvous of a `sleep`: the continuation, the scheduled wake-up, and
/// whichever of "time is up" and "task cancelled" comes first.
///
/// Thread-safety: the wake-up action, the cancellation handler and the
/// sleeping task race; the mutex makes exactly one of them resume the
/// continuation. Nothing is resumed or disposed while the lock is held.
private final class WakeUp: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Void, Error>?
        var disposable: Disposable?
        /// Set by the first `fire`; later `fire`s and `hold`s see it.
        var fired: (any Error)?? = nil
    }

    private let state = _PThreadMutex(State())

    /// Stores the continuation. Returns false, having resumed it, if the
    /// sleep already ended (cancelled before it could be armed).
    func arm(_ continuation: CheckedContinuation<Void, Error>) -> Bool {
        let ended: (any Error)?? = state.withLock { s in
            if s.fired == nil { s.continuation = continuation }
            return s.fired
        }
        guard let ended else { return true }
        if let error = ended { continuation.resume(throwing: error) } else { continuation.resume() }
        return false
    }

    /// Keeps the scheduled wake-up so cancellation can dispose it; disposes it
    /// at once if the sleep already ended.
    func hold(_ disposable: Disposable?) {
        let alreadyFired = state.withLock { s in
            if s.fired == nil { s.disposable = disposable }
            return s.fired != nil
        }
        if alreadyFired { disposable?.dispose() }
    }

    /// Ends the sleep: normally (`nil`) or with `error`. Only the first call
    /// has an effect.
    func fire(throwing error: (any Error)?) {
        let (continuation, disposable): (CheckedContinuation<Void, Error>?, Disposable?) = state.withLock { s in
            guard s.fired == nil else { return (nil, nil) }
            s.fired = .some(error)
            defer { s.continuation = nil; s.disposable = nil }
            return (s.continuation, s.disposable)
        }
        disposable?.dispose()
        guard let continuation else { return }
        if let error { continuation.resume(throwing: error) } else { continuation.resume() }
    }
}

/// The buffer between a `timer` stream's repeating action and its consumer.
///
/// Owned by the stream alone (the action holds it weakly), so releasing the
/// stream deinitializes it, which disposes the repeating action.
///
/// Thread-safety: the action, the consumer and cancellation race on the
/// mutex; continuations are resumed and disposables disposed outside it.
private final class Ticks: Sendable {
    private struct State {
        var buffered: [Date] = []
        var waiter: CheckedContinuation<Date?, Never>?
        var disposable: Disposable?
        var finished = false
    }

    private let state = _PThreadMutex(State())

    deinit {
        state.withLock { $0.disposable }?.dispose()
    }

    /// Keeps the repeating action's disposable; disposes it at once if the
    /// stream already finished.
    func hold(_ disposable: Disposable?) {
        let finished = state.withLock { s in
            if !s.finished { s.disposable = disposable }
            return s.finished
        }
        if finished { disposable?.dispose() }
    }

    /// Hands `date` to a waiting consumer, or buffers it.
    func push(_ date: Date) {
        let waiter: CheckedContinuation<Date?, Never>? = state.withLock { s in
            guard !s.finished else { return nil }
            if let w = s.waiter {
                s.waiter = nil
                return w
            }
            s.buffered.append(date)
            return nil
        }
        waiter?.resume(returning: date)
    }

    /// The next date, waiting for it if none is buffered; nil once finished.
    func next() async -> Date? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Date?, Never>) in
                let ready: Date?? = state.withLock { s in
                    if !s.buffered.isEmpty { return .some(s.buffered.removeFirst()) }
                    if s.finished { return .some(nil) }
                    s.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            finish()
        }
    }

    /// Ends the stream: a waiting consumer gets nil, the action is disposed.
    func finish() {
        let (waiter, disposable): (CheckedContinuation<Date?, Never>?, Disposable?) = state.withLock { s in
            guard !s.finished else { return (nil, nil) }
            s.finished = true
            s.buffered = []
            defer { s.waiter = nil; s.disposable = nil }
            return (s.waiter, s.disposable)
        }
        waiter?.resume(returning: nil)
        disposable?.dispose()
    }
}

/// A scheduler that runs every action at once, synchronously, on the calling
/// thread.
///
/// Thread-safety: stateless; usable from any thread. Actions scheduled from
/// different threads run on those threads, so they are serialized only if
/// the callers are.
///
/// Sendable: yes (stateless).
public final class ImmediateScheduler: Scheduler {
    /// An immediate scheduler. Instances hold no state and are interchangeable.
    public init() {}

    /// Runs `action` before returning.
    ///
    /// - Returns: `nil`: there is nothing left to cancel.
    @discardableResult
    public func schedule(_ action: @escaping @Sendable () -> Void) -> Disposable? {
        action()
        return nil
    }
}

/// An action of Flare's own in transit to the thread that runs it.
///
/// `@unchecked Sendable`: the operators that schedule work (`observe(on:)`,
/// `delay`, `throttle`, `debounce`, `start(on:)` …) capture events of any
/// value type and their own state, which the compiler cannot prove
/// sendable. Flare vouches for them: each is handed over to the action
/// and then touched only by it, or only inside a serialized delivery (the
/// operator's funnel). The box is immutable.
internal struct TransferredAction: @unchecked Sendable {
    let run: () -> Void

    init(_ action: @escaping () -> Void) {
        run = action
    }
}

/// `action` as the `@Sendable` function a scheduler takes, for an action
/// of Flare's own whose captures Flare vouches for (see
/// `TransferredAction`): the same function value, reinterpreted. `@Sendable`
/// changes what the compiler checks, not how a function is represented, so
/// this neither boxes the action nor wraps it in a closure of its own (which
/// would be one more allocation per scheduled action: per event for
/// `observe(on:)`).
///
/// The function is reinterpreted inside a struct of one field: a function
/// value passed to `unsafeBitCast` directly would be reabstracted on the
/// way in and out of the generic, each a thunk allocated per call.
@inlinable
@inline(__always)
func _transferred(_ action: @escaping () -> Void) -> @Sendable () -> Void {
    unsafeBitCast(_PlainAction(run: action), to: _SendableAction.self).run
}

/// A function, as `_transferred` reinterprets it.
@usableFromInline
struct _PlainAction {
    @usableFromInline let run: () -> Void

    @inlinable
    init(run: @escaping () -> Void) { self.run = run }
}

/// The same function, `@Sendable` (see `_transferred`).
@usableFromInline
struct _SendableAction {
    @usableFromInline let run: @Sendable () -> Void
}

extension Scheduler {
    /// `schedule(_:)` for an action of Flare's own, whose captures Flare
    /// vouches for (see `_transferred`).
    @usableFromInline
    @discardableResult
    func scheduleTransferred(_ action: @escaping () -> Void) -> Disposable? {
        schedule(_transferred(action))
    }

    /// `scheduleTransferred` for an action that is never cancelled (an
    /// `observe(on:)` hop's): on a `QueueScheduler`, the action goes onto
    /// the queue as it is, without the disposable `schedule` makes for it
    /// (one allocation per event). Any other scheduler schedules it.
    @usableFromInline
    func enqueueTransferred(_ action: @escaping () -> Void) {
        if let queueScheduler = self as? QueueScheduler {
            queueScheduler.queue.async(execute: _transferred(action))
        } else {
            schedule(_transferred(action))
        }
    }
}

extension DateScheduler {
    /// `schedule(after:action:)` for an action of Flare's own (see
    /// `_transferred`).
    @usableFromInline
    @discardableResult
    func scheduleTransferred(after date: Date, action: @escaping () -> Void) -> Disposable? {
        schedule(after: date, action: _transferred(action))
    }

    /// `schedule(after:interval:leeway:action:)` for an action of Flare's
    /// own (see `_transferred`).
    @usableFromInline
    @discardableResult
    func scheduleTransferred(
        after date: Date, interval: DispatchTimeInterval, leeway: DispatchTimeInterval,
        action: @escaping () -> Void
    ) -> Disposable? {
        schedule(after: date, interval: interval, leeway: leeway, action: _transferred(action))
    }
}
