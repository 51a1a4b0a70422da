import Flare
import Synchronization
import Testing

private typealias S = Step<Int, TestError, Int, TestError>
private let error1 = TestError(code: 1)
private let error2 = TestError(code: 2)

@Suite("combineLatest, all, any, and, or")
struct CombineLatestOperatorTests {
    private func combine(_ a: Signal<Int, TestError>, _ b: Signal<Int, TestError>) -> Signal<(Int, Int), TestError> {
        a.combineLatest(with: b)
    }

    @Test("values: nothing until both have sent, then the latest pair for every value")
    func values() {
        let steps: [S] = [.a(.value(1)), .a(.value(2)), .b(.value(10)), .a(.value(3)), .b(.value(20))]
        #expect(play(combine, steps) == ["v(2, 10)", "v(3, 10)", "v(3, 20)"])
        #expect(play({ Signal.combineLatest($0, $1) }, steps) == ["v(2, 10)", "v(3, 10)", "v(3, 20)"])
    }

    @Test("completed only once both inputs completed; a completed input keeps its last value")
    func completion() {
        #expect(play(combine, [.a(.value(1)), .b(.value(10)), .a(.completed), .b(.value(20)), .b(.completed)])
            == ["v(1, 10)", "v(1, 20)", "completed"])
        #expect(play(combine, [.b(.completed), .a(.value(1)), .a(.completed)]) == ["completed"])
        #expect(play(combine, [.a(.completed)]) == [])
    }

    @Test("the first failure of either input fails the output; later events are ignored")
    func failure() {
        #expect(play(combine, [.a(.value(1)), .b(.value(10)), .a(.failed(error1)), .b(.value(20)), .b(.failed(error2))])
            == ["v(1, 10)", "failed(E1)"])
        #expect(play(combine, [.a(.completed), .b(.failed(error2)), .a(.value(5))]) == ["failed(E2)"])
    }

    @Test("the first interruption of either input interrupts the output")
    func interruption() {
        #expect(play(combine, [.a(.value(1)), .a(.interrupted), .b(.value(10))]) == ["interrupted"])
        #expect(play(combine, [.a(.completed), .b(.interrupted), .b(.completed)]) == ["interrupted"])
    }

    @Test("an input that has already terminated interrupts the output at once")
    func terminatedInput() {
        let (a, aInput) = Signal<Int, TestError>.pipe()
        let (b, bInput) = Signal<Int, TestError>.pipe()
        aInput.sendCompleted()
        let log = Recorder<String>()
        a.combineLatest(with: b).observe { log.append(describe($0)) }
        #expect(log.items == ["interrupted"])
        withExtendedLifetime(bInput) {}
    }

    @Test("a terminal event disposes both input observations")
    func disposalOnTerminal() {
        let (a, aInput) = Signal<Int, TestError>.pipe()
        let (b, bInput) = Signal<Int, TestError>.pipe()
        let aWatch = WeakCanary()
        let bWatch = WeakCanary()
        let log = Recorder<String>()
        a.tracked(by: aWatch).combineLatest(with: b.tracked(by: bWatch)).observe { log.append(describe($0)) }
        aInput.send(value: 1)
        bInput.send(value: 2)
        #expect(aWatch.isAlive && bWatch.isAlive)
        aInput.send(error: error1)
        #expect(!aWatch.isAlive)
        #expect(!bWatch.isAlive)
        bInput.send(value: 3)
        #expect(log.items == ["v(1, 2)", "failed(E1)"])
    }

    @Test("disposing the last observer, or never observing, releases the input observations")
    func disposalOnAbandon() {
        let (a, aInput) = Signal<Int, TestError>.pipe()
        // Releasing a pipe's input interrupts the pipe: keep it.
        let (b, bInput) = Signal<Int, TestError>.pipe()
        let aWatch = WeakCanary()
        let bWatch = WeakCanary()
        let disposable = a.tracked(by: aWatch).combineLatest(with: b.tracked(by: bWatch)).observe { _ in }
        aInput.send(value: 1)
        #expect(aWatch.isAlive && bWatch.isAlive)
        disposable?.dispose()
        #expect(!aWatch.isAlive && !bWatch.isAlive)

        weak var weakOutput: Signal<(Int, Int), TestError>?
        do {
            let output = a.tracked(by: aWatch).combineLatest(with: b.tracked(by: bWatch))
            weakOutput = output
            #expect(aWatch.isAlive)
        }
        #expect(weakOutput == nil)
        #expect(!aWatch.isAlive && !bWatch.isAlive)
        withExtendedLifetime(bInput) {}
    }

    @Test("an observer sending into an input is queued, not reentered")
    func reentrancy() {
        let (a, aInput) = Signal<Int, Never>.pipe()
        let (b, bInput) = Signal<Int, Never>.pipe()
        let log = Recorder<String>()
        a.combineLatest(with: b).observeValues { pair in
            log.append("\(pair)")
            if pair.0 == 1 { aInput.send(value: 2) }
        }
        aInput.send(value: 1)
        bInput.send(value: 10)
        #expect(log.items == ["(1, 10)", "(2, 10)"])
    }

    @Test("static combineLatest of three and of ten signals of different types")
    func arities() {
        let (a, aInput) = Signal<Int, Never>.pipe()
        let (b, bInput) = Signal<String, Never>.pipe()
        let (c, cInput) = Signal<Double?, Never>.pipe()
        let log = Recorder<String>()
        Signal.combineLatest(a, b, c).observe { log.append(describe($0)) }
        aInput.send(value: 1)
        bInput.send(value: "x")
        cInput.send(value: nil)
        aInput.send(value: 2)
        aInput.sendCompleted()
        bInput.sendCompleted()
        cInput.sendCompleted()
        #expect(log.items == ["v(1, \"x\", nil)", "v(2, \"x\", nil)", "completed"])

        let pipes = (0..<10).map { _ in Signal<Int, Never>.pipe() }
        let s = pipes.map(\.output)
        let tuples = Recorder<String>()
        Signal.combineLatest(s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8], s[9].map { "\($0)" })
            .observe { tuples.append(describe($0)) }
        for (index, pipe) in pipes.enumerated() { pipe.input.send(value: index) }
        pipes[0].input.send(value: 100)
        pipes[3].input.sendInterrupted()
        #expect(tuples.items == [
            "v(0, 1, 2, 3, 4, 5, 6, 7, 8, \"9\")", "v(100, 1, 2, 3, 4, 5, 6, 7, 8, \"9\")", "interrupted",
        ])
    }

    @Test("combineLatest of a sequence: arrays in input order; empty sequence sends nothing")
    func sequence() {
        let pipes = (0..<3).map { _ in Signal<Int, TestError>.pipe() }
        let log = Recorder<String>()
        Signal.combineLatest(pipes.map(\.output)).observe { log.append(describe($0)) }
        pipes[2].input.send(value: 30)
        pipes[0].input.send(value: 10)
        pipes[1].input.send(value: 20)
        pipes[2].input.send(value: 31)
        pipes[0].input.sendCompleted()
        pipes[1].input.sendCompleted()
        pipes[2].input.sendCompleted()
        #expect(log.items == ["v[10, 20, 30]", "v[10, 20, 31]", "completed"])

        let failing = (0..<3).map { _ in Signal<Int, TestError>.pipe() }
        let failures = Recorder<String>()
        Signal.combineLatest(failing.map(\.output)).observe { failures.append(describe($0)) }
        failing[1].input.send(error: error2)
        failing[0].input.send(value: 1)
        #expect(failures.items == ["failed(E2)"])

        let empty = Recorder<String>()
        let none: [Signal<Int, TestError>] = []
        // `combineLatest([])` never ends: it lives as long as it is observed.
        let emptyObservation = Signal.combineLatest(none).observe { empty.append(describe($0)) }
        #expect(empty.items == [])
        emptyObservation?.dispose()
    }

    @Test("all, any, and, or on the latest Booleans")
    func booleans() {
        let (a, aInput) = Signal<Bool, Never>.pipe()
        let (b, bInput) = Signal<Bool, Never>.pipe()
        let (c, cInput) = Signal<Bool, Never>.pipe()
        let and = Recorder<Bool>()
        let or = Recorder<Bool>()
        let all = Recorder<Bool>()
        let any = Recorder<Bool>()
        a.and(b).observeValues { and.append($0) }
        a.or(b).observeValues { or.append($0) }
        Signal.all(a, b, c).observeValues { all.append($0) }
        Signal.any([a, b, c]).observeValues { any.append($0) }
        aInput.send(value: true)
        bInput.send(value: false)
        cInput.send(value: true)
        bInput.send(value: true)
        aInput.send(value: false)
        #expect(and.items == [false, true, false])
        #expect(or.items == [true, true, true])
        #expect(all.items == [false, true, false])
        #expect(any.items == [true, true, true])
    }

    @Test("two inputs sending from two threads: exact count, serialized, one completion")
    func stressBinary() {
        let (a, aInput) = Signal<Int, Never>.pipe()
        let (b, bInput) = Signal<Int, Never>.pipe()
        let probe = DeliveryProbe(a.combineLatest(with: b).map { [$0.0, $0.1] })
        aInput.send(value: 0)
        bInput.send(value: 0)
        concurrently({
            for i in 1...stressCount { aInput.send(value: i) }
            aInput.sendCompleted()
        }, {
            for i in 1...stressCount { bInput.send(value: i) }
            bInput.sendCompleted()
        })
        let values = probe.values
        #expect(probe.isClean)
        #expect(values.count == 2 * stressCount + 1)
        #expect(values.last == [stressCount, stressCount])
        // Each side's component never goes backwards, and moves by one at a time.
        var monotonic = true
        for (previous, next) in zip(values, values.dropFirst()) {
            let stepA = next[0] - previous[0]
            let stepB = next[1] - previous[1]
            if stepA + stepB != 1 || stepA < 0 || stepB < 0 { monotonic = false }
        }
        #expect(monotonic)
        #expect(probe.terminals == ["completed"])
    }

    @Test("and (the sequence engine) with two inputs sending from two threads: exact count, serialized")
    func stressSequence() {
        let (a, aInput) = Signal<Bool, Never>.pipe()
        let (b, bInput) = Signal<Bool, Never>.pipe()
        let probe = DeliveryProbe(a.and(b))
        aInput.send(value: true)
        bInput.send(value: true)
        concurrently({
            for i in 1...stressCount { aInput.send(value: i % 2 == 0) }
            aInput.sendCompleted()
        }, {
            for _ in 1...stressCount { bInput.send(value: true) }
            bInput.sendCompleted()
        })
        #expect(probe.isClean)
        #expect(probe.values.count == 2 * stressCount + 1)
        #expect(probe.values.last == (stressCount % 2 == 0))
        #expect(probe.terminals == ["completed"])
    }
}
