import Flare
import Testing

private typealias S = Step<Int, TestError, Int, TestError>
private let error1 = TestError(code: 1)
private let error2 = TestError(code: 2)

@Suite("zip")
struct ZipOperatorTests {
    private func zipped(_ a: Signal<Int, TestError>, _ b: Signal<Int, TestError>) -> Signal<(Int, Int), TestError> {
        a.zip(with: b)
    }

    @Test("the Nth values are paired; extra values wait for their partner")
    func values() {
        let steps: [S] = [.a(.value(1)), .a(.value(2)), .a(.value(3)), .b(.value(10)), .b(.value(20)), .a(.value(4)),
                          .b(.value(30)), .b(.value(40)), .b(.value(50)), .a(.value(5))]
        let expected = ["v(1, 10)", "v(2, 20)", "v(3, 30)", "v(4, 40)", "v(5, 50)"]
        #expect(play(zipped, steps) == expected)
        #expect(play({ Signal.zip($0, $1) }, steps) == expected)
    }

    @Test("completed when both completed, or when one completed with nothing waiting")
    func completion() {
        // a completes with a value still waiting: the pair can still form.
        #expect(play(zipped, [.a(.value(1)), .a(.value(2)), .a(.completed), .b(.value(10)), .b(.value(20)), .b(.value(30))])
            == ["v(1, 10)", "v(2, 20)", "completed"])
        // a completes with nothing waiting: no pair can form any more.
        #expect(play(zipped, [.b(.value(10)), .b(.value(20)), .a(.value(1)), .a(.completed), .b(.value(30))])
            == ["v(1, 10)", "completed"])
        #expect(play(zipped, [.b(.completed)]) == ["completed"])
        #expect(play(zipped, [.a(.value(1)), .b(.value(10)), .a(.value(2)), .b(.completed)]) == ["v(1, 10)", "completed"])
    }

    @Test("the first failure or interruption of either input ends the output")
    func failureAndInterruption() {
        #expect(play(zipped, [.a(.value(1)), .b(.failed(error2)), .b(.value(10)), .a(.failed(error1))]) == ["failed(E2)"])
        #expect(play(zipped, [.a(.failed(error1)), .b(.value(10))]) == ["failed(E1)"])
        #expect(play(zipped, [.a(.value(1)), .b(.value(10)), .a(.interrupted)]) == ["v(1, 10)", "interrupted"])
        #expect(play(zipped, [.a(.completed), .b(.interrupted)]) == ["completed"])
        #expect(play(zipped, [.a(.value(1)), .a(.completed), .b(.interrupted)]) == ["interrupted"])
    }

    @Test("a terminal event disposes both input observations; so does abandoning the output")
    func disposal() {
        let (a, aInput) = Signal<Int, TestError>.pipe()
        let (b, bInput) = Signal<Int, TestError>.pipe()
        let aWatch = WeakCanary()
        let bWatch = WeakCanary()
        let log = Recorder<String>()
        a.tracked(by: aWatch).zip(with: b.tracked(by: bWatch)).observe { log.append(describe($0)) }
        bInput.send(value: 10)
        aInput.send(value: 1)
        #expect(aWatch.isAlive && bWatch.isAlive)
        aInput.sendCompleted()
        #expect(!aWatch.isAlive && !bWatch.isAlive)
        bInput.send(value: 20)
        #expect(log.items == ["v(1, 10)", "completed"])

        let (c, cInput) = Signal<Int, Never>.pipe()
        let (d, dInput) = Signal<Int, Never>.pipe()
        let disposable = c.tracked(by: aWatch).zip(with: d.tracked(by: bWatch)).observe { _ in }
        cInput.send(value: 1)
        #expect(aWatch.isAlive && bWatch.isAlive)
        disposable?.dispose()
        #expect(!aWatch.isAlive && !bWatch.isAlive)
        withExtendedLifetime(dInput) {}
    }

    @Test("buffered values are released when the output ends")
    func bufferRelease() {
        let (a, aInput) = Signal<Canary, Never>.pipe()
        let (b, bInput) = Signal<Int, Never>.pipe()
        weak var weakCanary: Canary?
        let disposable = a.zip(with: b).observe { _ in }
        do {
            let canary = Canary()
            weakCanary = canary
            aInput.send(value: canary)
        }
        #expect(weakCanary != nil)
        disposable?.dispose()
        #expect(weakCanary == nil)
        withExtendedLifetime(bInput) {}
    }

    @Test("static zip of three and of ten signals; sequence form; empty sequence sends nothing")
    func arities() {
        let (a, aInput) = Signal<Int, Never>.pipe()
        let (b, bInput) = Signal<String, Never>.pipe()
        let (c, cInput) = Signal<Bool, Never>.pipe()
        let log = Recorder<String>()
        Signal.zip(a, b, c).observe { log.append(describe($0)) }
        aInput.send(value: 1)
        aInput.send(value: 2)
        bInput.send(value: "x")
        cInput.send(value: true)
        bInput.send(value: "y")
        bInput.sendCompleted()
        cInput.send(value: false)
        #expect(log.items == ["v(1, \"x\", true)", "v(2, \"y\", false)", "completed"])

        let pipes = (0..<10).map { _ in Signal<Int, Never>.pipe() }
        let s = pipes.map(\.output)
        let tuples = Recorder<String>()
        Signal.zip(s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8], s[9]).observe { tuples.append(describe($0)) }
        for round in 0..<2 {
            for (index, pipe) in pipes.enumerated() { pipe.input.send(value: round * 10 + index) }
        }
        #expect(tuples.items == ["v(0, 1, 2, 3, 4, 5, 6, 7, 8, 9)", "v(10, 11, 12, 13, 14, 15, 16, 17, 18, 19)"])
        // An optimized build may release the inputs right after their last
        // use, which interrupts the signals (and the zip) before the check.
        withExtendedLifetime(pipes) {}

        let three = (0..<3).map { _ in Signal<Int, TestError>.pipe() }
        let arrays = Recorder<String>()
        Signal.zip(three.map(\.output)).observe { arrays.append(describe($0)) }
        three[0].input.send(value: 1)
        three[1].input.send(value: 2)
        three[0].input.send(value: 11)
        three[2].input.send(value: 3)
        three[2].input.sendCompleted()
        three[1].input.send(value: 12)
        three[0].input.send(error: error1)
        #expect(arrays.items == ["v[1, 2, 3]", "completed"])

        let empty = Recorder<String>()
        // `zip([])` never ends: it lives as long as it is observed.
        let emptyObservation = Signal.zip([Signal<Int, Never>]()).observe { empty.append(describe($0)) }
        #expect(empty.items == [])
        emptyObservation?.dispose()
    }

    @Test("two inputs sending from two threads: every pair exactly once, in order, serialized")
    func stress() {
        let (a, aInput) = Signal<Int, Never>.pipe()
        let (b, bInput) = Signal<Int, Never>.pipe()
        let probe = DeliveryProbe(a.zip(with: b).map { [$0.0, $0.1] })
        concurrently({
            for i in 0..<stressCount { aInput.send(value: i) }
            aInput.sendCompleted()
        }, {
            for i in 0..<stressCount { bInput.send(value: -i) }
            bInput.sendCompleted()
        })
        #expect(probe.isClean)
        #expect(probe.values == (0..<stressCount).map { [$0, -$0] })
        #expect(probe.terminals == ["completed"])
    }
}
