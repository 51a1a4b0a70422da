/// A type that is, or carries, a signal event; lets extensions constrain a
/// signal's values to events (see `dematerialize()`).
///
/// Sendable: not required (a generic constraint only); `Signal.Event` is
/// `Sendable` when its value and error are.
public protocol EventProtocol {
    /// The value type of the event.
    associatedtype Value
    /// The error type of the event.
    associatedtype Error: Swift.Error
    /// The event itself.
    var event: Signal<Value, Error>.Event { get }
}

extension Signal.Event: EventProtocol {
    /// The event itself.
    @inlinable
    public var event: Signal<Value, Error>.Event { self }
}

extension Signal {
    /// Sends each event as a value: upstream's values, and then its terminal
    /// event, become `value`s of a signal that cannot fail.
    ///
    /// After sending a `failed` or `completed` event as a value, completes;
    /// after sending `interrupted` as a value, is interrupted. Observes
    /// upstream until either terminates.
    @inlinable
    public func materialize() -> Signal<Event, Never> {
        _lift(_MaterializeOperator())
    }

    /// Sends each value as `.success` and a failure as `.failure`, in a
    /// signal that cannot fail.
    ///
    /// After sending a failure as a value, completes. Upstream's `completed`
    /// and `interrupted` pass through unchanged. Observes upstream until
    /// either terminates.
    @inlinable
    public func materializeResults() -> Signal<Result<Value, Error>, Never> {
        _lift(_MaterializeResultsOperator())
    }
}

extension Signal where Value: EventProtocol, Error == Never {
    /// Turns a signal of events back into those events: the inverse of
    /// `materialize()`.
    ///
    /// Each event value is sent as that event. An event value that is
    /// terminal terminates the returned signal with it, which stops the
    /// observation of upstream. Upstream's own `completed` and `interrupted`
    /// pass through unchanged.
    @inlinable
    public func dematerialize() -> Signal<Value.Value, Value.Error> {
        _lift(_DematerializeOperator())
    }
}

extension Signal where Error == Never {
    /// Turns a signal of results back into values and a failure: the inverse
    /// of `materializeResults()`.
    ///
    /// `.success` is sent as a value; `.failure` is sent as `failed`, which
    /// terminates the returned signal and stops the observation of upstream.
    /// Upstream's `completed` and `interrupted` pass through unchanged.
    @inlinable
    public func dematerializeResults<Success, Failure>() -> Signal<Success, Failure> where Value == Result<Success, Failure> {
        _lift(_DematerializeResultsOperator())
    }
}

/// `materialize`.
@usableFromInline
struct _MaterializeOperator<Value, Error: Swift.Error>: _UnaryOperator {
    @usableFromInline typealias Input = Value
    @usableFromInline typealias Output = Signal<Value, Error>.Event
    @usableFromInline typealias InputError = Error
    @usableFromInline typealias OutputError = Never

    @inlinable
    init() {}

    @inlinable
    func attach<Sink: _EventSink>(to downstream: consuming Sink) -> (Signal<Value, Error>.Event) -> Void
    where Sink.Value == Signal<Value, Error>.Event, Sink.Error == Never {
        let downstream = downstream
        return { event in
            downstream.deliverHeld(.value(event))
            switch event {
            case .value: break
            case .failed, .completed: downstream.deliverHeld(.completed)
            case .interrupted: downstream.deliverHeld(.interrupted)
            }
        }
    }
}

/// `materializeResults`.
@usableFromInline
struct _MaterializeResultsOperator<Value, Error: Swift.Error>: _UnaryOperator {
    @usableFromInline typealias Input = Value
    @usableFromInline typealias Output = Result<Value, Error>
    @usableFromInline typealias InputError = Error
    @usableFromInline typealias OutputError = Never

    @inlinable
    init() {}

    @inlinable
    func attach<Sink: _EventSink>(to downstream: consuming Sink) -> (Signal<Value, Error>.Event) -> Void
    where Sink.Value == Result<Value, Error>, Sink.Error == Never {
        let downstream = downstream
        return { event in
            switch event {
            case let .value(value):
                downstream.deliverHeld(.value(.success(value)))
            case let .failed(error):
                downstream.deliverHeld(.value(.failure(error)))
                downstream.deliverHeld(.completed)
            case .completed:
                downstream.deliverHeld(.completed)
            case .interrupted:
                downstream.deliverHeld(.interrupted)
            }
        }
    }
}

/// `dematerialize`.
@usableFromInline
struct _DematerializeOperator<Carrier: EventProtocol>: _UnaryOperator {
    @usableFromInline typealias Input = Carrier
    @usableFromInline typealias Output = Carrier.Value
    @usableFromInline typealias InputError = Never
    @usableFromInline typealias OutputError = Carrier.Error

    @inlinable
    init() {}

    @inlinable
    func attach<Sink: _EventSink>(to downstream: consuming Sink) -> (Signal<Carrier, Never>.Event) -> Void
    where Sink.Value == Carrier.Value, Sink.Error == Carrier.Error {
        let downstream = downstream
        return { event in
            switch event {
            case let .value(carried): downstream.deliverHeld(carried.event)
            case let .failed(never): switch never {}
            case .completed: downstream.deliverHeld(.completed)
            case .interrupted: downstream.deliverHeld(.interrupted)
            }
        }
    }
}

/// `dematerializeResults`.
@usableFromInline
struct _DematerializeResultsOperator<Success, Failure: Swift.Error>: _UnaryOperator {
    @usableFromInline typealias Input = Result<Success, Failure>
    @usableFromInline typealias Output = Success
    @usableFromInline typealias InputError = Never
    @usableFromInline typealias OutputError = Failure

    @inlinable
    init() {}

    @inlinable
    func attach<Sink: _EventSink>(to downstream: consuming Sink) -> (Signal<Result<Success, Failure>, Never>.Event) -> Void
    where Sink.Value == Success, Sink.Error == Failure {
        let downstream = downstream
        return { event in
            switch event {
            case let .value(.success(value)): downstream.deliverHeld(.value(value))
            case let .value(.failure(error)): downstream.deliverHeld(.failed(error))
            case let .failed(never): switch never {}
            case .completed: downstream.deliverHeld(.completed)
            case .interrupted: downstream.deliverHeld(.interrupted)
            }
        }
    }
}

extension SignalProducer {
    /// `Signal.materialize()` on every run. One link per start.
    @inlinable
    public func materialize() -> SignalProducer<Signal<Value, Error>.Event, Never> {
        _lift(_MaterializeOperator())
    }

    /// `Signal.materializeResults()` on every run. One link per start.
    @inlinable
    public func materializeResults() -> SignalProducer<Result<Value, Error>, Never> {
        _lift(_MaterializeResultsOperator())
    }
}

extension SignalProducer where Value: EventProtocol, Error == Never {
    /// `Signal.dematerialize()` on every run. One link per start.
    @inlinable
    public func dematerialize() -> SignalProducer<Value.Value, Value.Error> {
        _lift(_DematerializeOperator())
    }
}

extension SignalProducer where Error == Never {
    /// `Signal.dematerializeResults()` on every run. One link per start.
    @inlinable
    public func dematerializeResults<Success, Failure>() -> SignalProducer<Success, Failure>
    where Value == Result<Success, Failure> {
        _lift(_DematerializeResultsOperator())
    }
}
