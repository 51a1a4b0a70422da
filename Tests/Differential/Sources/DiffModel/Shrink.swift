// Shrinking: smaller programs that still fail, tried greedily until none
// of them fails. A node is only ever replaced by one of its own descendants
// or by a source with no channel, and steps are only removed, so a shrunk
// program keeps the generator's rule about sends from inside a delivery.

public func shrink(_ program: Program, stillFails: (Program) -> Bool) -> Program {
    var best = program
    var improved = true
    var budget = 400
    while improved && budget > 0 {
        improved = false
        for candidate in candidates(best) {
            budget -= 1
            if budget <= 0 { break }
            if stillFails(candidate) {
                best = candidate
                improved = true
                break
            }
        }
    }
    return best
}

/// Candidates, roughly from the largest cut to the smallest.
func candidates(_ p: Program) -> [Program] {
    var out: [Program] = []
    // Fewer steps: halves first, then one at a time.
    if p.steps.count > 1 {
        var q = p; q.steps = Array(p.steps.prefix(p.steps.count / 2)); out.append(q)
        q = p; q.steps = Array(p.steps.suffix(p.steps.count - p.steps.count / 2)); out.append(q)
    }
    for i in p.steps.indices.reversed() {
        var q = p; q.steps.remove(at: i); out.append(q)
    }
    if p.serialRuns { var q = p; q.serialRuns = false; out.append(q) }
    if !p.pipeFactories.isEmpty { var q = p; q.pipeFactories = []; out.append(q) }
    if p.startKind != 0 { var q = p; q.startKind = 0; out.append(q) }
    for i in p.bindings.indices.reversed() { var q = p; q.bindings.remove(at: i); out.append(q) }
    for i in p.taps.indices.reversed() { var q = p; q.taps.remove(at: i); out.append(q) }
    for (i, b) in p.bindings.enumerated() {
        for n in reductions(b.source) { var q = p; q.bindings[i].source = n; out.append(q) }
    }
    for (i, t) in p.taps.enumerated() {
        if t.kind != 0 { var q = p; q.taps[i].kind = 0; out.append(q) }
        for n in reductions(t.node) { var q = p; q.taps[i].node = n; out.append(q) }
    }
    for n in reductions(p.root) {
        var q = p; q.root = n; out.append(q)
    }
    if !p.actions.isEmpty && !usesAction(p.root) && !p.bindings.contains(where: { usesAction($0.source) })
        && !p.taps.contains(where: { usesAction($0.node) }) {
        var q = p
        q.actions = []
        q.steps.removeAll { if case .apply = $0 { return true }; return false }
        out.append(q)
    }
    for (i, a) in p.actions.enumerated() {
        if a.enabledIf != nil {
            var q = p; q.actions[i].enabledIf = nil; out.append(q)
        }
        for n in reductions(a.body) {
            var q = p; q.actions[i].body = n; out.append(q)
        }
    }
    for (i, v) in p.steps.enumerated() {
        if let s = simpler(v) { var q = p; q.steps[i] = s; out.append(q) }
    }
    return out
}

func simpler(_ s: Step) -> Step? {
    switch s {
    case let .send(i, v) where v != 0: return .send(i, v > 1 ? 1 : 0)
    case let .advance(n) where n > 1: return .advance(1)
    case let .blocking(k, n):
        // Only to a child that is itself synchronous: the first one.
        if let c = children(n).first, !isLeaf(n) { return .blocking(k, c) }
        return nil
    default: return nil
    }
}

/// Whole-node replacements for `n`, then `n` with one child reduced.
func reductions(_ n: Node) -> [Node] {
    var out: [Node] = []
    let kids = children(n)
    out.append(contentsOf: kids)
    if !isLeaf(n) {
        out.append(.empty)
        out.append(.value(1))
    }
    for (i, kid) in kids.enumerated() {
        for r in reductions(kid) { out.append(replacing(n, child: i, with: r)) }
    }
    // Shorter lists.
    switch n {
    case let .combineLatest(ns) where ns.count > 2:
        for i in ns.indices { var m = ns; m.remove(at: i); out.append(.combineLatest(m)) }
    case let .zip(ns) where ns.count > 2:
        for i in ns.indices { var m = ns; m.remove(at: i); out.append(.zip(m)) }
    case let .merge(ns) where ns.count > 2:
        for i in ns.indices { var m = ns; m.remove(at: i); out.append(.merge(m)) }
    case let .flatMap(s, a, inners) where inners.count > 1:
        for i in inners.indices { var m = inners; m.remove(at: i); out.append(.flatMap(s, a, m)) }
    case let .flatten(s, a, inners) where inners.count > 1:
        for i in inners.indices { var m = inners; m.remove(at: i); out.append(.flatten(s, a, m)) }
    case let .all(ns) where ns.count > 1:
        for i in ns.indices { var m = ns; m.remove(at: i); out.append(.all(m)) }
    case let .any(ns) where ns.count > 1:
        for i in ns.indices { var m = ns; m.remove(at: i); out.append(.any(m)) }
    case let .values(id, vs) where !vs.isEmpty:
        out.append(.values(id: id, Array(vs.dropLast())))
    case let .handler(id, vs, end) where !vs.isEmpty:
        out.append(.handler(id: id, values: Array(vs.dropLast()), end: end))
    default: break
    }
    return out
}

func isLeaf(_ n: Node) -> Bool { children(n).isEmpty }

func children(_ n: Node) -> [Node] {
    switch n {
    case .pipe, .relay, .values, .naturals, .value, .error, .empty, .never, .thunk, .handler, .timer,
         .property, .propertySignal, .apply, .actionValues, .actionErrors, .actionExecuting, .actionEnabled,
         .actionEvents, .actionCompleted, .variadic, .result, .resultThunk, .interval, .intervalCount, .lifetimeEnded:
        return []
    case let .unary(_, a), let .hot(a), let .inject(a, _, _): return [a]
    case let .combineLatest(ns), let .zip(ns), let .merge(ns): return ns
    case let .combineLatestWith(a, b), let .zipWith(a, b), let .mergeWith(a, b), let .withLatest(a, b),
         let .sampleWith(a, b), let .sampleOn(a, b), let .takeUntil(a, b), let .skipUntil(a, b),
         let .takeUntilReplacement(a, b), let .then(a, b), let .concat(a, b), let .prefix(a, b),
         let .flatMapError(a, b), let .and(a, b), let .or(a, b):
        return [a, b]
    case let .all(ns), let .any(ns): return ns
    case let .flatMap(_, a, inners), let .flatten(_, a, inners): return [a] + inners
    }
}

func replacing(_ n: Node, child i: Int, with r: Node) -> Node {
    func two(_ a: Node, _ b: Node, _ make: (Node, Node) -> Node) -> Node { i == 0 ? make(r, b) : make(a, r) }
    func list(_ ns: [Node]) -> [Node] { var m = ns; m[i] = r; return m }
    switch n {
    case let .unary(u, _): return .unary(u, r)
    case .hot: return .hot(r)
    case let .inject(_, w, j): return .inject(r, when: w, j)
    case let .combineLatest(ns): return .combineLatest(list(ns))
    case let .zip(ns): return .zip(list(ns))
    case let .merge(ns): return .merge(list(ns))
    case let .combineLatestWith(a, b): return two(a, b, Node.combineLatestWith)
    case let .zipWith(a, b): return two(a, b, Node.zipWith)
    case let .mergeWith(a, b): return two(a, b, Node.mergeWith)
    case let .withLatest(a, b): return two(a, b, Node.withLatest)
    case let .sampleWith(a, b): return two(a, b, Node.sampleWith)
    case let .sampleOn(a, b): return two(a, b, Node.sampleOn)
    case let .takeUntil(a, b): return two(a, b, Node.takeUntil)
    case let .skipUntil(a, b): return two(a, b, Node.skipUntil)
    case let .takeUntilReplacement(a, b): return two(a, b, Node.takeUntilReplacement)
    case let .then(a, b): return two(a, b, Node.then)
    case let .concat(a, b): return two(a, b, Node.concat)
    case let .prefix(a, b): return two(a, b, Node.prefix)
    case let .flatMapError(a, b): return two(a, b, Node.flatMapError)
    case let .and(a, b): return two(a, b, Node.and)
    case let .or(a, b): return two(a, b, Node.or)
    case let .all(ns): return .all(list(ns))
    case let .any(ns): return .any(list(ns))
    case let .flatMap(s, a, inners):
        if i == 0 { return .flatMap(s, r, inners) }
        var m = inners; m[i - 1] = r
        return .flatMap(s, a, m)
    case let .flatten(s, a, inners):
        if i == 0 { return .flatten(s, r, inners) }
        var m = inners; m[i - 1] = r
        return .flatten(s, a, m)
    default: return n
    }
}

func usesAction(_ n: Node) -> Bool {
    switch n {
    case .apply, .actionValues, .actionErrors, .actionExecuting, .actionEnabled, .actionEvents, .actionCompleted: return true
    case let .property(p), let .propertySignal(p): return usesAction(p)
    default: return children(n).contains(where: usesAction)
    }
}

func usesAction(_ p: Prop) -> Bool {
    switch p {
    case .mutable, .constant: return false
    case let .map(q, _), let .skipRepeats(q), let .uniqueValues(q), let .filter(q, _),
         let .combinePrevious(q), let .capturing(q):
        return usesAction(q)
    case let .combineLatest(a, b), let .zip(a, b): return usesAction(a) || usesAction(b)
    case let .initialThen(_, n): return usesAction(n)
    case let .flatMapLatest(q, ps): return usesAction(q) || ps.contains(where: usesAction)
    }
}
