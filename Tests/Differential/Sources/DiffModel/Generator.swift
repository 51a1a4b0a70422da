// Random programs from a seed. The generator keeps to what ReactiveSwift
// defines: a value sent from inside a delivery (an `inject` node) goes only
// to a pipe or property with a higher channel number than every source the
// node's own values can come from, so no send ever re-enters a signal that is
// delivering (ReactiveSwift deadlocks there; Flare queues).

public struct SplitMix64: RandomNumberGenerator, Sendable {
    var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The seed of pipeline `index` in a run seeded with `seed`.
public func caseSeed(_ seed: UInt64, _ index: Int) -> UInt64 {
    var g = SplitMix64(seed: seed ^ (UInt64(index) &* 0xD6E8_FEB8_6659_FD93))
    return g.next()
}

public struct Generator {
    var rng: SplitMix64
    let pipeCount: Int
    let propCount: Int
    let lifetimeCount = 2
    var actionCount = 0
    var neverPipes: [Bool] = []
    var nextId = 0
    var inActionBody = false
    /// The highest channel whose delivery may be on the stack when the node
    /// being generated is started (an inner started by an outer's value, a
    /// replacement started by a terminal event).
    var floor = -1

    public static func program(seed: UInt64) -> Program {
        var g = Generator(seed: seed)
        return g.makeProgram()
    }

    init(seed: UInt64) {
        rng = SplitMix64(seed: seed)
        var r = rng
        pipeCount = Int.random(in: 2...4, using: &r)
        propCount = Int.random(in: 1...2, using: &r)
        rng = r
    }

    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &rng) }
    mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &rng) < p }
    mutating func id() -> Int { nextId += 1; return nextId }

    mutating func makeProgram() -> Program {
        neverPipes = (0..<pipeCount).map { _ in chance(0.25) }
        let props = (0..<propCount).map { _ in int(0...9) }
        var actions: [ActionSpec] = []
        if chance(0.3) {
            inActionBody = true
            floor = Int.max / 2
            actions.append(ActionSpec(enabledIf: chance(0.5) ? int(0...(propCount - 1)) : nil, body: node(depth: int(0...2))))
            inActionBody = false
            floor = -1
            actionCount = 1
        }
        var bindings: [Binding] = []
        if chance(0.2) {
            // A binding's values go into its property from inside its
            // source's delivery: the source's channels must be below it.
            let k = int(0...(propCount - 1))
            let source = node(depth: int(0...2))
            if maxChannel(source) < pipeCount + k { bindings.append(Binding(property: k, source: source)) }
        }
        var taps: [Tap] = []
        if chance(0.2) { taps.append(Tap(kind: int(0...(ObserveKind.count - 1)), node: node(depth: int(0...3)))) }
        let root = node(depth: int(1...5))
        var steps: [Step] = []
        for _ in 0..<int(2...16) { steps.append(step()) }
        let startKind = chance(0.6) ? 0 : int(1...(ObserveKind.count - 1))
        var program = Program(neverPipes: neverPipes, properties: props, lifetimes: lifetimeCount,
                              actions: actions, root: root, steps: steps, bindings: bindings, taps: taps, startKind: startKind)
        program.serialRuns = chance(0.2)
        if chance(0.15) { program.pipeFactories = (0..<pipeCount).map { _ in chance(0.5) ? 0 : int(1...2) } }
        return program
    }

    mutating func step() -> Step {
        let p = int(0...(pipeCount - 1))
        switch int(0...99) {
        case 0..<45: return .send(p, int(0...9))
        case 45..<52: return .complete(p)
        case 52..<57: return neverPipes[p] ? .complete(p) : .fail(p, int(1...3))
        case 57..<60: return .interrupt(p)
        case 60..<72: return .advance(int(1...4))
        case 72..<76: return .set(int(0...(propCount - 1)), int(0...9))
        case 76: return .swap(int(0...(propCount - 1)), int(0...9))
        case 77: return .modify(int(0...(propCount - 1)), int(1...3))
        case 78: return chance(0.5) ? .withValue(int(0...(propCount - 1))) : .blocking(int(0...3), syncNode(depth: int(0...3)))
        case 79..<84: return actionCount > 0 ? .apply(action: 0, input: int(0...5)) : .send(p, int(0...9))
        case 84..<88: return .start
        case 88..<93: return .disposeRun(int(0...1))
        case 93..<98: return .endLifetime(int(0...(lifetimeCount - 1)))
        default: return .disposeComposite
        }
    }

    mutating func source() -> Node {
        switch int(0...99) {
        case 0..<38: return .pipe(int(0...(pipeCount - 1)))
        case 38, 39: return .relay(int(0...(pipeCount - 1)), reentrant: chance(0.5))
        case 40..<48: return .values(id: id(), (0..<int(0...4)).map { _ in int(0...9) })
        case 48..<51: return .naturals(id: id(), from: int(0...5))
        case 51..<54: return .value(int(0...9))
        case 54..<56: return .error(int(1...3))
        case 56..<58: return .empty
        case 58..<60: return .never
        case 60: return .thunk(int(0...9))
        case 61:
            switch int(0...2) {
            case 0: return .variadic(int(0...9), int(0...9), int(0...9))
            case 1: return .result(chance(0.7) ? int(0...9) : -int(1...3))
            default: return .resultThunk(chance(0.7) ? int(0...9) : -int(1...3))
            }
        case 62..<70:
            let end: End = [.completed, .failed(int(1...3)), .interrupted, .none][int(0...3)]
            return .handler(id: id(), values: (0..<int(0...3)).map { _ in int(0...9) }, end: end)
        case 70..<74: return .timer(interval: int(1...3), count: int(0...4))
        case 74: return .interval(id: id(), (0..<int(0...4)).map { _ in int(0...9) }, every: int(1...3))
        case 75: return chance(0.5) ? .intervalCount(every: int(1...3)) : .lifetimeEnded(int(0...(lifetimeCount - 1)))
        case 76..<83: return .property(prop(depth: int(0...2)))
        case 83..<87: return .propertySignal(prop(depth: int(0...1)))
        default:
            guard actionCount > 0 && !inActionBody else { return .pipe(int(0...(pipeCount - 1))) }
            switch int(0...5) {
            case 0, 1: return .apply(action: 0, input: int(0...5))
            case 2: return .actionValues(0)
            case 3: return chance(0.5) ? .actionErrors(0) : .actionCompleted(0)
            case 4: return .actionEvents(0)
            default: return chance(0.5) ? .actionExecuting(0) : .actionEnabled(0)
            }
        }
    }

    mutating func prop(depth: Int) -> Prop {
        if depth <= 0 || chance(0.3) {
            return chance(0.8) ? .mutable(int(0...(propCount - 1))) : .constant(int(0...9))
        }
        let d = depth - 1
        switch int(0...10) {
        case 0: return .map(prop(depth: d), int(1...5))
        case 1: return .combineLatest(prop(depth: d), prop(depth: d))
        case 2: return .zip(prop(depth: d), prop(depth: d))
        case 3: return .initialThen(int(0...9), node(depth: d))
        case 4: return .skipRepeats(prop(depth: d))
        case 5: return .uniqueValues(prop(depth: d))
        case 6: return .filter(prop(depth: d), int(2...3))
        case 7: return .combinePrevious(prop(depth: d))
        case 8: return .flatMapLatest(prop(depth: d), (0..<int(1...2)).map { _ in prop(depth: d) })
        case 9: return .capturing(prop(depth: d))
        default: return .map(prop(depth: d), int(1...5))
        }
    }

    mutating func unary() -> Unary {
        switch int(0...52) {
        case 0: return .map(int(1...9))
        case 1: return .mapValue(int(0...9))
        case 2: return .filter(int(2...3))
        case 3: return .compactMap(int(2...3))
        case 4: return .skipNil(int(2...3))
        case 5: return .skipFirst(int(0...3))
        case 6, 7: return .takeFirst(int(0...3))
        case 8: return .takeLast(int(1...3))
        case 9: return .skipWhile(int(0...9))
        case 10: return .takeWhile(int(0...9))
        case 11: return .takeUntilValue(int(0...9))
        case 12: return .skipRepeats
        case 13: return .uniqueValues
        case 14: return .combinePrevious(chance(0.5) ? int(0...9) : nil)
        case 15: return .scan(int(0...9))
        case 16: return .scanInto(int(0...9))
        case 17: return .scanMap(int(0...9))
        case 18: return .reduce(int(0...9))
        case 19: return .reduceInto(int(0...9))
        case 20: return .collect
        case 21: return .collectCount(int(1...3))
        case 22: return .collectWhile(int(1...3))
        case 23: return .materialize
        case 24: return .materializeResults
        case 25: return .dematerialize
        case 26: return .mapError(int(1...9))
        case 27: return .attemptMap(int(0...9))
        case 28: return .attempt(int(0...9))
        case 29: return .promoteNever
        case 30: return .delay(int(0...3))
        case 31: return .debounce(int(0...3), chance(0.5))
        case 32: return .throttle(int(0...3))
        case 33: return .timeout(int(1...6), int(4...6))
        case 34: return .observeOn
        case 35: return .startOn
        case 36: return .lazyMap(int(1...9))
        case 37: return .collectEvery(int(1...3))
        case 38: return .replayLazily(int(0...3))
        case 39: return .retry(int(0...2))
        case 40: return .repeatCount(int(0...3))
        case 41, 42: return .logEvents(id())
        case 43, 44: return .hooks(id())
        case 45, 46: return .takeDuring(int(0...(lifetimeCount - 1)))
        case 47: return .negate
        case 48: return .lift(int(1...9))
        case 49: return .dematerializeResults
        case 50: return .skipRepeatsBy(int(2...3))
        case 51: return .uniqueValuesBy(int(2...3))
        default: return .promoteValue
        }
    }

    /// A producer that terminates synchronously when started (for the
    /// blocking `first()`, `last()`, `single()` and `wait()`).
    mutating func syncNode(depth: Int) -> Node {
        if depth <= 0 || chance(0.25) {
            switch int(0...7) {
            case 0, 1: return .values(id: id(), (0..<int(0...4)).map { _ in int(0...9) })
            case 2: return .value(int(0...9))
            case 3: return .error(int(1...3))
            case 4: return .empty
            case 5: return .thunk(int(0...9))
            case 6: return .variadic(int(0...9), int(0...9), int(0...9))
            default:
                let end: End = [.completed, .failed(int(1...3)), .interrupted][int(0...2)]
                return .handler(id: id(), values: (0..<int(0...3)).map { _ in int(0...9) }, end: end)
            }
        }
        let d = depth - 1
        switch int(0...9) {
        case 0: return .merge([syncNode(depth: d), syncNode(depth: d)])
        case 1: return .concat(syncNode(depth: d), syncNode(depth: d))
        case 2: return .zip([syncNode(depth: d), syncNode(depth: d)])
        case 3: return .flatMap([.merge, .concat, .latest][int(0...2)], syncNode(depth: d), [syncNode(depth: d)])
        default:
            let sync: [Unary] = [.map(int(1...9)), .filter(int(2...3)), .takeFirst(int(0...3)), .takeLast(int(1...3)),
                                 .skipFirst(int(0...2)), .scan(int(0...9)), .reduce(int(0...9)), .collect, .materialize,
                                 .attemptMap(int(0...9)), .mapError(int(1...3)), .hooks(id()), .logEvents(id()),
                                 .retry(int(0...2)), .repeatCount(int(0...2)), .replayLazily(int(0...2)), .skipRepeats]
            return .unary(sync[int(0...(sync.count - 1))], syncNode(depth: d))
        }
    }

    mutating func strategy() -> Strategy {
        [.merge, .concat, .latest, .race, .throttle, .concurrent(int(1...2))][int(0...5)]
    }

    mutating func node(depth: Int) -> Node {
        if depth <= 0 { return source() }
        let d = depth - 1
        switch int(0...99) {
        case 0..<10: return source()
        case 10..<45: return .unary(unary(), node(depth: d))
        case 45..<48: return .combineLatest((0..<int(2...3)).map { _ in node(depth: d) })
        case 48..<51: return .zip((0..<int(2...3)).map { _ in node(depth: d) })
        case 51..<54: return .merge((0..<int(2...3)).map { _ in node(depth: d) })
        case 54: return .combineLatestWith(node(depth: d), node(depth: d))
        case 55: return .zipWith(node(depth: d), node(depth: d))
        case 56: return .mergeWith(node(depth: d), node(depth: d))
        case 57, 58: return .withLatest(node(depth: d), node(depth: d))
        case 59: return .sampleWith(node(depth: d), node(depth: d))
        case 60: return .sampleOn(node(depth: d), node(depth: d))
        case 61, 62: return .takeUntil(node(depth: d), node(depth: d))
        case 63: return .skipUntil(node(depth: d), node(depth: d))
        case 64: let a = node(depth: d); return .takeUntilReplacement(a, started(after: a, depth: d))
        case 65, 66: let a = node(depth: d); return .then(a, started(after: a, depth: d))
        case 67: let a = node(depth: d); return .concat(a, started(after: a, depth: d))
        case 68: let b = node(depth: d); return .prefix(started(after: b, depth: d), b)
        case 69..<80:
            let s = strategy()
            let outer = node(depth: d)
            return .flatMap(s, outer, (0..<int(1...3)).map { _ in started(after: outer, depth: min(d, 2)) })
        case 80..<82: let a = node(depth: d); return .flatMapError(a, started(after: a, depth: d))
        case 82:
            switch int(0...5) {
            case 0, 1:
                let s = strategy()
                let outer = node(depth: d)
                return .flatten(s, outer, (0..<int(1...2)).map { _ in started(after: outer, depth: min(d, 2)) })
            case 2: return .and(node(depth: d), node(depth: d))
            case 3: return .or(node(depth: d), node(depth: d))
            case 4: return .all((0..<int(1...3)).map { _ in node(depth: d) })
            default: return .any((0..<int(1...3)).map { _ in node(depth: d) })
            }
        case 83..<88: return .hot(node(depth: d))
        default:
            let inner = node(depth: d)
            return .inject(inner, when: int(0...3), injection(above: Swift.max(maxChannel(inner), floor)))
        }
    }

    /// A node started from inside the delivery of `trigger`'s events.
    mutating func started(after trigger: Node, depth: Int) -> Node {
        let saved = floor
        floor = Swift.max(floor, maxChannel(trigger))
        defer { floor = saved }
        return node(depth: depth)
    }

    /// An injection whose sends go only to channels above `floor`.
    mutating func injection(above floor: Int) -> Injection {
        let channels = pipeCount + propCount
        for _ in 0..<3 {
            switch int(0...9) {
            case 0..<4:
                if floor + 1 < channels {
                    let c = int((floor + 1)...(channels - 1))
                    if c < pipeCount { return chance(0.8) ? .send(pipe: c, int(0...9)) : .complete(pipe: c) }
                    return .set(property: c - pipeCount, int(0...9))
                }
            case 4..<6: return .disposeRun(int(0...1))
            case 6..<9: return .endLifetime(int(0...(lifetimeCount - 1)))
            default: return .disposeComposite
            }
        }
        return .endLifetime(0)
    }

    func maxChannel(_ n: Node) -> Int { Channels(pipeCount: pipeCount, actions: []).max(n) }
}

/// Which sends a node's values can come from: pipes are channels
/// 0..<pipeCount, mutable property k is channel pipeCount + k.
public struct Channels {
    public let pipeCount: Int
    public let actions: [ActionSpec]
    public init(pipeCount: Int, actions: [ActionSpec]) { self.pipeCount = pipeCount; self.actions = actions }

    /// Every action's body and enabling property count for the nodes that
    /// use the action (a generator-time node has no action yet: all count).
    public func max(_ n: Node) -> Int {
        switch n {
        case let .pipe(i), let .relay(i, _): return i
        case .values, .naturals, .value, .error, .empty, .never, .thunk, .handler, .timer: return -1
        case let .property(p), let .propertySignal(p): return max(p)
        case .variadic, .result, .resultThunk, .interval, .intervalCount, .lifetimeEnded: return -1
        case .apply, .actionValues, .actionErrors, .actionExecuting, .actionEnabled, .actionEvents, .actionCompleted:
            // Conservative: an action's values may come from any channel.
            return Int.max / 2
        case let .unary(_, a), let .hot(a), let .inject(a, _, _): return max(a)
        case let .combineLatest(ns), let .zip(ns), let .merge(ns): return ns.map(max).max() ?? -1
        case let .combineLatestWith(a, b), let .zipWith(a, b), let .mergeWith(a, b), let .withLatest(a, b),
             let .sampleWith(a, b), let .sampleOn(a, b), let .takeUntil(a, b), let .skipUntil(a, b),
             let .takeUntilReplacement(a, b), let .then(a, b), let .concat(a, b), let .prefix(a, b),
             let .flatMapError(a, b), let .and(a, b), let .or(a, b):
            return Swift.max(max(a), max(b))
        case let .all(ns), let .any(ns): return ns.map(max).max() ?? -1
        case let .flatMap(_, a, inners), let .flatten(_, a, inners): return Swift.max(max(a), inners.map(max).max() ?? -1)
        }
    }

    public func max(_ p: Prop) -> Int {
        switch p {
        case let .mutable(i): return pipeCount + i
        case .constant: return -1
        case let .map(q, _), let .skipRepeats(q), let .uniqueValues(q), let .filter(q, _),
             let .combinePrevious(q), let .capturing(q):
            return max(q)
        case let .combineLatest(a, b), let .zip(a, b): return Swift.max(max(a), max(b))
        case let .initialThen(_, n): return max(n)
        case let .flatMapLatest(q, ps): return Swift.max(max(q), ps.map(max).max() ?? -1)
        }
    }
}
