extension SignalProducer where Value: Sendable {
    /// A producer whose every start iterates `sequence` in a new task,
    /// sending each element as a value, then `completed` when the sequence
    /// ends, or `failed` with the error it throws.
    ///
    /// ```swift
    /// let lines = SignalProducer(url.lines)   // SignalProducer<String, any Error>
    /// ```
    ///
    /// Each start makes its own iterator, in its own task (on the global
    /// executor, at the starting context's priority). Disposing the run
    /// (or an operator ending it, such as `take(first:)`) cancels the task
    /// at once; the iteration ends as soon as the sequence honours the
    /// cancellation, and whatever it still produces is dropped.
    ///
    /// The failure type is the sequence's own (typed throws):
    /// a sequence that never throws makes a `SignalProducer<Element, Never>`.
    ///
    /// - Parameter sequence: The sequence to iterate; `Sendable`, since
    ///   each start iterates it in a new task.
    public init<S: AsyncSequence & Sendable>(_ sequence: S) where S.Element == Value, S.Failure == Error {
        self.init { observer, lifetime in
            let task = Task {
                do throws(Error) {
                    for try await value in sequence {
                        observer.send(value: value)
                    }
                    observer.sendCompleted()
                } catch {
                    observer.send(error: error)
                }
            }
            lifetime.observeEnded { task.cancel() }
        }
    }

    /// A producer whose every start runs `operation` in a new task, then
    /// sends its result and completes, or fails with the error it throws.
    ///
    /// ```swift
    /// let profile = SignalProducer { () async throws(APIError) -> Profile in
    ///     try await api.profile(of: user)
    /// }
    /// ```
    ///
    /// This is the async form of `init(_ action: () -> Value)`, under the
    /// same unlabelled trailing closure, as `Task { … }` takes its
    /// operation: a closure that awaits is async, so it picks this
    /// initializer, and one that does not keeps the synchronous one, which
    /// runs on the starting thread. The error is typed: the closure's
    /// `throws(E)` is the producer's `Error` (a non-throwing closure gives
    /// `Never`, an untyped `throws` gives `any Error`).
    ///
    /// Each start runs `operation` again, in its own task (on the global
    /// executor, at the starting context's priority). Disposing the run
    /// cancels the task at once; its result, if it still comes, is dropped.
    ///
    /// - Parameter operation: The work of one run; `@Sendable`, since it
    ///   runs in a new task.
    public init(_ operation: @escaping @Sendable () async throws(Error) -> Value) {
        self.init { observer, lifetime in
            let task = Task {
                do throws(Error) {
                    let value = try await operation()
                    observer.send(value: value)
                    observer.sendCompleted()
                } catch {
                    observer.send(error: error)
                }
            }
            lifetime.observeEnded { task.cancel() }
        }
    }
}
