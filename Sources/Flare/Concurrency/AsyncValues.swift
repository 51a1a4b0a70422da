/// The values of a signal or of a producer's runs as a typed `AsyncSequence`:
/// `for await` (or `for try await`) over `signal.values` or
/// `producer.values`.
///
/// Each iteration is its own observation. Over a signal, iteration sees the
/// values the signal sends after `makeAsyncIterator()` (the start of a
/// `for await` loop); over a producer, `makeAsyncIterator()` starts a new
/// run, so every loop is its own start and reading `values` starts
/// nothing.
///
/// How the iteration ends:
/// - `completed` and `interrupted` end it normally (`next()` returns `nil`)
///   once every value sent before them has been iterated;
/// - `failed` throws the error, typed as `Failure`, after the values sent
///   before it; with `Failure == Never` iterating needs no `try`;
/// - leaving the loop early (`break`, `return`, a thrown error), or
///   releasing the iterator, disposes the observation of the signal, or
///   interrupts the producer's run, at once;
/// - cancelling the iterating task ends the iteration (`next()` returns
///   `nil`, as `AsyncStream` does) and disposes the observation or
///   interrupts the run at once, whether the task is suspended in `next()`
///   or busy in the loop's body (then the next call to `next()` sees it).
///
/// "At once" is contract 4's and contract 8's: the observation or run
/// receives nothing after the delivery already in progress on another
/// thread, if any; a run's cleanup runs when that delivery finishes, on its
/// thread, or before the loop's next statement if none was in progress.
///
/// Buffering: values are delivered on the signal's serialized delivery
/// (the sender's thread) and wait in a buffer until the iterating task
/// takes them. By default (`.unbounded`) nothing is lost: every value is
/// iterated exactly once, in order. `.bufferingNewest(n)` and
/// `.bufferingOldest(n)` keep at most `n` values waiting, dropping the
/// oldest or the newest ones, as `AsyncStream` does; terminal events are
/// never dropped.
///
/// Cost: the delivery side takes an uncontended mutex per value to append it to the buffer (no allocation beyond the buffer's
/// growth, no task hop); with `.unbounded`, the iterating task takes the
/// whole buffer at once and iterates it without synchronization, so it
/// suspends only when it has caught up with the sender.
///
/// Sendable: yes. The sequence holds only the signal or producer. Its
/// iterator is deliberately not `Sendable`: it belongs to the one task
/// that iterates.
public struct AsyncValues<Element: Sendable, Failure: Swift.Error>: AsyncSequence, Sendable {
    /// How many values may wait for the iterating task, and which are kept
    /// when more arrive.
    ///
    /// Sendable: yes (a value).
    public enum BufferingPolicy: Sendable, Hashable {
        /// Keep every value: nothing is lost, the buffer grows as needed.
        case unbounded
        /// Keep at most the given number of values (at least 0), dropping
        /// the oldest waiting value to make room for a new one.
        case bufferingNewest(Int)
        /// Keep at most the given number of values (at least 0), dropping
        /// new values while the buffer is full.
        case bufferingOldest(Int)
    }

    /// Starts the observation (or the run) that feeds `channel`; returns
    /// what ends it.
    @usableFromInline
    let _attach: @Sendable (_AsyncValuesChannel<Element, Failure>) -> Disposable?

    /// The buffering policy of every iteration.
    public let bufferingPolicy: BufferingPolicy

    @inlinable
    init(_bufferingPolicy bufferingPolicy: BufferingPolicy, attach: @escaping @Sendable (_AsyncValuesChannel<Element, Failure>) -> Disposable?) {
        switch bufferingPolicy {
        case .unbounded: break
        case let .bufferingNewest(limit):
            flarePrecondition(limit >= 0, "values(bufferingPolicy:) needs a non-negative limit, got .bufferingNewest(\(limit))")
        case let .bufferingOldest(limit):
            flarePrecondition(limit >= 0, "values(bufferingPolicy:) needs a non-negative limit, got .bufferingOldest(\(limit))")
        }
        self.bufferingPolicy = bufferingPolicy
        self._attach = attach
    }

    /// Begins an iteration: observes the signal, or starts a run of the
    /// producer.
    @inlinable
    public func makeAsyncIterator() -> Iterator {
        let channel = _AsyncValuesChannel<Element, Failure>(policy: bufferingPolicy)
        channel.hold(_attach(channel))
        return Iterator(_consumer: _AsyncValuesConsumer(channel: channel))
    }

    /// Iterates the values of one observation or run.
    ///
    /// Sendable: no, deliberately. An iterator belongs to the task that
    /// iterates it; its local batch of values is read without
    /// synchronization.
    public struct Iterator: AsyncIteratorProtocol {
        @usableFromInline
        let _consumer: _AsyncValuesConsumer<Element, Failure>

        @inlinable
        init(_consumer consumer: _AsyncValuesConsumer<Element, Failure>) {
            self._consumer = consumer
        }

        /// The next value; `nil` once the signal or run completed or was
        /// interrupted, or the task was cancelled. Throws the failure once,
        /// after the values sent before it.
        ///
        /// Resumes on `actor`, the caller's isolation, with no hop when a
        /// value is already waiting.
        @inlinable
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(Failure) -> Element? {
            // The common case, a value already in the local batch, without
            // entering another async function.
            if let value = _consumer.nextBuffered() { return value }
            return try await _consumer.next(isolation: actor)
        }

        /// The next value; see `next(isolation:)`.
        @inlinable
        public mutating func next() async throws(Failure) -> Element? {
            try await _consumer.next(isolation: nil)
        }
    }
}

extension Signal where Value: Sendable {
    /// The values this signal sends from now on, as a typed `AsyncSequence`
    /// that loses nothing.
    ///
    /// ```swift
    /// for await temperature in sensor.readings.values { show(temperature) }
    /// ```
    ///
    /// Each `for await` loop observes the signal when it begins and stops
    /// observing when it ends. `completed` and `interrupted` end the loop;
    /// `failed` throws. See ``AsyncValues`` for cancellation and costs.
    @inlinable
    public var values: AsyncValues<Value, Error> {
        values(bufferingPolicy: .unbounded)
    }

    /// The values this signal sends from now on, as a typed `AsyncSequence`
    /// whose buffer follows `bufferingPolicy`.
    ///
    /// - Parameter bufferingPolicy: How many values may wait for the
    ///   iterating task (`.unbounded`, `.bufferingNewest(n)`,
    ///   `.bufferingOldest(n)`).
    @inlinable
    public func values(bufferingPolicy: AsyncValues<Value, Error>.BufferingPolicy) -> AsyncValues<Value, Error> {
        AsyncValues(_bufferingPolicy: bufferingPolicy) { [self] channel in
            observe(channel.observer)
        }
    }
}

extension SignalProducer where Value: Sendable {
    /// The values of a new run at every iteration, as a typed
    /// `AsyncSequence` that loses nothing.
    ///
    /// ```swift
    /// for try await page in api.pages(of: query).values { append(page) }
    /// ```
    ///
    /// Reading `values` starts nothing: each `for await` loop starts its
    /// own run when it begins, and interrupts it if it ends early (`break`,
    /// a thrown error, task cancellation). See ``AsyncValues``.
    @inlinable
    public var values: AsyncValues<Value, Error> {
        values(bufferingPolicy: .unbounded)
    }

    /// The values of a new run at every iteration, as a typed
    /// `AsyncSequence` whose buffer follows `bufferingPolicy`.
    ///
    /// - Parameter bufferingPolicy: How many values may wait for the
    ///   iterating task (`.unbounded`, `.bufferingNewest(n)`,
    ///   `.bufferingOldest(n)`).
    @inlinable
    public func values(bufferingPolicy: AsyncValues<Value, Error>.BufferingPolicy) -> AsyncValues<Value, Error> {
        AsyncValues(_bufferingPolicy: bufferingPolicy) { [self] channel in
            start(channel.observer)
        }
    }
}
