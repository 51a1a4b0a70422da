import Flare
import Foundation
import Synchronization

/// A value behind a lock ThreadSanitizer understands. `Synchronization.Mutex`
/// locks with raw futex calls that TSan does not intercept on Linux, so data
/// it guards shows up as false races; NSLock is a pthread mutex.
public final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    public init(_ value: Value) { self.value = value }

    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

/// Records what observers receive, from any thread.
public final class Recorder<T: Sendable>: @unchecked Sendable {
    public init() {}

    private let storage = Locked<[T]>([])

    public func append(_ item: T) { storage.withLock { $0.append(item) } }

    public var items: [T] { storage.withLock { $0 } }
}

/// A class whose release tests can watch through a weak reference.
public final class Canary: @unchecked Sendable {
    public init() {}
}

/// Counts up, from any thread.
public final class Counter: @unchecked Sendable {
    public init() {}

    public let value = Atomic<Int>(0)
    public func increment() { value.add(1, ordering: .relaxed) }
    public var count: Int { value.load(ordering: .relaxed) }
}

/// Compact text of an event, for exact sequence assertions.
public func describe<V, E>(_ event: Signal<V, E>.Event) -> String {
    switch event {
    case let .value(v): return "v\(v)"
    case let .failed(e): return "failed(\(e))"
    case .completed: return "completed"
    case .interrupted: return "interrupted"
    }
}

public struct TestError: Swift.Error, Equatable, CustomStringConvertible {
    public let code: Int
    public init(code: Int) { self.code = code }
    public var description: String { "E\(code)" }
}

/// Runs `body(0) ..< body(count - 1)` on `count` threads of their own, at
/// the same time, and returns when all have finished. Unlike
/// `DispatchQueue.concurrentPerform`, which may run every iteration on the
/// calling thread one after the other on a busy machine, the bodies really
/// overlap. The join is a pthread condition, which ThreadSanitizer sees.
public func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let finished = NSCondition()
    let running = Locked(count)
    for i in 0..<count {
        Thread {
            body(i)
            finished.lock()
            running.withLock { $0 -= 1 }
            finished.signal()
            finished.unlock()
        }.start()
    }
    finished.lock()
    while running.withLock({ $0 }) > 0 { finished.wait() }
    finished.unlock()
}

/// A value with no lock at all, for tests that check that the core itself
/// orders two threads' accesses: ThreadSanitizer reports them otherwise.
public final class Unguarded<Value>: @unchecked Sendable {
    public var value: Value

    public init(_ value: Value) { self.value = value }
}

/// Whether this test process runs under ThreadSanitizer or AddressSanitizer
/// (their runtimes export these symbols). Tests whose point is a count that
/// is large against a small stack, not the exact count, use fewer
/// iterations there: the sanitizers slow each one down 4 to 10 times.
public let runningUnderSanitizer: Bool = {
    dlsym(nil, "__tsan_init") != nil || dlsym(nil, "__asan_init") != nil
}()
