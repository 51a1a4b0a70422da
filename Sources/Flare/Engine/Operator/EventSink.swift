// The mechanism that lets one operator definition serve signals and
// producers.
//
// A single-input operator is a value conforming to `_UnaryOperator`: given
// the sink it delivers to (`_EventSink`), it returns the closure that
// receives its input's events. The operator body is generic over the sink
// and written once:
//
// - on a `Signal`, the sink is the derived signal's core (`_HeldCore`), fed
//   from inside the upstream's serialized delivery (`Signal._lift(_:)`, over
//   `_liftCore`); the body is specialized for it, so signals pay nothing for
//   the abstraction;
// - on a `SignalProducer`, the sink is the next link of a run's chain
//   (`_ProducerSink`): starting a producer builds the closures of all its
//   operators once, ending in the observer, with no `Signal` per operator
//   (`SignalProducer._lift(_:)`).

/// Where a single-input operator delivers its output events.
///
/// Every call happens inside the serialized delivery of the operator's
/// input, never concurrently with another; an implementation needs no lock.
@usableFromInline
protocol _EventSink<Value, Error> {
    associatedtype Value
    associatedtype Error: Swift.Error

    /// Delivers an event.
    func deliverHeld(_ event: Signal<Value, Error>.Event)

    /// Delivers a value: no second look at the event's kind.
    func deliverHeld(value: Value)

    /// `deliverHeld` for the rarer events, kept out of the value path.
    func deliverHeldOutOfLine(_ event: Signal<Value, Error>.Event)

    /// Ends when the output ends (terminal event, disposal, or release).
    var lifetime: Lifetime { get }
}

extension _HeldCore: _EventSink {}

/// One single-input operator's logic, written once for signals and
/// producers.
@usableFromInline
protocol _UnaryOperator<Input, InputError, Output, OutputError> {
    associatedtype Input
    associatedtype InputError: Swift.Error
    associatedtype Output
    associatedtype OutputError: Swift.Error

    /// Returns the closure that receives the input's events and delivers
    /// the operator's output to `downstream`. Called once per derived signal,
    /// or once per start of a producer; state the closure captures is
    /// touched only inside the input's serialized delivery.
    ///
    /// Nothing the closure captures may be a variable: Swift keeps a
    /// captured variable in a box and checks every access to it for
    /// exclusivity at run time (a thread-local look-up, about 5 ns), per
    /// event. So an implementation rebinds `downstream`, a `consuming`
    /// parameter and so a variable, as a constant (`let downstream =
    /// downstream`) before capturing it, and keeps its state in
    /// `_DeliveryState`.
    func attach<Sink: _EventSink>(to downstream: consuming Sink) -> (Signal<Input, InputError>.Event) -> Void
    where Sink.Value == Output, Sink.Error == OutputError
}

extension Signal {
    /// The signal derived from this one by `op`, sharing its serialization
    /// point (see `_liftCore`).
    @inlinable
    func _lift<Op: _UnaryOperator>(_ op: Op) -> Signal<Op.Output, Op.OutputError>
    where Op.Input == Value, Op.InputError == Error {
        _liftCore { downstream in op.attach(to: downstream) }
    }
}

/// A `_UnaryOperator` whose output has its input's value and error types
/// (`filter`, `take`, `skip` …): conformers name their generic parameters
/// `Value` and `Error`.
@usableFromInline
protocol _FilteringOperator<Value, Error>: _UnaryOperator
where Input == Value, Output == Value, InputError == Error, OutputError == Error {
    associatedtype Value
    associatedtype Error: Swift.Error
}
