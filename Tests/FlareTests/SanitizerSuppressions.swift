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

// ThreadSanitizer's suppressions are in Tests/tsan-suppressions.txt, passed
// through TSAN_OPTIONS by .ci/run: TSan reads its built-in hook while it
// initializes, before instrumented Swift code can run.
