// MARK: Tuple shapes

/// How an engine's output tuple is made of the nested values of its inputs.
@usableFromInline
protocol _TupleShape {
    associatedtype Nested
    associatedtype Flat
    static func flat(_ values: Nested) -> Flat
}

/// The values as they are: two inputs, or a sequence.
@usableFromInline
enum _AsIs<Values>: _TupleShape {
    @inlinable
    static func flat(_ values: Values) -> Values { values }
}

/// The values of 3 inputs, `(a, (b, c))`, as one tuple.
@usableFromInline
enum _Tuple3<A, B, C>: _TupleShape {
    @inlinable
    static func flat(_ values: (A, (B, C))) -> (A, B, C) {
        let (a, (b, c)) = values
        return (a, b, c)
    }
}

/// The values of 4 inputs, `((a, b), (c, d))`, as one tuple.
@usableFromInline
enum _Tuple4<A, B, C, D>: _TupleShape {
    @inlinable
    static func flat(_ values: ((A, B), (C, D))) -> (A, B, C, D) {
        let ((a, b), (c, d)) = values
        return (a, b, c, d)
    }
}

/// The values of 5 inputs, `((a, b), (c, (d, e)))`, as one tuple.
@usableFromInline
enum _Tuple5<A, B, C, D, E>: _TupleShape {
    @inlinable
    static func flat(_ values: ((A, B), (C, (D, E)))) -> (A, B, C, D, E) {
        let ((a, b), (c, (d, e))) = values
        return (a, b, c, d, e)
    }
}

/// The values of 6 inputs, `((a, (b, c)), (d, (e, f)))`, as one tuple.
@usableFromInline
enum _Tuple6<A, B, C, D, E, F>: _TupleShape {
    @inlinable
    static func flat(_ values: ((A, (B, C)), (D, (E, F)))) -> (A, B, C, D, E, F) {
        let ((a, (b, c)), (d, (e, f))) = values
        return (a, b, c, d, e, f)
    }
}

/// The values of 7 inputs, `((a, (b, c)), ((d, e), (f, g)))`, as one tuple.
@usableFromInline
enum _Tuple7<A, B, C, D, E, F, G>: _TupleShape {
    @inlinable
    static func flat(_ values: ((A, (B, C)), ((D, E), (F, G)))) -> (A, B, C, D, E, F, G) {
        let ((a, (b, c)), ((d, e), (f, g))) = values
        return (a, b, c, d, e, f, g)
    }
}

/// The values of 8 inputs, `(((a, b), (c, d)), ((e, f), (g, h)))`, as one tuple.
@usableFromInline
enum _Tuple8<A, B, C, D, E, F, G, H>: _TupleShape {
    @inlinable
    static func flat(_ values: (((A, B), (C, D)), ((E, F), (G, H)))) -> (A, B, C, D, E, F, G, H) {
        let (((a, b), (c, d)), ((e, f), (g, h))) = values
        return (a, b, c, d, e, f, g, h)
    }
}

/// The values of 9 inputs, `(((a, b), (c, d)), ((e, f), (g, (h, i))))`, as one tuple.
@usableFromInline
enum _Tuple9<A, B, C, D, E, F, G, H, I>: _TupleShape {
    @inlinable
    static func flat(_ values: (((A, B), (C, D)), ((E, F), (G, (H, I))))) -> (A, B, C, D, E, F, G, H, I) {
        let (((a, b), (c, d)), ((e, f), (g, (h, i)))) = values
        return (a, b, c, d, e, f, g, h, i)
    }
}

/// The values of 10 inputs, `(((a, b), (c, (d, e))), ((f, g), (h, (i, j))))`, as one tuple.
@usableFromInline
enum _Tuple10<A, B, C, D, E, F, G, H, I, J>: _TupleShape {
    @inlinable
    static func flat(_ values: (((A, B), (C, (D, E))), ((F, G), (H, (I, J))))) -> (A, B, C, D, E, F, G, H, I, J) {
        let (((a, b), (c, (d, e))), ((f, g), (h, (i, j)))) = values
        return (a, b, c, d, e, f, g, h, i, j)
    }
}


// MARK: Engine state

/// What an engine delivers for one input event. An engine keeps its whole
/// state in one struct whose one mutating call per event returns this: a
/// captured variable is checked for exclusive access at run time at each
/// access, so one access per event, not one per variable.
@usableFromInline
enum _EngineOutput<Values, Failure: Swift.Error> {
    case nothing
    case value(Values)
    /// A value, then `completed`.
    case lastValue(Values)
    case completed
    case failed(Failure)
    case interrupted
}

extension _EngineOutput {
    /// Delivers this output downstream, the values flattened by `shape`.
    /// Called inside the funnel's delivery.
    @inlinable
    @inline(__always)
    func deliver<Shape: _TupleShape>(
        to downstream: _HeldCore<Shape.Flat, Failure>, as shape: Shape.Type
    ) where Shape.Nested == Values {
        switch self {
        case .nothing: break
        case let .value(values): downstream.deliverHeld(.value(Shape.flat(values)))
        case let .lastValue(values):
            downstream.deliverHeld(.value(Shape.flat(values)))
            downstream.deliverHeld(.completed)
        case .completed: downstream.deliverHeld(.completed)
        case let .failed(error): downstream.deliverHeld(.failed(error))
        case .interrupted: downstream.deliverHeld(.interrupted)
        }
    }
}
