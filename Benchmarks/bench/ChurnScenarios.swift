import MallocCounter
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Observers coming and going: churn while sending, disposal latency, and
// observe/dispose with many observers attached.

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
