/// What a scenario needs from a signal implementation. Each contender
/// (Flare and the two mutex baselines) conforms with concrete types; the
/// scenario drivers are generic over it and specialized in this module, so
/// the measured loops call the library's own inlinable API directly.
///
/// Every observer the bench attaches does the same work as the limit's
/// closures: it adds each value to a `Sink`.
protocol SignalContender: SendableMetatype {
    associatedtype Output: Sendable
    associatedtype Input: Sendable
    associatedtype Handle: Sendable

    /// The name printed in the table and used as the JSON key.
    static var name: String { get }

    /// A new signal and its input (ReactiveSwift's `pipe()`).
    static func pipe() -> (output: Output, input: Input)

    /// Attaches an observer that adds each value to `sink`.
    static func observe(_ signal: Output, _ sink: Sink) -> Handle?

    static func dispose(_ handle: Handle)

    static func send(_ input: Input, _ value: Int)

    static func sendCompleted(_ input: Input)

    /// `signal.map { $0 &+ 1 }`: the chain's map stage, written as a client
    /// writes it (a closure literal at the call, which the compiler emits
    /// in the operator's own calling convention).
    static func mapStage(_ signal: Output) -> Output

    /// `signal.filter { $0 > 0 }`: the chain's filter stage, likewise.
    static func filterStage(_ signal: Output) -> Output

    /// Every value of `a` and of `b` (ReactiveSwift's `a.merge(with: b)`).
    static func merge(_ a: Output, _ b: Output) -> Output

    /// The sum of the latest values of `a` and `b`, once both have one:
    /// `a.combineLatest(with: b).map { $0 + $1 }`, as a client writes it.
    static func combineLatest(_ a: Output, _ b: Output) -> Output

    /// Attaches an observer that counts the values it receives in `sink` and
    /// keeps the last one (`Sink.record`): for outputs whose sum depends on
    /// how two threads interleave, but whose count and last value do not.
    static func observeCounting(_ signal: Output, _ sink: Sink) -> Handle?

    /// Attaches an observer that counts the values it receives in `counter`
    /// (`LineCounter.tick`), which another thread may read meanwhile.
    static func observeDelivered(_ signal: Output, _ counter: LineCounter) -> Handle?

    /// Heap bytes one event holds while it waits to be delivered (a queued
    /// event node for Flare; an element of the reentrancy queue for the
    /// baselines, whose senders from other threads wait on the lock
    /// instead of queueing).
    static var bytesPerQueuedEvent: Int { get }

    /// Attaches an observer that calls `action` with each value.
    static func observeValues(_ signal: Output, _ action: @escaping (Int) -> Void) -> Handle?
}

/// Where observers put the values they receive: a counter on its own cache
/// line, read after the measurement (which keeps the optimizer from deleting
/// the deliveries, and lets each scenario check that every event arrived).
///
/// Observers of one signal share a sink; the signal's serialized delivery is
/// what makes the plain, non-atomic add safe. A second word holds the last
/// value `record` stored.
struct Sink: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<Int>

    static func make() -> Sink {
        let raw = UnsafeMutableRawPointer.allocate(byteCount: 128, alignment: 64)
        raw.initializeMemory(as: UInt8.self, repeating: 0, count: 128)
        return Sink(pointer: raw.bindMemory(to: Int.self, capacity: 2))
    }

    func free() { UnsafeMutableRawPointer(pointer).deallocate() }

    var total: Int { pointer.pointee }

    @inline(__always)
    func add(_ value: Int) { pointer.pointee &+= value }

    /// The last value passed to `record`.
    var last: Int { pointer[1] }

    /// Counts one value in `total` and keeps it as `last`.
    @inline(__always)
    func record(_ value: Int) {
        pointer.pointee &+= 1
        pointer[1] = value
    }
}

/// The stages of an operator chain of the given depth, alternating
/// map (+1) and filter (> 0), starting with map. Sent values are positive,
/// so every event passes every filter and the whole chain runs for each.
/// Contenders build each stage with the same closure written as a literal
/// (`mapStage`, `filterStage`); the limit calls the closures carried here.
enum ChainStage: Sendable {
    case map(@Sendable (Int) -> Int)
    case filter(@Sendable (Int) -> Bool)

    static func stages(depth: Int) -> [ChainStage] {
        (0..<depth).map { i in
            i % 2 == 0 ? .map { $0 &+ 1 } : .filter { $0 > 0 }
        }
    }

    /// The value that reaches the end of a chain of `depth` stages.
    static func output(of value: Int, depth: Int) -> Int {
        value &+ (depth + 1) / 2
    }
}

extension SignalContender {
    /// `signal` followed by the chain of `depth` operators.
    static func chain(_ signal: Output, depth: Int) -> Output {
        var s = signal
        for stage in ChainStage.stages(depth: depth) {
            switch stage {
            case .map: s = mapStage(s)
            case .filter: s = filterStage(s)
            }
        }
        return s
    }
}
