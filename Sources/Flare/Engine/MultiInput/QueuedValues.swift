// MARK: Queues (zip)

/// What became of an input's event in `_QueuedValues`.
@usableFromInline
enum _ZipArrival<Values, Failure: Swift.Error> {
    /// A value that completed a tuple: this one.
    case tuple(Values)
    /// A value, queued.
    case queued
    /// The input completed; `queueIsEmpty` if no value of it is waiting.
    case completed(queueIsEmpty: Bool)
    case failed(Failure)
    case interrupted
}

/// What a value's arrival changed in a zip's queues.
@usableFromInline
struct _QueueChange {
    /// The value was queued into an empty queue: its input is now ready.
    @usableFromInline
    var filledEmpty = false

    /// How many queues the tuple that left emptied.
    @usableFromInline
    var emptied = 0

    /// The tuple that left emptied the queue of a completed input: no
    /// further tuple can be formed.
    @usableFromInline
    var exhausted = false

    @inlinable
    init() {}
}

/// A first-in first-out queue of values per input, and which inputs have
/// completed.
@usableFromInline
protocol _QueuedValues {
    associatedtype Tag
    associatedtype Values
    associatedtype Failure: Swift.Error

    /// Takes an input's event. A value, if its input's queue is empty and
    /// `othersReady` (every other input has a value waiting), makes the
    /// tuple of this value and the oldest of every other input, removed;
    /// otherwise it is queued. Notes in `change` what happened to the
    /// queues.
    mutating func receive(_ tag: Tag, othersReady: Bool, _ change: inout _QueueChange) -> _ZipArrival<Values, Failure>

    /// Removes and returns the oldest value of every input (no queue may be
    /// empty), noting in `change` the queues it empties.
    mutating func removeFirst(_ change: inout _QueueChange) -> Values
}

extension _ZipArrival {
    /// This arrival, a tuple of a part of a tree made a tuple of the whole
    /// by `whole` (which adds the oldest values of the other part).
    @inlinable
    func mapTuple<Whole>(_ whole: (Values) -> Whole) -> _ZipArrival<Whole, Failure> {
        switch self {
        case let .tuple(values): .tuple(whole(values))
        case .queued: .queued
        case let .completed(queueIsEmpty): .completed(queueIsEmpty: queueIsEmpty)
        case let .failed(error): .failed(error)
        case .interrupted: .interrupted
        }
    }
}

/// The queue of one input.
@usableFromInline
struct _QueueSlot<Value, Failure: Swift.Error>: _QueuedValues {
    @usableFromInline
    var queue = _FIFO<Value>()

    @usableFromInline
    var completed = false

    @inlinable
    init() {}

    @inlinable
    mutating func receive(
        _ tag: Signal<Value, Failure>.Event, othersReady: Bool, _ change: inout _QueueChange
    ) -> _ZipArrival<Value, Failure> {
        switch tag {
        case let .value(value):
            if queue.isEmpty {
                if othersReady { return .tuple(value) }
                change.filledEmpty = true
            }
            queue.append(value)
            return .queued
        case .completed:
            completed = true
            return .completed(queueIsEmpty: queue.isEmpty)
        case let .failed(error):
            return .failed(error)
        case .interrupted:
            return .interrupted
        }
    }

    @inlinable
    mutating func removeFirst(_ change: inout _QueueChange) -> Value {
        let value = queue.removeFirst()
        if queue.isEmpty {
            change.emptied += 1
            if completed { change.exhausted = true }
        }
        return value
    }
}

/// The queues of the inputs of `first`, then of `second`.
@usableFromInline
struct _QueuePair<First: _QueuedValues, Second: _QueuedValues>: _QueuedValues where First.Failure == Second.Failure {
    @usableFromInline
    var first: First

    @usableFromInline
    var second: Second

    @inlinable
    init(first: First, second: Second) {
        self.first = first
        self.second = second
    }

    @inlinable
    mutating func receive(
        _ tag: _Pair<First.Tag, Second.Tag>, othersReady: Bool, _ change: inout _QueueChange
    ) -> _ZipArrival<(First.Values, Second.Values), First.Failure> {
        switch tag {
        case let .first(tag):
            first.receive(tag, othersReady: othersReady, &change).mapTuple { ($0, second.removeFirst(&change)) }
        case let .second(tag):
            second.receive(tag, othersReady: othersReady, &change).mapTuple { (first.removeFirst(&change), $0) }
        }
    }

    @inlinable
    mutating func removeFirst(_ change: inout _QueueChange) -> (First.Values, Second.Values) {
        (first.removeFirst(&change), second.removeFirst(&change))
    }
}

/// The queues of inputs of one type.
@usableFromInline
struct _QueueArray<Value, Failure: Swift.Error>: _QueuedValues {
    @usableFromInline
    var queues: ContiguousArray<_FIFO<Value>>

    @usableFromInline
    var completed: ContiguousArray<Bool>

    @inlinable
    init(count: Int) {
        queues = ContiguousArray(repeating: _FIFO<Value>(), count: count)
        completed = ContiguousArray(repeating: false, count: count)
    }

    @inlinable
    mutating func receive(
        _ tag: (index: Int, event: Signal<Value, Failure>.Event), othersReady: Bool, _ change: inout _QueueChange
    ) -> _ZipArrival<[Value], Failure> {
        let index = tag.index
        switch tag.event {
        case let .value(value):
            if queues[index].isEmpty {
                if othersReady {
                    var values: [Value] = []
                    values.reserveCapacity(queues.count)
                    for input in queues.indices {
                        values.append(input == index ? value : removeFirst(of: input, &change))
                    }
                    return .tuple(values)
                }
                change.filledEmpty = true
            }
            queues[index].append(value)
            return .queued
        case .completed:
            completed[index] = true
            return .completed(queueIsEmpty: queues[index].isEmpty)
        case let .failed(error):
            return .failed(error)
        case .interrupted:
            return .interrupted
        }
    }

    @inlinable
    mutating func removeFirst(of input: Int, _ change: inout _QueueChange) -> Value {
        let value = queues[input].removeFirst()
        if queues[input].isEmpty {
            change.emptied += 1
            if completed[input] { change.exhausted = true }
        }
        return value
    }

    @inlinable
    mutating func removeFirst(_ change: inout _QueueChange) -> [Value] {
        var values: [Value] = []
        values.reserveCapacity(queues.count)
        for input in queues.indices { values.append(removeFirst(of: input, &change)) }
        return values
    }
}
