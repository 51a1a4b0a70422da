import MallocCounter
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

let scenarioNames = ["fanout", "chain", "contention", "queued", "combine", "combine-arity", "churn", "latency", "scaling", "memory", "producer", "flatten", "property", "async", "action"]

// MARK: Fan-out

/// One sender, `observers` observers: ns per delivery (one event to one
/// observer) and deliveries per second.
struct FanOut: ContenderBody {
    let observers: Int

    static let metrics = [
        Metric(name: "ns/delivery", unit: "ns", lowerIsBetter: true),
        Metric(name: "deliveries/s", unit: "1/s", lowerIsBetter: false),
    ]

    func run<C: SignalContender>(_: C.Type, amount events: Int) -> Measurement {
        let sink = Sink.make()
        defer { sink.free() }
        let (output, input) = C.pipe()
        var handles: [C.Handle] = []
        handles.reserveCapacity(observers)
        for _ in 0..<observers {
            if let h = C.observe(output, sink) { handles.append(h) }
        }
        let warm = 64
        for v in 1...warm { C.send(input, v) }
        let t0 = now()
        for v in (warm + 1)...(warm + events) { C.send(input, v) }
        let t1 = now()
        C.sendCompleted(input)
        check(sink.total == observers &* triangular(warm + events), "\(C.name) fan-out lost events")
        blackHole(handles)
        return Self.measurement(t1 - t0, deliveries: events * observers)
    }

    static func measurement(_ elapsed: UInt64, deliveries: Int) -> Measurement {
        let ns = Double(elapsed) / Double(deliveries)
        return Measurement(elapsed: elapsed, values: [ns, 1e9 / ns])
    }

    /// The limit: the same work in closures called by index from a
    /// ContiguousArray.
    func limit(events: Int) -> Measurement {
        let sink = Sink.make()
        defer { sink.free() }
        var closures = ContiguousArray<(Int) -> Void>()
        for _ in 0..<observers { closures.append(makeLimitClosure(sink)) }
        let t0 = now()
        for v in 1...events {
            for j in 0..<closures.count { closures[j](v) }
        }
        let t1 = now()
        check(sink.total == observers &* triangular(events), "limit fan-out")
        return Self.measurement(t1 - t0, deliveries: events * observers)
    }
}

/// Opaque to the optimizer, so the limit's loop must make real indirect calls.
@inline(never)
func makeLimitClosure(_ sink: Sink) -> (Int) -> Void {
    { v in sink.add(v) }
}

// MARK: Chains

/// map→filter→map… of `depth` operators observed at the end by one
/// observer: ns per event sent, and that cost as a multiple of a plain send
/// to one observer (depth 0) measured in the same run. The two are timed in
/// alternating blocks, so that the machine's drift cancels out of the ratio:
/// it compares cases, which separate runs could not do reliably here.
struct Chain: ContenderBody {
    let depth: Int

    /// Blocks each of the chain and the plain send is split into.
    static let blocks = 16

    static let metrics = [
        Metric(name: "ns/event", unit: "ns", lowerIsBetter: true),
        Metric(name: "× one send", unit: "x", lowerIsBetter: true),
    ]

    func run<C: SignalContender>(_: C.Type, amount events: Int) -> Measurement {
        let sink = Sink.make()
        let plainSink = Sink.make()
        defer { sink.free(); plainSink.free() }
        let (source, input) = C.pipe()
        let end = C.chain(source, depth: depth)
        let handle = C.observe(end, sink)
        let (plain, plainInput) = C.pipe()
        let plainHandle = C.observe(plain, plainSink)
        let warm = 64
        for v in 1...warm {
            C.send(input, v)
            C.send(plainInput, v)
        }
        let block = max(1, events / Self.blocks)
        var chainTime: UInt64 = 0
        var plainTime: UInt64 = 0
        var next = warm + 1
        for _ in 0..<Self.blocks {
            let t0 = now()
            for v in next..<(next + block) { C.send(plainInput, v) }
            let t1 = now()
            for v in next..<(next + block) { C.send(input, v) }
            let t2 = now()
            plainTime += t1 - t0
            chainTime += t2 - t1
            next += block
        }
        C.sendCompleted(input)
        C.sendCompleted(plainInput)
        let n = next - 1
        check(sink.total == triangular(n) &+ n &* ChainStage.output(of: 0, depth: depth), "\(C.name) chain lost events")
        check(plainSink.total == triangular(n), "\(C.name) plain send lost events")
        blackHole(handle)
        blackHole(plainHandle)
        return Self.measurement(chain: chainTime, plain: plainTime, events: block * Self.blocks)
    }

    static func measurement(chain: UInt64, plain: UInt64, events: Int) -> Measurement {
        Measurement(elapsed: chain + plain,
                    values: [Double(chain) / Double(events), Double(chain) / Double(max(plain, 1))])
    }

    /// The limit: the same stage closures applied in a plain loop; its "one
    /// send" is one call of an observer closure.
    func limit(events: Int) -> Measurement {
        let sink = Sink.make()
        let plainSink = Sink.make()
        defer { sink.free(); plainSink.free() }
        // Closures called by index from arrays (a closure copied out of an
        // enum or an array element is retained and released: that would be
        // the limit's own overhead, not the work). Stages alternate map and
        // filter, starting with map.
        let stages = opaqueStages(depth)
        let maps = ContiguousArray(stages.compactMap { if case let .map(f) = $0 { f } else { nil } })
        let filters = ContiguousArray(stages.compactMap { if case let .filter(p) = $0 { p } else { nil } })
        let observer = makeLimitClosure(plainSink)
        let block = max(1, events / Self.blocks)
        var chainTime: UInt64 = 0
        var plainTime: UInt64 = 0
        var next = 1
        for _ in 0..<Self.blocks {
            let t0 = now()
            for v in next..<(next + block) { observer(v) }
            let t1 = now()
            for v in next..<(next + block) {
                var x = v
                var passed = true
                for j in 0..<depth {
                    if j & 1 == 0 {
                        x = maps[j >> 1](x)
                    } else if !filters[j >> 1](x) {
                        passed = false
                        break
                    }
                }
                if passed { sink.add(x) }
            }
            let t2 = now()
            plainTime += t1 - t0
            chainTime += t2 - t1
            next += block
        }
        let n = next - 1
        check(sink.total == triangular(n) &+ n &* ChainStage.output(of: 0, depth: depth), "limit chain")
        check(plainSink.total == triangular(n), "limit plain call")
        return Self.measurement(chain: chainTime, plain: plainTime, events: block * Self.blocks)
    }
}

@inline(never)
func opaqueStages(_ depth: Int) -> [ChainStage] { ChainStage.stages(depth: depth) }

// MARK: Contention

/// `senders` threads (2, 4 or 8: more than the cores, as on a busy server,
/// shows convoys and starvation) sending to one signal with 10 observers,
/// each as fast as it can for a fixed send window (the amount, in ns):
/// events per second, all senders together; how long the run lasts as a multiple of the window
/// (a contender that queues what it cannot deliver yet keeps delivering
/// after the senders stop); the peak backlog (events sent and not yet
/// delivered, sampled every millisecond); and the memory that backlog
/// holds, at the contender's bytes per queued event. (The malloc shim
/// cannot show it run by run: Flare's node pool keeps the memory of its
/// peak for reuse, so only a run that queues more than every earlier one
/// grows the heap.) Runs are bounded by time, not by events, so a
/// contender that degrades under contention shows a low rate instead of
/// stalling the bench.
struct Contention: ContenderBody {
    static let observers = 10
    var senders = 2
    static let metrics = [
        Metric(name: "events/s", unit: "1/s", lowerIsBetter: false),
        Metric(name: "run / send window", unit: "x", lowerIsBetter: true),
        Metric(name: "peak backlog (events)", unit: "", lowerIsBetter: true),
        Metric(name: "peak queued memory (MB)", unit: "MB", lowerIsBetter: true),
    ]

    func run<C: SignalContender>(_: C.Type, amount duration: Int) -> Measurement {
        let sink = Sink.make()
        defer { sink.free() }
        let (output, input) = C.pipe()
        // Nine observers add to the sink; the tenth counts deliveries where
        // the sampling thread can read them.
        var handles = (0..<Self.observers - 1).compactMap { _ in C.observe(output, sink) }
        let monitor = BacklogMonitor(senders: senders)
        if let h = C.observeDelivered(output, monitor.delivered) { handles.append(h) }
        let r = runSenders(senders, duration: UInt64(duration), sender: { v in C.send(input, v) }, monitor: monitor)
        C.sendCompleted(input)
        let sent = r.sent.reduce(0, &+)
        check(sink.total == (Self.observers - 1) &* r.sent.reduce(0) { $0 &+ triangular($1) },
              "\(C.name) contention lost events")
        check(monitor.delivered.count == sent, "\(C.name) contention: deliveries counted")
        blackHole(handles)
        return Measurement(elapsed: r.elapsed, values: [
            1e9 * Double(sent) / Double(r.elapsed),
            Double(r.elapsed) / Double(duration),
            Double(monitor.peak),
            Double(monitor.peak * C.bytesPerQueuedEvent) / 1e6,
        ])
    }
}

extension Contention {
    /// The ceiling of serialized delivery: every event of both senders is
    /// delivered to the 10 observers by one thread at a time, so no
    /// contender that keeps deliveries serialized (contract 1) can deliver
    /// faster than one thread that makes the same 10 calls per event
    /// directly, alone, for the same window. Events per second of that loop;
    /// the other metrics are those of a run with no backlog.
    func limit(duration: Int) -> Measurement {
        let sink = Sink.make()
        defer { sink.free() }
        var closures = ContiguousArray<(Int) -> Void>()
        for _ in 0..<Self.observers { closures.append(makeLimitClosure(sink)) }
        let t0 = now()
        let end = t0 + UInt64(duration)
        var v = 0
        while true {
            // Checks the clock every 64 events, as the senders check their
            // stop flag: a clock read per event would be the loop's cost.
            for _ in 0..<64 {
                v += 1
                for j in 0..<closures.count { closures[j](v) }
            }
            if now() >= end { break }
        }
        let elapsed = now() - t0
        check(sink.total == Self.observers &* triangular(v), "contention limit")
        return Measurement(elapsed: elapsed, values: [1e9 * Double(v) / Double(elapsed), Double(elapsed) / Double(duration), 0, 0])
    }
}

/// A counter on a cache line of its own (128 bytes of padding around it),
/// so that the threads writing different counters do not share a line.
final class LineCounter: @unchecked Sendable {
    private let before: (Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int) =
        (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    private let value = Atomic<Int>(0)
    private let after: (Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int) =
        (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)

    var count: Int { value.load(ordering: .relaxed) }

    /// Sets the count; one writer only.
    @inline(__always)
    func set(_ n: Int) { value.store(n, ordering: .relaxed) }

    /// Adds one; one writer at a time (the observers of a signal, whose
    /// deliveries the signal serializes): a load and a store, no RMW.
    @inline(__always)
    func tick() { value.store(value.load(ordering: .relaxed) &+ 1, ordering: .relaxed) }
}

/// What the sampling thread needs to follow a run of several senders: how
/// many each sender has sent, and how many events one observer has received.
final class BacklogMonitor: Sendable {
    let sent: [LineCounter]
    let delivered = LineCounter()
    private let peakBox = Atomic<Int>(0)

    init(senders: Int = 2) { sent = (0..<senders).map { _ in LineCounter() } }

    var sentA: LineCounter { sent[0] }
    var sentB: LineCounter { sent[1] }
    var peak: Int { peakBox.load(ordering: .relaxed) }

    /// One sample: events sent and not yet delivered.
    func sample() {
        let backlog = sent.reduce(0) { $0 + $1.count } - delivered.count
        if backlog > peakBox.load(ordering: .relaxed) { peakBox.store(backlog, ordering: .relaxed) }
    }
}

/// Runs two threads that call their sender with 1, 2, 3… from the moment
/// they are released together until `duration` ns have passed; returns the
/// wall time until both stopped and how many values each sent.
///
/// With a `monitor`, each sender also publishes how many values it has sent
/// (a relaxed store to a line of its own), and the calling thread samples
/// the backlog every millisecond until both senders have returned.
///
/// Used by contention (both senders to one input) and by the combining
/// operators (`Combine`: each sender to its own input).
func runTwoSenders(duration: UInt64,
                   senderA: @escaping @Sendable (Int) -> Void,
                   senderB: @escaping @Sendable (Int) -> Void,
                   monitor: BacklogMonitor? = nil) -> (elapsed: UInt64, sentA: Int, sentB: Int) {
    let shared = Shared()
    let finished = Atomic<Int>(0)
    let a = Thread {
        shared.arriveAndWait()
        var v = 0
        if let progress = monitor?.sentA {
            while !shared.stop.load(ordering: .relaxed) { v += 1; senderA(v); progress.set(v) }
        } else {
            while !shared.stop.load(ordering: .relaxed) { v += 1; senderA(v) }
        }
        shared.count.store(v, ordering: .releasing)
        finished.add(1, ordering: .releasing)
    }
    let b = Thread {
        shared.arriveAndWait()
        var v = 0
        if let progress = monitor?.sentB {
            while !shared.stop.load(ordering: .relaxed) { v += 1; senderB(v); progress.set(v) }
        } else {
            while !shared.stop.load(ordering: .relaxed) { v += 1; senderB(v) }
        }
        shared.stamp.store(UInt64(v), ordering: .releasing)
        finished.add(1, ordering: .releasing)
    }
    let t0 = shared.release(workers: 2)
    if let monitor {
        while now() < t0 + duration {
            sleepUntil(min(now() + 1_000_000, t0 + duration))
            monitor.sample()
        }
        shared.stop.store(true, ordering: .relaxed)
        while finished.load(ordering: .acquiring) < 2 {
            sleepUntil(now() + 1_000_000)
            monitor.sample()
        }
    } else {
        sleepUntil(t0 + duration)
        shared.stop.store(true, ordering: .relaxed)
    }
    a.join()
    b.join()
    return (now() - t0, shared.count.load(ordering: .acquiring), Int(shared.stamp.load(ordering: .acquiring)))
}

/// Runs `count` threads that call `sender` with 1, 2, 3… from the moment
/// they are released together until `duration` ns have passed, each
/// publishing how many it has sent (a relaxed store to a line of its own)
/// while the calling thread samples the backlog every millisecond; returns
/// the wall time until all stopped and how many values each sent.
func runSenders(_ count: Int, duration: UInt64, sender: @escaping @Sendable (Int) -> Void,
                monitor: BacklogMonitor) -> (elapsed: UInt64, sent: [Int]) {
    let shared = Shared()
    let finished = Atomic<Int>(0)
    let threads = (0..<count).map { i in
        Thread {
            let progress = monitor.sent[i]
            shared.arriveAndWait()
            var v = 0
            while !shared.stop.load(ordering: .relaxed) { v += 1; sender(v); progress.set(v) }
            finished.add(1, ordering: .releasing)
        }
    }
    let t0 = shared.release(workers: count)
    while now() < t0 + duration {
        sleepUntil(min(now() + 1_000_000, t0 + duration))
        monitor.sample()
    }
    shared.stop.store(true, ordering: .relaxed)
    while finished.load(ordering: .acquiring) < count {
        sleepUntil(now() + 1_000_000)
        monitor.sample()
    }
    for t in threads { t.join() }
    return (now() - t0, monitor.sent.map(\.count))
}

// MARK: Queued sends

/// The queued path on one thread: an observer that, on each value 0, sends
/// 1…`burst` from inside its delivery, so each of them is queued behind the
/// delivery in progress and delivered by the same drain; a second observer
/// adds every value to the sink. ns per queued event (node, push, take,
/// delivery to both observers, free), the trigger's own delivery included
/// in the total. The amount is the number of queued events.
struct Queued: ContenderBody {
    static let burst = 64
    static let metrics = [Metric(name: "ns/queued event", unit: "ns", lowerIsBetter: true)]

    func run<C: SignalContender>(_: C.Type, amount events: Int) -> Measurement {
        let sink = Sink.make()
        defer { sink.free() }
        let (output, input) = C.pipe()
        let trigger = C.observeValues(output) { v in
            if v == 0 { for i in 1...Self.burst { C.send(input, i) } }
        }
        let handle = C.observe(output, sink)
        let rounds = max(1, events / Self.burst)
        for _ in 0..<4 { C.send(input, 0) }
        let t0 = now()
        for _ in 0..<rounds { C.send(input, 0) }
        let t1 = now()
        C.sendCompleted(input)
        check(sink.total == (rounds + 4) &* triangular(Self.burst), "\(C.name) queued sends lost events")
        blackHole(trigger)
        blackHole(handle)
        return Measurement(elapsed: t1 - t0, values: [Double(t1 - t0) / Double(rounds * Self.burst)])
    }
}

/// Sleeps (not spins: the workers need both cores) until `deadline`.
func sleepUntil(_ deadline: UInt64) {
    while true {
        let t = now()
        if t >= deadline { return }
        let left = deadline - t
        var ts = timespec(tv_sec: Int(left / 1_000_000_000), tv_nsec: Int(left % 1_000_000_000))
        nanosleep(&ts, nil)
    }
}

// MARK: Combining operators

/// merge or combineLatest of two signals, each sent 1, 2, 3… from its own
/// thread for `amount` ns (driven by `runTwoSenders`), with 10 observers on
/// the output: output events per second, both senders together. Every value
/// sent yields one output event (see the checks), so this is also the input
/// rate. The time runs until both senders have returned, so any backlog a
/// contender queued is delivered inside the measurement.
struct Combine: ContenderBody {
    enum Operator: String {
        case merge, combineLatest
    }

    let op: Operator

    static let observers = 10
    static let metrics = [Metric(name: "output events/s", unit: "1/s", lowerIsBetter: false)]

    func run<C: SignalContender>(_: C.Type, amount duration: Int) -> Measurement {
        let sink = Sink.make()
        defer { sink.free() }
        let (a, inputA) = C.pipe()
        let (b, inputB) = C.pipe()
        let output: C.Output
        let handles: [C.Handle]
        switch op {
        case .merge:
            output = C.merge(a, b)
            handles = (0..<Self.observers).compactMap { _ in C.observe(output, sink) }
        case .combineLatest:
            output = C.combineLatest(a, b)
            handles = (0..<Self.observers).compactMap { _ in C.observeCounting(output, sink) }
            // Prime both inputs with 0 so that every timed value, from either
            // thread, yields exactly one output event: unprimed, the values an
            // input sends before the other's first are absorbed, and how many
            // depends on the race.
            C.send(inputA, 0)
            C.send(inputB, 0)
            check(sink.total == Self.observers && sink.last == 0, "\(C.name) combineLatest priming")
        }
        let r = runTwoSenders(duration: UInt64(duration),
                              senderA: { v in C.send(inputA, v) },
                              senderB: { v in C.send(inputB, v) })
        C.sendCompleted(inputA)
        C.sendCompleted(inputB)
        switch op {
        case .merge:
            check(sink.total == Self.observers &* (triangular(r.sentA) &+ triangular(r.sentB)),
                  "\(C.name) merge lost or duplicated events")
        case .combineLatest:
            // One event for the priming pair, then one per value sent; the
            // last one combines the two inputs' last values.
            check(sink.total == Self.observers &* (1 &+ r.sentA &+ r.sentB),
                  "\(C.name) combineLatest: \(sink.total) deliveries for \(r.sentA)+\(r.sentB) values sent")
            check(sink.last == r.sentA &+ r.sentB,
                  "\(C.name) combineLatest: last value \(sink.last), expected \(r.sentA)+\(r.sentB)")
        }
        blackHole(handles)
        blackHole(output)
        return Measurement(elapsed: r.elapsed, values: [1e9 * Double(r.sentA + r.sentB) / Double(r.elapsed)])
    }
}

// MARK: Churn

/// One thread sends to 100 observers while another observes and disposes in
/// a loop, for `amount` ns: sender events per second and observe+dispose
/// pairs per second. Just before, the same sends run for half as long with
/// no churn, on the same signal and observers: the third metric is the
/// share of that uncontended rate the sender keeps under churn.
///
/// With a `pace`, the churning thread starts at most that many pairs per
/// second (spinning on the clock in between, which writes nothing shared),
/// so that every contender's sender faces the same churn; without one it
/// churns as fast as the contender lets it.
struct Churn: ContenderBody {
    static let observers = 100
    /// Pairs per second at most, or nil for as many as possible.
    let pace: Int?
    static let metrics = [
        Metric(name: "sender events/s", unit: "1/s", lowerIsBetter: false),
        Metric(name: "churn pairs/s", unit: "1/s", lowerIsBetter: false),
        Metric(name: "sender kept, % of its uncontended rate", unit: "%", lowerIsBetter: false),
    ]

    func run<C: SignalContender>(_: C.Type, amount duration: Int) -> Measurement {
        let sink = Sink.make()
        let churnSink = Sink.make()
        defer { sink.free(); churnSink.free() }
        let (output, input) = C.pipe()
        let handles = (0..<Self.observers).compactMap { _ in C.observe(output, sink) }
        // The sender's own rate without churn, in the same run.
        var solo = 0
        let soloStart = now()
        var soloElapsed: UInt64 = 0
        repeat {
            for _ in 0..<64 { solo += 1; C.send(input, solo) }
            soloElapsed = now() - soloStart
        } while soloElapsed < UInt64(duration / 2)
        let shared = Shared()
        let soloSent = solo
        let sender = Thread {
            shared.arriveAndWait()
            var v = soloSent
            while !shared.stop.load(ordering: .relaxed) { v += 1; C.send(input, v) }
            shared.stamp.store(UInt64(v), ordering: .releasing)
        }
        let interval = pace.map { UInt64(1_000_000_000 / $0) }
        let churner = Thread {
            shared.arriveAndWait()
            var pairs = 0
            var next = now()
            while !shared.stop.load(ordering: .relaxed) {
                if let interval {
                    while now() < next { spin(16) }
                    // Behind schedule: go on from now, without a burst.
                    next = max(next &+ interval, now())
                }
                if let h = C.observe(output, churnSink) { C.dispose(h) }
                pairs += 1
            }
            shared.count.store(pairs, ordering: .releasing)
        }
        let t0 = shared.release(workers: 2)
        sleepUntil(t0 + UInt64(duration))
        shared.stop.store(true, ordering: .relaxed)
        sender.join()
        churner.join()
        let elapsed = now() - t0
        C.sendCompleted(input)
        let sent = Int(shared.stamp.load(ordering: .acquiring))
        check(sink.total == Self.observers &* triangular(sent), "\(C.name) churn lost events")
        blackHole(handles)
        let pairs = Double(shared.count.load(ordering: .acquiring))
        let rate = 1e9 * Double(sent - solo) / Double(elapsed)
        let soloRate = 1e9 * Double(solo) / Double(soloElapsed)
        return Measurement(elapsed: elapsed, values: [rate, 1e9 * pairs / Double(elapsed), 100 * rate / soloRate])
    }
}

// MARK: Disposal latency

/// `dispose()` of a freshly attached observer while another thread fans out
/// to 1000 observers without pause: latency percentiles in ns. The amount is
/// the number of disposals timed.
struct DisposalLatency: ContenderBody {
    static let observers = 1000
    static let metrics = [
        Metric(name: "p50", unit: "ns", lowerIsBetter: true),
        Metric(name: "p99", unit: "ns", lowerIsBetter: true),
        Metric(name: "p99.9", unit: "ns", lowerIsBetter: true),
        Metric(name: "max", unit: "ns", lowerIsBetter: true),
    ]

    func run<C: SignalContender>(_: C.Type, amount samples: Int) -> Measurement {
        let sink = Sink.make()
        let extraSink = Sink.make()
        defer { sink.free(); extraSink.free() }
        let (output, input) = C.pipe()
        let handles = (0..<Self.observers).compactMap { _ in C.observe(output, sink) }
        let shared = Shared()
        let sender = Thread {
            shared.arriveAndWait()
            var v = 0
            while !shared.stop.load(ordering: .relaxed) {
                v += 1
                C.send(input, v)
            }
            shared.count.store(v, ordering: .releasing)
        }
        let t0 = shared.release(workers: 1)
        var latencies = [Double]()
        latencies.reserveCapacity(samples)
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<samples {
            guard let h = C.observe(output, extraSink) else { continue }
            // Wait a random 0-30 µs (xorshift) so the sender is back in the
            // middle of a delivery, at a random phase of it, when we dispose:
            // right after observe, a lock-based sender may still be waking up.
            seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17
            let until = now() + seed % 30_000
            while now() < until { spin(16) }
            let start = now()
            C.dispose(h)
            latencies.append(Double(now() - start))
        }
        shared.stop.store(true, ordering: .relaxed)
        sender.join()
        let elapsed = now() - t0
        C.sendCompleted(input)
        let sent = shared.count.load(ordering: .acquiring)
        check(sink.total == Self.observers &* triangular(sent), "\(C.name) latency run lost events")
        blackHole(handles)
        latencies.sort()
        return Measurement(elapsed: elapsed, values: [
            quantile(latencies, 0.5), quantile(latencies, 0.99), quantile(latencies, 0.999), latencies.last ?? .nan,
        ])
    }
}

// MARK: Observe/dispose scaling

/// The cost of one observe and one dispose with `attached` observers already
/// there. The amount is the number of observe (then dispose) calls timed;
/// they dispose in attach order.
struct Scaling: ContenderBody {
    let attached: Int

    static let metrics = [
        Metric(name: "ns/observe", unit: "ns", lowerIsBetter: true),
        Metric(name: "ns/dispose", unit: "ns", lowerIsBetter: true),
    ]

    func run<C: SignalContender>(_: C.Type, amount count: Int) -> Measurement {
        let sink = Sink.make()
        defer { sink.free() }
        let (output, input) = C.pipe()
        let base = (0..<attached).compactMap { _ in C.observe(output, sink) }
        var fresh: [C.Handle] = []
        fresh.reserveCapacity(count)
        let t0 = now()
        for _ in 0..<count {
            if let h = C.observe(output, sink) { fresh.append(h) }
        }
        let t1 = now()
        for h in fresh { C.dispose(h) }
        let t2 = now()
        check(fresh.count == count, "\(C.name) observe failed")
        C.sendCompleted(input)
        blackHole(base)
        return Measurement(elapsed: t2 - t0, values: [Double(t1 - t0) / Double(count), Double(t2 - t1) / Double(count)])
    }
}

// MARK: Memory

/// Heap allocations per event sent in the steady state (after a warm-up), to
/// 10 observers and through a map→filter→map chain, counted by the malloc
/// shim. The amount is the number of events.
struct AllocationsPerEvent: ContenderBody {
    let chainDepth: Int
    let observers: Int

    static let metrics = [Metric(name: "allocs/event", unit: "", lowerIsBetter: true)]

    func run<C: SignalContender>(_: C.Type, amount events: Int) -> Measurement {
        let sink = Sink.make()
        defer { sink.free() }
        let (source, input) = C.pipe()
        let end = C.chain(source, depth: chainDepth)
        let handles = (0..<observers).compactMap { _ in C.observe(end, sink) }
        for v in 1...1000 { C.send(input, v) }
        mc_set_counting(1)
        let a0 = mc_allocations()
        let t0 = now()
        for v in 1...events { C.send(input, v) }
        let t1 = now()
        let a1 = mc_allocations()
        mc_set_counting(0)
        C.sendCompleted(input)
        blackHole(handles)
        return Measurement(elapsed: t1 - t0, values: [Double(a1 - a0) / Double(events)])
    }

    func limit(events: Int) -> Measurement {
        let sink = Sink.make()
        defer { sink.free() }
        var closures = ContiguousArray<(Int) -> Void>()
        for _ in 0..<observers { closures.append(makeLimitClosure(sink)) }
        mc_set_counting(1)
        let a0 = mc_allocations()
        let t0 = now()
        for v in 1...events { for j in 0..<closures.count { closures[j](v) } }
        let t1 = now()
        let a1 = mc_allocations()
        mc_set_counting(0)
        return Measurement(elapsed: t1 - t0, values: [Double(a1 - a0) / Double(events)])
    }
}

/// Live heap bytes per attached observer (observer, its closure context, the
/// handle returned by observe, and the signal's share of bookkeeping),
/// measured by the malloc shim over `amount` observers.
struct BytesPerObserver: ContenderBody {
    static let metrics = [Metric(name: "bytes/observer", unit: "B", lowerIsBetter: true)]

    func run<C: SignalContender>(_: C.Type, amount count: Int) -> Measurement {
        let sink = Sink.make()
        defer { sink.free() }
        let (output, input) = C.pipe()
        var handles: [C.Handle] = []
        handles.reserveCapacity(count)
        mc_set_counting(1)
        let b0 = mc_live_bytes()
        let t0 = now()
        for _ in 0..<count {
            if let h = C.observe(output, sink) { handles.append(h) }
        }
        let t1 = now()
        // One event, so that every contender holds its observers the way it
        // does in the steady state (Flare moves them from its stack of
        // additions into the signal's array at the next event).
        C.send(input, 1)
        let b1 = mc_live_bytes()
        mc_set_counting(0)
        C.sendCompleted(input)
        blackHole(handles)
        return Measurement(elapsed: t1 - t0, values: [Double(b1 - b0) / Double(count)])
    }

    func limit(count: Int) -> Measurement {
        let sink = Sink.make()
        defer { sink.free() }
        var closures = ContiguousArray<(Int) -> Void>()
        mc_set_counting(1)
        let b0 = mc_live_bytes()
        let t0 = now()
        for _ in 0..<count { closures.append(makeLimitClosure(sink)) }
        let t1 = now()
        let b1 = mc_live_bytes()
        mc_set_counting(0)
        blackHole(closures)
        return Measurement(elapsed: t1 - t0, values: [Double(b1 - b0) / Double(count)])
    }
}

// MARK: The plan

func runAll(_ runner: Runner) {
    let quick = runner.options.quick
    if runner.options.includes("fanout") {
        progress("fan-out")
        for n in [1, 10, 100, 1000] {
            let body = FanOut(observers: n)
            runner.measure(scenario: "fanout", title: "fan-out: one sender, N observers", caseName: "N=\(n)",
                           metrics: FanOut.metrics,
                           entries: allContenders(body) + [Entry(name: limitName) { body.limit(events: $0) }],
                           initialAmount: max(1, 4096 / n))
        }
    }
    if runner.options.includes("chain") {
        progress("chains")
        for depth in [1, 3, 6] {
            let body = Chain(depth: depth)
            runner.measure(scenario: "chain", title: "chains: map→filter→map… observed at the end", caseName: "depth=\(depth)",
                           metrics: Chain.metrics,
                           entries: allContenders(body) + [Entry(name: limitName) { body.limit(events: $0) }],
                           initialAmount: 1024)
        }
    }
    if runner.options.includes("contention") {
        progress("contention")
        for senders in [2, 4, 8] {
            let body = Contention(senders: senders)
            runner.measure(scenario: "contention", title: "contention: N threads sending, 10 observers", caseName: "\(senders) senders",
                           metrics: Contention.metrics,
                           entries: allContendersWithUnbounded(body) + [Entry(name: limitName) { body.limit(duration: $0) }],
                           initialAmount: Int(runner.options.targetNanos), calibrated: false)
        }
    }
    if runner.options.includes("queued") {
        progress("queued sends")
        runner.measure(scenario: "queued", title: "queued sends: 64 sent from inside an observer, per event", caseName: "reentrant",
                       metrics: Queued.metrics, entries: allContendersWithUnbounded(Queued()),
                       initialAmount: 4096)
    }
    if runner.options.includes("combine") {
        progress("combine")
        for op in [Combine.Operator.merge, .combineLatest] {
            runner.measure(scenario: "combine", title: "combining: 2 threads sending to 2 inputs, 10 observers on the output",
                           caseName: op.rawValue, metrics: Combine.metrics, entries: allContenders(Combine(op: op)),
                           initialAmount: Int(runner.options.targetNanos), calibrated: false)
        }
    }
    if runner.options.includes("churn") {
        progress("churn")
        // As fast as each contender lets the churning thread go, then at a
        // pace that every contender about sustains (flat out, the mutex
        // baselines' churners manage 20k to 400k pairs/s here), so that the
        // senders also compare under the same churn.
        for pace in [nil, 20_000] {
            runner.measure(scenario: "churn", title: "churn: send to 100 observers while another thread observes+disposes",
                           caseName: pace.map { "\($0 / 1000)k pairs/s" } ?? "flat out",
                           metrics: Churn.metrics, entries: allContenders(Churn(pace: pace)),
                           initialAmount: Int(runner.options.targetNanos), calibrated: false)
        }
    }
    if runner.options.includes("latency") {
        progress("disposal latency")
        runner.measure(scenario: "latency", title: "disposal latency while a sender fans out to 1000 observers (ns)",
                       caseName: "dispose()", metrics: DisposalLatency.metrics, entries: allContenders(DisposalLatency()),
                       initialAmount: quick ? 1000 : 5000, calibrated: false)
    }
    if runner.options.includes("scaling") {
        progress("observe/dispose scaling")
        for attached in [10, 1000, 10_000, 100_000] {
            runner.measure(scenario: "scaling", title: "observe/dispose with K observers attached", caseName: "K=\(attached)",
                           metrics: Scaling.metrics, entries: allContenders(Scaling(attached: attached)),
                           initialAmount: quick ? 300 : 1000, calibrated: false)
        }
    }
    if runner.options.includes("memory") {
        progress("memory")
        if mc_is_active() == 0 { progress("  (malloc counter inactive on this platform: memory figures read 0)") }
        for (depth, observers) in [(0, 10), (3, 1)] {
            let body = AllocationsPerEvent(chainDepth: depth, observers: observers)
            let name = depth == 0 ? "fan-out N=10" : "chain depth=3"
            runner.measure(scenario: "memory", title: "heap allocations per event sent (steady state)", caseName: name,
                           metrics: AllocationsPerEvent.metrics,
                           entries: allContenders(body) + [Entry(name: limitName) { body.limit(events: $0) }],
                           initialAmount: quick ? 10_000 : 100_000, calibrated: false)
        }
        let body = BytesPerObserver()
        runner.measure(scenario: "memory", title: "live heap bytes per attached observer", caseName: "10000 attached",
                       metrics: BytesPerObserver.metrics,
                       entries: allContenders(body) + [Entry(name: limitName) { body.limit(count: $0) }],
                       initialAmount: 10_000, calibrated: false)
    }
    runMultiInputScenarios(runner)
    runProducerScenarios(runner)
    runFlattenScenarios(runner)
    runPropertyScenarios(runner)
    runAsyncScenarios(runner)
    runActionScenarios(runner)
}
