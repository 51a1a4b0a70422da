import Flare
import Foundation
import Testing

/// Waits (suspending) for the next element of `stream`.
private func next<T: Sendable>(_ stream: AsyncStream<T>) async -> T? {
    var iterator = stream.makeAsyncIterator()
    return await iterator.next()
}

@Suite("Producers from async work, and awaited results")
struct AsyncProducerTests {
    private func events<V: Sendable, E>(of producer: SignalProducer<V, E>) async -> [String] {
        let log = Recorder<String>()
        let done = AsyncStream<Void>.makeStream()
        producer.start { event in
            log.append(describe(event))
            if event.isTerminating { done.continuation.yield() }
        }
        _ = await next(done.stream)
        return log.items
    }

    @Test("a producer of an async sequence sends its elements then completed, at every start")
    func asyncSequenceValues() async {
        let producer = SignalProducer(AsyncStream<Int> { continuation in
            for i in 1...3 { continuation.yield(i) }
            continuation.finish()
        })
        #expect(await events(of: producer) == ["v1", "v2", "v3", "completed"])
        let counted = Counter()
        let restartable = SignalProducer(CountingSequence(counter: counted, count: 2))
        #expect(await events(of: restartable) == ["v0", "v1", "completed"])
        #expect(await events(of: restartable) == ["v0", "v1", "completed"])
        #expect(counted.count == 2)
    }

    @Test("the failure type is the sequence's own: a typed throw fails the run with it")
    func asyncSequenceTypedFailure() async {
        let producer: SignalProducer<Int, TestError> = SignalProducer(FailingSequence(failAfter: 2))
        #expect(await events(of: producer) == ["v0", "v1", "failed(E2)"])
    }

    @Test("interrupting a producer of an async sequence mid-stream cancels its task at once")
    func asyncSequenceInterruptionCancels() async {
        let (stream, continuation) = AsyncStream<Int>.makeStream()
        let terminated = AsyncStream<Bool>.makeStream()
        continuation.onTermination = { termination in
            if case .cancelled = termination { terminated.continuation.yield(true) } else { terminated.continuation.yield(false) }
        }
        let received = AsyncStream<Int>.makeStream()
        let log = Recorder<String>()
        let disposable = SignalProducer(stream).start { event in
            log.append(describe(event))
            if case let .value(v) = event { received.continuation.yield(v) }
        }
        continuation.yield(1)
        #expect(await next(received.stream) == 1)
        disposable.dispose()
        #expect(await next(terminated.stream) == true)
        continuation.yield(2)
        #expect(log.items == ["v1", "interrupted"])
    }

    @Test("an async closure runs at every start; its result then completed, or its typed error")
    func asyncClosure() async {
        let runs = Counter()
        let producer = SignalProducer { () async -> Int in
            runs.increment()
            await Task.yield()
            return runs.count * 10
        }
        #expect(await events(of: producer) == ["v10", "completed"])
        #expect(await events(of: producer) == ["v20", "completed"])
        let failing = SignalProducer { () async throws(TestError) -> Int in
            throw TestError(code: 4)
        }
        #expect(await events(of: failing) == ["failed(E4)"])
        // A closure that does not await keeps the synchronous initializer:
        // its work runs on the starting thread, before start returns.
        let immediate = SignalProducer<Int, Never> { 5 }
        let log = Recorder<String>()
        immediate.start { log.append(describe($0)) }
        #expect(log.items == ["v5", "completed"])
    }

    @Test("disposing a run of an async closure cancels its task")
    func asyncClosureCancellation() async {
        let sawCancellation = AsyncStream<Bool>.makeStream()
        let started = AsyncStream<Void>.makeStream()
        let producer = SignalProducer { () async throws -> Int in
            started.continuation.yield()
            do {
                try await Task.sleep(for: .seconds(3_600))
            } catch {
                sawCancellation.continuation.yield(error is CancellationError)
                throw error
            }
            return 1
        }
        let log = Recorder<String>()
        let disposable = producer.start { log.append(describe($0)) }
        _ = await next(started.stream)
        disposable.dispose()
        #expect(await next(sawCancellation.stream) == true)
        #expect(log.items == ["interrupted"])
    }

    @Test("awaited first/single/last/wait return what the blocking ones return")
    func awaitedResultsMatchBlocking() async {
        let producers: [(String, SignalProducer<Int, TestError>)] = [
            ("empty", .empty),
            ("one value", SignalProducer(value: 1)),
            ("three values", SignalProducer([1, 2, 3])),
            ("failure", SignalProducer(error: TestError(code: 1))),
            ("value then failure", SignalProducer { observer, _ in
                observer.send(value: 1)
                observer.send(error: TestError(code: 2))
            }),
            ("value then interrupted", SignalProducer { observer, _ in
                observer.send(value: 1)
                observer.sendInterrupted()
            }),
            ("from another thread", SignalProducer { observer, _ in
                Thread {
                    observer.send(value: 7)
                    observer.send(value: 8)
                    observer.sendCompleted()
                }.start()
            }),
        ]
        for (name, producer) in producers {
            #expect(await producer.first() == producer.blockingFirst(), "first: \(name)")
            let single = await producer.single()
            #expect(single == producer.blockingSingle(), "single: \(name): \(String(describing: single))")
            #expect(await producer.last() == producer.blockingLast(), "last: \(name)")
            #expect(describe(await producer.wait()) == describe(producer.blockingWait()), "wait: \(name)")
        }
        // A second value decides single(): nil, whatever follows, for the
        // awaited and the blocking one alike (the blocking one used to
        // record a failure sent synchronously after the second value).
        let twoThenFailure = SignalProducer<Int, TestError> { observer, _ in
            observer.send(value: 1)
            observer.send(value: 2)
            observer.send(error: TestError(code: 3))
        }
        #expect(await twoThenFailure.single() == nil)
        #expect(twoThenFailure.blockingSingle() == nil)
        #expect(await SignalProducer<Int, TestError>([4, 5, 6]).first() == .success(4))
        #expect(await SignalProducer<Int, TestError>([4, 5, 6]).last() == .success(6))
        #expect(await SignalProducer<Int, TestError>(value: 9).single() == .success(9))
    }

    @Test("first() stops the run after its value: the cleanup runs once, the rest is never sent")
    func firstDisposesTheRun() async {
        let cleanups = Counter()
        let sent = Counter()
        let producer = SignalProducer<Int, Never> { observer, lifetime in
            lifetime.observeEnded { cleanups.increment() }
            for i in 1...100 {
                guard !lifetime.hasEnded else { return }
                sent.increment()
                observer.send(value: i)
            }
        }
        #expect(await producer.first() == .success(1))
        #expect(cleanups.count == 1)
        #expect(sent.count == 1)
    }

    @Test("cancelling a task awaiting first() interrupts the run: nil, cleanup once")
    func cancelledFirst() async {
        let cleanups = Counter()
        let started = AsyncStream<Void>.makeStream()
        let producer = SignalProducer<Int, Never> { observer, lifetime in
            lifetime.observeEnded { cleanups.increment() }
            lifetime.observeEnded { withExtendedLifetime(observer) {} }
            started.continuation.yield()
        }
        let task = Task { await producer.first() }
        _ = await next(started.stream)
        task.cancel()
        #expect(await task.value == nil)
        #expect(cleanups.count == 1)
        let waiting = Task { await producer.wait() }
        waiting.cancel()
        #expect(describe(await waiting.value) == "success")
    }
}

private func describe<E>(_ result: Result<(), E>) -> String {
    switch result {
    case .success: "success"
    case let .failure(error): "failure \(error)"
    }
}

extension SignalProducer {
    // The blocking forms, named apart so that the comparisons above cannot
    // resolve to the async ones.
    func blockingFirst() -> Result<Value, Error>? { first() }
    func blockingSingle() -> Result<Value, Error>? { single() }
    func blockingLast() -> Result<Value, Error>? { last() }
    func blockingWait() -> Result<(), Error> { wait() }
}

/// An async sequence whose every iterator counts its creation and yields
/// 0..<count.
private struct CountingSequence: AsyncSequence, Sendable {
    let counter: Counter
    let count: Int

    struct Iterator: AsyncIteratorProtocol {
        var next = 0
        let count: Int
        mutating func next() async -> Int? {
            guard next < count else { return nil }
            defer { next += 1 }
            return next
        }
    }

    func makeAsyncIterator() -> Iterator {
        counter.increment()
        return Iterator(count: count)
    }
}

/// An async sequence that yields 0..<failAfter, then throws a TestError
/// (typed).
private struct FailingSequence: AsyncSequence, Sendable {
    typealias Failure = TestError
    let failAfter: Int

    struct Iterator: AsyncIteratorProtocol {
        typealias Failure = TestError
        var next = 0
        let failAfter: Int
        mutating func next() async throws(TestError) -> Int? {
            guard next < failAfter else { throw TestError(code: failAfter) }
            defer { next += 1 }
            return next
        }
    }

    func makeAsyncIterator() -> Iterator { Iterator(failAfter: failAfter) }
}
