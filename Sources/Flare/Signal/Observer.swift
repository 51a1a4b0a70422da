import Synchronization

extension Signal {
    /// Receives a signal's events.
    ///
    /// An observer is a closure and nothing more: `send(_:)` calls it. Attach
    /// one to a signal with `Signal.observe(_:)`; the signal then calls it for
    /// every event, one at a time. The input side of `Signal.pipe()` and the
    /// observer handed to a `Signal` generator are observers too: sending to
    /// them sends into the signal.
    ///
    /// Thread-safety: an observer holds no state of its own; whether `send`
    /// may be called from several threads depends on the closure. The
    /// observers Flare hands out (pipe inputs, generator observers) accept
    /// events from any thread.
    ///
    /// Sendable: yes. The observers Flare hands out accept events from any
    /// thread; an observer made from a closure calls that closure on whatever
    /// thread sends to it, as in ReactiveSwift (the closure is a plain
    /// `@escaping` one, not `@Sendable`, so that ReactiveSwift code compiles
    /// unchanged).
    public final class Observer {
        /// The closure an observer wraps.
        public typealias Action = (Event) -> Void

        /// What the observer calls: a closure for every event, or the one
        /// closure an `observe…` convenience was given, kept as it is. A
        /// convenience that wrapped its closure in an `Action` would cost
        /// every attached observer one more allocation (the wrapper's
        /// context) and every delivery one more indirect call; the switch
        /// that replaces them is a compare on a byte the call loads anyway.
        @usableFromInline
        internal enum _Handler {
            case event(Action)
            case value((Value) -> Void)
            case result((Result<Value, Error>) -> Void)
            case failed((Error) -> Void)
            case completed(() -> Void)
            case interrupted(() -> Void)
        }

        @usableFromInline
        internal let _handler: _Handler

        /// Whether `deinit` sends `interrupted`: true for the observers that
        /// feed a signal, so that dropping the last reference to a pipe's
        /// input ends the signal instead of leaving it open for ever; cleared
        /// by the first terminal event sent through the observer, after
        /// which an `interrupted` would be ignored anyway. `deinit` runs
        /// unspecialized and would look up the event type's metadata to
        /// build that `interrupted`: a signal made per producer start (an
        /// operator lifted with `lift`, `timeout`) would pay it at every
        /// start. Relaxed: the last release of the observer orders every
        /// send before `deinit`; senders on other threads only ever store
        /// `false`.
        @usableFromInline
        internal let _interruptsOnDeinit: Atomic<Bool>

        @usableFromInline
        internal init(_action action: @escaping Action, interruptsOnDeinit: Bool) {
            self._handler = .event(action)
            self._interruptsOnDeinit = Atomic(interruptsOnDeinit)
        }

        /// An observer of one kind of event, for the `observe…` conveniences.
        @usableFromInline
        internal init(_handler handler: _Handler) {
            self._handler = handler
            self._interruptsOnDeinit = Atomic(false)
        }

        /// An observer that calls `action` for every event.
        @inlinable
        public init(_ action: @escaping Action) {
            self._handler = .event(action)
            self._interruptsOnDeinit = Atomic(false)
        }

        /// An observer that calls the closure matching each kind of event.
        @inlinable
        public convenience init(
            value: ((Value) -> Void)? = nil,
            failed: ((Error) -> Void)? = nil,
            completed: (() -> Void)? = nil,
            interrupted: (() -> Void)? = nil
        ) {
            self.init { event in
                switch event {
                case let .value(v): value?(v)
                case let .failed(error): failed?(error)
                case .completed: completed?()
                case .interrupted: interrupted?()
                }
            }
        }

        deinit {
            if _interruptsOnDeinit.load(ordering: .relaxed) { interruptOnDeinit() }
        }

        /// Apart from `deinit`, so that releasing an ordinary observer (often
        /// from unspecialized code) instantiates no generic metadata. Always
        /// unspecialized (a deinit is), so it goes straight to the handler:
        /// through `send(_:)` it would build the event, switch on it and
        /// build it again, looking up the event type's metadata each time.
        @inline(never)
        private func interruptOnDeinit() {
            Self._sendInterrupted(to: _handler)
        }

        /// Sends `event` to the observer.
        ///
        /// Thread-safety: what the observer's closure allows. The observers
        /// Flare hands out (a pipe's input, a generator's or a start
        /// handler's observer) accept events from any number of threads at
        /// once: the signal delivers them one at a time, in the order the
        /// sends took effect.
        ///
        /// - Complexity: one call of the closure. Into a signal: O(n) for
        ///   the n observers of the signal and of the signals derived from
        ///   it (each operator's closure included) when no delivery is in
        ///   progress, after which the sending thread also delivers what
        ///   other threads queued meanwhile; otherwise O(1): one pooled node
        ///   queued behind the delivery in progress. A value sent from
        ///   another thread waits while the signal's `QueueLimit` of values
        ///   is queued; terminal events and sends from inside the delivery
        ///   never wait.
        @inlinable
        public func send(_ event: Event) {
            switch event {
            case let .value(value): send(value: value)
            case let .failed(error): send(error: error)
            case .completed: sendCompleted()
            case .interrupted: sendInterrupted()
            }
        }

        /// Sends a value.
        @inlinable
        public func send(value: Value) {
            Self._send(value: value, to: _handler)
        }

        /// Sends a failure. Terminal.
        @inlinable
        public func send(error: Error) {
            _interruptsOnDeinit.store(false, ordering: .relaxed)
            Self._send(error: error, to: _handler)
        }

        /// Sends `completed`. Terminal.
        @inlinable
        public func sendCompleted() {
            _interruptsOnDeinit.store(false, ordering: .relaxed)
            Self._sendCompleted(to: _handler)
        }

        /// Sends `interrupted`. Terminal.
        @inlinable
        public func sendInterrupted() {
            _interruptsOnDeinit.store(false, ordering: .relaxed)
            Self._sendInterrupted(to: _handler)
        }

        // The handler is switched on as a `borrowing` parameter: binding the
        // payload of a switch over the stored property itself copies the
        // closure (a retain and a release around every call, which the send
        // path must not have: Tests/check-send-path.sh); a borrowed one is
        // called in place.

        @inlinable
        @inline(__always)
        static func _send(value: Value, to handler: borrowing _Handler) {
            switch handler {
            case let .event(action): action(.value(value))
            case let .value(action): action(value)
            case let .result(action): action(.success(value))
            case .failed, .completed, .interrupted: break
            }
        }

        @inlinable
        @inline(__always)
        static func _send(error: Error, to handler: borrowing _Handler) {
            switch handler {
            case let .event(action): action(.failed(error))
            case let .result(action): action(.failure(error))
            case let .failed(action): action(error)
            case .value, .completed, .interrupted: break
            }
        }

        @inlinable
        @inline(__always)
        static func _sendCompleted(to handler: borrowing _Handler) {
            switch handler {
            case let .event(action): action(.completed)
            case let .completed(action): action()
            case .value, .result, .failed, .interrupted: break
            }
        }

        @inlinable
        @inline(__always)
        static func _sendInterrupted(to handler: borrowing _Handler) {
            switch handler {
            case let .event(action): action(.interrupted)
            case let .interrupted(action): action()
            case .value, .result, .failed, .completed: break
            }
        }
    }
}

extension Signal.Observer: @unchecked Sendable {}
