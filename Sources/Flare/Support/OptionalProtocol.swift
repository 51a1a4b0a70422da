/// A protocol that only `Optional` conforms to, so that generic code can be
/// constrained to optional values (`where Value: OptionalProtocol`) and reach
/// the wrapped type, as ReactiveSwift's operators such as `skipNil` are.
///
/// Sendable: not required (a generic constraint only, met by `Optional`).
public protocol OptionalProtocol: ExpressibleByNilLiteral {
    /// The type of the value an optional may hold.
    associatedtype Wrapped

    /// Makes the conforming optional from a plain one.
    init(reconstructing value: Wrapped?)

    /// The receiver as a plain optional.
    var optional: Wrapped? { get }
}

extension Optional: OptionalProtocol {
    /// `self`, as a plain optional. Free: no copy beyond the value's own.
    @inlinable
    public var optional: Wrapped? { self }

    /// `value` itself.
    @inlinable
    public init(reconstructing value: Wrapped?) {
        self = value
    }
}
