import Flare
import Foundation
import Synchronization
import Testing

/// The stack a `CompositeDisposable` and a `Lifetime` hold: what `dispose()`
/// has done by the time it returns, while additions (and the prunings they
/// trigger) run on another thread.
@Suite("Disposable stack: disposal racing additions")
struct DisposableStackTests {
    /// Where a round adds, and how it ends it.
    enum Target: String, CaseIterable, Sendable, CustomTestStringConvertible {
        /// `CompositeDisposable.add`, ended by `dispose()`.
        case composite
        /// `Lifetime.make()`'s lifetime, ended by `Token.dispose()`.
        case lifetime
        /// A `Lifetime(token)`, ended by the token's `dispose()`.
        case lifetimeOfToken
        /// A start handler's lifetime, ended by the run's `dispose()`.
        case producerRun

        var testDescription: String { rawValue }
    }

    /// One round's target: `add` adds from the adding thread, `end` ends it
    /// from the disposing one.
    struct Ends: @unchecked Sendable {
        let add: (Disposable) -> Void
        let end: () -> Void
        let keep: AnyObject?
    }

    /// One round: what was disposed, in which order, and what the
    /// observation held in the target received.
    final class Round: Sendable {
        let count: Int
        let target: Int
        let added = Atomic<Int>(0)
        let log = Recorder<Int>()
        let received = Recorder<Int>()

        init(count: Int, target: Int) {
            self.count = count
            self.target = target
        }
    }

    static func ends(_ target: Target) -> Ends {
        switch target {
        case .composite:
            let composite = CompositeDisposable()
            return Ends(add: { composite += $0 }, end: { composite.dispose() }, keep: composite)
        case .lifetime:
            let (lifetime, token) = Lifetime.make()
            return Ends(add: { lifetime += $0 }, end: { token.dispose() }, keep: lifetime)
        case .lifetimeOfToken:
            let token = Lifetime.Token()
            let lifetime = Lifetime(token)
            return Ends(add: { lifetime += $0 }, end: { token.dispose() }, keep: lifetime)
        case .producerRun:
            let lifetime = Locked<Lifetime?>(nil)
            let run = SignalProducer<Never, Never> { _, runLifetime in
                lifetime.withLock { $0 = runLifetime }
            }.start()
            let runLifetime = lifetime.withLock { $0! }
            return Ends(add: { runLifetime += $0 }, end: { run.dispose() }, keep: runLifetime)
        }
    }

    /// Issue 43, item 2: an addition pruned the stack by taking all of it
    /// out of `head` and pushing the survivors back; a `dispose()` in that
    /// window found the stack empty and returned, and the pruner disposed
    /// the survivors later, out of order. One thread adds `count`
    /// disposables (each logs its index when disposed) while another waits
    /// until `target` of them were added, just before an addition that
    /// prunes, and ends the target: when that returns, every addition made
    /// before has been disposed, in the order of addition, and the
    /// observation added first receives no value sent afterwards.
    @Test("when dispose() returns, every earlier addition is disposed, in order", arguments: Target.allCases)
    func disposeRacingAdditions(_ target: Target) {
        let rounds = runningUnderSanitizer ? 100 : 500
        // Prunings start on the 32·2^k-th push (nothing is removed here):
        // the disposer ends the target as the adder begins the largest.
        let targets = [511, 1_023, 2_047]
        let failures = Recorder<String>()
        for index in 0..<rounds {
            let round = Round(count: 2_100, target: targets[index % targets.count])
            let ends = Self.ends(target)
            let (signal, input) = Signal<Int, Never>.pipe()
            ends.add(signal.observeValues { round.received.append($0) }!)
            let additions = (0..<round.count).map { i in AnyDisposable { round.log.append(i) } }
            onThreads(2) { thread in
                if thread == 0 {
                    for addition in additions {
                        ends.add(addition)
                        round.added.add(1, ordering: .releasing)
                    }
                } else {
                    while round.added.load(ordering: .acquiring) < round.target {}
                    let before = round.added.load(ordering: .acquiring)
                    ends.end()
                    // Read now, not after the adder is done: whatever a
                    // pruner still held would have been disposed by then.
                    let disposed = round.log.items.filter { $0 < before }
                    if disposed != Array(0..<before) {
                        let missing = before - disposed.count
                        failures.append(
                            "round \(index): \(missing) of \(before) earlier additions not disposed, in order: \(disposed.count) were")
                    }
                    input.send(value: index)
                }
            }
            if !round.received.items.isEmpty {
                failures.append("round \(index): the observation received \(round.received.items) after dispose() returned")
            }
            withExtendedLifetime(ends.keep) {}
            input.sendCompleted()
        }
        #expect(failures.items.isEmpty, "\(failures.items.count) failures in \(rounds) rounds: \(failures.items.prefix(5))")
    }

    /// The order ReactiveSwift's `Bag` disposes in (first added, first
    /// disposed) holds however the removed additions between them were
    /// pruned.
    @Test("additions are disposed in the order of addition, with prunings between them", arguments: [CompositeTarget.composite, .lifetime])
    func orderWithPrunings(_ target: CompositeTarget) {
        let log = Recorder<Int>()
        let composite = CompositeDisposable()
        let (lifetime, token) = Lifetime.make()
        var expected: [Int] = []
        for i in 0..<5_000 {
            let addition = AnyDisposable { log.append(i) }
            let handle = target == .composite ? composite.add(addition) : (lifetime += addition)
            // Remove two in three, and every addition from 1,000 to 1,999.
            if i % 3 != 0 || (1_000..<2_000).contains(i) {
                handle?.dispose()
            } else {
                expected.append(i)
            }
        }
        #expect(log.items.isEmpty)
        if target == .composite { composite.dispose() } else { token.dispose() }
        #expect(log.items == expected)
    }

    enum CompositeTarget: String, Sendable, CustomTestStringConvertible {
        case composite, lifetime

        var testDescription: String { rawValue }
    }
}
