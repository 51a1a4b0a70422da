import Dispatch
import Foundation
import Synchronization
import Testing
@testable import Flare

// Scheduler actions are `@Sendable`. These tests run them on the test's own
// thread (TestScheduler, ImmediateScheduler) or hand them to a queue and wait
// for it, and record into locals marked `nonisolated(unsafe)`: the ordering
// is the test's to prove, and ThreadSanitizer checks the queue cases.

// MARK: Helpers

/// A thread-safe log of values, for actions that run on other threads.
/// (_PThreadMutex, not Synchronization.Mutex: TSan cannot see the latter on Linux.)
private final class Log<Value: Sendable>: Sendable {
    private let storage = _PThreadMutex<[Value]>([])
    func append(_ value: Value) { storage.withLock { $0.append(value) } }
    var values: [Value] { storage.withLock { $0 } }
    var count: Int { storage.withLock { $0.count } }
}

/// An object whose deallocation a test can observe through a weak reference.
private final class Probe: Sendable {}

/// A weak reference that can be read from any thread.
private final class WeakBox<T: AnyObject & Sendable>: Sendable {
    private let storage: _PThreadMutex<WeakRef>
    private struct WeakRef: @unchecked Sendable { weak var value: T? }
    init(_ value: T) { storage = _PThreadMutex(WeakRef(value: value)) }
    var value: T? { storage.withLock { $0.value } }
}

private func waitFor(_ semaphore: DispatchSemaphore) -> Bool {
    semaphore.wait(timeout: .now() + patience) == .success
}

private let t0 = Date(timeIntervalSinceReferenceDate: 0)
private func at(_ seconds: TimeInterval) -> Date { t0.addingTimeInterval(seconds) }

// MARK: - Interval arithmetic

@Suite("DispatchTimeInterval arithmetic") struct TimeIntervalArithmeticTests {
    @Test("timeInterval of each unit in seconds; never is infinity") func secondsOfEachUnit() {
        #expect(DispatchTimeInterval.seconds(3).timeInterval == 3)
        #expect(DispatchTimeInterval.milliseconds(1500).timeInterval == 1.5)
        #expect(DispatchTimeInterval.microseconds(250).timeInterval == 0.000_25)
        #expect(DispatchTimeInterval.nanoseconds(5).timeInterval == 0.000_000_005)
        #expect(DispatchTimeInterval.never.timeInterval == .infinity)
    }

    @Test("scaling an interval gives nanoseconds; never, or an overflow, stays never") func scalingIsInNanosecondsAndKeepsNever() {
        #expect(DispatchTimeInterval.seconds(10) * 0.1 == .nanoseconds(1_000_000_000))
        #expect(DispatchTimeInterval.milliseconds(20) * 0.5 == .nanoseconds(10_000_000))
        #expect(DispatchTimeInterval.never * 0.1 == .never)
        #expect(DispatchTimeInterval.seconds(Int.max) * 10 == .never)
    }

    /// As in ReactiveSwift: a product too large for `Int` nanoseconds falls
    /// back to a coarser unit instead of becoming `.never`.
    @Test("scaling past Int nanoseconds falls back to a coarser unit, as ReactiveSwift does") func scalingALargeIntervalFallsBackToACoarserUnit() {
        #expect(DispatchTimeInterval.seconds(Int.max) * 0.01 == .seconds(Int((Double(Int.max) * 0.01).rounded())))
        #expect(DispatchTimeInterval.seconds(100_000_000_000) * 0.5 == .microseconds(50_000_000_000_000_000))
        #expect(DispatchTimeInterval.seconds(1) * 0.000_000_000_4 == .nanoseconds(0))
        #expect(DispatchTimeInterval.seconds(1) * 0.000_000_000_6 == .nanoseconds(1))
    }

    @Test("negating an interval keeps its unit; never stays never") func negation() {
        #expect(-DispatchTimeInterval.seconds(2) == .seconds(-2))
        #expect(-DispatchTimeInterval.milliseconds(2) == .milliseconds(-2))
        #expect(-DispatchTimeInterval.microseconds(2) == .microseconds(-2))
        #expect(-DispatchTimeInterval.nanoseconds(2) == .nanoseconds(-2))
        #expect(-DispatchTimeInterval.never == .never)
    }

    @Test("Date plus an interval, and TimeInterval to DispatchTimeInterval, convert exactly; never is past the distant future") func dateAndTimeIntervalConversions() {
        #expect(t0.addingTimeInterval(DispatchTimeInterval.milliseconds(1500)) == at(1.5))
        #expect(t0.addingTimeInterval(DispatchTimeInterval.never) > .distantFuture)
        #expect((2.5 as TimeInterval).dispatchTimeInterval == .nanoseconds(2_500_000_000))
        #expect(TimeInterval.infinity.dispatchTimeInterval == .never)
    }
}

// MARK: - ImmediateScheduler

@Suite("ImmediateScheduler") struct ImmediateSchedulerTests {
    @Test("ImmediateScheduler runs the action before schedule returns, on the calling thread, and returns nil") func runsSynchronouslyOnTheCallingThreadAndReturnsNil() {
        let scheduler = ImmediateScheduler()
        nonisolated(unsafe) var steps: [String] = []
        let disposable = scheduler.schedule { steps.append("action") }
        steps.append("returned")
        #expect(steps == ["action", "returned"])
        #expect(disposable == nil)
    }

    @Test("an action scheduled from an action runs inline, inside it") func nestedSchedulingRunsInline() {
        let scheduler = ImmediateScheduler()
        nonisolated(unsafe) var steps: [Int] = []
        scheduler.schedule {
            steps.append(1)
            scheduler.schedule { steps.append(2) }
            steps.append(3)
        }
        #expect(steps == [1, 2, 3])
    }
}

// MARK: - TestScheduler

@Suite("TestScheduler") struct TestSchedulerTests {
    @Test("a TestScheduler starts at the reference date unless given one") func startsAtTheReferenceDateByDefault() {
        #expect(TestScheduler().currentDate == t0)
        #expect(TestScheduler(startDate: at(42)).currentDate == at(42))
    }

    @Test("releasing a TestScheduler releases its queued actions; disposing a handle afterwards does nothing")
    func releasingTheSchedulerReleasesItsActions() {
        let watch = WeakCanary()
        var handle: Disposable?
        do {
            let scheduler = TestScheduler()
            let canary = Canary()
            watch.canary = canary
            for delay in [1, 2] {
                scheduler.schedule(after: .seconds(delay)) { withExtendedLifetime(canary) {} }
            }
            handle = scheduler.schedule(after: .seconds(3)) {}
        }
        #expect(!watch.isAlive)
        handle?.dispose()
        #expect(handle?.isDisposed == true)
    }

    @Test("nothing scheduled runs until the clock is advanced") func nothingRunsUntilTheClockMoves() {
        let scheduler = TestScheduler()
        nonisolated(unsafe) var ran = 0
        scheduler.schedule { ran += 1 }
        scheduler.schedule(after: at(0)) { ran += 1 }
        #expect(ran == 0)
        scheduler.advance()
        #expect(ran == 2)
        #expect(scheduler.currentDate == at(0.000_000_001))
    }

    @Test("actions due at the same date run in the order they were scheduled") func sameDateActionsRunInSchedulingOrder() {
        let scheduler = TestScheduler()
        nonisolated(unsafe) var order: [String] = []
        scheduler.schedule(after: at(5)) { order.append("A5") }
        scheduler.schedule(after: at(3)) { order.append("B3") }
        scheduler.schedule(after: at(5)) { order.append("C5") }
        scheduler.schedule(after: at(3)) { order.append("D3") }
        scheduler.schedule(after: at(5)) { order.append("E5") }
        for i in 0..<50 { scheduler.schedule(after: at(4)) { order.append("F\(i)") } }
        scheduler.advance(by: .seconds(5))
        #expect(order == ["B3", "D3"] + (0..<50).map { "F\($0)" } + ["A5", "C5", "E5"])
    }

    @Test("advance runs exactly what is due, with the clock at each action's date while it runs") func advanceRunsExactlyWhatIsDueAndSetsTheClockPerAction() {
        let scheduler = TestScheduler()
        nonisolated(unsafe) var seen: [Date] = []
        for s in [1.0, 2, 3] { scheduler.schedule(after: at(s)) { seen.append(scheduler.currentDate) } }
        scheduler.advance(to: at(2))
        #expect(seen == [at(1), at(2)])
        #expect(scheduler.currentDate == at(2))
        scheduler.advance(by: 0.5)
        #expect(seen == [at(1), at(2)])
        #expect(scheduler.currentDate == at(2.5))
        scheduler.advance(by: .milliseconds(500))
        #expect(seen == [at(1), at(2), at(3)])
        #expect(scheduler.pendingCount == 0)
    }

    @Test("a delay counts from the scheduler's current date, not from its start") func delayIsCountedFromTheCurrentDate() {
        let scheduler = TestScheduler(startDate: at(10))
        nonisolated(unsafe) var ran = false
        scheduler.schedule(after: .seconds(2)) { ran = true }
        scheduler.advance(by: .milliseconds(1999))
        #expect(!ran)
        scheduler.advance(by: .milliseconds(1))
        #expect(ran)
        #expect(scheduler.currentDate == at(12))
    }

    @Test("a repeating action fires once per interval that an advance crosses") func repeatingActionFiresOncePerIntervalWhileAdvancing() {
        let scheduler = TestScheduler()
        nonisolated(unsafe) var fired: [Date] = []
        let d = scheduler.schedule(after: at(1), interval: .seconds(2), leeway: .seconds(0)) {
            fired.append(scheduler.currentDate)
        }
        scheduler.advance(by: .seconds(10))
        #expect(fired == [at(1), at(3), at(5), at(7), at(9)])
        scheduler.advance(by: .milliseconds(999))
        #expect(fired.count == 5)
        scheduler.advance(by: .milliseconds(1))
        #expect(fired == [at(1), at(3), at(5), at(7), at(9), at(11)])
        d?.dispose()
        scheduler.advance(by: .seconds(100))
        #expect(fired.count == 6)
        #expect(scheduler.pendingCount == 0)
    }

    @Test("the protocol's default-leeway and delay forms of a repeating schedule repeat, and stop when disposed") func defaultLeewayAndDelayFormsRepeatThroughTheProtocol() {
        let scheduler = TestScheduler()
        let asProtocol: DateScheduler = scheduler
        nonisolated(unsafe) var a = 0
        nonisolated(unsafe) var b = 0
        let da = asProtocol.schedule(after: at(1), interval: .seconds(1)) { a += 1 }
        let db = asProtocol.schedule(after: .seconds(2), interval: .milliseconds(500)) { b += 1 }
        scheduler.advance(by: .seconds(3))
        #expect(a == 3)  // 1, 2, 3
        #expect(b == 3)  // 2, 2.5, 3
        da?.dispose()
        db?.dispose()
        scheduler.run()
        #expect(a == 3 && b == 3)
    }

    @Test("a repeating action with interval never runs once") func neverIntervalRunsOnce() {
        let scheduler = TestScheduler()
        nonisolated(unsafe) var ran = 0
        scheduler.schedule(after: at(1), interval: .never, leeway: .seconds(0)) { ran += 1 }
        scheduler.run()
        #expect(ran == 1)
    }

    @Test("disposing a one-shot action removes it: it never runs and nothing stays pending") func disposalRemovesAOneShotAction() {
        let scheduler = TestScheduler()
        nonisolated(unsafe) var ran = false
        let d = scheduler.schedule(after: at(1)) { ran = true }
        #expect(scheduler.pendingCount == 1)
        #expect(d?.isDisposed == false)
        d?.dispose()
        #expect(d?.isDisposed == true)
        #expect(scheduler.pendingCount == 0)
        scheduler.run()
        #expect(!ran)
    }

    @Test("an action disposed by an earlier action due at the same date does not run") func actionDisposedByAnEarlierSameDateActionDoesNotRun() {
        let scheduler = TestScheduler()
        nonisolated(unsafe) var order: [Int] = []
        nonisolated(unsafe) var second: Disposable?
        scheduler.schedule { order.append(1); second?.dispose() }
        second = scheduler.schedule { order.append(2) }
        scheduler.schedule { order.append(3) }
        scheduler.advance()
        #expect(order == [1, 3])
    }

    @Test("a repeating action that disposes itself does not run again") func repeatingActionDisposingItselfStops() {
        let scheduler = TestScheduler()
        nonisolated(unsafe) var fired = 0
        nonisolated(unsafe) var disposable: Disposable?
        disposable = scheduler.schedule(after: at(1), interval: .seconds(1), leeway: .seconds(0)) {
            fired += 1
            if fired == 3 { disposable?.dispose() }
        }
        scheduler.run()  // would not return if the repetition went on
        #expect(fired == 3)
        #expect(scheduler.currentDate == .distantFuture)
        // The action holds the box of `disposable`, which holds the action's
        // entry: release the entry so that cycle goes.
        disposable = nil
    }

    @Test("actions scheduled by actions run within the same advance when they fall due in it") func actionsScheduledByActionsRunInTheSameAdvanceWhenDue() {
        let scheduler = TestScheduler()
        nonisolated(unsafe) var order: [String] = []
        scheduler.schedule(after: at(1)) {
            order.append("outer@1")
            scheduler.schedule(after: at(2)) { order.append("later@2") }
            scheduler.schedule { order.append("now@1") }
            scheduler.schedule(after: at(10)) { order.append("late@10") }
        }
        scheduler.advance(to: at(5))
        #expect(order == ["outer@1", "now@1", "later@2"])
        scheduler.run()
        #expect(order.last == "late@10")
    }

    @Test("an advance from inside an action keeps the actions' order and never moves the clock back") func reentrantAdvanceFromAnActionKeepsOrderAndTheClockMonotonic() {
        let scheduler = TestScheduler()
        nonisolated(unsafe) var seen: [Date] = []
        scheduler.schedule(after: at(1)) {
            seen.append(scheduler.currentDate)
            scheduler.advance(by: .seconds(3))  // runs the actions at 2 and 4
        }
        scheduler.schedule(after: at(2)) { seen.append(scheduler.currentDate) }
        scheduler.schedule(after: at(4)) { seen.append(scheduler.currentDate) }
        scheduler.schedule(after: at(5)) { seen.append(scheduler.currentDate) }
        scheduler.advance(to: at(3))
        #expect(seen == [at(1), at(2), at(4)])
        #expect(scheduler.currentDate == at(4))  // not moved back to 3
        // The action still pending at 5 captures the scheduler that holds it:
        // run it so the scheduler is released.
        scheduler.run()
        #expect(seen == [at(1), at(2), at(4), at(5)])
    }

    @Test("an action scheduled in the past runs at the next advance without moving the clock back") func pastDueActionRunsWithoutMovingTheClockBack() {
        let scheduler = TestScheduler(startDate: at(10))
        nonisolated(unsafe) var seen: Date?
        scheduler.schedule(after: at(5)) { seen = scheduler.currentDate }
        scheduler.advance()
        #expect(seen == at(10))
    }

    @Test("rewind moves the clock back; queued actions keep their dates") func rewindMovesTheClockBackAndQueuedDatesStay() {
        let scheduler = TestScheduler()
        scheduler.advance(to: at(10))
        nonisolated(unsafe) var order: [String] = []
        scheduler.schedule(after: at(11)) { order.append("at11") }
        scheduler.rewind(by: .seconds(4))
        #expect(scheduler.currentDate == at(6))
        scheduler.schedule { order.append("now6") }
        scheduler.advance(by: .seconds(4))  // to 10
        #expect(order == ["now6"])
        scheduler.advance(by: .seconds(1))  // to 11
        #expect(order == ["now6", "at11"])
    }

    @Test("run performs every pending action and leaves the clock at the distant future") func runDrainsEverythingAndEndsAtTheDistantFuture() {
        let scheduler = TestScheduler()
        nonisolated(unsafe) var ran: [Int] = []
        scheduler.schedule(after: at(1_000_000)) { ran.append(2) }
        scheduler.schedule(after: at(1)) { ran.append(1) }
        scheduler.run()
        #expect(ran == [1, 2])
        #expect(scheduler.currentDate == .distantFuture)
    }

    @Test("actions scheduled from eight threads at once, some then disposed: each kept one runs once, no disposed one runs") func concurrentSchedulingLosesNothing() {
        let scheduler = TestScheduler()
        let log = Log<Int>()
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for i in 0..<200 {
                let d = scheduler.schedule(after: at(Double(i % 7))) { log.append(thread * 1000 + i) }
                if i % 10 == 9 { d?.dispose() }
            }
        }
        scheduler.run()
        let expected = (0..<8).flatMap { t in (0..<200).filter { $0 % 10 != 9 }.map { t * 1000 + $0 } }
        #expect(log.values.sorted() == expected.sorted())
    }

    @Test("sleep(for:) resumes only once the clock reaches its date") func sleepResumesWhenTheClockReachesItsDate() async throws {
        let scheduler = TestScheduler()
        let task = Task { @MainActor in try await scheduler.sleep(for: .seconds(5)) }
        #expect(await eventuallyAsync { scheduler.pendingCount == 1 })
        advanceSynchronously(scheduler, by: .seconds(4))
        #expect(scheduler.pendingCount == 1)
        advanceSynchronously(scheduler, by: .seconds(1))
        try await task.value
        #expect(scheduler.pendingCount == 0)
    }

    @Test("sleep(until:) resumes when the clock reaches the date") func sleepUntilADate() async throws {
        let scheduler = TestScheduler()
        let task = Task { @MainActor in try await scheduler.sleep(until: at(3)) }
        #expect(await eventuallyAsync { scheduler.pendingCount == 1 })
        advanceSynchronously(scheduler, to: at(3))
        try await task.value
    }

    @Test("cancelling a sleeping task throws CancellationError and removes its wake-up") func cancellingASleepThrowsAndRemovesTheWakeUp() async {
        let scheduler = TestScheduler()
        let task = Task { @MainActor in try await scheduler.sleep(for: .seconds(5)) }
        #expect(await eventuallyAsync { scheduler.pendingCount == 1 })
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(scheduler.pendingCount == 0)
    }

    @Test("sleeping in an already cancelled task throws at once, scheduling nothing") func sleepingInACancelledTaskThrowsAtOnce() async {
        let scheduler = TestScheduler()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await scheduler.sleep(for: .seconds(5))
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(scheduler.pendingCount == 0)
    }

    @Test("timer yields the date of each tick and stops when its task is cancelled") func timerStreamYieldsEachTickAndStopsWhenCancelled() async {
        let scheduler = TestScheduler()
        let stream = scheduler.timer(interval: .seconds(1))
        #expect(scheduler.pendingCount == 1)
        advanceSynchronously(scheduler, by: .seconds(3))
        let consumer = Task {
            var dates: [Date] = []
            for await date in stream {
                dates.append(date)
                if dates.count == 3 { withUnsafeCurrentTask { $0?.cancel() } }
            }
            return dates
        }
        #expect(await consumer.value == [at(1), at(2), at(3)])
        #expect(scheduler.pendingCount == 0)
    }
}

extension TestSchedulerTests {
    @Test("leaving a for-await loop over timer disposes the timer's action") func leavingATimerLoopDisposesTheTimer() async {
        let scheduler = TestScheduler()
        let consumer = Task { @MainActor in
            var dates: [Date] = []
            for await date in scheduler.timer(interval: .seconds(1)) {
                dates.append(date)
                if dates.count == 2 { break }
            }
            return dates
        }
        #expect(await eventuallyAsync { scheduler.pendingCount == 1 })
        advanceSynchronously(scheduler, by: .seconds(5))
        #expect(await consumer.value == [at(1), at(2)])
        #expect(await eventuallyAsync { scheduler.pendingCount == 0 })
        advanceSynchronously(scheduler, by: .seconds(5))  // nothing left to feed
    }

    @Test("a timer's iterator waits for the clock to reach each tick") func timerStreamWaitsForTicks() async {
        let scheduler = TestScheduler()
        let stream = scheduler.timer(interval: .milliseconds(500))
        let consumer = Task {
            var dates: [Date] = []
            for await date in stream {
                dates.append(date)
                if dates.count == 3 { break }
            }
            return dates
        }
        for _ in 0..<3 {
            try? await Task.sleep(nanoseconds: 5_000_000)
            advanceSynchronously(scheduler, by: .milliseconds(500))
        }
        #expect(await consumer.value == [at(0.5), at(1), at(1.5)])
    }
}

/// The synchronous `advance(by:)`, for async tests that drive the clock
/// from outside Swift concurrency: in an async context `scheduler.advance`
/// resolves to the `@MainActor` async overload, in this synchronous function
/// to the synchronous one.
private func advanceSynchronously(_ scheduler: TestScheduler, by interval: DispatchTimeInterval) {
    scheduler.advance(by: interval)
}

/// The synchronous `advance(to:)`; see `advanceSynchronously(_:by:)`.
private func advanceSynchronously(_ scheduler: TestScheduler, to date: Date) {
    scheduler.advance(to: date)
}

// The tasks the async tests wait for (`eventuallyAsync`) run on the main
// actor (`Task { @MainActor in … }`), not on the cooperative pool: under
// ThreadSanitizer, with the whole suite on two cores, tests that block pool
// threads can keep a pool task from starting for the whole patience.

// MARK: - TestScheduler from Swift concurrency

/// The `@MainActor` async `advance`/`run`: a `@MainActor` test awaits them,
/// and tasks that sleep on, or iterate a timer of, the scheduler are woken
/// without any polling.
@Suite("TestScheduler from Swift concurrency") @MainActor struct TestSchedulerAsyncTests {
    @Test("await advance(by:) wakes a task sleeping for an interval, and returns after it ran") func awaitingAdvanceWakesATaskSleepingForAnInterval() async {
        let scheduler = TestScheduler()
        let woke = Log<Date>()
        // Inherits the main actor: it cannot even start until the test
        // suspends, which only the async `advance` does.
        let task = Task {
            try await scheduler.sleep(for: .seconds(5))
            woke.append(scheduler.currentDate)
        }
        await scheduler.advance(by: .seconds(4))
        #expect(woke.values == [])
        #expect(scheduler.pendingCount == 1)
        await scheduler.advance(by: .seconds(1))
        #expect(woke.values == [at(5)])
        #expect(scheduler.pendingCount == 0)
        task.cancel()
        #expect(await task.result.isSuccess)
    }

    @Test("await advance(to:) wakes a task sleeping until a date, and returns after it ran") func awaitingAdvanceWakesATaskSleepingUntilADate() async {
        let scheduler = TestScheduler()
        let woke = Log<Date>()
        let task = Task {
            try await scheduler.sleep(until: at(3))
            woke.append(scheduler.currentDate)
        }
        await scheduler.advance(by: 2.5)
        #expect(woke.values == [])
        await scheduler.advance(to: at(10))
        #expect(woke.values == [at(3)])
        #expect(scheduler.currentDate == at(10))
        task.cancel()
        #expect(await task.result.isSuccess)
    }

    @Test("a task woken by an advance runs, and its next sleep due within the advance is woken by it too") func aTaskWokenByAnAdvanceRunsAndSleepsAgainWithinIt() async {
        let scheduler = TestScheduler()
        let woke = Log<Date>()
        let task = Task {
            for _ in 0..<3 {
                try await scheduler.sleep(for: .seconds(2))
                woke.append(scheduler.currentDate)
            }
        }
        // Each wake-up schedules the next sleep, relative to the date it woke
        // at; all three are due within this one advance.
        await scheduler.advance(by: .seconds(7))
        #expect(woke.values == [at(2), at(4), at(6)])
        #expect(scheduler.currentDate == at(7))
        task.cancel()
        #expect(await task.result.isSuccess)
    }

    @Test("await advance delivers a timer's ticks at each interval of virtual time") func timerTicksAtEachIntervalOfVirtualTime() async {
        let scheduler = TestScheduler()
        let dates = Log<Date>()
        let mismatches = Log<Date>()
        let task = Task {
            for await date in scheduler.timer(interval: .seconds(1)) {
                if scheduler.currentDate != date { mismatches.append(date) }
                dates.append(date)
            }
        }
        await scheduler.advance(by: .milliseconds(900))
        #expect(dates.values == [])
        await scheduler.advance(by: .seconds(1))
        #expect(dates.values == [at(1)])
        await scheduler.advance()
        #expect(dates.values == [at(1)])
        await scheduler.advance(by: .milliseconds(200))
        #expect(dates.values == [at(1), at(2)])
        await scheduler.advance(by: .seconds(1))
        #expect(dates.values == [at(1), at(2), at(3)])
        #expect(mismatches.values == [])
        task.cancel()
        await task.value
        #expect(scheduler.pendingCount == 0)
    }

    @Test("await advance() runs what is due now, on the main actor") func advanceRunsWhatIsDueNowOnTheMainActor() async {
        let scheduler = TestScheduler()
        var string = ""
        scheduler.schedule { MainActor.assumeIsolated { string += "foo" } }
        scheduler.schedule { MainActor.assumeIsolated { string += "bar" } }
        #expect(string.isEmpty)
        await scheduler.advance()
        #expect(string == "foobar")
        #expect(scheduler.currentDate == at(0.000_000_001))
    }

    @Test("await advance(by:) takes a DispatchTimeInterval or a TimeInterval and runs what falls due") func advanceByEitherIntervalTypeRunsWhatFallsDue() async {
        for useTimeInterval in [false, true] {
            let scheduler = TestScheduler()
            let ran = Log<String>()
            scheduler.schedule(after: at(15)) { ran.append("bar@\(scheduler.currentDate == at(15))") }
            scheduler.schedule(after: at(5)) { ran.append("foo@\(scheduler.currentDate == at(5))") }
            if useTimeInterval { await scheduler.advance(by: 10) } else { await scheduler.advance(by: .seconds(10)) }
            #expect(scheduler.currentDate == at(10))
            #expect(ran.values == ["foo@true"])
            if useTimeInterval { await scheduler.advance(by: 10) } else { await scheduler.advance(by: .seconds(10)) }
            #expect(scheduler.currentDate == at(20))
            #expect(ran.values == ["foo@true", "bar@true"])
        }
    }

    @Test("await run() performs everything in date order, including what the tasks it wakes schedule") func runDrainsEverythingInOrderIncludingWhatWokenTasksSchedule() async {
        let scheduler = TestScheduler()
        let ran = Log<String>()
        scheduler.schedule(after: at(15)) { ran.append("bar") }
        scheduler.schedule(after: at(5)) { ran.append("foo") }
        scheduler.schedule { ran.append("now") }
        let task = Task {
            try await scheduler.sleep(until: at(10))
            ran.append("woke")
            try await scheduler.sleep(until: at(20))
            ran.append("woke again")
        }
        await scheduler.run()
        #expect(ran.values == ["now", "foo", "woke", "bar", "woke again"])
        #expect(scheduler.currentDate == .distantFuture)
        task.cancel()  // a no-op unless a regression left it asleep
        #expect(await task.result.isSuccess)
    }

    @Test("sleeping until a date already reached returns at once, scheduling nothing") func sleepingUntilADeadlineAlreadyReachedReturnsAtOnce() async throws {
        let scheduler = TestScheduler(startDate: at(10))
        try await scheduler.sleep(until: at(10))
        try await scheduler.sleep(until: at(3))
        try await scheduler.sleep(for: .seconds(0))
        #expect(scheduler.pendingCount == 0)
        #expect(scheduler.currentDate == at(10))
        let queue = QueueScheduler(name: "flare.test.past-deadline")
        try await queue.sleep(until: Date(timeIntervalSinceNow: -1))
    }

    @Test("sleeping until a reached date in a cancelled task throws") func sleepingUntilAReachedDeadlineInACancelledTaskThrows() async {
        let scheduler = TestScheduler(startDate: at(10))
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await scheduler.sleep(until: at(3))
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(scheduler.pendingCount == 0)
    }
}

extension Result {
    fileprivate var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }
}

// MARK: - QueueScheduler

@Suite("QueueScheduler") struct QueueSchedulerTests {
    private static let key = DispatchSpecificKey<String>()

    /// A scheduler whose queue is tagged, so actions can tell where they run.
    private func taggedScheduler(_ tag: String) -> QueueScheduler {
        let scheduler = QueueScheduler(name: "flare.test.\(tag)")
        scheduler.queue.setSpecific(key: Self.key, value: tag)
        return scheduler
    }

    @Test("QueueScheduler runs an action on its queue, after schedule returns") func runsOnItsQueueAsynchronously() {
        let scheduler = taggedScheduler("own")
        let done = DispatchSemaphore(value: 0)
        let where_ = Log<String?>()
        let gate = DispatchSemaphore(value: 0)
        scheduler.schedule { gate.wait() }  // hold the queue: the next action cannot run inline
        let d = scheduler.schedule {
            where_.append(DispatchQueue.getSpecific(key: Self.key))
            done.signal()
        }
        #expect(where_.count == 0)
        gate.signal()
        #expect(waitFor(done))
        #expect(where_.values == ["own"])
        #expect(d != nil)
    }

    @Test("actions run one at a time, in the order they were scheduled") func actionsRunSeriallyInOrder() {
        let scheduler = QueueScheduler()
        let log = Log<Int>()
        let done = DispatchSemaphore(value: 0)
        let running = Atomic<Int>(0)
        let overlaps = Atomic<Int>(0)
        for i in 0..<1000 {
            scheduler.schedule {
                if running.add(1, ordering: .relaxed).newValue != 1 { overlaps.add(1, ordering: .relaxed) }
                log.append(i)
                running.subtract(1, ordering: .relaxed)
                if i == 999 { done.signal() }
            }
        }
        #expect(waitFor(done))
        #expect(log.values == Array(0..<1000))
        #expect(overlaps.load(ordering: .relaxed) == 0)
    }

    @Test("a scheduler made with a target queue runs its actions through that queue") func targetingRunsThroughTheTargetQueue() {
        let target = DispatchQueue(label: "flare.test.target", attributes: .concurrent)
        target.setSpecific(key: Self.key, value: "target")
        let scheduler = QueueScheduler(qos: .utility, name: "flare.test.targeting", targeting: target)
        let seen = Log<String?>()
        let done = DispatchSemaphore(value: 0)
        scheduler.schedule { seen.append(DispatchQueue.getSpecific(key: Self.key)); done.signal() }
        #expect(waitFor(done))
        #expect(seen.values == ["target"])
    }

    @Test("the default QoS is unspecified, so the queue inherits its callers' QoS") func defaultQoSIsUnspecifiedSoTheQueueInheritsItsCallers() {
        // ReactiveSwift 7.2: a defaulted qos leaves the queue unspecified, so
        // work inherits the QoS of whoever schedules it.
        #expect(QueueScheduler().queue.qos == .unspecified)
        #expect(QueueScheduler(name: "flare.test.named").queue.qos == .unspecified)
        #expect(QueueScheduler(qos: .utility).queue.qos.qosClass == .utility)
    }

    @Test("an action disposed before it starts never runs") func disposedBeforeStartingNeverRuns() {
        let scheduler = QueueScheduler()
        let gate = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let log = Log<String>()
        scheduler.schedule { gate.wait() }
        let cancelled = scheduler.schedule { log.append("cancelled") }
        scheduler.schedule { log.append("kept"); done.signal() }
        cancelled?.dispose()
        gate.signal()
        #expect(waitFor(done))
        // FIFO: the cancelled action's turn came before "kept".
        #expect(log.values == ["kept"])
    }

    @Test("an action scheduled for a past date runs as soon as possible, on the queue") func pastDatesRunAsSoonAsPossibleOnTheQueue() {
        let scheduler = taggedScheduler("past")
        let done = DispatchSemaphore(value: 0)
        let seen = Log<String?>()
        for date in [Date.distantPast, Date(timeIntervalSince1970: 0), Date().addingTimeInterval(-5)] {
            scheduler.schedule(after: date) { seen.append(DispatchQueue.getSpecific(key: Self.key)); done.signal() }
        }
        for _ in 0..<3 { #expect(waitFor(done)) }
        #expect(seen.values == ["past", "past", "past"])
    }

    @Test("an action scheduled for a future date does not run before it") func futureDateRunsNotBeforeItsDate() {
        let scheduler = QueueScheduler()
        let date = Date().addingTimeInterval(0.05)
        let ranAt = Log<Date>()
        let done = DispatchSemaphore(value: 0)
        scheduler.schedule(after: date) { ranAt.append(Date()); done.signal() }
        #expect(waitFor(done))
        // 1 ms of slack for Date's double precision, not for timing.
        #expect(ranAt.values.first.map { $0 >= date.addingTimeInterval(-0.001) } == true)
    }

    @Test("disposing a timed action keeps it from running and releases it") func disposingATimedActionPreventsItAndReleasesIt() {
        let scheduler = QueueScheduler()
        let log = Log<String>()
        var probe: Probe? = Probe()
        let weakProbe = WeakBox(probe!)
        let cancelled = scheduler.schedule(after: Date().addingTimeInterval(0.1)) { [probe] in
            _ = probe
            log.append("cancelled")
        }
        let farFuture = scheduler.schedule(after: Date().addingTimeInterval(3600)) { [probe] in _ = probe }
        probe = nil
        cancelled?.dispose()
        farFuture?.dispose()
        // Released long before either date: the timers were cancelled.
        #expect(eventually { weakProbe.value == nil })
        let done = DispatchSemaphore(value: 0)
        scheduler.schedule(after: Date().addingTimeInterval(0.3)) { done.signal() }
        #expect(waitFor(done))
        #expect(log.values.isEmpty)
    }

    @Test("a one-shot timed action is released once it has run") func oneShotTimerIsReleasedAfterFiring() {
        let scheduler = QueueScheduler()
        var probe: Probe? = Probe()
        let weakProbe = WeakBox(probe!)
        let done = DispatchSemaphore(value: 0)
        scheduler.schedule(after: Date()) { [probe] in _ = probe; done.signal() }
        probe = nil
        #expect(waitFor(done))
        #expect(eventually { weakProbe.value == nil })
    }

    @Test("a repeating action disposed from inside itself never runs again") func repeatingActionDisposedFromInsideStopsAtOnce() {
        let scheduler = QueueScheduler()
        let fired = Atomic<Int>(0)
        let third = DispatchSemaphore(value: 0)
        let holder = _PThreadMutex<Disposable?>(nil)
        let gate = DispatchSemaphore(value: 0)
        scheduler.schedule { gate.wait() }  // so `holder` is set before the first run
        let d = scheduler.schedule(after: Date(), interval: .milliseconds(5), leeway: .milliseconds(0)) {
            if fired.add(1, ordering: .relaxed).newValue == 3 {
                holder.withLock { $0 }?.dispose()
                third.signal()
            }
        }
        holder.withLock { $0 = d }
        gate.signal()
        #expect(waitFor(third))
        // Forty intervals: plenty of chances to fire again if disposal failed.
        usleep(200_000)
        let barrier = DispatchSemaphore(value: 0)
        scheduler.schedule { barrier.signal() }
        #expect(waitFor(barrier))
        #expect(fired.load(ordering: .relaxed) == 3)
    }

    @Test("a repeating action disposed from another thread stops") func repeatingActionDisposedFromAnotherThreadStops() {
        let scheduler = QueueScheduler()
        let fired = Atomic<Int>(0)
        let started = DispatchSemaphore(value: 0)
        let d = scheduler.schedule(after: Date(), interval: .milliseconds(2)) {
            if fired.add(1, ordering: .relaxed).newValue == 5 { started.signal() }
        }
        #expect(waitFor(started))
        d?.dispose()
        #expect(d?.isDisposed == true)
        let atDispose = fired.load(ordering: .relaxed)
        usleep(200_000)
        let barrier = DispatchSemaphore(value: 0)
        scheduler.schedule { barrier.signal() }
        #expect(waitFor(barrier))
        // At most the one run that may already have begun when dispose() returned.
        #expect(fired.load(ordering: .relaxed) <= atDispose + 1)
    }

    @Test("a repeating action runs on while its disposable is dropped, and is released once disposed") func repeatingTimerLivesWithoutItsDisposableAndDiesWithDisposal() {
        let scheduler = QueueScheduler()
        let fired = Atomic<Int>(0)
        let thrice = DispatchSemaphore(value: 0)
        var probe: Probe? = Probe()
        let weakProbe = WeakBox(probe!)
        var disposable: Disposable? = scheduler.schedule(after: Date(), interval: .milliseconds(5)) { [probe] in
            _ = probe
            if fired.add(1, ordering: .relaxed).newValue == 3 { thrice.signal() }
        }
        probe = nil
        let weakDisposable = WeakBox(disposable as! AnyDisposable)
        disposable = nil
        // Nobody outside holds the disposable, yet the timer keeps firing.
        #expect(waitFor(thrice))
        #expect(weakDisposable.value != nil)
        weakDisposable.value?.dispose()
        #expect(eventually { weakProbe.value == nil && weakDisposable.value == nil })
    }

    @Test("QueueScheduler.main runs its actions on the main queue") func mainSchedulerRunsOnTheMainQueue() {
        let key = DispatchSpecificKey<String>()
        DispatchQueue.main.setSpecific(key: key, value: "main")
        let seen = Log<String?>()
        let done = DispatchSemaphore(value: 0)
        QueueScheduler.main.schedule { seen.append(DispatchQueue.getSpecific(key: key)); done.signal() }
        #expect(waitFor(done))
        #expect(seen.values == ["main"])
    }

    @Test("currentDate is the wall clock") func currentDateIsTheWallClock() {
        let before = Date()
        let now = QueueScheduler().currentDate
        let after = Date()
        #expect(before <= now && now <= after)
    }

    @Test("wallTime(for:): the distant or an infinite future stays distant, the distant past becomes now, other dates are exact to the nanosecond") func wallTimeClampsDatesDispatchCannotExpress() {
        #expect(QueueScheduler.wallTime(for: .distantFuture) == .distantFuture)
        #expect(QueueScheduler.wallTime(for: Date(timeIntervalSince1970: .infinity)) == .distantFuture)
        let now = DispatchWallTime.now()
        let past = QueueScheduler.wallTime(for: .distantPast)
        #expect(past >= now && past < .distantFuture)
        let date = Date(timeIntervalSince1970: 1_700_000_000.25)
        let expected = DispatchWallTime(timespec: timespec(tv_sec: 1_700_000_000, tv_nsec: 250_000_000))
        #expect(QueueScheduler.wallTime(for: date) == expected)
    }
}
