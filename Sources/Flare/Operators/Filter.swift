/// `filter`: the values `isIncluded` accepts; terminal events unchanged.
///
/// `Verdict` is always `Bool`; being generic, the predicate is stored as
/// `_Link` stores its function, so that making a link (at each start of a
/// producer) wraps it in no reabstraction thunk: that would be one more
/// allocation per start.
@usableFromInline
struct _FilterOperator<Value, Error: Swift.Error, Verdict> {
    @usableFromInline let isIncluded: (Value) -> Verdict

    @inlinable
    init(_ isIncluded: @escaping (Value) -> Bool) where Verdict == Bool { self.isIncluded = isIncluded }
}

extension _FilterOperator: _UnaryOperator, _FilteringOperator where Verdict == Bool {
    @inlinable
    func attach<Sink: _EventSink>(to downstream: consuming Sink) -> (Signal<Value, Error>.Event) -> Void
    where Sink.Value == Value, Sink.Error == Error {
        let link = _Link(isIncluded, downstream)
        return { event in link.filter(event) }
    }
}

/// `compactMap`: the non-nil results of `transform`; terminal events
/// unchanged.
@usableFromInline
struct _CompactMapOperator<Input, Output, Error: Swift.Error>: _UnaryOperator {
    @usableFromInline typealias InputError = Error
    @usableFromInline typealias OutputError = Error

    @usableFromInline let transform: (Input) -> Output?

    @inlinable
    init(_ transform: @escaping (Input) -> Output?) { self.transform = transform }

    @inlinable
    func attach<Sink: _EventSink>(to downstream: consuming Sink) -> (Signal<Input, Error>.Event) -> Void
    where Sink.Value == Output, Sink.Error == Error {
        let link = _Link(transform, downstream)
        return { event in link.compactMap(event) }
    }
}

extension Signal {
    /// Sends only the values for which `isIncluded` returns true.
    ///
    /// Terminal events pass through unchanged.
    @inlinable
    public func filter(_ isIncluded: @escaping (Value) -> Bool) -> Signal<Value, Error> {
        _lift(_FilterOperator(isIncluded))
    }

    /// Sends the non-nil results of `transform`; drops the values for which
    /// it returns nil.
    ///
    /// Terminal events pass through unchanged.
    @inlinable
    public func compactMap<U>(_ transform: @escaping (Value) -> U?) -> Signal<U, Error> {
        _lift(_CompactMapOperator(transform))
    }
}

extension SignalProducer {
    /// Sends only the values for which `isIncluded` returns true.
    ///
    /// Terminal events pass through unchanged. One link per start.
    @inlinable
    public func filter(_ isIncluded: @escaping (Value) -> Bool) -> SignalProducer<Value, Error> {
        _lift(_FilterOperator(isIncluded))
    }

    /// Sends the non-nil results of `transform`; drops the values for which
    /// it returns nil.
    ///
    /// Terminal events pass through unchanged. One link per start.
    @inlinable
    public func compactMap<U>(_ transform: @escaping (Value) -> U?) -> SignalProducer<U, Error> {
        _lift(_CompactMapOperator(transform))
    }
}

extension Signal where Value: Equatable {
    /// Drops every value equal to `value`; sends the others.
    ///
    /// ReactiveObjC's `ignore:`, which ReactiveSwift dropped; the same as
    /// `filter { $0 != value }`. Terminal events pass through unchanged.
    @inlinable
    public func ignore(_ value: Value) -> Signal<Value, Error> {
        _lift(_FilterOperator.ignoring(value))
    }
}

extension SignalProducer where Value: Equatable {
    /// `Signal.ignore(_:)` on every run: drops every value equal to `value`.
    ///
    /// Terminal events pass through unchanged. One link per start.
    @inlinable
    public func ignore(_ value: Value) -> SignalProducer<Value, Error> {
        _lift(_FilterOperator.ignoring(value))
    }
}

extension _FilterOperator where Value: Equatable, Verdict == Bool {
    /// `ignore(_:)`: every value but those equal to `ignored`.
    @inlinable
    static func ignoring(_ ignored: Value) -> _FilterOperator {
        _FilterOperator { $0 != ignored }
    }
}
