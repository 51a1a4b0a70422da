import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSession: ReactiveExtensionsProvider {}

extension Reactive where Base: URLSession {
    /// A producer whose every start loads `request` with a data task of this
    /// session: it sends the data and the response, then completes, or fails
    /// with the task's error.
    ///
    /// Disposing the run cancels the task (its cancellation error is not
    /// delivered: the run has already been interrupted). Events arrive on the
    /// session's delegate queue.
    ///
    /// A task that ends with neither data nor an error (which
    /// `URLSession` does not document) fails with an `NSError` in the
    /// domain ``URLSessionReactiveErrorDomain``.
    public func data(with request: URLRequest) -> SignalProducer<(Data, URLResponse), Swift.Error> {
        let session = base
        return SignalProducer { observer, lifetime in
            let end = _TaskEnd()
            let task = session.dataTask(with: request) { data, response, error in
                // Decided before the events: the run's end that they cause
                // must not cancel the task that has just finished. A task
                // whose cancellation was decided first has an interrupted
                // run: its events (the cancellation error) go nowhere.
                guard end.finish() else { return }
                if let data, let response {
                    observer.send(value: (data, response))
                    observer.sendCompleted()
                } else {
                    observer.send(error: error ?? NSError(domain: URLSessionReactiveErrorDomain, code: 1))
                }
            }
            // Only a task whose completion handler has not run is
            // cancelled: on Linux, FoundationNetworking stops the process
            // when a finished task is cancelled ("Trying to access a
            // behaviour for a task that in not in the registry").
            lifetime.observeEnded {
                if end.cancel() { task.cancel() }
            }
            task.resume()
        }
    }
}

/// How a data task's run ends, decided once: by its completion handler
/// (`finish`) or by the run's end cancelling it (`cancel`), whichever comes
/// first. One exchange decides, so the two cannot both win: a check of
/// "finished" followed by `cancel()` would let the completion handler run
/// between the two, and cancel a finished task.
final class _TaskEnd: Sendable {
    private let decided = Atomic<Bool>(false)

    /// The completion handler's claim: true if it is the first, and the
    /// task will not be cancelled.
    func finish() -> Bool {
        !decided.exchange(true, ordering: .acquiringAndReleasing)
    }

    /// The run's end's claim: true if it is the first (the completion
    /// handler has not run and will deliver nothing), and the caller
    /// cancels the task.
    func cancel() -> Bool {
        !decided.exchange(true, ordering: .acquiringAndReleasing)
    }
}

/// The error domain of the failure of `URLSession.reactive.data(with:)` when
/// a task ends with neither data nor an error.
public let URLSessionReactiveErrorDomain = "org.flare.URLSession.dataWithRequest"
