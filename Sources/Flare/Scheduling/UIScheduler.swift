import Dispatch
import Synchronization

/// A scheduler on the main queue that runs an action at once when it can:
/// ReactiveSwift's `UIScheduler`.
///
/// `schedule(_:)` called on the main queue, with no action of this scheduler
/// pending, runs the action synchronously, before `schedule(_:)` returns (and
/// returns `nil`). Otherwise the action is enqueued on the main queue with
/// `async`, behind every action of this scheduler enqueued earlier, so this
/// scheduler's actions run one at a time and in the order they were
/// scheduled. An action scheduled from inside one of its own actions is
/// therefore enqueued, not run inline.
///
/// Use it to deliver events to code that must run on the main thread (a UI,
/// or the main actor) without a hop when the events already come from there:
/// `signal.observe(on: UIScheduler())` or
/// `BindingTarget(on: UIScheduler(), lifetime: …) { … }`. Enqueued actions run
/// only while something drains the main queue (`dispatchMain()`,
/// `RunLoop.main`, the main-actor executor of an `async` entry point).
///
/// "On the main queue" means inside a block the main queue runs (on Linux,
/// whichever thread drains it), or on the main thread outside any other
/// queue's block, as Dispatch reports it.
///
/// Cancelling: disposing the returned disposable stops an enqueued action
/// that has not started.
///
/// Thread-safety: every method may be called from any thread.
///
/// Sendable: yes; schedule from any thread.
public final class UIScheduler: Scheduler {
    /// Marks the main queue, so that a block it runs (on whichever thread
    /// drains it) is recognised as running on the main queue.
    private static let mainQueueKey: DispatchSpecificKey<UInt8> = {
        let key = DispatchSpecificKey<UInt8>()
        DispatchQueue.main.setSpecific(key: key, value: 1)
        return key
    }()

    /// The number of this scheduler's actions scheduled and not yet run or
    /// skipped. An action may run synchronously only when it is the only one,
    /// so that it cannot overtake an enqueued action.
    private let pending = Atomic<Int>(0)

    /// A scheduler on the main queue.
    public init() {
        _ = Self.mainQueueKey
    }

    /// Whether the caller runs on the main queue.
    private static var isOnMainQueue: Bool {
        DispatchQueue.getSpecific(key: mainQueueKey) != nil
    }

    /// Runs `action` at once if called on the main queue with no action of
    /// this scheduler pending; otherwise enqueues it on the main queue.
    ///
    /// - Returns: `nil` if `action` has already run; otherwise a disposable
    ///   that prevents it from running if it has not started.
    @discardableResult
    public func schedule(_ action: @escaping @Sendable () -> Void) -> Disposable? {
        // The count is the only state shared between schedulers' threads;
        // acquire-release so that an action that sees itself first also sees
        // the earlier actions' effects (they ran on the main queue before
        // their decrement).
        let position = pending.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue
        if position == 1 && Self.isOnMainQueue {
            defer { pending.wrappingSubtract(1, ordering: .acquiringAndReleasing) }
            action()
            return nil
        }
        let disposable = AnyDisposable()
        DispatchQueue.main.async {
            defer { self.pending.wrappingSubtract(1, ordering: .acquiringAndReleasing) }
            if !disposable.isDisposed { action() }
        }
        return disposable
    }
}
