extension Signal {
    /// What a signal sends: any number of values, then at most one terminal
    /// event (`failed`, `completed` or `interrupted`).
    ///
    /// Sendable: when `Value` and `Error` are.
    public enum Event {
        /// A value. Not terminal.
        case value(Value)
        /// The signal failed. Terminal.
        case failed(Error)
        /// The signal completed. Terminal.
        case completed
        /// The signal was interrupted: cancelled, disposed or observed after
        /// it had already terminated. Terminal.
        case interrupted

        /// Whether this event ends the signal.
        @inlinable
        public var isTerminating: Bool {
            if case .value = self { return false }
            return true
        }

        /// Whether this event is `completed`.
        @inlinable
        public var isCompleted: Bool {
            if case .completed = self { return true }
            return false
        }

        /// The value, if this is a `value` event.
        @inlinable
        public var value: Value? {
            if case let .value(value) = self { return value }
            return nil
        }

        /// The error, if this is a `failed` event.
        @inlinable
        public var error: Error? {
            if case let .failed(error) = self { return error }
            return nil
        }

        /// The same event with its value transformed.
        @inlinable
        public func map<U>(_ transform: (Value) -> U) -> Signal<U, Error>.Event {
            switch self {
            case let .value(value): return .value(transform(value))
            case let .failed(error): return .failed(error)
            case .completed: return .completed
            case .interrupted: return .interrupted
            }
        }

        /// The same event with its error transformed.
        @inlinable
        public func mapError<F>(_ transform: (Error) -> F) -> Signal<Value, F>.Event {
            switch self {
            case let .value(value): return .value(value)
            case let .failed(error): return .failed(transform(error))
            case .completed: return .completed
            case .interrupted: return .interrupted
            }
        }
    }
}

extension Signal.Event: Sendable where Value: Sendable, Error: Sendable {}

extension Signal.Event: Equatable where Value: Equatable, Error: Equatable {}

extension Signal.Event: Hashable where Value: Hashable, Error: Hashable {}

extension Signal.Event: CustomStringConvertible {
    /// The event as ReactiveSwift prints it: `VALUE 3`, `FAILED <error>`,
    /// `COMPLETED`, `INTERRUPTED`.
    public var description: String {
        switch self {
        case let .value(value): return "VALUE \(value)"
        case let .failed(error): return "FAILED \(error)"
        case .completed: return "COMPLETED"
        case .interrupted: return "INTERRUPTED"
        }
    }
}
