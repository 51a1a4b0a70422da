import CFlare
import Synchronization

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

    /// Takes a place in the domain's queue for `command`, under the gate:
    /// `.acquired` (the caller holds the serial word: it must deliver the
    /// command and leave, `deliverAndLeave`, once out of the gate),
    /// `.queued` (the delivery in progress will deliver it) or `.closed`
    /// (see `_SerialDriver.acquireOrQueue`).
    @inlinable
    @inline(__always)
    func enqueue(_ command: Command) -> _SerialPlace {
        commands.acquireOrQueue(.value(command))
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

    /// `set`, with `tag` carried by the change's delivery: the observers of
    /// `signal` read it (`deliveringTag`) while they receive this change,
    /// whichever thread delivers it.
    @usableFromInline
    func setTagged(_ value: Value, tag: AnyObject) {
        let command = Command.tagged(_TaggedChange(value, tag: tag))
        gate.enter("MutableProperty.value")
        latest = value
        cell.store(value)
        let acquired = enqueue(command) == .acquired
        gate.leave()
        if acquired { commands.deliverAndLeave(.value(command)) }
    }

    /// The tag of the change being delivered (see `setTagged`), nil for an
    /// untagged one. Only from inside a delivery of the property (an
    /// observer of `signal`), whose thread holds the domain.
    @usableFromInline
    var deliveringTag: AnyObject? {
        assert(flare_serial_held_by_caller(commands.serial), "Flare: deliveringTag read outside a delivery")
        return domain.deliveringTag
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
}
