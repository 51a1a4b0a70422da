/// Represents the lifetime of an object, and lets other objects tie their
/// resources to it: anything added with `+=` is disposed when the lifetime
/// ends.
///
/// Thread-safety: all members may be used from any thread; a lifetime
/// holds a `CompositeDisposable`'s lock-free stack and behaves as one.
///
/// Sendable: yes; observing and ending a lifetime are safe from any thread.
public final class Lifetime: @unchecked Sendable {
    /// What ends with the lifetime, held inline: a lifetime is one object
    /// (a signal, and every producer start, makes one). Unused by a
    /// lifetime made from a token, which uses `shared`'s.
    private let stack = _DisposableStack()

    /// The token's own lifetime, for one made with `init(_ token:)`: its
    /// stack holds what is added here (nil: `stack` does).
    private let shared: Lifetime?

    /// The lifetime whose stack holds this one's additions.
    @inline(__always)
    private var owner: Lifetime { shared ?? self }

    /// A lifetime that has not ended, ended by `_end()`: for the engine's
    /// signals and runs, which end it themselves (no token).
    @usableFromInline
    init() {
        shared = nil
    }

    /// A lifetime that ends when `token` is disposed or deinitialized.
    ///
    /// As in ReactiveSwift, it shares the token's additions: what is added
    /// through any lifetime made from one token is disposed in one order
    /// of addition when the token ends, once, even if the lifetime it was
    /// added through was released before. The lifetime does not retain the
    /// token, and nothing retains it: made and dropped, it is freed at
    /// once.
    public init(_ token: Token) {
        shared = token.lifetime
    }

    /// Ends the lifetime: disposes what was added, in the order of
    /// addition, on the first call only, and returns once all of it is
    /// disposed.
    @usableFromInline
    func _end() {
        owner.stack.dispose()
    }

    /// A signal that completes when the lifetime ends. If the lifetime has
    /// already ended, the signal has completed before this returns, so an
    /// observer attached to it receives `interrupted`.
    public var ended: Signal<Never, Never> {
        Signal { observer, lifetime in
            lifetime += self.observeEnded(observer.sendCompleted)
        }
    }

    /// Whether the lifetime has ended.
    public var hasEnded: Bool { owner.stack.isDisposed }

    /// Runs `action` when the lifetime ends (at once, if it has ended).
    ///
    /// - Returns: A disposable that cancels the action.
    @discardableResult
    public func observeEnded(_ action: @escaping () -> Void) -> Disposable? {
        owner.stack.add(AnyDisposable(action))
    }

    /// Disposes `disposable` when `lifetime` ends (at once, if it has ended).
    ///
    /// - Returns: A disposable that takes `disposable` back out.
    @discardableResult
    public static func += (lifetime: Lifetime, disposable: Disposable?) -> Disposable? {
        lifetime.owner.stack.add(disposable)
    }

    /// A lifetime and the token that ends it.
    public static func make() -> (lifetime: Lifetime, token: Token) {
        let token = Token()
        return (token.lifetime, token)
    }

    /// A lifetime that has already ended, as in ReactiveSwift.
    ///
    /// `observeEnded` runs its action at once and returns `nil`, `+=`
    /// disposes at once, `hasEnded` is true, and `take(during: .empty)` has
    /// completed before it returns. An observer attached to `ended` receives
    /// `interrupted`, as for any terminated signal. Shared and immutable: one
    /// instance serves every use, at no cost.
    public static let empty: Lifetime = {
        let ended = Lifetime()
        ended._end()
        return ended
    }()

    /// Ends a lifetime when it is disposed or deinitialized.
    ///
    /// Sendable: yes; the lifetime ends when the last reference, on any
    /// thread, goes away.
    public final class Token: @unchecked Sendable {
        /// The lifetime the token ends.
        fileprivate let lifetime = Lifetime()

        /// A token whose lifetime has not ended.
        public init() {}

        deinit { lifetime._end() }

        /// Ends the lifetime now.
        public func dispose() { lifetime._end() }
    }
}

/// Ends a lifetime when disposed: what ties an engine's lifetime to a
/// disposable's end (`lifetime += _LifetimeEnd(other)`).
@usableFromInline
final class _LifetimeEnd: Disposable, @unchecked Sendable {
    @usableFromInline
    let lifetime: Lifetime

    @usableFromInline
    init(_ lifetime: Lifetime) {
        self.lifetime = lifetime
    }

    @usableFromInline
    var isDisposed: Bool { lifetime.hasEnded }

    @usableFromInline
    func dispose() { lifetime._end() }
}
