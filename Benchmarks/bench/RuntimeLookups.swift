import Flare
import MallocCounter
import MetadataCounter

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the Swift runtime was asked per event in steady state: generic
/// metadata (`swift_getGenericMetadata`), witness tables
/// (`swift_getWitnessTable`) and heap allocations, counted by the
/// interposed entry points of MetadataCounter and MallocCounter.
struct RuntimeCostPerEvent {
    var metadata: Double
    var witnessTables: Double
    var allocations: Double
    /// Wall-clock time per event, over as many events again, not counted.
    var nanoseconds: Double
}

/// A pipeline as a user writes it, driven one event at a time: `prepare`
/// builds it and returns the function that pushes event number `i` through
/// it (and whatever must stay alive meanwhile).
struct LookupScenario {
    let name: String
    /// Whether `bench --selftest` fails when the scenario looks anything up
    /// per event; the others are reported only, until their paths run
    /// specialized.
    let guarded: Bool
    let prepare: () -> (push: (Int) -> Void, keep: [AnyObject])

    /// Pushes `warmUp` events, then counts over `events` more.
    func measure(warmUp: Int = 1_000, events: Int = 10_000) -> RuntimeCostPerEvent {
        let (push, keep) = prepare()
        for i in 0..<warmUp { push(i) }
        mc_set_counting(1)
        md_set_counting(1)
        let m0 = md_generic_metadata_lookups(), w0 = md_witness_table_lookups(), a0 = mc_allocations()
        for i in warmUp..<(warmUp + events) { push(i) }
        let m1 = md_generic_metadata_lookups(), w1 = md_witness_table_lookups(), a1 = mc_allocations()
        md_set_counting(0)
        mc_set_counting(0)
        let t0 = monotonicNanoseconds()
        for i in (warmUp + events)..<(warmUp + 2 * events) { push(i) }
        let t1 = monotonicNanoseconds()
        withExtendedLifetime(keep) {}
        let n = Double(events)
        return RuntimeCostPerEvent(
            metadata: Double(m1 - m0) / n, witnessTables: Double(w1 - w0) / n, allocations: Double(a1 - a0) / n,
            nanoseconds: Double(t1 - t0) / n)
    }
}

/// The scenarios, from the hot paths (guarded) to application pipelines.
func lookupScenarios() -> [LookupScenario] {
    [
        LookupScenario(name: "send to 10 observers (observeValues)", guarded: true) {
            let (signal, input) = Signal<Int, Never>.pipe()
            let total = Box()
            for _ in 0..<10 { signal.observeValues { total.value &+= $0 } }
            return ({ input.send(value: $0) }, [total])
        },
        LookupScenario(name: "map→filter→map, observeValues", guarded: true) {
            let (signal, input) = Signal<Int, Never>.pipe()
            let total = Box()
            signal.map { $0 &+ 1 }.filter { $0 & 1 == 0 }.map { $0 &* 3 }.observeValues { total.value &+= $0 }
            return ({ input.send(value: $0) }, [total])
        },
        LookupScenario(name: "SignalProducer(value:) start", guarded: true) {
            let total = Box()
            return ({ SignalProducer<Int, Never>(value: $0).startWithValues { total.value &+= $0 } }, [total])
        },
        LookupScenario(name: "flatMap(.latest) into SignalProducer(value:)", guarded: true) {
            let (signal, input) = Signal<Int, Never>.pipe()
            let total = Box()
            signal.flatMap(.latest) { SignalProducer<Int, Never>(value: $0) }.observeValues { total.value &+= $0 }
            return ({ input.send(value: $0) }, [total])
        },
        LookupScenario(name: "MutableProperty set, a signal observer and a mapped property", guarded: true) {
            let property = MutableProperty(0)
            let total = Box()
            property.signal.observeValues { total.value &+= $0 }
            let mapped = property.map { $0 &* 2 }
            mapped.producer.startWithValues { total.value &+= $0 }
            return ({ property.value = $0 }, [total, property, mapped])
        },
        LookupScenario(name: "debounce on a TestScheduler, advanced per event", guarded: true) {
            let scheduler = TestScheduler()
            let (signal, input) = Signal<Int, Never>.pipe()
            let total = Box()
            signal.debounce(0.1, on: scheduler).skipRepeats().observeValues { total.value &+= $0 }
            return ({ input.send(value: $0); scheduler.advance(by: .milliseconds(200)) }, [total, scheduler])
        },
        LookupScenario(name: "throttle on a TestScheduler, advanced per event", guarded: true) {
            let scheduler = TestScheduler()
            let (signal, input) = Signal<Int, Never>.pipe()
            let total = Box()
            signal.throttle(0.1, on: scheduler).observeValues { total.value &+= $0 }
            return ({ input.send(value: $0); scheduler.advance(by: .milliseconds(200)) }, [total, scheduler])
        },
        LookupScenario(name: "delay on a TestScheduler, advanced per event", guarded: true) {
            let scheduler = TestScheduler()
            let (signal, input) = Signal<Int, Never>.pipe()
            let total = Box()
            signal.delay(0.1, on: scheduler).observeValues { total.value &+= $0 }
            return ({ input.send(value: $0); scheduler.advance(by: .milliseconds(200)) }, [total, scheduler])
        },
        LookupScenario(name: "observe(on:) a TestScheduler, advanced per event", guarded: true) {
            let scheduler = TestScheduler()
            let (signal, input) = Signal<Int, Never>.pipe()
            let total = Box()
            signal.observe(on: scheduler).observeValues { total.value &+= $0 }
            return ({ input.send(value: $0); scheduler.advance() }, [total, scheduler])
        },
        LookupScenario(name: "MutableProperty set, no observer", guarded: true) {
            let property = MutableProperty(0)
            return ({ property.value = $0 }, [property])
        },
        LookupScenario(name: "MutableProperty set, one signal observer", guarded: true) {
            let property = MutableProperty(0)
            let total = Box()
            property.signal.observeValues { total.value &+= $0 }
            return ({ property.value = $0 }, [total, property])
        },
        LookupScenario(name: "MutableProperty set, a mapped property observed", guarded: true) {
            let property = MutableProperty(0)
            let total = Box()
            let mapped = property.map { $0 &* 2 }
            mapped.producer.startWithValues { total.value &+= $0 }
            return ({ property.value = $0 }, [total, property, mapped])
        },
        LookupScenario(name: "Property.combineLatest of three MutableProperty, one set", guarded: true) {
            let a = MutableProperty(0), b = MutableProperty(0), c = MutableProperty(0)
            let total = Box()
            let combined = Property.combineLatest(a, b, c)
            combined.producer.startWithValues { total.value &+= $0.0 &+ $0.1 &+ $0.2 }
            return ({ a.value = $0 }, [total, a, b, c, combined])
        },
        LookupScenario(name: "<~ binding a pipe into a MutableProperty", guarded: true) {
            let (signal, input) = Signal<Int, Never>.pipe()
            let target = MutableProperty(0)
            let total = Box()
            target.signal.observeValues { total.value &+= $0 }
            target <~ signal
            return ({ input.send(value: $0) }, [total, target])
        },
        LookupScenario(name: "Property(initial:then:) of a pipe, observed", guarded: true) {
            let (signal, input) = Signal<Int, Never>.pipe()
            let total = Box()
            let property = Property(initial: 0, then: signal)
            property.signal.observeValues { total.value &+= $0 }
            return ({ input.send(value: $0) }, [total, property])
        },
        LookupScenario(name: "skipRepeats", guarded: true) {
            let (signal, input) = Signal<Int, Never>.pipe()
            let total = Box()
            signal.skipRepeats().observeValues { total.value &+= $0 }
            return ({ input.send(value: $0) }, [total])
        },
        LookupScenario(name: "combinePrevious", guarded: true) {
            let (signal, input) = Signal<Int, Never>.pipe()
            let total = Box()
            signal.combinePrevious(0).observeValues { total.value &+= $0.0 &+ $0.1 }
            return ({ input.send(value: $0) }, [total])
        },
        LookupScenario(name: "scan", guarded: true) {
            let (signal, input) = Signal<Int, Never>.pipe()
            let total = Box()
            signal.scan(0) { $0 &+ $1 }.observeValues { total.value &+= $0 }
            return ({ input.send(value: $0) }, [total])
        },
        LookupScenario(name: "collect(count: 4)", guarded: true) {
            let (signal, input) = Signal<Int, Never>.pipe()
            let total = Box()
            signal.collect(count: 4).observeValues { total.value &+= $0.count }
            return ({ input.send(value: $0) }, [total])
        },
        LookupScenario(name: "merge of two pipes", guarded: true) {
            let (a, inputA) = Signal<Int, Never>.pipe()
            let (b, inputB) = Signal<Int, Never>.pipe()
            let total = Box()
            Signal.merge(a, b).observeValues { total.value &+= $0 }
            return ({ ($0 & 1 == 0 ? inputA : inputB).send(value: $0) }, [total])
        },
        LookupScenario(name: "combineLatest of two pipes", guarded: true) {
            let (a, inputA) = Signal<Int, Never>.pipe()
            let (b, inputB) = Signal<Int, Never>.pipe()
            let total = Box()
            Signal.combineLatest(a, b).observeValues { total.value &+= $0.0 &+ $0.1 }
            inputB.send(value: 0)
            return ({ inputA.send(value: $0) }, [total])
        },
        LookupScenario(name: "flatMap(.latest) into a request producer with retry, timeout, on", guarded: true) {
            let scheduler = TestScheduler()
            let (signal, input) = Signal<Int, RequestError>.pipe()
            let total = Box()
            signal.flatMap(.latest) { query in
                SignalProducer<Int, RequestError> { observer, lifetime in
                    lifetime += scheduler.schedule {
                        observer.send(value: query)
                        observer.sendCompleted()
                    }
                }
                .retry(upTo: 2)
                .timeout(after: 1, raising: .timedOut, on: scheduler)
                .on(started: { total.value &+= 1 }, terminated: { total.value &+= 1 })
            }
            .observeValues { total.value &+= $0 }
            return ({ input.send(value: $0); scheduler.advance(by: .seconds(2)) }, [total, scheduler])
        },
        LookupScenario(name: "flatMap(.concurrent(limit: 4)) into producers on a TestScheduler", guarded: true) {
            let scheduler = TestScheduler()
            let (signal, input) = Signal<Int, Never>.pipe()
            let total = Box()
            signal.flatMap(.concurrent(limit: 4)) { value in
                SignalProducer<Int, Never>(value: value).start(on: scheduler)
            }
            .observeValues { total.value &+= $0 }
            return ({ input.send(value: $0); scheduler.advance() }, [total, scheduler])
        },
        LookupScenario(name: "Action.apply(_:).start()", guarded: true) {
            let total = Box()
            let action = Action<Int, Int, Never> { SignalProducer(value: $0) }
            action.values.observeValues { total.value &+= $0 }
            return ({ action.apply($0).start() }, [total, action])
        },
        LookupScenario(name: "MutableProperty.modify, one signal observer", guarded: true) {
            let property = MutableProperty(0)
            let total = Box()
            property.signal.observeValues { total.value &+= $0 }
            return ({ value in property.modify { $0 = value } }, [total, property])
        },
        LookupScenario(name: "SignalProducer(value:).then(_:) start", guarded: true) {
            let total = Box()
            let next = SignalProducer<Int, Never>(value: 1)
            return ({ SignalProducer<Int, Never>(value: $0).then(next).startWithValues { total.value &+= $0 } }, [total])
        },
        LookupScenario(name: "SignalProducer(value:).take(until:) start", guarded: true) {
            let total = Box()
            let trigger = SignalProducer<(), Never>.never
            return ({ SignalProducer<Int, Never>(value: $0).take(until: trigger).startWithValues { total.value &+= $0 } }, [total])
        },
        LookupScenario(name: "a pipe's producer withLatest(from:) a property's producer", guarded: true) {
            let (signal, input) = Signal<Int, Never>.pipe()
            let property = MutableProperty(1)
            let total = Box()
            SignalProducer(signal).withLatest(from: property.producer).startWithValues { total.value &+= $0.0 &+ $0.1 }
            return ({ input.send(value: $0) }, [total, property])
        },
        LookupScenario(name: "group(by:) into four groups", guarded: true) {
            let (signal, input) = Signal<Int, Never>.pipe()
            let total = Box()
            signal.group(by: { $0 & 3 }).observeValues { _, group in group.observeValues { total.value &+= $0 } }
            return ({ input.send(value: $0) }, [total])
        },
        LookupScenario(name: "Signal.unserializedPipe send", guarded: true) {
            let (signal, input) = Signal<Int, Never>.unserializedPipe()
            let total = Box()
            signal.observeValues { total.value &+= $0 }
            return ({ input.send(value: $0) }, [total])
        },
    ]
}

/// The failure of the scenarios' request producers.
enum RequestError: Error {
    case timedOut
}

/// The monotonic clock, in nanoseconds.
func monotonicNanoseconds() -> UInt64 {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return UInt64(t.tv_sec) &* 1_000_000_000 &+ UInt64(t.tv_nsec)
}

/// A counter the scenarios' observers add to, so that no work is optimized
/// away.
final class Box {
    var value = 0
}

/// `bench --selftest`'s guard: no guarded scenario asks the runtime for
/// metadata or a witness table per event in steady state; the others are
/// printed. With `FLARE_SELFTEST_UNSPECIALIZED=1`, a deliberately
/// unspecialized send joins the guarded ones (it must fail: the check of
/// the guard itself).
func checkNoRuntimeLookupsPerEvent() {
    guard md_is_active() != 0 else {
        progress("selftest: metadata counter inactive on this platform: look-up check skipped")
        return
    }
    var scenarios = lookupScenarios()
    if getenv("FLARE_SELFTEST_UNSPECIALIZED") != nil {
        scenarios.append(LookupScenario(name: "send through an unspecialized generic function", guarded: true) {
            let (signal, input) = Signal<Int, Never>.pipe()
            let total = Box()
            signal.observeValues { total.value &+= $0 }
            return ({ sendUnspecialized(input, $0) }, [total])
        })
    }
    for scenario in scenarios {
        let cost = scenario.measure()
        let line = "\(scenario.name): \(format(cost.metadata)) metadata and \(format(cost.witnessTables)) witness-table look-ups, \(format(cost.allocations)) allocations, \(format(cost.nanoseconds)) ns per event"
        if scenario.guarded {
            check(cost.metadata == 0 && cost.witnessTables == 0,
                  "Flare looked up type metadata per event: \(line) (a per-event path runs unspecialized)")
            progress("selftest: \(line)")
        } else {
            progress("selftest: (reported, not guarded) \(line)")
        }
    }
    progress("selftest: no guarded scenario looks up metadata per event")
}

/// Sends through generic code the optimizer may not specialize: what a
/// per-event path in Flare's own module would do if it were not
/// `@inlinable`.
@_optimize(none)
@inline(never)
func sendUnspecialized<Value>(_ input: Signal<Value, Never>.Observer, _ value: Value) {
    input.send(value: value)
}
