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
    let attach: @Sendable (_AsyncValuesChannel<Element, Failure>) -> Disposable?

    /// The buffering policy of every iteration.
    public let bufferingPolicy: BufferingPolicy

    @inlinable
    init(bufferingPolicy: BufferingPolicy, attach: @escaping @Sendable (_AsyncValuesChannel<Element, Failure>) -> Disposable?) {
        switch bufferingPolicy {
        case .unbounded: break
        case let .bufferingNewest(limit):
            flarePrecondition(limit >= 0, "values(bufferingPolicy:) needs a non-negative limit, got .bufferingNewest(\(limit))")
        case let .bufferingOldest(limit):
            flarePrecondition(limit >= 0, "values(bufferingPolicy:) needs a non-negative limit, got .bufferingOldest(\(limit))")
        }
        self.bufferingPolicy = bufferingPolicy
        self.attach = attach
    }

    /// Begins an iteration: observes the signal, or starts a run of the
    /// producer.
    @inlinable
    public func makeAsyncIterator() -> Iterator {
        let channel = _AsyncValuesChannel<Element, Failure>(policy: bufferingPolicy)
        channel.hold(attach(channel))
        return Iterator(consumer: _AsyncValuesConsumer(channel: channel))
    }

    /// Iterates the values of one observation or run.
    ///
    /// Sendable: no, deliberately. An iterator belongs to the task that
    /// iterates it; its local batch of values is read without
    /// synchronization.
    public struct Iterator: AsyncIteratorProtocol {
        @usableFromInline
        let consumer: _AsyncValuesConsumer<Element, Failure>

        @inlinable
        init(consumer: _AsyncValuesConsumer<Element, Failure>) {
            self.consumer = consumer
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
            if let value = consumer.nextBuffered() { return value }
            return try await consumer.next(isolation: actor)
        }

        /// The next value; see `next(isolation:)`.
        @inlinable
        public mutating func next() async throws(Failure) -> Element? {
            try await consumer.next(isolation: nil)
        }
    }
}

/// What wakes a waiting consumer.
@usableFromInline
enum _AsyncValuesWake<Element: Sendable>: Sendable {
    /// A value handed over directly: the buffer was empty.
    case value(Element)
    /// Look at the channel again: it ended, or was cancelled.
    case recheck
}

/// The handoff between the serialized delivery (one producer: deliveries
/// never overlap, contract 2) and the iterating task (one consumer).
///
/// A mutex guards the buffer, the end and the waiting continuation, and
/// nothing else: it is held for an append, a swap or a store, never while a
/// continuation is resumed or a disposable disposed. It is a
/// `_PThreadMutex`, not `Synchronization.Mutex`, whose futex calls
/// ThreadSanitizer cannot see (see `_PThreadMutex`); uncontended, the two
/// cost about the same here.
/// The consumer takes whole batches (`.unbounded`), so the lock is taken
/// once per value on the delivery side and once per batch on the consuming
/// side.
@usableFromInline
final class _AsyncValuesChannel<Element: Sendable, Failure: Swift.Error>: Sendable {
    @usableFromInline
    enum End: Sendable {
        case finished
        case failed(Failure)
    }

    @usableFromInline
    struct State: Sendable {
        /// Waiting values; those before `head` are already taken (bounded
        /// policies pop one at a time).
        @usableFromInline var buffer: [Element] = []
        @usableFromInline var head = 0
        @usableFromInline var end: End?
        @usableFromInline var waiter: UnsafeContinuation<_AsyncValuesWake<Element>, Never>?
        @usableFromInline var disposable: Disposable?
        @usableFromInline var isCancelled = false

        @inlinable
        init() {}

        @inlinable
        var count: Int { buffer.count - head }

        @inlinable
        mutating func dropFirst() {
            head += 1
            if head == buffer.count {
                buffer.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 64, head * 2 >= buffer.count {
                buffer.removeFirst(head)
                head = 0
            }
        }
    }

    @usableFromInline
    let state = _PThreadMutex(State())
    @usableFromInline
    let policy: AsyncValues<Element, Failure>.BufferingPolicy

    @inlinable
    init(policy: AsyncValues<Element, Failure>.BufferingPolicy) {
        self.policy = policy
    }

    // MARK: Delivery side

    /// The observer the signal or run delivers to.
    @inlinable
    var observer: Signal<Element, Failure>.Observer {
        Signal<Element, Failure>.Observer { [self] event in
            switch event {
            case let .value(value): push(value)
            case let .failed(error): finish(.failed(error))
            case .completed, .interrupted: finish(.finished)
            }
        }
    }

    @inlinable
    func push(_ value: Element) {
        let waiter = state.withLock { s -> UnsafeContinuation<_AsyncValuesWake<Element>, Never>? in
            guard s.end == nil else { return nil }
            if let waiter = s.waiter {
                // A waiting consumer has emptied the buffer: hand over.
                s.waiter = nil
                return waiter
            }
            switch policy {
            case .unbounded:
                s.buffer.append(value)
            case let .bufferingNewest(limit):
                guard limit > 0 else { return nil }
                if s.count == limit { s.dropFirst() }
                s.buffer.append(value)
            case let .bufferingOldest(limit):
                if s.count < limit { s.buffer.append(value) }
            }
            return nil
        }
        waiter?.resume(returning: .value(value))
    }

    @inlinable
    func finish(_ end: End) {
        let waiter = state.withLock { s -> UnsafeContinuation<_AsyncValuesWake<Element>, Never>? in
            guard s.end == nil else { return nil }
            s.end = end
            // The observation is over by itself: nothing left to dispose.
            s.disposable = nil
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume(returning: .recheck)
    }

    // MARK: Consuming side

    /// Keeps what ends the observation; disposes it at once if the
    /// iteration was already cancelled.
    @inlinable
    func hold(_ disposable: Disposable?) {
        guard let disposable else { return }
        let keep = state.withLock { s -> Bool in
            if s.isCancelled { return false }
            if s.end == nil { s.disposable = disposable }
            return true
        }
        if !keep { disposable.dispose() }
    }

    /// Ends the iteration from the consuming side (cancellation, early
    /// exit): drops the buffer, wakes a waiter, disposes the observation.
    @inlinable
    func cancel() {
        let (waiter, disposable) = state.withLock { s -> (UnsafeContinuation<_AsyncValuesWake<Element>, Never>?, Disposable?) in
            guard !s.isCancelled else { return (nil, nil) }
            s.isCancelled = true
            s.buffer = []
            s.head = 0
            defer { s.waiter = nil; s.disposable = nil }
            return (s.waiter, s.disposable)
        }
        disposable?.dispose()
        waiter?.resume(returning: .recheck)
    }

    /// What the consumer gets when its local batch is exhausted.
    @usableFromInline
    enum Take {
        /// `spare` now holds the batch; the buffer kept `spare`'s capacity.
        case batch
        case one(Element)
        case end(End)
        case cancelled
        case empty
    }

    /// Takes what is waiting, without waiting: the whole buffer (unbounded,
    /// swapped with the consumer's emptied `spare`, so that neither array
    /// is shared and both keep their capacity) or its first value
    /// (bounded), else the end.
    @inlinable
    func take(spare: inout [Element]) -> Take {
        state.withLock { s -> Take in
            if s.isCancelled { return .cancelled }
            if s.count > 0 {
                if case .unbounded = policy {
                    swap(&spare, &s.buffer)
                    return .batch
                }
                let value = s.buffer[s.head]
                s.dropFirst()
                return .one(value)
            }
            if let end = s.end { return .end(end) }
            return .empty
        }
    }

    /// Parks the consumer: stores `continuation`, or resumes it at once if
    /// something arrived (or the channel ended) since the last `take`.
    @inlinable
    func park(_ continuation: UnsafeContinuation<_AsyncValuesWake<Element>, Never>) {
        let ready = state.withLock { s -> Bool in
            if s.isCancelled || s.count > 0 || s.end != nil { return true }
            s.waiter = continuation
            return false
        }
        if ready { continuation.resume(returning: .recheck) }
    }
}

/// The iterating task's side of a channel: its local batch, and the
/// ownership that ends the observation when the iterator goes away.
///
/// Not `Sendable`: only the iterating task touches it.
@usableFromInline
final class _AsyncValuesConsumer<Element: Sendable, Failure: Swift.Error> {
    @usableFromInline let channel: _AsyncValuesChannel<Element, Failure>
    @usableFromInline var batch: [Element] = []
    @usableFromInline var index = 0
    @usableFromInline var isDone = false

    @inlinable
    init(channel: _AsyncValuesChannel<Element, Failure>) {
        self.channel = channel
    }

    deinit {
        // Leaving the loop early (or finishing it) releases the iterator:
        // end the observation or interrupt the run at once.
        channel.cancel()
    }

    /// The next value of the local batch, if there is one and the task
    /// was not cancelled; synchronous.
    @inlinable
    func nextBuffered() -> Element? {
        guard index < batch.count, !isDone, !Task.isCancelled else { return nil }
        let value = batch[index]
        index += 1
        return value
    }

    @inlinable
    func next(isolation actor: isolated (any Actor)?) async throws(Failure) -> Element? {
        while true {
            if isDone { return nil }
            if Task.isCancelled {
                finishIteration()
                return nil
            }
            if index < batch.count {
                let value = batch[index]
                index += 1
                return value
            }
            batch.removeAll(keepingCapacity: true)
            index = 0
            var spare: [Element] = []
            swap(&spare, &batch)
            let taken = channel.take(spare: &spare)
            // The batch, or the emptied capacity, back in place.
            swap(&spare, &batch)
            switch taken {
            case .batch:
                break
            case let .one(value):
                return value
            case let .end(end):
                finishIteration()
                if case let .failed(error) = end { throw error }
                return nil
            case .cancelled:
                finishIteration()
                return nil
            case .empty:
                let channel = self.channel
                let wake = await withTaskCancellationHandler {
                    await withUnsafeContinuation(isolation: actor) { continuation in
                        channel.park(continuation)
                    }
                } onCancel: {
                    channel.cancel()
                }
                if case let .value(value) = wake { return value }
            }
        }
    }

    @inlinable
    func finishIteration() {
        isDone = true
        batch = []
        index = 0
        channel.cancel()
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
        AsyncValues(bufferingPolicy: bufferingPolicy) { [self] channel in
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
        AsyncValues(bufferingPolicy: bufferingPolicy) { [self] channel in
            start(channel.observer)
        }
    }
}
