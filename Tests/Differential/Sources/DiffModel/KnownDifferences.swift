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
        // Being fixed (issue 44): after take(until:)/take(during:) ends its
        // output, a synchronous upstream or trigger is still pulled (to its
        // end, or without end). Recognised when the traces differ only in
        // Flare's extra pulls (and a runaway).
        Entry(name: "being fixed: synchronous source pulled on after take(until:)/take(during:) ended") { program, rs, flare in
            guard mentions(program, ["takeUntil(", "takeDuring(", "takeUntilReplacement("]) else { return false }
            let rsRest = rs.lines.filter { !isPull($0) }
            if flare.runaway {
                // Everything Flare did before the runaway, pulls aside, is
                // what ReactiveSwift did.
                let before = flare.lines.prefix { !$0.hasPrefix("RUNAWAY") }.filter { !isPull($0) }
                return rsRest.starts(with: before)
            }
            return flare.lines.filter(isPull).count > rs.lines.filter(isPull).count
                && rsRest == flare.lines.filter { !isPull($0) }
        },
    ]

    static func isPull(_ line: String) -> Bool { line.contains("] pull s") }

    static func mentions(_ program: Program, _ names: [String]) -> Bool {
        let text = "\(program)"
        return names.contains { text.contains($0) }
    }

    public static func match(_ program: Program, rs: Trace, flare: Trace) -> String? {
        entries.first { $0.matches(program, rs, flare) }?.name
    }
}
