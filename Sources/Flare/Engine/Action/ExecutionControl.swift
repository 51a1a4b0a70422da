/// Whether an `Action` may start an execution and whether one runs: the
/// state that starts of `apply`'s producers, the ends of executions and the
/// changes of the action's state move, and that `isExecuting` and
/// `isEnabled` publish.
///
/// Every transition happens holding the write gates of both properties'
/// channels (`isExecuting`'s, then `isEnabled`'s: the one order anything
/// takes both in), under which no observer and no user code ever runs (the
/// state's predicate runs before a transition, the execution's producer
/// after it). Hence:
/// - a start decides and marks "executing" in one step: of many threads
///   starting at the same moment, exactly one executes;
/// - the transitions reach `isExecuting` and `isEnabled` in the order they
///   happened: each changed value is staged on its property under the
///   gates (published and queued, `_PropertyChannel.stageHoldingGate`) and
///   delivered once the gates are left, by the thread that found the
///   property's serial word idle or by the delivery in progress it queued
///   behind; a value nobody observes is published and not queued;
/// - a transition made from inside an observer of either property (a
///   feedback loop: `isExecuting` bound into the state) is neither a
///   deadlock nor out of order: the gates are free while observers run,
///   and the new value is queued behind the delivery in progress.
///
/// The gates (`_WriteGate`: spin, yield, then park) are held for a few
/// loads and stores (never across a wait for anything but another
/// transition, or a start of one of the properties' producers, which holds
/// one gate for an O(1) attach).
@usableFromInline
class _ExecutionControl: @unchecked Sendable {
    /// Whether the action's state allows an execution. Under the gates;
    /// set with the admitted state (`_StateControl.admitted`).
    @usableFromInline
    @exclusivity(unchecked)
    final var stateAllows: Bool

    /// Whether an execution runs. Under the gates.
    @usableFromInline
    @exclusivity(unchecked)
    final var executing = false

    @usableFromInline
    final let executingChannel: _PropertyChannel<Bool>
    @usableFromInline
    final let enabledChannel: _PropertyChannel<Bool>

    /// The action's `isExecuting` and `isEnabled`: views of the channels.
    @usableFromInline
    final let isExecuting: Property<Bool>
    @usableFromInline
    final let isEnabled: Property<Bool>

    @usableFromInline
    init(stateAllows: Bool) {
        self.stateAllows = stateAllows
        let (executingChannel, executingSignal) = _PropertyChannel.make(false)
        let (enabledChannel, enabledSignal) = _PropertyChannel.make(stateAllows)
        self.executingChannel = executingChannel
        self.enabledChannel = enabledChannel
        isExecuting = Property(channel: executingChannel, signal: executingSignal)
        isEnabled = Property(channel: enabledChannel, signal: enabledSignal)
    }

    /// What `isExecuting` and `isEnabled` show, as of the last transition.
    @usableFromInline
    typealias Published = (executing: Bool, enabled: Bool)

    /// Under the gates: the values the properties show.
    @inlinable
    final var published: Published { (executing, stateAllows && !executing) }

    /// Enters the gates; returns what the properties show, for
    /// `leave(from:)`.
    @inlinable
    @inline(__always)
    final func enter() -> Published {
        executingChannel.gate.enter("Action")
        enabledChannel.gate.enter("Action")
        return published
    }

    /// Leaves the gates, having changed nothing.
    @inlinable
    @inline(__always)
    final func leaveUnchanged() {
        enabledChannel.gate.leave()
        executingChannel.gate.leave()
    }

    /// Stages the values that changed since `old` on their properties,
    /// leaves the gates, then delivers what this thread must: `isEnabled`
    /// first, then `isExecuting`, the order in which ReactiveSwift
    /// publishes them when an execution starts and when it ends.
    @inlinable
    @inline(__always)
    final func leave(from old: Published) {
        let new = published
        let deliverEnabled = old.enabled != new.enabled && enabledChannel.stageHoldingGate(new.enabled)
        let deliverExecuting = old.executing != new.executing && executingChannel.stageHoldingGate(new.executing)
        leaveUnchanged()
        if deliverEnabled { enabledChannel.deliverStaged(new.enabled) }
        if deliverExecuting { executingChannel.deliverStaged(new.executing) }
    }

    /// An execution has ended (completed, failed, interrupted, or its start
    /// was disposed): the action may execute again.
    @inlinable
    final func end() {
        let old = enter()
        executing = false
        leave(from: old)
    }

    /// The action has deinitialized: `isExecuting` and `isEnabled` complete
    /// after the changes already queued.
    final func complete() {
        executingChannel.complete()
        enabledChannel.complete()
    }
}

/// An `_ExecutionControl` that also holds the action's state as its
/// executions take it: `admitted`, the argument of the next execution, or
/// `nil` while the state disables the action.
@usableFromInline
final class _StateControl<Admitted>: _ExecutionControl, @unchecked Sendable {
    /// Under the gates; `stateAllows == (admitted != nil)`.
    @usableFromInline
    @exclusivity(unchecked)
    var admitted: Admitted?

    @inlinable
    init(admitted: Admitted?) {
        self.admitted = admitted
        super.init(stateAllows: admitted != nil)
    }

    /// Starts an execution if the action is enabled: marks it executing and
    /// returns the state it runs with, in one step. `nil`: disabled.
    @inlinable
    func begin() -> Admitted? {
        let old = enter()
        guard !executing, let argument = admitted else {
            leaveUnchanged()
            return nil
        }
        executing = true
        leave(from: old)
        return argument
    }

    /// The action's state changed; `admitted` is what the action's predicate
    /// made of it (computed before, outside the gates: the state's changes
    /// arrive serialized, so they are applied in order).
    @inlinable
    func update(_ admitted: Admitted?) {
        let old = enter()
        self.admitted = admitted
        stateAllows = admitted != nil
        leave(from: old)
    }
}
