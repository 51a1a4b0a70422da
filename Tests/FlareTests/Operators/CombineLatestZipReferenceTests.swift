import Flare
import FlareTestSupport
import Foundation
import Testing

/// One random script: sends into the inputs of a multi-input operator.
private typealias Script = [(input: Int, event: Signal<Int, TestError>.Event)]

/// A multi-input operator over `Int` inputs, its values as lists.
private typealias Make = ([Signal<Int, TestError>]) -> Signal<[Int], TestError>

/// `combineLatest` and `zip` run on one engine per operator for every arity
/// and form. These tests play random scripts (values, completions,
/// failures, interruptions, events sent after an input ended) into every
/// form and compare what it delivers with references: at two inputs, the
/// two-input implementations the library had before the engine
/// (`MultiInputReference.swift`); at N inputs, for `combineLatest` a
/// right-nested tree of them, for `zip` (which does not nest: see
/// `ReferenceNested`) the N-input implementation it had before. The
/// references are checked against each other where they must agree.
///
/// Seeded and reproducible: a failure reports its seed, `FLARE_SEED=n`
/// replays from it, `FLARE_SOAK=n` multiplies the number of scripts.
@Suite("combineLatest and zip at every arity against reference models")
struct CombineLatestZipReferenceTests {
    private static let environment = ProcessInfo.processInfo.environment
    private static let soak = Int(environment["FLARE_SOAK"] ?? "") ?? 1
    private static let baseSeed = UInt64(environment["FLARE_SEED"] ?? "")
        ?? UInt64.random(in: 1...UInt64(UInt32.max))

    /// A script over `inputs` inputs: mostly values (each different, so
    /// that order and pairing are visible), some completions, few failures
    /// and interruptions, and events sent into inputs that have ended.
    private static func script(inputs: Int, seed: UInt64) -> Script {
        var rng = SeededGenerator(seed: seed)
        let length = Int.random(in: 0...(12 * inputs), using: &rng)
        return (0..<length).map { step in
            let input = Int.random(in: 0..<inputs, using: &rng)
            let roll = Int.random(in: 0..<100, using: &rng)
            let event: Signal<Int, TestError>.Event
            switch roll {
            case ..<82: event = .value(step + 1)
            case ..<94: event = .completed
            case ..<97: event = .failed(TestError(code: step + 1))
            default: event = .interrupted
            }
            return (input, event)
        }
    }

    /// Plays `script` into fresh pipes through `make` and returns what one
    /// observer of the output saw.
    private static func play(_ script: Script, inputs: Int, _ make: Make) -> [String] {
        let pipes = (0..<inputs).map { _ in Signal<Int, TestError>.pipe() }
        let log = Recorder<String>()
        make(pipes.map(\.output)).observe { log.append(text($0)) }
        for step in script { pipes[step.input].input.send(step.event) }
        // Read before the pipes go: releasing a pipe's input interrupts it
        // (and an optimized build may release them right after their last
        // use).
        return withExtendedLifetime(pipes) { log.items }
    }

    private static func text(_ event: Signal<[Int], TestError>.Event) -> String {
        describe(event.map { "(\($0.map(String.init).joined(separator: ", ")))" })
    }

    /// The references at two inputs, fed each input's events until that
    /// input's terminal event, as a pipe forwards them.
    private static func reference(_ op: ReferenceOperator, _ script: Script) -> [String] {
        var ended = [false, false]
        var combine = ReferenceCombineLatest<Int, Int, TestError>()
        var zip = ReferenceZip<Int, Int, TestError>()
        for step in script where !ended[step.input] {
            if step.event.isTerminating { ended[step.input] = true }
            let tag: ReferencePair<Signal<Int, TestError>.Event, Signal<Int, TestError>.Event> =
                step.input == 0 ? .first(step.event) : .second(step.event)
            if op == .combineLatest { combine.handle(tag) } else { zip.handle(tag) }
        }
        let events = op == .combineLatest ? combine.output.events : zip.output.events
        return events.map { text($0.map { [$0.0, $0.1] }) }
    }

    /// The right-nested tree of references at `inputs` inputs.
    private static func nested(_ op: ReferenceOperator, inputs: Int, _ script: Script) -> [String] {
        var model = ReferenceNested(op, inputs: inputs)
        for step in script { model.send(step.event, toInput: step.input) }
        return model.output.events.map(text)
    }

    /// The N-input sequence implementations from before the engine.
    private static func flat(_ op: ReferenceOperator, inputs: Int, _ script: Script) -> [String] {
        var ended = Array(repeating: false, count: inputs)
        var combine = ReferenceCombineLatestN<Int, TestError>(inputs: inputs)
        var zip = ReferenceZipN<Int, TestError>(inputs: inputs)
        for step in script where !ended[step.input] {
            if step.event.isTerminating { ended[step.input] = true }
            if op == .combineLatest { combine.handle(index: step.input, step.event) } else { zip.handle(index: step.input, step.event) }
        }
        return (op == .combineLatest ? combine.output.events : zip.output.events).map(text)
    }

    /// What `op` of `inputs` inputs must deliver for `script`.
    private static func expected(_ op: ReferenceOperator, inputs: Int, _ script: Script) -> [String] {
        op == .combineLatest ? nested(op, inputs: inputs, script) : flat(op, inputs: inputs, script)
    }

    /// Every form of `op` with two inputs.
    private static func binaryForms(_ op: ReferenceOperator) -> [(name: String, make: Make)] {
        switch op {
        case .combineLatest:
            return [
                ("combineLatest(with:)", { s in s[0].combineLatest(with: s[1]).map { [$0.0, $0.1] } }),
                ("Signal.combineLatest(_:_:)", { s in Signal.combineLatest(s[0], s[1]).map { [$0.0, $0.1] } }),
                ("Signal.combineLatest([_])", { s in Signal.combineLatest(s) }),
                ("producer combineLatest(with:)", { s in
                    started(SignalProducer(s[0]).combineLatest(with: SignalProducer(s[1])).map { [$0.0, $0.1] })
                }),
                ("SignalProducer.combineLatest(_:_:)", { s in
                    started(SignalProducer.combineLatest(SignalProducer(s[0]), SignalProducer(s[1])).map { [$0.0, $0.1] })
                }),
            ]
        case .zip:
            return [
                ("zip(with:)", { s in s[0].zip(with: s[1]).map { [$0.0, $0.1] } }),
                ("Signal.zip(_:_:)", { s in Signal.zip(s[0], s[1]).map { [$0.0, $0.1] } }),
                ("Signal.zip([_])", { s in Signal.zip(s) }),
                ("producer zip(with:)", { s in
                    started(SignalProducer(s[0]).zip(with: SignalProducer(s[1])).map { [$0.0, $0.1] })
                }),
                ("SignalProducer.zip(_:_:)", { s in
                    started(SignalProducer.zip(SignalProducer(s[0]), SignalProducer(s[1])).map { [$0.0, $0.1] })
                }),
            ]
        }
    }

    /// The signal of one run of `producer`.
    private static func started(_ producer: SignalProducer<[Int], TestError>) -> Signal<[Int], TestError> {
        var signal: Signal<[Int], TestError>!
        producer.startWithSignal { run, _ in signal = run }
        return signal
    }

    /// The static form of `op` with `inputs` (3 to 10) signals.
    private static func staticSignalForm(_ op: ReferenceOperator, inputs: Int) -> Make {
        switch (inputs, op) {
        case (3, .combineLatest): return { s in Signal.combineLatest(s[0], s[1], s[2]).map { [$0.0, $0.1, $0.2] } }
        case (3, .zip): return { s in Signal.zip(s[0], s[1], s[2]).map { [$0.0, $0.1, $0.2] } }
        case (4, .combineLatest): return { s in Signal.combineLatest(s[0], s[1], s[2], s[3]).map { [$0.0, $0.1, $0.2, $0.3] } }
        case (4, .zip): return { s in Signal.zip(s[0], s[1], s[2], s[3]).map { [$0.0, $0.1, $0.2, $0.3] } }
        case (5, .combineLatest): return { s in Signal.combineLatest(s[0], s[1], s[2], s[3], s[4]).map { [$0.0, $0.1, $0.2, $0.3, $0.4] } }
        case (5, .zip): return { s in Signal.zip(s[0], s[1], s[2], s[3], s[4]).map { [$0.0, $0.1, $0.2, $0.3, $0.4] } }
        case (6, .combineLatest): return { s in Signal.combineLatest(s[0], s[1], s[2], s[3], s[4], s[5]).map { [$0.0, $0.1, $0.2, $0.3, $0.4, $0.5] } }
        case (6, .zip): return { s in Signal.zip(s[0], s[1], s[2], s[3], s[4], s[5]).map { [$0.0, $0.1, $0.2, $0.3, $0.4, $0.5] } }
        case (7, .combineLatest): return { s in Signal.combineLatest(s[0], s[1], s[2], s[3], s[4], s[5], s[6]).map { [$0.0, $0.1, $0.2, $0.3, $0.4, $0.5, $0.6] } }
        case (7, .zip): return { s in Signal.zip(s[0], s[1], s[2], s[3], s[4], s[5], s[6]).map { [$0.0, $0.1, $0.2, $0.3, $0.4, $0.5, $0.6] } }
        case (8, .combineLatest): return { s in Signal.combineLatest(s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]).map { [$0.0, $0.1, $0.2, $0.3, $0.4, $0.5, $0.6, $0.7] } }
        case (8, .zip): return { s in Signal.zip(s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]).map { [$0.0, $0.1, $0.2, $0.3, $0.4, $0.5, $0.6, $0.7] } }
        case (9, .combineLatest): return { s in Signal.combineLatest(s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8]).map { [$0.0, $0.1, $0.2, $0.3, $0.4, $0.5, $0.6, $0.7, $0.8] } }
        case (9, .zip): return { s in Signal.zip(s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8]).map { [$0.0, $0.1, $0.2, $0.3, $0.4, $0.5, $0.6, $0.7, $0.8] } }
        case (10, .combineLatest): return { s in Signal.combineLatest(s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8], s[9]).map { [$0.0, $0.1, $0.2, $0.3, $0.4, $0.5, $0.6, $0.7, $0.8, $0.9] } }
        case (10, .zip): return { s in Signal.zip(s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8], s[9]).map { [$0.0, $0.1, $0.2, $0.3, $0.4, $0.5, $0.6, $0.7, $0.8, $0.9] } }
        default: preconditionFailure("no static form with \(inputs) inputs")
        }
    }

    /// The static producer form of `op` with `inputs` (3 to 10) producers.
    private static func staticProducerForm(_ op: ReferenceOperator, inputs: Int) -> Make {
        let form: ([SignalProducer<Int, TestError>]) -> SignalProducer<[Int], TestError>
        switch (inputs, op) {
        case (3, .combineLatest): form = { p in SignalProducer.combineLatest(p[0], p[1], p[2]).map { [$0.0, $0.1, $0.2] } }
        case (3, .zip): form = { p in SignalProducer.zip(p[0], p[1], p[2]).map { [$0.0, $0.1, $0.2] } }
        case (4, .combineLatest): form = { p in SignalProducer.combineLatest(p[0], p[1], p[2], p[3]).map { [$0.0, $0.1, $0.2, $0.3] } }
        case (4, .zip): form = { p in SignalProducer.zip(p[0], p[1], p[2], p[3]).map { [$0.0, $0.1, $0.2, $0.3] } }
        case (5, .combineLatest): form = { p in SignalProducer.combineLatest(p[0], p[1], p[2], p[3], p[4]).map { [$0.0, $0.1, $0.2, $0.3, $0.4] } }
        case (5, .zip): form = { p in SignalProducer.zip(p[0], p[1], p[2], p[3], p[4]).map { [$0.0, $0.1, $0.2, $0.3, $0.4] } }
        case (6, .combineLatest): form = { p in SignalProducer.combineLatest(p[0], p[1], p[2], p[3], p[4], p[5]).map { [$0.0, $0.1, $0.2, $0.3, $0.4, $0.5] } }
        case (6, .zip): form = { p in SignalProducer.zip(p[0], p[1], p[2], p[3], p[4], p[5]).map { [$0.0, $0.1, $0.2, $0.3, $0.4, $0.5] } }
        case (7, .combineLatest): form = { p in SignalProducer.combineLatest(p[0], p[1], p[2], p[3], p[4], p[5], p[6]).map { [$0.0, $0.1, $0.2, $0.3, $0.4, $0.5, $0.6] } }
        case (7, .zip): form = { p in SignalProducer.zip(p[0], p[1], p[2], p[3], p[4], p[5], p[6]).map { [$0.0, $0.1, $0.2, $0.3, $0.4, $0.5, $0.6] } }
        case (8, .combineLatest): form = { p in SignalProducer.combineLatest(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7]).map { [$0.0, $0.1, $0.2, $0.3, $0.4, $0.5, $0.6, $0.7] } }
        case (8, .zip): form = { p in SignalProducer.zip(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7]).map { [$0.0, $0.1, $0.2, $0.3, $0.4, $0.5, $0.6, $0.7] } }
        case (9, .combineLatest): form = { p in SignalProducer.combineLatest(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8]).map { [$0.0, $0.1, $0.2, $0.3, $0.4, $0.5, $0.6, $0.7, $0.8] } }
        case (9, .zip): form = { p in SignalProducer.zip(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8]).map { [$0.0, $0.1, $0.2, $0.3, $0.4, $0.5, $0.6, $0.7, $0.8] } }
        case (10, .combineLatest): form = { p in SignalProducer.combineLatest(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9]).map { [$0.0, $0.1, $0.2, $0.3, $0.4, $0.5, $0.6, $0.7, $0.8, $0.9] } }
        case (10, .zip): form = { p in SignalProducer.zip(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9]).map { [$0.0, $0.1, $0.2, $0.3, $0.4, $0.5, $0.6, $0.7, $0.8, $0.9] } }
        default: preconditionFailure("no static form with \(inputs) inputs")
        }
        return { signals in started(form(signals.map { SignalProducer($0) })) }
    }

    /// Runs `scripts` random scripts over `inputs` inputs: `expected` and
    /// every form must agree on each. Stops at the first disagreement.
    private static func compare(
        _ label: String, inputs: Int, scripts: Int, salt: UInt64,
        expected: (Script) -> [String], forms: [(name: String, make: Make)]
    ) {
        for round in 0..<(scripts * soak) {
            let seed = baseSeed &+ salt &* 1_000_003 &+ UInt64(round)
            let script = script(inputs: inputs, seed: seed)
            let wanted = expected(script)
            for form in forms {
                let got = play(script, inputs: inputs, form.make)
                #expect(got == wanted, "\(label), \(form.name), seed \(seed): script \(script.map { "\($0.input):\(describe($0.event))" })")
                if got != wanted { return }
            }
        }
    }

    @Test("two inputs: every form of combineLatest and zip matches the old two-input implementation", arguments: ReferenceOperator.allCases)
    func twoInputs(_ op: ReferenceOperator) {
        Self.compare("\(op) x2", inputs: 2, scripts: 1_500, salt: op == .combineLatest ? 1 : 2,
                     expected: { Self.reference(op, $0) }, forms: Self.binaryForms(op))
    }

    @Test("the references agree: two-input, N-input and nested at two inputs; N-input and nested combineLatest at 3 to 10",
          arguments: ReferenceOperator.allCases)
    func referencesAgree(_ op: ReferenceOperator) {
        for round in 0..<(500 * Self.soak) {
            let seed = Self.baseSeed &+ UInt64(round)
            let script = Self.script(inputs: 2, seed: seed)
            let old = Self.reference(op, script)
            #expect(Self.nested(op, inputs: 2, script) == old, "\(op), seed \(seed)")
            #expect(Self.flat(op, inputs: 2, script) == old, "\(op), seed \(seed)")
        }
        guard op == .combineLatest else { return }
        for inputs in 3...10 {
            for round in 0..<(100 * Self.soak) {
                let seed = Self.baseSeed &+ UInt64(inputs * 1_000 + round)
                let script = Self.script(inputs: inputs, seed: seed)
                #expect(Self.nested(op, inputs: inputs, script) == Self.flat(op, inputs: inputs, script),
                        "\(op) x\(inputs), seed \(seed)")
            }
        }
    }

    @Test("3 to 10 inputs: the static forms on signals and producers match the N-input reference", arguments: ReferenceOperator.allCases)
    func staticArities(_ op: ReferenceOperator) {
        for inputs in 3...10 {
            Self.compare("\(op) x\(inputs)", inputs: inputs, scripts: 150, salt: UInt64(inputs * 2 + (op == .zip ? 1 : 0)),
                         expected: { Self.expected(op, inputs: inputs, $0) },
                         forms: [("Signal.\(op)", Self.staticSignalForm(op, inputs: inputs)),
                                 ("SignalProducer.\(op)", Self.staticProducerForm(op, inputs: inputs))])
        }
    }

    @Test("2 to 12 inputs: the sequence forms match the N-input reference", arguments: ReferenceOperator.allCases)
    func sequences(_ op: ReferenceOperator) {
        for inputs in 2...12 {
            let signalForm: Make = op == .combineLatest ? { Signal.combineLatest($0) } : { Signal.zip($0) }
            let producerForm: Make = { signals in
                let producers = signals.map { SignalProducer($0) }
                return Self.started(op == .combineLatest ? SignalProducer.combineLatest(producers) : SignalProducer.zip(producers))
            }
            Self.compare("\(op) [x\(inputs)]", inputs: inputs, scripts: 150, salt: UInt64(100 + inputs * 2 + (op == .zip ? 1 : 0)),
                         expected: { Self.expected(op, inputs: inputs, $0) },
                         forms: [("Signal.\(op)([_])", signalForm), ("SignalProducer.\(op)([_])", producerForm)])
        }
    }
}
