// swift-tools-version:6.0
// The differential tester: Flare and ReactiveSwift 7.2.1 in one process, the
// same random pipelines run on both, their observable traces compared.
// A package of its own so that no user of Flare builds it; run it through
// run.sh, which links ReactiveSwift's sources in as ./ReactiveSwift.
import PackageDescription

// The tester's own code builds with warnings as errors (ReactiveSwift's
// warnings are suppressed, so the flag cannot be given to the whole build).
let strict: [SwiftSetting] = [.unsafeFlags(["-warnings-as-errors"])]

let package = Package(
    name: "Differential",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Flare", path: "../.."),
    ],
    targets: [
        // ReactiveSwift 7.2.1 as published (Swift 5 mode, its warnings are not ours).
        .target(
            name: "ReactiveSwift",
            path: "ReactiveSwift",
            exclude: ["Info.plist", "ReactiveSwift.h"],
            swiftSettings: [.unsafeFlags(["-suppress-warnings"]), .swiftLanguageMode(.v5)]
        ),
        // Programs (pipelines and scripts), generator, traces, comparison,
        // shrinker and the Swift snippet printer.
        .target(name: "DiffModel", swiftSettings: strict),
        // One interpreter source, compiled twice: against Flare and against
        // ReactiveSwift (ReactiveSwiftInterpreter/Interpreter.swift is a
        // symbolic link to FlareInterpreter/Interpreter.swift). Swift 5 mode:
        // ReactiveSwift's types are not Sendable.
        .target(
            name: "FlareInterpreter",
            dependencies: ["DiffModel", .product(name: "Flare", package: "Flare")],
            swiftSettings: strict + [.define("FLARE"), .swiftLanguageMode(.v5)]
        ),
        .target(
            name: "ReactiveSwiftInterpreter",
            dependencies: ["DiffModel", "ReactiveSwift"],
            swiftSettings: strict + [.swiftLanguageMode(.v5)]
        ),
        // Counts ReactiveSwift's reentrant locks (include/lock_watch.h).
        .target(name: "LockWatch", cSettings: [.unsafeFlags(["-Wall", "-Wextra", "-Werror"])]),
        .executableTarget(
            name: "differential",
            dependencies: ["DiffModel", "FlareInterpreter", "ReactiveSwiftInterpreter", "LockWatch"],
            swiftSettings: strict
        ),
    ],
    swiftLanguageModes: [.v6]
)
