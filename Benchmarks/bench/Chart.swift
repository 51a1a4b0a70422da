#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `bench --svg FILE`: the run drawn as one SVG file, written by the bench
/// itself (no dependency). Up to four panels, each drawn only if its
/// scenario ran: the application scenarios against their limits, the cost
/// of a delivery against the number of observers
/// (fan-out), the cost of an event through a chain against its depth, and
/// disposal latency percentiles. Every contender and the direct-call limit
/// are lines or bars in each; values are the medians of the run, on
/// logarithmic axes (the contenders differ by orders of magnitude).
func writeSVG(_ results: [CaseResult], options: Options, to path: String) {
    var panels: [Panel] = []
    if let apps = appPanel(results) {
        panels.append(apps)
    }
    if let fanout = linePanel(
        results, scenario: "fanout", metric: "ns/delivery",
        title: "Fan-out: ns per delivery against the number of observers", xLabel: "observers",
        x: { Double($0.dropFirst(2)) })
    {
        panels.append(fanout)
    }
    if let chain = linePanel(
        results, scenario: "chain", metric: "ns/event",
        title: "Chains (map→filter→map…): ns per event against depth", xLabel: "depth",
        x: { Double($0.dropFirst(6)) })
    {
        panels.append(chain)
    }
    if let latency = barPanel(results, scenario: "latency",
                              title: "dispose() while fanning out to 1000 observers: latency percentiles (ns)")
    {
        panels.append(latency)
    }
    guard !panels.isEmpty else {
        progress("bench: --svg: none of the charted scenarios (apps, fanout, chain, latency) ran; nothing written")
        return
    }
    var svg = SVG(width: 760, height: 40 + panels.count * Panel.height)
    svg.text(x: 20, y: 26, "Flare bench: medians of \(options.repetitions) interleaved runs per contender",
             size: 15, weight: "bold")
    for (i, panel) in panels.enumerated() {
        panel.draw(into: &svg, top: 40 + i * Panel.height)
    }
    guard let file = fopen(path, "w") else {
        progress("bench: cannot write \(path)")
        exit(1)
    }
    fputs(svg.finished(), file)
    fclose(file)
}

/// One series colour per contender, the limit dashed.
private let palette: [String: String] = [
    flareName: "#d9480f", LockedContender.name: "#1c7ed6", SnapshotContender.name: "#5f3dc4", limitName: "#495057",
]

private func colour(_ name: String) -> String { palette[name] ?? "#868e96" }

/// The medians of one metric of a scenario's cases, as (x, value) points
/// per contender, in contender order.
private func linePanel(
    _ results: [CaseResult], scenario: String, metric: String, title: String, xLabel: String,
    x: (String) -> Double?
) -> Panel? {
    let cases = results.filter { $0.scenario == scenario }
    var series: [(name: String, points: [(Double, Double)])] = []
    for name in contenderOrder {
        var points: [(Double, Double)] = []
        for c in cases {
            guard let mi = c.metrics.firstIndex(where: { $0.name == metric }),
                  let stats = c.stats[mi][name], let xv = x(c.caseName), stats.median > 0
            else { continue }
            points.append((xv, stats.median))
        }
        if !points.isEmpty { series.append((name, points)) }
    }
    guard !series.isEmpty else { return nil }
    return Panel(title: title, kind: .lines(series: series, xLabel: xLabel))
}

/// The application scenarios, one group of bars per scenario (Flare and
/// its limit), in ns per event: a scenario measured as a rate is drawn as
/// its inverse, the wall time per event.
private func appPanel(_ results: [CaseResult]) -> Panel? {
    let cases = results.filter { $0.scenario == "apps" }
    guard !cases.isEmpty else { return nil }
    let groups = cases.map { c in
        let perEvent = c.metrics[0].lowerIsBetter
        return (perEvent ? c.caseName : c.caseName + " (1/rate)", [flareName, limitName].map { name in
            let median = c.stats[0][name]?.median ?? .nan
            return (name, perEvent ? median : 1e9 / median)
        })
    }
    return Panel(title: "Application scenarios: ns per event, Flare and its hand-written limit", kind: .bars(groups: groups))
}

/// Every metric of a scenario's single case as a group of bars, one bar per
/// contender.
private func barPanel(_ results: [CaseResult], scenario: String, title: String) -> Panel? {
    guard let c = results.first(where: { $0.scenario == scenario }) else { return nil }
    let names = contenderOrder.filter { name in c.stats.contains { $0[name] != nil } }
    let groups = c.metrics.enumerated().map { mi, metric in
        (metric.name, names.map { ($0, c.stats[mi][$0]?.median ?? .nan) })
    }
    return Panel(title: title, kind: .bars(groups: groups))
}

private struct Panel {
    static let height = 300
    enum Kind {
        case lines(series: [(name: String, points: [(Double, Double)])], xLabel: String)
        case bars(groups: [(String, [(String, Double)])])
    }

    let title: String
    let kind: Kind

    /// The plot area within the panel.
    static let left = 80.0, right = 600.0, plotTop = 40.0, plotBottom = 250.0

    func draw(into svg: inout SVG, top: Int) {
        let y0 = Double(top)
        svg.text(x: 20, y: y0 + 22, title, size: 13, weight: "bold")
        let values: [Double]
        switch kind {
        case let .lines(series, _): values = series.flatMap { $0.points.map(\.1) }
        case let .bars(groups): values = groups.flatMap { $0.1.map(\.1) }.filter(\.isFinite)
        }
        guard let low = values.filter({ $0 > 0 }).min(), let high = values.max() else { return }
        // Bars grow from the bottom: start the axis below the smallest one.
        let bottom: Double
        if case .bars = kind { bottom = low / 3 } else { bottom = low }
        let axis = LogAxis(low: bottom, high: high, from: y0 + Self.plotBottom, to: y0 + Self.plotTop)
        // Horizontal grid at each power of ten (and 2 and 5 times it).
        for tick in axis.ticks() {
            let y = axis.position(tick)
            svg.line(x1: Self.left, y1: y, x2: Self.right, y2: y, stroke: "#e9ecef")
            svg.text(x: Self.left - 8, y: y + 4, format(tick), size: 10, anchor: "end", fill: "#495057")
        }
        svg.line(x1: Self.left, y1: y0 + Self.plotBottom, x2: Self.right, y2: y0 + Self.plotBottom, stroke: "#868e96")
        var legend: [String] = []
        switch kind {
        case let .lines(series, xLabel):
            let xs = Set(series.flatMap { $0.points.map(\.0) }).sorted()
            let xAxis = LogAxis(low: xs.first ?? 1, high: xs.last ?? 10, from: Self.left + 20, to: Self.right - 20,
                                wholeDecades: false)
            for x in xs {
                let px = xAxis.position(x)
                svg.text(x: px, y: y0 + Self.plotBottom + 16, String(Int(x)), size: 10, anchor: "middle", fill: "#495057")
            }
            svg.text(x: (Self.left + Self.right) / 2, y: y0 + Self.plotBottom + 32, xLabel, size: 11, anchor: "middle")
            for s in series {
                let points = s.points.map { (xAxis.position($0.0), axis.position($0.1)) }
                svg.polyline(points, stroke: colour(s.name), dashed: s.name == limitName)
                for p in points { svg.circle(x: p.0, y: p.1, r: 3, fill: colour(s.name)) }
                legend.append(s.name)
            }
        case let .bars(groups):
            let groupWidth = (Self.right - Self.left) / Double(max(groups.count, 1))
            for (g, group) in groups.enumerated() {
                let gx = Self.left + Double(g) * groupWidth
                let barWidth = (groupWidth - 20) / Double(max(group.1.count, 1))
                for (b, bar) in group.1.enumerated() where bar.1.isFinite && bar.1 > 0 {
                    let y = axis.position(bar.1)
                    svg.rect(x: gx + 10 + Double(b) * barWidth, y: y, width: barWidth - 2,
                             height: y0 + Self.plotBottom - y, fill: colour(bar.0))
                }
                svg.text(x: gx + groupWidth / 2, y: y0 + Self.plotBottom + 16, group.0, size: 11, anchor: "middle")
            }
            legend = groups.first?.1.map(\.0) ?? []
        }
        for (i, name) in legend.enumerated() {
            let ly = y0 + Self.plotTop + 10 + Double(i) * 18
            svg.rect(x: Self.right + 20, y: ly - 9, width: 12, height: 12, fill: colour(name))
            svg.text(x: Self.right + 38, y: ly + 1, name == limitName ? "limit (hand-written)" : name, size: 11)
        }
    }
}

/// A logarithmic scale from [low, high] (widened to whole decades, unless
/// told otherwise) onto [from, to] in pixels.
private struct LogAxis {
    let lowExponent: Double, highExponent: Double
    let from: Double, to: Double

    init(low: Double, high: Double, from: Double, to: Double, wholeDecades: Bool = true) {
        let l = log10(Swift.max(low, 1e-12)), h = log10(Swift.max(high, 1e-12))
        lowExponent = wholeDecades ? l.rounded(.down) : l
        highExponent = wholeDecades ? Swift.max(lowExponent + 1, h.rounded(.up)) : Swift.max(h, l + 1e-9)
        self.from = from
        self.to = to
    }

    func position(_ v: Double) -> Double {
        let t = (log10(Swift.max(v, 1e-12)) - lowExponent) / (highExponent - lowExponent)
        return from + t * (to - from)
    }

    func ticks() -> [Double] {
        var result: [Double] = []
        var e = lowExponent
        while e <= highExponent {
            let decade = pow(10, e)
            // 2 and 5 times each power of ten too, unless that crowds the axis.
            let multiples: [Double] = highExponent - lowExponent > 4 ? [1] : [1, 2, 5]
            for m in multiples where m * decade <= pow(10, highExponent) { result.append(m * decade) }
            e += 1
        }
        return result
    }
}

/// A minimal SVG writer.
private struct SVG {
    private var body = ""
    let width: Int, height: Int

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    mutating func text(x: Double, y: Double, _ s: String, size: Int, weight: String = "normal",
                       anchor: String = "start", fill: String = "#212529") {
        body += "<text x=\"\(n(x))\" y=\"\(n(y))\" font-size=\"\(size)\" font-weight=\"\(weight)\" "
            + "text-anchor=\"\(anchor)\" fill=\"\(fill)\">\(escape(s))</text>\n"
    }

    mutating func line(x1: Double, y1: Double, x2: Double, y2: Double, stroke: String) {
        body += "<line x1=\"\(n(x1))\" y1=\"\(n(y1))\" x2=\"\(n(x2))\" y2=\"\(n(y2))\" stroke=\"\(stroke)\"/>\n"
    }

    mutating func polyline(_ points: [(Double, Double)], stroke: String, dashed: Bool) {
        let list = points.map { "\(n($0.0)),\(n($0.1))" }.joined(separator: " ")
        body += "<polyline points=\"\(list)\" fill=\"none\" stroke=\"\(stroke)\" stroke-width=\"2\""
            + (dashed ? " stroke-dasharray=\"5,4\"" : "") + "/>\n"
    }

    mutating func circle(x: Double, y: Double, r: Double, fill: String) {
        body += "<circle cx=\"\(n(x))\" cy=\"\(n(y))\" r=\"\(n(r))\" fill=\"\(fill)\"/>\n"
    }

    mutating func rect(x: Double, y: Double, width: Double, height: Double, fill: String) {
        body += "<rect x=\"\(n(x))\" y=\"\(n(y))\" width=\"\(n(width))\" height=\"\(n(height))\" fill=\"\(fill)\"/>\n"
    }

    func finished() -> String {
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(width)\" height=\"\(height)\" "
            + "viewBox=\"0 0 \(width) \(height)\" font-family=\"Helvetica, Arial, sans-serif\">\n"
            + "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n" + body + "</svg>\n"
    }

    private func n(_ v: Double) -> String { String(Int((v * 10).rounded())) == "0" ? "0" : "\((v * 10).rounded() / 10)" }

    private func escape(_ s: String) -> String {
        s.replacingOccurrences("&", "&amp;").replacingOccurrences("<", "&lt;").replacingOccurrences(">", "&gt;")
    }
}

extension String {
    /// `replacingOccurrences(of:with:)` without Foundation.
    fileprivate func replacingOccurrences(_ target: String, _ replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
