import CFlare
import Synchronization

extension _PropertyChannel {
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
                _ = commands.queueBehind(.value(.attach(relay)))
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
        let place = commands.queueBehind(.value(.attach(relay)))
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
        commands.perform(.value(.detach(relay))) { domain.detach(relay) }
    }

    /// Releases the serial word taken by `enqueue`, draining what was queued
    /// meanwhile.
    @inlinable
    func leaveDomain() {
        commands.leave()
    }
}
