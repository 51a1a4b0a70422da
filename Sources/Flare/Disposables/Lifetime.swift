/// Represents the lifetime of an object, and lets other objects tie their
/// resources to it: anything added with `+=` is disposed when the lifetime
/// ends.
///
/// Thread-safety: all members may be used from any thread; see
/// `CompositeDisposable`, which backs it.
///
/// Sendable: yes; observing and ending a lifetime are safe from any thread.
public final class Lifetime: @unchecked Sendable {
    private let disposables: CompositeDisposable

    /// A signal that completes when the lifetime ends. If the lifetime has
    /// already ended, the signal has completed before this returns, so an
    /// observer attached to it receives `interrupted`.
    public var ended: Signal<Never, Never> {
        Signal { observer, lifetime in
            lifetime += disposables.add(observer.sendCompleted)
        }
    }

    /// Whether the lifetime has ended.
    public var hasEnded: Bool { disposables.isDisposed }

    /// A lifetime that ends when `token` is disposed or deinitialized.
    public convenience init(_ token: Token) {
        self.init(token.disposables)
    }

    init(_ disposables: CompositeDisposable) {
        self.disposables = disposables
    }

    /// A lifetime that ends when `disposables` is disposed, for the
    /// inlined bodies that make one (an asynchronous operator's run).
    @usableFromInline
    static func _endedBy(_ disposables: CompositeDisposable) -> Lifetime {
        Lifetime(disposables)
    }

    /// Runs `action` when the lifetime ends (at once, if it has ended).
    ///
    /// - Returns: A disposable that cancels the action.
    @discardableResult
    public func observeEnded(_ action: @escaping () -> Void) -> Disposable? {
        disposables.add(action)
    }

    /// Disposes `disposable` when `lifetime` ends (at once, if it has ended).
    ///
    /// - Returns: A disposable that takes `disposable` back out.
    @discardableResult
    public static func += (lifetime: Lifetime, disposable: Disposable?) -> Disposable? {
        lifetime.disposables.add(disposable)
    }

    /// A lifetime and the token that ends it.
    public static func make() -> (lifetime: Lifetime, token: Token) {
        let token = Token()
        return (Lifetime(token), token)
    }

    /// A lifetime that has already ended, as in ReactiveSwift.
    ///
    /// `observeEnded` runs its action at once and returns `nil`, `+=`
    /// disposes at once, `hasEnded` is true, and `take(during: .empty)` has
    /// completed before it returns. An observer attached to `ended` receives
    /// `interrupted`, as for any terminated signal. Shared and immutable: one
    /// instance serves every use, at no cost.
    public static let empty: Lifetime = {
        let ended = CompositeDisposable()
        ended.dispose()
        return Lifetime(ended)
    }()

    /// Ends a lifetime when it is disposed or deinitialized.
    ///
    /// Sendable: yes; the lifetime ends when the last reference, on any
    /// thread, goes away.
    public final class Token: @unchecked Sendable {
        fileprivate let disposables = CompositeDisposable()

        /// A token whose lifetime has not ended.
        public init() {}

        deinit { disposables.dispose() }

        /// Ends the lifetime now.
        public func dispose() { disposables.dispose() }
    }
}
