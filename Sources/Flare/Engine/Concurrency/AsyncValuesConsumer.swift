/// The iterating task's side of a channel: its local batch, and the
/// ownership that ends the observation when the iterator goes away.
///
/// Not `Sendable`: only the iterating task touches it, one call at a time,
/// so its variables go without Swift's dynamic exclusivity checks (several
/// per value otherwise).
@usableFromInline
final class _AsyncValuesConsumer<Element: Sendable, Failure: Swift.Error> {
    @usableFromInline let channel: _AsyncValuesChannel<Element, Failure>
    @usableFromInline @exclusivity(unchecked) var batch: [Element] = []
    @usableFromInline @exclusivity(unchecked) var index = 0
    @usableFromInline @exclusivity(unchecked) var isDone = false

    @inlinable
    init(channel: _AsyncValuesChannel<Element, Failure>) {
        self.channel = channel
    }

    deinit {
        // Leaving the loop early (or finishing it) releases the iterator:
        // end the observation or interrupt the run at once.
        channel.cancel()
    }

    /// The next value of the local batch, if there is one and the task
    /// was not cancelled; synchronous.
    @inlinable
    func nextBuffered() -> Element? {
        guard index < batch.count, !isDone, !Task.isCancelled else { return nil }
        let value = batch[index]
        index += 1
        return value
    }

    @inlinable
    func next(isolation actor: isolated (any Actor)?) async throws(Failure) -> Element? {
        while true {
            if isDone { return nil }
            if Task.isCancelled {
                finishIteration()
                return nil
            }
            if index < batch.count {
                let value = batch[index]
                index += 1
                return value
            }
            batch.removeAll(keepingCapacity: true)
            index = 0
            var spare: [Element] = []
            swap(&spare, &batch)
            let taken = channel.take(spare: &spare)
            // The batch, or the emptied capacity, back in place.
            swap(&spare, &batch)
            switch taken {
            case .batch:
                break
            case let .one(value):
                return value
            case let .end(end):
                finishIteration()
                if case let .failed(error) = end { throw error }
                return nil
            case .cancelled:
                finishIteration()
                return nil
            case .empty:
                let channel = self.channel
                let wake = await withTaskCancellationHandler {
                    await withUnsafeContinuation(isolation: actor) { continuation in
                        channel.park(continuation)
                    }
                } onCancel: {
                    channel.cancel()
                }
                if case let .value(value) = wake { return value }
            }
        }
    }

    @inlinable
    func finishIteration() {
        isDone = true
        batch = []
        index = 0
        channel.cancel()
    }
}
