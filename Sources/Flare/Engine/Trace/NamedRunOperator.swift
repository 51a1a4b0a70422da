import CFlare

/// A named producer's name as the run probes pass it (a C string made once,
/// by `named`), and its description of values.
@usableFromInline
final class _RunLabel<Value>: @unchecked Sendable {
    /// NUL-terminated; immutable after init.
    @usableFromInline
    let name: UnsafeMutablePointer<CChar>

    /// A `_ValueDescriber<Value>`, or nil: `String(describing:)`.
    @usableFromInline
    let describer: _ValueDescriber<Value>?

    @usableFromInline
    init(_ name: String, describe: ((Value) -> String)?) {
        let utf8 = Array(name.utf8CString)
        self.name = .allocate(capacity: utf8.count)
        self.name.initialize(from: utf8, count: utf8.count)
        describer = describe.map { _ValueDescriber($0) }
    }

    deinit { name.deallocate() }

    /// `event` passed the named link of run `run`: event_sent and
    /// value_sent where traced, and run_ended for a terminal event
    /// (`disposed`: the run's `dispose()` caused it).
    @usableFromInline
    @inline(never)
    func trace<Error>(_ event: Signal<Value, Error>.Event, run: UInt64, disposed: Bool) {
        let kind = _traceKind(event)
        if flare_trace_event_sent_on() { flare_trace_run_event_sent(run, name, kind) }
        if case let .value(value) = event, flare_trace_values_on() {
            let describe = describer.map { Unmanaged.passUnretained($0).toOpaque() }
            _traceDescription(value, describe: describe).withCString { flare_trace_run_value_sent(run, name, $0) }
        }
        if event.isTerminating, flare_trace_run_ended_on() {
            let how = kind == Int32(FLARE_TRACE_INTERRUPTED) && disposed ? Int32(FLARE_TRACE_DISPOSED) : kind
            flare_trace_run_ended(run, name, how)
        }
    }
}

/// `SignalProducer.named(_:describe:)`: one link per run that reports the
/// run's start, events and end to the run probes (flare_trace.h). The
/// run's id is taken when the link is attached (at the start), so that a
/// tracer attached to a long run later still sees its events under one id.
@usableFromInline
struct _NamedRunOperator<Value, Error: Swift.Error>: _FilteringOperator {
    @usableFromInline let label: _RunLabel<Value>

    @inlinable
    init(label: _RunLabel<Value>) { self.label = label }

    @inlinable
    func attach<Sink: _EventSink>(to downstream: consuming Sink) -> (Signal<Value, Error>.Event) -> Void
    where Sink.Value == Value, Sink.Error == Error {
        let downstream = downstream
        let label = label
        let run = flare_trace_next_id()
        if flare_trace_run_started_on() { flare_trace_run_started(run, label.name) }
        return { event in
            if _slowPath(flare_trace_runs_on()) {
                // Disposal interrupts the run: tell it from an interruption
                // sent by the source, or by an operator that ended the run.
                let disposed = event.isTerminating && (downstream as? _ProducerSink<Value, Error>)?.run.isDisposed == true
                label.trace(event, run: run, disposed: disposed)
            }
            downstream.deliverHeld(event)
        }
    }
}
