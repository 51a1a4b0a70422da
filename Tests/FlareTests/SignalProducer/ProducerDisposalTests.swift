import Flare
import Foundation
import Synchronization
import Testing

/// Disposing what `start` returned reaches everything the run started: the
/// disposables added to its lifetime (also when the start handler dropped
/// its observer, which ReactiveSwift's handle keeps alive), the inner runs of
/// a flatten, before and after the outer completes, and the upstream of an
/// asynchronous operator. A flatten of a `Signal` keeps its inner runs once
/// the outer completes. A synchronous inner that never ends stops within an
/// event of its flatten's disposal from another thread.
@Suite("SignalProducer disposal reaches the lifetime, inner producers and upstream")
struct ProducerDisposalTests {
    /// A start handler that adds `added` to the run's lifetime, sends
    /// nothing and drops its observer.
    private func silentProducer(adding added: Disposable) -> SignalProducer<Int, Never> {
        SignalProducer { _, lifetime in lifetime += added }
    }

    @Test("a handler that drops its observer: the run lives until its handle is disposed, then interrupts and ends its lifetime")
    func disposalReachesAddedDisposables() {
        let added = AnyDisposable()
        let events = Recorder<String>()
        let handle = silentProducer(adding: added).map { $0 }.start { events.append(describe($0)) }
        #expect(added.isDisposed == false)
        #expect(events.items == [])
        handle.dispose()
        #expect(added.isDisposed == true)
        #expect(events.items == ["interrupted"])
    }

    @Test("startWithSignal: the interrupt handle disposes the lifetime's disposables, the signal is interrupted")
    func startWithSignalDisposalReachesAddedDisposables() {
        let added = AnyDisposable()
        let events = Recorder<String>()
        var handle: Disposable?
        silentProducer(adding: added).startWithSignal { signal, interrupter in
            signal.observe { events.append(describe($0)) }
            handle = interrupter
        }
        #expect(added.isDisposed == false)
        handle?.dispose()
        #expect(added.isDisposed == true)
        #expect(events.items == ["interrupted"])
    }

    @Test("releasing the handle of a run whose handler dropped its observer interrupts it and releases its memory")
    func releasingTheHandleEndsTheRun() {
        weak var weakCanary: Canary?
        let events = Recorder<String>()
        let added = AnyDisposable()
        var handle: Disposable?
        do {
            let canary = Canary()
            weakCanary = canary
            handle = SignalProducer<Int, Never> { _, lifetime in
                lifetime += added
                lifetime.observeEnded { withExtendedLifetime(canary) {} }
            }.start { events.append(describe($0)) }
        }
        #expect(weakCanary != nil)
        #expect(events.items == [])
        #expect(added.isDisposed == false)
        #expect(handle != nil)
        handle = nil
        #expect(added.isDisposed == true)
        #expect(events.items == ["interrupted"])
        #expect(weakCanary == nil)
    }

    @Test("observe(on:): disposing the run ends the upstream's lifetime at once", .timeLimit(.minutes(1)))
    func observeOnCancelsUpstreamAtOnce() {
        let upstreamLifetime = Locked<Lifetime?>(nil)
        var handle: Disposable?
        SignalProducer<Int, Never> { _, lifetime in upstreamLifetime.withLock { $0 = lifetime } }
            .observe(on: TestScheduler())
            .startWithSignal { signal, interrupter in
                signal.observe { _ in }
                handle = interrupter
            }
        #expect(upstreamLifetime.withLock { $0?.hasEnded } == false)
        handle?.dispose()
        #expect(upstreamLifetime.withLock { $0?.hasEnded } == true)
    }

    @Test(
        "flatten: disposing the run cancels the inner run, before and after the outer completes",
        arguments: [("merge", FlattenStrategy.merge), ("concat", .concat), ("latest", .latest)], [false, true])
    func flattenDisposalCancelsInnerWork(_ strategy: (name: String, value: FlattenStrategy), completeOuterFirst: Bool) {
        let (outer, outerInput) = Signal<SignalProducer<Int, Never>, Never>.pipe()
        let innerWork = AnyDisposable()
        let innerEvents = Recorder<String>()
        weak var weakInnerState: Canary?
        var handle: Disposable?
        do {
            let innerState = Canary()
            weakInnerState = innerState
            let inner = SignalProducer<Int, Never> { _, lifetime in
                lifetime += innerWork
                lifetime.observeEnded { withExtendedLifetime(innerState) {} }
            }.on(event: { innerEvents.append(describe($0)) }, disposed: { innerEvents.append("disposed") })
            let outerEvents = Recorder<String>()
            handle = SignalProducer(outer).flatten(strategy.value).start { outerEvents.append(describe($0)) }
            outerInput.send(value: inner)
            if completeOuterFirst { outerInput.sendCompleted() }
            #expect(innerWork.isDisposed == false, "\(strategy.name)")
            #expect(innerEvents.items == [], "\(strategy.name)")
            #expect(outerEvents.items == [], "\(strategy.name)")
            handle?.dispose()
            #expect(innerWork.isDisposed == true, "\(strategy.name)")
            #expect(innerEvents.items == ["interrupted", "disposed"], "\(strategy.name)")
            #expect(outerEvents.items == ["interrupted"], "\(strategy.name)")
        }
        #expect(weakInnerState == nil, "\(strategy.name)")
    }

    @Test(
        "Signal flatten: an inner run outlives the outer's completion and ends with the observation",
        arguments: [
            ("merge", FlattenStrategy.merge), ("concat", .concat), ("latest", .latest),
            ("concurrent(limit: 1024)", .concurrent(limit: 1024)), ("race", .race),
        ])
    func signalFlattenKeepsInnerAfterOuterCompleted(_ strategy: (name: String, value: FlattenStrategy)) {
        let (outer, outerInput) = Signal<SignalProducer<Int, Never>, Never>.pipe()
        let events = Recorder<String>()
        let observation = outer.flatten(strategy.value).observe { events.append(describe($0)) }
        let innerEnded = Counter()
        outerInput.send(value: SignalProducer { _, lifetime in lifetime.observeEnded { innerEnded.increment() } })
        outerInput.sendCompleted()
        #expect(innerEnded.count == 0, "\(strategy.name)")
        #expect(events.items == [], "\(strategy.name)")
        observation?.dispose()
        #expect(innerEnded.count == 1, "\(strategy.name)")
    }

    @Test(
        "flatMap: a synchronous inner that never ends stops within an event of the run's disposal from another thread",
        .timeLimit(.minutes(1)), arguments: [("merge", FlattenStrategy.merge), ("concat", .concat), ("latest", .latest)])
    func runawayInnerStops(_ strategy: (name: String, value: FlattenStrategy)) {
        let iterated = Counter()
        let received = Counter()
        let handleBox = Locked<Disposable?>(nil)
        let reachedThousand = DispatchSemaphore(value: 0)
        let returned = DispatchSemaphore(value: 0)
        let producer = SignalProducer<Int, Never>(value: 0).flatMap(strategy.value) { _ in
            SignalProducer(sequence(first: 0) { value in
                iterated.increment()
                return value &+ 1
            })
        }
        Thread.detachNewThread {
            producer.startWithSignal { signal, interrupter in
                handleBox.withLock { $0 = interrupter }
                signal.observeValues { _ in
                    received.increment()
                    if received.count == 1_000 { reachedThousand.signal() }
                }
            }
            returned.signal()
        }
        reachedThousand.wait()
        handleBox.withLock { $0 }?.dispose()
        let atDisposal = iterated.count
        // The starting thread stops iterating and returns; give it ample
        // time on a loaded machine, but not for ever.
        #expect(returned.wait(timeout: .now() + 20) == .success, "\(strategy.name): start did not return")
        let atReturn = iterated.count
        Thread.sleep(forTimeInterval: 0.05)
        #expect(iterated.count == atReturn, "\(strategy.name)")
        // Within one event of the disposal reaching the run: a few values
        // in flight between the disposing thread's store and the
        // iterating thread's next check.
        #expect(atReturn - atDisposal < 1_000, "\(strategy.name): \(atReturn - atDisposal) more values after dispose")
    }
}
