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
    public final class Observer {
        /// The closure an observer wraps.
        public typealias Action = (Event) -> Void

        @usableFromInline
        internal let action: Action

        /// Whether `deinit` sends `interrupted`: true for the observers that
        /// feed a signal, so that dropping the last reference to a pipe's
        /// input ends the signal instead of leaving it open for ever.
        @usableFromInline
        internal let interruptsOnDeinit: Bool

        @usableFromInline
        internal init(action: @escaping Action, interruptsOnDeinit: Bool) {
            self.action = action
            self.interruptsOnDeinit = interruptsOnDeinit
        }

        /// An observer that calls `action` for every event.
        @inlinable
        public init(_ action: @escaping Action) {
            self.action = action
            self.interruptsOnDeinit = false
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
            if interruptsOnDeinit { interruptOnDeinit() }
        }

        /// Apart from `deinit`, so that releasing an ordinary observer (often
        /// from unspecialized code) instantiates no generic metadata.
        @inline(never)
        private func interruptOnDeinit() {
            action(.interrupted)
        }

        /// Sends `event` to the observer.
        @inlinable
        public func send(_ event: Event) {
            action(event)
        }

        /// Sends a value.
        @inlinable
        public func send(value: Value) {
            action(.value(value))
        }

        /// Sends a failure. Terminal.
        @inlinable
        public func send(error: Error) {
            action(.failed(error))
        }

        /// Sends `completed`. Terminal.
        @inlinable
        public func sendCompleted() {
            action(.completed)
        }

        /// Sends `interrupted`. Terminal.
        @inlinable
        public func sendInterrupted() {
            action(.interrupted)
        }
    }
}

extension Signal.Observer: @unchecked Sendable {}
