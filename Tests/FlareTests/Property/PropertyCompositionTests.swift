import Flare
import Foundation
import Testing

@Suite("Property and composition")
struct PropertyCompositionTests {
    @Test("constant, capturing and composed properties")
    func kinds() {
        let constant = Property(value: 7)
        let events = Recorder<String>()
        constant.producer.start { events.append(describe($0)) }
        constant.signal.observe { events.append(describe($0)) }
        #expect(constant.value == 7)
        #expect(events.items == ["v7", "completed", "interrupted"])

        let source = MutableProperty(1)
        let capturing = Property(capturing: source)
        let composed = Property(source)
        source.value = 2
        #expect(capturing.value == 2)
        #expect(composed.value == 2)
    }

    @Test("flatMap(.latest) follows the property made of the latest value; flatten(.merge) takes any inner's change")
    func flattening() {
        let first = MutableProperty(1)
        let second = MutableProperty(10)
        let useSecond = MutableProperty(false)
        let followed = useSecond.flatMap(.latest) { $0 ? second : first }
        let seen = Recorder<Int>()
        let observation = followed.producer.startWithValues { seen.append($0) }
        #expect(followed.value == 1)
        first.value = 2
        second.value = 11  // not followed yet
        useSecond.value = true
        first.value = 3  // replaced: ignored from now on
        second.value = 12
        #expect(seen.items == [1, 2, 11, 12])
        #expect(followed.value == 12)

        let nested = MutableProperty(Property(first))
        let merged = nested.flatten(.merge)
        #expect(merged.value == 3)
        nested.value = Property(second)
        #expect(merged.value == 12)
        first.value = 4  // merge keeps every inner
        #expect(merged.value == 4)
        second.value = 13
        #expect(merged.value == 13)
        // The transform holds `first` and `second`, whose producers the
        // flatten runs until they end: the observation that keeps `followed`
        // running ends here, so that everything is released (LeakSanitizer).
        observation.dispose()
    }

    @Test("flatten(.concat/.merge/.latest) completes once the outer and inner properties are gone, releasing each")
    func flattenedPropertyEndsWithItsProperties() {
        for (name, strategy) in [("concat", FlattenStrategy.concat), ("merge", .merge), ("latest", .latest)] {
            var first: MutableProperty<Int>? = MutableProperty(0)
            var second: MutableProperty<Int>? = MutableProperty(10)
            weak let weakFirst = first
            weak let weakSecond = second
            var outer: MutableProperty<MutableProperty<Int>>? = MutableProperty(first!)
            weak let weakOuter = outer
            var flattened: Property<Int>? = outer!.flatten(strategy)
            let events = Recorder<String>()
            flattened!.producer.start { events.append(describe($0)) }
            outer!.value = second!
            second!.value = 11
            first = nil
            if name == "latest" { #expect(weakFirst == nil, "latest: a replaced inner is released") }
            outer = nil
            // The outer run has completed: it no longer holds the outer
            // property's channel, whose value is `second`.
            #expect(weakOuter == nil)
            #expect(events.items.last != "completed", "\(name): an inner still runs")
            second = nil
            #expect(weakFirst == nil, "\(name)")
            #expect(weakSecond == nil, "\(name)")
            let expected = name == "concat" ? ["v0", "v11", "completed"] : ["v0", "v10", "v11", "completed"]
            #expect(events.items == expected, "\(name)")
            flattened = nil
        }
    }

    @Test("init(initial:then:) from a producer and from a signal")
    func initialThen() {
        let (signal, input) = Signal<Int, Never>.pipe()
        let fromSignal = Property(initial: 0, then: signal)
        let seen = Recorder<Int>()
        fromSignal.producer.startWithValues { seen.append($0) }
        input.send(value: 1)
        input.send(value: 2)
        #expect(fromSignal.value == 2)
        #expect(seen.items == [0, 1, 2])
        let fromProducer = Property(initial: 0, then: SignalProducer([4, 5]))
        #expect(fromProducer.value == 5)
        let optional = Property<Int?>(initial: nil, then: SignalProducer([3]))
        #expect(optional.value == 3)
    }

    @Test("a composed property does not retain its source; its signal and producer complete when the source ends")
    func composedDoesNotRetainSource() {
        var source: MutableProperty<Int>? = MutableProperty(1)
        weak let weakSource = source
        let mapped = source!.map { $0 * 10 }
        let signalEvents = Recorder<String>()
        let runEvents = Recorder<String>()
        mapped.signal.observe { signalEvents.append(describe($0)) }
        mapped.producer.start { runEvents.append(describe($0)) }
        source!.value = 2
        source = nil
        #expect(weakSource == nil)
        #expect(mapped.value == 20)
        #expect(signalEvents.items == ["v20", "completed"])
        #expect(runEvents.items == ["v10", "v20", "completed"])
    }

    @Test("a composed property nobody references or observes stops observing its source")
    func composedReleased() {
        let source = MutableProperty(1)
        weak var weakMapped: Property<Int>?
        let calls = Counter()
        do {
            let mapped = source.map { value -> Int in
                calls.increment()
                return value
            }
            weakMapped = mapped
            #expect(calls.count == 1)
        }
        #expect(weakMapped == nil)
        source.value = 2
        #expect(calls.count == 1)
    }

    @Test("map (closure, value:, key path), filter, combinePrevious, skipRepeats, uniqueValues")
    func unary() {
        let source = MutableProperty(1)
        let doubled = source.map { $0 * 2 }
        let constant = source.map(value: "x")
        let description = source.map(\.description)
        let even = source.filter(initial: 0) { $0 % 2 == 0 }
        let previous = source.combinePrevious(0)
        let repeats = source.skipRepeats()
        let unique = source.uniqueValues()
        let repeatsSeen = Recorder<Int>()
        let uniqueSeen = Recorder<Int>()
        repeats.signal.observeValues { repeatsSeen.append($0) }
        unique.signal.observeValues { uniqueSeen.append($0) }
        for value in [2, 2, 3, 1, 4] { source.value = value }
        #expect(doubled.value == 8)
        #expect(constant.value == "x")
        #expect(description.value == "4")
        #expect(even.value == 4)
        #expect(previous.value == (1, 4))
        #expect(repeatsSeen.items == [2, 3, 1, 4])
        #expect(uniqueSeen.items == [2, 3, 4])
    }

    @Test("combineLatest and zip: instance, static, arities and sequences with emptySentinel")
    func combining() {
        let a = MutableProperty(1)
        let b = MutableProperty("b")
        let c = MutableProperty(true)
        let pair = a.combineLatest(with: b)
        let triple = Property.combineLatest(a, b, c)
        let zipped = a.zip(with: b)
        let zipSeen = Recorder<String>()
        zipped.signal.observeValues { zipSeen.append("\($0.0)\($0.1)") }
        a.value = 2
        b.value = "c"
        #expect(pair.value == (2, "c"))
        #expect(triple.value == (2, "c", true))
        #expect(zipped.value == (2, "c"))
        #expect(zipSeen.items == ["2c"])

        let many = (0..<10).map { MutableProperty($0) }
        let ten = Property.combineLatest(many[0], many[1], many[2], many[3], many[4], many[5], many[6], many[7], many[8], many[9])
        many[9].value = 90
        #expect(ten.value.9 == 90)
        let all = Property<Int>.combineLatest(many)
        #expect(all?.value == [0, 1, 2, 3, 4, 5, 6, 7, 8, 90])
        #expect(Property<Int>.combineLatest([MutableProperty<Int>]()) == nil)
        #expect(Property<Int>.combineLatest([MutableProperty<Int>](), emptySentinel: [42]).value == [42])
        #expect(Property<Int>.zip([MutableProperty<Int>](), emptySentinel: [7]).value == [7])
        #expect(Property<Int>.zip(many)?.value == [0, 1, 2, 3, 4, 5, 6, 7, 8, 90])
    }

    @Test("negate, and, or, all, any")
    func booleans() {
        let x = MutableProperty(true)
        let y = MutableProperty(false)
        let not = x.negate()
        let both = x.and(y)
        let either = x.or(y)
        let all = Property<Bool>.all([x, y])
        let any = Property<Bool>.any([x, y])
        #expect(not.value == false && both.value == false && either.value == true)
        #expect(all.value == false && any.value == true)
        y.value = true
        #expect(both.value == true && all.value == true)
        x.value = false
        y.value = false
        #expect(not.value == true && either.value == false && any.value == false)
    }

    @Test("throttle(while:on:) taking a property: held back while true, the latest sent when it turns false")
    func throttleWhileProperty() {
        let gate = MutableProperty(false)
        let (signal, input) = Signal<Int, Never>.pipe()
        let seen = Recorder<Int>()
        signal.throttle(while: gate, on: ImmediateScheduler()).observeValues { seen.append($0) }
        input.send(value: 1)
        gate.value = true
        input.send(value: 2)
        input.send(value: 3)
        gate.value = false
        input.send(value: 4)
        #expect(seen.items == [1, 3, 4])
        let producerSeen = Recorder<Int>()
        SignalProducer([5, 6]).throttle(while: Property(value: false), on: ImmediateScheduler())
            .startWithValues { producerSeen.append($0) }
        #expect(producerSeen.items == [5, 6])
    }

    @Test("a composed property under concurrent sets of its source ends at the source's final value, in order")
    func composedUnderConcurrency() {
        let source = MutableProperty(0)
        let mapped = source.map { $0 + 1_000_000 }
        let seen = Recorder<Int>()
        mapped.signal.observeValues { seen.append($0) }
        onThreads(2) { thread in
            for i in 1...3_000 { source.value = i * 2 + thread }
        }
        #expect(mapped.value == source.value + 1_000_000)
        #expect(seen.items.count == 6_000)
        #expect(seen.items.last == mapped.value)
    }
}

@Suite("Property documentation examples")
struct PropertyDocumentationTests {
    final class ViewModel {
        @MutableProperty var query = ""
        let results = MutableProperty<[String]>([])
        lazy var isSearchable = $query.map { $0.count >= 3 }
    }

    @Test("the tour's view model (docs/Tour.md)")
    func readmeViewModel() {
        let model = ViewModel()
        model.results <~ model.$query.producer
            .filter { $0.count >= 3 }
            .map { query in ["\(query) 1", "\(query) 2"] }
        model.query = "flare"                  // results: ["flare 1", "flare 2"]
        #expect(model.results.value == ["flare 1", "flare 2"])
        #expect(model.isSearchable.value)
    }

    @Test("docs/Operators.md's examples")
    func operatorsExamples() {
        let first = MutableProperty("Ada")
        let last = MutableProperty("Lovelace")
        let full = first.combineLatest(with: last).map { "\($0.0) \($0.1)" }
        first.value = "Augusta Ada"        // full.value == "Augusta Ada Lovelace"
        #expect(full.value == "Augusta Ada Lovelace")
        let title = MutableProperty("")
        let (names, input) = Signal<String, Never>.pipe()
        title <~ names.map { "Hello, \($0)" }
        input.send(value: "Flare")         // title.value == "Hello, Flare"
        #expect(title.value == "Hello, Flare")
    }
}
