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
            let finished = _TaskFinished()
            let task = session.dataTask(with: request) { data, response, error in
                // Before the events: the run's end that they cause must not
                // cancel the task that has just finished.
                finished.flag.store(true, ordering: .releasing)
                if let data, let response {
                    observer.send(value: (data, response))
                    observer.sendCompleted()
                } else {
                    observer.send(error: error ?? NSError(domain: URLSessionReactiveErrorDomain, code: 1))
                }
            }
            // Only a task still loading is cancelled: on Linux,
            // FoundationNetworking stops the process when a finished task is
            // cancelled ("Trying to access a behaviour for a task that in
            // not in the registry").
            lifetime.observeEnded {
                if !finished.flag.load(ordering: .acquiring) { task.cancel() }
            }
            task.resume()
        }
    }
}

/// Whether a data task's completion handler has run.
final class _TaskFinished: Sendable {
    let flag = Atomic<Bool>(false)
}

/// The error domain of the failure of `URLSession.reactive.data(with:)` when
/// a task ends with neither data nor an error.
public let URLSessionReactiveErrorDomain = "org.flare.URLSession.dataWithRequest"
