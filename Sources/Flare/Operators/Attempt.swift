extension Signal {
    /// Runs `action` on each value and forwards the value if it succeeds; if
    /// it fails, sends its error as `failed` instead.
    ///
    /// A failure from `action` terminates the returned signal, which then
    /// stops observing upstream; `action` is not called again. Upstream's own
    /// `failed`, `completed` and `interrupted` pass through unchanged.
    @inlinable
    public func attempt(_ action: @escaping (Value) -> Result<(), Error>) -> Signal<Value, Error> {
        _lift(_AttemptMapOperator.attempt(action))
    }

    /// Sends the success of `transform` for each value; on its first failure,
    /// sends that error as `failed` instead.
    ///
    /// A failure from `transform` terminates the returned signal, which then
    /// stops observing upstream; `transform` is not called again. Upstream's
    /// own `failed`, `completed` and `interrupted` pass through unchanged.
    @inlinable
    public func attemptMap<U>(_ transform: @escaping (Value) -> Result<U, Error>) -> Signal<U, Error> {
        _lift(_AttemptMapOperator(transform: transform))
    }
}

extension Signal where Error == Never {
    /// Runs the throwing `action` on each value and forwards the value if it
    /// returns; if it throws, sends the error as `failed`.
    ///
    /// Same event semantics as `attempt(_:)` on a signal whose error type is
    /// `any Swift.Error`.
    @inlinable
    public func attempt(_ action: @escaping (Value) throws -> Void) -> Signal<Value, any Swift.Error> {
        promoteError((any Swift.Error).self).attempt(action)
    }

    /// Sends the result of the throwing `transform` for each value; if it
    /// throws, sends the error as `failed`.
    ///
    /// Same event semantics as `attemptMap(_:)` on a signal whose error type
    /// is `any Swift.Error`.
    @inlinable
    public func attemptMap<U>(_ transform: @escaping (Value) throws -> U) -> Signal<U, any Swift.Error> {
        promoteError((any Swift.Error).self).attemptMap(transform)
    }
}

extension Signal where Error == any Swift.Error {
    /// Runs the throwing `action` on each value and forwards the value if it
    /// returns; if it throws, sends the error as `failed`, which terminates
    /// the returned signal and stops its observation of upstream.
    @inlinable
    public func attempt(_ action: @escaping (Value) throws -> Void) -> Signal<Value, Error> {
        _lift(_AttemptMapOperator.attempt(throwing: action))
    }

    /// Sends the result of the throwing `transform` for each value; if it
    /// throws, sends the error as `failed`, which terminates the returned
    /// signal and stops its observation of upstream.
    @inlinable
    public func attemptMap<U>(_ transform: @escaping (Value) throws -> U) -> Signal<U, Error> {
        _lift(_AttemptMapOperator.attemptMap(throwing: transform))
    }
}

/// `attempt` and `attemptMap`, in every form.
@usableFromInline
struct _AttemptMapOperator<Value, U, Error: Swift.Error>: _UnaryOperator {
    @usableFromInline typealias Input = Value
    @usableFromInline typealias Output = U
    @usableFromInline typealias InputError = Error
    @usableFromInline typealias OutputError = Error
    @usableFromInline let transform: (Value) -> Result<U, Error>

    @inlinable
    init(transform: @escaping (Value) -> Result<U, Error>) { self.transform = transform }

    @inlinable
    func attach<Sink: _EventSink>(to downstream: consuming Sink) -> (Signal<Value, Error>.Event) -> Void
    where Sink.Value == U, Sink.Error == Error {
        let downstream = downstream
        let hasFailed = _DeliveryState(false)
        return { event in
            switch event {
            case let .value(value):
                guard !hasFailed.value else { return }
                switch transform(value) {
                case let .success(mapped):
                    downstream.deliverHeld(.value(mapped))
                case let .failure(error):
                    hasFailed.value = true
                    downstream.deliverHeld(.failed(error))
                }
            case let .failed(error): downstream.deliverHeld(.failed(error))
            case .completed: downstream.deliverHeld(.completed)
            case .interrupted: downstream.deliverHeld(.interrupted)
            }
        }
    }
}

extension SignalProducer {
    /// `Signal.attempt(_:)` on every run; a failure ends the run. One link
    /// per start.
    @inlinable
    public func attempt(_ action: @escaping (Value) -> Result<(), Error>) -> SignalProducer<Value, Error> {
        _lift(_AttemptMapOperator.attempt(action))
    }

    /// `Signal.attemptMap(_:)` on every run; a failure ends the run. One
    /// link per start.
    @inlinable
    public func attemptMap<U>(_ transform: @escaping (Value) -> Result<U, Error>) -> SignalProducer<U, Error> {
        _lift(_AttemptMapOperator(transform: transform))
    }
}

extension SignalProducer where Error == Never {
    /// `Signal.attempt(_:)` with a throwing action, on every run.
    @inlinable
    public func attempt(_ action: @escaping (Value) throws -> Void) -> SignalProducer<Value, any Swift.Error> {
        promoteError((any Swift.Error).self).attempt(action)
    }

    /// `Signal.attemptMap(_:)` with a throwing transform, on every run.
    @inlinable
    public func attemptMap<U>(_ transform: @escaping (Value) throws -> U) -> SignalProducer<U, any Swift.Error> {
        promoteError((any Swift.Error).self).attemptMap(transform)
    }
}

extension SignalProducer where Error == any Swift.Error {
    /// `Signal.attempt(_:)` with a throwing action, on every run; a thrown
    /// error ends the run. One link per start.
    @inlinable
    public func attempt(_ action: @escaping (Value) throws -> Void) -> SignalProducer<Value, Error> {
        _lift(_AttemptMapOperator.attempt(throwing: action))
    }

    /// `Signal.attemptMap(_:)` with a throwing transform, on every run; a
    /// thrown error ends the run. One link per start.
    @inlinable
    public func attemptMap<U>(_ transform: @escaping (Value) throws -> U) -> SignalProducer<U, Error> {
        _lift(_AttemptMapOperator.attemptMap(throwing: transform))
    }
}

extension _AttemptMapOperator where U == Value {
    /// `attempt(_:)`: the value itself, if `action` succeeds.
    @inlinable
    static func attempt(_ action: @escaping (Value) -> Result<(), Error>) -> _AttemptMapOperator {
        _AttemptMapOperator { value in action(value).map { value } }
    }
}

extension _AttemptMapOperator where Error == any Swift.Error {
    /// `attemptMap(_:)` with a throwing transform.
    @inlinable
    static func attemptMap(throwing transform: @escaping (Value) throws -> U) -> _AttemptMapOperator {
        _AttemptMapOperator { value in Result { try transform(value) } }
    }
}

extension _AttemptMapOperator where U == Value, Error == any Swift.Error {
    /// `attempt(_:)` with a throwing action.
    @inlinable
    static func attempt(throwing action: @escaping (Value) throws -> Void) -> _AttemptMapOperator {
        _AttemptMapOperator { value in
            Result {
                try action(value)
                return value
            }
        }
    }
}
