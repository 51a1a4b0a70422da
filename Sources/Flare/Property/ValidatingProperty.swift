import CFlare
import Synchronization

/// A mutable property that validates each proposed value before committing
/// it to an inner property (ReactiveSwift's `ValidatingProperty`).
///
/// A valid value is committed; an invalid one is not (the inner value stays,
/// and `result` says why); a coerced one commits the validator's
/// replacement. Changes made to the inner property directly are validated
/// too, and reported in `result`, although they are committed whatever the
/// decision.
///
/// Concurrency: reads are lock-free, as for `MutableProperty`. Every change
/// of a `MutableProperty` inner property is validated exactly once,
/// whichever thread makes it and whichever delivers it: a committed
/// proposal's write-back carries its result with it, and `result` takes it
/// when the inner property delivers that change, in the order of the inner
/// property's changes (at once when no other delivery of it is in
/// progress; otherwise right after the changes made before it, on the
/// thread delivering them). So once the deliveries have finished, `result`
/// is the validation of the inner property's last change, and it agrees
/// with `value`. An invalid proposal changes nothing: its result is
/// published at once. Over another kind of inner property, a write-back is
/// recognised by the thread that makes it, which is exact when that
/// property delivers each change on the thread that sets it.
public final class ValidatingProperty<Value, ValidationError: Swift.Error>: MutablePropertyProtocol {
    private let getter: () -> Value
    private let setter: (Value) -> Void

    /// The result of the last validation: of the last value proposed, or of
    /// the last change made to the inner property directly.
    public let result: Property<Result>

    /// The current value of the inner property; setting proposes a value.
    /// The value may have failed validation: see `result`.
    public var value: Value {
        get { getter() }
        set { setter(newValue) }
    }

    /// The inner property's producer.
    public let producer: SignalProducer<Value, Never>

    /// The inner property's signal.
    public let signal: Signal<Value, Never>

    /// The inner property's lifetime.
    public let lifetime: Lifetime

    /// A validating view of `inner` (which it retains): each value proposed
    /// is committed to `inner` only if `validator` accepts it (or as its
    /// coerced replacement).
    public init<Inner: ComposableMutablePropertyProtocol>(
        _ inner: Inner, _ validator: @escaping (Value) -> Decision
    ) where Inner.Value == Value {
        getter = { inner.value }
        producer = inner.producer
        signal = inner.signal
        lifetime = inner.lifetime
        let results = MutableProperty(Result(inner.value, validator(inner.value)))
        result = Property(capturing: results)
        if let mutable = inner as? MutableProperty<Value> {
            // Each write-back carries its result as the tag of its change;
            // the inner observer takes it instead of validating again
            // (tags of other validating views of `inner` are changes to
            // validate).
            let channel = mutable._channel
            let owner = WriteBackOwner()
            results <~ inner.signal.map { value in
                if let tag = channel.deliveringTag, let writeBack = tag as? WriteBack<Value, ValidationError>,
                   writeBack.owner === owner {
                    return writeBack.result
                }
                return Result(value, validator(value))
            }
            setter = { input in
                let decided = Result(input, validator(input))
                if let committed = decided.value {
                    channel.setTagged(committed, tag: WriteBack(owner: owner, result: decided))
                } else {
                    results.value = decided
                }
            }
        } else {
            // The thread writing back a validated value, whose own change
            // the inner observer must not validate again.
            let writer = WritebackMark()
            results <~ inner.signal
                .filter { _ in !writer.isCurrentThread }
                .map { Result($0, validator($0)) }
            setter = { input in
                let decided = Result(input, validator(input))
                results.value = decided
                if let committed = decided.value {
                    writer.mark()
                    inner.value = committed
                    writer.clear()
                }
            }
        }
    }

    /// A validating property over a new `MutableProperty(initial)`; `initial`
    /// need not pass validation.
    public convenience init(_ initial: Value, _ validator: @escaping (Value) -> Decision) {
        self.init(MutableProperty(initial), validator)
    }

    /// A validating view of `inner` whose validator also reads `other`'s
    /// value; a change of `other` revalidates the last proposed value.
    public convenience init<Other: PropertyProtocol>(
        _ inner: MutableProperty<Value>, with other: Other,
        _ validator: @escaping (Value, Other.Value) -> Decision
    ) {
        // A view of `other` that does not keep it alive.
        let other = Property(other)
        self.init(inner) { validator($0, other.value) }
        other.signal
            .take(during: lifetime)
            .observeValues { [weak self] _ in self?.revalidate() }
    }

    /// `init(_:with:_:)` over a new `MutableProperty(initial)`.
    public convenience init<Other: PropertyProtocol>(
        _ initial: Value, with other: Other,
        _ validator: @escaping (Value, Other.Value) -> Decision
    ) {
        self.init(MutableProperty(initial), with: other, validator)
    }

    /// A validating view of `inner` whose validator also reads the last
    /// value proposed to `other`; a new result of `other` revalidates the
    /// last value proposed here.
    public convenience init<U, E: Swift.Error>(
        _ inner: MutableProperty<Value>, with other: ValidatingProperty<U, E>,
        _ validator: @escaping (Value, U) -> Decision
    ) {
        let otherResults = other.result
        self.init(inner) { validator($0, otherResults.value.proposedValue) }
        otherResults.signal
            .take(during: lifetime)
            .observeValues { [weak self] _ in self?.revalidate() }
    }

    /// `init(_:with:_:)` over a new `MutableProperty(initial)`.
    public convenience init<U, E: Swift.Error>(
        _ initial: Value, with other: ValidatingProperty<U, E>,
        _ validator: @escaping (Value, U) -> Decision
    ) {
        self.init(MutableProperty(initial), with: other, validator)
    }

    /// Proposes the last proposed value again.
    private func revalidate() {
        value = result.value.proposedValue
    }

    /// A validator's decision on a proposed value.
    public enum Decision {
        /// The value is valid.
        case valid
        /// The value is invalid, and this valid replacement is committed
        /// instead (with an optional error to report).
        case coerced(Value, ValidationError?)
        /// The value is invalid.
        case invalid(ValidationError)
    }

    /// The result of a validation.
    public enum Result {
        /// The value passed validation.
        case valid(Value)
        /// The proposed value failed; the replacement was committed.
        case coerced(replacement: Value, proposed: Value, error: ValidationError?)
        /// The proposed value failed and was not committed.
        case invalid(Value, ValidationError)

        /// Whether the proposed value failed without a replacement.
        public var isInvalid: Bool {
            if case .invalid = self { return true }
            return false
        }

        /// The committed value: the valid value or the replacement; `nil`
        /// if invalid.
        public var value: Value? {
            switch self {
            case let .valid(value): return value
            case let .coerced(replacement, _, _): return replacement
            case .invalid: return nil
            }
        }

        /// The error, if the value failed validation.
        public var error: ValidationError? {
            switch self {
            case .valid: return nil
            case let .coerced(_, _, error): return error
            case let .invalid(_, error): return error
            }
        }

        var proposedValue: Value {
            switch self {
            case let .valid(value): return value
            case let .coerced(_, proposed, _): return proposed
            case let .invalid(proposed, _): return proposed
            }
        }

        init(_ value: Value, _ decision: Decision) {
            switch decision {
            case .valid: self = .valid(value)
            case let .coerced(replacement, error): self = .coerced(replacement: replacement, proposed: value, error: error)
            case let .invalid(error): self = .invalid(value, error)
            }
        }
    }
}

extension ValidatingProperty: @unchecked Sendable {}

/// Identifies one validating view's write-backs.
private final class WriteBackOwner: Sendable {}

/// The tag of a write-back: whose it is, and the result it commits.
private final class WriteBack<Value, ValidationError: Swift.Error>: @unchecked Sendable {
    let owner: WriteBackOwner
    let result: ValidatingProperty<Value, ValidationError>.Result

    init(owner: WriteBackOwner, result: ValidatingProperty<Value, ValidationError>.Result) {
        self.owner = owner
        self.result = result
    }
}

/// The thread that is writing a validated value back to an inner property
/// other than a `MutableProperty`.
private final class WritebackMark: Sendable {
    private let thread = Atomic<UInt>(0)

    func mark() { thread.store(UInt(flare_thread_tag()), ordering: .relaxed) }
    func clear() { thread.store(0, ordering: .relaxed) }
    var isCurrentThread: Bool { thread.load(ordering: .relaxed) == UInt(flare_thread_tag()) }
}
