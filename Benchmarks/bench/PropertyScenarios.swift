import Flare
import Foundation
import MallocCounter
import MutexBaseline
import Synchronization

// MARK: Properties and replay

let mutexPropertyName = "Mutex property"

/// The limit of a property: the value behind a `Mutex` and the observers
/// called directly from an array, outside the lock (no serialization of
/// deliveries, no producer guarantees).
final class LimitProperty: @unchecked Sendable {
    let value = Mutex(0)
    var observers: ContiguousArray<(Int) -> Void> = []

    @inline(never)
    func set(_ v: Int) {
        value.withLock { $0 = v }
        for observer in observers { observer(v) }
    }

    @inline(never)
    func read() -> Int { value.withLock { $0 } }
}

struct PropertyRead {
    static let metrics = [Metric(name: "ns/read", unit: "ns", lowerIsBetter: true)]
    static let observers = 10

    func flare(amount reads: Int) -> Measurement {
        let property = MutableProperty(1)
        let sink = Sink.make()
        defer { sink.free() }
        let handles = (0..<Self.observers).map { _ in property.signal.observeValues { sink.add($0) } }
        var total = 0
        let t0 = now()
        for _ in 0..<reads { total &+= property.value }
        let t1 = now()
        check(total == reads, "property read")
        blackHole(handles)
        return Measurement(elapsed: t1 - t0, values: [Double(t1 - t0) / Double(reads)])
    }

    func mutex(amount reads: Int) -> Measurement {
        let property = MutexProperty(1)
        let sink = Sink.make()
        defer { sink.free() }
        for _ in 0..<Self.observers { property.observe { sink.add($0) } }
        var total = 0
        let t0 = now()
        for _ in 0..<reads { total &+= property.value }
        let t1 = now()
        check(total == reads, "mutex property read")
        return Measurement(elapsed: t1 - t0, values: [Double(t1 - t0) / Double(reads)])
    }
}

struct PropertySet {
    let observers: Int
    static let metrics = [Metric(name: "ns/set", unit: "ns", lowerIsBetter: true)]

    func flare(amount sets: Int) -> Measurement {
        let property = MutableProperty(0)
        let sink = Sink.make()
        defer { sink.free() }
        let handles = (0..<observers).map { _ in property.signal.observeValues { sink.add($0) } }
        let t0 = now()
        for v in 1...sets { property.value = v }
        let t1 = now()
        check(sink.total == observers &* triangular(sets), "property set lost values")
        blackHole(handles)
        return Measurement(elapsed: t1 - t0, values: [Double(t1 - t0) / Double(sets)])
    }

    func mutex(amount sets: Int) -> Measurement {
        let property = MutexProperty(0)
        let sink = Sink.make()
        defer { sink.free() }
        for _ in 0..<observers { property.observe { sink.add($0) } }
        let t0 = now()
        for v in 1...sets { property.value = v }
        let t1 = now()
        check(sink.total == observers &* triangular(sets), "mutex property set lost values")
        return Measurement(elapsed: t1 - t0, values: [Double(t1 - t0) / Double(sets)])
    }

    func limit(amount sets: Int) -> Measurement {
        let property = LimitProperty()
        let sink = Sink.make()
        defer { sink.free() }
        property.observers = ContiguousArray((0..<observers).map { _ in { sink.add($0) } })
        let t0 = now()
        for v in 1...sets { property.set(v) }
        let t1 = now()
        check(sink.total == observers &* triangular(sets), "limit set lost values")
        return Measurement(elapsed: t1 - t0, values: [Double(t1 - t0) / Double(sets)])
    }
}

struct PropertyContention {
    static let observers = 10
    static let metrics = [Metric(name: "sets/s", unit: "1/s", lowerIsBetter: false)]

    func flare(amount duration: Int) -> Measurement {
        let property = MutableProperty(0)
        let sink = Sink.make()
        defer { sink.free() }
        let handles = (0..<Self.observers).map { _ in property.signal.observeValues { sink.add($0) } }
        let r = runTwoSenders(duration: UInt64(duration),
                              senderA: { v in property.value = v },
                              senderB: { v in property.value = v })
        check(sink.total == Self.observers &* (triangular(r.sentA) &+ triangular(r.sentB)), "property contention lost values")
        blackHole(handles)
        return Measurement(elapsed: r.elapsed, values: [1e9 * Double(r.sentA + r.sentB) / Double(r.elapsed)])
    }

    func mutex(amount duration: Int) -> Measurement {
        let property = MutexProperty(0)
        let sink = Sink.make()
        defer { sink.free() }
        for _ in 0..<Self.observers { property.observe { sink.add($0) } }
        let r = runTwoSenders(duration: UInt64(duration),
                              senderA: { v in property.value = v },
                              senderB: { v in property.value = v })
        check(sink.total == Self.observers &* (triangular(r.sentA) &+ triangular(r.sentB)), "mutex property contention lost values")
        return Measurement(elapsed: r.elapsed, values: [1e9 * Double(r.sentA + r.sentB) / Double(r.elapsed)])
    }

    /// The limit: the value behind a `Mutex`, each thread calling its own
    /// ten observers directly (nothing shared but the value).
    func limit(amount duration: Int) -> Measurement {
        let property = LimitProperty()
        let sinkA = Sink.make(), sinkB = Sink.make()
        defer { sinkA.free(); sinkB.free() }
        let a = LimitProperty(), b = LimitProperty()
        a.observers = ContiguousArray((0..<Self.observers).map { _ in { (v: Int) in sinkA.add(v) } })
        b.observers = ContiguousArray((0..<Self.observers).map { _ in { (v: Int) in sinkB.add(v) } })
        let r = runTwoSenders(duration: UInt64(duration),
                              senderA: { v in property.value.withLock { $0 = v }; for o in a.observers { o(v) } },
                              senderB: { v in property.value.withLock { $0 = v }; for o in b.observers { o(v) } })
        check(sinkA.total == Self.observers &* triangular(r.sentA), "limit contention")
        return Measurement(elapsed: r.elapsed, values: [1e9 * Double(r.sentA + r.sentB) / Double(r.elapsed)])
    }
}

struct PropertyProducerStart {
    static let metrics = [
        Metric(name: "ns/start+dispose", unit: "ns", lowerIsBetter: true),
        Metric(name: "allocs/start", unit: "", lowerIsBetter: true),
    ]

    func flare(amount starts: Int) -> Measurement {
        let property = MutableProperty(1)
        let sink = Sink.make()
        defer { sink.free() }
        let observer = Signal<Int, Never>.Observer { event in
            if case let .value(v) = event { sink.add(v) }
        }
        let producer = property.producer
        for _ in 0..<64 { producer.start(observer).dispose() }
        let t0 = now()
        for _ in 0..<starts { producer.start(observer).dispose() }
        let t1 = now()
        let counted = 256
        mc_set_counting(1)
        let a0 = mc_allocations()
        for _ in 0..<counted { producer.start(observer).dispose() }
        let a1 = mc_allocations()
        mc_set_counting(0)
        check(sink.total == starts + 64 + counted, "property producer start")
        return Measurement(elapsed: t1 - t0, values: [Double(t1 - t0) / Double(starts), Double(a1 - a0) / Double(counted)])
    }

    func mutex(amount starts: Int) -> Measurement {
        let property = MutexProperty(1)
        let sink = Sink.make()
        defer { sink.free() }
        let action: (Int) -> Void = { sink.add($0) }
        mc_set_counting(1)
        let a0 = mc_allocations()
        let t0 = now()
        for _ in 0..<starts { property.remove(property.start(action)) }
        let t1 = now()
        let a1 = mc_allocations()
        mc_set_counting(0)
        check(sink.total == starts, "mutex property start")
        return Measurement(elapsed: t1 - t0, values: [Double(t1 - t0) / Double(starts), Double(a1 - a0) / Double(starts)])
    }
}

struct ReplayDelivery {
    static let starts = 10
    static let metrics = [Metric(name: "ns/value sent", unit: "ns", lowerIsBetter: true)]

    func flare(amount values: Int) -> Measurement {
        let (signal, input) = Signal<Int, Never>.pipe()
        let replayed = SignalProducer(signal).replayLazily(upTo: 1)
        let sink = Sink.make()
        defer { sink.free() }
        let runs = (0..<Self.starts).map { _ in replayed.startWithValues { sink.add($0) } }
        let t0 = now()
        for v in 1...values { input.send(value: v) }
        let t1 = now()
        check(sink.total == Self.starts &* triangular(values), "replay delivery lost values")
        for run in runs { run.dispose() }
        return Measurement(elapsed: t1 - t0, values: [Double(t1 - t0) / Double(values)])
    }

    func mutex(amount values: Int) -> Measurement {
        let replay = MutexReplay<Int>(capacity: 1)
        let sink = Sink.make()
        defer { sink.free() }
        for _ in 0..<Self.starts { _ = replay.start { sink.add($0) } }
        let t0 = now()
        for v in 1...values { replay.send(v) }
        let t1 = now()
        check(sink.total == Self.starts &* triangular(values), "mutex replay delivery")
        return Measurement(elapsed: t1 - t0, values: [Double(t1 - t0) / Double(values)])
    }

    /// The limit: ten closures called from an array per value.
    func limit(amount values: Int) -> Measurement {
        let sink = Sink.make()
        defer { sink.free() }
        let property = LimitProperty()
        property.observers = ContiguousArray((0..<Self.starts).map { _ in { sink.add($0) } })
        let t0 = now()
        for v in 1...values { property.set(v) }
        let t1 = now()
        check(sink.total == Self.starts &* triangular(values), "limit replay delivery")
        return Measurement(elapsed: t1 - t0, values: [Double(t1 - t0) / Double(values)])
    }
}

struct ReplayLateStart {
    static let metrics = [
        Metric(name: "ns/late start+dispose", unit: "ns", lowerIsBetter: true),
        Metric(name: "allocs/start", unit: "", lowerIsBetter: true),
    ]

    func flare(amount starts: Int) -> Measurement {
        let (signal, input) = Signal<Int, Never>.pipe()
        let replayed = SignalProducer(signal).replayLazily(upTo: 1)
        let sink = Sink.make()
        defer { sink.free() }
        let first = replayed.start()
        input.send(value: 1)
        let observer = Signal<Int, Never>.Observer { event in
            if case let .value(v) = event { sink.add(v) }
        }
        for _ in 0..<64 { replayed.start(observer).dispose() }
        let t0 = now()
        for _ in 0..<starts { replayed.start(observer).dispose() }
        let t1 = now()
        let counted = 256
        mc_set_counting(1)
        let a0 = mc_allocations()
        for _ in 0..<counted { replayed.start(observer).dispose() }
        let a1 = mc_allocations()
        mc_set_counting(0)
        check(sink.total == starts + 64 + counted, "replay late start")
        first.dispose()
        return Measurement(elapsed: t1 - t0, values: [Double(t1 - t0) / Double(starts), Double(a1 - a0) / Double(counted)])
    }

    func mutex(amount starts: Int) -> Measurement {
        let replay = MutexReplay<Int>(capacity: 1)
        replay.send(1)
        let sink = Sink.make()
        defer { sink.free() }
        let action: (Int) -> Void = { sink.add($0) }
        mc_set_counting(1)
        let a0 = mc_allocations()
        let t0 = now()
        for _ in 0..<starts { replay.remove(replay.start(action)) }
        let t1 = now()
        let a1 = mc_allocations()
        mc_set_counting(0)
        check(sink.total == starts, "mutex replay late start")
        return Measurement(elapsed: t1 - t0, values: [Double(t1 - t0) / Double(starts), Double(a1 - a0) / Double(starts)])
    }
}

func runPropertyScenarios(_ runner: Runner) {
    guard runner.options.includes("property") else { return }
    progress("properties")
    let read = PropertyRead()
    runner.measure(scenario: "property", title: "property: read value with 10 observers attached", caseName: "read",
                   metrics: PropertyRead.metrics,
                   entries: [Entry(name: flareName) { read.flare(amount: $0) },
                             Entry(name: mutexPropertyName) { read.mutex(amount: $0) }],
                   initialAmount: 1 << 16)
    for observers in [0, 1, 10] {
        let set = PropertySet(observers: observers)
        runner.measure(scenario: "property", title: "property: set value with N observers", caseName: "N=\(observers)",
                       metrics: PropertySet.metrics,
                       entries: [Entry(name: flareName) { set.flare(amount: $0) },
                                 Entry(name: mutexPropertyName) { set.mutex(amount: $0) },
                                 Entry(name: limitName) { set.limit(amount: $0) }],
                       initialAmount: 1 << 14)
    }
    let contention = PropertyContention()
    runner.measure(scenario: "property", title: "property: 2 threads setting, 10 observers", caseName: "2 setters",
                   metrics: PropertyContention.metrics,
                   entries: [Entry(name: flareName) { contention.flare(amount: $0) },
                             Entry(name: mutexPropertyName) { contention.mutex(amount: $0) },
                             Entry(name: limitName) { contention.limit(amount: $0) }],
                   initialAmount: Int(runner.options.targetNanos), calibrated: false)
    let start = PropertyProducerStart()
    runner.measure(scenario: "property", title: "property: start of property.producer with one observer, then dispose",
                   caseName: "start", metrics: PropertyProducerStart.metrics,
                   entries: [Entry(name: flareName) { start.flare(amount: $0) },
                             Entry(name: mutexPropertyName) { start.mutex(amount: $0) }],
                   initialAmount: 1024)
    let delivery = ReplayDelivery()
    runner.measure(scenario: "property", title: "replayLazily(upTo: 1): a value sent to 10 starts", caseName: "deliver",
                   metrics: ReplayDelivery.metrics,
                   entries: [Entry(name: flareName) { delivery.flare(amount: $0) },
                             Entry(name: mutexPropertyName) { delivery.mutex(amount: $0) },
                             Entry(name: limitName) { delivery.limit(amount: $0) }],
                   initialAmount: 1 << 12)
    let late = ReplayLateStart()
    runner.measure(scenario: "property", title: "replayLazily(upTo: 1): a late start, then dispose", caseName: "late start",
                   metrics: ReplayLateStart.metrics,
                   entries: [Entry(name: flareName) { late.flare(amount: $0) },
                             Entry(name: mutexPropertyName) { late.mutex(amount: $0) }],
                   initialAmount: 1024)
}
