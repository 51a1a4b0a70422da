import Flare
import Foundation
import Synchronization
import Testing

/// The contract checker for producers: threads start random producers
/// (observing shared signals, sending from another thread, or synchronous
/// sequences) through random operator chains (flattens among them, whose
/// inners may send from their start handler and a second thread at once),
/// dispose random runs from random threads, and send into the shared
/// signals, all at once. Every
/// delivery is stamped from one global counter; afterwards each run is
/// checked:
///
/// - its deliveries never overlap;
/// - at most one terminal event, and nothing after it;
/// - every run terminates, and a disposed run that had not terminated
///   receives `interrupted`;
/// - after `dispose()` returned, at most one delivery (the one already
///   starting: a value, or the run's own terminal event), then
///   `interrupted`;
/// - its cleanup runs exactly once if its start handler ran (a run disposed
///   before its source started never runs it), and everything it held is
///   released.
///
/// `FLARE_SEED=n` replays a seed.
@Suite("Contract checker: producers under random concurrent schedules")
struct ProducerContractCheckerTests {
    @Test("random starts, disposals and sends keep every producer contract")
    func randomSchedules() {
        let env = ProcessInfo.processInfo.environment
        let base = UInt64(env["FLARE_SEED"] ?? "") ?? UInt64.random(in: 1...UInt64(UInt32.max))
        for round in 0..<6 {
            let seed = base &+ UInt64(round)
            let violations = ProducerSchedule(seed: seed).run()
            #expect(violations.isEmpty, "seed \(seed): \(violations.prefix(5))")
            if !violations.isEmpty { break }
        }
    }
}

/// One run's record.
private final class RunRecord: @unchecked Sendable {
    let events = Locked<[(ticket: Int, event: String)]>([])
    let busy = Atomic<Bool>(false)
    let overlaps = Atomic<Int>(0)
    let cleanups = Atomic<Int>(0)
    /// Runs of the source's start handler (a run disposed before it started
    /// never runs it, and has no cleanup to run); a synchronous source's
    /// cleanup is registered when the run is built, so it counts as started.
    let starts = Atomic<Int>(0)
    let disposedAt = Atomic<Int>(Int.max)
    let disposable = Locked<Disposable?>(nil)
    let description = Locked("")
    /// The source's kind; set before the run's handle is published.
    var kind = 0
    /// Whether a flatten sits between the source and the observer: the
    /// source's run is then built only when the flatten's run starts.
    let flattened = Atomic<Bool>(false)
    /// Whether an operator of the chain may complete the run inside the
    /// delivery of a value (`take(first:)` reaching its count).
    let endsItself = Atomic<Bool>(false)
}

private final class ProducerSchedule: @unchecked Sendable {
    let seed: UInt64
    let ticket = Atomic<Int>(0)
    let pipes = (0..<2).map { _ in Signal<Int, Never>.pipe() }
    let runs = Locked<[RunRecord]>([])
    let canaries = Locked<[Weak]>([])

    init(seed: UInt64) { self.seed = seed }

    func stamp() -> Int { ticket.add(1, ordering: .sequentiallyConsistent).oldValue }

    /// A random source whose every run counts its cleanup in `record`.
    func source(_ kind: Int, _ record: RunRecord) -> SignalProducer<Int, Never> {
        let canary = Canary()
        canaries.withLock { $0.append(Weak(canary)) }
        switch kind {
        case 0:
            let signal = pipes[Int(seed % 2)].output
            return SignalProducer { observer, lifetime in
                record.starts.add(1, ordering: .relaxed)
                lifetime.observeEnded { withExtendedLifetime(canary) { _ = record.cleanups.add(1, ordering: .relaxed) } }
                lifetime += signal.observe(observer)
            }
        case 1:
            record.starts.add(1, ordering: .relaxed)
            return SignalProducer(0..<200).on(disposed: {
                withExtendedLifetime(canary) { _ = record.cleanups.add(1, ordering: .relaxed) }
            })
        default:
            return SignalProducer { observer, lifetime in
                record.starts.add(1, ordering: .relaxed)
                lifetime.observeEnded { withExtendedLifetime(canary) { _ = record.cleanups.add(1, ordering: .relaxed) } }
                DispatchQueue.global().async {
                    for i in 0..<100 where !lifetime.hasEnded { observer.send(value: i) }
                    observer.sendCompleted()
                }
            }
        }
    }

    func chain(_ producer: SignalProducer<Int, Never>, _ record: RunRecord, _ rng: inout SeededGenerator) -> SignalProducer<Int, Never> {
        var p = producer
        for _ in 0..<Int.random(in: 0...3, using: &rng) {
            switch Int.random(in: 0..<4, using: &rng) {
            case 0: p = p.map { $0 &+ 1 }
            case 1: p = p.filter { _ in true }
            case 2:
                p = p.take(first: Int.random(in: 1...150, using: &rng))
                record.endsItself.store(true, ordering: .relaxed)
            default:
                p = flattened(p, &rng)
                record.flattened.store(true, ordering: .relaxed)
            }
        }
        return p
    }

    /// `p` flatMapped with a random strategy to inners that send
    /// synchronously, or from another thread, or from their start handler
    /// and a second thread at once, or never end by themselves.
    func flattened(_ p: SignalProducer<Int, Never>, _ rng: inout SeededGenerator) -> SignalProducer<Int, Never> {
        let strategies: [FlattenStrategy] = [.merge, .concat, .concurrent(limit: 2), .latest, .race, .throttle]
        let strategy = strategies[Int.random(in: 0..<strategies.count, using: &rng)]
        switch Int.random(in: 0..<4, using: &rng) {
        case 0:
            return p.flatMap(strategy) { SignalProducer(values: $0, $0 &+ 1) }
        case 1:
            return p.flatMap(strategy) { value in
                SignalProducer<Int, Never> { observer, lifetime in
                    DispatchQueue.global().async {
                        if !lifetime.hasEnded { observer.send(value: value) }
                        observer.sendCompleted()
                    }
                }
            }
        case 2:
            // The start handler hands its observer to a second thread and
            // both send, more than a queue limit's worth together: the
            // start handler runs inside the flatten's funnel delivery, so
            // each thread may find the other's domain full (issue 29, bug
            // 1). The last of the two to finish completes the inner. Two
            // inners per run at most, so that flattens chained after this
            // one stay small.
            return p.take(first: 2).flatMap(strategy) { value in
                SignalProducer<Int, Never> { observer, lifetime in
                    let senders = Countdown(2)
                    let send: @Sendable () -> Void = {
                        for i in 0..<1_500 where !lifetime.hasEnded { observer.send(value: value &+ i) }
                        if senders.finish() { observer.sendCompleted() }
                    }
                    DispatchQueue.global().async(execute: send)
                    send()
                }
            }
        default:
            // Signal inners: runs observe a shared signal.
            let shared = pipes[Int(seed % 2)].output
            return p.take(first: 3).flatMap(strategy) { _ in shared }
        }
    }

    func start(_ rng: inout SeededGenerator) {
        let record = RunRecord()
        runs.withLock { $0.append(record) }
        let kind = Int.random(in: 0..<3, using: &rng)
        record.description.withLock { $0 = "kind \(kind)" }
        record.kind = kind
        let producer = chain(source(kind, record), record, &rng)
        producer.startWithSignal { signal, handle in
            record.disposable.withLock { $0 = handle }
            signal.observe { [self] event in
                if record.busy.exchange(true, ordering: .acquiring) { record.overlaps.add(1, ordering: .relaxed) }
                let t = stamp()
                record.events.withLock { $0.append((t, event.isTerminating ? describe(event) : "v")) }
                record.busy.store(false, ordering: .releasing)
            }
        }
    }

    func run() -> [String] {
        DispatchQueue.concurrentPerform(iterations: 3) { thread in
            var rng = SeededGenerator(seed: seed &+ UInt64(thread) &* 7919)
            for _ in 0..<150 {
                switch Int.random(in: 0..<10, using: &rng) {
                case 0..<4:
                    start(&rng)
                case 4..<7:
                    let all = runs.withLock { $0 }
                    guard let record = all.randomElement(using: &rng) else { continue }
                    // A record is listed before its run has a handle.
                    guard let disposable = record.disposable.withLock({ $0 }) else { continue }
                    disposable.dispose()
                    let t = stamp()
                    _ = record.disposedAt.compareExchange(expected: Int.max, desired: t, ordering: .relaxed)
                default:
                    pipes[Int.random(in: 0..<2, using: &rng)].input.send(value: thread)
                }
            }
        }
        for pipe in pipes { pipe.input.sendCompleted() }
        let all = runs.withLock { $0 }
        // A flattened run may still be waiting for inners that send from
        // other threads after its source has ended: wait for its terminal
        // event too.
        eventually(within: 2 * patience) {
            !all.contains(where: { record in
                record.cleanups.load(ordering: .relaxed) < record.starts.load(ordering: .relaxed)
                    || !record.events.withLock { $0.contains { $0.event != "v" } }
            })
        }
        for record in all { record.disposable.withLock { $0 = nil } }
        return check(all)
    }

    func check(_ all: [RunRecord]) -> [String] {
        var violations: [String] = []
        for (i, record) in all.enumerated() {
            let events = record.events.withLock { $0 }
            let terminals = events.filter { $0.event != "v" }
            if record.overlaps.load(ordering: .relaxed) != 0 { violations.append("run \(i): overlapping deliveries") }
            if terminals.count != 1 { violations.append("run \(i): \(terminals.count) terminal events") }
            if let last = events.last, last.event == "v" { violations.append("run \(i): a value after the terminal event") }
            let disposedAt = record.disposedAt.load(ordering: .relaxed)
            if disposedAt != Int.max {
                // The one delivery already starting when dispose() returned
                // (a value, or the run's own terminal event) may land after
                // it; anything else must be `interrupted`.
                let late = events.filter { $0.ticket > disposedAt && $0.event != "interrupted" }.map(\.event)
                // `take(first:)` completes the run inside the delivery of
                // its last value: one delivery, two events.
                let oneDelivery = late.count <= 1
                    || (late == ["v", "completed"] && record.endsItself.load(ordering: .relaxed))
                if !oneDelivery { violations.append("run \(i): \(late) after dispose() returned") }
            }
            let cleanups = record.cleanups.load(ordering: .relaxed)
            let starts = record.starts.load(ordering: .relaxed)
            if starts == 0, disposedAt == Int.max { violations.append("run \(i): never started, never disposed") }
            // A synchronous source (kind 1) counts as started when its
            // producer is made, as its cleanup is registered when its run is
            // built; under a flatten, that run is built only when the
            // flatten's run starts, so a run disposed before it started has
            // no cleanup to run (it delivered `interrupted` alone).
            let neverBuilt = record.kind == 1 && record.flattened.load(ordering: .relaxed) && cleanups == 0
                && disposedAt != Int.max && events.map(\.event) == ["interrupted"]
            if cleanups != starts && !neverBuilt {
                let what = record.description.withLock { $0 }
                let disposed = disposedAt == Int.max ? "not disposed" : "disposed"
                let under = record.flattened.load(ordering: .relaxed) ? ", under a flatten" : ""
                violations.append("run \(i) (\(what)\(under), \(disposed), \(events.map(\.event).suffix(3))): cleanup ran \(cleanups) times")
            }
        }
        let alive = canaries.withLock { $0.filter { $0.value != nil }.count }
        if alive != 0 { violations.append("\(alive) runs not released") }
        return violations
    }
}

/// Counts down the senders of a two-thread inner.
private final class Countdown: Sendable {
    private let left: Atomic<Int>

    init(_ count: Int) { left = Atomic(count) }

    /// Whether the caller is the last to finish.
    func finish() -> Bool { left.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 }
}

/// A weak reference, for the release checks.
private final class Weak: @unchecked Sendable {
    weak var value: AnyObject?
    init(_ value: AnyObject) { self.value = value }
}
