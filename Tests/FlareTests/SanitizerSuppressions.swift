// The sanitizers' built-in suppressions for this test binary. Each sanitizer
// reads its function when it starts or reports; other builds never call them.

// LeakSanitizer. `swift test` runs the binary twice: once for XCTest, once
// for swift-testing. This suite has no XCTest tests, and the XCTest pass
// still leaks a few of XCTest's own objects (its suite run and test lists,
// allocated by `XCTMain` in libXCTest.so and never freed before it exits),
// which would fail `swift test --sanitize=address` with leak detection on.
// Only allocations made through libXCTest.so are suppressed; every leak of
// Flare or of the tests is still reported.
@_cdecl("__lsan_default_suppressions")
public func leakSanitizerDefaultSuppressions() -> UnsafePointer<CChar> {
    // A static string literal: null-terminated, in read-only data, no
    // allocation and no runtime call.
    let suppressions: StaticString = "leak:libXCTest.so\n"
    return UnsafeRawPointer(suppressions.utf8Start).assumingMemoryBound(to: CChar.self)
}

// ThreadSanitizer. `UnsafeContinuation.resume(returning:)` writes the result
// into the awaiting task's context, and the task reads it once it runs
// again; what orders the two is the Swift concurrency runtime's atomic
// continuation status, in libswift_Concurrency, which is not instrumented.
// When the resume wins the race with the task's suspension, the task goes
// on at once without passing anything TSan models, and TSan reports the
// handoff as a race (a known false positive: swiftlang/swift issue 57803;
// seen here once in `signal.values`' handoff, AsyncValuesTests
// "concurrentSenderAndConsumer"). Only races with a continuation's resume
// in one of their stacks are suppressed (the mangled name of
// `UnsafeContinuation.resume(returning:)`); the channel's own state is
// guarded by its lock and every other access is still checked.
@_cdecl("__tsan_default_suppressions")
public func threadSanitizerDefaultSuppressions() -> UnsafePointer<CChar> {
    let suppressions: StaticString = "race:sScc6resume9returning\n"
    return UnsafeRawPointer(suppressions.utf8Start).assumingMemoryBound(to: CChar.self)
}
