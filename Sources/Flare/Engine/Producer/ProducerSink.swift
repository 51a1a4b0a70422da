import CFlare
import Synchronization

/// A link's output inside a producer run: the next link's closure, behind
/// the link's terminated flag.
///
/// The run is held unowned: a chain of k links would otherwise retain and
/// release it k times per start (and once more per link at teardown), a
/// large part of a start's cost. Links are called only from the run's
/// source, which keeps the run alive whenever it may deliver: a synchronous
/// source is owned by the run and delivers only from inside the run's own
/// methods (`startIfNotDisposed`, `interrupt`); a source with a root signal
/// captures the run strongly in the root's observer (see
/// `SignalProducer.init(_:)` with a start handler). Nothing else keeps a
/// sink.
@usableFromInline
struct _ProducerSink<Value, Error: Swift.Error>: _EventSink {
    @usableFromInline let action: (Signal<Value, Error>.Event) -> Void
    /// Unmanaged rather than `unowned(unsafe)`: Swift copies (retains) an
    /// `unowned(unsafe)` reference at each use, which would put a retain and
    /// a release around every flag check; `_withUnsafeGuaranteedRef` uses
    /// it at +0.
    @usableFromInline let runReference: Unmanaged<_ProducerRun>
    @usableFromInline let index: Int

    @inlinable
    init(_ action: @escaping (Signal<Value, Error>.Event) -> Void, run: _ProducerRun, index: Int) {
        self.action = action
        self.runReference = Unmanaged.passUnretained(run)
        self.index = index
    }

    /// The run (retained by the caller's use: for the colder paths).
    @inlinable
    var run: _ProducerRun { runReference.takeUnretainedValue() }

    @inlinable
    @inline(__always)
    func deliverHeld(_ event: Signal<Value, Error>.Event) {
        let index = self.index
        guard !runReference._withUnsafeGuaranteedRef({ $0.isTerminated(index) }) else { return }
        guard event.isTerminating else { return action(event) }
        runReference._withUnsafeGuaranteedRef { $0.markTerminated(index) }
        action(event)
        runReference._withUnsafeGuaranteedRef { run in
            if index == run.lastIndex { run.outputTerminated() }
        }
    }

    @inlinable
    @inline(__always)
    func deliverHeld(value: Value) {
        let index = self.index
        guard !runReference._withUnsafeGuaranteedRef({ $0.isTerminated(index) }) else { return }
        action(.value(value))
    }

    @inlinable
    @inline(never)
    func deliverHeldOutOfLine(_ event: Signal<Value, Error>.Event) {
        deliverHeld(event)
    }

    @inlinable
    var lifetime: Lifetime { run.lifetime }
}
