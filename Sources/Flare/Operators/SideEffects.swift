extension Signal {
    /// Runs side effects for the events passing through, then forwards each
    /// event unchanged.
    ///
    /// For each event, in this order: `event`, then the closure of its kind
    /// (`value`, `failed`, `completed` or `interrupted`), then `terminated`
    /// if the event is terminal, and only then the event is delivered
    /// downstream. `disposed` runs once, when the returned signal ends: after
    /// its terminal event has been delivered, or when it is released with no
    /// observer left (which also stops its observation of upstream).
    ///
    /// The closures run inside upstream's serialized delivery, one event at a
    /// time; `disposed` runs on whichever thread ends the signal.
    @inlinable
    public func on(
        event: ((Event) -> Void)? = nil,
        failed: ((Error) -> Void)? = nil,
        completed: (() -> Void)? = nil,
        interrupted: (() -> Void)? = nil,
        terminated: (() -> Void)? = nil,
        disposed: (() -> Void)? = nil,
        value: ((Value) -> Void)? = nil
    ) -> Signal<Value, Error> {
        _lift(_SideEffectsOperator(
            event: event, failed: failed, completed: completed, interrupted: interrupted,
            terminated: terminated, disposed: disposed, value: value))
    }
}

/// `on(...)`: side effects.
@usableFromInline
struct _SideEffectsOperator<Value, Error: Swift.Error>: _FilteringOperator {
    @usableFromInline let event: ((Signal<Value, Error>.Event) -> Void)?
    @usableFromInline let failed: ((Error) -> Void)?
    @usableFromInline let completed: (() -> Void)?
    @usableFromInline let interrupted: (() -> Void)?
    @usableFromInline let terminated: (() -> Void)?
    @usableFromInline let disposed: (() -> Void)?
    @usableFromInline let value: ((Value) -> Void)?

    @inlinable
    init(
        event: ((Signal<Value, Error>.Event) -> Void)?, failed: ((Error) -> Void)?, completed: (() -> Void)?,
        interrupted: (() -> Void)?, terminated: (() -> Void)?, disposed: (() -> Void)?, value: ((Value) -> Void)?
    ) {
        self.event = event
        self.failed = failed
        self.completed = completed
        self.interrupted = interrupted
        self.terminated = terminated
        self.disposed = disposed
        self.value = value
    }

    @inlinable
    func attach<Sink: _EventSink>(to downstream: consuming Sink) -> (Signal<Value, Error>.Event) -> Void
    where Sink.Value == Value, Sink.Error == Error {
        let downstream = downstream
        if let disposed { downstream.lifetime.observeEnded(disposed) }
        return { received in
            event?(received)
            switch received {
            case let .value(v): value?(v)
            case let .failed(error): failed?(error)
            case .completed: completed?()
            case .interrupted: interrupted?()
            }
            if received.isTerminating { terminated?() }
            downstream.deliverHeld(received)
        }
    }
}

extension SignalProducer {
    /// `Signal.on(...)` on every run: side effects for the events passing
    /// through; `disposed` runs once per run, when the run ends (terminal
    /// event, disposal, or an operator ending it). Also `starting`, called
    /// at each start before the start handler runs, and `started`, after it
    /// returned (both on the starting thread; neither if the run was
    /// disposed before it started). One link per start; `starting` and
    /// `started` are hooks of the run, not links.
    @inlinable
    public func on(
        starting: (() -> Void)? = nil,
        started: (() -> Void)? = nil,
        event: ((Signal<Value, Error>.Event) -> Void)? = nil,
        failed: ((Error) -> Void)? = nil,
        completed: (() -> Void)? = nil,
        interrupted: (() -> Void)? = nil,
        terminated: (() -> Void)? = nil,
        disposed: (() -> Void)? = nil,
        value: ((Value) -> Void)? = nil
    ) -> SignalProducer<Value, Error> {
        let lifted = _lift(_SideEffectsOperator(
            event: event, failed: failed, completed: completed, interrupted: interrupted,
            terminated: terminated, disposed: disposed, value: value))
        return lifted._withStartHooks(starting: starting, started: started)
    }

    /// This producer, with `starting` called at each start right before its
    /// source starts and `started` right after the source's start returned
    /// (neither if the run was disposed before it started). No link of its
    /// own: hooks the run calls around its source's start, so that every
    /// event, the interruption of a disposed run included, reaches the
    /// links of this producer in chain order, as in ReactiveSwift.
    @inlinable
    func _withStartHooks(starting: (() -> Void)?, started: (() -> Void)?) -> SignalProducer<Value, Error> {
        guard starting != nil || started != nil else { return self }
        let (onStarting, onStarted) = (starting ?? {}, started ?? {})
        return SignalProducer(_depth: _depth, makeRunObject: _makeRunObject) { run, sink in
            run.addStartHooks(starting: onStarting, started: onStarted)
            self._attach(run, sink)
        }
    }
}
