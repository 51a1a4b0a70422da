import Flare
import Testing

@Suite("Event operators")
struct EventOperatorTests {
    @Test("materialize sends events as values, then completes (or is interrupted)")
    func materialize() {
        #expect(run([.value(1), .completed]) { $0.materialize() } == ["vVALUE 1", "vCOMPLETED", "completed"])
        #expect(run([.value(1), .failed(e1)]) { $0.materialize() } == ["vVALUE 1", "vFAILED E1", "completed"])
        #expect(run([.value(1), .interrupted]) { $0.materialize() } == ["vVALUE 1", "vINTERRUPTED", "interrupted"])
    }

    @Test("dematerialize sends the events carried; a carried terminal ends it and its upstream observation")
    func dematerialize() {
        let (signal, input) = Signal<Signal<Int, TestError>.Event, Never>.pipe()
        let probe = UpstreamProbe()
        let log = Recorder<String>()
        probe.wrap(signal).dematerialize().observe { log.append(describe($0)) }
        input.send(value: .value(1))
        #expect(probe.isObserved)
        input.send(value: .failed(e1))
        #expect(log.items == ["v1", "failed(E1)"])
        #expect(!probe.isObserved)
        input.send(value: .value(2))
        #expect(probe.reached.count == 2)
        #expect(log.items == ["v1", "failed(E1)"])

        typealias Carried = Signal<Int, TestError>.Event
        #expect(runNever([.value(Carried.value(1)), .value(.completed)]) { $0.dematerialize() } == ["v1", "completed"])
        #expect(runNever([.value(Carried.value(1)), .value(.interrupted)]) { $0.dematerialize() } == ["v1", "interrupted"])
        // Upstream's own terminal events.
        #expect(runNever([.value(Carried.value(1)), .completed]) { $0.dematerialize() } == ["v1", "completed"])
        #expect(runNever([.value(Carried.value(1)), .interrupted]) { $0.dematerialize() } == ["v1", "interrupted"])
    }

    @Test("materialize then dematerialize is the identity")
    func roundTrip() {
        #expect(run([.value(1), .value(2), .failed(e1)]) { $0.materialize().dematerialize() } == ["v1", "v2", "failed(E1)"])
        #expect(run([.value(1), .completed]) { $0.materialize().dematerialize() } == ["v1", "completed"])
        #expect(run([.value(1), .interrupted]) { $0.materialize().dematerialize() } == ["v1", "interrupted"])
        #expect(run([.value(1), .failed(e1)]) { $0.materializeResults().dematerializeResults() } == ["v1", "failed(E1)"])
    }

    @Test("materializeResults sends values as successes, a failure as a value then completes")
    func materializeResults() {
        #expect(run([.value(1), .failed(e1)]) { $0.materializeResults() } == ["vsuccess(1)", "vfailure(E1)", "completed"])
        #expect(run([.value(1), .completed]) { $0.materializeResults() } == ["vsuccess(1)", "completed"])
        #expect(run([.value(1), .interrupted]) { $0.materializeResults() } == ["vsuccess(1)", "interrupted"])
    }

    @Test("dematerializeResults: a carried failure fails it and ends its upstream observation")
    func dematerializeResults() {
        let (signal, input) = Signal<Result<Int, TestError>, Never>.pipe()
        let probe = UpstreamProbe()
        let log = Recorder<String>()
        probe.wrap(signal).dematerializeResults().observe { log.append(describe($0)) }
        input.send(value: .success(1))
        #expect(probe.isObserved)
        input.send(value: .failure(e1))
        #expect(log.items == ["v1", "failed(E1)"])
        #expect(!probe.isObserved)
        input.send(value: .success(2))
        #expect(probe.reached.count == 2)
        #expect(log.items == ["v1", "failed(E1)"])

        typealias R = Result<Int, TestError>
        #expect(runNever([.value(R.success(1)), .completed]) { $0.dematerializeResults() } == ["v1", "completed"])
        #expect(runNever([.value(R.success(1)), .interrupted]) { $0.dematerializeResults() } == ["v1", "interrupted"])
    }
}
