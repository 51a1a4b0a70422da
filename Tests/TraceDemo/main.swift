// A small program whose every probe firing is known in advance, for
// Tests/check-probes.sh (which runs it under bpftrace and compares the
// counts and arguments it sees with the ones listed below) and for the
// "Tracing in production" article. Each scenario names its signals, so the
// script can tell them from the internal signals the program also makes.
//
// `trace-demo [rounds]` runs the scenarios `rounds` times (default 1) and
// prints how often the value descriptions were computed: 0 unless a
// tracer is attached to value_sent.
//
import CFlare
import Dispatch
import Flare
import Foundation
import Synchronization

// `trace-demo --hot N [one|many|chain]` instead sends N values through a
// hot path alone (to one observer; to 100 observers; through
// map→filter→map to one observer; default: all three), on one thread and
// without sleeping: a fixed amount of work, for instruction counts of a
// build with the probes against one without (valgrind --tool=callgrind;
// docs: Tracing in production).
if CommandLine.arguments.count > 2, CommandLine.arguments[1] == "--hot", let n = Int(CommandLine.arguments[2]) {
    let only = CommandLine.arguments.count > 3 ? CommandLine.arguments[3] : nil
    var sum = 0
    if only == nil || only == "one" {
        let (one, input) = Signal<Int, Never>.pipe()
        one.observeValues { sum &+= $0 }
        for i in 0..<n { input.send(value: i) }
    }
    if only == nil || only == "many" {
        let (many, input) = Signal<Int, Never>.pipe()
        for _ in 0..<100 { many.observeValues { sum &+= $0 } }
        for i in 0..<n { input.send(value: i) }
    }
    if only == nil || only == "chain" {
        let (source, input) = Signal<Int, Never>.pipe()
        source.map { $0 &+ 1 }.filter { $0 & 1 == 0 }.map { $0 &* 3 }.observeValues { sum &+= $0 }
        for i in 0..<n { input.send(value: i) }
    }
    print("trace-demo --hot \(n) \(only ?? "all"): \(sum)")
    exit(0)
}

let rounds = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 1 : 1

/// How often a `describe` closure ran (only while value_sent is traced).
nonisolated(unsafe) var descriptions = 0

/// The calling thread's id (/proc/thread-self links to PID/task/TID).
func threadID() -> Int32 {
    let link = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")) ?? ""
    return Int32(link.split(separator: "/").last ?? "") ?? 0
}

/// Whether thread `tid` of this process sleeps in the kernel: state S in
/// /proc/self/task/TID/stat, the field after the parenthesized name.
func isSleeping(_ tid: Int32) -> Bool {
    guard tid != 0, let stat = try? String(contentsOfFile: "/proc/self/task/\(tid)/stat", encoding: .utf8),
          let close = stat.lastIndex(of: ")") else { return false }
    return stat[close...].dropFirst(2).first == "S"
}

for _ in 0..<rounds {
    // prices: 1000 values to two observers, one observer disposed after
    // them, then completed. Expected, per round: signal_named 1,
    // observer_attached 2, event_sent (value) 1000, value_sent 1000 ("p=1"
    // … "p=1000"), observer_disposed 1, event_sent (completed) 1,
    // signal_ended completed with 1 observer, signal_freed 1.
    do {
        let (prices, input) = Signal<Int, Never>.pipe()
        prices.named("prices", describe: { descriptions += 1; return "p=\($0)" })
        var sum = 0
        let first = prices.observeValues { sum += $0 }
        prices.observeValues { sum -= $0 / 2 }
        for i in 1...1000 { input.send(value: i) }
        first?.dispose()
        input.sendCompleted()
        precondition(sum == 500_500 - 250_000, "prices: \(sum)")
    }

    // echo: each of the 10 values below 100 is sent again from inside the
    // observer (+100): 10 reentrant queued sends, 20 values delivered, one
    // drain per reentrant send (drain_started, drain_ended with 1).
    do {
        let (echo, input) = Signal<Int, Never>.pipe()
        echo.named("echo")
        echo.observeValues { if $0 < 100 { input.send(value: $0 + 100) } }
        for i in 0..<10 { input.send(value: i) }
        input.sendInterrupted()
    }

    // busy: while the main thread delivers its first value, another
    // thread sends 100 values, all queued behind it (contended, in the
    // sender's batches: batch_handed), then delivered by one drain
    // (drain_started, drain_ended with 100). The observer holds the first
    // delivery until the sender has sent everything.
    do {
        let (busy, input) = Signal<Int, Never>.pipe()
        busy.named("busy")
        let started = DispatchSemaphore(value: 0)
        let sent = DispatchSemaphore(value: 0)
        var received = 0
        busy.observeValues { value in
            received += 1
            if value == -1 {
                started.signal()
                sent.wait()
            }
        }
        let sender = Thread {
            started.wait()
            for i in 0..<100 { input.send(value: i) }
            sent.signal()
        }
        sender.start()
        input.send(value: -1)
        precondition(received == 101, "busy: \(received)")
        input.sendInterrupted()
    }

    // limited: the same with a queue limit of 2: the sender must wait for
    // slots (sender_waiting, then sender_released with 1: admitted). The
    // observer holds the first delivery until the sender, past its first
    // two values, sleeps in the kernel: the only place a send sleeps is
    // the wait for a slot (it parks after spinning and yielding). How
    // often it waits after that depends on timing.
    do {
        let (limited, input) = Signal<Int, Never>.pipe(queueLimit: .events(2))
        limited.named("limited")
        let started = DispatchSemaphore(value: 0)
        let sends = Atomic<Int>(0)
        let senderID = Atomic<Int32>(0)
        var received = 0
        limited.observeValues { value in
            received += 1
            guard value == -1 else { return }
            started.signal()
            var polls = 0
            while sends.load(ordering: .acquiring) < 3 || !isSleeping(senderID.load(ordering: .acquiring)) {
                polls += 1
                precondition(polls < 10_000, "limited: the sender never waited")
                usleep(1000)
            }
        }
        let sender = Thread {
            senderID.store(threadID(), ordering: .releasing)
            started.wait()
            for i in 0..<100 {
                sends.add(1, ordering: .releasing)
                input.send(value: i)
            }
        }
        sender.start()
        input.send(value: -1)
        while received < 101 { usleep(1000) }
        input.sendInterrupted()
    }

    // derived: a named derived signal whose handle goes at once and whose
    // only observer is then disposed: signal_ended with
    // FLARE_TRACE_ABANDONED (4) and 0 observers reported, after 1 value.
    do {
        let (source, input) = Signal<Int, Never>.pipe()
        let observation = source.map { $0 * 2 }.named("derived").observeValues { _ in }
        input.send(value: 1)
        observation?.dispose()
        input.sendCompleted()
    }

    // job: a named producer started three times: completed (3 values),
    // failed, and disposed while running. run_started 3; run_ended with
    // 2 (completed), 1 (failed), 4 (disposed).
    do {
        struct Failure: Error {}
        SignalProducer<Int, Failure>(values: 1, 2, 3).named("job").start()
        SignalProducer<Int, Failure>(error: Failure()).named("job").start()
        let (_, hold) = Signal<Int, Failure>.pipe()
        let running = SignalProducer<Int, Failure> { observer, lifetime in
            observer.send(value: 7)
            lifetime.observeEnded { _ = hold }
        }.named("job").start()
        running.dispose()
    }

    // latest: flatMap(.latest) of two inners: the first is dropped when
    // the second starts (inner_ended 4), the second completes (2).
    // inner_started 2, with strategy 2 (latest).
    do {
        let (outer, input) = Signal<Int, Never>.pipe()
        let (firstInner, firstInput) = Signal<Int, Never>.pipe()
        var received: [Int] = []
        outer.named("latest-outer")
            .flatMap(.latest) { n in n == 1 ? SignalProducer(firstInner) : SignalProducer(value: 20) }
            .observeValues { received.append($0) }
        input.send(value: 1)
        firstInput.send(value: 10)
        input.send(value: 2)
        input.sendCompleted()
        firstInput.sendCompleted()
        precondition(received == [10, 20], "latest: \(received)")
    }
}

print("trace-demo: \(rounds) round(s), \(descriptions) value description(s) computed, probes \(flare_trace_available() != 0 ? "built in" : "compiled out")")
