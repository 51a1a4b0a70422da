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
    public func lift<U, F>(_ transform: @escaping (Signal<Value, Error>) -> Signal<U, F>) -> SignalProducer<U, F> {
        SignalProducer<U, F> { observer, lifetime in
            self.startWithSignal { signal, interrupter in
                lifetime += interrupter
                lifetime += transform(signal).observe(observer)
            }
        }
    }

    /// Applies a binary `Signal` operator to the runs of two producers:
    /// each start starts `right`, then this producer (ReactiveSwift's
    /// order), and forwards what `transform` makes of their signals.
    ///
    /// - Returns: A function from the right-hand producer to the result.
    public func lift<U, F, V, G>(
        _ transform: @escaping (Signal<Value, Error>) -> (Signal<U, F>) -> Signal<V, G>
    ) -> (SignalProducer<U, F>) -> SignalProducer<V, G> {
        _liftRight(transform)
    }

    /// A binary operator on runs where `right` starts first: this
    /// producer's signal is set up first, so that it misses nothing `right`
    /// sends while starting.
    @usableFromInline
    func _liftRight<U, F, V, G>(
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

    /// A binary operator on runs where this producer starts first.
    @usableFromInline
    func _liftLeft<U, F, V, G>(
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
