import Flare
import Testing

@Suite("Aggregate operators")
struct AggregateOperatorTests {
    @Test("collect() sends all values as one array on completion; [] when there were none")
    func collectAll() {
        #expect(run([.value(1), .value(2), .value(3), .completed]) { $0.collect() } == ["v[1, 2, 3]", "completed"])
        #expect(run([.completed]) { (s: Signal<Int, TestError>) in s.collect() } == ["v[]", "completed"])
        #expect(run([.value(1), .failed(e1)]) { $0.collect() } == ["failed(E1)"])
        #expect(run([.value(1), .interrupted]) { $0.collect() } == ["interrupted"])
    }

    @Test("collect(count:) sends full arrays, then the remainder on completion")
    func collectCount() {
        let sent: [Signal<Int, TestError>.Event] = (1...5).map { .value($0) } + [.completed]
        #expect(run(sent) { $0.collect(count: 2) } == ["v[1, 2]", "v[3, 4]", "v[5]", "completed"])
        // Nothing left over: no trailing empty array.
        #expect(run([.value(1), .value(2), .completed]) { $0.collect(count: 2) } == ["v[1, 2]", "completed"])
        #expect(run([.completed]) { (s: Signal<Int, TestError>) in s.collect(count: 2) } == ["v[]", "completed"])
        #expect(run([.value(1), .value(2), .value(3), .failed(e1)]) { $0.collect(count: 2) } == ["v[1, 2]", "failed(E1)"])
        #expect(run([.value(1), .value(2), .value(3), .interrupted]) { $0.collect(count: 2) } == ["v[1, 2]", "interrupted"])
    }

    @Test("collect(_:) with the new value included decides after adding it")
    func collectPredicate() {
        let sent: [Signal<Int, TestError>.Event] = [1, 3, 4, 7, 1, 5, 6].map { .value($0) } + [.completed]
        #expect(run(sent) { $0.collect { values in values.reduce(0, +) == 8 } } == ["v[1, 3, 4]", "v[7, 1]", "v[5, 6]", "completed"])
        #expect(run([.value(1), .failed(e1)]) { $0.collect { $0.count == 3 } } == ["failed(E1)"])
        #expect(run([.value(1), .interrupted]) { $0.collect { $0.count == 3 } } == ["interrupted"])
    }

    @Test("collect(_:) with the latest value apart sends what came before it")
    func collectPredicateLatest() {
        let sent: [Signal<Int, TestError>.Event] = [1, 1, 7, 7, 5, 6].map { .value($0) } + [.completed]
        #expect(run(sent) { $0.collect { _, latest in latest == 7 } } == ["v[1, 1]", "v[7]", "v[7, 5, 6]", "completed"])
        // True for the very first value: the array sent is empty.
        #expect(run([.value(7), .value(1), .completed]) { $0.collect { _, latest in latest == 7 } } == ["v[]", "v[7, 1]", "completed"])
        #expect(run([.completed]) { (s: Signal<Int, TestError>) in s.collect { _, _ in true } } == ["v[]", "completed"])
        #expect(run([.value(1), .value(7), .failed(e1)]) { $0.collect { _, latest in latest == 7 } } == ["v[1]", "failed(E1)"])
        #expect(run([.value(1), .value(7), .interrupted]) { $0.collect { _, latest in latest == 7 } } == ["v[1]", "interrupted"])
    }

    @Test("collect reuses its buffer safely when an observer keeps the array sent")
    func collectKeptArrays() {
        let (signal, input) = Signal<Int, Never>.pipe()
        let kept = Recorder<[Int]>()
        signal.collect(count: 3).observeValues { kept.append($0) }
        for v in 1...9 { input.send(value: v) }
        #expect(kept.items == [[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    }

    @Test("reduce sends the final result on completion; the initial one if there were no values")
    func reduce() {
        #expect(run([.value(1), .value(2), .value(3), .completed]) { $0.reduce(10, +) } == ["v16", "completed"])
        #expect(run([.completed]) { (s: Signal<Int, TestError>) in s.reduce(10, +) } == ["v10", "completed"])
        #expect(run([.value(1), .failed(e1)]) { $0.reduce(10, +) } == ["failed(E1)"])
        #expect(run([.value(1), .interrupted]) { $0.reduce(10, +) } == ["interrupted"])
        #expect(run([.value(1), .value(2), .completed]) { $0.reduce(into: [Int]()) { $0.append($1 * 2) } } == ["v[2, 4]", "completed"])
        #expect(run([.value(1), .failed(e1)]) { $0.reduce(into: [Int]()) { $0.append($1) } } == ["failed(E1)"])
        #expect(run([.value(1), .interrupted]) { $0.reduce(into: [Int]()) { $0.append($1) } } == ["interrupted"])
    }

    @Test("scan sends each partial result")
    func scan() {
        #expect(run([.value(1), .value(2), .value(3), .completed]) { $0.scan(10, +) } == ["v11", "v13", "v16", "completed"])
        #expect(run([.value(1), .failed(e1)]) { $0.scan(10, +) } == ["v11", "failed(E1)"])
        #expect(run([.value(1), .interrupted]) { $0.scan(10, +) } == ["v11", "interrupted"])
        #expect(run([.value(1), .value(2), .completed]) { $0.scan(into: [Int]()) { $0.append($1) } } == ["v[1]", "v[1, 2]", "completed"])
        #expect(run([.value(1), .failed(e1)]) { $0.scan(into: 0) { $0 += $1 } } == ["v1", "failed(E1)"])
        #expect(run([.value(1), .interrupted]) { $0.scan(into: 0) { $0 += $1 } } == ["v1", "interrupted"])
    }

    @Test("scanMap threads a state and sends the outputs")
    func scanMap() {
        // State: running sum; output: the value as a share of the sum so far.
        #expect(run([.value(1), .value(3), .value(4), .completed]) { $0.scanMap(0) { sum, v in (sum + v, "\(v)/\(sum + v)") } }
            == ["v1/1", "v3/4", "v4/8", "completed"])
        #expect(run([.value(1), .failed(e1)]) { $0.scanMap(0) { s, v in (s + v, s) } } == ["v0", "failed(E1)"])
        #expect(run([.value(1), .interrupted]) { $0.scanMap(0) { s, v in (s + v, s) } } == ["v0", "interrupted"])
        #expect(run([.value(5), .value(6), .completed]) { $0.scanMap(into: 0) { count, v in count += 1; return "\(count):\(v)" } }
            == ["v1:5", "v2:6", "completed"])
        #expect(run([.value(1), .failed(e1)]) { $0.scanMap(into: 0) { c, _ in c += 1; return c } } == ["v1", "failed(E1)"])
        #expect(run([.value(1), .interrupted]) { $0.scanMap(into: 0) { c, _ in c += 1; return c } } == ["v1", "interrupted"])
    }

    @Test("combinePrevious pairs each value with the one before it")
    func combinePrevious() {
        #expect(run([.value(1), .value(2), .value(3), .completed]) { $0.combinePrevious() } == ["v(1, 2)", "v(2, 3)", "completed"])
        #expect(run([.value(1), .value(2), .completed]) { $0.combinePrevious(0) } == ["v(0, 1)", "v(1, 2)", "completed"])
        #expect(run([.value(1), .failed(e1)]) { $0.combinePrevious() } == ["failed(E1)"])
        #expect(run([.value(1), .failed(e1)]) { $0.combinePrevious(0) } == ["v(0, 1)", "failed(E1)"])
        #expect(run([.value(1), .value(2), .interrupted]) { $0.combinePrevious() } == ["v(1, 2)", "interrupted"])
    }

    @Test("combinePrevious keeps a nil initial distinct from no initial")
    func combinePreviousOptional() {
        let (signal, input) = Signal<Int?, Never>.pipe()
        let withNil = Recorder<String>()
        let without = Recorder<String>()
        signal.combinePrevious(nil).observeValues { withNil.append("\(String(describing: $0.0))>\(String(describing: $0.1))") }
        signal.combinePrevious().observeValues { without.append("\(String(describing: $0.0))>\(String(describing: $0.1))") }
        input.send(value: 1)
        input.send(value: nil)
        #expect(withNil.items == ["nil>Optional(1)", "Optional(1)>nil"])
        #expect(without.items == ["Optional(1)>nil"])
    }
}
