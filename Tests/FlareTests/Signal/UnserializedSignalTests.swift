import Flare
import Foundation
import Testing

/// ReactiveSwift's unserialized variants. Flare's signals are always
/// serialized and queue reentrant sends, so each variant is an ordinary
/// signal: these tests hold them to ReactiveSwift's specs for the variants
/// and to Flare's contract for every signal.
@Suite("Signal: unserialized variants")
struct UnserializedSignalTests {
    /// The four constructors, as pipes.
    static var pipes: [(String, () -> (output: Signal<Int, Never>, input: Signal<Int, Never>.Observer))] { [
        ("unserialized", {
            var input: Signal<Int, Never>.Observer!
            let output = Signal<Int, Never>.unserialized { observer, _ in input = observer }
            return (output, input)
        }),
        ("unserializedPipe", { Signal<Int, Never>.unserializedPipe() }),
        ("reentrantUnserialized", {
            var input: Signal<Int, Never>.Observer!
            let output = Signal<Int, Never>.reentrantUnserialized { observer, _ in input = observer }
            return (output, input)
        }),
        ("reentrantUnserializedPipe", { Signal<Int, Never>.reentrantUnserializedPipe() }),
    ] }

    @Test("values sent from observers are delivered after the current callout, in submission order")
    func reentrantSendsDrainInOrder() {
        for (name, make) in Self.pipes {
            let (signal, input) = make()
            let values = Recorder<Int>()
            signal.take(first: 1).observeValues { _ in
                input.send(value: 10)
                input.send(value: 100)
            }
            signal.take(first: 1).observeValues { _ in
                input.send(value: 20)
                input.send(value: 200)
            }
            signal.observeValues { values.append($0) }
            input.send(value: 0)
            #expect(values.items == [0, 10, 100, 20, 200], "\(name)")
        }
    }

    @Test("a chain that feeds its own input back terminates")
    func feedbackLoop() {
        for (name, make) in Self.pipes {
            let (signal, input) = make()
            let values = Recorder<Int>()
            signal
                .take(first: 5)
                .map { $0 + 1 }
                .on(value: { values.append($0) })
                .observeValues { input.send(value: $0) }
            input.send(value: 1)
            #expect(values.items == [2, 3, 4, 5, 6], "\(name)")
        }
    }

    @Test("concurrent senders are serialized: every value delivered exactly once, never overlapping")
    func concurrentSendersAreSerialized() {
        for (name, make) in Self.pipes {
            let (signal, input) = make()
            let values = Recorder<Int>()
            let inside = Counter()
            let overlaps = Counter()
            signal.observeValues { value in
                inside.increment()
                if inside.count != 1 { overlaps.increment() }
                values.append(value)
                inside.value.subtract(1, ordering: .relaxed)
            }
            DispatchQueue.concurrentPerform(iterations: 4) { sender in
                for i in 0..<2_000 { input.send(value: sender * 10_000 + i) }
            }
            #expect(values.items.count == 8_000, "\(name)")
            #expect(Set(values.items).count == 8_000, "\(name)")
            #expect(overlaps.count == 0, "\(name)")
        }
    }

    @Test("the generator runs at once; its lifetime and the pipe's disposable end with the signal")
    func lifetimeAndDisposable() {
        for reentrant in [false, true] {
            let ended = Counter()
            var input: Signal<Int, Never>.Observer!
            let generated: (Signal<Int, Never>.Observer, Lifetime) -> Void = { observer, lifetime in
                input = observer
                lifetime.observeEnded { ended.increment() }
            }
            let signal = reentrant ? Signal.reentrantUnserialized(generated) : Signal.unserialized(generated)
            let log = Recorder<String>()
            signal.observe { log.append(describe($0)) }
            input.send(value: 1)
            #expect(ended.count == 0)
            input.sendCompleted()
            #expect(log.items == ["v1", "completed"])
            #expect(ended.count == 1)

            let disposable = AnyDisposable()
            let (output, pipeInput) = reentrant
                ? Signal<Int, Never>.reentrantUnserializedPipe(disposable: disposable)
                : Signal<Int, Never>.unserializedPipe(disposable: disposable)
            withExtendedLifetime(output) {
                #expect(!disposable.isDisposed)
                pipeInput.sendInterrupted()
                #expect(disposable.isDisposed)
            }
        }
    }
}

@Suite("SignalProducer: unserialized")
struct UnserializedProducerTests {
    @Test("each start runs the handler again; a reentrant send is queued behind the current callout")
    func startsAndQueuesReentrantSends() {
        let starts = Counter()
        let producer = SignalProducer<Int, Never>.unserialized { observer, _ in
            starts.increment()
            observer.send(value: 1)
            observer.sendCompleted()
        }
        for _ in 0..<2 {
            let log = Recorder<String>()
            producer.start { log.append(describe($0)) }
            #expect(log.items == ["v1", "completed"])
        }
        #expect(starts.count == 2)

        let log = Recorder<String>()
        let echo = SignalProducer<Int, Never>.unserialized { observer, _ in
            let (signal, pipeInput) = Signal<Int, Never>.pipe()
            signal.observe { event in
                observer.send(event)
                if case .value(1) = event { pipeInput.send(value: 2) }  // reentrant: after this callout
                log.append("after \(describe(event))")
            }
            pipeInput.send(value: 1)
            pipeInput.sendCompleted()
        }
        echo.start { log.append(describe($0)) }
        #expect(log.items == ["v1", "after v1", "v2", "after v2", "completed", "after completed"])
    }
}
