import Synchronization

// map and filter for both baselines, so operator chains can be compared.
// Each derived signal is a pipe whose input is fed from an observer of the
// upstream; terminal events are forwarded. The derived signal lives as long
// as the upstream holds that observer (until it terminates).

extension LockedSignal {
    /// Values transformed by `transform`.
    @inlinable
    public func map<U>(_ transform: @escaping (Value) -> U) -> LockedSignal<U, Error> {
        let (output, input) = LockedSignal<U, Error>.pipe()
        observe(Observer { event in input.send(event.map(transform)) })
        return output
    }

    /// Only the values for which `isIncluded` is true.
    @inlinable
    public func filter(_ isIncluded: @escaping (Value) -> Bool) -> LockedSignal<Value, Error> {
        let (output, input) = LockedSignal<Value, Error>.pipe()
        observe(Observer { event in
            if case let .value(v) = event, !isIncluded(v) { return }
            input.send(event)
        })
        return output
    }
}

extension SnapshotSignal {
    /// Values transformed by `transform`.
    @inlinable
    public func map<U>(_ transform: @escaping (Value) -> U) -> SnapshotSignal<U, Error> {
        let (output, input) = SnapshotSignal<U, Error>.derivedPipe()
        observe(Observer { event in input.send(event.map(transform)) })
        return output
    }

    /// Only the values for which `isIncluded` is true.
    @inlinable
    public func filter(_ isIncluded: @escaping (Value) -> Bool) -> SnapshotSignal<Value, Error> {
        let (output, input) = SnapshotSignal<Value, Error>.derivedPipe()
        observe(Observer { event in
            if case let .value(v) = event, !isIncluded(v) { return }
            input.send(event)
        })
        return output
    }
}

// merge and combineLatest for both baselines, written the conventional way:
// the output is a new signal of the same kind, fed by one observer on each
// input.
//
// - merge forwards every event of either input into a serialized output (the
//   inputs may deliver on two threads at once, so the output's own send
//   serialization is what keeps its delivery serial). `completed` once both
//   inputs have completed (an atomic countdown); the first `failed` or
//   `interrupted` of either input ends the output.
// - combineLatest keeps the latest pair and the completion flags under one
//   `Synchronization.Mutex` and sends into the output while holding it, as
//   ReactiveSwift and RxSwift do: so the order of the output's values is the
//   order of the state changes, and the last value sent is always the pair
//   of the inputs' last values. Values before both inputs have one only
//   update the latest. `completed` once both have completed; the first
//   `failed` or `interrupted` of either ends the output.
//
// Limitation, shared with ReactiveSwift's non-recursive lock: an observer of
// a combineLatest output that sends, on the delivering thread, into the
// *other* input deadlocks on the mutex. The bench never does.
//
// As for map and filter, the input observations are not disposed when the
// output terminates early (a failure of one input): the other input's later
// events reach the terminated output, which ignores them.

/// Counts the inputs of a merge down to zero; the call that reaches zero
/// sends `completed`.
@usableFromInline
final class BaselineCountdown: Sendable {
    @usableFromInline let remaining: Atomic<Int>

    @inlinable init(_ count: Int) { remaining = Atomic(count) }

    /// True for exactly one call: the one that brings the count to zero.
    @inlinable func arrive() -> Bool {
        remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0
    }
}

/// The state of a two-input combineLatest, guarded by a mutex. The values
/// are Sendable: they move from the inputs' threads into the mutex.
@usableFromInline
final class BaselineLatest<First: Sendable, Second: Sendable>: Sendable {
    @usableFromInline
    struct State {
        @usableFromInline var first: First?
        @usableFromInline var second: Second?
        @usableFromInline var firstCompleted = false
        @usableFromInline var secondCompleted = false

        @inlinable init() {}
    }

    @usableFromInline let state = Mutex(State())

    @inlinable init() {}

    /// Handles an event of the first input; `send` delivers to the output and
    /// is called with the mutex held.
    @inlinable
    func receiveFirst<Error>(
        _ event: BaselineEvent<First, Error>, _ send: (BaselineEvent<(First, Second), Error>) -> Void
    ) {
        state.withLock { s in
            switch event {
            case let .value(v):
                s.first = v
                if let second = s.second { send(.value((v, second))) }
            case .completed:
                s.firstCompleted = true
                if s.secondCompleted { send(.completed) }
            case let .failed(e): send(.failed(e))
            case .interrupted: send(.interrupted)
            }
        }
    }

    /// Handles an event of the second input; see `receiveFirst`.
    @inlinable
    func receiveSecond<Error>(
        _ event: BaselineEvent<Second, Error>, _ send: (BaselineEvent<(First, Second), Error>) -> Void
    ) {
        state.withLock { s in
            switch event {
            case let .value(v):
                s.second = v
                if let first = s.first { send(.value((first, v))) }
            case .completed:
                s.secondCompleted = true
                if s.firstCompleted { send(.completed) }
            case let .failed(e): send(.failed(e))
            case .interrupted: send(.interrupted)
            }
        }
    }
}

extension LockedSignal {
    /// Every value of this signal and of `other`, as they arrive.
    @inlinable
    public func merge(with other: LockedSignal<Value, Error>) -> LockedSignal<Value, Error> {
        let (output, input) = LockedSignal<Value, Error>.pipe()
        let countdown = BaselineCountdown(2)
        let forward = Observer { event in
            if case .completed = event {
                if countdown.arrive() { input.sendCompleted() }
            } else {
                input.send(event)
            }
        }
        observe(forward)
        other.observe(forward)
        return output
    }

    /// The latest value of this signal paired with the latest of `other`.
    @inlinable
    public func combineLatest<U: Sendable>(with other: LockedSignal<U, Error>) -> LockedSignal<(Value, U), Error>
    where Value: Sendable {
        let (output, input) = LockedSignal<(Value, U), Error>.pipe()
        let latest = BaselineLatest<Value, U>()
        observe(Observer { event in latest.receiveFirst(event) { input.send($0) } })
        other.observe(LockedSignal<U, Error>.Observer { event in latest.receiveSecond(event) { input.send($0) } })
        return output
    }
}

extension SnapshotSignal {
    /// Every value of this signal and of `other`, as they arrive. The output
    /// takes its send lock: its two inputs deliver independently.
    @inlinable
    public func merge(with other: SnapshotSignal<Value, Error>) -> SnapshotSignal<Value, Error> {
        let (output, input) = SnapshotSignal<Value, Error>.pipe()
        let countdown = BaselineCountdown(2)
        let forward = Observer { event in
            if case .completed = event {
                if countdown.arrive() { input.sendCompleted() }
            } else {
                input.send(event)
            }
        }
        observe(forward)
        other.observe(forward)
        return output
    }

    /// The latest value of this signal paired with the latest of `other`.
    /// The output takes no send lock: it is only sent to with the
    /// combineLatest mutex held, which already serializes it.
    @inlinable
    public func combineLatest<U: Sendable>(with other: SnapshotSignal<U, Error>) -> SnapshotSignal<(Value, U), Error>
    where Value: Sendable {
        let (output, input) = SnapshotSignal<(Value, U), Error>.derivedPipe()
        let latest = BaselineLatest<Value, U>()
        observe(Observer { event in latest.receiveFirst(event) { input.send($0) } })
        other.observe(SnapshotSignal<U, Error>.Observer { event in latest.receiveSecond(event) { input.send($0) } })
        return output
    }
}
