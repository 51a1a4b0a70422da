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
        return SignalProducer { observer, lifetime in
            owner.attach(observer, lifetime)
        }
    }
}

/// What goes through a replay's domain: an event of the shared run, or a
/// start attaching.
@usableFromInline
enum _ReplayCommand<Value, Error: Swift.Error> {
    case event(Signal<Value, Error>.Event)
    case attach(Signal<Value, Error>.Observer, Lifetime)
}

/// The shared state of `replayLazily(upTo:)`: touched only inside its
/// domain (the command signal's serialized delivery).
@usableFromInline
final class _ReplayState<Value, Error: Swift.Error> {
    @usableFromInline let capacity: Int
    @usableFromInline var buffer = ContiguousArray<Value>()
    @usableFromInline var head = 0
    @usableFromInline var terminal: Signal<Value, Error>.Event?

    @inlinable
    init(capacity: Int) { self.capacity = capacity }

    @inlinable
    func record(_ value: Value) {
        guard capacity > 0 else { return }
        buffer.append(value)
        if buffer.count - head > capacity { head += 1 }
        if head >= 32, head * 2 >= buffer.count {
            buffer.removeFirst(head)
            head = 0
        }
    }

    /// Replays the buffer and the terminal event to `observer`, or attaches
    /// it to the live events of `output`.
    @inlinable
    func attach(_ observer: Signal<Value, Error>.Observer, _ lifetime: Lifetime, output: _SignalCore<Value, Error>) {
        guard !lifetime.hasEnded else { return }
        var index = head
        while index < buffer.count {
            observer.send(value: buffer[index])
            index += 1
        }
        if let terminal {
            observer.send(terminal)
        } else {
            lifetime += output.observe(observer)
        }
    }
}

/// Owns a replay's shared run: it is started by the first start, and
/// disposed when the owner goes (when the producer and every run that
/// started from it are gone).
@usableFromInline
final class _ReplayOwner<Value, Error: Swift.Error>: @unchecked Sendable {
    @usableFromInline typealias Command = _ReplayCommand<Value, Error>

    @usableFromInline let source: SignalProducer<Value, Error>
    @usableFromInline let state: _ReplayState<Value, Error>
    @usableFromInline let commands: _SignalCore<Command, Never>
    @usableFromInline let commandHandle: Signal<Command, Never>
    @usableFromInline let output: Signal<Value, Error>
    @usableFromInline let started = Atomic<Bool>(false)
    /// The source's run, set once by the first start.
    @usableFromInline let sourceRun = SerialDisposable()

    @inlinable
    init(source: SignalProducer<Value, Error>, capacity: Int) {
        self.source = source
        let state = _ReplayState<Value, Error>(capacity: capacity)
        self.state = state
        commands = _SignalCore<Command, Never>(queueLimit: .default)
        commandHandle = Signal(_core: commands)
        output = commandHandle._liftCore { (downstream: _HeldCore<Value, Error>) in
            { event in
                switch event {
                case let .value(.event(event)):
                    switch event {
                    case let .value(value):
                        state.record(value)
                        downstream.deliverHeld(value: value)
                    default:
                        if state.terminal == nil {
                            state.terminal = event
                            downstream.deliverHeld(event)
                        }
                    }
                case let .value(.attach(observer, lifetime)):
                    state.attach(observer, lifetime, output: downstream.core)
                case .completed, .interrupted:
                    break
                }
            }
        }
    }

    deinit {
        sourceRun.dispose()
    }

    @inlinable
    func attach(_ observer: Signal<Value, Error>.Observer, _ lifetime: Lifetime) {
        // The run keeps the owner (and so the shared run) alive.
        lifetime.observeEnded { withExtendedLifetime(self) {} }
        if flare_serial_try_acquire(commands.serial) {
            state.attach(observer, lifetime, output: output.core)
            if let pending = flare_serial_release(commands.serial) { commands.drain(pending) }
        } else {
            commands.send(.value(.attach(observer, lifetime)))
        }
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let commands = self.commands
        sourceRun.inner = source.start { event in commands.send(.value(.event(event))) }
    }
}
