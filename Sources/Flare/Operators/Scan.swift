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
        _lift(_ScanMapOperator.scan(initialResult, nextPartialResult))
    }

    /// Combines each value into a running result, updated in place, and
    /// sends the result after each value.
    ///
    /// Same event semantics as `scan(_:_:)`.
    @inlinable
    public func scan<U>(into initialResult: U, _ nextPartialResult: @escaping (inout U, Value) -> Void) -> Signal<U, Error> {
        _lift(_ScanMapOperator.scan(into: initialResult, nextPartialResult))
    }

    /// Threads a state through the values and sends an output computed with
    /// it for each value.
    ///
    /// `next` receives the state so far and the value, and returns the next
    /// state and the output to send. Terminal events pass through unchanged.
    /// Observes upstream until either terminates.
    @inlinable
    public func scanMap<State, U>(_ initialState: State, _ next: @escaping (State, Value) -> (State, U)) -> Signal<U, Error> {
        _lift(_ScanMapOperator.scanMap(initialState, next))
    }

    /// Threads a state, updated in place, through the values and sends an
    /// output computed with it for each value.
    ///
    /// Same event semantics as `scanMap(_:_:)`.
    @inlinable
    public func scanMap<State, U>(into initialState: State, _ next: @escaping (inout State, Value) -> U) -> Signal<U, Error> {
        _lift(_ScanMapOperator(initialState: initialState, next: next))
    }

    /// Sends each value paired with the value before it, starting with the
    /// second value.
    ///
    /// The first value is held, not sent. Terminal events pass through
    /// unchanged. Observes upstream until either terminates.
    @inlinable
    public func combinePrevious() -> Signal<(Value, Value), Error> {
        _combinePrevious(seed: nil)
    }

    /// Sends each value paired with the value before it; the first value is
    /// paired with `initial`.
    ///
    /// Terminal events pass through unchanged. Observes upstream until
    /// either terminates.
    @inlinable
    public func combinePrevious(_ initial: Value) -> Signal<(Value, Value), Error> {
        _combinePrevious(seed: .some(initial))
    }

    /// `seed` is `Value?` rather than a defaulted `Value`: when `Value` is
    /// itself optional, a `nil` initial value must stay distinct from no
    /// initial value.
    @inlinable
    func _combinePrevious(seed: Value?) -> Signal<(Value, Value), Error> {
        _lift(_CombinePreviousOperator(seed: seed))
    }
}

/// `scanMap(into:_:)`, under every `scan`.
@usableFromInline
struct _ScanMapOperator<Value, State, U, Error: Swift.Error>: _UnaryOperator {
    @usableFromInline typealias Input = Value
    @usableFromInline typealias Output = U
    @usableFromInline typealias InputError = Error
    @usableFromInline typealias OutputError = Error
    @usableFromInline let initialState: State
    @usableFromInline let next: (inout State, Value) -> U

    @inlinable
    init(initialState: State, next: @escaping (inout State, Value) -> U) { self.initialState = initialState; self.next = next }

    @inlinable
    func attach<Sink: _EventSink>(to downstream: consuming Sink) -> (Signal<Value, Error>.Event) -> Void
    where Sink.Value == U, Sink.Error == Error {
        let downstream = downstream
        let state = _DeliveryState(initialState)
        return { event in
            switch event {
            case let .value(value): downstream.deliverHeld(.value(next(&state.value, value)))
            case let .failed(error): downstream.deliverHeld(.failed(error))
            case .completed: downstream.deliverHeld(.completed)
            case .interrupted: downstream.deliverHeld(.interrupted)
            }
        }
    }
}

/// `combinePrevious`.
@usableFromInline
struct _CombinePreviousOperator<Value, Error: Swift.Error>: _UnaryOperator {
    @usableFromInline typealias Input = Value
    @usableFromInline typealias Output = (Value, Value)
    @usableFromInline typealias InputError = Error
    @usableFromInline typealias OutputError = Error
    @usableFromInline let seed: Value?

    @inlinable
    init(seed: Value?) { self.seed = seed }

    @inlinable
    func attach<Sink: _EventSink>(to downstream: consuming Sink) -> (Signal<Value, Error>.Event) -> Void
    where Sink.Value == (Value, Value), Sink.Error == Error {
        let downstream = downstream
        let previous = _DeliveryState(seed)
        return { event in
            switch event {
            case let .value(value):
                if let previous = previous.value { downstream.deliverHeld(.value((previous, value))) }
                previous.value = value
            case let .failed(error): downstream.deliverHeld(.failed(error))
            case .completed: downstream.deliverHeld(.completed)
            case .interrupted: downstream.deliverHeld(.interrupted)
            }
        }
    }
}

extension SignalProducer {
    /// `Signal.scan(_:_:)` on every run (each run starts from
    /// `initialResult`). One link per start.
    @inlinable
    public func scan<U>(_ initialResult: U, _ nextPartialResult: @escaping (U, Value) -> U) -> SignalProducer<U, Error> {
        _lift(_ScanMapOperator.scan(initialResult, nextPartialResult))
    }

    /// `Signal.scan(into:_:)` on every run. One link per start.
    @inlinable
    public func scan<U>(into initialResult: U, _ nextPartialResult: @escaping (inout U, Value) -> Void) -> SignalProducer<U, Error> {
        _lift(_ScanMapOperator.scan(into: initialResult, nextPartialResult))
    }

    /// `Signal.scanMap(_:_:)` on every run. One link per start.
    @inlinable
    public func scanMap<State, U>(_ initialState: State, _ next: @escaping (State, Value) -> (State, U)) -> SignalProducer<U, Error> {
        _lift(_ScanMapOperator.scanMap(initialState, next))
    }

    /// `Signal.scanMap(into:_:)` on every run. One link per start.
    @inlinable
    public func scanMap<State, U>(into initialState: State, _ next: @escaping (inout State, Value) -> U) -> SignalProducer<U, Error> {
        _lift(_ScanMapOperator(initialState: initialState, next: next))
    }

    /// `Signal.combinePrevious()` on every run. One link per start.
    @inlinable
    public func combinePrevious() -> SignalProducer<(Value, Value), Error> {
        _lift(_CombinePreviousOperator(seed: nil))
    }

    /// `Signal.combinePrevious(_:)` on every run. One link per start.
    @inlinable
    public func combinePrevious(_ initial: Value) -> SignalProducer<(Value, Value), Error> {
        _lift(_CombinePreviousOperator(seed: .some(initial)))
    }
}

extension _ScanMapOperator where State == U {
    /// `scan(_:_:)`: the running result is both the state and the output.
    @inlinable
    static func scan(_ initialResult: U, _ nextPartialResult: @escaping (U, Value) -> U) -> _ScanMapOperator {
        scan(into: initialResult) { result, value in result = nextPartialResult(result, value) }
    }

    /// `scan(into:_:)`.
    @inlinable
    static func scan(into initialResult: U, _ nextPartialResult: @escaping (inout U, Value) -> Void) -> _ScanMapOperator {
        _ScanMapOperator(initialState: initialResult) { result, value in
            nextPartialResult(&result, value)
            return result
        }
    }
}

extension _ScanMapOperator {
    /// `scanMap(_:_:)`: the state threaded by value.
    @inlinable
    static func scanMap(_ initialState: State, _ next: @escaping (State, Value) -> (State, U)) -> _ScanMapOperator {
        _ScanMapOperator(initialState: initialState) { state, value in
            let (nextState, output) = next(state, value)
            state = nextState
            return output
        }
    }
}
