// MARK: Latest values (combineLatest)

/// What became of an input's event in `_LatestValues`.
@usableFromInline
enum _LatestArrival<Failure: Swift.Error> {
    /// A value, now its input's latest; `isFirst` if the input had none.
    case value(isFirst: Bool)
    case completed
    case failed(Failure)
    case interrupted
}

/// Storage for the latest value of every input.
@usableFromInline
protocol _LatestValues {
    associatedtype Tag
    associatedtype Values
    associatedtype Failure: Swift.Error

    /// Takes an input's event: keeps a value as that input's latest.
    mutating func receive(_ tag: Tag) -> _LatestArrival<Failure>

    /// The latest value of every input. Every input must have one.
    mutating func values() -> Values
}

extension Signal.Event {
    /// This event as it arrives in `_LatestValues`, its value, if any, kept
    /// in `latest`.
    @inlinable
    func _arrival(keepingIn latest: inout Value?) -> _LatestArrival<Error> {
        switch self {
        case let .value(value):
            let isFirst = latest == nil
            latest = value
            return .value(isFirst: isFirst)
        case .completed: return .completed
        case let .failed(error): return .failed(error)
        case .interrupted: return .interrupted
        }
    }
}

/// The latest value of one input.
@usableFromInline
struct _LatestSlot<Value, Failure: Swift.Error>: _LatestValues {
    @usableFromInline
    var value: Value?

    @inlinable
    init() {}

    @inlinable
    mutating func receive(_ tag: Signal<Value, Failure>.Event) -> _LatestArrival<Failure> {
        tag._arrival(keepingIn: &value)
    }

    @inlinable
    mutating func values() -> Value { value.unsafelyUnwrapped }
}

/// The latest values of the inputs of `first`, then of `second`.
@usableFromInline
struct _LatestPair<First: _LatestValues, Second: _LatestValues>: _LatestValues where First.Failure == Second.Failure {
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
    mutating func receive(_ tag: _Pair<First.Tag, Second.Tag>) -> _LatestArrival<First.Failure> {
        switch tag {
        case let .first(tag): first.receive(tag)
        case let .second(tag): second.receive(tag)
        }
    }

    @inlinable
    mutating func values() -> (First.Values, Second.Values) { (first.values(), second.values()) }
}

/// The latest values of inputs of one type.
@usableFromInline
struct _LatestArray<Value, Failure: Swift.Error>: _LatestValues {
    /// Fills up until every input has a value; empty from then on.
    @usableFromInline
    var partial: ContiguousArray<Value?>

    @usableFromInline
    var missing: Int

    /// Every input's value once each has one, then updated in place (the
    /// array is delivered, and copied only if an observer keeps it).
    @usableFromInline
    var latest: [Value] = []

    @inlinable
    init(count: Int) {
        partial = ContiguousArray(repeating: nil, count: count)
        missing = count
    }

    @inlinable
    mutating func receive(_ tag: (index: Int, event: Signal<Value, Failure>.Event)) -> _LatestArrival<Failure> {
        switch tag.event {
        case let .value(value):
            if missing == 0 {
                latest[tag.index] = value
                return .value(isFirst: false)
            }
            let isFirst = partial[tag.index] == nil
            if isFirst { missing -= 1 }
            partial[tag.index] = value
            return .value(isFirst: isFirst)
        case .completed: return .completed
        case let .failed(error): return .failed(error)
        case .interrupted: return .interrupted
        }
    }

    @inlinable
    mutating func values() -> [Value] {
        if !partial.isEmpty {
            latest = partial.map { $0.unsafelyUnwrapped }
            partial = []
        }
        return latest
    }
}
