import MallocCounter
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Memory: allocations per event and bytes per observer.

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
