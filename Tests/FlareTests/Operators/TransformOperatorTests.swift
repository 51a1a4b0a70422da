import Flare
import Testing

@Suite("Transform operators")
struct TransformOperatorTests {
    @Test("skipNil unwraps non-nil values, drops nils, forwards each terminal")
    func skipNil() {
        #expect(run([.value(1), .value(nil), .value(3), .completed]) { (s: Signal<Int?, TestError>) in s.skipNil() }
            == ["v1", "v3", "completed"])
        #expect(run([.value(nil), .value(2), .failed(e1)]) { (s: Signal<Int?, TestError>) in s.skipNil() }
            == ["v2", "failed(E1)"])
        #expect(run([.value(2), .interrupted]) { (s: Signal<Int?, TestError>) in s.skipNil() }
            == ["v2", "interrupted"])
    }

    @Test("promoteError changes the error type only")
    func promoteError() {
        let promoted = runNever([.value(1), .value(2), .completed]) { $0.promoteError(TestError.self) }
        #expect(promoted == ["v1", "v2", "completed"])
        #expect(runNever([.value(1), .interrupted]) { $0.promoteError(TestError.self) } == ["v1", "interrupted"])
        // Type context alone picks the generic form.
        let (signal, _) = Signal<Int, Never>.pipe()
        let typed: Signal<Int, TestError> = signal.promoteError()
        _ = typed
        // Without context, the identity overload returns the very same signal.
        #expect(signal.promoteError() === signal)
    }

    @Test("promoteValue changes the value type only")
    func promoteValue() {
        #expect(run([Signal<Never, TestError>.Event.completed]) { $0.promoteValue(Int.self) } == ["completed"])
        #expect(run([Signal<Never, TestError>.Event.failed(e1)]) { $0.promoteValue(Int.self) } == ["failed(E1)"])
        #expect(run([Signal<Never, TestError>.Event.interrupted]) { $0.promoteValue(Int.self) } == ["interrupted"])
        let (signal, _) = Signal<Never, TestError>.pipe()
        #expect(signal.promoteValue() === signal)
    }

    @Test("negate sends the logical NOT of each value")
    func negate() {
        #expect(run([.value(true), .value(false), .completed]) { $0.negate() } == ["vfalse", "vtrue", "completed"])
        #expect(run([.value(true), .failed(e1)]) { $0.negate() } == ["vfalse", "failed(E1)"])
        #expect(run([.value(false), .interrupted]) { $0.negate() } == ["vtrue", "interrupted"])
    }

    @Test("attempt forwards values until the action fails, then fails and stops observing upstream")
    func attempt() {
        let (signal, input) = Signal<Int, TestError>.pipe()
        let probe = UpstreamProbe()
        let calls = Counter()
        let log = Recorder<String>()
        probe.wrap(signal).attempt { value -> Result<(), TestError> in
            calls.increment()
            return value < 3 ? .success(()) : .failure(TestError(code: value))
        }.observe { log.append(describe($0)) }
        input.send(value: 1)
        input.send(value: 2)
        #expect(probe.isObserved)
        input.send(value: 3)
        #expect(log.items == ["v1", "v2", "failed(E3)"])
        #expect(!probe.isObserved)
        input.send(value: 1)
        #expect(probe.reached.count == 3)
        #expect(calls.count == 3)
        #expect(log.items == ["v1", "v2", "failed(E3)"])
        // Upstream's own terminal events pass through.
        #expect(run([.value(1), .completed]) { $0.attempt { _ in .success(()) } } == ["v1", "completed"])
        #expect(run([.value(1), .failed(e1)]) { $0.attempt { _ in .success(()) } } == ["v1", "failed(E1)"])
        #expect(run([.value(1), .interrupted]) { $0.attempt { _ in .success(()) } } == ["v1", "interrupted"])
    }

    @Test("attemptMap sends successes, fails on the first failure and stops observing upstream")
    func attemptMap() {
        let (signal, input) = Signal<Int, TestError>.pipe()
        let probe = UpstreamProbe()
        let log = Recorder<String>()
        probe.wrap(signal).attemptMap { value -> Result<String, TestError> in
            value > 0 ? .success("n\(value)") : .failure(TestError(code: 9))
        }.observe { log.append(describe($0)) }
        input.send(value: 1)
        input.send(value: 0)
        #expect(!probe.isObserved)
        input.send(value: 2)
        #expect(log.items == ["vn1", "failed(E9)"])
        #expect(run([.value(1), .completed]) { $0.attemptMap { .success($0 * 2) } } == ["v2", "completed"])
        #expect(run([.value(1), .failed(e1)]) { $0.attemptMap { .success($0 * 2) } } == ["v2", "failed(E1)"])
        #expect(run([.value(1), .interrupted]) { $0.attemptMap { .success($0 * 2) } } == ["v2", "interrupted"])
    }

    @Test("throwing attempt and attemptMap, from Never and from any Error")
    func throwingAttempt() {
        let (signal, input) = Signal<Int, Never>.pipe()
        let log = Recorder<String>()
        let probe = UpstreamProbe()
        let attempted: Signal<Int, any Error> = probe.wrap(signal).attempt { value in
            if value == 2 { throw TestError(code: 2) }
        }
        attempted.observe { log.append(describe($0)) }
        let mapped: Signal<String, any Error> = signal.attemptMap { value in
            if value == 3 { throw TestError(code: 3) }
            return "s\(value)"
        }
        let mappedLog = Recorder<String>()
        mapped.observe { mappedLog.append(describe($0)) }
        input.send(value: 1)
        input.send(value: 2)
        input.send(value: 3)
        input.send(value: 4)
        #expect(log.items == ["v1", "failed(E2)"])
        #expect(!probe.isObserved)
        #expect(mappedLog.items == ["vs1", "vs2", "failed(E3)"])

        let (anySignal, anyInput) = Signal<Int, any Error>.pipe()
        let anyLog = Recorder<String>()
        anySignal.attemptMap { value -> Int in
            if value < 0 { throw TestError(code: value) }
            return value + 100
        }.observe { anyLog.append(describe($0)) }
        anyInput.send(value: 1)
        anyInput.send(value: -4)
        #expect(anyLog.items == ["v101", "failed(E-4)"])
    }

    @Test("on runs event, kind, terminated, then delivers; disposed once the signal ends")
    func onOrder() {
        for (terminal, name) in [(Signal<Int, TestError>.Event.completed, "completed"),
                                 (.failed(e1), "failed E1"), (.interrupted, "interrupted")] {
            let (signal, input) = Signal<Int, TestError>.pipe()
            let log = Recorder<String>()
            signal.on(
                event: { log.append("event \(describe($0))") },
                failed: { log.append("failed \($0)") },
                completed: { log.append("completed") },
                interrupted: { log.append("interrupted") },
                terminated: { log.append("terminated") },
                disposed: { log.append("disposed") },
                value: { log.append("value \($0)") }
            ).observe { log.append("down \(describe($0))") }
            input.send(value: 1)
            input.send(terminal)
            input.send(value: 2)
            let terminalDescription = describe(terminal)
            #expect(log.items == [
                "event v1", "value 1", "down v1",
                "event \(terminalDescription)", name, "terminated", "down \(terminalDescription)",
                "disposed",
            ])
        }
    }

    @Test("on(disposed:) runs when the last observer leaves, and the upstream observation goes")
    func onDisposedByObserver() {
        let (signal, input) = Signal<Int, Never>.pipe()
        let probe = UpstreamProbe()
        let disposed = Counter()
        let values = Counter()
        let disposable = probe.wrap(signal).on(disposed: { disposed.increment() }, value: { _ in values.increment() })
            .observeValues { _ in }
        input.send(value: 1)
        #expect(disposed.count == 0)
        #expect(probe.isObserved)
        disposable?.dispose()
        #expect(disposed.count == 1)
        #expect(!probe.isObserved)
        input.send(value: 2)
        #expect(values.count == 1)
        #expect(disposed.count == 1)
    }

    @Test("logEvents reports the chosen events with identifier and call site")
    func logEvents() {
        let (signal, input) = Signal<Int, TestError>.pipe()
        let lines = Recorder<String>()
        let sites = Recorder<String>()
        let line = #line + 1
        signal.logEvents(identifier: "nums") { identifier, event, fileName, functionName, lineNumber in
            lines.append("[\(identifier)] \(event)")
            sites.append("\(fileName.hasSuffix("TransformOperatorTests.swift")) \(functionName) \(lineNumber == line)")
        }.observe { _ in }
        input.send(value: 1)
        input.send(error: TestError(code: 5))
        #expect(lines.items == ["[nums] value 1", "[nums] failed E5", "[nums] terminated", "[nums] disposed"])
        #expect(Set(sites.items) == ["true logEvents() true"])

        let (other, otherInput) = Signal<Int, TestError>.pipe()
        let chosen = Recorder<String>()
        other.logEvents(events: [.value, .completed]) { _, event, _, _, _ in chosen.append(event) }
            .observe { _ in }
        otherInput.send(value: 7)
        otherInput.sendCompleted()
        #expect(chosen.items == ["value 7", "completed"])

        let (third, thirdInput) = Signal<Int, TestError>.pipe()
        let interrupted = Recorder<String>()
        third.logEvents(events: [.interrupted]) { _, event, _, _, _ in interrupted.append(event) }.observe { _ in }
        thirdInput.send(value: 1)
        thirdInput.sendInterrupted()
        #expect(interrupted.items == ["interrupted"])
    }

    @Test("logEvents on a producer also reports each start: starting, then started")
    func logEventsOnAProducer() {
        let (signal, input) = Signal<Int, TestError>.pipe()
        let lines = Recorder<String>()
        let producer = SignalProducer(signal)
            .on(starting: { lines.append("handler about to run") }, started: { lines.append("handler returned") })
            .logEvents { identifier, event, _, _, _ in lines.append("[\(identifier)] \(event)") }
        producer.start()
        input.send(value: 1)
        input.sendCompleted()
        #expect(lines.items == [
            "[] starting", "handler about to run", "handler returned", "[] started",
            "[] value 1", "[] completed", "[] terminated", "[] disposed",
        ])

        let chosen = Recorder<String>()
        SignalProducer<Int, TestError>(value: 2)
            .logEvents(identifier: "two", events: [.started, .value]) { identifier, event, _, _, _ in
                chosen.append("[\(identifier)] \(event)")
            }
            .start()
        #expect(chosen.items == ["[two] value 2", "[two] started"])
    }

    @Test("a disposed producer run: logEvents reports the interruption before the observer receives it, then disposed, as ReactiveSwift")
    func logEventsOfADisposedRun() {
        let (signal, input) = Signal<Int, TestError>.pipe()
        let lines = Recorder<String>()
        let run = SignalProducer(signal)
            .logEvents(identifier: "L") { identifier, event, _, _, _ in lines.append("[\(identifier)] \(event)") }
            .start { lines.append("observer \(describe($0))") }
        input.send(value: 1)
        run.dispose()
        // ReactiveSwift 7.2.1's log: the interruption travels from the
        // source through the logging step to the observer.
        #expect(lines.items == [
            "[L] starting", "[L] started", "[L] value 1", "observer v1",
            "[L] interrupted", "[L] terminated", "observer interrupted", "[L] disposed",
        ])
        withExtendedLifetime(input) {}
    }

    @Test("an input that zip stops observing is interrupted: its hooks hear interrupted and terminated, then disposed (a deliberate difference)")
    func detachedInputHooks() {
        let (signal, input) = Signal<Int, TestError>.pipe()
        let lines = Recorder<String>()
        let hooked = SignalProducer(signal).on(
            interrupted: { lines.append("interrupted") }, terminated: { lines.append("terminated") },
            disposed: { lines.append("disposed") })
        SignalProducer.zip(SignalProducer<Int, TestError>.empty, hooked).start { lines.append("output \(describe($0))") }
        // ReactiveSwift 7.2.1 logs "output completed", "disposed": it
        // detaches the hooks without an event (docs/Differences.md).
        #expect(lines.items == ["output completed", "interrupted", "terminated", "disposed"])
        withExtendedLifetime(input) {}
    }

    @Test("logEvents reports a Void value as \"value\", with no payload, as ReactiveSwift's EventLogger does")
    func logEventsOfVoid() {
        func logged<V>(_ type: V.Type, _ send: (Signal<V, TestError>.Observer) -> Void) -> [String] {
            let (signal, input) = Signal<V, TestError>.pipe()
            let lines = Recorder<String>()
            signal.logEvents(identifier: "s") { identifier, event, _, _, _ in lines.append("[\(identifier)] \(event)") }
                .observe { _ in }
            send(input)
            return lines.items
        }
        // ReactiveSwift 7.2.1 logs these lines: a value that is `()` (also
        // in an `Any`, or an `Optional` holding it) has no payload; a
        // failure, `nil`, and a tuple of voids keep theirs.
        #expect(logged(Void.self) { $0.send(value: ()); $0.sendCompleted() }
            == ["[s] value", "[s] completed", "[s] terminated", "[s] disposed"])
        #expect(logged(Void?.self) { $0.send(value: ()); $0.send(value: nil) } == ["[s] value", "[s] value nil"])
        #expect(logged(Any.self) { $0.send(value: ()); $0.send(value: 3) } == ["[s] value", "[s] value 3"])
        typealias VoidPair = ((), ())
        #expect(logged(VoidPair.self) { $0.send(value: ((), ())) } == ["[s] value ((), ())"])
        #expect(logged(Int.self) { $0.send(value: 1); $0.send(error: TestError(code: 2)) }
            == ["[s] value 1", "[s] failed E2", "[s] terminated", "[s] disposed"])

        let lines = Recorder<String>()
        SignalProducer<Void, Never>(value: ())
            .logEvents(identifier: "p") { identifier, event, _, _, _ in lines.append("[\(identifier)] \(event)") }
            .start()
        #expect(lines.items == ["[p] starting", "[p] value", "[p] completed", "[p] terminated", "[p] disposed", "[p] started"])
    }
}

@Suite("map: a trailing closure over a tuple's elements")
struct MapTrailingClosureTests {
    // ReactiveSwift 7.2.1 (checked with a probe built against rs-src)
    // matches such a closure to `map(value:)` too: `{ a, b in a + b }` is
    // ambiguous there, and `{ (a: Int, b: Int) in a + b }`, `{ a, b -> Int
    // in a + b }` and `{ a, b in "\(a)\(b)" }` make a signal of closures.
    // Flare disfavors `map(value:)`: each is the transform.

    @Test("on a signal, a producer and a property, the closure is the transform; map(value:) takes a closure by its label")
    func transformNotConstant() {
        let (pairs, input) = Signal<(Int, Int), Never>.pipe()
        let sums: Signal<Int, Never> = pairs.map { a, b in a + b }
        let typed = pairs.map { (a: Int, b: Int) in a * b }
        let returning = pairs.map { a, b -> Int in a - b }
        let text = pairs.map { a, b in "\(a)\(b)" }
        let constant = pairs.map(value: { (a: Int, b: Int) in a + b })
        let log = Recorder<String>()
        sums.observeValues { log.append("sum \($0)") }
        typed.observeValues { log.append("product \($0)") }
        returning.observeValues { log.append("difference \($0)") }
        text.observeValues { log.append("text \($0)") }
        constant.observeValues { log.append("constant \($0(1, 1))") }
        input.send(value: (3, 2))
        #expect(log.items == ["sum 5", "product 6", "difference 1", "text 32", "constant 2"])

        let producer = SignalProducer<(Int, Int), Never>(value: (3, 2)).map { (a: Int, b: Int) in a + b }
        let property = Property(value: (3, 2)).map { (a: Int, b: Int) in a + b }
        #expect(producer.first()?.get() == 5)
        #expect(property.value == 5)
    }
}
