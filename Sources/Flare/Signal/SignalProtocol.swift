/// Something that is, or stands for, a signal: the hook for code generic over
/// signals, as in ReactiveSwift. `Signal` is the only conformer in Flare.
///
/// Generic helpers constrain on it (`func f<S: SignalProtocol>(_ s: S)`,
/// `extension SignalProtocol where Value: OptionalProtocol`) and reach the
/// operators through `signal`.
///
/// Sendable: not required of conforming types (a generic constraint only);
/// `Signal` itself is `Sendable`.
public protocol SignalProtocol: AnyObject {
    /// The type of the values sent.
    associatedtype Value

    /// The type of the error the signal can fail with.
    associatedtype Error: Swift.Error

    /// The signal itself.
    var signal: Signal<Value, Error> { get }
}

extension Signal: SignalProtocol {
    /// `self`. Free: no new signal, no observation.
    @inlinable
    public var signal: Signal<Value, Error> { self }
}
