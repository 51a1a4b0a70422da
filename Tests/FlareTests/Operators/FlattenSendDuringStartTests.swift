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
}
