import Synchronization

/// A signal built the simplest conventional way: one `Mutex` guards the
/// observer list and is held for the whole delivery of an event.
///
/// Semantics (the same contracts Flare's `Signal` keeps):
/// - Serialized delivery: the lock is held while an event is delivered, so
///   observers never run concurrently.
/// - Termination: the first terminal event is delivered, then the observers
///   are released; later sends are ignored. Observing a terminated signal
///   delivers `.interrupted` at once.
/// - Reentrancy: a send, observe or dispose from inside an observer, on the
///   delivering thread, cannot take the (non-recursive) lock again. The
///   delivering thread is recorded, so such calls run without the lock they
///   already hold: sends are queued and delivered after the current event
///   (FIFO), observers attached during a delivery receive the next event, and
///   an observer disposed during a delivery receives nothing further.
/// - Disposal from another thread waits for the delivery in progress (the
///   price of this design that the disposal-latency scenario shows).
///
/// Observers are held in an array of unmanaged references: the array, not
/// the send loop, owns the retain, so a delivery is one indirect call per
/// observer with no reference counting. Disposed slots become tombstones
/// (nil) and are compacted once they make up half the array.
public final class LockedSignal<Value, Error: Swift.Error>: @unchecked Sendable {
    public typealias Event = BaselineEvent<Value, Error>
    public typealias Observer = BaselineObserver<Value, Error>

    /// Everything the lock guards. Kept behind a pointer so that the thread
    /// holding the lock can reach it again from a reentrant call (and so that
    /// accesses need no dynamic exclusivity checks).
    @usableFromInline
    struct State {
        /// Retained (+1) observers in attach order; nil marks a disposed slot.
        @usableFromInline var observers: ContiguousArray<Unmanaged<Observer>?> = []
        /// The token of each slot, ascending, for lookup by binary search.
        @usableFromInline var tokens: ContiguousArray<UInt64> = []
        @usableFromInline var nextToken: UInt64 = 0
        @usableFromInline var tombstones = 0
        @usableFromInline var terminated = false
        /// Events sent reentrantly during a delivery.
        @usableFromInline var pending: ContiguousArray<Event> = []
        /// Observers removed during a delivery, released after it.
        @usableFromInline var graveyard: ContiguousArray<Unmanaged<Observer>> = []

        @usableFromInline init() {}
    }

    @usableFromInline let lock = Mutex<Void>(())
    /// The thread delivering under the lock, or 0. Only a thread's own store
    /// can make the value equal its id, so relaxed loads are enough to tell
    /// "I hold the lock" from "someone else (or nobody) does".
    @usableFromInline let owner = Atomic<UInt>(0)
    @usableFromInline let state: UnsafeMutablePointer<State>

    @usableFromInline
    init() {
        state = .allocate(capacity: 1)
        state.initialize(to: State())
    }

    deinit {
        for o in state.pointee.observers { o?.release() }
        for o in state.pointee.graveyard { o.release() }
        state.deinitialize(count: 1)
        state.deallocate()
    }

    /// A signal and the input that sends into it.
    @inlinable
    public static func pipe() -> (output: LockedSignal, input: Input) {
        let signal = LockedSignal()
        return (signal, Input(signal))
    }

    /// The sending side of a pipe.
    @frozen
    public struct Input: Sendable {
        @usableFromInline let signal: LockedSignal

        @inlinable init(_ signal: LockedSignal) { self.signal = signal }

        @inlinable public func send(_ event: Event) { signal.send(event) }
        @inlinable public func send(value: Value) { signal.send(.value(value)) }
        @inlinable public func send(error: Error) { signal.send(.failed(error)) }
        @inlinable public func sendCompleted() { signal.send(.completed) }
        @inlinable public func sendInterrupted() { signal.send(.interrupted) }
    }

    /// A handle that detaches one observer.
    public final class Observation: @unchecked Sendable {
        @usableFromInline weak let signal: LockedSignal?
        @usableFromInline let token: UInt64
        @usableFromInline let disposed = Atomic<Bool>(false)

        @inlinable init(_ signal: LockedSignal, _ token: UInt64) {
            self.signal = signal
            self.token = token
        }

        @inlinable public var isDisposed: Bool { disposed.load(ordering: .acquiring) }

        /// Detaches the observer. Idempotent; waits for a delivery in progress
        /// on another thread.
        @inlinable public func dispose() {
            guard !disposed.exchange(true, ordering: .acquiringAndReleasing) else { return }
            signal?.detach(token)
        }
    }

    // MARK: Sending

    @inlinable
    public func send(_ event: Event) {
        let me = baselineThreadID()
        if owner.load(ordering: .relaxed) == me {
            state.pointee.pending.append(event)
            return
        }
        var dead: ContiguousArray<Unmanaged<Observer>> = []
        lock.withLock { _ in
            owner.store(me, ordering: .relaxed)
            deliver(event)
            if !state.pointee.pending.isEmpty { drainPending() }
            owner.store(0, ordering: .relaxed)
            if !state.pointee.graveyard.isEmpty { swap(&dead, &state.pointee.graveyard) }
        }
        // Released outside the lock: a deinit may call back into the signal.
        for o in dead { o.release() }
    }

    /// Delivers one event to every attached observer. Lock held.
    @inlinable
    func deliver(_ event: Event) {
        let s = state
        guard !s.pointee.terminated else { return }
        let terminating = event.isTerminating
        if terminating { s.pointee.terminated = true }
        // Re-read the array on every step: a reentrant observe may grow it,
        // a reentrant dispose may empty a slot.
        let count = s.pointee.observers.count
        var i = 0
        while i < count {
            if let o = s.pointee.observers[i] {
                o._withUnsafeGuaranteedRef { $0.action(event) }
            }
            i &+= 1
        }
        if terminating { releaseAll() }
    }

    @inlinable
    @inline(never)
    func drainPending() {
        while !state.pointee.pending.isEmpty {
            let next = state.pointee.pending.removeFirst()
            deliver(next)
        }
    }

    /// After the terminal event: drop the observers and anything queued. The
    /// releases wait in the graveyard until the lock is released.
    @inlinable
    @inline(never)
    func releaseAll() {
        let s = state
        for o in s.pointee.observers { if let o { s.pointee.graveyard.append(o) } }
        s.pointee.observers = []
        s.pointee.tokens = []
        s.pointee.tombstones = 0
        s.pointee.pending = []
    }

    // MARK: Observing

    /// Attaches `observer`; it receives every event sent after this returns.
    /// On a terminated signal, delivers `.interrupted` and returns nil.
    @discardableResult
    @inlinable
    public func observe(_ observer: Observer) -> Observation? {
        let token: UInt64?
        if owner.load(ordering: .relaxed) == baselineThreadID() {
            token = attach(observer)
        } else {
            token = lock.withLock { _ in attach(observer) }
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

    /// Lock held.
    @inlinable
    func attach(_ observer: Observer) -> UInt64? {
        let s = state
        guard !s.pointee.terminated else { return nil }
        let token = s.pointee.nextToken
        s.pointee.nextToken = token &+ 1
        s.pointee.observers.append(Unmanaged.passRetained(observer))
        s.pointee.tokens.append(token)
        return token
    }

    @inlinable
    func detach(_ token: UInt64) {
        if owner.load(ordering: .relaxed) == baselineThreadID() {
            // Inside a delivery: the observer may be the one running now.
            if let o = remove(token, compacting: false) { state.pointee.graveyard.append(o) }
            return
        }
        let removed = lock.withLock { _ in remove(token, compacting: true) }
        removed?.release()
    }

    /// Empties the slot of `token`; returns the observer's +1 reference for
    /// the caller to release. Lock held.
    @inlinable
    func remove(_ token: UInt64, compacting: Bool) -> Unmanaged<Observer>? {
        let s = state
        guard let index = baselineIndex(of: token, in: s.pointee.tokens),
              let observer = s.pointee.observers[index] else { return nil }
        s.pointee.observers[index] = nil
        s.pointee.tombstones += 1
        if compacting, s.pointee.tombstones >= 16, s.pointee.tombstones * 2 >= s.pointee.observers.count {
            compact()
        }
        return observer
    }

    /// Squeezes out the tombstones in place, keeping attach order.
    @inlinable
    @inline(never)
    func compact() {
        let s = state
        let count = s.pointee.observers.count
        var w = 0
        for r in 0..<count {
            if let o = s.pointee.observers[r] {
                s.pointee.observers[w] = o
                s.pointee.tokens[w] = s.pointee.tokens[r]
                w += 1
            }
        }
        s.pointee.observers.removeLast(count - w)
        s.pointee.tokens.removeLast(count - w)
        s.pointee.tombstones = 0
    }
}

/// The index of `token` in an ascending array, or nil.
@inlinable
func baselineIndex(of token: UInt64, in tokens: ContiguousArray<UInt64>) -> Int? {
    var low = 0
    var high = tokens.count
    while low < high {
        let mid = (low + high) / 2
        if tokens[mid] < token { low = mid + 1 } else { high = mid }
    }
    return low < tokens.count && tokens[low] == token ? low : nil
}
