// The differential tester's driver: generates programs, runs each on
// ReactiveSwift and on Flare, compares the traces, shrinks a failing program
// and prints it as a Swift snippet. See README.md.
import DiffModel
import FlareInterpreter
import Foundation
import ReactiveSwiftInterpreter

struct Options {
    var seeds: [UInt64] = []
    var count = Int.max
    var budget: Double = .infinity
    var cases: [UInt64] = []
    var verbose = false
    var coverageRoot: String?
    var maxReports = 20
}

func parse() -> Options {
    var o = Options()
    var args = CommandLine.arguments.dropFirst()
    func value(_ flag: String) -> String {
        guard let v = args.popFirst() else { fatalError("\(flag) needs a value") }
        return v
    }
    func number(_ s: String) -> UInt64 {
        if s.hasPrefix("0x"), let v = UInt64(s.dropFirst(2), radix: 16) { return v }
        guard let v = UInt64(s) else { fatalError("not a number: \(s)") }
        return v
    }
    while let a = args.popFirst() {
        switch a {
        case "--seed": o.seeds.append(number(value(a)))
        case "--time-seed":
            let s = UInt64(Date().timeIntervalSince1970 * 1000)
            print("time-derived seed: \(s)  (reproduce with --seed \(s))")
            o.seeds.append(s)
        case "--count": o.count = Int(value(a))!
        case "--budget": o.budget = Double(value(a))!
        case "--case": o.cases.append(number(value(a)))
        case "--verbose": o.verbose = true
        case "--coverage": o.coverageRoot = value(a)
        case "--max-reports": o.maxReports = Int(value(a))!
        default:
            print("""
            usage: differential [--seed N]... [--time-seed] [--count N] [--budget SECONDS]
                                [--case 0xCASE]... [--verbose] [--coverage FLARE_SOURCES] [--max-reports N]
            """)
            exit(2)
        }
    }
    return o
}

final class Box<T>: @unchecked Sendable { var value: T?; init() {} }

/// Runs `body` on its own thread; nil if it has not returned after
/// `seconds` (the thread is left blocked: a deadlock or a hang).
func withTimeout(_ seconds: Double, _ body: @escaping @Sendable () -> Trace) -> Trace? {
    let done = DispatchSemaphore(value: 0)
    let box = Box<Trace>()
    let thread = Thread {
        box.value = body()
        done.signal()
    }
    thread.stackSize = 64 << 20
    thread.start()
    if done.wait(timeout: .now() + seconds) == .timedOut { return nil }
    return box.value
}

enum Outcome {
    case same
    case discarded(String)          // undefined in ReactiveSwift: not compared
    case known(String)              // on the named list
    case different(String)
}

struct Result {
    var outcome: Outcome
    var rs: Trace?
    var flare: Trace?
}

func check(_ program: Program) -> Result {
    guard let rs = withTimeout(5, { ReactiveSwiftInterpreter.interpret(program) }) else {
        return Result(outcome: .discarded("ReactiveSwift hangs (deadlock)"), rs: nil, flare: nil)
    }
    if rs.runaway { return Result(outcome: .discarded("ReactiveSwift runs away"), rs: rs, flare: nil) }
    guard let flare = withTimeout(5, { FlareInterpreter.interpret(program) }) else {
        return Result(outcome: .different("Flare hangs"), rs: rs, flare: nil)
    }
    if rs.lines == flare.lines && !flare.runaway { return Result(outcome: .same, rs: rs, flare: flare) }
    if let name = KnownDifferences.match(program, rs: rs, flare: flare) {
        return Result(outcome: .known(name), rs: rs, flare: flare)
    }
    return Result(outcome: .different(flare.runaway ? "Flare runs away" : "traces differ"), rs: rs, flare: flare)
}

func isNewDifference(_ program: Program) -> Bool {
    if case .different = check(program).outcome { return true }
    return false
}

@MainActor func report(_ program: Program, _ result: Result, caseSeed: UInt64, origin: String) {
    print("\n==== DIFFERENCE \(origin) case 0x\(String(caseSeed, radix: 16)) ====")
    let small = shrink(program, stillFails: isNewDifference)
    let r = check(small)
    if case let .different(what) = r.outcome { print("what: \(what)") }
    print("--- minimal program (reproduce: differential --case 0x\(String(caseSeed, radix: 16))):")
    print(Snippet.swift(small))
    print(Compare.sideBySide(rs: r.rs?.lines ?? [], flare: r.flare?.lines ?? ["(hang)"]))
}

let options = parse()
let started = Date()
var counts: [String: Int] = [:]
var ran = 0
var reports = 0
var covered = Set<String>()

@MainActor func runCase(_ cs: UInt64, origin: String) {
    let program = Generator.program(seed: cs)
    let result = check(program)
    ran += 1
    Coverage.add(program, to: &covered)
    switch result.outcome {
    case .same: counts["same", default: 0] += 1
    case let .discarded(why): counts["discarded: \(why)", default: 0] += 1
    case let .known(name): counts["known: \(name)", default: 0] += 1
    case let .different(what):
        counts["DIFFERENT: \(what)", default: 0] += 1
        if reports < options.maxReports {
            reports += 1
            report(program, result, caseSeed: cs, origin: origin)
        }
    }
    if options.verbose {
        print("case 0x\(String(cs, radix: 16)): \(result.outcome)")
        if case .same = result.outcome {} else {
            print(Snippet.swift(program))
            print(Compare.sideBySide(rs: result.rs?.lines ?? [], flare: result.flare?.lines ?? []))
        }
    }
}

for cs in options.cases { runCase(cs, origin: "given") }
if options.cases.isEmpty {
    let seeds = options.seeds.isEmpty ? [1] : options.seeds
    // The budget and count are shared evenly between the seeds.
    let perSeed = options.budget / Double(seeds.count)
    for (k, seed) in seeds.enumerated() {
        let deadline = started.addingTimeInterval(perSeed * Double(k + 1))
        var i = 0
        while i < options.count && Date() < deadline {
            runCase(caseSeed(seed, i), origin: "seed \(seed) #\(i)")
            i += 1
        }
        print("seed \(seed): \(i) pipelines")
    }
}

print("\n\(ran) pipelines in \(Int(Date().timeIntervalSince(started))) s")
for (k, v) in counts.sorted(by: { $0.key < $1.key }) { print("  \(k): \(v)") }
if let root = options.coverageRoot { Coverage.report(covered: covered, flareSources: root) }
let failed = counts.keys.contains { $0.hasPrefix("DIFFERENT") }
print(failed ? "FAILED: differences not on the named list" : "OK: no difference outside the named list")
exit(failed ? 1 : 0)
