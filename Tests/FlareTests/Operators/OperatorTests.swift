import Flare
import Testing

@Suite("First operators")
struct OperatorTests {
    @Test("map, map(value:), map(keyPath)")
    func map() {
        let (signal, input) = Signal<Int, TestError>.pipe()
        let a = Recorder<String>()
        let b = Recorder<String>()
        let c = Recorder<String>()
        signal.map { $0 * 10 }.observe { a.append(describe($0)) }
        signal.map(value: "x").observe { b.append(describe($0)) }
        signal.map(\.description.count).observe { c.append(describe($0)) }
        input.send(value: 1)
        input.send(value: 23)
        input.send(error: TestError(code: 3))
        #expect(a.items == ["v10", "v230", "failed(E3)"])
        #expect(b.items == ["vx", "vx", "failed(E3)"])
        #expect(c.items == ["v1", "v2", "failed(E3)"])
    }

    @Test("mapError transforms failures only")
    func mapError() {
        let (signal, input) = Signal<Int, TestError>.pipe()
        let log = Recorder<String>()
        signal.mapError { TestError(code: $0.code * 2) }.observe { log.append(describe($0)) }
        input.send(value: 1)
        input.send(error: TestError(code: 4))
        #expect(log.items == ["v1", "failed(E8)"])
    }

    @Test("filter and compactMap")
    func filterCompactMap() {
        let (signal, input) = Signal<Int, Never>.pipe()
        let evens = Recorder<String>()
        let halves = Recorder<String>()
        signal.filter { $0 % 2 == 0 }.observe { evens.append(describe($0)) }
        signal.compactMap { $0 % 2 == 0 ? $0 / 2 : nil }.observe { halves.append(describe($0)) }
        for v in 1...5 { input.send(value: v) }
        input.sendInterrupted()
        #expect(evens.items == ["v2", "v4", "interrupted"])
        #expect(halves.items == ["v1", "v2", "interrupted"])
    }

    @Test("a chain delivers in order and propagates completion")
    func chain() {
        let (signal, input) = Signal<Int, Never>.pipe()
        let log = Recorder<String>()
        signal.map { $0 + 1 }.filter { $0 % 2 == 0 }.map { "n\($0)" }.observe { log.append(describe($0)) }
        for v in 0..<5 { input.send(value: v) }
        input.sendCompleted()
        #expect(log.items == ["vn2", "vn4", "completed"])
    }

    @Test("a derived signal observed without a reference keeps working; disposing its observer stops the upstream observation")
    func derivedLifetime() {
        let (signal, input) = Signal<Int, Never>.pipe()
        let log = Recorder<Int>()
        weak var weakCanary: Canary?
        var disposable: Disposable?
        do {
            let canary = Canary()
            weakCanary = canary
            disposable = signal.map { v -> Int in withExtendedLifetime(canary) {}; return v * 2 }.observeValues { log.append($0) }
        }
        input.send(value: 1)
        #expect(log.items == [2])
        #expect(weakCanary != nil)
        disposable?.dispose()
        // The mapped signal lost its last observer and reference: it ended and
        // released its observation of the upstream, and with it the closure.
        #expect(weakCanary == nil)
        input.send(value: 2)
        #expect(log.items == [2])
    }

    @Test("a derived signal with no observer and no reference is released at once")
    func derivedUnreferenced() {
        let (signal, input) = Signal<Int, Never>.pipe()
        weak var weakMapped: Signal<Int, Never>?
        do {
            let mapped = signal.map { $0 }
            weakMapped = mapped
        }
        #expect(weakMapped == nil)
        input.send(value: 1)
    }

    @Test("operators on a terminated signal deliver interrupted")
    func operatorOnTerminated() {
        let (signal, input) = Signal<Int, Never>.pipe()
        input.sendCompleted()
        let log = Recorder<String>()
        signal.map { $0 }.observe { log.append(describe($0)) }
        #expect(log.items == ["interrupted"])
    }

    @Test("reentrant send from a derived observer is queued on the root")
    func derivedReentrancy() {
        let (signal, input) = Signal<Int, Never>.pipe()
        let log = Recorder<String>()
        signal.map { $0 * 2 }.observeValues { value in
            log.append("m\(value)")
            if value == 2 { input.send(value: 5) }
        }
        signal.observeValues { log.append("r\($0)") }
        input.send(value: 1)
        #expect(log.items == ["m2", "r1", "m10", "r5"])
        // The derived observer holds `input`, which holds the root, which holds
        // the derived signal and so the observer: end the root to release them.
        input.sendCompleted()
    }
}
