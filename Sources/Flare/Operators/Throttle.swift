import Foundation

extension Signal {
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
    /// - Terminal events are forwarded at once (on `scheduler`). A value
    ///   held at that moment whose send was due by then (scheduled for the
    ///   scheduler's current date or earlier, not yet run) is sent first, as
    ///   ReactiveSwift's send, scheduled earlier, runs before its terminal
    ///   event; a value held for later is dropped.
    ///
    /// The observation of this signal and the scheduled send are disposed
    /// when the output terminates, or when it has lost every observer and
    /// reference.
    ///
    /// - Precondition: `interval` is not negative.
    @inlinable
    public func throttle(_ interval: TimeInterval, on scheduler: DateScheduler) -> Signal<Value, Error> {
        _throttle(interval, on: scheduler, interruptedBy: nil)
    }

    /// `throttle(_:on:)`, which `interruption`'s end interrupts on
    /// `scheduler` (see `_SchedulerHop`).
    @inlinable
    func _throttle(_ interval: TimeInterval, on scheduler: DateScheduler, interruptedBy interruption: Lifetime?) -> Signal<Value, Error> {
        flarePrecondition(interval >= 0, "throttle needs a non-negative interval")
        // Its ticks deliver in place: the held value is sent by the action
        // scheduled for it, once, as in ReactiveSwift.
        return scheduledFunnel(on: scheduler, interruptedBy: interruption, ticksInPlace: true) { (emit: _HeldCore<Value, Error>, tick: @escaping (Date) -> Void) in
            let held = _DeliveryState<Value?>(nil)
            // When the send of `held` is scheduled.
            let heldDue = _DeliveryState<Date?>(nil)
            let lastSent = _DeliveryState<Date?>(nil)
            let scheduled = SerialDisposable()
            emit.lifetime += scheduled
            return { tag in
                switch tag {
                case let .first(.value(value)):
                    held.value = value
                    let now = scheduler.currentDate
                    var date = now
                    if let lastSent = lastSent.value, lastSent <= now {
                        date = Swift.max(lastSent.addingTimeInterval(interval), now)
                    }
                    heldDue.value = date
                    scheduled.inner = scheduler.scheduleTransferred(after: date) { tick(date) }
                case let .first(event):
                    if let value = held.value, let due = heldDue.value, due <= scheduler.currentDate {
                        emit.deliverHeld(.value(value))
                    }
                    held.value = nil
                    emit.deliverHeld(event)
                case let .second(date):
                    guard let value = held.value else { return }
                    held.value = nil
                    lastSent.value = date
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
    @inlinable
    public func throttle(while shouldThrottle: Signal<Bool, Never>, on scheduler: Scheduler) -> Signal<Value, Error> {
        _throttle(while: shouldThrottle, on: scheduler, interruptedBy: nil)
    }

    /// `throttle(while:on:)`, which `interruption`'s end interrupts on
    /// `scheduler` (see `_SchedulerHop`).
    @inlinable
    func _throttle(
        while shouldThrottle: Signal<Bool, Never>, on scheduler: Scheduler, interruptedBy interruption: Lifetime?
    ) -> Signal<Value, Error> {
        let emissions: Signal<Value, Error> = _funnel({ (emit: _HeldCore<Value, Error>) in
            let isThrottled = _DeliveryState(false)
            let held = _DeliveryState<Value?>(nil)
            return { (tag: _Pair<Event, Signal<Bool, Never>.Event>) in
                switch tag {
                case let .first(.value(value)):
                    if isThrottled.value { held.value = value } else { emit.deliverHeld(.value(value)) }
                case let .first(event):
                    held.value = nil
                    emit.deliverHeld(event)
                case let .second(.value(throttle)):
                    guard throttle != isThrottled.value else { return }
                    isThrottled.value = throttle
                    if !throttle, let value = held.value {
                        held.value = nil
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
        return emissions._observe(on: scheduler, interruptedBy: interruption, inPlaceOn: nil)
    }
}

extension SignalProducer {
    /// `Signal.throttle(_:on:)` on every run. Disposing a run interrupts
    /// this producer's run at once; the observer receives `interrupted` on
    /// `scheduler`, and no held value.
    @inlinable
    public func throttle(_ interval: TimeInterval, on scheduler: DateScheduler) -> SignalProducer<Value, Error> {
        _liftAsynchronous { $0._throttle(interval, on: scheduler, interruptedBy: $1) }
    }

    /// `Signal.throttle(while:on:)` of a run of this producer and one of
    /// `shouldThrottle`, `shouldThrottle` started first (so that its
    /// current value applies from the start). Disposing a run interrupts
    /// both at once; the observer receives `interrupted` on `scheduler`.
    @inlinable
    public func throttle<Gate: SignalProducerConvertible>(
        while shouldThrottle: Gate, on scheduler: Scheduler
    ) -> SignalProducer<Value, Error> where Gate.Value == Bool, Gate.Error == Never {
        let gate = shouldThrottle.producer
        return _liftAsynchronous { (observer: Signal<Value, Error>.Observer, lifetime: Lifetime, interruption: Lifetime) in
            // This producer's signal is set up first, so that it misses
            // nothing `shouldThrottle` sends while starting (`liftRight`).
            self.startWithSignal { signal, interrupter in
                interruption += interrupter
                lifetime += interrupter
                gate.startWithSignal { gateSignal, gateInterrupter in
                    interruption += gateInterrupter
                    lifetime += gateInterrupter
                    lifetime += signal._throttle(while: gateSignal, on: scheduler, interruptedBy: interruption).observe(observer)
                }
            }
        }
    }
}
