import Flare
import Testing

private typealias T = Step<Int, TestError, (), Never>
private typealias R = Step<Int, TestError, Int, TestError>
private let error1 = TestError(code: 1)
private let error2 = TestError(code: 2)

@Suite("take(until:), take(untilReplacement:), skip(until:)")
struct TakeUntilOperatorTests {
    // MARK: take(until:)

    @Test("take(until:): the source's events until the trigger sends a value or completes")
    func takeUntil() {
        #expect(play({ $0.take(until: $1) }, [.a(.value(1)), .a(.value(2)), .b(.value(())), .a(.value(3))] as [T])
            == ["v1", "v2", "completed"])
        #expect(play({ $0.take(until: $1) }, [.a(.value(1)), .b(.completed), .a(.value(3))] as [T])
            == ["v1", "completed"])
    }

    @Test("take(until:): the source's own terminal events pass through; the trigger's interruption is ignored")
    func takeUntilTerminals() {
        let terminals: [Signal<Int, TestError>.Event] = [.completed, .failed(error1), .interrupted]
        for terminal in terminals {
            #expect(play({ $0.take(until: $1) }, [.a(.value(1)), .a(terminal), .b(.value(()))] as [T])
                == ["v1", describe(terminal)])
        }
        #expect(play({ $0.take(until: $1) }, [.b(.interrupted), .a(.value(1)), .a(.completed)] as [T])
            == ["v1", "completed"])
    }

    @Test("take(until:): once the trigger fires the source is no longer observed")
    func takeUntilDisposal() {
        let (source, sourceInput) = Signal<Int, Never>.pipe()
        let (trigger, triggerInput) = Signal<(), Never>.pipe()
        let sourceWatch = WeakCanary()
        let triggerWatch = WeakCanary()
        let log = Recorder<String>()
        source.tracked(by: sourceWatch).take(until: trigger.tracked(by: triggerWatch)).observe { log.append(describe($0)) }
        sourceInput.send(value: 1)
        #expect(sourceWatch.isAlive && triggerWatch.isAlive)
        triggerInput.send(value: ())
        #expect(!sourceWatch.isAlive && !triggerWatch.isAlive)
        sourceInput.send(value: 2)
        #expect(log.items == ["v1", "completed"])
    }

    @Test("take(until:) with the trigger firing from another thread: a prefix, then completed, serialized")
    func takeUntilStress() {
        for _ in 0..<20 {
            let (source, sourceInput) = Signal<Int, Never>.pipe()
            let (trigger, triggerInput) = Signal<(), Never>.pipe()
            let probe = DeliveryProbe(source.take(until: trigger))
            let started = Counter()
            let sourceObserved = Counter()
            source.observeValues { _ in sourceObserved.increment() }
            concurrently({
                for i in 0..<stressCount {
                    if i == stressCount / 4 { started.increment() }
                    sourceInput.send(value: i)
                }
            }, {
                while started.count == 0 {}
                triggerInput.send(value: ())
            })
            let values = probe.values
            #expect(probe.isClean)
            #expect(probe.terminals == ["completed"])
            #expect(values == Array(0..<values.count))
            #expect(values.count >= stressCount / 4)
            #expect(sourceObserved.count == stressCount)
        }
    }

    // MARK: take(untilReplacement:)

    @Test("take(untilReplacement:): the source until the replacement's first event, then the replacement")
    func takeUntilReplacement() {
        let steps: [R] = [.a(.value(1)), .a(.value(2)), .b(.value(10)), .a(.value(3)), .b(.value(20)), .b(.completed)]
        #expect(play({ $0.take(untilReplacement: $1) }, steps) == ["v1", "v2", "v10", "v20", "completed"])
    }

    @Test("take(untilReplacement:): the source's completion is ignored, its failure and interruption are not")
    func takeUntilReplacementSourceTerminals() {
        #expect(play({ $0.take(untilReplacement: $1) }, [.a(.value(1)), .a(.completed), .b(.value(10)), .b(.completed)] as [R])
            == ["v1", "v10", "completed"])
        #expect(play({ $0.take(untilReplacement: $1) }, [.a(.failed(error1)), .b(.value(10))] as [R]) == ["failed(E1)"])
        #expect(play({ $0.take(untilReplacement: $1) }, [.a(.interrupted), .b(.value(10))] as [R]) == ["interrupted"])
    }

    @Test("take(untilReplacement:): a terminal first event of the replacement ends the output")
    func takeUntilReplacementTerminalFirst() {
        let terminals: [Signal<Int, TestError>.Event] = [.completed, .failed(error2), .interrupted]
        for terminal in terminals {
            #expect(play({ $0.take(untilReplacement: $1) }, [.a(.value(1)), .b(terminal), .a(.value(2))] as [R])
                == ["v1", describe(terminal)])
        }
        #expect(play({ $0.take(untilReplacement: $1) }, [.b(.value(10)), .a(.failed(error1)), .b(.value(20))] as [R])
            == ["v10", "v20"])
    }

    @Test("take(untilReplacement:): the source's observation is disposed at the replacement's first event")
    func takeUntilReplacementDisposal() {
        let (source, sourceInput) = Signal<Int, Never>.pipe()
        let (replacement, replacementInput) = Signal<Int, Never>.pipe()
        let sourceWatch = WeakCanary()
        let replacementWatch = WeakCanary()
        let log = Recorder<String>()
        source.tracked(by: sourceWatch)
            .take(untilReplacement: replacement.tracked(by: replacementWatch))
            .observe { log.append(describe($0)) }
        sourceInput.send(value: 1)
        replacementInput.send(value: 10)
        #expect(!sourceWatch.isAlive)
        #expect(replacementWatch.isAlive)
        sourceInput.send(value: 2)
        replacementInput.sendCompleted()
        #expect(!replacementWatch.isAlive)
        #expect(log.items == ["v1", "v10", "completed"])
    }

    @Test("take(untilReplacement:) with both sending from two threads: a source prefix, then only the replacement")
    func takeUntilReplacementStress() {
        let (source, sourceInput) = Signal<Int, Never>.pipe()
        let (replacement, replacementInput) = Signal<Int, Never>.pipe()
        let probe = DeliveryProbe(source.take(untilReplacement: replacement))
        concurrently({
            for i in 1...stressCount { sourceInput.send(value: i) }
        }, {
            for i in 1...stressCount { replacementInput.send(value: -i) }
            replacementInput.sendCompleted()
        })
        let values = probe.values
        let prefix = values.prefix { $0 > 0 }
        #expect(probe.isClean)
        // Empty when the replacement sent first: a half-open range, as `1...0` traps.
        #expect(Array(prefix) == Array(1..<(prefix.count + 1)))
        #expect(Array(values.dropFirst(prefix.count)) == (1...stressCount).map { -$0 })
        #expect(probe.terminals == ["completed"])
    }

    // MARK: skip(until:)

    @Test("skip(until:): nothing until the trigger sends a value or completes, then the source's events")
    func skipUntil() {
        #expect(play({ $0.skip(until: $1) }, [.a(.value(1)), .b(.value(())), .a(.value(2)), .b(.value(())), .a(.completed)] as [T])
            == ["v2", "completed"])
        #expect(play({ $0.skip(until: $1) }, [.a(.value(1)), .b(.completed), .a(.value(2)), .a(.failed(error1))] as [T])
            == ["v2", "failed(E1)"])
        #expect(play({ $0.skip(until: $1) }, [.b(.value(())), .a(.interrupted)] as [T]) == ["interrupted"])
    }

    @Test("skip(until:): the trigger's interruption before it fired interrupts the output, as in ReactiveSwift")
    func skipUntilInterruptedTrigger() {
        // ReactiveSwift 7.2.1: the trigger's observation holds the output's
        // only observer; released with the trigger's end, it interrupts.
        #expect(play({ $0.skip(until: $1) }, [.b(.interrupted), .a(.value(1)), .a(.completed)] as [T]) == ["interrupted"])
        #expect(play({ $0.skip(until: $1) }, [.a(.completed), .b(.interrupted)] as [T]) == ["interrupted"])
        // Once fired, the trigger is no longer observed.
        #expect(play({ $0.skip(until: $1) }, [.b(.value(())), .b(.interrupted), .a(.value(1))] as [T]) == ["v1"])
    }

    @Test("skip(until:): a source that ended before the trigger interrupts the output when it fires")
    func skipUntilEarlyTermination() {
        #expect(play({ $0.skip(until: $1) }, [.a(.value(1)), .a(.completed), .b(.value(()))] as [T]) == ["interrupted"])
        #expect(play({ $0.skip(until: $1) }, [.a(.failed(error1))] as [T]) == [])
    }

    @Test("skip(until:) observes the source from when the trigger fires: after the observers attached before")
    func skipUntilObservesFromTheTrigger() {
        // ReactiveSwift 7.2.1 starts observing the source when the trigger
        // fires, so an observer attached to the source in between hears
        // each value first.
        let (source, sourceInput) = Signal<Int, Never>.pipe()
        let (trigger, triggerInput) = Signal<(), Never>.pipe()
        let log = Recorder<String>()
        source.skip(until: trigger).observeValues { log.append("skip \($0)") }
        source.observeValues { log.append("plain \($0)") }
        sourceInput.send(value: 1)
        triggerInput.send(value: ())
        sourceInput.send(value: 2)
        #expect(log.items == ["plain 1", "plain 2", "skip 2"])
    }

    @Test("skip(until:): the trigger's observation is disposed when it fires; the source's when the output ends")
    func skipUntilDisposal() {
        let (source, sourceInput) = Signal<Int, Never>.pipe()
        let (trigger, triggerInput) = Signal<(), Never>.pipe()
        let sourceWatch = WeakCanary()
        let triggerWatch = WeakCanary()
        let log = Recorder<String>()
        source.tracked(by: sourceWatch).skip(until: trigger.tracked(by: triggerWatch)).observe { log.append(describe($0)) }
        triggerInput.send(value: ())
        #expect(!triggerWatch.isAlive)
        #expect(sourceWatch.isAlive)
        sourceInput.send(value: 1)
        sourceInput.sendCompleted()
        #expect(!sourceWatch.isAlive)
        #expect(log.items == ["v1", "completed"])
    }

    @Test("skip(until:) with the trigger firing from another thread: a suffix of the source, serialized")
    func skipUntilStress() {
        for _ in 0..<20 {
            let (source, sourceInput) = Signal<Int, Never>.pipe()
            let (trigger, triggerInput) = Signal<(), Never>.pipe()
            let probe = DeliveryProbe(source.skip(until: trigger))
            let started = Counter()
            concurrently({
                for i in 0..<stressCount {
                    if i == stressCount / 4 { started.increment() }
                    sourceInput.send(value: i)
                }
            }, {
                while started.count == 0 {}
                triggerInput.send(value: ())
            })
            // Completed once the trigger has surely fired: a source that ends
            // before the trigger fires interrupts the output instead.
            sourceInput.sendCompleted()
            let values = probe.values
            #expect(probe.isClean)
            #expect(probe.terminals == ["completed"])
            #expect(values == Array((stressCount - values.count)..<stressCount))
            #expect(values.count <= stressCount - stressCount / 4)
        }
    }
}
