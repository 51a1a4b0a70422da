import Dispatch
import Foundation

// Arithmetic on `DispatchTimeInterval` that the schedulers and the time-based
// operators need and Dispatch does not provide. Internal on purpose: it is an
// implementation convenience, not API (ReactiveSwift keeps it internal too).

extension DispatchTimeInterval {
    /// The interval in seconds; `.never` is `+infinity`.
    internal var timeInterval: TimeInterval {
        switch self {
        case let .seconds(s): return TimeInterval(s)
        case let .milliseconds(ms): return TimeInterval(ms) / 1_000
        case let .microseconds(us): return TimeInterval(us) / 1_000_000
        case let .nanoseconds(ns): return TimeInterval(ns) / 1_000_000_000
        case .never: return .infinity
        @unknown default: return .infinity
        }
    }

    /// The interval scaled by `factor`, in nanoseconds. Used for default
    /// leeways (10% of an interval). `.never`, and results too large for
    /// `Int` nanoseconds (about 292 years), are `.never`; the result is
    /// rounded toward zero.
    internal static func * (lhs: DispatchTimeInterval, factor: Double) -> DispatchTimeInterval {
        let seconds = lhs.timeInterval * factor
        guard seconds.isFinite else { return .never }
        let nanoseconds = seconds * 1_000_000_000
        // Double(Int.max) rounds up to 2^63, which Int cannot hold: compare
        // with `<` so the conversion below can never trap.
        guard nanoseconds < Double(Int.max), nanoseconds > -Double(Int.max) else { return .never }
        return .nanoseconds(Int(nanoseconds))
    }

    /// The interval with its sign flipped; `.never` stays `.never`. Used to
    /// move a virtual clock backwards (`TestScheduler.rewind(by:)`).
    internal static prefix func - (interval: DispatchTimeInterval) -> DispatchTimeInterval {
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
    /// The interval as a `DispatchTimeInterval` in nanoseconds (rounded toward
    /// zero); non-finite or out-of-range values are `.never`.
    internal var dispatchTimeInterval: DispatchTimeInterval {
        DispatchTimeInterval.seconds(1) * self
    }
}

extension Date {
    /// The date `interval` later (earlier, if negative). `.never` gives a date
    /// at infinity, after every real date, so an action scheduled there never
    /// becomes due.
    internal func addingTimeInterval(_ interval: DispatchTimeInterval) -> Date {
        addingTimeInterval(interval.timeInterval)
    }
}
