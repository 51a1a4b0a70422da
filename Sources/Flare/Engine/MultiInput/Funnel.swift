// The machinery of the multi-input operators.
//
// A single-input operator runs inside its upstream's serialized delivery and
// shares its serial word (`_liftCore`). An operator with several inputs cannot:
// its inputs are separate root signals, each delivering on whatever thread
// sends into it, possibly at the same moment. Instead of guarding the
// operator's state with a lock, every input is funnelled into one internal
// root signal, tagged with where it came from. That signal has its own serial
// word: sends from several threads are queued lock-free and delivered one at
// a time. The operator's logic is then an ordinary `_liftCore` on the internal
// signal, so its state (latest values, queues, completion flags) is only
// touched inside serialized delivery and needs no lock, and the output is
// delivered to with `deliverHeld` like any derived signal.
//
// Lifetime: the input observations belong to the internal signal's lifetime.
// The output is derived from the internal signal, which nothing else
// references or observes; so when the output terminates, or loses its last
// observer and reference, the internal signal loses its only retainer, is
// interrupted, and its lifetime ending disposes every input observation.
// When the output terminates from inside a delivery, that interruption is
// queued behind the current event and handled by the same drain, right after
// it: with no contention, before the send that caused it returns.

/// Where an event of a two-input operator came from.
@usableFromInline
enum _Pair<First, Second> {
    case first(First)
    case second(Second)
}

/// Builds a multi-input operator's output signal.
///
/// - Parameters:
///   - makeAction: Receives the output's core and returns the operator's
///     logic, called once per tagged event, always inside the internal
///     signal's serialized delivery. It delivers to the output with
///     `deliverHeld`. State it captures needs no lock.
///   - connect: Observes the inputs, sending each of their events, tagged,
///     to the given observer (which accepts events from any thread), and adds
///     the observations to the given composite, disposed when the output is
///     done. Runs after the logic is attached, so nothing sent while
///     connecting (such as the `interrupted` of an input that has already
///     terminated) is lost.
///   - interruptsWhenInputsEnd: Whether the output is interrupted when every
///     input has released its observer while the output is still open. Every
///     input terminal event reaches `makeAction` first, so this only happens
///     to operators that ignore some terminal events and can then be left
///     with no input able to end them; ReactiveSwift leaves `skip(until:)`
///     silent then, so it passes `false`.
@inlinable
func _funnel<Tag, U, F>(
    _ makeAction: (_HeldCore<U, F>) -> (Tag) -> Void,
    interruptsWhenInputsEnd: Bool = true,
    connect: (Signal<Tag, Never>.Observer, CompositeDisposable) -> Void
) -> Signal<U, F> {
    _funnel(
        withInput: { downstream, _ in makeAction(downstream) },
        interruptsWhenInputsEnd: interruptsWhenInputsEnd,
        connect: connect)
}

/// `_funnel`, whose logic also receives the internal signal's input, to send
/// itself tagged events later (scheduled actions of the time operators).
/// Holding the input keeps the internal signal open: the logic must end the
/// output itself, and release what it scheduled when the output ends.
@inlinable
func _funnel<Tag, U, F>(
    withInput makeAction: (_HeldCore<U, F>, Signal<Tag, Never>.Observer) -> (Tag) -> Void,
    interruptsWhenInputsEnd: Bool = true,
    connect: (Signal<Tag, Never>.Observer, CompositeDisposable) -> Void
) -> Signal<U, F> {
    _funnel(
        withCore: { downstream, input, _ in makeAction(downstream, input) },
        interruptsWhenInputsEnd: interruptsWhenInputsEnd,
        connect: connect)
}

/// `_funnel(withInput:)`, whose logic also receives the internal signal's
/// core, to tell from inside a delivery whether anything is queued behind
/// it (flatten's inners, `_FlattenEngine.deliverDirectly`).
@inlinable
func _funnel<Tag, U, F>(
    withCore makeAction: (_HeldCore<U, F>, Signal<Tag, Never>.Observer, _SignalCore<Tag, Never>) -> (Tag) -> Void,
    interruptsWhenInputsEnd: Bool = true,
    connect: (Signal<Tag, Never>.Observer, CompositeDisposable) -> Void
) -> Signal<U, F> {
    let observations = CompositeDisposable()
    let (tagged, input) = Signal<Tag, Never>.pipe(disposable: observations)
    let output: Signal<U, F> = tagged._liftCore { downstream in
        let handle = makeAction(downstream, input, tagged._core)
        return { event in
            if case let .value(tag) = event {
                handle(tag)
            } else if interruptsWhenInputsEnd {
                // The internal signal ends while the output is open only if
                // every input released its observer (the pipe's input).
                downstream.deliverHeld(.interrupted)
            }
        }
    }
    connect(input, observations)
    return output
}

/// A first-in first-out queue, amortized O(1) at both ends. A removed
/// element is released at once, not when the storage is compacted.
@usableFromInline
struct _FIFO<Element> {
    @usableFromInline
    var storage: ContiguousArray<Element?> = []

    @usableFromInline
    var head = 0

    @inlinable
    init() {}

    @inlinable
    var isEmpty: Bool { head == storage.count }

    @inlinable
    mutating func append(_ element: Element) {
        storage.append(element)
    }

    /// Removes and returns the oldest element. The queue must not be empty.
    @inlinable
    mutating func removeFirst() -> Element {
        let element = storage[head].unsafelyUnwrapped
        storage[head] = nil
        head += 1
        if head == storage.count {
            storage.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 32, head * 2 >= storage.count {
            storage.removeFirst(head)
            head = 0
        }
        return element
    }
}
