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
