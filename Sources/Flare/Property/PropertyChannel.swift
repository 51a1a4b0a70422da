import CFlare
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Orders a property's writers: one at a time, for an O(1) publish and
/// enqueue, or for the closure of `modify`. Never held while an observer
/// runs, nor while waiting for anything but another writer's critical
/// section. Records its holder, so that a nested `modify` of the same
/// property stops with a message instead of waiting for itself.
@usableFromInline
struct _WriteGate: ~Copyable {
    @usableFromInline
    let owner = Atomic<UInt>(0)

    @inlinable
    init() {}

    @inlinable
    func enter(_ operation: StaticString) {
        let me = UInt(flare_thread_tag())
        // Only this thread ever stores `me`: seeing it means holding the gate.
        flarePrecondition(
            owner.load(ordering: .relaxed) != me,
            "\(operation): nested modification of the same property from inside its own modify (exclusive access)")
        if _fastPath(owner.compareExchange(expected: 0, desired: me, ordering: .acquiring).exchanged) { return }
        enterContended(me)
    }

    @inlinable
    @inline(never)
    func enterContended(_ me: UInt) {
        var spins = 0
        while true {
            if owner.load(ordering: .relaxed) == 0,
               owner.compareExchange(expected: 0, desired: me, ordering: .acquiring).exchanged { return }
            spins += 1
            if spins >= 64 { sched_yield() }
        }
    }

    @inlinable
    func leave() {
        owner.store(0, ordering: .releasing)
    }
}

/// What goes through a property's serialized domain: a change, or a
/// producer's start attaching at its place among the changes.
@usableFromInline
enum _PropertyCommand<Value> {
    case set(Value)
    case attach(Signal<Value, Never>.Observer, Lifetime)
}

/// The engine shared by `MutableProperty` and composed `Property`s.
///
/// - `cell` holds the current value for lock-free reads.
/// - Changes are delivered through one root signal of `_PropertyCommand`s
///   (its serial word is the property's serialized domain) and its derived
///   signal `output` (the property's `signal`): delivery is lock-free and
///   serialized, and a change made from inside an observer is queued and
///   delivered after the current one (contract 3), in constant stack.
/// - `gate` orders writers: under it a writer updates `latest`, publishes
///   it to `cell`, and takes its place in the domain's queue (acquiring the
///   idle serial word, or pushing a node behind the delivery in progress),
///   so values are delivered in the order they were written. The delivery
///   itself happens after the gate is left: no observer runs under it.
/// - A producer start takes `latest` and its place in the queue under the
///   gate too: it attaches to `output` exactly after the change whose value
///   it read, so it sees every later change, once (see `start(into:)`).
@usableFromInline
final class _PropertyChannel<Value>: @unchecked Sendable {
    @usableFromInline typealias Command = _PropertyCommand<Value>

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

    /// Makes the channel and the property's `signal`, which the caller
    /// keeps (the channel refers to its core only, so that a composed
    /// property's signal can end when nothing refers to it or observes it).
    @inlinable
    static func make(_ initial: Value) -> (_PropertyChannel, Signal<Value, Never>) {
        let commands = _SignalCore<Command, Never>(queueLimit: .unbounded)
        let handle = Signal<Command, Never>(_core: commands)
        let signal: Signal<Value, Never> = handle._liftCore { downstream in
            { event in
                switch event {
                case let .value(.set(value)):
                    downstream.deliverHeld(value: value)
                case let .value(.attach(observer, lifetime)):
                    if !lifetime.hasEnded { lifetime += downstream.core.observe(observer) }
                case .completed, .interrupted:
                    downstream.deliverHeldOutOfLine(.completed)
                }
            }
        }
        return (_PropertyChannel(initial, commands: commands, handle: handle, output: signal.core), signal)
    }

    @usableFromInline
    init(_ initial: Value, commands: _SignalCore<Command, Never>, handle: Signal<Command, Never>, output: _SignalCore<Value, Never>) {
        cell = _ValueCell(initial)
        latest = initial
        self.commands = commands
        self.commandHandle = handle
        self.output = output
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

    /// Ends the property: its signal and producers' runs complete after
    /// Ends the property: its signal and its producers' runs complete after
    /// the changes already queued.
    @inlinable
    func complete() {
        commands.send(.completed)
    }

    // MARK: Producer starts

    /// Starts a run of the property's producer whose root core is `run`:
    /// sends it the current value, then every later change, with no gap and
    /// no duplicate, even if sets race with the start.
    ///
    /// Holding the run's own serial word across the attach keeps the order:
    /// under the gate, the start reads `latest` (value k) and takes its place
    /// in the property's queue right after change k, so the forwarding
    /// observer receives changes k+1, k+2 … from whichever thread delivers
    /// them; those reach the run's core while this thread holds its word, so
    /// they queue behind value k, which this thread delivers on leaving the
    /// gate. No observer runs under the gate.
    @inlinable
    func start(into run: _SignalCore<Value, Never>) {
        let holdsRun = flare_serial_try_acquire(run.serial)
        let forward = Signal<Value, Never>.Observer { [run] event in
            if case .interrupted = event { run.send(.completed) } else { run.send(event) }
        }
        gate.enter("MutableProperty.producer")
        let current = latest
        let place = enqueue(.attach(forward, run.lifetime))
        // In the domain, the signal has not ended (its end goes through the
        // domain and closes the serial word): attaching calls no observer.
        if place == .acquired { run.lifetime += output.observe(forward) }
        gate.leave()
        if place == .acquired { leaveDomain() }
        if holdsRun { run.deliverAndLeave(.value(current)) } else { run.send(.value(current)) }
        // The property has ended: observing its terminated signal sends
        // `interrupted`, forwarded as `completed`, after the value.
        if place == .closed { run.lifetime += output.observe(forward) }
    }

    /// Releases the serial word taken by `enqueue`, draining what was queued
    /// meanwhile.
    @inlinable
    func leaveDomain() {
        if let pending = flare_serial_release(commands.serial) { commands.drain(pending) }
    }
}
