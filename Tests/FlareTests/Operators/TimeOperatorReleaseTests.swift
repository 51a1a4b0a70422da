import Dispatch
import Flare
import Foundation
import Synchronization
import Testing

/// A `TestScheduler` that counts the scheduled actions still held by anyone
/// (its queue, or a disposable not yet released): each action is wrapped in a
/// closure holding a token, and the token counts itself down when the
/// closure is released.
private final class ActionCountingScheduler: DateScheduler, @unchecked Sendable {
    let base = TestScheduler()
    private let counter = Counter()

    private final class Token: Sendable {
        let counter: Counter
        init(_ counter: Counter) {
            self.counter = counter
            counter.value.add(1, ordering: .relaxed)
        }
        deinit { counter.value.subtract(1, ordering: .relaxed) }
    }

    /// Scheduled actions not yet released.
    var heldActions: Int { counter.count }

    private func counted(_ action: @escaping @Sendable () -> Void) -> @Sendable () -> Void {
        let token = Token(counter)
        return {
            withExtendedLifetime(token) {}
            action()
        }
    }

    var currentDate: Date { base.currentDate }

    func schedule(_ action: @escaping @Sendable () -> Void) -> Disposable? {
        base.schedule(counted(action))
    }

    func schedule(after date: Date, action: @escaping @Sendable () -> Void) -> Disposable? {
        base.schedule(after: date, action: counted(action))
    }

    func schedule(
        after date: Date,
        interval: DispatchTimeInterval,
        leeway: DispatchTimeInterval,
        action: @escaping @Sendable () -> Void
    ) -> Disposable? {
        base.schedule(after: date, interval: interval, leeway: leeway, action: counted(action))
    }
}

/// How a release test ends the output.
enum OutputEnding: CaseIterable, CustomStringConvertible {
    case disposeOutput, completeSource, failSource

    var description: String {
        switch self {
        case .disposeOutput: "output disposed"
        case .completeSource: "source completed"
        case .failSource: "source failed"
        }
    }
}

/// Builds `op` over a fresh pipe on an `ActionCountingScheduler`, sends a
/// value, lets the scheduler run what is due, sends another (so something is
/// scheduled for later: throttle's and debounce's sends, collect's timer,
/// lazyMap's work, observe(on:)'s hop, timeout's failure), ends the output as
/// `ending` says, lets the scheduler run what is due now, and returns whether the upstream is
/// still observed and how many scheduled actions are still held.
private func afterEnding(
    _ ending: OutputEnding,
    _ op: (Signal<Int, TestError>, ActionCountingScheduler) -> Signal<Int, TestError>
) -> (upstreamObserved: Bool, heldActions: Int, terminal: [String]) {
    let scheduler = ActionCountingScheduler()
    let probe = UpstreamProbe()
    let (signal, input) = Signal<Int, TestError>.pipe()
    let log = Recorder<String>()
    let disposable = op(probe.wrap(signal), scheduler).observe { event in
        if case .value = event { return }
        log.append(describe(event))
    }
    input.send(value: 1)
    scheduler.base.advance()
    input.send(value: 2)
    switch ending {
    case .disposeOutput: disposable?.dispose()
    case .completeSource: input.sendCompleted()
    case .failSource: input.send(error: TestError(code: 1))
    }
    scheduler.base.advance()
    return (probe.isObserved, scheduler.heldActions, log.items)
}

/// No leak of the time operators: once their output has terminated or been
/// disposed, the upstream observation and every action they scheduled
/// (pending sends, timers, and the hop to the scheduler) are released, even
/// though the scheduler itself lives on and is not advanced past them.
@Suite("Time operators release what they scheduled")
struct TimeOperatorReleaseTests {
    @Test("throttle, debounce, collect(every:), lazyMap, observe(on:), timeout", arguments: OutputEnding.allCases)
    func released(_ ending: OutputEnding) {
        let operators: [(String, (Signal<Int, TestError>, ActionCountingScheduler) -> Signal<Int, TestError>)] = [
            ("throttle", { $0.throttle(2, on: $1) }),
            ("debounce", { $0.debounce(2, on: $1) }),
            ("collect(every:)", { $0.collect(every: .seconds(2), on: $1).map { $0.count } }),
            ("lazyMap", { $0.lazyMap(on: $1) { $0 } }),
            ("observe(on:)", { $0.observe(on: $1) }),
            ("timeout", { $0.timeout(after: 5, raising: TestError(code: 9), on: $1) }),
        ]
        for (name, op) in operators {
            let result = afterEnding(ending, op)
            #expect(!result.upstreamObserved, "\(name), \(ending): upstream still observed")
            #expect(result.heldActions == 0, "\(name), \(ending): \(result.heldActions) scheduled action(s) held")
            if ending != .disposeOutput {
                #expect(result.terminal.count == 1, "\(name), \(ending): \(result.terminal)")
            }
        }
    }

    @Test("delay: a pending send is kept until it is due, then released, as in ReactiveSwift", arguments: OutputEnding.allCases)
    func delayReleasesWhenDue(_ ending: OutputEnding) {
        let scheduler = ActionCountingScheduler()
        let probe = UpstreamProbe()
        let (signal, input) = Signal<Int, TestError>.pipe()
        let disposable = probe.wrap(signal).delay(5, on: scheduler).observe { _ in }
        input.send(value: 1)
        switch ending {
        case .disposeOutput: disposable?.dispose()
        case .completeSource: input.sendCompleted()
        case .failSource: input.send(error: TestError(code: 1))
        }
        scheduler.base.advance()
        #expect(!probe.isObserved)
        #expect(scheduler.heldActions == (ending == .completeSource ? 2 : 1))
        scheduler.base.advance(by: 5)
        #expect(scheduler.heldActions == 0)
    }
}
