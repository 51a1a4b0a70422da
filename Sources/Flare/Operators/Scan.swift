extension Signal {
    /// Combines each value into a running result and sends the result after
    /// each value.
    ///
    /// Sends nothing for `initialResult` itself. Terminal events pass
    /// through unchanged. Observes upstream until either terminates.
    ///
    /// - Parameters:
    ///   - initialResult: The result before any value.
    ///   - nextPartialResult: Combines the result so far with a value.
    @inlinable
    public func scan<U>(_ initialResult: U, _ nextPartialResult: @escaping (U, Value) -> U) -> Signal<U, Error> {
        scan(into: initialResult) { result, value in result = nextPartialResult(result, value) }
    }

    /// Combines each value into a running result, updated in place, and
    /// sends the result after each value.
    ///
    /// Same event semantics as `scan(_:_:)`.
    @inlinable
    public func scan<U>(into initialResult: U, _ nextPartialResult: @escaping (inout U, Value) -> Void) -> Signal<U, Error> {
        scanMap(into: initialResult) { result, value in
            nextPartialResult(&result, value)
            return result
        }
    }

    /// Threads a state through the values and sends an output computed with
    /// it for each value.
    ///
    /// `next` receives the state so far and the value, and returns the next
    /// state and the output to send. Terminal events pass through unchanged.
    /// Observes upstream until either terminates.
    @inlinable
    public func scanMap<State, U>(_ initialState: State, _ next: @escaping (State, Value) -> (State, U)) -> Signal<U, Error> {
        scanMap(into: initialState) { state, value in
            let (nextState, output) = next(state, value)
            state = nextState
            return output
        }
    }

    /// Threads a state, updated in place, through the values and sends an
    /// output computed with it for each value.
    ///
    /// Same event semantics as `scanMap(_:_:)`.
    @inlinable
    public func scanMap<State, U>(into initialState: State, _ next: @escaping (inout State, Value) -> U) -> Signal<U, Error> {
        liftCore { downstream in
            var state = initialState
            return { event in
                switch event {
                case let .value(value): downstream.deliverHeld(.value(next(&state, value)))
                case let .failed(error): downstream.deliverHeld(.failed(error))
                case .completed: downstream.deliverHeld(.completed)
                case .interrupted: downstream.deliverHeld(.interrupted)
                }
            }
        }
    }

    /// Sends each value paired with the value before it, starting with the
    /// second value.
    ///
    /// The first value is held, not sent. Terminal events pass through
    /// unchanged. Observes upstream until either terminates.
    @inlinable
    public func combinePrevious() -> Signal<(Value, Value), Error> {
        combinePrevious(seed: nil)
    }

    /// Sends each value paired with the value before it; the first value is
    /// paired with `initial`.
    ///
    /// Terminal events pass through unchanged. Observes upstream until
    /// either terminates.
    @inlinable
    public func combinePrevious(_ initial: Value) -> Signal<(Value, Value), Error> {
        combinePrevious(seed: .some(initial))
    }

    /// `seed` is `Value?` rather than a defaulted `Value`: when `Value` is
    /// itself optional, a `nil` initial value must stay distinct from no
    /// initial value.
    @inlinable
    func combinePrevious(seed: Value?) -> Signal<(Value, Value), Error> {
        liftCore { downstream in
            var previous = seed
            return { event in
                switch event {
                case let .value(value):
                    if let previous { downstream.deliverHeld(.value((previous, value))) }
                    previous = value
                case let .failed(error): downstream.deliverHeld(.failed(error))
                case .completed: downstream.deliverHeld(.completed)
                case .interrupted: downstream.deliverHeld(.interrupted)
                }
            }
        }
    }
}
