import CFlare
import Flare
import Foundation
import Synchronization
import Testing

/// A contract checker under random concurrent schedules.
///
/// Several threads act at random on shared signals: they send values,
/// observe (roots and derived signals), dispose their own observations, send
/// terminal events, and some observers send back into their own signal. Every
/// operation and every delivery is stamped with a ticket from one global
/// atomic counter, and afterwards a checker verifies the contracts of docs/contracts.md
/// from the records alone:
///
/// - no value is delivered twice to an observer;
/// - per-sender order is kept;
/// - no two deliveries of one signal overlap, except the `interrupted` of
///   observers whose `observe` began after a terminal send had begun: those
///   may overlap one another, never any other delivery (contract 5);
/// - at most one terminal event, and nothing after it;
/// - after `dispose()` returned, at most one delivery (the one already
///   starting);
/// - no value is lost: an observer attached before a send started, never
///   disposed, receives the value unless a terminal send began before the
///   send returned; where the signal was interrupted, values still queued
///   may be overtaken (contract 8), but only as a suffix of each sender's
///   values, never with a gap;
/// - prompt interruption: once `sendInterrupted()` has returned, an observer
///   receives at most one more value (the delivery already in progress);
/// - everything is released at the end (weak references, live C entries).
///
/// Seeded and reproducible: `FLARE_SEED=n` replays one seed; a failure
/// reports its seed. `FLARE_SOAK=rounds` runs a long soak.
@Suite("Contract checker under random concurrent schedules")
struct ContractCheckerTests {
    static let threads = 4

    @Test("random schedules keep every contract")
    func randomSchedules() throws {
        let env = ProcessInfo.processInfo.environment
        let rounds = Int(env["FLARE_SOAK"] ?? "") ?? 12
        let base = UInt64(env["FLARE_SEED"] ?? "") ?? UInt64.random(in: 1...UInt64(UInt32.max))
        // That the schedules exercised anything is checked over all rounds:
        // one schedule may end its signal before any observer attached (a
        // thread's early terminal send, run first), which delivers nothing
        // and breaks no contract.
        var delivered = 0
        for round in 0..<rounds {
            let seed = base &+ UInt64(round)
            let report = Schedule(seed: seed, threads: Self.threads, operations: 1_500).run()
            #expect(report.violations.isEmpty, "seed \(seed): \(report.violations.prefix(5))")
            delivered += report.delivered
            if !report.violations.isEmpty { break }
        }
        #expect(delivered > 0, "seeds \(base)…: nothing was delivered in \(rounds) rounds")
    }
}

/// One random concurrent schedule and its checker.
final class Schedule: @unchecked Sendable {
    struct Report {
        var violations: [String] = []
        var delivered = 0
    }

    /// A value's identity: who sent it and its sequence number.
    static func value(thread: Int, seq: Int) -> Int { thread << 32 | seq }
    static let reentrantThread = 0xFF

    let seed: UInt64
    let threadCount: Int
    let operations: Int
    let ticket = Atomic<Int>(0)
    let reentrantSeq = Atomic<Int>(0)

    /// Signals: roots, one derived (`map`) signal per root, and one
    /// flattened signal per root: an outer that sends the root, then
    /// completes, flattened with a strategy that depends on the seed. Every
    /// strategy forwards the root's values; the root's termination ends the
    /// flattened signal (completed, or for `.race` and `.throttle`
    /// interrupted when the root is).
    let signalCount = 3
    var roots: [Signal<Int, Never>] = []
    var inputs: [Signal<Int, Never>.Observer] = []
    var derived: [Signal<Int, Never>] = []
    var flattened: [Signal<Int, Never>] = []
    static let strategies: [FlattenStrategy] = [.merge, .concat, .concurrent(limit: 2), .latest, .race, .throttle]
    /// Per signal (roots then derived): deliveries in progress, to catch
    /// overlap. Drain deliveries count in `inDelivery`; the `interrupted`
    /// of a late observer (its `observe` began after a terminal send of its
    /// root had begun) counts in `inReply`, whether `observe` sent it at
    /// once, on its own thread, because the signal was sealed, or the
    /// terminating drain sent it after sealing. A drain delivery may overlap
    /// neither; late interrupts may overlap each other (two threads
    /// observing a dead signal at once: there is no signal activity left to
    /// serialize, and ReactiveSwift behaves the same), but never a drain
    /// delivery (contract 5).
    let inDelivery: [Cell]
    let inReply: [Cell]
    /// Per root: the earliest ticket at which a terminal send started.
    let firstTerminal: [Cell]
    /// Per root: the earliest ticket at which a `sendInterrupted()` started,
    /// and the earliest at which one had returned.
    let firstInterrupt: [Cell]
    let interruptReturned: [Cell]

    final class Cell: Sendable {
        let value: Atomic<Int>
        init(_ initial: Int) { value = Atomic(initial) }
    }

    init(seed: UInt64, threads: Int, operations: Int) {
        self.seed = seed
        self.threadCount = threads
        self.operations = operations
        firstTerminal = (0..<3).map { _ in Cell(Int.max) }
        firstInterrupt = (0..<3).map { _ in Cell(Int.max) }
        interruptReturned = (0..<3).map { _ in Cell(Int.max) }
        inDelivery = (0..<9).map { _ in Cell(0) }
        inReply = (0..<9).map { _ in Cell(0) }
    }

    func stamp() -> Int { ticket.add(1, ordering: .sequentiallyConsistent).oldValue }

    /// What one observer saw. Touched only by its own (serialized) callback
    /// while the schedule runs, read by the checker after every thread joined.
    final class Watch: @unchecked Sendable {
        let signal: Int
        /// Stamped after `observe` returned: only sends that start later
        /// must reach the observer.
        var attachedAt = Int.max
        /// Stamped before `observe` was called; read by the delivering thread.
        let attachStartedAt = Atomic<Int>(Int.max)
        var disposeStartedAt = Int.max
        let disposeReturned = Atomic<Bool>(false)
        /// The thread inside this observer's own `observe` call, if any.
        let observingThread = Atomic<UInt>(0)
        var values: [Int] = []
        var terminals = 0
        var afterTerminal = 0
        var afterDispose = 0
        /// Values delivered after a `sendInterrupted()` of the root returned.
        var afterInterrupt = 0
        let canary = Canary()
        init(signal: Int) {
            self.signal = signal
        }
    }

    struct Send {
        let root: Int
        let value: Int
        let startedAt: Int
        let returnedAt: Int
    }

    /// Each thread's own records.
    final class ThreadLog: @unchecked Sendable {
        var sends: [Send] = []
        var watches: [Watch] = []
        var violations: [String] = []
    }

    func makeWatch(signal: Int, reentrant: Bool) -> (Watch, Signal<Int, Never>.Observer) {
        let watch = Watch(signal: signal)
        let flag = inDelivery[signal]
        let reply = inReply[signal]
        let root = signal % signalCount
        let input = inputs[root]
        let interrupted = interruptReturned[root]
        let terminal = firstTerminal[root]
        let observer = Signal<Int, Never>.Observer { [unowned self] event in
            var isLate = false
            if case .interrupted = event {
                isLate =
                    watch.attachStartedAt.load(ordering: .sequentiallyConsistent)
                    > terminal.value.load(ordering: .sequentiallyConsistent)
            }
            let isReply =
                isLate || watch.observingThread.load(ordering: .sequentiallyConsistent) == UInt(pthread_self())
            if isReply {
                reply.value.add(1, ordering: .sequentiallyConsistent)
                if flag.value.load(ordering: .sequentiallyConsistent) != 0 { watch.values.append(-1) }
            } else if flag.value.add(1, ordering: .sequentiallyConsistent).newValue != 1
                || reply.value.load(ordering: .sequentiallyConsistent) != 0
            {
                watch.values.append(-1)  // overlap marker, reported by the checker
            }
            defer {
                if isReply {
                    reply.value.subtract(1, ordering: .sequentiallyConsistent)
                } else {
                    flag.value.subtract(1, ordering: .sequentiallyConsistent)
                }
            }
            if watch.disposeReturned.load(ordering: .sequentiallyConsistent) { watch.afterDispose += 1 }
            if watch.terminals > 0 { watch.afterTerminal += 1 }
            switch event {
            case let .value(v):
                if interrupted.value.load(ordering: .sequentiallyConsistent) != Int.max { watch.afterInterrupt += 1 }
                watch.values.append(v)
                withExtendedLifetime(watch.canary) {}
                // Some observers answer some values by sending into their own
                // root: queued behind the current delivery.
                if reentrant, v & 0xF == 3, v >> 32 != Self.reentrantThread {
                    let seq = self.reentrantSeq.add(1, ordering: .relaxed).oldValue
                    input.send(value: Self.value(thread: Self.reentrantThread, seq: seq))
                }
            case .failed, .completed, .interrupted:
                watch.terminals += 1
            }
        }
        return (watch, observer)
    }

    func run() -> Report {
        for _ in 0..<signalCount {
            let (signal, input) = Signal<Int, Never>.pipe()
            roots.append(signal)
            inputs.append(input)
            derived.append(signal.map { $0 })
            let (outer, outerInput) = Signal<Signal<Int, Never>, Never>.pipe()
            let strategy = Self.strategies[Int((seed &+ UInt64(roots.count)) % UInt64(Self.strategies.count))]
            flattened.append(outer.flatten(strategy))
            outerInput.send(value: signal)
            outerInput.sendCompleted()
        }
        let logs = (0..<threadCount).map { _ in ThreadLog() }
        DispatchQueue.concurrentPerform(iterations: threadCount) { t in
            var rng = SeededGenerator(seed: seed &* 31 &+ UInt64(t))
            let log = logs[t]
            var mine: [(Watch, Disposable)] = []
            var seq = 0
            for _ in 0..<operations {
                let dice = Int.random(in: 0..<1000, using: &rng)
                let root = Int.random(in: 0..<signalCount, using: &rng)
                switch dice {
                case 0..<700:
                    let v = Self.value(thread: t, seq: seq)
                    seq += 1
                    let start = stamp()
                    inputs[root].send(value: v)
                    log.sends.append(Send(root: root, value: v, startedAt: start, returnedAt: stamp()))
                case 700..<850:
                    let signalIndex = root + signalCount * Int.random(in: 0..<3, using: &rng)
                    let (watch, observer) = makeWatch(signal: signalIndex, reentrant: dice < 720)
                    let target = [roots, derived, flattened][signalIndex / signalCount][root]
                    watch.observingThread.store(UInt(pthread_self()), ordering: .sequentiallyConsistent)
                    watch.attachStartedAt.store(stamp(), ordering: .sequentiallyConsistent)
                    let observation = target.observe(observer)
                    watch.attachedAt = stamp()
                    watch.observingThread.store(0, ordering: .sequentiallyConsistent)
                    if let d = observation {
                        mine.append((watch, d))
                    }
                    log.watches.append(watch)
                case 850..<995:
                    guard !mine.isEmpty else { continue }
                    let (watch, d) = mine.remove(at: Int.random(in: 0..<mine.count, using: &rng))
                    watch.disposeStartedAt = stamp()
                    d.dispose()
                    watch.disposeReturned.store(true, ordering: .sequentiallyConsistent)
                    if Bool.random(using: &rng) { d.dispose() }  // disposing twice is harmless
                default:
                    let start = stamp()
                    lower(firstTerminal[root], to: start)
                    if Bool.random(using: &rng) {
                        inputs[root].sendCompleted()
                    } else {
                        lower(firstInterrupt[root], to: start)
                        inputs[root].sendInterrupted()
                        lower(interruptReturned[root], to: stamp())
                    }
                }
            }
        }
        // End of the schedule: terminate everything, drop every reference.
        var canaries: [Weak] = []
        for log in logs { for w in log.watches { canaries.append(Weak(w.canary)) } }
        for input in inputs { input.sendCompleted() }
        return check(logs: logs, canaries: canaries)
    }

    /// Lowers `cell` to `ticket` if it is smaller.
    func lower(_ cell: Cell, to ticket: Int) {
        var current = cell.value.load(ordering: .sequentiallyConsistent)
        while ticket < current {
            let (done, now) = cell.value.compareExchange(
                expected: current, desired: ticket, ordering: .sequentiallyConsistent)
            if done { break }
            current = now
        }
    }

    struct Weak {
        weak var object: Canary?
        init(_ object: Canary) { self.object = object }
    }

    func check(logs: [ThreadLog], canaries: [Weak]) -> Report {
        var report = Report()
        func fail(_ s: String) { if report.violations.count < 20 { report.violations.append(s) } }
        var sendsByRoot = [[Send]](repeating: [], count: signalCount)
        for log in logs { for s in log.sends { sendsByRoot[s.root].append(s) } }
        let terminalAt = firstTerminal.map { $0.value.load(ordering: .sequentiallyConsistent) }
        for log in logs {
            for watch in log.watches {
                report.delivered += watch.values.count
                if watch.values.contains(-1) { fail("overlapping deliveries on signal \(watch.signal)") }
                if watch.terminals > 1 { fail("\(watch.terminals) terminal events") }
                if watch.afterTerminal > 0 { fail("\(watch.afterTerminal) deliveries after a terminal event") }
                if watch.afterDispose > 1 { fail("\(watch.afterDispose) deliveries after dispose() returned") }
                if watch.afterInterrupt > 1 {
                    fail("\(watch.afterInterrupt) values delivered after sendInterrupted() returned")
                }
                if watch.terminals == 0 && watch.disposeStartedAt == .max {
                    fail("an observer neither disposed nor terminated")
                }
                if Set(watch.values).count != watch.values.count { fail("a value delivered twice") }
                var lastSeq = [Int: Int]()
                for v in watch.values where v >= 0 {
                    let sender = v >> 32, seq = v & 0xFFFF_FFFF
                    if let last = lastSeq[sender], seq <= last { fail("sender \(sender) out of order") }
                    lastSeq[sender] = seq
                }
                let received = Set(watch.values)
                let root = watch.signal % signalCount
                let interrupted = firstInterrupt[root].value.load(ordering: .sequentiallyConsistent) != .max
                // Senders with a value this observer had to receive but
                // did not: under an interruption, that is allowed only if no
                // later value of the same sender was received (the queued
                // suffix that the interruption overtook).
                var missingFrom = [Int: Int]()
                for send in sendsByRoot[root]
                where watch.attachedAt < send.startedAt
                    && watch.disposeStartedAt == .max
                    && terminalAt[root] > send.returnedAt
                    && !received.contains(send.value)
                {
                    if !interrupted {
                        fail("value \(send.value) lost for an observer of signal \(watch.signal)")
                        break
                    }
                    let sender = send.value >> 32, seq = send.value & 0xFFFF_FFFF
                    missingFrom[sender] = min(missingFrom[sender] ?? .max, seq)
                }
                for v in watch.values where v >= 0 {
                    if let gap = missingFrom[v >> 32], v & 0xFFFF_FFFF > gap {
                        fail("sender \(v >> 32)'s value \(gap) lost before a later one delivered on signal \(watch.signal)")
                        break
                    }
                }
            }
        }
        roots.removeAll()
        derived.removeAll()
        flattened.removeAll()
        inputs.removeAll()
        for log in logs { log.watches.removeAll() }
        if canaries.contains(where: { $0.object != nil }) { fail("an observer was not released") }
        return report
    }
}
