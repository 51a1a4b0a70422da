import CFlare
import Synchronization

extension SignalProducer {
    /// A producer that starts this one once, on its first start, and shares
    /// the run: every start receives the last `capacity` values sent so far
    /// (at most), then every later event; once the run has terminated, a
    /// start receives the replayed values and the terminal event
    /// (ReactiveObjC's `RACReplaySubject` with a capacity).
    ///
    /// A start that arrives while values are being sent or replayed gets
    /// every value exactly once, in order: the shared run's events and the
    /// starts go through one serialized domain, where a start replays the
    /// buffer and attaches at its place among the events. No lock is held
    /// while anything is delivered (RxSwift's `share(replay:)` replays under
    /// its lock, and deadlocks when an observer reenters it).
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
/// start attaching, a run detaching, or the owner going (see
/// `_ReplayState.discard()`).
@usableFromInline
enum _ReplayCommand<Value, Error: Swift.Error> {
    case event(Signal<Value, Error>.Event)
    case attach(_DomainRelay<_ReplayDomain<Value, Error>>)
    case detach(_DomainRelay<_ReplayDomain<Value, Error>>)
    case discard
}

/// The shared state of `replayLazily(upTo:)`: touched only inside its
/// domain (the command signal's serialized delivery), whose observer
/// captures it alone.
@usableFromInline
final class _ReplayState<Value, Error: Swift.Error>: @unchecked Sendable {
    @usableFromInline typealias Relay = _DomainRelay<_ReplayDomain<Value, Error>>

    @usableFromInline let capacity: Int
    @usableFromInline @exclusivity(unchecked) var buffer = ContiguousArray<Value>()
    @usableFromInline @exclusivity(unchecked) var head = 0
    @usableFromInline @exclusivity(unchecked) var terminal: Signal<Value, Error>.Event?
    /// Set once no start can come any more (`discard()`): nothing is
    /// recorded from then on.
    @usableFromInline @exclusivity(unchecked) var isDiscarded = false
    /// The runs attached to the live events.
    @usableFromInline @exclusivity(unchecked) var relays = _RelayList<_ReplayDomain<Value, Error>>()

    @inlinable
    init(capacity: Int) { self.capacity = capacity }

    deinit {
        // Empty in practice: an attached relay keeps its hub, and so
        // this state, alive. The list's references are released anyway.
        relays.releaseAll()
    }

    @inlinable
    func handle(_ event: Signal<_ReplayCommand<Value, Error>, Never>.Event) {
        switch event {
        case let .value(.event(.value(value))):
            record(value)
            relays.deliver(value: value)
        case let .value(.event(event)):
            guard terminal == nil else { return }
            terminal = event
            relays.end(event)
        case let .value(.attach(relay)):
            attach(relay)
        case let .value(.detach(relay)):
            detach(relay)
        case .value(.discard):
            discard()
        case .completed, .interrupted:
            break
        }
    }

    @inlinable
    func record(_ value: Value) {
        guard capacity > 0, !isDiscarded else { return }
        buffer.append(value)
        if buffer.count - head > capacity { head += 1 }
        if head >= 32, head * 2 >= buffer.count {
            buffer.removeFirst(head)
            head = 0
        }
    }

    /// Replays the buffer and the terminal event to `relay`, or attaches it
    /// to the live events. Stops at once if its interruption is requested
    /// meanwhile. Nothing changes the buffer while it is replayed: an event
    /// sent from inside the replay's deliveries is queued behind it.
    @inlinable
    func attach(_ relay: Relay) {
        guard !relay.hasFinished else { return }
        var index = head
        while index < buffer.count {
            if relay.isInterruptRequested { return relay.finish(.interrupted) }
            relay.send(value: buffer[index])
            index += 1
        }
        if relay.isInterruptRequested {
            relay.finish(.interrupted)
        } else if let terminal {
            relay.finish(terminal)
        } else {
            relays.append(relay)
        }
    }

    @inlinable
    func detach(_ relay: Relay) {
        relay.finish(.interrupted)
        relays.remove(relay)
    }

    /// The replay's owner is gone: the producer and every run that had not
    /// ended with it, so no start can come any more. Lets the buffered
    /// values and the terminal event go, which the hub would otherwise
    /// keep for as long as a handle of an ended run (which keeps its relay,
    /// which keeps the hub) is kept.
    @usableFromInline
    func discard() {
        isDiscarded = true
        buffer = []
        head = 0
        terminal = nil
    }
}

/// A replay's hub: the command signal into which the shared run's events,
/// the starts and the detaches go (its serialized delivery is the replay's
/// domain), and the state touched inside it. Each start
/// of the replayed producer is a `_DomainRelay` attached to it.
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

    /// Attaches the relay from inside the domain, which replays to it, then
    /// starts the shared run if this is the first start. A start that finds
    /// the domain busy (another thread's delivery, or its own: a start from
    /// inside a delivery) queues its attach, carried out after the delivery
    /// in progress.
    @inlinable
    func start(_ relay: Relay) {
        guard relay.beginStart() else { return }
        // Read before the relay is published: the domain lets it go at the
        // run's terminal event.
        let owner = relay.anchor.unsafelyUnwrapped
        if commands.acquireOrQueue(.value(.attach(relay))) == .acquired {
            state.attach(relay)
            if !relay.endStart() {
                relay.finish(.interrupted)
                state.relays.remove(relay)
            }
            leaveDomain()
        } else if !relay.endStart() {
            // The attach command sees the request; the detach drops the run
            // if it was attached first.
            detach(relay)
        }
        owner.startSourceOnce()
    }

    /// See `_RelayHub`.
    @inlinable
    func detach(_ relay: Relay) {
        commands.perform(.value(.detach(relay))) { state.detach(relay) }
    }

    /// Discards the buffer from inside the domain (see
    /// `_ReplayState.discard()`): at once if the domain is idle, otherwise
    /// behind the delivery in progress. Any thread. A command queued on a
    /// closed word is dropped: the word closes only once the hub itself
    /// goes, which a relay prevents.
    @usableFromInline
    func discard() {
        commands.perform(.value(.discard)) { state.discard() }
    }

    @inlinable
    func leaveDomain() {
        commands.leave()
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
