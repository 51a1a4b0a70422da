// Trace comparison and its printout.

public enum Compare {
    /// The index of the first line that differs, nil if the traces are equal.
    public static func firstDifference(_ a: [String], _ b: [String]) -> Int? {
        for i in 0..<max(a.count, b.count) where i >= a.count || i >= b.count || a[i] != b[i] { return i }
        return nil
    }

    /// Both traces, the common prefix once, then each side from the first
    /// difference on.
    public static func sideBySide(rs: [String], flare: [String], context: Int = 12, tail: Int = 40) -> String {
        guard let d = firstDifference(rs, flare) else { return "--- traces are equal (\(rs.count) lines)" }
        var out = ["--- common prefix (\(d) lines\(d > context ? ", last \(context) shown" : "")):"]
        out += rs[max(0, d - context)..<d].map { "    \($0)" }
        out.append("--- ReactiveSwift from line \(d):")
        out += rs[d...].prefix(tail).map { "  < \($0)" }
        out.append("--- Flare from line \(d):")
        out += flare[d...].prefix(tail).map { "  > \($0)" }
        return out.joined(separator: "\n")
    }
}
