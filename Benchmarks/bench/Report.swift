#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How many times better Flare is than `other` (> 1: Flare wins), whatever
/// the metric's direction.
func advantage(_ flare: Double, over other: Double, lowerIsBetter: Bool) -> Double {
    let r = lowerIsBetter ? other / flare : flare / other
    return r.isFinite ? r : .nan
}

/// Flare's cost as a multiple of the limit's (≥ 1 in practice).
func costOverLimit(_ flare: Double, _ limit: Double, lowerIsBetter: Bool) -> Double {
    let r = lowerIsBetter ? flare / limit : limit / flare
    return r.isFinite ? r : .nan
}

func ratioText(_ r: Double) -> String { r.isNaN ? "–" : format(r) + "x" }

/// One table of the report: a scenario's cases (rows) for one metric,
/// each contender's cell "median [min–max]", then Flare's advantage over
/// each baseline and its cost relative to the limit. The same blocks make
/// the table on stdout and the Markdown of `--markdown`.
struct TableBlock {
    let heading: String
    let header: [String]
    let rows: [[String]]
}

func tableBlocks(_ results: [CaseResult]) -> [TableBlock] {
    var blocks: [TableBlock] = []
    var i = 0
    while i < results.count {
        var j = i
        while j < results.count, results[j].scenario == results[i].scenario, results[j].title == results[i].title { j += 1 }
        let group = Array(results[i..<j])
        for (mi, metric) in group[0].metrics.enumerated() {
            let present = contenderOrder.filter { name in group.contains { $0.stats[mi][name] != nil } }
            let baselines = present.filter { $0 != flareName && $0 != limitName }
            var header = ["case"] + present
            header += baselines.map { "Flare vs \($0)" }
            if present.contains(limitName) { header.append("Flare/Limit") }
            var rows: [[String]] = []
            for row in group {
                var cells = [row.caseName]
                for name in present {
                    if let s = row.stats[mi][name] {
                        cells.append("\(format(s.median)) [\(format(s.min))–\(format(s.max))]")
                    } else {
                        cells.append("n/a")
                    }
                }
                let flare = row.stats[mi][flareName]?.median ?? .nan
                for b in baselines {
                    let other = row.stats[mi][b]?.median ?? .nan
                    cells.append(ratioText(advantage(flare, over: other, lowerIsBetter: metric.lowerIsBetter)))
                }
                if present.contains(limitName) {
                    let limit = row.stats[mi][limitName]?.median ?? .nan
                    cells.append(ratioText(costOverLimit(flare, limit, lowerIsBetter: metric.lowerIsBetter)))
                }
                rows.append(cells)
            }
            blocks.append(TableBlock(
                heading: "\(group[0].title) — \(metric.name) (\(metric.lowerIsBetter ? "lower" : "higher") is better)",
                header: header, rows: rows))
        }
        i = j
    }
    return blocks
}

/// The table on stdout: one block per scenario and metric, one row per case,
/// each cell "median [min–max]" over the repetitions, then Flare's advantage
/// over each baseline and its cost relative to the limit.
func printTable(_ results: [CaseResult], options: Options) {
    print("Flare bench: median [min–max] of \(options.repetitions) interleaved runs per contender\(options.quick ? " (--quick)" : "").")
    print("\"Flare vs X\" = how many times better Flare is than X (>1: Flare wins); \"Flare/Limit\" = Flare's cost in multiples of the direct-call limit.")
    for block in tableBlocks(results) {
        print("")
        print(block.heading)
        for cells in [block.header] + block.rows {
            var line = ""
            for (c, cell) in cells.enumerated() {
                let name = block.header[c]
                let width = c == 0 ? 16
                    : name.hasPrefix("Flare vs ") ? max(20, name.count + 2)
                    : name == "Flare/Limit" ? 0 : 26
                line += c == cells.count - 1 ? cell : pad(cell, width)
            }
            print(line)
        }
    }
}

// MARK: JSON

func jsonString(_ s: String) -> String {
    var out = "\""
    for u in s.unicodeScalars {
        switch u {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        default:
            if u.value < 0x20 {
                let hex = String(u.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            } else {
                out.unicodeScalars.append(u)
            }
        }
    }
    return out + "\""
}

func jsonNumber(_ x: Double) -> String { x.isFinite ? "\(x)" : "null" }

/// Every case with every sample, for tooling.
func writeJSON(_ results: [CaseResult], options: Options, to path: String) {
    var out = "{\n  \"quick\": \(options.quick),\n  \"repetitions\": \(options.repetitions),\n  \"results\": [\n"
    var rows: [String] = []
    for r in results {
        for (mi, metric) in r.metrics.enumerated() {
            var contenders: [String] = []
            for name in contenderOrder {
                guard let s = r.stats[mi][name] else { continue }
                contenders.append("        \(jsonString(name)): {\"median\": \(jsonNumber(s.median)), \"min\": \(jsonNumber(s.min)), \"max\": \(jsonNumber(s.max)), \"samples\": [\(s.samples.map(jsonNumber).joined(separator: ", "))]}")
            }
            let flare = r.stats[mi][flareName]?.median ?? .nan
            var ratios: [String] = []
            for name in [FlareUnboundedContender.name, LockedContender.name, SnapshotContender.name] {
                if let s = r.stats[mi][name] {
                    ratios.append("\(jsonString("flareVs" + name.replacingOccurrences(of: " ", with: ""))): \(jsonNumber(advantage(flare, over: s.median, lowerIsBetter: metric.lowerIsBetter)))")
                }
            }
            if let s = r.stats[mi][limitName] {
                ratios.append("\"flareOverLimit\": \(jsonNumber(costOverLimit(flare, s.median, lowerIsBetter: metric.lowerIsBetter)))")
            }
            rows.append("""
                {
                  "scenario": \(jsonString(r.scenario)),
                  "title": \(jsonString(r.title)),
                  "case": \(jsonString(r.caseName)),
                  "metric": \(jsonString(metric.name)),
                  "unit": \(jsonString(metric.unit)),
                  "lowerIsBetter": \(metric.lowerIsBetter),
                  "contenders": {
            \(contenders.joined(separator: ",\n"))
                  },
                  "ratios": {\(ratios.joined(separator: ", "))}
                }
            """)
        }
    }
    out += rows.joined(separator: ",\n") + "\n  ]\n}\n"
    guard let file = fopen(path, "w") else {
        progress("bench: cannot write \(path)")
        exit(1)
    }
    fputs(out, file)
    fclose(file)
}
