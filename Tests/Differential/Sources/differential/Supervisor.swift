// The supervisor: runs the cases in child processes, so that a crash in
// either library (a precondition, an exclusivity violation) costs one case,
// not the run. A crash in ReactiveSwift makes the case undefined there; a
// crash in Flare is a difference, shrunk by running candidates one per
// process.
import DiffModel
import Foundation

struct Supervisor {
    let options: Options
    let started = Date()
    let executable = URL(fileURLWithPath: CommandLine.arguments[0]).path

    /// The child's standard error goes to a file: a library's crash report
    /// is long, and only its first lines are shown (for a crash in Flare).
    var stderrPath: String { NSTemporaryDirectory() + "differential-\(getpid()).stderr" }

    func runChild(_ args: [String]) -> Int32 {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = args
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        p.standardError = FileHandle(forWritingAtPath: stderrPath)
        try! p.run()
        p.waitUntilExit()
        return p.terminationStatus
    }

    func childStderrHead(_ lines: Int) -> String {
        let text = (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").prefix(lines).joined(separator: "\n")
    }

    /// Whether `program` differs (or crashes Flare), run in its own process.
    func failsInChild(_ program: Program) -> Bool {
        let path = NSTemporaryDirectory() + "differential-\(getpid()).json"
        try! JSONEncoder().encode(program).write(to: URL(fileURLWithPath: path))
        let status = runChild(["--program", path])
        return status == 1 || status == 70
    }

    func crashReport(seed: UInt64, index: Int, library: String, phase: String) {
        let cs = caseSeed(seed, index)
        let program = Generator.program(seed: cs)
        if phase == "shrink" || library == "Flare" {
            let small = shrink(program, stillFails: failsInChild)
            let path = NSTemporaryDirectory() + "differential-\(getpid())-min.json"
            try! JSONEncoder().encode(small).write(to: URL(fileURLWithPath: path))
            say("\n==== DIFFERENCE seed \(seed) #\(index): reproduce with --case \(hex(cs)) ====")
            if library == "Flare" { say("what: Flare crashes (\(phase == "run" ? "the case" : "a shrunk candidate"))") }
            say("--- minimal program:\n```swift\n\(Snippet.swift(small))\n```")
            say("--- its run (a crash ends it):")
            _ = runChild(["--program", path, "--verbose"])
        }
    }

    /// Cases that differed (for `--write-open`), and listed ones that no
    /// longer do.
    final class Tally { var differing: [(UInt64, String)] = []; var settled: [UInt64] = [] }
    let tally = Tally()
    var differing: [(UInt64, String)] { tally.differing }
    var settled: [UInt64] { tally.settled }

    /// An outcome's key, a difference of a listed case counted as open.
    func classify(_ key: String, _ cs: UInt64) -> String {
        let listed = options.open.contains(cs)
        if key.hasPrefix("DIFFERENT") {
            tally.differing.append((cs, String(key.dropFirst("DIFFERENT: ".count))))
            if listed { return "open (listed in \(URL(fileURLWithPath: options.openPath!).lastPathComponent)): " + key.dropFirst("DIFFERENT: ".count) }
        } else if listed, key == "same" {
            tally.settled.append(cs)
        }
        return key
    }

    func run() {
        let seeds = options.seeds.isEmpty ? [1] : options.seeds
        let perSeed = options.budget / Double(seeds.count)
        let results = NSTemporaryDirectory() + "differential-\(getpid()).results"
        var counts: [String: Int] = [:]
        var covered = Set<String>()
        var ran = 0
        var reports = 0
        for (k, seed) in seeds.enumerated() {
            let deadline = perSeed.isFinite
                ? started.addingTimeInterval(perSeed * Double(k + 1)).timeIntervalSince1970 : Double.infinity
            var from = options.from   // `--from N`: resume a seed at case N
            while from < options.count && Date().timeIntervalSince1970 < deadline {
                try? FileManager.default.removeItem(atPath: results)
                var args = ["--child", results, "--seed", String(seed), "--from", String(from),
                            "--max-reports", String(max(0, options.maxReports - reports))]
                if let path = options.openPath { args += ["--open", path] }
                if options.count != Int.max { args += ["--count", String(options.count)] }
                if deadline.isFinite { args += ["--deadline", String(deadline)] }
                let status = runChild(args)
                let text = (try? String(contentsOfFile: results, encoding: .utf8)) ?? ""
                var next = from
                var crashed = false
                for line in text.split(separator: "\n") {
                    let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
                    if f[0] == "CRASH" {
                        let index = Int(f[2])!
                        let library = f[1], phase = f[3]
                        crashed = true
                        if phase == "run" {
                            ran += 1
                            let key = library == "Flare" ? "DIFFERENT: Flare crashes" : "discarded: ReactiveSwift crashes"
                            counts[classify(key, caseSeed(seed, index)), default: 0] += 1
                            Coverage.add(Generator.program(seed: caseSeed(seed, index)), to: &covered)
                        }
                        if library == "Flare" && phase == "run" {
                            say("\nFlare crashed on seed \(seed) #\(index) (case \(hex(caseSeed(seed, index)))):\n\(childStderrHead(4))")
                        }
                        if (library == "Flare" || phase == "shrink") && reports < options.maxReports {
                            reports += 1
                            crashReport(seed: seed, index: index, library: library, phase: phase)
                        }
                        next = index + 1
                    } else {
                        let index = Int(f[0])!
                        ran += 1
                        let key = classify(f[1], caseSeed(seed, index))
                        counts[key, default: 0] += 1
                        if key.hasPrefix("DIFFERENT") {
                            reports += 1
                            // Hangs are rare and not shrunk in the child: always listed.
                            if reports > options.maxReports && (reports <= options.maxReports + 100 || f[1].contains("hangs")) {
                                say("(not shown) seed \(seed) #\(index) case \(hex(caseSeed(seed, index))): \(f[1])")
                            }
                        }
                        Coverage.add(Generator.program(seed: caseSeed(seed, index)), to: &covered)
                        next = index + 1
                    }
                }
                if !crashed && status != 0 {
                    say("child exited with status \(status) after case \(next - 1); stopping this seed")
                    counts["DIFFERENT: tester child failed", default: 0] += 1
                    break
                }
                if !crashed { from = next; break }
                from = next
            }
            say("seed \(seed): cases 0..<\(from)")
        }
        try? FileManager.default.removeItem(atPath: results)
        if let path = options.writeOpen {
            let header = """
                # The open list (README.md, "The open list"): cases of the fixed seeds that
                # still differ from ReactiveSwift, one case seed a line. Written by
                # --write-open; take a line off once its case is fixed or named.

                """
            let text = header + differing.map { "\(hex($0.0))  # \($0.1)" }.joined(separator: "\n")
            try! (text + "\n").write(toFile: path, atomically: true, encoding: .utf8)
            say("wrote \(differing.count) differing cases to \(path)")
        }
        if !settled.isEmpty {
            say("listed as open but now the same (remove them from the open list):")
            for cs in settled { say("  \(hex(cs))") }
        }
        say("\n\(ran) pipelines in \(Int(Date().timeIntervalSince(started))) s")
        for (k, v) in counts.sorted(by: { $0.key < $1.key }) { say("  \(k): \(v)") }
        if let root = options.coverageRoot { say(Coverage.report(covered: covered, flareSources: root, reactiveSwiftSources: options.rsSources)) }
        let failed = counts.keys.contains { $0.hasPrefix("DIFFERENT") }
        say(failed ? "FAILED: differences neither on the named list nor open"
            : "OK: no difference outside the named list\(options.open.isEmpty ? "" : " and the open cases")")
        if failed && options.reportOnly { say("(report only: not a failure)") }
        exit(failed && !options.reportOnly ? 1 : 0)
    }
}
