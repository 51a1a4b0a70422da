// The named list: differences that are deliberate (README, "How Flare
// differs") or being fixed. A difference that matches an entry is counted
// under the entry's name and not reported again. Keep the list short: each
// entry names the behaviour and recognises it narrowly.

public enum KnownDifferences {
    public struct Entry: Sendable {
        public let name: String
        public let matches: @Sendable (Program, Trace, Trace) -> Bool
    }

    public static let entries: [Entry] = [
        // Deliberate (README, "How Flare differs": a detached input's hooks
        // hear its interruption). When an operator stops observing one of
        // its inputs before that input ended (zip, combineLatest, a flatten
        // or take(until:) ending), ReactiveSwift detaches the input's
        // `on(...)`/`logEvents` steps silently: only `disposed` runs.
        // Flare interrupts the input's run, so those steps also report
        // `interrupted` and `terminated` before `disposed`. Recognised when
        // the traces are equal once those reports are taken out of both,
        // Flare has more of them, and every hook with an extra one reports
        // `disposed` in both.
        Entry(name: "deliberate: a detached input's hooks hear its interruption") { _, rs, flare in
            let rsExtra = rs.lines.filter(isInterruptionReport)
            let flareExtra = flare.lines.filter(isInterruptionReport)
            guard flareExtra.count > rsExtra.count, !flare.runaway,
                  rs.lines.filter({ !isInterruptionReport($0) }) == flare.lines.filter({ !isInterruptionReport($0) })
            else { return false }
            let hooks = Set(flareExtra.compactMap(hookName)).subtracting(rsExtra.compactMap(hookName))
            return !hooks.isEmpty && hooks.allSatisfy { hook in
                rs.lines.contains { $0.contains("] \(hook) disposed") } && flare.lines.contains { $0.contains("] \(hook) disposed") }
            }
        },
        // Deliberate (docs/Differences.md, "Rounds end before the next
        // starts"). ReactiveSwift's repeat and retry start the next round
        // from inside the previous round's terminal event, so the previous
        // round's lifetime ends after the next round (all the later ones,
        // if they are synchronous) has run; Flare ends each round before
        // starting the next, in constant stack. Recognised when the traces
        // hold the same lines, and the same lines in the same order once
        // the teardown reports are taken out.
        Entry(name: "deliberate: repeat and retry end a round before starting the next") { program, rs, flare in
            guard mentions(program, ["retry(", "repeatCount("]), !flare.runaway else { return false }
            return rs.lines.sorted() == flare.lines.sorted()
                && rs.lines.filter { !isTeardown($0) } == flare.lines.filter { !isTeardown($0) }
        },
        // Deliberate (docs/Differences.md, "A race's winner ends with its
        // run"). ReactiveSwift's race takes its winner out of the
        // disposables it keeps, so disposing or ending the run leaves the
        // winner running, its lifetime never ended; Flare disposes it.
        // Recognised when ReactiveSwift's trace is Flare's without some of
        // Flare's teardown reports.
        Entry(name: "deliberate: a race's winner ends with its run") { program, rs, flare in
            guard mentions(program, ["race"]), !flare.runaway, flare.lines.count > rs.lines.count else { return false }
            var rest = rs.lines[...]
            for line in flare.lines {
                if let first = rest.first, first == line {
                    rest = rest.dropFirst()
                } else if !isTeardown(line) {
                    return false
                }
            }
            return rest.isEmpty
        },
    ]

    /// A report of a run's teardown: a start handler's lifetime ending, a
    /// hook's `disposed`, or its report of an interruption.
    static func isTeardown(_ line: String) -> Bool {
        if line.contains("] handler h"), line.hasSuffix(" ended") { return true }
        guard let name = hookName(line) else { return false }
        return isInterruptionReport(line) || line.contains("] \(name) disposed")
    }

    /// A hook's report of an interruption: `hN event interrupted`,
    /// `hN interrupted`, `hN terminated`, `log LN interrupted …`,
    /// `log LN terminated …`.
    static func isInterruptionReport(_ line: String) -> Bool {
        guard let name = hookName(line) else { return false }
        let rest = line.components(separatedBy: "] \(name) ").dropFirst().first ?? ""
        return rest == "event interrupted" || rest.hasPrefix("interrupted") || rest.hasPrefix("terminated")
    }

    /// `hN` or `log LN` of a hook's line, or nil.
    static func hookName(_ line: String) -> String? {
        guard let close = line.firstIndex(of: "]") else { return nil }
        let words = line[line.index(after: close)...].split(separator: " ")
        guard let first = words.first else { return nil }
        if first == "log", words.count > 1, words[1].hasPrefix("L") { return "log \(words[1])" }
        if first.hasPrefix("h"), first.dropFirst().allSatisfy(\.isNumber), first.count > 1 { return String(first) }
        return nil
    }


    static func mentions(_ program: Program, _ names: [String]) -> Bool {
        let text = "\(program)"
        return names.contains { text.contains($0) }
    }

    public static func match(_ program: Program, rs: Trace, flare: Trace) -> String? {
        entries.first { $0.matches(program, rs, flare) }?.name
    }
}
