import Dispatch
import Flare
import Foundation
import Synchronization
import Testing

private let error1 = TestError(code: 1)

/// Records each event of `signal` with the virtual time it was delivered at.
///
/// The observer holds `scheduler` weakly: a send still pending on the
/// scheduler when a test ends holds the output, and so this observer; a strong
/// reference back to the scheduler would make a cycle. An event delivered
/// once the scheduler is gone (the `interrupted` of a pending send dropped
/// with it) is logged without a time.
private func timeline<V, E>(_ signal: Signal<V, E>, on scheduler: TestScheduler) -> Recorder<String> {
    let log = Recorder<String>()
    signal.observe { [weak scheduler] event in
        guard let scheduler else { return log.append("- \(describe(event))") }
        let t = scheduler.currentDate.timeIntervalSinceReferenceDate
        log.append("\(t) \(describe(event))")
    }
    return log
}

@Suite("Time operators")
struct TimeOperatorTests {
    // MARK: observe(on:)

    @Test("observe(on:): every event waits for the scheduler, in order")
    func observeOn() {
        let scheduler = TestScheduler()
        let (signal, input) = Signal<Int, TestError>.pipe()
        let log = timeline(signal.observe(on: scheduler), on: scheduler)
        input.send(value: 1)
        input.send(value: 2)
        input.send(error: error1)
        #expect(log.items == [])
        scheduler.advance()
        #expect(log.items == ["0.0 v1", "0.0 v2", "0.0 failed(E1)"])
    }

    @Test("observe(on:) a queue: observers run on that queue, from senders on two threads")
    func observeOnQueue() {
        let key = DispatchSpecificKey<String>()
        let queue = QueueScheduler(name: "flare.test.observeOn")
        queue.queue.setSpecific(key: key, value: "observeOn")
        let (a, aInput) = Signal<Int, Never>.pipe()
        let (b, bInput) = Signal<Int, Never>.pipe()
        let offQueue = Counter()
        let done = DispatchSemaphore(value: 0)
        let output = a.merge(with: b).observe(on: queue)
        let probe = DeliveryProbe(output)
        output.observe { event in
            if DispatchQueue.getSpecific(key: key) != "observeOn" { offQueue.increment() }
            if event.isTerminating { done.signal() }
        }
        concurrently({
            for i in 1...1000 { aInput.send(value: i) }
            aInput.sendCompleted()
        }, {
            for i in 1...1000 { bInput.send(value: -i) }
            bInput.sendCompleted()
        })
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(offQueue.count == 0)
        #expect(probe.isClean)
        #expect(probe.values.count == 2000)
        #expect(probe.values.filter { $0 > 0 } == Array(1...1000))
    }

    // MARK: delay

    @Test("delay: values and completed are delayed; failed and interrupted are not")
    func delay() {
        let scheduler = TestScheduler()
        let (signal, input) = Signal<Int, TestError>.pipe()
        let log = timeline(signal.delay(2, on: scheduler), on: scheduler)
        input.send(value: 1)
        scheduler.advance(by: 1)
        input.send(value: 2)
        input.sendCompleted()
        scheduler.advance(by: 1)
        #expect(log.items == ["2.0 v1"])
        scheduler.advance(by: 5)
        #expect(log.items == ["2.0 v1", "3.0 v2", "3.0 completed"])

        let (failing, failingInput) = Signal<Int, TestError>.pipe()
        let failures = timeline(failing.delay(2, on: scheduler), on: scheduler)
        failingInput.send(value: 1)
        failingInput.send(error: error1)
        scheduler.advance(by: 10)
        #expect(failures.items == ["7.0 failed(E1)"])

        let (interrupted, interruptedInput) = Signal<Int, TestError>.pipe()
        let interruptions = timeline(interrupted.delay(2, on: scheduler), on: scheduler)
        interruptedInput.send(value: 1)
        scheduler.advance(by: 1)
        interruptedInput.sendInterrupted()
        scheduler.advance()
        #expect(interruptions.items == ["18.0 interrupted"])
    }

    // MARK: throttle

    @Test("throttle: at most one value per interval, the latest; terminal events drop a held value")
    func throttle() {
        let scheduler = TestScheduler()
        let (signal, input) = Signal<Int, TestError>.pipe()
        let log = timeline(signal.throttle(1, on: scheduler), on: scheduler)
        input.send(value: 0)
        scheduler.advance()
        input.send(value: 1)
        input.send(value: 2)
        scheduler.advance(by: 0.5)
        #expect(log.items == ["0.0 v0"])
        scheduler.advance(by: 0.5)
        #expect(log.items == ["0.0 v0", "1.0 v2"])
        scheduler.advance(by: 2)
        input.send(value: 3)
        scheduler.advance()
        input.send(value: 4)
        input.sendCompleted()
        scheduler.advance(by: 5)
        #expect(log.items == ["0.0 v0", "1.0 v2", "3.000000001 v3", "3.000000002 completed"])
    }

    @Test("throttle: a held value whose send is due goes before the terminal event, as in ReactiveSwift")
    func throttleDueValueBeforeTermination() {
        let scheduler = TestScheduler()
        let (signal, input) = Signal<Int, TestError>.pipe()
        let log = timeline(signal.throttle(1, on: scheduler), on: scheduler)
        input.send(value: 1)
        input.sendCompleted()
        scheduler.advance()
        #expect(log.items == ["0.0 v1", "0.0 completed"])

        let producerLog = Recorder<String>()
        SignalProducer<Int, Never>(value: 1).throttle(3, on: scheduler).start { producerLog.append(describe($0)) }
        scheduler.advance()
        #expect(producerLog.items == ["v1", "completed"])
    }

    @Test("throttle: a value after a quiet interval is sent at once")
    func throttleQuiet() {
        let scheduler = TestScheduler()
        let (signal, input) = Signal<Int, Never>.pipe()
        let log = timeline(signal.throttle(2, on: scheduler), on: scheduler)
        input.send(value: 1)
        scheduler.advance(by: 1)
        input.send(value: 2)
        scheduler.advance(by: 0.5)
        input.send(value: 3)
        scheduler.advance(by: 0.25)
        #expect(log.items == ["0.0 v1"])
        scheduler.advance(by: 0.25)
        #expect(log.items == ["0.0 v1", "2.0 v3"])
        scheduler.advance(by: 10)
        input.send(value: 4)
        scheduler.advance()
        #expect(log.items == ["0.0 v1", "2.0 v3", "12.0 v4"])
    }

    @Test("throttle and debounce on a queue while another thread sends: increasing values on the queue, the last one kept")
    func throttleAndDebounceOnQueue() {
        let key = DispatchSpecificKey<String>()
        let queue = QueueScheduler(name: "flare.test.throttle")
        queue.queue.setSpecific(key: key, value: "throttle")
        let (signal, input) = Signal<Int, Never>.pipe()
        let throttled = signal.throttle(0.0005, on: queue)
        let debounced = signal.debounce(0.002, on: queue)
        let throttleProbe = DeliveryProbe(throttled)
        let debounceProbe = DeliveryProbe(debounced)
        let offQueue = Counter()
        for output in [throttled, debounced] {
            output.observe { _ in
                if DispatchQueue.getSpecific(key: key) != "throttle" { offQueue.increment() }
            }
        }
        let sent = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            for i in 0..<stressCount { input.send(value: i) }
            sent.signal()
        }
        #expect(sent.wait(timeout: .now() + 10) == .success)
        // Let the last held value out, then end both.
        eventually { throttleProbe.lastValue == stressCount - 1 && debounceProbe.lastValue == stressCount - 1 }
        input.sendCompleted()
        let done = DispatchSemaphore(value: 0)
        queue.schedule { queue.schedule { done.signal() } }
        #expect(done.wait(timeout: .now() + 10) == .success)
        for probe in [throttleProbe, debounceProbe] {
            #expect(probe.isClean)
            #expect(probe.values.last == stressCount - 1)
            #expect(zip(probe.values, probe.values.dropFirst()).allSatisfy { $0 < $1 })
            #expect(probe.terminals == ["completed"])
        }
        #expect(offQueue.count == 0)
    }

    @Test("throttle(while:): values pass while false, the latest is held while true")
    func throttleWhile() {
        let scheduler = TestScheduler()
        let (signal, input) = Signal<Int, TestError>.pipe()
        let (gate, gateInput) = Signal<Bool, Never>.pipe()
        let log = timeline(signal.throttle(while: gate, on: scheduler), on: scheduler)
        input.send(value: 1)
        scheduler.advance(by: 1)
        gateInput.send(value: true)
        input.send(value: 2)
        input.send(value: 3)
        scheduler.advance(by: 1)
        gateInput.send(value: true)
        gateInput.send(value: false)
        scheduler.advance(by: 1)
        gateInput.send(value: true)
        input.send(value: 4)
        input.sendCompleted()
        scheduler.advance(by: 1)
        #expect(log.items == ["0.0 v1", "2.0 v3", "3.0 completed"])
    }

    @Test("throttle(while:): the gate's termination keeps its last state")
    func throttleWhileGateEnds() {
        let scheduler = TestScheduler()
        let (signal, input) = Signal<Int, Never>.pipe()
        let (gate, gateInput) = Signal<Bool, Never>.pipe()
        let log = timeline(signal.throttle(while: gate, on: scheduler), on: scheduler)
        gateInput.send(value: true)
        gateInput.sendCompleted()
        input.send(value: 1)
        input.sendCompleted()
        scheduler.advance()
        #expect(log.items == ["0.0 completed"])
    }

    @Test("throttle(while:) with both inputs sending from two threads: serialized, nothing lost while open")
    func throttleWhileStress() {
        let (signal, input) = Signal<Int, Never>.pipe()
        let (gate, gateInput) = Signal<Bool, Never>.pipe()
        let probe = DeliveryProbe(signal.throttle(while: gate, on: ImmediateScheduler()))
        concurrently({
            for i in 1...stressCount { input.send(value: i) }
        }, {
            for i in 1...stressCount { gateInput.send(value: i % 2 == 0) }
        })
        gateInput.send(value: false)
        input.sendCompleted()
        let values = probe.values
        #expect(probe.isClean)
        #expect(values == values.sorted())
        #expect(values.last == stressCount)
        #expect(probe.terminals == ["completed"])
    }

    // MARK: debounce

    @Test("debounce: a value is sent once it has stood for the interval")
    func debounce() {
        let scheduler = TestScheduler()
        let (signal, input) = Signal<Int, TestError>.pipe()
        let log = timeline(signal.debounce(1, on: scheduler), on: scheduler)
        input.send(value: 1)
        scheduler.advance(by: 0.5)
        input.send(value: 2)
        scheduler.advance(by: 0.75)
        #expect(log.items == [])
        scheduler.advance(by: 0.25)
        #expect(log.items == ["1.5 v2"])
        input.send(value: 3)
        scheduler.advance(by: 0.5)
        input.send(error: error1)
        scheduler.advance(by: 5)
        #expect(log.items == ["1.5 v2", "2.0 failed(E1)"])
    }

    @Test("debounce: completed drops the waiting value, or sends it first without discardWhenCompleted")
    func debounceCompletion() {
        let scheduler = TestScheduler()
        let (discarding, discardingInput) = Signal<Int, Never>.pipe()
        let (keeping, keepingInput) = Signal<Int, Never>.pipe()
        let discarded = timeline(discarding.debounce(1, on: scheduler), on: scheduler)
        let kept = timeline(keeping.debounce(1, on: scheduler, discardWhenCompleted: false), on: scheduler)
        discardingInput.send(value: 1)
        keepingInput.send(value: 1)
        scheduler.advance(by: 0.5)
        discardingInput.sendCompleted()
        keepingInput.sendCompleted()
        scheduler.advance(by: 0.25)
        #expect(discarded.items == ["0.5 completed"])
        #expect(kept.items == [])
        scheduler.advance(by: 0.25)
        #expect(kept.items == ["1.0 v1", "1.0 completed"])
    }

    @Test("debounce of a producer without discardWhenCompleted, right after take(first:): the waiting value, then completed, an interval after the last value (ReactiveSwift's fused chain completes early without it)")
    func debounceKeepsValueAfterTakeFirst() {
        let scheduler = TestScheduler()
        let log = Recorder<String>()
        SignalProducer<Date, Never>.timer(interval: .seconds(1), on: scheduler)
            .map { Int($0.timeIntervalSinceReferenceDate) }
            .take(first: 4)
            .debounce(3, on: scheduler, discardWhenCompleted: false)
            .start { log.append("\(scheduler.currentDate.timeIntervalSinceReferenceDate) \(describe($0))") }
        scheduler.advance(by: 60)
        #expect(log.items == ["7.0 v4", "7.0 completed"])
    }

    @Test("debounce: a burst of values schedules one wait per interval, and the last value is sent an interval after it")
    func debounceBurstReschedulesOnce() {
        let clock = TestScheduler()
        let scheduler = CountingDateScheduler(clock)
        let (signal, input) = Signal<Int, Never>.pipe()
        let log = timeline(signal.debounce(1, on: scheduler), on: clock)
        for i in 0..<10 {
            input.send(value: i)
            clock.advance(by: 0.1)
        }
        clock.advance(by: 0.85)
        #expect(log.items == [])
        clock.advance(by: 0.05)
        #expect(log.items == ["1.9 v9"])
        // The wait of the first value, the rest of the last one's, then
        // the send (what debounce sends goes through the scheduler).
        #expect(scheduler.scheduled == 3)
        clock.advance(by: 5)
        #expect(log.items == ["1.9 v9"])
    }

    @Test("debounce: a value whose wait ends before the scheduled one (the clock moved back) is sent on time")
    func debounceClockMovedBack() {
        let scheduler = TestScheduler()
        let (signal, input) = Signal<Int, Never>.pipe()
        let log = timeline(signal.debounce(1, on: scheduler), on: scheduler)
        scheduler.advance(by: 2)
        input.send(value: 1)
        scheduler.rewind(by: .milliseconds(1500))
        input.send(value: 2)
        scheduler.advance(by: 1)
        #expect(log.items == ["1.5 v2"])
        scheduler.advance(by: 5)
        #expect(log.items == ["1.5 v2"])
    }

    @Test("debounce on a scheduler that runs each action at once and whose clock stands still: each value is sent, once")
    func debounceOnAnImmediateScheduler() {
        let scheduler = ImmediateDateScheduler()
        let (signal, input) = Signal<Int, Never>.pipe()
        let log = Recorder<Int>()
        signal.debounce(1, on: scheduler).observeValues { log.append($0) }
        for i in 1...3 { input.send(value: i) }
        #expect(log.items == [1, 2, 3])
        // A wait and a send per value.
        #expect(scheduler.runs.load(ordering: .relaxed) == 6)
    }

    @Test("debounce: abandoning the output disposes the upstream observation and the scheduled send")
    func debounceDisposal() {
        let scheduler = TestScheduler()
        let (signal, input) = Signal<Int, Never>.pipe()
        let watch = WeakCanary()
        let log = Recorder<Int>()
        let disposable = signal.tracked(by: watch).debounce(1, on: scheduler).observeValues { log.append($0) }
        input.send(value: 1)
        #expect(watch.isAlive)
        disposable?.dispose()
        #expect(!watch.isAlive)
        scheduler.advance(by: 2)
        #expect(log.items == [])
    }

    // MARK: collect(every:)

    @Test("collect(every:): an array every interval, empty ones unless skipEmpty")
    func collectEvery() {
        let scheduler = TestScheduler()
        let (signal, input) = Signal<Int, Never>.pipe()
        let all = timeline(signal.collect(every: .seconds(1), on: scheduler), on: scheduler)
        let nonEmpty = timeline(signal.collect(every: .seconds(1), on: scheduler, skipEmpty: true), on: scheduler)
        input.send(value: 1)
        scheduler.advance(by: 0.5)
        input.send(value: 2)
        scheduler.advance(by: 0.5)
        scheduler.advance(by: 1)
        input.send(value: 3)
        input.sendCompleted()
        scheduler.advance(by: 5)
        #expect(all.items == ["1.0 v[1, 2]", "2.0 v[]", "2.0 completed"])
        #expect(nonEmpty.items == ["1.0 v[1, 2]", "2.0 completed"])
    }

    @Test("collect(every:): without discardWhenCompleted the last values come at the next interval")
    func collectEveryKeeping() {
        let scheduler = TestScheduler()
        let (signal, input) = Signal<Int, TestError>.pipe()
        let log = timeline(signal.collect(every: .seconds(2), on: scheduler, discardWhenCompleted: false), on: scheduler)
        input.send(value: 1)
        scheduler.advance(by: 2.5)
        input.send(value: 2)
        input.sendCompleted()
        scheduler.advance(by: 5)
        #expect(log.items == ["2.0 v[1]", "4.0 v[2]", "4.0 completed"])

        let (failing, failingInput) = Signal<Int, TestError>.pipe()
        let failures = timeline(failing.collect(every: .seconds(2), on: scheduler, discardWhenCompleted: false), on: scheduler)
        failingInput.send(value: 1)
        failingInput.send(error: error1)
        scheduler.advance(by: 5)
        #expect(failures.items == ["7.5 failed(E1)"])
    }

    @Test("collect(every:) sends from its timer's own action: a second collect due at that instant hears it first")
    func collectEveryKeepsItsPlace() {
        // The 2 s timer was scheduled before the 1 s timer's second round,
        // so at 2 s its array reaches the 1 s collect before that one's
        // timer fires (as in ReactiveSwift). Scheduled again, the array
        // would come after it, a second late.
        let scheduler = TestScheduler()
        let (signal, input) = Signal<Int, Never>.pipe()
        let log = timeline(
            signal.collect(every: .seconds(2), on: scheduler).map(\.count)
                .collect(every: .seconds(1), on: scheduler).map { $0.map(String.init).joined(separator: ",") },
            on: scheduler)
        scheduler.advance(by: 4)
        // Ended, so that nothing stays scheduled (a repeating action left
        // in a dropped TestScheduler keeps its funnel, a leak to LSan).
        input.sendCompleted()
        scheduler.advance(by: 1)
        #expect(log.items == ["1.0 v", "2.0 v0", "3.0 v", "4.0 v0", "4.0 completed"])
    }

    @Test("collect(every:) on a queue with a sender on another thread: every value exactly once")
    func collectEveryStress() {
        let queue = QueueScheduler(name: "flare.test.collect")
        let (signal, input) = Signal<Int, Never>.pipe()
        let done = DispatchSemaphore(value: 0)
        let collected = Recorder<[Int]>()
        signal.collect(every: .milliseconds(1), on: queue, skipEmpty: true, discardWhenCompleted: false).observe { event in
            switch event {
            case let .value(values): collected.append(values)
            default: done.signal()
            }
        }
        concurrently({
            for i in 0..<stressCount { input.send(value: i) }
            input.sendCompleted()
        }, {
            // The timer's ticks race the sends on the queue's thread.
        })
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(collected.items.flatMap { $0 } == Array(0..<stressCount))
    }

    // MARK: lazyMap

    @Test("lazyMap: transforms only the latest value when the scheduler runs")
    func lazyMap() {
        let scheduler = TestScheduler()
        let (signal, input) = Signal<Int, TestError>.pipe()
        let calls = Counter()
        let log = timeline(signal.lazyMap(on: scheduler) { value -> Int in calls.increment(); return value * 10 }, on: scheduler)
        input.send(value: 1)
        input.send(value: 2)
        input.send(value: 3)
        #expect(calls.count == 0)
        scheduler.advance()
        #expect(log.items == ["0.0 v30"])
        #expect(calls.count == 1)
        input.send(value: 4)
        input.sendCompleted()
        scheduler.advance()
        #expect(log.items == ["0.0 v30", "1e-09 v40", "1e-09 completed"])
        #expect(calls.count == 2)
    }

    @Test("lazyMap: interrupted drops the waiting value")
    func lazyMapInterrupted() {
        let scheduler = TestScheduler()
        let (signal, input) = Signal<Int, TestError>.pipe()
        let log = timeline(signal.lazyMap(on: scheduler) { $0 * 10 }, on: scheduler)
        input.send(value: 1)
        input.sendInterrupted()
        scheduler.advance()
        #expect(log.items == ["0.0 interrupted"])
    }

    // MARK: timeout

    @Test("timeout: fails after the interval unless terminated first; events pass through at once")
    func timeout() {
        let scheduler = TestScheduler()
        let (slow, slowInput) = Signal<Int, TestError>.pipe()
        let (fast, fastInput) = Signal<Int, TestError>.pipe()
        let slowLog = timeline(slow.timeout(after: 2, raising: error1, on: scheduler), on: scheduler)
        let fastLog = timeline(fast.timeout(after: 2, raising: error1, on: scheduler), on: scheduler)
        slowInput.send(value: 1)
        fastInput.send(value: 1)
        #expect(slowLog.items == ["0.0 v1"])
        scheduler.advance(by: 1)
        fastInput.sendCompleted()
        scheduler.advance(by: 1)
        slowInput.send(value: 2)
        #expect(slowLog.items == ["0.0 v1", "2.0 failed(E1)"])
        #expect(fastLog.items == ["0.0 v1", "1.0 completed"])

        let (never, neverInput) = Signal<Int, Never>.pipe()
        let promoted = timeline(never.timeout(after: 1, raising: error1, on: scheduler), on: scheduler)
        scheduler.advance(by: 1)
        #expect(promoted.items == ["3.0 failed(E1)"])
        withExtendedLifetime(neverInput) {}
    }
}

/// A date scheduler that counts what is scheduled on it, and runs it on
/// `clock`.
private final class CountingDateScheduler: DateScheduler {
    let clock: TestScheduler
    private let count = Atomic<Int>(0)

    init(_ clock: TestScheduler) { self.clock = clock }

    var scheduled: Int { count.load(ordering: .relaxed) }
    var currentDate: Date { clock.currentDate }

    func schedule(_ action: @escaping @Sendable () -> Void) -> Disposable? {
        count.add(1, ordering: .relaxed)
        return clock.schedule(action)
    }

    func schedule(after date: Date, action: @escaping @Sendable () -> Void) -> Disposable? {
        count.add(1, ordering: .relaxed)
        return clock.schedule(after: date, action: action)
    }

    func schedule(
        after date: Date, interval: DispatchTimeInterval, leeway: DispatchTimeInterval,
        action: @escaping @Sendable () -> Void
    ) -> Disposable? {
        count.add(1, ordering: .relaxed)
        return clock.schedule(after: date, interval: interval, leeway: leeway, action: action)
    }
}

/// A date scheduler whose clock never moves and which runs every action at
/// once, on the calling thread, whatever its date (at most 100 times, so
/// that an operator that keeps rescheduling fails its test instead of
/// hanging it).
private final class ImmediateDateScheduler: DateScheduler {
    let runs = Atomic<Int>(0)

    var currentDate: Date { Date(timeIntervalSinceReferenceDate: 0) }

    func schedule(_ action: @escaping @Sendable () -> Void) -> Disposable? {
        guard runs.add(1, ordering: .relaxed).newValue <= 100 else { return nil }
        action()
        return nil
    }

    func schedule(after date: Date, action: @escaping @Sendable () -> Void) -> Disposable? {
        schedule(action)
    }

    func schedule(
        after date: Date, interval: DispatchTimeInterval, leeway: DispatchTimeInterval,
        action: @escaping @Sendable () -> Void
    ) -> Disposable? {
        schedule(action)
    }
}
