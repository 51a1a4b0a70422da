import Foundation
import Synchronization

/// Sends that happen one after another on two threads, queued behind a
/// delivery a third thread holds: two threads make calls 0, 1, 2, … in
/// turn, thread `k % 2` making call `k` once call `k - 1` has returned,
/// while the holder's delivery waits (`holdUntilSent`) until every call was
/// made. Each call is queued, each thread's behind its own earlier ones
/// (core-algorithm §2a), and must still be delivered in call order: call
/// `k` began after call `k - 1` returned.
public final class RelayBehindHold: Sendable {
    public let count: Int
    private let turn = Atomic<Int>(0)
    private let holding = Atomic<Bool>(false)

    public init(count: Int) { self.count = count }

    /// For the held delivery: tells the relay to start, then waits until
    /// all `count` calls were made.
    public func holdUntilSent() {
        holding.store(true, ordering: .releasing)
        while turn.load(ordering: .acquiring) < count { sched_yield() }
    }

    /// Runs `hold` (which must reach a delivery that calls
    /// `holdUntilSent`) on one thread and the relay of `send(0)`,
    /// `send(1)`, … on two others; returns when all three are done.
    public func run(hold: @escaping @Sendable () -> Void, send: @escaping @Sendable (Int) -> Void) {
        onThreads(3) { thread in
            if thread == 2 {
                hold()
                return
            }
            while !self.holding.load(ordering: .acquiring) { sched_yield() }
            for k in stride(from: thread, to: self.count, by: 2) {
                while self.turn.load(ordering: .acquiring) != k { sched_yield() }
                send(k)
                self.turn.store(k + 1, ordering: .releasing)
            }
        }
    }

    /// The first place where `items` is not 0, 1, 2, …, described, or nil.
    public static func firstOutOfOrder(_ items: [Int]) -> String? {
        items.indices.first { items[$0] != $0 }.map { "at \($0): \(items[$0])" }
    }
}
