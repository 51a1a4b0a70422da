// The differential tester's driver: generates programs, runs each on
// ReactiveSwift and on Flare, compares the traces, shrinks a failing program
// and prints it as a Swift snippet. See README.md.
import DiffModel
import FlareInterpreter
import Foundation
import LockWatch
import ReactiveSwiftInterpreter

struct Options {
    var seeds: [UInt64] = []
    var count = Int.max
    var budget: Double = .infinity
    var cases: [UInt64] = []
    var verbose = false
    var printOnly = false
    var coverageRoot: String?
    var rsSources: String?
    var maxReports = 20
    /// Cases known to differ, being fixed (`--open FILE`): counted, not
    /// reported, not a failure. Fixed seeds and counts make them the same
    /// cases at every run of the same generator.
    var open: Set<UInt64> = []
    var openPath: String?
    /// Where to write the cases that differed (`--write-open FILE`), the
    /// listed ones included: the open list after a change of generator.
    var writeOpen: String?
    /// Report differences, exit 0 (`--report-only`): for a seed whose cases
    /// the open list cannot name (one from the clock) while the list is
    /// not empty.
    var reportOnly = false
    // Internal: a child process runs cases from..<count of seeds[0] until
    // `deadline` and records each outcome in `child` (see Supervisor).
    var child: String?
    var from = 0
    var deadline: Double = .infinity
    // Internal: run one program (JSON) and exit 1 if it differs.
    var program: String?
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
            say("time-derived seed: \(s)  (reproduce with --seed \(s))")
            o.seeds.append(s)
        case "--count": o.count = Int(value(a))!
        case "--budget": o.budget = Double(value(a))!
        case "--case": o.cases.append(number(value(a)))
        case "--verbose": o.verbose = true
        case "--print": o.printOnly = true
        case "--coverage": o.coverageRoot = value(a)
        case "--rs-sources": o.rsSources = value(a)
        case "--max-reports": o.maxReports = Int(value(a))!
        case "--open":
            let path = value(a)
            o.openPath = path
            let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? { fatalError("cannot read \(path)") }()
            for line in text.split(separator: "\n") {
                let word = line.split(separator: " ").first.map(String.init) ?? ""
                if word.hasPrefix("0x") { o.open.insert(number(word)) }
            }
        case "--write-open": o.writeOpen = value(a)
        case "--report-only": o.reportOnly = true
        case "--child": o.child = value(a)
        case "--from": o.from = Int(value(a))!
        case "--deadline": o.deadline = Double(value(a))!
        case "--program": o.program = value(a)
        default:
            say("""
            usage: differential [--seed N]... [--time-seed] [--from N] [--count N] [--budget SECONDS]
                                [--max-reports N] [--coverage FLARE_SOURCES [--rs-sources RS_SOURCES]]
                                [--open FILE] [--write-open FILE] [--report-only]
                   differential --case 0xCASE... [--verbose | --print]
            """)
            exit(2)
        }
    }
    return o
}

/// Unbuffered, so that nothing is lost when a library crashes the process.
func say(_ s: String) { FileHandle.standardOutput.write((s + "\n").data(using: .utf8)!) }

final class Box<T>: @unchecked Sendable { var value: T?; init() {} }

/// Runs `body` on its own thread; nil if it has not returned after
/// `seconds` (the thread is left blocked: a deadlock or a hang).
func withTimeout(_ seconds: Double, _ body: @escaping @Sendable () -> Trace) -> Trace? {
    let done = DispatchSemaphore(value: 0)
    let box = Box<Trace>()
    let thread = Thread {
        let signalStack = useAlternateSignalStack()
        box.value = body()
        dropAlternateSignalStack(signalStack)
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

    var key: String {
        switch self {
        case .same: return "same"
        case let .discarded(why): return "discarded: \(why)"
        case let .known(name): return "known: \(name)"
        case let .different(what): return "DIFFERENT: \(what)"
        }
    }
}

struct Result {
    var outcome: Outcome
    var rs: Trace?
    var flare: Trace?
}

// MARK: Crashes
// A library that crashes takes the process with it. Before each
// interpretation the message to leave behind is armed; the handler writes it
// to `crashFD` and exits with `crashStatus` (70: Flare, 71: ReactiveSwift).

nonisolated(unsafe) var crashFD: Int32 = -1
nonisolated(unsafe) let crashBuffer = UnsafeMutablePointer<UInt8>.allocate(capacity: 512)
nonisolated(unsafe) var crashLength = 0
nonisolated(unsafe) var crashStatus: Int32 = 70

func arm(_ library: String, index: Int, phase: String) {
    let bytes = Array("CRASH\t\(library)\t\(index)\t\(phase)\n".utf8.prefix(511))
    bytes.withUnsafeBufferPointer { crashBuffer.update(from: $0.baseAddress!, count: bytes.count) }
    crashLength = bytes.count
    crashStatus = library == "Flare" ? 70 : 71
}

func installCrashHandlers() {
    for sig in [SIGABRT, SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGFPE] {
        // On the thread's alternate stack (`useAlternateSignalStack`): a
        // library whose recursion overflows the stack crashes with SIGSEGV
        // on the guard page, where the handler itself has no stack left.
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in
            if crashFD >= 0 { _ = write(crashFD, crashBuffer, crashLength) }
            _exit(crashStatus)
        }
        action.sa_flags = Int32(SA_ONSTACK)
        sigaction(sig, &action, nil)
    }
}

/// Gives the calling thread an alternate stack for the crash handlers
/// (`sigaltstack` is per thread); returns it for `dropAlternateSignalStack`.
func useAlternateSignalStack() -> UnsafeMutableRawPointer {
    let size = 1 << 16
    let memory = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
    var stack = stack_t()
    stack.ss_sp = memory
    stack.ss_size = size
    stack.ss_flags = 0
    sigaltstack(&stack, nil)
    return memory
}

/// Turns the calling thread's alternate stack off and frees it.
func dropAlternateSignalStack(_ memory: UnsafeMutableRawPointer) {
    var off = stack_t()
    off.ss_flags = Int32(SS_DISABLE)
    sigaltstack(&off, nil)
    memory.deallocate()
}

nonisolated(unsafe) var currentIndex = 0
nonisolated(unsafe) var currentPhase = "run"

func check(_ program: Program) -> Result {
    arm("ReactiveSwift", index: currentIndex, phase: currentPhase)
    let reentered = Box<Bool>()
    guard let rs = withTimeout(5, {
        let before = lock_watch_reentries()
        let trace = ReactiveSwiftInterpreter.interpret(program)
        reentered.value = lock_watch_reentries() != before
        return trace
    }) else {
        return Result(outcome: .discarded("ReactiveSwift hangs (deadlock)"), rs: nil, flare: nil)
    }
    // Undefined in ReactiveSwift (LockWatch/include/lock_watch.h): its debug
    // build asserts, Apple platforms crash, Linux release delivers nested.
    if reentered.value == true {
        return Result(outcome: .discarded("ReactiveSwift reenters a lock"), rs: rs, flare: nil)
    }
    if rs.runaway { return Result(outcome: .discarded("ReactiveSwift runs away"), rs: rs, flare: nil) }
    arm("Flare", index: currentIndex, phase: currentPhase)
    guard let flare = withTimeout(5, { FlareInterpreter.interpret(program) }) else {
        // A feedback loop through a property's producer, cut short in
        // ReactiveSwift by the change its producer missed.
        if rs.missedChangeAt != nil { return Result(outcome: .known(KnownDifferences.missedChange), rs: rs, flare: nil) }
        return Result(outcome: .different("Flare hangs"), rs: rs, flare: nil)
    }
    if rs.lines == flare.lines && !flare.runaway { return Result(outcome: .same, rs: rs, flare: flare) }
    if let name = KnownDifferences.match(program, rs: rs, flare: flare) {
        return Result(outcome: .known(name), rs: rs, flare: flare)
    }
    // ReactiveSwift's fused steps: the same program with a signal after
    // each step that can end a run agrees with Flare.
    if !flare.runaway, KnownDifferences.mayEndFused(program) {
        // A crash here is ReactiveSwift's (the case is then undefined).
        arm("ReactiveSwift", index: currentIndex, phase: currentPhase)
        if let unfused = withTimeout(5, { ReactiveSwiftInterpreter.interpret(program, unfusingEnds: true) }),
           unfused.lines == flare.lines {
            return Result(outcome: .known(KnownDifferences.fusedEnd), rs: rs, flare: flare)
        }
    }
    return Result(outcome: .different(flare.runaway ? "Flare runs away" : "traces differ"), rs: rs, flare: flare)
}

func isNewDifference(_ program: Program) -> Bool {
    if case .different = check(program).outcome { return true }
    return false
}

func hex(_ v: UInt64) -> String { "0x" + String(v, radix: 16) }

func printReport(_ small: Program, _ r: Result, header: String) {
    say("\n==== DIFFERENCE \(header) ====")
    if case let .different(what) = r.outcome { say("what: \(what)") }
    say("--- minimal program:")
    say("```swift\n\(Snippet.swift(small))\n```")
    say(Compare.sideBySide(rs: r.rs?.lines ?? [], flare: r.flare?.lines ?? ["(hang)"]))
}

func report(_ program: Program, caseSeed: UInt64, origin: String, hangs: Bool) {
    currentPhase = "shrink"
    defer { currentPhase = "run" }
    // A hang costs the timeout per candidate: shown as generated.
    let small = hangs ? program : shrink(program, stillFails: isNewDifference)
    printReport(small, check(small), header: "\(origin): reproduce with --case \(hex(caseSeed))")
}

/// Runs one case; returns its outcome.
@MainActor func runCase(_ cs: UInt64, origin: String, reportIt: Bool) -> Outcome {
    let program = Generator.program(seed: cs)
    let result = check(program)
    if case let .different(what) = result.outcome, reportIt, !options.open.contains(cs) {
        report(program, caseSeed: cs, origin: origin, hangs: what.contains("hangs"))
    }
    if options.verbose {
        say("case \(hex(cs)): \(result.outcome)")
        if case .same = result.outcome {} else {
            say(Snippet.swift(program))
            say(Compare.sideBySide(rs: result.rs?.lines ?? [], flare: result.flare?.lines ?? []))
        }
    }
    return result.outcome
}

// MARK: Modes

let options = parse()
installCrashHandlers()

if options.printOnly {
    for cs in options.cases { say(Snippet.swift(Generator.program(seed: cs))) }
    exit(0)
}

if let path = options.program {
    // One program, for a supervisor shrinking a crash: exit 1 if it differs.
    let program = try! JSONDecoder().decode(Program.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
    let r = check(program)
    if options.verbose { printReport(program, r, header: "program \(path)") }
    if case .different = r.outcome { exit(1) }
    exit(0)
}

if !options.cases.isEmpty {
    var failed = false
    for cs in options.cases {
        let outcome = runCase(cs, origin: "case \(hex(cs))", reportIt: true)
        say("case \(hex(cs)): \(outcome.key)")
        if case .different = outcome { failed = true }
    }
    exit(failed ? 1 : 0)
}

if let results = options.child {
    // A child: cases from..<count of one seed, each outcome appended to
    // `results` as "index<TAB>key"; a crash leaves a CRASH line instead.
    let fd = open(results, O_WRONLY | O_APPEND | O_CREAT, 0o644)
    crashFD = fd
    let seed = options.seeds[0]
    var reports = 0
    var i = options.from
    while i < options.count && Date().timeIntervalSince1970 < options.deadline {
        currentIndex = i
        let cs = caseSeed(seed, i)
        let outcome = runCase(cs, origin: "seed \(seed) #\(i)", reportIt: reports < options.maxReports)
        // Open cases are not reported, so they do not use up the reports.
        if case .different = outcome, !options.open.contains(cs) { reports += 1 }
        let line = Array("\(i)\t\(outcome.key)\n".utf8)
        _ = line.withUnsafeBufferPointer { write(fd, $0.baseAddress!, $0.count) }
        i += 1
    }
    close(fd)
    exit(0)
}

Supervisor(options: options).run()
