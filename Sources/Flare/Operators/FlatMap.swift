// The public forms of flattening, on signals and producers, for every
// combination of outer and inner error types ReactiveSwift has. All of them
// are the one engine in Engine/Flatten/FlattenEngine.swift.

extension Signal where Value: SignalProducerConvertible, Error == Value.Error {
    /// Flattens the inner streams this signal sends into one stream of
    /// their values, as `strategy` says (see ``FlattenStrategy``).
    ///
    /// A failure of this signal or of a forwarded inner is forwarded at once
    /// and disposes every inner run.
    @inlinable
    public func flatten(_ strategy: FlattenStrategy) -> Signal<Value.Value, Error> {
        _flattening(strategy) { $0.producer }
    }
}

extension Signal where Value: SignalProducerConvertible, Error == Never {
    /// Flattens the inner streams this signal sends into one stream of
    /// their values, as `strategy` says; this signal cannot fail, its
    /// inners can.
    @inlinable
    public func flatten(_ strategy: FlattenStrategy) -> Signal<Value.Value, Value.Error> {
        promoteError(Value.Error.self)._flattening(strategy) { $0.producer }
    }
}

extension Signal where Value: SignalProducerConvertible, Error == Never, Value.Error == Never {
    /// Flattens the inner streams this signal sends into one stream of
    /// their values, as `strategy` says; nothing can fail.
    @inlinable
    public func flatten(_ strategy: FlattenStrategy) -> Signal<Value.Value, Never> {
        _flattening(strategy) { $0.producer }
    }
}

extension Signal where Value: SignalProducerConvertible, Value.Error == Never {
    /// Flattens the inner streams this signal sends into one stream of
    /// their values, as `strategy` says; the inners cannot fail, this
    /// signal can.
    @inlinable
    public func flatten(_ strategy: FlattenStrategy) -> Signal<Value.Value, Error> {
        _flattening(strategy) { $0.producer.promoteError(Error.self) }
    }
}

extension Signal where Value: Sequence {
    /// Sends the elements of every sequence this signal sends, in order:
    /// `flatMap(.merge)` to a producer of the sequence.
    @inlinable
    public func flatten() -> Signal<Value.Element, Error> {
        _flattening(.merge) { SignalProducer<Value.Element, Error>($0) }
    }
}

extension Signal {
    /// Maps each value to an inner producer and flattens the inners as
    /// `strategy` says (see ``FlattenStrategy``): `map(transform)` then
    /// `flatten(strategy)`, with no intermediate signal.
    ///
    /// A failure of this signal or of a forwarded inner is forwarded at once
    /// and disposes every inner run.
    @inlinable
    public func flatMap<U>(
        _ strategy: FlattenStrategy, _ transform: @escaping (Value) -> SignalProducer<U, Error>
    ) -> Signal<U, Error> {
        _flattening(strategy, transform)
    }

    /// Maps each value to an inner stream (a signal, a producer, a
    /// property …) and flattens the inners as `strategy` says.
    @inlinable
    public func flatMap<Inner: SignalProducerConvertible>(
        _ strategy: FlattenStrategy, _ transform: @escaping (Value) -> Inner
    ) -> Signal<Inner.Value, Error> where Inner.Error == Error {
        _flattening(strategy) { transform($0).producer }
    }

    /// Maps each value to an inner producer that cannot fail and flattens
    /// the inners as `strategy` says.
    ///
    /// Disfavoured, so that a transform returning an implicit member (`{ _
    /// in .init(value: 0) }`) picks the overload whose inner error is this
    /// one's instead of being ambiguous; a transform that returns a
    /// `SignalProducer<U, Never>` gets the generic overload below, with the
    /// same semantics.
    @_disfavoredOverload
    @inlinable
    public func flatMap<U>(
        _ strategy: FlattenStrategy, _ transform: @escaping (Value) -> SignalProducer<U, Never>
    ) -> Signal<U, Error> {
        _flattening(strategy) { transform($0).promoteError(Error.self) }
    }

    /// Maps each value to an inner stream that cannot fail and flattens the
    /// inners as `strategy` says.
    @inlinable
    public func flatMap<Inner: SignalProducerConvertible>(
        _ strategy: FlattenStrategy, _ transform: @escaping (Value) -> Inner
    ) -> Signal<Inner.Value, Error> where Inner.Error == Never {
        _flattening(strategy) { transform($0).producer.promoteError(Error.self) }
    }
}

extension Signal where Error == Never {
    /// Maps each value to an inner producer and flattens the inners as
    /// `strategy` says; this signal cannot fail, the inners can.
    @inlinable
    public func flatMap<U, F>(
        _ strategy: FlattenStrategy, _ transform: @escaping (Value) -> SignalProducer<U, F>
    ) -> Signal<U, F> {
        promoteError(F.self)._flattening(strategy, transform)
    }

    /// Maps each value to an inner stream and flattens the inners as
    /// `strategy` says; this signal cannot fail, the inners can.
    @inlinable
    public func flatMap<Inner: SignalProducerConvertible>(
        _ strategy: FlattenStrategy, _ transform: @escaping (Value) -> Inner
    ) -> Signal<Inner.Value, Inner.Error> {
        promoteError(Inner.Error.self)._flattening(strategy) { transform($0).producer }
    }

    /// Maps each value to an inner producer and flattens the inners as
    /// `strategy` says; nothing can fail.
    @inlinable
    public func flatMap<U>(
        _ strategy: FlattenStrategy, _ transform: @escaping (Value) -> SignalProducer<U, Never>
    ) -> Signal<U, Never> {
        _flattening(strategy, transform)
    }

    /// Maps each value to an inner stream and flattens the inners as
    /// `strategy` says; nothing can fail.
    @inlinable
    public func flatMap<Inner: SignalProducerConvertible>(
        _ strategy: FlattenStrategy, _ transform: @escaping (Value) -> Inner
    ) -> Signal<Inner.Value, Never> where Inner.Error == Never {
        _flattening(strategy) { transform($0).producer }
    }
}

extension SignalProducer where Value: SignalProducerConvertible, Error == Value.Error {
    /// Flattens the inner streams this producer sends (each run of it) into one stream of
    /// their values, as `strategy` says (see ``FlattenStrategy``).
    ///
    /// A failure of this producer or of a forwarded inner is forwarded at once
    /// and disposes every inner run.
    @inlinable
    public func flatten(_ strategy: FlattenStrategy) -> SignalProducer<Value.Value, Error> {
        _flattening(strategy) { $0.producer }
    }
}

extension SignalProducer where Value: SignalProducerConvertible, Error == Never {
    /// Flattens the inner streams this producer sends (each run of it) into one stream of
    /// their values, as `strategy` says; this producer cannot fail, its
    /// inners can.
    @inlinable
    public func flatten(_ strategy: FlattenStrategy) -> SignalProducer<Value.Value, Value.Error> {
        promoteError(Value.Error.self)._flattening(strategy) { $0.producer }
    }
}

extension SignalProducer where Value: SignalProducerConvertible, Error == Never, Value.Error == Never {
    /// Flattens the inner streams this producer sends (each run of it) into one stream of
    /// their values, as `strategy` says; nothing can fail.
    @inlinable
    public func flatten(_ strategy: FlattenStrategy) -> SignalProducer<Value.Value, Never> {
        _flattening(strategy) { $0.producer }
    }
}

extension SignalProducer where Value: SignalProducerConvertible, Value.Error == Never {
    /// Flattens the inner streams this producer sends (each run of it) into one stream of
    /// their values, as `strategy` says; the inners cannot fail, this
    /// producer can.
    @inlinable
    public func flatten(_ strategy: FlattenStrategy) -> SignalProducer<Value.Value, Error> {
        _flattening(strategy) { $0.producer.promoteError(Error.self) }
    }
}

extension SignalProducer where Value: Sequence {
    /// Sends the elements of every sequence this producer sends, in order:
    /// `flatMap(.merge)` to a producer of the sequence.
    @inlinable
    public func flatten() -> SignalProducer<Value.Element, Error> {
        _flattening(.merge) { SignalProducer<Value.Element, Error>($0) }
    }
}

extension SignalProducer {
    /// Maps each value to an inner producer and flattens the inners as
    /// `strategy` says (see ``FlattenStrategy``): `map(transform)` then
    /// `flatten(strategy)`, with no intermediate producer.
    ///
    /// A failure of this producer or of a forwarded inner is forwarded at once
    /// and disposes every inner run.
    @inlinable
    public func flatMap<U>(
        _ strategy: FlattenStrategy, _ transform: @escaping (Value) -> SignalProducer<U, Error>
    ) -> SignalProducer<U, Error> {
        _flattening(strategy, transform)
    }

    /// Maps each value to an inner stream (a signal, a producer, a
    /// property …) and flattens the inners as `strategy` says.
    @inlinable
    public func flatMap<Inner: SignalProducerConvertible>(
        _ strategy: FlattenStrategy, _ transform: @escaping (Value) -> Inner
    ) -> SignalProducer<Inner.Value, Error> where Inner.Error == Error {
        _flattening(strategy) { transform($0).producer }
    }

    /// Maps each value to an inner producer that cannot fail and flattens
    /// the inners as `strategy` says.
    ///
    /// Disfavoured, so that a transform returning an implicit member (`{ _
    /// in .init(value: 0) }`) picks the overload whose inner error is this
    /// one's instead of being ambiguous; a transform that returns a
    /// `SignalProducer<U, Never>` gets the generic overload below, with the
    /// same semantics.
    @_disfavoredOverload
    @inlinable
    public func flatMap<U>(
        _ strategy: FlattenStrategy, _ transform: @escaping (Value) -> SignalProducer<U, Never>
    ) -> SignalProducer<U, Error> {
        _flattening(strategy) { transform($0).promoteError(Error.self) }
    }

    /// Maps each value to an inner stream that cannot fail and flattens the
    /// inners as `strategy` says.
    @inlinable
    public func flatMap<Inner: SignalProducerConvertible>(
        _ strategy: FlattenStrategy, _ transform: @escaping (Value) -> Inner
    ) -> SignalProducer<Inner.Value, Error> where Inner.Error == Never {
        _flattening(strategy) { transform($0).producer.promoteError(Error.self) }
    }
}

extension SignalProducer where Error == Never {
    /// Maps each value to an inner producer and flattens the inners as
    /// `strategy` says; this producer cannot fail, the inners can.
    @inlinable
    public func flatMap<U, F>(
        _ strategy: FlattenStrategy, _ transform: @escaping (Value) -> SignalProducer<U, F>
    ) -> SignalProducer<U, F> {
        promoteError(F.self)._flattening(strategy, transform)
    }

    /// Maps each value to an inner stream and flattens the inners as
    /// `strategy` says; this producer cannot fail, the inners can.
    @inlinable
    public func flatMap<Inner: SignalProducerConvertible>(
        _ strategy: FlattenStrategy, _ transform: @escaping (Value) -> Inner
    ) -> SignalProducer<Inner.Value, Inner.Error> {
        promoteError(Inner.Error.self)._flattening(strategy) { transform($0).producer }
    }

    /// Maps each value to an inner producer and flattens the inners as
    /// `strategy` says; nothing can fail.
    @inlinable
    public func flatMap<U>(
        _ strategy: FlattenStrategy, _ transform: @escaping (Value) -> SignalProducer<U, Never>
    ) -> SignalProducer<U, Never> {
        _flattening(strategy, transform)
    }

    /// Maps each value to an inner stream and flattens the inners as
    /// `strategy` says; nothing can fail.
    @inlinable
    public func flatMap<Inner: SignalProducerConvertible>(
        _ strategy: FlattenStrategy, _ transform: @escaping (Value) -> Inner
    ) -> SignalProducer<Inner.Value, Never> where Inner.Error == Never {
        _flattening(strategy) { transform($0).producer }
    }
}
