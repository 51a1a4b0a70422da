import Flare
import Foundation
import Testing

/// An action in the shape of ReactiveSwift's own spec: enabled by a
/// property; an even input sends two values at once and completes when the
/// scheduler runs, an odd one fails when it runs.
private final class Fixture {
    let enabled = MutableProperty(false)
    let scheduler = TestScheduler()
    let executions = Counter()
    let values = Recorder<String>()
    let errors = Recorder<TestError>()
    let completed = Counter()
    let executing = Recorder<Bool>()
    let enabling = Recorder<Bool>()
    let action: Action<Int, String, TestError>

    init() {
        let scheduler = scheduler
        let executions = executions
        action = Action(enabledIf: enabled) { number in
            SignalProducer { observer, lifetime in
                executions.increment()
                if number % 2 == 0 {
                    observer.send(value: "\(number)")
                    observer.send(value: "\(number)\(number)")
                    lifetime += scheduler.schedule { observer.sendCompleted() }
                } else {
                    lifetime += scheduler.schedule { observer.send(error: TestError(code: number)) }
                }
            }
        }
        action.values.observeValues { [values] in values.append($0) }
        action.errors.observeValues { [errors] in errors.append($0) }
        action.completed.observeValues { [completed] in completed.increment() }
        action.isExecuting.signal.observeValues { [executing] in executing.append($0) }
        action.isEnabled.signal.observeValues { [enabling] in enabling.append($0) }
    }
}

@Suite("Action")
struct ActionTests {
    @Test("disabled by its state: a start fails with .disabled, sends on disabledErrors, executes nothing")
    func disabledStart() {
        let f = Fixture()
        #expect(f.action.isEnabled.value == false)
        #expect(f.action.isExecuting.value == false)
        let disabled = Counter()
        f.action.disabledErrors.observeValues { disabled.increment() }
        let events = Recorder<String>()
        f.action.apply(0).start { events.append(describe($0)) }
        #expect(events.items == ["failed(disabled)"])
        #expect(disabled.count == 1)
        #expect(f.executions.count == 0)
        #expect(f.values.items.isEmpty && f.executing.items.isEmpty)
    }

    @Test("isEnabled follows the state, each change once")
    func enabledFollowsState() {
        let f = Fixture()
        f.enabled.value = true
        f.enabled.value = true
        #expect(f.action.isEnabled.value == true)
        f.enabled.value = false
        #expect(f.action.isEnabled.value == false)
        #expect(f.action.isExecuting.value == false)
        #expect(f.enabling.items == [true, false])
        #expect(f.executing.items.isEmpty)
    }

    @Test("an execution: values at once, disabled and executing until it completes, then enabled")
    func execution() {
        let f = Fixture()
        f.enabled.value = true
        let events = Recorder<String>()
        f.action.apply(0).start { events.append(describe($0)) }
        #expect(f.executions.count == 1)
        #expect(f.action.isExecuting.value == true)
        #expect(f.action.isEnabled.value == false)
        #expect(events.items == ["v0", "v00"])
        #expect(f.values.items == ["0", "00"])
        f.scheduler.run()
        #expect(events.items == ["v0", "v00", "completed"])
        #expect(f.action.isExecuting.value == false)
        #expect(f.action.isEnabled.value == true)
        #expect(f.completed.count == 1)
        #expect(f.errors.items.isEmpty)
        #expect(f.executing.items == [true, false])
        #expect(f.enabling.items == [true, false, true])
    }

    @Test("a failed execution arrives as .producerFailed and on errors, not on completed")
    func failedExecution() {
        let f = Fixture()
        f.enabled.value = true
        let events = Recorder<String>()
        f.action.apply(1).start { events.append(describe($0)) }
        #expect(f.action.isExecuting.value == true)
        f.scheduler.run()
        #expect(events.items == ["failed(producerFailed(E1))"])
        #expect(f.errors.items == [TestError(code: 1)])
        #expect(f.values.items.isEmpty)
        #expect(f.completed.count == 0)
        #expect(f.action.isEnabled.value == true)
    }

    @Test("events carries every event of every execution, in order")
    func eventsSignal() {
        let f = Fixture()
        f.enabled.value = true
        let events = Recorder<String>()
        f.action.events.observeValues { events.append(describe($0)) }
        f.action.apply(2).start()
        f.scheduler.run()
        f.action.apply(3).start()
        f.scheduler.run()
        let interrupted = f.action.apply(4).start()
        interrupted.dispose()
        #expect(events.items == ["v2", "v22", "completed", "failed(E3)", "v4", "v44", "interrupted"])
        #expect(f.completed.count == 1)
    }

    @Test("whether the action is enabled is decided when the producer starts, not when apply is called")
    func decidedAtStart() {
        let f = Fixture()
        let early = f.action.apply(0)
        f.enabled.value = true
        let late = f.action.apply(2)
        let outcomes = Recorder<String>()
        early.start { outcomes.append("early " + describe($0)) }
        f.scheduler.run()
        f.enabled.value = false
        late.start { outcomes.append("late " + describe($0)) }
        #expect(outcomes.items == ["early v0", "early v00", "early completed", "late failed(disabled)"])
        #expect(f.executions.count == 1)
    }

    @Test("executions are serial: a start while one runs fails with .disabled; after it ends, one executes again")
    func serial() {
        let f = Fixture()
        f.enabled.value = true
        let disabled = Counter()
        f.action.disabledErrors.observeValues { disabled.increment() }
        f.action.apply(0).start()
        let second = Recorder<String>()
        f.action.apply(2).start { second.append(describe($0)) }
        #expect(second.items == ["failed(disabled)"])
        #expect(disabled.count == 1)
        f.scheduler.run()
        f.action.apply(2).start()
        #expect(f.executions.count == 2)
        #expect(f.values.items == ["0", "00", "2", "22"])
        // Ends the last execution, which retains the action (and, through
        // the work's scheduled completion, the scheduler that holds it).
        f.scheduler.run()
    }

    @Test("disposing an execution's start interrupts it, stops its work and enables the action again")
    func disposalInterrupts() {
        let f = Fixture()
        f.enabled.value = true
        let events = Recorder<String>()
        let disposable = f.action.apply(0).start { events.append(describe($0)) }
        #expect(f.action.isExecuting.value == true)
        disposable.dispose()
        #expect(events.items == ["v0", "v00", "interrupted"])
        #expect(f.action.isExecuting.value == false)
        #expect(f.action.isEnabled.value == true)
        f.scheduler.run()
        #expect(events.items == ["v0", "v00", "interrupted"], "the work's scheduled completion was cancelled")
        #expect(f.completed.count == 0)
        disposable.dispose()
        #expect(f.executing.items == [true, false])
    }

    @Test("a start disposed before it runs executes nothing and leaves the action enabled")
    func disposedBeforeStart() {
        let f = Fixture()
        f.enabled.value = true
        let events = Recorder<String>()
        f.action.apply(0).startWithSignal { signal, interrupter in
            signal.observe { events.append(describe($0)) }
            interrupter.dispose()
        }
        #expect(events.items == ["interrupted"])
        #expect(f.executions.count == 0)
        #expect(f.action.isEnabled.value == true && f.action.isExecuting.value == false)
        #expect(f.executing.items.isEmpty)
    }

    @Test("a start whose handle is released at once: its execution still delivers every event, then the start, the work and the action are released")
    func handleReleasedAtOnce() {
        weak var weakAction: Action<Int, String, TestError>?
        weak var weakWork: Canary?
        let scheduler = TestScheduler()
        let events = Recorder<String>()
        do {
            let work = Canary()
            weakWork = work
            let action = Action<Int, String, TestError> { number in
                SignalProducer { observer, lifetime in
                    withExtendedLifetime(work) { observer.send(value: "\(number)") }
                    lifetime += scheduler.schedule {
                        observer.send(value: "\(number)\(number)")
                        observer.sendCompleted()
                    }
                }
            }
            weakAction = action
            // Operators over `apply`'s producer share the start's run.
            _ = action.apply(7).map { $0 + "!" }.filter { $0 != "7!" }.start { events.append(describe($0)) }
        }
        #expect(weakAction != nil)
        scheduler.run()
        #expect(events.items == ["v77!", "completed"])
        #expect(weakAction == nil)
        #expect(weakWork == nil)
    }

    @Test("an observer of completed finds the action enabled, and may execute it again")
    func completedObserverReapplies() {
        let f = Fixture()
        f.enabled.value = true
        let seen = Recorder<String>()
        // The observer refers to the fixture, which holds the action: a
        // cycle until the observation is disposed, below.
        let observation = f.action.completed.observeValues {
            seen.append("enabled \(f.action.isEnabled.value) executing \(f.action.isExecuting.value)")
            if f.executions.count < 3 { f.action.apply(2).start() }
        }
        defer { observation?.dispose() }
        f.action.apply(0).start()
        f.scheduler.run()
        #expect(f.executions.count == 3)
        #expect(seen.items == Array(repeating: "enabled true executing false", count: 3))
        #expect(f.values.items == ["0", "00", "2", "22", "2", "22"])
    }

    @Test("ActionError is Equatable when its error is")
    func actionErrorEquatable() {
        typealias E = ActionError<TestError>
        #expect(E.disabled == E.disabled)
        #expect(E.producerFailed(TestError(code: 1)) == E.producerFailed(TestError(code: 1)))
        #expect(E.producerFailed(TestError(code: 1)) != E.producerFailed(TestError(code: 2)))
        #expect(E.disabled != E.producerFailed(TestError(code: 1)))
    }
}

@Suite("Action initializers")
struct ActionInitializerTests {
    @Test("state: executions take the state's latest value and the input")
    func stateAndInput() {
        let state = MutableProperty(1)
        let add = Action<Int, Int, Never>(state: state) { state, input in SignalProducer(value: state + input) }
        let values = Recorder<Int>()
        add.values.observeValues { values.append($0) }
        add.apply(2).start()
        add.apply(3).start()
        state.value = -1
        add.apply(-10).start()
        #expect(values.items == [3, 4, -11])
    }

    @Test("state with Void input: apply() executes with the current value")
    func stateVoid() {
        let input = MutableProperty(0)
        let action = Action(state: input) { SignalProducer<Int, Never>(value: $0) }
        let values = Recorder<Int>()
        action.values.observeValues { values.append($0) }
        for value in 1...3 {
            input.value = value
            action.apply().start()
        }
        #expect(values.items == [1, 2, 3])
    }

    @Test("state and enabledIf: execute receives the very value the predicate admitted")
    func stateEnabledIf() {
        let state = MutableProperty(1)
        let predicateCalls = Recorder<Int>()
        let action = Action<Void, Int, Never>(state: state, enabledIf: { value in
            predicateCalls.append(value)
            return value % 2 == 0
        }) { value, _ in SignalProducer(value: value) }
        let outcomes = Recorder<String>()
        action.apply().start { outcomes.append(describe($0)) }
        #expect(action.isEnabled.value == false)
        state.value = 4
        #expect(action.isEnabled.value == true)
        action.apply().start { outcomes.append(describe($0)) }
        state.value = 5
        action.apply().start { outcomes.append(describe($0)) }
        #expect(outcomes.items == ["failed(disabled)", "v4", "completed", "failed(disabled)"])
        #expect(predicateCalls.items.suffix(2) == [4, 5])
    }

    @Test("unwrapping: enabled while the state is not nil; a different input type")
    func unwrapping() {
        let state = MutableProperty<Int?>(nil)
        let add = Action<String, Int, Never>(unwrapping: state) { state, input in
            SignalProducer(value: state + (Int(input) ?? 0))
        }
        let values = Recorder<Int>()
        add.values.observeValues { values.append($0) }
        #expect(add.isEnabled.value == false)
        state.value = 1
        #expect(add.isEnabled.value == true)
        add.apply("2").start()
        add.apply("3").start()
        state.value = -1
        add.apply("-10").start()
        state.value = nil
        #expect(add.isEnabled.value == false)
        add.apply("7").start()
        #expect(values.items == [3, 4, -11])

        let echo = Action(unwrapping: MutableProperty<Int?>(8)) { SignalProducer<Int, Never>(value: $0) }
        #expect(echo.apply().single()?.value == 8)
    }

    @Test("validated: disabled while invalid; a coerced value executes with its replacement")
    func validated() {
        enum ValidationError: Swift.Error { case generic }
        let decisions: [ValidatingProperty<Int, ValidationError>.Decision] = [.valid, .invalid(.generic), .coerced(10, nil)]
        let input = ValidatingProperty<Int, ValidationError>(0) { decisions[$0] }
        let action = Action(validated: input) { SignalProducer<Int, Never>(value: $0) }
        #expect(action.isEnabled.value == true)
        #expect(action.apply().single()?.value == 0)
        input.value = 1
        #expect(action.isEnabled.value == false)
        #expect(action.apply().single()?.error == .disabled)
        input.value = 2
        #expect(action.isEnabled.value == true)
        #expect(action.apply().single()?.value == 10)

        let withInput = Action<Int, Int, Never>(validated: input) { state, input in SignalProducer(value: state * input) }
        #expect(withInput.apply(3).single()?.value == 30)
    }

    @Test("execute alone: enabled whenever no execution runs")
    func executeOnly() {
        let action = Action<Int, Int, Never> { SignalProducer(value: $0 * 2) }
        #expect(action.isEnabled.value == true)
        #expect(action.apply(21).single()?.value == 42)
        #expect(action.isEnabled.value == true)
    }

    @Test("the action retains its state property, and releases it when it deinitializes")
    func retainsState() {
        var property: MutableProperty<Bool>? = MutableProperty(false)
        weak let weakProperty = property
        var action: Action<Void, Void, Never>? = Action(state: property!, enabledIf: { $0 }) { _, _ in .empty }
        property = nil
        #expect(weakProperty != nil)
        #expect(action?.isEnabled.value == false)
        action = nil
        #expect(weakProperty == nil)
    }
}

private extension Result {
    var value: Success? { if case let .success(value) = self { value } else { nil } }
    var error: Failure? { if case let .failure(error) = self { error } else { nil } }
}

@Suite("Action feedback: no deadlock, by construction")
struct ActionFeedbackTests {
    @Test("isExecuting bound into the action's own enabledIf (ReactiveSwift issue #309)")
    func executingIntoEnabledIf() {
        let enabled = MutableProperty(false)
        let scheduler = TestScheduler()
        let action = Action<Void, Int, Never>(enabledIf: enabled) {
            SignalProducer { observer, lifetime in
                observer.send(value: 1)
                lifetime += scheduler.schedule { observer.sendCompleted() }
            }
        }
        enabled <~ action.isExecuting.negate()
        #expect(enabled.value == true && action.isEnabled.value == true && action.isExecuting.value == false)
        let disposable = action.apply().start()
        #expect(enabled.value == false && action.isEnabled.value == false && action.isExecuting.value == true)
        disposable.dispose()
        #expect(enabled.value == true && action.isEnabled.value == true && action.isExecuting.value == false)
        action.apply().start()
        scheduler.run()
        #expect(enabled.value == true && action.isEnabled.value == true && action.isExecuting.value == false)
    }

    @Test("isEnabled feeding back into the state, as a control that resigns first responder does")
    func enabledIntoState() {
        let enabled = MutableProperty(false)
        let action = Action<Void, Void, Never>(enabledIf: enabled) { .never }
        let isFirstResponder = Unguarded(false)
        action.isEnabled.producer
            .filter { !$0 && isFirstResponder.value }
            .startWithValues { _ in enabled.value = false }
        enabled.value = true
        #expect(action.isEnabled.value == true)
        isFirstResponder.value = true
        let disposable = action.apply().start()
        #expect(enabled.value == false && action.isEnabled.value == false && action.isExecuting.value == true)
        disposable.dispose()
        #expect(enabled.value == false && action.isEnabled.value == false && action.isExecuting.value == false)
        enabled.value = true
        #expect(action.isEnabled.value == true)
    }

    @Test("a state change from an observer of isExecuting does not loop")
    func noLoop() {
        let condition = MutableProperty(1)
        let action = Action<Void, Void, Never>(state: condition, enabledIf: { $0 == 0 }) { _, _ in .empty }
        let count = Counter()
        action.isExecuting.producer.startWithValues { _ in
            condition.value = 10
            count.increment()
        }
        #expect(count.count == 1)
        #expect(action.isEnabled.value == false)
    }

    @Test("values fed back into the state: each execution's value decides whether the next start may run")
    func valuesIntoState() {
        let budget = MutableProperty(3)
        let action = Action<Void, Int, Never>(state: budget, enabledIf: { $0 > 0 }) { remaining, _ in
            SignalProducer(value: remaining - 1)
        }
        budget <~ action.values
        var outcomes: [String] = []
        for _ in 0..<5 {
            outcomes.append(describe(action.apply().single()!.map { "\($0)" }.mapError { _ in TestError(code: 0) }.asEvent))
        }
        #expect(outcomes == ["v2", "v1", "v0", "failed(E0)", "failed(E0)"])
        #expect(action.isEnabled.value == false)
    }

    @Test("apply(...).start() from inside observers of values, isExecuting and isEnabled")
    func applyFromObservers() {
        let action = Action<Int, Int, Never> { SignalProducer(value: $0) }
        let fromValues = Recorder<String>()
        // These observers refer to the action, which holds them: cycles
        // until the observations are disposed, at the end.
        let fromValuesObservation = action.values.observeValues { value in
            // The execution sending this value still runs: disabled.
            if value == 1 { action.apply(100).start { fromValues.append(describe($0)) } }
        }
        let fromExecuting = Recorder<String>()
        let fromExecutingObservation = action.isExecuting.signal.observeValues { executing in
            // The first execution ended: this one runs (once).
            if !executing && fromExecuting.items.isEmpty {
                action.apply(2).start { fromExecuting.append(describe($0)) }
            }
        }
        let fromEnabled = Recorder<String>()
        let fromEnabledObservation = action.isEnabled.signal.observeValues { enabled in
            if enabled && fromEnabled.items.isEmpty {
                action.apply(3).start { fromEnabled.append(describe($0)) }
            }
        }
        defer {
            fromValuesObservation?.dispose()
            fromExecutingObservation?.dispose()
            fromEnabledObservation?.dispose()
        }
        let all = Recorder<Int>()
        action.values.observeValues { all.append($0) }
        action.apply(1).start()
        #expect(fromValues.items == ["failed(disabled)"])
        #expect(fromExecuting.items == ["v2", "completed"])
        // The first execution's end is published to isEnabled, then to
        // isExecuting (ReactiveSwift's order); the execution started from
        // the isEnabled observer ran (and ended) meanwhile, its changes
        // queued behind: so the isExecuting observer hears the first "not
        // executing" when the action is idle indeed, and its start executes.
        #expect(fromEnabled.items == ["v3", "completed"])
        #expect(all.items == [1, 3, 2])
        #expect(action.isExecuting.value == false && action.isEnabled.value == true)
    }

    @Test("an action bound to its own output: synchronously (disabled: its execution still runs), and through a scheduler (a chain)")
    func boundToOwnOutput() {
        let action = Action<Int, Int, Never> { SignalProducer(value: $0) }
        let disabled = Counter()
        action.disabledErrors.observeValues { disabled.increment() }
        let binding = action <~ action.values.filter { $0 > 0 }.map { $0 - 1 }
        action.apply(3).start()
        #expect(disabled.count == 1)
        binding?.dispose()

        let scheduler = TestScheduler()
        let chained = Action<Int, Int, Never> { SignalProducer(value: $0) }
        let values = Recorder<Int>()
        chained.values.observeValues { values.append($0) }
        chained <~ chained.values.filter { $0 > 0 }.map { $0 - 1 }.observe(on: scheduler)
        chained.apply(3).start()
        scheduler.run()
        #expect(values.items == [3, 2, 1, 0])
    }

    @Test("the action released while an execution runs: the execution finishes, then everything completes and is released")
    func releasedWhileExecuting() {
        let scheduler = TestScheduler()
        var action: Action<Void, Int, Never>? = Action {
            SignalProducer { observer, lifetime in
                lifetime += scheduler.schedule {
                    observer.send(value: 7)
                    observer.sendCompleted()
                }
            }
        }
        weak let weakAction = action
        let events = Recorder<String>()
        let runEvents = Recorder<String>()
        let executing = Recorder<String>()
        let lifetimeEnded = Counter()
        action!.events.observe { events.append(describe($0)) }
        action!.isExecuting.signal.observe { executing.append(describe($0)) }
        action!.lifetime.observeEnded { lifetimeEnded.increment() }
        action!.apply().start { runEvents.append(describe($0)) }
        action = nil
        #expect(weakAction != nil, "a running execution retains its action")
        scheduler.run()
        #expect(weakAction == nil)
        #expect(runEvents.items == ["v7", "completed"])
        #expect(events.items == ["vVALUE 7", "vCOMPLETED", "completed"])
        #expect(executing.items == ["vtrue", "vfalse", "completed"])
        #expect(lifetimeEnded.count == 1)
    }

    @Test("a binding to a released action ends; it does not retain the action")
    func bindingDoesNotRetain() {
        let (signal, input) = Signal<Int, Never>.pipe()
        var action: Action<Int, Int, Never>? = Action { SignalProducer(value: $0) }
        weak let weakAction = action
        let values = Recorder<Int>()
        action!.values.observeValues { values.append($0) }
        action! <~ signal
        input.send(value: 1)
        action = nil
        #expect(weakAction == nil)
        input.send(value: 2)
        #expect(values.items == [1])
    }
}

private extension Result {
    var asEvent: Signal<Success, Failure>.Event {
        switch self {
        case let .success(value): .value(value)
        case let .failure(error): .failed(error)
        }
    }
}

/// An action whose executions nothing observes skips the work of
/// publishing to nobody: `values`, `errors` and `completed` are made on
/// first use, `events` sends nothing while unobserved, and a change of
/// `isExecuting` or `isEnabled` that nobody observes is published without
/// being queued. These tests observe only after executions ran that way.
@Suite("Action: observed late")
struct ActionObservedLateTests {
    /// An action whose input decides its work: even, a value at once, then
    /// another and completion when the scheduler runs; odd, a failure when
    /// it runs.
    private static func make(_ scheduler: TestScheduler) -> Action<Int, Int, TestError> {
        Action<Int, Int, TestError> { input in
            SignalProducer { observer, lifetime in
                if input % 2 == 0 {
                    observer.send(value: input)
                    lifetime += scheduler.schedule {
                        observer.send(value: input * 10)
                        observer.sendCompleted()
                    }
                } else {
                    lifetime += scheduler.schedule { observer.send(error: TestError(code: input)) }
                }
            }
        }
    }

    @Test("values, errors and completed made after executions ran: each is one signal, and sees exactly the executions that send after it attached")
    func derivedSignalsMadeLate() {
        let scheduler = TestScheduler()
        let action = Self.make(scheduler)
        action.apply(2).start()
        scheduler.run()
        action.apply(3).start()
        scheduler.run()
        #expect(action.values === action.values)
        #expect(action.errors === action.errors)
        #expect(action.completed === action.completed)
        let values = Recorder<Int>()
        let errors = Recorder<TestError>()
        let completed = Counter()
        action.values.observeValues { values.append($0) }
        action.errors.observeValues { errors.append($0) }
        action.completed.observeValues { completed.increment() }
        action.apply(4).start()
        scheduler.run()
        action.apply(5).start()
        scheduler.run()
        #expect(values.items == [4, 40])
        #expect(errors.items == [TestError(code: 5)])
        #expect(completed.count == 1)
    }

    @Test("values made during an execution: that execution's later values and completion reach it")
    func valuesMadeDuringExecution() {
        let scheduler = TestScheduler()
        let action = Self.make(scheduler)
        action.apply(6).start()
        let values = Recorder<Int>()
        let completed = Counter()
        action.values.observeValues { values.append($0) }
        action.completed.observeValues { completed.increment() }
        scheduler.run()
        #expect(values.items == [60])
        #expect(completed.count == 1)
    }

    @Test("events observed in the middle of an execution that sent unobserved: the rest of it, then every later execution, in order")
    func eventsObservedMidExecution() {
        let scheduler = TestScheduler()
        let action = Self.make(scheduler)
        let started = Recorder<String>()
        action.apply(8).start { started.append(describe($0)) }
        let events = Recorder<String>()
        action.events.observeValues { events.append(describe($0)) }
        scheduler.run()
        action.apply(9).start()
        scheduler.run()
        #expect(started.items == ["v8", "v80", "completed"])
        #expect(events.items == ["v80", "completed", "failed(E9)"])
    }

    @Test("isExecuting and isEnabled observed only after unobserved executions: current values, producers start with them, later changes each once, in order")
    func propertiesObservedLate() {
        let scheduler = TestScheduler()
        let action = Self.make(scheduler)
        action.apply(2).start()
        #expect(action.isExecuting.value == true && action.isEnabled.value == false)
        scheduler.run()
        #expect(action.isExecuting.value == false && action.isEnabled.value == true)
        action.apply(4).start()
        // In the middle of an execution whose changes nobody observed.
        let executing = Recorder<String>()
        let enabled = Recorder<String>()
        let executingSignal = Recorder<Bool>()
        action.isExecuting.producer.start { executing.append(describe($0)) }
        action.isEnabled.producer.start { enabled.append(describe($0)) }
        action.isExecuting.signal.observeValues { executingSignal.append($0) }
        #expect(executing.items == ["vtrue"])
        #expect(enabled.items == ["vfalse"])
        scheduler.run()
        action.apply(6).start()
        scheduler.run()
        #expect(executing.items == ["vtrue", "vfalse", "vtrue", "vfalse"])
        #expect(enabled.items == ["vfalse", "vtrue", "vfalse", "vtrue"])
        #expect(executingSignal.items == [false, true, false])
    }

    @Test("an observer of isExecuting attached from inside a values observer, during an execution nobody else observes: that execution's end, then the next one")
    func executingObservedFromInsideValues() {
        let scheduler = TestScheduler()
        let action = Self.make(scheduler)
        let executing = Recorder<Bool>()
        let attached = Counter()
        let values = action.values
        // Refers to the action: disposed at the end, or the action, its
        // `values` and this observer would keep one another alive.
        let observation = values.observeValues { _ in
            guard attached.count == 0 else { return }
            attached.increment()
            action.isExecuting.signal.observeValues { executing.append($0) }
        }
        action.apply(2).start()
        #expect(attached.count == 1)
        #expect(executing.items.isEmpty)
        scheduler.run()
        action.apply(4).start()
        scheduler.run()
        #expect(executing.items == [false, true, false])
        observation?.dispose()
    }
}

@Suite("Action: the order of its signals and properties, as in ReactiveSwift")
struct ActionOrderTests {
    @Test("a disposed execution: the start hears interrupted, then events, then isEnabled and isExecuting change")
    func disposalOrder() {
        let log = Recorder<String>()
        let action = Action<Int, Int, Never> { _ in .never }
        action.isEnabled.signal.observeValues { log.append("isEnabled \($0)") }
        action.isExecuting.signal.observeValues { log.append("isExecuting \($0)") }
        let observation = action.events.observeValues { event in
            log.append("events \(describe(event)) enabled \(action.isEnabled.value) executing \(action.isExecuting.value)")
            // An observer that executes again on `interrupted` finds the
            // action still executing, as in ReactiveSwift.
            if case .interrupted = event { action.apply(2).start { log.append("again \(describe($0))") } }
        }
        let disposable = action.apply(1).start { log.append("start \(describe($0))") }
        disposable.dispose()
        // ReactiveSwift 7.2.1's order (its `apply` ends the execution in
        // the start's lifetime, after disposing the work).
        #expect(log.items == [
            "isEnabled false", "isExecuting true", "start interrupted",
            "events interrupted enabled false executing true", "again failed(disabled)",
            "isEnabled true", "isExecuting false",
        ])
        observation?.dispose()
    }

    @Test("a disposed execution whose work delivers through a scheduler: enabled again when dispose() returns; the start and events hear interrupted when the scheduler runs")
    func disposalOfScheduledWork() {
        let scheduler = TestScheduler()
        let log = Recorder<String>()
        let action = Action<Int, Int, Never> { v in SignalProducer(value: v).delay(1, on: scheduler) }
        let observation = action.events.observeValues { log.append("events \(describe($0))") }
        let disposable = action.apply(1).start { log.append("first \(describe($0))") }
        disposable.dispose()
        // ReactiveSwift ends the execution in the start's lifetime, which
        // ends with `dispose()`: a new start executes at once.
        #expect(action.isEnabled.value == true && action.isExecuting.value == false)
        action.apply(2).start { log.append("second \(describe($0))") }
        #expect(action.isExecuting.value == true)
        scheduler.run()
        #expect(log.items == [
            "first interrupted", "events interrupted",
            "second v2", "events v2", "second completed", "events completed",
        ])
        #expect(action.isEnabled.value == true && action.isExecuting.value == false)
        observation?.dispose()
    }

    @Test("a work that ends while it starts: the start, then events and completed hear of it, then the action is enabled (its start returned)")
    func synchronousWorkOrder() {
        let log = Recorder<String>()
        let action = Action<Int, Int, Never> { SignalProducer(value: $0) }
        action.isEnabled.signal.observeValues { log.append("isEnabled \($0)") }
        let events = action.events.observeValues { event in
            log.append("events \(describe(event)) executing \(action.isExecuting.value)")
        }
        var again = true
        let completed = action.completed.observeValues {
            log.append("completed executing \(action.isExecuting.value)")
            // As in ReactiveSwift: the execution has not ended yet.
            if again { again = false; action.apply(9).start { log.append("again \(describe($0))") } }
        }
        action.apply(1).start { log.append("start \(describe($0))") }
        #expect(log.items == [
            "isEnabled false", "start v1", "events v1 executing true", "start completed",
            "completed executing true", "again failed(disabled)", "events completed executing true",
            "isEnabled true",
        ])
        #expect(action.isEnabled.value == true && action.isExecuting.value == false)
        events?.dispose()
        completed?.dispose()
    }

    @Test("a work that interrupts itself: the action is enabled again before events hears of it")
    func selfInterruptedOrder() {
        let log = Recorder<String>()
        let (work, workInput) = Signal<Int, Never>.pipe()
        let action = Action<Int, Int, Never> { _ in work.producer }
        let observation = action.events.observeValues { log.append("events \(describe($0)) enabled \(action.isEnabled.value)") }
        action.apply(1).start { log.append("start \(describe($0))") }
        workInput.sendInterrupted()
        #expect(log.items == ["start interrupted", "events interrupted enabled true"])
        observation?.dispose()
    }

    @Test("values, errors and completed hear each event before the observers of events, whenever they were first used")
    func derivedSignalsHearFirst() {
        let scheduler = TestScheduler()
        let log = Recorder<String>()
        let action = Action<Int, Int, TestError> { input in
            SignalProducer { observer, lifetime in
                if input % 2 == 0 {
                    observer.send(value: input)
                    lifetime += scheduler.schedule { observer.sendCompleted() }
                } else {
                    observer.send(error: TestError(code: input))
                }
            }
        }
        action.events.observeValues { log.append("events \(describe($0))") }
        action.values.observeValues { log.append("values \($0)") }
        action.errors.observeValues { log.append("errors \($0)") }
        // Executes again from inside the delivery of a completion: the new
        // execution's events come after that completion, everywhere.
        let reapplied = Counter()
        // Captures the action, which holds the observer: disposed at the
        // end, so that the cycle is broken and the action goes.
        let completedObservation = action.completed.observeValues {
            log.append("completed")
            if reapplied.count == 0 {
                reapplied.increment()
                action.apply(4).start()
            }
        }
        action.apply(2).start()
        scheduler.run()
        scheduler.run()
        action.apply(3).start()
        #expect(log.items == [
            "values 2", "events v2",
            "completed", "events completed", "values 4", "events v4",
            "completed", "events completed",
            "errors E3", "events failed(E3)",
        ])
        completedObservation?.dispose()
    }

    @Test("when the action deinitializes, values, errors and completed complete before the observers of events hear it")
    func derivedSignalsCompleteFirst() {
        let log = Recorder<String>()
        var action: Action<Int, Int, TestError>? = Action { SignalProducer(value: $0) }
        action?.events.observe { log.append("events \(describe($0))") }
        action?.values.observe { log.append("values \(describe($0))") }
        action?.errors.observe { log.append("errors \(describe($0))") }
        action?.completed.observe { log.append("completed \(describe($0))") }
        action = nil
        #expect(log.items == ["values completed", "errors completed", "completed completed", "events completed"])
    }
}
