import Flare
import Foundation
import Testing

@Suite("Bindings")
struct BindingTests {
    final class Target {
        var text = ""
        let (lifetime, token) = Lifetime.make()
    }

    @Test("<~ from a signal, a producer and a property into a mutable property")
    func intoProperty() {
        let target = MutableProperty(0)
        let (signal, input) = Signal<Int, Never>.pipe()
        target <~ signal
        input.send(value: 1)
        #expect(target.value == 1)
        target <~ SignalProducer([2, 3])
        #expect(target.value == 3)
        let source = MutableProperty(4)
        target <~ source
        #expect(target.value == 4)
        source.value = 5
        #expect(target.value == 5)
        let optional = MutableProperty<Int?>(nil)
        optional <~ source
        #expect(optional.value == 5)
    }

    @Test("BindingTarget with an action and with an object's key path; an observer; an optional target")
    func targets() {
        let object = Target()
        let keyPathTarget = BindingTarget(lifetime: object.lifetime, object: object, keyPath: \.text)
        let source = MutableProperty("a")
        keyPathTarget <~ source
        #expect(object.text == "a")
        let seen = Recorder<String>()
        let actionTarget = BindingTarget<String>(lifetime: object.lifetime) { seen.append($0) }
        actionTarget <~ source
        source.value = "b"
        #expect(object.text == "b")
        #expect(seen.items == ["a", "b"])

        let (output, input) = Signal<String, Never>.pipe()
        let received = Recorder<String>()
        output.observeValues { received.append($0) }
        input <~ source
        source.value = "c"
        #expect(received.items == ["b", "c"])

        var missing: MutableProperty<String>?
        #expect((missing <~ source) == nil)
        missing = MutableProperty("")
        missing <~ source
        #expect(missing?.value == "c")
    }

    @Test("a binding ends with its target's lifetime; the target is not retained and is released")
    func endsWithTarget() {
        let source = MutableProperty(0)
        weak var weakTarget: MutableProperty<Int>?
        let ended = Counter()
        do {
            let target = MutableProperty(0)
            weakTarget = target
            target <~ source.producer.on(disposed: { ended.increment() })
            source.value = 1
            #expect(target.value == 1)
            #expect(ended.count == 0)
        }
        #expect(weakTarget == nil)
        #expect(ended.count == 1)
        source.value = 2
    }

    @Test("a target that deinitializes during a delivery ends the binding without deadlock")
    func targetDeinitDuringDelivery() {
        let source = MutableProperty(0)
        var target: MutableProperty<Int>? = MutableProperty(0)
        weak let weakTarget = target
        source.signal.observeValues { value in
            if value == 1 { target = nil }
        }
        target! <~ source
        source.value = 1
        source.value = 2
        #expect(weakTarget == nil)
    }

    @Test("a binding target on a scheduler runs its action there")
    func onScheduler() {
        let scheduler = TestScheduler()
        let seen = Recorder<Int>()
        let (lifetime, token) = Lifetime.make()
        let target = BindingTarget<Int>(on: scheduler, lifetime: lifetime) { seen.append($0) }
        let source = MutableProperty(1)
        target <~ source
        #expect(seen.items == [])
        scheduler.run()
        #expect(seen.items == [1])
        withExtendedLifetime(token) {}
    }
}
