extension Signal {
    /// Combines every value into one result, sent when upstream completes.
    ///
    /// On upstream's `completed`, sends the result (`initialResult` if there
    /// was no value), then completes. Upstream's `failed` and `interrupted`
    /// are forwarded at once, without a result. Observes upstream until
    /// either terminates.
    ///
    /// - Parameters:
    ///   - initialResult: The result before any value.
    ///   - nextPartialResult: Combines the result so far with a value.
    @inlinable
    public func reduce<U>(_ initialResult: U, _ nextPartialResult: @escaping (U, Value) -> U) -> Signal<U, Error> {
        _lift(_ReduceOperator(initialResult: initialResult) { result, value in result = nextPartialResult(result, value) })
    }

    /// Combines every value into one result, updated in place, and sends it
    /// when upstream completes.
    ///
    /// Same event semantics as `reduce(_:_:)`.
    @inlinable
    public func reduce<U>(into initialResult: U, _ nextPartialResult: @escaping (inout U, Value) -> Void) -> Signal<U, Error> {
        _lift(_ReduceOperator(initialResult: initialResult, nextPartialResult: nextPartialResult))
    }
}

/// `reduce(into:_:)`.
@usableFromInline
struct _ReduceOperator<Value, U, Error: Swift.Error>: _UnaryOperator {
    @usableFromInline typealias Input = Value
    @usableFromInline typealias Output = U
    @usableFromInline typealias InputError = Error
    @usableFromInline typealias OutputError = Error
    @usableFromInline let initialResult: U
    @usableFromInline let nextPartialResult: (inout U, Value) -> Void

    @inlinable
    init(initialResult: U, nextPartialResult: @escaping (inout U, Value) -> Void) { self.initialResult = initialResult; self.nextPartialResult = nextPartialResult }

    @inlinable
    func attach<Sink: _EventSink>(to downstream: consuming Sink) -> (Signal<Value, Error>.Event) -> Void
    where Sink.Value == U, Sink.Error == Error {
        let downstream = downstream
        let result = _DeliveryState(initialResult)
        return { event in
            switch event {
            case let .value(value):
                nextPartialResult(&result.value, value)
            case .completed:
                downstream.deliverHeld(.value(result.value))
                downstream.deliverHeld(.completed)
            case let .failed(error):
                downstream.deliverHeld(.failed(error))
            case .interrupted:
                downstream.deliverHeld(.interrupted)
            }
        }
    }
}

extension SignalProducer {
    /// `Signal.reduce(_:_:)` on every run: one result, sent on completion.
    /// One link per start.
    @inlinable
    public func reduce<U>(_ initialResult: U, _ nextPartialResult: @escaping (U, Value) -> U) -> SignalProducer<U, Error> {
        _lift(_ReduceOperator(initialResult: initialResult) { result, value in result = nextPartialResult(result, value) })
    }

    /// `Signal.reduce(into:_:)` on every run (each run starts from
    /// `initialResult`). One link per start.
    @inlinable
    public func reduce<U>(into initialResult: U, _ nextPartialResult: @escaping (inout U, Value) -> Void) -> SignalProducer<U, Error> {
        _lift(_ReduceOperator(initialResult: initialResult, nextPartialResult: nextPartialResult))
    }
}
