import Flare
import Foundation
import Testing

private func events<V, E>(_ producer: SignalProducer<V, E>) -> [String] {
    let log = Recorder<String>()
    producer.start { log.append(describe($0)) }
    return log.items
}

/// A producer that counts its starts and its runs' cleanups, and sends
/// nothing until disposed.
private func silent(starts: Counter, cleanups: Counter) -> SignalProducer<Int, TestError> {
    SignalProducer { observer, lifetime in
        starts.increment()
        lifetime.observeEnded { withExtendedLifetime(observer) { cleanups.increment() } }
    }
}

@Suite("Multi-input and time operators on producers")
struct ProducerCombiningTests {
    @Test("combineLatest and zip: this producer starts first; static forms start in argument order")
    func combineLatestAndZip() {
        let numbers = SignalProducer<Int, Never>(values: 1, 2)
        let letters = SignalProducer<String, Never>(values: "a", "b")
        #expect(events(numbers.combineLatest(with: letters)) == [#"v(2, "a")"#, #"v(2, "b")"#, "completed"])
        #expect(events(numbers.zip(with: letters)) == [#"v(1, "a")"#, #"v(2, "b")"#, "completed"])
        #expect(events(SignalProducer.combineLatest(numbers, letters, SignalProducer<Bool, Never>(value: true)))
            == [#"v(2, "b", true)"#, "completed"])
        #expect(events(SignalProducer.zip(numbers, letters, numbers.map { $0 * 10 }))
            == [#"v(1, "a", 10)"#, #"v(2, "b", 20)"#, "completed"])
        #expect(events(SignalProducer.combineLatest([numbers, numbers.map { $0 + 2 }])) == ["v[2, 3]", "v[2, 4]", "completed"])
        #expect(events(SignalProducer.zip([numbers, numbers.map { $0 + 2 }])) == ["v[1, 3]", "v[2, 4]", "completed"])
        let (signal, input) = Signal<String, Never>.pipe()
        let log = Recorder<String>()
        numbers.combineLatest(with: signal).start { log.append(describe($0)) }
        input.send(value: "s")
        input.sendCompleted()
        #expect(log.items == [#"v(2, "s")"#, "completed"])
    }

    @Test("static combineLatest and zip of ten producers: started in argument order, every value sent while starting kept")
    func tenProducers() {
        let starts = Recorder<Int>()
        // Each sends its index, synchronously, when it starts, then completes.
        let p = (0..<10).map { index in
            SignalProducer<Int, Never> { observer, _ in
                starts.append(index)
                observer.send(value: index)
                observer.sendCompleted()
            }
        }
        #expect(events(SignalProducer.combineLatest(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9].map { "\($0)" }))
            == [#"v(0, 1, 2, 3, 4, 5, 6, 7, 8, "9")"#, "completed"])
        #expect(starts.items == Array(0..<10))
        #expect(events(SignalProducer.zip(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9]))
            == ["v(0, 1, 2, 3, 4, 5, 6, 7, 8, 9)", "completed"])
        #expect(starts.items == Array(0..<10) + Array(0..<10))
    }

    @Test("merge, and, or, all, any")
    func mergeAndBooleans() {
        let a = SignalProducer<Int, Never>(values: 1, 2)
        #expect(events(a.merge(with: SignalProducer(value: 3))) == ["v1", "v2", "v3", "completed"])
        #expect(events(SignalProducer.merge(a, a.map { $0 * 10 })) == ["v1", "v2", "v10", "v20", "completed"])
        #expect(events(SignalProducer<Int, Never>.merge([SignalProducer<Int, Never>]())) == ["completed"])
        let t = SignalProducer<Bool, Never>(value: true)
        let f = SignalProducer<Bool, Never>(value: false)
        #expect(events(t.and(f)) == ["vfalse", "completed"])
        #expect(events(t.or(f)) == ["vtrue", "completed"])
        #expect(events(SignalProducer.all([t, t, f])) == ["vfalse", "completed"])
        #expect(events(SignalProducer.any(f, f, t)) == ["vtrue", "completed"])
    }

    @Test("all and any of no producer send the logical AND and OR of nothing, true and false, then complete")
    func booleansOfNothing() {
        #expect(events(SignalProducer<Bool, Never>.all([SignalProducer<Bool, Never>]())) == ["vtrue", "completed"])
        #expect(events(SignalProducer<Bool, Never>.any([SignalProducer<Bool, Never>]())) == ["vfalse", "completed"])
        #expect(events(SignalProducer<Bool, TestError>.all(EmptyCollection<SignalProducer<Bool, TestError>>()))
            == ["vtrue", "completed"])
    }

    @Test("withLatest(from:), on producers and on signals: the samplee starts first")
    func withLatest() {
        let values = SignalProducer<Int, Never>(values: 1, 2)
        let samplee = SignalProducer<String, Never>(value: "x")
        #expect(events(values.withLatest(from: samplee)) == [#"v(1, "x")"#, #"v(2, "x")"#, "completed"])
        let (signal, input) = Signal<Int, Never>.pipe()
        let log = Recorder<String>()
        signal.withLatest(from: samplee).observe { log.append(describe($0)) }
        input.send(value: 5)
        input.sendCompleted()
        #expect(log.items == [#"v(5, "x")"#, "completed"])
    }

    @Test("sample, take(until:), skip(until:), take(untilReplacement:)")
    func triggers() {
        let values = SignalProducer<Int, Never>(values: 1, 2)
        #expect(events(values.sample(with: SignalProducer<String, Never>(value: "s"))) == [#"v(2, "s")"#, "completed"])
        #expect(events(values.sample(on: SignalProducer<(), Never>(value: ()))) == ["v2", "completed"])
        #expect(events(values.take(until: SignalProducer<(), Never>(value: ()))) == ["completed"])
        #expect(events(values.take(until: SignalProducer<(), Never>.never)) == ["v1", "v2", "completed"])
        #expect(events(values.skip(until: SignalProducer<(), Never>(value: ()))) == ["v1", "v2", "completed"])
        #expect(events(values.take(untilReplacement: SignalProducer(values: 7, 8))) == ["v7", "v8", "completed"])
    }

    @Test("every start starts every input again; disposal interrupts every input's run")
    func restartAndDispose() {
        let starts = Counter()
        let cleanups = Counter()
        let combined = silent(starts: starts, cleanups: cleanups)
            .combineLatest(with: silent(starts: starts, cleanups: cleanups))
        let log = Recorder<String>()
        let first = combined.start { log.append(describe($0)) }
        let second = combined.start { log.append(describe($0)) }
        #expect(starts.count == 4)
        first.dispose()
        #expect(cleanups.count == 2)
        second.dispose()
        #expect(cleanups.count == 4)
        #expect(log.items == ["interrupted", "interrupted"])
        let merged = SignalProducer.merge(silent(starts: starts, cleanups: cleanups), silent(starts: starts, cleanups: cleanups))
        merged.start().dispose()
        #expect(starts.count == 6)
        #expect(cleanups.count == 6)
    }

    @Test("time operators apply per run")
    func time() {
        let scheduler = TestScheduler()
        let producer = SignalProducer<Int, Never>(values: 1, 2).delay(1, on: scheduler)
        let log = Recorder<String>()
        producer.start { log.append(describe($0)) }
        producer.start { log.append(describe($0)) }
        #expect(log.items == [])
        scheduler.advance(by: .seconds(1))
        #expect(log.items == ["v1", "v2", "completed", "v1", "v2", "completed"])
        let timedOut = Recorder<String>()
        SignalProducer<Int, TestError>.never.timeout(after: 2, raising: TestError(code: 1), on: scheduler)
            .start { timedOut.append(describe($0)) }
        scheduler.advance(by: .seconds(2))
        #expect(timedOut.items == ["failed(E1)"])
    }
}
