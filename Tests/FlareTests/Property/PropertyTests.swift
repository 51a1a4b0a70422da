import Flare
import Foundation
import Synchronization
import Testing

@Suite("MutableProperty")
struct MutablePropertyTests {
    @Test("value, swap, modify and withValue; signal sends changes only, producer the current value first")
    func basics() {
        let property = MutableProperty(1)
        let changes = Recorder<String>()
        let runs = Recorder<String>()
        property.signal.observe { changes.append(describe($0)) }
        property.producer.start { runs.append(describe($0)) }
        #expect(property.value == 1)
        property.value = 2
        #expect(property.swap(3) == 2)
        let result = property.modify { value -> String in
            value += 10
            return "done"
        }
        #expect(result == "done")
        #expect(property.withValue { $0 * 2 } == 26)
        #expect(property.value == 13)
        #expect(changes.items == ["v2", "v3", "v13"])
        #expect(runs.items == ["v1", "v2", "v3", "v13"])
    }

    @Test("values with references (String) are read and written like plain ones")
    func boxedValues() {
        let property = MutableProperty("a")
        let runs = Recorder<String>()
        property.producer.startWithValues { runs.append($0) }
        property.value = "b"
        property.value += "c"
        #expect(property.value == "bc")
        #expect(runs.items == ["a", "b", "bc"])
    }

    @Test("signal and producer runs complete when the property deinitializes; a later start sends the last value, then completes")
    func completesOnDeinit() {
        var property: MutableProperty<Int>? = MutableProperty(0)
        weak let weakProperty = property
        let signalEvents = Recorder<String>()
        let runEvents = Recorder<String>()
        property!.signal.observe { signalEvents.append(describe($0)) }
        property!.producer.start { runEvents.append(describe($0)) }
        let producer = property!.producer
        let lifetimeEnded = Counter()
        property!.lifetime.observeEnded { lifetimeEnded.increment() }
        property!.value = 5
        property = nil
        #expect(weakProperty == nil)
        #expect(signalEvents.items == ["v5", "completed"])
        #expect(runEvents.items == ["v0", "v5", "completed"])
        #expect(lifetimeEnded.count == 1)
        let late = Recorder<String>()
        producer.start { late.append(describe($0)) }
        #expect(late.items == ["v5", "completed"])
    }

    @Test("as a property wrapper")
    func propertyWrapper() {
        final class Model {
            @MutableProperty var name = "x"
        }
        let model = Model()
        let seen = Recorder<String>()
        model.$name.producer.startWithValues { seen.append($0) }
        model.name = "y"
        #expect(model.name == "y")
        #expect(seen.items == ["x", "y"])
    }

    @Test("a set from inside an observer, 100 000 deep: applied, delivered after the current delivery, in order, constant stack")
    func setFromInsideObserver() {
        let property = MutableProperty(0)
        let seen = Recorder<Int>()
        let valueDuring = Recorder<Int>()
        // The observer holds the property: disposed at the end, so that the
        // cycle is released.
        let observation = property.signal.observeValues { value in
            seen.append(value)
            if value < 100_000 {
                property.value = value + 1
                valueDuring.append(property.value)
            }
        }
        property.value = 1
        #expect(seen.items == Array(1...100_000))
        #expect(valueDuring.items == Array(2...100_000))
        #expect(property.value == 100_000)
        observation?.dispose()
    }

    @Test("every observer of a delivery sees it before a change made from inside it; a producer started inside an observer gets the value set before it, then later changes")
    func reentrantOrderAcrossObservers() {
        let property = MutableProperty(0)
        let first = Recorder<Int>()
        let second = Recorder<Int>()
        let started = Recorder<Int>()
        let observation = property.signal.observeValues { value in
            first.append(value)
            if value == 1 {
                property.value = 2
                property.producer.startWithValues { started.append($0) }
                property.value = 3
            }
        }
        property.signal.observeValues { second.append($0) }
        property.value = 1
        #expect(first.items == [1, 2, 3])
        #expect(second.items == [1, 2, 3])
        #expect(started.items == [2, 3])
        observation?.dispose()
    }

    @Test("no lock is held while an observer runs: an observer that waits for a set on another thread does not deadlock")
    func observerWaitsForAnotherThreadsSet() {
        let property = MutableProperty(0)
        let seen = Recorder<Int>()
        let observation = property.signal.observeValues { value in
            seen.append(value)
            if value == 1 {
                // With a lock held during delivery (ReactiveSwift) this
                // join would never return.
                onThreads(1) { _ in property.value = 2 }
                #expect(property.value == 2)
                _ = property.modify { $0 }
            }
        }
        property.value = 1
        #expect(seen.items == [1, 2, 2])
        observation?.dispose()
    }

    @Test("concurrent modify from four threads: exclusive, each change delivered once, in order")
    func concurrentModify() {
        let property = MutableProperty(0)
        let seen = Recorder<Int>()
        property.signal.observeValues { seen.append($0) }
        onThreads(4) { _ in
            for _ in 0..<5_000 { property.modify { $0 += 1 } }
        }
        #expect(property.value == 20_000)
        #expect(seen.items == Array(1...20_000))
    }

    @Test("sets queued behind a delivery from two threads arrive in the order they were made")
    func queuedSetsKeepTheirOrder() {
        // Each set is queued behind a third thread's set being delivered,
        // each thread's into its own batch; observers see them in the
        // order of the sets, as the value itself changed (see
        // `RelayBehindHold`).
        for _ in 0..<10 {
            let relay = RelayBehindHold(count: 1_000)
            let property = MutableProperty(-2)
            let seen = Recorder<Int>()
            property.signal.observeValues { value in
                if value == -1 { relay.holdUntilSent() } else { seen.append(value) }
            }
            relay.run(hold: { property.value = -1 }, send: { property.value = $0 })
            let items = seen.items
            #expect(items.count == relay.count)
            #expect(RelayBehindHold.firstOutOfOrder(items) == nil)
            #expect(property.value == relay.count - 1)
        }
    }

    @Test("a writer waiting for another thread's slow modify sleeps: it uses no CPU while it waits, and goes in once the closure returns")
    func writerWaitingOnSlowModifySleeps() {
        let property = MutableProperty(0)
        let seen = Recorder<Int>()
        property.signal.observeValues { seen.append($0) }
        let inside = DispatchSemaphore(value: 0)
        let waiterCPU = Locked<Double>(0)
        let holdFor: useconds_t = 300_000
        onThreads(2) { thread in
            if thread == 0 {
                property.modify { value in
                    inside.signal()
                    usleep(holdFor)  // user code that takes a while
                    value = 1
                }
            } else {
                inside.wait()
                let before = threadCPUSeconds()
                property.value = 2  // waits for the modify above
                waiterCPU.withLock { $0 = threadCPUSeconds() - before }
            }
        }
        #expect(seen.items == [1, 2])
        #expect(property.value == 2)
        // Spinning (or yielding) through the 300 ms would cost the waiter
        // most of that time in CPU; a sleeper uses a few polls and a wake-up.
        #expect(waiterCPU.withLock { $0 } < 0.05, "the waiting writer used \(waiterCPU.withLock { $0 }) s of CPU")
    }

    @Test("producer starts racing sets from two threads: the current value, then a gap-free, duplicate-free run of later values, ending at the final value")
    func producerRacingSets() {
        let property = MutableProperty(-1)
        let all = Recorder<Int>()
        property.signal.observeValues { all.append($0) }
        let perSetter = 4_000
        let starts = Locked<[Recorder<Int>]>([])
        onThreads(3) { thread in
            if thread < 2 {
                for i in 0..<perSetter { property.value = i * 2 + thread }
            } else {
                for _ in 0..<300 {
                    let recorder = Recorder<Int>()
                    starts.withLock { $0.append(recorder) }
                    property.producer.startWithValues { recorder.append($0) }
                }
            }
        }
        let history = [-1] + all.items
        #expect(all.items.count == 2 * perSetter)
        #expect(all.items.last == property.value)
        // Each setter's values in its own order.
        #expect(all.items.filter { $0 % 2 == 0 } == (0..<perSetter).map { $0 * 2 })
        let position = Dictionary(uniqueKeysWithValues: history.enumerated().map { ($1, $0) })
        for recorder in starts.withLock({ $0 }) {
            let items = recorder.items
            guard let first = items.first, let start = position[first] else {
                Issue.record("a start received nothing")
                continue
            }
            #expect(items == Array(history[start...]))
        }
    }

    @Test("reading while another thread writes values with references: every read is a value that was written")
    func readsRacingWrites() {
        let property = MutableProperty("v0")
        let bad = Counter()
        onThreads(4) { thread in
            if thread == 0 {
                for i in 1...20_000 { property.value = "v\(i)" }
            } else {
                for _ in 0..<20_000 {
                    let read = property.value
                    if !read.hasPrefix("v") { bad.increment() }
                }
            }
        }
        #expect(bad.count == 0)
        #expect(property.value == "v20000")
    }

    @Test("a value's references are released once replaced and unread")
    func releasesReplacedValues() {
        weak var weakCanary: Canary?
        let property = MutableProperty<Canary?>(nil)
        do {
            let canary = Canary()
            weakCanary = canary
            property.value = canary
            _ = property.value
        }
        #expect(weakCanary != nil)
        property.value = nil
        #expect(weakCanary == nil)
    }

    @Test("a nested modify stops with a clear message")
    func nestedModify() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let property = MutableProperty(0)
            property.modify { _ in property.modify { $0 = 1 } }
        }
        if let result {
            let stderr = String(decoding: result.standardErrorContent, as: UTF8.self)
            #expect(stderr.contains("MutableProperty.modify: nested modification of the same property"), "stderr: \(stderr)")
        }
    }
}

/// The CPU time the calling thread has used, in seconds.
private func threadCPUSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}
