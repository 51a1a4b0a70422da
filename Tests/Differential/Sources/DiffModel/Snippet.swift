// Prints a program as a Swift snippet that does what the interpreter does:
// paste it into a file that imports ReactiveSwift or Flare and run it; it
// prints the trace (without the `[time]` of lines the interpreter adds
// through `out`, which prints it too).

public enum Snippet {
    public static let prelude = """
    // import ReactiveSwift   (or: import Flare)
    import Foundation
    struct TestError: Error { let code: Int }
    let scheduler = TestScheduler()
    func out(_ s: String) { print("[\\(Int((scheduler.currentDate.timeIntervalSinceReferenceDate * 1000).rounded()))] \\(s)") }
    func describe(_ e: Signal<Int, TestError>.Event) -> String {
        switch e {
        case let .value(v): return "value \\(v)"
        case let .failed(e): return "failed \\(e.code)"
        case .completed: return "completed"
        case .interrupted: return "interrupted"
        }
    }
    func mod(_ v: Int, _ m: Int) -> Int { let r = v % m; return r < 0 ? r + m : r }
    func eventCode(_ e: Signal<Int, TestError>.Event) -> Int {
        switch e { case let .value(v): return v &* 10 &+ 1; case let .failed(x): return x.code &* 10 &+ 2; case .completed: return 3; case .interrupted: return 4 }
    }
    func resultOf(_ v: Int) -> Result<Int, TestError> { v >= 0 ? .success(v) : .failure(TestError(code: -v)) }
    /// Prints each element pulled.
    struct Pulled: Sequence, IteratorProtocol {
        let id: Int; let values: [Int]?; var n: Int
        mutating func next() -> Int? {
            defer { n += 1 }
            if let values { guard n < values.count else { out("pull s\\(id) end"); return nil }; out("pull s\\(id) \\(values[n])"); return values[n] }
            guard n < \(Fn.pullCap) else { out("RUNAWAY pull s\\(id)"); return nil }
            out("pull s\\(id) \\(n)"); return n
        }
    }
    """

    public static func swift(_ p: Program) -> String {
        var s = Printer(program: p)
        return s.print()
    }
}

struct Printer {
    let program: Program
    var lines: [String] = []
    var counter = 0

    init(program: Program) { self.program = program }

    mutating func fresh(_ prefix: String) -> String { counter += 1; return "\(prefix)\(counter)" }
    mutating func emit(_ s: String) { lines.append(s) }

    mutating func print() -> String {
        emit(Snippet.prelude)
        for (i, never) in program.neverPipes.enumerated() where used(pipe: i) {
            let factory = i < program.pipeFactories.count ? ["pipe", "unserializedPipe", "reentrantUnserializedPipe"][program.pipeFactories[i]] : "pipe"
            emit("let (p\(i), p\(i)Input) = Signal<Int, \(never ? "Never" : "TestError")>.\(factory)()")
        }
        for (i, v) in program.properties.enumerated() where used(property: i) { emit("let m\(i) = MutableProperty(\(v))") }
        for l in 0..<program.lifetimes {
            emit("var (lifetime\(l), token\(l)): (Lifetime, Lifetime.Token?) = Lifetime.make()")
            emit("lifetime\(l).observeEnded { out(\"lifetime \(l) ended\") }")
            emit("lifetime\(l) += AnyDisposable { out(\"lifetime \(l) disposable\") }")
        }
        emit("let composite = CompositeDisposable()")
        emit("composite += AnyDisposable { out(\"composite first\") }")
        for (i, a) in program.actions.enumerated() {
            emit("let body\(i): SignalProducer<Int, TestError> = \(producer(a.body))")
            if let e = a.enabledIf {
                emit("let action\(i) = Action<Int, Int, TestError>(enabledIf: Property(m\(e)).map { $0 % 2 == 0 }) { input in body\(i).map { $0 &+ input } }")
            } else {
                emit("let action\(i) = Action<Int, Int, TestError> { input in body\(i).map { $0 &+ input } }")
            }
        }
        for b in program.bindings {
            emit("m\(b.property) <~ \(never(producer(b.source)))")
        }
        for (i, t) in program.taps.enumerated() {
            let s = signal(t.node)
            emit(observe(s, kind: t.kind, name: "tap\(i)", isSignal: true))
        }
        let root = producer(program.root)
        emit("let root: SignalProducer<Int, TestError> = \(root)")
        emit("var runs: [Disposable] = []")
        emit("func startRun() { let r = runs.count; out(\"> start run\\(r)\"); let d = \(observe("root", kind: program.startKind, name: "run\\(r)", isSignal: false)); out(\"< start run\\(r)\"); \(program.serialRuns ? "let serial = SerialDisposable(); serial.inner = d; runs.append(serial); composite.add(serial)" : "runs.append(d); composite.add(d)"); composite.add { out(\"composite run\\(r)\") } }")
        emit("startRun()")
        var applied = 0
        for step in program.steps {
            switch step {
            case let .send(i, v): emit("out(\"> send p\(i) \(v)\"); p\(i)Input.send(value: \(v)); out(\"< send p\(i)\")")
            case let .complete(i): emit("out(\"> complete p\(i)\"); p\(i)Input.sendCompleted(); out(\"< complete p\(i)\")")
            case let .fail(i, c):
                if !program.neverPipes[i] { emit("out(\"> fail p\(i) \(c)\"); p\(i)Input.send(error: TestError(code: \(c))); out(\"< fail p\(i)\")") }
            case let .interrupt(i): emit("out(\"> interrupt p\(i)\"); p\(i)Input.sendInterrupted(); out(\"< interrupt p\(i)\")")
            case let .advance(n): emit("out(\"> advance \(n)\"); scheduler.advance(by: .seconds(\(n)))")
            case let .set(i, v): emit("out(\"> set m\(i) \(v)\"); m\(i).value = \(v); out(\"< set m\(i)\")")
            case let .apply(a, input):
                emit("out(\"> apply\(applied) a\(a) \(input)\"); action\(a).apply(\(input)).start { out(\"apply\(applied) \\($0)\") }; out(\"< apply\(applied)\")")
                applied += 1
            case .start: emit("startRun()")
            case let .disposeRun(r): emit("if runs.count > \(r) { out(\"> dispose run\(r)\"); runs[\(r)].dispose(); out(\"< dispose run\(r)\") }")
            case let .endLifetime(l): emit("out(\"> end lifetime \(l)\"); token\(l) = nil; out(\"< end lifetime \(l)\")")
            case .disposeComposite: emit("out(\"> dispose composite\"); composite.dispose(); out(\"< dispose composite\")")
            case let .swap(i, v): emit("out(\"> swap m\(i) \(v)\"); let old\(fresh("")) = m\(i).swap(\(v)); out(\"< swap m\(i) old \\(old\(counter))\")")
            case let .modify(i, v): emit("out(\"> modify m\(i) \(v)\"); let r\(fresh("")) = m\(i).modify { (x: inout Int) -> Int in x = x &+ \(v); return x }; out(\"< modify m\(i) \\(r\(counter))\")")
            case let .blocking(k, n):
                let call = ["first()", "last()", "single()", "wait()"][k]
                emit("out(\"> blocking \(k)\"); out(\"< \(call) \\(\(producer(n)).\(call))\")")
            case let .withValue(i): emit("out(\"withValue m\(i) \\(m\(i).withValue { $0 })\")")
            }
        }
        emit("scheduler.advance(by: .seconds(60))")
        emit("out(\"end\")")
        return lines.joined(separator: "\n")
    }

    /// The call that observes (a signal) or starts (a producer) `e` in one
    /// of the forms `ObserveKind` numbers.
    func observe(_ e: String, kind: Int, name: String, isSignal: Bool) -> String {
        let o = isSignal ? "observe" : "start"
        switch kind {
        case 1:
            return "\(e).\(o)(Signal<Int, TestError>.Observer(value: { out(\"\(name) value \\($0)\") }, failed: { out(\"\(name) failed \\($0.code)\") }, completed: { out(\"\(name) completed\") }, interrupted: { out(\"\(name) interrupted\") }))"
        case 2:
            return "\(e).\(o)\(isSignal ? "Result" : "WithResult") { r in switch r { case let .success(v): out(\"\(name) value \\(v)\"); case let .failure(e): out(\"\(name) failed \\(e.code)\") } }"
        case 3: return "\(never(e)).\(o)\(isSignal ? "" : "With")Values { out(\"\(name) value \\($0)\") }"
        case 4: return "\(e).\(o)\(isSignal ? "" : "With")Completed { out(\"\(name) completed\") }"
        case 5: return "\(e).\(o)\(isSignal ? "" : "With")Failed { out(\"\(name) failed \\($0.code)\") }"
        case 6: return "\(e).\(o)\(isSignal ? "" : "With")Interrupted { out(\"\(name) interrupted\") }"
        default: return "\(e).\(o) { out(\"\(name) \\(describe($0))\") }"
        }
    }

    func used(pipe i: Int) -> Bool {
        let text = "\(program.root) \(program.actions) \(program.bindings) \(program.taps)"
        if text.contains("pipe(\(i))") || text.contains("pipe: \(i)") { return true }
        return program.steps.contains {
            switch $0 {
            case let .send(j, _), let .complete(j), let .fail(j, _), let .interrupt(j): return i == j
            default: return false
            }
        }
    }

    func used(property i: Int) -> Bool {
        if program.bindings.contains(where: { $0.property == i }) { return true }
        let text = "\(program.root) \(program.actions) \(program.bindings) \(program.taps)"
        if text.contains("mutable(\(i))") || text.contains("property: \(i)") || text.contains("enabledIf: Optional(\(i))") { return true }
        return program.steps.contains {
            switch $0 {
            case let .set(j, _), let .swap(j, _), let .modify(j, _), let .withValue(j): return i == j
            default: return false
            }
        }
    }

    func never(_ e: String) -> String { "\(e).flatMapError { _ in SignalProducer<Int, Never>.empty }" }

    func injection(_ j: Injection) -> String {
        switch j {
        case let .send(i, v): return "p\(i)Input.send(value: \(v))"
        case let .complete(i): return "p\(i)Input.sendCompleted()"
        case let .set(i, v): return "m\(i).value = \(v)"
        case let .disposeRun(r): return "if runs.count > \(r) { runs[\(r)].dispose() }"
        case let .endLifetime(l): return "token\(l) = nil"
        case .disposeComposite: return "composite.dispose()"
        }
    }

    mutating func producer(_ n: Node) -> String {
        switch n {
        case let .pipe(i):
            return program.neverPipes[i] ? "SignalProducer(p\(i)).promoteError(TestError.self)" : "SignalProducer(p\(i))"
        case let .values(id, vs): return "SignalProducer<Int, TestError>(Pulled(id: \(id), values: \(vs), n: 0))"
        case let .naturals(id, from): return "SignalProducer<Int, TestError>(Pulled(id: \(id), values: nil, n: 0)).map { $0 + \(from) }"
        case let .value(v): return "SignalProducer<Int, TestError>(value: \(v))"
        case let .error(c): return "SignalProducer<Int, TestError>(error: TestError(code: \(c)))"
        case .empty: return "SignalProducer<Int, TestError>.empty"
        case .never: return "SignalProducer<Int, TestError>.never"
        case .relay: return "SignalProducer(\(signal(n)))"
        case let .thunk(v): return "SignalProducer<Int, TestError>({ () -> Int in out(\"thunk \(v)\"); return \(v) })"
        case let .handler(id, vs, end):
            let ending: String
            switch end {
            case .completed: ending = "o.sendCompleted()"
            case let .failed(c): ending = "o.send(error: TestError(code: \(c)))"
            case .interrupted: ending = "o.sendInterrupted()"
            case .none: ending = ""
            }
            return "SignalProducer<Int, TestError> { o, lifetime in out(\"handler h\(id) start\"); lifetime.observeEnded { out(\"handler h\(id) ended\") }; for v in \(vs) as [Int] { o.send(value: v) }; \(ending) }"
        case let .timer(interval, count):
            let t = "SignalProducer.timer(interval: .seconds(\(interval)), on: scheduler).map { Int(($0.timeIntervalSinceReferenceDate * 1000).rounded()) }.promoteError(TestError.self)"
            return count > 0 ? "\(t).take(first: \(count))" : t
        case let .property(p): return "\(prop(p)).producer.promoteError(TestError.self)"
        case let .propertySignal(p): return "SignalProducer(\(prop(p)).signal).promoteError(TestError.self)"
        case let .apply(a, input):
            return "action\(a).apply(\(input)).mapError { e -> TestError in if case let .producerFailed(x) = e { return x }; return TestError(code: -1) }"
        case let .actionValues(a): return "SignalProducer(action\(a).values).promoteError(TestError.self)"
        case let .actionErrors(a): return "SignalProducer(action\(a).errors.map { $0.code }).promoteError(TestError.self)"
        case let .actionExecuting(a): return "action\(a).isExecuting.producer.map { $0 ? 1 : 0 }.promoteError(TestError.self)"
        case let .actionEnabled(a): return "action\(a).isEnabled.producer.map { $0 ? 1 : 0 }.promoteError(TestError.self)"
        case let .actionEvents(a): return "SignalProducer(action\(a).events.map(eventCode)).promoteError(TestError.self)"
        case let .actionCompleted(a): return "SignalProducer(action\(a).completed.map { _ in 0 }).promoteError(TestError.self)"
        case let .interval(id, vs, every):
            return "SignalProducer<Int, Never>.interval(Pulled(id: \(id), values: \(vs), n: 0), interval: .seconds(\(every)), on: scheduler).promoteError(TestError.self)"
        case let .lifetimeEnded(l): return "SignalProducer(lifetime\(l).ended).promoteValue(Int.self).promoteError(TestError.self)"
        case let .intervalCount(every): return "SignalProducer<Int, Never>.interval(.seconds(\(every)), on: scheduler).promoteError(TestError.self)"
        case let .variadic(a, b, c): return "SignalProducer<Int, TestError>(values: \(a), \(b), \(c))"
        case let .result(v): return "SignalProducer<Int, TestError>(result: resultOf(\(v)))"
        case let .resultThunk(v): return "SignalProducer<Int, TestError>({ () -> Result<Int, TestError> in out(\"thunk \(v)\"); return resultOf(\(v)) })"
        case let .all(ns): return "SignalProducer.all([\(ns.map { producer($0) + ".map { $0 % 2 == 0 }" }.joined(separator: ", "))]).map { $0 ? 1 : 0 }"
        case let .any(ns): return "SignalProducer.any([\(ns.map { producer($0) + ".map { $0 % 2 == 0 }" }.joined(separator: ", "))]).map { $0 ? 1 : 0 }"
        case let .unary(u, a): return unary(u, producer(a), isSignal: false)
        case let .combineLatest(ns): return nary("SignalProducer.combineLatest", ns.map { producer($0) })
        case let .zip(ns): return nary("SignalProducer.zip", ns.map { producer($0) })
        case let .merge(ns): return "SignalProducer.merge(\(ns.map { producer($0) }.joined(separator: ", ")))"
        default: return common(n, isSignal: false)
        }
    }

    mutating func nary(_ f: String, _ args: [String]) -> String {
        let combine = args.count == 2 ? "{ $0 &* 100 &+ $1 }" : "{ ($0 &* 100 &+ $1) &* 100 &+ $2 }"
        return "\(f)(\(args.joined(separator: ", "))).map \(combine)"
    }

    /// Nodes written the same way on a producer and on a signal.
    mutating func common(_ n: Node, isSignal: Bool) -> String {
        func x(_ m: Node) -> String { isSignal ? signal(m) : producer(m) }
        switch n {
        case let .combineLatestWith(a, b): return "\(x(a)).combineLatest(with: \(x(b))).map { $0 &* 100 &+ $1 }"
        case let .zipWith(a, b): return "\(x(a)).zip(with: \(x(b))).map { $0 &* 100 &+ $1 }"
        case let .mergeWith(a, b): return "\(x(a)).merge(with: \(x(b)))"
        case let .withLatest(a, b): return "\(x(a)).withLatest(from: \(never(x(b)))).map { $0 &* 100 &+ $1 }"
        case let .sampleWith(a, b): return "\(x(a)).sample(with: \(never(x(b)))).map { $0 &* 100 &+ $1 }"
        case let .sampleOn(a, b): return "\(x(a)).sample(on: \(never(x(b))).map { _ in () })"
        case let .takeUntil(a, b): return "\(x(a)).take(until: \(never(x(b))).map { _ in () })"
        case let .skipUntil(a, b): return "\(x(a)).skip(until: \(never(x(b))).map { _ in () })"
        case let .takeUntilReplacement(a, b): return "\(x(a)).take(untilReplacement: \(x(b)))"
        case let .then(a, b): return "\(producer(a)).then(\(producer(b)))"
        case let .concat(a, b): return "\(producer(a)).concat(\(producer(b)))"
        case let .prefix(a, b): return "\(producer(a)).prefix(\(producer(b)))"
        case let .flatMap(s, a, inners):
            let ps = inners.map { producer($0) }
            let pick = ps.count == 1 ? ps[0] : "[\(ps.joined(separator: ", "))][mod(v, \(ps.count))]"
            return "\(x(a)).flatMap(\(strategy(s))) { v in \(pick).map { $0 &+ 100 &* v } }"
        case let .flatMapError(a, b): return "\(x(a)).flatMapError { e in \(producer(b)).map { $0 &+ e.code } }"
        case let .flatten(s, a, inners):
            let ps = inners.map { producer($0) }
            let pick = ps.count == 1 ? ps[0] : "[\(ps.joined(separator: ", "))][mod(v, \(ps.count))]"
            return "\(x(a)).map { v in \(pick).map { $0 &+ 100 &* v } }.flatten(\(strategy(s)))"
        case let .and(a, b): return "\(x(a)).map { $0 % 2 == 0 }.and(\(x(b)).map { $0 % 2 == 0 }).map { $0 ? 1 : 0 }"
        case let .or(a, b): return "\(x(a)).map { $0 % 2 == 0 }.or(\(x(b)).map { $0 % 2 == 0 }).map { $0 ? 1 : 0 }"
        case let .hot(a): return isSignal ? signal(a) : "SignalProducer(\(signal(a)))"
        case let .inject(a, when, j):
            let flag = fresh("fired")
            lines.append("var \(flag) = false")
            return "\(x(a)).on(value: { v in if !\(flag) && mod(v, 4) == \(Fn.mod(when, 4)) { \(flag) = true; out(\"inject \(j)\"); \(injection(j)) } })"
        default: return "/* not a \(isSignal ? "signal" : "producer") node: \(n) */"
        }
    }

    func strategy(_ s: Strategy) -> String {
        switch s {
        case .merge: return ".merge"
        case .concat: return ".concat"
        case .latest: return ".latest"
        case .race: return ".race"
        case .throttle: return ".throttle"
        case let .concurrent(n): return ".concurrent(limit: \(n))"
        }
    }

    static func signalHas(_ u: Unary) -> Bool {
        switch u {
        case .startOn, .replayLazily, .retry, .repeatCount, .lift: return false
        default: return true
        }
    }

    mutating func signal(_ n: Node) -> String {
        switch n {
        case let .pipe(i): return program.neverPipes[i] ? "p\(i).promoteError(TestError.self)" : "p\(i)"
        case let .relay(i, reentrant):
            let source = signal(.pipe(i))
            return "Signal<Int, TestError>.\(reentrant ? "reentrantUnserialized" : "unserialized") { o, lifetime in lifetime += \(source).observe(o) }"
        case let .propertySignal(p): return "\(prop(p)).signal.promoteError(TestError.self)"
        case let .actionValues(a): return "action\(a).values.promoteError(TestError.self)"
        case let .actionErrors(a): return "action\(a).errors.map { $0.code }.promoteError(TestError.self)"
        case let .unary(u, a) where Printer.signalHas(u): return unary(u, signal(a), isSignal: true)
        case let .actionEvents(a): return "action\(a).events.map(eventCode).promoteError(TestError.self)"
        case let .actionCompleted(a): return "action\(a).completed.map { _ in 0 }.promoteError(TestError.self)"
        case let .all(ns): return "Signal.all([\(ns.map { signal($0) + ".map { $0 % 2 == 0 }" }.joined(separator: ", "))]).map { $0 ? 1 : 0 }"
        case let .any(ns): return "Signal.any([\(ns.map { signal($0) + ".map { $0 % 2 == 0 }" }.joined(separator: ", "))]).map { $0 ? 1 : 0 }"
        case let .combineLatest(ns): return nary("Signal.combineLatest", ns.map { signal($0) })
        case let .zip(ns): return nary("Signal.zip", ns.map { signal($0) })
        case let .merge(ns): return "Signal.merge(\(ns.map { signal($0) }.joined(separator: ", ")))"
        case .combineLatestWith, .zipWith, .mergeWith, .withLatest, .sampleWith, .sampleOn, .takeUntil, .skipUntil,
             .takeUntilReplacement, .flatMap, .flatMapError, .hot, .inject, .flatten, .and, .or:
            return common(n, isSignal: true)
        default:
            let p = producer(n)
            return "\(p).startWithSignal { signal, _ -> Signal<Int, TestError> in out(\"startWithSignal\"); return signal }"
        }
    }

    mutating func unary(_ u: Unary, _ e: String, isSignal: Bool) -> String {
        switch u {
        case let .map(k): return "\(e).map { $0 &+ \(k) }"
        case let .mapValue(k): return "\(e).map(value: \(k))"
        case let .filter(m): return "\(e).filter { mod($0, \(m)) != 0 }"
        case let .compactMap(m): return "\(e).compactMap { mod($0, \(m)) == 0 ? nil : $0 &* 2 }"
        case let .skipNil(m): return "\(e).map { mod($0, \(m)) == 0 ? nil : $0 }.skipNil()"
        case let .skipFirst(n): return "\(e).skip(first: \(n))"
        case let .takeFirst(n): return "\(e).take(first: \(n))"
        case let .takeLast(n): return "\(e).take(last: \(n))"
        case let .skipWhile(t): return "\(e).skip(while: { $0 < \(t) })"
        case let .takeWhile(t): return "\(e).take(while: { $0 < \(t) })"
        case let .takeUntilValue(t): return "\(e).take(until: { $0 < \(t) })"
        case .skipRepeats: return "\(e).skipRepeats()"
        case .uniqueValues: return "\(e).uniqueValues()"
        case let .combinePrevious(k):
            return "\(e).combinePrevious(\(k.map(String.init) ?? "")).map { $0 &* 100 &+ $1 }"
        case let .scan(k): return "\(e).scan(\(k)) { $0 &+ $1 }"
        case let .scanInto(k): return "\(e).scan(into: \(k)) { $0 = $0 &* 2 &+ $1 }"
        case let .scanMap(k): return "\(e).scanMap(\(k)) { s, v in (s &+ v, s &* 10 &+ v) }"
        case let .reduce(k): return "\(e).reduce(\(k)) { $0 &+ $1 }"
        case let .reduceInto(k): return "\(e).reduce(into: \(k)) { $0 = $0 &* 3 &+ $1 }"
        case .collect: return "\(e).collect().map { $0.reduce($0.count) { $0 &* 31 &+ $1 } }"
        case let .collectCount(n): return "\(e).collect(count: \(n)).map { $0.reduce($0.count) { $0 &* 31 &+ $1 } }"
        case let .collectWhile(n):
            return "\(e).collect({ (values: [Int]) -> Bool in values.count >= \(n) }).map { $0.reduce($0.count) { $0 &* 31 &+ $1 } }"
        case .materialize: return "\(e).materialize().map { (ev: Signal<Int, TestError>.Event) -> Int in switch ev { case let .value(v): return v &* 10 &+ 1; case let .failed(x): return x.code &* 10 &+ 2; case .completed: return 3; case .interrupted: return 4 } }.promoteError(TestError.self)"
        case .materializeResults: return "\(e).materializeResults().map { r -> Int in switch r { case let .success(v): return v &* 10 &+ 5; case let .failure(x): return x.code &* 10 &+ 6 } }.promoteError(TestError.self)"
        case .dematerialize: return "\(e).materialize().dematerialize()"
        case let .mapError(k): return "\(e).mapError { TestError(code: $0.code &+ \(k)) }"
        case let .attemptMap(t): return "\(e).attemptMap { v -> Result<Int, TestError> in v == \(t) ? .failure(TestError(code: \(100 + t))) : .success(v &* 3) }"
        case let .attempt(t): return "\(e).attempt { v -> Result<(), TestError> in v == \(t) ? .failure(TestError(code: \(200 + t))) : .success(()) }"
        case .promoteNever: return "\(never(e)).promoteError(TestError.self)"
        case let .delay(t): return "\(e).delay(\(t), on: scheduler)"
        case let .debounce(t, d): return "\(e).debounce(\(t), on: scheduler, discardWhenCompleted: \(d))"
        case let .throttle(t): return "\(e).throttle(\(t), on: scheduler)"
        case let .timeout(t, c): return "\(e).timeout(after: \(t), raising: TestError(code: \(c)), on: scheduler)"
        case .observeOn: return "\(e).observe(on: scheduler)"
        case .startOn: return "\(e).start(on: scheduler)"
        case let .lazyMap(k): return "\(e).lazyMap(on: scheduler) { $0 &+ \(k) }"
        case let .collectEvery(t): return "\(e).collect(every: .seconds(\(t)), on: scheduler).map { $0.reduce($0.count) { $0 &* 31 &+ $1 } }"
        case let .replayLazily(c): return "\(e).replayLazily(upTo: \(c))"
        case let .retry(n): return "\(e).retry(upTo: \(n))"
        case let .repeatCount(n): return "\(e).repeat(\(n))"
        case let .logEvents(id): return "\(e).logEvents(identifier: \"L\(id)\", logger: { id, event, _, _, _ in out(\"log \\(id) \\(event)\") })"
        case let .hooks(id):
            let h = "h\(id)"
            let producerOnly = isSignal ? "" : "starting: { out(\"\(h) starting\") }, started: { out(\"\(h) started\") }, "
            return "\(e).on(\(producerOnly)event: { out(\"\(h) event \\(describe($0))\") }, failed: { out(\"\(h) failed \\($0.code)\") }, completed: { out(\"\(h) completed\") }, interrupted: { out(\"\(h) interrupted\") }, terminated: { out(\"\(h) terminated\") }, disposed: { out(\"\(h) disposed\") }, value: { out(\"\(h) value \\($0)\") })"
        case let .takeDuring(l): return "\(e).take(during: lifetime\(l))"
        case .negate: return "\(e).map { $0 % 2 == 0 }.negate().map { $0 ? 1 : 0 }"
        case let .lift(k): return "\(e).lift { $0.map { $0 &+ \(k) } }"
        case .dematerializeResults: return "\(e).materializeResults().dematerializeResults()"
        case let .skipRepeatsBy(m): return "\(e).skipRepeats { mod($0, \(m)) == mod($1, \(m)) }"
        case let .uniqueValuesBy(m): return "\(e).uniqueValues { mod($0, \(m)) }"
        case .promoteValue: return "\(e).flatMap(.merge) { _ in SignalProducer<Never, TestError>.empty }.promoteValue(Int.self)"
        }
    }

    mutating func prop(_ p: Prop) -> String {
        switch p {
        case let .mutable(i): return "Property(m\(i))"
        case let .constant(v): return "Property(value: \(v))"
        case let .map(q, k): return "\(prop(q)).map { $0 &+ \(k) }"
        case let .combineLatest(a, b): return "Property.combineLatest(\(prop(a)), \(prop(b))).map { $0 &* 100 &+ $1 }"
        case let .zip(a, b): return "\(prop(a)).zip(with: \(prop(b))).map { $0 &* 100 &+ $1 }"
        case let .initialThen(v, n): return "Property(initial: \(v), then: \(never(producer(n))))"
        case let .skipRepeats(q): return "\(prop(q)).skipRepeats()"
        case let .uniqueValues(q): return "\(prop(q)).uniqueValues()"
        case let .filter(q, m): return "\(prop(q)).filter(initial: -1) { mod($0, \(m)) != 0 }"
        case let .combinePrevious(q): return "\(prop(q)).combinePrevious(0).map { $0 &* 100 &+ $1 }"
        case let .flatMapLatest(q, ps):
            let inner = ps.map { prop($0) }
            return "\(prop(q)).flatMap(.latest) { v in [\(inner.joined(separator: ", "))][mod(v, \(inner.count))] }"
        case let .capturing(q): return "Property(capturing: \(prop(q)))"
        }
    }
}
