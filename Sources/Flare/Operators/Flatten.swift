/// How a stream of streams is flattened into a stream of values: which inner
/// streams run, when, and what their terminal events do.
///
/// For every strategy, a failure of the outer stream or of an inner stream
/// whose events are forwarded is forwarded at once, and every other inner
/// run is disposed. An `interrupted` of the outer stream is forwarded too.
/// Inner runs that are disposed together (the output ended or was
/// disposed, `race` chose its winner) are disposed in the order they
/// started, as in ReactiveSwift.
public struct FlattenStrategy: Sendable {
    @usableFromInline
    enum _Kind: Sendable, Equatable {
        case concurrent(limit: UInt)
        case latest
        case race
        case throttle
    }

    @usableFromInline
    let _kind: _Kind

    @inlinable
    init(_kind kind: _Kind) {
        self._kind = kind
    }

    /// Every inner stream runs as soon as it arrives; every value of every
    /// inner is forwarded at once.
    ///
    /// Completes once the outer stream and every inner stream have
    /// completed. An inner `interrupted` counts as its completion.
    public static let merge = FlattenStrategy(_kind: .concurrent(limit: .max))

    /// One inner stream at a time, in arrival order: an inner that arrives
    /// while another runs waits in a queue and starts when every earlier one
    /// has completed.
    ///
    /// Completes once the outer stream and every inner stream have
    /// completed. An inner `interrupted` counts as its completion.
    public static let concat = FlattenStrategy(_kind: .concurrent(limit: 1))

    /// At most `limit` inner streams at a time: an inner that arrives while
    /// `limit` run waits in a queue, and the waiting ones start in arrival
    /// order as running ones complete.
    ///
    /// Completes once the outer stream and every inner stream have
    /// completed. An inner `interrupted` counts as its completion.
    ///
    /// - Precondition: `limit > 0`.
    public static func concurrent(limit: UInt) -> FlattenStrategy {
        flarePrecondition(limit > 0, "concurrent(limit:) needs a limit greater than 0, got \(limit)")
        return FlattenStrategy(_kind: .concurrent(limit: limit))
    }

    /// Only the latest inner stream: when an inner arrives, the running one
    /// is disposed and none of its events is forwarded any more, even one it
    /// sent before the switch.
    ///
    /// Completes once the outer stream and the latest inner stream have
    /// completed. An inner `interrupted` counts as its completion.
    public static let latest = FlattenStrategy(_kind: .latest)

    /// Only the first inner stream to send an event (of any kind): the
    /// others are disposed at that moment and none of their events is
    /// forwarded; inner streams arriving later are not started.
    ///
    /// Completes once the outer stream and the winning inner stream have
    /// completed. The winner's `interrupted` is forwarded.
    public static let race = FlattenStrategy(_kind: .race)

    /// One inner stream at a time: an inner that arrives while another runs
    /// is dropped, never started. Once the running one has completed, the
    /// next inner to arrive runs.
    ///
    /// Completes once the outer stream and the running inner stream, if
    /// any, have completed. An inner `interrupted` is forwarded.
    public static let throttle = FlattenStrategy(_kind: .throttle)
}

extension Signal {
    /// The engine of every flatten and flatMap of a signal: each value is
    /// turned into an inner producer by `transform` and flattened by
    /// `strategy`.
    ///
    /// - Parameter made: Receives the engine (`SignalProducer._flattening`).
    @inlinable
    func _flattening<Inner>(
        _ strategy: FlattenStrategy, _ transform: @escaping (Value) -> SignalProducer<Inner, Error>,
        made receive: (_FlattenEngine<Value, Inner, Error>) -> Void = { _ in }
    ) -> Signal<Inner, Error> {
        var made: _FlattenEngine<Value, Inner, Error>?
        return _funnel(withCore: { (downstream: _HeldCore<Inner, Error>, input: Signal<_FlattenTag<Value, Inner, Error>, Never>.Observer,
                                    funnelCore: _SignalCore<_FlattenTag<Value, Inner, Error>, Never>) in
            let engine = _FlattenEngine(strategy, transform: transform, downstream: downstream, input: input, funnelCore: funnelCore)
            made = engine
            return { engine.handle($0) }
        }, connect: { input, observations in
            let engine = made.unsafelyUnwrapped
            receive(engine)
            // Runs once the internal signal has closed: every inner still
            // running is disposed, whatever ended the output.
            observations += { engine.disposeAll() }
            observations += self.observe { input.send(value: .outer($0)) }
        })
    }
}

extension SignalProducer {
    /// The engine of every flatten and flatMap of a producer: each run
    /// flattens a run of this producer (see `Signal._flattening(_:_:)`).
    ///
    /// When a run ends (its output ended, or it was disposed), its inner
    /// runs and this producer's run are disposed in ReactiveSwift's order:
    /// `latest`, `race` and `throttle` the inner runs first, then this
    /// producer's run; `merge`, `concat` and `concurrent` this producer's
    /// run first, then the inner runs, in the order they started. Ended on
    /// the thread that runs a synchronous inner (from inside its delivery),
    /// the inner stops before its next element (`disposeAllHeld`). Nothing
    /// the outer run sends while it is disposed starts an inner (an
    /// `interrupted` that `materialize` turned into a value).
    @inlinable
    func _flattening<Inner>(
        _ strategy: FlattenStrategy, _ transform: @escaping (Value) -> SignalProducer<Inner, Error>
    ) -> SignalProducer<Inner, Error> {
        let innersFirst: Bool
        if case .concurrent = strategy._kind { innersFirst = false } else { innersFirst = true }
        return SignalProducer<Inner, Error> { observer, lifetime in
            self.startWithSignal { (signal: Signal<Value, Error>, interrupter: Disposable) -> Void in
                var made: _FlattenEngine<Value, Inner, Error>?
                let output = signal._flattening(strategy, transform) { made = $0 }
                let engine = made.unsafelyUnwrapped
                // First of the run's teardown: nothing the outer sends while
                // it is disposed starts an inner.
                if innersFirst {
                    lifetime.observeEnded {
                        engine.beginEnding()
                        engine.disposeAllHeld()
                    }
                    lifetime += output.observe(observer)
                    lifetime += interrupter
                } else {
                    lifetime.observeEnded { engine.beginEnding() }
                    lifetime += interrupter
                    lifetime.observeEnded { engine.disposeAllHeld() }
                    lifetime += output.observe(observer)
                }
            }
        }
    }
}
