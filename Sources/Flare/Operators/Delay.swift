import Foundation

extension Signal {
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
    @inlinable
    public func delay(_ interval: TimeInterval, on scheduler: DateScheduler) -> Signal<Value, Error> {
        _delay(interval, on: scheduler, interruptedBy: nil)
    }

    /// `delay(_:on:)`, which `interruption`'s end interrupts on `scheduler`
    /// (see `_SchedulerHop`).
    @inlinable
    func _delay(_ interval: TimeInterval, on scheduler: DateScheduler, interruptedBy interruption: Lifetime?) -> Signal<Value, Error> {
        flarePrecondition(interval >= 0, "delay needs a non-negative interval")
        return Signal { output, lifetime in
            let hop = _SchedulerHop(output: output, scheduler: scheduler, interruptedBy: interruption, outputLifetime: lifetime)
            lifetime += self.observe { event in
                switch event {
                case .value, .completed:
                    hop.forward(event, after: scheduler.currentDate.addingTimeInterval(interval), on: scheduler)
                case .failed, .interrupted:
                    hop.forward(event, on: scheduler)
                }
            }
        }
    }
}

extension SignalProducer {
    /// `Signal.delay(_:on:)` on every run. Disposing a run interrupts this
    /// producer's run at once; the observer receives `interrupted` on
    /// `scheduler`, and none of the delayed events.
    @inlinable
    public func delay(_ interval: TimeInterval, on scheduler: DateScheduler) -> SignalProducer<Value, Error> {
        _liftAsynchronous { $0._delay(interval, on: scheduler, interruptedBy: $1) }
    }
}
