import Flare
import Foundation
import MallocCounter
import MutexBaseline

// MARK: Flatten

/// The mutex baseline's name in the flatten scenarios: the same flatten
/// logic as Flare's engine, its state behind a `Synchronization.Mutex`,
/// delivering through a `LockedSignal`.
let mutexFlattenName = LockedContender.name

/// `flatMap(strategy)` of a one-value producer per outer value, the outer a
/// signal sending `amount` values from one thread: ns and heap allocations
/// per outer value (the inner's start, its value, its completion, and
/// releasing it).
struct FlattenPerOuterValue {
    enum Kind: String {
        case merge, latest
    }

    let kind: Kind

    static let metrics = [
        Metric(name: "ns/outer value", unit: "ns", lowerIsBetter: true),
        Metric(name: "allocs/outer value", unit: "", lowerIsBetter: true),
    ]

    func flare(amount: Int) -> Measurement {
        let sink = Sink.make()
        defer { sink.free() }
        let (outer, input) = Signal<Int, Never>.pipe()
        let strategy: FlattenStrategy = kind == .merge ? .merge : .latest
        let flat = outer.flatMap(strategy) { SignalProducer<Int, Never>(value: $0) }
        flat.observe { event in
            if case let .value(v) = event { sink.add(v) }
        }
        for i in 0..<64 { input.send(value: i) }
        let t0 = now()
        for i in 0..<amount { input.send(value: i) }
        let t1 = now()
        let counted = 256
        mc_set_counting(1)
        let a0 = mc_allocations()
        for i in 0..<counted { input.send(value: i) }
        let a1 = mc_allocations()
        mc_set_counting(0)
        check(sink.total == triangular(63) &+ triangular(amount - 1) &+ triangular(counted - 1), "Flare flatMap(.\(kind)) lost values")
        input.sendCompleted()
        blackHole(flat)
        return Measurement(elapsed: t1 - t0, values: [Double(t1 - t0) / Double(amount), Double(a1 - a0) / Double(counted)])
    }

    func mutex(amount: Int) -> Measurement {
        let sink = Sink.make()
        defer { sink.free() }
        let (outer, input) = LockedSignal<Int, Never>.pipe()
        let flat = BaselineFlatten<Int, Int, Never>(outer, kind == .merge ? .concurrent(limit: .max) : .latest) {
            BaselineProducer(value: $0)
        }
        _ = flat.output.observe { event in
            if case let .value(v) = event { sink.add(v) }
        }
        for i in 0..<64 { input.send(value: i) }
        let t0 = now()
        for i in 0..<amount { input.send(value: i) }
        let t1 = now()
        let counted = 256
        mc_set_counting(1)
        let a0 = mc_allocations()
        for i in 0..<counted { input.send(value: i) }
        let a1 = mc_allocations()
        mc_set_counting(0)
        check(sink.total == triangular(63) &+ triangular(amount - 1) &+ triangular(counted - 1), "mutex flatten lost values")
        input.sendCompleted()
        blackHole(flat)
        return Measurement(elapsed: t1 - t0, values: [Double(t1 - t0) / Double(amount), Double(a1 - a0) / Double(counted)])
    }

    /// The limit: per outer value, a call of the transform making the
    /// inner (a closure), and the inner's call of the observer closure.
    func limit(amount: Int) -> Measurement {
        let sink = Sink.make()
        defer { sink.free() }
        let observer = makeLimitEventClosure(sink)
        let transform = makeLimitInner()
        mc_set_counting(1)
        let a0 = mc_allocations()
        let t0 = now()
        for i in 0..<amount { transform(i)(observer) }
        let t1 = now()
        let a1 = mc_allocations()
        mc_set_counting(0)
        check(sink.total == triangular(amount - 1), "limit flatten")
        return Measurement(elapsed: t1 - t0, values: [Double(t1 - t0) / Double(amount), Double(a1 - a0) / Double(amount)])
    }
}

/// The limit's inner: a "producer" of one value, as a closure that sends
/// the value then the completion (-1) to its observer.
@inline(never)
func makeLimitInner() -> (Int) -> ((Int) -> Void) -> Void {
    { value in { observer in observer(value); observer(-1) } }
}

/// `flatMap(.concat)` over 10,000 one-value producers, started from a
/// signal: ns per inner.
struct FlattenConcat {
    static let batch = 10_000
    static let metrics = [Metric(name: "ns/inner", unit: "ns", lowerIsBetter: true)]

    func flare(amount batches: Int) -> Measurement {
        let sink = Sink.make()
        defer { sink.free() }
        var elapsed: UInt64 = 0
        for _ in 0..<batches {
            let (outer, input) = Signal<Int, Never>.pipe()
            let flat = outer.flatMap(.concat) { SignalProducer<Int, Never>(value: $0) }
            flat.observe { event in
                if case let .value(v) = event { sink.add(v) }
            }
            let t0 = now()
            for i in 0..<Self.batch { input.send(value: i) }
            input.sendCompleted()
            elapsed += now() - t0
        }
        check(sink.total == batches &* triangular(Self.batch - 1), "Flare concat lost values")
        return Measurement(elapsed: elapsed, values: [Double(elapsed) / Double(batches * Self.batch)])
    }

    func mutex(amount batches: Int) -> Measurement {
        let sink = Sink.make()
        defer { sink.free() }
        var elapsed: UInt64 = 0
        for _ in 0..<batches {
            let (outer, input) = LockedSignal<Int, Never>.pipe()
            let flat = BaselineFlatten<Int, Int, Never>(outer, .concurrent(limit: 1)) { BaselineProducer(value: $0) }
            _ = flat.output.observe { event in
                if case let .value(v) = event { sink.add(v) }
            }
            let t0 = now()
            for i in 0..<Self.batch { input.send(value: i) }
            input.sendCompleted()
            elapsed += now() - t0
        }
        check(sink.total == batches &* triangular(Self.batch - 1), "mutex concat lost values")
        return Measurement(elapsed: elapsed, values: [Double(elapsed) / Double(batches * Self.batch)])
    }

    func limit(amount batches: Int) -> Measurement {
        let sink = Sink.make()
        defer { sink.free() }
        let observer = makeLimitEventClosure(sink)
        let transform = makeLimitInner()
        let t0 = now()
        for _ in 0..<batches {
            for i in 0..<Self.batch { transform(i)(observer) }
        }
        let t1 = now()
        check(sink.total == batches &* triangular(Self.batch - 1), "limit concat")
        return Measurement(elapsed: t1 - t0, values: [Double(t1 - t0) / Double(batches * Self.batch)])
    }
}

/// `flatMap(.merge)` of two inner producers whose start handlers hand their
/// observers to two threads, each sending into its own for `amount` ns:
/// output events per second.
struct FlattenMergeTwoThreads {
    static let metrics = [Metric(name: "events/s", unit: "1/s", lowerIsBetter: false)]

    func flare(amount duration: Int) -> Measurement {
        let sink = Sink.make()
        defer { sink.free() }
        let observers = Handoff<Signal<Int, Never>.Observer>()
        let (outer, outerInput) = Signal<Int, Never>.pipe()
        let flat = outer.flatMap(.merge) { _ in
            SignalProducer<Int, Never> { observer, _ in observers.append(observer) }
        }
        flat.observe { event in
            if case let .value(v) = event { sink.add(v) }
        }
        outerInput.send(value: 0)
        outerInput.send(value: 1)
        outerInput.sendCompleted()
        let inners = observers.items
        check(inners.count == 2, "Flare flatMap(.merge) started \(inners.count) inners")
        let (a, b) = (inners[0], inners[1])
        let r = runTwoSenders(duration: UInt64(duration),
                              senderA: { v in a.send(value: v) },
                              senderB: { v in b.send(value: v) })
        check(sink.total == triangular(r.sentA) &+ triangular(r.sentB), "Flare flatMap(.merge) lost or duplicated events")
        a.sendCompleted()
        b.sendCompleted()
        blackHole(flat)
        return Measurement(elapsed: r.elapsed, values: [1e9 * Double(r.sentA + r.sentB) / Double(r.elapsed)])
    }

    func mutex(amount duration: Int) -> Measurement {
        let sink = Sink.make()
        defer { sink.free() }
        let observers = Handoff<BaselineObserver<Int, Never>>()
        let (outer, outerInput) = LockedSignal<Int, Never>.pipe()
        let flat = BaselineFlatten<Int, Int, Never>(outer, .concurrent(limit: .max)) { _ in
            BaselineProducer { observer in observers.append(observer) }
        }
        _ = flat.output.observe { event in
            if case let .value(v) = event { sink.add(v) }
        }
        outerInput.send(value: 0)
        outerInput.send(value: 1)
        outerInput.sendCompleted()
        let inners = observers.items
        check(inners.count == 2, "mutex flatten started \(inners.count) inners")
        let (a, b) = (inners[0], inners[1])
        let r = runTwoSenders(duration: UInt64(duration),
                              senderA: { v in a.send(.value(v)) },
                              senderB: { v in b.send(.value(v)) })
        check(sink.total == triangular(r.sentA) &+ triangular(r.sentB), "mutex flatten lost or duplicated events")
        a.send(.completed)
        b.send(.completed)
        blackHole(flat)
        return Measurement(elapsed: r.elapsed, values: [1e9 * Double(r.sentA + r.sentB) / Double(r.elapsed)])
    }
}

/// Where inner start handlers leave their observers for the sender threads.
final class Handoff<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [T] = []

    func append(_ item: T) {
        lock.lock()
        stored.append(item)
        lock.unlock()
    }

    var items: [T] {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
}

func runFlattenScenarios(_ runner: Runner) {
    guard runner.options.includes("flatten") else { return }
    progress("flatten")
    if mc_is_active() == 0 { progress("  (malloc counter inactive on this platform: allocation figures read 0)") }
    for kind in [FlattenPerOuterValue.Kind.merge, .latest] {
        let body = FlattenPerOuterValue(kind: kind)
        runner.measure(scenario: "flatten", title: "flatMap(.\(kind.rawValue)) of a one-value producer per outer value",
                       caseName: kind.rawValue, metrics: FlattenPerOuterValue.metrics,
                       entries: [Entry(name: flareName) { body.flare(amount: $0) },
                                 Entry(name: mutexFlattenName) { body.mutex(amount: $0) },
                                 Entry(name: limitName) { body.limit(amount: $0) }],
                       initialAmount: 1024)
    }
    let concat = FlattenConcat()
    runner.measure(scenario: "flatten", title: "flatMap(.concat) over 10,000 one-value producers",
                   caseName: "concat", metrics: FlattenConcat.metrics,
                   entries: [Entry(name: flareName) { concat.flare(amount: $0) },
                             Entry(name: mutexFlattenName) { concat.mutex(amount: $0) },
                             Entry(name: limitName) { concat.limit(amount: $0) }],
                   initialAmount: 1)
    let two = FlattenMergeTwoThreads()
    runner.measure(scenario: "flatten", title: "flatMap(.merge) of two inners sending from two threads",
                   caseName: "2 senders", metrics: FlattenMergeTwoThreads.metrics,
                   entries: [Entry(name: flareName) { two.flare(amount: $0) },
                             Entry(name: mutexFlattenName) { two.mutex(amount: $0) }],
                   initialAmount: Int(runner.options.targetNanos), calibrated: false)
}
