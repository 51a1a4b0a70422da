import Dispatch
import Flare
import Foundation
import Synchronization

// MARK: Swift concurrency

/// The name of the async cases' baseline column: a plain `AsyncStream<Int>`
/// fed the same way as Flare's sequence.
let asyncStreamName = "AsyncStream"

/// Runs `body` in a detached task (on the global executor: the bench's
/// main thread, which the main actor would need, is the one blocked here)
/// and blocks the calling thread until it returns.
private func runInTask<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
    let done = DispatchSemaphore(value: 0)
    let result = Mutex<T?>(nil)
    Task.detached {
        let value = await body()
        result.withLock { $0 = value }
        done.signal()
    }
    done.wait()
    return result.withLock { $0! }
}

/// `for await` over `amount` values, in a task, with their sum checked.
/// Case "signal": one thread sends into a signal (a pipe's input, or an
/// `AsyncStream`'s continuation) while the task iterates; the clock runs
/// from the sender's start to the end of the loop. Case "producer": the
/// sequence is `SignalProducer(0..<amount).values` (started by the loop) or
/// an `AsyncStream` whose build closure yields `0..<amount`; the clock runs
/// over making the iterator and the whole loop.
struct AsyncIteration {
    enum Source: String { case signal, producer }
    let source: Source

    static let metrics = [Metric(name: "ns/element", unit: "ns", lowerIsBetter: true)]

    private static func expectedSum(_ n: Int) -> Int { n &* (n &- 1) / 2 }

    func flare(amount n: Int) -> Measurement {
        let (elapsed, sum): (UInt64, Int)
        switch source {
        case .signal:
            let (signal, input) = Signal<Int, Never>.pipe()
            (elapsed, sum) = runInTask {
                var iterator = signal.values.makeAsyncIterator()
                let sender = Foundation.Thread {
                    for i in 0..<n { input.send(value: i) }
                    input.sendCompleted()
                }
                let t0 = now()
                sender.start()
                var sum = 0
                while let v = await iterator.next() { sum &+= v }
                return (now() - t0, sum)
            }
        case .producer:
            let producer = SignalProducer<Int, Never>(0..<n)
            (elapsed, sum) = runInTask {
                let t0 = now()
                var sum = 0
                for await v in producer.values { sum &+= v }
                return (now() - t0, sum)
            }
        }
        check(sum == Self.expectedSum(n), "Flare values lost elements")
        return Measurement(elapsed: elapsed, values: [Double(elapsed) / Double(n)])
    }

    func asyncStream(amount n: Int) -> Measurement {
        let (elapsed, sum): (UInt64, Int)
        switch source {
        case .signal:
            let (stream, continuation) = AsyncStream<Int>.makeStream()
            (elapsed, sum) = runInTask {
                var iterator = stream.makeAsyncIterator()
                let sender = Foundation.Thread {
                    for i in 0..<n { continuation.yield(i) }
                    continuation.finish()
                }
                let t0 = now()
                sender.start()
                var sum = 0
                while let v = await iterator.next() { sum &+= v }
                return (now() - t0, sum)
            }
        case .producer:
            (elapsed, sum) = runInTask {
                let t0 = now()
                let stream = AsyncStream<Int> { continuation in
                    for i in 0..<n { continuation.yield(i) }
                    continuation.finish()
                }
                var sum = 0
                for await v in stream { sum &+= v }
                return (now() - t0, sum)
            }
        }
        check(sum == Self.expectedSum(n), "AsyncStream lost elements")
        return Measurement(elapsed: elapsed, values: [Double(elapsed) / Double(n)])
    }
}

func runAsyncScenarios(_ runner: Runner) {
    guard runner.options.includes("async") else { return }
    progress("async iteration")
    for source in [AsyncIteration.Source.signal, .producer] {
        let body = AsyncIteration(source: source)
        runner.measure(scenario: "async", title: "for await over 100,000 values, in a task",
                       caseName: source == .signal ? "signal, 1 sender" : "producer of 0..<n",
                       metrics: AsyncIteration.metrics,
                       entries: [Entry(name: flareName) { body.flare(amount: $0) },
                                 Entry(name: asyncStreamName) { body.asyncStream(amount: $0) }],
                       initialAmount: 100_000, calibrated: false)
    }
}
