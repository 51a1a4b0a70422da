/// A read-only property: a value that changes over time.
///
/// Three kinds:
/// - **constant**, `Property(value:)`: its producer sends the value then
///   completes; its signal completes at once;
/// - **existential**, `Property(capturing:)`: wraps another property and
///   retains it;
/// - **composed**, from `Property(_:)`, `Property(initial:then:)` or a
///   composition operator (`map`, `combineLatest` …): a view of its sources
///   that does not retain them. It keeps the latest value its sources sent
///   (read without a lock) and has the concurrency contract of
///   `MutableProperty`; its signal and producer complete when the sources
///   end. Once the property and its signal are neither referenced nor
///   observed, it stops observing its sources.
@propertyWrapper
public final class Property<Value>: PropertyProtocol {
    @usableFromInline
    let read: () -> Value

    /// Sends the current value, then every change; completes when the
    /// property ends (a composed property: when its sources end).
    ///
    /// Thread-safety: start from any thread.
    ///
    /// - Complexity: a start of a composed property's producer is O(1) plus
    ///   its operators, as ``MutableProperty/producer``'s.
    public let producer: SignalProducer<Value, Never>

    /// Sends every change; completes when the property ends (a composed
    /// property: when its sources end).
    ///
    /// Thread-safety: observe from any thread.
    ///
    /// - Complexity: O(1): a stored signal.
    public let signal: Signal<Value, Never>

    /// The current value.
    ///
    /// Thread-safety: read from any thread; a read never waits for the
    /// property's sources to deliver.
    ///
    /// - Complexity: O(1) and lock-free for a constant or composed property,
    ///   as ``MutableProperty/value``'s get; what the wrapped property's read
    ///   costs for `Property(capturing:)`.
    public var value: Value { read() }

    /// `value`, for the property-wrapper form.
    public var wrappedValue: Value { read() }

    /// The property itself (`$name` for `@Property var name`).
    public var projectedValue: Property<Value> { self }

    /// A constant property.
    @inlinable
    public init(value: Value) {
        read = { value }
        producer = SignalProducer(value: value)
        signal = .empty
    }

    /// A property that forwards to `property`, and retains it.
    @inlinable
    public init<P: PropertyProtocol>(capturing property: P) where P.Value == Value {
        read = { property.value }
        producer = property.producer
        signal = property.signal
    }

    /// A composed property that reflects `property`, without retaining it.
    @inlinable
    public convenience init<P: PropertyProtocol>(_ property: P) where P.Value == Value {
        self.init(unsafeProducer: property.producer)
    }

    /// A composed property whose value is `initial`, then each value `values`
    /// sends. `values` is started at once.
    @inlinable
    public convenience init(initial: Value, then values: SignalProducer<Value, Never>) {
        self.init(unsafeProducer: SignalProducer { observer, lifetime in
            observer.send(value: initial)
            lifetime += values.start { event in
                if case .interrupted = event { observer.sendCompleted() } else { observer.send(event) }
            }
        })
    }

    /// A composed property whose value is `initial`, then each value `values`
    /// sends. `values` is started (or observed) at once.
    @inlinable
    public convenience init<Values: SignalProducerConvertible>(initial: Value, then values: Values)
    where Values.Value == Value, Values.Error == Never {
        self.init(initial: initial, then: values.producer)
    }

    /// A property that reads and observes `channel`, whose owner ends it
    /// (an `Action`'s `isExecuting` and `isEnabled`). `signal` is the
    /// channel's signal, kept alive by the property.
    @inlinable
    init(channel: _PropertyChannel<Value>, signal: Signal<Value, Never>) {
        read = { channel.value }
        self.signal = signal
        producer = SignalProducer(_channel: channel, signal: signal)
    }

    /// A composed property over a producer that sends at least one value
    /// synchronously when started: the property's value is the latest one
    /// sent. The producer is started once, now.
    @inlinable
    init(unsafeProducer: SignalProducer<Value, Never>) {
        let slot = _ComposedSlot<Value>()
        let run = unsafeProducer.start { event in
            switch event {
            case let .value(value):
                if let channel = slot.channel {
                    channel.set(value)
                } else {
                    (slot.channel, slot.signal) = _PropertyChannel.make(value)
                }
            case .completed, .interrupted:
                slot.channel?.complete()
            case .failed:
                break
            }
        }
        guard let channel = slot.channel, let signal = slot.signal else {
            run.dispose()
            badInput("Property: the source sent no value when started (a composed property needs its first value at once)", file: #file, line: #line)
        }
        // The run's observer keeps the channel, not the signal: once the
        // property and its signal are gone and unobserved, the signal's core
        // is abandoned, and its lifetime ending stops the run.
        slot.signal = nil
        channel.output.lifetime += run
        read = { channel.value }
        self.signal = signal
        producer = SignalProducer(_channel: channel, signal: signal)
    }
}

/// Where a composed property's first value lands while its source starts.
@usableFromInline
final class _ComposedSlot<Value>: @unchecked Sendable {
    // Written during the source's synchronous start (the first value), then
    // only read, inside the source's serialized delivery: no dynamic
    // exclusivity checks (see `_DeliveryState`).
    @usableFromInline
    @exclusivity(unchecked)
    var channel: _PropertyChannel<Value>?
    @usableFromInline
    @exclusivity(unchecked)
    var signal: Signal<Value, Never>?

    @inlinable
    init() {}
}

extension Property: @unchecked Sendable {}

extension Property where Value: OptionalProtocol {
    /// A composed property whose value is `initial`, then each value `values`
    /// sends, wrapped.
    @inlinable
    public convenience init(initial: Value, then values: SignalProducer<Value.Wrapped, Never>) {
        self.init(initial: initial, then: values.map { Value(reconstructing: $0) })
    }

    /// A composed property whose value is `initial`, then each value `values`
    /// sends, wrapped.
    @inlinable
    public convenience init<Values: SignalProducerConvertible>(initial: Value, then values: Values)
    where Values.Value == Value.Wrapped, Values.Error == Never {
        self.init(initial: initial, then: values.producer)
    }
}
