import Flare
import Foundation
import Synchronization
import Testing

/// Spins until `count` threads have arrived, so that what follows starts at
/// the same moment on each.
private final class StartLine: @unchecked Sendable {
    private let arrived = Atomic<Int>(0)
    private let count: Int

    init(_ count: Int) { self.count = count }

    func wait() {
        arrived.add(1, ordering: .relaxed)
        while arrived.load(ordering: .relaxed) < count {}
    }
}

@Suite("Action across threads")
struct ActionConcurrencyTests {
    @Test("many threads start at the same moment: exactly one executes, every other start fails with .disabled")
    func exactlyOneExecutes() {
        let threads = 4
        let rounds = runningUnderSanitizer ? 60 : 400
        // Touched only by executions: ThreadSanitizer reports two that overlap.
        let execution = Unguarded<Signal<Int, Never>.Observer?>(nil)
        let executions = Unguarded(0)
        let action = Action<Int, Int, Never> { input in
            SignalProducer { observer, _ in
                executions.value += 1
                execution.value = observer
                observer.send(value: input)
            }
        }
        let disabledErrors = Counter()
        action.disabledErrors.observeValues { disabledErrors.increment() }
        for round in 0..<rounds {
            let outcomes = (0..<threads).map { _ in Unguarded("") }
            let line = StartLine(threads)
            onThreads(threads) { thread in
                line.wait()
                action.apply(thread).start { event in outcomes[thread].value += describe(event) }
            }
            let results = outcomes.map(\.value).sorted()
            #expect(results.filter { $0 == "failed(disabled)" }.count == threads - 1, "round \(round): \(results)")
            #expect(results.filter { $0.hasPrefix("v") }.count == 1, "round \(round): \(results)")
            #expect(action.isExecuting.value == true)
            execution.value?.sendCompleted()
            #expect(action.isExecuting.value == false && action.isEnabled.value == true)
        }
        #expect(executions.value == rounds)
        #expect(disabledErrors.count == rounds * (threads - 1))
    }

    @Test("enabledIf changing while two threads start executions: every start counted once, executions never overlap, isExecuting and isEnabled change in order")
    func enabledIfChangesDuringStarts() {
        let attempts = runningUnderSanitizer ? 2_000 : 20_000
        let enabled = MutableProperty(true)
        let running = Unguarded(false)
        let executions = Unguarded(0)
        let action = Action<Void, Int, Never>(enabledIf: enabled) {
            SignalProducer { observer, _ in
                // Serial executions: only one thread is ever here.
                let overlapped = running.value
                running.value = true
                executions.value += 1
                observer.send(value: overlapped ? -1 : executions.value)
                running.value = false
                observer.sendCompleted()
            }
        }
        // Deliveries of a property are serialized: no lock needed here.
        let executingChanges = Unguarded<[Bool]>([])
        let enabledChanges = Unguarded<[Bool]>([])
        action.isExecuting.signal.observeValues { executingChanges.value.append($0) }
        action.isEnabled.signal.observeValues { enabledChanges.value.append($0) }
        let overlaps = Unguarded(0)
        action.values.observeValues { if $0 < 0 { overlaps.value += 1 } }
        let executed = [Unguarded(0), Unguarded(0)]
        let disabled = [Unguarded(0), Unguarded(0)]
        onThreads(3) { thread in
            if thread == 2 {
                for i in 0..<attempts / 4 { enabled.value = i % 2 == 1 }
                enabled.value = true
                return
            }
            for _ in 0..<attempts {
                action.apply().start { event in
                    switch event {
                    case .value: executed[thread].value += 1
                    case .failed(.disabled): disabled[thread].value += 1
                    default: break
                    }
                }
            }
        }
        let totalExecuted = executed[0].value + executed[1].value
        #expect(totalExecuted + disabled[0].value + disabled[1].value == 2 * attempts)
        #expect(totalExecuted == executions.value)
        #expect(totalExecuted > 0)
        #expect(overlaps.value == 0)
        let executing = executingChanges.value
        #expect(executing.count == 2 * totalExecuted)
        #expect(executing.enumerated().allSatisfy { $0.element == ($0.offset % 2 == 0) }, "isExecuting alternates, from true")
        let enabling = enabledChanges.value
        #expect(zip(enabling, enabling.dropFirst()).allSatisfy { $0 != $1 }, "isEnabled: each change once")
        #expect(enabling.last == action.isEnabled.value)
        #expect(action.isExecuting.value == false)
        #expect(action.isEnabled.value == true)
    }

    @Test("a state-based action whose state changes during an execution: it runs with the state it started with; isEnabled follows the state once it ends")
    func stateChangesDuringExecution() {
        let state = MutableProperty(0)
        let scheduler = TestScheduler()
        let action = Action<Void, Int, Never>(state: state, enabledIf: { $0 >= 0 }) { value, _ in
            SignalProducer { observer, lifetime in
                observer.send(value: value)
                lifetime += scheduler.schedule { observer.sendCompleted() }
            }
        }
        let values = Recorder<Int>()
        let enabling = Recorder<Bool>()
        action.values.observeValues { values.append($0) }
        action.isEnabled.signal.observeValues { enabling.append($0) }
        action.apply().start()
        onThreads(1) { _ in state.value = 5 }
        #expect(action.isEnabled.value == false)
        onThreads(1) { _ in state.value = -1 }
        scheduler.run()
        #expect(action.isExecuting.value == false)
        #expect(action.isEnabled.value == false)
        #expect(action.apply().single()?.map { _ in "executed" } == .failure(.disabled))
        state.value = 2
        action.apply().start()
        scheduler.run()
        #expect(values.items == [0, 2])
        #expect(enabling.items == [false, true, false, true])
    }

    @Test("disposing a start from another thread during delivery: the action is enabled again when dispose() returns, once; the start hears at most the delivery already starting, then interrupted")
    func disposalFromAnotherThread() {
        let rounds = runningUnderSanitizer ? 20 : 100
        for round in 0..<rounds {
            let action = Action<Void, Int, Never> {
                SignalProducer { observer, lifetime in
                    DispatchQueue.global().async {
                        var i = 0
                        while !lifetime.hasEnded && i < 10_000_000 {
                            observer.send(value: i)
                            i += 1
                        }
                        observer.sendCompleted()
                    }
                }
            }
            let executing = Recorder<Bool>()
            let ended = DispatchSemaphore(value: 0)
            action.isExecuting.signal.observeValues { value in
                executing.append(value)
                if !value { ended.signal() }
            }
            let received = Counter()
            let terminal = Recorder<String>()
            let terminated = DispatchSemaphore(value: 0)
            let firstValue = DispatchSemaphore(value: 0)
            let disposable = action.apply().start { event in
                switch event {
                case .value:
                    if received.count == 0 { firstValue.signal() }
                    received.increment()
                default:
                    terminal.append(describe(event))
                    terminated.signal()
                }
            }
            firstValue.wait()
            disposable.dispose()
            let atDisposal = received.count
            // Ended by the disposing thread (ReactiveSwift ends it in the
            // start's lifetime), or by the work's `interrupted` first.
            #expect(action.isEnabled.value == true, "round \(round): enabled when dispose() returned")
            #expect(ended.wait(timeout: .now() + 30) == .success, "round \(round): the execution ended")
            #expect(terminated.wait(timeout: .now() + 30) == .success, "round \(round): the start ended")
            #expect(received.count <= atDisposal + 1, "round \(round)")
            #expect(terminal.items == ["interrupted"], "round \(round)")
            #expect(action.isEnabled.value == true && action.isExecuting.value == false)
            #expect(executing.items == [true, false])
        }
    }

    @Test("a start's interrupter disposed from another thread at the moment the start begins: one terminal event, the execution ends once")
    func interrupterRacingTheStart() {
        let rounds = runningUnderSanitizer ? 100 : 600
        let action = Action<Void, Int, Never> { SignalProducer(0..<200) }
        let executing = Unguarded<[Bool]>([])
        action.isExecuting.signal.observeValues { executing.value.append($0) }
        var executed = 0
        var interruptedRounds = 0
        for round in 0..<rounds {
            let terminals = Recorder<String>()
            let values = Counter()
            // Values delivered once dispose() had returned: at most the one
            // already starting (contract 10). Relaxed: it orders nothing.
            let disposeReturned = Atomic<Bool>(false)
            let lateValues = Counter()
            let interrupter = Unguarded<Disposable?>(nil)
            let producer = action.apply()
            let line = StartLine(2)
            // startWithSignal hands out the interrupter before the start:
            // the other thread disposes it while this one starts.
            let ready = DispatchSemaphore(value: 0)
            let finished = DispatchSemaphore(value: 0)
            Thread {
                ready.wait()
                line.wait()
                interrupter.value?.dispose()
                disposeReturned.store(true, ordering: .relaxed)
                finished.signal()
            }.start()
            producer.startWithSignal { signal, handle in
                signal.observe { event in
                    if case .value = event {
                        values.increment()
                        if disposeReturned.load(ordering: .relaxed) { lateValues.increment() }
                    } else {
                        terminals.append(describe(event))
                    }
                }
                interrupter.value = handle
                ready.signal()
                line.wait()
            }
            finished.wait()
            #expect(terminals.items == ["completed"] || terminals.items == ["interrupted"], "round \(round): \(terminals.items)")
            if terminals.items == ["completed"] { #expect(values.count == 200, "round \(round)") }
            #expect(lateValues.count <= 1, "round \(round): \(lateValues.count) values after dispose() returned")
            #expect(action.isExecuting.value == false && action.isEnabled.value == true, "round \(round)")
            if executing.value.count > 2 * executed { executed += 1 }
            if terminals.items == ["interrupted"] { interruptedRounds += 1 }
        }
        // Both outcomes occur (on this machine, of 600 rounds: 599
        // interrupted, 91 of them after the work began).
        #expect(interruptedRounds > 0)
        #expect(executing.value.count == 2 * executed)
        #expect(executing.value.enumerated().allSatisfy { $0.element == ($0.offset % 2 == 0) })
    }

    @Test("an operator that ends the started producer early interrupts the work; the action is enabled again")
    func operatorEndsTheRun() {
        let action = Action<Void, Int, Never> { SignalProducer(0..<10) }
        let events = Recorder<String>()
        action.events.observeValues { events.append(describe($0)) }
        let outcome = Recorder<String>()
        action.apply().take(first: 2).start { outcome.append(describe($0)) }
        #expect(outcome.items == ["v0", "v1", "completed"])
        #expect(events.items == ["v0", "v1", "interrupted"])
        #expect(action.isExecuting.value == false && action.isEnabled.value == true)
        #expect(action.apply().collect().single()?.map { $0 } == .success(Array(0..<10)))
    }

    @Test("an action and its executions are released once nothing holds them")
    func releasesMemory() {
        weak var weakAction: Action<Void, Int, Never>?
        weak var weakWork: Canary?
        let scheduler = TestScheduler()
        let isExecuting: Property<Bool>
        do {
            let work = Canary()
            weakWork = work
            let action = Action<Void, Int, Never> {
                SignalProducer { observer, lifetime in
                    withExtendedLifetime(work) { observer.send(value: 1) }
                    lifetime += scheduler.schedule { withExtendedLifetime(work) { observer.sendCompleted() } }
                }
            }
            weakAction = action
            isExecuting = action.isExecuting
            action.apply().start()
            scheduler.run()
            let interrupted = action.apply().start()
            interrupted.dispose()
        }
        scheduler.run()
        #expect(weakAction == nil)
        #expect(weakWork == nil)
        #expect(isExecuting.value == false)
        let late = Recorder<String>()
        isExecuting.producer.start { late.append(describe($0)) }
        #expect(late.items == ["vfalse", "completed"])
    }
}

@Suite("Action across threads: what is made or observed late")
struct ActionLateUseConcurrencyTests {
    @Test("values, errors and completed first used by two threads at the same moment: one signal each, and every value delivered once")
    func derivedSignalsRacingFirstUse() {
        let rounds = runningUnderSanitizer ? 100 : 1_000
        for round in 0..<rounds {
            weak var weakAction: Action<Int, Int, TestError>?
            do {
                let action = Action<Int, Int, TestError> { input in
                    input < 0 ? SignalProducer(error: TestError(code: input)) : SignalProducer(value: input)
                }
                weakAction = action
                let seen = (0..<2).map { _ in Unguarded<(Signal<Int, Never>, Signal<TestError, Never>, Signal<(), Never>)?>(nil) }
                let line = StartLine(2)
                // The threads may release their closures after `onThreads`
                // returns: they reach the action through a box emptied then.
                let box = Unguarded<Action<Int, Int, TestError>?>(action)
                onThreads(2) { thread in
                    line.wait()
                    let action = box.value!
                    // In different orders, so that each slot is raced.
                    if thread == 0 {
                        seen[thread].value = (action.values, action.errors, action.completed)
                    } else {
                        let completed = action.completed
                        let errors = action.errors
                        seen[thread].value = (action.values, errors, completed)
                    }
                }
                box.value = nil
                let first = seen[0].value!, second = seen[1].value!
                #expect(first.0 === second.0 && first.1 === second.1 && first.2 === second.2, "round \(round)")
                #expect(first.0 === action.values)
                let values = Recorder<Int>()
                let errors = Recorder<TestError>()
                let completed = Counter()
                action.values.observeValues { values.append($0) }
                action.errors.observeValues { errors.append($0) }
                action.completed.observeValues { completed.increment() }
                action.apply(1).start()
                action.apply(-1).start()
                action.apply(2).start()
                #expect(values.items == [1, 2], "round \(round)")
                #expect(errors.items == [TestError(code: -1)], "round \(round)")
                #expect(completed.count == 2, "round \(round)")
            }
            #expect(weakAction == nil, "round \(round)")
        }
    }

    @Test("observers of isExecuting and isEnabled attaching and leaving while another thread executes: each sees the changes in order (never a value twice in a row), producers start with the current value, and the last one ends on the final state")
    func lateObserversSeeChangesInOrder() {
        let executions = runningUnderSanitizer ? 2_000 : 50_000
        let action = Action<Void, Int, Never> { SignalProducer(value: 1) }
        let done = Atomic<Bool>(false)
        let recordings = Locked<[[Bool]]>([])
        let violations = Locked<[String]>([])
        onThreads(2) { thread in
            if thread == 0 {
                for _ in 0..<executions { action.apply().start() }
                done.store(true, ordering: .releasing)
                return
            }
            var observed = 0
            while !done.load(ordering: .acquiring) || observed < 4 {
                let executing = Recorder<Bool>()
                let enabled = Recorder<Bool>()
                let signalExecuting = Recorder<Bool>()
                let a = action.isExecuting.producer.startWithValues { executing.append($0) }
                let b = action.isEnabled.producer.startWithValues { enabled.append($0) }
                let c = action.isExecuting.signal.observeValues { signalExecuting.append($0) }
                for _ in 0..<(observed % 50) { _ = action.isExecuting.value }
                a.dispose()
                b.dispose()
                c?.dispose()
                for (name, items) in [("isExecuting", executing.items), ("isEnabled", enabled.items), ("isExecuting.signal", signalExecuting.items)] {
                    if name != "isExecuting.signal", items.isEmpty { violations.withLock { $0.append("\(name): no current value") } }
                    for (x, y) in zip(items, items.dropFirst()) where x == y {
                        violations.withLock { $0.append("\(name): \(items)") }
                        break
                    }
                }
                recordings.withLock { $0.append(executing.items) }
                observed += 1
            }
        }
        #expect(violations.withLock { $0 }.isEmpty, "\(violations.withLock { $0.prefix(5) })")
        #expect(recordings.withLock { $0.count } >= 4)
        #expect(action.isExecuting.value == false && action.isEnabled.value == true)
        let final = Recorder<Bool>()
        action.isExecuting.producer.startWithValues { final.append($0) }
        #expect(final.items == [false])
    }
}
