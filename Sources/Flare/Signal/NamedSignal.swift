extension Signal {
    /// Names this signal for tracing, as ReactiveCocoa's `setNameWithFormat:`
    /// did: Flare's probes (the `flare` USDT provider, read by `bpftrace`,
    /// `perf` or SystemTap on a running process) report every event,
    /// observer and end of the signal with this name. See
    /// <doc:Tracing>.
    ///
    /// Naming changes nothing else: no operator is added, events are
    /// delivered as before, and while no tracer listens the name costs
    /// nothing per event. The name is copied once, here; naming again
    /// replaces it (the probes report the latest name).
    ///
    /// - Parameters:
    ///   - name: What the probes report for this signal.
    ///   - describe: How the `value_sent` probe describes a value; by
    ///     default `String(describing:)`. Called only while a tracer is
    ///     attached to `value_sent`, on the delivering thread.
    /// - Returns: This signal, so that a name can end a chain.
    @discardableResult
    public func named(_ name: String, describe: ((Value) -> String)? = nil) -> Signal<Value, Error> {
        _core.setTraceLabel(name, describe: describe)
        return self
    }
}
