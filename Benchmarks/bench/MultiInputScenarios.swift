import Flare
import MallocCounter

// MARK: combineLatest and zip at every arity

/// One thread sends 1, 2, 3… to each input of a `combineLatest` or `zip` in
/// turn, one observer on the output adding up each tuple: ns and heap
/// allocations per value sent, the operator's own cost with no contention
/// (the `combine` scenario measures the funnel under two senders). Forms:
/// the instance two-input form, the static forms at 3 and 10 inputs, the
/// sequence form at 3.
///
/// The limit: the same bookkeeping written directly (latest values or one
/// queue per input in arrays, the observer called as a closure).
struct MultiInput {
    enum Operator: String {
        case combineLatest, zip
    }

    enum Form {
        case instance, static3, static10, sequence3

        var inputs: Int {
            switch self {
            case .instance: 2
            case .static3, .sequence3: 3
            case .static10: 10
            }
        }

        /// The case's name, short enough for the report's column.
        func name(_ op: Operator) -> String {
            let prefix = op == .combineLatest ? "CL" : "zip"
            switch self {
            case .instance: return "\(prefix)(with:)"
            case .static3: return "\(prefix)(a,b,c)"
            case .static10: return "\(prefix)(a…j)"
            case .sequence3: return "\(prefix)([a,b,c])"
            }
        }
    }

    let op: Operator
    let form: Form

    static let metrics = [
        Metric(name: "ns/value sent", unit: "ns", lowerIsBetter: true),
        Metric(name: "allocs/value sent", unit: "", lowerIsBetter: true),
    ]

    /// The output of the form over `s`, each tuple as the sum of its values.
    func output(_ s: [Signal<Int, Never>]) -> Signal<Int, Never> {
        switch (op, form) {
        case (.combineLatest, .instance):
            s[0].combineLatest(with: s[1]).map { $0 &+ $1 }
        case (.zip, .instance):
            s[0].zip(with: s[1]).map { $0 &+ $1 }
        case (.combineLatest, .static3):
            Signal.combineLatest(s[0], s[1], s[2]).map { $0 &+ $1 &+ $2 }
        case (.zip, .static3):
            Signal.zip(s[0], s[1], s[2]).map { $0 &+ $1 &+ $2 }
        case (.combineLatest, .static10):
            Signal.combineLatest(s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8], s[9])
                .map { $0 &+ $1 &+ $2 &+ $3 &+ $4 &+ $5 &+ $6 &+ $7 &+ $8 &+ $9 }
        case (.zip, .static10):
            Signal.zip(s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8], s[9])
                .map { $0 &+ $1 &+ $2 &+ $3 &+ $4 &+ $5 &+ $6 &+ $7 &+ $8 &+ $9 }
        case (.combineLatest, .sequence3):
            Signal.combineLatest([s[0], s[1], s[2]]).map { $0[0] &+ $0[1] &+ $0[2] }
        case (.zip, .sequence3):
            Signal.zip([s[0], s[1], s[2]]).map { $0[0] &+ $0[1] &+ $0[2] }
        }
    }

    /// What the sink holds after `rounds` rounds (1…rounds to every input
    /// in turn), the priming round 0 included.
    func expectedTotal(rounds: Int) -> Int {
        let n = form.inputs
        switch op {
        case .combineLatest:
            // The k-th send of round r (k = 0…n-1) combines k+1 inputs at r
            // with n-k-1 inputs at r-1.
            var total = 0
            for r in 1...rounds {
                for k in 0..<n { total &+= (k + 1) &* r &+ (n - k - 1) &* (r - 1) }
            }
            return total
        case .zip:
            return n &* triangular(rounds)
        }
    }

    func flare(amount rounds: Int) -> Measurement {
        let sink = Sink.make()
        defer { sink.free() }
        let pipes = (0..<form.inputs).map { _ in Signal<Int, Never>.pipe() }
        let inputs = pipes.map(\.input)
        let handle = output(pipes.map(\.output)).observeValues { sink.add($0) }
        // Round 0 primes combineLatest (every input has a value from then on).
        for input in inputs { input.send(value: 0) }
        let t0 = now()
        for v in 1...rounds {
            for input in inputs { input.send(value: v) }
        }
        let t1 = now()
        check(sink.total == expectedTotal(rounds: rounds), "\(form.name(op)): total \(sink.total)")
        let counted = 256
        mc_set_counting(1)
        let a0 = mc_allocations()
        for v in 1...counted {
            for input in inputs { input.send(value: v) }
        }
        let a1 = mc_allocations()
        mc_set_counting(0)
        blackHole(handle)
        let sent = Double(rounds * form.inputs)
        return Measurement(elapsed: t1 - t0,
                           values: [Double(t1 - t0) / sent, Double(a1 - a0) / Double(counted * form.inputs)])
    }

    func limit(amount rounds: Int) -> Measurement {
        let sink = Sink.make()
        defer { sink.free() }
        let n = form.inputs
        let observer = makeLimitClosure(sink)
        var latest = ContiguousArray(repeating: 0, count: n)
        var queues = ContiguousArray(repeating: ContiguousArray<Int>(), count: n)
        var heads = ContiguousArray(repeating: 0, count: n)
        @inline(never)
        func send(_ v: Int, to index: Int) {
            switch op {
            case .combineLatest:
                latest[index] = v
                var sum = 0
                for i in 0..<n { sum &+= latest[i] }
                observer(sum)
            case .zip:
                queues[index].append(v)
                for i in 0..<n where heads[i] == queues[i].count { return }
                var sum = 0
                for i in 0..<n {
                    sum &+= queues[i][heads[i]]
                    heads[i] += 1
                    if heads[i] == queues[i].count {
                        queues[i].removeAll(keepingCapacity: true)
                        heads[i] = 0
                    }
                }
                observer(sum)
            }
        }
        for i in 0..<n { send(0, to: i) }
        let t0 = now()
        for v in 1...rounds {
            for i in 0..<n { send(v, to: i) }
        }
        let t1 = now()
        check(sink.total == expectedTotal(rounds: rounds), "limit \(form.name(op)): total \(sink.total)")
        return Measurement(elapsed: t1 - t0, values: [Double(t1 - t0) / Double(rounds * n), 0])
    }
}

func runMultiInputScenarios(_ runner: Runner) {
    guard runner.options.includes("combine-arity") else { return }
    progress("combine-arity")
    for op in [MultiInput.Operator.combineLatest, .zip] {
        for form in [MultiInput.Form.instance, .static3, .static10, .sequence3] {
            let body = MultiInput(op: op, form: form)
            runner.measure(scenario: "combine-arity",
                           title: "combineLatest (CL) and zip: one thread sending to each input in turn, one observer",
                           caseName: form.name(op), metrics: MultiInput.metrics,
                           entries: [Entry(name: flareName) { body.flare(amount: $0) },
                                     Entry(name: limitName) { body.limit(amount: $0) }],
                           initialAmount: 1024)
        }
    }
}
