import Synchronization

/// A property built the conventional way (ReactiveSwift's `MutableProperty`):
/// one `Mutex` guards the value and the observers, and is held while a
/// change is delivered, so deliveries are serialized and a producer start
/// (current value, then attach) cannot miss or repeat a change. A set from
/// inside an observer would deadlock (ReactiveSwift traps); the bench never
/// does one.
public final class MutexProperty<Value>: @unchecked Sendable {
    @usableFromInline
    struct State: @unchecked Sendable {
        @usableFromInline var value: Value
        @usableFromInline var observers: ContiguousArray<(id: Int, action: (Value) -> Void)> = []
        @usableFromInline var nextID = 0

        @inlinable init(value: Value) { self.value = value }
    }

    @usableFromInline let state: Mutex<State>

    @inlinable public init(_ value: Value) {
        state = Mutex(State(value: value))
    }

    @inlinable public var value: Value {
        get { state.withLock { $0.value } }
        set {
            state.withLock { state in
                state.value = newValue
                for observer in state.observers { observer.action(newValue) }
            }
        }
    }

    /// Attaches `action` to the changes; returns its id for `remove`.
    @discardableResult
    @inlinable public func observe(_ action: @escaping (Value) -> Void) -> Int {
        state.withLock { state in
            state.nextID += 1
            state.observers.append((state.nextID, action))
            return state.nextID
        }
    }

    /// The producer's start: the current value, then the changes.
    @inlinable public func start(_ action: @escaping (Value) -> Void) -> Int {
        state.withLock { state in
            action(state.value)
            state.nextID += 1
            state.observers.append((state.nextID, action))
            return state.nextID
        }
    }

    @inlinable public func remove(_ id: Int) {
        state.withLock { state in state.observers.removeAll { $0.id == id } }
    }
}

/// `replayLazily(upTo:)` built the conventional way (RxSwift's
/// `ReplaySubject`): one `Mutex` guards the buffer and the observers, held
/// while a value is delivered and while the buffer is replayed to a start.
public final class MutexReplay<Value>: @unchecked Sendable {
    @usableFromInline
    struct State: @unchecked Sendable {
        @usableFromInline var buffer: [Value] = []
        @usableFromInline var observers: ContiguousArray<(id: Int, action: (Value) -> Void)> = []
        @usableFromInline var nextID = 0

        @inlinable init() {}
    }

    @usableFromInline let capacity: Int
    @usableFromInline let state = Mutex(State())

    @inlinable public init(capacity: Int) { self.capacity = capacity }

    @inlinable public func send(_ value: Value) {
        state.withLock { state in
            state.buffer.append(value)
            if state.buffer.count > capacity { state.buffer.removeFirst(state.buffer.count - capacity) }
            for observer in state.observers { observer.action(value) }
        }
    }

    @inlinable public func start(_ action: @escaping (Value) -> Void) -> Int {
        state.withLock { state in
            for value in state.buffer { action(value) }
            state.nextID += 1
            state.observers.append((state.nextID, action))
            return state.nextID
        }
    }

    @inlinable public func remove(_ id: Int) {
        state.withLock { state in state.observers.removeAll { $0.id == id } }
    }
}
