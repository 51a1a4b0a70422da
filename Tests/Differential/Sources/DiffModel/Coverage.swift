// Which public API names the generated programs reached, against the
// public `func`/`init`/`static let`/operator names declared in Flare's sources.
import Foundation

public enum Coverage {
    public static func names(_ n: Node, into s: inout Set<String>) {
        switch n {
        case .pipe: s.formUnion(["pipe", "init(_:Signal)", "send", "sendCompleted", "sendInterrupted"])
        case let .relay(_, reentrant): s.insert(reentrant ? "reentrantUnserialized" : "unserialized"); s.insert("init(_:Signal)")
        case .values, .naturals: s.insert("init(_:Sequence)")
        case .value: s.insert("init(value:)")
        case .error: s.insert("init(error:)")
        case .empty: s.insert("empty")
        case .never: s.insert("never")
        case .thunk: s.insert("init(_:() -> Value)")
        case .handler: s.formUnion(["init(_:startHandler)", "observeEnded"])
        case .timer: s.insert("timer")
        case let .property(p): s.insert("producer"); names(p, into: &s)
        case let .propertySignal(p): s.insert("signal"); names(p, into: &s)
        case .apply: s.insert("apply")
        case .actionValues: s.insert("values")
        case .actionErrors: s.insert("errors")
        case .actionExecuting: s.insert("isExecuting")
        case .actionEnabled: s.insert("isEnabled")
        case .actionEvents: s.insert("events")
        case .actionCompleted: s.insert("completed")
        case .variadic: s.insert("init(values:_:_:)")
        case .interval, .intervalCount: s.insert("interval")
        case .lifetimeEnded: s.formUnion(["ended", "promoteValue"])
        case .result: s.insert("init(result:)")
        case .resultThunk: s.insert("init(_:() -> Result)")
        case let .flatten(st, _, _):
            s.insert("flatten"); s.insert("strategy \(st)")
            if case .concurrent = st { s.insert("concurrent") }
        case .and: s.insert("and")
        case .or: s.insert("or")
        case .all: s.insert("all")
        case .any: s.insert("any")
        case let .unary(u, a): s.insert(name(u)); if case .negate = u {} else {}; names(a, into: &s)
        case .combineLatest, .combineLatestWith: s.insert("combineLatest")
        case .zip, .zipWith: s.insert("zip")
        case .merge, .mergeWith: s.insert("merge")
        case .withLatest: s.insert("withLatest")
        case .sampleWith, .sampleOn: s.insert("sample")
        case .takeUntil, .takeUntilReplacement: s.insert("take")
        case .skipUntil: s.insert("skip")
        case .then: s.insert("then")
        case .concat: s.insert("concat")
        case .prefix: s.insert("prefix")
        case let .flatMap(st, _, _):
            s.insert("flatMap"); s.insert("strategy \(st)")
            if case .concurrent = st { s.insert("concurrent") }
        case .flatMapError: s.insert("flatMapError")
        case .hot: s.insert("startWithSignal")
        case .inject: s.insert("on")
        }
        switch n {
        case .withLatest, .sampleWith, .sampleOn, .takeUntil, .skipUntil: s.insert("flatMapError")
        default: break
        }
        for c in children(n) { names(c, into: &s) }
    }

    static func names(_ p: Prop, into s: inout Set<String>) {
        switch p {
        case .mutable: s.formUnion(["MutableProperty.init", "Property.init(_:)"])
        case .constant: s.insert("Property.init(value:)")
        case let .map(q, _): s.insert("map"); names(q, into: &s)
        case let .combineLatest(a, b): s.insert("combineLatest"); names(a, into: &s); names(b, into: &s)
        case let .zip(a, b): s.insert("zip"); names(a, into: &s); names(b, into: &s)
        case let .initialThen(_, n): s.insert("Property.init(initial:then:)"); names(n, into: &s)
        case let .skipRepeats(q): s.insert("skipRepeats"); names(q, into: &s)
        case let .uniqueValues(q): s.insert("uniqueValues"); names(q, into: &s)
        case let .filter(q, _): s.insert("filter"); names(q, into: &s)
        case let .combinePrevious(q): s.insert("combinePrevious"); names(q, into: &s)
        case let .flatMapLatest(q, ps): s.insert("flatMap"); names(q, into: &s); for x in ps { names(x, into: &s) }
        case let .capturing(q): s.insert("Property.init(capturing:)"); names(q, into: &s)
        }
    }

    static func name(_ u: Unary) -> String {
        switch u {
        case .map, .mapValue: return "map"
        case .filter: return "filter"
        case .compactMap: return "compactMap"
        case .skipNil: return "skipNil"
        case .skipFirst, .skipWhile: return "skip"
        case .takeFirst, .takeLast, .takeWhile, .takeUntilValue, .takeDuring: return "take"
        case .skipRepeats: return "skipRepeats"
        case .uniqueValues: return "uniqueValues"
        case .combinePrevious: return "combinePrevious"
        case .scan, .scanInto: return "scan"
        case .scanMap: return "scanMap"
        case .reduce, .reduceInto: return "reduce"
        case .collect, .collectCount, .collectWhile, .collectEvery: return "collect"
        case .materialize: return "materialize"
        case .materializeResults: return "materializeResults"
        case .dematerialize: return "dematerialize"
        case .mapError: return "mapError"
        case .attemptMap: return "attemptMap"
        case .attempt: return "attempt"
        case .promoteNever: return "promoteError"
        case .delay: return "delay"
        case .debounce: return "debounce"
        case .throttle: return "throttle"
        case .timeout: return "timeout"
        case .observeOn: return "observe"
        case .startOn: return "start"
        case .lazyMap: return "lazyMap"
        case .replayLazily: return "replayLazily"
        case .retry: return "retry"
        case .repeatCount: return "repeat"
        case .logEvents: return "logEvents"
        case .hooks: return "on"
        case .negate: return "negate"
        case .lift: return "lift"
        case .dematerializeResults: return "dematerializeResults"
        case .skipRepeatsBy: return "skipRepeats"
        case .uniqueValuesBy: return "uniqueValues"
        case .promoteValue: return "promoteValue"
        }
    }

    public static func add(_ p: Program, to s: inout Set<String>) {
        names(p.root, into: &s)
        for b in p.bindings { s.insert("<~"); names(b.source, into: &s) }
        for t in p.taps { s.insert(["observe", "observe", "observeResult", "observeValues", "observeCompleted", "observeFailed", "observeInterrupted"][t.kind]); names(t.node, into: &s) }
        if p.serialRuns { s.insert("SerialDisposable") }
        for f in p.pipeFactories { s.insert(["pipe", "unserializedPipe", "reentrantUnserializedPipe"][f]) }
        s.insert(["start", "start", "startWithResult", "startWithValues", "startWithCompleted", "startWithFailed", "startWithInterrupted"][p.startKind])
        for a in p.actions { s.insert("Action.init"); names(a.body, into: &s) }
        s.formUnion(["make", "+=", "CompositeDisposable.init", "add", "dispose", "start", "advance", "promoteError"])
        for step in p.steps {
            switch step {
            case .fail: s.insert("send")
            case .set: s.insert("value")
            case .apply: s.insert("apply")
            case .swap: s.insert("swap")
            case .modify: s.insert("modify")
            case .withValue: s.insert("withValue")
            case let .blocking(k, n): s.insert(["first", "last", "single", "wait"][k]); names(n, into: &s)
            default: break
            }
        }
    }

    /// Prints names reached / public operator names of Flare's Signal,
    /// SignalProducer, Property, Action and disposable sources.
    public static func report(covered: Set<String>, flareSources root: String, reactiveSwiftSources: String?) -> String {
        let folders = ["Operators", "Signal", "SignalProducer", "Property", "Action", "Disposables"]
        var publicNames = publicFunctionNames(folders.map { root + "/" + $0 })
        var out: [String] = []
        if let rs = reactiveSwiftSources {
            // Names Flare has and ReactiveSwift does not are not comparable.
            let theirs = publicFunctionNames([rs])
            let flareOnly = publicNames.subtracting(theirs)
            publicNames.formIntersection(theirs)
            out.append("  Flare-only public names (not compared): \(flareOnly.sorted().joined(separator: " "))")
        }
        let reached = publicNames.intersection(covered.map { $0.replacingOccurrences(of: "`", with: "") })
        out.insert("coverage: \(reached.count) / \(publicNames.count) public function names of Flare's Signal, SignalProducer, Property, Action and Disposables sources\(reactiveSwiftSources == nil ? "" : " that ReactiveSwift also declares") reached", at: 0)
        out.append("  not reached: \(publicNames.subtracting(reached).sorted().joined(separator: " "))")
        let extra = covered.filter { $0.contains("init") || $0.hasPrefix("strategy") }.sorted()
        out.append("  initializers and strategies reached: \(extra.joined(separator: ", "))")
        return out.joined(separator: "\n")
    }

    static func publicFunctionNames(_ dirs: [String]) -> Set<String> {
        var publicNames = Set<String>()
        let fm = FileManager.default
        for linked in dirs {
            let dir = URL(fileURLWithPath: linked).resolvingSymlinksInPath().path
            guard let files = fm.enumerator(atPath: dir) else { continue }
            for case let file as String in files where file.hasSuffix(".swift") {
                guard let text = try? String(contentsOfFile: dir + "/" + file, encoding: .utf8) else { continue }
                for line in text.split(separator: "\n") {
                    let t = line.trimmingCharacters(in: .whitespaces)
                    guard t.hasPrefix("public ") else { continue }
                    if let r = t.range(of: #"func [A-Za-z_`]+"#, options: .regularExpression) {
                        publicNames.insert(String(t[r].dropFirst(5)).replacingOccurrences(of: "`", with: ""))
                    }
                }
            }
        }
        return publicNames
    }
}
