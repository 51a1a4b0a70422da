import Synchronization

/// A signal built as ReactiveSwift builds it: a state lock guards a
/// copy-on-write observer array, a separate send lock serializes deliveries,
/// and each event is delivered to a snapshot of the array taken under the
/// state lock and iterated outside it.
///
/// Semantics (the same contracts Flare's `Signal` keeps, except where noted):
/// - Serialized delivery: the send lock is held for a whole delivery.
///   Signals derived by operators (`map`, `filter`) are fed only from their
///   upstream's serialized delivery and take no send lock of their own, as
///   ReactiveSwift does since its PR #797.
/// - Termination: the first terminal event is delivered to the observers
///   attached at that moment, which are then released; later sends are
///   ignored. Observing a terminated signal delivers `.interrupted` at once.
/// - Reentrancy: a send from inside an observer, on the delivering thread, is
///   queued and delivered after the current event (FIFO). Observe and dispose
///   take only the state lock, which no delivery holds, so they need no
///   special case.
/// - Disposal never waits for a delivery, but an observer disposed during a
///   delivery still receives the event in progress (it is in the snapshot),
///   and removing a slot while a snapshot is alive copies the whole array.
///
/// Disposed slots become tombstones (nil), compacted once they make up half
/// the array.
public final class SnapshotSignal<Value, Error: Swift.Error>: @unchecked Sendable {
    public typealias Event = BaselineEvent<Value, Error>
    public typealias Observer = BaselineObserver<Value, Error>

    /// What the state lock guards.
    @usableFromInline
    struct State: Sendable {
        /// Observers in attach order; nil marks a disposed slot. A sender's
        /// snapshot shares the buffer until the next mutation copies it.
        @usableFromInline var observers: ContiguousArray<Observer?> = []
        /// The token of each slot, ascending, for lookup by binary search.
        @usableFromInline var tokens: ContiguousArray<UInt64> = []
        @usableFromInline var nextToken: UInt64 = 0
        @usableFromInline var tombstones = 0
        @usableFromInline var terminated = false

        @usableFromInline init() {}
    }

    @usableFromInline let state = Mutex(State())
    @usableFromInline let sendLock = Mutex<Void>(())
    /// False for operator-derived signals, whose sends are already serialized.
    @usableFromInline let serialized: Bool
    /// The thread holding the send lock, or 0 (see `LockedSignal.owner`).
    @usableFromInline let sender = Atomic<UInt>(0)
    /// Events sent reentrantly; touched only by the thread holding the send lock.
    @usableFromInline let pending: UnsafeMutablePointer<ContiguousArray<Event>>

    @usableFromInline
    init(serialized: Bool) {
        self.serialized = serialized
        pending = .allocate(capacity: 1)
        pending.initialize(to: [])
    }

    deinit {
        pending.deinitialize(count: 1)
        pending.deallocate()
    }

    /// A signal and the input that sends into it.
    @inlinable
    public static func pipe() -> (output: SnapshotSignal, input: Input) {
        let signal = SnapshotSignal(serialized: true)
        return (signal, Input(signal))
    }

    /// A signal fed only from another signal's delivery (operators).
    @inlinable
    static func derivedPipe() -> (output: SnapshotSignal, input: Input) {
        let signal = SnapshotSignal(serialized: false)
        return (signal, Input(signal))
    }

    /// The sending side of a pipe.
    @frozen
    public struct Input: Sendable {
        @usableFromInline let signal: SnapshotSignal

        @inlinable init(_ signal: SnapshotSignal) { self.signal = signal }

        @inlinable public func send(_ event: Event) { signal.send(event) }
        @inlinable public func send(value: Value) { signal.send(.value(value)) }
        @inlinable public func send(error: Error) { signal.send(.failed(error)) }
        @inlinable public func sendCompleted() { signal.send(.completed) }
        @inlinable public func sendInterrupted() { signal.send(.interrupted) }
    }

    /// A handle that detaches one observer.
    public final class Observation: @unchecked Sendable {
        @usableFromInline weak let signal: SnapshotSignal?
        @usableFromInline let token: UInt64
        @usableFromInline let disposed = Atomic<Bool>(false)

        @inlinable init(_ signal: SnapshotSignal, _ token: UInt64) {
            self.signal = signal
            self.token = token
        }

        @inlinable public var isDisposed: Bool { disposed.load(ordering: .acquiring) }

        /// Detaches the observer. Idempotent; never waits for a delivery.
        @inlinable public func dispose() {
            guard !disposed.exchange(true, ordering: .acquiringAndReleasing) else { return }
            signal?.detach(token)
        }
    }

    // MARK: Sending

    @inlinable
    public func send(_ event: Event) {
        guard serialized else {
            deliver(event)
            return
        }
        let me = baselineThreadID()
        if sender.load(ordering: .relaxed) == me {
            pending.pointee.append(event)
            return
        }
        sendLock.withLock { _ in
            sender.store(me, ordering: .relaxed)
            deliver(event)
            if !pending.pointee.isEmpty { drainPending() }
            sender.store(0, ordering: .relaxed)
        }
    }

    /// Delivers one event to a snapshot of the observers. Send lock held (or
    /// called from the upstream's serialized delivery).
    @inlinable
    func deliver(_ event: Event) {
        let terminating = event.isTerminating
        let snapshot: ContiguousArray<Observer?>? = state.withLock { state in
            guard !state.terminated else { return nil }
            guard terminating else { return state.observers }
            state.terminated = true
            let observers = state.observers
            state.observers = []
            state.tokens = []
            state.tombstones = 0
            return observers
        }
        guard let snapshot else { return }
        // The snapshot owns a reference to every observer for the whole loop,
        // so the loop may use them at +0: viewing the slots as unmanaged
        // references (same layout) keeps retain/release out of the loop, which
        // would otherwise cost more than the calls themselves.
        snapshot.withUnsafeBufferPointer { slots in
            slots.withMemoryRebound(to: Unmanaged<Observer>?.self) { observers in
                for i in observers.indices {
                    if let o = observers[i] { o._withUnsafeGuaranteedRef { $0.action(event) } }
                }
            }
        }
        if terminating, serialized { pending.pointee = [] }
    }

    @inlinable
    @inline(never)
    func drainPending() {
        while !pending.pointee.isEmpty {
            let next = pending.pointee.removeFirst()
            deliver(next)
        }
    }

    // MARK: Observing

    /// Attaches `observer`; it receives every event sent after this returns.
    /// On a terminated signal, delivers `.interrupted` and returns nil.
    @discardableResult
    @inlinable
    public func observe(_ observer: Observer) -> Observation? {
        let token: UInt64? = state.withLock { state in
            guard !state.terminated else { return nil }
            let token = state.nextToken
            state.nextToken = token &+ 1
            state.observers.append(observer)
            state.tokens.append(token)
            return token
        }
        guard let token else {
            observer.send(.interrupted)
            return nil
        }
        return Observation(self, token)
    }

    /// Attaches a closure; see `observe(_:)`.
    @discardableResult
    @inlinable
    public func observe(_ action: @escaping (Event) -> Void) -> Observation? {
        observe(Observer(action))
    }

    /// Attaches a closure called with each value.
    @discardableResult
    @inlinable
    public func observeValues(_ action: @escaping (Value) -> Void) -> Observation? {
        observe(Observer { if case let .value(v) = $0 { action(v) } })
    }

    @inlinable
    func detach(_ token: UInt64) {
        let removed: Observer? = state.withLock { state in
            guard let index = baselineIndex(of: token, in: state.tokens),
                  let observer = state.observers[index] else { return nil }
            state.observers[index] = nil
            state.tombstones += 1
            if state.tombstones >= 16, state.tombstones * 2 >= state.observers.count {
                Self.compact(&state)
            }
            return observer
        }
        // The last reference may go here, outside the lock.
        _ = removed
    }

    /// Squeezes out the tombstones, keeping attach order (copies the array
    /// first if a snapshot shares it).
    @inlinable
    @inline(never)
    static func compact(_ state: inout State) {
        let count = state.observers.count
        var w = 0
        for r in 0..<count {
            if let o = state.observers[r] {
                state.observers[w] = o
                state.tokens[w] = state.tokens[r]
                w += 1
            }
        }
        state.observers.removeLast(count - w)
        state.tokens.removeLast(count - w)
        state.tombstones = 0
    }
}
