// Flare used the way Swift 6 code is written: actors, @MainActor view
// models, task groups, async sequences. Swift 6 language mode, strict
// concurrency; no @preconcurrency import, no @unchecked Sendable, no
// nonisolated(unsafe): if Flare's types were not Sendable where they must
// be, this file would not compile.
import Flare
import Foundation
import Synchronization
import Testing

// MARK: The app's types

struct Reading: Sendable, Equatable {
    let celsius: Double
}

enum SensorError: Error, Equatable {
    case disconnected
}

/// A hardware sensor's feed: each start sends `values` from a background
/// thread, then fails or completes.
func sensorFeed(_ values: [Double], thenFail: Bool) -> SignalProducer<Reading, SensorError> {
    SignalProducer { observer, _ in
        Thread {
            for value in values { observer.send(value: Reading(celsius: value)) }
            if thenFail { observer.send(error: .disconnected) } else { observer.sendCompleted() }
        }.start()
    }
}

/// An actor that records what a signal sends, iterating it on its own
/// executor.
actor ReadingLog {
    private(set) var readings: [Reading] = []
    private(set) var failure: SensorError?

    func record(_ feed: SignalProducer<Reading, SensorError>) async {
        do throws(SensorError) {
            for try await reading in feed.values {
                readings.append(reading)  // actor state, no hop, no lock
            }
        } catch {
            failure = error
        }
    }
}

/// A remote service, as an actor; its async API becomes producers.
actor WeatherService {
    private var requests = 0

    func forecast(for city: String) async throws(SensorError) -> [Double] {
        requests += 1
        if city.isEmpty { throw .disconnected }
        return [Double(city.count), Double(requests)]
    }

    var requestCount: Int { requests }
}

/// A view model on the main actor, fed by producers through `for await`
/// and `await producer.first()`.
@MainActor
final class ForecastViewModel {
    private(set) var temperatures: [Double] = []
    private(set) var status = "idle"
    let service: WeatherService

    init(service: WeatherService) {
        self.service = service
    }

    func forecastProducer(for city: String) -> SignalProducer<[Double], SensorError> {
        let service = self.service
        return SignalProducer { () async throws(SensorError) -> [Double] in
            try await service.forecast(for: city)
        }
    }

    func load(city: String) async {
        status = "loading"
        switch await forecastProducer(for: city).first() {
        case let .success(values)?:
            temperatures = values
            status = "loaded"
        case let .failure(error)?:
            status = "failed: \(error)"
        case nil:
            status = "cancelled"
        }
    }

    /// Follows a live feed until it ends; every value lands on the main
    /// actor, in order.
    func follow(_ feed: SignalProducer<Double, Never>) async {
        status = "following"
        for await temperature in feed.values {
            MainActor.assertIsolated()
            temperatures.append(temperature)
        }
        status = "ended"
    }
}

/// A count shared between tasks and threads: Sendable by construction.
final class Tally: Sendable {
    private let count = Atomic(0)
    func increment() { count.add(1, ordering: .sequentiallyConsistent) }
    var value: Int { count.load(ordering: .sequentiallyConsistent) }
}

/// Outcomes recorded from many tasks: Sendable by construction.
final class Outcomes: Sendable {
    private let items = Mutex<[String]>([])
    func append(_ item: String) { items.withLock { $0.append(item) } }
    var all: [String] { items.withLock { $0 } }
}

// MARK: Tests

@Suite("Flare from Swift 6 code: actors, main-actor view models, task groups")
struct SwiftConcurrencyUsageTests {
    @Test("an actor iterates a producer sending from another thread: every value, then the typed failure")
    func actorIteratesProducer() async {
        let log = ReadingLog()
        await log.record(sensorFeed([20.5, 21.0, 21.5], thenFail: true))
        #expect(await log.readings == [Reading(celsius: 20.5), Reading(celsius: 21.0), Reading(celsius: 21.5)])
        #expect(await log.failure == .disconnected)
    }

    @MainActor
    @Test("a @MainActor view model loads through await first(): success, typed failure")
    func viewModelLoads() async {
        let model = ForecastViewModel(service: WeatherService())
        await model.load(city: "Oslo")
        #expect(model.temperatures == [4, 1])
        #expect(model.status == "loaded")
        await model.load(city: "")
        #expect(model.status == "failed: disconnected")
        #expect(await model.service.requestCount == 2)
    }

    @MainActor
    @Test("a @MainActor view model follows a producer sending from another thread; cancelling its task interrupts the producer")
    func viewModelFollowsAndCancels() async {
        let model = ForecastViewModel(service: WeatherService())
        let cleanups = Tally()
        let (progress, reached) = AsyncStream<Int>.makeStream()
        let feed = SignalProducer<Double, Never> { observer, lifetime in
            lifetime.observeEnded { cleanups.increment() }
            // Then silence: the run keeps its input, so only cancellation
            // ends this feed.
            lifetime.observeEnded { withExtendedLifetime(observer) {} }
            Thread {
                for i in 0..<1_000 { observer.send(value: Double(i)) }
                reached.yield(1_000)
            }.start()
        }
        let following = Task { await model.follow(feed) }
        for await count in progress where count == 1_000 { break }
        // Let the view model catch up with what was sent, then cancel.
        while model.temperatures.count < 1_000 { await Task.yield() }
        following.cancel()
        await following.value
        #expect(model.temperatures == (0..<1_000).map(Double.init))
        #expect(model.status == "ended")
        #expect(cleanups.value == 1)
    }

    @Test("a task group of consumers of one signal: each sees every value, in order")
    func taskGroupConsumers() async {
        let (signal, input) = Signal<Int, Never>.pipe()
        let (attached, attach) = AsyncStream<Void>.makeStream()
        let consumers = 6
        let count = 10_000
        let sums = await withTaskGroup(of: (sum: Int, ordered: Bool).self) { group in
            for _ in 0..<consumers {
                group.addTask {
                    var iterator = signal.values.makeAsyncIterator()
                    attach.yield()
                    var sum = 0
                    var previous = -1
                    var ordered = true
                    while let value = await iterator.next() {
                        if value != previous + 1 { ordered = false }
                        previous = value
                        sum += value
                    }
                    return (sum, ordered)
                }
            }
            var ready = 0
            for await _ in attached {
                ready += 1
                if ready == consumers { break }
            }
            group.addTask {
                for i in 0..<count { input.send(value: i) }
                input.sendCompleted()
                return (0, true)
            }
            var results: [(sum: Int, ordered: Bool)] = []
            for await result in group { results.append(result) }
            return results
        }
        let expected = count * (count - 1) / 2
        #expect(sums.filter { $0.sum == expected && $0.ordered }.count == consumers)
    }

    @Test("producers cross actors and tasks: an AsyncStream fed by an actor becomes a producer; disposables and observers are Sendable")
    func sendableAcrossTasks() async {
        let service = WeatherService()
        let (stream, continuation) = AsyncStream<Double>.makeStream()
        let producer = SignalProducer(stream)
        let collected = await Task.detached {
            var values: [Double] = []
            for await value in producer.take(first: 3).values { values.append(value) }
            return values
        }.valueAfter {
            Task {
                for city in ["A", "BB", "CCC"] {
                    let forecast = try? await service.forecast(for: city)
                    continuation.yield(forecast?.first ?? -1)
                }
            }
        }
        #expect(collected == [1, 2, 3])

        // A pipe's input and a disposable travel to other tasks.
        let (signal, input) = Signal<Int, Never>.pipe()
        let disposable = CompositeDisposable()
        let received = await withTaskGroup(of: [Int].self) { group in
            let (ready, readied) = AsyncStream<Void>.makeStream()
            group.addTask {
                var values: [Int] = []
                var iterator = signal.values.makeAsyncIterator()
                readied.yield()
                while let value = await iterator.next() { values.append(value) }
                return values
            }
            for await _ in ready { break }
            group.addTask {
                disposable += AnyDisposable { input.sendCompleted() }
                input.send(value: 1)
                input.send(value: 2)
                disposable.dispose()
                return []
            }
            var all: [Int] = []
            for await values in group { all += values }
            return all
        }
        #expect(received == [1, 2])
        #expect(disposable.isDisposed)
    }

    @MainActor
    @Test("an Action shared by concurrent tasks: exactly one start executes, the others fail with .disabled")
    func actionAcrossTasks() async {
        let (results, input) = Signal<Double, SensorError>.pipe()
        let refresh = Action<Void, Double, SensorError> { SignalProducer(results) }
        let outcomes = Outcomes()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    refresh.apply().start { event in
                        switch event {
                        case let .value(value): outcomes.append("value \(value)")
                        case .failed(.disabled): outcomes.append("disabled")
                        case let .failed(error): outcomes.append("failed \(error)")
                        case .completed: outcomes.append("completed")
                        case .interrupted: outcomes.append("interrupted")
                        }
                    }
                }
            }
        }
        #expect(refresh.isExecuting.value == true)
        input.send(value: 21.5)
        input.sendCompleted()
        #expect(outcomes.all.sorted() == (["completed", "value 21.5"] + Array(repeating: "disabled", count: 7)).sorted())
        #expect(refresh.isExecuting.value == false)
    }

    @Test("a TestScheduler drives a main-actor task sleeping on it")
    func schedulerSleepOnMainActor() async throws {
        let scheduler = TestScheduler()
        let (woke, wake) = AsyncStream<Date>.makeStream()
        let sleeper = Task { @MainActor in
            try await scheduler.sleep(for: .seconds(5))
            wake.yield(scheduler.currentDate)
        }
        await scheduler.advance(by: .seconds(5))
        try await sleeper.value
        var iterator = woke.makeAsyncIterator()
        #expect(await iterator.next() == scheduler.currentDate)
    }
}

extension Task where Failure == Never {
    /// Starts `feeder` (which feeds what this task consumes), then awaits
    /// this task's value.
    func valueAfter(_ feeder: () -> Task<Void, Never>) async -> Success {
        _ = feeder()
        return await value
    }
}
