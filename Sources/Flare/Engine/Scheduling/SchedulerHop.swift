import CFlare
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

// On producers, the time operators apply the signal operator to every run
// with `_liftAsynchronous`: like on a signal, each has a serialization point
// of its own, for the events its scheduler sends, and disposing a run stops
// its upstream at once and delivers `interrupted` on the scheduler, behind
// what the operator had scheduled, which is dropped (see `_SchedulerHop`).

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
        scheduler.enqueueTransferred { self.deliverScheduled(event) }
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
        scheduler.enqueueTransferred { output.send(.interrupted) }
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
}
