import MallocCounter
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Sending to observers: fan-out, and chains of operators.

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
