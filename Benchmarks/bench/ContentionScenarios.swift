import MallocCounter
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Several senders: threads sending into one signal, sends queued behind a
// delivery, and the multi-input operators fed from two threads.

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
