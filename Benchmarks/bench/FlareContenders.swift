import Flare
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Flare, used exactly as a ReactiveSwift 7 user would: `pipe()`,
/// `observeValues { … }` returning `Disposable?`, `send(value:)`,
/// `map`, `filter`, `merge(with:)`, `combineLatest(with:)`. The two Flare
/// contenders differ only in the queue limit of the signals they make.
protocol FlareContenderBase: SignalContender
where Output == Signal<Int, Never>, Input == Signal<Int, Never>.Observer, Handle == any Disposable {
    static var queueLimit: QueueLimit { get }
}

extension FlareContenderBase {
    static func pipe() -> (output: Output, input: Input) {
        let (output, input) = Signal<Int, Never>.pipe(queueLimit: queueLimit)
        return (output, input)
    }

    static func observe(_ signal: Output, _ sink: Sink) -> Handle? {
        signal.observeValues { sink.add($0) }
    }

    /// A value queued behind another thread's delivery: a slot of the
    /// sending thread's batch (flare_batch.h), the event rounded up to 16
    /// bytes (the batch's 64-byte header is shared by up to 128 slots).
    /// A value whose thread has both its batches in flight takes a 32-byte
    /// node instead (batch.c `fresh`): a lower bound, then.
    static var bytesPerQueuedEvent: Int {
        (MemoryLayout<Signal<Int, Never>.Event>.size + 15) / 16 * 16
    }

    static func dispose(_ handle: Handle) { handle.dispose() }

    static func send(_ input: Input, _ value: Int) { input.send(value: value) }

    static func sendCompleted(_ input: Input) { input.sendCompleted() }

    static func mapStage(_ signal: Output) -> Output { signal.map { $0 &+ 1 } }

    static func filterStage(_ signal: Output) -> Output { signal.filter { $0 > 0 } }

    static func merge(_ a: Output, _ b: Output) -> Output { a.merge(with: b) }

    static func combineLatest(_ a: Output, _ b: Output) -> Output {
        a.combineLatest(with: b).map { $0 + $1 }
    }

    static func observeCounting(_ signal: Output, _ sink: Sink) -> Handle? {
        signal.observeValues { sink.record($0) }
    }

    static func observeDelivered(_ signal: Output, _ counter: LineCounter) -> Handle? {
        signal.observeValues { _ in counter.tick() }
    }

    static func observeValues(_ signal: Output, _ action: @escaping (Int) -> Void) -> Handle? {
        signal.observeValues(action)
    }
}

/// The "Flare" contender's queue limit: `QueueLimit.default`, or the number
/// of events in the environment variable FLARE_BENCH_QUEUE_LIMIT (to
/// measure other limits against the same baselines).
let benchQueueLimit: QueueLimit = {
    guard let text = getenv("FLARE_BENCH_QUEUE_LIMIT") else { return .default }
    guard let events = Int(String(cString: text)), events > 0 else {
        progress("bench: FLARE_BENCH_QUEUE_LIMIT must be a positive number of events")
        exit(2)
    }
    return .events(events)
}()

/// Flare with its default queue limit (`QueueLimit.default`, unless
/// FLARE_BENCH_QUEUE_LIMIT says otherwise).
enum FlareContender: FlareContenderBase {
    typealias Output = Signal<Int, Never>
    typealias Input = Signal<Int, Never>.Observer
    typealias Handle = any Disposable

    static var name: String { "Flare" }
    static var queueLimit: QueueLimit { benchQueueLimit }
}

/// Flare without a queue limit (`QueueLimit.unbounded`): senders never
/// wait, as before contract 9. Run by the scenarios where the limit
/// matters (contention, queued), for a before/after comparison in one run.
enum FlareUnboundedContender: FlareContenderBase {
    typealias Output = Signal<Int, Never>
    typealias Input = Signal<Int, Never>.Observer
    typealias Handle = any Disposable

    static var name: String { "Flare unbounded" }
    static var queueLimit: QueueLimit { .unbounded }
}
