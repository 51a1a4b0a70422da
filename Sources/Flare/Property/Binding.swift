precedencegroup BindingPrecedence {
    associativity: right
    // Binds tighter than assignment, looser than everything else.
    higherThan: AssignmentPrecedence
}

infix operator <~ : BindingPrecedence

/// A source of values that can be bound to a target with `<~`: a signal or a
/// producer that cannot fail, or a property.
public protocol BindingSource: SignalProducerConvertible where Error == Never {}

extension Signal: BindingSource where Error == Never {}
extension SignalProducer: BindingSource where Error == Never {}

/// Something values can be bound to with `<~`.
public protocol BindingTargetProvider {
    /// The type of the values it accepts.
    associatedtype Value

    /// The target bindings deliver to.
    var bindingTarget: BindingTarget<Value> { get }
}

extension BindingTargetProvider {
    /// Binds `source` to `provider`: every value `source` sends is given to
    /// the target, until the target's lifetime ends, the source completes,
    /// or the returned disposable is disposed.
    ///
    /// The target is not retained by the binding; a target that
    /// deinitializes during a delivery ends the binding without deadlock.
    ///
    /// - Returns: A disposable that ends the binding, or `nil` if the
    ///   target's lifetime had already ended.
    @discardableResult
    @inlinable
    public static func <~ <Source: BindingSource>(provider: Self, source: Source) -> Disposable?
    where Source.Value == Value {
        let target = provider.bindingTarget
        guard !target.lifetime.hasEnded else { return nil }
        return source.producer
            .take(during: target.lifetime)
            .startWithValues(target.action)
    }

    /// Binds a source of non-optional values to a target of optional ones.
    @discardableResult
    @inlinable
    public static func <~ <Source: BindingSource>(provider: Self, source: Source) -> Disposable?
    where Value == Source.Value? {
        provider <~ source.producer.map { Optional($0) }
    }
}

extension Signal.Observer {
    /// Binds `source` to `observer`: every value `source` sends is sent to
    /// the observer (its terminal event is not), until the source completes
    /// or the returned disposable is disposed. The observer is not retained.
    @discardableResult
    @inlinable
    public static func <~ <Source: BindingSource>(observer: Signal<Value, Error>.Observer, source: Source) -> Disposable?
    where Source.Value == Value {
        source.producer.startWithValues { [weak observer] in observer?.send(value: $0) }
    }
}

/// An optional target: binding to `nil` does nothing and returns `nil`.
extension Optional: BindingTargetProvider where Wrapped: BindingTargetProvider {
    /// The type of the values the wrapped target accepts.
    public typealias Value = Wrapped.Value

    /// The wrapped target's binding target, or one whose lifetime has ended.
    @inlinable
    public var bindingTarget: BindingTarget<Wrapped.Value> {
        switch self {
        case let .some(provider): return provider.bindingTarget
        case .none: return BindingTarget(lifetime: .empty, action: { _ in })
        }
    }
}

/// A target for `<~`: an action that consumes values, and the lifetime
/// after which bindings to it end.
public struct BindingTarget<Value>: BindingTargetProvider {
    /// Bindings to the target end when it ends.
    public let lifetime: Lifetime

    /// Consumes each value bound to the target.
    public let action: (Value) -> Void

    /// `self`.
    @inlinable
    public var bindingTarget: BindingTarget<Value> { self }

    /// A target that runs `action` for each value, on `scheduler`.
    ///
    /// - Parameters:
    ///   - scheduler: Where `action` runs (at once, on the sending thread,
    ///     by default).
    ///   - lifetime: Bindings to the target end when it ends.
    ///   - action: Consumes the values.
    @inlinable
    public init(on scheduler: Scheduler = ImmediateScheduler(), lifetime: Lifetime, action: @escaping (Value) -> Void) {
        self.lifetime = lifetime
        if scheduler is ImmediateScheduler {
            self.action = action
        } else {
            let unchecked = UncheckedAction(action)
            self.action = { value in
                let box = UncheckedValue(value)
                scheduler.scheduleTransferred { unchecked.action(box.value) }
            }
        }
    }

    /// A target that writes each value to `object[keyPath: keyPath]`, on
    /// `scheduler`, without retaining `object`.
    ///
    /// - Parameters:
    ///   - scheduler: Where the writes happen (at once, on the sending
    ///     thread, by default).
    ///   - lifetime: Bindings to the target end when it ends.
    ///   - object: The object written to; held weakly.
    ///   - keyPath: The property of `object` written to.
    @inlinable
    public init<Object: AnyObject>(
        on scheduler: Scheduler = ImmediateScheduler(), lifetime: Lifetime, object: Object,
        keyPath: ReferenceWritableKeyPath<Object, Value>
    ) {
        let weakObject = WeakBox(object)
        self.init(on: scheduler, lifetime: lifetime) { value in
            weakObject.object?[keyPath: keyPath] = value
        }
    }
}

/// A closure handed to a scheduler: ReactiveSwift's contract leaves the
/// thread-safety of a binding's action to its author.
@usableFromInline
final class UncheckedAction<Value>: @unchecked Sendable {
    @usableFromInline let action: (Value) -> Void
    @inlinable init(_ action: @escaping (Value) -> Void) { self.action = action }
}

@usableFromInline
struct UncheckedValue<Value>: @unchecked Sendable {
    @usableFromInline let value: Value
    @inlinable init(_ value: Value) { self.value = value }
}

@usableFromInline
final class WeakBox<Object: AnyObject>: @unchecked Sendable {
    @usableFromInline weak var object: Object?
    @inlinable init(_ object: Object) { self.object = object }
}
