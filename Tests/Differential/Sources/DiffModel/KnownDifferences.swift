// The named list: differences that are deliberate (README, "How Flare
// differs") or being fixed. A difference that matches an entry is counted
// under the entry's name and not reported again. Keep the list short: each
// entry names the behaviour and recognises it narrowly.

public enum KnownDifferences {
    public struct Entry: Sendable {
        public let name: String
        public let matches: @Sendable (Program, Trace, Trace) -> Bool
    }

    public static let entries: [Entry] = []

    public static func match(_ program: Program, rs: Trace, flare: Trace) -> String? {
        entries.first { $0.matches(program, rs, flare) }?.name
    }
}
