extension Signal {
    /// Sends each value with its position: `(offset: 0, element: first)`,
    /// `(offset: 1, element: second)`, … as `Sequence.enumerated()` does.
    ///
    /// The count is per observation of this signal's delivery, starting at
    /// 0 when the derived signal is made. Terminal events pass through
    /// unchanged. With `scan`, it is ReactiveObjC's
    /// `scanWithStart:reduceWithIndex:`:
    /// `signal.enumerated().scan(start) { result, pair in … }`.
    @inlinable
    public func enumerated() -> Signal<(offset: Int, element: Value), Error> {
        _lift(_ScanMapOperator.enumerated())
    }
}

extension SignalProducer {
    /// `Signal.enumerated()` on every run: each value with its position,
    /// counted from 0 afresh at every start.
    ///
    /// Terminal events pass through unchanged. One link per start.
    @inlinable
    public func enumerated() -> SignalProducer<(offset: Int, element: Value), Error> {
        _lift(_ScanMapOperator.enumerated())
    }
}

extension _ScanMapOperator where State == Int, U == (offset: Int, element: Value) {
    /// `enumerated()`: the state is the next offset.
    @inlinable
    static func enumerated() -> _ScanMapOperator {
        _ScanMapOperator(initialState: 0) { offset, value in
            defer { offset &+= 1 }
            return (offset: offset, element: value)
        }
    }
}
