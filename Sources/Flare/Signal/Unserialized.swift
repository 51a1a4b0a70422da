extension Signal {
    // ReactiveSwift's unserialized variants drop its send lock: their input
    // observer relies on its callers to enforce mutual exclusion, and the
    // reentrant variant also queues a send made from inside an observer
    // until the current callout is over. Flare needs neither trade: every
    // signal serializes its deliveries without a lock (two compare-and-swaps
    // per uncontended send) and queues reentrant sends. So each variant
    // returns an ordinary signal, which keeps every promise the variant makes
    // and does not need the callers to keep theirs. They exist so that code
    // written against ReactiveSwift compiles unchanged.

    /// A signal whose input ReactiveSwift would leave unserialized; in Flare,
    /// the same as `Signal(generator)`.
    ///
    /// The generator runs at once with the input observer and the signal's
    /// lifetime, as for `init(_:)`. Sends from several threads at once are
    /// still serialized, and a send from inside an observer is queued and
    /// delivered after the current event, to every observer. Cost: that of
    /// `init(_:)`.
    public static func unserialized(_ generator: (Observer, Lifetime) -> Void) -> Signal {
        Signal(generator)
    }

    /// A signal whose input ReactiveSwift would leave unserialized but
    /// reentrant (sends from inside an observer queued until the current
    /// callout ends); in Flare, the same as `Signal(generator)`, which
    /// queues reentrant sends that way and also serializes concurrent ones.
    /// Cost: that of `init(_:)`.
    public static func reentrantUnserialized(_ generator: (Observer, Lifetime) -> Void) -> Signal {
        Signal(generator)
    }

    /// A pipe whose input ReactiveSwift would leave unserialized; in Flare,
    /// the same as `pipe(disposable:)`: serialized, reentrant sends queued.
    ///
    /// - Parameter disposable: Disposed when the signal terminates.
    @inlinable
    public static func unserializedPipe(disposable: Disposable? = nil) -> (output: Signal, input: Observer) {
        pipe(disposable: disposable)
    }

    /// A pipe whose input ReactiveSwift would leave unserialized but
    /// reentrant; in Flare, the same as `pipe(disposable:)`: serialized,
    /// reentrant sends queued and delivered after the current event.
    ///
    /// - Parameter disposable: Disposed when the signal terminates.
    @inlinable
    public static func reentrantUnserializedPipe(disposable: Disposable? = nil) -> (output: Signal, input: Observer) {
        pipe(disposable: disposable)
    }
}

extension SignalProducer {
    /// A producer whose runs ReactiveSwift would leave unserialized; in
    /// Flare, the same as `SignalProducer(startHandler)`: each run is
    /// serialized and queues sends made from inside its observers, for the
    /// reasons given for `Signal.unserialized(_:)`. It exists so that code
    /// written against ReactiveSwift compiles unchanged. Cost: that of
    /// `init(_:)`.
    public static func unserialized(
        _ startHandler: @escaping (Signal<Value, Error>.Observer, Lifetime) -> Void
    ) -> SignalProducer {
        SignalProducer(startHandler)
    }
}
