/// A type that offers reactive extensions under the `reactive` namespace:
/// ReactiveSwift's `ReactiveExtensionsProvider`.
///
/// Conform a type to it, then extend ``Reactive`` where `Base` is that type:
///
/// ```swift
/// final class Label: ReactiveExtensionsProvider {
///     var text = ""
///     let (lifetime, token) = Lifetime.make()
/// }
///
/// extension Reactive where Base: Label {
///     var text: BindingTarget<String> {
///         BindingTarget(lifetime: base.lifetime, object: base, keyPath: \.text)
///     }
/// }
///
/// label.reactive.text <~ viewModel.title
/// ```
///
/// Flare conforms `NotificationCenter` and `URLSession` (see
/// `notifications(forName:object:)` and `data(with:)`).
public protocol ReactiveExtensionsProvider {}

extension ReactiveExtensionsProvider {
    /// The reactive extensions of this value.
    public var reactive: Reactive<Self> {
        Reactive(self)
    }

    /// The reactive extensions of this type (its static members).
    public static var reactive: Reactive<Self>.Type {
        Reactive<Self>.self
    }
}

/// The namespace of the reactive extensions of `Base`: what
/// `base.reactive` returns. Extend it, constrained on `Base`, to add
/// signals, producers and binding targets to a type (see
/// ``ReactiveExtensionsProvider``).
public struct Reactive<Base> {
    /// The value whose extensions these are.
    public let base: Base

    /// The extensions of `base`; made by `base.reactive`.
    fileprivate init(_ base: Base) {
        self.base = base
    }
}

extension Reactive: Sendable where Base: Sendable {}
