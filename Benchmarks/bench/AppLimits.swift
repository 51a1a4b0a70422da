import Dispatch
import Flare
import Foundation
import Synchronization

// MARK: The application scenarios' limits

/// Each limit is the program of its scenario in `AppScenarios.swift`
/// written by hand: plain state and closures, the same scheduler (Flare's
/// `TestScheduler` or `QueueScheduler`, used as a clock and a queue only),
/// the same data and the same observable results (the selftest checks
/// their checksums agree), with no reactive library. They keep the
/// semantics the user relies on (a debounce that restarts, a throttle that
/// holds the latest value, an action that cannot run twice at once, at
/// most 4 requests in flight) and nothing else: no serialization where the
/// program has one thread, no lifetimes, no termination.

/// Search as you type. The classes are `@unchecked Sendable` because the
/// scheduler's actions are `@Sendable`: each limit is used from one thread
/// (the one that advances its `TestScheduler`).
final class SearchLimit: @unchecked Sendable {
    let scheduler = TestScheduler()
    let tally = AppTally()
    var debounceTimer: Disposable?
    var lastQuery: String?
    /// The request in flight: its answer and its timeout.
    var answer: Disposable?
    var timeout: Disposable?
    var results = 0

    static func program() -> AppProgram {
        let limit = SearchLimit()
        return AppProgram(
            push: { i in
                limit.textChanged(Typing.text(i))
                limit.scheduler.advance(by: Typing.pause(after: i))
            },
            checksum: { limit.tally.digest() },
            keep: [limit])
    }

    func textChanged(_ text: String) {
        let query = text.lowercased()
        debounceTimer?.dispose()
        debounceTimer = scheduler.schedule(after: scheduler.currentDate.addingTimeInterval(Typing.debounce)) {
            self.debounced(query)
        }
    }

    func debounced(_ query: String) {
        debounceTimer = nil
        if query == lastQuery { return }
        lastQuery = query
        guard query.utf8.count >= Typing.minimumQuery else { return }
        if answer != nil {
            // The latest query wins: the one in flight is abandoned.
            answer?.dispose()
            timeout?.dispose()
            tally.terminated += 1
        }
        tally.started += 1
        timeout = scheduler.schedule(after: scheduler.currentDate.addingTimeInterval(Typing.requestTimeout)) {
            self.finish(with: 0)
        }
        attempt(query, retriesLeft: 2)
    }

    func attempt(_ query: String, retriesLeft: Int) {
        answer = scheduler.schedule(after: scheduler.currentDate.addingTimeInterval(Typing.latency)) {
            self.finish(with: Typing.resultCount(query))
        }
    }

    func finish(with result: Int) {
        answer?.dispose()
        timeout?.dispose()
        answer = nil
        timeout = nil
        tally.terminated += 1
        results = result
        tally.total &+= result
        tally.count += 1
    }
}

/// The ticker: the running change collected in batches, and the
/// throttled, filtered, displayed price without repeats.
final class TickerLimit: @unchecked Sendable {
    let scheduler = TestScheduler()
    let tally = AppTally()
    var previous: Double?
    var runningChange = 0.0
    var batch: [Double] = []
    // throttle
    var held: Double?
    var lastSent: Date?
    var scheduled: Disposable?
    var lastDisplayed: Double?

    static func program() -> AppProgram {
        let limit = TickerLimit()
        return AppProgram(
            push: { i in
                limit.price(Prices.price(i))
                limit.scheduler.advance(by: .milliseconds(100))
            },
            checksum: { limit.tally.digest() },
            keep: [limit])
    }

    func price(_ price: Double) {
        if let previous {
            runningChange += price - previous
            batch.append(runningChange)
            if batch.count == Prices.batch {
                tally.total &+= Prices.digest(batch)
                batch = []
            }
        }
        previous = price
        throttle(price)
    }

    func throttle(_ price: Double) {
        held = price
        let now = scheduler.currentDate
        var date = now
        if let lastSent, lastSent <= now {
            date = max(lastSent.addingTimeInterval(Prices.throttle), now)
        }
        scheduled?.dispose()
        let due = date
        scheduled = scheduler.schedule(after: due) { self.tick(due) }
    }

    func tick(_ date: Date) {
        guard let value = held else { return }
        held = nil
        lastSent = date
        guard value > Prices.alertAbove else { return }
        let shown = Prices.display(value)
        if shown == lastDisplayed { return }
        lastDisplayed = shown
        tally.count += 1
        tally.started &+= Int((shown * 10).rounded())
    }
}

/// The form: three fields, their validity copied into `isEnabled` on every
/// change, and a submit that runs its work when enabled and idle.
final class FormLimit {
    let tally = AppTally()
    var name = "", email = "", password = ""
    var isEnabled = false
    var isExecuting = false
    /// The submit's work (what the action's producer sends).
    var work: () -> Int = { 0 }

    static func program() -> AppProgram {
        let limit = FormLimit()
        limit.work = { [unowned limit] in limit.name.utf8.count }
        return AppProgram(
            push: { i in
                let k = i / 3
                switch i % 3 {
                case 0: limit.name = FormEdits.names[k % FormEdits.names.count]
                case 1: limit.email = FormEdits.emails[k % FormEdits.emails.count]
                default: limit.password = FormEdits.passwords[k % FormEdits.passwords.count]
                }
                limit.validate()
                if i % FormEdits.submitEvery == FormEdits.submitEvery - 1 {
                    limit.submit()
                    limit.tally.started += 1
                }
            },
            checksum: { limit.tally.digest() },
            keep: [limit])
    }

    func validate() {
        isEnabled = FormEdits.isValid(name, email, password)
    }

    func submit() {
        guard isEnabled, !isExecuting else { return }
        isExecuting = true
        let value = work()
        tally.total &+= value
        tally.count += 1
        isExecuting = false
    }
}

/// The server: each connection thread parses and filters its requests,
/// then admits each to at most 4 in flight under one `Mutex` (the others
/// wait in a FIFO); a request is answered on the worker queue, its answer
/// counted on the delivery queue, and the next waiting request started.
final class FanInLimit: Sendable {
    struct Admission {
        var inFlight = 0
        var waiting: [Int] = []
        var head = 0
        var connectionsOpen = FanInGate.threads
    }

    let gate: FanInGate
    let workers = QueueScheduler(name: "bench.apps.limit.workers")
    let delivery = QueueScheduler(name: "bench.apps.limit.delivery")
    let admission = Mutex(Admission())

    init(gate: FanInGate) { self.gate = gate }

    static func start(_ gate: FanInGate) -> (threads: ThreadList, keep: [AnyObject]) {
        let limit = FanInLimit(gate: gate)
        let threads = ThreadList()
        for k in 0..<FanInGate.threads {
            threads.append(Thread {
                gate.connection(k) { request in limit.receive(request) }
                limit.connectionClosed()
            })
        }
        return (threads, [limit])
    }

    func receive(_ request: Int) {
        let parsed = FanInGate.parse(request)
        guard FanInGate.isValid(parsed) else { return }
        let admitted = admission.withLock { state in
            if state.inFlight < Int(FanInGate.concurrency) {
                state.inFlight += 1
                return true
            }
            state.waiting.append(parsed)
            return false
        }
        if admitted { handle(parsed) }
    }

    func handle(_ parsed: Int) {
        _ = workers.schedule {
            let response = FanInGate.respond(parsed)
            _ = self.delivery.schedule { self.gate.deliver(response) }
            self.done()
        }
    }

    /// A request was answered: start the next waiting one, or free its
    /// slot (and report the end once nothing is open or in flight).
    func done() {
        let (next, ended): (Int?, Bool) = admission.withLock { state in
            if state.head < state.waiting.count {
                let next = state.waiting[state.head]
                state.head += 1
                if state.head >= 1024, state.head * 2 >= state.waiting.count {
                    state.waiting.removeFirst(state.head)
                    state.head = 0
                }
                return (next, false)
            }
            state.inFlight -= 1
            return (nil, state.inFlight == 0 && state.connectionsOpen == 0)
        }
        if let next { handle(next) }
        if ended { reportEnd() }
    }

    func connectionClosed() {
        let ended = admission.withLock { state in
            state.connectionsOpen -= 1
            return state.connectionsOpen == 0 && state.inFlight == 0
        }
        if ended { reportEnd() }
    }

    func reportEnd() {
        _ = delivery.schedule { self.gate.finished.store(1, ordering: .releasing) }
    }
}

/// `for await` over an `AsyncStream` that a closure feeds: the same `map`
/// and `filter` applied by hand before `yield`.
func limitAsyncValues(_ gate: AsyncGate) -> (send: (Int) -> Void, finish: () -> Void) {
    let (stream, continuation) = AsyncStream<Int>.makeStream()
    Task.detached { await gate.iterate(stream) }
    let send: (Int) -> Void = { v in
        let mapped = AsyncGate.transform(v)
        if AsyncGate.isIncluded(mapped) { continuation.yield(mapped) }
    }
    return (send, { continuation.finish() })
}
