import Flare
import Testing

private typealias S = Step<Int, TestError, String, Never>
private let error1 = TestError(code: 1)

@Suite("withLatest")
struct WithLatestOperatorTests {
    @Test("withLatest(from:): each source value with the samplee's latest; earlier ones dropped")
    func withLatestValues() {
        let steps: [S] = [.a(.value(1)), .b(.value("x")), .a(.value(2)), .b(.value("y")), .b(.value("z")),
                          .a(.value(3)), .a(.value(4))]
        #expect(play({ $0.withLatest(from: $1) }, steps) == ["v(2, \"x\")", "v(3, \"z\")", "v(4, \"z\")"])
    }

    @Test("withLatest: the source's terminal events pass through; the samplee's are ignored")
    func withLatestTerminals() {
        let terminals: [Signal<Int, TestError>.Event] = [.completed, .failed(error1), .interrupted]
        for terminal in terminals {
            #expect(play({ $0.withLatest(from: $1) }, [.b(.value("x")), .a(.value(1)), .a(terminal)] as [S])
                == ["v(1, \"x\")", describe(terminal)])
        }
        #expect(play({ $0.withLatest(from: $1) }, [.b(.value("x")), .b(.completed), .a(.value(1)), .a(.completed)] as [S])
            == ["v(1, \"x\")", "completed"])
        #expect(play({ $0.withLatest(from: $1) }, [.b(.value("x")), .b(.interrupted), .a(.value(1))] as [S])
            == ["v(1, \"x\")"])
    }

    @Test("withLatest: the source's terminal event disposes the samplee's observation")
    func withLatestDisposal() {
        let (a, aInput) = Signal<Int, TestError>.pipe()
        let (b, bInput) = Signal<String, Never>.pipe()
        let bWatch = WeakCanary()
        a.withLatest(from: b.tracked(by: bWatch)).observe { _ in }
        bInput.send(value: "x")
        #expect(bWatch.isAlive)
        aInput.sendCompleted()
        #expect(!bWatch.isAlive)
    }

    @Test("withLatest with both inputs sending from two threads: one value per source value, serialized")
    func withLatestStress() {
        let (a, aInput) = Signal<Int, Never>.pipe()
        let (b, bInput) = Signal<Int, Never>.pipe()
        let probe = DeliveryProbe(a.withLatest(from: b).map { [$0.0, $0.1] })
        bInput.send(value: 0)
        concurrently({
            for i in 1...stressCount { aInput.send(value: i) }
            aInput.sendCompleted()
        }, {
            for i in 1...stressCount { bInput.send(value: i) }
        })
        let values = probe.values
        #expect(probe.isClean)
        #expect(values.map { $0[0] } == Array(1...stressCount))
        #expect(zip(values, values.dropFirst()).allSatisfy { $0[1] <= $1[1] })
        #expect(probe.terminals == ["completed"])
    }
}
