// The typed inputs of `combineLatest` and `zip`.
//
// Each operator has one engine, for every arity and form (instance, static
// 2 to 10, sequence, and the same on producers). The engine is generic over
// an input list, which says how the inputs are observed and how their values
// are kept, with no type erasure and no cast:
//
// - Inputs of different types (the instance and static forms) are a
//   balanced tree of pairs, `((a, b), (c, (d, e)))`. An input's event
//   travels through the funnel tagged with its path in the tree
//   (`Pair.second(.first(event))`), so its type is known where it arrives:
//   in a tree of typed slots of the same shape, which keep the latest value
//   or the queue of each input. The values of every input come out as
//   nested pairs, which the per-arity `TupleN` shape makes one flat tuple.
// - Inputs of one type (the sequence forms) are an array; an event is
//   tagged with its input's index.
//
// Once a form is specialized, the slots and the shape are inlined into the
// engine's one switch. An event is tagged where its input is observed, by a
// closure per level of the tree above the input (one for two inputs, at
// most four for ten). (Not a generic path type: it grows with the depth,
// and the optimizer stops specializing a recursion whose generic arguments
// grow, which left ten inputs unspecialized and five times slower.)
//
// Parameter packs (`each V`) do not serve here: an event sent into input k
// must reach slot k, and a pack can neither be indexed nor be the payload of
// an enum case ("enums cannot declare a type pack"), so it could only travel
// erased.

// MARK: Input lists

/// The inputs of a multi-input operator and the typed storage of their
/// values.
@usableFromInline
protocol _InputList {
    /// An event of one input, tagged with which input it is.
    associatedtype Tag
    /// One value of every input.
    associatedtype Values
    associatedtype Failure: Swift.Error
    /// A latest value per input (`combineLatest`).
    associatedtype Latest: _LatestValues
    where Latest.Tag == Tag, Latest.Values == Values, Latest.Failure == Failure
    /// A queue of values per input (`zip`).
    associatedtype Queues: _QueuedValues
    where Queues.Tag == Tag, Queues.Values == Values, Queues.Failure == Failure

    /// The number of inputs.
    var count: Int { get }

    /// Empty storage for the latest value of every input.
    func makeLatest() -> Latest

    /// Empty queues, one per input.
    func makeQueues() -> Queues

    /// Observes every input, first to last, sending each event into `input`
    /// tagged as this list's `Tag`.
    func observe(into input: Signal<Tag, Never>.Observer, _ observations: CompositeDisposable)

    /// `observe(into:_:)` for a list inside a tree: each tag is then tagged
    /// with `tagging`, its path from this list to the root.
    func observe<Root>(
        tagging: @escaping (Tag) -> Root, into input: Signal<Root, Never>.Observer,
        _ observations: CompositeDisposable)
}

/// One input, of any value type: a leaf of the tree.
@usableFromInline
struct _SingleInput<Value, Failure: Swift.Error>: _InputList {
    @usableFromInline
    typealias Tag = Signal<Value, Failure>.Event

    @usableFromInline
    typealias Values = Value

    @usableFromInline
    let signal: Signal<Value, Failure>

    @inlinable
    init(_ signal: Signal<Value, Failure>) {
        self.signal = signal
    }

    @inlinable
    var count: Int { 1 }

    @inlinable
    func makeLatest() -> _LatestSlot<Value, Failure> { _LatestSlot() }

    @inlinable
    func makeQueues() -> _QueueSlot<Value, Failure> { _QueueSlot() }

    @inlinable
    func observe(into input: Signal<Tag, Never>.Observer, _ observations: CompositeDisposable) {
        observations += signal.observe { input.send(value: $0) }
    }

    @inlinable
    func observe<Root>(
        tagging: @escaping (Tag) -> Root, into input: Signal<Root, Never>.Observer,
        _ observations: CompositeDisposable
    ) {
        observations += signal.observe { input.send(value: tagging($0)) }
    }
}

/// The inputs of `first`, then those of `second`: a node of the tree.
@usableFromInline
struct _InputPair<First: _InputList, Second: _InputList>: _InputList where First.Failure == Second.Failure {
    @usableFromInline
    typealias Tag = _Pair<First.Tag, Second.Tag>

    @usableFromInline
    typealias Values = (First.Values, Second.Values)

    @usableFromInline
    typealias Failure = First.Failure

    @usableFromInline
    let first: First

    @usableFromInline
    let second: Second

    @inlinable
    init(_ first: First, _ second: Second) {
        self.first = first
        self.second = second
    }

    @inlinable
    var count: Int { first.count + second.count }

    @inlinable
    func makeLatest() -> _LatestPair<First.Latest, Second.Latest> {
        _LatestPair(first: first.makeLatest(), second: second.makeLatest())
    }

    @inlinable
    func makeQueues() -> _QueuePair<First.Queues, Second.Queues> {
        _QueuePair(first: first.makeQueues(), second: second.makeQueues())
    }

    @inlinable
    func observe(into input: Signal<Tag, Never>.Observer, _ observations: CompositeDisposable) {
        first.observe(tagging: { .first($0) }, into: input, observations)
        second.observe(tagging: { .second($0) }, into: input, observations)
    }

    @inlinable
    func observe<Root>(
        tagging: @escaping (Tag) -> Root, into input: Signal<Root, Never>.Observer,
        _ observations: CompositeDisposable
    ) {
        first.observe(tagging: { tagging(.first($0)) }, into: input, observations)
        second.observe(tagging: { tagging(.second($0)) }, into: input, observations)
    }
}

/// Any number of inputs of one value type, the sequence forms.
@usableFromInline
struct _InputArray<Value, Failure: Swift.Error>: _InputList {
    @usableFromInline
    typealias Tag = (index: Int, event: Signal<Value, Failure>.Event)

    @usableFromInline
    typealias Values = [Value]

    @usableFromInline
    let signals: [Signal<Value, Failure>]

    @inlinable
    init(_ signals: [Signal<Value, Failure>]) {
        self.signals = signals
    }

    @inlinable
    var count: Int { signals.count }

    @inlinable
    func makeLatest() -> _LatestArray<Value, Failure> { _LatestArray(count: signals.count) }

    @inlinable
    func makeQueues() -> _QueueArray<Value, Failure> { _QueueArray(count: signals.count) }

    @inlinable
    func observe(into input: Signal<Tag, Never>.Observer, _ observations: CompositeDisposable) {
        for (index, signal) in signals.enumerated() {
            observations += signal.observe { input.send(value: (index, $0)) }
        }
    }

    @inlinable
    func observe<Root>(
        tagging: @escaping (Tag) -> Root, into input: Signal<Root, Never>.Observer,
        _ observations: CompositeDisposable
    ) {
        for (index, signal) in signals.enumerated() {
            observations += signal.observe { input.send(value: tagging((index, $0))) }
        }
    }
}

/// Funnels the inputs of `inputs` into the logic `makeAction` returns,
/// each event tagged with its input.
@inlinable
func _funnel<Inputs: _InputList, U>(
    _ inputs: Inputs, _ makeAction: (_HeldCore<U, Inputs.Failure>) -> (Inputs.Tag) -> Void
) -> Signal<U, Inputs.Failure> {
    _funnel(makeAction) { input, observations in
        inputs.observe(into: input, observations)
    }
}
