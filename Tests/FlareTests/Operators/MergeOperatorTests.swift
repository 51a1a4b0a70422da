import Flare
import Testing

private typealias S = Step<Int, TestError, Int, TestError>
private let error1 = TestError(code: 1)
private let error2 = TestError(code: 2)

@Suite("merge")
struct MergeOperatorTests {
    private func merged(_ a: Signal<Int, TestError>, _ b: Signal<Int, TestError>) -> Signal<Int, TestError> {
        a.merge(with: b)
    }

    @Test("values of both inputs as they arrive; completed once both completed")
    func valuesAndCompletion() {
        let steps: [S] = [.a(.value(1)), .b(.value(10)), .a(.value(2)), .a(.completed), .b(.value(20)), .b(.completed)]
        let expected = ["v1", "v10", "v2", "v20", "completed"]
        #expect(play(merged, steps) == expected)
        #expect(play({ Signal.merge($0, $1) }, steps) == expected)
        #expect(play({ Signal.merge([$0, $1]) }, steps) == expected)
        #expect(play(merged, [.b(.completed), .a(.value(1))]) == ["v1"])
    }

    @Test("the first failure of either input ends the output; an interruption counts as completion")
    func failureAndInterruption() {
        #expect(play(merged, [.a(.value(1)), .b(.failed(error2)), .a(.value(2)), .a(.failed(error1))])
            == ["v1", "failed(E2)"])
        #expect(play(merged, [.a(.completed), .b(.failed(error2))]) == ["failed(E2)"])
        // ReactiveSwift's merge is a `.merge` flatten: an inner's
        // `interrupted` is its completion.
        #expect(play(merged, [.a(.interrupted), .b(.value(1))]) == ["v1"])
        #expect(play(merged, [.b(.value(1)), .a(.completed), .b(.interrupted)]) == ["v1", "completed"])
        #expect(play(merged, [.a(.interrupted), .b(.interrupted)]) == ["completed"])
    }

    @Test("merging a signal that has terminated: it counts as completed")
    func terminatedInput() {
        let (done, doneInput) = Signal<Int, Never>.pipe()
        doneInput.sendCompleted()
        let (live, liveInput) = Signal<Int, Never>.pipe()
        let log = Recorder<String>()
        Signal.merge(done, live).observe { log.append(describe($0)) }
        liveInput.send(value: 1)
        liveInput.sendCompleted()
        #expect(log.items == ["v1", "completed"])

        let producerLog = Recorder<String>()
        SignalProducer.merge(SignalProducer<Int, Never>(value: 0), SignalProducer<Int, Never> { observer, _ in observer.sendInterrupted() })
            .start { producerLog.append(describe($0)) }
        #expect(producerLog.items == ["v0", "completed"])
    }

    @Test("merge of many; merge of none has already completed")
    func many() {
        let pipes = (0..<4).map { _ in Signal<Int, Never>.pipe() }
        let log = Recorder<String>()
        Signal.merge(pipes.map(\.output)).observe { log.append(describe($0)) }
        for (index, pipe) in pipes.enumerated().reversed() { pipe.input.send(value: index) }
        for pipe in pipes { pipe.input.sendCompleted() }
        #expect(log.items == ["v3", "v2", "v1", "v0", "completed"])

        let none = Recorder<String>()
        Signal.merge([Signal<Int, Never>]()).observe { none.append(describe($0)) }
        #expect(none.items == ["interrupted"])
    }

    @Test("a terminal event disposes every input observation; so does abandoning the output")
    func disposal() {
        let (a, aInput) = Signal<Int, TestError>.pipe()
        let (b, bInput) = Signal<Int, TestError>.pipe()
        let aWatch = WeakCanary()
        let bWatch = WeakCanary()
        let log = Recorder<String>()
        a.tracked(by: aWatch).merge(with: b.tracked(by: bWatch)).observe { log.append(describe($0)) }
        aInput.send(value: 1)
        #expect(aWatch.isAlive && bWatch.isAlive)
        bInput.send(error: TestError(code: 3))
        #expect(!aWatch.isAlive && !bWatch.isAlive)
        aInput.send(value: 2)
        #expect(log.items == ["v1", "failed(E3)"])

        let (c, cInput) = Signal<Int, Never>.pipe()
        let (d, dInput) = Signal<Int, Never>.pipe()
        do {
            _ = c.tracked(by: aWatch).merge(with: d.tracked(by: bWatch))
        }
        #expect(!aWatch.isAlive && !bWatch.isAlive)
        withExtendedLifetime((cInput, dInput)) {}
    }

    @Test("merged producers start in order, each once the one before returned; an output ended while starting starts no more")
    func producersStartLazily() {
        let log = Recorder<String>()
        func input(_ name: String, _ events: [Signal<Int, TestError>.Event]) -> SignalProducer<Int, TestError> {
            SignalProducer { observer, _ in
                log.append("\(name) starts")
                for event in events { observer.send(event) }
            }
            .on(interrupted: { log.append("\(name) interrupted") })
        }
        SignalProducer.merge(input("a", [.value(1)]), input("b", [.failed(TestError(code: 2))]), input("c", [.value(3)]))
            .start { log.append("output \(describe($0))") }
        // ReactiveSwift 7.2.1 (a flatten of the producers): `c` is never
        // made, so neither started nor interrupted; `a` is interrupted by
        // the failure.
        #expect(log.items == ["a starts", "output v1", "b starts", "output failed(E2)", "a interrupted"])
    }

    @Test("two inputs sending from two threads: every value once, per-input order, serialized")
    func stress() {
        let (a, aInput) = Signal<Int, Never>.pipe()
        let (b, bInput) = Signal<Int, Never>.pipe()
        let probe = DeliveryProbe(a.merge(with: b))
        concurrently({
            for i in 1...stressCount { aInput.send(value: i) }
            aInput.sendCompleted()
        }, {
            for i in 1...stressCount { bInput.send(value: -i) }
            bInput.sendCompleted()
        })
        let values = probe.values
        #expect(probe.isClean)
        #expect(values.count == 2 * stressCount)
        #expect(values.filter { $0 > 0 } == Array(1...stressCount))
        #expect(values.filter { $0 < 0 } == (1...stressCount).map { -$0 })
        #expect(probe.terminals == ["completed"])
    }
}
