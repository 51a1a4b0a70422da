import Flare
import MallocCounter

// MARK: Producers

/// The name of the producer cases' Signal comparison column.
let flareSignalName = "Flare Signal"

/// A producer of one value, `depth` lifted operators (the chain stages),
/// started `amount` times with one observer: ns and heap allocations per
/// start (the start, the value, the completion, and releasing the run).
struct ProducerStart {
    let depth: Int

    static let metrics = [
        Metric(name: "ns/start", unit: "ns", lowerIsBetter: true),
        Metric(name: "allocs/start", unit: "", lowerIsBetter: true),
    ]

    func run(amount starts: Int) -> Measurement {
        let sink = Sink.make()
        defer { sink.free() }
        var producer = SignalProducer<Int, Never>(value: 1)
        for stage in ChainStage.stages(depth: depth) {
            switch stage {
            case .map: producer = producer.map { $0 &+ 1 }
            case .filter: producer = producer.filter { $0 > 0 }
            }
        }
        let observer = Signal<Int, Never>.Observer { event in
            if case let .value(v) = event { sink.add(v) }
        }
        for _ in 0..<64 { producer.start(observer) }
        // Timed without the malloc counter, which costs two atomic adds
        // per allocation and per free; counted over a separate loop.
        let t0 = now()
        for _ in 0..<starts { producer.start(observer) }
        let t1 = now()
        let counted = 256
        mc_set_counting(1)
        let a0 = mc_allocations()
        for _ in 0..<counted { producer.start(observer) }
        let a1 = mc_allocations()
        mc_set_counting(0)
        check(sink.total == (starts + 64 + counted) &* ChainStage.output(of: 1, depth: depth), "producer start lost events")
        return Measurement(elapsed: t1 - t0, values: [Double(t1 - t0) / Double(starts), Double(a1 - a0) / Double(counted)])
    }

    /// The limit: a cold producer as two indirect calls (the value and the
    /// completion) to an observer closure, and the chain's closures.
    func limit(amount starts: Int) -> Measurement {
        let sink = Sink.make()
        defer { sink.free() }
        let stages = ChainStage.stages(depth: depth)
        let observer = makeLimitEventClosure(sink)
        let start = makeLimitStart(stages)
        mc_set_counting(1)
        let a0 = mc_allocations()
        let t0 = now()
        for _ in 0..<starts { start(observer) }
        let t1 = now()
        let a1 = mc_allocations()
        mc_set_counting(0)
        check(sink.total == starts &* ChainStage.output(of: 1, depth: depth), "limit producer start")
        return Measurement(elapsed: t1 - t0, values: [Double(t1 - t0) / Double(starts), Double(a1 - a0) / Double(starts)])
    }
}

/// A producer made with a start handler (`SignalProducer { observer,
/// lifetime in ... }`, ReactiveObjC's `createSignal:`), whose handler sends
/// one value and completes, started `amount` times with one observer: ns
/// and heap allocations per start (the start, the handler, the value, the
/// completion, the end of the run's lifetime, and releasing the run). The
/// limit is `ProducerStart(depth: 0)`'s: two calls of an observer closure.
struct ProducerHandlerStart {
    func run(amount starts: Int) -> Measurement {
        let sink = Sink.make()
        defer { sink.free() }
        let producer = SignalProducer<Int, Never> { observer, _ in
            observer.send(value: 1)
            observer.sendCompleted()
        }
        let observer = Signal<Int, Never>.Observer { event in
            if case let .value(v) = event { sink.add(v) }
        }
        for _ in 0..<64 { producer.start(observer) }
        let t0 = now()
        for _ in 0..<starts { producer.start(observer) }
        let t1 = now()
        let counted = 256
        mc_set_counting(1)
        let a0 = mc_allocations()
        for _ in 0..<counted { producer.start(observer) }
        let a1 = mc_allocations()
        mc_set_counting(0)
        check(sink.total == starts + 64 + counted, "start-handler producer lost events")
        return Measurement(elapsed: t1 - t0, values: [Double(t1 - t0) / Double(starts), Double(a1 - a0) / Double(counted)])
    }
}

/// An observer closure for the limit: values go to `sink`, a negative value
/// stands for the completion.
@inline(never)
func makeLimitEventClosure(_ sink: Sink) -> (Int) -> Void {
    { v in if v >= 0 { sink.add(v) } }
}

/// The limit's "start": sends 1 through the stages, then the completion.
@inline(never)
func makeLimitStart(_ stages: [ChainStage]) -> ((Int) -> Void) -> Void {
    { observer in
        var v = 1
        for stage in stages {
            switch stage {
            case let .map(f): v = f(v)
            case let .filter(f): if !f(v) { return }
            }
        }
        observer(v)
        observer(-1)
    }
}

/// `SignalProducer(0..<1000).map.filter.map.startWithValues`: ns per value,
/// the start included; against the same chain on a `Signal` (built once,
/// 1000 values sent per round) and against the limit.
struct ProducerSequenceChain {
    static let metrics = [Metric(name: "ns/value", unit: "ns", lowerIsBetter: true)]
    static let length = 1000

    func producer(amount rounds: Int) -> Measurement {
        let sink = Sink.make()
        defer { sink.free() }
        let producer = SignalProducer<Int, Never>(0..<Self.length).map { $0 &+ 1 }.filter { $0 > 0 }.map { $0 &+ 1 }
        let t0 = now()
        for _ in 0..<rounds { producer.startWithValues { sink.add($0) } }
        let t1 = now()
        check(sink.total == rounds &* (triangular(Self.length - 1) &+ 2 &* Self.length), "producer chain lost values")
        return Measurement(elapsed: t1 - t0, values: [Double(t1 - t0) / Double(rounds * Self.length)])
    }

    func signal(amount rounds: Int) -> Measurement {
        let sink = Sink.make()
        defer { sink.free() }
        let (source, input) = Signal<Int, Never>.pipe()
        let disposable = source.map { $0 &+ 1 }.filter { $0 > 0 }.map { $0 &+ 1 }.observeValues { sink.add($0) }
        let t0 = now()
        for _ in 0..<rounds {
            for v in 0..<Self.length { input.send(value: v) }
        }
        let t1 = now()
        input.sendCompleted()
        check(sink.total == rounds &* (triangular(Self.length - 1) &+ 2 &* Self.length), "signal chain lost values")
        blackHole(disposable)
        return Measurement(elapsed: t1 - t0, values: [Double(t1 - t0) / Double(rounds * Self.length)])
    }

    func limit(amount rounds: Int) -> Measurement {
        let sink = Sink.make()
        defer { sink.free() }
        let stages = ChainStage.stages(depth: 3)
        let closures = ContiguousArray(stages)
        let observer = makeLimitClosure(sink)
        let t0 = now()
        for _ in 0..<rounds {
            for value in 0..<Self.length {
                var v = value
                var passes = true
                for stage in closures {
                    switch stage {
                    case let .map(f): v = f(v)
                    case let .filter(f): passes = passes && f(v)
                    }
                }
                if passes { observer(v) }
            }
        }
        let t1 = now()
        check(sink.total == rounds &* (triangular(Self.length - 1) &+ 2 &* Self.length), "limit chain")
        return Measurement(elapsed: t1 - t0, values: [Double(t1 - t0) / Double(rounds * Self.length)])
    }
}

func runProducerScenarios(_ runner: Runner) {
    guard runner.options.includes("producer") else { return }
    progress("producers")
    if mc_is_active() == 0 { progress("  (malloc counter inactive on this platform: allocation figures read 0)") }
    for depth in [0, 1, 3, 6] {
        let body = ProducerStart(depth: depth)
        runner.measure(scenario: "producer", title: "producer start: SignalProducer(value:) + chain, one observer",
                       caseName: depth == 0 ? "value" : "depth=\(depth)", metrics: ProducerStart.metrics,
                       entries: [Entry(name: flareName) { body.run(amount: $0) },
                                 Entry(name: limitName) { body.limit(amount: $0) }],
                       initialAmount: 1024)
    }
    let handler = ProducerHandlerStart()
    runner.measure(scenario: "producer", title: "producer start: SignalProducer { observer, lifetime in ... }, one value, one observer",
                   caseName: "start handler", metrics: ProducerStart.metrics,
                   entries: [Entry(name: flareName) { handler.run(amount: $0) },
                             Entry(name: limitName) { ProducerStart(depth: 0).limit(amount: $0) }],
                   initialAmount: 1024)
    let chain = ProducerSequenceChain()
    runner.measure(scenario: "producer", title: "SignalProducer(0..<1000).map.filter.map.startWithValues",
                   caseName: "per value", metrics: ProducerSequenceChain.metrics,
                   entries: [Entry(name: flareName) { chain.producer(amount: $0) },
                             Entry(name: flareSignalName) { chain.signal(amount: $0) },
                             Entry(name: limitName) { chain.limit(amount: $0) }],
                   initialAmount: 4)
}
