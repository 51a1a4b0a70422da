import Foundation

/// The outcome of a blocking start, handed from the delivering thread to the
/// waiting one.
private final class BlockingOutcome<Value, Error: Swift.Error>: @unchecked Sendable {
    private let condition = NSCondition()
    private var values: [Value] = []
    private var failure: Error?
    private var isDone = false

    /// Records `event`; returns whether the run is over for the waiter.
    func record(_ event: Signal<Value, Error>.Event, keepingAtMost limit: Int) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        // A synchronous run goes on until `start` returns, after the waiter
        // has what it needs: what follows must not change the outcome.
        guard !isDone else { return true }
        switch event {
        case let .value(value):
            values.append(value)
            if values.count < limit { return false }
        case let .failed(error):
            failure = error
        case .completed, .interrupted:
            break
        }
        isDone = true
        condition.broadcast()
        return true
    }

    /// Waits until the run is over; returns its values and failure.
    func wait() -> (values: [Value], failure: Error?) {
        condition.lock()
        defer { condition.unlock() }
        while !isDone { condition.wait() }
        return (values, failure)
    }
}

extension SignalProducer {
    /// Starts a run, blocks until it has sent `limit` values or terminated,
    /// then disposes it. The run is `take(first: limit)` of this producer,
    /// as in ReactiveSwift: a synchronous source, whose `start` returns only
    /// once it has sent everything, stops after `limit` values.
    private func block(keepingAtMost limit: Int) -> (values: [Value], failure: Error?) {
        let outcome = BlockingOutcome<Value, Error>()
        let disposable = take(first: limit).start { event in _ = outcome.record(event, keepingAtMost: limit) }
        let result = outcome.wait()
        disposable.dispose()
        return result
    }

    /// Starts a run and blocks until it sends its first value or
    /// terminates; the run is then disposed.
    ///
    /// - Returns: The first value, or the failure if the run failed first;
    ///   `nil` if it completed or was interrupted without a value.
    ///
    /// Deadlocks, as in ReactiveSwift, if the run's events can only be
    /// delivered once the calling thread returns: for instance when called
    /// from inside a delivery of a signal the producer observes, whose next
    /// delivery waits for the current one to finish, or from the only
    /// thread of the scheduler the producer sends on. Flare cannot detect
    /// this cheaply and does not try.
    public func first() -> Result<Value, Error>? {
        let (values, failure) = block(keepingAtMost: 1)
        if let value = values.first { return .success(value) }
        return failure.map { .failure($0) }
    }

    /// Starts a run and blocks until it terminates, or sends a second value
    /// (the run is then disposed).
    ///
    /// - Returns: The value if the run sent exactly one and then completed,
    ///   the failure if it failed after at most one value; `nil` if it sent
    ///   no value or more than one, or was interrupted.
    ///
    /// Deadlocks in the situations `first()` describes.
    public func single() -> Result<Value, Error>? {
        let (values, failure) = block(keepingAtMost: 2)
        if let failure { return .failure(failure) }
        guard values.count == 1, let value = values.first else { return nil }
        return .success(value)
    }

    /// Starts a run and blocks until it terminates.
    ///
    /// - Returns: The last value if the run completed after sending one, the
    ///   failure if it failed; `nil` if it sent no value or was interrupted.
    ///
    /// Deadlocks in the situations `first()` describes.
    public func last() -> Result<Value, Error>? {
        take(last: 1).single()
    }

    /// Starts a run and blocks until it terminates.
    ///
    /// - Returns: The failure if the run failed, `.success(())` otherwise
    ///   (completed or interrupted).
    ///
    /// Deadlocks in the situations `first()` describes.
    public func wait() -> Result<(), Error> {
        let failure = filter { _ in false }.block(keepingAtMost: 1).failure
        return failure.map { .failure($0) } ?? .success(())
    }
}
