extension SignalProducer {
    /// The producer whose every run applies `op` to this one's events: one
    /// more link in each run's chain (the closure `op` makes, inside the
    /// run's serialized delivery), no signal.
    @inlinable
    func _lift<Op: _UnaryOperator>(_ op: Op) -> SignalProducer<Op.Output, Op.OutputError>
    where Op.Input == Value, Op.InputError == Error {
        let upstream = self
        return SignalProducer<Op.Output, Op.OutputError>(_depth: _depth + 1, makeRunObject: _makeRunObject) { run, sink in
            upstream._attach(run, _ProducerSink(op.attach(to: consume sink), run: run, index: upstream._depth))
        }
    }

    /// Applies a unary `Signal` operator to every run: each start starts
    /// this producer with `startWithSignal` and forwards what `transform`
    /// makes of its signal.
    ///
    /// Disposing the returned producer's run interrupts this producer's run
    /// too. Cost per start: two runs and the signals `transform` makes; the
    /// operators Flare defines on producers are not built this way (theirs
    /// add one closure to the run instead).
    @inlinable
    public func lift<U, F>(_ transform: @escaping (Signal<Value, Error>) -> Signal<U, F>) -> SignalProducer<U, F> {
        SignalProducer<U, F> { observer, lifetime in
            self.startWithSignal { signal, interrupter in
                lifetime += interrupter
                lifetime += transform(signal).observe(observer)
            }
        }
    }

    /// Applies an asynchronous `Signal` operator (one that delivers on a
    /// scheduler: `observe(on:)`, `delay`, `throttle` …) to every run, the
    /// way its interruption must travel: `transform` receives this run's
    /// signal and the run's *interruption* lifetime, which disposing the run
    /// ends. This producer's run is interrupted at once, and the operator
    /// delivers `interrupted` on its scheduler, after dropping what it had
    /// scheduled (see `_SchedulerHop`), as ReactiveSwift does; the run ends
    /// when that `interrupted` has been delivered.
    ///
    /// `start` receives the observer, the run's lifetime and its
    /// interruption lifetime; it starts the upstream runs, adding their
    /// interrupters to both lifetimes, and observes the operator's output.
    @inlinable
    func _liftAsynchronous<U, F>(
        _ start: @escaping (Signal<U, F>.Observer, _ lifetime: Lifetime, _ interruption: Lifetime) -> Void
    ) -> SignalProducer<U, F> {
        SignalProducer<U, F>(_depth: 0, makeRunObject: { linkCount in
            _HandlerRun<U, F>(linkCount: linkCount, asynchronousHandler: start)
        }) { run, sink in
            unsafeDowncast(run, to: _HandlerRun<U, F>.self).sink = sink
        }
    }

    /// `_liftAsynchronous` for a unary operator: `transform` makes the
    /// operator's output from this run's signal and the interruption
    /// lifetime.
    @inlinable
    func _liftAsynchronous<U, F>(
        _ transform: @escaping (Signal<Value, Error>, _ interruption: Lifetime) -> Signal<U, F>
    ) -> SignalProducer<U, F> {
        _liftAsynchronous { (observer: Signal<U, F>.Observer, lifetime: Lifetime, interruption: Lifetime) in
            self.startWithSignal { signal, interrupter in
                interruption += interrupter
                lifetime += interrupter
                lifetime += transform(signal, interruption).observe(observer)
            }
        }
    }

    /// Applies a binary `Signal` operator to the runs of two producers:
    /// each start starts `right`, then this producer (ReactiveSwift's
    /// order), and forwards what `transform` makes of their signals.
    ///
    /// - Returns: A function from the right-hand producer to the result.
    @inlinable
    public func lift<U, F, V, G>(
        _ transform: @escaping (Signal<Value, Error>) -> (Signal<U, F>) -> Signal<V, G>
    ) -> (SignalProducer<U, F>) -> SignalProducer<V, G> {
        liftRight(transform)
    }

    /// Applies a binary `Signal` operator to the runs of two producers,
    /// `right` started first: this producer's signal is set up first, so
    /// that it misses nothing `right` sends while starting; then `right`
    /// starts, then this producer. What `lift(_:)` does.
    ///
    /// Disposing a run of the result interrupts both runs.
    ///
    /// - Returns: A function from the right-hand producer to the result.
    @inlinable
    public func liftRight<U, F, V, G>(
        _ transform: @escaping (Signal<Value, Error>) -> (Signal<U, F>) -> Signal<V, G>
    ) -> (SignalProducer<U, F>) -> SignalProducer<V, G> {
        { right in
            SignalProducer<V, G> { observer, lifetime in
                self.startWithSignal { left, leftInterrupter in
                    lifetime += leftInterrupter
                    right.startWithSignal { rightSignal, rightInterrupter in
                        lifetime += rightInterrupter
                        lifetime += transform(left)(rightSignal).observe(observer)
                    }
                }
            }
        }
    }

    /// Applies a binary `Signal` operator to the runs of two producers,
    /// this producer started first: `right`'s signal is set up first, so
    /// that it misses nothing this producer sends while starting.
    ///
    /// Disposing a run of the result interrupts both runs.
    ///
    /// - Returns: A function from the right-hand producer to the result.
    @inlinable
    public func liftLeft<U, F, V, G>(
        _ transform: @escaping (Signal<Value, Error>) -> (Signal<U, F>) -> Signal<V, G>
    ) -> (SignalProducer<U, F>) -> SignalProducer<V, G> {
        { right in
            SignalProducer<V, G> { observer, lifetime in
                right.startWithSignal { rightSignal, rightInterrupter in
                    lifetime += rightInterrupter
                    self.startWithSignal { left, leftInterrupter in
                        lifetime += leftInterrupter
                        lifetime += transform(left)(rightSignal).observe(observer)
                    }
                }
            }
        }
    }
}
