import Flare

// Test-only references for the multi-input engines: the two-input
// `combineLatest(with:)` and `zip(with:)`, and the N-input sequence forms,
// each written as its own state machine, as pure models.
// `CombineLatestZipReferenceTests` plays random scripts into the library and into
// these models and compares.
//
// A model sees what the operator's logic saw: each input's events until that
// input's terminal event (a pipe ignores what is sent after it), in order;
// it records what it delivers, and nothing once it has delivered a terminal
// event (the output ignores it, and the library disposes the inputs).

/// Which of the two inputs an event of a model came from.
public enum ReferencePair<First, Second> {
    case first(First)
    case second(Second)
}

/// What a model delivers: every event until the first terminal one.
public struct ReferenceOutput<Value, Failure: Swift.Error> {
    public private(set) var events: [Signal<Value, Failure>.Event] = []
    public private(set) var isTerminated = false

    public mutating func deliver(_ event: Signal<Value, Failure>.Event) {
        guard !isTerminated else { return }
        events.append(event)
        if event.isTerminating { isTerminated = true }
    }
}

/// The two-input `combineLatest(with:)` before the engine.
public struct ReferenceCombineLatest<A, B, Failure: Swift.Error> {
    public typealias Tag = ReferencePair<Signal<A, Failure>.Event, Signal<B, Failure>.Event>

    public var output = ReferenceOutput<(A, B), Failure>()
    private var latestFirst: A?
    private var latestSecond: B?
    private var firstCompleted = false
    private var secondCompleted = false

    public init() {}

    public mutating func handle(_ tag: Tag) {
        switch tag {
        case let .first(.value(value)):
            latestFirst = value
            if let second = latestSecond { output.deliver(.value((value, second))) }
        case let .second(.value(value)):
            latestSecond = value
            if let first = latestFirst { output.deliver(.value((first, value))) }
        case .first(.completed):
            firstCompleted = true
            if secondCompleted { output.deliver(.completed) }
        case .second(.completed):
            secondCompleted = true
            if firstCompleted { output.deliver(.completed) }
        case let .first(.failed(error)), let .second(.failed(error)):
            output.deliver(.failed(error))
        case .first(.interrupted), .second(.interrupted):
            output.deliver(.interrupted)
        }
    }
}

/// The two-input `zip(with:)` before the engine.
public struct ReferenceZip<A, B, Failure: Swift.Error> {
    public typealias Tag = ReferencePair<Signal<A, Failure>.Event, Signal<B, Failure>.Event>

    public var output = ReferenceOutput<(A, B), Failure>()
    private var firstQueue: [A] = []
    private var secondQueue: [B] = []
    private var firstCompleted = false
    private var secondCompleted = false

    public init() {}

    public mutating func handle(_ tag: Tag) {
        switch tag {
        case let .first(.value(value)):
            if secondQueue.isEmpty {
                firstQueue.append(value)
                return
            }
            output.deliver(.value((value, secondQueue.removeFirst())))
            if secondCompleted, secondQueue.isEmpty { output.deliver(.completed) }
        case let .second(.value(value)):
            if firstQueue.isEmpty {
                secondQueue.append(value)
                return
            }
            output.deliver(.value((firstQueue.removeFirst(), value)))
            if firstCompleted, firstQueue.isEmpty { output.deliver(.completed) }
        case .first(.completed):
            firstCompleted = true
            if secondCompleted || firstQueue.isEmpty { output.deliver(.completed) }
        case .second(.completed):
            secondCompleted = true
            if firstCompleted || secondQueue.isEmpty { output.deliver(.completed) }
        case let .first(.failed(error)), let .second(.failed(error)):
            output.deliver(.failed(error))
        case .first(.interrupted), .second(.interrupted):
            output.deliver(.interrupted)
        }
    }
}

/// Which two-input model a nested model is made of.
public enum ReferenceOperator: CaseIterable, CustomStringConvertible, Sendable {
    case combineLatest, zip

    public var description: String { self == .combineLatest ? "combineLatest" : "zip" }
}

/// One two-input model over inputs that all carry `Int` and whose outputs
/// are values as lists of `Int`, so that models can be nested.
public struct ReferenceNode {
    private enum Model {
        case combineLatest(ReferenceCombineLatest<[Int], [Int], TestError>)
        case zip(ReferenceZip<[Int], [Int], TestError>)
    }

    private var model: Model
    private var delivered = 0

    public init(_ op: ReferenceOperator) {
        model = op == .combineLatest ? .combineLatest(.init()) : .zip(.init())
    }

    /// Hands `tag` to the model; returns the events it delivered because of
    /// it, each pair flattened into one list.
    public mutating func handle(_ tag: ReferencePair<Signal<[Int], TestError>.Event, Signal<[Int], TestError>.Event>)
        -> [Signal<[Int], TestError>.Event]
    {
        let events: [Signal<(([Int], [Int])), TestError>.Event]
        switch model {
        case var .combineLatest(m):
            m.handle(tag)
            events = m.output.events
            model = .combineLatest(m)
        case var .zip(m):
            m.handle(tag)
            events = m.output.events
            model = .zip(m)
        }
        let fresh = events[delivered...].map { $0.map { $0.0 + $0.1 } }
        delivered = events.count
        return Array(fresh)
    }
}

/// The N-input operator as a right-nested tree of two-input models:
/// `op(x0, op(x1, op(x2, …)))`. Each input's events enter its leaf; what a
/// node delivers enters its parent as that side's event.
///
/// A model of the flat N-input `combineLatest` (a node ends only once every
/// input under it has ended, or at a failure or interruption, which the flat
/// operator forwards too), not of `zip`: a nested zip node completes as soon
/// as it can form no further pair, while the flat zip still waits for tuples
/// that the values it holds can complete, and fails if an input fails
/// meanwhile.
public struct ReferenceNested {
    private var nodes: [ReferenceNode]
    private var inputTerminated: [Bool]
    public private(set) var output = ReferenceOutput<[Int], TestError>()

    public init(_ op: ReferenceOperator, inputs: Int) {
        precondition(inputs >= 2)
        nodes = Array(repeating: ReferenceNode(op), count: inputs - 1)
        inputTerminated = Array(repeating: false, count: inputs)
    }

    /// Node `k` takes input `k` as its first side and node `k + 1` (or, for
    /// the last node, the last input) as its second.
    public mutating func send(_ event: Signal<Int, TestError>.Event, toInput index: Int) {
        guard !inputTerminated[index] else { return }
        if event.isTerminating { inputTerminated[index] = true }
        let lifted = event.map { [$0] }
        var node = min(index, nodes.count - 1)
        var pending: [Signal<[Int], TestError>.Event] =
            nodes[node].handle(index == node ? .first(lifted) : .second(lifted))
        while node > 0 {
            node -= 1
            var next: [Signal<[Int], TestError>.Event] = []
            for event in pending { next += nodes[node].handle(.second(event)) }
            pending = next
        }
        for event in pending { output.deliver(event) }
    }
}

/// The N-input `combineLatest(_:)` of a sequence before the engine.
public struct ReferenceCombineLatestN<Value, Failure: Swift.Error> {
    public var output = ReferenceOutput<[Value], Failure>()
    private let count: Int
    private var partial: [Value?]
    private var missing: Int
    private var latest: [Value] = []
    private var completed = 0

    public init(inputs count: Int) {
        self.count = count
        partial = Array(repeating: nil, count: count)
        missing = count
    }

    public mutating func handle(index: Int, _ event: Signal<Value, Failure>.Event) {
        switch event {
        case let .value(value):
            if missing == 0 {
                latest[index] = value
                output.deliver(.value(latest))
            } else {
                if partial[index] == nil { missing -= 1 }
                partial[index] = value
                if missing == 0 {
                    latest = partial.map { $0! }
                    partial = []
                    output.deliver(.value(latest))
                }
            }
        case .completed:
            completed += 1
            if completed == count { output.deliver(.completed) }
        case let .failed(error):
            output.deliver(.failed(error))
        case .interrupted:
            output.deliver(.interrupted)
        }
    }
}

/// The N-input `zip(_:)` of a sequence before the engine.
public struct ReferenceZipN<Value, Failure: Swift.Error> {
    public var output = ReferenceOutput<[Value], Failure>()
    private let count: Int
    private var queues: [[Value]]
    private var completed: [Bool]
    private var ready = 0
    private var completedCount = 0

    public init(inputs count: Int) {
        self.count = count
        queues = Array(repeating: [], count: count)
        completed = Array(repeating: false, count: count)
    }

    private func isExhausted() -> Bool {
        if completedCount == count { return true }
        for index in 0..<count where completed[index] && queues[index].isEmpty { return true }
        return false
    }

    public mutating func handle(index: Int, _ event: Signal<Value, Failure>.Event) {
        switch event {
        case let .value(value):
            if queues[index].isEmpty { ready += 1 }
            queues[index].append(value)
            guard ready == count else { return }
            var tuple: [Value] = []
            for index in 0..<count {
                tuple.append(queues[index].removeFirst())
                if queues[index].isEmpty { ready -= 1 }
            }
            output.deliver(.value(tuple))
            if completedCount > 0, isExhausted() { output.deliver(.completed) }
        case .completed:
            completed[index] = true
            completedCount += 1
            if isExhausted() { output.deliver(.completed) }
        case let .failed(error):
            output.deliver(.failed(error))
        case .interrupted:
            output.deliver(.interrupted)
        }
    }
}
