import CFlare
import Synchronization

/// One of an `Action`'s `values`, `errors` and `completed`: a signal made on
/// first use, and its input.
@usableFromInline
final class _ActionOutput<T> {
    @usableFromInline
    let signal: Signal<T, Never>

    @usableFromInline
    let input: Signal<T, Never>.Observer

    @inlinable
    init() {
        (signal, input) = Signal<T, Never>.pipe()
    }

    /// Whether an observer is attached (`flare_core_has_observers`: this
    /// object keeps the handle).
    @inlinable
    var isObserved: Bool {
        flare_core_has_observers(signal._core.raw)
    }
}

/// One `_ActionOutput`, made on first use: whoever loads it reads its
/// fields, so the load acquires and the store releases (the CAS that
/// publishes it). `AtomicLazyReference` promises no acquiring load, and
/// ThreadSanitizer reports the read of a field of what it returned as a
/// race with the initializer on another thread.
@usableFromInline
struct _LazyActionOutput<T>: ~Copyable {
    @usableFromInline
    let storage = Atomic<Unmanaged<_ActionOutput<T>>?>(nil)

    @inlinable
    init() {}

    deinit {
        storage.load(ordering: .acquiring)?.release()
    }

    /// The output, if made.
    @inlinable
    func load() -> _ActionOutput<T>? {
        storage.load(ordering: .acquiring)?.takeUnretainedValue()
    }

    /// The output, made now unless another thread made it first (then that
    /// one, and `made` is dropped).
    @inlinable
    func storeIfNil(_ made: _ActionOutput<T>) -> _ActionOutput<T> {
        let retained = Unmanaged.passRetained(made)
        let (exchanged, current) = storage.compareExchange(
            expected: nil, desired: retained, ordering: .acquiringAndReleasing)
        if exchanged { return made }
        retained.release()
        return current.unsafelyUnwrapped.takeUnretainedValue()
    }
}

/// An `Action`'s `values`, `errors` and `completed`, each made on first use,
/// and heard before the observers of `events`, as in ReactiveSwift (which
/// derives them from `events` when the action is made, so that they are its
/// first observers).
///
/// They are fed by one observer of `events` that the action attaches when it
/// is made (`deliver`), before any other can be: each event of an execution
/// reaches the one of them it concerns, if it was made and is observed, then
/// the other observers of `events`. What their observers do happens inside
/// the delivery of `events`, as in ReactiveSwift: an execution they start
/// sends its events behind the one being delivered, everywhere. An action
/// whose signals nobody observes sends nothing on `events`
/// (`_ActionExecution.sendOnEvents`, with `hears`).
@usableFromInline
final class _ActionOutputs<Output, Error: Swift.Error> {
    @usableFromInline
    let values = _LazyActionOutput<Output>()

    @usableFromInline
    let errors = _LazyActionOutput<Error>()

    @usableFromInline
    let completed = _LazyActionOutput<Void>()

    @inlinable
    init() {}

    /// Whether an execution's `event` would reach an observer of `values`,
    /// `errors` or `completed`.
    @inlinable
    func hears(_ event: Signal<Output, Error>.Event) -> Bool {
        switch event {
        case .value: values.load()?.isObserved ?? false
        case .failed: errors.load()?.isObserved ?? false
        case .completed: completed.load()?.isObserved ?? false
        case .interrupted: false
        }
    }

    /// The first observer of `events`: hands each execution's event to the
    /// signal it concerns, and ends them when `events` ends.
    @inlinable
    func deliver(_ event: Signal<Signal<Output, Error>.Event, Never>.Event) {
        switch event {
        case let .value(.value(value)):
            if let output = values.load(), output.isObserved { output.input.send(value: value) }
        case let .value(.failed(error)):
            if let output = errors.load(), output.isObserved { output.input.send(value: error) }
        case .value(.completed):
            if let output = completed.load(), output.isObserved { output.input.send(value: ()) }
        case .value(.interrupted):
            break
        case .completed:
            values.load()?.input.sendCompleted()
            errors.load()?.input.sendCompleted()
            completed.load()?.input.sendCompleted()
        case .interrupted:
            values.load()?.input.sendInterrupted()
            errors.load()?.input.sendInterrupted()
            completed.load()?.input.sendInterrupted()
        }
    }
}
