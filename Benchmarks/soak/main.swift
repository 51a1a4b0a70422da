#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CFlare
import Flare
import MallocCounter
import Foundation
import Synchronization

// `swift run -c release soak [--mode M] [--senders N] [--seconds S] [--inflight K] [--every S] [--count]`
//
// Sends from N threads into one pipe for S seconds, each thread keeping at
// most K values in flight (sent, not yet observed at the end of the
// pipeline), and prints resident memory and the C allocator's figures every
// `--every` seconds, then again once every value is delivered, and after
// `malloc_trim(0)`. Modes (the pipeline between the pipe and the observer):
//
//   merge       flatMap(.merge) to an inner that sends on a QueueScheduler
//   concurrent  the same with flatMap(.concurrent(limit: 4))
//   sync        flatMap(.merge) to SignalProducer(value:) (synchronous inners)
//   observeOn   observe(on: QueueScheduler)
//   schedule    no pipe: each sender schedules the observer's work itself
//
// Columns: seconds, values delivered (millions), RSS, glibc's bytes in use
// (mallinfo2 uordblks + hblkhd) and bytes taken from the system (arena +
// hblkhd), all in MB, the number of malloc arenas, and the MB Flare's node
// pool has taken from malloc (`flare_node_pool_bytes`, part of "in use").
// Where glibc's malloc is not used (see MallocCounter) the allocator's
// figures read 0. With `--count`, each line
// also gives the heap allocations per value delivered since the previous
// line (counting slows every allocation: time figures mean nothing then).

struct Options {
    var mode = "merge"
    var senders = 4
    var seconds = 60.0
    var inflight = 4096
    var every = 5.0
    var count = false

    static func parse(_ arguments: [String]) -> Options {
        var options = Options()
        var rest = arguments[...]
        func value(_ name: String) -> String {
            guard let v = rest.popFirst() else { fatalError("\(name) needs a value") }
            return v
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--mode": options.mode = value(argument)
            case "--senders": options.senders = Int(value(argument))!
            case "--seconds": options.seconds = Double(value(argument))!
            case "--inflight": options.inflight = Int(value(argument))!
            case "--every": options.every = Double(value(argument))!
            case "--count": options.count = true
            default: fatalError("unknown argument \(argument)")
            }
        }
        precondition(["merge", "concurrent", "sync", "observeOn", "schedule"].contains(options.mode), "unknown mode")
        precondition(options.senders >= 1 && options.senders <= 64)
        return options
    }
}

struct Memory {
    var rss: Double
    var inUse: Double
    var system: Double
    var arenas = 0
    var pool: Double

    static func now() -> Memory {
        let mb = 1.0 / 1_048_576
        var memory = Memory(rss: Double(residentBytes()) * mb, inUse: 0, system: 0, pool: Double(flare_node_pool_bytes()) * mb)
        memory.inUse = Double(mc_heap_in_use()) * mb
        memory.system = Double(mc_heap_system()) * mb
        memory.arenas = Int(mc_heap_arenas())
        return memory
    }

    /// Resident set size from /proc/self/statm (Linux), else 0.
    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}

/// Per-sender count of values sent and not yet delivered.
final class InFlight: Sendable {
    final class Count: Sendable {
        let value = Atomic<Int>(0)
    }

    let counts: [Count]
    let delivered = Atomic<Int>(0)

    init(_ senders: Int) {
        counts = (0..<senders).map { _ in Count() }
    }

    func sent(by sender: Int) { counts[sender].value.add(1, ordering: .relaxed) }

    func arrived(from sender: Int) {
        counts[sender].value.subtract(1, ordering: .relaxed)
        delivered.add(1, ordering: .relaxed)
    }

    var total: Int { counts.reduce(0) { $0 + $1.value.load(ordering: .relaxed) } }
}

let options = Options.parse(Array(CommandLine.arguments.dropFirst()))
let flight = InFlight(options.senders)
let scheduler = QueueScheduler(name: "org.flare.soak")
let (signal, input) = Signal<Int, Never>.pipe()
// Keeps the pipeline's output alive; nothing else disposes it.
var observation: Disposable?

func inner(_ sender: Int) -> SignalProducer<Int, Never> {
    SignalProducer { observer, _ in
        scheduler.schedule {
            observer.send(value: sender)
            observer.sendCompleted()
        }
    }
}

switch options.mode {
case "merge": observation = signal.flatMap(.merge, inner).observeValues { flight.arrived(from: $0) }
case "concurrent": observation = signal.flatMap(.concurrent(limit: 4), inner).observeValues { flight.arrived(from: $0) }
case "sync":
    observation = signal.flatMap(.merge) { SignalProducer(value: $0) }.observeValues { flight.arrived(from: $0) }
case "observeOn": observation = signal.observe(on: scheduler).observeValues { flight.arrived(from: $0) }
default: break
}

let stop = Atomic<Bool>(false)
let mode = options.mode
let limit = options.inflight
var threads: [Thread] = []
for sender in 0..<options.senders {
    let thread = Thread {
        while !stop.load(ordering: .relaxed) {
            if flight.counts[sender].value.load(ordering: .relaxed) >= limit {
                usleep(50)
                continue
            }
            flight.sent(by: sender)
            if mode == "schedule" {
                scheduler.schedule { flight.arrived(from: sender) }
            } else {
                input.send(value: sender)
            }
        }
    }
    thread.stackSize = 1 << 20
    threads.append(thread)
}

nonisolated(unsafe) var lastCount = (allocations: UInt64(0), delivered: 0)

func report(_ label: String, _ start: Date) {
    let m = Memory.now()
    var perValue = ""
    if options.count {
        let allocations = mc_allocations()
        let delivered = flight.delivered.load(ordering: .relaxed)
        let values = delivered - lastCount.delivered
        if values > 0 {
            perValue = String(format: "  allocs/value %.2f", Double(allocations - lastCount.allocations) / Double(values))
        }
        lastCount = (allocations, delivered)
    }
    let line = String(
        format: "%-8@%7.1f s %9.2f M  rss %7.1f  in-use %7.1f  system %7.1f  arenas %d  pool %5.2f",
        label, Date().timeIntervalSince(start), Double(flight.delivered.load(ordering: .relaxed)) / 1e6,
        m.rss, m.inUse, m.system, m.arenas, m.pool)
    FileHandle.standardOutput.write(Data((line + perValue + "\n").utf8))
}

FileHandle.standardOutput.write(Data("mode \(options.mode), \(options.senders) sender(s), \(options.inflight) in flight each, \(options.seconds) s\n".utf8))
let start = Date()
if options.count { mc_set_counting(1) }
report("start", start)
for thread in threads { thread.start() }
while Date().timeIntervalSince(start) < options.seconds {
    usleep(UInt32(options.every * 1e6))
    report("run", start)
}
stop.store(true, ordering: .relaxed)
while flight.total > 0 { usleep(10_000) }
// The sender threads have exited or are about to; let them.
usleep(500_000)
report("drained", start)
mc_trim()
report("trimmed", start)
withExtendedLifetime(observation) {}
