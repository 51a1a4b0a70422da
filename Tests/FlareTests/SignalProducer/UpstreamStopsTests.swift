import Flare
import Foundation
import FlareTestSupport
import Synchronization
import Testing

/// The producer contract "an ended output stops its upstream": when a run's
/// output terminates for a reason other than its upstream's own event (an
/// operator's other input, a lifetime, a flatten strategy, a downstream
/// `take`), the upstream runs it started are interrupted before the next
/// element is pulled. Each case wraps an infinite synchronous upstream
/// (`SignalProducer(sequence(first: 0) { $0 + 1 })`, counting what it
/// pulls) in the operator, and ends the output after `endAfter` values:
/// on the delivering thread, from inside the value's delivery, where
/// ReactiveSwift stops after exactly `endAfter` elements pulled; and, where
/// the end is an input of its own, from another thread while the run
/// delivers, where at most one element is pulled after the end returned and
/// the thread that started the run returns.
@Suite("Producers: an ended output stops its synchronous upstream", .serialized)
struct UpstreamStopsTests {
    static let endAfter = 100

    @Test("ended on the delivering thread, the upstream pulls nothing more", arguments: StopCase.all)
    func sameThread(_ stopCase: StopCase) {
        let upstream = CountingUpstream()
        let trigger = EndTrigger()
        let produced = stopCase.make(upstream.producer.promoteError(StopCase.Failure.self), trigger)
        let values = Locked<[Int]>([])
        let terminal = Locked<String?>(nil)
        let run = produced.start { event in
            switch event {
            case let .value(value):
                let count = values.withLock { $0.append(value); return $0.count }
                if count == Self.endAfter { trigger.fire() }
            case .completed: terminal.withLock { $0 = "completed" }
            case .failed: terminal.withLock { $0 = "failed" }
            case .interrupted: terminal.withLock { $0 = "interrupted" }
            }
        }
        #expect(upstream.pulled == Self.endAfter, "\(stopCase.name): \(upstream.pulled) elements pulled")
        let seen = values.withLock { $0 }
        #expect(Array(seen.prefix(Self.endAfter)) == Array(0..<Self.endAfter), "\(stopCase.name)")
        #expect(Array(seen.dropFirst(Self.endAfter)) == stopCase.after, "\(stopCase.name)")
        #expect(terminal.withLock { $0 } == stopCase.terminal, "\(stopCase.name)")
        run.dispose()
    }

    @Test("ended from another thread, the starting thread returns", arguments: StopCase.all.filter(\.crossThread))
    func otherThread(_ stopCase: StopCase) {
        let upstream = CountingUpstream()
        let trigger = EndTrigger()
        let produced = stopCase.make(upstream.producer.promoteError(StopCase.Failure.self), trigger)
        let reached = DispatchSemaphore(value: 0)
        let returned = Atomic<Bool>(false)
        let thread = Thread {
            var count = 0
            produced.startWithResult { result in
                guard case .success = result else { return }
                count += 1
                if count == Self.endAfter { reached.signal() }
            }
            returned.store(true, ordering: .releasing)
        }
        thread.start()
        guard reached.wait(timeout: .now() + patience) == .success else {
            upstream.stop()
            Issue.record("\(stopCase.name): \(Self.endAfter) values never arrived")
            return
        }
        trigger.fire()
        let pulledAtEnd = upstream.pulled
        let stopped = eventually(within: 5) { returned.load(ordering: .acquiring) }
        // A runaway is stopped by the test, so that the suite goes on.
        upstream.stop()
        #expect(eventually { returned.load(ordering: .acquiring) })
        #expect(stopped, "\(stopCase.name): the thread that started the run is still pulling")
        #expect(upstream.pulled <= pulledAtEnd + 1, "\(stopCase.name): \(upstream.pulled - pulledAtEnd) pulled after the end")
    }
}

/// An operator started from inside the terminal event of a signal that is
/// also its first input: that input is interrupted before its `observe`
/// returns (contract 5), so the operator ends before it starts its next
/// input, as in ReactiveSwift, and an infinite synchronous next input is
/// never pulled.
@Suite("Producers: an input that already ended stops the operator before its next input starts")
struct EndedInputStopsTests {
    @Test("then/concat into combineLatest and zip of the ending signal and an infinite upstream", arguments: [
        ("combineLatest", "then"), ("combineLatest", "concat"), ("zip", "then"), ("zip", "concat"),
    ])
    func endedFirstInput(_ combinator: String, _ sequencing: String) {
        let upstream = CountingUpstream()
        let (signal, input) = Signal<Int, Never>.pipe()
        let first = SignalProducer(signal)
        let pair = combinator == "zip"
            ? SignalProducer.zip(first, upstream.producer).map { $0 + $1 }
            : SignalProducer.combineLatest(first, upstream.producer).map { $0 + $1 }
        let produced = sequencing == "then" ? first.then(pair) : first.concat(pair)
        let log = Recorder<String>()
        produced.start { log.append(describe($0)) }
        // `then` goes on after a completion, `concat` after an interruption
        // too (an interrupted inner counts as completed).
        if sequencing == "then" { input.sendCompleted() } else { input.sendInterrupted() }
        #expect(upstream.pulled == 0, "\(sequencing) \(combinator): \(upstream.pulled) elements pulled")
        #expect(log.items == [sequencing == "then" ? "interrupted" : "completed"])
    }
}

/// An infinite synchronous source counting the elements it pulls; it ends
/// (completes) only once a test stops it, or after a cap far beyond any
/// case's expectation, so that a runaway fails the test instead of hanging.
final class CountingUpstream: Sendable {
    private let count = Atomic<Int>(0)
    private let stopped = Atomic<Bool>(false)

    var pulled: Int { count.load(ordering: .acquiring) }
    func stop() { stopped.store(true, ordering: .releasing) }

    var producer: SignalProducer<Int, Never> {
        SignalProducer(sequence(first: 0) { $0 + 1 }.lazy.prefix { [self] _ in
            guard !stopped.load(ordering: .acquiring), pulled < 100_000 else { return false }
            count.add(1, ordering: .relaxed)
            return true
        })
    }
}

/// What ends a case's output: set by the case, fired by the test.
final class EndTrigger: @unchecked Sendable {
    var fire: () -> Void = {}
}

struct StopCase: Sendable, CustomTestStringConvertible {
    let name: String
    /// Whether the end is an input that another thread can fire.
    let crossThread: Bool
    /// The values seen after the first `endAfter`.
    let after: [Int]
    /// The output's terminal event, if any.
    let terminal: String?
    let make: @Sendable (SignalProducer<Int, Failure>, EndTrigger) -> SignalProducer<Int, Failure>

    var testDescription: String { name }

    enum Failure: Error { case failed }

    static let all: [StopCase] = cases + flattens

    /// `take(during:)` of a flatten of every strategy over the upstream:
    /// ended on the thread that runs the inner, the flatten disposes its
    /// inner before the inner's next element, as ReactiveSwift does.
    static let flattens: [StopCase] = [
        ("concat", FlattenStrategy.concat), ("merge", .merge), ("concurrent(limit: 2)", .concurrent(limit: 2)),
        ("race", .race), ("throttle", .throttle), ("latest", .latest),
    ].map { name, strategy in
        StopCase(name: "take(during:) of a flatMap(\(name))", crossThread: true, after: [], terminal: "completed") {
            upstream, trigger in
            let (lifetime, token) = Lifetime.make()
            trigger.fire = { token.dispose() }
            return SignalProducer([1, 2]).flatMap(strategy) { _ in upstream }.take(during: lifetime)
        }
    }

    static let cases: [StopCase] = [
        StopCase(name: "take(during:)", crossThread: true, after: [], terminal: "completed") { upstream, trigger in
            let (lifetime, token) = Lifetime.make()
            trigger.fire = { token.dispose() }
            return upstream.take(during: lifetime)
        },
        StopCase(name: "take(until: signal)", crossThread: true, after: [], terminal: "completed") { upstream, trigger in
            let (signal, input) = Signal<(), Never>.pipe()
            trigger.fire = { input.send(value: ()) }
            return upstream.take(until: signal)
        },
        StopCase(name: "take(until: producer)", crossThread: true, after: [], terminal: "completed") { upstream, trigger in
            let (signal, input) = Signal<(), Never>.pipe()
            trigger.fire = { input.send(value: ()) }
            return upstream.take(until: SignalProducer(signal))
        },
        // Not a case: a switch sent into a flatMap(.latest)'s outer from
        // inside a synchronous inner is a reentrant send into the outer,
        // whose delivery in progress is that inner's start; it is queued
        // behind it, as every reentrant send (contract 3,
        // FlattenSendDuringStartTests, docs/Differences.md).
        StopCase(name: "merge, the other input failing", crossThread: true, after: [], terminal: "failed") { upstream, trigger in
            let (signal, input) = Signal<Int, Failure>.pipe()
            trigger.fire = { input.send(error: .failed) }
            return SignalProducer.merge(SignalProducer(signal), upstream)
        },
        StopCase(name: "combineLatest, the other input failing", crossThread: true, after: [], terminal: "failed") {
            upstream, trigger in
            let (signal, input) = Signal<Int, Failure>.pipe()
            trigger.fire = { input.send(error: .failed) }
            return SignalProducer(signal).prefix(value: 0).combineLatest(with: upstream).map { $0.1 }
        },
        StopCase(name: "then's replacement, ended by take(during:)", crossThread: true, after: [], terminal: "completed") {
            upstream, trigger in
            let (lifetime, token) = Lifetime.make()
            trigger.fire = { token.dispose() }
            return SignalProducer<Int, Failure>.empty.then(upstream).take(during: lifetime)
        },
        StopCase(name: "start(on:), ended by take(during:)", crossThread: true, after: [], terminal: "completed") {
            upstream, trigger in
            let (lifetime, token) = Lifetime.make()
            trigger.fire = { token.dispose() }
            return upstream.start(on: ImmediateScheduler()).take(during: lifetime)
        },
        StopCase(name: "zip, the other input failing", crossThread: true, after: [], terminal: "failed") { upstream, trigger in
            let (signal, input) = Signal<Int, Failure>.pipe()
            trigger.fire = { input.send(error: .failed) }
            return SignalProducer(signal).prefix(SignalProducer(0..<1000)).zip(with: upstream).map { $0.1 }
        },
        StopCase(name: "withLatest(from:), ended by take(during:)", crossThread: true, after: [], terminal: "completed") {
            upstream, trigger in
            let (lifetime, token) = Lifetime.make()
            trigger.fire = { token.dispose() }
            return upstream.withLatest(from: SignalProducer<Int, Never>(value: 0)).map { $0.0 }.take(during: lifetime)
        },
        StopCase(name: "sample(with:), ended by take(during:)", crossThread: true, after: [], terminal: "completed") {
            upstream, trigger in
            let (lifetime, token) = Lifetime.make()
            trigger.fire = { token.dispose() }
            let sampler = upstream.flatMapError { _ in SignalProducer<Int, Never>.empty }
            return SignalProducer<Int, Failure>.never.prefix(value: 0).sample(with: sampler).map { $0.1 }
                .take(during: lifetime)
        },
        StopCase(name: "start(on:), ended by take(first:)", crossThread: false, after: [], terminal: "completed") {
            upstream, _ in upstream.start(on: ImmediateScheduler()).take(first: StopCase.endAfter)
        },
        StopCase(name: "logEvents, ended by take(first:)", crossThread: false, after: [], terminal: "completed") {
            upstream, _ in upstream.logEvents(logger: { _, _, _, _, _ in }).take(first: StopCase.endAfter)
        },
        StopCase(name: "flatMapError's replacement, ended by take(first:)", crossThread: false, after: [], terminal: "completed") {
            upstream, _ in
            SignalProducer<Int, Failure>(error: .failed).flatMapError { _ in upstream }.take(first: StopCase.endAfter)
        },
        StopCase(name: "repeat, ended by take(first:)", crossThread: false, after: [], terminal: "completed") {
            upstream, _ in upstream.repeat(2).take(first: StopCase.endAfter)
        },
        StopCase(name: "retry, ended by take(first:)", crossThread: false, after: [], terminal: "completed") {
            upstream, _ in upstream.retry(upTo: 2).take(first: StopCase.endAfter)
        },
        StopCase(name: "startWithSignal's interrupter, disposed in delivery", crossThread: false, after: [], terminal: "interrupted") {
            upstream, _ in
            SignalProducer { observer, lifetime in
                upstream.startWithSignal { signal, interrupter in
                    var count = 0
                    lifetime += signal.observe { event in
                        observer.send(event)
                        if case .value = event { count += 1 }
                        if count == StopCase.endAfter { interrupter.dispose() }
                    }
                }
            }
        },
        // Not a case: take(untilReplacement:) does not end its output when
        // the replacement takes over; as in ReactiveSwift, the source's run
        // goes on unobserved until the output ends.
        StopCase(name: "concat's second producer, ended by take(during:)", crossThread: true, after: [], terminal: "completed") {
            upstream, trigger in
            let (lifetime, token) = Lifetime.make()
            trigger.fire = { token.dispose() }
            return SignalProducer<Int, Failure>.empty.concat(upstream).take(during: lifetime)
        },
        StopCase(name: "prefix(_:), ended by take(during:)", crossThread: true, after: [], terminal: "completed") {
            upstream, trigger in
            let (lifetime, token) = Lifetime.make()
            trigger.fire = { token.dispose() }
            return upstream.prefix(SignalProducer<Int, Failure>.empty).take(during: lifetime)
        },
        StopCase(name: "merge of a sequence, the other input failing", crossThread: true, after: [], terminal: "failed") {
            upstream, trigger in
            let (signal, input) = Signal<Int, Failure>.pipe()
            trigger.fire = { input.send(error: .failed) }
            return SignalProducer.merge([SignalProducer(signal), upstream])
        },
        StopCase(name: "combineLatest of a sequence, the other input failing", crossThread: true, after: [], terminal: "failed") {
            upstream, trigger in
            let (signal, input) = Signal<Int, Failure>.pipe()
            trigger.fire = { input.send(error: .failed) }
            return SignalProducer.combineLatest([SignalProducer(signal).prefix(value: 0), upstream]).map { $0[1] }
        },
        StopCase(name: "zip of a sequence, the other input failing", crossThread: true, after: [], terminal: "failed") {
            upstream, trigger in
            let (signal, input) = Signal<Int, Failure>.pipe()
            trigger.fire = { input.send(error: .failed) }
            return SignalProducer.zip([SignalProducer(signal).prefix(SignalProducer(0..<1000)), upstream]).map { $0[1] }
        },
        StopCase(name: "observe(on:), ended by take(first:)", crossThread: false, after: [], terminal: "completed") {
            upstream, _ in upstream.observe(on: ImmediateScheduler()).take(first: StopCase.endAfter)
        },
        StopCase(name: "timeout, ended by take(first:)", crossThread: false, after: [], terminal: "completed") {
            upstream, _ in upstream.timeout(after: 10, raising: .failed, on: TestScheduler()).take(first: StopCase.endAfter)
        },
    ]

    static var endAfter: Int { UpstreamStopsTests.endAfter }
}
