import CFlare
import Synchronization

/// What goes through a property's serialized domain: a change, a
/// producer run attaching at its place among the changes or detaching, and
/// the property's end.
@usableFromInline
enum _PropertyCommand<Value> {
    case set(Value)
    /// A change whose delivery carries a tag (`_PropertyChannel.setTagged`).
    case tagged(_TaggedChange<Value>)
    case attach(_DomainRelay<_PropertyChannel<Value>>)
    case detach(_DomainRelay<_PropertyChannel<Value>>)
    case end
}

/// A change and the tag its delivery carries: a `ValidatingProperty`'s
/// write-back, which its observer of the property recognises by it.
@usableFromInline
final class _TaggedChange<Value> {
    @usableFromInline let value: Value
    @usableFromInline let tag: AnyObject

    @inlinable
    init(_ value: Value, tag: AnyObject) {
        self.value = value
        self.tag = tag
    }
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

/// What a property's domain delivers to, and its state: the runs of
/// `producer` attached before every active observer of the property's
/// `signal` (`head`), then `signal` (`output`), whose observers include one
/// marker per later segment of runs (`_RelaySegment`). Touched only inside
/// the domain's delivery; captured, alone, by the domain's observer.
@usableFromInline
final class _PropertyDomain<Value>: @unchecked Sendable {
    @usableFromInline typealias Relay = _DomainRelay<_PropertyChannel<Value>>

    @usableFromInline
    let output: _HeldCore<Value, Never>

    /// The runs attached while `signal` had no active observer, in attach
    /// order: each change reaches them before `signal`'s observers, from the
    /// domain itself, so a program that only starts `producer` attaches no
    /// marker.
    @usableFromInline
    @exclusivity(unchecked)
    var head = _RelayList<_PropertyChannel<Value>>()

    /// The segments of the runs attached after an active observer of
    /// `signal`, in attach order; none is empty.
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

    /// The tag of the change being delivered, nil for an untagged one.
    @usableFromInline
    @exclusivity(unchecked)
    var deliveringTag: AnyObject?

    @inlinable
    init(output: _HeldCore<Value, Never>) {
        self.output = output
    }

    deinit {
        // Empty in practice: an attached relay keeps its channel, and so
        // this state, alive. The lists' references are released anyway.
        head.releaseAll()
        for segment in segments { segment.relays.releaseAll() }
    }

    @inlinable
    func handle(_ event: Signal<_PropertyCommand<Value>, Never>.Event) {
        switch event {
        case let .value(.set(value)):
            guard !ended else { return }
            deliver(value)
        case let .value(.tagged(change)):
            guard !ended else { return }
            deliveringTag = change.tag
            deliver(change.value)
            deliveringTag = nil
        case let .value(.attach(relay)):
            attach(relay)
        case let .value(.detach(relay)):
            detach(relay)
        case .value(.end), .completed, .interrupted:
            end()
        }
    }

    /// A change to the runs of `head`, then to the observers of `signal`
    /// (the segments' markers among them), in attach order. The splice
    /// comes first: an observer attached from inside a run's delivery is
    /// attached after this change, which it does not receive.
    @inlinable
    func deliver(_ value: Value) {
        let raw = output.raw
        assert(flare_core_may_deliver(raw), "Flare: a delivery without holding the serial word")
        flare_core_begin_delivery(raw)
        if !head.isEmpty { head.deliver(value: value) }
        _SignalCore<Value, Never>.deliverSpliced(value: value, raw: raw)
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
    /// so far: to `head` if `signal` has no active observer (a segment's
    /// marker is one, so then there is no segment either), to the last
    /// segment if its marker is still the last observer of `signal`,
    /// otherwise to a new segment, whose marker it attaches. Inside the
    /// domain, while the property has not ended.
    @inlinable
    func append(_ relay: Relay) {
        if !hasActiveObserver() {
            head.append(relay)
        } else if let last = segments.last, isLastObserver(last) {
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

    /// Whether `signal` has an active observer, once the observers attached
    /// meanwhile (by any thread) are spliced in: the drainer's view, which
    /// the next change is delivered by. O(1) unless observers of `signal`
    /// were disposed since its last delivery.
    @inlinable
    func hasActiveObserver() -> Bool {
        let raw = output.raw
        flare_core_splice(raw)
        guard let items = raw.pointee.items else { return false }
        var i = raw.pointee.count
        while i > 0 {
            i &-= 1
            if flare_entry_is_active(items[i].unsafelyUnwrapped) { return true }
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

    /// Drops `relay` from `head` or its segment (if attached); a segment
    /// left empty detaches its marker.
    @inlinable
    func remove(_ relay: Relay) {
        if head.remove(relay) {
            relayCount.store(relayCount.load(ordering: .relaxed) &- 1, ordering: .relaxed)
            return
        }
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
        // The runs of `head` first; the markers end their segments' runs,
        // in attach order among the observers of `signal`.
        head.end(.completed)
        output.deliverHeldOutOfLine(.completed)
        segments = []
        relayCount.store(0, ordering: .relaxed)
    }
}
