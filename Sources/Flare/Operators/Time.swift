import CFlare
import Dispatch
import Foundation
import Synchronization

// Time-based operators.
//
// The output of every one of them is delivered on its scheduler (timeout
// excepted, as in ReactiveSwift): a root signal fed only by actions of that
// scheduler, which never run concurrently, so `observe(on: QueueScheduler.main)`
// observers really run on the main queue.
//
// Operators with state (throttle, debounce, collect(every:), lazyMap) touch it
// both from the upstream's delivery and from scheduled actions, on different
// threads. Instead of a lock, both are funnelled into one internal root
// signal (see Funnel.swift): an upstream event arrives tagged `.first`, a
// scheduled action sends itself in tagged `.second`, and the logic runs
// serialized. What the logic emits then reaches the output through
// `observe(on:)`, so that whichever thread happened to drain the internal
// signal, the output is delivered on the scheduler. On `TestScheduler` that
// hop runs within the same `advance`, at the same virtual time.

// Interruption. A producer run through one of these operators is disposed
// on whatever thread calls `dispose()`, but its observer hears everything on
// the scheduler, so it hears `interrupted` there too, as in ReactiveSwift:
// disposal ends the operator's *interruption* lifetime (see
// `SignalProducer._liftAsynchronous`), and the operator's hop onto its
// scheduler (`_SchedulerHop`, the one way every operator here delivers) then
// stops at once: what it had scheduled and not yet delivered is dropped when
// it runs, and `interrupted` is scheduled behind it. So once `dispose()` has
// returned the observer gets no more values but one already being delivered
// on the scheduler (contract 8's promise for a disposed run), then
// `interrupted`, on the scheduler. On a plain signal there is no disposal to
// forward: its operators pass no interruption lifetime.

/// The hop of an asynchronous operator's output onto its scheduler: every
/// event the operator emits is scheduled through it, and delivered, from
/// the scheduled action, to the output (a root signal's input).
///
/// `ended` is set by the first terminal event to run on the scheduler, or
/// by `interrupt(on:)`, whichever comes first; once it is set, scheduled
/// events are dropped when they run. The value check is one atomic load in
/// an action that was allocated anyway.
///
/// The hop does not keep its scheduler: its callers pass it. A scheduled
/// action keeps the hop, so a hop that kept the scheduler would make a
/// cycle with every action still pending on it (a `TestScheduler` that is
/// never advanced again, released with actions pending, would leak them).
@usableFromInline
final class _SchedulerHop<Value, Error: Swift.Error>: @unchecked Sendable {
    @usableFromInline
    let output: Signal<Value, Error>.Observer
    @usableFromInline
    let ended = Atomic<Bool>(false)

    /// Events scheduled and not yet delivered. An event may be delivered in
    /// place (`deliverInPlace`) only when none is, or it would overtake
    /// them. Incremented inside the operator's serialized delivery (before
    /// the action is scheduled), decremented after the action delivered
    /// (release); read in place by a later delivery of the same domain
    /// (acquire): the serial word orders every increment before it, and the
    /// acquire load sees the decrements of the actions that are done.
    @usableFromInline
    let pending = Atomic<Int>(0)

    /// A hop delivering to `output` on `scheduler`, whose signal's lifetime
    /// is `outputLifetime`; `interruption`'s end interrupts it (see
    /// `interrupt(on:)`) while the output lives.
    @inlinable
    init(
        output: Signal<Value, Error>.Observer, scheduler: Scheduler,
        interruptedBy interruption: Lifetime?, outputLifetime: Lifetime
    ) {
        self.output = output
        if let interruption {
            outputLifetime += interruption.observeEnded { self.interrupt(on: scheduler) }
        }
    }

    /// Delivers `event` to the output, on the scheduler's thread, unless
    /// the hop has ended (a terminal event ends it).
    @inlinable
    func deliver(_ event: Signal<Value, Error>.Event) {
        if event.isTerminating {
            guard !ended.exchange(true, ordering: .acquiringAndReleasing) else { return }
        } else {
            guard !ended.load(ordering: .acquiring) else { return }
        }
        output.send(event)
    }

    /// Schedules `event` on `scheduler` (the hop's).
    @inlinable
    func forward(_ event: Signal<Value, Error>.Event, on scheduler: Scheduler) {
        pending.add(1, ordering: .relaxed)
        scheduler.scheduleTransferred { self.deliverScheduled(event) }
    }

    /// Schedules `event` on `scheduler` (this hop's, with its clock) at
    /// `date`.
    @inlinable
    func forward(_ event: Signal<Value, Error>.Event, after date: Date, on scheduler: DateScheduler) {
        pending.add(1, ordering: .relaxed)
        scheduler.scheduleTransferred(after: date) { self.deliverScheduled(event) }
    }

    /// The action of a forwarded event.
    @inlinable
    func deliverScheduled(_ event: Signal<Value, Error>.Event) {
        deliver(event)
        pending.subtract(1, ordering: .releasing)
    }

    /// Delivers `event` now, the caller being on the scheduler already (one
    /// of the operator's own scheduled actions), unless events forwarded
    /// earlier are still waiting for theirs: then it is forwarded behind
    /// them, so that the output keeps the operator's order.
    @inlinable
    func deliverInPlace(_ event: Signal<Value, Error>.Event, on scheduler: Scheduler) {
        if pending.load(ordering: .acquiring) == 0 {
            deliver(event)
        } else {
            forward(event, on: scheduler)
        }
    }

    /// The run was disposed (any thread): drops what is still scheduled and
    /// schedules `interrupted` behind it, unless a terminal event has run.
    @inlinable
    func interrupt(on scheduler: Scheduler) {
        guard !ended.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let output = self.output
        scheduler.scheduleTransferred { output.send(.interrupted) }
    }
}

/// Which thread is running one of a time operator's scheduled actions, while
/// it runs (see `Signal.scheduledFunnel(on:interruptedBy:ticksInPlace:_:)`). Relaxed: a
/// thread reads its own tag only if it stored it itself (tags are unique
/// among live threads), so reading another thread's store, or none, only
/// means "not in place", and the emission is scheduled as it would be
/// anyway. Two actions running at once on a concurrent scheduler overwrite
/// each other's tag: one of them then schedules its emission.
@usableFromInline
final class _TickingThread: @unchecked Sendable {
    @usableFromInline
    let tag = Atomic<UInt>(0)

    @inlinable
    init() {}

    /// Runs `body` marked as this thread's scheduled action.
    @inlinable
    func run(_ body: () -> Void) {
        let me = UInt(flare_thread_tag())
        tag.store(me, ordering: .relaxed)
        body()
        tag.store(0, ordering: .relaxed)
    }

    /// Whether the caller runs inside `run` (on the operator's scheduler).
    @inlinable
    var isCurrent: Bool { tag.load(ordering: .relaxed) == UInt(flare_thread_tag()) }
}

extension Signal {
    /// The funnel of a stateful time operator: this signal's events tagged
    /// `.first`, and the logic's own ticks tagged `.second`; what the logic
    /// emits is delivered on `scheduler`.
    ///
    /// `makeAction` receives the emission core and `tick`, which sends a tick
    /// into the funnel from any thread (typically from a scheduled action).
    /// Scheduled ticks must be cancelled when the emission core's lifetime
    /// ends: the scheduled actions keep the funnel alive.
    ///
    /// With `ticksInPlace`, what the logic emits while it handles a tick sent
    /// from a scheduled action on that action's own thread (the funnel was
    /// idle) is delivered there and then, on `scheduler`, instead of being
    /// scheduled a second time: the emission keeps the place its action had
    /// among the scheduler's actions. Otherwise (a tick queued behind an
    /// upstream delivery on another thread, or what the logic emits for an
    /// upstream event) it is scheduled on `scheduler`.
    @inlinable
    func scheduledFunnel<Tick, U, F>(
        on scheduler: Scheduler,
        interruptedBy interruption: Lifetime?,
        ticksInPlace: Bool = false,
        _ makeAction: (_ emit: _HeldCore<U, F>, _ tick: @escaping (Tick) -> Void) -> (_Pair<Event, Tick>) -> Void
    ) -> Signal<U, F> {
        let ticking = ticksInPlace ? _TickingThread() : nil
        let emissions: Signal<U, F> = _funnel(
            withInput: { emit, input in
                if let ticking {
                    return makeAction(emit) { tag in ticking.run { input.send(value: .second(tag)) } }
                }
                return makeAction(emit) { input.send(value: .second($0)) }
            },
            connect: { input, observations in
                observations += self.observe { input.send(value: .first($0)) }
            })
        return emissions._observe(on: scheduler, interruptedBy: interruption, inPlaceOn: ticking)
    }

    /// Forwards every event on `scheduler`.
    ///
    /// Each event, values and the terminal event alike, is scheduled on
    /// `scheduler` in the order received, and delivered from there: the
    /// observers of the returned signal run on `scheduler`. Events still
    /// scheduled when the output ends are dropped when they run. This
    /// signal's observation is disposed when the output terminates, or when
    /// it has lost every observer and reference.
    @inlinable
    public func observe(on scheduler: Scheduler) -> Signal<Value, Error> {
        _observe(on: scheduler, interruptedBy: nil, inPlaceOn: nil)
    }

    /// `observe(on:)`, which `interruption`'s end interrupts on `scheduler`
    /// (see `_SchedulerHop`), and in which an event received on the thread
    /// that `ticking` says runs one of the operator's own scheduled actions
    /// is delivered at once: it is on `scheduler` already (see
    /// `scheduledFunnel(on:interruptedBy:ticksInPlace:_:)`).
    @inlinable
    func _observe(
        on scheduler: Scheduler, interruptedBy interruption: Lifetime?, inPlaceOn ticking: _TickingThread?
    ) -> Signal<Value, Error> {
        Signal { output, lifetime in
            let hop = _SchedulerHop(output: output, scheduler: scheduler, interruptedBy: interruption, outputLifetime: lifetime)
            lifetime += self.observe { event in
                if let ticking, ticking.isCurrent {
                    hop.deliverInPlace(event, on: scheduler)
                } else {
                    hop.forward(event, on: scheduler)
                }
            }
        }
    }

    /// Delays `value` and `completed` events by `interval`, delivering them
    /// on `scheduler`.
    ///
    /// - A value or `completed` is delivered `interval` seconds after it was
    ///   received (by the scheduler's clock).
    /// - `failed` and `interrupted` are scheduled at once, overtaking delayed
    ///   values, which are then dropped.
    ///
    /// This signal's observation is disposed when the output terminates, or
    /// when it has lost every observer and reference.
    ///
    /// - Precondition: `interval` is not negative.
    @inlinable
    public func delay(_ interval: TimeInterval, on scheduler: DateScheduler) -> Signal<Value, Error> {
        _delay(interval, on: scheduler, interruptedBy: nil)
    }

    /// `delay(_:on:)`, which `interruption`'s end interrupts on `scheduler`
    /// (see `_SchedulerHop`).
    @inlinable
    func _delay(_ interval: TimeInterval, on scheduler: DateScheduler, interruptedBy interruption: Lifetime?) -> Signal<Value, Error> {
        flarePrecondition(interval >= 0, "delay needs a non-negative interval")
        return Signal { output, lifetime in
            let hop = _SchedulerHop(output: output, scheduler: scheduler, interruptedBy: interruption, outputLifetime: lifetime)
            lifetime += self.observe { event in
                switch event {
                case .value, .completed:
                    hop.forward(event, after: scheduler.currentDate.addingTimeInterval(interval), on: scheduler)
                case .failed, .interrupted:
                    hop.forward(event, on: scheduler)
                }
            }
        }
    }

    /// Sends the latest value at most once per `interval`, on `scheduler`,
    /// measured from when the returned signal last sent a value.
    ///
    /// - A value arriving when the last sent value is `interval` or more in
    ///   the past is sent at once (scheduled now); otherwise it is held and
    ///   sent `interval` after the last sent value, replaced by any newer
    ///   value in the meantime. If this signal always sends faster than
    ///   `interval`, the output sends one value every `interval`.
    /// - If the scheduler's clock went back before the last sent date, a new
    ///   value is sent at once.
    /// - Terminal events are forwarded at once (on `scheduler`); a value held
    ///   at that moment is dropped.
    ///
    /// The observation of this signal and the scheduled send are disposed
    /// when the output terminates, or when it has lost every observer and
    /// reference.
    ///
    /// - Precondition: `interval` is not negative.
    @inlinable
    public func throttle(_ interval: TimeInterval, on scheduler: DateScheduler) -> Signal<Value, Error> {
        _throttle(interval, on: scheduler, interruptedBy: nil)
    }

    /// `throttle(_:on:)`, which `interruption`'s end interrupts on
    /// `scheduler` (see `_SchedulerHop`).
    @inlinable
    func _throttle(_ interval: TimeInterval, on scheduler: DateScheduler, interruptedBy interruption: Lifetime?) -> Signal<Value, Error> {
        flarePrecondition(interval >= 0, "throttle needs a non-negative interval")
        // Its ticks deliver in place: the held value is sent by the action
        // scheduled for it, once, as in ReactiveSwift.
        return scheduledFunnel(on: scheduler, interruptedBy: interruption, ticksInPlace: true) { (emit: _HeldCore<Value, Error>, tick: @escaping (Date) -> Void) in
            var held: Value?
            var lastSent: Date?
            let scheduled = SerialDisposable()
            emit.lifetime += scheduled
            return { tag in
                switch tag {
                case let .first(.value(value)):
                    held = value
                    let now = scheduler.currentDate
                    var date = now
                    if let lastSent, lastSent <= now {
                        date = Swift.max(lastSent.addingTimeInterval(interval), now)
                    }
                    scheduled.inner = scheduler.scheduleTransferred(after: date) { tick(date) }
                case let .first(event):
                    held = nil
                    emit.deliverHeld(event)
                case let .second(date):
                    guard let value = held else { return }
                    held = nil
                    lastSent = date
                    emit.deliverHeld(.value(value))
                }
            }
        }
    }

    /// Forwards values on `scheduler` while `shouldThrottle`'s latest value
    /// is `false`; while it is `true`, holds the latest value and sends it
    /// when `shouldThrottle` turns `false`.
    ///
    /// ReactiveSwift takes a Boolean property here; until Flare has
    /// properties, this form takes a signal and starts unthrottled (as a
    /// property whose current value is `false`). Repeated equal values of
    /// `shouldThrottle` are ignored.
    ///
    /// - Values of this signal are forwarded on `scheduler` while not
    ///   throttled; while throttled, only the latest is kept, and sent when
    ///   throttling ends.
    /// - Terminal events of this signal are forwarded on `scheduler`; a held
    ///   value is dropped.
    /// - Terminal events of `shouldThrottle` are ignored: its last value
    ///   stays in force (if `true`, no value is sent any more).
    ///
    /// Both observations are disposed when the output terminates, or when it
    /// has lost every observer and reference.
    @inlinable
    public func throttle(while shouldThrottle: Signal<Bool, Never>, on scheduler: Scheduler) -> Signal<Value, Error> {
        _throttle(while: shouldThrottle, on: scheduler, interruptedBy: nil)
    }

    /// `throttle(while:on:)`, which `interruption`'s end interrupts on
    /// `scheduler` (see `_SchedulerHop`).
    @inlinable
    func _throttle(
        while shouldThrottle: Signal<Bool, Never>, on scheduler: Scheduler, interruptedBy interruption: Lifetime?
    ) -> Signal<Value, Error> {
        let emissions: Signal<Value, Error> = _funnel({ (emit: _HeldCore<Value, Error>) in
            var isThrottled = false
            var held: Value?
            return { (tag: _Pair<Event, Signal<Bool, Never>.Event>) in
                switch tag {
                case let .first(.value(value)):
                    if isThrottled { held = value } else { emit.deliverHeld(.value(value)) }
                case let .first(event):
                    held = nil
                    emit.deliverHeld(event)
                case let .second(.value(throttle)):
                    guard throttle != isThrottled else { return }
                    isThrottled = throttle
                    if !throttle, let value = held {
                        held = nil
                        emit.deliverHeld(.value(value))
                    }
                case .second:
                    break
                }
            }
        }, connect: { input, observations in
            observations += shouldThrottle.observe { input.send(value: .second($0)) }
            observations += self.observe { input.send(value: .first($0)) }
        })
        return emissions._observe(on: scheduler, interruptedBy: interruption, inPlaceOn: nil)
    }

    /// Sends a value on `scheduler` once `interval` has passed without this
    /// signal sending a newer one.
    ///
    /// - Each value restarts the wait: the value is sent `interval` after it
    ///   was received unless another value arrives first, which replaces it.
    ///   If this signal always sends faster than `interval`, nothing is sent.
    /// - `completed`: with `discardWhenCompleted` (the default), a value
    ///   still waiting is dropped and `completed` is forwarded at once (on
    ///   `scheduler`); otherwise the waiting value is sent when its wait
    ///   ends, followed by `completed`.
    /// - `failed` and `interrupted` are forwarded at once (on `scheduler`),
    ///   dropping a waiting value.
    ///
    /// The observation of this signal and the scheduled send are disposed
    /// when the output terminates, or when it has lost every observer and
    /// reference.
    ///
    /// - Precondition: `interval` is not negative.
    @inlinable
    public func debounce(
        _ interval: TimeInterval,
        on scheduler: DateScheduler,
        discardWhenCompleted: Bool = true
    ) -> Signal<Value, Error> {
        _debounce(interval, on: scheduler, discardWhenCompleted: discardWhenCompleted, interruptedBy: nil)
    }

    /// `debounce(_:on:discardWhenCompleted:)`, which `interruption`'s end
    /// interrupts on `scheduler` (see `_SchedulerHop`).
    @inlinable
    func _debounce(
        _ interval: TimeInterval, on scheduler: DateScheduler, discardWhenCompleted: Bool,
        interruptedBy interruption: Lifetime?
    ) -> Signal<Value, Error> {
        flarePrecondition(interval >= 0, "debounce needs a non-negative interval")
        // A tick is `false` when a wait ends, `true` when the wait for the
        // last value before completion ends.
        return scheduledFunnel(on: scheduler, interruptedBy: interruption) {
            (emit: _HeldCore<Value, Error>, tick: @escaping (Bool) -> Void) in
            var waiting: Value?
            var lastReceived = Date.distantPast
            let scheduled = SerialDisposable()
            emit.lifetime += scheduled
            return { tag in
                switch tag {
                case let .first(.value(value)):
                    waiting = value
                    lastReceived = scheduler.currentDate
                    scheduled.inner = scheduler.scheduleTransferred(after: lastReceived.addingTimeInterval(interval)) { tick(false) }
                case .first(.completed):
                    if !discardWhenCompleted, waiting != nil {
                        scheduled.inner = scheduler.scheduleTransferred(after: lastReceived.addingTimeInterval(interval)) {
                            tick(true)
                        }
                    } else {
                        scheduled.inner = nil
                        waiting = nil
                        emit.deliverHeld(.completed)
                    }
                case let .first(event):
                    scheduled.inner = nil
                    waiting = nil
                    emit.deliverHeld(event)
                case let .second(isFinal):
                    if let value = waiting {
                        waiting = nil
                        emit.deliverHeld(.value(value))
                    }
                    if isFinal { emit.deliverHeld(.completed) }
                }
            }
        }
    }

    /// Sends, every `interval`, the values received since the previous
    /// send, as an array, on `scheduler`.
    ///
    /// - The first array is sent `interval` after the returned signal is
    ///   created, then one every `interval`; an empty array is sent when no
    ///   value arrived, unless `skipEmpty`.
    /// - `completed`: with `discardWhenCompleted` (the default), values not
    ///   yet sent are dropped and `completed` is forwarded at once (on
    ///   `scheduler`); otherwise they are sent at the next interval, followed
    ///   by `completed`.
    /// - `failed` and `interrupted` are forwarded at once (on `scheduler`),
    ///   dropping values not yet sent.
    ///
    /// The observation of this signal and the timer are disposed when the
    /// output terminates, or when it has lost every observer and reference.
    @inlinable
    public func collect(
        every interval: DispatchTimeInterval,
        on scheduler: DateScheduler,
        skipEmpty: Bool = false,
        discardWhenCompleted: Bool = true
    ) -> Signal<[Value], Error> {
        _collect(every: interval, on: scheduler, skipEmpty: skipEmpty, discardWhenCompleted: discardWhenCompleted, interruptedBy: nil)
    }

    /// `collect(every:on:skipEmpty:discardWhenCompleted:)`, which
    /// `interruption`'s end interrupts on `scheduler` (see `_SchedulerHop`).
    @inlinable
    func _collect(
        every interval: DispatchTimeInterval, on scheduler: DateScheduler, skipEmpty: Bool, discardWhenCompleted: Bool,
        interruptedBy interruption: Lifetime?
    ) -> Signal<[Value], Error> {
        scheduledFunnel(on: scheduler, interruptedBy: interruption) { (emit: _HeldCore<[Value], Error>, tick: @escaping (()) -> Void) in
            var collected: [Value] = []
            var isCompleted = false
            let timer = SerialDisposable()
            emit.lifetime += timer
            timer.inner = scheduler.scheduleTransferred(
                after: scheduler.currentDate.addingTimeInterval(interval),
                interval: interval,
                leeway: interval * 0.1
            ) { tick(()) }
            return { tag in
                switch tag {
                case let .first(.value(value)):
                    collected.append(value)
                case .first(.completed) where !discardWhenCompleted:
                    isCompleted = true
                case let .first(.failed(error)):
                    timer.inner = nil
                    emit.deliverHeld(.failed(error))
                case .first(.completed):
                    timer.inner = nil
                    emit.deliverHeld(.completed)
                case .first(.interrupted):
                    timer.inner = nil
                    emit.deliverHeld(.interrupted)
                case .second:
                    if !collected.isEmpty || !skipEmpty {
                        let values = collected
                        collected = []
                        emit.deliverHeld(.value(values))
                    }
                    if isCompleted { emit.deliverHeld(.completed) }
                }
            }
        }
    }

    /// Sends `transform` of the latest value on `scheduler`, computing it
    /// there, lazily: values that arrive while one is waiting for the
    /// scheduler replace it, so there is no one-to-one mapping of values.
    ///
    /// - A value is scheduled if none is waiting; otherwise it replaces the
    ///   waiting one. `transform` runs on `scheduler`, only for values that
    ///   are sent.
    /// - `completed` and `failed` are forwarded on `scheduler` after the
    ///   waiting value, if any.
    /// - `interrupted` drops the waiting value and is forwarded on
    ///   `scheduler`.
    ///
    /// The observation of this signal and the scheduled work are disposed
    /// when the output terminates, or when it has lost every observer and
    /// reference.
    @inlinable
    public func lazyMap<U>(on scheduler: Scheduler, transform: @escaping (Value) -> U) -> Signal<U, Error> {
        _lazyMap(on: scheduler, interruptedBy: nil, transform: transform)
    }

    /// `lazyMap(on:transform:)`, which `interruption`'s end interrupts on
    /// `scheduler` (see `_SchedulerHop`).
    @inlinable
    func _lazyMap<U>(
        on scheduler: Scheduler, interruptedBy interruption: Lifetime?, transform: @escaping (Value) -> U
    ) -> Signal<U, Error> {
        let latest: Signal<Value, Error> = scheduledFunnel(on: scheduler, interruptedBy: interruption) {
            (emit: _HeldCore<Value, Error>, tick: @escaping (()) -> Void) in
            var waiting: Value?
            let scheduled = SerialDisposable()
            emit.lifetime += scheduled
            return { tag in
                switch tag {
                case let .first(.value(value)):
                    if waiting == nil { scheduled.inner = scheduler.scheduleTransferred { tick(()) } }
                    waiting = value
                case .first(.interrupted):
                    scheduled.inner = nil
                    waiting = nil
                    emit.deliverHeld(.interrupted)
                case let .first(event):
                    // The waiting value goes first, as its scheduled send
                    // would have.
                    if let value = waiting {
                        waiting = nil
                        emit.deliverHeld(.value(value))
                    }
                    emit.deliverHeld(event)
                case .second:
                    if let value = waiting {
                        waiting = nil
                        emit.deliverHeld(.value(value))
                    }
                }
            }
        }
        // Runs in the delivery of the output, on the scheduler.
        return latest.map(transform)
    }

    /// Forwards this signal's events, and fails with `error` on `scheduler`
    /// if it has not terminated `interval` seconds after the returned signal
    /// was created.
    ///
    /// - Events of this signal pass through as they arrive, on its own
    ///   thread (not on `scheduler`).
    /// - When `interval` has passed (by the scheduler's clock), `failed` with
    ///   `error` is sent from `scheduler`, unless the output has terminated.
    ///
    /// The observation of this signal and the timeout are disposed when the
    /// output terminates, or when it has lost every observer and reference.
    ///
    /// - Precondition: `interval` is not negative.
    @inlinable
    public func timeout(
        after interval: TimeInterval,
        raising error: Error,
        on scheduler: DateScheduler
    ) -> Signal<Value, Error> {
        flarePrecondition(interval >= 0, "timeout needs a non-negative interval")
        return Signal { output, lifetime in
            lifetime += scheduler.scheduleTransferred(after: scheduler.currentDate.addingTimeInterval(interval)) {
                output.send(error: error)
            }
            lifetime += self.observe { output.send($0) }
        }
    }
}

extension Signal where Error == Never {
    /// Forwards this signal's events, and fails with `error` on `scheduler`
    /// if it has not terminated after `interval` seconds; see
    /// `timeout(after:raising:on:)`.
    @inlinable
    public func timeout<NewError>(
        after interval: TimeInterval,
        raising error: NewError,
        on scheduler: DateScheduler
    ) -> Signal<Value, NewError> {
        let promoted: Signal<Value, NewError> = _liftCore { downstream in
            { event in
                switch event {
                case let .value(value): downstream.deliverHeld(.value(value))
                case .completed: downstream.deliverHeld(.completed)
                case .interrupted: downstream.deliverHeld(.interrupted)
                case .failed: break
                }
            }
        }
        return promoted.timeout(after: interval, raising: error, on: scheduler)
    }
}

// On producers, the time operators apply the signal operator to every run
// with `_liftAsynchronous`: like on a signal, each has a serialization point
// of its own, for the events its scheduler sends, and disposing a run stops
// its upstream at once and delivers `interrupted` on the scheduler, behind
// what the operator had scheduled, which is dropped (see `_SchedulerHop`).
extension SignalProducer {
    /// `Signal.observe(on:)` on every run: events delivered on `scheduler`.
    /// Disposing a run interrupts this producer's run at once; the observer
    /// receives `interrupted` on `scheduler`, and none of the events still
    /// scheduled.
    @inlinable
    public func observe(on scheduler: Scheduler) -> SignalProducer<Value, Error> {
        _liftAsynchronous { $0._observe(on: scheduler, interruptedBy: $1, inPlaceOn: nil) }
    }

    /// `Signal.delay(_:on:)` on every run. Disposing a run interrupts this
    /// producer's run at once; the observer receives `interrupted` on
    /// `scheduler`, and none of the delayed events.
    @inlinable
    public func delay(_ interval: TimeInterval, on scheduler: DateScheduler) -> SignalProducer<Value, Error> {
        _liftAsynchronous { $0._delay(interval, on: scheduler, interruptedBy: $1) }
    }

    /// `Signal.throttle(_:on:)` on every run. Disposing a run interrupts
    /// this producer's run at once; the observer receives `interrupted` on
    /// `scheduler`, and no held value.
    @inlinable
    public func throttle(_ interval: TimeInterval, on scheduler: DateScheduler) -> SignalProducer<Value, Error> {
        _liftAsynchronous { $0._throttle(interval, on: scheduler, interruptedBy: $1) }
    }

    /// `Signal.throttle(while:on:)` of a run of this producer and one of
    /// `shouldThrottle`, `shouldThrottle` started first (so that its
    /// current value applies from the start). Disposing a run interrupts
    /// both at once; the observer receives `interrupted` on `scheduler`.
    @inlinable
    public func throttle<Gate: SignalProducerConvertible>(
        while shouldThrottle: Gate, on scheduler: Scheduler
    ) -> SignalProducer<Value, Error> where Gate.Value == Bool, Gate.Error == Never {
        let gate = shouldThrottle.producer
        return _liftAsynchronous { (observer: Signal<Value, Error>.Observer, lifetime: Lifetime, interruption: Lifetime) in
            // This producer's signal is set up first, so that it misses
            // nothing `shouldThrottle` sends while starting (`liftRight`).
            self.startWithSignal { signal, interrupter in
                interruption += interrupter
                lifetime += interrupter
                gate.startWithSignal { gateSignal, gateInterrupter in
                    interruption += gateInterrupter
                    lifetime += gateInterrupter
                    lifetime += signal._throttle(while: gateSignal, on: scheduler, interruptedBy: interruption).observe(observer)
                }
            }
        }
    }

    /// `Signal.debounce(_:on:discardWhenCompleted:)` on every run.
    /// Disposing a run interrupts this producer's run at once; the observer
    /// receives `interrupted` on `scheduler`, and no waiting value.
    @inlinable
    public func debounce(
        _ interval: TimeInterval, on scheduler: DateScheduler, discardWhenCompleted: Bool = true
    ) -> SignalProducer<Value, Error> {
        _liftAsynchronous {
            $0._debounce(interval, on: scheduler, discardWhenCompleted: discardWhenCompleted, interruptedBy: $1)
        }
    }

    /// `Signal.collect(every:on:skipEmpty:discardWhenCompleted:)` on every
    /// run. Disposing a run interrupts this producer's run at once; the
    /// observer receives `interrupted` on `scheduler`, and no collected
    /// values.
    @inlinable
    public func collect(
        every interval: DispatchTimeInterval, on scheduler: DateScheduler,
        skipEmpty: Bool = false, discardWhenCompleted: Bool = true
    ) -> SignalProducer<[Value], Error> {
        _liftAsynchronous {
            $0._collect(
                every: interval, on: scheduler, skipEmpty: skipEmpty, discardWhenCompleted: discardWhenCompleted,
                interruptedBy: $1)
        }
    }

    /// `Signal.lazyMap(on:transform:)` on every run. Disposing a run
    /// interrupts this producer's run at once; the observer receives
    /// `interrupted` on `scheduler`, and no waiting value.
    @inlinable
    public func lazyMap<U>(on scheduler: Scheduler, transform: @escaping (Value) -> U) -> SignalProducer<U, Error> {
        _liftAsynchronous { $0._lazyMap(on: scheduler, interruptedBy: $1, transform: transform) }
    }

    /// `Signal.timeout(after:raising:on:)` on every run: the timeout counts
    /// from the start.
    @inlinable
    public func timeout(
        after interval: TimeInterval, raising error: Error, on scheduler: DateScheduler
    ) -> SignalProducer<Value, Error> {
        lift { $0.timeout(after: interval, raising: error, on: scheduler) }
    }
}

extension SignalProducer where Error == Never {
    /// `Signal.timeout(after:raising:on:)` for a run that cannot fail
    /// otherwise.
    @inlinable
    public func timeout<NewError>(
        after interval: TimeInterval, raising error: NewError, on scheduler: DateScheduler
    ) -> SignalProducer<Value, NewError> {
        lift { $0.timeout(after: interval, raising: error, on: scheduler) }
    }
}
