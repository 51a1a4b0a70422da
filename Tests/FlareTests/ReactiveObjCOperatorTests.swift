import Flare
import Testing

/// The RACStream operators that ReactiveSwift dropped and Flare keeps.
@Suite("ReactiveObjC operators: ignore, enumerated")
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
}
