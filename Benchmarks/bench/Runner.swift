#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One run of one contender: how long the timed part took and the metric
/// values it yielded (in the order of the case's metrics).
struct Measurement {
    var elapsed: UInt64
    var values: [Double]
}

struct Metric {
    let name: String
    let unit: String
    let lowerIsBetter: Bool
}

/// A contender's runner for one case: given a work amount (events, samples…),
/// runs once and measures.
struct Entry {
    let name: String
    let run: (Int) -> Measurement
}

/// A scenario body that can run with any contender; `allContenders` calls it
/// with each concrete type, so every run is specialized.
protocol ContenderBody {
    func run<C: SignalContender>(_ contender: C.Type, amount: Int) -> Measurement
}

/// The contenders in table order. The limit, where it applies, is appended
/// by the scenario.
func allContenders<B: ContenderBody>(_ body: B) -> [Entry] {
    [
        Entry(name: FlareContender.name) { body.run(FlareContender.self, amount: $0) },
        Entry(name: LockedContender.name) { body.run(LockedContender.self, amount: $0) },
        Entry(name: SnapshotContender.name) { body.run(SnapshotContender.self, amount: $0) },
    ]
}

/// `allContenders`, with Flare without a queue limit after Flare: for the
/// scenarios where the limit matters.
func allContendersWithUnbounded<B: ContenderBody>(_ body: B) -> [Entry] {
    var entries = allContenders(body)
    entries.insert(Entry(name: FlareUnboundedContender.name) { body.run(FlareUnboundedContender.self, amount: $0) }, at: 1)
    return entries
}

let flareName = FlareContender.name
let limitName = "Limit"
let contenderOrder = [FlareContender.name, FlareUnboundedContender.name, LockedContender.name, SnapshotContender.name, flareSignalName, producerAloneName, mutexPropertyName, asyncStreamName, limitName]

struct Options {
    var quick = false
    var filter: [String] = []
    var jsonPath: String?
    var svgPath: String?
    var markdownPaths: [String] = []
    var repetitions = 9
    /// Target duration of one timed run when the amount is calibrated.
    var targetNanos: UInt64 = 80_000_000

    static func parse(_ arguments: [String]) -> Options {
        var o = Options()
        var i = 0
        func value() -> String {
            i += 1
            guard i < arguments.count else { usage("missing value for \(arguments[i - 1])") }
            return arguments[i]
        }
        var reps: Int?
        while i < arguments.count {
            switch arguments[i] {
            case "--quick": o.quick = true
            case "--filter": o.filter.append(value().lowercased())
            case "--json": o.jsonPath = value()
            case "--svg": o.svgPath = value()
            case "--markdown": o.markdownPaths.append(value())
            case "--reps":
                guard let r = Int(value()), r > 0 else { usage("--reps needs a positive number") }
                reps = r
            case "-h", "--help": usage(nil)
            default: usage("unknown argument \(arguments[i])")
            }
            i += 1
        }
        if o.quick {
            o.repetitions = 3
            o.targetNanos = 10_000_000
        }
        if let reps { o.repetitions = reps }
        return o
    }

    func includes(_ scenario: String) -> Bool {
        filter.isEmpty || filter.contains { scenario.lowercased().contains($0) }
    }
}

func usage(_ error: String?) -> Never {
    if let error { progress("bench: \(error)") }
    progress("""
    usage: swift run -c release bench [--quick] [--filter NAME]... [--json FILE] [--svg FILE]
                                      [--markdown FILE]... [--reps N]
      --quick        fewer repetitions and shorter runs (under 20 s)
      --filter NAME  only scenarios whose name contains NAME (repeatable):
                     \((["apps"] + scenarioNames).joined(separator: ", "))
      --json FILE    also write every sample as JSON to FILE
      --svg FILE     also draw the run as an SVG chart in FILE (app
                     scenarios, fan-out, chains, disposal latency)
      --markdown FILE
                     also write the run's tables into FILE's generated
                     blocks (<!-- bench:begin --> … <!-- bench:end -->: every
                     table; <!-- bench-summary:begin --> … :end -->: the
                     headline table), each with the command, commit, machine
                     and date; a file with neither gets a bench block
                     appended (repeatable)
      --reps N       repetitions per contender (default 9, quick 3)
    usage: swift run -c release bench --selftest
      checks the mutex baselines keep the contracts the comparison relies on
    """)
    exit(error == nil ? 0 : 2)
}

/// One row group of the report: a case of a scenario, with one `Stats` per
/// contender for each metric.
struct CaseResult {
    let scenario: String
    let title: String
    let caseName: String
    let metrics: [Metric]
    /// stats[metric index][contender name]
    var stats: [[String: Stats]]
}

final class Runner {
    let options: Options
    var results: [CaseResult] = []

    init(options: Options) { self.options = options }

    /// Measures one case. With `calibrated`, the first runs double the amount
    /// from `initialAmount` until a run takes an eighth of the target, then scale it to
    /// the target duration (these runs are the warm-up); otherwise one
    /// untimed run of `initialAmount` warms up. Then the contenders run
    /// interleaved, `repetitions` times, in an order that rotates each round
    /// so that drift and position effects hit all alike.
    func measure(
        scenario: String, title: String, caseName: String, metrics: [Metric],
        entries: [Entry], initialAmount: Int, calibrated: Bool = true, maxAmount: Int = 1 << 40
    ) {
        progress("  \(scenario) \(caseName)")
        // Scale only from a run long enough that thread start-up or one
        // preemption cannot dominate it.
        let calibrationFloor = max(1_000_000, options.targetNanos / 8)
        var amounts: [Int] = []
        for entry in entries {
            var amount = initialAmount
            if calibrated {
                while true {
                    let m = entry.run(amount)
                    if m.elapsed >= calibrationFloor || amount >= maxAmount {
                        let scaled = Double(amount) * Double(options.targetNanos) / Double(max(m.elapsed, 1))
                        // At most 16x the calibrating run: a run that was
                        // fast by accident (e.g. a sender finishing before its
                        // peer started) must not turn into a minutes-long one.
                        amount = max(1, min(maxAmount, amount * 16, Int(scaled)))
                        break
                    }
                    amount = min(maxAmount, amount * 2)
                }
            } else {
                _ = entry.run(amount)
            }
            amounts.append(amount)
        }
        var samples = Array(repeating: Array(repeating: [Double](), count: metrics.count), count: entries.count)
        for round in 0..<options.repetitions {
            for k in 0..<entries.count {
                let e = (k + round) % entries.count
                let m = entries[e].run(amounts[e])
                for (mi, v) in m.values.enumerated() { samples[e][mi].append(v) }
            }
        }
        var stats = Array(repeating: [String: Stats](), count: metrics.count)
        for (e, entry) in entries.enumerated() {
            for mi in metrics.indices { stats[mi][entry.name] = Stats(samples[e][mi]) }
        }
        results.append(CaseResult(scenario: scenario, title: title, caseName: caseName, metrics: metrics, stats: stats))
    }
}

/// Stops the bench if a contender lost or duplicated events: a figure from a
/// broken run would be meaningless.
func check(_ condition: Bool, _ what: @autoclosure () -> String) {
    if !condition {
        progress("bench: check failed: \(what())")
        exit(1)
    }
}

/// 1 + 2 + … + n, wrapping.
func triangular(_ n: Int) -> Int {
    n % 2 == 0 ? (n / 2) &* (n &+ 1) : n &* ((n &+ 1) / 2)
}
