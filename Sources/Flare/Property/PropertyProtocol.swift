/// A value that changes over time and can be observed: a property.
///
/// Only classes conform: a stream of changes implies an identity.
public protocol PropertyProtocol: AnyObject, BindingSource {
    /// The current value.
    var value: Value { get }

    /// Sends the current value, then every change, with no gap and no
    /// duplicate; completes when the property deinitializes (a composed
    /// property: when its sources end).
    var producer: SignalProducer<Value, Never> { get }

    /// Sends every change (not the current value); completes when the
    /// property deinitializes (a composed property: when its sources end).
    var signal: Signal<Value, Never> { get }
}

/// A property whose value can be set directly.
public protocol MutablePropertyProtocol: PropertyProtocol, BindingTargetProvider {
    /// The current value; setting it notifies the observers.
    var value: Value { get set }

    /// The lifetime of the property: it ends when the property deinitializes.
    var lifetime: Lifetime { get }
}

extension MutablePropertyProtocol {
    /// A binding target that sets `value`, for as long as the property lives
    /// (it does not retain the property).
    @inlinable
    public var bindingTarget: BindingTarget<Value> {
        BindingTarget(lifetime: lifetime) { [weak self] in self?.value = $0 }
    }
}

/// A mutable property that exposes its synchronization as closures, so that
/// it can be composed safely.
public protocol ComposableMutablePropertyProtocol: MutablePropertyProtocol {
    /// Calls `action` with the current value.
    func withValue<Result>(_ action: (Value) throws -> Result) rethrows -> Result

    /// Calls `action` with exclusive access to the value, then notifies the
    /// observers of the new value.
    func modify<Result>(_ action: (inout Value) throws -> Result) rethrows -> Result
}
