extension Signal {
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
    @inlinable
    public func lazyMap<U>(on scheduler: Scheduler, transform: @escaping (Value) -> U) -> Signal<U, Error> {
        _lazyMap(on: scheduler, interruptedBy: nil, transform: transform)
    }

    /// `lazyMap(on:transform:)`, which `interruption`'s end interrupts on
    /// `scheduler` (see `_SchedulerHop`).
    @inlinable
    func _lazyMap<U>(
        on scheduler: Scheduler, interruptedBy interruption: Lifetime?, transform: @escaping (Value) -> U
    ) -> Signal<U, Error> {
        let latest: Signal<Value, Error> = scheduledFunnel(on: scheduler, interruptedBy: interruption) {
            (emit: _HeldCore<Value, Error>, tick: @escaping (()) -> Void) in
            let waiting = _DeliveryState<Value?>(nil)
            let scheduled = SerialDisposable()
            emit.lifetime += scheduled
            return { tag in
                switch tag {
                case let .first(.value(value)):
                    if waiting.value == nil { scheduled.inner = scheduler.scheduleTransferred { tick(()) } }
                    waiting.value = value
                case .first(.interrupted):
                    scheduled.inner = nil
                    waiting.value = nil
                    emit.deliverHeld(.interrupted)
                case let .first(event):
                    // The waiting value goes first, as its scheduled send
                    // would have.
                    if let value = waiting.value {
                        waiting.value = nil
                        emit.deliverHeld(.value(value))
                    }
                    emit.deliverHeld(event)
                case .second:
                    if let value = waiting.value {
                        waiting.value = nil
                        emit.deliverHeld(.value(value))
                    }
                }
            }
        }
        // Runs in the delivery of the output, on the scheduler.
        return latest.map(transform)
    }
}

extension SignalProducer {
    /// `Signal.lazyMap(on:transform:)` on every run. Disposing a run
    /// interrupts this producer's run at once; the observer receives
    /// `interrupted` on `scheduler`, and no waiting value.
    @inlinable
    public func lazyMap<U>(on scheduler: Scheduler, transform: @escaping (Value) -> U) -> SignalProducer<U, Error> {
        _liftAsynchronous { $0._lazyMap(on: scheduler, interruptedBy: $1, transform: transform) }
    }
}
