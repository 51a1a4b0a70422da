/// Stops the program with `message` if `condition` is false, in every build.
///
/// Swift's `precondition` checks in optimized builds too, but drops its
/// message there: a user whose release build calls `take(first: -1)` would
/// see only "Illegal instruction". Flare's checks of bad input name the
/// operator and the bad value, so they use `fatalError`, which always
/// prints. The check itself costs what `precondition`'s does.
@inlinable
@inline(__always)
func flarePrecondition(
    _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
    file: StaticString = #file, line: UInt = #line
) {
    if _slowPath(!condition()) { badInput(message(), file: file, line: line) }
}

@usableFromInline
@inline(never)
func badInput(_ message: String, file: StaticString, line: UInt) -> Never {
    fatalError(message, file: file, line: line)
}
