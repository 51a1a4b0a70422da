import Flare
import Foundation

/// One scripted send: into the outer stream (a value is the index of an
/// inner), or into inner `i`.
public enum FlattenStep: Sendable {
    case outer(Signal<Int, TestError>.Event)
    case inner(Int, Signal<Int, TestError>.Event)

    public static func outerValue(_ index: Int) -> FlattenStep { .outer(.value(index)) }
}

public enum OuterKind: CaseIterable, CustomStringConvertible, Sendable {
    case signal, producer
    public var description: String { self == .signal ? "Signal outer" : "SignalProducer outer" }
}

public enum InnerKind: CaseIterable, CustomStringConvertible, Sendable {
    case signal, producer, convertible
    public var description: String {
        switch self {
        case .signal: "Signal inner"
        case .producer: "SignalProducer inner"
        case .convertible: "SignalProducerConvertible inner"
        }
    }
}

/// A `SignalProducerConvertible` that is neither a signal nor a producer.
public struct Box: SignalProducerConvertible {
    public let producer: SignalProducer<Int, TestError>

    public init(producer: SignalProducer<Int, TestError>) { self.producer = producer }
}

/// What one scripted flatten did.
public struct FlattenOutcome: Equatable, Sendable {
    /// The output's events.
    public var events: [String]
    /// Per inner: how many times it was started (producer kinds only).
    public var starts: [Int]
    /// Per inner: how many times its run's lifetime ended (producer kinds
    /// only).
    public var ends: [Int]
}

/// Hot inners (pipes) that count, as producers, their starts and the end of
/// each run's lifetime.
public final class InnerPipes: @unchecked Sendable {
    public let pipes: [(output: Signal<Int, TestError>, input: Signal<Int, TestError>.Observer)]
    public let starts: Locked<[Int]>
    public let ends: Locked<[Int]>

    public init(count: Int) {
        pipes = (0..<count).map { _ in Signal<Int, TestError>.pipe() }
        starts = Locked(Array(repeating: 0, count: count))
        ends = Locked(Array(repeating: 0, count: count))
    }

    public func producer(_ index: Int) -> SignalProducer<Int, TestError> {
        SignalProducer { [self] observer, lifetime in
            starts.withLock { $0[index] += 1 }
            lifetime.observeEnded { [self] in ends.withLock { $0[index] += 1 } }
            lifetime += pipes[index].output.observe(observer)
        }
    }
}

/// Plays `steps` into a flatten of the given kinds and returns the output's
/// events, and the inners' starts and ends (all zero for signal inners).
public func playFlatten(
    _ strategy: FlattenStrategy, _ outerKind: OuterKind, _ innerKind: InnerKind,
    _ steps: [FlattenStep], inners: Int = 3
) -> FlattenOutcome {
    let pipes = InnerPipes(count: inners)
    switch innerKind {
    case .signal:
        return playFlatten(strategy, outerKind, steps, pipes) { pipes.pipes[$0].output }
    case .producer:
        return playFlatten(strategy, outerKind, steps, pipes) { pipes.producer($0) }
    case .convertible:
        return playFlatten(strategy, outerKind, steps, pipes) { Box(producer: pipes.producer($0)) }
    }
}

private func playFlatten<Inner: SignalProducerConvertible>(
    _ strategy: FlattenStrategy, _ outerKind: OuterKind, _ steps: [FlattenStep], _ pipes: InnerPipes,
    _ makeInner: @escaping (Int) -> Inner
) -> FlattenOutcome where Inner.Value == Int, Inner.Error == TestError {
    let (outer, outerInput) = Signal<Int, TestError>.pipe()
    let log = Recorder<String>()
    var keep: Any?
    switch outerKind {
    case .signal:
        let output = outer.map(makeInner).flatten(strategy)
        output.observe { log.append(describe($0)) }
        keep = output
    case .producer:
        keep = SignalProducer(outer).map(makeInner).flatten(strategy).start { log.append(describe($0)) }
    }
    for step in steps {
        switch step {
        case let .outer(event): outerInput.send(event)
        case let .inner(index, event): pipes.pipes[index].input.send(event)
        }
    }
    withExtendedLifetime(keep) {}
    return FlattenOutcome(events: log.items, starts: pipes.starts.withLock { $0 }, ends: pipes.ends.withLock { $0 })
}
