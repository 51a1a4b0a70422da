import Foundation

extension Signal {
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
    @inlinable
    public func debounce(
        _ interval: TimeInterval,
        on scheduler: DateScheduler,
        discardWhenCompleted: Bool = true
    ) -> Signal<Value, Error> {
        _debounce(interval, on: scheduler, discardWhenCompleted: discardWhenCompleted, interruptedBy: nil)
    }

    /// `debounce(_:on:discardWhenCompleted:)`, which `interruption`'s end
    /// interrupts on `scheduler` (see `_SchedulerHop`).
    @inlinable
    func _debounce(
        _ interval: TimeInterval, on scheduler: DateScheduler, discardWhenCompleted: Bool,
        interruptedBy interruption: Lifetime?
    ) -> Signal<Value, Error> {
        flarePrecondition(interval >= 0, "debounce needs a non-negative interval")
        // A tick is `false` when a wait ends, `true` when the wait for the
        // last value before completion ends.
        return scheduledFunnel(on: scheduler, interruptedBy: interruption) {
            (emit: _HeldCore<Value, Error>, tick: @escaping (Bool) -> Void) in
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
}

extension SignalProducer {
    /// `Signal.debounce(_:on:discardWhenCompleted:)` on every run.
    /// Disposing a run interrupts this producer's run at once; the observer
    /// receives `interrupted` on `scheduler`, and no waiting value.
    @inlinable
    public func debounce(
        _ interval: TimeInterval, on scheduler: DateScheduler, discardWhenCompleted: Bool = true
    ) -> SignalProducer<Value, Error> {
        _liftAsynchronous {
            $0._debounce(interval, on: scheduler, discardWhenCompleted: discardWhenCompleted, interruptedBy: $1)
        }
    }
}
