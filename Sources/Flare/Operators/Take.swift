extension Signal {
    /// Forwards the first `count` values, then completes.
    ///
    /// `completed` is sent right after the `count`th value, without waiting
    /// for another one, and the returned signal then stops observing
    /// upstream. Upstream's `failed`, `completed` and `interrupted` before
    /// that pass through unchanged. `take(first: 0)` observes nothing and has
    /// already completed when it returns, so an observer attached to it
    /// receives `interrupted`, as for any terminated signal.
    ///
    /// - Precondition: `count >= 0`.
    @inlinable
    public func take(first count: Int) -> Signal<Value, Error> {
        guard _TakeFirstOperator<Value, Error>.takesAny(count) else { return .empty }
        return _lift(_TakeFirstOperator(count: count))
    }

    /// Waits for upstream to complete, then sends its last `count` values
    /// and completes.
    ///
    /// Holds at most `count` values. On upstream's `completed` it sends them
    /// in their original order, then `completed`; upstream's `failed` or
    /// `interrupted` is forwarded at once and the held values are dropped.
    /// Observes upstream until either terminates.
    ///
    /// - Precondition: `count >= 0`.
    @inlinable
    public func take(last count: Int) -> Signal<Value, Error> {
        _lift(_TakeLastOperator(count: count))
    }

    /// Forwards values while `shouldContinue` returns true; at the first
    /// value for which it returns false, completes instead of forwarding it.
    ///
    /// Completing stops the observation of upstream, so `shouldContinue` is
    /// not called again. Upstream's `failed`, `completed` and `interrupted`
    /// before that pass through unchanged.
    @inlinable
    public func take(while shouldContinue: @escaping (Value) -> Bool) -> Signal<Value, Error> {
        _lift(_TakeWhileOperator(shouldContinue: shouldContinue, forwardingTheLast: false))
    }

    /// Forwards values while `shouldContinue` returns true; the first value
    /// for which it returns false is forwarded too, and then the signal
    /// completes: `take(while:)` plus the value that ended it.
    ///
    /// Each value is forwarded before `shouldContinue` is asked about it, as
    /// in ReactiveSwift. Completing stops the observation of upstream, so
    /// `shouldContinue` is not called again. Upstream's `failed`,
    /// `completed` and `interrupted` before that pass through unchanged.
    /// `take(until:)` with a signal (in TakeUntil.swift) is a different
    /// operator: it completes when another signal fires.
    @inlinable
    public func take(until shouldContinue: @escaping (Value) -> Bool) -> Signal<Value, Error> {
        _lift(_TakeWhileOperator(shouldContinue: shouldContinue, forwardingTheLast: true))
    }

    /// Forwards every event until `lifetime` ends, then completes.
    ///
    /// When `lifetime` ends the returned signal completes and stops
    /// observing upstream; if `lifetime` has already ended, it has completed
    /// before this returns. Upstream's `failed`, `completed` and
    /// `interrupted` pass through unchanged, and end the watch on `lifetime`.
    ///
    /// Mechanism: a lifetime ends on any thread, outside upstream's
    /// serialized delivery, so the `completed` it triggers cannot be
    /// delivered with `deliverHeld` (that needs upstream's serial word, held
    /// only inside its delivery). The returned signal is therefore a root
    /// signal with a serial word of its own, fed by upstream like any
    /// observer: one more serialization point than a lifted operator, which
    /// is what makes the race between upstream's events and the lifetime's
    /// end safe.
    @inlinable
    public func take(during lifetime: Lifetime) -> Signal<Value, Error> {
        Signal { observer, innerLifetime in
            innerLifetime += observe(observer)
            // Weak: upstream's observation owns the observer for as long as
            // the returned signal runs. A strong capture would let
            // `lifetime` (which may outlive everything here) pin the signal
            // until its removed handlers are pruned.
            innerLifetime += lifetime.observeEnded { [weak observer] in observer?.sendCompleted() }
        }
    }
}

/// `take(first:)`.
@usableFromInline
struct _TakeFirstOperator<Value, Error: Swift.Error>: _FilteringOperator {
    @usableFromInline let count: Int

    @inlinable
    init(count: Int) { self.count = count }

    /// Whether `take(first: count)` forwards anything; stops on a negative
    /// count.
    @inlinable
    static func takesAny(_ count: Int) -> Bool {
        flarePrecondition(count >= 0, "take(first:) needs a non-negative count, got \(count)")
        return count > 0
    }

    @inlinable
    func attach<Sink: _EventSink>(to downstream: consuming Sink) -> (Signal<Value, Error>.Event) -> Void
    where Sink.Value == Value, Sink.Error == Error {
        let downstream = downstream
        let remaining = _DeliveryState(count)
        return { event in
            guard case let .value(value) = event else {
                downstream.deliverHeld(event)
                return
            }
            guard remaining.value > 0 else { return }
            remaining.value &-= 1
            downstream.deliverHeld(.value(value))
            if remaining.value == 0 { downstream.deliverHeld(.completed) }
        }
    }
}

/// `take(last:)`.
@usableFromInline
struct _TakeLastOperator<Value, Error: Swift.Error>: _FilteringOperator {
    @usableFromInline let count: Int

    @inlinable
    init(count: Int) {
        flarePrecondition(count >= 0, "take(last:) needs a non-negative count, got \(count)")
        self.count = count
    }

    @inlinable
    func attach<Sink: _EventSink>(to downstream: consuming Sink) -> (Signal<Value, Error>.Event) -> Void
    where Sink.Value == Value, Sink.Error == Error {
        let downstream = downstream
        // A ring: once full, `oldest` is where the next value overwrites.
        let ring = _DeliveryState<[Value]>([])
        let oldest = _DeliveryState(0)
        return { [count] event in
            switch event {
            case let .value(value):
                guard count > 0 else { return }
                if ring.value.count < count {
                    ring.value.append(value)
                } else {
                    ring.value[oldest.value] = value
                    oldest.value = oldest.value == count &- 1 ? 0 : oldest.value &+ 1
                }
            case .completed:
                let held = ring.value
                ring.value = []
                for i in held.indices {
                    let index = oldest.value &+ i
                    downstream.deliverHeld(.value(held[index < held.count ? index : index &- held.count]))
                }
                downstream.deliverHeld(.completed)
            case .failed, .interrupted:
                ring.value = []
                downstream.deliverHeld(event)
            }
        }
    }
}

/// `take(while:)`.
@usableFromInline
struct _TakeWhileOperator<Value, Error: Swift.Error>: _FilteringOperator {
    @usableFromInline let shouldContinue: (Value) -> Bool
    /// `take(until:)`: each value is forwarded before `shouldContinue` sees
    /// it, so the value that ends the operator is forwarded too.
    @usableFromInline let forwardingTheLast: Bool

    @inlinable
    init(shouldContinue: @escaping (Value) -> Bool, forwardingTheLast: Bool) {
        self.shouldContinue = shouldContinue
        self.forwardingTheLast = forwardingTheLast
    }

    @inlinable
    func attach<Sink: _EventSink>(to downstream: consuming Sink) -> (Signal<Value, Error>.Event) -> Void
    where Sink.Value == Value, Sink.Error == Error {
        let downstream = downstream
        let isTaking = _DeliveryState(true)
        return { [shouldContinue, forwardingTheLast] event in
            guard case let .value(value) = event else {
                downstream.deliverHeld(event)
                return
            }
            guard isTaking.value else { return }
            if forwardingTheLast { downstream.deliverHeld(event) }
            if !shouldContinue(value) {
                isTaking.value = false
                downstream.deliverHeld(.completed)
            } else if !forwardingTheLast {
                downstream.deliverHeld(event)
            }
        }
    }
}

extension SignalProducer {
    /// `Signal.take(first:)` on every run: the first `count` values, then
    /// `completed`, which ends the run (its source is interrupted).
    /// `take(first: 0)` is interrupted at once without starting this
    /// producer, as in ReactiveSwift (where `Signal.take(first: 0)`
    /// completes instead). One link per start.
    ///
    /// - Precondition: `count >= 0`.
    @inlinable
    public func take(first count: Int) -> SignalProducer<Value, Error> {
        guard _TakeFirstOperator<Value, Error>.takesAny(count) else { return ._interrupted }
        return _lift(_TakeFirstOperator(count: count))
    }

    /// `Signal.take(last:)` on every run: on completion, the last `count`
    /// values, then `completed`. One link per start.
    ///
    /// - Precondition: `count >= 0`.
    @inlinable
    public func take(last count: Int) -> SignalProducer<Value, Error> {
        _lift(_TakeLastOperator(count: count))
    }

    /// `Signal.take(while:)` on every run: values while `shouldContinue`
    /// holds, then `completed`, which ends the run. One link per start.
    @inlinable
    public func take(while shouldContinue: @escaping (Value) -> Bool) -> SignalProducer<Value, Error> {
        _lift(_TakeWhileOperator(shouldContinue: shouldContinue, forwardingTheLast: false))
    }

    /// `Signal.take(until:)` with a predicate, on every run: values while
    /// `shouldContinue` holds, then the value that fails it and `completed`,
    /// which ends the run. One link per start.
    @inlinable
    public func take(until shouldContinue: @escaping (Value) -> Bool) -> SignalProducer<Value, Error> {
        _lift(_TakeWhileOperator(shouldContinue: shouldContinue, forwardingTheLast: true))
    }

    /// `Signal.take(during:)` on every run: completes the run when
    /// `lifetime` ends. A run started after `lifetime` ended is
    /// `interrupted` at once, and this producer does not start: in
    /// ReactiveSwift the run's signal has completed before the observer
    /// attaches, which then receives `interrupted`. The run's observer
    /// serializes the end of `lifetime` with this producer's events (no
    /// signal per start).
    @inlinable
    public func take(during lifetime: Lifetime) -> SignalProducer<Value, Error> {
        SignalProducer { observer, runLifetime in
            guard !lifetime.hasEnded else { return observer.sendInterrupted() }
            // Weak, as on a signal: `lifetime` may outlive the run by far,
            // and keeps this closure until its removed handlers are pruned.
            runLifetime += lifetime.observeEnded { [weak observer] in observer?.sendCompleted() }
            self._start(observer, during: runLifetime)
        }
    }
}
