extension SignalProducer {
    /// Names this producer's runs for tracing: each start reports
    /// `run_started` with this name and an id of its own, each event passing
    /// this point `event_sent` (and, while traced, `value_sent`, with
    /// `describe`'s description), and the end of the run `run_ended` with
    /// what ended it: completion, failure, interruption, or disposal. See
    /// <doc:Tracing>.
    ///
    /// Unlike `Signal.named(_:describe:)`, which labels a signal that
    /// already exists, a producer has nothing to label until it starts:
    /// naming adds one link to each run (a closure, as `on(event:)` does,
    /// made once per start). Its per-event cost while no tracer listens is
    /// one load of the probes' semaphores and an untaken branch.
    ///
    /// - Parameters:
    ///   - name: What the probes report for this producer's runs.
    ///   - describe: How `value_sent` describes a value; by default
    ///     `String(describing:)`. Called only while it is traced.
    public func named(_ name: String, describe: ((Value) -> String)? = nil) -> SignalProducer<Value, Error> {
        _lift(_NamedRunOperator(label: _RunLabel(name, describe: describe)))
    }
}
