import CFlare
import Synchronization

extension SignalProducer {
    /// A producer that starts this one once, on its first start, and shares
    /// the run: every start receives the last `capacity` values sent so far
    /// (at most), then every later event; once the run has terminated, a
    /// start receives the replayed values and the terminal event
    /// (ReactiveObjC's `RACReplaySubject` with a capacity).
    ///
    /// A start replays what the replay holds before `start` returns,
    /// wherever it is called from, and never waits for a delivery: from
    /// inside one of the replay's own deliveries (`first()` called in an
    /// observer), it hears the buffer at once, the value being delivered
    /// included, ahead of the observers that have not yet heard that value,
    /// then every later event after the runs started before it, as in
    /// ReactiveSwift; from another thread while a delivery is in progress,
    /// it replays a snapshot of the buffer, and what the shared run sends
    /// later reaches it behind that replay. A start that arrives while
    /// values are being sent or replayed gets every value exactly once, in
    /// order. No lock is held while anything is delivered (RxSwift's
    /// `share(replay:)` replays under its lock, and deadlocks when an
    /// observer reenters it).
    ///
    /// The shared run is disposed once the returned producer and every run
    /// started from it are gone.
    ///
    /// - Parameter capacity: How many of the latest values to replay; must
    ///   not be negative.
    @inlinable
    public func replayLazily(upTo capacity: Int) -> SignalProducer<Value, Error> {
        flarePrecondition(capacity >= 0, "replayLazily(upTo:) needs a non-negative capacity, got \(capacity)")
        let owner = _ReplayOwner(source: self, capacity: capacity)
        let domain = owner.domain
        // Each start is a relay attached to the replay's domain: no signal,
        // observer or lifetime of its own (see `_DomainRelay`).
        return SignalProducer(_relayingFrom: domain, anchor: owner)
    }
}

/// What goes through a replay's domain: an event of the shared run, a
/// start made while another thread held the domain attaching, a run
/// detaching, or the owner going (see `_ReplayState.discard()`).
@usableFromInline
enum _ReplayCommand<Value, Error: Swift.Error> {
    case event(Signal<Value, Error>.Event)
    case attach(_DomainRelay<_ReplayDomain<Value, Error>>, _ReplayCatchUp<Value>)
    case detach(_DomainRelay<_ReplayDomain<Value, Error>>)
    case discard
}

/// The values a replay records after a start on another thread took its
/// snapshot and before that start's attach command is carried out
/// (ReactiveSwift's replay buffers): whatever the capacity, the run gets
/// each of them once. Registered with the state under its gate, filled by
/// the domain's holder under the gate, read by the holder once it has
/// unregistered it.
@usableFromInline
final class _ReplayCatchUp<Value>: @unchecked Sendable {
    @usableFromInline
    @exclusivity(unchecked)
    var values = ContiguousArray<Value>()

    @inlinable
    init() {}
}

/// What a start on another thread replays: the buffered values from
/// `head`, the terminal event if the run had ended, and otherwise the
/// catch-up registered for its attach.
@usableFromInline
struct _ReplaySnapshot<Value, Error: Swift.Error> {
    @usableFromInline let values: ContiguousArray<Value>
    @usableFromInline let head: Int
    @usableFromInline let terminal: Signal<Value, Error>.Event?
    @usableFromInline let catchUp: _ReplayCatchUp<Value>?

    @inlinable
    init(values: ContiguousArray<Value>, head: Int, terminal: Signal<Value, Error>.Event?, catchUp: _ReplayCatchUp<Value>?) {
        self.values = values
        self.head = head
        self.terminal = terminal
        self.catchUp = catchUp
    }
}

/// The shared state of `replayLazily(upTo:)`.
///
/// The recorded history (`buffer`, `head`, `terminal`, `isDiscarded`) is
/// written only by the domain's holder (the thread holding the command
/// signal's serial word), under `gate`; the holder reads it freely, a
/// start on another thread reads it under `gate` (`snapshot`). The gate is
/// held for O(1) steps (a copy of the buffer when a snapshot still shares
/// it) and never while user code runs, so a start takes its snapshot
/// without waiting for any delivery. `relays` and `pending` are touched
/// only by the holder.
@usableFromInline
final class _ReplayState<Value, Error: Swift.Error>: @unchecked Sendable {
    @usableFromInline typealias Relay = _DomainRelay<_ReplayDomain<Value, Error>>

    @usableFromInline let capacity: Int
    @usableFromInline let gate = _WriteGate()
    @usableFromInline @exclusivity(unchecked) var buffer = ContiguousArray<Value>()
    @usableFromInline @exclusivity(unchecked) var head = 0
    @usableFromInline @exclusivity(unchecked) var terminal: Signal<Value, Error>.Event?
    /// Set once no start can come any more (`discard()`): nothing is
    /// recorded from then on.
    @usableFromInline @exclusivity(unchecked) var isDiscarded = false
    /// The catch-ups of starts whose attach has not been carried out yet;
    /// touched only under `gate`.
    @usableFromInline @exclusivity(unchecked) var catchUps = ContiguousArray<_ReplayCatchUp<Value>>()
    /// The runs attached to the live events.
    @usableFromInline @exclusivity(unchecked) var relays = _RelayList<_ReplayDomain<Value, Error>>()
    /// Runs started from inside the domain's delivery (which replayed to
    /// them at once): attached, in start order, once the step that was
    /// running ends (`attachPending`), as `relays` may be being iterated.
    @usableFromInline @exclusivity(unchecked) var pending = _RelayList<_ReplayDomain<Value, Error>>()

    @inlinable
    init(capacity: Int) { self.capacity = capacity }

    deinit {
        // Empty in practice: an attached relay keeps its hub, and so
        // this state, alive. The lists' references are released anyway.
        relays.releaseAll()
        pending.releaseAll()
    }

    /// The holder's step for one command; then attaches the runs started
    /// from inside it.
    @inlinable
    func handle(_ event: Signal<_ReplayCommand<Value, Error>, Never>.Event) {
        switch event {
        case let .value(.event(.value(value))):
            // Recorded before it is delivered: a start from inside this
            // delivery replays it, as in ReactiveSwift.
            record(value)
            relays.deliver(value: value)
        case let .value(.event(event)):
            if terminal == nil {
                gate.enter("replayLazily")
                terminal = event
                gate.leave()
                relays.end(event)
            }
        case let .value(.attach(relay, catchUp)):
            attachCatchingUp(relay, catchUp)
        case let .value(.detach(relay)):
            detach(relay)
        case .value(.discard):
            discard()
        case .completed, .interrupted:
            break
        }
        attachPending()
    }

    @inlinable
    func record(_ value: Value) {
        guard !isDiscarded else { return }
        gate.enter("replayLazily")
        for catchUp in catchUps { catchUp.values.append(value) }
        if capacity > 0 {
            buffer.append(value)
            if buffer.count - head > capacity { head += 1 }
            if head >= 32, head * 2 >= buffer.count {
                buffer.removeFirst(head)
                head = 0
            }
        }
        gate.leave()
    }

    /// Replays the buffer to `relay`, holding the domain; stops at once if
    /// its interruption is requested meanwhile. Nothing changes the buffer
    /// while it is replayed: an event sent from inside the replay's
    /// deliveries is queued behind the step in progress. Returns whether
    /// the run goes on (not interrupted, not ended by the terminal event).
    @inlinable
    func replay(to relay: Relay) -> Bool {
        var index = head
        while index < buffer.count {
            if relay.isInterruptRequested {
                relay.finish(.interrupted)
                return false
            }
            relay.send(value: buffer[index])
            index += 1
        }
        if relay.isInterruptRequested {
            relay.finish(.interrupted)
            return false
        }
        if let terminal {
            relay.finish(terminal)
            return false
        }
        return true
    }

    /// The start of a run holding the idle domain: replays to it, then
    /// attaches it to the live events, after the runs started from inside
    /// its replay (which attached in the middle of it in ReactiveSwift).
    @inlinable
    func attach(_ relay: Relay) {
        guard !relay.hasFinished, replay(to: relay) else { return }
        attachPending()
        relays.append(relay)
    }

    /// The start of a run from inside the domain's delivery (this thread
    /// holds the domain): replays to it at once, so before `start` returns,
    /// and attaches it once the current step ends: it hears the value being
    /// delivered in the replay, before the observers after the current
    /// one, and every later value after the runs attached before it (the
    /// order of ReactiveSwift, whose start inserts the observer into the
    /// bag while the delivery goes on over a copy).
    @inlinable
    func attachNested(_ relay: Relay) {
        guard replay(to: relay) else { return }
        pending.append(relay)
    }

    /// Attaches the runs started from inside the step that has just ended;
    /// one that has ended meanwhile is dropped.
    @inlinable
    func attachPending() {
        guard !pending.isEmpty else { return }
        let started = pending.items
        pending.items = []
        for relay in started {
            if relay._withUnsafeGuaranteedRef({ $0.hasFinished }) {
                relay.release()
            } else {
                relays.items.append(relay)
            }
        }
    }

    /// Under the gate: what a start on another thread replays, and, unless
    /// the run has ended, a catch-up registered for the values recorded
    /// until its attach is carried out.
    @inlinable
    func snapshot() -> _ReplaySnapshot<Value, Error> {
        let catchUp = _ReplayCatchUp<Value>()
        gate.enter("replayLazily")
        let terminal = self.terminal
        if terminal == nil { catchUps.append(catchUp) }
        let snapshot = _ReplaySnapshot(
            values: buffer, head: head, terminal: terminal, catchUp: terminal == nil ? catchUp : nil)
        gate.leave()
        return snapshot
    }

    /// Drops a snapshot under the gate. The snapshot shares the buffer's
    /// storage, which the holder appends to in place once it is the only
    /// owner again (its uniqueness check reads the reference count that
    /// this drop decrements): passing through the gate after the last read
    /// of the snapshot makes that read happen before the holder's next
    /// write, in terms ThreadSanitizer sees too (it does not see the
    /// runtime's reference count).
    @inlinable
    func release(_ snapshot: consuming _ReplaySnapshot<Value, Error>) {
        gate.enter("replayLazily")
        _ = consume snapshot
        gate.leave()
    }

    /// The attach of a run started on another thread, whose starter
    /// replays its snapshot through the run's buffer: sends it what was
    /// recorded since the snapshot, then attaches it to the live events
    /// (or ends it, if the terminal event came meanwhile). The sends queue
    /// behind the starter's replay if it still holds the buffer.
    @inlinable
    func attachCatchingUp(_ relay: Relay, _ catchUp: _ReplayCatchUp<Value>) {
        gate.enter("replayLazily")
        if let index = catchUps.firstIndex(where: { $0 === catchUp }) { catchUps.remove(at: index) }
        gate.leave()
        // A run interrupted meanwhile is interrupted through its buffer by
        // its interrupter (or starter).
        guard !relay.isInterruptRequested else { return }
        for value in catchUp.values { relay.deliver(value: value) }
        catchUp.values = []
        if let terminal {
            relay.end(terminal)
        } else {
            attachPending()
            relays.append(relay)
        }
    }

    @inlinable
    func detach(_ relay: Relay) {
        // A buffered run was interrupted through its buffer.
        if relay.buffer == nil { relay.finish(.interrupted) }
        if !relays.remove(relay) { pending.remove(relay) }
    }

    /// The replay's owner is gone: the producer and every run that had not
    /// ended with it, so no start can come any more. Lets the buffered
    /// values and the terminal event go, which the hub would otherwise
    /// keep for as long as a handle of an ended run (which keeps its relay,
    /// which keeps the hub) is kept.
    @usableFromInline
    func discard() {
        gate.enter("replayLazily")
        isDiscarded = true
        buffer = []
        head = 0
        terminal = nil
        gate.leave()
    }
}

/// A replay's hub: the command signal into which the shared run's events,
/// the starts made while another thread holds it, and the detaches go (its
/// serialized delivery is the replay's domain), and the state touched
/// inside it. Each start of the replayed producer is a `_DomainRelay`
/// attached to it.
@usableFromInline
final class _ReplayDomain<Value, Error: Swift.Error>: _RelayHub, @unchecked Sendable {
    @usableFromInline typealias Command = _ReplayCommand<Value, Error>
    @usableFromInline typealias Anchor = _ReplayOwner<Value, Error>
    @usableFromInline typealias Relay = _DomainRelay<_ReplayDomain<Value, Error>>

    @usableFromInline let state: _ReplayState<Value, Error>
    @usableFromInline let commands: _SignalCore<Command, Never>
    /// Keeps the command signal open while the hub lives.
    @usableFromInline let commandHandle: Signal<Command, Never>

    @inlinable
    init(capacity: Int) {
        let state = _ReplayState<Value, Error>(capacity: capacity)
        self.state = state
        commands = _SignalCore<Command, Never>(queueLimit: .default)
        commandHandle = Signal(_core: commands)
        _ = commands.observe(Signal<Command, Never>.Observer { event in state.handle(event) })
    }

    /// Starts `relay`'s run: replays what the replay holds to it before
    /// returning, wherever it is called from, then attaches it at its place
    /// among the events; then starts the shared run if this is the first
    /// start. Never waits for a delivery:
    /// - **The domain is idle**: this thread takes it, replays, attaches
    ///   the run and leaves, delivering what was queued meanwhile.
    /// - **This thread is delivering** (a start from inside a delivery):
    ///   it replays at once from inside the domain; the run is attached
    ///   when the current step ends (`_ReplayState.attachNested`).
    /// - **Another thread is delivering**: this thread takes a snapshot
    ///   under the state's gate and queues the run's attach; it replays the
    ///   snapshot into a buffer signal of the run whose serial word it
    ///   holds, so that what the domain sends the run later (what was
    ///   recorded since the snapshot, then the live events) queues behind
    ///   the replay.
    @inlinable
    func start(_ relay: Relay) {
        guard relay.beginStart() else { return }
        // Read before the relay is published: the domain lets it go at the
        // run's terminal event.
        let owner = relay.anchor.unsafelyUnwrapped
        if _fastPath(flare_serial_try_acquire(commands.serial)) {
            state.attach(relay)
            if !relay.endStart() {
                relay.finish(.interrupted)
                state.relays.remove(relay)
            }
            state.attachPending()
            commands.leave()
        } else if flare_serial_held_by_caller(commands.serial) {
            state.attachNested(relay)
            // The pending run is dropped once it has ended.
            if !relay.endStart() { relay.finish(.interrupted) }
        } else {
            startBuffered(relay)
        }
        owner.startSourceOnce()
    }

    /// The start of a run while another thread holds the domain.
    @inlinable
    @inline(never)
    func startBuffered(_ relay: Relay) {
        let buffer = relay.makeBuffer()
        // Fresh, and not yet published: always acquired.
        let holdsBuffer = flare_serial_try_acquire(buffer.serial)
        relay.buffer = buffer
        let snapshot = state.snapshot()
        if let catchUp = snapshot.catchUp,
           commands.queueBehind(.value(.attach(relay, catchUp))) == .acquired {
            // The domain went idle meanwhile: attach from here.
            state.attachCatchingUp(relay, catchUp)
            state.attachPending()
            commands.leave()
        }
        var ended = false
        if holdsBuffer {
            var index = snapshot.head
            while index < snapshot.values.count, !relay.isInterruptRequested {
                _ = buffer.deliver(.value(snapshot.values[index]))
                index += 1
            }
            if let terminal = snapshot.terminal, !relay.isInterruptRequested {
                ended = true
                buffer.deliverAndLeave(terminal)
            } else {
                buffer.leave()
            }
        } else {
            for value in snapshot.values[snapshot.head...] { buffer.send(.value(value)) }
            if let terminal = snapshot.terminal {
                ended = true
                buffer.send(terminal)
            }
        }
        state.release(snapshot)
        if !relay.endStart(), !ended {
            buffer.send(.interrupted)
            detach(relay)
        }
    }

    /// See `_RelayHub`.
    @inlinable
    func detach(_ relay: Relay) {
        commands.perform(.value(.detach(relay))) {
            state.detach(relay)
            state.attachPending()
        }
    }

    /// Discards the buffer from inside the domain (see
    /// `_ReplayState.discard()`): at once if the domain is idle, otherwise
    /// behind the delivery in progress. Any thread. A command queued on a
    /// closed word is dropped: the word closes only once the hub itself
    /// goes, which a relay prevents.
    @usableFromInline
    func discard() {
        commands.perform(.value(.discard)) {
            state.discard()
            state.attachPending()
        }
    }
}

/// Owns a replay's shared run: it is started by the first start, and
/// disposed when the owner goes (when the producer and every run started
/// from it that has not ended are gone: each keeps it as its anchor).
@usableFromInline
final class _ReplayOwner<Value, Error: Swift.Error>: @unchecked Sendable {
    @usableFromInline let source: SignalProducer<Value, Error>
    @usableFromInline let domain: _ReplayDomain<Value, Error>
    @usableFromInline let started = Atomic<Bool>(false)
    /// The source's run, set once by the first start.
    @usableFromInline let sourceRun = SerialDisposable()

    @inlinable
    init(source: SignalProducer<Value, Error>, capacity: Int) {
        self.source = source
        domain = _ReplayDomain(capacity: capacity)
    }

    deinit {
        // The shared run first: what it still sends goes behind the discard
        // or is not recorded after it.
        sourceRun.dispose()
        domain.discard()
    }

    /// Starts the shared run, the first time only.
    @inlinable
    func startSourceOnce() {
        guard !started.load(ordering: .relaxed), !started.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let commands = domain.commands
        sourceRun.inner = source.start { event in commands.send(.value(.event(event))) }
    }
}
