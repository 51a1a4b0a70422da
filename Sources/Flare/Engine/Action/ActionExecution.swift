import CFlare
import Synchronization

/// One start of the producer `Action.apply` returns: the run itself (made
/// by the producer's `_makeRunObject`, and the `Disposable` its start
/// returns), and the source of that run, which relays the events of the
/// execution's work, itself a run of the work's producer, into the
/// started producer's chain. `_ProducerRun` starts and interrupts it
/// through `sourceEntry` (see `_ProducerRun.sourceEnded`): no closure
/// and no object per start besides this one.
///
/// No root signal, observer or lifetime is made for the start: the work's
/// run delivers serially, and it is the only source of the started
/// producer's events but two, each delivered when nothing else can be:
/// - the `.disabled` failure, by the starting thread, when `begin` finds
///   the action disabled (no work exists);
/// - `interrupted`, by the interrupting thread, when the start is disposed
///   before it began (`start` will then do nothing).
/// `state`, the run's state word (`_RunState`), decides which thread
/// does what: idle → starting → live once the work is published (or done,
/// for a disabled action); an interrupter from idle delivers `interrupted`
/// itself; one that finds starting leaves the request to the starter,
/// which disposes the work before it runs.
///
/// Once live, an interruption disposes the work's run, whose
/// `interrupted` arrives through `forward` like any other event.
///
/// The execution ends (`_ExecutionControl.end`: the action may execute
/// again) once, as ReactiveSwift's does, which ends it in the start's
/// lifetime and watches that lifetime only once the work's start has
/// returned: at the work's own terminal event (after the start heard it,
/// before `events` does), or when the thread that asked for an
/// interruption has disposed the work (after `events` heard a work's
/// `interrupted` delivered at once); but either one that comes before the
/// work's start has returned leaves the end to the starter, when it
/// returns (after `events` heard it). `endWord` decides who
/// (Tests/Model/actionend.pml).
///
/// Lifetimes: the chain's sinks hold this run unowned; while the work
/// runs, its output (`forward`) holds this run until the work has
/// terminated, and this run holds the work's run (`work`). Whoever keeps
/// the handle keeps the rest; nothing else does.
@usableFromInline
final class _ActionExecution<Input, Output, Error: Swift.Error>: _ProducerRun, @unchecked Sendable {
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

    /// The work's run: written before `state` publishes live (with
    /// release ordering, `endStart`), read by interrupters that found it
    /// live (with acquire ordering); never cleared.
    @usableFromInline
    @exclusivity(unchecked)
    var work: _ProducerRun?

    /// Who ends the execution: `startReturned` is or-ed in by the starter
    /// once the work's start has returned, `endAsked` by the work's own
    /// terminal event and by the thread that asked for an interruption.
    /// Whoever sets the second of the two bits ends the execution (the
    /// first to set `endAsked` after `startReturned`, or the starter if
    /// `endAsked` came first); a later `endAsked` does nothing.
    @usableFromInline
    let endWord = Atomic<Int>(0)

    @usableFromInline static var startReturned: Int { 1 }
    @usableFromInline static var endAsked: Int { 2 }

    /// A start's run for a chain of `linkCount` links; its `sink` is set by
    /// the producer's `attach`. The entry function captures nothing: made
    /// where the types are concrete, it allocates nothing.
    @inlinable
    init(action: Action<Input, Output, Error>, input: Input, linkCount: Int) {
        self.action = action
        self.input = input
        super.init(linkCount: linkCount, sourceEntry: { run, interrupt in
            let execution = unsafeDowncast(run, to: _ActionExecution<Input, Output, Error>.self)
            if interrupt { execution.interruptRelay() } else if !execution.isDisposed { execution.start() }
        })
    }

    /// The started producer's source starts (the run was not disposed
    /// before).
    @inlinable
    func start() {
        guard state.beginStart() else { return }
        guard let producer = action._begin(input) else {
            sink?.deliverHeld(.failed(.disabled))
            action._disabledErrorsInput.send(value: ())
            // Nothing else to deliver: an interruption requested meanwhile
            // has nothing to stop.
            _ = state.endStartDone()
            finish()
            return
        }
        let work = producer._makeRun { [self] event in forward(event) }
        self.work = work
        // Release: an interrupter that finds the run live sees `work`.
        if state.endStart() {
            work.startIfNotDisposed()
            let before = endWord.bitwiseOr(Self.startReturned, ordering: .acquiringAndReleasing).oldValue
            if before & Self.endAsked != 0 { endExecution() }
        } else {
            // Interrupted while starting: the work never runs, and its run
            // delivers `interrupted` through `forward`; then the execution
            // ends. Nobody else can end it: the interrupter left the
            // request to this thread.
            work.dispose()
            endExecution()
        }
    }

    /// The started producer's run is interrupted (disposed, or ended by an
    /// operator of its chain). Any thread.
    @inlinable
    func interruptRelay() {
        switch state.requestInterrupt() {
        case .notStarted:
            // `start` will do nothing: this thread is the only one to
            // deliver.
            sink?.deliverHeld(.interrupted)
            finish()
        case .live:
            // The request's end: as in ReactiveSwift (which ends the
            // execution in the start's lifetime), the action is enabled
            // again by the time `dispose()` returns (or, while the work is
            // starting, when its start returns), after `events` heard the
            // work's `interrupted` if the work delivered it at once; one
            // the work delivers later (through a scheduler, or after its
            // delivery in progress) reaches the start and `events` then.
            work.unsafelyUnwrapped.dispose()
            askToEnd()
        case .starting, .over:
            // Starting: the starter disposes the work before it runs.
            return
        }
    }

    /// An event of the work: to the started producer, then to `events`;
    /// a terminal one also ends the execution (see the type's comment).
    /// Called inside the work's serialized delivery.
    @inlinable
    func forward(_ event: Signal<Output, Error>.Event) {
        // Moved out for the call and back (a copy would retain and release
        // the chain's closure): the work's deliveries are serialized, and
        // nothing else reads `sink` once the run is live.
        if let sink = sink.take() {
            sink.deliverHeld(event.mapError(ActionError.producerFailed))
            self.sink = consume sink
        }
        guard event.isTerminating else {
            sendOnEvents(event)
            return
        }
        // A requested `interrupted` (delivered after the interrupter's
        // request, through the work's serial word): the interrupter asks
        // for the end. Any other terminal event asks here, before `events`
        // hears it; during the work's start, the starter ends the execution
        // when the start returns, after.
        if case .interrupted = event, isInterruptRequested {} else { askToEnd() }
        sendOnEvents(event)
        finish()
    }

    /// Asks for the execution's end: ends it now if the work's start has
    /// returned and nobody asked before (else the starter, or whoever asked
    /// first, does). Any thread.
    @inlinable
    func askToEnd() {
        let before = endWord.bitwiseOr(Self.endAsked, ordering: .acquiringAndReleasing).oldValue
        if before == Self.startReturned { endExecution() }
    }

    /// Ends the execution (the action may execute again). Called once, by
    /// whoever `endWord` designates.
    @inlinable
    func endExecution() {
        // The action (which this run retains) keeps its control: no retain.
        Unmanaged.passUnretained(action._control)._withUnsafeGuaranteedRef { $0.end() }
    }

    /// Sends `event` on the action's `events`, unless it is an event
    /// nobody could receive: nothing observes `events` but the action's own
    /// observer, and that observer's `values`, `errors` or `completed`
    /// would not pass it on (`flare_core_has_observers_beyond`; the action
    /// keeps the handle).
    @inlinable
    @inline(__always)
    func sendOnEvents(_ event: Signal<Output, Error>.Event) {
        if flare_core_has_observers_beyond(action.events._core.raw, 1) || action._outputs.hears(event) {
            action._eventsInput.send(value: event)
        }
    }

    /// The started producer's terminal event has been delivered: ends the
    /// run's lifetime and lets the chain go.
    @inlinable
    func finish() {
        sink = nil
        sourceEnded()
    }
}
