import Flare
import Foundation
import Synchronization

/// One scripted send into one of the two inputs of a binary operator.
public enum Step<A, AE: Swift.Error, B, BE: Swift.Error> {
    case a(Signal<A, AE>.Event)
    case b(Signal<B, BE>.Event)
}

/// Builds an operator over two fresh pipes, plays `steps` into them and
/// returns what one observer of the output saw.
public func play<A, AE, B, BE, X, XE>(
    _ make: (Signal<A, AE>, Signal<B, BE>) -> Signal<X, XE>,
    _ steps: [Step<A, AE, B, BE>]
) -> [String] {
    let (a, aInput) = Signal<A, AE>.pipe()
    let (b, bInput) = Signal<B, BE>.pipe()
    let log = Recorder<String>()
    make(a, b).observe { log.append(describe($0)) }
    for step in steps {
        switch step {
        case let .a(event): aInput.send(event)
        case let .b(event): bInput.send(event)
        }
    }
    return log.items
}

/// Holds a canary weakly, to watch an upstream closure being released.
public final class WeakCanary: @unchecked Sendable {
    public init() {}

    public weak var canary: Canary?
    public var isAlive: Bool { canary != nil }
}

extension Signal {
    /// This signal through a `map` whose closure keeps a canary alive: the
    /// canary is released once the mapped signal's observation of this one
    /// is gone.
    public func tracked(by watcher: WeakCanary) -> Signal<Value, Error> {
        let canary = Canary()
        watcher.canary = canary
        return map { value in
            withExtendedLifetime(canary) {}
            return value
        }
    }
}

/// Observes a signal and checks the delivery contract: no two deliveries
/// overlap, at most one terminal event, nothing after it.
public final class DeliveryProbe<Value: Sendable>: @unchecked Sendable {
    private let busy = Atomic<Bool>(false)
    public let overlaps = Counter()
    public let afterTerminal = Counter()
    private let state = Locked<(values: [Value], terminals: [String])>(([], []))

    public init<E>(_ signal: Signal<Value, E>) {
        signal.observe { [self] event in
            if busy.exchange(true, ordering: .acquiringAndReleasing) { overlaps.increment() }
            state.withLock { state in
                if !state.terminals.isEmpty { afterTerminal.increment() }
                switch event {
                case let .value(value): state.values.append(value)
                case .failed, .completed, .interrupted: state.terminals.append(describe(event))
                }
            }
            busy.store(false, ordering: .releasing)
        }
    }

    public var values: [Value] { state.withLock { $0.values } }

    /// The last value, read under the lock. For polling while deliveries
    /// go on: `values.last` reads the array's storage after the lock is
    /// released, and an optimized build may share that storage with the
    /// array being appended to (ThreadSanitizer reports it in release).
    public var lastValue: Value? { state.withLock { $0.values.last } }
    public var terminals: [String] { state.withLock { $0.terminals } }

    /// Delivery never overlapped and the grammar held.
    public var isClean: Bool { overlaps.count == 0 && afterTerminal.count == 0 && terminals.count <= 1 }
}

/// Runs `first` and `second` at the same time on two threads.
public func concurrently(_ first: @Sendable () -> Void, _ second: @Sendable () -> Void) {
    DispatchQueue.concurrentPerform(iterations: 2) { index in
        if index == 0 { first() } else { second() }
    }
}

/// Iterations per thread in the stress tests.
public let stressCount = 20_000
