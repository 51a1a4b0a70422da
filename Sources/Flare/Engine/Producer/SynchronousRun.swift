import CFlare
import Synchronization

/// The run of a synchronous source (`init(value:)`, a sequence …): the sink
/// the source sends to, the source's payload (`init(value:)`'s value, or the
/// source's own function) and the function that sends it are stored in the
/// run itself, so that a start allocates the run and nothing else for its
/// source (a closure capturing them, per start, cost an allocation and its
/// retains). Making the producer allocates one closure context, the
/// producer's `_makeRunObject`, capturing the payload and a function that
/// captures nothing: for `init(value:)`, one allocation in all (flatten
/// makes a producer per outer value). Made by `_makeRunObject` (see
/// `SignalProducer.init(_synchronous:_:)`), filled by the source's `attach`;
/// owned, like the rest of the run's state, by whichever thread the state
/// word designates.
@usableFromInline
final class _SynchronousRun<Value, Error: Swift.Error, Payload>: _ProducerRun, @unchecked Sendable {
    /// The source's output, the chain's first link; nil once the run is
    /// over, which releases the chain (and the observer) while the run's
    /// handle may live on.
    @exclusivity(unchecked)
    @usableFromInline
    var sink: _ProducerSink<Value, Error>?

    /// What `send` sends.
    @usableFromInline
    let payload: Payload

    /// The source's function (see `SignalProducer.init(_synchronous:_:)`).
    @usableFromInline
    let send: (_ProducerRun, _ProducerSink<Value, Error>, Payload) -> Void

    /// Borrowed and copied into the fields: owned arguments stored before
    /// `super.init` are each retained twice and released once.
    @inlinable
    init(
        linkCount: Int, payload: borrowing Payload,
        send: borrowing @escaping (_ProducerRun, _ProducerSink<Value, Error>, Payload) -> Void
    ) {
        self.payload = copy payload
        self.send = copy send
        super.init(linkCount: linkCount, sourceEntry: { run, interrupt in
            // A closure, not a reference to a static method: specialized
            // with the initializer, it captures nothing (the method, as a
            // value, was its unspecialized generic code).
            let run = unsafeDowncast(run, to: _SynchronousRun<Value, Error, Payload>.self)
            if interrupt { run.interruptSynchronous() } else { run.startSynchronous() }
        })
    }

    // Both take the sink out of the run (a move: no retain), so that the
    // chain is released when they return, and then end the run's lifetime.

    /// The start (see `_ProducerRun.sourceEntry`): unless an interrupter
    /// got to the state word first (and delivered `interrupted`), sends
    /// the source's events holding it, then `interrupted` if an
    /// interruption was requested meanwhile and the source did not
    /// terminate.
    @inlinable
    final func startSynchronous() {
        guard state.beginStart(), let sink = sink.take() else { return }
        send(self, sink, payload)
        if endSynchronousDelivery() { sink.deliverHeld(.interrupted) }
        sourceEnded()
    }

    /// The interruption (see `_ProducerRun.sourceEntry`): delivers
    /// `interrupted` at once if the source has not started; else raises
    /// the request in the state word, which the source sees before its
    /// next event (`emit`).
    @inlinable
    final func interruptSynchronous() {
        guard state.requestInterrupt() == .notStarted, let sink = sink.take() else { return }
        sink.deliverHeld(.interrupted)
        sourceEnded()
    }
}
