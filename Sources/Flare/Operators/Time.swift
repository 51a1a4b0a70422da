import Dispatch
import Foundation

// Time-based operators.
//
// The output of every one of them is delivered on its scheduler (timeout
// excepted, as in ReactiveSwift): a root signal fed only by actions of that
// scheduler, which never run concurrently, so `observe(on: QueueScheduler.main)`
// observers really run on the main queue.
//
// Operators with state (throttle, debounce, collect(every:), lazyMap) touch it
// both from the upstream's delivery and from scheduled actions, on different
// threads. Instead of a lock, both are funnelled into one internal root
// signal (see Funnel.swift): an upstream event arrives tagged `.first`, a
// scheduled action sends itself in tagged `.second`, and the logic runs
// serialized. What the logic emits then reaches the output through
// `observe(on:)`, so that whichever thread happened to drain the internal
// signal, the output is delivered on the scheduler. On `TestScheduler` that
// hop runs within the same `advance`, at the same virtual time.

extension Signal {
    /// The funnel of a stateful time operator: this signal's events tagged
    /// `.first`, and the logic's own ticks tagged `.second`; what the logic
    /// emits is delivered on `scheduler`.
    ///
    /// `makeAction` receives the emission core and `tick`, which sends a tick
    /// into the funnel from any thread (typically from a scheduled action).
    /// Scheduled ticks must be cancelled when the emission core's lifetime
    /// ends: the scheduled actions keep the funnel alive.
    func scheduledFunnel<Tick, U, F>(
        on scheduler: Scheduler,
        _ makeAction: (_ emit: _HeldCore<U, F>, _ tick: @escaping (Tick) -> Void) -> (_Pair<Event, Tick>) -> Void
    ) -> Signal<U, F> {
        let emissions: Signal<U, F> = _funnel(
            withInput: { emit, input in
                makeAction(emit) { input.send(value: .second($0)) }
            },
            connect: { input, observations in
                observations += self.observe { input.send(value: .first($0)) }
            })
        return emissions.observe(on: scheduler)
    }

    /// Forwards every event on `scheduler`.
    ///
    /// Each event, values and the terminal event alike, is scheduled on
    /// `scheduler` in the order received, and delivered from there: the
    /// observers of the returned signal run on `scheduler`. Events still
    /// scheduled when the output ends are dropped when they run. This
    /// signal's observation is disposed when the output terminates, or when
    /// it has lost every observer and reference.
    public func observe(on scheduler: Scheduler) -> Signal<Value, Error> {
        Signal { output, lifetime in
            lifetime += self.observe { event in
                scheduler.scheduleTransferred { output.send(event) }
            }
        }
    }

    /// Delays `value` and `completed` events by `interval`, delivering them
    /// on `scheduler`.
    ///
    /// - A value or `completed` is delivered `interval` seconds after it was
    ///   received (by the scheduler's clock).
    /// - `failed` and `interrupted` are scheduled at once, overtaking delayed
    ///   values, which are then dropped.
    ///
    /// This signal's observation is disposed when the output terminates, or
    /// when it has lost every observer and reference.
    ///
    /// - Precondition: `interval` is not negative.
    public func delay(_ interval: TimeInterval, on scheduler: DateScheduler) -> Signal<Value, Error> {
        flarePrecondition(interval >= 0, "delay needs a non-negative interval")
        return Signal { output, lifetime in
            lifetime += self.observe { event in
                switch event {
                case .value, .completed:
                    scheduler.scheduleTransferred(after: scheduler.currentDate.addingTimeInterval(interval)) { output.send(event) }
                case .failed, .interrupted:
                    scheduler.scheduleTransferred { output.send(event) }
                }
            }
        }
    }

    /// Sends the latest value at most once per `interval`, on `scheduler`,
    /// measured from when the returned signal last sent a value.
    ///
    /// - A value arriving when the last sent value is `interval` or more in
    ///   the past is sent at once (scheduled now); otherwise it is held and
    ///   sent `interval` after the last sent value, replaced by any newer
    ///   value in the meantime. If this signal always sends faster than
    ///   `interval`, the output sends one value every `interval`.
    /// - If the scheduler's clock went back before the last sent date, a new
    ///   value is sent at once.
    /// - Terminal events are forwarded at once (on `scheduler`); a value held
    ///   at that moment is dropped.
    ///
    /// The observation of this signal and the scheduled send are disposed
    /// when the output terminates, or when it has lost every observer and
    /// reference.
    ///
    /// - Precondition: `interval` is not negative.
    public func throttle(_ interval: TimeInterval, on scheduler: DateScheduler) -> Signal<Value, Error> {
        flarePrecondition(interval >= 0, "throttle needs a non-negative interval")
        return scheduledFunnel(on: scheduler) { (emit: _HeldCore<Value, Error>, tick: @escaping (Date) -> Void) in
            var held: Value?
            var lastSent: Date?
            let scheduled = SerialDisposable()
            emit.lifetime += scheduled
            return { tag in
                switch tag {
                case let .first(.value(value)):
                    held = value
                    let now = scheduler.currentDate
                    var date = now
                    if let lastSent, lastSent <= now {
                        date = Swift.max(lastSent.addingTimeInterval(interval), now)
                    }
                    scheduled.inner = scheduler.scheduleTransferred(after: date) { tick(date) }
                case let .first(event):
                    held = nil
                    emit.deliverHeld(event)
                case let .second(date):
                    guard let value = held else { return }
                    held = nil
                    lastSent = date
                    emit.deliverHeld(.value(value))
                }
            }
        }
    }

    /// Forwards values on `scheduler` while `shouldThrottle`'s latest value
    /// is `false`; while it is `true`, holds the latest value and sends it
    /// when `shouldThrottle` turns `false`.
    ///
    /// ReactiveSwift takes a Boolean property here; until Flare has
    /// properties, this form takes a signal and starts unthrottled (as a
    /// property whose current value is `false`). Repeated equal values of
    /// `shouldThrottle` are ignored.
    ///
    /// - Values of this signal are forwarded on `scheduler` while not
    ///   throttled; while throttled, only the latest is kept, and sent when
    ///   throttling ends.
    /// - Terminal events of this signal are forwarded on `scheduler`; a held
    ///   value is dropped.
    /// - Terminal events of `shouldThrottle` are ignored: its last value
    ///   stays in force (if `true`, no value is sent any more).
    ///
    /// Both observations are disposed when the output terminates, or when it
    /// has lost every observer and reference.
    public func throttle(while shouldThrottle: Signal<Bool, Never>, on scheduler: Scheduler) -> Signal<Value, Error> {
        let emissions: Signal<Value, Error> = _funnel({ (emit: _HeldCore<Value, Error>) in
            var isThrottled = false
            var held: Value?
            return { (tag: _Pair<Event, Signal<Bool, Never>.Event>) in
                switch tag {
                case let .first(.value(value)):
                    if isThrottled { held = value } else { emit.deliverHeld(.value(value)) }
                case let .first(event):
                    held = nil
                    emit.deliverHeld(event)
                case let .second(.value(throttle)):
                    guard throttle != isThrottled else { return }
                    isThrottled = throttle
                    if !throttle, let value = held {
                        held = nil
                        emit.deliverHeld(.value(value))
                    }
                case .second:
                    break
                }
            }
        }, connect: { input, observations in
            observations += shouldThrottle.observe { input.send(value: .second($0)) }
            observations += self.observe { input.send(value: .first($0)) }
        })
        return emissions.observe(on: scheduler)
    }

    /// Sends a value on `scheduler` once `interval` has passed without this
    /// signal sending a newer one.
    ///
    /// - Each value restarts the wait: the value is sent `interval` after it
    ///   was received unless another value arrives first, which replaces it.
    ///   If this signal always sends faster than `interval`, nothing is sent.
    /// - `completed`: with `discardWhenCompleted` (the default), a value
    ///   still waiting is dropped and `completed` is forwarded at once (on
    ///   `scheduler`); otherwise the waiting value is sent when its wait
    ///   ends, followed by `completed`.
    /// - `failed` and `interrupted` are forwarded at once (on `scheduler`),
    ///   dropping a waiting value.
    ///
    /// The observation of this signal and the scheduled send are disposed
    /// when the output terminates, or when it has lost every observer and
    /// reference.
    ///
    /// - Precondition: `interval` is not negative.
    public func debounce(
        _ interval: TimeInterval,
        on scheduler: DateScheduler,
        discardWhenCompleted: Bool = true
    ) -> Signal<Value, Error> {
        flarePrecondition(interval >= 0, "debounce needs a non-negative interval")
        // A tick is `false` when a wait ends, `true` when the wait for the
        // last value before completion ends.
        return scheduledFunnel(on: scheduler) { (emit: _HeldCore<Value, Error>, tick: @escaping (Bool) -> Void) in
            var waiting: Value?
            var lastReceived = Date.distantPast
            let scheduled = SerialDisposable()
            emit.lifetime += scheduled
            return { tag in
                switch tag {
                case let .first(.value(value)):
                    waiting = value
                    lastReceived = scheduler.currentDate
                    scheduled.inner = scheduler.scheduleTransferred(after: lastReceived.addingTimeInterval(interval)) { tick(false) }
                case .first(.completed):
                    if !discardWhenCompleted, waiting != nil {
                        scheduled.inner = scheduler.scheduleTransferred(after: lastReceived.addingTimeInterval(interval)) {
                            tick(true)
                        }
                    } else {
                        scheduled.inner = nil
                        waiting = nil
                        emit.deliverHeld(.completed)
                    }
                case let .first(event):
                    scheduled.inner = nil
                    waiting = nil
                    emit.deliverHeld(event)
                case let .second(isFinal):
                    if let value = waiting {
                        waiting = nil
                        emit.deliverHeld(.value(value))
                    }
                    if isFinal { emit.deliverHeld(.completed) }
                }
            }
        }
    }

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
    public func collect(
        every interval: DispatchTimeInterval,
        on scheduler: DateScheduler,
        skipEmpty: Bool = false,
        discardWhenCompleted: Bool = true
    ) -> Signal<[Value], Error> {
        scheduledFunnel(on: scheduler) { (emit: _HeldCore<[Value], Error>, tick: @escaping (()) -> Void) in
            var collected: [Value] = []
            var isCompleted = false
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
                    collected.append(value)
                case .first(.completed) where !discardWhenCompleted:
                    isCompleted = true
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
                    if !collected.isEmpty || !skipEmpty {
                        let values = collected
                        collected = []
                        emit.deliverHeld(.value(values))
                    }
                    if isCompleted { emit.deliverHeld(.completed) }
                }
            }
        }
    }

    /// Sends `transform` of the latest value on `scheduler`, computing it
    /// there, lazily: values that arrive while one is waiting for the
    /// scheduler replace it, so there is no one-to-one mapping of values.
    ///
    /// - A value is scheduled if none is waiting; otherwise it replaces the
    ///   waiting one. `transform` runs on `scheduler`, only for values that
    ///   are sent.
    /// - `completed` and `failed` are forwarded on `scheduler` after the
    ///   waiting value, if any.
    /// - `interrupted` drops the waiting value and is forwarded on
    ///   `scheduler`.
    ///
    /// The observation of this signal and the scheduled work are disposed
    /// when the output terminates, or when it has lost every observer and
    /// reference.
    public func lazyMap<U>(on scheduler: Scheduler, transform: @escaping (Value) -> U) -> Signal<U, Error> {
        let latest: Signal<Value, Error> = scheduledFunnel(on: scheduler) {
            (emit: _HeldCore<Value, Error>, tick: @escaping (()) -> Void) in
            var waiting: Value?
            let scheduled = SerialDisposable()
            emit.lifetime += scheduled
            return { tag in
                switch tag {
                case let .first(.value(value)):
                    if waiting == nil { scheduled.inner = scheduler.scheduleTransferred { tick(()) } }
                    waiting = value
                case .first(.interrupted):
                    scheduled.inner = nil
                    waiting = nil
                    emit.deliverHeld(.interrupted)
                case let .first(event):
                    // The waiting value goes first, as its scheduled send
                    // would have.
                    if let value = waiting {
                        waiting = nil
                        emit.deliverHeld(.value(value))
                    }
                    emit.deliverHeld(event)
                case .second:
                    if let value = waiting {
                        waiting = nil
                        emit.deliverHeld(.value(value))
                    }
                }
            }
        }
        // Runs in the delivery of the output, on the scheduler.
        return latest.map(transform)
    }

    /// Forwards this signal's events, and fails with `error` on `scheduler`
    /// if it has not terminated `interval` seconds after the returned signal
    /// was created.
    ///
    /// - Events of this signal pass through as they arrive, on its own
    ///   thread (not on `scheduler`).
    /// - When `interval` has passed (by the scheduler's clock), `failed` with
    ///   `error` is sent from `scheduler`, unless the output has terminated.
    ///
    /// The observation of this signal and the timeout are disposed when the
    /// output terminates, or when it has lost every observer and reference.
    ///
    /// - Precondition: `interval` is not negative.
    public func timeout(
        after interval: TimeInterval,
        raising error: Error,
        on scheduler: DateScheduler
    ) -> Signal<Value, Error> {
        flarePrecondition(interval >= 0, "timeout needs a non-negative interval")
        return Signal { output, lifetime in
            lifetime += scheduler.scheduleTransferred(after: scheduler.currentDate.addingTimeInterval(interval)) {
                output.send(error: error)
            }
            lifetime += self.observe { output.send($0) }
        }
    }
}

extension Signal where Error == Never {
    /// Forwards this signal's events, and fails with `error` on `scheduler`
    /// if it has not terminated after `interval` seconds; see
    /// `timeout(after:raising:on:)`.
    public func timeout<NewError>(
        after interval: TimeInterval,
        raising error: NewError,
        on scheduler: DateScheduler
    ) -> Signal<Value, NewError> {
        let promoted: Signal<Value, NewError> = _liftCore { downstream in
            { event in
                switch event {
                case let .value(value): downstream.deliverHeld(.value(value))
                case .completed: downstream.deliverHeld(.completed)
                case .interrupted: downstream.deliverHeld(.interrupted)
                case .failed: break
                }
            }
        }
        return promoted.timeout(after: interval, raising: error, on: scheduler)
    }
}

// On producers, the time operators apply the signal operator to every run
// (`lift`): like on a signal, each has a serialization point of its own,
// for the events its scheduler sends.
extension SignalProducer {
    /// `Signal.observe(on:)` on every run: events delivered on `scheduler`.
    public func observe(on scheduler: Scheduler) -> SignalProducer<Value, Error> {
        lift { $0.observe(on: scheduler) }
    }

    /// `Signal.delay(_:on:)` on every run.
    public func delay(_ interval: TimeInterval, on scheduler: DateScheduler) -> SignalProducer<Value, Error> {
        lift { $0.delay(interval, on: scheduler) }
    }

    /// `Signal.throttle(_:on:)` on every run.
    public func throttle(_ interval: TimeInterval, on scheduler: DateScheduler) -> SignalProducer<Value, Error> {
        lift { $0.throttle(interval, on: scheduler) }
    }

    /// `Signal.throttle(while:on:)` of a run of this producer and one of
    /// `shouldThrottle`, `shouldThrottle` started first (so that its
    /// current value applies from the start).
    public func throttle<Gate: SignalProducerConvertible>(
        while shouldThrottle: Gate, on scheduler: Scheduler
    ) -> SignalProducer<Value, Error> where Gate.Value == Bool, Gate.Error == Never {
        _liftRight { left in { right in left.throttle(while: right, on: scheduler) } }(shouldThrottle.producer)
    }

    /// `Signal.debounce(_:on:discardWhenCompleted:)` on every run.
    public func debounce(
        _ interval: TimeInterval, on scheduler: DateScheduler, discardWhenCompleted: Bool = true
    ) -> SignalProducer<Value, Error> {
        lift { $0.debounce(interval, on: scheduler, discardWhenCompleted: discardWhenCompleted) }
    }

    /// `Signal.collect(every:on:skipEmpty:discardWhenCompleted:)` on every
    /// run.
    public func collect(
        every interval: DispatchTimeInterval, on scheduler: DateScheduler,
        skipEmpty: Bool = false, discardWhenCompleted: Bool = true
    ) -> SignalProducer<[Value], Error> {
        lift { $0.collect(every: interval, on: scheduler, skipEmpty: skipEmpty, discardWhenCompleted: discardWhenCompleted) }
    }

    /// `Signal.lazyMap(on:transform:)` on every run.
    public func lazyMap<U>(on scheduler: Scheduler, transform: @escaping (Value) -> U) -> SignalProducer<U, Error> {
        lift { $0.lazyMap(on: scheduler, transform: transform) }
    }

    /// `Signal.timeout(after:raising:on:)` on every run: the timeout counts
    /// from the start.
    public func timeout(
        after interval: TimeInterval, raising error: Error, on scheduler: DateScheduler
    ) -> SignalProducer<Value, Error> {
        lift { $0.timeout(after: interval, raising: error, on: scheduler) }
    }
}

extension SignalProducer where Error == Never {
    /// `Signal.timeout(after:raising:on:)` for a run that cannot fail
    /// otherwise.
    public func timeout<NewError>(
        after interval: TimeInterval, raising error: NewError, on scheduler: DateScheduler
    ) -> SignalProducer<Value, NewError> {
        lift { $0.timeout(after: interval, raising: error, on: scheduler) }
    }
}
