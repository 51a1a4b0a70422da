// The named list: differences that are deliberate (README, "How Flare
// differs") or being fixed. A difference that matches an entry is counted
// under the entry's name and not reported again. Keep the list short: each
// entry names the behaviour and recognises it narrowly.

public enum KnownDifferences {
    public struct Entry: Sendable {
        public let name: String
        public let matches: @Sendable (Program, Trace, Trace) -> Bool
    }

    public static let missedChange = "deliberate: a property's producer misses no change"

    /// ReactiveSwift fuses a producer's chain of steps into one observer
    /// with no state of its own; a step that ends the run from a value
    /// (`take(while:)` …) keeps passing on what reaches it after, and an
    /// asynchronous step below (`delay` …), which ends only once its
    /// scheduler runs the end, takes it: a value after the end, or an
    /// `interrupted` that overtakes the delayed end. `check` names a
    /// difference this when ReactiveSwift, with a signal after each such
    /// step (`interpret(_:unfusingEnds:)`), agrees with Flare.
    public static let fusedEnd = "ReactiveSwift's bug: a fused step that ended lets events through to a time operator"

    /// Whether `program` has a step that can end a run from a value and an
    /// asynchronous step (`fusedEnd`).
    public static func mayEndFused(_ program: Program) -> Bool {
        mentions(program, ["takeFirst(", "takeWhile(", "takeUntilValue(", "attemptMap(", "attempt(", "dematerialize"])
            && mentions(program, ["delay(", "observeOn", "throttle(", "debounce(", "collectEvery(", "lazyMap("])
    }

    public static let entries: [Entry] = [
        // Deliberate (docs/Differences.md, "A detached input's hooks hear
        // its interruption"; "A flatten's teardown starts nothing"). When
        // one event or one `dispose()` ends several runs at once (the
        // inputs of a zip or combineLatest, a flatten's outer run and
        // inners, a take(until:) trigger), ReactiveSwift detaches the
        // `on(...)`/`logEvents` steps of all but one silently (only
        // `disposed`), starts a waiting concat inner into the ended run
        // (its steps report an interruption, no start), and finishes some
        // of the teardown after `dispose()` returned; the order among the
        // runs follows which of its signals detached first. Flare
        // interrupts every run that exists, starts nothing, finishes
        // before `dispose()` returns, and tears the runs down in its own
        // order. Recognised when the traces agree on every line that is
        // not a teardown report, and between two such lines hold the same
        // teardown reports in any order, except that Flare may add
        // interruption reports (and the `disposed` of a step ReactiveSwift
        // never reports), ReactiveSwift may add the reports of a step that
        // never started, and ReactiveSwift's reports just after a
        // `< dispose` line may count as before it. Flare never lacks a
        // `disposed` or a lifetime's end that ReactiveSwift reports of a
        // run that started. Where ReactiveSwift builds a run's last step
        // on `startWithSignal` (`map(value:)` …), `dispose()` interrupts
        // the run's observer before the steps above report; Flare
        // interrupts from the source down: a run's `interrupted` inside
        // its own `dispose()` is compared as if last there
        // (`interruptedLast`).
        Entry(name: "deliberate: a detached input's hooks hear its interruption") { program, rs, flare in
            guard !flare.runaway, !rs.runaway, rs.lines != flare.lines else { return false }
            // A start handler ReactiveSwift runs start to end and Flare
            // never starts is the entry below ("an ended run does no more
            // work"); both can hold in one program.
            let flareHandlers = Set(flare.lines.compactMap(handlerName))
            let ended = Set(rs.lines.filter { $0.hasSuffix(" ended") }.compactMap(handlerName))
            let rsLines = rs.lines.filter { line in
                handlerName(line).map { flareHandlers.contains($0) || !ended.contains($0) } ?? true
            }
            let rs = Trace(lines: interruptedLast(rsLines), runaway: rs.runaway)
            let flare = Trace(lines: interruptedLast(flare.lines), runaway: flare.runaway)
            guard rs.lines.filter({ !isLoose($0) }) == flare.lines.filter({ !isLoose($0) }) else { return false }
            // Through a time operator, an interruption reaches the steps
            // below it on the scheduler, later in the same instant: the
            // groups are then the instants.
            let timed = mentions(program, ["delay(", "observeOn", "throttle(", "debounce(", "collectEvery(", "lazyMap("])
            let endsEarly = mentions(program, ["First(", "takeWhile(", "takeUntil", "blocking("])
            let flareBlocks = teardownBlocks(flare.lines, hoistingPastDispose: false, byInstant: timed)
            let rsHooks = Set(rs.lines.compactMap(hookName))
            // ReactiveSwift's reports after a `< dispose` line in its
            // instant may belong before it, or where they are.
            return [true, false].contains { hoisting in
                let rsBlocks = teardownBlocks(rs.lines, hoistingPastDispose: hoisting, byInstant: timed)
                return rsBlocks.count == flareBlocks.count
                    && blocksAgree(rsBlocks, flareBlocks, rsHooks: rsHooks, endsEarly: endsEarly)
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
            // Interruption reports are left to the entry above: a round
            // may also hold a combination whose detached inputs hear it.
            // So are the reports of a step ReactiveSwift never reports.
            guard mentions(program, ["retry(", "repeatCount("]), !flare.runaway else { return false }
            let rsHooks = Set(rs.lines.compactMap(hookName))
            let extra = { (line: String) in isInterruptionReport(line) || (hookName(line).map { !rsHooks.contains($0) } ?? false) }
            let rsReports = rs.lines.filter(extra), flareReports = flare.lines.filter(extra)
            guard Set(rsReports).isSubset(of: flareReports), rsReports.count <= flareReports.count else { return false }
            return rs.lines.filter { !extra($0) }.sorted() == flare.lines.filter { !extra($0) }.sorted()
                && rs.lines.filter { !isLoose($0) } == flare.lines.filter { !isLoose($0) }
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
        // nothing anyone saw). An element pulled (`pull sN …`) may be
        // missing anywhere: with every event the same, Flare pulled less
        // for the same result (a `take(first:)` behind a time operator
        // stops its sequence at once; ReactiveSwift pulls the next element
        // and the end). An element that mattered would show as a missing
        // value or completion. So may an `on(value:)` step's injection (its
        // `inject …` line and the `> …`/`< …` brackets of what it did)
        // after the run's end, or anywhere in a program that ends a run
        // early (`take`, `attemptMap`): ReactiveSwift sends values through
        // the steps above an ended `take` until its teardown reaches them.
        Entry(name: "deliberate: an ended run does no more work") { program, rs, flare in
            guard !flare.runaway, !rs.runaway, flare.lines.count < rs.lines.count else { return false }
            let endsEarly = mentions(program, ["takeFirst(", "takeWhile(", "takeUntilValue(", "takeUntil(", "attemptMap"])
            var rest = flare.lines[...]
            var ended = false
            var missing: [(line: String, afterEnd: Bool)] = []
            var injection: Int?   // depth of the `> …`/`< …` brackets of a missing injection
            for line in rs.lines {
                if let first = rest.first, first == line {
                    rest = rest.dropFirst()
                    injection = nil
                    if isRunTerminal(line) { ended = true } else if line.contains("] > start run") { ended = false }
                } else if words(line).first == "inject" {
                    guard ended || endsEarly else { return false }
                    injection = 0
                } else if let depth = injection, depth > 0 || words(line).first == ">" {
                    let bracket = words(line).first
                    injection = depth + (bracket == ">" ? 1 : bracket == "<" ? -1 : 0)
                } else {
                    injection = nil
                    guard isWork(line) else { return false }
                    missing.append((line, ended))
                }
            }
            guard rest.isEmpty else { return false }
            let missingHandlers = Set(missing.map(\.line).compactMap(handlerName))
            return missing.allSatisfy { line, afterEnd in
                if isPull(line) { return true }
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
        //
        // And the `interrupted` itself comes on the scheduler, after
        // `dispose()` returned (at the same instant of a TestScheduler),
        // where ReactiveSwift delivers it on the disposing thread before
        // `dispose()` returns: an observer behind `observe(on:)` hears
        // every event on its scheduler. Recognised when the run's
        // `interrupted` lines are the same, at the same instants, and the
        // rest of the traces are as above.
        Entry(name: "deliberate: a disposed run's scheduled values are dropped") { program, rs, flare in
            guard mentions(program, ["delay(", "observeOn", "throttle(", "debounce(", "collectEvery(", "lazyMap("]),
                  !flare.runaway, rs.lines != flare.lines else { return false }
            let isInterrupted = { (line: String) in runName(line) != nil && words(line).dropFirst().first == "interrupted" }
            guard rs.lines.filter(isInterrupted) == flare.lines.filter(isInterrupted) else { return false }
            var rest = flare.lines.filter { !isInterrupted($0) }[...]
            var disposed = false
            for (i, line) in rs.lines.enumerated() where !isInterrupted(line) {
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
        // Deliberate (docs/Differences.md, "Reentrancy is safe"). A run
        // disposed from inside its own delivery (an `on(value:)` step that
        // disposes it) finishes that delivery: the value under way reaches
        // the steps below and the observer, then `interrupted` comes, as
        // every event sent from inside a delivery is queued behind it.
        // ReactiveSwift does the same in a plain chain, but where an
        // operator that it builds on `startWithSignal` (`start(on:)`,
        // `timeout` …, a signal made by `startWithSignal`) lies below the
        // step, its interruption enters there: it delivers `interrupted`
        // nested, before `dispose()` returns, and drops the value.
        // Recognised when, but for lines ReactiveSwift has inside an
        // injected `> dispose` … `< dispose` bracket and Flare later in
        // that instant (`runN interrupted`, a tap's events, teardown
        // reports), Flare's trace is ReactiveSwift's with more lines, each
        // after an injected disposal in its instant and each a value, an
        // injection (with what it did) or a hook's.
        Entry(name: "deliberate: a run disposed inside its delivery finishes that delivery") { _, rs, flare in
            guard !flare.runaway, !rs.runaway, rs.lines != flare.lines else { return false }
            let instant = { (l: String) in l.prefix { $0 != "]" } }
            // ReactiveSwift's `runN interrupted` lines inside an injected
            // disposal, each with the line that closes its bracket.
            var nested: [(line: String, close: String)] = []
            var open: [String] = [], depth = 0, injected = false
            for line in rs.lines {
                if words(line).first == "inject" { injected = true; continue }
                if words(line).starts(with: [">", "dispose"]), injected {
                    depth += 1
                } else if words(line).starts(with: ["<", "dispose"]), depth > 0 {
                    depth -= 1
                    nested += open.map { ($0, line) }
                    open = []
                    if depth == 0 { injected = false }
                } else if depth > 0, isMovable(line) {
                    open.append(line)
                } else if depth == 0 {
                    injected = false
                }
            }
            // Those Flare delivers after the bracket closed, in its instant.
            let moved = Set(nested.filter { line, close in
                guard let j = flare.lines.firstIndex(of: line), let c = flare.lines.firstIndex(of: close) else { return false }
                return j > c && instant(line) == instant(close)
            }.map(\.line))
            let rsLines = rs.lines.filter { !moved.contains($0) }
            let flareLines = flare.lines.filter { !moved.contains($0) }
            // Flare's extra lines, each after an injected disposal in its instant.
            var rest = rsLines[...]
            var disposal: Substring?   // the instant of the last injected disposal
            var lastInject = false
            var extras = 0
            var extraDepth = 0         // inside the brackets of an extra injection
            for line in flareLines {
                if lastInject && words(line).starts(with: [">", "dispose"]) { disposal = instant(line) }
                lastInject = words(line).first == "inject"
                if extraDepth == 0, let first = rest.first, first == line { rest = rest.dropFirst(); continue }
                guard disposal == instant(line) else { return false }
                let w = words(line)
                let kind = runName(line) != nil ? w.dropFirst().first : nil
                if w.first == ">" { extraDepth += 1 } else if w.first == "<" { extraDepth = max(0, extraDepth - 1) }
                guard extraDepth > 0 || kind == "value" || w.first == "inject" || w.first == "<"
                        || hookName(line) != nil
                else { return false }
                extras += 1
            }
            return rest.isEmpty && (extras > 0 || !moved.isEmpty)
        },
        // Deliberate (docs/Differences.md, "A burst crosses a scheduler in
        // one action"). `observe(on:)`, `lazyMap` and `delay` hand what a
        // run sent while their scheduled action was pending to that one
        // action; ReactiveSwift schedules an action per event. Each run's
        // events keep their order and their instants; two runs' events due
        // at one instant come run by run instead of interleaved. Recognised
        // when the traces hold the same lines at the same instants, and
        // each run's lines are in the same order.
        Entry(name: "deliberate: a burst crosses a scheduler in one action") { program, rs, flare in
            guard mentions(program, ["observeOn", "lazyMap(", "delay(", "throttle("]), !flare.runaway, rs.lines != flare.lines,
                  byInstant(rs.lines) == byInstant(flare.lines) else { return false }
            let runs = Set(rs.lines.compactMap(runName))
            return runs.allSatisfy { run in
                rs.lines.filter { runName($0) == run } == flare.lines.filter { runName($0) == run }
            } && rs.lines.filter { runName($0) == nil } == flare.lines.filter { runName($0) == nil }
        },
        // ReactiveSwift's bug (docs/Differences.md, "debounce keeps its
        // wait"): in a fused producer chain (`take(first:)` right before
        // it, or a signal made by `startWithSignal`), its
        // `debounce(discardWhenCompleted: false)` completes without the
        // pending value, at another time; with a step between, it sends
        // the value as its documentation says, as Flare always does.
        // Recognised when the traces agree but for value deliveries and
        // completions, and ReactiveSwift's are Flare's without some values.
        // A change made while a run of a property's producer hears the
        // current value reaches the run in Flare, after that delivery;
        // ReactiveSwift's producer observes the property only once the
        // delivery has returned, and misses it. The traces may differ from
        // that line on (a feedback loop through an Action's `isExecuting`
        // runs on in Flare: `check` names a Flare hang with this name).
        Entry(name: missedChange) { _, rs, flare in
            guard let at = rs.missedChangeAt else { return false }
            return zip(rs.lines, flare.lines).prefix(while: { $0 == $1 }).count >= at
        },
        // Deliberate (docs/Differences.md, "Disposal never waits"): an
        // observer disposed while an event is being delivered does not
        // hear it; ReactiveSwift delivers each event to a snapshot of the
        // observers, so a signal disposed by an earlier observer of the
        // same event still passes it to its `on(...)`/`logEvents` step.
        // Recognised when ReactiveSwift's trace is Flare's with more lines
        // of hooks, each after that hook's `disposed` (and no later start).
        Entry(name: "deliberate: an observer disposed during a delivery does not hear it") { _, rs, flare in
            guard !flare.runaway, rs.lines != flare.lines else { return false }
            return afterDisposal(rs.lines) == flare.lines
        },
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

    /// `lines` with each `runN interrupted` that comes between `> dispose
    /// runN` and `< dispose runN` moved to just before the latter; inside
    /// `> dispose composite` … `< dispose composite`, to just before the
    /// composite's `composite runN` (its next disposable, added after the
    /// run's) or the bracket's end.
    static func interruptedLast(_ lines: [String]) -> [String] {
        var out: [String] = []
        // The bracket open (`runN` or `composite`) and the interruptions
        // held back in it, in order.
        var open: Substring?
        var held: [(run: Substring, line: String)] = []
        func release(_ run: Substring?) {
            out += held.filter { run == nil || $0.run == run }.map(\.line)
            held.removeAll { run == nil || $0.run == run }
        }
        for line in lines {
            let w = words(line)
            if open == nil, w.count == 3, w[0] == ">", w[1] == "dispose" {
                open = w[2]
            } else if let bracket = open {
                if w == ["<", "dispose", bracket] {
                    release(nil)
                    open = nil
                } else if w.count == 2, w[1] == "interrupted", w[0].hasPrefix("run"),
                          bracket == "composite" || bracket == w[0] {
                    held.append((w[0], line))
                    continue
                } else if bracket == "composite", w.count == 2, w[0] == "composite" {
                    release(w[1])
                }
            }
            out.append(line)
        }
        release(nil)
        return out
    }

    /// Whether the teardown blocks of the two traces agree, block by block
    /// ("a detached input's hooks hear its interruption").
    static func blocksAgree(_ rsBlocks: [(lines: [String], running: [String])],
                            _ flareBlocks: [(lines: [String], running: [String])],
                            rsHooks: Set<String>, endsEarly: Bool) -> Bool {
        for (r, f) in zip(rsBlocks, flareBlocks) {
            let started = Set(r.running)
            var onlyFlare = f.lines, onlyRS: [String] = []
            for line in r.lines {
                if let i = onlyFlare.firstIndex(of: line) { onlyFlare.remove(at: i) } else { onlyRS.append(line) }
            }
            let flareExtraOK = onlyFlare.allSatisfy { line in
                isInterruptionReport(line) || (hookName(line).map { !rsHooks.contains($0) } ?? false)
            }
            let rsExtraOK = onlyRS.allSatisfy { line in
                guard let hook = hookName(line) else { return false }
                // A step above a `take` (or a blocking `first()`,
                // `single()` …) that ended the run: ReactiveSwift lets
                // a synchronous source's own `completed` reach it;
                // Flare stops the source, and the step hears
                // `interrupted` ("An ended run does no more work").
                if endsEarly, isCompletionReport(line),
                   onlyFlare.contains(where: { hookName($0) == hook && isInterruptionReport($0) }) {
                    return true
                }
                return !started.contains(hook)
            }
            guard flareExtraOK, rsExtraOK else { return false }
        }
        return true
    }

    /// `lines` without each line of a hook that comes when none of the
    /// hook's runs is live: after its `disposed` as often as it started
    /// (a hook on a signal, which never reports a start, starts once).
    static func afterDisposal(_ lines: [String]) -> [String] {
        let producerHooks = Set(lines.filter { line in
            hookName(line).map { line.contains("] \($0) starting") } ?? false
        }.compactMap(hookName))
        var live: [String: Int] = [:]
        return lines.filter { line in
            guard let hook = hookName(line) else { return true }
            if line.contains("] \(hook) starting") { live[hook, default: 0] += 1; return true }
            let n = live[hook, default: producerHooks.contains(hook) ? 0 : 1]
            if line.contains("] \(hook) disposed") { live[hook] = n - 1; return true }
            return n > 0
        }
    }

    /// A teardown report, or a hook's report that its start returned
    /// (`hN started`, `log LN started`): lines whose order among
    /// themselves follows how the runs are torn down.
    static func isLoose(_ line: String) -> Bool {
        if isTeardown(line) || isCompletionReport(line) { return true }
        let w = words(line)
        if w.count == 3, w[0] == "pull", w[2] == "end" { return true }
        guard let hook = hookName(line) else { return false }
        return line.contains("] \(hook) started")
    }

    /// The loose lines (`isLoose`) of a trace, one group for each stretch
    /// between two other lines, each with the hooks running when it
    /// begins (started more often than disposed). With
    /// `hoistingPastDispose`, a hook's loose line at the instant of the
    /// last `< dispose …` line joins the group that line ends if the hook
    /// was running then (the teardown ReactiveSwift finishes after
    /// `dispose()` returned).
    static func teardownBlocks(_ lines: [String], hoistingPastDispose: Bool, byInstant: Bool) -> [(lines: [String], running: [String])] {
        var blocks: [(lines: [String], running: [String])] = [([], [])]
        var blockInstant: Substring?
        var balance: [String: Int] = [:]
        var disposeBlock: (index: Int, instant: Substring, running: Set<String>)?
        for line in lines {
            let instant = line.prefix { $0 != "]" }
            if let hook = hookName(line) {
                if line.contains("] \(hook) starting") { balance[hook, default: 0] += 1 }
                if line.contains("] \(hook) disposed") { balance[hook, default: 0] -= 1 }
            }
            if isLoose(line) {
                if byInstant && instant != blockInstant {
                    blocks.append(([], balance.filter { $0.value > 0 }.map(\.key)))
                    blockInstant = instant
                }
                if let d = disposeBlock, d.instant == instant, let hook = hookName(line), d.running.contains(hook) {
                    blocks[d.index].lines.append(line)
                } else {
                    blocks[blocks.count - 1].lines.append(line)
                }
            } else if !byInstant || instant != blockInstant {
                if hoistingPastDispose && words(line).starts(with: ["<", "dispose"]) {
                    disposeBlock = (blocks.count - 1, instant, Set(balance.filter { $0.value > 0 }.map(\.key)))
                } else if disposeBlock?.instant != instant {
                    disposeBlock = nil
                }
                blocks.append(([], balance.filter { $0.value > 0 }.map(\.key)))
                blockInstant = instant
            }
        }
        return blocks
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

    /// An element pulled from a sequence, or its end: `pull sN …`.
    static func isPull(_ line: String) -> Bool {
        let words = words(line)
        return words.count == 3 && words[0] == "pull"
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

    /// A hook's report of a completion: `hN event completed`, `hN
    /// completed`, `log LN completed …`.
    static func isCompletionReport(_ line: String) -> Bool {
        guard let name = hookName(line) else { return false }
        let rest = line.components(separatedBy: "] \(name) ").dropFirst().first ?? ""
        return rest == "event completed" || rest.hasPrefix("completed")
    }

    /// A line that ReactiveSwift delivers inside a disposal it is asked
    /// for from inside a delivery, and Flare once that delivery returns:
    /// a run's `interrupted`, a tap's event, a teardown report.
    static func isMovable(_ line: String) -> Bool {
        if runName(line) != nil { return words(line).dropFirst().first == "interrupted" }
        if let first = words(line).first, first.hasPrefix("tap") { return true }
        return isTeardown(line)
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
