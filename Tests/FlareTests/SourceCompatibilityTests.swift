import Flare
import Foundation
import Testing

/// Code written as a ReactiveSwift 7 user writes it, with only the import
/// changed: it must compile (this file is the check) and behave.
@Suite("ReactiveSwift source compatibility")
struct SourceCompatibilityTests {
    @Test("the README's usage examples compile and do what it says")
    func readmeExamples() {
        let printed = Recorder<String>()
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let (prices, input) = Signal<Double, Never>.pipe()

        let disposable = prices
            .filter { $0 > 0 }
            .map { ($0 * 100).rounded() / 100 }
            .observeValues { print("price", $0) }

        input.send(value: 101.257)   // prints "price 101.26"
        input.send(value: -1)        // filtered out
        disposable?.dispose()        // lock-free, from any thread, any time
        input.sendCompleted()
        #expect(printed.items == ["price 101.26"])

        let ended = DispatchSemaphore(value: 0)
        let ticked = DispatchSemaphore(value: 0)
        do {
            let ticks = Signal<Date, Never> { observer, lifetime in
                let timer = DispatchSource.makeTimerSource(queue: .global())
                timer.setEventHandler { observer.send(value: Date()) }
                timer.schedule(deadline: .now(), repeating: .milliseconds(10))
                timer.resume()
                lifetime.observeEnded { timer.cancel(); ended.signal() }   // runs when the signal ends
            }
            let observation = ticks.observeValues { _ in ticked.signal() }
            #expect(ticked.wait(timeout: .now() + 10) == .success)
            observation?.dispose()  // last observer gone, no reference left: the signal ends
        }
        #expect(ended.wait(timeout: .now() + 10) == .success)
    }

    @Test("a ReactiveSwift-style pipeline compiles and runs")
    func pipeline() {
        let scheduler = TestScheduler()
        let (prices, pricesObserver) = Signal<Double, Never>.pipe()
        let (volumes, volumesObserver) = Signal<Int, Never>.pipe()
        let (stop, stopObserver) = Signal<(), Never>.pipe()
        let lifetime = Lifetime.make()

        let log = Recorder<String>()
        let disposable = CompositeDisposable()
        disposable += prices
            .filter { $0 > 0 }
            .skipRepeats()
            .combineLatest(with: volumes)
            .map { price, volume in price * Double(volume) }
            .throttle(1, on: scheduler)
            .take(until: stop)
            .take(during: lifetime.lifetime)
            .observeValues { log.append("notional \($0)") }

        disposable += Signal.merge(prices.map(value: "p"), volumes.map { _ in "v" })
            .collect(count: 2)
            .observeValues { log.append($0.joined()) }

        disposable += prices
            .scan(0, +)
            .combinePrevious(0)
            .debounce(0.5, on: scheduler)
            .observe(on: scheduler)
            .observeResult { result in
                if case let .success((previous, current)) = result { log.append("sum \(previous)->\(current)") }
            }

        disposable += Signal.zip(prices, volumes.promoteError(Never.self))
            .materialize()
            .observeValues { event in if case .value = event { log.append("pair") } }

        pricesObserver.send(value: 10)
        volumesObserver.send(value: 3)
        scheduler.advance(by: 1)
        stopObserver.send(value: ())
        pricesObserver.send(value: 11)
        scheduler.advance(by: 1)

        #expect(log.items.contains("notional 30.0"))
        #expect(log.items.contains("pv"))
        #expect(log.items.contains("pair"))
        #expect(log.items.contains("sum 0.0->10.0"))
        #expect(!log.items.contains { $0.hasPrefix("notional 33") })
        disposable.dispose()
        withExtendedLifetime(lifetime.token) {}
    }

    @Test("code generic over SignalProtocol and OptionalProtocol compiles and runs")
    func genericOverProtocols() {
        let (names, input) = Signal<String?, Never>.pipe()
        let log = Recorder<String>()
        observeAll(names.present()) { log.append($0) }
        observeAll(names.orDefault("none")) { log.append("or \($0)") }
        let taken = names.take(until: { $0 != "stop" })
        observeAll(taken.present()) { log.append("until \($0)") }
        input.send(value: "a")
        input.send(value: nil)
        input.send(value: "stop")
        input.send(value: "b")
        #expect(log.items == ["a", "or a", "until a", "or none", "stop", "or stop", "until stop", "b", "or b"])
        #expect(Optional<Int>(reconstructing: 3) == 3)
        #expect(Optional<Int>(reconstructing: nil) == nil)
        #expect(Optional(4).optional == 4)
        let (unserialized, unserializedInput) = Signal<Int, Never>.unserializedPipe()
        observeAll(unserialized.signal.map { "\($0)" }) { log.append("u\($0)") }
        unserializedInput.send(value: 1)
        #expect(log.items.last == "u1")
    }

    @Test("SignalProducer.ProducedSignal names the signal of a run, as ReactiveSwift's test helpers use it")
    func producedSignalAlias() {
        // ReactiveSwift's own `SignalProducer.pipe()` helper is written so.
        func pipe<V, E>() -> (SignalProducer<V, E>, SignalProducer<V, E>.ProducedSignal.Observer) {
            let (signal, observer) = SignalProducer<V, E>.ProducedSignal.pipe()
            return (SignalProducer(signal), observer)
        }
        let (producer, input) = pipe() as (SignalProducer<Int, Never>, Signal<Int, Never>.Observer)
        let log = Recorder<Int>()
        producer.startWithValues { log.append($0) }
        input.send(value: 7)
        #expect(log.items == [7])
        #expect(SignalProducer<Int, Never>.ProducedSignal.self == Signal<Int, Never>.self)
    }
}

/// Generic over `SignalProtocol`, as ReactiveSwift users write helpers.
private func observeAll<S: SignalProtocol>(_ source: S, _ action: @escaping (S.Value) -> Void) where S.Error == Never {
    source.signal.observeValues(action)
}

extension SignalProtocol where Value: OptionalProtocol {
    /// The non-nil values, through the `OptionalProtocol`-constrained
    /// `skipNil`.
    fileprivate func present() -> Signal<Value.Wrapped, Error> {
        signal.skipNil()
    }

    /// Each value, or `fallback` for nil.
    fileprivate func orDefault(_ fallback: Value.Wrapped) -> Signal<Value.Wrapped, Error> {
        signal.map { $0.optional ?? fallback }
    }
}
