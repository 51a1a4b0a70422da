import Synchronization

/// A cold producer for the baseline flatten: `start` runs the work, sending
/// to the observer (synchronously or later, from any thread).
public struct BaselineProducer<Value, Error: Swift.Error>: @unchecked Sendable {
    public let start: (BaselineObserver<Value, Error>) -> Void

    @inlinable
    public init(_ start: @escaping (BaselineObserver<Value, Error>) -> Void) {
        self.start = start
    }

    /// A producer that sends `value`, then completes.
    @inlinable
    public init(value: Value) {
        self.init { observer in
            observer.send(.value(value))
            observer.send(.completed)
        }
    }
}

/// The flatten logic Flare's engine runs (merge / concurrent, concat,
/// latest), with its state behind a `Synchronization.Mutex`, as
/// ReactiveSwift guards its flatten state: each inner gets an id, its
/// events are checked against the active set under the lock, and forwarded
/// to the output `LockedSignal` outside it (whose own lock serializes the
/// delivery). Inners start outside the lock, and a trampoline starts the
/// queued ones in a loop, so that synchronous inners neither deadlock nor
/// recurse.
public final class BaselineFlatten<Outer, Value, Error: Swift.Error>: @unchecked Sendable {
    public enum Strategy: Sendable {
        case concurrent(limit: Int)
        case latest
    }

    @usableFromInline
    struct State {
        @usableFromInline var active = Set<UInt64>()
        @usableFromInline var nextID: UInt64 = 0
        @usableFromInline var waiting: [BaselineProducer<Value, Error>] = []
        @usableFromInline var waitingHead = 0
        @usableFromInline var outerCompleted = false
        @usableFromInline var terminated = false
        @usableFromInline var starting = false

        @usableFromInline init() {}
    }

    @usableFromInline let strategy: Strategy
    @usableFromInline let transform: (Outer) -> BaselineProducer<Value, Error>
    @usableFromInline let state = Mutex(State())
    public let output: LockedSignal<Value, Error>
    @usableFromInline let input: LockedSignal<Value, Error>.Input

    @inlinable
    public init(
        _ outer: LockedSignal<Outer, Error>, _ strategy: Strategy,
        _ transform: @escaping (Outer) -> BaselineProducer<Value, Error>
    ) {
        self.strategy = strategy
        self.transform = transform
        (output, input) = LockedSignal<Value, Error>.pipe()
        outer.observe { [self] event in outerEvent(event) }
    }

    @inlinable
    var limit: Int {
        if case let .concurrent(limit) = strategy { return limit }
        return 1
    }

    @inlinable
    func outerEvent(_ event: BaselineEvent<Outer, Error>) {
        switch event {
        case let .value(value):
            let producer = transform(value)
            switch strategy {
            case .latest:
                let id: UInt64? = state.withLock { state in
                    guard !state.terminated else { return nil }
                    let id = state.nextID
                    state.nextID += 1
                    state.active = [id]
                    return id
                }
                if let id { start(producer, id) }
            case .concurrent:
                state.withLock { state in
                    state.waiting.append(producer)
                }
                startWaiting()
            }
        case .completed:
            let done = state.withLock { state in
                state.outerCompleted = true
                return state.isDone && !state.terminated
            }
            if done { terminate(.completed) }
        case let .failed(error): terminate(.failed(error))
        case .interrupted: terminate(.interrupted)
        }
    }

    /// Starts queued inners while there is room, in a loop: an inner that
    /// completes synchronously inside `start` only frees its slot, and this
    /// loop starts the next one.
    @inlinable
    func startWaiting() {
        let limit = self.limit
        while true {
            let next: (BaselineProducer<Value, Error>, UInt64)? = state.withLock { state in
                guard !state.starting, !state.terminated, state.active.count < limit,
                      state.waitingHead < state.waiting.count
                else { return nil }
                let producer = state.waiting[state.waitingHead]
                state.waitingHead += 1
                if state.waitingHead == state.waiting.count {
                    state.waiting.removeAll(keepingCapacity: true)
                    state.waitingHead = 0
                }
                let id = state.nextID
                state.nextID += 1
                state.active.insert(id)
                state.starting = true
                return (producer, id)
            }
            guard let (producer, id) = next else { return }
            start(producer, id)
            state.withLock { $0.starting = false }
        }
    }

    @inlinable
    func start(_ producer: BaselineProducer<Value, Error>, _ id: UInt64) {
        producer.start(BaselineObserver { [self] event in innerEvent(id, event) })
    }

    @inlinable
    func innerEvent(_ id: UInt64, _ event: BaselineEvent<Value, Error>) {
        switch event {
        case .value:
            let active = state.withLock { !$0.terminated && $0.active.contains(id) }
            if active { input.send(event) }
        case .completed, .interrupted:
            let done: Bool? = state.withLock { state in
                guard !state.terminated, state.active.remove(id) != nil else { return nil }
                return state.isDone
            }
            guard let done else { return }
            if done {
                terminate(.completed)
            } else if case .concurrent = strategy {
                startWaiting()
            }
        case .failed:
            let active = state.withLock { !$0.terminated && $0.active.contains(id) }
            if active { terminate(event) }
        }
    }

    @inlinable
    func terminate(_ event: BaselineEvent<Value, Error>) {
        let first = state.withLock { state in
            defer { state.terminated = true }
            return !state.terminated
        }
        if first { input.send(event) }
    }
}

extension BaselineFlatten.State {
    @inlinable
    var isDone: Bool { outerCompleted && active.isEmpty && waitingHead == waiting.count }
}
