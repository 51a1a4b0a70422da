extension Signal where Value == Bool {
    /// Sends the logical NOT of each value.
    ///
    /// Terminal events pass through unchanged. (`and` and `or`, which combine
    /// two signals, live with the combining operators.)
    @inlinable
    public func negate() -> Signal<Bool, Error> {
        map { !$0 }
    }
}

extension SignalProducer where Value == Bool {
    /// `Signal.negate()` on every run. One link per start.
    @inlinable
    public func negate() -> SignalProducer<Bool, Error> {
        map { !$0 }
    }
}
