import Synchronization

/// Work triggered by a user or a request, one execution at a time: ReactiveSwift's
/// `Action`, ReactiveObjC's `RACCommand`.
///
/// An action is made of an `execute` closure that turns an input (and the
/// action's state, if it has one) into a ``SignalProducer``: the work of one
/// execution. ``apply(_:)`` returns a producer that, each time it is
/// started, tries to execute:
/// - If the action is enabled, it becomes executing (and disabled), runs the
///   work, and forwards the work's events to the started producer, its
///   failure as ``ActionError/producerFailed(_:)``. Every event of every
///   execution is also sent on ``events`` (and its values on ``values``, its
///   errors on ``errors``, its completions on ``completed``). When the
///   execution ends (the work terminates, or the start is disposed, which
///   interrupts the work), the action is enabled again.
/// - If the action is disabled (its state says so, or an execution runs),
///   the started producer fails with ``ActionError/disabled`` and a value is
///   sent on ``disabledErrors``; nothing is executed.
///
/// Whether the action is enabled is decided when the producer *starts*, not
/// when `apply` is called.
///
/// Concurrency contract (contract 12 in docs/contracts.md):
/// - Executions are serial: when many threads start `apply`'s producers at
///   the same moment, exactly one executes and every other start fails with
///   ``ActionError/disabled``. The decision is one step under a short
///   exclusion that no user code and no observer ever runs under: the work,
///   the state's predicate and every observer run outside it.
/// - ``isExecuting`` and ``isEnabled`` change in the order the executions
///   start and end and the state changes, each change delivered once, with
///   the concurrency contract of ``MutableProperty``.
/// - Feedback cannot deadlock: `isExecuting`, `isEnabled` or `values` may
///   be bound into the action's own state, and `apply(...).start()` may be
///   called from inside any of the action's observers (it executes, or
///   fails with `.disabled` if an execution runs).
/// - A started execution retains the action until it ends; releasing every
///   other reference meanwhile loses nothing. When the action deinitializes,
///   ``events``, ``values``, ``errors``, ``completed`` and ``disabledErrors``
///   complete, as do ``isExecuting`` and ``isEnabled``, and ``lifetime``
///   ends.
public final class Action<Input, Output, Error: Swift.Error> {
    /// Starts an execution if the action is enabled: the work of one
    /// execution, or `nil` if disabled.
    @usableFromInline
    let _begin: (Input) -> SignalProducer<Output, Error>?

    @usableFromInline
    let _control: _ExecutionControl
    @usableFromInline
    let _eventsInput: Signal<Signal<Output, Error>.Event, Never>.Observer
    @usableFromInline
    let _disabledErrorsInput: Signal<(), Never>.Observer
    @usableFromInline
    let _token: Lifetime.Token

    /// The action's state property (or what it is derived from), retained
    /// for as long as the action lives.
    @usableFromInline
    let _stateOwner: AnyObject

    /// The lifetime of the action: it ends when the action deinitializes.
    public let lifetime: Lifetime

    /// Every event of every execution, in order within an execution;
    /// completes when the action deinitializes.
    public let events: Signal<Signal<Output, Error>.Event, Never>

    /// `values`, `errors` and `completed`, each made on its first use, and
    /// fed by the first observer of `events`: until one is observed, and
    /// while nothing else observes `events`, an execution sends nothing on
    /// `events`.
    @usableFromInline
    let _outputs: _ActionOutputs<Output, Error>

    /// Every value of every execution.
    ///
    /// Its observers hear each value before the observers of ``events``,
    /// as in ReactiveSwift, whenever they attached. Made on first use (the
    /// same signal every time): until then, the action spends nothing on
    /// it. An observer sees the values of the executions that send them
    /// after it attached, as with any signal. Completes when ``events``
    /// does.
    @inlinable
    public var values: Signal<Output, Never> {
        if let made = _outputs.values.load() { return made.signal }
        return _outputs.values.storeIfNil(_ActionOutput()).signal
    }

    /// Every error an execution failed with (not the `.disabled` failures:
    /// those are on ``disabledErrors``).
    ///
    /// Heard before ``events``, and made on first use, as ``values``.
    @inlinable
    public var errors: Signal<Error, Never> {
        if let made = _outputs.errors.load() { return made.signal }
        return _outputs.errors.storeIfNil(_ActionOutput()).signal
    }

    /// A value for every start of ``apply(_:)``'s producer that found the
    /// action disabled.
    public let disabledErrors: Signal<(), Never>

    /// A value for every execution that completed (not for one that failed
    /// or was interrupted).
    ///
    /// Heard before ``events``, and made on first use, as ``values``.
    @inlinable
    public var completed: Signal<(), Never> {
        if let made = _outputs.completed.load() { return made.signal }
        return _outputs.completed.storeIfNil(_ActionOutput()).signal
    }

    /// Whether an execution runs. Reading it takes no lock.
    public let isExecuting: Property<Bool>

    /// Whether a start of ``apply(_:)``'s producer would execute now: the
    /// state allows it and no execution runs. Reading it takes no lock.
    public let isEnabled: Property<Bool>

    /// The designated initializer: `admit` turns a value of `state` into the
    /// argument of an execution, or `nil` while the action is disabled.
    @inlinable
    init<State: PropertyProtocol, Admitted>(
        _state state: State,
        retaining owner: AnyObject,
        admit: @escaping (State.Value) -> Admitted?,
        execute: @escaping (Admitted, Input) -> SignalProducer<Output, Error>
    ) {
        (lifetime, _token) = Lifetime.make()
        _stateOwner = owner
        (events, _eventsInput) = Signal<Signal<Output, Error>.Event, Never>.pipe()
        // The first observer of `events`, before any other can attach.
        let outputs = _ActionOutputs<Output, Error>()
        _outputs = outputs
        events.observe { outputs.deliver($0) }
        (disabledErrors, _disabledErrorsInput) = Signal<(), Never>.pipe()

        let control = _StateControl(admitted: admit(state.value))
        self._control = control
        isExecuting = control.isExecuting
        isEnabled = control.isEnabled
        _begin = { input in control.begin().map { execute($0, input) } }
        // The state's changes arrive serialized, so `admit` runs outside the
        // control's gates and the results are applied in order. The first
        // value (the current one, again) changes nothing unless the state
        // changed since `state.value` was read above.
        state.producer
            .take(during: lifetime)
            .startWithValues { value in control.update(admit(value)) }
    }

    /// An action enabled while `isEnabled` holds for the latest value of
    /// `state`; each execution is the work `execute` makes of that value and
    /// the input. The value `execute` receives is the one the start found
    /// enabled. The action retains `state`.
    ///
    /// Thread-safety: the action may be used from any thread once made;
    /// `isEnabled` is called on whichever thread delivers `state`'s
    /// changes, one value at a time.
    ///
    /// - Complexity: O(1): makes the action's signals and properties and
    ///   starts one run of `state.producer`; `isEnabled` is called once now
    ///   and once per change of `state`.
    @inlinable
    public convenience init<State: PropertyProtocol>(
        state: State,
        enabledIf isEnabled: @escaping (State.Value) -> Bool,
        execute: @escaping (State.Value, Input) -> SignalProducer<Output, Error>
    ) {
        self.init(_state: state, retaining: state, admit: { isEnabled($0) ? $0 : nil }, execute: execute)
    }

    /// An action whose executions take the latest value of `state` and the
    /// input; enabled whenever no execution runs. The action retains `state`.
    @inlinable
    public convenience init<State: PropertyProtocol>(
        state: State,
        execute: @escaping (State.Value, Input) -> SignalProducer<Output, Error>
    ) {
        self.init(_state: state, retaining: state, admit: { .some($0) }, execute: execute)
    }

    /// An action enabled while `isEnabled` is `true` (and no execution
    /// runs). The action retains `isEnabled`.
    @inlinable
    public convenience init<P: PropertyProtocol>(
        enabledIf isEnabled: P,
        execute: @escaping (Input) -> SignalProducer<Output, Error>
    ) where P.Value == Bool {
        self.init(_state: isEnabled, retaining: isEnabled, admit: { $0 ? () : nil }, execute: { _, input in execute(input) })
    }

    /// An action enabled while `state` holds a value (not `nil`); executions
    /// take that value and the input. The action retains `state`.
    @inlinable
    public convenience init<P: PropertyProtocol, T>(
        unwrapping state: P,
        execute: @escaping (T, Input) -> SignalProducer<Output, Error>
    ) where P.Value == T? {
        self.init(_state: state, retaining: state, admit: { $0 }, execute: execute)
    }

    /// An action enabled while `state` holds a valid (or coerced) value;
    /// executions take that value (the replacement, if coerced) and the
    /// input. The action retains `state`.
    @inlinable
    public convenience init<T, E>(
        validated state: ValidatingProperty<T, E>,
        execute: @escaping (T, Input) -> SignalProducer<Output, Error>
    ) {
        self.init(_state: state.result, retaining: state, admit: { $0.value }, execute: execute)
    }

    /// An action enabled whenever no execution runs.
    ///
    /// Thread-safety: the action may be used from any thread once made.
    ///
    /// - Complexity: O(1): makes the action's signals and properties.
    @inlinable
    public convenience init(execute: @escaping (Input) -> SignalProducer<Output, Error>) {
        let always = Property(value: ())
        self.init(_state: always, retaining: always, admit: { $0 }, execute: { _, input in execute(input) })
    }

    deinit {
        _eventsInput.sendCompleted()
        _disabledErrorsInput.sendCompleted()
        _control.complete()
    }

    /// A producer that, each time it is started, executes the action with
    /// `input` if the action is enabled at that moment, and forwards the
    /// execution's events; if the action is disabled, it fails with
    /// ``ActionError/disabled`` (and sends a value on ``disabledErrors``).
    ///
    /// Disposing the start interrupts the execution: the started producer
    /// receives `interrupted`, and the action is enabled again by the time
    /// `dispose()` returns (a work that delivers through a scheduler sends
    /// its `interrupted` when the scheduler runs). The producer retains the
    /// action.
    ///
    /// Thread-safety: call `apply` and start its producer from any thread,
    /// concurrently, and from inside the action's own observers: of
    /// simultaneous starts exactly one executes.
    ///
    /// - Complexity: O(1) to make the producer. A start is O(1) to decide
    ///   (the two write gates of ``isExecuting`` and ``isEnabled``, held for
    ///   a few loads and stores), then calls `execute` once and starts its
    ///   work; each event of the execution is also sent on ``events``, O(n)
    ///   for its n observers.
    @inlinable
    public func apply(_ input: Input) -> SignalProducer<Output, ActionError<Error>> {
        // Each start's run is an `_ActionExecution`, which relays its
        // execution's work straight into the started producer's chain: no
        // root signal, and no object but the run.
        SignalProducer<Output, ActionError<Error>>(
            _depth: 0,
            makeRunObject: { [self] linkCount in _ActionExecution(action: self, input: input, linkCount: linkCount) }
        ) { run, sink in
            unsafeDowncast(run, to: _ActionExecution<Input, Output, Error>.self).sink = sink
        }
    }
}

extension Action: @unchecked Sendable {}

extension Action where Input == Void {
    /// ``apply(_:)`` with no input.
    @inlinable
    public func apply() -> SignalProducer<Output, ActionError<Error>> {
        apply(())
    }

    /// An action whose executions take the latest value of `state`;
    /// enabled whenever no execution runs. The action retains `state`.
    @inlinable
    public convenience init<P: PropertyProtocol>(
        state: P,
        execute: @escaping (P.Value) -> SignalProducer<Output, Error>
    ) {
        self.init(state: state, execute: { value, _ in execute(value) })
    }

    /// An action enabled while `state` holds a value (not `nil`); executions
    /// take that value. The action retains `state`.
    @inlinable
    public convenience init<P: PropertyProtocol, T>(
        unwrapping state: P,
        execute: @escaping (T) -> SignalProducer<Output, Error>
    ) where P.Value == T? {
        self.init(unwrapping: state, execute: { value, _ in execute(value) })
    }

    /// An action enabled while `state` holds a valid (or coerced) value;
    /// executions take that value (the replacement, if coerced). The action
    /// retains `state`.
    @inlinable
    public convenience init<T, E>(
        validated state: ValidatingProperty<T, E>,
        execute: @escaping (T) -> SignalProducer<Output, Error>
    ) {
        self.init(validated: state, execute: { value, _ in execute(value) })
    }
}

extension Action: BindingTargetProvider {
    /// A target that starts an execution for each value bound to it
    /// (`action <~ signal`); a value that arrives while the action is
    /// disabled counts as a disabled start (``disabledErrors``). The
    /// binding does not retain the action and ends with its ``lifetime``.
    public var bindingTarget: BindingTarget<Input> {
        BindingTarget(lifetime: lifetime) { [weak self] input in
            self?.apply(input).start()
        }
    }
}
