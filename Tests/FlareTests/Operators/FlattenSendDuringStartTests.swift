import Flare
import Foundation
import Synchronization
import Testing

/// What an inner sends while the flatten starts it is handled at once when
/// nothing is queued, else queued in the order it was sent: these pin the
/// order, the drop of a replaced inner's later events, and the disposal of
/// an inner dropped while it starts.
@Suite("flatten: inners that send while they start")
struct FlattenSendDuringStartTests {
    /// Inner `k` sends `10k`, `10k + 1`, then completes, at each start.
    private static func inner(_ k: Int) -> SignalProducer<Int, Never> {
        SignalProducer(values: 10 * k, 10 * k + 1)
    }

    @Test("latest: a switch sent from the output's observer while an inner starts comes after what that inner sends while starting")
    func latestSwitchWhileStarting() {
        for outerIsProducer in [false, true] {
            let (outer, outerInput) = Signal<Int, Never>.pipe()
            let log = Recorder<String>()
            var switched = false
            let observer = Signal<Int, Never>.Observer { event in
                log.append(describe(event))
                // Inside the delivery of inner 1's first value, itself inside
                // the outer's delivery of 1: the switch is queued behind that
                // delivery, which includes all inner 1 sends while starting.
                if case .value(10) = event, !switched {
                    switched = true
                    outerInput.send(value: 2)
                }
            }
            if outerIsProducer {
                SignalProducer(outer).flatMap(.latest, Self.inner).start(observer)
            } else {
                outer.flatMap(.latest, Self.inner).observe(observer)
            }
            outerInput.send(value: 1)
            #expect(log.items == ["v10", "v11", "v20", "v21"], "outer is a producer: \(outerIsProducer)")
            outerInput.sendCompleted()
            #expect(log.items == ["v10", "v11", "v20", "v21", "completed"])
        }
    }

    @Test("merge: a value another inner sends from the output's observer while an inner starts comes between, in send order")
    func otherInnerWhileStarting() {
        let (outer, outerInput) = Signal<SignalProducer<Int, Never>, Never>.pipe()
        let (other, otherInput) = Signal<Int, Never>.pipe()
        let log = Recorder<String>()
        var sent = false
        outer.flatten(.merge).observe { event in
            log.append(describe(event))
            // Inner 1 is starting: the other inner's value is queued in the
            // flatten; what inner 1 sends next queues behind it.
            if case .value(10) = event, !sent {
                sent = true
                otherInput.send(value: 5)
            }
        }
        outerInput.send(value: other.producer)
        outerInput.send(value: Self.inner(1))
        #expect(log.items == ["v10", "v5", "v11"])
        otherInput.sendCompleted()
        outerInput.sendCompleted()
        #expect(log.items == ["v10", "v5", "v11", "completed"])
    }

    @Test("concat: an outer value sent from the output's observer while an inner starts waits for that inner")
    func concatOuterValueWhileStarting() {
        for strategy in [FlattenStrategy.concat, .merge] {
            let (outer, outerInput) = Signal<Int, Never>.pipe()
            let log = Recorder<String>()
            var sent = false
            outer.flatMap(strategy, Self.inner).observe { event in
                log.append(describe(event))
                if case .value(10) = event, !sent {
                    sent = true
                    outerInput.send(value: 2)
                    outerInput.sendCompleted()
                }
            }
            outerInput.send(value: 1)
            #expect(log.items == ["v10", "v11", "v20", "v21", "completed"])
        }
    }

    @Test("an inner whose first event ends the output while it starts is disposed: its lifetime ends once, it is released")
    func innerDroppedWhileStarting() {
        for outerIsProducer in [false, true] {
            weak var weakCanary: Canary?
            let cleanups = Counter()
            let log = Recorder<String>()
            do {
                let canary = Canary()
                weakCanary = canary
                // Sends one value, then runs until disposed, keeping its
                // observer (and the canary) in its lifetime.
                let inner = SignalProducer<Int, Never> { observer, lifetime in
                    lifetime.observeEnded {
                        cleanups.increment()
                        withExtendedLifetime((observer, canary)) {}
                    }
                    observer.send(value: 7)
                }
                if outerIsProducer {
                    SignalProducer<Int, Never>(value: 1).flatMap(.merge) { _ in inner }.take(first: 1)
                        .start { log.append(describe($0)) }
                } else {
                    let (outer, outerInput) = Signal<Int, Never>.pipe()
                    outer.flatMap(.merge) { _ in inner }.take(first: 1).observe { log.append(describe($0)) }
                    outerInput.send(value: 1)
                }
            }
            #expect(log.items == ["v7", "completed"], "outer is a producer: \(outerIsProducer)")
            #expect(cleanups.count == 1)
            #expect(weakCanary == nil)
        }
    }

    @Test("concat: an inner that completes while it starts, started by the completion of the one before, completes the output once")
    func concatCompletionWhileStarting() {
        let (outer, outerInput) = Signal<SignalProducer<Int, Never>, Never>.pipe()
        let (first, firstInput) = Signal<Int, Never>.pipe()
        let log = Recorder<String>()
        let output = outer.flatten(.concat)
        output.observe { log.append(describe($0)) }
        outerInput.send(value: first.producer)
        outerInput.send(value: Self.inner(2))
        outerInput.send(value: Self.inner(3))
        outerInput.sendCompleted()
        firstInput.send(value: 1)
        firstInput.sendCompleted()
        #expect(log.items == ["v1", "v20", "v21", "v30", "v31", "completed"])
        // Observing the ended output gets `interrupted` only: it completed once.
        let late = Recorder<String>()
        output.observe { late.append(describe($0)) }
        #expect(late.items == ["interrupted"])
    }
    @Test(
        "concat, concurrent: a long synchronous inner started after one that ended while starting is handed over, not queued",
        arguments: [FlattenStrategy.concat, .concurrent(limit: 2)])
    func longInnerAfterOneEndedWhileStartingIsNotQueued(_ strategy: FlattenStrategy) {
        let length = 10_000
        let iterated = Counter()
        let delivered = Counter()
        // How far the inner's iteration ran ahead of the delivery of its
        // values: queued on the internal signal, all of them.
        let maximumLead = Unguarded(0)
        let (outer, outerInput) = Signal<SignalProducer<Int, Never>, Never>.pipe()
        let (first, firstInput) = Signal<Int, Never>.pipe()
        let (second, secondInput) = Signal<Int, Never>.pipe()
        let log = Recorder<String>()
        outer.flatten(strategy).observe { event in
            guard case let .value(value) = event else { return log.append(describe(event)) }
            if value >= 100 {
                delivered.increment()
                maximumLead.value = max(maximumLead.value, iterated.count - delivered.count)
            } else {
                log.append(describe(event))
            }
        }
        outerInput.send(value: first.producer)
        outerInput.send(value: second.producer)
        outerInput.send(value: Self.inner(2))
        outerInput.send(value: SignalProducer((0..<length).lazy.map { value in
            iterated.increment()
            return 100 + value
        }))
        outerInput.sendCompleted()
        secondInput.sendCompleted()
        firstInput.sendCompleted()
        #expect(log.items == ["v20", "v21", "completed"])
        #expect(delivered.count == length)
        #expect(maximumLead.value == 0)
    }

    @Test("latest: inners that end while starting hand their node on; a replaced inner's later values are still dropped")
    func reusedNodeKeepsReplacedInnersOut() {
        let (outer, outerInput) = Signal<Int, Never>.pipe()
        let (slow, slowInput) = Signal<Int, Never>.pipe()
        let log = Recorder<String>()
        outer.flatMap(.latest) { k in k == 2 ? slow.producer : SignalProducer(value: k) }
            .observe { log.append(describe($0)) }
        outerInput.send(value: 1)  // ends while starting: its node is kept
        outerInput.send(value: 2)  // the kept node, for an inner that stays
        slowInput.send(value: 20)
        outerInput.send(value: 3)  // replaces inner 2, ends while starting
        slowInput.send(value: 21)
        outerInput.send(value: 4)  // reuses inner 3's node
        slowInput.send(value: 22)
        outerInput.send(value: 5)
        #expect(log.items == ["v1", "v20", "v3", "v4", "v5"])
        outerInput.sendCompleted()
        #expect(log.items == ["v1", "v20", "v3", "v4", "v5", "completed"])
    }

    @Test("latest: a replaced inner's value queued before the switch is dropped, though its node now serves the next inner")
    func replacedInnersQueuedValueWithItsNodeReused() {
        let (outer, outerInput) = Signal<Int, Never>.pipe()
        let first = Locked<Signal<Int, Never>.Observer?>(nil)
        let second = Locked<Signal<Int, Never>.Observer?>(nil)
        let entered = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let log = Recorder<String>()
        outer.flatMap(.latest) { k -> SignalProducer<Int, Never> in
            if k == 2 {
                // Inside the internal signal's delivery of 2, before inner 1
                // is dropped: the value inner 1 sends now is queued.
                entered.signal()
                proceed.wait()
            }
            return SignalProducer { observer, _ in
                (k == 1 ? first : second).withLock { $0 = observer }
            }
        }.observe { log.append(describe($0)) }
        outerInput.send(value: 1)
        let switched = DispatchSemaphore(value: 0)
        Thread {
            outerInput.send(value: 2)
            switched.signal()
        }.start()
        entered.wait()
        first.withLock { $0 }?.send(value: 7)
        proceed.signal()
        switched.wait()
        second.withLock { $0 }?.send(value: 9)
        #expect(log.items == ["v9"])
    }

    @Test("a flatten whose inners ended while starting is released when its output ends or is disposed")
    func keptNodeReleasedWithTheFlatten() {
        for (strategy, ending) in [(FlattenStrategy.merge, "complete"), (.concat, "dispose"), (.latest, "release")] {
            weak var weakCanary: Canary?
            let log = Recorder<String>()
            do {
                let canary = Canary()
                weakCanary = canary
                let (outer, outerInput) = Signal<Int, Never>.pipe()
                let observation = outer.flatMap(strategy) { k in
                    withExtendedLifetime(canary) { SignalProducer<Int, Never>(value: k) }
                }.observe { log.append(describe($0)) }
                outerInput.send(value: 1)
                outerInput.send(value: 2)
                switch ending {
                case "complete": outerInput.sendCompleted()
                case "dispose": observation?.dispose()
                default: break
                }
            }
            // Disposing the observation detaches the observer: no terminal
            // event reaches it. Releasing the outer's input interrupts.
            let expected = ["complete": ["v1", "v2", "completed"], "dispose": ["v1", "v2"]][ending] ?? ["v1", "v2", "interrupted"]
            #expect(log.items == expected, "\(ending)")
            #expect(weakCanary == nil, "\(ending)")
        }
    }
    @Test("inners of several kinds that end while starting each send their own events, in order")
    func innersEndingWhileStartingSendTheirOwnEvents() {
        for strategy in [FlattenStrategy.merge, .concat, .latest] {
            let (outer, outerInput) = Signal<Int, Never>.pipe()
            let log = Recorder<String>()
            outer.flatMap(strategy) { k -> SignalProducer<Int, Never> in
                switch k % 4 {
                case 0: return SignalProducer(value: 10 * k)
                case 1: return SignalProducer(value: 10 * k)
                case 2: return SignalProducer([10 * k, 10 * k + 1])  // another payload type
                default: return SignalProducer(value: k).map { 10 * $0 }  // another link count
                }
            }.observe { log.append(describe($0)) }
            for k in 0..<9 { outerInput.send(value: k) }
            outerInput.sendCompleted()
            #expect(log.items == ["v0", "v10", "v20", "v21", "v30", "v40", "v50", "v60", "v61", "v70", "v80", "completed"],
                    "\(strategy)")
        }
    }

    @Test("a failing inner after inners that ended while starting ends the output; later inners never start")
    func failureAfterInnersEndingWhileStarting() {
        let (outer, outerInput) = Signal<Int, TestError>.pipe()
        let log = Recorder<String>()
        let starts = Counter()
        outer.flatMap(.concat) { k -> SignalProducer<Int, TestError> in
            starts.increment()
            return k == 3 ? SignalProducer(error: TestError(code: 3)) : SignalProducer(value: k)
        }.observe { log.append(describe($0)) }
        for k in 1...5 { outerInput.send(value: k) }
        #expect(log.items == ["v1", "v2", "failed(E3)"])
        #expect(starts.count == 3)
    }
    @Test("SignalProducer(value:) and SignalProducer(error:) inners of one type each send their own event")
    func valueAndFailureInnersOfOneType() {
        let (outer, outerInput) = Signal<Int, TestError>.pipe()
        let log = Recorder<String>()
        outer.flatMap(.concat) { k -> SignalProducer<TestError, TestError> in
            k < 2 ? SignalProducer(value: TestError(code: k)) : SignalProducer(error: TestError(code: k))
        }.observe { log.append(describe($0)) }
        for k in 0..<3 { outerInput.send(value: k) }
        #expect(log.items == ["vE0", "vE1", "failed(E2)"])
    }

    /// A flatten over `other` (outer value 0) and `inner(k)` for the outer
    /// values after it, whose observer sends outer value 1 when `other`
    /// sends 5: from inside the flatten's delivery, so value 1 is queued on
    /// the flatten and its inner starts in the drain that follows, with the
    /// outer signal free again. `react` runs for every event after that.
    private static func startInDrain<E: Swift.Error>(
        _ strategy: FlattenStrategy, inner: @escaping (Int) -> SignalProducer<Int, E>,
        react: @escaping (Signal<Int, E>.Event, Signal<Int, E>.Observer) -> Void
    ) -> (log: Recorder<String>, other: Signal<Int, E>.Observer, outer: Signal<Int, E>.Observer) {
        let (outer, outerInput) = Signal<Int, E>.pipe()
        let (other, otherInput) = Signal<Int, E>.pipe()
        let log = Recorder<String>()
        outer.flatMap(strategy) { k in k == 0 ? other.producer : inner(k) }.observe { event in
            log.append(describe(event))
            if case .value(5) = event { outerInput.send(value: 1) }
            react(event, outerInput)
        }
        outerInput.send(value: 0)
        return (log, otherInput, outerInput)
    }

    /// Inner 1 of `startInDrain`: `count` values from 100, each counted
    /// when its source makes it.
    private static func counted<E: Swift.Error>(_ count: Int, _ iterated: Counter) -> SignalProducer<Int, E> {
        SignalProducer((0..<count).lazy.map { value in
            iterated.increment()
            return 100 + value
        })
    }

    @Test("latest: a switch queued on the flatten while a long synchronous inner starts replaces it at once: it makes no more values")
    func latestSwitchQueuedBehindAStartStopsTheInner() {
        let iterated = Counter()
        let (log, other, outer) = Self.startInDrain(
            .latest, inner: { (k: Int) -> SignalProducer<Int, Never> in k == 1 ? Self.counted(1_000_000, iterated) : Self.inner(k) },
            react: { event, outer in
                // Inner 1's first value, handed over: the switch to 2 is
                // queued on the flatten, behind the start of inner 1.
                if case .value(100) = event { outer.send(value: 2) }
            })
        other.send(value: 5)
        #expect(log.items == ["v5", "v100", "v20", "v21"])
        // Before the drain in place, inner 1 ran to its end, every value
        // queued behind the switch and then dropped.
        #expect(iterated.count <= 3, "values inner 1 made: \(iterated.count)")
        outer.sendCompleted()
        #expect(log.items == ["v5", "v100", "v20", "v21", "completed"])
    }

    @Test("merge: an outer value queued on the flatten while an inner starts starts its inner once that start has returned")
    func mergeOuterValueQueuedBehindAStartWaitsForIt() {
        let (log, other, outer) = Self.startInDrain(
            .merge, inner: { (k: Int) -> SignalProducer<Int, Never> in Self.inner(k) },
            react: { event, outer in
                if case .value(10) = event { outer.send(value: 2) }
            })
        other.send(value: 5)
        // Inner 2 starts after inner 1's start, not inside it (starts never
        // nest): its values come after inner 1's, as when they were queued.
        #expect(log.items == ["v5", "v10", "v11", "v20", "v21"])
        other.sendCompleted()
        outer.sendCompleted()
        #expect(log.items == ["v5", "v10", "v11", "v20", "v21", "completed"])
    }

    @Test(
        "a failure queued on the flatten while a long synchronous inner starts ends the output at once; the inner stops, all is released",
        arguments: [false, true])
    func failureQueuedBehindAStartEndsTheOutputInPlace(startsInDrain: Bool) {
        let iterated = Counter()
        let log = Recorder<String>()
        Self.expectReleased { canary in
            let (outer, outerInput) = Signal<Int, TestError>.pipe()
            let (other, otherInput) = Signal<Int, TestError>.pipe()
            let (failing, failingInput) = Signal<Int, TestError>.pipe()
            outer.flatMap(.merge) { k -> SignalProducer<Int, TestError> in
                withExtendedLifetime(canary) {
                    switch k {
                    case 0: other.producer
                    case 1: Self.counted(1_000_000, iterated)
                    default: failing.producer
                    }
                }
            }.observe { event in
                guard log.items.count < 10 else { return }
                log.append(describe(event))
                // As in `startInDrain`: inner 1 starts in the drain of the
                // flatten (its drain state is the one resumed in place).
                if case .value(5) = event { outerInput.send(value: 1) }
                // Another inner's failure is queued behind the start of
                // inner 1, which goes on sending.
                if case .value(100) = event { failingInput.send(error: TestError(code: 1)) }
            }
            outerInput.send(value: 0)
            outerInput.send(value: 3)
            if startsInDrain { otherInput.send(value: 5) } else { outerInput.send(value: 1) }
            let expected = (startsInDrain ? ["v5"] : []) + ["v100", "failed(E1)"]
            #expect(log.items == expected)
            #expect(iterated.count <= 3, "values inner 1 made: \(iterated.count)")
            outerInput.send(value: 2)
            #expect(log.items == expected)
        }
    }

    @Test(
        "a flattened run disposed by a value delivered in place for a starting inner: nothing after, the inner stops, all is released",
        arguments: [false, true])
    func runDisposedWhileDrainingInPlace(startsInDrain: Bool) {
        let made = Counter()
        let log = Recorder<String>()
        Self.expectReleased { canary in
            let (outer, outerInput) = Signal<Int, Never>.pipe()
            let (other, otherInput) = Signal<Int, Never>.pipe()
            let (third, thirdInput) = Signal<Int, Never>.pipe()
            let run = SerialDisposable()
            run.inner = SignalProducer(outer).flatMap(.merge) { k -> SignalProducer<Int, Never> in
                if k == 0 { return other.producer }
                if k == 3 { return third.producer }
                return SignalProducer { observer, lifetime in
                    withExtendedLifetime(canary) {
                        observer.send(value: 100)
                        // Another thread's value, through a third inner,
                        // is queued on the flatten behind this start: the
                        // next send delivers it in place, and its observer
                        // disposes the run, which queues the removal of
                        // that observer and the flatten's interruption.
                        let queued = DispatchSemaphore(value: 0)
                        DispatchQueue.global().async {
                            thirdInput.send(value: 5)
                            queued.signal()
                        }
                        queued.wait()
                        var i = 101
                        while !lifetime.hasEnded, i < 1_000_000 {
                            made.increment()
                            observer.send(value: i)
                            i += 1
                        }
                    }
                }
            }.start { event in
                guard log.items.count < 10 else { return }
                log.append(describe(event))
                if case .value(5) = event { run.dispose() }
                // Inner 1 starts in the flatten's drain, behind value 7.
                if case .value(7) = event { outerInput.send(value: 1) }
            }
            outerInput.send(value: 0)
            outerInput.send(value: 3)
            if startsInDrain { otherInput.send(value: 7) } else { outerInput.send(value: 1) }
            let expected = (startsInDrain ? ["v7"] : []) + ["v100", "v5", "interrupted"]
            #expect(log.items == expected)
            #expect(made.count <= 3, "values the inner made: \(made.count)")
            otherInput.send(value: 6)
            thirdInput.send(value: 6)
            outerInput.send(value: 2)
            #expect(log.items == expected)
        }
    }

    /// Runs `body` with a canary for it to capture in what it builds, and
    /// expects the canary released once `body` has returned: everything
    /// the flatten kept, inners included, is gone.
    private static func expectReleased(_ body: (Canary) -> Void) {
        weak var weakCanary: Canary?
        do {
            let canary = Canary()
            weakCanary = canary
            body(canary)
        }
        #expect(weakCanary == nil)
    }
}
