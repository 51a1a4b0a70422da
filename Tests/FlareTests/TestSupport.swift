// The shared test support (Tests/FlareTestSupport), visible to every file
// of this target without an import of its own.
@_exported import FlareTestSupport
