/// A hot stream of events that pushes each event to every attached observer.
///
/// A signal sends any number of `value`s followed by at most one terminal
/// event (`failed`, `completed` or `interrupted`); nothing is delivered after
/// the terminal event, and sends after it are ignored.
///
/// Delivery is serialized without a lock: an observer never runs
/// concurrently with another delivery of the same signal. Events sent from
/// several threads at once are each delivered exactly once, one at a time,
/// in the order the sends took effect. A send from inside an observer is
/// queued and delivered after the current event, to every observer; it never
/// deadlocks.
///
/// Memory stays bounded when senders outpace the delivering thread: at most
/// the signal's `QueueLimit` of values sent from other threads wait behind a
/// delivery; a sender from another thread that finds the queue full waits,
/// without a lock, until the delivering thread has taken one off. Sends from
/// inside the signal's own delivery and terminal events never wait.
///
/// Observers are called in the order they were attached. An observer
/// attached by `observe` receives every event sent after `observe` returns;
/// observing a terminated signal sends `interrupted` at once.
///
/// A signal stays alive while it has an observer or a reference. When it has
/// neither, it is interrupted: its generator's lifetime ends, releasing what
/// the generator attached to it.
///
/// Cost: a send with no contention is two atomic compare-and-swaps (and two
/// plain stores to the same cache line) plus one unretained call per
/// observer; no allocation, no lock, no reference counting. A send that
/// finds a delivery in progress allocates one node. `observe` and `dispose`
/// are lock-free and O(1).
///
/// Sendable: yes, whatever `Value` is: a signal is a handle on the lock-free
/// core, whose every operation is safe from any thread. The values it
/// carries go wherever its observers run; values that are not `Sendable`
/// are the sender's and the observers' business, as in ReactiveSwift
/// (`values`, which hands them to another task, requires `Sendable`).
public final class Signal<Value, Error: Swift.Error> {
    @usableFromInline
    let _core: _SignalCore<Value, Error>

    @usableFromInline
    init(_core core: _SignalCore<Value, Error>) {
        self._core = core
    }

    /// Creates a signal and runs `generator` at once with the observer that
    /// sends into it and the lifetime of the signal.
    ///
    /// The observer may be used from any thread. The lifetime ends when the
    /// signal terminates; attach to it whatever the generator must release
    /// then. If the observer is released, the signal is interrupted.
    ///
    /// - Parameters:
    ///   - queueLimit: How many values sent from other threads may wait
    ///     behind a delivery in progress before such a sender waits for the
    ///     delivering thread (contract 9). Sends from inside the signal's
    ///     own delivery and terminal events never wait.
    ///   - generator: Called at once with the signal's input and lifetime.
    @inlinable
    public convenience init(queueLimit: QueueLimit = .default, _ generator: (Observer, Lifetime) -> Void) {
        let core = _SignalCore<Value, Error>(queueLimit: queueLimit)
        self.init(_core: core)
        let input = Observer(_action: { [core] event in core.send(event) }, interruptsOnDeinit: true)
        generator(input, core.lifetime)
    }

    deinit {
        _core.dropRetainer()
    }

    /// A signal and the observer that sends into it.
    ///
    /// Thread-safety: call from any thread. The input may be sent to from
    /// any number of threads at once: the signal delivers one event at a
    /// time.
    ///
    /// - Complexity: O(1): a fixed number of allocations (the signal, its
    ///   core, serial word and lifetime, and the input).
    ///
    /// - Parameters:
    ///   - disposable: Disposed when the signal terminates.
    ///   - queueLimit: How many values sent from other threads may wait
    ///     behind a delivery in progress before such a sender waits for the
    ///     delivering thread (contract 9). Sends from inside the signal's own
    ///     delivery and terminal events never wait.
    /// - Returns: The signal, and its input. Sending to the input from any
    ///   thread sends into the signal; releasing the input interrupts it.
    @inlinable
    public static func pipe(disposable: Disposable? = nil, queueLimit: QueueLimit = .default) -> (output: Signal, input: Observer) {
        let core = _SignalCore<Value, Error>(queueLimit: queueLimit)
        let output = Signal(_core: core)
        if let disposable { core.lifetime += disposable }
        let input = Observer(_action: { [core] event in core.send(event) }, interruptsOnDeinit: true)
        return (output, input)
    }

    /// A signal that never sends any event.
    public static var never: Signal {
        Signal { observer, lifetime in
            // Keep the input alive (releasing it would interrupt) until the
            // signal ends, which happens once it is neither referenced nor
            // observed.
            lifetime.observeEnded { withExtendedLifetime(observer) {} }
        }
    }

    /// A signal that completes at once.
    public static var empty: Signal {
        Signal { observer, _ in observer.sendCompleted() }
    }

    /// Attaches `observer`.
    ///
    /// Thread-safety: lock-free; call from any thread, concurrently with
    /// sends, other observes and disposals, and from inside an observer of
    /// this signal. `observer` receives every event sent after `observe`
    /// returns, never two at once.
    ///
    /// - Complexity: O(1) whatever the number of observers: allocates one
    ///   entry and the disposable.
    ///
    /// - Returns: A disposable that detaches the observer, or `nil` if the
    ///   signal has already terminated (the observer is then sent
    ///   `interrupted`).
    @inlinable
    @discardableResult
    public func observe(_ observer: Observer) -> Disposable? {
        _core.observe(observer)
    }
}

extension Signal: @unchecked Sendable {}

extension Signal {
    /// Attaches a closure that receives every event.
    @inlinable
    @discardableResult
    public func observe(_ action: @escaping Observer.Action) -> Disposable? {
        observe(Observer(action))
    }

    /// Attaches a closure that receives values and failures as `Result`s.
    ///
    /// Costs what `observe(_:)` costs: the closure is called directly, not
    /// through a wrapper.
    @inlinable
    @discardableResult
    public func observeResult(_ action: @escaping (Result<Value, Error>) -> Void) -> Disposable? {
        observe(Observer(_handler: .result(action)))
    }

    /// Attaches a closure called when the signal completes.
    @inlinable
    @discardableResult
    public func observeCompleted(_ action: @escaping () -> Void) -> Disposable? {
        observe(Observer(_handler: .completed(action)))
    }

    /// Attaches a closure called when the signal fails.
    @inlinable
    @discardableResult
    public func observeFailed(_ action: @escaping (Error) -> Void) -> Disposable? {
        observe(Observer(_handler: .failed(action)))
    }

    /// Attaches a closure called when the signal is interrupted.
    @inlinable
    @discardableResult
    public func observeInterrupted(_ action: @escaping () -> Void) -> Disposable? {
        observe(Observer(_handler: .interrupted(action)))
    }

    /// Attaches a closure that receives every value.
    ///
    /// Costs what `observe(_:)` costs: one allocation for the observer, and
    /// per value one direct call of `action`, with no wrapper in between.
    @inlinable
    @discardableResult
    public func observeValues(_ action: @escaping (Value) -> Void) -> Disposable? {
        observe(Observer(_handler: .value(action)))
    }
}
