/// An event of a baseline signal: any number of values, then at most one
/// terminal event. Mirrors `Signal.Event` so the contenders deliver the same
/// payload.
public enum BaselineEvent<Value, Error: Swift.Error> {
    case value(Value)
    case failed(Error)
    case completed
    case interrupted

    /// Whether this event ends the signal.
    @inlinable
    public var isTerminating: Bool {
        if case .value = self { return false }
        return true
    }

    /// The value carried by a `.value` event.
    @inlinable
    public var value: Value? {
        if case let .value(v) = self { return v }
        return nil
    }

    /// The same event with its value transformed; terminal events pass through.
    @inlinable
    public func map<U>(_ transform: (Value) -> U) -> BaselineEvent<U, Error> {
        switch self {
        case let .value(v): return .value(transform(v))
        case let .failed(e): return .failed(e)
        case .completed: return .completed
        case .interrupted: return .interrupted
        }
    }

    /// The same terminal event, retyped; nil for `.value`.
    @inlinable
    public func terminal<U>(as _: U.Type = U.self) -> BaselineEvent<U, Error>? {
        switch self {
        case .value: return nil
        case let .failed(e): return .failed(e)
        case .completed: return .completed
        case .interrupted: return .interrupted
        }
    }
}

extension BaselineEvent: Sendable where Value: Sendable, Error: Sendable {}
