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

    /// What a `SignalProducer` can report to a logger: a run's events, and
    /// its start.
    public enum SignalProducer: String, CaseIterable, Hashable, Sendable {
        /// A start, before the start handler runs.
        case starting
        /// A start, after the start handler has returned.
        case started
        /// A value.
        case value
        /// The `completed` event.
        case completed
        /// A `failed` event.
        case failed
        /// Any terminal event (`failed`, `completed` or `interrupted`).
        case terminated
        /// The run ended.
        case disposed
        /// The `interrupted` event.
        case interrupted

        /// Every kind of event.
        @available(*, deprecated, message: "Use `allCases` instead.")
        public static var allEvents: Set<SignalProducer> { Set(allCases) }
    }
}

/// The kinds of events of `LoggingEvent.Signal` and
/// `LoggingEvent.SignalProducer`, for the reports they have in common.
protocol _LoggingKind: Hashable, RawRepresentable where RawValue == String {
    static var value: Self { get }
    static var completed: Self { get }
    static var failed: Self { get }
    static var terminated: Self { get }
    static var disposed: Self { get }
    static var interrupted: Self { get }
}

extension LoggingEvent.Signal: _LoggingKind {}
extension LoggingEvent.SignalProducer: _LoggingKind {}

/// Where `logEvents` reports: the logger, what it is told with each event,
/// and the kinds of events to report.
struct _LogContext<Kind: _LoggingKind> {
    let identifier: String
    let events: Set<Kind>
    let fileName: String
    let functionName: String
    let lineNumber: Int
    let logger: EventLogger

    /// Reports `kind` by its name, if it is to be reported.
    func report(_ kind: Kind) -> (() -> Void)? {
        guard events.contains(kind) else { return nil }
        return { [self] in logger(identifier, kind.rawValue, fileName, functionName, lineNumber) }
    }

    /// Reports `kind` followed by its payload, if it is to be reported; a
    /// payload that is `()` (a dynamic cast: also inside an `Any` or an
    /// `Optional`) is left out, as ReactiveSwift's `EventLogger` leaves it.
    func report<T>(_ kind: Kind, _: T.Type) -> ((T) -> Void)? {
        guard events.contains(kind) else { return nil }
        return { [self] payload in
            let event = payload is Void ? kind.rawValue : "\(kind.rawValue) \(payload)"
            logger(identifier, event, fileName, functionName, lineNumber)
        }
    }
}

/// Receives what `logEvents` reports: the identifier given to `logEvents`,
/// the event (`"value 3"`, `"value"` for a `Void` value, `"failed <error>"`,
/// `"completed"`, …) and the source location of the `logEvents` call.
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
    /// `"value <value>"` (`"value"` alone if it is `()`), a failure as
    /// `"failed <error>"`, the others by their name; a terminal event is followed by `"terminated"`, and
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
        _lift(_SideEffectsOperator.logging(_LogContext(
            identifier: identifier, events: events, fileName: fileName, functionName: functionName,
            lineNumber: lineNumber, logger: logger)))
    }
}

extension _SideEffectsOperator {
    /// `logEvents`: `on(...)` with closures that report to the context's
    /// logger the kinds of events it lists.
    static func logging<Kind>(_ context: _LogContext<Kind>) -> _SideEffectsOperator {
        _SideEffectsOperator(
            event: nil,
            failed: context.report(.failed, Error.self),
            completed: context.report(.completed),
            interrupted: context.report(.interrupted),
            terminated: context.report(.terminated),
            disposed: context.report(.disposed),
            value: context.report(.value, Value.self)
        )
    }
}

extension SignalProducer {
    /// `Signal.logEvents(...)` on every run: reports the events passing
    /// through to `logger`, and also each start: `"starting"` before the
    /// start handler runs, `"started"` once it has returned; `"disposed"`
    /// when the run ends.
    ///
    /// - Parameters:
    ///   - identifier: Names this producer in the log.
    ///   - events: The kinds of events to report.
    ///   - fileName: Reported with each event; defaults to the caller's file.
    ///   - functionName: Reported with each event; defaults to the caller.
    ///   - lineNumber: Reported with each event; defaults to the caller's line.
    ///   - logger: Receives the reports.
    public func logEvents(
        identifier: String = "",
        events: Set<LoggingEvent.SignalProducer> = Set(LoggingEvent.SignalProducer.allCases),
        fileName: String = #file,
        functionName: String = #function,
        lineNumber: Int = #line,
        logger: @escaping EventLogger = defaultEventLog
    ) -> SignalProducer<Value, Error> {
        let context = _LogContext(
            identifier: identifier, events: events, fileName: fileName, functionName: functionName,
            lineNumber: lineNumber, logger: logger)
        return _lift(_SideEffectsOperator.logging(context))
            ._withStartHooks(starting: context.report(.starting), started: context.report(.started))
    }
}
