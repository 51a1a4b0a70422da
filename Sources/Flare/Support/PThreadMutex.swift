#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A mutex guarding a value, built on `pthread_mutex_t`.
///
/// Why not `Synchronization.Mutex`: on Linux it locks with raw futex system
/// calls that ThreadSanitizer does not intercept, so TSan reports every
/// access to a `Mutex`-guarded value from two threads as a race, even when
/// the lock is correct (four threads appending to a `Mutex<[Int]>` always
/// end with every element, and TSan still reports a race). The schedulers
/// run under TSan in every time-based operator test, so their locks must be
/// ones TSan understands. This is for cold paths only (the test scheduler,
/// sleep and timer bookkeeping); hot paths stay lock-free.
///
/// Thread-safety: `withLock` is mutually exclusive and not reentrant.
@usableFromInline
internal final class _PThreadMutex<Value: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: `value` is only touched inside `withLock`, under
    // `mutex`; the mutex lives at a stable heap address for its whole life.
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// Touched only under `mutex`: no dynamic exclusivity checks.
    @usableFromInline @exclusivity(unchecked) var value: Value

    @usableFromInline
    init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(mutex, nil)
        flarePrecondition(status == 0, "pthread_mutex_init failed: \(status)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value.
    @inlinable
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
