import Testing
@testable import Flare

/// The one-shot decision behind `URLSession.reactive.data(with:)`: a task
/// is cancelled only if its completion handler has not run, and its
/// completion handler delivers only if the task was not cancelled. The race
/// it closes needs a live task and a window of a few instructions, so the
/// decision is tested here directly.
@Suite("URLSession data task's end")
struct URLSessionTaskEndTests {
    @Test("whichever of finish and cancel claims first wins; every later claim is refused")
    func firstClaimWins() {
        let finished = _TaskEnd()
        #expect(finished.finish())
        #expect(!finished.cancel())
        #expect(!finished.finish())
        let cancelled = _TaskEnd()
        #expect(cancelled.cancel())
        #expect(!cancelled.finish())
        #expect(!cancelled.cancel())
    }

    @Test("finish and cancel racing on two threads: exactly one wins, every round")
    func racingClaims() {
        for _ in 0..<200 {
            let end = _TaskEnd()
            let wins = Counter()
            onThreads(2) { thread in
                if thread == 0 ? end.finish() : end.cancel() { wins.increment() }
            }
            #expect(wins.count == 1)
        }
    }
}
