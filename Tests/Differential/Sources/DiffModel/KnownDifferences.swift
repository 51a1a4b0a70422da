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
        // Deliberate (docs/Differences.md, "An ended run does no more
        // work"). Once a run's output has ended, Flare starts none of its
        // inputs and pulls nothing more from its synchronous sources
        // (contract 10); ReactiveSwift's sequence forms of combineLatest
        // and zip (`all`, `any`, `and`, `or`) start every input after the
        // output ended, and an Action's execution, a flatten's inner or a
        // `take` behind a time operator may pull on. Recognised when
        // Flare's trace is ReactiveSwift's without some lines, each of
        // them such work: an element pulled or a thunk called after a
        // run's terminal event (no run started in between), or a start
        // handler's start and end, both missing (a run that changed
        // nothing anyone saw).
        Entry(name: "deliberate: an ended run does no more work") { _, rs, flare in
            guard !flare.runaway, !rs.runaway, flare.lines.count < rs.lines.count else { return false }
            var rest = flare.lines[...]
            var ended = false
            var missing: [(line: String, afterEnd: Bool)] = []
            for line in rs.lines {
                if let first = rest.first, first == line {
                    rest = rest.dropFirst()
                    if isRunTerminal(line) { ended = true } else if line.contains("] > start run") { ended = false }
                } else {
                    guard isWork(line) else { return false }
                    missing.append((line, ended))
                }
            }
            guard rest.isEmpty else { return false }
            let missingHandlers = Set(missing.map(\.line).compactMap(handlerName))
            return missing.allSatisfy { line, afterEnd in
                if let handler = handlerName(line) {
                    let both = missing.contains { $0.line.hasSuffix("] handler \(handler) start") }
                        && missing.contains { $0.line.hasSuffix("] handler \(handler) ended") }
                    return afterEnd || (both && missingHandlers.contains(handler))
                }
                return afterEnd
            }
        },
        // Deliberate (docs/Differences.md, "debounce keeps its wait").
        // A debounce whose wait is pending when a newer value arrives
        // keeps that wait and, when it fires, schedules the rest;
        // ReactiveSwift cancels and schedules a new wait per value. Two
        // debounces due at the same instant of a TestScheduler then fire
        // in another order. Recognised when the traces hold the same
        // lines at the same instants, and only deliveries of values
        // (`… value …`) are in another order within an instant.
        Entry(name: "deliberate: debounce keeps its wait") { program, rs, flare in
            guard mentions(program, ["debounce("]), !flare.runaway, rs.lines != flare.lines else { return false }
            let isValue = { (line: String) in line.contains(" value ") }
            return byInstant(rs.lines) == byInstant(flare.lines)
                && rs.lines.filter { !isValue($0) } == flare.lines.filter { !isValue($0) }
        },
        // Deliberate (docs/Differences.md, "Producer disposal is prompt").
        // A disposed run's time operator (delay, observe(on:), throttle,
        // debounce, collect(every:on:), lazyMap) drops the values it had
        // scheduled and sends `interrupted` on its scheduler; ReactiveSwift
        // still delivers those values ahead of `interrupted`. Recognised
        // when Flare's trace is ReactiveSwift's without some value
        // deliveries, each after a disposal, and each missing `runN value`
        // followed in ReactiveSwift by `runN interrupted`.
        Entry(name: "deliberate: a disposed run's scheduled values are dropped") { program, rs, flare in
            guard mentions(program, ["delay(", "observeOn", "throttle(", "debounce(", "collectEvery(", "lazyMap("]),
                  !flare.runaway, flare.lines.count < rs.lines.count else { return false }
            var rest = flare.lines[...]
            var disposed = false
            for (i, line) in rs.lines.enumerated() {
                if let first = rest.first, first == line {
                    rest = rest.dropFirst()
                    if line.contains("] > dispose") { disposed = true }
                    continue
                }
                guard disposed, line.contains(" value ") else { return false }
                if let run = runName(line) {
                    guard rs.lines[(i + 1)...].contains(where: { $0.hasSuffix("] \(run) interrupted") }) else { return false }
                }
            }
            return rest.isEmpty
        },
        // ReactiveSwift's bug (docs/Differences.md, "debounce keeps its
        // wait"): in a fused producer chain (`take(first:)` right before
        // it, or a signal made by `startWithSignal`), its
        // `debounce(discardWhenCompleted: false)` completes without the
        // pending value, at another time; with a step between, it sends
        // the value as its documentation says, as Flare always does.
        // Recognised when the traces agree but for value deliveries and
        // completions, and ReactiveSwift's are Flare's without some values.
        Entry(name: "ReactiveSwift's bug: a fused debounce(discardWhenCompleted: false) drops its value") { program, rs, flare in
            guard mentions(program, (0...3).map { "debounce(\($0), false)" }), !flare.runaway, rs.lines != flare.lines else { return false }
            let isEnd = { (line: String) in line.contains(" value ") || line.hasSuffix(" completed") }
            guard rs.lines.filter({ !isEnd($0) }) == flare.lines.filter({ !isEnd($0) }) else { return false }
            let untimed = { (line: String) in String(line.drop { $0 != "]" }) }
            var rest = flare.lines.filter(isEnd).map(untimed)[...]
            for line in rs.lines.filter(isEnd).map(untimed) {
                while let first = rest.first, first != line {
                    guard first.contains(" value ") else { return false }
                    rest = rest.dropFirst()
                }
                guard !rest.isEmpty else { return false }
                rest = rest.dropFirst()
            }
            return rest.allSatisfy { $0.contains(" value ") }
        },
    ]

    /// The words of a trace line after its instant (`[ms] `).
    static func words(_ line: String) -> [Substring] {
        guard let close = line.firstIndex(of: "]") else { return [] }
        return line[line.index(after: close)...].split(separator: " ")
    }

    /// `runN` of a run's line, or nil.
    static func runName(_ line: String) -> String? {
        guard let first = words(line).first, first.hasPrefix("run"), first.count > 3,
              first.dropFirst(3).allSatisfy(\.isNumber) else { return nil }
        return String(first)
    }

    /// Lines grouped by their instant (`[ms]`), in order of the instants,
    /// each group sorted: equal for two traces that differ only in the
    /// order of what happened at one instant.
    static func byInstant(_ lines: [String]) -> [[String]] {
        var groups: [[String]] = []
        var instant: Substring?
        for line in lines {
            let stamp = line.prefix { $0 != "]" }
            if stamp != instant { groups.append([]); instant = stamp }
            groups[groups.count - 1].append(line)
        }
        return groups.map { $0.sorted() }
    }

    /// A run's terminal event: `runN completed`, `failed …`, `interrupted`.
    static func isRunTerminal(_ line: String) -> Bool {
        let words = words(line)
        guard words.count >= 2, runName(line) != nil else { return false }
        return words[1] == "completed" || words[1] == "failed" || words[1] == "interrupted"
    }

    /// Work a source does: an element pulled, a start handler starting or
    /// ending, a thunk called.
    static func isWork(_ line: String) -> Bool {
        let words = words(line)
        guard let first = words.first else { return false }
        if first == "pull" || first == "thunk" { return true }
        return first == "handler" && words.count == 3 && (words[2] == "start" || words[2] == "ended")
    }

    /// `hN` of a start handler's `handler hN start` or `… ended`, or nil.
    static func handlerName(_ line: String) -> String? {
        guard isWork(line) else { return nil }
        let words = words(line)
        return words.first == "handler" ? String(words[1]) : nil
    }

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
        let words = words(line)
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
