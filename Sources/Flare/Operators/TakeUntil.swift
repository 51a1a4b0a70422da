extension Signal {
    /// Forwards the events of this signal until `trigger` sends a value or
    /// completes, and then completes.
    ///
    /// - Every event of this signal passes through (its own terminal event
    ///   ends the output as usual).
    /// - A value or `completed` of `trigger` sends `completed`.
    /// - An `interrupted` of `trigger` is ignored: this signal keeps being
    ///   forwarded, and can no longer be cut short.
    ///
    /// Both inputs are funnelled through one serialization point. Both input
    /// observations are disposed as soon as the output terminates (so once
    /// the trigger fires, this signal is no longer observed), or when the
    /// output has lost every observer and reference.
    @inlinable
    public func take(until trigger: Signal<(), Never>) -> Signal<Value, Error> {
        _funnel({ (downstream: _HeldCore<Value, Error>) in
            { (tag: _Pair<Event, Signal<(), Never>.Event>) in
                switch tag {
                case let .first(event):
                    downstream.deliverHeld(event)
                case .second(.value), .second(.completed):
                    downstream.deliverHeld(.completed)
                case .second:
                    break
                }
            }
        }, connect: { input, observations in
            observations += trigger.observe { input.send(value: .second($0)) }
            observations += self.observe { input.send(value: .first($0)) }
        })
    }

    /// Forwards the events of this signal until `replacement` sends its first
    /// event, then forwards the events of `replacement` instead.
    ///
    /// - Before the replacement: values, `failed` and `interrupted` of this
    ///   signal pass through; its `completed` is ignored, so the output
    ///   stays open for the replacement.
    /// - From the first event of `replacement` on (value or terminal), every
    ///   event of `replacement` passes through, including its terminal event,
    ///   and nothing more of this signal.
    ///
    /// This signal's observation is disposed as soon as `replacement` sends
    /// its first event. Both observations are disposed as soon as the output
    /// terminates, or when it has lost every observer and reference.
    @inlinable
    public func take(untilReplacement replacement: Signal<Value, Error>) -> Signal<Value, Error> {
        let sourceObservation = SerialDisposable()
        return _funnel({ (downstream: _HeldCore<Value, Error>) in
            let replaced = _DeliveryState(false)
            return { (tag: _Pair<Event, Event>) in
                switch tag {
                case let .first(event):
                    if replaced.value { return }
                    if case .completed = event { return }
                    downstream.deliverHeld(event)
                case let .second(event):
                    if !replaced.value {
                        replaced.value = true
                        sourceObservation.dispose()
                    }
                    downstream.deliverHeld(event)
                }
            }
        }, connect: { input, observations in
            observations += sourceObservation
            sourceObservation.inner = self.observe { input.send(value: .first($0)) }
            observations += replacement.observe { input.send(value: .second($0)) }
        })
    }

    /// Drops the events of this signal until `trigger` sends a value or
    /// completes, and from then on forwards them.
    ///
    /// - Before the trigger fires, values of this signal are dropped.
    /// - A value or `completed` of `trigger` starts forwarding; an
    ///   `interrupted` of `trigger` before it fired interrupts the output,
    ///   which nothing could start forwarding any more (ReactiveSwift's
    ///   output is interrupted when the trigger's observation, the only
    ///   holder of its observer, goes).
    /// - After the trigger fires, every event of this signal passes through,
    ///   its terminal event included.
    /// - This signal is observed from when the trigger fires (its observer
    ///   then comes after those attached before). If it terminated before,
    ///   the output sends `interrupted` then, as observing a terminated
    ///   signal does.
    ///
    /// The trigger's observation is disposed as soon as it fires. Both
    /// observations are disposed as soon as the output terminates, or when it
    /// has lost every observer and reference.
    @inlinable
    public func skip(until trigger: Signal<(), Never>) -> Signal<Value, Error> {
        let triggerObservation = SerialDisposable()
        let sourceObservation = SerialDisposable()
        // The funnel's input, for the source's observation made when the
        // trigger fires. Weak: the trigger's observation holds it until
        // then, and then the source's; held here, it would keep the
        // funnel (which holds this box) alive by itself.
        let funnelInput = _WeakBox<Signal<_Pair<Event, Signal<(), Never>.Event>, Never>.Observer>()
        let makeAction = { (downstream: _HeldCore<Value, Error>) in
            let triggered = _DeliveryState(false)
            return { (tag: _Pair<Event, Signal<(), Never>.Event>) in
                switch tag {
                case let .first(event):
                    downstream.deliverHeld(event)
                case .second(.value), .second(.completed):
                    if triggered.value { return }
                    triggered.value = true
                    triggerObservation.dispose()
                    // This signal is observed from now on, as in
                    // ReactiveSwift: its observer joins the others after
                    // those attached meanwhile. Attached to a terminated
                    // signal, it hears `interrupted` (contract 5), queued
                    // behind this delivery.
                    guard let input = funnelInput.value else { return }
                    sourceObservation.inner = self.observe { input.send(value: .first($0)) }
                case .second(.interrupted):
                    if !triggered.value { downstream.deliverHeld(.interrupted) }
                }
            }
        }
        return _funnel(makeAction, interruptsWhenInputsEnd: false) { input, observations in
            funnelInput.value = input
            observations += triggerObservation
            observations += sourceObservation
            triggerObservation.inner = trigger.observe { input.send(value: .second($0)) }
        }
    }
}

/// A weak reference, in a box a closure can capture before the referent
/// exists.
@usableFromInline
final class _WeakBox<T: AnyObject>: @unchecked Sendable {
    @usableFromInline weak var value: T?

    @inlinable
    init() {}
}

extension SignalProducer {
    /// `Signal.take(until:)` of a run of this producer and one of `trigger`,
    /// `trigger` started first.
    ///
    /// The concrete overload (beside the generic one) lets an implicit
    /// member such as `.init(value: ())` stand for the trigger.
    @inlinable
    public func take(until trigger: SignalProducer<(), Never>) -> SignalProducer<Value, Error> {
        _take(until: trigger)
    }

    /// `take(until:)` with a trigger of any producer-convertible type.
    @inlinable
    public func take<Trigger: SignalProducerConvertible>(
        until trigger: Trigger
    ) -> SignalProducer<Value, Error> where Trigger.Value == (), Trigger.Error == Never {
        _take(until: trigger.producer)
    }

    /// The body of `take(until:)` on a producer: the events of
    /// `Signal.take(until:)`, with both runs observed directly by the run's
    /// observer, which serializes them (no signal per start). The trigger
    /// starts first; if it has ended the run by then, this producer does
    /// not start. Each run is in the run's lifetime before it starts, so
    /// an end from the other input (or from downstream) stops a
    /// synchronous one before its next element.
    @inlinable
    func _take(until trigger: SignalProducer<(), Never>) -> SignalProducer<Value, Error> {
        SignalProducer { observer, lifetime in
            trigger._start({ event in
                switch event {
                case .value, .completed: observer.sendCompleted()
                case .interrupted: break
                }
            }, during: lifetime)
            self._start(observer, during: lifetime)
        }
    }

    /// `Signal.take(untilReplacement:)` of a run of this producer and one of
    /// `replacement`, `replacement` started first.
    @inlinable
    public func take(untilReplacement replacement: SignalProducer<Value, Error>) -> SignalProducer<Value, Error> {
        liftRight { left in { right in left.take(untilReplacement: right) } }(replacement)
    }

    /// `take(untilReplacement:)` with a replacement of any
    /// producer-convertible type.
    @inlinable
    public func take<Replacement: SignalProducerConvertible>(
        untilReplacement replacement: Replacement
    ) -> SignalProducer<Value, Error> where Replacement.Value == Value, Replacement.Error == Error {
        liftRight { left in { right in left.take(untilReplacement: right) } }(replacement.producer)
    }

    /// `Signal.skip(until:)` of a run of this producer and one of `trigger`,
    /// `trigger` started first.
    @inlinable
    public func skip(until trigger: SignalProducer<(), Never>) -> SignalProducer<Value, Error> {
        liftRight { left in { right in left.skip(until: right) } }(trigger)
    }

    /// `skip(until:)` with a trigger of any producer-convertible type.
    @inlinable
    public func skip<Trigger: SignalProducerConvertible>(
        until trigger: Trigger
    ) -> SignalProducer<Value, Error> where Trigger.Value == (), Trigger.Error == Never {
        liftRight { left in { right in left.skip(until: right) } }(trigger.producer)
    }
}
