#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// `swift run -c release bench [--quick] [--filter NAME]... [--json FILE] [--svg FILE] [--markdown FILE]... [--reps N]`
// `swift run -c release bench --selftest` checks the baselines' semantics, the
// app scenarios against their limits, and look-ups and allocations per event.
// Progress goes to stderr, the table to stdout.

if CommandLine.arguments.dropFirst().first == "--selftest" {
    startParkedThread()
    runSelfTest()
    exit(0)
}
let options = Options.parse(Array(CommandLine.arguments.dropFirst()))
startParkedThread()
let start = now()
// Taken before the run: the load average then, before the bench adds to it.
var provenance = options.markdownPaths.isEmpty ? nil : Provenance.current()
let runner = Runner(options: options)
runAppScenarios(runner)
runAll(runner)
printTable(runner.results, options: options)
if let path = options.jsonPath {
    writeJSON(runner.results, options: options, to: path)
    progress("wrote \(path)")
}
if var provenance {
    provenance.loadAfter = loadAverage()
    for path in options.markdownPaths {
        writeMarkdown(runner.results, options: options, provenance: provenance, to: path)
        progress("wrote \(path)")
    }
}
if let path = options.svgPath {
    writeSVG(runner.results, options: options, to: path)
    progress("wrote \(path)")
}
progress("total \(format(Double(now() - start) / 1e9)) s")
