/// The kinds of events `logEvents` can report.
///
/// Sendable: yes (a namespace without cases).
public enum LoggingEvent: Sendable {
    /// What a `Signal` can report to a logger.
    public enum Signal: String, CaseIterable, Hashable, Sendable {
        /// A value.
        case value
        /// The `completed` event.
        case completed
        /// A `failed` event.
        case failed
        /// Any terminal event (`failed`, `completed` or `interrupted`).
        case terminated
        /// The observation of the logged signal ended.
        case disposed
        /// The `interrupted` event.
        case interrupted

        /// Every kind of event.
        @available(*, deprecated, message: "Use `allCases` instead.")
        public static var allEvents: Set<Signal> { Set(allCases) }
    }
}

/// Receives what `logEvents` reports: the identifier given to `logEvents`,
/// the event (`"value 3"`, `"failed <error>"`, `"completed"`, …) and the
/// source location of the `logEvents` call.
public typealias EventLogger = (
    _ identifier: String,
    _ event: String,
    _ fileName: String,
    _ functionName: String,
    _ lineNumber: Int
) -> Void

/// The default `EventLogger`: prints one line per event to standard output.
public func defaultEventLog(identifier: String, event: String, fileName: String, functionName: String, lineNumber: Int) {
    print("[\(identifier)] \(event) fileName: \(fileName), functionName: \(functionName), lineNumber: \(lineNumber)")
}

extension Signal {
    /// Reports the events passing through to `logger` (by default, printed
    /// to standard output), then forwards each event unchanged.
    ///
    /// Only the kinds listed in `events` are reported. A value is reported as
    /// `"value <value>"`, a failure as `"failed <error>"`, the others by
    /// their name; a terminal event is followed by `"terminated"`, and
    /// `"disposed"` is reported when the returned signal ends. Built on
    /// `on(...)`, so it has the same event and disposal semantics.
    ///
    /// - Parameters:
    ///   - identifier: Names this signal in the log.
    ///   - events: The kinds of events to report.
    ///   - fileName: Reported with each event; defaults to the caller's file.
    ///   - functionName: Reported with each event; defaults to the caller.
    ///   - lineNumber: Reported with each event; defaults to the caller's line.
    ///   - logger: Receives the reports.
    public func logEvents(
        identifier: String = "",
        events: Set<LoggingEvent.Signal> = Set(LoggingEvent.Signal.allCases),
        fileName: String = #file,
        functionName: String = #function,
        lineNumber: Int = #line,
        logger: @escaping EventLogger = defaultEventLog
    ) -> Signal<Value, Error> {
        _lift(_SideEffectsOperator.logging(identifier, events, fileName, functionName, lineNumber, logger))
    }
}

extension _SideEffectsOperator {
    /// `logEvents`: `on(...)` with closures that report to `logger` the
    /// kinds of events listed in `events`.
    @usableFromInline
    static func logging(
        _ identifier: String, _ events: Set<LoggingEvent.Signal>,
        _ fileName: String, _ functionName: String, _ lineNumber: Int, _ logger: @escaping EventLogger
    ) -> _SideEffectsOperator {
        func report(_ kind: LoggingEvent.Signal) -> (() -> Void)? {
            guard events.contains(kind) else { return nil }
            return { logger(identifier, kind.rawValue, fileName, functionName, lineNumber) }
        }
        func report<T>(_ kind: LoggingEvent.Signal, _: T.Type) -> ((T) -> Void)? {
            guard events.contains(kind) else { return nil }
            return { logger(identifier, "\(kind.rawValue) \($0)", fileName, functionName, lineNumber) }
        }
        return _SideEffectsOperator(
            event: nil,
            failed: report(.failed, Error.self),
            completed: report(.completed),
            interrupted: report(.interrupted),
            terminated: report(.terminated),
            disposed: report(.disposed),
            value: report(.value, Value.self)
        )
    }
}

extension SignalProducer {
    /// `Signal.logEvents(...)` on every run: reports the events passing
    /// through to `logger`, `"disposed"` when the run ends. One link per
    /// start.
    public func logEvents(
        identifier: String = "",
        events: Set<LoggingEvent.Signal> = Set(LoggingEvent.Signal.allCases),
        fileName: String = #file,
        functionName: String = #function,
        lineNumber: Int = #line,
        logger: @escaping EventLogger = defaultEventLog
    ) -> SignalProducer<Value, Error> {
        _lift(_SideEffectsOperator.logging(identifier, events, fileName, functionName, lineNumber, logger))
    }
}
