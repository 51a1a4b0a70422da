import Flare
import Foundation
import Testing

/// Waits (suspending, not blocking) until `count` signals have arrived.
private func arrivals(_ stream: AsyncStream<Void>, count: Int) async {
    var seen = 0
    for await _ in stream {
        seen += 1
        if seen == count { return }
    }
}

/// A producer that sends `values` at each start and then nothing more,
/// until disposed.
private func valuesThenNothing(_ values: ClosedRange<Int>) -> SignalProducer<Int, Never> {
    SignalProducer { observer, lifetime in
        for value in values { observer.send(value: value) }
        lifetime.observeEnded { withExtendedLifetime(observer) {} }
    }
}

@Suite("values: signals and producers as typed AsyncSequences")
struct AsyncValuesTests {
    @Test("a Never-error signal iterates without try: every value once, in order, then completed ends the loop")
    func signalValuesThenCompleted() async {
        let (signal, input) = Signal<Int, Never>.pipe()
        var iterator = signal.values.makeAsyncIterator()
        for i in 1...5 { input.send(value: i) }
        input.sendCompleted()
        input.send(value: 99)
        var received: [Int] = []
        while let value = await iterator.next() { received.append(value) }
        #expect(received == [1, 2, 3, 4, 5])
        #expect(await iterator.next() == nil)
    }

    @Test("failed throws the typed error after the values sent before it, then the iteration is over")
    func signalFailed() async {
        let (signal, input) = Signal<Int, TestError>.pipe()
        let values = signal.values
        var iterator = values.makeAsyncIterator()
        input.send(value: 1)
        input.send(value: 2)
        input.send(error: TestError(code: 7))
        var received: [Int] = []
        var caught: TestError?
        do {
            while let value = try await iterator.next() { received.append(value) }
        } catch {
            caught = error  // typed: TestError, no cast
        }
        #expect(received == [1, 2])
        #expect(caught == TestError(code: 7))
        #expect((try? await iterator.next()) == .some(nil))
    }

    @Test("for try await over a failing producer: the error is the producer's type")
    func producerFailedTyped() async {
        let producer = SignalProducer<Int, TestError> { observer, _ in
            observer.send(value: 1)
            observer.send(error: TestError(code: 3))
        }
        var received: [Int] = []
        do throws(TestError) {
            for try await value in producer.values { received.append(value) }
            Issue.record("the loop ended without the failure")
        } catch {
            #expect(error == TestError(code: 3))
        }
        #expect(received == [1])
    }

    @Test("interrupted ends the iteration like completed, after the values before it")
    func interruptedEndsLikeCompleted() async {
        let (signal, input) = Signal<Int, TestError>.pipe()
        var iterator = signal.values.makeAsyncIterator()
        input.send(value: 1)
        input.sendInterrupted()
        #expect((try? await iterator.next()) == .some(1))
        #expect((try? await iterator.next()) == .some(nil))
    }

    @Test("a terminated signal's values end at once")
    func terminatedSignal() async {
        let (signal, input) = Signal<Int, Never>.pipe()
        input.sendCompleted()
        var received: [Int] = []
        for await value in signal.values { received.append(value) }
        #expect(received.isEmpty)
    }

    @Test("a producer starts when iteration begins, not when values is read; each iteration is its own start")
    func producerStartsPerIteration() async {
        let starts = Counter()
        let cleanups = Counter()
        let producer = SignalProducer<Int, Never> { observer, lifetime in
            starts.increment()
            lifetime.observeEnded { cleanups.increment() }
            observer.send(value: starts.count * 10)
            observer.send(value: starts.count * 10 + 1)
            observer.sendCompleted()
        }
        let values = producer.values
        #expect(starts.count == 0)
        var first: [Int] = []
        for await value in values { first.append(value) }
        var second: [Int] = []
        for await value in values { second.append(value) }
        #expect(first == [10, 11])
        #expect(second == [20, 21])
        #expect(starts.count == 2)
        #expect(cleanups.count == 2)
    }

    @Test("releasing an iterator interrupts its run at once; a new iterator is a new run")
    func breakInterruptsProducer() async {
        let cleanups = Counter()
        let interrupted = Counter()
        let (signal, input) = Signal<Int, Never>.pipe()
        let producer = SignalProducer(signal)
            .on(interrupted: { interrupted.increment() })
            .on(disposed: { cleanups.increment() })
        var iterator = producer.values.makeAsyncIterator()
        input.send(value: 1)
        input.send(value: 2)
        #expect(await iterator.next() == 1)
        iterator = producer.values.makeAsyncIterator()  // the first iterator is released
        #expect(cleanups.count == 1)
        #expect(interrupted.count == 1)
        input.send(value: 3)
        #expect(await iterator.next() == 3)
    }

    @Test("break in a for-await loop disposes the observation: the signal, unreferenced, is released")
    func breakReleasesSignal() async {
        weak var weakSignal: Signal<Int, Never>?
        let cleanups = Counter()
        let input: Signal<Int, Never>.Observer
        do {
            let (signal, pipeInput) = Signal<Int, Never>.pipe(disposable: AnyDisposable { cleanups.increment() })
            input = pipeInput
            weakSignal = signal
            let values = signal.values
            var iterator = values.makeAsyncIterator()
            input.send(value: 1)
            input.send(value: 2)
            #expect(await iterator.next() == 1)
        }
        #expect(weakSignal == nil)
        #expect(cleanups.count == 1)
        input.send(value: 3)
    }

    @Test("a loop left by break, then by a thrown error: the run's cleanup runs once each time, before the next statement")
    func earlyExitsInterruptAtOnce() async {
        struct Stop: Swift.Error {}
        let cleanups = Counter()
        let producer = valuesThenNothing(1...4)
            .on(disposed: { cleanups.increment() })
        for await value in producer.values where value == 2 { break }
        #expect(cleanups.count == 1)
        do {
            for await value in producer.values where value == 3 { throw Stop() }
        } catch {}
        #expect(cleanups.count == 2)
    }

    @Test("cancelling the iterating task ends the loop and interrupts the run once; the signal is released")
    func cancellationDisposes() async {
        let cleanups = Counter()
        let attached = AsyncStream<Void>.makeStream()
        let received = AsyncStream<Void>.makeStream()
        weak var weakSignal: Signal<Int, Never>?
        var input: Signal<Int, Never>.Observer?
        let task: Task<[Int], Never>
        do {
            let (signal, pipeInput) = Signal<Int, Never>.pipe()
            weakSignal = signal
            input = pipeInput
            let producer = SignalProducer<Int, Never> { observer, lifetime in
                lifetime += signal.observe(observer)
                lifetime.observeEnded { cleanups.increment() }
                attached.continuation.yield()
            }
            task = Task {
                var values: [Int] = []
                for await value in producer.values {
                    values.append(value)
                    received.continuation.yield()
                }
                return values
            }
        }
        await arrivals(attached.stream, count: 1)
        input?.send(value: 1)
        await arrivals(received.stream, count: 1)
        task.cancel()
        #expect(await task.value == [1])
        #expect(cleanups.count == 1)
        input?.send(value: 2)
        input = nil
        #expect(weakSignal == nil)
    }

    @Test("a task cancelled while busy in the loop body stops at its next next(), interrupting the run")
    func cancellationWhileBusy() async {
        let cleanups = Counter()
        let producer = valuesThenNothing(1...1_000)
            .on(disposed: { cleanups.increment() })
        let task = Task {
            var received: [Int] = []
            for await value in producer.values {
                received.append(value)
                if value == 5 { withUnsafeCurrentTask { $0?.cancel() } }
            }
            return received
        }
        #expect(await task.value == [1, 2, 3, 4, 5])
        #expect(cleanups.count == 1)
    }

    @Test("bufferingNewest(n) keeps the newest n waiting values, and the terminal event")
    func bufferingNewest() async {
        let (signal, input) = Signal<Int, TestError>.pipe()
        var iterator = signal.values(bufferingPolicy: .bufferingNewest(2)).makeAsyncIterator()
        for i in 1...5 { input.send(value: i) }
        input.send(error: TestError(code: 1))
        #expect((try? await iterator.next()) == .some(4))
        #expect((try? await iterator.next()) == .some(5))
        await #expect(throws: TestError(code: 1)) { try await iterator.next() }
    }

    @Test("bufferingOldest(n) keeps the oldest n waiting values and drops newer ones")
    func bufferingOldest() async {
        let (signal, input) = Signal<Int, Never>.pipe()
        var iterator = signal.values(bufferingPolicy: .bufferingOldest(2)).makeAsyncIterator()
        for i in 1...5 { input.send(value: i) }
        #expect(await iterator.next() == 1)
        input.send(value: 6)  // room for one again
        input.sendCompleted()
        var rest: [Int] = []
        while let value = await iterator.next() { rest.append(value) }
        #expect(rest == [2, 6])
    }

    @Test("a zero-sized buffer keeps nothing while no one waits")
    func zeroBuffer() async {
        let (signal, input) = Signal<Int, Never>.pipe()
        var iterator = signal.values(bufferingPolicy: .bufferingNewest(0)).makeAsyncIterator()
        input.send(value: 1)
        input.sendCompleted()
        #expect(await iterator.next() == nil)
    }

    @Test("unbounded: a producer of 100,000 values arrives whole and in order")
    func unboundedProducerKeepsEverything() async {
        var expected = 0
        var inOrder = true
        for await value in SignalProducer<Int, Never>(0..<100_000).values {
            if value != expected { inOrder = false }
            expected += 1
        }
        #expect(inOrder)
        #expect(expected == 100_000)
    }

    @Test("one thread sends while a task iterates: every value exactly once, in order")
    func concurrentSenderAndConsumer() async {
        let (signal, input) = Signal<Int, Never>.pipe()
        let count = 50_000
        var iterator = signal.values.makeAsyncIterator()
        let sender = Thread {
            for i in 0..<count { input.send(value: i) }
            input.sendCompleted()
        }
        sender.start()
        var received: [Int] = []
        received.reserveCapacity(count)
        while let value = await iterator.next() { received.append(value) }
        #expect(received == Array(0..<count))
    }

    @Test("many concurrent consumers of one signal each see every value, in order")
    func manyConsumers() async {
        let (signal, input) = Signal<Int, Never>.pipe()
        let consumers = 8
        let count = 20_000
        let attached = AsyncStream<Void>.makeStream()
        let results = await withTaskGroup(of: [Int].self) { group in
            for _ in 0..<consumers {
                group.addTask {
                    var iterator = signal.values.makeAsyncIterator()
                    attached.continuation.yield()
                    var received: [Int] = []
                    received.reserveCapacity(count)
                    while let value = await iterator.next() { received.append(value) }
                    return received
                }
            }
            await arrivals(attached.stream, count: consumers)
            let sender = Thread {
                for i in 0..<count { input.send(value: i) }
                input.sendCompleted()
            }
            sender.start()
            var all: [[Int]] = []
            for await received in group { all.append(received) }
            return all
        }
        #expect(results.count == consumers)
        for received in results { #expect(received == Array(0..<count)) }
    }

    @Test("handoff under stress: a sender racing a consumer that keeps catching up and parking loses and repeats nothing")
    func handoffStress() async {
        for round in 0..<300 {
            let (signal, input) = Signal<Int, Never>.pipe()
            let count = 1 + round % 40
            var iterator = signal.values(bufferingPolicy: round % 2 == 0 ? .unbounded : .bufferingOldest(1_000)).makeAsyncIterator()
            let sender = Thread {
                for i in 0..<count {
                    input.send(value: i)
                    if i % 7 == 0 { sched_yield() }
                }
                input.sendCompleted()
            }
            sender.start()
            var received: [Int] = []
            while let value = await iterator.next() { received.append(value) }
            #expect(received == Array(0..<count), "round \(round)")
        }
    }

    @Test("cancellation racing deliveries: every loop ends, each run's cleanup runs exactly once, values stay a prefix in order")
    func cancellationRaceStress() async {
        let cleanups = Counter()
        let (ended, end) = AsyncStream<Void>.makeStream()
        var endings = ended.makeAsyncIterator()
        let rounds = 200
        for round in 0..<rounds {
            let producer = SignalProducer<Int, Never> { observer, lifetime in
                lifetime.observeEnded {
                    cleanups.increment()
                    end.yield()
                }
                let sender = Thread {
                    var i = 0
                    while !lifetime.hasEnded {
                        observer.send(value: i)
                        i += 1
                    }
                }
                sender.start()
            }
            let task = Task {
                var received: [Int] = []
                for await value in producer.values {
                    received.append(value)
                    if received.count == 1 + round % 5 { withUnsafeCurrentTask { $0?.cancel() } }
                }
                return received
            }
            if round % 2 == 0 { task.cancel() }
            let received = await task.value
            #expect(received == Array(0..<received.count), "round \(round)")
            // The interruption is sent when the loop ends; the sender's
            // thread, mid-delivery, runs the cleanup when that delivery
            // finishes (contract 8).
            await endings.next()
        }
        #expect(cleanups.count == rounds)
    }
}
