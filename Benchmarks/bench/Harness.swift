#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

// MARK: Time

/// Monotonic nanoseconds.
@inline(__always)
func now() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
}

/// Keeps a value alive and opaque to the optimizer.
@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

/// Busy-waits for about `iterations` trivial steps (used to spread disposal
/// points over a delivery without a syscall).
@inline(never)
func spin(_ iterations: Int) {
    var x = 0
    for i in 0..<iterations { x &+= i }
    blackHole(x)
}

// MARK: Threads

private final class ThreadBody {
    let run: @Sendable () -> Void
    init(_ run: @escaping @Sendable () -> Void) { self.run = run }
}

/// A joinable POSIX thread.
struct Thread: @unchecked Sendable {
    #if os(Linux)
    private let handle: pthread_t
    #else
    private let handle: pthread_t?
    #endif

    init(_ body: @escaping @Sendable () -> Void) {
        let context = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
        #if os(Linux)
        var h = pthread_t()
        #else
        var h: pthread_t?
        #endif
        let rc = pthread_create(&h, nil, { raw in
            Unmanaged<ThreadBody>.fromOpaque(raw!).takeRetainedValue().run()
            return nil
        }, context)
        precondition(rc == 0, "pthread_create failed: \(rc)")
        handle = h
    }

    func join() {
        #if os(Linux)
        pthread_join(handle, nil)
        #else
        pthread_join(handle!, nil)
        #endif
    }
}

/// A flag and counters shared between the threads of one scenario.
final class Shared: Sendable {
    let go = Atomic<Bool>(false)
    let stop = Atomic<Bool>(false)
    let ready = Atomic<Int>(0)
    let count = Atomic<Int>(0)
    let stamp = Atomic<UInt64>(0)

    /// Called by a worker: announce readiness, then wait for `release()`.
    func arriveAndWait() {
        ready.add(1, ordering: .releasing)
        while !go.load(ordering: .acquiring) { sched_yield() }
    }

    /// Called by the main thread: wait for `workers` arrivals, then start
    /// them all. Returns the start time.
    func release(workers: Int) -> UInt64 {
        while ready.load(ordering: .acquiring) < workers { sched_yield() }
        let t = now()
        go.store(true, ordering: .releasing)
        return t
    }
}

/// glibc runs its pthread and atomic paths in a cheaper single-threaded mode
/// until a second thread exists. Starting one that sleeps for the whole run
/// keeps every lock figure honest.
func startParkedThread() {
    _ = Thread {
        while true { sleep(3600) }
    }
}

// MARK: Statistics

struct Stats {
    var samples: [Double]
    var median: Double
    var min: Double
    var max: Double

    init(_ samples: [Double]) {
        let sorted = samples.sorted()
        self.samples = samples
        let n = sorted.count
        median = n == 0 ? .nan : (n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2)
        min = sorted.first ?? .nan
        max = sorted.last ?? .nan
    }
}

/// The `p`-quantile (0…1) of sorted values, nearest rank.
func quantile(_ sorted: [Double], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return .nan }
    let rank = Int((p * Double(sorted.count)).rounded(.up)) - 1
    return sorted[Swift.max(0, Swift.min(sorted.count - 1, rank))]
}

// MARK: Output helpers

/// A line on stderr (file descriptor 2, written directly: the C `stderr`
/// global is shared mutable state to Swift 6).
func progress(_ message: String) {
    var line = message + "\n"
    line.withUTF8 { bytes in
        var rest = UnsafeRawBufferPointer(bytes)
        while !rest.isEmpty {
            let n = write(2, rest.baseAddress, rest.count)
            if n <= 0 { return }
            rest = UnsafeRawBufferPointer(rebasing: rest[n...])
        }
    }
}

/// A number with 3 significant digits and an SI suffix for large values.
func format(_ x: Double) -> String {
    if x.isNaN { return "–" }
    let a = abs(x)
    func fixed(_ v: Double, _ suffix: String) -> String {
        let digits = abs(v) >= 100 ? 0 : abs(v) >= 10 ? 1 : 2
        return fixedPoint(v, digits) + suffix
    }
    if a >= 1e9 { return fixed(x / 1e9, "G") }
    if a >= 1e6 { return fixed(x / 1e6, "M") }
    if a >= 1e4 { return fixed(x / 1e3, "k") }
    return fixed(x, "")
}

func fixedPoint(_ x: Double, _ digits: Int) -> String {
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let r = (x * scale).rounded() / scale
    var s = String(r)
    if let dot = s.firstIndex(of: ".") {
        let decimals = s.distance(from: dot, to: s.endIndex) - 1
        if digits == 0 { s = String(s[..<dot]) } else if decimals < digits { s += String(repeating: "0", count: digits - decimals) }
    } else if digits > 0 {
        s += "." + String(repeating: "0", count: digits)
    }
    return s
}

func pad(_ s: String, _ width: Int, right: Bool = false) -> String {
    let n = s.count
    if n >= width { return s }
    let fill = String(repeating: " ", count: width - n)
    return right ? fill + s : s + fill
}
