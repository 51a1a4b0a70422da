import Flare
import Testing

/// The RACStream operators that ReactiveSwift dropped and Flare keeps.
@Suite("ReactiveObjC operators: ignore, enumerated, on signals and producers")
struct ReactiveObjCOperatorTests {
    @Test("ignore drops the values equal to its argument, forwards each terminal")
    func ignore() {
        #expect(run([.value(1), .value(0), .value(2), .value(0), .completed]) { $0.ignore(0) }
            == ["v1", "v2", "completed"])
        #expect(run([.value(0), .value(3), .failed(e1)]) { $0.ignore(0) } == ["v3", "failed(E1)"])
        #expect(run([.value(0), .interrupted]) { $0.ignore(0) } == ["interrupted"])
    }

    @Test("enumerated pairs each value with its offset, from 0, forwards each terminal")
    func enumerated() {
        #expect(run([.value("a"), .value("b"), .value("c"), .completed]) { (s: Signal<String, TestError>) in
            s.enumerated().map { "\($0.offset)\($0.element)" }
        } == ["v0a", "v1b", "v2c", "completed"])
        #expect(run([.value(7), .failed(e1)]) { $0.enumerated().map { $0.offset * 100 + $0.element } }
            == ["v7", "failed(E1)"])
        #expect(run([.value(7), .value(8), .interrupted]) { $0.enumerated().map(\.offset) }
            == ["v0", "v1", "interrupted"])
    }

    @Test("enumerated counts per derived signal: two derived signals count on their own")
    func enumeratedCountsPerDerivedSignal() {
        let (signal, input) = Signal<Int, Never>.pipe()
        let first = Recorder<Int>(), second = Recorder<Int>()
        signal.enumerated().observeValues { first.append($0.offset) }
        input.send(value: 10)
        signal.enumerated().observeValues { second.append($0.offset) }
        input.send(value: 11)
        #expect(first.items == [0, 1])
        #expect(second.items == [0])
    }

    @Test("scanWithStart:reduceWithIndex: is enumerated then scan")
    func scanWithIndex() {
        #expect(run([.value(5), .value(5), .value(5), .completed]) {
            $0.enumerated().scan(0) { sum, pair in sum + pair.element * pair.offset }
        } == ["v0", "v5", "v15", "completed"])
    }

    @Test("SignalProducer.ignore drops the values equal to its argument on every run, forwards each terminal")
    func producerIgnore() {
        let values = Recorder<String>()
        let producer = SignalProducer<Int, TestError>([0, 1, 0, 2]).ignore(0)
        producer.start { values.append(describe($0)) }
        producer.start { values.append(describe($0)) }
        #expect(values.items == ["v1", "v2", "completed", "v1", "v2", "completed"])
        let failed = Recorder<String>()
        SignalProducer<Int, TestError>(values: 0, 3).concat(SignalProducer(error: e1)).ignore(0)
            .start { failed.append(describe($0)) }
        #expect(failed.items == ["v3", "failed(E1)"])
    }

    @Test("SignalProducer.enumerated counts from 0 afresh at every start, forwards each terminal")
    func producerEnumerated() {
        let values = Recorder<String>()
        let producer = SignalProducer<String, TestError>(["a", "b"]).enumerated().map { "\($0.offset)\($0.element)" }
        producer.start { values.append(describe($0)) }
        producer.start { values.append(describe($0)) }
        #expect(values.items == ["v0a", "v1b", "completed", "v0a", "v1b", "completed"])
        let failed = Recorder<String>()
        SignalProducer<Int, TestError>(value: 7).concat(SignalProducer(error: e1)).enumerated().map(\.offset)
            .start { failed.append(describe($0)) }
        #expect(failed.items == ["v0", "failed(E1)"])
    }

    /// Every operator docs/Migrating.md maps a RACSignal operator to, applied
    /// to a producer: the guide maps a cold RACSignal to `SignalProducer`, so
    /// each must exist there too (this test does not compile otherwise).
    @Test("every operator the guide's ReactiveObjC section names exists on SignalProducer")
    func guideOperatorsOnProducers() {
        let scheduler = TestScheduler()
        let words = SignalProducer<String, TestError>(["go", "go", "", "stop"])
        let numbers = SignalProducer<Int, TestError>([1, 2, 3])
        let flags = SignalProducer<Bool, TestError>([true, false])
        var produced: [SignalProducer<String, TestError>] = []
        produced.append(words.map { $0.uppercased() })
        produced.append(words.map(value: "x"))
        produced.append(words.filter { !$0.isEmpty })
        produced.append(words.ignore(""))
        produced.append(words.prefix(value: "…"))
        produced.append(words.skip(first: 1))
        produced.append(words.take(first: 2))
        produced.append(words.take(while: { $0 != "stop" }))
        produced.append(words.skip(while: { $0 == "go" }))
        produced.append(words.skipRepeats())
        produced.append(words.take(last: 1))
        produced.append(words.take(untilReplacement: SignalProducer<String, TestError>.never))
        produced.append(words.take(until: SignalProducer<(), Never>.never))
        produced.append(words.filter { _ in false })
        produced.append(numbers.scan(0, +).map { "\($0)" })
        produced.append(numbers.enumerated().scan(0) { $0 + $1.offset }.map { "\($0)" })
        produced.append(numbers.combinePrevious(0).map { "\($0)\($1)" })
        produced.append(words.zip(with: numbers).map { "\($0)\($1)" })
        produced.append(words.combineLatest(with: numbers).map { "\($0)\($1)" })
        produced.append(words.merge(with: words))
        produced.append(words.concat(words))
        produced.append(numbers.map { _ in words }.flatten(.merge))
        produced.append(numbers.map { _ in words }.flatten(.latest))
        produced.append(numbers.map { _ in words }.flatten(.concurrent(limit: 1)))
        produced.append(numbers.flatMap(.merge) { _ in words })
        produced.append(flags.flatMap(.latest) { $0 ? words : words })
        produced.append(words.observe(on: scheduler))
        produced.append(words.debounce(1, on: scheduler, discardWhenCompleted: false))
        produced.append(words.delay(1, on: scheduler))
        produced.append(words.timeout(after: 1, raising: e1, on: scheduler))
        produced.append(words.sample(on: SignalProducer<(), Never>.never))
        produced.append(words.materialize().map { describe($0) }.promoteError(TestError.self))
        produced.append(words.materialize().dematerialize())
        produced.append(numbers.reduce(0, +).map { "\($0)" })
        produced.append(words.collect().map { $0.joined() })
        produced.append(words.collect(every: .seconds(1), on: scheduler, skipEmpty: true, discardWhenCompleted: false).map { $0.joined() })
        produced.append(words.group(by: { $0.count }).map { "\($0.0)" })
        produced.append(words.replayLazily(upTo: 1))
        produced.append(words.repeat(2))
        produced.append(words.retry(upTo: Int.max))
        produced.append(words.then(words))
        produced.append(words.start(on: scheduler))
        produced.append(words.flatMapError { _ in words })
        produced.append(words.on(starting: {}, failed: { _ in }, completed: {}, terminated: {}, value: { _ in }))
        produced.append(numbers.attemptMap { .success("\($0)") })
        produced.append(flags.negate().map { "\($0)" })
        produced.append(flags.and(flags).map { "\($0)" })
        produced.append(flags.or(flags).map { "\($0)" })
        produced.append(SignalProducer.all([flags, flags]).map { "\($0)" })
        produced.append(SignalProducer.any([flags, flags]).map { "\($0)" })
        produced.append(words.logEvents(events: [.value], logger: { _, _, _, _, _ in }))
        let completed = Counter()
        let runs = CompositeDisposable()
        for producer in produced { runs += producer.startWithCompleted { completed.increment() } }
        scheduler.run()
        // Every one completes but two, which wait for a `never` producer:
        // sample(on:) completes once its sampler has, and
        // take(untilReplacement:) stays open for its replacement.
        #expect(produced.count == 51)
        #expect(completed.count == 49)
        #expect(words.first().map { (try? $0.get()) == "go" } == true)
        #expect((try? words.wait().get()) != nil)
        // The two open runs end when disposed, as in ReactiveSwift, where a
        // run waiting on an upstream that never ends lives until then.
        runs.dispose()
    }
}
