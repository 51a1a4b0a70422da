import CFlare

/// One start of a producer whose events come from a shared serialized
/// domain (a `_RelayHub`): the run (made by the producer's
/// `_makeRunObject`, and the `Disposable` its start returns) and its source,
/// in one object.
///
/// The run's events are delivered to its chain (`sink`) by whichever thread
/// holds the domain's serial word: the domain's changes, its terminal
/// event, and `interrupted`, from inside the domain's delivery (the relay
/// sits in the domain's list, `_RelayList`); the start's own first events
/// (a property's current value, a replay's buffer) by the starter, holding
/// the domain too, or, for a property start that finds another thread
/// delivering, through a per-run `buffer` signal (see
/// `_PropertyChannel.start(_:)`). Two more are delivered where nothing can
/// overlap them: `interrupted` for a run disposed before it started, by the
/// interrupter, and the terminal event of a buffered run, by the buffer's
/// delivery.
///
/// `state`, the run's state word (`_RunState`: idle → starting → live, or
/// done, plus `requested`), decides who delivers what. `done` is or-ed in
/// by whoever delivers the terminal event (`_RunState.finish`), unless an
/// interruption was requested (whose interrupters return anyway), so that
/// a later interrupter returns at once. A `requested` that the starter
/// finds when it ends its start (`endStart` fails) is carried out by the
/// starter. An interrupter that finds
/// `live` sets `requested` and has the hub detach the relay; the domain's
/// delivery checks `requested` (one relaxed load) before each event it
/// delivers to the relay, and delivers `interrupted` instead once it is set:
/// after `dispose()` returns, at most the delivery already starting on
/// another thread lands (contract 4), as for an observer's claim
/// (docs/core-algorithm.md §4, and §6 for this type).
///
/// Lifetimes: the relay keeps the chain (whose sinks hold the relay, their
/// run, unretained) and `anchor` until the terminal event has been
/// delivered; whoever delivers to it holds it (the domain's list while it
/// is attached, a buffer's observer, the starter). It keeps the hub until
/// then too when the run ends on its
/// own (the terminal event's deliverer sets `done`, so no interrupter can
/// reach the hub afterwards); a run whose interruption was requested keeps
/// its hub until the relay goes, as its interrupter may still be calling
/// `detach`. So a run that has ended does not keep what the hub holds (a
/// property's value) alive, however long its handle lives (a flattening
/// operator may keep the handle of an outer run that has completed). The
/// domain's list keeps the relay while it is attached.
@usableFromInline
final class _DomainRelay<Hub: _RelayHub>: _ProducerRun, @unchecked Sendable {
    @usableFromInline typealias Value = Hub.Value
    @usableFromInline typealias Error = Hub.Error

    /// The domain. Read by the starter before the relay is published, and
    /// by an interrupter whose CAS from `live` succeeded; set to nil only by
    /// `finish`, after its own CAS set `done` with no `requested`: of the
    /// two CASes on `state`, one fails, so the read and the write never
    /// race.
    @usableFromInline
    @exclusivity(unchecked)
    var hub: Hub?

    // Touched by whoever delivers to the run: the creating thread before
    // the run is handed out, then the starter, the domain's deliveries and
    // (a buffered run) the buffer's, in an order `state` and the serial
    // words establish (see `_PropertyChannel.start(_:)`).

    /// The started producer's chain, until the run's first live delivery
    /// moves it into `boxed`; nil once its terminal event has gone.
    @usableFromInline
    @exclusivity(unchecked)
    var sink: _ProducerSink<Value, Error>?

    /// The chain, once the run receives live deliveries: in an object of
    /// its own that holds it as a constant, which the domain's delivery
    /// loop calls at +0 (a closure read from a variable is retained and
    /// released around every call). Owned here (released with the
    /// terminal event).
    @usableFromInline
    @exclusivity(unchecked)
    var boxed: Unmanaged<_RelaySink<Value, Error>>?

    /// Kept alive until the terminal event has gone.
    @usableFromInline
    @exclusivity(unchecked)
    var anchor: Hub.Anchor?

    /// A property run started while another thread was delivering: the
    /// signal its events go through (see `_PropertyChannel.start(_:)`). Set
    /// by the starter before the relay is published to the domain, or
    /// never.
    @usableFromInline
    @exclusivity(unchecked)
    var buffer: _SignalCore<Value, Error>?

    /// A start's run for a chain of `linkCount` links; its `sink` is set by
    /// the producer's `attach`. The entry function captures nothing: made
    /// where `Hub` is concrete, it allocates nothing. Borrowed and copied
    /// into the fields: owned arguments stored before `super.init` are each
    /// retained twice and released once.
    @inlinable
    init(hub: borrowing Hub, anchor: borrowing Hub.Anchor, linkCount: Int) {
        self.hub = copy hub
        self.anchor = copy anchor
        super.init(linkCount: linkCount, sourceEntry: { run, interrupt in
            let relay = unsafeDowncast(run, to: _DomainRelay<Hub>.self)
            if interrupt { relay.interruptRelay() } else if !relay.isDisposed { relay.startRelay() }
        })
    }

    /// The start of the run, called by `_ProducerRun.startIfNotDisposed`.
    @inlinable
    func startRelay() {
        // A local reference: the start may end the run, which lets `hub` go.
        let hub = self.hub.unsafelyUnwrapped
        hub.start(self)
    }

    /// Claims the start: false if the run was interrupted before it started
    /// (the interrupter has delivered `interrupted`).
    @inlinable
    func beginStart() -> Bool {
        state.beginStart()
    }

    /// Ends the start: false if an interruption was requested meanwhile,
    /// which the starter must then carry out (the interrupter left it).
    @inlinable
    func endStart() -> Bool {
        state.endStart()
    }

    /// Whether the run's terminal event has gone (or it was never made).
    /// Read by whoever delivers to the run.
    @inlinable
    var hasFinished: Bool { boxed == nil && sink == nil }

    /// Delivers `value` to the chain: the start's own values (a property's
    /// current value, a replay's buffer). Called by whoever delivers to
    /// the run.
    ///
    /// The chain is moved out for the call and back (a copy would retain
    /// and release it): nothing else reads `sink` meanwhile, as the run's
    /// other deliveries and its `finish` all wait for this one (the caller
    /// holds the domain, or the run is not yet in it).
    @inlinable
    func send(value: Value) {
        if let boxed {
            boxed._withUnsafeGuaranteedRef { $0.sink.deliverHeld(value: value) }
        } else if let sink = sink.take() {
            sink.deliverHeld(value: value)
            self.sink = consume sink
        }
    }

    /// Delivers a live `value` to the chain, or, once an interruption was
    /// requested, `interrupted` instead (a run without `buffer`). Called
    /// inside the domain's delivery.
    @inlinable
    @inline(__always)
    func deliver(value: Value) {
        if _slowPath(isInterruptRequested) { return interruptFromDomain() }
        if let boxed {
            boxed._withUnsafeGuaranteedRef { $0.sink.deliverHeld(value: value) }
        } else {
            deliverFirst(value: value)
        }
    }

    /// The first live delivery: boxes the chain (see `boxed`), or sends to
    /// the buffer.
    @inlinable
    @inline(never)
    func deliverFirst(value: Value) {
        if let buffer { return buffer.send(.value(value)) }
        guard let sink = sink.take() else { return }
        let boxed = Unmanaged.passRetained(_RelaySink(sink))
        self.boxed = boxed
        boxed._withUnsafeGuaranteedRef { $0.sink.deliverHeld(value: value) }
    }

    /// An interruption was requested: delivers `interrupted` now, from the
    /// domain (a buffered run was interrupted through its buffer).
    @inlinable
    @inline(never)
    func interruptFromDomain() {
        if buffer == nil { finish(.interrupted) }
    }

    /// Ends the run with the domain's terminal event `event`, from inside
    /// the domain's delivery: `interrupted` instead if an interruption was
    /// requested.
    @inlinable
    func end(_ event: Signal<Value, Error>.Event) {
        if let buffer {
            buffer.send(event)
        } else {
            finish(isInterruptRequested ? .interrupted : event)
        }
    }

    /// Delivers the terminal event `event` and lets the chain, the run and
    /// the anchor go. Called by whoever delivers to the run; does nothing
    /// once the terminal event has gone.
    @inlinable
    func finish(_ event: Signal<Value, Error>.Event) {
        // `boxed` is written only when set: a buffered run never boxes its
        // chain, and the domain's delivery reads `boxed` (nil) to pick the
        // buffer while the buffer's delivery ends the run here, on another
        // thread, with nothing ordering the two.
        let boxed = self.boxed
        if boxed != nil { self.boxed = nil }
        let sink = self.sink.take()
        guard boxed != nil || sink != nil else { return }
        // So that a later interrupter returns at once (one that has set
        // `requested` already does). Release: an interrupter that reads
        // `done` returns and touches nothing; nothing is published to it.
        // Set only while `requested` is not: then no interrupter has the
        // hub, nor can one get it, so it goes with the run's terminal event.
        let releasesHub = state.finish()
        if let boxed {
            boxed._withUnsafeGuaranteedRef { $0.sink.deliverHeld(event) }
            boxed.release()
        } else if let sink = consume sink {
            // Moved out of the optional: a copy (`unsafelyUnwrapped`, or a
            // plain binding) retains and releases the chain's closure.
            sink.deliverHeld(event)
        }
        let anchor = self.anchor.take()
        let hub = releasesHub ? self.hub.take() : nil
        sourceEnded()
        withExtendedLifetime(anchor) {}
        withExtendedLifetime(hub) {}
    }

    /// Interrupts the run (disposal, or an operator of its chain ended it).
    /// Any thread, also from inside one of the run's deliveries.
    @inlinable
    func interruptRelay() {
        switch state.requestInterrupt() {
        case .notStarted:
            // The start will do nothing: this thread alone delivers.
            finish(.interrupted)
        case .live:
            // Prompt: `interrupted` overtakes what the buffer holds.
            buffer?.send(.interrupted)
            // Unretained: with `requested` set, the relay keeps its hub
            // until it goes (see `finish`), and the caller holds the relay.
            Unmanaged.passUnretained(hub.unsafelyUnwrapped)._withUnsafeGuaranteedRef { $0.detach(self) }
        case .starting, .over:
            // Starting: the starter sees the request when it ends its start.
            return
        }
    }

    /// The delivery of a buffered run's signal: to the chain, then, at the
    /// terminal event, the relay lets go.
    @inlinable
    func deliverBuffered(_ event: Signal<Value, Error>.Event) {
        if event.isTerminating {
            finish(event)
        } else {
            sink?.deliverHeld(event)
        }
    }

    /// Makes a buffer for this relay: a root signal, without a queue limit
    /// (the domain's delivery sends into it and must never wait), whose one
    /// observer delivers to the chain. Not yet published to the relay.
    @inlinable
    func makeBuffer() -> _SignalCore<Value, Error> {
        let core = _SignalCore<Value, Error>(queueLimit: .unbounded)
        _ = core.observe(Signal<Value, Error>.Observer { [self] event in deliverBuffered(event) })
        return core
    }
}

/// A run's chain as a constant (see `_DomainRelay.boxed`).
@usableFromInline
final class _RelaySink<Value, Error: Swift.Error> {
    @usableFromInline
    let sink: _ProducerSink<Value, Error>

    @inlinable
    init(_ sink: consuming _ProducerSink<Value, Error>) {
        self.sink = sink
    }
}

extension SignalProducer {
    /// A producer each of whose starts is a `_DomainRelay` attached to
    /// `hub`'s domain, keeping `anchor` until it ends.
    @inlinable
    init<Hub: _RelayHub>(_relayingFrom hub: Hub, anchor: Hub.Anchor) where Hub.Value == Value, Hub.Error == Error {
        self.init(_depth: 0, makeRunObject: { linkCount in
            _DomainRelay(hub: hub, anchor: anchor, linkCount: linkCount)
        }) { run, sink in
            unsafeDowncast(run, to: _DomainRelay<Hub>.self).sink = sink
        }
    }
}
