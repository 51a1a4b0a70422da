import Flare
import Foundation
import Synchronization
import Testing

private let error1 = TestError(code: 1)
private let error2 = TestError(code: 2)

private func record<V, E>(_ signal: Signal<V, E>) -> Recorder<String> {
    let log = Recorder<String>()
    signal.observe { log.append(describe($0)) }
    return log
}

private func record<V, E>(_ producer: SignalProducer<V, E>) -> Recorder<String> {
    let log = Recorder<String>()
    producer.start { log.append(describe($0)) }
    return log
}

@Suite("flatten: error combinations, sequences and the flatMap overloads")
struct FlattenErrorCombinationTests {
    @Test("outer Never, inner failing: the inner's failure is forwarded")
    func outerNever() {
        let (outer, outerInput) = Signal<SignalProducer<Int, TestError>, Never>.pipe()
        let flat: Signal<Int, TestError> = outer.flatten(.merge)
        let log = record(flat)
        outerInput.send(value: SignalProducer(value: 1))
        outerInput.send(value: SignalProducer(error: error1))
        #expect(log.items == ["v1", "failed(E1)"])

        let (outerP, outerPInput) = Signal<SignalProducer<Int, TestError>, Never>.pipe()
        let producerLog = record(SignalProducer(outerP).flatten(.concat) as SignalProducer<Int, TestError>)
        outerPInput.send(value: SignalProducer(values: 1, 2))
        outerPInput.send(value: SignalProducer(error: error2))
        #expect(producerLog.items == ["v1", "v2", "failed(E2)"])
    }

    @Test("inner Never, outer failing: the outer's failure is forwarded")
    func innerNever() {
        let (outer, outerInput) = Signal<SignalProducer<Int, Never>, TestError>.pipe()
        let flat: Signal<Int, TestError> = outer.flatten(.latest)
        let log = record(flat)
        outerInput.send(value: SignalProducer(value: 1))
        outerInput.send(error: error1)
        #expect(log.items == ["v1", "failed(E1)"])

        let producer: SignalProducer<Int, TestError> =
            SignalProducer<SignalProducer<Int, Never>, TestError>([SignalProducer(value: 1), SignalProducer(value: 2)])
                .concat(error: error2).flatten(.merge)
        #expect(record(producer).items == ["v1", "v2", "failed(E2)"])
    }

    @Test("nothing can fail; signals as inners")
    func neverNever() {
        let (a, aInput) = Signal<Int, Never>.pipe()
        let (b, bInput) = Signal<Int, Never>.pipe()
        let (outer, outerInput) = Signal<Signal<Int, Never>, Never>.pipe()
        let flat: Signal<Int, Never> = outer.flatten(.merge)
        let log = record(flat)
        outerInput.send(value: a)
        outerInput.send(value: b)
        bInput.send(value: 2)
        aInput.send(value: 1)
        aInput.sendCompleted()
        outerInput.sendCompleted()
        bInput.sendCompleted()
        #expect(log.items == ["v2", "v1", "completed"])

        let producer: SignalProducer<Int, Never> = SignalProducer([SignalProducer<Int, Never>(value: 3)]).flatten(.latest)
        #expect(record(producer).items == ["v3", "completed"])
    }

    @Test("flatten() of sequences sends their elements in order")
    func sequences() {
        let (outer, outerInput) = Signal<[Int], TestError>.pipe()
        let log = record(outer.flatten())
        outerInput.send(value: [1, 2])
        outerInput.send(value: [])
        outerInput.send(value: [3])
        outerInput.sendCompleted()
        #expect(log.items == ["v1", "v2", "v3", "completed"])
        #expect(record(SignalProducer<[Int], Never>([[1], [2, 3]]).flatten()).items == ["v1", "v2", "v3", "completed"])
    }

    @Test("every flatMap overload: same error, inner Never, outer Never, both Never, on signals and producers")
    func flatMapOverloads() {
        let numbers = SignalProducer<Int, TestError>(values: 1, 2)
        let safeNumbers = SignalProducer<Int, Never>(values: 1, 2)
        let same: SignalProducer<Int, TestError> = numbers.flatMap(.concat) { SignalProducer<Int, TestError>(value: $0 * 10) }
        let sameConvertible: SignalProducer<Int, TestError> = numbers.flatMap(.concat) { Box(producer: SignalProducer(value: $0 * 10)) }
        let innerNever: SignalProducer<Int, TestError> = numbers.flatMap(.concat) { SignalProducer<Int, Never>(value: $0 * 10) }
        let innerNeverSignal: SignalProducer<Int, TestError> = numbers.flatMap(.concat) { _ in Signal<Int, Never>.empty }
        let outerNever: SignalProducer<Int, TestError> = safeNumbers.flatMap(.concat) { SignalProducer<Int, TestError>(value: $0 * 10) }
        let outerNeverConvertible: SignalProducer<Int, TestError> = safeNumbers.flatMap(.concat) { Box(producer: SignalProducer(value: $0 * 10)) }
        let bothNever: SignalProducer<Int, Never> = safeNumbers.flatMap(.concat) { SignalProducer<Int, Never>(value: $0 * 10) }
        let bothNeverSignal: SignalProducer<Int, Never> = safeNumbers.flatMap(.concat) { _ in Signal<Int, Never>.empty }
        for producer in [same, sameConvertible, innerNever, outerNever, outerNeverConvertible] {
            #expect(record(producer).items == ["v10", "v20", "completed"])
        }
        #expect(record(bothNever).items == ["v10", "v20", "completed"])
        #expect(record(innerNeverSignal).items == ["completed"])
        #expect(record(bothNeverSignal).items == ["completed"])

        let (outer, outerInput) = Signal<Int, TestError>.pipe()
        let (safeOuter, safeInput) = Signal<Int, Never>.pipe()
        let logs: [Recorder<String>] = [
            record(outer.flatMap(.merge) { SignalProducer<Int, TestError>(value: $0) }),
            record(outer.flatMap(.merge) { Box(producer: SignalProducer(value: $0)) }),
            record(outer.flatMap(.merge) { SignalProducer<Int, Never>(value: $0) }),
            record(outer.flatMap(.merge) { SignalProducer<Int, Never>(value: $0).producer }),
            record(safeOuter.flatMap(.merge) { SignalProducer<Int, TestError>(value: $0) } as Signal<Int, TestError>),
            record(safeOuter.flatMap(.merge) { Box(producer: SignalProducer(value: $0)) } as Signal<Int, TestError>),
            record(safeOuter.flatMap(.merge) { SignalProducer<Int, Never>(value: $0) } as Signal<Int, Never>),
            record(safeOuter.flatMap(.merge) { SignalProducer<Int, Never>.empty.concat(value: $0) } as Signal<Int, Never>),
        ]
        outerInput.send(value: 7)
        safeInput.send(value: 7)
        outerInput.sendCompleted()
        safeInput.sendCompleted()
        for log in logs { #expect(log.items == ["v7", "completed"]) }
    }
}

@Suite("flatten: stale events, disposal and release")
struct FlattenLifecycleTests {
    @Test("latest: an event the replaced inner sent before the switch was handled, still queued behind it, is dropped")
    func latestDropsQueuedEventsOfReplacedInner() {
        for innerIsSignal in [true, false] {
            let (a, aInput) = Signal<Int, Never>.pipe()
            let (b, bInput) = Signal<Int, Never>.pipe()
            let (outer, outerInput) = Signal<SignalProducer<Int, Never>, Never>.pipe()
            let flat = outer.flatten(.latest)
            let log = Recorder<String>()
            var replied = false
            flat.observe { event in
                log.append(describe(event))
                // Inside the flatten's delivery: the switch to `b` is
                // queued, then `a` sends, queued behind it.
                if case .value(1) = event, !replied {
                    replied = true
                    outerInput.send(value: innerIsSignal ? b.producer : SignalProducer(b))
                    aInput.send(value: 2)
                    bInput.send(value: 3)
                }
            }
            outerInput.send(value: innerIsSignal ? a.producer : SignalProducer(a))
            aInput.send(value: 1)
            bInput.send(value: 4)
            #expect(log.items == ["v1", "v4"], "inner is a signal: \(innerIsSignal)")
            // The observer holds the inputs: ending the output releases it.
            outerInput.sendCompleted()
            bInput.sendCompleted()
            #expect(log.items == ["v1", "v4", "completed"])
        }
    }

    @Test("race: an event a losing inner sent, queued behind the winner's first one, is dropped")
    func raceDropsQueuedEventsOfLosers() {
        let (a, aInput) = Signal<Int, Never>.pipe()
        let (b, bInput) = Signal<Int, Never>.pipe()
        let (outer, outerInput) = Signal<Signal<Int, Never>, Never>.pipe()
        let flat = outer.flatten(.race)
        let log = Recorder<String>()
        var replied = false
        outerInput.send(value: a)
        outerInput.send(value: b)
        flat.observe { event in
            log.append(describe(event))
            if !replied {
                replied = true
                bInput.send(value: 20)
                aInput.send(value: 2)
            }
        }
        // `a` wins; inside the delivery of its first value `b` sends, queued.
        aInput.send(value: 1)
        bInput.send(value: 21)
        #expect(log.items == ["v1", "v2"])
        aInput.sendCompleted()
        outerInput.sendCompleted()
        #expect(log.items == ["v1", "v2", "completed"])
    }

    @Test("disposing a producer run disposes the outer run and every active inner run exactly once, and releases them")
    func producerDisposal() {
        let outerEnds = Counter()
        let innerStarts = Counter()
        let innerEnds = Counter()
        let canary = WeakCanary()
        var disposable: Disposable?
        let (outerSignal, outerInput) = Signal<Int, Never>.pipe()
        do {
            let held = Canary()
            canary.canary = held
            let outer = SignalProducer<Int, Never> { observer, lifetime in
                lifetime.observeEnded { outerEnds.increment() }
                lifetime += outerSignal.observe(observer)
            }
            let flattened = outer.flatMap(.concurrent(limit: 2)) { _ in
                SignalProducer<Int, Never> { observer, lifetime in
                    withExtendedLifetime(held) {}
                    innerStarts.increment()
                    lifetime.observeEnded { innerEnds.increment() }
                    lifetime.observeEnded { withExtendedLifetime(observer) {} }
                }
            }
            disposable = flattened.start()
            for i in 0..<5 { outerInput.send(value: i) }
        }
        #expect(innerStarts.count == 2)
        #expect(innerEnds.count == 0 && outerEnds.count == 0)
        disposable?.dispose()
        #expect(outerEnds.count == 1)
        #expect(innerEnds.count == 2)
        #expect(innerStarts.count == 2, "queued inners never start")
        disposable?.dispose()
        #expect(outerEnds.count == 1 && innerEnds.count == 2)
        disposable = nil
        #expect(!canary.isAlive)
        withExtendedLifetime(outerInput) {}
    }

    @Test("a signal flatten that loses its last observer and reference disposes the outer observation and its inners")
    func signalAbandoned() {
        let innerEnds = Counter()
        let outerWatch = WeakCanary()
        let (outer, outerInput) = Signal<Int, Never>.pipe()
        var observation: Disposable?
        do {
            let flat = outer.tracked(by: outerWatch).flatMap(.merge) { _ in
                SignalProducer<Int, Never> { observer, lifetime in
                    lifetime.observeEnded { innerEnds.increment() }
                    lifetime.observeEnded { withExtendedLifetime(observer) {} }
                }
            }
            observation = flat.observe { _ in }
            outerInput.send(value: 1)
            outerInput.send(value: 2)
        }
        #expect(innerEnds.count == 0 && outerWatch.isAlive)
        observation?.dispose()
        #expect(innerEnds.count == 2)
        #expect(!outerWatch.isAlive)
    }

    @Test("an inner failure disposes the outer observation and the other inners at once")
    func failureDisposesEverything() {
        let innerEnds = Counter()
        let outerWatch = WeakCanary()
        let (outer, outerInput) = Signal<Int, TestError>.pipe()
        let (failing, failingInput) = Signal<Int, TestError>.pipe()
        let log = record(outer.tracked(by: outerWatch).flatMap(.merge) { index -> SignalProducer<Int, TestError> in
            if index == 0 { return failing.producer }
            return SignalProducer { observer, lifetime in
                lifetime.observeEnded { innerEnds.increment() }
                lifetime.observeEnded { withExtendedLifetime(observer) {} }
            }
        })
        outerInput.send(value: 0)
        outerInput.send(value: 1)
        outerInput.send(value: 2)
        failingInput.send(error: error1)
        #expect(log.items == ["failed(E1)"])
        #expect(innerEnds.count == 2)
        #expect(!outerWatch.isAlive)
    }
}

@Suite("flatten: the order in which inners are disposed, as in ReactiveSwift")
struct FlattenDisposalOrderTests {
    /// `flatMap(strategy)` of a producer of `count` values into inners that
    /// never end: every inner is running (or, for `.race`, racing) when the
    /// start is disposed. ReactiveSwift keeps the inners' disposables in a
    /// `CompositeDisposable`, which disposes them in the order they were
    /// added: start order.
    private static func disposeRun(_ strategy: FlattenStrategy, count: Int) -> [String] {
        let log = Recorder<String>()
        let outer = SignalProducer<Int, Never>(0..<count).concat(.never)
            .on(interrupted: { log.append("outer interrupted") })
        let disposable = outer.flatMap(strategy) { index in
            SignalProducer<Int, Never>.never.on(interrupted: { log.append("inner \(index) interrupted") })
        }.start { log.append("output \(describe($0))") }
        disposable.dispose()
        return log.items
    }

    @Test("disposing a flatten's run interrupts the output, then the outer and inners in ReactiveSwift's order")
    func producerRunDisposal() {
        let inners = (0..<3).map { "inner \($0) interrupted" }
        // ReactiveSwift 7.2.1's logs (`concurrent` adds the outer's run to
        // the lifetime before any inner).
        #expect(Self.disposeRun(.merge, count: 3) == ["output interrupted", "outer interrupted"] + inners)
        #expect(Self.disposeRun(.concurrent(limit: 3), count: 3) == ["output interrupted", "outer interrupted"] + inners)
        // `race`, `latest` and `throttle` add their inners' disposable to
        // the lifetime first, so ReactiveSwift interrupts the outer run
        // after them.
        #expect(Self.disposeRun(.race, count: 3) == ["output interrupted"] + inners + ["outer interrupted"])
        // `latest` interrupted inners 0 and 1 when it switched.
        #expect(Self.disposeRun(.latest, count: 3) == [
            "inner 0 interrupted", "inner 1 interrupted", "output interrupted", "inner 2 interrupted", "outer interrupted",
        ])
        #expect(Self.disposeRun(.throttle, count: 3) == ["output interrupted", "inner 0 interrupted", "outer interrupted"])
    }

    @Test("disposing a run whose outer turns its interruption into a value (materialize) starts no inner, whatever the strategy", arguments: [
        FlattenStrategy.merge, .concat, .concurrent(limit: 2), .latest, .race, .throttle,
    ])
    func teardownStartsNoInner(_ strategy: FlattenStrategy) {
        let (signal, input) = Signal<Int, Never>.pipe()
        let started = Atomic<Int>(0)
        let log = Recorder<String>()
        let disposable = SignalProducer(signal).materialize().map { _ in 1 }.flatMap(strategy) { _ in
            // As ReactiveSwift 7.2.1: its ended lifetime refuses the start.
            SignalProducer<Int, Never> { observer, _ in
                started.add(1, ordering: .relaxed)
                observer.send(value: 1)
            }
        }.start { log.append(describe($0)) }
        disposable.dispose()
        #expect(started.load(ordering: .relaxed) == 0, "\(strategy)")
        #expect(log.items == ["interrupted"], "\(strategy)")
        withExtendedLifetime(input) {}
    }

    @Test("disposing a race run disposes its winner (a deliberate difference)")
    func raceWinnerDisposed() {
        let log = Recorder<String>()
        let (outer, outerInput) = Signal<Int, Never>.pipe()
        let run = SignalProducer(outer).flatMap(.race) { index in
            SignalProducer<Int, Never> { observer, lifetime in
                lifetime.observeEnded { log.append("inner \(index) ended") }
                if index == 1 { observer.send(value: index) }
            }
        }.start { log.append("output \(describe($0))") }
        outerInput.send(value: 0)
        outerInput.send(value: 1)
        run.dispose()
        // ReactiveSwift 7.2.1 never ends inner 1: its race keeps no handle
        // on the winner (docs/Differences.md).
        #expect(log.items == ["inner 0 ended", "output v1", "output interrupted", "inner 1 ended"])
        withExtendedLifetime(outerInput) {}
    }

    @Test("a signal flatten whose observation is disposed disposes its inners in start order")
    func signalObservationDisposal() {
        for strategy in [FlattenStrategy.merge, .concurrent(limit: 5), .race] {
            let log = Recorder<String>()
            let (outer, outerInput) = Signal<Int, Never>.pipe()
            let observation = outer.flatMap(strategy) { index in
                SignalProducer<Int, Never>.never.on(interrupted: { log.append("inner \(index) interrupted") })
            }.observe { _ in }
            for index in 0..<4 { outerInput.send(value: index) }
            observation?.dispose()
            #expect(log.items == (0..<4).map { "inner \($0) interrupted" }, "\(strategy)")
        }
    }

    @Test("an inner failure or the outer's interruption disposes the other inners in start order")
    func terminationDisposal() {
        for ending in ["inner failure", "outer interrupted"] {
            let log = Recorder<String>()
            let (outer, outerInput) = Signal<SignalProducer<Int, TestError>, TestError>.pipe()
            let (failing, failingInput) = Signal<Int, TestError>.pipe()
            outer.flatten(.merge).observe { log.append("output \(describe($0))") }
            for index in 0..<4 {
                outerInput.send(value: index == 2
                    ? failing.producer
                    : SignalProducer<Int, TestError>.never.on(interrupted: { log.append("inner \(index) interrupted") }))
            }
            if ending == "inner failure" {
                failingInput.send(error: TestError(code: 1))
                #expect(log.items == ["output failed(E1)", "inner 0 interrupted", "inner 1 interrupted", "inner 3 interrupted"])
            } else {
                outerInput.sendInterrupted()
                #expect(log.items == ["output interrupted"] + [0, 1, 3].map { "inner \($0) interrupted" })
            }
        }
    }

    @Test("race: the losers are disposed in start order, before the winner's first event is forwarded")
    func raceLosers() {
        for winner in 0..<4 {
            let log = Recorder<String>()
            let pipes = (0..<4).map { _ in Signal<Int, Never>.pipe() }
            let (outer, outerInput) = Signal<SignalProducer<Int, Never>, Never>.pipe()
            outer.flatten(.race).observe { log.append("output \(describe($0))") }
            for (index, pipe) in pipes.enumerated() {
                outerInput.send(value: pipe.output.producer.on(interrupted: { log.append("inner \(index) interrupted") }))
            }
            // The outer's input lives until the log is read: released, it
            // interrupts the outer (as in ReactiveSwift), and an optimized
            // build releases it after its last use.
            withExtendedLifetime(outerInput) {
                pipes[winner].input.send(value: 10)
                let losers = (0..<4).filter { $0 != winner }.map { "inner \($0) interrupted" }
                #expect(log.items == losers + ["output v10"], "winner \(winner)")
            }
        }
    }
}

@Suite("flatten: concat in constant stack")
struct FlattenDepthTests {
    /// Runs `body` on a thread with a 512 KiB stack: a recursion per inner
    /// would overflow it long before a million inners (or the 100,000 run
    /// under a sanitizer: even a 100-byte frame per inner needs 10 MB).
    private let inners = runningUnderSanitizer ? 100_000 : 1_000_000

    private func onSmallStack(_ body: @escaping @Sendable () -> Void) {
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            body()
            done.signal()
        }
        thread.stackSize = 512 * 1024
        thread.start()
        done.wait()
    }

    @Test("1,000,000 synchronous inners, one after the other")
    func millionSynchronousInners() {
        let inners = self.inners
        let count = Counter()
        let sum = Atomic<Int>(0)
        let completed = Counter()
        onSmallStack {
            SignalProducer(0..<inners).flatMap(.concat) { SignalProducer<Int, Never>(value: $0) }.start { event in
                switch event {
                case let .value(value):
                    count.increment()
                    sum.add(value, ordering: .relaxed)
                case .completed: completed.increment()
                default: break
                }
            }
        }
        #expect(count.count == inners)
        #expect(sum.load(ordering: .relaxed) == (inners - 1) * inners / 2)
        #expect(completed.count == 1)
    }

    @Test("1,000,000 queued synchronous inners started by one completion")
    func millionQueuedInners() {
        let inners = self.inners
        let count = Counter()
        let last = Atomic<Int>(-1)
        let completed = Counter()
        onSmallStack {
            let (outer, outerInput) = Signal<SignalProducer<Int, Never>, Never>.pipe()
            let (first, firstInput) = Signal<Int, Never>.pipe()
            outer.flatten(.concat).observe { event in
                switch event {
                case let .value(value):
                    count.increment()
                    last.store(value, ordering: .relaxed)
                case .completed: completed.increment()
                default: break
                }
            }
            outerInput.send(value: first.producer)
            for i in 0..<inners { outerInput.send(value: SignalProducer(value: i)) }
            outerInput.sendCompleted()
            #expect(count.count == 0)
            firstInput.sendCompleted()
        }
        #expect(count.count == inners)
        #expect(last.load(ordering: .relaxed) == inners - 1)
        #expect(completed.count == 1)
    }
}

@Suite("flatten: concurrency stress")
struct FlattenStressTests {
    /// Inners are hot pipes; three threads send into random inners while a
    /// fourth sends the inners, in order, to the outer. Values encode
    /// (inner, thread, sequence).
    private func stress(_ strategy: FlattenStrategy) -> (probe: DeliveryProbe<Int>, inners: Int) {
        let innerCount = 64
        let pipes = (0..<innerCount).map { _ in Signal<Int, Never>.pipe() }
        let (outer, outerInput) = Signal<Signal<Int, Never>, Never>.pipe()
        let flat = outer.flatten(strategy)
        let probe = DeliveryProbe(flat)
        let perThread = stressCount / 4
        onThreads(4) { thread in
            if thread == 0 {
                for pipe in pipes {
                    outerInput.send(value: pipe.output)
                    for _ in 0..<20 { sched_yield() }
                }
                outerInput.sendCompleted()
            } else {
                var rng = SystemRandomNumberGenerator()
                for seq in 0..<perThread {
                    let inner = Int.random(in: 0..<innerCount, using: &rng)
                    pipes[inner].input.send(value: inner << 24 | thread << 20 | seq)
                }
            }
        }
        for pipe in pipes { pipe.input.sendCompleted() }
        return (probe, innerCount)
    }

    private func checkCommon(_ probe: DeliveryProbe<Int>) {
        #expect(probe.isClean)
        let values = probe.values
        #expect(Set(values).count == values.count, "a value delivered twice")
        var lastSeq: [Int: Int] = [:]
        var outOfOrder = 0
        for value in values {
            let key = value >> 20
            if let previous = lastSeq[key], previous >= value & 0xFFFFF { outOfOrder += 1 }
            lastSeq[key] = value & 0xFFFFF
        }
        #expect(outOfOrder == 0, "per-inner, per-thread order")
        #expect(probe.terminals == ["completed"])
    }

    @Test("merge: inners sending from three threads: each value at most once, never concurrently, per-inner order kept")
    func mergeStress() {
        let (probe, _) = stress(.merge)
        checkCommon(probe)
    }

    @Test("latest: never a value of a replaced inner")
    func latestStress() {
        let (probe, _) = stress(.latest)
        checkCommon(probe)
        var current = -1
        var stale = 0
        for value in probe.values {
            let inner = value >> 24
            if inner < current { stale += 1 }
            current = max(current, inner)
        }
        #expect(stale == 0, "values of a replaced inner")
    }

    @Test(
        "long synchronous inners started while other threads send: every value once, in order; the starting thread drains in place",
        arguments: [FlattenStrategy.merge, .concurrent(limit: 4)])
    func synchronousInnersStartedUnderContention(_ strategy: FlattenStrategy) {
        let hot = (0..<3).map { _ in Signal<Int, Never>.pipe() }
        let (outer, outerInput) = Signal<SignalProducer<Int, Never>, Never>.pipe()
        let probe = DeliveryProbe(outer.flatten(strategy))
        let perThread = stressCount / 2
        let inners = 100
        let innerLength = 500
        for pipe in hot { outerInput.send(value: pipe.output.producer) }
        onThreads(3) { thread in
            if thread == 0 {
                // Each inner starts inside the flatten's delivery, where the
                // other threads' values queue behind it while it sends.
                for k in 0..<inners {
                    let key = (8 + k) << 24
                    outerInput.send(value: SignalProducer((0..<innerLength).lazy.map { key | $0 }))
                }
                outerInput.sendCompleted()
            } else {
                for seq in 0..<perThread {
                    hot[seq % hot.count].input.send(value: (seq % hot.count) << 24 | thread << 20 | seq)
                }
            }
        }
        for pipe in hot { pipe.input.sendCompleted() }
        checkCommon(probe)
        #expect(probe.values.count == 2 * perThread + inners * innerLength)
    }

    @Test("concurrent(limit: 4) and concat: order and exactly-once under contention")
    func limitedStress() {
        checkCommon(stress(.concurrent(limit: 4)).probe)
        checkCommon(stress(.concat).probe)
    }
}

@Suite("Convenience forms: flatMapError, concat, prefix, merge arities")
struct FlattenConvenienceTests {
    @Test("flatMapError replaces a failure with the producer made of it")
    func flatMapError() {
        let (signal, input) = Signal<Int, TestError>.pipe()
        let log = record(signal.flatMapError { error in SignalProducer<Int, Never>(values: error.code * 100, 1) })
        input.send(value: 1)
        input.send(error: error2)
        #expect(log.items == ["v1", "v200", "v1", "completed"])

        let producer = SignalProducer<Int, TestError>(error: error1).prefix(value: 0)
            .flatMapError { _ in SignalProducer<Int, TestError>.empty }
        #expect(record(producer).items == ["v0", "completed"])

        let (passing, passingInput) = Signal<Int, TestError>.pipe()
        let passed = record(passing.flatMapError { _ in SignalProducer<Int, TestError>(value: 9) })
        passingInput.sendInterrupted()
        #expect(passed.items == ["interrupted"])
    }

    @Test("flatMapError: disposing the run disposes the replacement")
    func flatMapErrorDisposal() {
        let ends = Counter()
        let disposable = SignalProducer<Int, TestError>(error: error1).flatMapError { _ in
            SignalProducer<Int, Never> { observer, lifetime in
                lifetime.observeEnded { ends.increment() }
                lifetime.observeEnded { withExtendedLifetime(observer) {} }
            }
        }.start()
        #expect(ends.count == 0)
        disposable.dispose()
        #expect(ends.count == 1)
    }

    @Test("concat, concat(value:), concat(error:), prefix(_:), prefix(value:)")
    func concatAndPrefix() {
        let one = SignalProducer<Int, TestError>(value: 1)
        #expect(record(one.concat(SignalProducer(value: 2))).items == ["v1", "v2", "completed"])
        #expect(record(one.concat(Box(producer: SignalProducer(value: 3)))).items == ["v1", "v3", "completed"])
        #expect(record(one.concat(value: 4)).items == ["v1", "v4", "completed"])
        #expect(record(one.concat(error: error1)).items == ["v1", "failed(E1)"])
        #expect(record(one.prefix(SignalProducer(value: 0))).items == ["v0", "v1", "completed"])
        #expect(record(one.prefix(Box(producer: SignalProducer(value: 5)))).items == ["v5", "v1", "completed"])
        #expect(record(one.prefix(value: 6)).items == ["v6", "v1", "completed"])
        #expect(record(SignalProducer<Int, TestError>(error: error2).concat(value: 7)).items == ["failed(E2)"])
    }

    @Test("concat starts the next producer only after the previous completed")
    func concatWaits() {
        let (first, firstInput) = Signal<Int, Never>.pipe()
        let starts = Counter()
        let second = SignalProducer<Int, Never> { observer, _ in
            starts.increment()
            observer.send(value: 2)
            observer.sendCompleted()
        }
        let log = record(first.producer.concat(second))
        firstInput.send(value: 1)
        #expect(starts.count == 0)
        firstInput.sendCompleted()
        #expect(starts.count == 1)
        #expect(log.items == ["v1", "v2", "completed"])
    }

    @Test("static merge of 2 to 10 producers of mixed convertible types")
    func mergeArities() {
        let p = { (v: Int) in SignalProducer<Int, Never>(value: v) }
        #expect(record(SignalProducer.merge(p(1), p(2))).items == ["v1", "v2", "completed"])
        let log = Recorder<String>()
        let run = SignalProducer.merge(p(1), Signal<Int, Never>.never, p(3)).start { log.append(describe($0)) }
        #expect(log.items == ["v1", "v3"])
        run.dispose()
        #expect(log.items == ["v1", "v3", "interrupted"])
        let ten = SignalProducer.merge(p(0), p(1), p(2), p(3), p(4), p(5), p(6), p(7), p(8), p(9))
        #expect(record(ten).items == (0..<10).map { "v\($0)" } + ["completed"])
        let nine = SignalProducer.merge(p(0), p(1), p(2), p(3), p(4), p(5), p(6), p(7), p(8))
        #expect(record(nine).items.count == 10)
    }
}

@Suite("flatten: bad input")
struct FlattenPreconditionTests {
    @Test("concurrent(limit: 0) stops with a message naming the operator and the value")
    func zeroLimit() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = FlattenStrategy.concurrent(limit: 0)
        }
        if let result {
            let stderr = String(decoding: result.standardErrorContent, as: UTF8.self)
            #expect(stderr.contains("concurrent(limit:) needs a limit greater than 0, got 0"), "stderr: \(stderr)")
        }
    }
}
