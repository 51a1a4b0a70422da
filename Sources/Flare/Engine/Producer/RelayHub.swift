import CFlare
import Synchronization

/// A serialized domain that feeds producer runs directly (a property's
/// channel, a replay's shared state): each start of its producer is a
/// `_DomainRelay`, which the domain delivers to from inside its own
/// serialized delivery, with no root signal, observer or lifetime of its
/// own (see `_DomainRelay`).
@usableFromInline
protocol _RelayHub: AnyObject {
    associatedtype Value
    associatedtype Error: Swift.Error
    /// What a relay keeps alive while its run has not ended (a property's
    /// signal, a replay's owner); released with the run's terminal event.
    associatedtype Anchor: AnyObject

    /// Starts `relay`'s run (its `beginStart()` is the hub's to call).
    func start(_ relay: _DomainRelay<Self>)

    /// Detaches `relay`, whose interruption was requested after its start
    /// had ended: delivers `interrupted` to it from inside the domain (at
    /// once if the domain is idle, otherwise by queueing a command behind
    /// the delivery in progress) and drops it from the domain. Any thread.
    func detach(_ relay: _DomainRelay<Self>)
}

/// The relays attached to a domain, in attach order, each retained by the
/// list (unmanaged, so that the delivery loop uses them at +0). Touched
/// only inside the domain's delivery (holding its serial word), and never
/// while one of its own loops runs: a start or an interruption from inside
/// a delivery finds the word held by its own thread and queues a command
/// instead (a replay's start from inside a delivery replays at once and
/// waits in the state's `pending` list until the step in progress ends).
@usableFromInline
struct _RelayList<Hub: _RelayHub> {
    @usableFromInline
    var items = ContiguousArray<Unmanaged<_DomainRelay<Hub>>>()

    @inlinable
    init() {}

    @inlinable
    var isEmpty: Bool { items.isEmpty }

    @inlinable
    mutating func append(_ relay: _DomainRelay<Hub>) {
        items.append(Unmanaged.passRetained(relay))
    }

    /// Drops `relay` (if attached), keeping the others' order; returns
    /// whether it was attached.
    @inlinable
    @discardableResult
    mutating func remove(_ relay: _DomainRelay<Hub>) -> Bool {
        var i = items.count
        while i > 0 {
            i &-= 1
            if items[i].toOpaque() == Unmanaged.passUnretained(relay).toOpaque() {
                items.remove(at: i).release()
                return true
            }
        }
        return false
    }

    /// Delivers `value` to every relay.
    @inlinable
    func deliver(value: Hub.Value) {
        items.withUnsafeBufferPointer { relays in
            for relay in relays {
                relay._withUnsafeGuaranteedRef { $0.deliver(value: value) }
            }
        }
    }

    /// Drops every relay without delivering anything (the domain is gone).
    @usableFromInline
    mutating func releaseAll() {
        for relay in items { relay.release() }
        items = []
    }

    /// Ends every relay with `event` and empties the list.
    @inlinable
    mutating func end(_ event: Signal<Hub.Value, Hub.Error>.Event) {
        let ended = items
        items = []
        for relay in ended {
            relay._withUnsafeGuaranteedRef { $0.end(event) }
            relay.release()
        }
    }
}
