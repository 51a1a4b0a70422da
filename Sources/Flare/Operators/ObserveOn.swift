extension Signal {
    /// Forwards every event on `scheduler`.
    ///
    /// Each event, values and the terminal event alike, is scheduled on
    /// `scheduler` in the order received, and delivered from there: the
    /// observers of the returned signal run on `scheduler`. Events still
    /// scheduled when the output ends are dropped when they run. This
    /// signal's observation is disposed when the output terminates, or when
    /// it has lost every observer and reference.
    @inlinable
    public func observe(on scheduler: Scheduler) -> Signal<Value, Error> {
        _observe(on: scheduler, interruptedBy: nil, inPlaceOn: nil)
    }

    /// `observe(on:)`, which `interruption`'s end interrupts on `scheduler`
    /// (see `_SchedulerHop`), and in which an event received on the thread
    /// that `ticking` says runs one of the operator's own scheduled actions
    /// is delivered at once: it is on `scheduler` already (see
    /// `scheduledFunnel(on:interruptedBy:ticksInPlace:_:)`).
    @inlinable
    func _observe(
        on scheduler: Scheduler, interruptedBy interruption: Lifetime?, inPlaceOn ticking: _TickingThread?
    ) -> Signal<Value, Error> {
        Signal { output, lifetime in
            let hop = _SchedulerHop(output: output, scheduler: scheduler, interruptedBy: interruption, outputLifetime: lifetime)
            lifetime += self.observe { event in
                if let ticking, ticking.isCurrent {
                    hop.deliverInPlace(event, on: scheduler)
                } else {
                    hop.forward(event, on: scheduler)
                }
            }
        }
    }
}

extension SignalProducer {
    /// `Signal.observe(on:)` on every run: events delivered on `scheduler`.
    /// Disposing a run interrupts this producer's run at once; the observer
    /// receives `interrupted` on `scheduler`, and none of the events still
    /// scheduled.
    @inlinable
    public func observe(on scheduler: Scheduler) -> SignalProducer<Value, Error> {
        _liftAsynchronous { $0._observe(on: scheduler, interruptedBy: $1, inPlaceOn: nil) }
    }
}
