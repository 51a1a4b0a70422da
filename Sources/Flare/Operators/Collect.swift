import Dispatch
import Foundation

extension Signal {
    /// Sends every value as one array when upstream completes, then
    /// completes.
    ///
    /// Sends `[]` if upstream completes without a value. Upstream's `failed`
    /// and `interrupted` are forwarded at once and the collected values are
    /// dropped. Observes upstream until either terminates.
    @inlinable
    public func collect() -> Signal<[Value], Error> {
        _lift(_CollectOperator.all())
    }

    /// Sends the values in arrays of `count`; when upstream completes, sends
    /// what remains (a shorter array, if any) and completes.
    ///
    /// Sends `[]` if upstream completes without a value. Upstream's `failed`
    /// and `interrupted` are forwarded at once and the values of the
    /// unfinished array are dropped. Observes upstream until either
    /// terminates.
    ///
    /// - Precondition: `count > 0`.
    @inlinable
    public func collect(count: Int) -> Signal<[Value], Error> {
        _lift(_CollectOperator.arrays(of: count))
    }

    /// Collects values and sends them as an array each time `shouldEmit`,
    /// called after each value is added, returns true.
    ///
    /// When upstream completes, sends what remains (if anything), then
    /// completes; sends `[]` if upstream completes without a value.
    /// Upstream's `failed` and `interrupted` are forwarded at once and the
    /// collected values are dropped. Observes upstream until either
    /// terminates.
    ///
    /// - Parameter shouldEmit: Receives the collected values, the new one
    ///   included.
    @inlinable
    public func collect(_ shouldEmit: @escaping (_ collectedValues: [Value]) -> Bool) -> Signal<[Value], Error> {
        // After a send the array is emptied keeping its capacity: if no
        // observer kept the array sent, the next one reuses its storage.
        _lift(_CollectOperator(shouldEmit: shouldEmit))
    }

    /// Collects values and, each time `shouldEmit` returns true for a new
    /// value, sends the values collected before it as an array and starts a
    /// new array with the new value.
    ///
    /// The array sent may be empty if `shouldEmit` returns true for the very
    /// first value. When upstream completes, sends what remains (if
    /// anything), then completes; sends `[]` if upstream completes without a
    /// value. Upstream's `failed` and `interrupted` are forwarded at once and
    /// the collected values are dropped. Observes upstream until either
    /// terminates.
    ///
    /// - Parameter shouldEmit: Receives the collected values, without the
    ///   new one, and the new one.
    @inlinable
    public func collect(_ shouldEmit: @escaping (_ collected: [Value], _ latest: Value) -> Bool) -> Signal<[Value], Error> {
        _lift(_CollectBeforeOperator(shouldEmit: shouldEmit))
    }
}

/// `collect(_:)` with a predicate on the collected values.
@usableFromInline
struct _CollectOperator<Value, Error: Swift.Error>: _UnaryOperator {
    @usableFromInline typealias Input = Value
    @usableFromInline typealias Output = [Value]
    @usableFromInline typealias InputError = Error
    @usableFromInline typealias OutputError = Error
    @usableFromInline let shouldEmit: ([Value]) -> Bool

    @inlinable
    init(shouldEmit: @escaping ([Value]) -> Bool) { self.shouldEmit = shouldEmit }

    @inlinable
    func attach<Sink: _EventSink>(to downstream: consuming Sink) -> (Signal<Value, Error>.Event) -> Void
    where Sink.Value == [Value], Sink.Error == Error {
        let downstream = downstream
        let values = _DeliveryState<[Value]>([])
        let hasReceived = _DeliveryState(false)
        return { event in
            switch event {
            case let .value(value):
                hasReceived.value = true
                values.value.append(value)
                if shouldEmit(values.value) {
                    downstream.deliverHeld(.value(values.value))
                    values.value.removeAll(keepingCapacity: true)
                }
            case .completed:
                if !values.value.isEmpty || !hasReceived.value { downstream.deliverHeld(.value(values.value)) }
                values.value = []
                downstream.deliverHeld(.completed)
            case let .failed(error):
                values.value = []
                downstream.deliverHeld(.failed(error))
            case .interrupted:
                values.value = []
                downstream.deliverHeld(.interrupted)
            }
        }
    }
}

/// `collect(_:)` with a predicate on the collected values and the new one.
@usableFromInline
struct _CollectBeforeOperator<Value, Error: Swift.Error>: _UnaryOperator {
    @usableFromInline typealias Input = Value
    @usableFromInline typealias Output = [Value]
    @usableFromInline typealias InputError = Error
    @usableFromInline typealias OutputError = Error
    @usableFromInline let shouldEmit: ([Value], Value) -> Bool

    @inlinable
    init(shouldEmit: @escaping ([Value], Value) -> Bool) { self.shouldEmit = shouldEmit }

    @inlinable
    func attach<Sink: _EventSink>(to downstream: consuming Sink) -> (Signal<Value, Error>.Event) -> Void
    where Sink.Value == [Value], Sink.Error == Error {
        let downstream = downstream
        let values = _DeliveryState<[Value]>([])
        let hasReceived = _DeliveryState(false)
        return { event in
            switch event {
            case let .value(value):
                hasReceived.value = true
                if shouldEmit(values.value, value) {
                    downstream.deliverHeld(.value(values.value))
                    values.value.removeAll(keepingCapacity: true)
                }
                values.value.append(value)
            case .completed:
                if !values.value.isEmpty || !hasReceived.value { downstream.deliverHeld(.value(values.value)) }
                values.value = []
                downstream.deliverHeld(.completed)
            case let .failed(error):
                values.value = []
                downstream.deliverHeld(.failed(error))
            case .interrupted:
                values.value = []
                downstream.deliverHeld(.interrupted)
            }
        }
    }
}

extension SignalProducer {
    /// `Signal.collect()` on every run: every value as one array on
    /// completion. One link per start.
    @inlinable
    public func collect() -> SignalProducer<[Value], Error> {
        _lift(_CollectOperator.all())
    }

    /// `Signal.collect(count:)` on every run. One link per start.
    ///
    /// - Precondition: `count > 0`.
    @inlinable
    public func collect(count: Int) -> SignalProducer<[Value], Error> {
        _lift(_CollectOperator.arrays(of: count))
    }

    /// `Signal.collect(_:)` with a predicate on the collected values, on
    /// every run. One link per start.
    @inlinable
    public func collect(_ shouldEmit: @escaping (_ collectedValues: [Value]) -> Bool) -> SignalProducer<[Value], Error> {
        _lift(_CollectOperator(shouldEmit: shouldEmit))
    }

    /// `Signal.collect(_:)` with a predicate on the collected values and the
    /// new one, on every run. One link per start.
    @inlinable
    public func collect(_ shouldEmit: @escaping (_ collected: [Value], _ latest: Value) -> Bool) -> SignalProducer<[Value], Error> {
        _lift(_CollectBeforeOperator(shouldEmit: shouldEmit))
    }
}

extension _CollectOperator {
    /// `collect()`: one array, on completion.
    @inlinable
    static func all() -> _CollectOperator {
        _CollectOperator { _ in false }
    }

    /// `collect(count:)`.
    @inlinable
    static func arrays(of count: Int) -> _CollectOperator {
        flarePrecondition(count > 0, "collect(count:) needs a positive count, got \(count)")
        return _CollectOperator { values in values.count == count }
    }
}

extension Signal {
    /// Sends, every `interval`, the values received since the previous
    /// send, as an array, on `scheduler`.
    ///
    /// - The first array is sent `interval` after the returned signal is
    ///   created, then one every `interval`; an empty array is sent when no
    ///   value arrived, unless `skipEmpty`.
    /// - `completed`: with `discardWhenCompleted` (the default), values not
    ///   yet sent are dropped and `completed` is forwarded at once (on
    ///   `scheduler`); otherwise they are sent at the next interval, followed
    ///   by `completed`.
    /// - `failed` and `interrupted` are forwarded at once (on `scheduler`),
    ///   dropping values not yet sent.
    ///
    /// The observation of this signal and the timer are disposed when the
    /// output terminates, or when it has lost every observer and reference.
    @inlinable
    public func collect(
        every interval: DispatchTimeInterval,
        on scheduler: DateScheduler,
        skipEmpty: Bool = false,
        discardWhenCompleted: Bool = true
    ) -> Signal<[Value], Error> {
        _collect(every: interval, on: scheduler, skipEmpty: skipEmpty, discardWhenCompleted: discardWhenCompleted, interruptedBy: nil)
    }

    /// `collect(every:on:skipEmpty:discardWhenCompleted:)`, which
    /// `interruption`'s end interrupts on `scheduler` (see `_SchedulerHop`).
    @inlinable
    func _collect(
        every interval: DispatchTimeInterval, on scheduler: DateScheduler, skipEmpty: Bool, discardWhenCompleted: Bool,
        interruptedBy interruption: Lifetime?
    ) -> Signal<[Value], Error> {
        scheduledFunnel(on: scheduler, interruptedBy: interruption, ticksInPlace: true) { (emit: _HeldCore<[Value], Error>, tick: @escaping (()) -> Void) in
            let collected = _DeliveryState<[Value]>([])
            let isCompleted = _DeliveryState(false)
            let timer = SerialDisposable()
            emit.lifetime += timer
            timer.inner = scheduler.scheduleTransferred(
                after: scheduler.currentDate.addingTimeInterval(interval),
                interval: interval,
                leeway: interval * 0.1
            ) { tick(()) }
            return { tag in
                switch tag {
                case let .first(.value(value)):
                    collected.value.append(value)
                case .first(.completed) where !discardWhenCompleted:
                    isCompleted.value = true
                case let .first(.failed(error)):
                    timer.inner = nil
                    emit.deliverHeld(.failed(error))
                case .first(.completed):
                    timer.inner = nil
                    emit.deliverHeld(.completed)
                case .first(.interrupted):
                    timer.inner = nil
                    emit.deliverHeld(.interrupted)
                case .second:
                    if !collected.value.isEmpty || !skipEmpty {
                        let values = collected.value
                        collected.value = []
                        emit.deliverHeld(.value(values))
                    }
                    if isCompleted.value { emit.deliverHeld(.completed) }
                }
            }
        }
    }
}

extension SignalProducer {
    /// `Signal.collect(every:on:skipEmpty:discardWhenCompleted:)` on every
    /// run. Disposing a run interrupts this producer's run at once; the
    /// observer receives `interrupted` on `scheduler`, and no collected
    /// values.
    @inlinable
    public func collect(
        every interval: DispatchTimeInterval, on scheduler: DateScheduler,
        skipEmpty: Bool = false, discardWhenCompleted: Bool = true
    ) -> SignalProducer<[Value], Error> {
        _liftAsynchronous {
            $0._collect(
                every: interval, on: scheduler, skipEmpty: skipEmpty, discardWhenCompleted: discardWhenCompleted,
                interruptedBy: $1)
        }
    }
}
