import Foundation

extension Signal {
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
    @inlinable
    public func timeout(
        after interval: TimeInterval,
        raising error: Error,
        on scheduler: DateScheduler
    ) -> Signal<Value, Error> {
        flarePrecondition(interval >= 0, "timeout(after:raising:on:) needs a non-negative interval, got \(interval)")
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
    @inlinable
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

extension SignalProducer {
    /// `Signal.timeout(after:raising:on:)` on every run: the timeout counts
    /// from the start. The run's events pass straight to its observer (no
    /// signal per start); the timer is scheduled before this producer
    /// starts, and both go with the run.
    ///
    /// - Precondition: `interval` is not negative.
    @inlinable
    public func timeout(
        after interval: TimeInterval, raising error: Error, on scheduler: DateScheduler
    ) -> SignalProducer<Value, Error> {
        flarePrecondition(interval >= 0, "timeout(after:raising:on:) needs a non-negative interval, got \(interval)")
        return SignalProducer { output, lifetime in
            lifetime += scheduler.scheduleTransferred(after: scheduler.currentDate.addingTimeInterval(interval)) {
                output.send(error: error)
            }
            self._start(output, during: lifetime)
        }
    }
}

extension SignalProducer where Error == Never {
    /// `Signal.timeout(after:raising:on:)` for a run that cannot fail
    /// otherwise.
    @inlinable
    public func timeout<NewError>(
        after interval: TimeInterval, raising error: NewError, on scheduler: DateScheduler
    ) -> SignalProducer<Value, NewError> {
        promoteError(NewError.self).timeout(after: interval, raising: error, on: scheduler)
    }
}
