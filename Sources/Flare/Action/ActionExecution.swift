import Synchronization

/// One start of the producer `Action.apply` returns: the source of that
/// run, which relays the events of the execution's work, itself a run of
/// the work's producer, into the started producer's chain.
///
/// No root signal, observer or lifetime is made for the start: the work's
/// run delivers serially, and it is the only source of the started
/// producer's events but two, each delivered when nothing else can be:
/// - the `.disabled` failure, by the starting thread, when `begin` finds
///   the action disabled (no work exists);
/// - `interrupted`, by the interrupting thread, when the start is disposed
///   before it began (`start` will then do nothing).
/// `state` decides which thread does what; it moves only forward:
///
///     idle ──start──▶ starting ──work published──▶ running
///       │                 │
///       └─interrupt──▶ done      starting|interruptRequested ──▶ the
///                               starter disposes the work before it runs
///
/// Once `running`, an interruption disposes the work's run, whose
/// `interrupted` arrives through `forward` like any other event. The
/// execution ends (`_ExecutionControl.end`) at the work's terminal event.
///
/// Lifetimes: the run (the handle `start` returned) keeps this object
/// through its interrupt and start closures; this object keeps the run
/// (the sink holds it unowned) until the terminal event has been
/// delivered, and the work's run, whose output holds this object until the
/// work has terminated.
@usableFromInline
final class _ActionExecution<Input, Output, Error: Swift.Error>: @unchecked Sendable {
    @usableFromInline static var idle: Int { 0 }
    @usableFromInline static var starting: Int { 1 }
    @usableFromInline static var running: Int { 2 }
    @usableFromInline static var done: Int { 4 }
    @usableFromInline static var interruptRequested: Int { 8 }

    @usableFromInline
    let state = Atomic<Int>(0)

    @usableFromInline
    let action: Action<Input, Output, Error>

    @usableFromInline
    let input: Input

    // Written by whichever thread `state` designates: the starter (or the
    // interrupter, from `idle`), then the work's serialized deliveries.

    /// The started producer's chain; nil once its terminal event has gone.
    @usableFromInline
    @exclusivity(unchecked)
    var sink: _ProducerSink<Output, ActionError<Error>>?

    /// The started producer's run, kept until its terminal event has gone.
    @usableFromInline
    @exclusivity(unchecked)
    var run: _ProducerRun?

    /// The work's run: written before `state` publishes `running` (with
    /// release ordering), read by interrupters that loaded `running` (with
    /// acquire ordering); never cleared.
    @usableFromInline
    @exclusivity(unchecked)
    var work: _ProducerRun?

    @inlinable
    init(action: Action<Input, Output, Error>, input: Input, run: _ProducerRun, sink: consuming _ProducerSink<Output, ActionError<Error>>) {
        self.action = action
        self.input = input
        self.run = run
        self.sink = sink
    }

    /// The started producer's source starts (the run was not disposed
    /// before).
    @inlinable
    func start() {
        guard state.compareExchange(expected: Self.idle, desired: Self.starting, ordering: .acquiring).exchanged
        else { return }
        guard let producer = action.begin(input) else {
            sink?.deliverHeld(.failed(.disabled))
            action.disabledErrorsInput.send(value: ())
            state.store(Self.done, ordering: .releasing)
            finish()
            return
        }
        let work = producer.makeRun { [self] event in forward(event) }
        self.work = work
        // Release: an interrupter that sees `running` sees `work`.
        if state.compareExchange(expected: Self.starting, desired: Self.running, ordering: .acquiringAndReleasing).exchanged {
            work.startIfNotDisposed()
        } else {
            // Interrupted while starting: the work never runs, and its run
            // delivers `interrupted` through `forward`.
            work.dispose()
        }
    }

    /// The started producer's run is interrupted (disposed, or ended by an
    /// operator of its chain). Any thread.
    @inlinable
    func interrupt() {
        var current = state.load(ordering: .acquiring)
        while true {
            switch current {
            case Self.idle:
                let (exchanged, now) = state.compareExchange(
                    expected: Self.idle, desired: Self.done, ordering: .acquiringAndReleasing)
                if exchanged {
                    // `start` will do nothing: this thread is the only one
                    // to deliver.
                    sink?.deliverHeld(.interrupted)
                    finish()
                    return
                }
                current = now
            case Self.starting:
                let (exchanged, now) = state.compareExchange(
                    expected: Self.starting, desired: Self.starting | Self.interruptRequested,
                    ordering: .acquiringAndReleasing)
                if exchanged { return }
                current = now
            case Self.running:
                work.unsafelyUnwrapped.dispose()
                return
            default:
                return
            }
        }
    }

    /// An event of the work: to the started producer, then (a terminal
    /// one) the action is enabled again, then to `events`. Called inside
    /// the work's serialized delivery.
    @inlinable
    func forward(_ event: Signal<Output, Error>.Event) {
        sink?.deliverHeld(event.mapError(ActionError.producerFailed))
        if event.isTerminating { action.control.end() }
        action.eventsInput.send(value: event)
        if event.isTerminating { finish() }
    }

    /// The started producer's terminal event has been delivered: ends its
    /// run's lifetime and lets the chain and the run go.
    @inlinable
    func finish() {
        sink = nil
        let run = self.run.take()
        run?.relayEnded()
    }
}
