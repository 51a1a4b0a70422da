/// Cold, restartable work: each start runs the start handler again, with its
/// own side effects, and delivers that run's events to the observer given
/// to `start`.
///
/// A producer is a description; nothing happens until it is started.
/// Every start (`start`, `startWithSignal`, `startWithValues` …) is an
/// independent run: its events follow the grammar of a signal (values,
/// then at most one terminal event) and are delivered serially, through the
/// same lock-free serialization point as a `Signal`, whatever threads the
/// start handler sends from. Disposing what `start` returned interrupts the
/// run: the observer receives `interrupted` (after, at most, the one
/// delivery already starting on another thread) and the run's lifetime
/// ends, running its cleanup exactly once.
///
/// Operators on a producer apply to every run. Single-input operators add
/// a link (a closure) to each run's chain, inside the same serialized
/// delivery: starting a chain of k operators makes one root signal, not k.
///
/// Thread-safety: a producer is an immutable value; start it from any
/// thread, any number of times, concurrently.
///
/// Sendable: yes: an immutable value holding immutable closures; each start
/// is its own run.
public struct SignalProducer<Value, Error: Swift.Error> {
    /// The type of the signal each run of this producer delivers its events
    /// through, as ReactiveSwift names it (`SignalProducer.ProducedSignal`).
    public typealias ProducedSignal = Signal<Value, Error>

    /// The number of links between the source and this producer's output.
    @usableFromInline
    let _depth: Int

    /// Builds one run: given the run and the sink this producer's events go
    /// to (the link at `depth`), makes the links' closures, then the
    /// source's root signal, and connects the run to it. Starts nothing.
    @usableFromInline
    let _attach: (_ProducerRun, consuming _ProducerSink<Value, Error>) -> Void

    /// Makes the run object of a start, given its number of links: a
    /// run of the source's kind and types (`_SynchronousRun`, `_HandlerRun`,
    /// `_DomainRelay`, `_ActionExecution`), which its `attach` then fills.
    /// Operators pass their source's on.
    @usableFromInline
    let _makeRunObject: (_ linkCount: Int) -> _ProducerRun

    @inlinable
    init(
        _depth depth: Int,
        makeRunObject: @escaping (_ linkCount: Int) -> _ProducerRun,
        attach: @escaping (_ProducerRun, consuming _ProducerSink<Value, Error>) -> Void
    ) {
        self._depth = depth
        self._makeRunObject = makeRunObject
        self._attach = attach
    }

    /// A producer whose every start runs `startHandler` with the observer
    /// that sends into the run and the run's lifetime.
    ///
    /// The observer accepts events from any thread; they are delivered one
    /// at a time, in the order the sends took effect. The lifetime ends when
    /// the run terminates: by a terminal event sent to the observer, by
    /// disposal of what `start` returned, or because an operator ended the
    /// run (`take(first:)` …); attach the run's cleanup to it. Releasing the
    /// observer without sending a terminal event does not end the run while
    /// what `start` returned (or an operator's hold on the run, such as a
    /// flatten's on its inner runs) lives: disposing that still interrupts
    /// the run and ends its lifetime. Once both the observer and the handle
    /// are released, the run is interrupted.
    ///
    /// Thread-safety: start the producer from any thread, any number of
    /// times at once; each start runs `startHandler` on the starting
    /// thread, before `start` returns.
    ///
    /// - Complexity: O(1) to make the producer (one closure). Each start
    ///   calls `startHandler` once and allocates the run (which serializes
    ///   the observer's sends itself, as a root signal would), its lifetime
    ///   and the observer, plus one closure per operator applied to the
    ///   producer.
    @inlinable
    public init(_ startHandler: @escaping (Signal<Value, Error>.Observer, Lifetime) -> Void) {
        // One closure per producer, capturing the handler; each run holds
        // the handler itself (see `_HandlerRun`).
        self.init(_depth: 0, makeRunObject: { linkCount in
            _HandlerRun<Value, Error>(linkCount: linkCount, handler: startHandler)
        }) { run, sink in
            unsafeDowncast(run, to: _HandlerRun<Value, Error>.self).sink = sink
        }
    }

    /// A producer whose source sends all its events inside `start`, on the
    /// starting thread, with `_ProducerRun.emit`: no root signal, no
    /// observer and no lifetime per start, only the run's state word (see
    /// `_ProducerRun`).
    @inlinable
    init(_synchronous send: @escaping (_ProducerRun, _ProducerSink<Value, Error>) -> Void) {
        self.init(_synchronous: send) { run, sink, send in send(run, sink) }
    }

    /// A synchronous producer whose source is `send` applied to `payload`
    /// (see `init(_synchronous:)`). `send` should capture nothing: the
    /// producer then allocates one closure context, its `_makeRunObject`,
    /// holding the payload, and each run holds the payload and the function
    /// itself (see `_SynchronousRun`).
    @inlinable
    init<Payload>(
        _synchronous payload: Payload,
        _ send: @escaping (_ProducerRun, _ProducerSink<Value, Error>, Payload) -> Void
    ) {
        self.init(_depth: 0, makeRunObject: { linkCount in
            _SynchronousRun<Value, Error, Payload>(linkCount: linkCount, payload: payload, send: send)
        }) { run, sink in
            unsafeDowncast(run, to: _SynchronousRun<Value, Error, Payload>.self).sink = sink
        }
    }

    /// A producer whose every start observes `signal`: each run forwards
    /// the events `signal` sends after the start. Disposing the run stops
    /// its observation of `signal` (the signal itself goes on).
    @inlinable
    public init(_ signal: Signal<Value, Error>) {
        self.init { observer, lifetime in
            lifetime += signal.observe(observer)
        }
    }

    /// A producer that sends `value`, then completes, at each start.
    @inlinable
    public init(value: Value) {
        self.init(_value: value)
    }

    /// The body of both `init(value:)`s.
    @inlinable
    init(_value value: Value) {
        // The value is the payload: one allocation per producer.
        self.init(_synchronous: value) { run, sink, value in
            if run.emit(.value(value), to: sink) { _ = run.emit(.completed, to: sink) }
        }
    }

    /// A producer that fails with `error` at each start.
    @inlinable
    public init(error: Error) {
        self.init(_synchronous: error) { run, sink, error in
            _ = run.emit(.failed(error), to: sink)
        }
    }

    /// A producer that sends the success value then completes, or fails
    /// with the failure, at each start.
    @inlinable
    public init(result: Result<Value, Error>) {
        switch result {
        case let .success(value): self.init(value: value)
        case let .failure(error): self.init(error: error)
        }
    }

    /// A producer that calls `action` at each start, sends its result, then
    /// completes.
    @inlinable
    public init(_ action: @escaping () -> Value) {
        self.init(_synchronous: { run, sink in
            if run.emit(.value(action()), to: sink) { _ = run.emit(.completed, to: sink) }
        })
    }

    /// A producer that calls `action` at each start and sends the success
    /// value then completes, or fails with the failure.
    @inlinable
    public init(_ action: @escaping () -> Result<Value, Error>) {
        self.init(_synchronous: { run, sink in
            switch action() {
            case let .success(value):
                if run.emit(.value(value), to: sink) { _ = run.emit(.completed, to: sink) }
            case let .failure(error):
                _ = run.emit(.failed(error), to: sink)
            }
        })
    }

    /// A producer that sends the values of `values`, in order, then
    /// completes, at each start. Stops iterating as soon as the run ends
    /// (disposal, or an operator such as `take(first:)`).
    @inlinable
    public init<S: Sequence>(_ values: S) where S.Element == Value {
        self.init(_sequence: values)
    }

    /// The body of both `init(_:)`s from a sequence.
    @inlinable
    init<S: Sequence>(_sequence values: S) where S.Element == Value {
        self.init(_synchronous: { run, sink in
            // Checked before pulling each element: a sequence may be lazy,
            // with side effects per element.
            var iterator = values.makeIterator()
            while !run.isInterruptRequested, let value = iterator.next() {
                guard run.emit(.value(value), to: sink) else { return }
            }
            _ = run.emit(.completed, to: sink)
        })
    }

    /// A producer that sends `first`, `second` and `tail`, then completes.
    @inlinable
    public init(values first: Value, _ second: Value, _ tail: Value...) {
        self.init(_sequence: [first, second] + tail)
    }

    /// The producer form of `base` (`base.producer`).
    @inlinable
    public init<T: SignalProducerConvertible>(_ base: T) where T.Value == Value, T.Error == Error {
        self = base.producer
    }

    /// A producer that completes at once at each start.
    @inlinable
    public static var empty: SignalProducer {
        SignalProducer(_synchronous: { run, sink in _ = run.emit(.completed, to: sink) })
    }

    /// A producer that is interrupted at once at each start
    /// (`take(first: 0)`).
    @inlinable
    static var _interrupted: SignalProducer {
        SignalProducer(_synchronous: { run, sink in _ = run.emit(.interrupted, to: sink) })
    }

    /// A producer whose runs never send any event (until disposed, which
    /// interrupts them).
    @inlinable
    public static var never: SignalProducer {
        SignalProducer { observer, lifetime in
            // Keep the input alive (releasing it would interrupt) until the
            // run ends.
            lifetime.observeEnded { withExtendedLifetime(observer) {} }
        }
    }
}

// ReactiveSwift declares these initializers a second time for producers that
// cannot fail, and code written for it relies on that: `SignalProducer(jobs)`
// with no type given then cannot fail, so `SignalProducer(jobs).flatMap(.concat)
// { job in upload(job) }` with a failable `upload` has one best `flatMap`
// instead of two equally good ones. `init(value:)` is not redeclared: its
// unlabelled trailing-closure form would compete with the async closure
// initializer (`SignalProducer { () async throws(E) -> V in … }`), making it
// ambiguous, or silently a producer of the closure.
extension SignalProducer where Error == Never {
    /// A producer that sends the values of `values`, in order, then
    /// completes, at each start; it cannot fail.
    @inlinable
    public init<S: Sequence>(_ values: S) where S.Element == Value {
        self.init(_sequence: values)
    }

    /// A producer that sends `first`, `second` and `tail`, then completes;
    /// it cannot fail.
    @inlinable
    public init(values first: Value, _ second: Value, _ tail: Value...) {
        self.init(_sequence: [first, second] + tail)
    }
}

extension SignalProducer where Error == Swift.Error {
    /// A producer that calls `action` at each start and sends its result
    /// then completes, or fails with the error it throws.
    @inlinable
    public init(_ action: @escaping () throws -> Value) {
        self.init { () -> Result<Value, Error> in Result { try action() } }
    }
}

/// A producer holds only immutable closures; starting it from several
/// threads at once is safe (each start is its own run).
extension SignalProducer: @unchecked Sendable {}

/// Something that can be represented as a `SignalProducer`.
///
/// Sendable: not required of conforming types, which ReactiveSwift code
/// declares without it; `SignalProducer` itself is `Sendable`.
public protocol SignalProducerConvertible {
    /// The type of the values sent.
    associatedtype Value
    /// The type of the error that can end it.
    associatedtype Error: Swift.Error

    /// The producer form of `self`.
    var producer: SignalProducer<Value, Error> { get }
}

/// Constrains generic code to `SignalProducer`s.
///
/// Sendable: not required of conforming types (a generic constraint only);
/// `SignalProducer` itself is `Sendable`.
public protocol SignalProducerProtocol {
    /// The type of the values sent.
    associatedtype Value
    /// The type of the error that can end it.
    associatedtype Error: Swift.Error

    /// `self`, as a `SignalProducer`.
    var producer: SignalProducer<Value, Error> { get }
}

extension SignalProducer: SignalProducerConvertible, SignalProducerProtocol {
    /// `self`.
    @inlinable
    public var producer: SignalProducer { self }
}

extension Result: SignalProducerConvertible {
    /// A producer that sends the success value then completes, or fails
    /// with the failure, at each start (`SignalProducer(result:)`).
    public var producer: SignalProducer<Success, Failure> {
        SignalProducer(result: self)
    }
}

extension Signal: SignalProducerConvertible {
    /// A producer whose every start observes this signal (see
    /// `SignalProducer.init(_: Signal)`).
    public var producer: SignalProducer<Value, Error> {
        SignalProducer(self)
    }
}
