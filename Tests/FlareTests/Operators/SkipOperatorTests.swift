import Flare
import Testing

@Suite("Skip operators")
struct SkipOperatorTests {
    @Test("skip(first:) drops n values, then forwards; terminals pass at any time")
    func skipFirst() {
        #expect(run([.value(1), .value(2), .value(3), .value(4), .completed]) { $0.skip(first: 2) } == ["v3", "v4", "completed"])
        #expect(run([.value(1), .failed(e1)]) { $0.skip(first: 2) } == ["failed(E1)"])
        #expect(run([.value(1), .value(2), .value(3), .interrupted]) { $0.skip(first: 2) } == ["v3", "interrupted"])
        let (signal, _) = Signal<Int, TestError>.pipe()
        #expect(signal.skip(first: 0) === signal)
    }

    @Test("skip(while:) drops until the predicate first fails, then forwards everything and stops asking")
    func skipWhile() {
        let calls = Counter()
        let sent: [Signal<Int, TestError>.Event] = [.value(1), .value(2), .value(5), .value(1), .value(7), .completed]
        #expect(run(sent) { $0.skip { calls.increment(); return $0 < 3 } } == ["v5", "v1", "v7", "completed"])
        #expect(calls.count == 3)
        #expect(run([.value(1), .value(5), .failed(e1)]) { $0.skip(while: { $0 < 3 }) } == ["v5", "failed(E1)"])
        #expect(run([.value(1), .interrupted]) { $0.skip(while: { $0 < 3 }) } == ["interrupted"])
    }

    @Test("skipRepeats() drops values equal to the last one forwarded")
    func skipRepeatsEquatable() {
        #expect(run([.value(1), .value(1), .value(2), .value(2), .value(1), .completed]) { $0.skipRepeats() }
            == ["v1", "v2", "v1", "completed"])
        #expect(run([.value(1), .value(1), .failed(e1)]) { $0.skipRepeats() } == ["v1", "failed(E1)"])
        #expect(run([.value(3), .value(3), .interrupted]) { $0.skipRepeats() } == ["v3", "interrupted"])
    }

    @Test("skipRepeats(_:) compares with the last value forwarded, not the last received")
    func skipRepeatsPredicate() {
        // "Equivalent" when within 2: 1 forwarded; 2 and 3 are within 2 of 1 and
        // dropped; 4 is not within 2 of 1 (the last forwarded), so it is sent
        // even though it is within 2 of 3 (the last received).
        let near: (Int, Int) -> Bool = { abs($0 - $1) <= 2 }
        #expect(run([.value(1), .value(2), .value(3), .value(4), .value(5), .completed]) { $0.skipRepeats(near) }
            == ["v1", "v4", "completed"])
        #expect(run([.value(1), .failed(e1)]) { $0.skipRepeats(near) } == ["v1", "failed(E1)"])
        #expect(run([.value(1), .interrupted]) { $0.skipRepeats(near) } == ["v1", "interrupted"])
    }

    @Test("uniqueValues forwards each identity once")
    func uniqueValues() {
        #expect(run([.value(1), .value(2), .value(1), .value(3), .value(2), .completed]) { $0.uniqueValues() }
            == ["v1", "v2", "v3", "completed"])
        #expect(run([.value(10), .value(21), .value(13), .value(32), .failed(e1)]) { $0.uniqueValues { $0 % 10 } }
            == ["v10", "v21", "v13", "v32", "failed(E1)"])
        #expect(run([.value(10), .value(11), .value(20), .interrupted]) { $0.uniqueValues { $0 / 10 } }
            == ["v10", "v20", "interrupted"])
    }
}
