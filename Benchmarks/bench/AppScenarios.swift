import Dispatch
import Flare
import Foundation
import MallocCounter
import MetadataCounter
import Synchronization

// MARK: Application scenarios

/// `bench --filter apps`: programs as a user writes them with Flare's
/// public API, each beside its hand-written limit (`AppLimits.swift`): the
/// same logic in plain closures and state, on the same scheduler, with no
/// reactive library. Each contender's run builds its program, warms it up,
/// times a number of events, then counts heap allocations and runtime type
/// look-ups over a further block of events with the counters on (so the
/// counters' own cost stays out of the timed block).

/// Whether `bench --selftest` fails when a scenario's Flare program looks
/// metadata up per event (`.guarded`), or only prints the figure
/// (`.reported`): a scenario becomes guarded once its per-event paths run
/// specialized and it reaches 0.
enum LookupGuard {
    case guarded
    case reported
}

/// What one run of a contender measured.
struct AppRun {
    /// The timed block: its duration and how many events it pushed.
    var elapsed: UInt64
    var events: Int
    /// Per event over the counted block.
    var allocations: Double
    var metadata: Double
    var witnessTables: Double
    /// A digest of everything the program produced over all its events:
    /// equal for Flare and its limit when both ran the same events.
    var checksum: Int
}

/// How many events a run pushes in each block.
struct AppAmounts {
    var warmUp: Int
    var timed: Int
    var counted: Int
}

/// The runtime counters over one block of events.
struct CountedBlock {
    private let allocations0: UInt64, metadata0: UInt64, witness0: UInt64

    /// Turns counting on and takes the counters' values.
    static func begin() -> CountedBlock {
        mc_set_counting(1)
        md_set_counting(1)
        return CountedBlock(allocations0: mc_allocations(), metadata0: md_generic_metadata_lookups(),
                            witness0: md_witness_table_lookups())
    }

    /// Turns counting off; the counts per event since `begin()`.
    func end(events: Int) -> (allocations: Double, metadata: Double, witnessTables: Double) {
        let a = mc_allocations(), m = md_generic_metadata_lookups(), w = md_witness_table_lookups()
        md_set_counting(0)
        mc_set_counting(0)
        let n = Double(max(events, 1))
        return (Double(a - allocations0) / n, Double(m - metadata0) / n, Double(w - witness0) / n)
    }
}

/// A single-threaded program driven one event at a time: `push(i)` is
/// event number `i` (a keystroke, a price, an edit), `checksum` digests
/// what the program has produced so far.
struct AppProgram {
    let push: (Int) -> Void
    let checksum: () -> Int
    /// What must stay alive while events are pushed.
    let keep: [AnyObject]

    /// Warm-up, timed block, counted block, with event numbers running on
    /// from one block to the next.
    func run(_ amounts: AppAmounts) -> AppRun {
        var i = 0
        for _ in 0..<amounts.warmUp { push(i); i += 1 }
        let t0 = now()
        for _ in 0..<amounts.timed { push(i); i += 1 }
        let t1 = now()
        let block = CountedBlock.begin()
        for _ in 0..<amounts.counted { push(i); i += 1 }
        let counts = block.end(events: amounts.counted)
        withExtendedLifetime(keep) {}
        return AppRun(elapsed: t1 - t0, events: amounts.timed, allocations: counts.allocations,
                      metadata: counts.metadata, witnessTables: counts.witnessTables, checksum: checksum())
    }
}

/// One application scenario: its Flare program and its limit.
struct AppScenario {
    let name: String
    let title: String
    /// The timed unit: `true` for a rate (events/s), else ns per event.
    let perSecond: Bool
    let lookups: LookupGuard
    let flare: (AppAmounts) -> AppRun
    let limit: (AppAmounts) -> AppRun
}

/// The scenarios, in table order. Flip `lookups:` to `.guarded` once a
/// scenario's Flare program reaches 0 look-ups per event.
func appScenarios() -> [AppScenario] { [
    AppScenario(name: "search", title: "search as you type, per keystroke", perSecond: false, lookups: .guarded,
                flare: { searchProgram().run($0) }, limit: { SearchLimit.program().run($0) }),
    AppScenario(name: "ticker", title: "price ticker, per price", perSecond: false, lookups: .guarded,
                flare: { tickerProgram().run($0) }, limit: { TickerLimit.program().run($0) }),
    AppScenario(name: "form", title: "form validation and submit, per edit", perSecond: false, lookups: .guarded,
                flare: { formProgram().run($0) }, limit: { FormLimit.program().run($0) }),
    AppScenario(name: "async", title: "for await over a mapped, filtered signal, per value", perSecond: false,
                lookups: .guarded,
                flare: { runAsyncValues(flareAsyncValues, $0) }, limit: { runAsyncValues(limitAsyncValues, $0) }),
    AppScenario(name: "server", title: "server fan-in, 4 threads, events/s", perSecond: true, lookups: .guarded,
                flare: { runFanIn(flareFanIn, $0) }, limit: { runFanIn(FanInLimit.start, $0) }),
] }

let appMetrics = (
    time: Metric(name: "ns/event", unit: "ns", lowerIsBetter: true),
    rate: Metric(name: "events/s", unit: "1/s", lowerIsBetter: false),
    allocations: Metric(name: "allocs/event", unit: "", lowerIsBetter: true),
    metadata: Metric(name: "metadata look-ups/event", unit: "", lowerIsBetter: true)
)

extension AppScenario {
    var metrics: [Metric] { [perSecond ? appMetrics.rate : appMetrics.time, appMetrics.allocations, appMetrics.metadata] }

    /// A contender's run as the runner's measurement, checked to have
    /// produced something.
    func entry(_ name: String, _ run: @escaping (AppAmounts) -> AppRun, quick: Bool) -> Entry {
        let perSecond = self.perSecond
        let scenario = self.name
        return Entry(name: name) { amount in
            let r = run(AppAmounts(warmUp: perSecond ? 2_000 : 500, timed: amount, counted: quick ? 1_000 : 4_000))
            check(r.checksum != 0, "\(name) \(scenario): the program produced nothing")
            let ns = Double(r.elapsed) / Double(max(r.events, 1))
            return Measurement(elapsed: r.elapsed, values: [perSecond ? 1e9 / ns : ns, r.allocations, r.metadata])
        }
    }
}

func runAppScenarios(_ runner: Runner) {
    guard runner.options.includes("apps") else { return }
    progress("application scenarios")
    if md_is_active() == 0 { progress("  (metadata counter inactive on this platform: look-up figures read 0)") }
    let quick = runner.options.quick
    for scenario in appScenarios() {
        // A rate and a cost per event cannot share a table: the server has
        // its own.
        let title = scenario.perSecond
            ? "application scenarios against their hand-written limits, throughput"
            : "application scenarios against their hand-written limits, per event"
        runner.measure(scenario: "apps", title: title, caseName: scenario.name, metrics: scenario.metrics,
                       entries: [scenario.entry(flareName, scenario.flare, quick: quick),
                                 scenario.entry(limitName, scenario.limit, quick: quick)],
                       initialAmount: scenario.perSecond ? (quick ? 4_000 : 40_000) : 512,
                       calibrated: !scenario.perSecond)
    }
}

/// `bench --selftest`: each Flare program and its limit, run over the same
/// events, must produce the same checksum (the limit is the same logic);
/// each program's steady-state look-ups per event are printed, and a
/// guarded scenario fails the selftest if it looks anything up on a first
/// run and again on a second.
func checkAppScenarios() {
    let amounts = AppAmounts(warmUp: 1_000, timed: 2_000, counted: 10_000)
    var guarded: [String] = [], reported: [String] = []
    for scenario in appScenarios() {
        var flare = scenario.flare(amounts)
        let limit = scenario.limit(amounts)
        // The runtime caches a concrete type's metadata per call site on
        // first use, so a path that timing makes rare (a multi-threaded
        // program's contended queueing) can look up once, late, inside the
        // counted block. A per-event look-up recurs on every run: a second
        // run in the same process tells the two apart.
        if flare.metadata != 0 || flare.witnessTables != 0 {
            let first = flare
            flare = scenario.flare(amounts)
            progress("selftest: app \(scenario.name) looked up " + String(format: "%.5f", first.metadata)
                + " metadata and " + String(format: "%.5f", first.witnessTables)
                + " witness tables per event on its first run; ran it again")
        }
        check(flare.checksum == limit.checksum && flare.checksum != 0,
              "app scenario \(scenario.name): Flare's checksum \(flare.checksum), its limit's \(limit.checksum)")
        let line = "app \(scenario.name) (\(scenario.title)): \(format(flare.metadata)) metadata and \(format(flare.witnessTables)) "
            + "witness-table look-ups, \(format(flare.allocations)) allocations per event "
            + "(limit: \(format(limit.metadata)), \(format(limit.witnessTables)), \(format(limit.allocations)))"
        switch scenario.lookups {
        case .guarded:
            guarded.append(scenario.name)
            check(md_is_active() == 0 || (flare.metadata == 0 && flare.witnessTables == 0),
                  "Flare looked up type metadata per event: \(line) (a per-event path runs unspecialized)")
            progress("selftest: \(line)")
        case .reported:
            reported.append(scenario.name)
            progress("selftest: (reported, not guarded) \(line)")
        }
    }
    progress("selftest: app scenarios agree with their limits; look-ups guarded: "
        + "\(guarded.isEmpty ? "none" : guarded.joined(separator: ", ")); reported only: "
        + "\(reported.isEmpty ? "none" : reported.joined(separator: ", "))")
}

/// A counter the programs' observers add to (one thread at a time: each
/// program's deliveries are serialized).
final class AppTally: @unchecked Sendable {
    var total = 0
    var count = 0
    var started = 0
    var terminated = 0

    func digest() -> Int { total &+ count &* 1_000_003 &+ started &* 7_919 &+ terminated &* 104_729 }
}

// MARK: Search as you type

/// What the user types: bursts of five keystrokes 100 ms apart, each
/// typing a longer prefix of a word, then a 500 ms pause (so a 300 ms
/// debounce lets the last keystroke of each burst through). Every fourth
/// burst retypes the previous word (for `skipRepeats`), and one word in
/// sixteen is too short to search (for `filter`).
enum Typing {
    static let burst = 5
    static let debounce: TimeInterval = 0.3
    static let minimumQuery = 3
    static let latency: TimeInterval = 0.05
    static let requestTimeout: TimeInterval = 1

    static let texts: [String] = {
        var texts: [String] = []
        for b in 0..<64 {
            let w = b % 4 == 3 ? b - 1 : b
            let word = w % 16 == 15 ? "Go" : "Term\(w)"
            for p in 0..<burst {
                texts.append(String(word.prefix(max(1, word.count - (burst - 1 - p)))))
            }
        }
        return texts
    }()

    @inline(__always)
    static func text(_ i: Int) -> String { texts[i % texts.count] }

    /// How far the user's clock moves after keystroke `i`.
    @inline(__always)
    static func pause(after i: Int) -> DispatchTimeInterval {
        i % burst == burst - 1 ? .milliseconds(500) : .milliseconds(100)
    }

    /// The search service's answer for `query`.
    @inline(__always)
    static func resultCount(_ query: String) -> Int { query.utf8.count &* 31 &+ 1 }
}

enum SearchError: Error { case timedOut }

/// `MutableProperty<String>` → `map` (normalize) → `debounce` →
/// `skipRepeats` → `filter` → `flatMap(.latest)` into a request producer
/// (a start handler that answers on the scheduler 50 ms later) with
/// `retry(upTo:)`, `timeout(after:raising:on:)`, `on(started:terminated:)`
/// → `Property(initial:then:)`, whose signal a view observes.
func searchProgram() -> AppProgram {
    let scheduler = TestScheduler()
    let text = MutableProperty("")
    let tally = AppTally()
    func search(_ query: String) -> SignalProducer<Int, Never> {
        SignalProducer<Int, SearchError> { observer, lifetime in
            lifetime += scheduler.schedule(after: scheduler.currentDate.addingTimeInterval(Typing.latency)) {
                observer.send(value: Typing.resultCount(query))
                observer.sendCompleted()
            }
        }
        .retry(upTo: 2)
        .timeout(after: Typing.requestTimeout, raising: .timedOut, on: scheduler)
        .on(started: { tally.started += 1 }, terminated: { tally.terminated += 1 })
        .flatMapError { _ in SignalProducer(value: 0) }
    }
    let results = Property(
        initial: 0,
        then: text.producer
            .map { $0.lowercased() }
            .debounce(Typing.debounce, on: scheduler)
            .skipRepeats()
            .filter { $0.utf8.count >= Typing.minimumQuery }
            .flatMap(.latest) { search($0) })
    results.signal.observeValues { tally.total &+= $0; tally.count += 1 }
    return AppProgram(
        push: { i in
            text.value = Typing.text(i)
            scheduler.advance(by: Typing.pause(after: i))
        },
        checksum: { tally.digest() },
        keep: [scheduler, text, results, tally])
}

// MARK: Ticker

/// Prices: a deterministic walk around 100, in cents.
enum Prices {
    static let throttle: TimeInterval = 0.25
    static let batch = 10
    static let alertAbove = 100.0

    static let table: [Double] = {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        var price = 100.0
        return (0..<1024).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let step = Double(Int(state >> 59) - 16) / 100
            price = max(90, min(110, price + step))
            return price
        }
    }()

    @inline(__always)
    static func price(_ i: Int) -> Double { table[i % table.count] }

    /// A price as the display shows it, to the tenth.
    @inline(__always)
    static func display(_ price: Double) -> Double { (price * 10).rounded() / 10 }

    /// A batch of running changes as the chart digests it.
    @inline(__always)
    static func digest(_ batch: [Double]) -> Int { batch.count &* 1_000 &+ Int((batch[batch.count - 1] * 100).rounded()) }
}

/// Prices into a pipe → `combinePrevious` → `map` (change) → `scan`
/// (running change) → `collect(count:)`; the same prices → `throttle` on
/// the scheduler → `filter` → `map` (display) → `skipRepeats`. One price
/// every 100 ms of the user's clock.
func tickerProgram() -> AppProgram {
    let scheduler = TestScheduler()
    let (prices, input) = Signal<Double, Never>.pipe()
    let tally = AppTally()
    prices.combinePrevious()
        .map { previous, current in current - previous }
        .scan(0.0) { $0 + $1 }
        .collect(count: Prices.batch)
        .observeValues { tally.total &+= Prices.digest($0) }
    prices.throttle(Prices.throttle, on: scheduler)
        .filter { $0 > Prices.alertAbove }
        .map { Prices.display($0) }
        .skipRepeats()
        .observeValues { tally.count += 1; tally.started &+= Int(($0 * 10).rounded()) }
    return AppProgram(
        push: { i in
            input.send(value: Prices.price(i))
            scheduler.advance(by: .milliseconds(100))
        },
        checksum: { tally.digest() },
        keep: [scheduler, tally])
}

// MARK: Form

/// Edits: the three fields in turn, each from its own table (sizes 5, 7
/// and 4, so validity keeps changing); a submit after every sixth edit.
enum FormEdits {
    static let names = ["", "Ann", "Bob", "Cyd", "Dee"]
    static let emails = ["ann@example.com", "bad", "bob@example.org", "", "c@d.io", "dee@", "e@f.net"]
    static let passwords = ["secret123", "short", "hunter22", "correct horse"]
    static let submitEvery = 6

    @inline(__always)
    static func isValid(_ name: String, _ email: String, _ password: String) -> Bool {
        !name.isEmpty && email.contains("@") && password.utf8.count >= 8
    }
}

/// Three `MutableProperty`s → `Property.combineLatest` → `map` (validate)
/// → `<~` into an `isEnabled` property; an `Action(enabledIf:)` whose work
/// is a one-value producer, applied and started on every sixth edit.
func formProgram() -> AppProgram {
    let name = MutableProperty(""), email = MutableProperty(""), password = MutableProperty("")
    let isEnabled = MutableProperty(false)
    let tally = AppTally()
    let validity: Property<Bool> = Property.combineLatest(name, email, password)
        .map { name, email, password in FormEdits.isValid(name, email, password) }
    isEnabled <~ validity
    let submit = Action<Void, Int, Never>(enabledIf: isEnabled) { SignalProducer(value: name.value.utf8.count) }
    submit.values.observeValues { tally.total &+= $0; tally.count += 1 }
    return AppProgram(
        push: { i in
            let k = i / 3
            switch i % 3 {
            case 0: name.value = FormEdits.names[k % FormEdits.names.count]
            case 1: email.value = FormEdits.emails[k % FormEdits.emails.count]
            default: password.value = FormEdits.passwords[k % FormEdits.passwords.count]
            }
            if i % FormEdits.submitEvery == FormEdits.submitEvery - 1 {
                submit.apply().start()
                tally.started += 1
            }
        },
        checksum: { tally.digest() },
        keep: [name, email, password, isEnabled, validity, submit, tally])
}

// MARK: Server fan-in

/// Four connection threads release their requests block by block: the
/// main thread opens a block (warm-up, timed, counted), each thread sends
/// its share, and the main thread waits until every response of the block
/// has been counted. Requests are numbered per thread; a request whose
/// number is a multiple of 8 is invalid (dropped by `filter`).
final class FanInGate: Sendable {
    static let threads = 4
    static let concurrency: UInt = 4
    let block = Atomic<Int>(0)
    let delivered = Atomic<Int>(0)
    let sum = Atomic<Int>(0)
    let finished = Atomic<Int>(0)
    let sizes: [Int]

    init(sizes: [Int]) { self.sizes = sizes }

    /// The request a thread sends as its `j`th.
    @inline(__always)
    static func request(thread k: Int, _ j: Int) -> Int { j &* 4 &+ k }
    @inline(__always)
    static func parse(_ request: Int) -> Int { request &* 3 &+ 1 }
    @inline(__always)
    static func isValid(_ parsed: Int) -> Bool { parsed & 7 != 0 }
    @inline(__always)
    static func respond(_ parsed: Int) -> Int { parsed &+ 1 }

    /// A connection thread's loop: each block's share, then, once the main
    /// thread has closed the gate (after the counted block), the end: so
    /// that the pipeline's termination stays out of the counted block.
    func connection(_ k: Int, send: (Int) -> Void) {
        var j = 0
        for (b, size) in sizes.enumerated() {
            while block.load(ordering: .acquiring) <= b { usleep(50) }
            for _ in 0..<size { send(Self.request(thread: k, j)); j += 1 }
        }
        while block.load(ordering: .acquiring) <= sizes.count { usleep(50) }
    }

    /// Lets the connections end, after the last block.
    func close() {
        block.store(sizes.count + 1, ordering: .releasing)
    }

    /// How many responses the first `blocks` blocks yield.
    func expected(blocks: Int) -> Int {
        var n = 0
        for k in 0..<Self.threads {
            var j = 0
            for size in sizes.prefix(blocks) {
                for _ in 0..<size {
                    if Self.isValid(Self.parse(Self.request(thread: k, j))) { n += 1 }
                    j += 1
                }
            }
        }
        return n
    }

    /// Opens block `b` and waits until all its responses arrived.
    func open(_ b: Int) {
        let target = expected(blocks: b + 1)
        block.store(b + 1, ordering: .releasing)
        while delivered.load(ordering: .acquiring) < target { usleep(50) }
    }

    /// Counts one response (on the delivery queue).
    func deliver(_ response: Int) {
        sum.add(response, ordering: .relaxed)
        delivered.add(1, ordering: .releasing)
    }
}

/// Starts a contender's server over `gate`; returns what to join or keep
/// once every block has been delivered.
typealias FanInStart = (FanInGate) -> (threads: ThreadList, keep: [AnyObject])

/// The connection threads a start handler made, joined at the end.
final class ThreadList: Sendable {
    let threads = Mutex<[Thread]>([])
    func append(_ thread: Thread) { threads.withLock { $0.append(thread) } }
    func joinAll() { for t in threads.withLock({ $0 }) { t.join() } }
}

/// Warm-up, timed and counted blocks, each `amount / 4` requests per
/// thread; then the connections end and their threads are joined.
func runFanIn(_ start: FanInStart, _ amounts: AppAmounts) -> AppRun {
    let share = { (n: Int) in max(1, n / FanInGate.threads) }
    let gate = FanInGate(sizes: [share(amounts.warmUp), share(amounts.timed), share(amounts.counted)])
    let (threads, keep) = start(gate)
    gate.open(0)
    let t0 = now()
    gate.open(1)
    let t1 = now()
    let counting = CountedBlock.begin()
    gate.open(2)
    let counts = counting.end(events: gate.expected(blocks: 3) - gate.expected(blocks: 2))
    gate.close()
    threads.joinAll()
    while gate.finished.load(ordering: .acquiring) == 0 { usleep(50) }
    withExtendedLifetime(keep) {}
    return AppRun(elapsed: t1 - t0, events: gate.expected(blocks: 2) - gate.expected(blocks: 1),
                  allocations: counts.allocations, metadata: counts.metadata, witnessTables: counts.witnessTables,
                  checksum: gate.sum.load(ordering: .acquiring) &+ gate.delivered.load(ordering: .acquiring))
}

/// Four start-handler producers, each a connection thread, merged →
/// `map` (parse) → `filter` (valid) → `flatMap(.concurrent(limit: 4))` of a
/// producer that answers on a worker `QueueScheduler` → `observe(on:)` the
/// delivery `QueueScheduler` → counts.
func flareFanIn(_ gate: FanInGate) -> (threads: ThreadList, keep: [AnyObject]) {
    let threads = ThreadList()
    let workers = QueueScheduler(name: "bench.apps.workers")
    let delivery = QueueScheduler(name: "bench.apps.delivery")
    let connections = (0..<FanInGate.threads).map { k in
        SignalProducer<Int, Never> { observer, _ in
            threads.append(Thread {
                gate.connection(k) { observer.send(value: $0) }
                observer.sendCompleted()
            })
        }
    }
    let disposable = SignalProducer.merge(connections)
        .map { FanInGate.parse($0) }
        .filter { FanInGate.isValid($0) }
        .flatMap(.concurrent(limit: FanInGate.concurrency)) { parsed in
            SignalProducer<Int, Never> { observer, lifetime in
                lifetime += workers.schedule {
                    observer.send(value: FanInGate.respond(parsed))
                    observer.sendCompleted()
                }
            }
        }
        .observe(on: delivery)
        .start { event in
            switch event {
            case let .value(response): gate.deliver(response)
            case .completed: gate.finished.store(1, ordering: .releasing)
            case .failed, .interrupted: break
            }
        }
    return (threads, [workers, delivery, disposable as AnyObject])
}

// MARK: Async

/// `for await` in a task over a signal's values after `map` and `filter`;
/// the main thread sends one block at a time and waits until the task has
/// taken the block's last value.
final class AsyncGate: Sendable {
    let ready = Atomic<Bool>(false)
    let consumed = Atomic<Int>(0)
    let sum = Atomic<Int>(0)
    let finished = Atomic<Bool>(false)

    /// The task's `for await` loop. A negative value is the main thread's
    /// probe, sent until the loop has begun (and so observes the signal):
    /// it marks the loop ready and is not counted.
    func iterate<S: AsyncSequence>(_ sequence: S) async where S.Element == Int, S.Failure == Never {
        for await v in sequence {
            if v < 0 {
                ready.store(true, ordering: .releasing)
                continue
            }
            sum.add(v, ordering: .relaxed)
            consumed.add(1, ordering: .releasing)
        }
        finished.store(true, ordering: .releasing)
    }

    /// The probe: `transform` and `isIncluded` let it through.
    static let probe = -1

    @inline(__always)
    static func transform(_ v: Int) -> Int { v &* 2 &+ 1 }
    @inline(__always)
    static func isIncluded(_ v: Int) -> Bool { v % 3 != 0 }

    static func expected(_ range: Range<Int>) -> Int {
        range.reduce(0) { $0 + (isIncluded(transform($1)) ? 1 : 0) }
    }
}

/// A contender's async program: `send(i)` pushes value `i` into the
/// pipeline, `finish()` ends it; the iterating task updates the gate.
typealias AsyncStart = (AsyncGate) -> (send: (Int) -> Void, finish: () -> Void)

func runAsyncValues(_ start: AsyncStart, _ amounts: AppAmounts) -> AppRun {
    let gate = AsyncGate()
    let (send, finish) = start(gate)
    while !gate.ready.load(ordering: .acquiring) {
        send(AsyncGate.probe)
        sched_yield()
    }
    var i = 0
    func block(_ n: Int) {
        let target = AsyncGate.expected(0..<(i + n))
        for _ in 0..<n { send(i); i += 1 }
        while gate.consumed.load(ordering: .acquiring) < target { sched_yield() }
    }
    block(amounts.warmUp)
    let t0 = now()
    block(amounts.timed)
    let t1 = now()
    let counting = CountedBlock.begin()
    block(amounts.counted)
    let counts = counting.end(events: amounts.counted)
    finish()
    while !gate.finished.load(ordering: .acquiring) { sched_yield() }
    return AppRun(elapsed: t1 - t0, events: amounts.timed, allocations: counts.allocations,
                  metadata: counts.metadata, witnessTables: counts.witnessTables,
                  checksum: gate.sum.load(ordering: .acquiring) &+ gate.consumed.load(ordering: .acquiring))
}

func flareAsyncValues(_ gate: AsyncGate) -> (send: (Int) -> Void, finish: () -> Void) {
    let (signal, input) = Signal<Int, Never>.pipe()
    let values = signal.map { AsyncGate.transform($0) }.filter { AsyncGate.isIncluded($0) }.values
    Task.detached { await gate.iterate(values) }
    return ({ input.send(value: $0) }, { input.sendCompleted() })
}
