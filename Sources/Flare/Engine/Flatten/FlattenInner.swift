import CFlare
import Synchronization

/// What flows through a flatten's internal signal: an outer event, or an
/// event of the inner run behind a node, which it names unretained, with
/// the generation the inner was started under (the engine keeps every node
/// until the flatten has ended: see `_FlattenEngine.spares`).
@usableFromInline
enum _FlattenTag<Outer, U, E: Swift.Error> {
    case outer(Signal<Outer, E>.Event)
    case inner(Unmanaged<_FlattenInner<Outer, U, E>>, generation: UInt, Signal<U, E>.Event)
}

/// One started inner run: the identity its events are tagged with, its
/// disposable, and its place in the engine's list of active runs. Touched
/// only inside the internal signal's delivery, or after it has closed.
@usableFromInline
final class _FlattenInner<Outer, U, E: Swift.Error> {
    /// The engine; from it, the internal signal's input. Held strongly: an
    /// inner on another thread may be sending while the flatten ends. The
    /// cycle with the engine's list lasts while the node is active.
    @usableFromInline
    let engine: _FlattenEngine<Outer, U, E>

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

    /// Which of the inners this node has served is current: an event
    /// tagged with another generation is an earlier inner's, and ignored.
    /// Written by the drainer only, when `_FlattenEngine.reusableNode`
    /// gives the node to a new inner; read by every sender, which tags its
    /// event with it, and by the drainer's check (relaxed: see
    /// `reusableNode`).
    @usableFromInline
    let generation = Atomic<UInt>(0)

    @usableFromInline
    @exclusivity(unchecked)
    var next: _FlattenInner?

    @usableFromInline
    @exclusivity(unchecked)
    unowned(unsafe) var previous: _FlattenInner?

    @inlinable
    init(engine: _FlattenEngine<Outer, U, E>) {
        self.engine = engine
    }

    /// The inner run's observer (any thread): hands the event to the engine
    /// at once if this inner sends it while the engine starts it and
    /// nothing is queued (`_FlattenEngine.deliverDirectly`), else tags it
    /// and sends it to the internal signal. The engine's state is read only
    /// by the thread that holds the internal signal's serial word. The
    /// first test, a relaxed load of the engine's `starting`, keeps every
    /// other send off the serial word's line until its own CAS: reading
    /// `owner` first cost a contended sender a second transfer of the line.
    @inlinable
    func send(_ event: Signal<U, E>.Event) {
        let engine = self.engine
        if engine.starting.load(ordering: .relaxed) == Self.identity(self), flare_serial_held_by_caller(engine.serial) {
            if engine.deliverDirectly(event, of: self) { return }
            return engine.queueStartingEvent(event, of: self)
        }
        engine.input.send(value: tagged(event))
    }

    /// `event` tagged with this node and the generation it serves now.
    @inlinable
    @inline(__always)
    func tagged(_ event: Signal<U, E>.Event) -> _FlattenTag<Outer, U, E> {
        .inner(Unmanaged.passUnretained(self), generation: generation.load(ordering: .relaxed), event)
    }

    /// A node's identity as `_FlattenEngine.starting` holds it.
    @inlinable
    static func identity(_ node: _FlattenInner) -> UInt {
        UInt(bitPattern: Unmanaged.passUnretained(node).toOpaque())
    }
}
