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

/// The table on stdout: one block per scenario and metric, one row per case,
/// each cell "median [min–max]" over the repetitions, then Flare's advantage
/// over each baseline and its cost relative to the limit.
func printTable(_ results: [CaseResult], options: Options) {
    print("Flare bench: median [min–max] of \(options.repetitions) interleaved runs per contender\(options.quick ? " (--quick)" : "").")
    print("\"Flare vs X\" = how many times better Flare is than X (>1: Flare wins); \"Flare/Limit\" = Flare's cost in multiples of the direct-call limit.")
    var i = 0
    while i < results.count {
        var j = i
        while j < results.count, results[j].scenario == results[i].scenario, results[j].title == results[i].title { j += 1 }
        let group = Array(results[i..<j])
        for (mi, metric) in group[0].metrics.enumerated() {
            let present = contenderOrder.filter { name in group.contains { $0.stats[mi][name] != nil } }
            let baselines = present.filter { $0 != flareName && $0 != limitName }
            print("")
            print("\(group[0].title) — \(metric.name) (\(metric.lowerIsBetter ? "lower" : "higher") is better)")
            var header = pad("case", 16)
            for name in present { header += pad(name, 26) }
            for b in baselines { header += pad("Flare vs \(b)", max(20, b.count + 11)) }
            if present.contains(limitName) { header += "Flare/Limit" }
            print(header)
            for row in group {
                var line = pad(row.caseName, 16)
                for name in present {
                    if let s = row.stats[mi][name] {
                        line += pad("\(format(s.median)) [\(format(s.min))–\(format(s.max))]", 26)
                    } else {
                        line += pad("n/a", 26)
                    }
                }
                let flare = row.stats[mi][flareName]?.median ?? .nan
                for b in baselines {
                    let other = row.stats[mi][b]?.median ?? .nan
                    line += pad(ratioText(advantage(flare, over: other, lowerIsBetter: metric.lowerIsBetter)), max(20, b.count + 11))
                }
                if present.contains(limitName) {
                    let limit = row.stats[mi][limitName]?.median ?? .nan
                    line += ratioText(costOverLimit(flare, limit, lowerIsBetter: metric.lowerIsBetter))
                }
                print(line)
            }
        }
        i = j
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
