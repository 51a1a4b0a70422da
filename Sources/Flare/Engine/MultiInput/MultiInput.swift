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

// MARK: Tuple shapes

/// How an engine's output tuple is made of the nested values of its inputs.
@usableFromInline
protocol _TupleShape {
    associatedtype Nested
    associatedtype Flat
    static func flat(_ values: Nested) -> Flat
}

/// The values as they are: two inputs, or a sequence.
@usableFromInline
enum _AsIs<Values>: _TupleShape {
    @inlinable
    static func flat(_ values: Values) -> Values { values }
}

/// The values of 3 inputs, `(a, (b, c))`, as one tuple.
@usableFromInline
enum _Tuple3<A, B, C>: _TupleShape {
    @inlinable
    static func flat(_ values: (A, (B, C))) -> (A, B, C) {
        let (a, (b, c)) = values
        return (a, b, c)
    }
}

/// The values of 4 inputs, `((a, b), (c, d))`, as one tuple.
@usableFromInline
enum _Tuple4<A, B, C, D>: _TupleShape {
    @inlinable
    static func flat(_ values: ((A, B), (C, D))) -> (A, B, C, D) {
        let ((a, b), (c, d)) = values
        return (a, b, c, d)
    }
}

/// The values of 5 inputs, `((a, b), (c, (d, e)))`, as one tuple.
@usableFromInline
enum _Tuple5<A, B, C, D, E>: _TupleShape {
    @inlinable
    static func flat(_ values: ((A, B), (C, (D, E)))) -> (A, B, C, D, E) {
        let ((a, b), (c, (d, e))) = values
        return (a, b, c, d, e)
    }
}

/// The values of 6 inputs, `((a, (b, c)), (d, (e, f)))`, as one tuple.
@usableFromInline
enum _Tuple6<A, B, C, D, E, F>: _TupleShape {
    @inlinable
    static func flat(_ values: ((A, (B, C)), (D, (E, F)))) -> (A, B, C, D, E, F) {
        let ((a, (b, c)), (d, (e, f))) = values
        return (a, b, c, d, e, f)
    }
}

/// The values of 7 inputs, `((a, (b, c)), ((d, e), (f, g)))`, as one tuple.
@usableFromInline
enum _Tuple7<A, B, C, D, E, F, G>: _TupleShape {
    @inlinable
    static func flat(_ values: ((A, (B, C)), ((D, E), (F, G)))) -> (A, B, C, D, E, F, G) {
        let ((a, (b, c)), ((d, e), (f, g))) = values
        return (a, b, c, d, e, f, g)
    }
}

/// The values of 8 inputs, `(((a, b), (c, d)), ((e, f), (g, h)))`, as one tuple.
@usableFromInline
enum _Tuple8<A, B, C, D, E, F, G, H>: _TupleShape {
    @inlinable
    static func flat(_ values: (((A, B), (C, D)), ((E, F), (G, H)))) -> (A, B, C, D, E, F, G, H) {
        let (((a, b), (c, d)), ((e, f), (g, h))) = values
        return (a, b, c, d, e, f, g, h)
    }
}

/// The values of 9 inputs, `(((a, b), (c, d)), ((e, f), (g, (h, i))))`, as one tuple.
@usableFromInline
enum _Tuple9<A, B, C, D, E, F, G, H, I>: _TupleShape {
    @inlinable
    static func flat(_ values: (((A, B), (C, D)), ((E, F), (G, (H, I))))) -> (A, B, C, D, E, F, G, H, I) {
        let (((a, b), (c, d)), ((e, f), (g, (h, i)))) = values
        return (a, b, c, d, e, f, g, h, i)
    }
}

/// The values of 10 inputs, `(((a, b), (c, (d, e))), ((f, g), (h, (i, j))))`, as one tuple.
@usableFromInline
enum _Tuple10<A, B, C, D, E, F, G, H, I, J>: _TupleShape {
    @inlinable
    static func flat(_ values: (((A, B), (C, (D, E))), ((F, G), (H, (I, J))))) -> (A, B, C, D, E, F, G, H, I, J) {
        let (((a, b), (c, (d, e))), ((f, g), (h, (i, j)))) = values
        return (a, b, c, d, e, f, g, h, i, j)
    }
}


// MARK: Engine state

/// What an engine delivers for one input event. An engine keeps its whole
/// state in one struct whose one mutating call per event returns this: a
/// captured variable is checked for exclusive access at run time at each
/// access, so one access per event, not one per variable.
@usableFromInline
enum _EngineOutput<Values, Failure: Swift.Error> {
    case nothing
    case value(Values)
    /// A value, then `completed`.
    case lastValue(Values)
    case completed
    case failed(Failure)
    case interrupted
}

extension _EngineOutput {
    /// Delivers this output downstream, the values flattened by `shape`.
    /// Called inside the funnel's delivery.
    @inlinable
    @inline(__always)
    func deliver<Shape: _TupleShape>(
        to downstream: _HeldCore<Shape.Flat, Failure>, as shape: Shape.Type
    ) where Shape.Nested == Values {
        switch self {
        case .nothing: break
        case let .value(values): downstream.deliverHeld(.value(Shape.flat(values)))
        case let .lastValue(values):
            downstream.deliverHeld(.value(Shape.flat(values)))
            downstream.deliverHeld(.completed)
        case .completed: downstream.deliverHeld(.completed)
        case let .failed(error): downstream.deliverHeld(.failed(error))
        case .interrupted: downstream.deliverHeld(.interrupted)
        }
    }
}

// MARK: Latest values (combineLatest)

/// What became of an input's event in `_LatestValues`.
@usableFromInline
enum _LatestArrival<Failure: Swift.Error> {
    /// A value, now its input's latest; `isFirst` if the input had none.
    case value(isFirst: Bool)
    case completed
    case failed(Failure)
    case interrupted
}

/// Storage for the latest value of every input.
@usableFromInline
protocol _LatestValues {
    associatedtype Tag
    associatedtype Values
    associatedtype Failure: Swift.Error

    /// Takes an input's event: keeps a value as that input's latest.
    mutating func receive(_ tag: Tag) -> _LatestArrival<Failure>

    /// The latest value of every input. Every input must have one.
    mutating func values() -> Values
}

extension Signal.Event {
    /// This event as it arrives in `_LatestValues`, its value, if any, kept
    /// in `latest`.
    @inlinable
    func _arrival(keepingIn latest: inout Value?) -> _LatestArrival<Error> {
        switch self {
        case let .value(value):
            let isFirst = latest == nil
            latest = value
            return .value(isFirst: isFirst)
        case .completed: return .completed
        case let .failed(error): return .failed(error)
        case .interrupted: return .interrupted
        }
    }
}

/// The latest value of one input.
@usableFromInline
struct _LatestSlot<Value, Failure: Swift.Error>: _LatestValues {
    @usableFromInline
    var value: Value?

    @inlinable
    init() {}

    @inlinable
    mutating func receive(_ tag: Signal<Value, Failure>.Event) -> _LatestArrival<Failure> {
        tag._arrival(keepingIn: &value)
    }

    @inlinable
    mutating func values() -> Value { value.unsafelyUnwrapped }
}

/// The latest values of the inputs of `first`, then of `second`.
@usableFromInline
struct _LatestPair<First: _LatestValues, Second: _LatestValues>: _LatestValues where First.Failure == Second.Failure {
    @usableFromInline
    var first: First

    @usableFromInline
    var second: Second

    @inlinable
    init(first: First, second: Second) {
        self.first = first
        self.second = second
    }

    @inlinable
    mutating func receive(_ tag: _Pair<First.Tag, Second.Tag>) -> _LatestArrival<First.Failure> {
        switch tag {
        case let .first(tag): first.receive(tag)
        case let .second(tag): second.receive(tag)
        }
    }

    @inlinable
    mutating func values() -> (First.Values, Second.Values) { (first.values(), second.values()) }
}

/// The latest values of inputs of one type.
@usableFromInline
struct _LatestArray<Value, Failure: Swift.Error>: _LatestValues {
    /// Fills up until every input has a value; empty from then on.
    @usableFromInline
    var partial: ContiguousArray<Value?>

    @usableFromInline
    var missing: Int

    /// Every input's value once each has one, then updated in place (the
    /// array is delivered, and copied only if an observer keeps it).
    @usableFromInline
    var latest: [Value] = []

    @inlinable
    init(count: Int) {
        partial = ContiguousArray(repeating: nil, count: count)
        missing = count
    }

    @inlinable
    mutating func receive(_ tag: (index: Int, event: Signal<Value, Failure>.Event)) -> _LatestArrival<Failure> {
        switch tag.event {
        case let .value(value):
            if missing == 0 {
                latest[tag.index] = value
                return .value(isFirst: false)
            }
            let isFirst = partial[tag.index] == nil
            if isFirst { missing -= 1 }
            partial[tag.index] = value
            return .value(isFirst: isFirst)
        case .completed: return .completed
        case let .failed(error): return .failed(error)
        case .interrupted: return .interrupted
        }
    }

    @inlinable
    mutating func values() -> [Value] {
        if !partial.isEmpty {
            latest = partial.map { $0.unsafelyUnwrapped }
            partial = []
        }
        return latest
    }
}

// MARK: Queues (zip)

/// What became of an input's event in `_QueuedValues`.
@usableFromInline
enum _ZipArrival<Values, Failure: Swift.Error> {
    /// A value that completed a tuple: this one.
    case tuple(Values)
    /// A value, queued.
    case queued
    /// The input completed; `queueIsEmpty` if no value of it is waiting.
    case completed(queueIsEmpty: Bool)
    case failed(Failure)
    case interrupted
}

/// What a value's arrival changed in a zip's queues.
@usableFromInline
struct _QueueChange {
    /// The value was queued into an empty queue: its input is now ready.
    @usableFromInline
    var filledEmpty = false

    /// How many queues the tuple that left emptied.
    @usableFromInline
    var emptied = 0

    /// The tuple that left emptied the queue of a completed input: no
    /// further tuple can be formed.
    @usableFromInline
    var exhausted = false

    @inlinable
    init() {}
}

/// A first-in first-out queue of values per input, and which inputs have
/// completed.
@usableFromInline
protocol _QueuedValues {
    associatedtype Tag
    associatedtype Values
    associatedtype Failure: Swift.Error

    /// Takes an input's event. A value, if its input's queue is empty and
    /// `othersReady` (every other input has a value waiting), makes the
    /// tuple of this value and the oldest of every other input, removed;
    /// otherwise it is queued. Notes in `change` what happened to the
    /// queues.
    mutating func receive(_ tag: Tag, othersReady: Bool, _ change: inout _QueueChange) -> _ZipArrival<Values, Failure>

    /// Removes and returns the oldest value of every input (no queue may be
    /// empty), noting in `change` the queues it empties.
    mutating func removeFirst(_ change: inout _QueueChange) -> Values
}

extension _ZipArrival {
    /// This arrival, a tuple of a part of a tree made a tuple of the whole
    /// by `whole` (which adds the oldest values of the other part).
    @inlinable
    func mapTuple<Whole>(_ whole: (Values) -> Whole) -> _ZipArrival<Whole, Failure> {
        switch self {
        case let .tuple(values): .tuple(whole(values))
        case .queued: .queued
        case let .completed(queueIsEmpty): .completed(queueIsEmpty: queueIsEmpty)
        case let .failed(error): .failed(error)
        case .interrupted: .interrupted
        }
    }
}

/// The queue of one input.
@usableFromInline
struct _QueueSlot<Value, Failure: Swift.Error>: _QueuedValues {
    @usableFromInline
    var queue = _FIFO<Value>()

    @usableFromInline
    var completed = false

    @inlinable
    init() {}

    @inlinable
    mutating func receive(
        _ tag: Signal<Value, Failure>.Event, othersReady: Bool, _ change: inout _QueueChange
    ) -> _ZipArrival<Value, Failure> {
        switch tag {
        case let .value(value):
            if queue.isEmpty {
                if othersReady { return .tuple(value) }
                change.filledEmpty = true
            }
            queue.append(value)
            return .queued
        case .completed:
            completed = true
            return .completed(queueIsEmpty: queue.isEmpty)
        case let .failed(error):
            return .failed(error)
        case .interrupted:
            return .interrupted
        }
    }

    @inlinable
    mutating func removeFirst(_ change: inout _QueueChange) -> Value {
        let value = queue.removeFirst()
        if queue.isEmpty {
            change.emptied += 1
            if completed { change.exhausted = true }
        }
        return value
    }
}

/// The queues of the inputs of `first`, then of `second`.
@usableFromInline
struct _QueuePair<First: _QueuedValues, Second: _QueuedValues>: _QueuedValues where First.Failure == Second.Failure {
    @usableFromInline
    var first: First

    @usableFromInline
    var second: Second

    @inlinable
    init(first: First, second: Second) {
        self.first = first
        self.second = second
    }

    @inlinable
    mutating func receive(
        _ tag: _Pair<First.Tag, Second.Tag>, othersReady: Bool, _ change: inout _QueueChange
    ) -> _ZipArrival<(First.Values, Second.Values), First.Failure> {
        switch tag {
        case let .first(tag):
            first.receive(tag, othersReady: othersReady, &change).mapTuple { ($0, second.removeFirst(&change)) }
        case let .second(tag):
            second.receive(tag, othersReady: othersReady, &change).mapTuple { (first.removeFirst(&change), $0) }
        }
    }

    @inlinable
    mutating func removeFirst(_ change: inout _QueueChange) -> (First.Values, Second.Values) {
        (first.removeFirst(&change), second.removeFirst(&change))
    }
}

/// The queues of inputs of one type.
@usableFromInline
struct _QueueArray<Value, Failure: Swift.Error>: _QueuedValues {
    @usableFromInline
    var queues: ContiguousArray<_FIFO<Value>>

    @usableFromInline
    var completed: ContiguousArray<Bool>

    @inlinable
    init(count: Int) {
        queues = ContiguousArray(repeating: _FIFO<Value>(), count: count)
        completed = ContiguousArray(repeating: false, count: count)
    }

    @inlinable
    mutating func receive(
        _ tag: (index: Int, event: Signal<Value, Failure>.Event), othersReady: Bool, _ change: inout _QueueChange
    ) -> _ZipArrival<[Value], Failure> {
        let index = tag.index
        switch tag.event {
        case let .value(value):
            if queues[index].isEmpty {
                if othersReady {
                    var values: [Value] = []
                    values.reserveCapacity(queues.count)
                    for input in queues.indices {
                        values.append(input == index ? value : removeFirst(of: input, &change))
                    }
                    return .tuple(values)
                }
                change.filledEmpty = true
            }
            queues[index].append(value)
            return .queued
        case .completed:
            completed[index] = true
            return .completed(queueIsEmpty: queues[index].isEmpty)
        case let .failed(error):
            return .failed(error)
        case .interrupted:
            return .interrupted
        }
    }

    @inlinable
    mutating func removeFirst(of input: Int, _ change: inout _QueueChange) -> Value {
        let value = queues[input].removeFirst()
        if queues[input].isEmpty {
            change.emptied += 1
            if completed[input] { change.exhausted = true }
        }
        return value
    }

    @inlinable
    mutating func removeFirst(_ change: inout _QueueChange) -> [Value] {
        var values: [Value] = []
        values.reserveCapacity(queues.count)
        for input in queues.indices { values.append(removeFirst(of: input, &change)) }
        return values
    }
}
