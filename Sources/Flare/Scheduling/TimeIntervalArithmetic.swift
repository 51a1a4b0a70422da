import Dispatch
import Foundation

// Arithmetic on `DispatchTimeInterval` that the schedulers and the time-based
// operators need and Dispatch does not provide. ReactiveSwift has the same
// three members (internal there, reached by its own tests); Flare makes them
// public so that code and tests written against them keep compiling.

extension DispatchTimeInterval {
    /// The interval in seconds; `.never` is `+infinity`.
    public var timeInterval: TimeInterval {
        switch self {
        case let .seconds(s): return TimeInterval(s)
        case let .milliseconds(ms): return TimeInterval(ms) / 1_000
        case let .microseconds(us): return TimeInterval(us) / 1_000_000
        case let .nanoseconds(ns): return TimeInterval(ns) / 1_000_000_000
        case .never: return .infinity
        @unknown default: return .infinity
        }
    }

    /// The interval scaled by `factor`.
    ///
    /// The result is in the finest unit (nanoseconds, then microseconds,
    /// milliseconds, seconds) that holds it in an `Int`, rounded to the
    /// nearest; so scaling a large interval loses precision instead of
    /// overflowing. `.never`, a product too large even in seconds, and a
    /// non-finite product are `.never`. Used for default leeways (10% of an
    /// interval).
    public static func * (lhs: DispatchTimeInterval, factor: Double) -> DispatchTimeInterval {
        let seconds = lhs.timeInterval * factor
        // `Int(exactly:)` is nil for a non-finite or out-of-range value, so
        // none of these conversions can trap.
        if let ns = Int(exactly: (seconds * 1_000_000_000).rounded()) { return .nanoseconds(ns) }
        if let us = Int(exactly: (seconds * 1_000_000).rounded()) { return .microseconds(us) }
        if let ms = Int(exactly: (seconds * 1_000).rounded()) { return .milliseconds(ms) }
        if let s = Int(exactly: seconds.rounded()) { return .seconds(s) }
        return .never
    }

    /// The interval with its sign flipped, in the same unit; `.never` stays
    /// `.never`. Used to move a virtual clock backwards
    /// (`TestScheduler.rewind(by:)`).
    public static prefix func - (interval: DispatchTimeInterval) -> DispatchTimeInterval {
        switch interval {
        case let .seconds(s): return .seconds(-s)
        case let .milliseconds(ms): return .milliseconds(-ms)
        case let .microseconds(us): return .microseconds(-us)
        case let .nanoseconds(ns): return .nanoseconds(-ns)
        case .never: return .never
        @unknown default: return .never
        }
    }
}

extension TimeInterval {
    /// The interval as a `DispatchTimeInterval` (see `*`: the finest unit
    /// that holds it, rounded); non-finite or out-of-range values are
    /// `.never`.
    internal var dispatchTimeInterval: DispatchTimeInterval {
        DispatchTimeInterval.seconds(1) * self
    }
}

extension Date {
    /// The date `interval` later (earlier, if negative). `.never` gives a date
    /// at infinity, after every real date, so an action scheduled there never
    /// becomes due.
    @usableFromInline
    internal func addingTimeInterval(_ interval: DispatchTimeInterval) -> Date {
        addingTimeInterval(interval.timeInterval)
    }
}
