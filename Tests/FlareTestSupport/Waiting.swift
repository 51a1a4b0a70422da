import Foundation

/// How long a test waits for work on another thread before it gives up:
/// generous, since these waits only bound a hang; no assertion depends on
/// speed.
public let patience: TimeInterval = 10

/// Polls `condition` every 2 ms until it holds or `timeout` runs out;
/// returns whether it holds.
@discardableResult
public func eventually(within timeout: TimeInterval = patience, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while !condition() {
        if Date() > deadline { return false }
        usleep(2_000)
    }
    return true
}

/// `eventually` for async tests: suspends the task between polls instead of
/// sleeping its thread, so that the work it waits for can run on the
/// cooperative pool or the main actor meanwhile.
@discardableResult
public func eventuallyAsync(within timeout: TimeInterval = patience, _ condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while !condition() {
        if Date() > deadline { return false }
        try? await Task.sleep(nanoseconds: 1_000_000)
    }
    return true
}
