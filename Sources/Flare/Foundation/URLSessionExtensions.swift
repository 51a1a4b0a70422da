import Foundation
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
            let task = session.dataTask(with: request) { data, response, error in
                if let data, let response {
                    observer.send(value: (data, response))
                    observer.sendCompleted()
                } else {
                    observer.send(error: error ?? NSError(domain: URLSessionReactiveErrorDomain, code: 1))
                }
            }
            lifetime.observeEnded { task.cancel() }
            task.resume()
        }
    }
}

/// The error domain of the failure of `URLSession.reactive.data(with:)` when
/// a task ends with neither data nor an error.
public let URLSessionReactiveErrorDomain = "org.flare.URLSession.dataWithRequest"
