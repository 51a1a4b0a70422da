import Flare
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
        // RACBehaviorSubject → MutableProperty; RACReplaySubject → replayLazily(upTo:)
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
