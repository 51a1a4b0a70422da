import Flare
import Testing

private typealias S = Step<Int, TestError, String, Never>
private typealias U = Step<Int, TestError, (), Never>
private let error1 = TestError(code: 1)

@Suite("sample")
struct SampleOperatorTests {
    @Test("sample(with:): the latest source value with each sampler value")
    func sampleWith() {
        let steps: [S] = [.b(.value("early")), .a(.value(1)), .a(.value(2)), .b(.value("x")), .b(.value("y")),
                          .a(.value(3)), .b(.value("z"))]
        #expect(play({ $0.sample(with: $1) }, steps) == ["v(2, \"x\")", "v(2, \"y\")", "v(3, \"z\")"])
    }

    @Test("sample(on:): the latest source value for each trigger")
    func sampleOn() {
        let steps: [U] = [.b(.value(())), .a(.value(1)), .b(.value(())), .b(.value(())), .a(.value(2)), .a(.value(3)),
                          .b(.value(()))]
        #expect(play({ $0.sample(on: $1) }, steps) == ["v1", "v1", "v3"])
    }

    @Test("sample completes once both inputs completed")
    func sampleCompletion() {
        #expect(play({ $0.sample(with: $1) }, [.a(.value(1)), .a(.completed), .b(.value("x")), .b(.completed)] as [S])
            == ["v(1, \"x\")", "completed"])
        #expect(play({ $0.sample(on: $1) }, [.a(.value(1)), .b(.completed), .a(.value(2)), .a(.completed)] as [U])
            == ["completed"])
    }

    @Test("sample fails when the source fails; interrupts when either input is interrupted")
    func sampleTerminals() {
        #expect(play({ $0.sample(with: $1) }, [.a(.value(1)), .a(.failed(error1)), .b(.value("x"))] as [S])
            == ["failed(E1)"])
        #expect(play({ $0.sample(with: $1) }, [.a(.value(1)), .a(.interrupted)] as [S]) == ["interrupted"])
        #expect(play({ $0.sample(with: $1) }, [.a(.completed), .b(.interrupted)] as [S]) == ["interrupted"])
        #expect(play({ $0.sample(on: $1) }, [.b(.interrupted), .a(.value(1))] as [U]) == ["interrupted"])
    }

    @Test("sample: a terminal event disposes both input observations")
    func sampleDisposal() {
        let (a, aInput) = Signal<Int, TestError>.pipe()
        let (b, bInput) = Signal<(), Never>.pipe()
        let aWatch = WeakCanary()
        let bWatch = WeakCanary()
        let log = Recorder<String>()
        a.tracked(by: aWatch).sample(on: b.tracked(by: bWatch)).observe { log.append(describe($0)) }
        aInput.send(value: 1)
        bInput.send(value: ())
        #expect(aWatch.isAlive && bWatch.isAlive)
        aInput.send(error: error1)
        #expect(!aWatch.isAlive && !bWatch.isAlive)
        bInput.send(value: ())
        #expect(log.items == ["v1", "failed(E1)"])
    }

    @Test("sample with both inputs sending from two threads: one value per sampler value, serialized")
    func sampleStress() {
        let (a, aInput) = Signal<Int, Never>.pipe()
        let (b, bInput) = Signal<Int, Never>.pipe()
        let probe = DeliveryProbe(a.sample(with: b).map { [$0.0, $0.1] })
        aInput.send(value: 0)
        concurrently({
            for i in 1...stressCount { aInput.send(value: i) }
            aInput.sendCompleted()
        }, {
            for i in 1...stressCount { bInput.send(value: i) }
            bInput.sendCompleted()
        })
        let values = probe.values
        #expect(probe.isClean)
        #expect(values.map { $0[1] } == Array(1...stressCount))
        #expect(zip(values, values.dropFirst()).allSatisfy { $0[0] <= $1[0] })
        #expect(probe.terminals == ["completed"])
    }
}
