import Dispatch
import Foundation
import Synchronization

/// A scheduler backed by a serial Dispatch queue.
///
/// Actions run asynchronously on `queue`, one at a time, in the order they
/// were scheduled (timed actions in the order their dates come). Dates are
/// wall-clock dates: a timed action is due when the system clock reaches its
/// date, so changing the system clock moves it, as in ReactiveSwift.
///
/// Cancelling: disposing the returned disposable stops an action that has not
/// started; it never waits for one that is running. Disposal of a timed or
/// repeating action also cancels its Dispatch timer, which releases the action
/// promptly instead of at its date.
///
/// Thread-safety: every method may be called from any thread.
///
/// Sendable: yes; schedule from any thread.
public final class QueueScheduler: DateScheduler {
    /// A scheduler on the main queue.
    ///
    /// It always runs actions asynchronously, and only while something
    /// drains the main queue: `dispatchMain()`, `RunLoop.main`, or the
    /// main-actor executor of an `async` entry point. ``UIScheduler`` runs an
    /// action at once when scheduled from the main queue.
    public static let main = QueueScheduler(internalQueue: .main)

    /// The wall clock.
    public var currentDate: Date { Date() }

    /// The queue on which actions run.
    public let queue: DispatchQueue

    internal init(internalQueue: DispatchQueue) {
        queue = internalQueue
    }

    /// A scheduler on a new serial queue.
    ///
    /// - Parameters:
    ///   - qos: The queue's quality of service. The default, `.unspecified`
    ///     (as in ReactiveSwift 7.2), gives the queue none of its own, so each
    ///     action runs at the QoS of the code that scheduled it (or of
    ///     `targetQueue`).
    ///   - name: The queue's label, in reverse-DNS form.
    ///   - targetQueue: The queue the new queue targets, if any. Even if it is
    ///     concurrent, this scheduler's actions stay serial with respect to
    ///     each other.
    public convenience init(
        qos: DispatchQoS = .unspecified,
        name: String = "org.flare.QueueScheduler",
        targeting targetQueue: DispatchQueue? = nil
    ) {
        self.init(internalQueue: DispatchQueue(label: name, qos: qos, target: targetQueue))
    }

    /// Enqueues `action` on `queue`.
    ///
    /// Thread-safety: call from any thread; the action runs on `queue`,
    /// never inside `schedule`.
    ///
    /// - Complexity: O(1): one `DispatchQueue.async` and one object, which
    ///   is both the disposable and all the block captures.
    ///
    /// - Returns: A disposable that prevents `action` from running if it has
    ///   not started.
    @discardableResult
    public func schedule(_ action: @escaping @Sendable () -> Void) -> Disposable? {
        let scheduled = _QueuedAction(action)
        queue.async { scheduled.runIfNotDisposed() }
        return scheduled
    }

    /// Runs `action` on `queue` once the wall clock reaches `date` (at once if
    /// `date` is past).
    ///
    /// - Complexity: O(1): one Dispatch timer source and one disposable.
    ///
    /// - Returns: A disposable that prevents `action` from running if it has
    ///   not started, and releases it at once.
    @discardableResult
    public func schedule(after date: Date, action: @escaping @Sendable () -> Void) -> Disposable? {
        startTimer(at: Self.wallTime(for: date), interval: .never, leeway: .nanoseconds(0), action: action)
    }

    /// Runs `action` on `queue` at `date`, then every `interval`, until the
    /// returned disposable is disposed. Each run is due `interval` after the
    /// previous due time, not after the previous run ended; a run that falls
    /// due while the queue is busy runs when the queue frees up.
    ///
    /// If the returned disposable is discarded without being disposed, the
    /// action repeats for the life of the process (as in ReactiveSwift).
    ///
    /// - Precondition: `interval` and `leeway` are not negative.
    @discardableResult
    public func schedule(
        after date: Date,
        interval: DispatchTimeInterval,
        leeway: DispatchTimeInterval,
        action: @escaping @Sendable () -> Void
    ) -> Disposable? {
        flarePrecondition(interval.timeInterval >= 0, "a repeating action needs a non-negative interval")
        flarePrecondition(leeway.timeInterval >= 0, "a repeating action needs a non-negative leeway")
        return startTimer(at: Self.wallTime(for: date), interval: interval, leeway: leeway, action: action)
    }

    /// Starts a Dispatch timer on `queue`; `interval == .never` is one-shot.
    ///
    /// Lifetime: the timer's event handler retains the timer (through
    /// `disposable`), so a running timer stays alive with no outside
    /// reference, as a repeating action must. Cancelling the timer makes
    /// Dispatch release the handler, which breaks that cycle; a one-shot
    /// timer cancels itself when it fires.
    private func startTimer(
        at deadline: DispatchWallTime,
        interval: DispatchTimeInterval,
        leeway: DispatchTimeInterval,
        action: @escaping @Sendable () -> Void
    ) -> Disposable {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        let cancel = TransferredAction { timer.cancel() }
        let disposable = AnyDisposable { cancel.run() }
        let work = TransferredAction(action)
        let oneShot = interval == .never
        timer.setEventHandler {
            // `cancel()` alone does not stop a handler invocation that Dispatch
            // has already begun; the flag check does, for any run not started
            // when `dispose()` returns.
            guard !disposable.isDisposed else { return }
            if oneShot { cancel.run() }
            work.run()
        }
        timer.schedule(wallDeadline: deadline, repeating: interval, leeway: leeway)
        timer.resume()
        return disposable
    }

    /// `date` as a Dispatch wall time. Dates Dispatch cannot represent are
    /// clamped: anything at or before 1970 is "now" (it is in the past), and
    /// anything beyond the year 2286, or infinite, is "never".
    internal static func wallTime(for date: Date) -> DispatchWallTime {
        let seconds = date.timeIntervalSince1970
        guard seconds > 0 else { return .now() }
        guard seconds < 10_000_000_000 else { return .distantFuture }
        let whole = seconds.rounded(.down)
        let nanoseconds = Int((seconds - whole) * 1_000_000_000)
        return DispatchWallTime(timespec: timespec(tv_sec: Int(whole), tv_nsec: nanoseconds))
    }
}

/// An action `QueueScheduler.schedule(_:)` enqueued, and the disposable that
/// cancels it. One object: the block Dispatch runs captures only this
/// reference, which serves as the block's context, so an action costs no
/// separate disposable and no context box (asynchronous inners and
/// `observe(on:)` schedule one per event, often allocated on one thread and
/// freed on another).
///
/// Sendable: its stored properties are immutable and Sendable.
final class _QueuedAction: Disposable, Sendable {
    private let action: @Sendable () -> Void
    private let disposed = Atomic<Bool>(false)

    init(_ action: @escaping @Sendable () -> Void) {
        self.action = action
    }

    /// Whether `dispose()` has been called. A reader that sees `true` also
    /// sees what the disposing thread did before (acquire).
    var isDisposed: Bool { disposed.load(ordering: .acquiring) }

    /// Stops the action if it has not started. Idempotent, lock-free, from
    /// any thread; never waits for the action.
    func dispose() { disposed.store(true, ordering: .releasing) }

    /// Dispatch's block: runs the action unless it was disposed first.
    func runIfNotDisposed() {
        if !isDisposed { action() }
    }
}
