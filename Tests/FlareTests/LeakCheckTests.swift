import CFlare
import Flare
import Foundation
import Testing

/// Exact accounting of the C core's live entries. The counter is global to
/// the process, so these checks are only meaningful when nothing else runs:
/// they are enabled by `FLARE_LEAK_CHECKS=1` and run on their own
/// (`FLARE_LEAK_CHECKS=1 swift test --filter LeakCheckTests`, as CI does).
/// Entries are counted in debug builds only (`swift test`'s default).
@Suite(
    "Live C entries return to zero",
    .serialized,
    .enabled(if: ProcessInfo.processInfo.environment["FLARE_LEAK_CHECKS"] == "1")
)
struct LeakCheckTests {
    @Test("a million observers attached, delivered to and disposed")
    func million() throws {
        let before = try liveEntries()
        millionObserversRoundTrip()
        #expect(flare_debug_live_entries() == before)
    }

    @Test("random concurrent schedules")
    func schedules() throws {
        let before = try liveEntries()
        for seed in UInt64(1)...8 {
            let report = Schedule(seed: seed, threads: 4, operations: 1_500).run()
            #expect(report.violations.isEmpty, "seed \(seed): \(report.violations.prefix(5))")
        }
        #expect(flare_debug_live_entries() == before)
    }

    @Test("operators, termination, disposal and late observers")
    func operators() throws {
        let before = try liveEntries()
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

    @Test("a disposed observer's entry is freed by the next event, however few are disposed")
    func entryFreedByNextEvent() throws {
        let before = try liveEntries()
        let (signal, input) = Signal<Int, Never>.pipe()
        var handles = (0..<10).map { _ in signal.observeValues { _ in }! }
        input.send(value: 1) // the drain moves all ten into its array
        #expect(flare_debug_live_entries() == before + 10)
        handles.removeFirst().dispose() // one of ten: the array still holds it
        #expect(flare_debug_live_entries() == before + 10)
        input.send(value: 2) // the walk skips it and drops it at once
        #expect(flare_debug_live_entries() == before + 9)
        for handle in handles { handle.dispose() }
        handles.removeAll()
        input.send(value: 3)
        #expect(flare_debug_live_entries() == before)
        withExtendedLifetime((signal, input)) {}
    }

    /// The live-entry count, which this build must keep.
    private func liveEntries() throws -> Int {
        let live = flare_debug_live_entries()
        try #require(live >= 0, "live entries are counted in debug builds only")
        return live
    }
}
