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
        precondition(count >= 0, "take(first:) needs a non-negative count")
        guard count > 0 else { return .empty }
        return liftCore { downstream in
            var remaining = count
            return { event in
                guard case let .value(value) = event else {
                    downstream.deliverHeld(event)
                    return
                }
                guard remaining > 0 else { return }
                remaining &-= 1
                downstream.deliverHeld(.value(value))
                if remaining == 0 { downstream.deliverHeld(.completed) }
            }
        }
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
        precondition(count >= 0, "take(last:) needs a non-negative count")
        return liftCore { downstream in
            // A ring: once full, `oldest` is where the next value overwrites.
            var ring: [Value] = []
            var oldest = 0
            return { event in
                switch event {
                case let .value(value):
                    guard count > 0 else { return }
                    if ring.count < count {
                        ring.append(value)
                    } else {
                        ring[oldest] = value
                        oldest = oldest == count &- 1 ? 0 : oldest &+ 1
                    }
                case .completed:
                    let held = ring
                    ring = []
                    for i in held.indices {
                        let index = oldest &+ i
                        downstream.deliverHeld(.value(held[index < held.count ? index : index &- held.count]))
                    }
                    downstream.deliverHeld(.completed)
                case .failed, .interrupted:
                    ring = []
                    downstream.deliverHeld(event)
                }
            }
        }
    }

    /// Forwards values while `shouldContinue` returns true; at the first
    /// value for which it returns false, completes instead of forwarding it.
    ///
    /// Completing stops the observation of upstream, so `shouldContinue` is
    /// not called again. Upstream's `failed`, `completed` and `interrupted`
    /// before that pass through unchanged.
    @inlinable
    public func take(while shouldContinue: @escaping (Value) -> Bool) -> Signal<Value, Error> {
        takeWhile(shouldContinue, forwardingTheLast: false)
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
        takeWhile(shouldContinue, forwardingTheLast: true)
    }

    /// `take(while:)`, and with `forwardingTheLast`, `take(until:)`: forwards
    /// values while `shouldContinue` holds and completes at the first value
    /// that fails it, forwarding that value first if `forwardingTheLast`
    /// (each value is then forwarded before `shouldContinue` sees it).
    @inlinable
    func takeWhile(_ shouldContinue: @escaping (Value) -> Bool, forwardingTheLast: Bool) -> Signal<Value, Error> {
        liftCore { downstream in
            var isTaking = true
            return { event in
                guard case let .value(value) = event else {
                    downstream.deliverHeld(event)
                    return
                }
                guard isTaking else { return }
                if forwardingTheLast { downstream.deliverHeld(event) }
                if !shouldContinue(value) {
                    isTaking = false
                    downstream.deliverHeld(.completed)
                } else if !forwardingTheLast {
                    downstream.deliverHeld(event)
                }
            }
        }
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
