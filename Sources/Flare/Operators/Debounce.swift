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
        //
        // At most one wait is scheduled (`scheduled`, due at `pendingDue`).
        // A value whose wait ends no earlier than the scheduled one's leaves
        // it in place: when that tick comes, it finds that the last value's
        // wait ends later than its own and schedules the rest of it. So a
        // burst of values costs one scheduled action per `interval` of the
        // burst, not a cancel and a schedule per value, and each value is
        // still sent `interval` after the last one, as when every value
        // restarts the wait. A value whose wait ends earlier (the
        // scheduler's clock moved back) replaces the scheduled wait.
        return scheduledFunnel(on: scheduler, interruptedBy: interruption) {
            (emit: _HeldCore<Value, Error>, tick: @escaping (Bool) -> Void) in
            // The last value received and not yet sent, when it was
            // received, and when the scheduled wait ends (nil: none is).
            let state = _DeliveryState<(waiting: Value?, lastReceived: Date, pendingDue: Date?)>(
                (nil, .distantPast, nil))
            let scheduled = SerialDisposable()
            emit.lifetime += scheduled
            func wait(until due: Date) {
                state.value.pendingDue = due
                scheduled.inner = scheduler.scheduleTransferred(after: due) { tick(false) }
            }
            return { tag in
                switch tag {
                case let .first(.value(value)):
                    state.value.waiting = value
                    let now = scheduler.currentDate
                    state.value.lastReceived = now
                    let due = now.addingTimeInterval(interval)
                    if let pendingDue = state.value.pendingDue, pendingDue <= due { return }
                    wait(until: due)
                case .first(.completed):
                    state.value.pendingDue = nil
                    if !discardWhenCompleted, state.value.waiting != nil {
                        scheduled.inner = scheduler.scheduleTransferred(
                            after: state.value.lastReceived.addingTimeInterval(interval)
                        ) { tick(true) }
                    } else {
                        scheduled.inner = nil
                        state.value.waiting = nil
                        emit.deliverHeld(.completed)
                    }
                case let .first(event):
                    state.value.pendingDue = nil
                    scheduled.inner = nil
                    state.value.waiting = nil
                    emit.deliverHeld(event)
                case let .second(isFinal):
                    if !isFinal {
                        let scheduledFor = state.value.pendingDue
                        state.value.pendingDue = nil
                        guard state.value.waiting != nil else { return }
                        // A value came while this wait ran: wait for the rest
                        // of the last value's. The scheduler's word that the
                        // tick is due is trusted, as its clock is not
                        // compared: each wait scheduled here ends later than
                        // the last, so no scheduler can make this loop.
                        let due = state.value.lastReceived.addingTimeInterval(interval)
                        if let scheduledFor, due > scheduledFor { return wait(until: due) }
                    }
                    if let value = state.value.waiting.take() {
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
