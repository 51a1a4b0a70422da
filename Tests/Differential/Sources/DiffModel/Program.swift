// A program: sources (pipes, mutable properties, lifetimes, actions), one
// pipeline built from them, and a script of driver steps. Both interpreters
// run the same program on a TestScheduler and record what it can observe.

/// The error type of every pipeline: a code that makes failures comparable.
public struct TestError: Error, Hashable, Sendable, Codable, CustomStringConvertible {
    public let code: Int
    public init(code: Int) { self.code = code }
    public var description: String { "E\(code)" }
}

/// How a start handler ends after sending its values.
public enum End: Hashable, Sendable, Codable {
    case completed, failed(Int), interrupted, none
}

public enum Strategy: Hashable, Sendable, Codable {
    case merge, concat, latest, race, throttle, concurrent(Int)
}

/// One pipeline node; every node is a `SignalProducer<Int, TestError>`
/// (or, under `.hot`, a `Signal<Int, TestError>`).
public indirect enum Node: Hashable, Sendable, Codable {
    // Sources.
    case pipe(Int)                                   // SignalProducer(pipe.output)
    case relay(Int, reentrant: Bool)                 // Signal.(reentrantU|u)nserialized relaying pipe i, made at start
    case values(id: Int, [Int])                      // SignalProducer(sequence), pulls counted
    case naturals(id: Int, from: Int)                // SignalProducer(infinite sequence), pulls counted, capped
    case value(Int)                                  // SignalProducer(value:)
    case error(Int)                                  // SignalProducer(error:)
    case empty                                       // SignalProducer.empty
    case never                                       // SignalProducer.never
    case thunk(Int)                                  // SignalProducer { value }
    case handler(id: Int, values: [Int], end: End)   // SignalProducer { observer, lifetime in … }
    case timer(interval: Int, count: Int)            // SignalProducer.timer(…), count 0: unbounded
    case property(Prop)                              // property.producer
    case propertySignal(Prop)                        // SignalProducer(property.signal)
    case apply(action: Int, input: Int)              // action.apply(input)
    case actionValues(Int)                           // action.values
    case actionErrors(Int)                           // action.errors
    case actionExecuting(Int)                        // action.isExecuting.producer
    case actionEnabled(Int)                          // action.isEnabled.producer
    case actionEvents(Int)                           // action.events, each event as a number
    case actionCompleted(Int)                        // action.completed
    case variadic(Int, Int, Int)                     // SignalProducer(values: a, b, c)
    case result(Int)                                 // SignalProducer(result:), negative: failure
    case resultThunk(Int)                            // SignalProducer { () -> Result in … }
    case interval(id: Int, [Int], every: Int)        // SignalProducer.interval(sequence, interval:on:), pulls counted
    case intervalCount(every: Int)                   // SignalProducer.interval(_:on:)
    case lifetimeEnded(Int)                          // SignalProducer(lifetime.ended), as Ints
    // Operators.
    case unary(Unary, Node)
    case combineLatest([Node])                       // SignalProducer.combineLatest(a, b[, c])
    case zip([Node])                                 // SignalProducer.zip(a, b[, c])
    case merge([Node])                               // SignalProducer.merge(a, b[, c])
    case combineLatestWith(Node, Node)               // a.combineLatest(with: b)
    case zipWith(Node, Node)                         // a.zip(with: b)
    case mergeWith(Node, Node)                       // a.merge(with: b)
    case withLatest(Node, Node)                      // a.withLatest(from: b)
    case sampleWith(Node, Node)                      // a.sample(with: b)
    case sampleOn(Node, Node)                        // a.sample(on: b)
    case takeUntil(Node, Node)                       // a.take(until: b)
    case skipUntil(Node, Node)                       // a.skip(until: b)
    case takeUntilReplacement(Node, Node)            // a.take(untilReplacement: b)
    case then(Node, Node)                            // a.then(b)
    case concat(Node, Node)                          // a.concat(b)
    case prefix(Node, Node)                          // a.prefix(b)
    case flatMap(Strategy, Node, [Node])             // a.flatMap(s) { v in inners[v % n] }
    case flatMapError(Node, Node)                    // a.flatMapError { e in b }
    case flatten(Strategy, Node, [Node])             // a.map { v in inners[v % n] }.flatten(s)
    case and(Node, Node), or(Node, Node)             // on evenness: a.and(b), a.or(b)
    case all([Node]), any([Node])                    // SignalProducer.all([…]), .any([…])
    case hot(Node)                                   // built as a Signal when the program starts
    case inject(Node, when: Int, Injection)          // on(value:) performing an action once
}

public enum Unary: Hashable, Sendable, Codable {
    case map(Int), mapValue(Int), filter(Int), compactMap(Int), skipNil(Int)
    case skipFirst(Int), takeFirst(Int), takeLast(Int)
    case skipWhile(Int), takeWhile(Int), takeUntilValue(Int)
    case skipRepeats, uniqueValues, combinePrevious(Int?)
    case scan(Int), scanInto(Int), scanMap(Int), reduce(Int), reduceInto(Int)
    case collect, collectCount(Int), collectWhile(Int)
    case materialize, materializeResults, dematerialize
    case mapError(Int), attemptMap(Int), attempt(Int), promoteNever
    case delay(Int), debounce(Int, Bool), throttle(Int), timeout(Int, Int)
    case observeOn, startOn, lazyMap(Int), collectEvery(Int)
    case replayLazily(Int), retry(Int), repeatCount(Int)
    case logEvents(Int), hooks(Int), takeDuring(Int)
    case negate
    case lift(Int), dematerializeResults, skipRepeatsBy(Int), uniqueValuesBy(Int), promoteValue
}

/// A property built from mutable properties, constants and producers.
public indirect enum Prop: Hashable, Sendable, Codable {
    case mutable(Int)                 // Property(mutableProperty)
    case constant(Int)                // Property(value:)
    case map(Prop, Int)               // p.map { $0 &+ k }
    case combineLatest(Prop, Prop)    // Property.combineLatest(a, b)
    case zip(Prop, Prop)              // a.zip(with: b)
    case initialThen(Int, Node)       // Property(initial:then:)
    case skipRepeats(Prop)
    case uniqueValues(Prop)
    case filter(Prop, Int)            // p.filter(initial:_:)
    case combinePrevious(Prop)
    case flatMapLatest(Prop, [Prop])  // p.flatMap(.latest) { v in props[v % n] }
    case capturing(Prop)              // Property(capturing:)
}

/// What an `inject` node does (once) when a chosen value passes.
public enum Injection: Hashable, Sendable, Codable {
    case send(pipe: Int, Int)
    case complete(pipe: Int)
    case set(property: Int, Int)
    case disposeRun(Int)
    case endLifetime(Int)
    case disposeComposite
}

public enum Step: Hashable, Sendable, Codable {
    case send(Int, Int), complete(Int), fail(Int, Int), interrupt(Int)
    case advance(Int)
    case set(Int, Int)
    case apply(action: Int, input: Int)
    case start
    case disposeRun(Int)
    case endLifetime(Int)
    case disposeComposite
    case swap(Int, Int), modify(Int, Int), withValue(Int)
    /// first() (0), last() (1), single() (2) or wait() (3) of a producer
    /// that terminates synchronously.
    case blocking(Int, Node)
}

/// `property <~ source`, made when the program starts.
public struct Binding: Hashable, Sendable, Codable {
    public var property: Int
    public var source: Node
    public init(property: Int, source: Node) { self.property = property; self.source = source }
}

/// A sub-pipeline built as a `Signal` when the program starts and observed
/// with one of `observe`'s forms (`kind`, see `ObserveKind`).
public struct Tap: Hashable, Sendable, Codable {
    public var kind: Int
    public var node: Node
    public init(kind: Int, node: Node) { self.kind = kind; self.node = node }
}

/// How a run or tap is observed: 0 a closure of events, 1 an `Observer`
/// made from four closures, 2 results, 3 values, 4 completed, 5 failed,
/// 6 interrupted.
public enum ObserveKind {
    public static let count = 7
}

public struct ActionSpec: Hashable, Sendable, Codable {
    /// Enabled while this mutable property's value is even; always if nil.
    public var enabledIf: Int?
    public var body: Node
    public init(enabledIf: Int?, body: Node) { self.enabledIf = enabledIf; self.body = body }
}

public struct Program: Hashable, Sendable, Codable {
    /// `true`: a `Signal<Int, Never>` pipe; `false`: `Signal<Int, TestError>`.
    public var neverPipes: [Bool]
    public var properties: [Int]
    public var lifetimes: Int
    public var actions: [ActionSpec]
    public var root: Node
    public var steps: [Step]
    public var bindings: [Binding]
    public var taps: [Tap]
    /// How runs of `root` are started (an `ObserveKind`).
    public var startKind: Int
    /// How pipe i is made: 0 `pipe()`, 1 `unserializedPipe()`,
    /// 2 `reentrantUnserializedPipe()` (missing entries: 0).
    public var pipeFactories: [Int] = []
    /// Runs are held through a `SerialDisposable` (disposing it disposes
    /// the run) instead of the disposable `start` returned.
    public var serialRuns = false
    public init(neverPipes: [Bool], properties: [Int], lifetimes: Int, actions: [ActionSpec], root: Node, steps: [Step],
                bindings: [Binding] = [], taps: [Tap] = [], startKind: Int = 0) {
        self.neverPipes = neverPipes; self.properties = properties; self.lifetimes = lifetimes
        self.actions = actions; self.root = root; self.steps = steps
        self.bindings = bindings; self.taps = taps; self.startKind = startKind
    }
}

/// Shared by both interpreters so that they compute the same values.
public enum Fn {
    public static func mod(_ v: Int, _ m: Int) -> Int { let r = v % m; return r < 0 ? r + m : r }
    public static func pick(_ v: Int, _ n: Int) -> Int { mod(v, n) }
    public static func ms(_ seconds: Double) -> Int { Int((seconds * 1000).rounded()) }
    /// Infinite sources stop after this many pulls and record a runaway.
    public static let pullCap = 500
    /// A run stops recording after this many lines (a runaway of another kind).
    public static let lineCap = 20000
}

/// What one interpreter observed.
public struct Trace: Sendable, Equatable {
    public var lines: [String]
    /// An infinite source was pulled past `Fn.pullCap`, or the run recorded
    /// more than `Fn.lineCap` lines.
    public var runaway: Bool
    /// The number of lines recorded when a run of a property's producer
    /// first missed a change of the property (one made after the run heard
    /// the current value and before its start returned: ReactiveSwift's
    /// producer observes the property only then); nil if none did. Not
    /// compared: KnownDifferences reads it.
    public var missedChangeAt: Int?
    public init(lines: [String], runaway: Bool, missedChangeAt: Int? = nil) {
        self.lines = lines; self.runaway = runaway; self.missedChangeAt = missedChangeAt
    }
}
