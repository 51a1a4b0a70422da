// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Flare",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11)],
    products: [
        .library(name: "Flare", targets: ["Flare"]),
        .executable(name: "bench", targets: ["bench"]),
        .executable(name: "soak", targets: ["soak"]),
    ],
    targets: [
        // libatomic_ops, found through pkg-config (`atomic_ops`); only its MIT core is used.
        .systemLibrary(
            name: "CAtomicOps",
            pkgConfig: "atomic_ops",
            providers: [.apt(["libatomic-ops-dev"]), .brew(["libatomic_ops"])]
        ),
        // The lock-free core: observer bag, serial word, lifecycle, disposal.
        .target(
            name: "CFlare",
            dependencies: ["CAtomicOps"],
            cSettings: [
                .define("_GNU_SOURCE"),
                // Live-entry counting for the leak tests: debug builds only.
                .define("FLARE_DEBUG_ACCOUNTING", .when(configuration: .debug)),
                // Drainer-only calls check the serial word is held, and the
                // bag's invariants are checked after each change: debug only.
                .define("FLARE_DEBUG_CHECKS", .when(configuration: .debug)),
            ]
        ),
        // The Swift API over the core.
        .target(
            name: "Flare",
            dependencies: ["CFlare"]
        ),
        // Conventional Signal built on Synchronization.Mutex: the bench's baselines.
        .target(
            name: "MutexBaseline",
            path: "Benchmarks/MutexBaseline"
        ),
        // Counts heap allocations for the bench's memory figures by wrapping
        // malloc & co. (glibc's __libc_* entry points); linked into `bench` only.
        .target(
            name: "MallocCounter",
            path: "Benchmarks/MallocCounter"
        ),
        // Counts the Swift runtime's generic-metadata and witness-table
        // look-ups (interposed, forwarded with dlsym); linked into `bench` only.
        .target(
            name: "MetadataCounter",
            path: "Benchmarks/MetadataCounter",
            linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]
        ),
        // A client's send, compiled on its own so that Tests/check-send-path.sh
        // can read its machine code: no retain, release or allocation.
        .target(
            name: "SendPathProbe",
            dependencies: ["Flare"],
            path: "Benchmarks/SendPathProbe"
        ),
        .executableTarget(
            name: "bench",
            dependencies: ["Flare", "MutexBaseline", "MallocCounter", "MetadataCounter"],
            path: "Benchmarks/bench"
        ),
        // A long-running memory soak of asynchronous inners and scheduler
        // hops: prints resident memory and the allocator's figures over time.
        .executableTarget(
            name: "soak",
            dependencies: ["Flare", "CFlare", "MallocCounter"],
            path: "Benchmarks/soak"
        ),
        // A program whose every trace probe firing is known in advance:
        // Tests/check-probes.sh runs it under bpftrace.
        .executableTarget(
            name: "TraceDemo",
            dependencies: ["Flare", "CFlare"],
            path: "Tests/TraceDemo"
        ),
        // What the test suites share: recorders, probes, scripted inputs.
        .target(
            name: "FlareTestSupport",
            dependencies: ["Flare"],
            path: "Tests/FlareTestSupport"
        ),
        // The C allocator's bytes in use, for the memory soak tests.
        .target(
            name: "HeapStats",
            path: "Tests/HeapStats"
        ),
        .testTarget(
            name: "FlareTests",
            dependencies: ["Flare", "CFlare", "FlareTestSupport", "HeapStats"]
        ),
        // Flare used as Swift 6 code uses it (actors, @MainActor view
        // models, task groups), with no @preconcurrency or @unchecked: it
        // compiles only if Flare's public types are Sendable where they
        // must be.
        .testTarget(
            name: "FlareConcurrencyTests",
            dependencies: ["Flare"]
        ),
    ],
    swiftLanguageModes: [.v6],
    cLanguageStandard: .c11
)
