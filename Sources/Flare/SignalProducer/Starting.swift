extension SignalProducer {
    /// Makes a run whose events go to `output`, and returns it with its
    /// source not yet started. `output` is consumed: the run's chain holds
    /// it without another retain.
    @inlinable
    func _makeRun(_ output: consuming @escaping (Signal<Value, Error>.Event) -> Void) -> _ProducerRun {
        let run = _makeRunObject(_depth + 1)
        _attach(run, _ProducerSink(output, run: run, index: _depth))
        return run
    }

    /// Creates a run, passes its signal and interrupt handle to `setup`,
    /// then starts the work, unless the handle was disposed inside `setup`.
    ///
    /// The signal carries this run's events, and exists, with its operators
    /// in place, before the start handler runs: observers attached inside
    /// `setup` miss nothing. Disposing the handle interrupts the run (see
    /// `start`); disposing it inside `setup` means the start handler never
    /// runs and the signal is interrupted. If the signal ends otherwise
    /// (losing every observer and reference included, which cannot happen
    /// before the start handler has run), the run is interrupted too.
    ///
    /// Thread-safety: as `start(_:)`; `setup` runs on the calling thread,
    /// before the start handler.
    ///
    /// - Complexity: that of `start(_:)`, plus one signal, with a serial
    ///   word of its own, for the output.
    ///
    /// - Returns: What `setup` returns.
    @inlinable
    @discardableResult
    public func startWithSignal<Result>(
        _ setup: (_ signal: Signal<Value, Error>, _ interruptHandle: Disposable) -> Result
    ) -> Result {
        let output = _SignalCore<Value, Error>()
        let run = _makeRunObject(_depth + 1)
        output.lifetime.observeEnded { run.interrupt() }
        _attach(run, _ProducerSink({ event in output.send(event) }, run: run, index: _depth))
        let signal = Signal(_core: output)
        let result = setup(signal, run)
        // The signal lives until the source has started, as in
        // ReactiveSwift: a setup that kept no reference to it does not stop
        // the start (its effects happen); the run is interrupted once the
        // signal has gone, after it.
        withExtendedLifetime(signal) { run.startIfNotDisposed() }
        return result
    }

    /// Starts a run that delivers its events to `observer`.
    ///
    /// The start handler runs again, with its side effects, at every start;
    /// its events reach `observer` one at a time, in order, with at most one
    /// terminal event. If an operator ends the run (`take(first:)` …), the
    /// source is interrupted and its lifetime ends.
    ///
    /// Thread-safety: call from any thread, concurrently with other starts
    /// of the same producer. Dispose the returned disposable from any
    /// thread, including from inside `observer`.
    ///
    /// - Complexity: O(k) for the k operators applied to the producer (the
    ///   run and one closure per operator), plus the source's own work: a
    ///   start handler runs on the calling thread before `start` returns,
    ///   unless an operator such as `start(on:)` moves it.
    ///
    /// - Returns: A disposable that interrupts this run: `observer` receives
    ///   `interrupted`, and after `dispose()` returns nothing else is
    ///   delivered but, when disposed from another thread, the one delivery
    ///   already starting. The run's lifetime ends, so its cleanup runs
    ///   exactly once (it has already run if the run had terminated).
    ///   Releasing the disposable does not interrupt the run.
    @inlinable
    @discardableResult
    public func start(_ observer: Signal<Value, Error>.Observer = .init()) -> Disposable {
        // One capture, a class reference: the closure's context is the
        // observer itself, nothing is allocated for it.
        _startRun { [observer] event in observer.send(event) }
    }

    /// Starts a run whose last link is `output`.
    @inlinable
    func _startRun(_ output: consuming @escaping (Signal<Value, Error>.Event) -> Void) -> Disposable {
        let run = _makeRun(output)
        run.startIfNotDisposed()
        return run
    }

    /// Starts a run into `observer` whose handle is in `lifetime` *before*
    /// its source starts: what an operator whose output can end by another
    /// input (a trigger, a lifetime, a timeout, the downstream's own end)
    /// uses to start its upstream. A synchronous source sends everything
    /// inside its start; registered only once `start` returned (`lifetime
    /// += self.start(observer)`), it would not be disposed by an end that
    /// happens meanwhile, and an infinite one would never stop. Registered
    /// first, the end disposes it, and the source stops before its next
    /// element. If `lifetime` has ended, the run is disposed and its source
    /// never starts.
    @inlinable
    func _start(_ observer: Signal<Value, Error>.Observer, during lifetime: Lifetime) {
        _start({ [observer] event in observer.send(event) }, during: lifetime)
    }

    /// `_start(_:during:)` with a closure as the run's last link.
    @inlinable
    func _start(_ output: consuming @escaping (Signal<Value, Error>.Event) -> Void, during lifetime: Lifetime) {
        let run = _makeRun(output)
        lifetime += run
        run.startIfNotDisposed()
    }

    /// Starts a run and calls `action` with each of its events; see
    /// `start(_:)` for an observer.
    @inlinable
    @discardableResult
    public func start(_ action: @escaping Signal<Value, Error>.Observer.Action) -> Disposable {
        _startRun(action)
    }

    /// Starts a run and calls `action` with its values and failure, as
    /// `Result`s; see `start(_:)`.
    @inlinable
    @discardableResult
    public func startWithResult(_ action: @escaping (Result<Value, Error>) -> Void) -> Disposable {
        start(Signal.Observer(value: { action(.success($0)) }, failed: { action(.failure($0)) }))
    }

    /// Starts a run and calls `action` when it completes; see `start(_:)`.
    @inlinable
    @discardableResult
    public func startWithCompleted(_ action: @escaping () -> Void) -> Disposable {
        start(Signal.Observer(completed: action))
    }

    /// Starts a run and calls `action` if it fails; see `start(_:)`.
    @inlinable
    @discardableResult
    public func startWithFailed(_ action: @escaping (Error) -> Void) -> Disposable {
        start(Signal.Observer(failed: action))
    }

    /// Starts a run and calls `action` if it is interrupted; see `start(_:)`.
    @inlinable
    @discardableResult
    public func startWithInterrupted(_ action: @escaping () -> Void) -> Disposable {
        start(Signal.Observer(interrupted: action))
    }
}

extension SignalProducer where Error == Never {
    /// Starts a run and calls `action` with each of its values; see
    /// `start(_:)`.
    @inlinable
    @discardableResult
    public func startWithValues(_ action: @escaping (Value) -> Void) -> Disposable {
        _startRun { event in
            if case let .value(value) = event { action(value) }
        }
    }
}
