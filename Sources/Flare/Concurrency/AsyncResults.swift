/// The outcome of an awaited start, handed from the delivering thread to
/// the awaiting task: the async counterpart of the blocking starts'
/// outcome, with a continuation in place of a condition variable.
///
/// Thread-safety: the delivery, the awaiting task and its cancellation
/// race on the mutex; the continuation is resumed and the run disposed
/// outside it.
private final class AwaitedOutcome<Value: Sendable, Error: Swift.Error>: Sendable {
    typealias Outcome = (values: [Value], failure: Error?)

    private struct State: Sendable {
        var values: [Value] = []
        var failure: Error?
        var isDone = false
        var isCancelled = false
        var continuation: UnsafeContinuation<Outcome, Never>?
        var run: Disposable?
    }

    private let state = _PThreadMutex(State())
    private let limit: Int

    init(keepingAtMost limit: Int) {
        self.limit = limit
    }

    /// Whether the awaiting task was cancelled before the run started.
    var isCancelled: Bool { state.withLock { $0.isCancelled } }

    /// Stores the continuation the outcome resumes.
    func arm(_ continuation: UnsafeContinuation<Outcome, Never>) {
        state.withLock { $0.continuation = continuation }
    }

    /// Records `event`; when the run is over for the waiter, resumes it
    /// and disposes the run.
    func record(_ event: Signal<Value, Error>.Event) {
        let (continuation, outcome, run) = state.withLock { s -> (UnsafeContinuation<Outcome, Never>?, Outcome, Disposable?) in
            guard !s.isDone else { return (nil, ([], nil), nil) }
            switch event {
            case let .value(value):
                s.values.append(value)
                if s.values.count < limit { return (nil, ([], nil), nil) }
            case let .failed(error):
                s.failure = error
            case .completed, .interrupted:
                break
            }
            s.isDone = true
            defer { s.continuation = nil; s.run = nil }
            return (s.continuation, (s.values, s.failure), s.run)
        }
        run?.dispose()
        continuation?.resume(returning: outcome)
    }

    /// Keeps the run so that cancellation can dispose it; disposes it at
    /// once if the outcome is already known or the task was cancelled.
    func hold(_ run: Disposable) {
        let keep = state.withLock { s -> Bool in
            if s.isDone || s.isCancelled { return false }
            s.run = run
            return true
        }
        if !keep { run.dispose() }
    }

    /// The awaiting task was cancelled: disposing the run interrupts it,
    /// which ends the wait.
    func cancel() {
        let run = state.withLock { s -> Disposable? in
            s.isCancelled = true
            defer { s.run = nil }
            return s.run
        }
        run?.dispose()
    }
}

extension SignalProducer where Value: Sendable {
    /// Starts a run and suspends (blocking no thread) until it has sent
    /// `limit` values or terminated; the run is then disposed. Cancelling
    /// the task interrupts the run.
    nonisolated(nonsending) private func awaitRun(keepingAtMost limit: Int) async -> (values: [Value], failure: Error?) {
        let outcome = AwaitedOutcome<Value, Error>(keepingAtMost: limit)
        return await withTaskCancellationHandler {
            await withUnsafeContinuation { continuation in
                outcome.arm(continuation)
                if outcome.isCancelled {
                    outcome.record(.interrupted)
                    return
                }
                // take(first:) ends the run from inside its delivery, so
                // a start handler that sends synchronously sees its
                // lifetime end at once, instead of after `start` returns.
                outcome.hold(take(first: limit).start { outcome.record($0) })
            }
        } onCancel: {
            outcome.cancel()
        }
    }

    /// Starts a run and awaits its first value or its termination; the run
    /// is then disposed. Suspends the task; blocks no thread.
    ///
    /// Returns what the blocking `first()` returns: the first value, or the
    /// failure if the run failed first; `nil` if it completed or was
    /// interrupted without a value. Cancelling the task interrupts the run
    /// (so, without a value, the result is `nil`).
    ///
    /// Runs on the caller's actor (`nonisolated(nonsending)`); the run's
    /// events are delivered wherever the producer sends them.
    nonisolated(nonsending) public func first() async -> Result<Value, Error>? {
        let (values, failure) = await awaitRun(keepingAtMost: 1)
        if let value = values.first { return .success(value) }
        return failure.map { .failure($0) }
    }

    /// Starts a run and awaits its termination, or its second value (the
    /// run is then disposed). Suspends the task; blocks no thread.
    ///
    /// Returns what the blocking `single()` returns, decided the same way:
    /// the failure if the run failed after at most one value; the value if
    /// it sent exactly one and then ended otherwise; `nil` if it sent no
    /// value or more than one. Cancelling the task interrupts the run.
    nonisolated(nonsending) public func single() async -> Result<Value, Error>? {
        let (values, failure) = await awaitRun(keepingAtMost: 2)
        if let failure { return .failure(failure) }
        guard values.count == 1, let value = values.first else { return nil }
        return .success(value)
    }

    /// Starts a run and awaits its termination. Suspends the task; blocks
    /// no thread.
    ///
    /// Returns what the blocking `last()` returns: the last value if the run
    /// completed after sending one, the failure if it failed; `nil` if it
    /// sent no value or was interrupted (cancelling the task interrupts it).
    nonisolated(nonsending) public func last() async -> Result<Value, Error>? {
        await take(last: 1).single()
    }

    /// Starts a run and awaits its termination. Suspends the task; blocks
    /// no thread.
    ///
    /// Returns what the blocking `wait()` returns: the failure if the run
    /// failed, `.success(())` otherwise (completed, or interrupted, which
    /// cancelling the task does).
    nonisolated(nonsending) public func wait() async -> Result<(), Error> {
        let failure = await filter { _ in false }.awaitRun(keepingAtMost: 1).failure
        return failure.map { .failure($0) } ?? .success(())
    }
}
