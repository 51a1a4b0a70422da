import MallocCounter
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// The scenarios by name, and the plan that runs them in order; each
// scenario's body is in the file of its subject.

let scenarioNames = ["fanout", "chain", "contention", "queued", "combine", "combine-arity", "churn", "latency", "scaling", "memory", "producer", "flatten", "property", "async", "action"]

// MARK: The plan

func runAll(_ runner: Runner) {
    let quick = runner.options.quick
    if runner.options.includes("fanout") {
        progress("fan-out")
        for n in [1, 10, 100, 1000] {
            let body = FanOut(observers: n)
            runner.measure(scenario: "fanout", title: "fan-out: one sender, N observers", caseName: "N=\(n)",
                           metrics: FanOut.metrics,
                           entries: allContenders(body) + [Entry(name: limitName) { body.limit(events: $0) }],
                           initialAmount: max(1, 4096 / n))
        }
    }
    if runner.options.includes("chain") {
        progress("chains")
        for depth in [1, 3, 6] {
            let body = Chain(depth: depth)
            runner.measure(scenario: "chain", title: "chains: map→filter→map… observed at the end", caseName: "depth=\(depth)",
                           metrics: Chain.metrics,
                           entries: allContenders(body) + [Entry(name: limitName) { body.limit(events: $0) }],
                           initialAmount: 1024)
        }
    }
    if runner.options.includes("contention") {
        progress("contention")
        for senders in [2, 4, 8] {
            let body = Contention(senders: senders)
            runner.measure(scenario: "contention", title: "contention: N threads sending, 10 observers", caseName: "\(senders) senders",
                           metrics: Contention.metrics,
                           entries: allContendersWithUnbounded(body) + [Entry(name: limitName) { body.limit(duration: $0) }],
                           initialAmount: Int(runner.options.targetNanos), calibrated: false)
        }
    }
    if runner.options.includes("queued") {
        progress("queued sends")
        runner.measure(scenario: "queued", title: "queued sends: 64 sent from inside an observer, per event", caseName: "reentrant",
                       metrics: Queued.metrics, entries: allContendersWithUnbounded(Queued()),
                       initialAmount: 4096)
    }
    if runner.options.includes("combine") {
        progress("combine")
        for op in [Combine.Operator.merge, .combineLatest] {
            runner.measure(scenario: "combine", title: "combining: 2 threads sending to 2 inputs, 10 observers on the output",
                           caseName: op.rawValue, metrics: Combine.metrics, entries: allContenders(Combine(op: op)),
                           initialAmount: Int(runner.options.targetNanos), calibrated: false)
        }
    }
    if runner.options.includes("churn") {
        progress("churn")
        // As fast as each contender lets the churning thread go, then at a
        // pace that every contender about sustains (flat out, the mutex
        // baselines' churners manage 20k to 400k pairs/s here), so that the
        // senders also compare under the same churn.
        for pace in [nil, 20_000] {
            runner.measure(scenario: "churn", title: "churn: send to 100 observers while another thread observes+disposes",
                           caseName: pace.map { "\($0 / 1000)k pairs/s" } ?? "flat out",
                           metrics: Churn.metrics, entries: allContenders(Churn(pace: pace)),
                           initialAmount: Int(runner.options.targetNanos), calibrated: false)
        }
    }
    if runner.options.includes("latency") {
        progress("disposal latency")
        runner.measure(scenario: "latency", title: "disposal latency while a sender fans out to 1000 observers (ns)",
                       caseName: "dispose()", metrics: DisposalLatency.metrics, entries: allContenders(DisposalLatency()),
                       initialAmount: quick ? 1000 : 5000, calibrated: false)
    }
    if runner.options.includes("scaling") {
        progress("observe/dispose scaling")
        for attached in [10, 1000, 10_000, 100_000] {
            runner.measure(scenario: "scaling", title: "observe/dispose with K observers attached", caseName: "K=\(attached)",
                           metrics: Scaling.metrics, entries: allContenders(Scaling(attached: attached)),
                           initialAmount: quick ? 300 : 1000, calibrated: false)
        }
    }
    if runner.options.includes("memory") {
        progress("memory")
        if mc_is_active() == 0 { progress("  (malloc counter inactive on this platform: memory figures read 0)") }
        for (depth, observers) in [(0, 10), (3, 1)] {
            let body = AllocationsPerEvent(chainDepth: depth, observers: observers)
            let name = depth == 0 ? "fan-out N=10" : "chain depth=3"
            runner.measure(scenario: "memory", title: "heap allocations per event sent (steady state)", caseName: name,
                           metrics: AllocationsPerEvent.metrics,
                           entries: allContenders(body) + [Entry(name: limitName) { body.limit(events: $0) }],
                           initialAmount: quick ? 10_000 : 100_000, calibrated: false)
        }
        let body = BytesPerObserver()
        runner.measure(scenario: "memory", title: "live heap bytes per attached observer", caseName: "10000 attached",
                       metrics: BytesPerObserver.metrics,
                       entries: allContenders(body) + [Entry(name: limitName) { body.limit(count: $0) }],
                       initialAmount: 10_000, calibrated: false)
    }
    runMultiInputScenarios(runner)
    runProducerScenarios(runner)
    runFlattenScenarios(runner)
    runPropertyScenarios(runner)
    runAsyncScenarios(runner)
    runActionScenarios(runner)
}
