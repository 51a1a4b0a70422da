import CFlare

// The Swift half of the `flare` USDT provider (flare_trace.h). The rule it
// keeps is T1 there: every probe point is a C check of the probe's
// semaphore (`flare_trace_*_on`, one load and an untaken branch) guarding a
// call to a function that is never inlined. Nothing is computed, retained
// or allocated before the check passes: what the probes report (a name, a
// description of a value) is made only behind it, in the functions here,
// out of line so that the paths they guard stay as they were.

/// How a value is described to `value_sent`: the closure given to
/// `named(_:describe:)`. Kept by a core's label (retained in its
/// `describe` word, released when the core goes) or by a named producer.
@usableFromInline
final class _ValueDescriber<Value> {
    @usableFromInline
    let describe: (Value) -> String

    @usableFromInline
    init(_ describe: @escaping (Value) -> String) {
        self.describe = describe
    }
}

/// The kind of an event, as the probes report it (FLARE_TRACE_VALUE …).
@inlinable
func _traceKind<Value, Error>(_ event: Signal<Value, Error>.Event) -> Int32 {
    switch event {
    case .value: Int32(FLARE_TRACE_VALUE)
    case .failed: Int32(FLARE_TRACE_FAILED)
    case .completed: Int32(FLARE_TRACE_COMPLETED)
    case .interrupted: Int32(FLARE_TRACE_INTERRUPTED)
    }
}

/// `value`'s description for `value_sent`: `describe`'s (an object of
/// `_ValueDescriber<Value>`, retained elsewhere), else
/// `String(describing:)`. Called only while `value_sent` is traced (T6).
@usableFromInline
@inline(never)
func _traceDescription<Value>(_ value: Value, describe: UnsafeMutableRawPointer?) -> String {
    if let describe {
        return Unmanaged<_ValueDescriber<Value>>.fromOpaque(describe)._withUnsafeGuaranteedRef { $0.describe(value) }
    }
    return String(describing: value)
}

extension _SignalCore {
    /// Names the signal (`Signal.named(_:describe:)`): a label the probes
    /// report from now on, on any thread (flare_trace.h, T5).
    @usableFromInline
    func setTraceLabel(_ name: String, describe: ((Value) -> String)?) {
        let describer = describe.map { Unmanaged.passRetained(_ValueDescriber($0)).toOpaque() }
        let label = name.withCString { flare_trace_label_new($0, describer) }
        flare_core_set_label(raw, label)
    }

    /// A value delivered to the core at `raw` while `event_sent` or
    /// `value_sent` is traced (`deliverSpliced`'s check).
    @usableFromInline
    @inline(never)
    static func traceValue(_ value: Value, raw: UnsafeMutablePointer<flare_core>) {
        if flare_trace_event_sent_on() { flare_trace_event_sent(raw, Int32(FLARE_TRACE_VALUE)) }
        guard flare_trace_values_on() else { return }
        let describe = flare_core_label(raw)?.pointee.describe
        _traceDescription(value, describe: describe).withCString { flare_trace_value_sent(raw, $0) }
    }

    /// The terminal event `event` ends the core at `raw`, about to be
    /// delivered to its observers: event_sent and signal_ended, where
    /// traced. Holding the word: the private array's count is ours to read.
    @usableFromInline
    @inline(never)
    static func traceTerminal(_ event: Event, raw: UnsafeMutablePointer<flare_core>) {
        let kind = _traceKind(event)
        if flare_trace_event_sent_on() { flare_trace_event_sent(raw, kind) }
        if flare_trace_signal_ended_on() { flare_trace_signal_ended(raw, kind, raw.pointee.count) }
    }
}
