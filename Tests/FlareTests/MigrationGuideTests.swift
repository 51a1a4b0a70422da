import Flare
import Foundation
import Testing

/// docs/Migrating.md's code, compiled and run: each `swift` block of the
/// guide stands here verbatim (Tests/check-guide-snippets.sh checks that),
/// between the set-up it assumes and the expectations it must meet.
@Suite("docs/Migrating.md: every snippet compiles and does what the guide says")
struct MigrationGuideTests {
    struct TemperatureError: Swift.Error {}

    @Test("from ReactiveObjC: subject, subscription, compound disposable")
    func reactiveObjCTypes() {
        let log = Recorder<String>()
        // RACSubject → pipe; subscribeNext:error:completed: → observe; RACDisposable → Disposable
        let (temperatures, input) = Signal<Double, TemperatureError>.pipe()
        let subscription = temperatures.observe(Signal.Observer(
            value: { log.append("now \($0)") },
            failed: { log.append("failed \($0)") },
            completed: { log.append("done") }
        ))
        input.send(value: 21.5)                        // [subject sendNext:@21.5]
        let cleanup = CompositeDisposable()            // RACCompoundDisposable
        cleanup += subscription
        cleanup += AnyDisposable { log.append("cleaned up") }   // disposableWithBlock:
        cleanup.dispose()
        input.send(value: 22)                          // no longer observed

        #expect(log.items == ["now 21.5", "cleaned up"])
    }

    @Test("from ReactiveObjC: RACCommand is an Action")
    func reactiveObjCCommand() {
        let log = Recorder<String>()
        // RACCommand → Action: serial executions, enabled by a property
        let isOnline = MutableProperty(true)
        let save = Action<String, Int, TemperatureError>(enabledIf: isOnline) { text in   // initWithEnabled:signalBlock:
            SignalProducer(value: text.count)
        }
        save.isExecuting.signal.observeValues { log.append("executing \($0)") }   // executing
        save.values.observeValues { log.append("saved \($0)") }                   // [executionSignals flatten]
        save.apply("draft").start()                                              // execute:
        isOnline.value = false                                                   // enabled is now false
        save.apply("later").startWithFailed { log.append("\($0)") }              // RACCommandErrorNotEnabled

        #expect(log.items == ["executing true", "saved 5", "executing false", "disabled"])
    }

    @Test("from ReactiveObjC: behavior and replay subjects, groupBy:, RAC() bindings")
    func reactiveObjCSubjects() {
        let log = Recorder<String>()
        // RACBehaviorSubject → MutableProperty; replayLazily → replayLazily(upTo:)
        let temperature = MutableProperty(20.0)
        temperature.producer.startWithValues { log.append("reads \($0)") }   // the current value first
        temperature.value = 21                                             // [subject sendNext:@21]
        let readings = SignalProducer<Double, Never>([1.0, 2.0, 3.0]).replayLazily(upTo: 2)
        readings.startWithValues { log.append("first \($0)") }            // starts the source once
        readings.startWithValues { log.append("late \($0)") }             // replays the last two
        // groupBy: → group(by:); RAC(label, text) = signal → <~
        let label = MutableProperty("")
        label <~ temperature.map { "\($0)°" }
        SignalProducer<Int, Never>([1, 2, 3, 4]).group(by: { $0 % 2 == 0 }).startWithValues { isEven, group in
            group.observeValues { log.append("\(isEven ? "even" : "odd") \($0)") }
        }

        #expect(log.items == [
            "reads 20.0", "reads 21.0", "first 1.0", "first 2.0", "first 3.0", "late 2.0", "late 3.0",
            "odd 1", "even 2", "odd 3", "even 4",
        ])
        #expect(label.value == "21.0°")
    }

    @Test("from ReactiveObjC: replay and behavior subjects you send to and complete; replay connects at once")
    func reactiveObjCTerminatingSubjects() {
        let log = Recorder<String>()
        let starts = Counter()
        let source = SignalProducer<Int, Never> { observer, _ in
            starts.increment()
            observer.send(value: 7)
            observer.sendCompleted()
        }
        // RACReplaySubject and RACBehaviorSubject you send to and complete; replay connects at once
        let (sent, subject) = Signal<Int, TemperatureError>.pipe()
        let replaySubject = SignalProducer(sent).replayLazily(upTo: Int.max)
        replaySubject.start()                                       // records from the first send on
        subject.send(value: 1)                                      // [subject sendNext:@1]
        subject.sendCompleted()                                     // [subject sendCompleted]
        replaySubject.start(Signal.Observer(value: { log.append("replayed \($0)") },
                                            completed: { log.append("replayed completed") }))
        let (changes, behaviorSubject) = Signal<Int, Never>.pipe()
        let current = SignalProducer(changes).replayLazily(upTo: 1)
        current.start()
        behaviorSubject.send(value: 0)                              // behaviorSubjectWithDefaultValue:@0
        behaviorSubject.send(value: 5)
        current.startWithValues { log.append("current \($0)") }     // the latest value, then the changes
        let replayed = source.replayLazily(upTo: Int.max)           // [source replay]; replayLast: upTo: 1
        replayed.start()                                            // connects now, before any subscriber

        #expect(starts.count == 1)
        behaviorSubject.send(value: 6)
        replayed.startWithValues { log.append("replay \($0)") }
        #expect(starts.count == 1)
        #expect(log.items == ["replayed 1", "replayed completed", "current 5", "current 6", "replay 7"])
        // Without the first start, the values sent before a subscriber are lost.
        let (lost, lostInput) = Signal<Int, Never>.pipe()
        let notStarted = SignalProducer(lost).replayLazily(upTo: Int.max)
        lostInput.send(value: 1)
        let late = Recorder<Int>()
        notStarted.startWithValues { late.append($0) }
        lostInput.send(value: 2)
        #expect(late.items == [2])
    }

    @Test("from ReactiveObjC: autoconnect is replayLazily(upTo: 0), whose run outlives its last subscriber while the producer lives")
    func reactiveObjCAutoconnect() {
        let (feed, feedInput) = Signal<Int, Never>.pipe()
        let sourceEnded = Recorder<String>()
        var shared: SignalProducer<Int, Never>? = SignalProducer<Int, Never> { observer, lifetime in
            lifetime += feed.observe(observer)
            lifetime.observeEnded { sourceEnded.append("ended") }
        }.replayLazily(upTo: 0)
        let first = Recorder<Int>(), second = Recorder<Int>()
        let one = shared?.startWithValues { first.append($0) }
        let two = shared?.startWithValues { second.append($0) }
        feedInput.send(value: 1)
        one?.dispose()
        two?.dispose()
        feedInput.send(value: 2)
        #expect(first.items == [1] && second.items == [1])
        #expect(sourceEnded.items == [])             // RAC's autoconnect would have disconnected here
        let third = Recorder<Int>()
        shared?.startWithValues { third.append($0) }.dispose()
        shared = nil
        #expect(sourceEnded.items == ["ended"])
        #expect(third.items == [])
    }

    @Test("from ReactiveObjC: initWithEnabled: starts enabled; observe(on: QueueScheduler.main) for RACCommand's main thread")
    func reactiveObjCCommandEnabledAndMainThread() {
        let uploaded = Recorder<Int>()
        let onCaller = Recorder<Bool>()
        let mainQueue = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: mainQueue, value: true)
        // initWithEnabled:signalBlock:, and RACCommand's main-thread delivery
        let (enabledSignal, enabledInput) = Signal<Bool, Never>.pipe()
        let upload = Action<Int, Int, Never>(enabledIf: Property(initial: true, then: enabledSignal)) { size in
            SignalProducer(value: size * 2)
        }
        upload.values.observe(on: QueueScheduler.main).observeValues { doubled in
            dispatchPrecondition(condition: .onQueue(.main))        // as executionSignals, on the main thread
            uploaded.append(doubled)
        }
        upload.apply(1).start()                                     // enabled before enabledSignal sends
        enabledInput.send(value: false)                             // now disabled

        #expect(upload.isEnabled.value == false)
        let refused = Recorder<String>()
        upload.apply(2).startWithFailed { refused.append("\($0)") }
        #expect(refused.items == ["disabled"])
        // Without observe(on:), an Action's values arrive on the thread that executes.
        enabledInput.send(value: true)
        upload.values.observeValues { _ in onCaller.append(DispatchQueue.getSpecific(key: mainQueue) ?? false) }
        upload.apply(3).start()
        #expect(onCaller.items == [false])
        eventually { uploaded.items.count >= 2 }
        #expect(uploaded.items == [2, 6])
        withExtendedLifetime(upload) {}
    }

    @Test("from ReactiveObjC: a start handler that keeps its observer runs on; one that drops it ends the run once the start's disposable is released too")
    func reactiveObjCDroppedSubscriber() {
        let log = Recorder<String>()
        let dropped = SignalProducer<Int, Never> { _, lifetime in
            lifetime.observeEnded { log.append("ended") }
        }
        do {
            let handle = dropped.start { log.append("held \(describe($0))") }
            #expect(log.items == [])  // the handle keeps the run open
            withExtendedLifetime(handle) {}
        }
        #expect(log.items == ["held interrupted", "ended"])
        dropped.start { log.append(describe($0)) }
        #expect(log.items == ["held interrupted", "ended", "interrupted", "ended"])

        let kept = Unguarded<Signal<Int, Never>.Observer?>(nil)
        let keeping = SignalProducer<Int, Never> { observer, lifetime in
            kept.value = observer
            lifetime.observeEnded { log.append("kept ended") }
        }
        keeping.start { log.append("kept \(describe($0))") }
        #expect(log.items == ["held interrupted", "ended", "interrupted", "ended"])
        kept.value?.send(value: 1)
        kept.value?.sendCompleted()
        #expect(log.items == ["held interrupted", "ended", "interrupted", "ended", "kept v1", "kept completed", "kept ended"])
    }

    @Test("from ReactiveObjC: retry and retry:0 are retry(upTo: Int.max); retry(upTo: 0) does not retry")
    func reactiveObjCRetryForEver() {
        let attempts = Counter()
        let flaky = SignalProducer<Int, TemperatureError> { observer, _ in
            attempts.increment()
            if attempts.count <= 50 { observer.send(error: TemperatureError()) } else {
                observer.send(value: attempts.count)
                observer.sendCompleted()
            }
        }
        let forEver = Recorder<String>()
        flaky.retry(upTo: Int.max).start { forEver.append(describe($0)) }
        #expect(forEver.items == ["v51", "completed"])
        let once = Recorder<String>()
        flaky.retry(upTo: 0).start { once.append(describe($0)) }
        #expect(attempts.count == 52)
        #expect(once.items == ["v52", "completed"])
        let never = Recorder<String>()
        SignalProducer<Int, TemperatureError>(error: TemperatureError()).retry(upTo: 0).start { never.append(describe($0)) }
        #expect(never.items == ["failed(TemperatureError())"])
    }

    @Test("from ReactiveObjC: throttle: is debounce(discardWhenCompleted: false): the held value is sent before completed")
    func reactiveObjCThrottle() {
        let scheduler = TestScheduler()
        let (typed, input) = Signal<String, Never>.pipe()
        let kept = Recorder<String>(), discarded = Recorder<String>()
        typed.debounce(1, on: scheduler, discardWhenCompleted: false).observe { kept.append(describe($0)) }
        typed.debounce(1, on: scheduler).observe { discarded.append(describe($0)) }
        input.send(value: "f")
        scheduler.advance(by: 0.5)
        input.send(value: "fl")
        input.sendCompleted()
        scheduler.advance(by: 0.5)
        #expect(kept.items == [])
        #expect(discarded.items == ["completed"])
        scheduler.advance(by: 0.5)
        #expect(kept.items == ["vfl", "completed"])
    }

    @Test("from ReactiveObjC: createSignal: is a producer, its work runs at each start")
    func reactiveObjCProducers() {
        let log = Recorder<String>()
        let fetches = Counter()
        // createSignal: → SignalProducer: the work runs again at every start
        let fetch = SignalProducer<String, TemperatureError> { observer, lifetime in
            fetches.increment()                          // a side effect of each start
            observer.send(value: "reading \(fetches.count)")
            observer.sendCompleted()
            lifetime.observeEnded { log.append("fetch \(fetches.count) cleaned up") }
        }
        fetch.startWithResult { log.append("\($0)") }  // subscribeNext:error:
        fetch.retry(upTo: 2).start(Signal.Observer(value: { log.append($0) }))

        #expect(fetches.count == 2)
        #expect(log.items == [
            "success(\"reading 1\")", "fetch 1 cleaned up", "reading 2", "fetch 2 cleaned up",
        ])
    }

    @Test("from ReactiveObjC: the RACStream operators")
    func reactiveObjCOperators() {
        let (words, wordInput) = Signal<String, Never>.pipe()
        let (numbers, numberInput) = Signal<Int, Never>.pipe()
        let (pairs, pairInput) = Signal<(Int, Int), Never>.pipe()
        // RACStream operators, one line each
        let names = words.map { $0.uppercased() }                     // map:
        let zeros = words.map(value: 0)                                // mapReplace:
        let long = words.filter { $0.count > 3 }                       // filter:
        let real = words.ignore("")                                    // ignore:
        let sums = pairs.map { a, b in a + b }                         // reduceEach:
        let rest = words.skip(first: 1)                                // skip:
        let firstTwo = words.take(first: 2)                            // take:
        let untilStop = words.take(while: { !($0 == "stop") })         // takeUntilBlock:
        let afterGo = words.skip(while: { !($0 == "go") })             // skipUntilBlock:
        let changes = words.skipRepeats()                              // distinctUntilChanged
        let total = numbers.scan(0, +)                                 // scanWithStart:reduce:
        let weighted = numbers.enumerated().scan(0) { sum, pair in sum + pair.offset * pair.element }  // …reduceWithIndex:
        let deltas = numbers.combinePrevious(0).map { previous, current in current - previous }     // combinePreviousWithStart:reduce:
        let zipped = words.zip(with: numbers).map { "\($0)\($1)" }     // zip:reduce:
        let joined = words.combineLatest(with: numbers).map { "\($0)=\($1)" }  // combineLatest:reduce:
        let everything = Signal.merge(words, names)                     // merge:

        func record<V>(_ signal: Signal<V, Never>) -> Recorder<String> {
            let log = Recorder<String>()
            signal.observeValues { log.append("\($0)") }
            return log
        }
        let logs = [record(names), record(zeros), record(long), record(real), record(sums), record(rest),
                    record(firstTwo), record(untilStop), record(afterGo), record(changes), record(total),
                    record(weighted), record(deltas), record(zipped), record(joined), record(everything)]
        for word in ["go", "go", "", "stop", "flare"] { wordInput.send(value: word) }
        for number in [1, 4, 10] { numberInput.send(value: number) }
        pairInput.send(value: (2, 3))
        #expect(logs.map(\.items) == [
            ["GO", "GO", "", "STOP", "FLARE"],        // map
            ["0", "0", "0", "0", "0"],                // map(value:)
            ["stop", "flare"],                        // filter
            ["go", "go", "stop", "flare"],            // ignore
            ["5"],                                    // reduceEach
            ["go", "", "stop", "flare"],              // skip(first:)
            ["go", "go"],                             // take(first:)
            ["go", "go", ""],                         // takeUntilBlock
            ["go", "go", "", "stop", "flare"],        // skipUntilBlock
            ["go", "", "stop", "flare"],              // skipRepeats
            ["1", "5", "15"],                         // scan
            ["0", "4", "24"],                         // enumerated().scan
            ["1", "3", "6"],                          // combinePrevious(0).map
            ["go1", "go4", "10"],                     // zip
            ["flare=1", "flare=4", "flare=10"],       // combineLatest
            ["GO", "go", "GO", "go", "", "", "STOP", "stop", "FLARE", "flare"],  // merge: names first, it observed words first
        ])
    }

    @Test("from ReactiveObjC: flattenMap:, -flatten, switchToLatest, concat:, bind:, startWith:")
    func reactiveObjCFlattening() {
        let (queries, queryInput) = Signal<String, Never>.pipe()
        func search(_ query: String) -> SignalProducer<String, Never> {
            SignalProducer(values: query + "1", query + "2")
        }
        // flattenMap:, -flatten, switchToLatest, concat:, bind:, startWith:
        let lookups = queries.flatMap(.merge) { query in search(query) }          // flattenMap:
        let flattened = queries.map(search).flatten(.merge)                       // -flatten
        let latest = queries.map(search).flatten(.latest)                         // switchToLatest
        let both = search("a").concat(search("b"))                                // concat:
        let bound = queries.take(while: { $0 != "stop" }).flatMap(.merge) { search($0) }  // bind:, *stop = YES
        let placeholder = search("c").prefix(value: "…")                          // startWith:

        func record(_ signal: Signal<String, Never>) -> Recorder<String> {
            let log = Recorder<String>()
            signal.observe { log.append(describe($0)) }
            return log
        }
        let logs = [record(lookups), record(flattened), record(latest), record(bound)]
        for query in ["x", "stop", "y"] { queryInput.send(value: query) }
        queryInput.sendCompleted()
        let all = ["vx1", "vx2", "vstop1", "vstop2", "vy1", "vy2", "completed"]
        #expect(logs.map(\.items) == [all, all, all, ["vx1", "vx2", "completed"]])
        let bothLog = Recorder<String>()
        both.startWithValues { bothLog.append($0) }
        #expect(bothLog.items == ["a1", "a2", "b1", "b2"])
        let placeholderLog = Recorder<String>()
        placeholder.startWithValues { placeholderLog.append($0) }
        #expect(placeholderLog.items == ["…", "c1", "c2"])
    }

    @Test("from ReactiveObjC: catch:, do…:, takeLast:, ignoreValues, not/and, any:/all:, flatten:, if:then:else:, tryMap:, toArray, firstOrDefault:, logNext")
    func reactiveObjCMoreOperators() {
        let log = Recorder<String>()
        let numbers = SignalProducer<Int, TemperatureError>([1, 2, 3, 4])
        let failing = SignalProducer<Int, TemperatureError>(values: 1, 2).concat(SignalProducer(error: TemperatureError()))
        let flags = SignalProducer<Bool, TemperatureError>([true, false])
        // More RACSignal operators, one line each, on producers (cold RACSignals)
        // numbers sends 1, 2, 3, 4; failing sends 1, 2 and fails; flags sends true, false
        let recovered = failing.flatMapError { _ in SignalProducer<Int, Never>(value: 0) }  // catch:
        let caught = failing.flatMapError { _ in numbers }                          // catchTo:
        let traced = numbers.on(starting: { log.append("initially") },              // initially:
                                failed: { log.append("doError \($0)") },            // doError:
                                completed: { log.append("doCompleted") },           // doCompleted:
                                terminated: { log.append("finally") },              // finally:
                                value: { log.append("doNext \($0)") })              // doNext:
        let lastTwo = numbers.take(last: 2)                                         // takeLast:
        let nothing = numbers.filter { _ in false }                                 // ignoreValues
        let negated = flags.negate()                                                // not
        let both = flags.and(flags.negate())                                        // and
        let anyBig = numbers.filter { $0 > 2 }.take(first: 1).collect().map { !$0.isEmpty }    // any:
        let allSmall = numbers.filter { !($0 < 9) }.take(first: 1).collect().map { $0.isEmpty } // all:
        let oneAtATime = flags.map { _ in numbers }.flatten(.concurrent(limit: 1))      // flatten:1
        let chosen = flags.flatMap(.latest) { $0 ? numbers : failing }              // if:then:else:
        let squareRoots = numbers.attemptMap { value -> Result<Double, TemperatureError> in  // tryMap:
            value >= 0 ? .success(Double(value).squareRoot()) : .failure(TemperatureError())
        }
        let array = numbers.collect().single()                                      // toArray
        let firstOrZero = (try? numbers.first()?.get()) ?? 0                        // firstOrDefault:
        let logged = numbers.logEvents(events: [.value], logger: { _, event, _, _, _ in log.append(event) })  // logNext

        func events<V, E>(_ producer: SignalProducer<V, E>) -> [String] {
            let events = Recorder<String>()
            producer.start { events.append(describe($0)) }
            return events.items
        }
        let failed = "failed(TemperatureError())"
        #expect(events(traced) == ["v1", "v2", "v3", "v4", "completed"])
        #expect(log.items == ["initially", "doNext 1", "doNext 2", "doNext 3", "doNext 4", "doCompleted", "finally"])
        #expect(events(failing.on(failed: { log.append("doError \($0)") }, terminated: { log.append("finally") }))
            == ["v1", "v2", failed])
        #expect(events(recovered) == ["v1", "v2", "v0", "completed"])
        #expect(events(caught) == ["v1", "v2", "v1", "v2", "v3", "v4", "completed"])
        #expect(events(lastTwo) == ["v3", "v4", "completed"])
        #expect(events(nothing) == ["completed"])
        #expect(events(negated) == ["vfalse", "vtrue", "completed"])
        #expect(events(both) == ["vfalse", "vfalse", "completed"])
        #expect(events(anyBig) == ["vtrue", "completed"])
        #expect(events(numbers.filter { $0 > 8 }.take(first: 1).collect().map { !$0.isEmpty }) == ["vfalse", "completed"])
        #expect(events(allSmall) == ["vtrue", "completed"])
        #expect(events(numbers.filter { !($0 < 3) }.take(first: 1).collect().map { $0.isEmpty }) == ["vfalse", "completed"])
        #expect(events(oneAtATime) == ["v1", "v2", "v3", "v4", "v1", "v2", "v3", "v4", "completed"])
        #expect(events(chosen) == ["v1", "v2", "v3", "v4", "v1", "v2", failed])
        #expect(events(squareRoots) == ["v1.0", "v\(2.0.squareRoot())", "v\(3.0.squareRoot())", "v2.0", "completed"])
        #expect((try? array?.get()) == [1, 2, 3, 4])
        #expect(firstOrZero == 1)
        #expect(((try? SignalProducer<Int, TemperatureError>.empty.first()?.get()) ?? 0) == 0)
        #expect(((try? failing.take(first: 0).first()?.get()) ?? 0) == 0)
        _ = events(logged)
        #expect(log.items.suffix(4) == ["value 1", "value 2", "value 3", "value 4"])
    }

    @Test("from ReactiveObjC: RACChannelTo both ways is two properties bound through skipRepeats")
    func reactiveObjCChannel() {
        // RACChannelTo(view, text) = RACChannelTo(model, text): two properties, both ways
        let modelText = MutableProperty("")
        let fieldText = MutableProperty("")
        fieldText <~ modelText.signal.skipRepeats()
        modelText <~ fieldText.signal.skipRepeats()
        fieldText.value = "typed"                                   // the model follows
        modelText.value = "loaded"                                  // the field follows

        #expect(fieldText.value == "loaded")
        #expect(modelText.value == "loaded")
        fieldText.value = "edited"
        #expect(modelText.value == "edited")
    }

    @Test("from ReactiveObjC: the rest of the table: each Flare form it names, run")
    func reactiveObjCRestOfTheTable() {
        let scheduler = TestScheduler()
        let log = Recorder<String>()
        func events<V, E>(_ producer: SignalProducer<V, E>) -> [String] {
            let events = Recorder<String>()
            producer.start { events.append(describe($0)) }
            return events.items
        }
        // defer: a producer made at start time.
        let made = Counter()
        let make = { () -> SignalProducer<Int, Never> in made.increment(); return SignalProducer(value: made.count) }
        let deferred = SignalProducer<Int, Never> { observer, lifetime in lifetime += make().start(observer) }
        #expect(made.count == 0)
        #expect(events(deferred) == ["v1", "completed"])
        #expect(events(deferred) == ["v2", "completed"])
        // switch:cases:default:, with RAC's error when nothing matches.
        let cases = ["a": SignalProducer<String, TemperatureError>(value: "A")]
        let keys = SignalProducer<String, TemperatureError>(["a", "b"])
        #expect(events(keys.flatMap(.latest) { cases[$0] ?? SignalProducer(error: TemperatureError()) })
            == ["vA", "failed(TemperatureError())"])
        // bufferWithTime:onScheduler: → collect(every:…)
        let (typed, typedInput) = Signal<Int, Never>.pipe()
        typed.collect(every: .seconds(1), on: scheduler, skipEmpty: true, discardWhenCompleted: false)
            .observe { log.append("buffer \(describe($0))") }
        typedInput.send(value: 1)
        typedInput.send(value: 2)
        scheduler.advance(by: 1)
        scheduler.advance(by: 1)
        typedInput.send(value: 3)
        typedInput.sendCompleted()
        scheduler.advance(by: 1)
        #expect(log.items == ["buffer v[1, 2]", "buffer v[3]", "buffer completed"])
        // interval:onScheduler: → SignalProducer.timer
        let ticks = Recorder<Date>()
        let timer = SignalProducer.timer(interval: .seconds(1), on: scheduler, leeway: .seconds(0))
            .take(first: 2).startWithValues { ticks.append($0) }
        scheduler.advance(by: 3)
        #expect(ticks.items.map { $0.timeIntervalSince(Date(timeIntervalSinceReferenceDate: 0)) } == [4, 5])
        timer.dispose()
        // startEagerlyWithScheduler:block: / startLazilyWithScheduler:block:
        let runs = Counter()
        let work = SignalProducer<Int, Never> { observer, _ in
            runs.increment()
            observer.send(value: 42)
            observer.sendCompleted()
        }
        let eager = work.start(on: scheduler).replayLazily(upTo: Int.max)
        eager.start()
        let lazy = work.start(on: scheduler).replayLazily(upTo: Int.max)
        scheduler.advance()
        #expect(runs.count == 1)
        #expect(events(eager) == ["v42", "completed"])
        lazy.start()
        scheduler.advance()
        #expect(runs.count == 2)
        // logError, logCompleted, logAll
        let logged = Recorder<String>()
        let logger: EventLogger = { _, event, _, _, _ in logged.append(event) }
        _ = events(SignalProducer<Int, TemperatureError>(error: TemperatureError()).logEvents(events: [.failed], logger: logger))
        _ = events(SignalProducer<Int, Never>(value: 1).logEvents(events: [.completed], logger: logger))
        _ = events(SignalProducer<Int, Never>(value: 2).logEvents(logger: logger))
        #expect(logged.items == ["failed TemperatureError()", "completed", "starting", "value 2", "completed", "terminated", "disposed", "started"])
        // scheduleRecursiveBlock: → an action that schedules the next step; one SerialDisposable stops the chain.
        let steps = Counter()
        let chain = SerialDisposable()
        // (A TestScheduler runs what is scheduled for now within the same
        // advance, so each step here is scheduled a second later.)
        @Sendable func step() {
            steps.increment()
            chain.inner = scheduler.schedule(after: scheduler.currentDate.addingTimeInterval(1)) { step() }
        }
        chain.inner = scheduler.schedule { step() }
        scheduler.advance()
        scheduler.advance(by: 1)
        scheduler.advance(by: 1)
        chain.dispose()
        scheduler.advance(by: 10)
        #expect(steps.count == 3)
        // RACObserve → a MutableProperty's producer: the current value, then each change.
        let title = MutableProperty("a")
        let seen = Recorder<String>()
        title.producer.startWithValues { seen.append($0) }
        title.value = "b"
        #expect(seen.items == ["a", "b"])
        // rac_signalForSelector: → the method sends into a pipe.
        final class Button {
            let (tapped, tap) = Signal<Int, Never>.pipe()
            func press(_ count: Int) { tap.send(value: count) }
        }
        let button = Button()
        let taps = Recorder<Int>()
        button.tapped.observeValues { taps.append($0) }
        button.press(2)
        #expect(taps.items == [2])
        // RACTuple / RACTupleUnpack, RACSequence, RACEvent, RACUnit
        let tuple = (1, "one")
        let (number, word) = tuple
        #expect(number == 1 && word == "one")
        #expect(events(SignalProducer<Int, Never>([1, 2, 3].lazy.map { $0 * 10 })) == ["v10", "v20", "v30", "completed"])
        let materialized = Recorder<Signal<Int, Never>.Event>()
        SignalProducer<Int, Never>(value: 1).materialize().startWithValues { materialized.append($0) }
        #expect(materialized.items.map { describe($0) } == ["v1", "completed"])
        #expect(events(SignalProducer<Int, Never>(value: 1).map(value: ())) == ["v()", "completed"])
        // and/or of many, takeUntilReplacement:, flatMap with a limit
        #expect(events(SignalProducer<Bool, Never>.all([SignalProducer(value: true), SignalProducer(value: false)])) == ["vfalse", "completed"])
        #expect(events(SignalProducer<Bool, Never>.any([SignalProducer(value: true), SignalProducer(value: false)])) == ["vtrue", "completed"])
        let (original, originalInput) = Signal<Int, Never>.pipe()
        let (replacement, replacementInput) = Signal<Int, Never>.pipe()
        let replaced = Recorder<String>()
        original.take(untilReplacement: replacement).observe { replaced.append(describe($0)) }
        originalInput.send(value: 1)
        replacementInput.send(value: 2)
        originalInput.send(value: 3)
        #expect(replaced.items == ["v1", "v2"])
        #expect(events(SignalProducer<Int, Never>([1, 2]).flatMap(.concurrent(limit: 1)) { SignalProducer(values: $0, $0) })
            == ["v1", "v1", "v2", "v2", "completed"])
    }

    @Test("from ReactiveObjC: deliverOnMainThread, and the asynchronous… waits")
    func reactiveObjCMainThreadAndAsyncWaits() async {
        // deliverOnMainThread → observe(on: UIScheduler()); deliverOn:mainThreadScheduler → observe(on: QueueScheduler.main)
        let onMain = Recorder<Bool>()
        let mainQueue = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: mainQueue, value: true)
        let delivered = SignalProducer<Int, Never>(value: 1).observe(on: UIScheduler())
            .startWithValues { _ in onMain.append(DispatchQueue.getSpecific(key: mainQueue) ?? false) }
        let enqueued = SignalProducer<Int, Never>(value: 2).observe(on: QueueScheduler.main)
            .startWithValues { _ in onMain.append(DispatchQueue.getSpecific(key: mainQueue) ?? false) }
        // asynchronousFirstOrDefault:…, asynchronouslyWaitUntilCompleted: → await first(), await wait()
        let first = await SignalProducer<Int, TemperatureError>([5, 6]).first()
        let waited = await SignalProducer<Int, TemperatureError>([5, 6]).wait()
        #expect((try? first?.get()) == 5)
        #expect((try? waited.get()) != nil)
        await eventuallyAsync { onMain.items.count >= 2 }
        #expect(onMain.items == [true, true])
        delivered.dispose()
        enqueued.dispose()
    }

    @Test("from RxSwift: subject, operators, dispose bag")
    func rxSwift() {
        let log = Recorder<String>()
        // RxSwift: PublishSubject → pipe, DisposeBag → CompositeDisposable
        let (clicks, clickInput) = Signal<Int, Never>.pipe()
        let bag = CompositeDisposable()
        bag += clicks
            .skipRepeats()                                  // distinctUntilChanged
            .take(first: 3)                                 // take(3)
            .observeValues { log.append("click \($0)") }    // subscribe(onNext:)
        for x in [1, 1, 2, 3, 4] { clickInput.send(value: x) }
        bag.dispose()

        #expect(log.items == ["click 1", "click 2", "click 3"])
    }

    @Test("from Combine: subject, sink, cancellable released")
    func combine() {
        let log = Recorder<String>()
        // Combine: PassthroughSubject → pipe, sink → observeValues, AnyCancellable → ScopedDisposable
        let (queries, queryInput) = Signal<String, Never>.pipe()
        var cancellable: ScopedDisposable<AnyDisposable>? = ScopedDisposable(
            queries
                .skipRepeats()                              // removeDuplicates()
                .observeValues { log.append("search \($0)") } ?? AnyDisposable()
        )
        queryInput.send(value: "flare")
        queryInput.send(value: "flare")
        withExtendedLifetime(cancellable) {}
        cancellable = nil                                   // released: disposed, like AnyCancellable
        queryInput.send(value: "ignored")

        #expect(log.items == ["search flare"])
    }

    @Test("async/await: values for RxSwift's and Combine's values and PR #847's asyncStream; producers from async work")
    func asyncAwait() async {
        let log = Recorder<String>()
        // RxSwift: for try await x in observable.values   (error: any Error)
        // Combine: for try await x in publisher.values    (error: any Error)
        // ReactiveSwift PR #847: producer.asyncThrowingStream()
        let readings = SignalProducer<Double, TemperatureError>([21.5, 22.0])
        do throws(TemperatureError) {
            for try await celsius in readings.values {     // each loop starts a run
                log.append("now \(celsius)")
            }
        } catch {
            log.append("failed: \(error)")                  // a TemperatureError, no cast
        }
        #expect(log.items == ["now 21.5", "now 22.0"])

        let fetch = SignalProducer { () async throws(TemperatureError) -> Double in
            22.5                                            // try await thermometer.read()
        }
        let reading = await fetch.first()                   // Result<Double, TemperatureError>?, blocks no thread
        let ticks = SignalProducer(AsyncStream<Int> { $0.yield(1); $0.finish() })
        let all = await ticks.collect().single()            // the sequence's elements, in a task per start

        guard case let .success(celsius)? = reading, case let .success(elements)? = all else {
            Issue.record("no result: \(String(describing: reading)), \(String(describing: all))")
            return
        }
        #expect(celsius == 22.5)
        #expect(elements == [1])
    }
}
