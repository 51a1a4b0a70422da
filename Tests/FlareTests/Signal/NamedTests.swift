import CFlare
@testable import Flare
import FlareTestSupport
import Testing

/// `named(_:describe:)`: the name the trace probes report (flare_trace.h),
/// and that naming changes nothing else. That the probes fire with these
/// names and descriptions is checked under bpftrace by
/// Tests/check-probes.sh; here, what needs no tracer.
@Suite("Naming signals and producers for tracing")
struct NamedTests {
    @Test("a signal's name is its core's label; naming again replaces it")
    func signalLabel() {
        let (signal, input) = Signal<Int, Never>.pipe()
        #expect(String(cString: flare_core_name(signal._core.raw)) == "")
        #expect(signal.named("first") === signal)
        #expect(String(cString: flare_core_name(signal._core.raw)) == "first")
        signal.named("second, longer than any small string's inline storage")
        #expect(String(cString: flare_core_name(signal._core.raw)) == "second, longer than any small string's inline storage")
        // The replaced labels stay until the core goes (T5): a reader that
        // loaded one never sees it freed.
        let label = flare_core_label(signal._core.raw)!
        let replaced = label.pointee.previous
        #expect(replaced != nil)
        #expect(replaced?.pointee.previous == nil)
        input.sendCompleted()
    }

    @Test("naming changes no delivery, and describes nothing while untraced")
    func signalDelivery() {
        let (signal, input) = Signal<Int, Never>.pipe()
        let described = Locked(0)
        let mapped = signal.map { $0 * 2 }.named("doubled") { value in
            described.withLock { $0 += 1 }
            return "\(value)"
        }
        let received = Locked<[Int]>([])
        let completed = Locked(false)
        mapped.observe { event in
            switch event {
            case let .value(value): received.withLock { $0.append(value) }
            case .completed: completed.withLock { $0 = true }
            default: break
            }
        }
        for i in 1...100 { input.send(value: i) }
        input.sendCompleted()
        #expect(received.withLock { $0 } == (1...100).map { $0 * 2 })
        #expect(completed.withLock { $0 })
        if !flare_trace_values_on() {
            #expect(described.withLock { $0 } == 0)
        }
    }

    @Test("a value is described by the closure given, else String(describing:)")
    func descriptions() {
        let describer = _ValueDescriber<[Int]> { "\($0.count) values" }
        let opaque = Unmanaged.passRetained(describer).toOpaque()
        defer { Unmanaged<_ValueDescriber<[Int]>>.fromOpaque(opaque).release() }
        #expect(_traceDescription([1, 2, 3], describe: opaque) == "3 values")
        #expect(_traceDescription([1, 2, 3], describe: nil) == "[1, 2, 3]")
    }

    @Test("a named producer's runs deliver, fail and are disposed as before")
    func producerRuns() {
        struct Failure: Error, Equatable {}
        var values: [Int] = []
        var ends: [String] = []
        let record: (Signal<Int, Failure>.Event) -> Void = { event in
            switch event {
            case let .value(value): values.append(value)
            case .completed: ends.append("completed")
            case .failed: ends.append("failed")
            case .interrupted: ends.append("interrupted")
            }
        }
        SignalProducer<Int, Failure>(values: 1, 2, 3).named("job").start(record)
        SignalProducer<Int, Failure>(error: Failure()).named("job").start(record)
        let (never, _) = Signal<Int, Failure>.pipe()
        let run = SignalProducer(never).named("job", describe: { "v\($0)" }).start(record)
        run.dispose()
        run.dispose()
        #expect(values == [1, 2, 3])
        #expect(ends == ["completed", "failed", "interrupted"])
    }
}
