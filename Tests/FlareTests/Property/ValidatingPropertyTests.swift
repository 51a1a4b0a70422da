import Flare
import Foundation
import Testing

@Suite("ValidatingProperty")
struct ValidatingPropertyTests {
    struct Invalid: Swift.Error, Equatable {}

    func describe(_ result: ValidatingProperty<Int, Invalid>.Result) -> String {
        switch result {
        case let .valid(value): return "valid(\(value))"
        case let .coerced(replacement, proposed, error): return "coerced(\(replacement), \(proposed), \(error != nil))"
        case let .invalid(value, _): return "invalid(\(value))"
        }
    }

    @Test("valid values commit, invalid ones do not, coerced ones commit the replacement; direct changes of the inner property are validated")
    func decisions() {
        let inner = MutableProperty(0)
        let property = ValidatingProperty<Int, Invalid>(inner) { value in
            if value < 0 { return .invalid(Invalid()) }
            if value > 10 { return .coerced(10, Invalid()) }
            return .valid
        }
        let results = Recorder<String>()
        property.result.producer.startWithValues { results.append(self.describe($0)) }
        property.value = 5
        #expect(inner.value == 5)
        property.value = -1
        #expect(inner.value == 5)
        #expect(property.result.value.isInvalid)
        #expect(property.result.value.error == Invalid())
        property.value = 20
        #expect(inner.value == 10)
        #expect(property.result.value.value == 10)
        inner.value = -3
        #expect(property.value == -3)
        #expect(results.items == ["valid(0)", "valid(5)", "invalid(-1)", "coerced(10, 20, true)", "invalid(-3)"])
    }

    @Test("a validator that reads another property revalidates when it changes")
    func withOther() {
        let limit = MutableProperty(10)
        let property = ValidatingProperty<Int, Invalid>(0, with: limit) { value, limit in
            value <= limit ? .valid : .invalid(Invalid())
        }
        property.value = 15
        #expect(property.result.value.isInvalid)
        #expect(property.value == 0)
        limit.value = 20
        #expect(property.result.value.value == 15)
        #expect(property.value == 15)

        let other = ValidatingProperty<Int, Invalid>(1) { _ in .valid }
        let dependent = ValidatingProperty<Int, Invalid>(0, with: other) { value, proposed in
            value == proposed ? .valid : .invalid(Invalid())
        }
        dependent.value = 2
        #expect(dependent.result.value.isInvalid)
        other.value = 2
        #expect(dependent.value == 2)
    }
    /// Holds `inner`'s delivery of `value` on another thread (an observer
    /// that waits there, standing in for slow UI work) while `during` runs,
    /// then lets it finish.
    func whileDelivering(_ inner: MutableProperty<Int>, _ value: Int, set: @escaping @Sendable () -> Void, during: () -> Void) {
        let entered = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        let observation = inner.signal.observeValues { delivered in
            if delivered == value {
                entered.signal()
                proceed.wait()
            }
        }
        DispatchQueue.global().async {
            set()
            finished.signal()
        }
        entered.wait()
        during()
        proceed.signal()
        finished.wait()
        observation?.dispose()
    }

    @Test("a change made on another thread while a write-back is being delivered is validated: value and result agree, and an action on it is disabled")
    func changeDuringWriteBackDelivery() {
        for _ in 0..<10 {
            let inner = MutableProperty(0)
            let property = ValidatingProperty<Int, Invalid>(inner) { $0 < 0 ? .invalid(Invalid()) : .valid }
            let action = Action<Void, Int, Never>(validated: property) { value, _ in SignalProducer(value: value) }
            // The write-back of 5 is delivered on the proposing thread;
            // the direct change of -1 is queued behind it and delivered by
            // that same thread.
            whileDelivering(inner, 5, set: { property.value = 5 }) {
                inner.value = -1
            }
            #expect(property.value == -1)
            #expect(describe(property.result.value) == "invalid(-1)")
            #expect(action.isEnabled.value == false)
        }
    }

    @Test("a coerced value written back while another thread delivers is not validated again: the result stays coerced")
    func coercedWriteBackDeliveredElsewhere() {
        let inner = MutableProperty(0)
        let property = ValidatingProperty<Int, Invalid>(inner) { $0 > 10 ? .coerced(10, Invalid()) : .valid }
        let results = Recorder<String>()
        property.result.signal.observeValues { results.append(self.describe($0)) }
        // The write-back of 10 is queued behind the delivery of 1 and
        // delivered by the other thread.
        whileDelivering(inner, 1, set: { inner.value = 1 }) {
            property.value = 20
        }
        #expect(property.value == 10)
        #expect(describe(property.result.value) == "coerced(10, 20, true)")
        #expect(results.items == ["valid(1)", "coerced(10, 20, true)"])
    }
}
