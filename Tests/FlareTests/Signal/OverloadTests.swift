import CFlare
import Foundation
import Synchronization
import Testing
@testable import Flare

/// Contract 9: what is queued behind a delivery is bounded; a sender from
/// another thread that finds the bound reached waits until the delivering
/// thread catches up; reentrant sends, sends from inside the domain's own
/// delivery and terminal events never wait.
///
/// The queue's peak and the number of waits are the C core's debug
/// accounting, kept in debug builds only (which `swift test` builds).
@Suite("Queue limit under overload (contract 9)", .serialized)
struct OverloadTests {
    /// Runs `body` on a thread of its own (not a Dispatch worker: these
    /// tests block threads on purpose, and a starved pool would hang them)
    /// and returns a semaphore signalled when it returns.
    ///
    /// The body, and what it captures, is released on that thread as soon as
    /// it returns, not when the thread object goes away during the thread's
    /// exit: releasing a signal's last input sends `interrupted`, and a
    /// delivery then, after the node pool has taken back the exiting
    /// thread's cached nodes, would strand the nodes it frees.
    @discardableResult
    static func spawn(_ body: @escaping @Sendable () -> Void) -> DispatchSemaphore {
        let done = DispatchSemaphore(value: 0)
        let pending = Locked<(@Sendable () -> Void)?>(body)
        let thread = Thread {
            if let run = pending.withLock({ slot -> (@Sendable () -> Void)? in
                defer { slot = nil }
                return slot
            }) {
                run()
            }
            done.signal()
        }
        thread.start()
        return done
    }

    /// Waits for every semaphore from `spawn`, at most `seconds` in all.
    static func join(_ threads: [DispatchSemaphore], seconds: Double = 60) -> Bool {
        let deadline = DispatchTime.now() + seconds
        return threads.allSatisfy { $0.wait(timeout: deadline) == .success }
    }

    /// The serial word of `signal`'s domain.
    func serial<V, E>(_ signal: Signal<V, E>) -> UnsafeMutablePointer<flare_serial> {
        signal._core.serial
    }

    /// Busy for about `nanoseconds`: an observer slower than any sender.
    static func busy(_ nanoseconds: UInt64) {
        let until = DispatchTime.now().uptimeNanoseconds + nanoseconds
        while DispatchTime.now().uptimeNanoseconds < until {}
    }

    #if DEBUG
    @Test("2 threads outpacing a slow observer for 2 s: the queue never exceeds the limit, every value once, in per-sender order")
    func sustainedOverload() {
        let limit = 64
        let (signal, input) = Signal<Int, Never>.pipe(queueLimit: .events(limit))
        let log = Recorder<Int>()
        signal.observeValues { value in
            log.append(value)
            Self.busy(2_000)
        }
        let stop = Atomic<Bool>(false)
        let sent = Locked([0, 0])
        let threads = (0..<2).map { sender in
            Self.spawn {
                var i = 0
                while !stop.load(ordering: .relaxed) {
                    input.send(value: sender << 40 | i)
                    i += 1
                }
                sent.withLock { $0[sender] = i }
            }
        }
        Thread.sleep(forTimeInterval: 2)
        stop.store(true, ordering: .relaxed)
        #expect(Self.join(threads))
        input.sendCompleted()
        let counts = sent.withLock { $0 }
        let values = log.items
        #expect(values.count == counts[0] + counts[1])
        #expect(counts[0] > 0 && counts[1] > 0)
        var next = [0, 0]
        var ordered = true
        for value in values {
            let sender = value >> 40
            if value & (1 << 40 - 1) != next[sender] { ordered = false }
            next[sender] += 1
        }
        #expect(ordered)
        #expect(next == counts)
        let peak = flare_serial_debug_peak(serial(signal))
        #expect(peak <= limit)
        #expect(peak == limit)
        #expect(flare_serial_debug_waits(serial(signal)) > 0)
    }

    @Test("a reentrant observer sends 100,000 values into a full domain: none waits, all are delivered")
    func reentrantSendsIntoAFullDomain() {
        let limit = 8
        let (signal, input) = Signal<Int, Never>.pipe(queueLimit: .events(limit))
        let serial = serial(signal)
        let log = Recorder<Int>()
        let started = DispatchSemaphore(value: 0)
        let reentrant = 100_000
        signal.observeValues { value in
            log.append(value)
            guard value == 0 else { return }
            started.signal()
            // Wait until another thread has filled the queue and waits.
            while flare_serial_debug_waits(serial) == 0 { sched_yield() }
            for i in 1...reentrant { input.send(value: -i) }
        }
        let drainer = Self.spawn { input.send(value: 0) }
        started.wait()
        let filler = Self.spawn {
            for i in 1...(limit + 4) { input.send(value: i) }
        }
        #expect(Self.join([drainer, filler]))
        input.sendCompleted()
        let values = log.items
        #expect(values.count == 1 + limit + 4 + reentrant)
        let filled = values.filter { $0 > 0 }
        let sentFromInside = values.filter { $0 < 0 }
        #expect(filled.elementsEqual(1...(limit + 4)))
        #expect(sentFromInside.elementsEqual((1...reentrant).lazy.map { -$0 }))
        #expect(flare_serial_debug_peak(serial) <= limit)
    }
    #endif

    @Test("senders waiting on a full queue are released when the signal completes; later sends are ignored")
    func completionReleasesWaitingSenders() {
        let (signal, input) = Signal<Int, Never>.pipe(queueLimit: .events(2))
        let gate = DispatchSemaphore(value: 0)
        let events = Recorder<String>()
        signal.observe { event in
            events.append(describe(event))
            if case .value(0) = event { gate.wait() }
        }
        var threads = [Self.spawn { input.send(value: 0) }]
        while flare_serial_peek(serial(signal)) == UInt(FLARE_SERIAL_IDLE) { sched_yield() }
        for sender in 1...2 {
            threads.append(Self.spawn {
                for i in 0..<1000 { input.send(value: sender * 10_000 + i) }
            })
        }
        // Let the senders fill the queue and park.
        #if DEBUG
        while flare_serial_debug_parks(serial(signal)) == 0 { sched_yield() }
        // A parked sender shows that two tickets were admitted, not that
        // both admitted values were pushed yet: one admitted sender may be
        // descheduled before its push, which would then land behind
        // `completed` and be dropped. Give it time to push.
        Thread.sleep(forTimeInterval: 0.05)
        #else
        Thread.sleep(forTimeInterval: 0.2)
        #endif
        input.sendCompleted()
        gate.signal()
        #expect(Self.join(threads))
        let all = events.items
        #expect(all.last == "completed")
        #expect(all.count >= 1 + 2 + 1) // the first value, the queue's two, completed
        #expect(all.count < 2 + 2000)
        #expect(all.filter { $0 == "completed" }.count == 1)
    }

    @Test("a send into merge from inside its input's delivery feeds back 10,000 times while another thread floods the other input")
    func feedbackThroughMergeUnderLoad() {
        let (a, inputA) = Signal<Int, Never>.pipe()
        let (b, inputB) = Signal<Int, Never>.pipe()
        let merged = a.merge(with: b)
        let fromA = Counter()
        let fromB = Counter()
        let rounds = 10_000
        merged.observeValues { value in
            if value >= 0 {
                fromA.increment()
                if value < rounds { inputA.send(value: value + 1) }
            } else {
                fromB.increment()
                Self.busy(200)
            }
        }
        let stop = Atomic<Bool>(false)
        let flooded = Atomic<Int>(0)
        let flooder = Self.spawn {
            var i = 1
            while !stop.load(ordering: .relaxed) {
                inputB.send(value: -i)
                i += 1
            }
            flooded.store(i - 1, ordering: .relaxed)
        }
        let feeder = Self.spawn {
            inputA.send(value: 0)
            while fromA.count < rounds + 1 { sched_yield() }
            stop.store(true, ordering: .relaxed)
        }
        #expect(Self.join([flooder, feeder], seconds: 120))
        inputA.sendCompleted()
        inputB.sendCompleted()
        #expect(fromA.count == rounds + 1)
        #expect(fromB.count == flooded.load(ordering: .relaxed))
    }

    @Test("a flattened start handler that sends past the limit from its own thread and a second one ends, for merge, concat and latest (no cycle of waits)", arguments: [FlattenStrategy.merge, .concat, .latest])
    func flattenedHandlerSendingFromTwoThreads(strategy: FlattenStrategy) {
        // The flatten starts the inner, start handler included, inside the
        // delivery of its funnel: this thread holds the funnel's word. The
        // second thread's values go through the run's word into the funnel.
        // Past both queue limits each thread would wait for the other's
        // word: the one whose wait would close the cycle queues instead.
        // 30,000 values each: fifteen times either limit, so the cycle
        // forms and is broken thousands of times.
        let perThread = 30_000
        let received = Counter()
        let helpers = Locked<[DispatchSemaphore]>([])
        // Where each thread is, for the message of a failure: its tag (as
        // the table of waits and `owner` name it) and the values it sent.
        let progress = StartedThreads()
        let (outer, input) = Signal<Int, Never>.pipe()
        let flattened: Signal<Int, Never> = outer.flatMap(strategy) { _ in
            SignalProducer<Int, Never> { observer, _ in
                let other = Self.spawn {
                    progress.second.tag.store(flare_thread_tag(), ordering: .relaxed)
                    for i in 0..<perThread {
                        observer.send(value: i)
                        progress.second.sent.store(i + 1, ordering: .relaxed)
                    }
                }
                helpers.withLock { $0.append(other) }
                progress.first.tag.store(flare_thread_tag(), ordering: .relaxed)
                for i in 0..<perThread {
                    observer.send(value: i)
                    progress.first.sent.store(i + 1, ordering: .relaxed)
                }
            }
        }
        flattened.observeValues { _ in received.increment() }
        let sender = Self.spawn { input.send(value: 0) }
        // A cycle of waits never ends; a loaded machine only slows this
        // down (a fraction of a second on an idle machine, minutes seen
        // under ThreadSanitizer on a loaded one): the deadline is generous,
        // and a failure says where both threads were and the state of the
        // words they last waited on.
        let returned = Self.join([sender], seconds: 240)
        #expect(returned, "deadlock: the starting thread never returned; \(progress.describe(funnel: serial(flattened)))")
        #expect(Self.join(helpers.withLock { $0 }, seconds: 60), "deadlock: the second thread never returned")
        #expect(received.count == 2 * perThread)
    }

    @Test("unbounded: a sender never waits, whatever is queued")
    func unboundedNeverWaits() {
        let (signal, input) = Signal<Int, Never>.pipe(queueLimit: .unbounded)
        let received = Counter()
        let gate = DispatchSemaphore(value: 0)
        signal.observeValues { value in
            received.increment()
            if value == 0 { gate.wait() }
        }
        let first = Self.spawn { input.send(value: 0) }
        while flare_serial_peek(serial(signal)) == UInt(FLARE_SERIAL_IDLE) { sched_yield() }
        // 10,000 queued behind a delivery that cannot end before they are.
        for i in 1...10_000 { input.send(value: i) }
        gate.signal()
        #expect(Self.join([first]))
        #expect(received.count == 10_001)
        #expect(flare_serial_debug_waits(serial(signal)) == 0)
        #expect(flare_serial_debug_peak(serial(signal)) == 0)
        #expect(QueueLimit.unbounded.isUnbounded)
        #expect(QueueLimit.default.description == "2048 events")
    }
}

/// Two threads' positions in a test that may hang, and the state of the
/// words they use, for the message of its failure.
final class StartedThreads: Sendable {
    final class Position: Sendable {
        let tag = Atomic<Int>(0)
        let sent = Atomic<Int>(0)

        /// The thread's tag, values sent, whom it waits for, and the state
        /// of the word of its last wait (alive: the test that asks is stuck
        /// inside the flatten that owns both words).
        func describe(_ name: String) -> String {
            let tag = tag.load(ordering: .relaxed)
            guard tag != 0 else { return "\(name) not started" }
            let on = flare_waits_debug_waiting_on(tag)
            let word = on == 0 ? "none" : StartedThreads.describe(UnsafeMutablePointer(bitPattern: on)!)
            return "\(name) tag \(tag) sent \(sent.load(ordering: .relaxed)) "
                + "waits for \(flare_waits_debug_waiting_for(tag)), last waited on \(on): \(word)"
        }
    }

    let first = Position()
    let second = Position()

    /// Both positions, and the counters of `funnel`'s word.
    func describe(funnel: UnsafeMutablePointer<flare_serial>) -> String {
        "\(first.describe("starting thread")); \(second.describe("second thread")); "
            + "funnel \(Int(bitPattern: funnel)): \(Self.describe(funnel))"
    }

    static func describe(_ word: UnsafeMutablePointer<flare_serial>) -> String {
        var state = [Int](repeating: 0, count: 6)
        state.withUnsafeMutableBufferPointer { flare_serial_debug_state(word, $0.baseAddress) }
        return "word \(state[0]) owner \(state[1]) tickets \(state[2]) freed \(state[3]) limit \(state[4]) "
            + "parked \(state[5]) waits \(flare_serial_debug_waits(word)) parks \(flare_serial_debug_parks(word)) "
            + "cycles \(flare_serial_debug_cycles(word))"
    }
}
