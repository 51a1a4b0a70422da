// The pipeline interpreter, written once against the API Flare shares with
// ReactiveSwift 7 and compiled twice: in FlareInterpreter (with FLARE
// defined) and in ReactiveSwiftInterpreter (a symbolic link to this file).
// Everything runs on one TestScheduler, on the calling thread.
#if FLARE
import Flare
#else
import ReactiveSwift
#endif
import Foundation
import DiffModel

/// Runs `program` and returns what it observed, line by line. With
/// `unfusingEnds`, each producer step that can end its run from a value
/// (`take(first:)`, `take(while:)`, `take(until:)` with a predicate,
/// `attemptMap`, `attempt`, `dematerialize`, `dematerializeResults`) is
/// followed by `on()`: in ReactiveSwift a signal between it and the steps
/// below, where its chain of steps would otherwise be fused into one
/// observer (`KnownDifferences.fusedEnd`).
public func interpret(_ program: Program, unfusingEnds: Bool = false) -> Trace {
    let run = Run(program)
    run.unfusingEnds = unfusingEnds
    run.go()
    return Trace(lines: run.rec.lines, runaway: run.rec.runaway, missedChangeAt: run.rec.missedChangeAt)
}

final class Recorder {
    var lines: [String] = []
    var recording = true
    var runaway = false
    var missedChangeAt: Int?
    let scheduler: TestScheduler
    let start: Date
    init(_ scheduler: TestScheduler) { self.scheduler = scheduler; start = scheduler.currentDate }

    func add(_ line: String) {
        guard recording else { return }
        if lines.count >= Fn.lineCap { markRunaway("lines"); return }
        lines.append("[\(Fn.ms(scheduler.currentDate.timeIntervalSince(start)))] \(line)")
    }

    func markRunaway(_ what: String) {
        guard !runaway else { return }
        runaway = true
        lines.append("RUNAWAY \(what)")
    }
}

/// A count shared by closures.
final class Counter { var value = 0 }

/// A sequence that records each element pulled; `values == nil` counts up
/// without end, stopping at `Fn.pullCap` with a recorded runaway.
struct Pulled: Sequence {
    let rec: Recorder
    let id: Int
    let values: [Int]?
    let from: Int

    struct Iterator: IteratorProtocol {
        let seq: Pulled
        var n = 0
        mutating func next() -> Int? {
            defer { n += 1 }
            if let values = seq.values {
                guard n < values.count else { seq.rec.add("pull s\(seq.id) end"); return nil }
                seq.rec.add("pull s\(seq.id) \(values[n])")
                return values[n]
            }
            guard n < Fn.pullCap else { seq.rec.markRunaway("pull s\(seq.id)"); return nil }
            seq.rec.add("pull s\(seq.id) \(seq.from &+ n)")
            return seq.from &+ n
        }
    }

    func makeIterator() -> Iterator { Iterator(seq: self) }
}

final class Flag { var set = false }

func describe(_ event: Signal<Int, TestError>.Event) -> String {
    switch event {
    case let .value(v): return "value \(v)"
    case let .failed(e): return "failed \(e.code)"
    case .completed: return "completed"
    case .interrupted: return "interrupted"
    }
}

func eventCode(_ event: Signal<Int, TestError>.Event) -> Int {
    switch event {
    case let .value(v): return v &* 10 &+ 1
    case let .failed(e): return e.code &* 10 &+ 2
    case .completed: return 3
    case .interrupted: return 4
    }
}

func isEven(_ v: Int) -> Bool { v % 2 == 0 }
func boolCode(_ b: Bool) -> Int { b ? 1 : 0 }
func resultOf(_ v: Int) -> Result<Int, TestError> { v >= 0 ? .success(v) : .failure(TestError(code: -v)) }

func arrayCode(_ values: [Int]) -> Int { values.reduce(values.count) { $0 &* 31 &+ $1 } }

func strategy(_ s: Strategy) -> FlattenStrategy {
    switch s {
    case .merge: return .merge
    case .concat: return .concat
    case .latest: return .latest
    case .race: return .race
    case .throttle: return .throttle
    case let .concurrent(n): return .concurrent(limit: UInt(max(1, n)))
    }
}

final class Run {
    let program: Program
    let scheduler = TestScheduler()
    let rec: Recorder
    var errorPipes: [Int: (output: Signal<Int, TestError>, input: Signal<Int, TestError>.Observer)] = [:]
    var neverPipes: [Int: (output: Signal<Int, Never>, input: Signal<Int, Never>.Observer)] = [:]
    var props: [MutableProperty<Int>] = []
    var lifetimes: [Lifetime] = []
    var tokens: [Lifetime.Token?] = []
    var actions: [Action<Int, Int, TestError>] = []
    let composite = CompositeDisposable()
    var runs: [Disposable] = []
    var retained: [Any] = []
    var root: SignalProducer<Int, TestError> = .empty
    var applied = 0
    var unfusingEnds = false

    init(_ program: Program) {
        self.program = program
        rec = Recorder(scheduler)
    }

    func go() {
        let rec = self.rec
        for (i, never) in program.neverPipes.enumerated() {
            let factory = i < program.pipeFactories.count ? program.pipeFactories[i] : 0
            if never {
                switch factory {
                case 1: neverPipes[i] = Signal<Int, Never>.unserializedPipe()
                case 2: neverPipes[i] = Signal<Int, Never>.reentrantUnserializedPipe()
                default: neverPipes[i] = Signal<Int, Never>.pipe()
                }
            } else {
                switch factory {
                case 1: errorPipes[i] = Signal<Int, TestError>.unserializedPipe()
                case 2: errorPipes[i] = Signal<Int, TestError>.reentrantUnserializedPipe()
                default: errorPipes[i] = Signal<Int, TestError>.pipe()
                }
            }
        }
        props = program.properties.map { MutableProperty($0) }
        for l in 0..<program.lifetimes {
            let (lifetime, token) = Lifetime.make()
            lifetime.observeEnded { rec.add("lifetime \(l) ended") }
            lifetime += AnyDisposable { rec.add("lifetime \(l) disposable") }
            lifetimes.append(lifetime)
            tokens.append(token)
        }
        composite += AnyDisposable { rec.add("composite first") }
        for spec in program.actions {
            let body = producer(spec.body)
            let execute: (Int) -> SignalProducer<Int, TestError> = { input in body.map { $0 &+ input } }
            if let e = spec.enabledIf {
                actions.append(Action(enabledIf: Property(props[e]).map { $0 % 2 == 0 }, execute: execute))
            } else {
                actions.append(Action(execute: execute))
            }
        }
        for b in program.bindings {
            let binding: Disposable? = props[b.property] <~ never(producer(b.source))
            retained.append(binding as Any)
        }
        for (i, tap) in program.taps.enumerated() {
            retained.append(observe(signal(tap.node), kind: tap.kind, name: "tap\(i)") as Any)
        }
        root = producer(program.root)
        startRun()
        for step in program.steps {
            perform(step)
            if rec.runaway { break }
        }
        scheduler.advance(by: .seconds(60))
        rec.add("end")
        rec.recording = false
        composite.dispose()
        tokens.removeAll()
    }

    func startRun() {
        let r = runs.count
        let rec = self.rec
        rec.add("> start run\(r)")
        let d = start(root, kind: program.startKind, name: "run\(r)")
        rec.add("< start run\(r)")
        if program.serialRuns {
            let serial = SerialDisposable()
            serial.inner = d
            runs.append(serial)
            composite.add(serial)
            composite.add { rec.add("composite run\(r)") }
            return
        }
        runs.append(d)
        composite.add(d)
        composite.add { rec.add("composite run\(r)") }
    }

    func observe(_ s: Signal<Int, TestError>, kind: Int, name: String) -> Disposable? {
        let rec = self.rec
        switch kind {
        case 1:
            return s.observe(Signal<Int, TestError>.Observer(
                value: { rec.add("\(name) value \($0)") }, failed: { rec.add("\(name) failed \($0.code)") },
                completed: { rec.add("\(name) completed") }, interrupted: { rec.add("\(name) interrupted") }))
        case 2:
            return s.observeResult { r in
                switch r { case let .success(v): rec.add("\(name) value \(v)"); case let .failure(e): rec.add("\(name) failed \(e.code)") }
            }
        case 3: return never(s).observeValues { rec.add("\(name) value \($0)") }
        case 4: return s.observeCompleted { rec.add("\(name) completed") }
        case 5: return s.observeFailed { rec.add("\(name) failed \($0.code)") }
        case 6: return s.observeInterrupted { rec.add("\(name) interrupted") }
        default: return s.observe { rec.add("\(name) \(describe($0))") }
        }
    }

    func start(_ p: SignalProducer<Int, TestError>, kind: Int, name: String) -> Disposable {
        let rec = self.rec
        switch kind {
        case 1:
            return p.start(Signal<Int, TestError>.Observer(
                value: { rec.add("\(name) value \($0)") }, failed: { rec.add("\(name) failed \($0.code)") },
                completed: { rec.add("\(name) completed") }, interrupted: { rec.add("\(name) interrupted") }))
        case 2:
            return p.startWithResult { r in
                switch r { case let .success(v): rec.add("\(name) value \(v)"); case let .failure(e): rec.add("\(name) failed \(e.code)") }
            }
        case 3: return never(p).startWithValues { rec.add("\(name) value \($0)") }
        case 4: return p.startWithCompleted { rec.add("\(name) completed") }
        case 5: return p.startWithFailed { rec.add("\(name) failed \($0.code)") }
        case 6: return p.startWithInterrupted { rec.add("\(name) interrupted") }
        default: return p.start { rec.add("\(name) \(describe($0))") }
        }
    }

    func disposeRun(_ r: Int) {
        guard r < runs.count else { return }
        rec.add("> dispose run\(r)")
        runs[r].dispose()
        rec.add("< dispose run\(r)")
    }

    func endLifetime(_ l: Int) {
        guard l < tokens.count else { return }
        rec.add("> end lifetime \(l)")
        tokens[l] = nil
        rec.add("< end lifetime \(l)")
    }

    func disposeComposite() {
        rec.add("> dispose composite")
        composite.dispose()
        rec.add("< dispose composite")
    }

    func send(_ i: Int, _ v: Int) {
        rec.add("> send p\(i) \(v)")
        if let p = errorPipes[i] { p.input.send(value: v) } else { neverPipes[i]?.input.send(value: v) }
        rec.add("< send p\(i)")
    }

    func complete(_ i: Int) {
        rec.add("> complete p\(i)")
        if let p = errorPipes[i] { p.input.sendCompleted() } else { neverPipes[i]?.input.sendCompleted() }
        rec.add("< complete p\(i)")
    }

    func set(_ i: Int, _ v: Int) {
        guard i < props.count else { return }
        rec.add("> set m\(i) \(v)")
        props[i].value = v
        rec.add("< set m\(i)")
    }

    func perform(_ step: Step) {
        let rec = self.rec
        switch step {
        case let .send(i, v): send(i, v)
        case let .complete(i): complete(i)
        case let .fail(i, c):
            rec.add("> fail p\(i) \(c)")
            errorPipes[i]?.input.send(error: TestError(code: c))
            rec.add("< fail p\(i)")
        case let .interrupt(i):
            rec.add("> interrupt p\(i)")
            if let p = errorPipes[i] { p.input.sendInterrupted() } else { neverPipes[i]?.input.sendInterrupted() }
            rec.add("< interrupt p\(i)")
        case let .advance(n):
            rec.add("> advance \(n)")
            scheduler.advance(by: .seconds(n))
        case let .set(i, v): set(i, v)
        case let .apply(a, input):
            guard a < actions.count else { return }
            let k = applied
            applied += 1
            rec.add("> apply\(k) a\(a) \(input)")
            actions[a].apply(input).start { event in
                switch event {
                case let .value(v): rec.add("apply\(k) value \(v)")
                case let .failed(.producerFailed(e)): rec.add("apply\(k) failed \(e.code)")
                case .failed(.disabled): rec.add("apply\(k) disabled")
                case .completed: rec.add("apply\(k) completed")
                case .interrupted: rec.add("apply\(k) interrupted")
                }
            }
            rec.add("< apply\(k)")
        case .start: startRun()
        case let .disposeRun(r): disposeRun(r)
        case let .endLifetime(l): endLifetime(l)
        case .disposeComposite: disposeComposite()
        case let .swap(i, v):
            guard i < props.count else { return }
            rec.add("> swap m\(i) \(v)")
            let old = props[i].swap(v)
            rec.add("< swap m\(i) old \(old)")
        case let .modify(i, v):
            guard i < props.count else { return }
            rec.add("> modify m\(i) \(v)")
            let r = props[i].modify { (x: inout Int) -> Int in x = x &+ v; return x }
            rec.add("< modify m\(i) \(r)")
        case let .blocking(kind, n):
            let p = producer(n)
            rec.add("> blocking \(kind)")
            func show(_ r: Result<Int, TestError>?) -> String {
                switch r {
                case nil: return "nil"
                case let .success(v)?: return "value \(v)"
                case let .failure(e)?: return "failed \(e.code)"
                }
            }
            switch kind {
            case 0: rec.add("< first \(show(p.first()))")
            case 1: rec.add("< last \(show(p.last()))")
            case 2: rec.add("< single \(show(p.single()))")
            default:
                switch p.wait() {
                case .success: rec.add("< wait success")
                case let .failure(e): rec.add("< wait failed \(e.code)")
                }
            }
        case let .withValue(i):
            guard i < props.count else { return }
            let r = props[i].withValue { $0 }
            rec.add("withValue m\(i) \(r)")
        }
    }

    func inject(_ injection: Injection) {
        rec.add("inject \(injection)")
        switch injection {
        case let .send(i, v): send(i, v)
        case let .complete(i): complete(i)
        case let .set(i, v): set(i, v)
        case let .disposeRun(r): disposeRun(r)
        case let .endLifetime(l): endLifetime(l)
        case .disposeComposite: disposeComposite()
        }
    }

    // MARK: Building

    func never(_ p: SignalProducer<Int, TestError>) -> SignalProducer<Int, Never> {
        p.flatMapError { _ in SignalProducer<Int, Never>.empty }
    }

    func never(_ s: Signal<Int, TestError>) -> Signal<Int, Never> {
        s.flatMapError { _ in SignalProducer<Int, Never>.empty }
    }

    func pipeSignal(_ i: Int) -> Signal<Int, TestError> {
        if let p = errorPipes[i] { return p.output }
        return neverPipes[i]!.output.promoteError(TestError.self)
    }

    func producer(_ node: Node) -> SignalProducer<Int, TestError> {
        let rec = self.rec
        switch node {
        case let .pipe(i):
            if let p = errorPipes[i] { return SignalProducer(p.output) }
            return SignalProducer(neverPipes[i]!.output).promoteError(TestError.self)
        case .relay: return SignalProducer(signal(node))
        case let .values(id, values):
            return SignalProducer(Pulled(rec: rec, id: id, values: values, from: 0))
        case let .naturals(id, from):
            return SignalProducer(Pulled(rec: rec, id: id, values: nil, from: from))
        case let .value(v): return SignalProducer(value: v)
        case let .error(c): return SignalProducer(error: TestError(code: c))
        case .empty: return .empty
        case .never: return .never
        case let .thunk(v):
            return SignalProducer<Int, TestError>({ () -> Int in rec.add("thunk \(v)"); return v })
        case let .handler(id, values, end):
            return SignalProducer<Int, TestError> { observer, lifetime in
                rec.add("handler h\(id) start")
                lifetime.observeEnded { rec.add("handler h\(id) ended") }
                for v in values { observer.send(value: v) }
                switch end {
                case .completed: observer.sendCompleted()
                case let .failed(c): observer.send(error: TestError(code: c))
                case .interrupted: observer.sendInterrupted()
                case .none: break
                }
            }
        case let .timer(interval, count):
            let start = scheduler.currentDate
            let t = SignalProducer.timer(interval: .seconds(interval), on: scheduler)
                .map { Fn.ms($0.timeIntervalSince(start)) }
                .promoteError(TestError.self)
            return count > 0 ? t.take(first: count) : t
        case let .property(p): return watched(prop(p)).promoteError(TestError.self)
        case let .propertySignal(p): return SignalProducer(prop(p).signal).promoteError(TestError.self)
        case let .apply(a, input):
            return actions[a].apply(input).mapError { e -> TestError in
                switch e {
                case .disabled: return TestError(code: -1)
                case let .producerFailed(inner): return inner
                }
            }
        case let .actionValues(a): return SignalProducer(actions[a].values).promoteError(TestError.self)
        case let .actionErrors(a): return SignalProducer(actions[a].errors.map { $0.code }).promoteError(TestError.self)
        case let .actionExecuting(a): return watched(actions[a].isExecuting).map { $0 ? 1 : 0 }.promoteError(TestError.self)
        case let .actionEnabled(a): return watched(actions[a].isEnabled).map { $0 ? 1 : 0 }.promoteError(TestError.self)
        case let .actionEvents(a): return SignalProducer(actions[a].events.map(eventCode)).promoteError(TestError.self)
        case let .actionCompleted(a): return SignalProducer(actions[a].completed.map { _ in 0 }).promoteError(TestError.self)
        case let .variadic(a, b, c): return SignalProducer(values: a, b, c)
        case let .interval(id, values, every):
            return SignalProducer<Int, Never>.interval(Pulled(rec: rec, id: id, values: values, from: 0), interval: .seconds(every), on: scheduler)
                .promoteError(TestError.self)
        case let .lifetimeEnded(l):
            return SignalProducer(lifetimes[l].ended).promoteValue(Int.self).promoteError(TestError.self)
        case let .intervalCount(every):
            return SignalProducer<Int, Never>.interval(.seconds(every), on: scheduler).promoteError(TestError.self)
        case let .result(v): return SignalProducer(result: resultOf(v))
        case let .resultThunk(v):
            return SignalProducer<Int, TestError>({ () -> Result<Int, TestError> in rec.add("thunk \(v)"); return resultOf(v) })
        case let .flatten(s, a, inners):
            let ps = inners.map(producer)
            return producer(a).map { v in ps[Fn.pick(v, ps.count)].map { $0 &+ 100 &* v } }.flatten(strategy(s))
        case let .and(a, b): return producer(a).map(isEven).and(producer(b).map(isEven)).map(boolCode)
        case let .or(a, b): return producer(a).map(isEven).or(producer(b).map(isEven)).map(boolCode)
        case let .all(ns): return SignalProducer.all(ns.map { producer($0).map(isEven) }).map(boolCode)
        case let .any(ns): return SignalProducer.any(ns.map { producer($0).map(isEven) }).map(boolCode)
        case let .unary(u, n): return unary(u, producer(n))
        case let .combineLatest(ns):
            let ps = ns.map(producer)
            if ps.count == 2 { return SignalProducer.combineLatest(ps[0], ps[1]).map { $0 &* 100 &+ $1 } }
            return SignalProducer.combineLatest(ps[0], ps[1], ps[2]).map { ($0 &* 100 &+ $1) &* 100 &+ $2 }
        case let .zip(ns):
            let ps = ns.map(producer)
            if ps.count == 2 { return SignalProducer.zip(ps[0], ps[1]).map { $0 &* 100 &+ $1 } }
            return SignalProducer.zip(ps[0], ps[1], ps[2]).map { ($0 &* 100 &+ $1) &* 100 &+ $2 }
        case let .merge(ns):
            let ps = ns.map(producer)
            if ps.count == 2 { return SignalProducer.merge(ps[0], ps[1]) }
            return SignalProducer.merge(ps)
        case let .combineLatestWith(a, b): return producer(a).combineLatest(with: producer(b)).map { $0 &* 100 &+ $1 }
        case let .zipWith(a, b): return producer(a).zip(with: producer(b)).map { $0 &* 100 &+ $1 }
        case let .mergeWith(a, b): return producer(a).merge(with: producer(b))
        case let .withLatest(a, b): return producer(a).withLatest(from: never(producer(b))).map { $0 &* 100 &+ $1 }
        case let .sampleWith(a, b): return producer(a).sample(with: never(producer(b))).map { $0 &* 100 &+ $1 }
        case let .sampleOn(a, b): return producer(a).sample(on: never(producer(b)).map { _ in () })
        case let .takeUntil(a, b): return producer(a).take(until: never(producer(b)).map { _ in () })
        case let .skipUntil(a, b): return producer(a).skip(until: never(producer(b)).map { _ in () })
        case let .takeUntilReplacement(a, b): return producer(a).take(untilReplacement: producer(b))
        case let .then(a, b): return producer(a).then(producer(b))
        case let .concat(a, b): return producer(a).concat(producer(b))
        case let .prefix(a, b): return producer(a).prefix(producer(b))
        case let .flatMap(s, a, inners):
            let ps = inners.map(producer)
            return producer(a).flatMap(strategy(s)) { v in ps[Fn.pick(v, ps.count)].map { $0 &+ 100 &* v } }
        case let .flatMapError(a, b):
            let pb = producer(b)
            return producer(a).flatMapError { e in pb.map { $0 &+ e.code } }
        case let .hot(n): return SignalProducer(signal(n))
        case let .inject(n, when, injection):
            let fired = Flag()
            // Weak: a program's objects may outlive its run (a property's
            // teardown after `interpret` returned delivers to this step).
            return producer(n).on(value: { [weak self] v in
                if !fired.set && Fn.mod(v, 4) == Fn.mod(when, 4) { fired.set = true; self?.inject(injection) }
            })
        }
    }

    func unary(_ u: Unary, _ p: SignalProducer<Int, TestError>) -> SignalProducer<Int, TestError> {
        let q = fusedUnary(u, p)
        guard unfusingEnds else { return q }
        switch u {
        case .takeFirst, .takeWhile, .takeUntilValue, .attemptMap, .attempt, .dematerialize, .dematerializeResults:
            return q.on()
        default:
            return q
        }
    }

    func fusedUnary(_ u: Unary, _ p: SignalProducer<Int, TestError>) -> SignalProducer<Int, TestError> {
        let rec = self.rec
        switch u {
        case let .map(k): return p.map { $0 &+ k }
        case let .mapValue(k): return p.map(value: k)
        case let .filter(m): return p.filter { Fn.mod($0, m) != 0 }
        case let .compactMap(m): return p.compactMap { Fn.mod($0, m) == 0 ? nil : $0 &* 2 }
        case let .skipNil(m): return p.map { Fn.mod($0, m) == 0 ? nil : $0 }.skipNil()
        case let .skipFirst(n): return p.skip(first: n)
        case let .takeFirst(n): return p.take(first: n)
        case let .takeLast(n): return p.take(last: n)
        case let .skipWhile(t): return p.skip(while: { $0 < t })
        case let .takeWhile(t): return p.take(while: { $0 < t })
        case let .takeUntilValue(t): return p.take(until: { $0 < t })
        case .skipRepeats: return p.skipRepeats()
        case .uniqueValues: return p.uniqueValues()
        case let .combinePrevious(k):
            if let k { return p.combinePrevious(k).map { $0 &* 100 &+ $1 } }
            return p.combinePrevious().map { $0 &* 100 &+ $1 }
        case let .scan(k): return p.scan(k) { $0 &+ $1 }
        case let .scanInto(k): return p.scan(into: k) { $0 = $0 &* 2 &+ $1 }
        case let .scanMap(k): return p.scanMap(k) { s, v in (s &+ v, s &* 10 &+ v) }
        case let .reduce(k): return p.reduce(k) { $0 &+ $1 }
        case let .reduceInto(k): return p.reduce(into: k) { $0 = $0 &* 3 &+ $1 }
        case .collect: return p.collect().map(arrayCode)
        case let .collectCount(n): return p.collect(count: n).map(arrayCode)
        case let .collectWhile(n): return p.collect({ (values: [Int]) -> Bool in values.count >= n }).map(arrayCode)
        case .materialize: return p.materialize().map(eventCode).promoteError(TestError.self)
        case .materializeResults:
            return p.materializeResults().map { r -> Int in
                switch r { case let .success(v): return v &* 10 &+ 5; case let .failure(e): return e.code &* 10 &+ 6 }
            }.promoteError(TestError.self)
        case .dematerialize: return p.materialize().dematerialize()
        case let .mapError(k): return p.mapError { TestError(code: $0.code &+ k) }
        case let .attemptMap(t):
            return p.attemptMap { v -> Result<Int, TestError> in v == t ? .failure(TestError(code: 100 &+ t)) : .success(v &* 3) }
        case let .attempt(t):
            return p.attempt { v -> Result<(), TestError> in v == t ? .failure(TestError(code: 200 &+ t)) : .success(()) }
        case .promoteNever: return never(p).promoteError(TestError.self)
        case let .delay(t): return p.delay(Double(t), on: scheduler)
        case let .debounce(t, discard): return p.debounce(Double(t), on: scheduler, discardWhenCompleted: discard)
        case let .throttle(t): return p.throttle(Double(t), on: scheduler)
        case let .timeout(t, c): return p.timeout(after: Double(t), raising: TestError(code: c), on: scheduler)
        case .observeOn: return p.observe(on: scheduler)
        case .startOn: return p.start(on: scheduler)
        case let .lazyMap(k): return p.lazyMap(on: scheduler) { $0 &+ k }
        case let .collectEvery(t): return p.collect(every: .seconds(t), on: scheduler).map(arrayCode)
        case let .replayLazily(c): return p.replayLazily(upTo: c)
        case let .retry(n): return p.retry(upTo: n)
        case let .repeatCount(n): return p.repeat(n)
        case let .logEvents(id):
            return p.logEvents(identifier: "L\(id)", logger: { identifier, event, _, function, line in
                rec.add("log \(identifier) \(event) \(function):\(line)")
            })
        case let .hooks(id):
            return p.on(
                starting: { rec.add("h\(id) starting") },
                started: { rec.add("h\(id) started") },
                event: { rec.add("h\(id) event \(describe($0))") },
                failed: { rec.add("h\(id) failed \($0.code)") },
                completed: { rec.add("h\(id) completed") },
                interrupted: { rec.add("h\(id) interrupted") },
                terminated: { rec.add("h\(id) terminated") },
                disposed: { rec.add("h\(id) disposed") },
                value: { rec.add("h\(id) value \($0)") })
        case let .takeDuring(l): return p.take(during: lifetimes[l])
        case .negate: return p.map { $0 % 2 == 0 }.negate().map { $0 ? 1 : 0 }
        case let .lift(k): return p.lift { $0.map { $0 &+ k } }
        case .dematerializeResults: return p.materializeResults().dematerializeResults()
        case let .skipRepeatsBy(m): return p.skipRepeats { Fn.mod($0, m) == Fn.mod($1, m) }
        case let .uniqueValuesBy(m): return p.uniqueValues { Fn.mod($0, m) }
        case .promoteValue: return p.flatMap(.merge) { _ in SignalProducer<Never, TestError>.empty }.promoteValue(Int.self)
        }
    }

    /// Whether `Signal` has the operator (the others are producer-only).
    func signalHas(_ u: Unary) -> Bool {
        switch u {
        case .startOn, .replayLazily, .retry, .repeatCount, .lift: return false
        default: return true
        }
    }

    func signal(_ node: Node) -> Signal<Int, TestError> {
        let rec = self.rec
        switch node {
        case let .pipe(i): return pipeSignal(i)
        case let .relay(i, reentrant):
            let source = pipeSignal(i)
            if reentrant {
                return Signal<Int, TestError>.reentrantUnserialized { observer, lifetime in lifetime += source.observe(observer) }
            }
            return Signal<Int, TestError>.unserialized { observer, lifetime in lifetime += source.observe(observer) }
        case let .propertySignal(p): return prop(p).signal.promoteError(TestError.self)
        case let .actionValues(a): return actions[a].values.promoteError(TestError.self)
        case let .actionErrors(a): return actions[a].errors.map { $0.code }.promoteError(TestError.self)
        case let .unary(u, n) where signalHas(u): return unary(u, signal(n))
        case let .combineLatest(ns):
            let ss = ns.map(signal)
            if ss.count == 2 { return Signal.combineLatest(ss[0], ss[1]).map { $0 &* 100 &+ $1 } }
            return Signal.combineLatest(ss[0], ss[1], ss[2]).map { ($0 &* 100 &+ $1) &* 100 &+ $2 }
        case let .zip(ns):
            let ss = ns.map(signal)
            if ss.count == 2 { return Signal.zip(ss[0], ss[1]).map { $0 &* 100 &+ $1 } }
            return Signal.zip(ss[0], ss[1], ss[2]).map { ($0 &* 100 &+ $1) &* 100 &+ $2 }
        case let .merge(ns):
            let ss = ns.map(signal)
            if ss.count == 2 { return Signal.merge(ss[0], ss[1]) }
            return Signal.merge(ss)
        case let .combineLatestWith(a, b): return signal(a).combineLatest(with: signal(b)).map { $0 &* 100 &+ $1 }
        case let .zipWith(a, b): return signal(a).zip(with: signal(b)).map { $0 &* 100 &+ $1 }
        case let .mergeWith(a, b): return signal(a).merge(with: signal(b))
        case let .withLatest(a, b): return signal(a).withLatest(from: never(signal(b))).map { $0 &* 100 &+ $1 }
        case let .sampleWith(a, b): return signal(a).sample(with: never(signal(b))).map { $0 &* 100 &+ $1 }
        case let .sampleOn(a, b): return signal(a).sample(on: never(signal(b)).map { _ in () })
        case let .takeUntil(a, b): return signal(a).take(until: never(signal(b)).map { _ in () })
        case let .skipUntil(a, b): return signal(a).skip(until: never(signal(b)).map { _ in () })
        case let .takeUntilReplacement(a, b): return signal(a).take(untilReplacement: signal(b))
        case let .flatMap(s, a, inners):
            let ps = inners.map(producer)
            return signal(a).flatMap(strategy(s)) { v in ps[Fn.pick(v, ps.count)].map { $0 &+ 100 &* v } }
        case let .flatMapError(a, b):
            let pb = producer(b)
            return signal(a).flatMapError { e in pb.map { $0 &+ e.code } }
        case let .flatten(s, a, inners):
            let ps = inners.map(producer)
            return signal(a).map { v in ps[Fn.pick(v, ps.count)].map { $0 &+ 100 &* v } }.flatten(strategy(s))
        case let .and(a, b): return signal(a).map(isEven).and(signal(b).map(isEven)).map(boolCode)
        case let .or(a, b): return signal(a).map(isEven).or(signal(b).map(isEven)).map(boolCode)
        case let .all(ns): return Signal.all(ns.map { signal($0).map(isEven) }).map(boolCode)
        case let .any(ns): return Signal.any(ns.map { signal($0).map(isEven) }).map(boolCode)
        case let .actionEvents(a): return actions[a].events.map(eventCode).promoteError(TestError.self)
        case let .actionCompleted(a): return actions[a].completed.map { _ in 0 }.promoteError(TestError.self)
        case let .hot(n): return signal(n)
        case let .inject(n, when, injection):
            let fired = Flag()
            return signal(n).on(value: { [weak self] v in
                if !fired.set && Fn.mod(v, 4) == Fn.mod(when, 4) { fired.set = true; self?.inject(injection) }
            })
        default:
            // Anything else is started here, when the program starts.
            let p = producer(node)
            return p.startWithSignal { signal, interrupter -> Signal<Int, TestError> in
                self.retained.append(interrupter)
                rec.add("startWithSignal")
                return signal
            }
        }
    }

    func unary(_ u: Unary, _ p: Signal<Int, TestError>) -> Signal<Int, TestError> {
        let rec = self.rec
        switch u {
        case let .map(k): return p.map { $0 &+ k }
        case let .mapValue(k): return p.map(value: k)
        case let .filter(m): return p.filter { Fn.mod($0, m) != 0 }
        case let .compactMap(m): return p.compactMap { Fn.mod($0, m) == 0 ? nil : $0 &* 2 }
        case let .skipNil(m): return p.map { Fn.mod($0, m) == 0 ? nil : $0 }.skipNil()
        case let .skipFirst(n): return p.skip(first: n)
        case let .takeFirst(n): return p.take(first: n)
        case let .takeLast(n): return p.take(last: n)
        case let .skipWhile(t): return p.skip(while: { $0 < t })
        case let .takeWhile(t): return p.take(while: { $0 < t })
        case let .takeUntilValue(t): return p.take(until: { $0 < t })
        case .skipRepeats: return p.skipRepeats()
        case .uniqueValues: return p.uniqueValues()
        case let .combinePrevious(k):
            if let k { return p.combinePrevious(k).map { $0 &* 100 &+ $1 } }
            return p.combinePrevious().map { $0 &* 100 &+ $1 }
        case let .scan(k): return p.scan(k) { $0 &+ $1 }
        case let .scanInto(k): return p.scan(into: k) { $0 = $0 &* 2 &+ $1 }
        case let .scanMap(k): return p.scanMap(k) { s, v in (s &+ v, s &* 10 &+ v) }
        case let .reduce(k): return p.reduce(k) { $0 &+ $1 }
        case let .reduceInto(k): return p.reduce(into: k) { $0 = $0 &* 3 &+ $1 }
        case .collect: return p.collect().map(arrayCode)
        case let .collectCount(n): return p.collect(count: n).map(arrayCode)
        case let .collectWhile(n): return p.collect({ (values: [Int]) -> Bool in values.count >= n }).map(arrayCode)
        case .materialize: return p.materialize().map(eventCode).promoteError(TestError.self)
        case .materializeResults:
            return p.materializeResults().map { r -> Int in
                switch r { case let .success(v): return v &* 10 &+ 5; case let .failure(e): return e.code &* 10 &+ 6 }
            }.promoteError(TestError.self)
        case .dematerialize: return p.materialize().dematerialize()
        case let .mapError(k): return p.mapError { TestError(code: $0.code &+ k) }
        case let .attemptMap(t):
            return p.attemptMap { v -> Result<Int, TestError> in v == t ? .failure(TestError(code: 100 &+ t)) : .success(v &* 3) }
        case let .attempt(t):
            return p.attempt { v -> Result<(), TestError> in v == t ? .failure(TestError(code: 200 &+ t)) : .success(()) }
        case .promoteNever: return never(p).promoteError(TestError.self)
        case let .delay(t): return p.delay(Double(t), on: scheduler)
        case let .debounce(t, discard): return p.debounce(Double(t), on: scheduler, discardWhenCompleted: discard)
        case let .throttle(t): return p.throttle(Double(t), on: scheduler)
        case let .timeout(t, c): return p.timeout(after: Double(t), raising: TestError(code: c), on: scheduler)
        case .observeOn: return p.observe(on: scheduler)
        case let .lazyMap(k): return p.lazyMap(on: scheduler) { $0 &+ k }
        case let .collectEvery(t): return p.collect(every: .seconds(t), on: scheduler).map(arrayCode)
        case let .logEvents(id):
            return p.logEvents(identifier: "L\(id)", logger: { identifier, event, _, function, line in
                rec.add("log \(identifier) \(event) \(function):\(line)")
            })
        case let .hooks(id):
            return p.on(
                event: { rec.add("h\(id) event \(describe($0))") },
                failed: { rec.add("h\(id) failed \($0.code)") },
                completed: { rec.add("h\(id) completed") },
                interrupted: { rec.add("h\(id) interrupted") },
                terminated: { rec.add("h\(id) terminated") },
                disposed: { rec.add("h\(id) disposed") },
                value: { rec.add("h\(id) value \($0)") })
        case let .takeDuring(l): return p.take(during: lifetimes[l])
        case .negate: return p.map { $0 % 2 == 0 }.negate().map { $0 ? 1 : 0 }
        case .dematerializeResults: return p.materializeResults().dematerializeResults()
        case let .skipRepeatsBy(m): return p.skipRepeats { Fn.mod($0, m) == Fn.mod($1, m) }
        case let .uniqueValuesBy(m): return p.uniqueValues { Fn.mod($0, m) }
        case .promoteValue: return p.flatMap(.merge) { _ in SignalProducer<Never, TestError>.empty }.promoteValue(Int.self)
        case .startOn, .replayLazily, .retry, .repeatCount, .lift:
            return signal(.unary(u, .hot(.never)))  // unreachable: signalHas(u) is false
        }
    }

    /// `property.producer`, watched for a change that ReactiveSwift's
    /// producer misses (`Trace.missedChangeAt`): the runs starting, innermost
    /// last, each with the count of the property's changes when it heard a
    /// value; a run whose start returns after further changes missed one.
    /// The program only gains `on(starting:started:value:)`, which changes
    /// nothing either library delivers.
    func watched<V>(_ property: Property<V>) -> SignalProducer<V, Never> {
        let changes = Counter()
        retained.append(property.signal.observeValues { _ in changes.value += 1 } as Any)
        var starting: [Int?] = []
        return property.producer.on(
            starting: { starting.append(nil) },
            started: { [rec] in
                if let seen = starting.removeLast(), seen != changes.value, rec.missedChangeAt == nil {
                    rec.missedChangeAt = rec.lines.count
                }
            },
            value: { _ in
                if let last = starting.indices.last, starting[last] == nil { starting[last] = changes.value }
            }
        )
    }

    func prop(_ p: Prop) -> Property<Int> {
        let built = buildProp(p)
        retained.append(built)
        return built
    }

    func buildProp(_ p: Prop) -> Property<Int> {
        switch p {
        case let .mutable(i): return Property(props[i])
        case let .constant(v): return Property(value: v)
        case let .map(q, k): return prop(q).map { $0 &+ k }
        case let .combineLatest(a, b): return Property.combineLatest(prop(a), prop(b)).map { $0 &* 100 &+ $1 }
        case let .zip(a, b): return prop(a).zip(with: prop(b)).map { $0 &* 100 &+ $1 }
        case let .initialThen(v, n): return Property(initial: v, then: never(producer(n)))
        case let .skipRepeats(q): return prop(q).skipRepeats()
        case let .uniqueValues(q): return prop(q).uniqueValues()
        case let .filter(q, m): return prop(q).filter(initial: -1) { Fn.mod($0, m) != 0 }
        case let .combinePrevious(q): return prop(q).combinePrevious(0).map { $0 &* 100 &+ $1 }
        case let .flatMapLatest(q, ps):
            let inner = ps.map(prop)
            return prop(q).flatMap(.latest) { v in inner[Fn.pick(v, inner.count)] }
        case let .capturing(q): return Property(capturing: prop(q))
        }
    }
}
