// Flattening: a stream of streams into a stream of values.
//
// Every flatten runs on the funnel (`Funnel.swift`). The outer stream's
// events and the events of every inner run it starts are sent, tagged, into
// one internal root signal; the strategy's logic (`_FlattenEngine.handle`)
// runs inside that signal's serialized delivery. Starting, replacing,
// queueing and disposing inners therefore needs no lock, whatever threads
// the inners send from.
//
// Each started inner has a node (`_FlattenInner`), and its events are tagged
// with that node. A node is active from its start until its inner ends or
// the strategy drops it (`.latest` replaced it, `.race` lost it, the output
// ended); the logic ignores every event of an inactive node, so an event a
// replaced or losing inner sent before the switch, still queued behind it,
// is never delivered.
//
// An inner is started from inside the internal signal's delivery, so what it
// sends synchronously while starting is queued behind the current event, not
// delivered reentrantly. `.concat` and `.concurrent` start their next inner
// when the previous one's terminal event is handled: the drain of the
// internal signal is the loop, and a million synchronous inners in a row use
// constant stack.

/// How a stream of streams is flattened into a stream of values: which inner
/// streams run, when, and what their terminal events do.
///
/// For every strategy, a failure of the outer stream or of an inner stream
/// whose events are forwarded is forwarded at once, and every other inner
/// run is disposed. An `interrupted` of the outer stream is forwarded too.
public struct FlattenStrategy: Sendable {
    @usableFromInline
    enum Kind: Sendable, Equatable {
        case concurrent(limit: UInt)
        case latest
        case race
        case throttle
    }

    @usableFromInline
    let kind: Kind

    @inlinable
    init(kind: Kind) {
        self.kind = kind
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

/// What flows through a flatten's internal signal: an outer event, or an
/// event of the inner run behind a node.
@usableFromInline
enum _FlattenTag<Outer, U, E: Swift.Error> {
    case outer(Signal<Outer, E>.Event)
    case inner(_FlattenInner<Outer, U, E>, Signal<U, E>.Event)
}

/// One started inner run: the identity its events are tagged with, its
/// disposable, and its place in the engine's list of active runs. Touched
/// only inside the internal signal's delivery, or after it has closed.
@usableFromInline
final class _FlattenInner<Outer, U, E: Swift.Error> {
    @usableFromInline
    let input: Signal<_FlattenTag<Outer, U, E>, Never>.Observer

    // The variables are touched only inside the internal signal's
    // serialized delivery (or after it closed), which orders every access:
    // Swift's dynamic exclusivity checks, a thread-local lookup per access,
    // are turned off for them, as for `_ProducerRun`'s.

    /// The inner run, until it ends or is disposed.
    @usableFromInline
    @exclusivity(unchecked)
    var run: Disposable?

    /// Whether the logic still takes this run's events.
    @usableFromInline
    @exclusivity(unchecked)
    var isActive = true

    @usableFromInline
    @exclusivity(unchecked)
    var next: _FlattenInner?

    @usableFromInline
    @exclusivity(unchecked)
    unowned(unsafe) var previous: _FlattenInner?

    @inlinable
    init(input: Signal<_FlattenTag<Outer, U, E>, Never>.Observer) {
        self.input = input
    }

    /// The inner run's observer: tags the event and sends it to the
    /// internal signal (any thread).
    @inlinable
    func send(_ event: Signal<U, E>.Event) {
        input.send(value: .inner(self, event))
    }
}

/// A flatten's state and logic. Every method runs inside the internal
/// signal's serialized delivery, except `disposeAll`, which also runs once
/// the internal signal has closed (after every delivery): no lock.
@usableFromInline
final class _FlattenEngine<Outer, U, E: Swift.Error> {
    @usableFromInline typealias Inner = _FlattenInner<Outer, U, E>

    @usableFromInline let kind: FlattenStrategy.Kind
    @usableFromInline let limit: Int
    @usableFromInline let transform: (Outer) -> SignalProducer<U, E>
    @usableFromInline let downstream: _HeldCore<U, E>
    @usableFromInline let input: Signal<_FlattenTag<Outer, U, E>, Never>.Observer

    // Touched only inside the internal signal's serialized delivery (or
    // after it closed): no dynamic exclusivity checks (see `_FlattenInner`).

    /// The active inner runs, newest first.
    @usableFromInline @exclusivity(unchecked) var head: Inner?
    @usableFromInline @exclusivity(unchecked) var activeCount = 0

    /// Inners waiting for a slot (`.concat`, `.concurrent`).
    @usableFromInline @exclusivity(unchecked) var waiting = _FIFO<SignalProducer<U, E>>()

    @usableFromInline @exclusivity(unchecked) var outerCompleted = false

    /// `.race`: a winner was chosen; later inners are not started.
    @usableFromInline @exclusivity(unchecked) var decided = false

    @usableFromInline @exclusivity(unchecked) var isTerminated = false

    @inlinable
    init(
        _ strategy: FlattenStrategy, transform: @escaping (Outer) -> SignalProducer<U, E>,
        downstream: _HeldCore<U, E>, input: Signal<_FlattenTag<Outer, U, E>, Never>.Observer
    ) {
        kind = strategy.kind
        if case let .concurrent(limit) = strategy.kind {
            self.limit = limit > UInt(Int.max) ? Int.max : Int(limit)
        } else {
            self.limit = 1
        }
        self.transform = transform
        self.downstream = downstream
        self.input = input
    }

    @inlinable
    func handle(_ tag: _FlattenTag<Outer, U, E>) {
        guard !isTerminated else { return }
        switch tag {
        case let .inner(node, event):
            guard node.isActive else { return }
            innerEvent(event, of: node)
        case let .outer(event):
            switch event {
            case let .value(value): outerValue(value)
            case let .failed(error): terminate(.failed(error))
            case .completed:
                outerCompleted = true
                completeIfDone()
            case .interrupted: terminate(.interrupted)
            }
        }
    }

    @inlinable
    func outerValue(_ value: Outer) {
        let producer = transform(value)
        switch kind {
        case .concurrent:
            if activeCount < limit {
                start(producer)
            } else {
                waiting.append(producer)
            }
        case .latest:
            if let current = head { drop(current) }
            start(producer)
        case .race:
            if !decided { start(producer) }
        case .throttle:
            if activeCount == 0 { start(producer) }
        }
    }

    @inlinable
    func innerEvent(_ event: Signal<U, E>.Event, of node: Inner) {
        if kind == .race, !decided { decide(node) }
        switch event {
        case let .value(value):
            downstream.deliverHeld(value: value)
        case .completed:
            innerEnded(node)
        case .interrupted:
            switch kind {
            case .race, .throttle: terminate(.interrupted)
            default: innerEnded(node)
            }
        case let .failed(error):
            terminate(.failed(error))
        }
    }

    /// `.race`: `winner` sent the first event; the others are dropped.
    @usableFromInline
    func decide(_ winner: Inner) {
        decided = true
        var node = head
        while let current = node {
            node = current.next
            if current !== winner { drop(current) }
        }
    }

    /// Starts an inner run as an active node. Whatever it sends while
    /// starting is queued behind the current event.
    @inlinable
    func start(_ producer: SignalProducer<U, E>) {
        let node = Inner(input: input)
        node.next = head
        head?.previous = node
        head = node
        activeCount += 1
        node.run = producer.startRun { [node] event in node.send(event) }
    }

    /// Removes `node` from the active list: its events are ignored from now
    /// on.
    @inlinable
    func unlink(_ node: Inner) {
        node.isActive = false
        if let previous = node.previous { previous.next = node.next } else { head = node.next }
        node.next?.previous = node.previous
        node.next = nil
        node.previous = nil
        activeCount -= 1
    }

    /// Removes `node` and disposes its run.
    @inlinable
    func drop(_ node: Inner) {
        unlink(node)
        let run = node.run
        node.run = nil
        run?.dispose()
    }

    @inlinable
    func innerEnded(_ node: Inner) {
        unlink(node)
        node.run = nil
        if case .concurrent = kind {
            // The loop that replaces recursion: each start only queues what
            // the inner sends synchronously.
            while activeCount < limit, !waiting.isEmpty {
                start(waiting.removeFirst())
            }
        }
        completeIfDone()
    }

    @inlinable
    func completeIfDone() {
        if outerCompleted, activeCount == 0, waiting.isEmpty { terminate(.completed) }
    }

    /// Ends the output with `event`, and disposes every active inner run.
    @usableFromInline
    func terminate(_ event: Signal<U, E>.Event) {
        isTerminated = true
        downstream.deliverHeld(event)
        disposeAll()
    }

    /// Disposes every active inner run and forgets the waiting ones. Each
    /// run is disposed once: it leaves the list first.
    @usableFromInline
    func disposeAll() {
        isTerminated = true
        waiting = _FIFO()
        while let node = head { drop(node) }
    }
}

extension Signal {
    /// The engine of every flatten and flatMap of a signal: each value is
    /// turned into an inner producer by `transform` and flattened by
    /// `strategy`.
    @inlinable
    func flattening<Inner>(
        _ strategy: FlattenStrategy, _ transform: @escaping (Value) -> SignalProducer<Inner, Error>
    ) -> Signal<Inner, Error> {
        var made: _FlattenEngine<Value, Inner, Error>?
        return _funnel(withInput: { (downstream: _HeldCore<Inner, Error>, input: Signal<_FlattenTag<Value, Inner, Error>, Never>.Observer) in
            let engine = _FlattenEngine(strategy, transform: transform, downstream: downstream, input: input)
            made = engine
            return { engine.handle($0) }
        }, connect: { input, observations in
            let engine = made.unsafelyUnwrapped
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
    @inlinable
    func flattening<Inner>(
        _ strategy: FlattenStrategy, _ transform: @escaping (Value) -> SignalProducer<Inner, Error>
    ) -> SignalProducer<Inner, Error> {
        lift { $0.flattening(strategy, transform) }
    }
}
