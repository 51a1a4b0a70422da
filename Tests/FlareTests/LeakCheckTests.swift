import CFlare
import Flare
import Foundation
import Testing

/// Exact accounting of the C core's live entries. The counter is global to
/// the process, so these checks are only meaningful when nothing else runs:
/// they are enabled by `FLARE_LEAK_CHECKS=1` and run on their own
/// (`FLARE_LEAK_CHECKS=1 swift test --filter LeakCheckTests`, as CI does).
@Suite(
    "Live C entries return to zero",
    .serialized,
    .enabled(if: ProcessInfo.processInfo.environment["FLARE_LEAK_CHECKS"] == "1")
)
struct LeakCheckTests {
    @Test("a million observers attached, delivered to and disposed")
    func million() {
        let before = flare_debug_live_entries()
        millionObserversRoundTrip()
        #expect(flare_debug_live_entries() == before)
    }

    @Test("random concurrent schedules")
    func schedules() {
        let before = flare_debug_live_entries()
        for seed in UInt64(1)...8 {
            let report = Schedule(seed: seed, threads: 4, operations: 1_500).run()
            #expect(report.violations.isEmpty, "seed \(seed): \(report.violations.prefix(5))")
        }
        #expect(flare_debug_live_entries() == before)
    }

    @Test("operators, termination, disposal and late observers")
    func operators() {
        let before = flare_debug_live_entries()
        do {
            let (signal, input) = Signal<Int, Never>.pipe()
            let d1 = signal.map { $0 + 1 }.filter { $0 > 1 }.observeValues { _ in }
            let d2 = signal.compactMap { $0 }.observeValues { _ in }
            input.send(value: 1)
            d1?.dispose()
            input.send(value: 2)
            input.sendCompleted()
            signal.observeValues { _ in }
            withExtendedLifetime(d2) {}
        }
        #expect(flare_debug_live_entries() == before)
    }
}
