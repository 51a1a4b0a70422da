import Foundation
import Synchronization

/// What a round's terminal event leads to.
@usableFromInline
enum _RoundEnd {
    /// The event ends the whole run.
    case forward
    /// Another round starts at once.
    case again
    /// Another round starts after `interval`, on `scheduler`.
    case againAfter(TimeInterval, DateScheduler)
}

/// Runs a producer round after round, for `repeat` and `retry`: values of
/// every round are forwarded, and each round's terminal event either ends
/// the run or starts another round.
///
/// Rounds start in a loop, never by recursion: a round that ends inside its
/// own `start` (a synchronous producer) asks for the next one by counting a
/// request, which the loop already running picks up once `start` returns.
/// A million synchronous rounds take constant stack.
@usableFromInline
final class _Rounds<Value, Error: Swift.Error>: @unchecked Sendable {
    @usableFromInline
    let producer: SignalProducer<Value, Error>
    @usableFromInline
    let observer: Signal<Value, Error>.Observer
    @usableFromInline
    let lifetime: Lifetime
    @usableFromInline
    let current = SerialDisposable()
    /// The wait before the next round, for `retry(upTo:interval:on:)`:
    /// made by the first wait (most runs never wait) and tied to
    /// `lifetime` then. The scheduled action keeps this object alive
    /// meanwhile. Touched only by `receive` for a terminal event, which
    /// runs once per round, after the round before it ended: never
    /// concurrently.
    @usableFromInline
    @exclusivity(unchecked)
    var pause: SerialDisposable?
    /// Round requests not yet served; the thread that raises it from 0 runs
    /// the loop.
    @usableFromInline
    let requests = Atomic<Int>(0)
    /// The further rounds this run may still start, which `decide` counts
    /// down. Touched only by `decide`'s calls (see `pause`).
    @usableFromInline
    @exclusivity(unchecked)
    var left: Int
    /// Decides what a round's terminal event leads to, given the rounds
    /// left: the operator's, shared by every run.
    @usableFromInline
    let decide: (Signal<Value, Error>.Event, inout Int) -> _RoundEnd

    @inlinable
    init(
        _ producer: SignalProducer<Value, Error>, _ observer: Signal<Value, Error>.Observer, _ lifetime: Lifetime,
        rounds: Int, _ decide: @escaping (Signal<Value, Error>.Event, inout Int) -> _RoundEnd
    ) {
        self.producer = producer
        self.observer = observer
        self.lifetime = lifetime
        self.left = rounds
        self.decide = decide
        lifetime += current
    }

    /// A producer whose every start runs `producer` in rounds: at most
    /// `rounds` after the first, `decide` choosing what each round's end
    /// leads to and counting down the rounds left.
    @inlinable
    static func producer(
        _ producer: SignalProducer<Value, Error>, rounds: Int,
        _ decide: @escaping (Signal<Value, Error>.Event, inout Int) -> _RoundEnd
    ) -> SignalProducer<Value, Error> {
        SignalProducer { observer, lifetime in
            _Rounds(producer, observer, lifetime, rounds: rounds, decide).requestRound()
        }
    }

    @inlinable
    func requestRound() {
        guard requests.add(1, ordering: .acquiringAndReleasing).oldValue == 0 else { return }
        repeat {
            if lifetime.hasEnded { return }
            // The round's handle is in `current` before it starts, so that
            // an end of the output while a synchronous round runs (a
            // downstream `take`) stops it before its next element.
            let run = producer._makeRun { [self] event in receive(event) }
            current.inner = run
            run.startIfNotDisposed()
        } while requests.subtract(1, ordering: .acquiringAndReleasing).newValue != 0
    }

    @inlinable
    func receive(_ event: Signal<Value, Error>.Event) {
        guard event.isTerminating else {
            observer.send(event)
            return
        }
        switch decide(event, &left) {
        case .forward:
            observer.send(event)
        case .again:
            requestRound()
        case let .againAfter(interval, scheduler):
            let pause = self.pause ?? makePause()
            pause.inner = scheduler.scheduleTransferred(after: scheduler.currentDate.addingTimeInterval(interval)) { [self] in
                requestRound()
            }
        }
    }

    /// Makes `pause`, disposed with the run's lifetime (at once if that has
    /// ended: the wait assigned to it is then disposed at once too).
    @inlinable
    @inline(never)
    func makePause() -> SerialDisposable {
        let pause = SerialDisposable()
        self.pause = pause
        lifetime += pause
        return pause
    }
}

extension SignalProducer {
    /// Runs this producer `count` times in a row, forwarding the values of
    /// every run: each time a run completes, the next one starts; the
    /// last one's `completed` completes. A failure or interruption ends
    /// everything at once. `repeat(0)` completes at once without starting
    /// this producer.
    ///
    /// _Rounds start in a loop, not by recursion: any number of synchronous
    /// rounds runs in constant stack. Disposing the run interrupts the
    /// round going on.
    ///
    /// - Precondition: `count >= 0`.
    @inlinable
    public func `repeat`(_ count: Int) -> SignalProducer<Value, Error> {
        flarePrecondition(count >= 0, "repeat(_:) needs a non-negative count, got \(count)")
        if count == 0 { return .empty }
        if count == 1 { return self }
        return _Rounds.producer(self, rounds: count - 1) { event, left in
            guard event.isCompleted, left > 0 else { return .forward }
            left -= 1
            return .again
        }
    }

    /// Restarts this producer when it fails, at most `count` times, and
    /// forwards the values of every attempt; the failure of the last attempt
    /// is forwarded. `completed` and `interrupted` end everything.
    ///
    /// Restarts run in a loop: any number of synchronous attempts runs in
    /// constant stack.
    ///
    /// - Precondition: `count >= 0`.
    @inlinable
    public func retry(upTo count: Int) -> SignalProducer<Value, Error> {
        flarePrecondition(count >= 0, "retry(upTo:) needs a non-negative count, got \(count)")
        if count == 0 { return self }
        return _Rounds.producer(self, rounds: count) { event, left in
            guard case .failed = event, left > 0 else { return .forward }
            left -= 1
            return .again
        }
    }

    /// `retry(upTo:)`, waiting `interval` seconds on `scheduler` after each
    /// failure before restarting.
    ///
    /// - Precondition: `count >= 0` and `interval >= 0`.
    @inlinable
    public func retry(upTo count: Int, interval: TimeInterval, on scheduler: DateScheduler) -> SignalProducer<Value, Error> {
        flarePrecondition(count >= 0, "retry(upTo:interval:on:) needs a non-negative count, got \(count)")
        flarePrecondition(interval >= 0, "retry(upTo:interval:on:) needs a non-negative interval, got \(interval)")
        if count == 0 { return self }
        return _Rounds.producer(self, rounds: count) { event, left in
            guard case .failed = event, left > 0 else { return .forward }
            left -= 1
            return .againAfter(interval, scheduler)
        }
    }
}
