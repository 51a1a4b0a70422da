import Dispatch
import Foundation

extension SignalProducer {
    /// Starts this producer on `scheduler`: each start schedules the start
    /// handler there (with the operators applied before `start(on:)`), and
    /// forwards its events. Disposing before the scheduled start runs means
    /// it never runs.
    @inlinable
    public func start(on scheduler: Scheduler) -> SignalProducer<Value, Error> {
        SignalProducer { observer, lifetime in
            lifetime += scheduler.scheduleTransferred {
                self._start(observer, during: lifetime)
            }
        }
    }
}

extension SignalProducer where Value == Date, Error == Never {
    /// A producer whose every start sends the scheduler's current date every
    /// `interval`, the first time `interval` after the start, with a leeway
    /// of 10% of `interval`. Never completes; dispose the run to stop it.
    ///
    /// - Precondition: `interval` is not negative.
    public static func timer(interval: DispatchTimeInterval, on scheduler: DateScheduler) -> SignalProducer<Date, Never> {
        timer(interval: interval, on: scheduler, leeway: interval * 0.1)
    }

    /// A producer whose every start sends the scheduler's current date every
    /// `interval`, the first time `interval` after the start, each tick at
    /// most `leeway` late. Never completes; dispose the run to stop it.
    ///
    /// - Precondition: `interval` and `leeway` are not negative.
    public static func timer(
        interval: DispatchTimeInterval, on scheduler: DateScheduler, leeway: DispatchTimeInterval
    ) -> SignalProducer<Date, Never> {
        flarePrecondition(interval.timeInterval >= 0, "timer(interval:on:leeway:) needs a non-negative interval, got \(interval)")
        flarePrecondition(leeway.timeInterval >= 0, "timer(interval:on:leeway:) needs a non-negative leeway, got \(leeway)")
        return SignalProducer { observer, lifetime in
            lifetime += scheduler.scheduleTransferred(
                after: scheduler.currentDate.addingTimeInterval(interval), interval: interval, leeway: leeway
            ) {
                observer.send(value: scheduler.currentDate)
            }
        }
    }
}

extension SignalProducer where Error == Never {
    /// A producer whose every start sends the elements of `values`, one
    /// every `interval` (the first `interval` after the start), then
    /// completes one `interval` after the last, as in ReactiveSwift: each
    /// tick pulls the next element when it is due, and the tick that finds
    /// none completes (an empty sequence completes after one `interval`).
    ///
    /// - Precondition: `interval` is not negative.
    public static func interval<S: Sequence>(
        _ values: S, interval: DispatchTimeInterval, on scheduler: DateScheduler
    ) -> SignalProducer<Value, Never> where S.Element == Value {
        flarePrecondition(interval.timeInterval >= 0, "interval(_:interval:on:) needs a non-negative interval, got \(interval)")
        return SignalProducer { observer, lifetime in
            // The scheduler runs one action of a repeating schedule at a
            // time, so the iterator needs no lock, nor Swift's dynamic
            // exclusivity checks (`_DeliveryState`).
            let iterator = _DeliveryState(values.makeIterator())
            lifetime += scheduler.scheduleTransferred(
                after: scheduler.currentDate.addingTimeInterval(interval), interval: interval, leeway: interval * 0.1
            ) {
                if let value = iterator.value.next() {
                    observer.send(value: value)
                } else {
                    observer.sendCompleted()
                }
            }
        }
    }
}

extension SignalProducer where Value == Int, Error == Never {
    /// A producer whose every start sends 0, 1, 2 … one every `interval`
    /// (the first `interval` after the start). Never completes; dispose the
    /// run to stop it.
    ///
    /// - Precondition: `interval` is not negative.
    public static func interval(_ interval: DispatchTimeInterval, on scheduler: DateScheduler) -> SignalProducer<Int, Never> {
        SignalProducer.interval(0..., interval: interval, on: scheduler)
    }
}
