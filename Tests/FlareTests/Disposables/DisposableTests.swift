import Flare
import Foundation
import Synchronization
import Testing

@Suite("Disposables and Lifetime")
struct DisposableTests {
    @Test("AnyDisposable runs its action exactly once, even when raced")
    func anyDisposableOnce() {
        for _ in 0..<100 {
            let runs = Counter()
            let d = AnyDisposable { runs.increment() }
            #expect(!d.isDisposed)
            DispatchQueue.concurrentPerform(iterations: 4) { _ in d.dispose() }
            #expect(d.isDisposed)
            #expect(runs.count == 1)
        }
    }

    @Test("CompositeDisposable disposes everything added, in the order of addition, once")
    func composite() {
        let log = Recorder<Int>()
        let composite = CompositeDisposable()
        composite += AnyDisposable { log.append(1) }
        composite += { log.append(2) }
        let handle = composite.add(AnyDisposable { log.append(3) })
        handle?.dispose()  // removes without disposing
        #expect(log.items == [])
        composite.dispose()
        composite.dispose()
        #expect(log.items == [1, 2])
        #expect(composite.isDisposed)
        composite += { log.append(4) }  // added after disposal: disposed at once
        #expect(log.items == [1, 2, 4])
    }

    @Test("CompositeDisposable init from sequences")
    func compositeInit() {
        let runs = Counter()
        let c1 = CompositeDisposable([AnyDisposable { runs.increment() }, AnyDisposable { runs.increment() }] as [Disposable])
        let c2 = CompositeDisposable([AnyDisposable { runs.increment() }, nil] as [Disposable?])
        c1.dispose()
        c2.dispose()
        #expect(runs.count == 3)
    }

    @Test("CompositeDisposable: many add/remove cycles stay bounded and lose nothing")
    func compositeChurn() {
        let composite = CompositeDisposable()
        let kept = Counter()
        let removedRuns = Counter()
        for i in 0..<10_000 {
            if i % 100 == 0 {
                composite += { kept.increment() }
            } else {
                composite.add(AnyDisposable { removedRuns.increment() })?.dispose()
            }
        }
        composite.dispose()
        #expect(kept.count == 100)
        #expect(removedRuns.count == 0)
    }

    @Test("CompositeDisposable: a removed addition is released once later additions prune it; the others are kept")
    func compositePrunesRemoved() {
        let composite = CompositeDisposable()
        let kept = Counter()
        weak var removed: AnyDisposable?
        do {
            let disposable = AnyDisposable { Issue.record("a removed addition was disposed") }
            removed = disposable
            composite.add(disposable)?.dispose()
        }
        #expect(removed != nil)
        for _ in 0..<64 { composite += { kept.increment() } }
        #expect(removed == nil)
        composite.dispose()
        #expect(kept.count == 64)
    }

    @Test("CompositeDisposable: concurrent adds and dispose never lose an addition")
    func compositeRace() {
        for _ in 0..<50 {
            let composite = CompositeDisposable()
            let runs = Counter()
            DispatchQueue.concurrentPerform(iterations: 3) { i in
                if i == 0 {
                    composite.dispose()
                } else {
                    for _ in 0..<200 { composite += { runs.increment() } }
                }
            }
            #expect(runs.count == 400)
        }
    }

    @Test("SerialDisposable disposes the replaced inner, and anything set after disposal")
    func serial() {
        let log = Recorder<Int>()
        let serial = SerialDisposable(AnyDisposable { log.append(1) })
        #expect(serial.inner != nil)
        serial.inner = AnyDisposable { log.append(2) }
        #expect(log.items == [1])
        serial.dispose()
        #expect(log.items == [1, 2])
        #expect(serial.isDisposed)
        #expect(serial.inner == nil)
        serial.inner = AnyDisposable { log.append(3) }
        #expect(log.items == [1, 2, 3])
    }

    @Test("ScopedDisposable disposes on deinit")
    func scoped() {
        let runs = Counter()
        do {
            let scoped = ScopedDisposable(AnyDisposable { runs.increment() })
            #expect(!scoped.isDisposed)
        }
        #expect(runs.count == 1)
        let composite = ScopedDisposable(CompositeDisposable())
        composite += { runs.increment() }
        composite.dispose()
        #expect(runs.count == 2)
    }

    @Test("Lifetime ends when its token is disposed or released, exactly once")
    func lifetime() {
        let runs = Counter()
        var token: Lifetime.Token? = Lifetime.Token()
        let lifetime = Lifetime(token!)
        lifetime.observeEnded { runs.increment() }
        lifetime += AnyDisposable { runs.increment() }
        let log = Recorder<String>()
        lifetime.ended.observe { log.append(describe($0)) }
        #expect(!lifetime.hasEnded)
        token = nil
        #expect(lifetime.hasEnded)
        #expect(runs.count == 2)
        #expect(log.items == ["completed"])
        lifetime.observeEnded { runs.increment() }
        #expect(runs.count == 3)
        let (made, madeToken) = Lifetime.make()
        madeToken.dispose()
        #expect(made.hasEnded)
    }

    @Test("Lifetimes made from one token end together, each in its order of addition, though released before")
    func lifetimesOfOneToken() {
        let log = Recorder<String>()
        var token: Lifetime.Token? = Lifetime.Token()
        do {
            // Released here: what was added still goes when the token ends.
            let first = Lifetime(token!)
            first.observeEnded { log.append("first 1") }
            first += AnyDisposable { log.append("first 2") }
        }
        let second = Lifetime(token!)
        second.observeEnded { log.append("second 1") }
        let removed = second.observeEnded { log.append("removed") }
        second.observeEnded { log.append("second 2") }
        removed?.dispose()
        #expect(log.items.isEmpty)
        token = nil
        #expect(second.hasEnded)
        #expect(log.items == ["first 1", "first 2", "second 1", "second 2"])

        let ended = Lifetime.Token()
        ended.dispose()
        let late = Lifetime(ended)
        #expect(late.hasEnded)
        late.observeEnded { log.append("late") }
        #expect(log.items.last == "late")
    }

    @Test("Lifetime.empty has already ended: observeEnded and += act at once, ended completes at once")
    func emptyLifetimeHasEnded() {
        let lifetime = Lifetime.empty
        #expect(lifetime.hasEnded)
        let runs = Counter()
        let cancel = lifetime.observeEnded { runs.increment() }
        #expect(runs.count == 1)
        #expect(cancel == nil)
        let disposable = AnyDisposable()
        lifetime += disposable
        #expect(disposable.isDisposed)
        let log = Recorder<String>()
        lifetime.ended.observe { log.append(describe($0)) }
        #expect(log.items == ["interrupted"])
    }
}
