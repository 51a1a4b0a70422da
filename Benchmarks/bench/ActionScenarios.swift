import Flare
import MallocCounter

// MARK: Actions

/// The action case's comparison column: its work started without the action.
let producerAloneName = "producer alone"

/// `apply().start()` of an action whose work is a one-value producer, with
/// one observer on the start: ns and heap allocations per execution (the
/// start, the enabled check, the value, the completion, the action enabled
/// again, and releasing the run), against the same producer started alone.
struct ActionExecution {
    static let metrics = [
        Metric(name: "ns/execution", unit: "ns", lowerIsBetter: true),
        Metric(name: "allocs/execution", unit: "", lowerIsBetter: true),
    ]

    func action(amount executions: Int) -> Measurement {
        let sink = Sink.make()
        defer { sink.free() }
        let work = SignalProducer<Int, Never>(value: 1)
        let action = Action<Void, Int, Never> { work }
        let observer = Signal<Int, ActionError<Never>>.Observer { event in
            if case let .value(v) = event { sink.add(v) }
        }
        let applied = action.apply()
        return measure(executions, sink: sink) { applied.start(observer) }
    }

    func producer(amount executions: Int) -> Measurement {
        let sink = Sink.make()
        defer { sink.free() }
        let work = SignalProducer<Int, Never>(value: 1)
        let observer = Signal<Int, Never>.Observer { event in
            if case let .value(v) = event { sink.add(v) }
        }
        return measure(executions, sink: sink) { work.start(observer) }
    }

    private func measure(_ executions: Int, sink: Sink, _ execute: () -> Disposable) -> Measurement {
        for _ in 0..<64 { _ = execute() }
        // Timed without the malloc counter (two atomic adds per allocation
        // and per free); allocations counted over a separate loop.
        let t0 = now()
        for _ in 0..<executions { _ = execute() }
        let t1 = now()
        let counted = 256
        mc_set_counting(1)
        let a0 = mc_allocations()
        for _ in 0..<counted { _ = execute() }
        let a1 = mc_allocations()
        mc_set_counting(0)
        check(sink.total == executions + 64 + counted, "action execution lost values")
        return Measurement(elapsed: t1 - t0, values: [Double(t1 - t0) / Double(executions), Double(a1 - a0) / Double(counted)])
    }
}

func runActionScenarios(_ runner: Runner) {
    guard runner.options.includes("action") else { return }
    progress("actions")
    let execution = ActionExecution()
    runner.measure(scenario: "action", title: "action: apply().start() of a one-value producer, one observer",
                   caseName: "execution", metrics: ActionExecution.metrics,
                   entries: [Entry(name: flareName) { execution.action(amount: $0) },
                             Entry(name: producerAloneName) { execution.producer(amount: $0) }],
                   initialAmount: 1024)
}
