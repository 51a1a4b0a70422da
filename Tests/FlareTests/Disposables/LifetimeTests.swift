import Flare
import Foundation
import HeapStats
import Testing

/// Issue 43, item 3: `Lifetime(token)` registered a strong end of itself in
/// the token's lifetime, so every one made lived until the token ended. As
/// in ReactiveSwift, it shares the token's additions and nothing retains it.
@Suite("Lifetime made from a token")
struct LifetimeTests {
    @Test("a dropped Lifetime(token) is freed; what was added through it runs when the token ends, once, in order")
    func droppedLifetimeOfTokenIsFreed() {
        let log = Recorder<String>()
        let token = Lifetime.Token()
        weak var dropped: Lifetime?
        do {
            let lifetime = Lifetime(token)
            dropped = lifetime
            lifetime.observeEnded { log.append("1") }
            lifetime += AnyDisposable { log.append("2") }
            lifetime.ended.observeCompleted { log.append("3") }
        }
        #expect(dropped == nil)
        #expect(log.items.isEmpty)
        token.dispose()
        #expect(log.items == ["1", "2", "3"])
        token.dispose()
        #expect(log.items == ["1", "2", "3"])
    }

    @Test("a token released ends the lifetimes made from it, though they were dropped")
    func releasedToken() {
        let log = Recorder<String>()
        var token: Lifetime.Token? = Lifetime.Token()
        weak var dropped: Lifetime?
        do {
            let lifetime = Lifetime(token!)
            dropped = lifetime
            lifetime.observeEnded { log.append("ended") }
        }
        #expect(dropped == nil)
        let kept = Lifetime(token!)
        #expect(!kept.hasEnded)
        token = nil
        #expect(kept.hasEnded)
        #expect(log.items == ["ended"])
    }

    /// ReactiveSwift's lifetimes made from one token share its composite:
    /// what is added through any of them is disposed in one order of
    /// addition, not grouped by lifetime.
    @Test("lifetimes made from one token run what was added through them in one order of addition")
    func oneOrderAcrossLifetimes() {
        let log = Recorder<String>()
        let (made, token) = Lifetime.make()
        let first = Lifetime(token)
        let second = Lifetime(token)
        first.observeEnded { log.append("first 1") }
        second.observeEnded { log.append("second 1") }
        made.observeEnded { log.append("made 1") }
        let removed = second.observeEnded { log.append("removed") }
        first += AnyDisposable { log.append("first 2") }
        second.observeEnded { log.append("second 2") }
        removed?.dispose()
        token.dispose()
        #expect(first.hasEnded && second.hasEnded && made.hasEnded)
        #expect(log.items == ["first 1", "second 1", "made 1", "first 2", "second 2"])
    }
}

extension LeakCheckTests {
    /// Issue 43, item 3: a million `Lifetime(token)` made and dropped while
    /// the token lives kept a million objects (141 MB of resident set). Now
    /// each is freed as it is dropped: after a first 100,000, the million
    /// adds next to nothing to what the allocator has handed out, nor,
    /// with a margin for the allocator's own retention, to the resident
    /// set. The figures are process-wide: this runs with the other leak
    /// checks, alone in its process.
    @Test("a million Lifetime(token) made and dropped keep memory bounded")
    func millionLifetimesOfOneToken() {
        let token = Lifetime.Token()
        let ran = Counter()
        Lifetime(token).observeEnded { ran.increment() }
        func makeAndDrop(_ count: Int) {
            for _ in 0..<count {
                let lifetime = Lifetime(token)
                withExtendedLifetime(lifetime) {}
            }
        }
        makeAndDrop(100_000)
        let first = Footprint.now()
        makeAndDrop(1_000_000)
        let second = Footprint.now()
        #expect(second.heap - first.heap <= 1 << 20, "after 100,000: \(first), after a million more: \(second)")
        #expect(second.resident - first.resident <= 16 << 20, "after 100,000: \(first), after a million more: \(second)")
        token.dispose()
        #expect(ran.count == 1)
    }
}
