import Flare
import Foundation
import Testing

@Suite("Take operators")
struct TakeOperatorTests {
    @Test("take(first:) forwards n values, completes at once and stops observing upstream")
    func takeFirst() {
        let (signal, input) = Signal<Int, TestError>.pipe()
        let probe = UpstreamProbe()
        let log = Recorder<String>()
        probe.wrap(signal).take(first: 2).observe { log.append(describe($0)) }
        input.send(value: 1)
        #expect(probe.isObserved)
        input.send(value: 2)
        // Completed right after the second value, without waiting for a third.
        #expect(log.items == ["v1", "v2", "completed"])
        #expect(!probe.isObserved)
        input.send(value: 3)
        #expect(probe.reached.count == 2)
        #expect(log.items == ["v1", "v2", "completed"])
    }

    @Test("take(first:) forwards upstream's terminal events before it is satisfied")
    func takeFirstTerminals() {
        #expect(run([.value(1), .completed]) { $0.take(first: 3) } == ["v1", "completed"])
        #expect(run([.value(1), .failed(e1)]) { $0.take(first: 3) } == ["v1", "failed(E1)"])
        #expect(run([.value(1), .interrupted]) { $0.take(first: 3) } == ["v1", "interrupted"])
    }

    @Test("take(first: 0) has completed already: observers get interrupted, upstream is never observed")
    func takeFirstZero() {
        let (signal, input) = Signal<Int, TestError>.pipe()
        let probe = UpstreamProbe()
        let taken = probe.wrap(signal).take(first: 0)
        #expect(!probe.isObserved)
        let log = Recorder<String>()
        let disposable = taken.observe { log.append(describe($0)) }
        input.send(value: 1)
        #expect(disposable == nil)
        #expect(log.items == ["interrupted"])
        #expect(probe.reached.count == 0)
    }

    @Test("take(first:) under concurrent senders: exactly n distinct values, then completed")
    func takeFirstConcurrent() {
        let (signal, input) = Signal<Int, Never>.pipe()
        let log = Recorder<String>()
        let values = Recorder<Int>()
        signal.take(first: 5_000).observe { event in
            if case let .value(v) = event { values.append(v) } else { log.append(describe(event)) }
        }
        DispatchQueue.concurrentPerform(iterations: 2) { sender in
            for i in 0..<10_000 { input.send(value: sender * 10_000 + i) }
        }
        #expect(values.items.count == 5_000)
        #expect(Set(values.items).count == 5_000)
        #expect(log.items == ["completed"])
    }

    @Test("take(last:) sends the last n values in order on completion")
    func takeLast() {
        #expect(run([.value(1), .value(2), .value(3), .value(4), .value(5), .completed]) { $0.take(last: 3) }
            == ["v3", "v4", "v5", "completed"])
        #expect(run([.value(1), .value(2), .completed]) { $0.take(last: 3) } == ["v1", "v2", "completed"])
        #expect(run([.value(1), .value(2), .completed]) { $0.take(last: 0) } == ["completed"])
        #expect(run([.value(1), .value(2), .value(3), .value(4), .completed]) { $0.take(last: 1) } == ["v4", "completed"])
        // Failure and interruption drop what was held.
        #expect(run([.value(1), .value(2), .failed(e1)]) { $0.take(last: 2) } == ["failed(E1)"])
        #expect(run([.value(1), .value(2), .interrupted]) { $0.take(last: 2) } == ["interrupted"])
    }

    @Test("take(last:) keeps its order across many wraps of the ring")
    func takeLastWraps() {
        for n in 1...4 {
            for total in 0...11 {
                let sent = (0..<total).map { Signal<Int, TestError>.Event.value($0) } + [.completed]
                let expected = (max(0, total - n)..<total).map { "v\($0)" } + ["completed"]
                #expect(run(sent) { $0.take(last: n) } == expected, "n=\(n) total=\(total)")
            }
        }
    }

    @Test("take(while:) completes at the first failing value, without it, and stops observing upstream")
    func takeWhile() {
        let (signal, input) = Signal<Int, TestError>.pipe()
        let probe = UpstreamProbe()
        let calls = Counter()
        let log = Recorder<String>()
        probe.wrap(signal).take(while: { value in calls.increment(); return value < 3 }).observe { log.append(describe($0)) }
        input.send(value: 1)
        input.send(value: 2)
        #expect(probe.isObserved)
        input.send(value: 3)
        #expect(log.items == ["v1", "v2", "completed"])
        #expect(!probe.isObserved)
        input.send(value: 1)
        #expect(calls.count == 3)
        #expect(log.items == ["v1", "v2", "completed"])
        #expect(run([.value(1), .completed]) { $0.take(while: { _ in true }) } == ["v1", "completed"])
        #expect(run([.value(1), .failed(e1)]) { $0.take(while: { _ in true }) } == ["v1", "failed(E1)"])
        #expect(run([.value(1), .interrupted]) { $0.take(while: { _ in true }) } == ["v1", "interrupted"])
    }

    @Test("take(until:) forwards the first value that fails the predicate, then completes and stops observing upstream")
    func takeUntilPredicate() {
        let (signal, input) = Signal<Int, TestError>.pipe()
        let probe = UpstreamProbe()
        let calls = Counter()
        let log = Recorder<String>()
        probe.wrap(signal).take(until: { value in calls.increment(); return value < 3 }).observe { log.append(describe($0)) }
        input.send(value: 1)
        input.send(value: 2)
        #expect(log.items == ["v1", "v2"])
        #expect(probe.isObserved)
        input.send(value: 3)
        #expect(log.items == ["v1", "v2", "v3", "completed"])
        #expect(!probe.isObserved)
        input.send(value: 1)
        #expect(calls.count == 3)
        #expect(log.items == ["v1", "v2", "v3", "completed"])
        #expect(run([.value(5), .value(1)]) { $0.take(until: { $0 < 3 }) } == ["v5", "completed"])
        #expect(run([.value(1), .completed]) { $0.take(until: { _ in true }) } == ["v1", "completed"])
        #expect(run([.value(1), .failed(e1)]) { $0.take(until: { _ in true }) } == ["v1", "failed(E1)"])
        #expect(run([.value(1), .interrupted]) { $0.take(until: { _ in true }) } == ["v1", "interrupted"])
    }

    @Test("take(until:) is take(while:) plus the value that ended it")
    func takeUntilPredicateIsTakeWhilePlusLast() {
        for cut in 0...5 {
            let sent: [Signal<Int, TestError>.Event] = (0..<5).map { .value($0) } + [.completed]
            let whileLog = run(sent) { $0.take(while: { $0 < cut }) }
            let untilLog = run(sent) { $0.take(until: { $0 < cut }) }
            let expected = cut < 5
                ? Array(whileLog.dropLast()) + ["v\(cut)", "completed"]
                : whileLog
            #expect(untilLog == expected, "cut=\(cut)")
        }
    }

    @Test("take(until:) sends the value before asking the predicate, as ReactiveSwift does")
    func takeUntilPredicateOrder() {
        let (signal, input) = Signal<Int, Never>.pipe()
        let log = Recorder<String>()
        signal
            .take(until: { value in log.append("asked \(value)"); return value < 2 })
            .observe { log.append(describe($0)) }
        input.send(value: 1)
        input.send(value: 2)
        #expect(log.items == ["v1", "asked 1", "v2", "asked 2", "completed"])
    }

    @Test("take(during:) completes when the lifetime ends and stops observing upstream")
    func takeDuring() {
        let (signal, input) = Signal<Int, TestError>.pipe()
        let probe = UpstreamProbe()
        let (lifetime, token) = Lifetime.make()
        let log = Recorder<String>()
        probe.wrap(signal).take(during: lifetime).observe { log.append(describe($0)) }
        input.send(value: 1)
        #expect(probe.isObserved)
        token.dispose()
        #expect(log.items == ["v1", "completed"])
        #expect(!probe.isObserved)
        input.send(value: 2)
        #expect(probe.reached.count == 1)
        #expect(log.items == ["v1", "completed"])
    }

    @Test("take(during:) of an ended lifetime has completed already")
    func takeDuringEnded() {
        let (signal, _) = Signal<Int, TestError>.pipe()
        let probe = UpstreamProbe()
        let (lifetime, token) = Lifetime.make()
        token.dispose()
        let log = Recorder<String>()
        probe.wrap(signal).take(during: lifetime).observe { log.append(describe($0)) }
        #expect(log.items == ["interrupted"])
        #expect(!probe.isObserved)
    }

    @Test("take(during: .empty) has completed already: Lifetime.empty has ended")
    func takeDuringEmpty() {
        let (signal, input) = Signal<Int, TestError>.pipe()
        let probe = UpstreamProbe()
        let log = Recorder<String>()
        probe.wrap(signal).take(during: .empty).observe { log.append(describe($0)) }
        input.send(value: 1)
        #expect(log.items == ["interrupted"])
        #expect(!probe.isObserved)
        #expect(probe.reached.count == 0)
    }

    @Test("take(during:) forwards upstream's terminal events")
    func takeDuringTerminals() {
        let (lifetime, token) = Lifetime.make()
        #expect(run([.value(1), .completed]) { $0.take(during: lifetime) } == ["v1", "completed"])
        #expect(run([.value(1), .failed(e1)]) { $0.take(during: lifetime) } == ["v1", "failed(E1)"])
        #expect(run([.value(1), .interrupted]) { $0.take(during: lifetime) } == ["v1", "interrupted"])

        // The lifetime ending after upstream completed adds nothing.
        let (signal, input) = Signal<Int, TestError>.pipe()
        let log = Recorder<String>()
        signal.take(during: lifetime).observe { log.append(describe($0)) }
        input.send(value: 1)
        input.sendCompleted()
        token.dispose()
        #expect(log.items == ["v1", "completed"])
    }
}
