/// An observer of a baseline signal: the same representation Flare uses, a
/// final class holding the action closure in a `let`, so a send loop that
/// holds the observer at +0 calls `action` with no retain/release.
public final class BaselineObserver<Value, Error: Swift.Error> {
    public typealias Event = BaselineEvent<Value, Error>

    public let action: (Event) -> Void

    @inlinable
    public init(_ action: @escaping (Event) -> Void) {
        self.action = action
    }

    @inlinable
    public func send(_ event: Event) {
        action(event)
    }
}

// Observer closures are plain `@escaping` closures, as in ReactiveSwift; the
// signal, not the observer, decides which thread calls them.
extension BaselineObserver: @unchecked Sendable {}
