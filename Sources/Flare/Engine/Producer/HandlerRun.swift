import CFlare

/// The run of a start-handler producer (`SignalProducer { observer,
/// lifetime in ... }`): it serializes what the handler sends itself, with no
/// root signal.
///
/// A root signal per start cost a serial word and a core, the signal's
/// object, handle and lifetime token, an observer (with its closure, entry
/// and observation handle) feeding the run's chain, and the closures that
/// connected the two: about fifteen allocations. But a run has exactly one
/// consumer, its chain, so it needs a root's serialization and none of its
/// observer bag. This run holds the chain's first sink itself and drives its
/// serial word with the same driver as a root signal (`_SerialDriver`,
/// SerialDriver.swift; docs/core-algorithm.md §2, §5a): a send acquires the word and
/// delivers to the sink, or queues behind the delivery in progress (within
/// the queue limit, contract 9); `interrupted` requests prompt interruption
/// (contract 8), which the drainer honours before anything still queued; the
/// terminal event closes the word, drops what was sent after it, releases
/// the chain and ends the run's lifetime. The C core beside the word
/// (`serialBlock`) is never observed: it only carries the
/// prompt-interrupt flag the protocol's steps read.
///
/// A start allocates the run (with its word, in one more block), the run's
/// `Lifetime` (one object: it holds its disposables inline) and the
/// observer handed to the handler, whose closure captures only the run.
///
/// Ownership: the chain's sinks hold the run unretained (see
/// `_ProducerSink`); whatever can send into the run holds it: the handler's
/// observer, and the handle `start` returned, whose `dispose()` sends
/// `interrupted`. When the last of them goes, a run still live is
/// interrupted (`deinit`). The sink is written before the run is handed out
/// and read and cleared only by the thread holding the serial word.
@usableFromInline
final class _HandlerRun<Value, Error: Swift.Error>: _ProducerRun, @unchecked Sendable {
    @usableFromInline typealias Event = Signal<Value, Error>.Event

    /// The source's output, the chain's first link; nil once the run has
    /// terminated, which releases the chain (and the observer) while the
    /// handler's observer or the run's handle live on.
    @exclusivity(unchecked)
    @usableFromInline
    var sink: _ProducerSink<Value, Error>?

    /// The producer's start handler, until the run starts: taken then, so
    /// that a run whose handle is kept does not keep what the handler holds
    /// (`replayLazily`'s shared run goes when its producer and runs go).
    /// Touched only by the thread that makes the run and starts it.
    @exclusivity(unchecked)
    @usableFromInline
    var handler: ((Signal<Value, Error>.Observer, Lifetime) -> Void)?

    /// The serial word and its core (`_ProducerRun.makeSerialBlock`).
    @usableFromInline
    let serialBlock: UnsafeMutableRawPointer

    /// The run of an asynchronous operator (`_liftAsynchronous`): what
    /// disposing the run ends instead of sending `interrupted` into it; the
    /// operator then stops its upstream and delivers `interrupted` itself,
    /// on its scheduler. Nil for every other handler.
    @usableFromInline
    let interruption: Lifetime?

    /// `handler` is borrowed and copied into the field: an owned argument
    /// stored before `super.init` is retained twice and released once.
    @inlinable
    init(linkCount: Int, handler: borrowing @escaping (Signal<Value, Error>.Observer, Lifetime) -> Void) {
        self.handler = copy handler
        interruption = nil
        serialBlock = _ProducerRun.makeSerialBlock()
        super.init(linkCount: linkCount, sourceEntry: { run, interrupt in
            // A closure, not a reference to a static method: specialized
            // with the initializer, it captures nothing (the method, as a
            // value, was its unspecialized generic code).
            let run = unsafeDowncast(run, to: _HandlerRun<Value, Error>.self)
            if interrupt { run.send(.interrupted) } else { run.runHandler() }
        })
        makeLifetime()
    }

    /// The run of an asynchronous operator: `handler` also receives the
    /// run's interruption lifetime, which disposing the run ends (see
    /// `interruption`); it ends too when the run's own lifetime does.
    @inlinable
    init(
        linkCount: Int,
        asynchronousHandler: @escaping (Signal<Value, Error>.Observer, Lifetime, _ interruption: Lifetime) -> Void
    ) {
        let interruption = Lifetime()
        self.interruption = interruption
        handler = { observer, lifetime in
            lifetime += _LifetimeEnd(interruption)
            asynchronousHandler(observer, lifetime, interruption)
        }
        serialBlock = _ProducerRun.makeSerialBlock()
        super.init(linkCount: linkCount, sourceEntry: { run, interrupt in
            let run = unsafeDowncast(run, to: _HandlerRun<Value, Error>.self)
            if interrupt { run.interruptAsynchronous() } else { run.runHandler() }
        })
        makeLifetime()
    }

    /// Interrupts the run of an asynchronous operator. Disposal ends the
    /// interruption lifetime only: the operator delivers `interrupted` on
    /// its scheduler. Any other interruption (an operator of the chain
    /// ended the run, the signal of `startWithSignal` ended) has no
    /// observer waiting for it: `interrupted` goes into the run at once.
    /// A run disposed before its handler ran gets `interrupted` from
    /// `runHandler`, which sees the disposal.
    @inlinable
    final func interruptAsynchronous() {
        if !isDisposed { send(.interrupted) }
        interruption.unsafelyUnwrapped._end()
    }

    deinit {
        // Nothing can send into the run any more: the handler's observer and
        // every handle (what `start` returned, an operator's reference) are
        // gone. A started run that has not terminated ends as if its handle
        // had been disposed: the chain receives `interrupted` and the
        // lifetime ends (in `finishTermination`). The word is idle: whoever
        // holds it holds the run. The chain may retain the run for a moment
        // while it delivers (a lifetime lookup): no reference outlives the
        // delivery, since the sinks hold the run unretained.
        if handler == nil, sink != nil { interruptFromDeinit() }
        // The lifetime has ended already, unless the run was never started
        // nor disposed: `_ProducerRun`'s deinit ends it then.
        _ProducerRun.destroySerialBlock(serialBlock)
    }

    /// Apart from `deinit`, which always runs unspecialized: with the
    /// `interrupted` built inline, the compiler looks up the event type's
    /// metadata (for the event's stack slot) on entry to `deinit`, at the
    /// end of every run, though almost no run takes this branch.
    @inline(never)
    private func interruptFromDeinit() {
        send(.interrupted)
    }

    /// The serial word.
    @inlinable
    final var serial: UnsafeMutablePointer<flare_serial> {
        serialBlock.assumingMemoryBound(to: flare_serial.self)
    }

    /// The C core beside the word (see `_ProducerRun.makeSerialBlock`),
    /// whose drain steps the driver follows.
    @inlinable
    final var drainCore: UnsafeMutablePointer<flare_core> {
        (serialBlock + Int(FLARE_CACHE_LINE)).assumingMemoryBound(to: flare_core.self)
    }

    /// Calls the start handler with an observer that sends into this run,
    /// and the run's lifetime, unless the run was disposed first.
    ///
    /// Releasing the observer does not interrupt the run: the handle `start`
    /// returned (this run) may still be disposed, and until then the run
    /// and its lifetime stay alive, as in ReactiveSwift, where that handle
    /// keeps the observer. The run is interrupted once both are gone
    /// (`deinit`).
    @inlinable
    final func runHandler() {
        guard let handler = handler.take() else { return }
        guard !isDisposed else {
            // A disposed asynchronous run has not delivered `interrupted`
            // (`interruptAsynchronous`): nothing else will.
            if interruption != nil { send(.interrupted) }
            return
        }
        // One capture, a class reference: the closure's context is the run.
        let input = Signal<Value, Error>.Observer(_action: { [self] event in send(event) }, interruptsOnDeinit: false)
        handler(input, lifetime)
    }

    /// Delivers one event to the chain, holding the serial word; returns
    /// whether it was terminal (the word is then closed by the caller, so
    /// nothing is delivered after it).
    @inlinable
    @inline(__always)
    final func deliver(_ event: Event) -> Bool {
        // Set before the run is handed out, cleared only after the word
        // closed: present whenever the word can be held. Moved out for the
        // call and back, as a copy would retain and release the chain's
        // closure around every event: nothing reads `sink` meanwhile (only
        // the holder of the word, after this returns, and `deinit`, which
        // cannot run while the holder holds the run).
        let sink = self.sink.take().unsafelyUnwrapped
        sink.deliverHeld(event)
        self.sink = consume sink
        return event.isTerminating
    }

    /// The word has closed after the terminal event: nobody reads the
    /// sink any more; releases the chain and ends the run's lifetime.
    @inlinable
    final func didTerminate() {
        _ = sink.take()
        sourceEnded()
    }
}

extension _HandlerRun: _SerialDriver {}
