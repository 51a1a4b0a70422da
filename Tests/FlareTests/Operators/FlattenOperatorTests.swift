import Flare
import Foundation
import Testing

private let error1 = TestError(code: 1)
private let error2 = TestError(code: 2)

private func o(_ index: Int) -> FlattenStep { .outerValue(index) }
private func v(_ inner: Int, _ value: Int) -> FlattenStep { .inner(inner, .value(value)) }
private func completed(_ inner: Int) -> FlattenStep { .inner(inner, .completed) }
private func interrupted(_ inner: Int) -> FlattenStep { .inner(inner, .interrupted) }
private func failed(_ inner: Int, _ error: TestError) -> FlattenStep { .inner(inner, .failed(error)) }
private let outerCompleted = FlattenStep.outer(.completed)
private let outerInterrupted = FlattenStep.outer(.interrupted)
private func outerFailed(_ error: TestError) -> FlattenStep { .outer(.failed(error)) }

/// Plays `steps` for every outer kind and inner kind and checks the output's
/// events and, for the inner kinds that are producers, how often each inner
/// was started and how often its run ended (disposed or terminated).
private func check(
    _ strategy: FlattenStrategy, _ steps: [FlattenStep], _ events: [String],
    starts: [Int], ends: [Int], sourceLocation: SourceLocation = #_sourceLocation
) {
    for outer in OuterKind.allCases {
        for inner in InnerKind.allCases {
            let outcome = playFlatten(strategy, outer, inner, steps)
            #expect(outcome.events == events, "\(outer), \(inner)", sourceLocation: sourceLocation)
            if inner != .signal {
                #expect(outcome.starts == starts, "starts: \(outer), \(inner)", sourceLocation: sourceLocation)
                #expect(outcome.ends == ends, "ends: \(outer), \(inner)", sourceLocation: sourceLocation)
            }
        }
    }
}

@Suite("flatten: strategy × outer kind × inner kind × terminal kind")
struct FlattenStrategyTests {
    // MARK: merge

    @Test("merge: every inner's values as they arrive; completed after the outer and every inner")
    func mergeValues() {
        check(.merge, [o(0), v(0, 1), o(1), v(1, 2), v(0, 3), completed(0), outerCompleted, v(1, 4), completed(1)],
              ["v1", "v2", "v3", "v4", "completed"], starts: [1, 1, 0], ends: [1, 1, 0])
        check(.merge, [o(0), outerCompleted, v(0, 1), completed(0)], ["v1", "completed"], starts: [1, 0, 0], ends: [1, 0, 0])
        check(.merge, [outerCompleted], ["completed"], starts: [0, 0, 0], ends: [0, 0, 0])
    }

    @Test("merge: an inner interrupted counts as its completion")
    func mergeInnerInterrupted() {
        check(.merge, [o(0), o(1), v(0, 1), interrupted(0), v(1, 2), outerCompleted, completed(1)],
              ["v1", "v2", "completed"], starts: [1, 1, 0], ends: [1, 1, 0])
        check(.merge, [o(0), outerCompleted, interrupted(0)], ["completed"], starts: [1, 0, 0], ends: [1, 0, 0])
    }

    @Test("merge: an inner failure is forwarded at once and disposes the other inners")
    func mergeInnerFailed() {
        check(.merge, [o(0), o(1), v(0, 1), failed(1, error2), v(0, 5), o(2)],
              ["v1", "failed(E2)"], starts: [1, 1, 0], ends: [1, 1, 0])
    }

    @Test("merge: the outer's failure and interruption are forwarded and dispose the inners")
    func mergeOuterTerminal() {
        check(.merge, [o(0), v(0, 1), outerFailed(error1), v(0, 2)], ["v1", "failed(E1)"], starts: [1, 0, 0], ends: [1, 0, 0])
        check(.merge, [o(0), o(1), outerInterrupted, v(1, 2)], ["interrupted"], starts: [1, 1, 0], ends: [1, 1, 0])
    }

    // MARK: concat

    @Test("concat: one inner at a time in arrival order; an inner interrupted counts as its completion")
    func concatOrder() {
        check(.concat, [o(0), o(1), v(1, 9), v(0, 1), completed(0), v(1, 2), o(2), outerCompleted, interrupted(1), v(2, 3), completed(2)],
              ["v1", "v2", "v3", "completed"], starts: [1, 1, 1], ends: [1, 1, 1])
    }

    @Test("concat: a failure ends everything; queued inners never start")
    func concatFailure() {
        check(.concat, [o(0), o(1), failed(0, error1), completed(1)], ["failed(E1)"], starts: [1, 0, 0], ends: [1, 0, 0])
        check(.concat, [o(0), o(1), outerFailed(error2)], ["failed(E2)"], starts: [1, 0, 0], ends: [1, 0, 0])
        check(.concat, [o(0), o(1), outerInterrupted], ["interrupted"], starts: [1, 0, 0], ends: [1, 0, 0])
    }

    // MARK: concurrent

    @Test("concurrent(limit: 2): two inners at a time, the queued ones start in order")
    func concurrentLimit() {
        check(.concurrent(limit: 2),
              [o(0), o(1), o(2), v(2, 9), v(0, 1), v(1, 2), completed(1), v(2, 3), v(0, 4), outerCompleted, completed(0), completed(2)],
              ["v1", "v2", "v3", "v4", "completed"], starts: [1, 1, 1], ends: [1, 1, 1])
        check(.concurrent(limit: 2), [o(0), o(1), o(2), interrupted(0), v(2, 3), failed(1, error1)],
              ["v3", "failed(E1)"], starts: [1, 1, 1], ends: [1, 1, 1])
    }

    // MARK: latest

    @Test("latest: the running inner is disposed when the next arrives; its later events are never forwarded")
    func latestSwitch() {
        check(.latest, [o(0), v(0, 1), o(1), v(0, 2), v(1, 3), outerCompleted, completed(1)],
              ["v1", "v3", "completed"], starts: [1, 1, 0], ends: [1, 1, 0])
    }

    @Test("latest: completes once the outer and the latest inner have; an inner interrupted counts as completion")
    func latestCompletion() {
        check(.latest, [o(0), o(1), outerCompleted, completed(1)], ["completed"], starts: [1, 1, 0], ends: [1, 1, 0])
        check(.latest, [o(0), completed(0), outerCompleted], ["completed"], starts: [1, 0, 0], ends: [1, 0, 0])
        check(.latest, [o(0), outerCompleted, interrupted(0)], ["completed"], starts: [1, 0, 0], ends: [1, 0, 0])
    }

    @Test("latest: failures and interruption of the outer are forwarded")
    func latestFailures() {
        check(.latest, [o(0), o(1), failed(1, error1)], ["failed(E1)"], starts: [1, 1, 0], ends: [1, 1, 0])
        check(.latest, [o(0), o(1), failed(0, error1), v(1, 1)], ["v1"], starts: [1, 1, 0], ends: [1, 0, 0])
        check(.latest, [o(0), outerFailed(error2)], ["failed(E2)"], starts: [1, 0, 0], ends: [1, 0, 0])
        check(.latest, [o(0), outerInterrupted], ["interrupted"], starts: [1, 0, 0], ends: [1, 0, 0])
    }

    // MARK: race

    @Test("race: the first inner to send wins, the others are disposed, later inners never start")
    func raceWinner() {
        check(.race, [o(0), o(1), v(1, 10), v(0, 1), o(2), v(2, 5), outerCompleted, v(1, 11), completed(1)],
              ["v10", "v11", "completed"], starts: [1, 1, 0], ends: [1, 1, 0])
    }

    @Test("race: a terminal event wins too; the winner's interruption is forwarded")
    func raceTerminals() {
        check(.race, [o(0), o(1), completed(0), v(1, 1), outerCompleted], ["completed"], starts: [1, 1, 0], ends: [1, 1, 0])
        check(.race, [o(0), o(1), interrupted(0), v(1, 1)], ["interrupted"], starts: [1, 1, 0], ends: [1, 1, 0])
        check(.race, [o(0), o(1), failed(1, error1)], ["failed(E1)"], starts: [1, 1, 0], ends: [1, 1, 0])
        check(.race, [o(0), outerCompleted, v(0, 1), completed(0)], ["v1", "completed"], starts: [1, 0, 0], ends: [1, 0, 0])
        check(.race, [outerCompleted], ["completed"], starts: [0, 0, 0], ends: [0, 0, 0])
        check(.race, [o(0), outerFailed(error2)], ["failed(E2)"], starts: [1, 0, 0], ends: [1, 0, 0])
    }

    // MARK: throttle

    @Test("throttle: inners arriving while one runs are dropped; the next after it completes runs")
    func throttleDrops() {
        check(.throttle, [o(0), v(0, 1), o(1), v(1, 9), completed(0), o(2), v(2, 3), outerCompleted, completed(2)],
              ["v1", "v3", "completed"], starts: [1, 0, 1], ends: [1, 0, 1])
        check(.throttle, [o(0), completed(0), outerCompleted], ["completed"], starts: [1, 0, 0], ends: [1, 0, 0])
    }

    @Test("throttle: the running inner's interruption and failure are forwarded")
    func throttleTerminals() {
        check(.throttle, [o(0), interrupted(0), o(1)], ["interrupted"], starts: [1, 0, 0], ends: [1, 0, 0])
        check(.throttle, [o(0), o(1), failed(0, error1)], ["failed(E1)"], starts: [1, 0, 0], ends: [1, 0, 0])
        check(.throttle, [o(0), outerInterrupted], ["interrupted"], starts: [1, 0, 0], ends: [1, 0, 0])
    }
}
