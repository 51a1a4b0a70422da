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
