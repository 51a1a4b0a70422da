import CFlare
import Synchronization

/// What goes through a property's serialized domain: a change, a
/// producer run attaching at its place among the changes or detaching, and
/// the property's end.
@usableFromInline
enum _PropertyCommand<Value> {
    case set(Value)
    case attach(_DomainRelay<_PropertyChannel<Value>>)
    case detach(_DomainRelay<_PropertyChannel<Value>>)
    case end
}

/// Producer runs of a property attached one after another, with no
/// observer of the property's `signal` attached between them: one observer
/// of `signal` (the segment's marker, attached when the segment's first run
/// was) delivers to all of them. So every change reaches the observers of
/// `signal` and the runs of `producer` in the order they were attached, as
/// in ReactiveSwift, where a producer run is an observer of the signal.
/// Touched only inside the domain's delivery.
@usableFromInline
final class _RelaySegment<Value>: @unchecked Sendable {
    @usableFromInline
    @exclusivity(unchecked)
    var relays = _RelayList<_PropertyChannel<Value>>()

    /// The marker's handle (detaches it) and its entry in `signal`'s bag;
    /// set once the marker is attached, right after the segment is made.
    @usableFromInline
    @exclusivity(unchecked)
    var marker: _Observation<Value, Never>?

    @inlinable
    init() {}

    /// The marker's delivery: a change to every run of the segment, or the
    /// property's end.
    @inlinable
    func receive(_ event: Signal<Value, Never>.Event) {
        switch event {
        case let .value(value):
            relays.deliver(value: value)
        case .completed:
            relays.end(.completed)
        case .interrupted:
            relays.end(.interrupted)
        }
    }
}

/// What a property's domain delivers to, and its state: the property's
/// `signal` (`output`), whose observers include one marker per segment of
/// producer runs (`_RelaySegment`). Touched only inside the domain's
/// delivery; captured, alone, by the domain's observer.
@usableFromInline
final class _PropertyDomain<Value>: @unchecked Sendable {
    @usableFromInline typealias Relay = _DomainRelay<_PropertyChannel<Value>>

    @usableFromInline
    let output: _HeldCore<Value, Never>

    /// The segments of attached runs, in attach order; none is empty.
    @usableFromInline
    @exclusivity(unchecked)
    var segments = ContiguousArray<_RelaySegment<Value>>()

    /// How many runs are attached, for a writer outside the domain
    /// (`_PropertyChannel.stageHoldingGate`): changed only inside the
    /// domain (holding its serial word), with relaxed stores published by
    /// the word's releasing CAS when the holder leaves; read with relaxed
    /// ordering after an acquiring load that found the serial word idle,
    /// which synchronizes with the last holder's release, so the count read
    /// is the one that holder left.
    @usableFromInline
    let relayCount = Atomic<Int>(0)

    /// The property has ended: its signal has completed, and a run that
    /// attaches now completes after its first value.
    @usableFromInline
    @exclusivity(unchecked)
    var ended = false

    @inlinable
    init(output: _HeldCore<Value, Never>) {
        self.output = output
    }

    deinit {
        // Empty in practice: an attached relay keeps its channel, and so
        // this state, alive. The lists' references are released anyway.
        for segment in segments { segment.relays.releaseAll() }
    }

    @inlinable
    func handle(_ event: Signal<_PropertyCommand<Value>, Never>.Event) {
        switch event {
        case let .value(.set(value)):
            guard !ended else { return }
            // Observers of `signal` and segments of runs, in attach order.
            output.deliverHeld(value: value)
        case let .value(.attach(relay)):
            attach(relay)
        case let .value(.detach(relay)):
            detach(relay)
        case .value(.end), .completed, .interrupted:
            end()
        }
    }

    /// Attaches a relay whose start has delivered its first value, from the
    /// place its start took among the changes.
    @inlinable
    func attach(_ relay: Relay) {
        if relay.buffer != nil {
            // Its start was not in the domain: it may still be going on
            // (the starter interrupts the run if asked meanwhile).
            if ended {
                relay.end(.completed)
            } else if !relay.isInterruptRequested {
                append(relay)
            }
        } else if !relay.hasFinished {
            // A start from inside a delivery: it has ended (on this thread).
            if relay.isInterruptRequested {
                relay.finish(.interrupted)
            } else if ended {
                relay.finish(.completed)
            } else {
                append(relay)
            }
        }
    }

    /// Adds a run after every observer of `signal` and every run attached
    /// so far: to the last segment if its marker is still the last observer
    /// of `signal`, otherwise to a new segment, whose marker it attaches.
    /// Inside the domain, while the property has not ended.
    @inlinable
    func append(_ relay: Relay) {
        if let last = segments.last, isLastObserver(last) {
            last.relays.append(relay)
        } else {
            appendSegment(relay)
        }
        relayCount.store(relayCount.load(ordering: .relaxed) &+ 1, ordering: .relaxed)
    }

    /// Whether `segment`'s marker is the last active observer of `signal`,
    /// once the observers attached meanwhile (by any thread) are spliced
    /// in: the drainer's view, which the next change is delivered by. An
    /// observer that is no longer active receives nothing more, so one after
    /// the marker does not count. O(1) unless observers of `signal` were
    /// disposed since its last delivery.
    @inlinable
    func isLastObserver(_ segment: _RelaySegment<Value>) -> Bool {
        guard let marker = segment.marker else { return false }
        let raw = output.raw
        flare_core_splice(raw)
        guard let items = raw.pointee.items else { return false }
        var i = raw.pointee.count
        while i > 0 {
            i &-= 1
            let entry = items[i].unsafelyUnwrapped
            if entry == marker.entry { return flare_entry_is_active(entry) }
            if flare_entry_is_active(entry) { return false }
        }
        return false
    }

    /// Starts a segment for `relay`: attaches its marker as the last
    /// observer of `signal`. The run's anchor (the property's `signal`)
    /// keeps the signal open, and the property has not ended, so the
    /// attach succeeds; if it did not, the run completes.
    @inlinable
    @inline(never)
    func appendSegment(_ relay: Relay) {
        let segment = _RelaySegment<Value>()
        segment.relays.append(relay)
        let observer = Signal<Value, Never>.Observer { [segment] event in segment.receive(event) }
        guard let handle = output.core.observe(observer) else {
            segment.relays.end(.completed)
            return
        }
        segment.marker = (handle as! _Observation<Value, Never>)
        segments.append(segment)
    }

    @inlinable
    func detach(_ relay: Relay) {
        if relay.buffer == nil { relay.finish(.interrupted) }
        remove(relay)
    }

    /// Drops `relay` from its segment (if attached); a segment left empty
    /// detaches its marker.
    @inlinable
    func remove(_ relay: Relay) {
        var i = segments.count
        while i > 0 {
            i &-= 1
            let segment = segments[i]
            guard segment.relays.remove(relay) else { continue }
            relayCount.store(relayCount.load(ordering: .relaxed) &- 1, ordering: .relaxed)
            if segment.relays.isEmpty {
                segments.remove(at: i)
                segment.marker?.dispose()
            }
            return
        }
    }

    @inlinable
    @inline(never)
    func end() {
        guard !ended else { return }
        ended = true
        // The markers end their segments' runs, in attach order among the
        // observers of `signal`.
        output.deliverHeldOutOfLine(.completed)
        segments = []
        relayCount.store(0, ordering: .relaxed)
    }
}

/// The engine shared by `MutableProperty` and composed `Property`s.
///
/// - `cell` holds the current value for lock-free reads.
/// - Changes are delivered through one root signal of `_PropertyCommand`s
///   (its serial word is the property's serialized domain) and its derived
///   signal `output` (the property's `signal`): delivery is lock-free and
///   serialized, and a change made from inside an observer is queued and
///   delivered after the current one (contract 3), in constant stack.
///   The domain's state (`_PropertyDomain`) also lists the runs of the
///   property's producer, which it delivers to directly (`_DomainRelay`).
/// - `gate` orders writers: under it a writer updates `latest`, publishes
///   it to `cell`, and takes its place in the domain's queue (acquiring the
///   idle serial word, or pushing a node behind the delivery in progress),
///   so values are delivered in the order they were written. The delivery
///   itself happens after the gate is left: no observer runs under it.
/// - A producer start takes `latest` and its place in the queue under the
///   gate too: its run is attached exactly after the change whose value it
///   read, so it sees every later change, once (see `start(_:)`).
/// - The property's end is a command (`end`), not the command signal's
///   terminal event: the domain stays open while the channel lives, so that
///   a start or a detach queued after the end is still carried out.
@usableFromInline
final class _PropertyChannel<Value>: _RelayHub, @unchecked Sendable {
    @usableFromInline typealias Command = _PropertyCommand<Value>
    @usableFromInline typealias Error = Never
    @usableFromInline typealias Anchor = Signal<Value, Never>
    @usableFromInline typealias Relay = _DomainRelay<_PropertyChannel<Value>>

    @usableFromInline
    let cell: _ValueCell<Value>

    @usableFromInline
    let gate = _WriteGate()

    /// The last value written; touched only under `gate`.
    @usableFromInline
    @exclusivity(unchecked)
    var latest: Value

    @usableFromInline
    let commands: _SignalCore<Command, Never>

    /// Keeps the command signal open while the channel lives.
    @usableFromInline
    let commandHandle: Signal<Command, Never>

    /// The core of the property's `signal`.
    @usableFromInline
    let output: _SignalCore<Value, Never>

    /// The domain's state: touched only inside the domain's delivery.
    @usableFromInline
    let domain: _PropertyDomain<Value>

    /// Makes the channel and the property's `signal`, which the caller
    /// keeps (the channel refers to its core only, so that a composed
    /// property's signal can end when nothing refers to it or observes it).
    @inlinable
    static func make(_ initial: Value) -> (_PropertyChannel, Signal<Value, Never>) {
        let commands = _SignalCore<Command, Never>(queueLimit: .unbounded)
        let handle = Signal<Command, Never>(_core: commands)
        var made: _PropertyDomain<Value>?
        let signal: Signal<Value, Never> = handle._liftCore { downstream in
            let domain = _PropertyDomain(output: downstream)
            made = domain
            return { event in domain.handle(event) }
        }
        let channel = _PropertyChannel(
            initial, commands: commands, handle: handle, output: signal._core, domain: made.unsafelyUnwrapped)
        return (channel, signal)
    }

    @usableFromInline
    init(
        _ initial: Value, commands: _SignalCore<Command, Never>, handle: Signal<Command, Never>,
        output: _SignalCore<Value, Never>, domain: _PropertyDomain<Value>
    ) {
        cell = _ValueCell(initial)
        latest = initial
        self.commands = commands
        self.commandHandle = handle
        self.output = output
        self.domain = domain
    }

    /// The current value. Any thread, no lock.
    @inlinable
    var value: Value { cell.load() }

    // MARK: Writing

    /// Where a command went.
    @usableFromInline
    enum Place {
        /// The caller holds the serial word: it must deliver the command
        /// and leave (`deliverAndLeave`) once out of the gate.
        case acquired
        /// Behind the delivery in progress, which will deliver it.
        case queued
        /// The property has ended; the command was dropped.
        case closed
    }

    /// Takes a place in the domain's queue for `command`, under the gate.
    @inlinable
    @inline(__always)
    func enqueue(_ command: Command) -> Place {
        if _fastPath(flare_serial_try_acquire(commands.serial)) { return .acquired }
        return enqueueBehind(command)
    }

    @inlinable
    @inline(never)
    func enqueueBehind(_ command: Command) -> Place {
        let node = commands.makeNode(.value(command), kind: UInt(FLARE_NODE_EVENT))
        switch flare_serial_push(commands.serial, node, true) {
        case FLARE_PUSH_QUEUED:
            return .queued
        case FLARE_PUSH_ACQUIRED:
            commands.destroyEvent(node)
            return .acquired
        default:
            commands.destroyEvent(node)
            return .closed
        }
    }

    /// Sets the value: publishes it, then delivers it (now, or after the
    /// delivery in progress).
    @inlinable
    func set(_ value: Value) {
        if stage(value) { deliverStaged(value) }
    }

    /// `set` for an owner that keeps the property's `signal` handle alive
    /// (`MutableProperty`): when the domain is idle and nothing could
    /// receive the change, it is published and nothing is queued, so an
    /// unobserved set costs the gate and the cell's stores, not the serial
    /// word's two read-modify-writes and a delivery to no one (see
    /// `stageHoldingGate` for why no observer or run misses a change).
    @inlinable
    func setKeepingSignal(_ value: Value) {
        gate.enter("MutableProperty.value")
        let acquired = stageHoldingGate(value)
        gate.leave()
        if acquired { deliverStaged(value) }
    }

    /// The first half of a set, for a writer that orders its sets by an
    /// exclusion of its own (an `Action` publishing its state): publishes
    /// `value` and takes its place in the queue, calling no observer.
    ///
    /// - Returns: `true` if the caller must call `deliverStaged(value)`
    ///   once it is out of its own exclusion (it holds the serial word);
    ///   `false` if the delivery in progress will deliver it.
    @inlinable
    func stage(_ value: Value) -> Bool {
        gate.enter("MutableProperty.value")
        latest = value
        cell.store(value)
        let acquired = enqueue(.set(value)) == .acquired
        gate.leave()
        return acquired
    }

    /// `stage` for a writer that holds `gate` itself (an `Action`'s
    /// control, which holds the gates of `isExecuting` and `isEnabled`
    /// together for each of its transitions) and keeps the property's
    /// `signal` handle alive: when the domain is idle and nothing could
    /// receive the change (no observer of `signal`, no producer run
    /// attached), it publishes `value` and queues nothing.
    ///
    /// Under the gate, an idle serial word means no earlier change is
    /// queued or being delivered: every change, and every start that
    /// attaches a run from the domain's idle state, takes the word under
    /// the gate (`complete()` and a run's detach may take it meanwhile;
    /// the first ends the property, the second removes a run). The word is
    /// read with acquire, so the run count read after it is the one its
    /// last holder left (`_PropertyDomain.relayCount`). A producer start
    /// reads `latest` under the gate, so it sees `value`; an observer
    /// attaching to `signal` concurrently is one that attached after this
    /// change (see `flare_core_has_observers`). So no observer or run
    /// misses a change it could have received, and no older value can
    /// reach one after this one is published.
    ///
    /// - Returns: as `stage`.
    @inlinable
    func stageHoldingGate(_ value: Value) -> Bool {
        latest = value
        cell.store(value)
        if flare_serial_is_idle_acquire(commands.serial), !flare_core_has_observers(output.raw),
           domain.relayCount.load(ordering: .relaxed) == 0 {
            return false
        }
        return enqueue(.set(value)) == .acquired
    }

    /// Delivers a value `stage` returned `true` for, then what was queued
    /// behind it.
    @inlinable
    func deliverStaged(_ value: Value) {
        commands.deliverAndLeave(.value(.set(value)))
    }

    /// Runs `action` with exclusive access to the value, then publishes and
    /// delivers the result (also when `action` throws, as ReactiveSwift).
    @inlinable
    func modify<Result>(_ operation: StaticString, _ action: (inout Value) throws -> Result) rethrows -> Result {
        gate.enter(operation)
        let result: Result
        do {
            result = try action(&latest)
        } catch {
            publishAndLeave()
            throw error
        }
        publishAndLeave()
        return result
    }

    /// Under the gate: publishes `latest`, queues its delivery, leaves the
    /// gate, then delivers if the serial word was idle.
    @inlinable
    @inline(__always)
    func publishAndLeave() {
        let value = latest
        cell.store(value)
        let deliver = enqueue(.set(value)) == .acquired
        gate.leave()
        if deliver { commands.deliverAndLeave(.value(.set(value))) }
    }

    /// Ends the property: its signal and its producers' runs complete after
    /// the changes already queued.
    @inlinable
    func complete() {
        commands.send(.value(.end))
    }

    // MARK: Producer runs

    /// Starts the run of `relay`: sends it the current value, then every
    /// later change, with no gap and no duplicate, even if sets race with
    /// the start. The current value is delivered before `start` returns, on
    /// this thread (a composed property relies on it).
    ///
    /// Under the gate, the start reads `latest` (value k) and takes its
    /// place in the domain's queue, right after change k:
    /// - **The domain is idle** (the common case): this thread acquires it,
    ///   leaves the gate, delivers k and attaches the relay, then leaves the
    ///   domain, delivering what was queued meanwhile (changes k+1 …), now
    ///   to the relay too.
    /// - **This thread is delivering** (a start from inside an observer):
    ///   it queues an `attach` command behind change k and delivers k at
    ///   once (it is inside the domain); the command attaches the relay
    ///   after the current delivery, before change k+1.
    /// - **Another thread is delivering**: k cannot wait for it, and
    ///   changes k+1 … must not overtake k, so the run gets a `buffer`
    ///   signal whose serial word this thread holds while it delivers k; it
    ///   queues the `attach` behind change k; the domain sends the later
    ///   changes into the buffer, where they queue behind k.
    /// No observer runs under the gate.
    @inlinable
    func start(_ relay: Relay) {
        guard relay.beginStart() else { return }
        var buffer: _SignalCore<Value, Never>?
        if flare_serial_peek(commands.serial) != UInt(FLARE_SERIAL_IDLE), !flare_serial_held_by_caller(commands.serial) {
            buffer = relay.makeBuffer()
        }
        while true {
            gate.enter("MutableProperty.producer")
            let current = latest
            if _fastPath(flare_serial_try_acquire(commands.serial)) {
                gate.leave()
                startInDomain(relay, current)
                return
            }
            if flare_serial_held_by_caller(commands.serial) {
                _ = enqueueBehind(.attach(relay))
                gate.leave()
                startNested(relay, current)
                return
            }
            guard let buffer else {
                // Made outside the gate, then the place is taken again.
                gate.leave()
                buffer = relay.makeBuffer()
                continue
            }
            startBuffered(relay, current, buffer)
            return
        }
    }

    /// The start of a relay holding the idle domain.
    @inlinable
    func startInDomain(_ relay: Relay, _ current: Value) {
        if !relay.isInterruptRequested { relay.send(value: current) }
        if domain.ended {
            relay.finish(relay.isInterruptRequested ? .interrupted : .completed)
        } else {
            domain.append(relay)
        }
        if !relay.endStart() {
            relay.finish(.interrupted)
            domain.remove(relay)
        }
        leaveDomain()
    }

    /// The start of a relay from inside the domain's delivery (its attach
    /// queued).
    @inlinable
    @inline(never)
    func startNested(_ relay: Relay, _ current: Value) {
        if !relay.isInterruptRequested { relay.send(value: current) }
        // The attach command will find the run ended and drop it.
        if !relay.endStart() { relay.finish(.interrupted) }
    }

    /// The start of a relay while another thread delivers, under the gate
    /// (which it leaves).
    @inlinable
    @inline(never)
    func startBuffered(_ relay: Relay, _ current: Value, _ buffer: _SignalCore<Value, Never>) {
        // Fresh, and not yet published: always acquired.
        let holdsBuffer = flare_serial_try_acquire(buffer.serial)
        relay.buffer = buffer
        let place = enqueueBehind(.attach(relay))
        gate.leave()
        if place == .acquired {
            // The domain went idle meanwhile: attach from here.
            domain.attach(relay)
            leaveDomain()
        }
        if holdsBuffer { buffer.deliverAndLeave(.value(current)) } else { buffer.send(.value(current)) }
        if !relay.endStart() {
            buffer.send(.interrupted)
            detach(relay)
        }
    }

    /// Detaches a relay whose interruption was requested (see `_RelayHub`).
    @inlinable
    func detach(_ relay: Relay) {
        if flare_serial_try_acquire(commands.serial) {
            domain.detach(relay)
            leaveDomain()
        } else if enqueueBehind(.detach(relay)) == .acquired {
            domain.detach(relay)
            leaveDomain()
        }
    }

    /// Releases the serial word taken by `enqueue`, draining what was queued
    /// meanwhile.
    @inlinable
    func leaveDomain() {
        if let pending = flare_serial_release(commands.serial) { commands.drain(pending) }
    }
}
