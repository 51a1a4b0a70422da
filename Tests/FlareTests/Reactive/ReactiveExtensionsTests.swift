import Flare
import FlareTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

// `Reactive`, `ReactiveExtensionsProvider` and the Foundation extensions,
// used as a ReactiveSwift app uses them.

/// An app's view type with a reactive extension, as ReactiveSwift apps
/// write them.
private final class Label: ReactiveExtensionsProvider, @unchecked Sendable {
    var text = ""
    static let defaultText = "—"
    let (lifetime, token) = Lifetime.make()
}

extension Reactive where Base: Label {
    var text: BindingTarget<String> {
        BindingTarget(lifetime: base.lifetime, object: base, keyPath: \.text)
    }

    static var defaultText: SignalProducer<String, Never> {
        SignalProducer(value: Base.defaultText)
    }
}

@Suite("Reactive extensions")
struct ReactiveExtensionsTests {
    @Test("an app's extension of Reactive binds through label.reactive.text")
    func appExtensionBinds() {
        let label = Label()
        let title = MutableProperty("Hello")
        label.reactive.text <~ title
        #expect(label.text == "Hello")
        title.value = "World"
        #expect(label.text == "World")
        #expect(label.reactive.base === label)
    }

    @Test("static extensions are reached through the type's reactive")
    func staticExtension() {
        #expect(Label.reactive.defaultText.first()?.get() == "—")
    }

    @Test("notifications(forName:) sends the matching notifications, until disposed")
    func notifications() {
        let center = NotificationCenter()
        let name = Notification.Name("flare.test.first")
        let other = Notification.Name("flare.test.other")
        let sender = NSObject()
        let any = Recorder<String>()
        let fromSender = Recorder<String>()

        let anyObservation = center.reactive.notifications(forName: name)
            .observeValues { any.append("\($0.name.rawValue) \($0.object == nil ? "nil" : "sender")") }
        let senderObservation = center.reactive.notifications(forName: name, object: sender)
            .observeValues { fromSender.append("\($0.name.rawValue) \($0.object == nil ? "nil" : "sender")") }

        center.post(name: other, object: nil)
        center.post(name: name, object: nil)
        center.post(name: name, object: sender)
        anyObservation?.dispose()
        senderObservation?.dispose()
        center.post(name: name, object: sender)

        #expect(any.items == ["flare.test.first nil", "flare.test.first sender"])
        #expect(fromSender.items == ["flare.test.first sender"])
    }

    @Test("the center is no longer observed once the signal has ended")
    func notificationsStopObservingWhenTheSignalEnds() {
        let center = NotificationCenter()
        let name = Notification.Name("flare.test.ended")
        let disposed = Recorder<String>()
        weak var weakSignal: Signal<Notification, Never>?
        let observation: Disposable? = {
            let signal = center.reactive.notifications(forName: name).on(disposed: { disposed.append("disposed") })
            weakSignal = signal
            return signal.observe { _ in }
        }()
        #expect(weakSignal == nil)
        #expect(disposed.items == [])
        observation?.dispose()
        #expect(disposed.items == ["disposed"])
        // A post after the end reaches no block (nothing is left to observe).
        center.post(name: name, object: nil)
        #expect(disposed.items == ["disposed"])
    }

    @Test("URLSession.reactive.data(with:) sends the data and the response, then completes")
    func urlSessionData() throws {
        let session = URLSession(configuration: StubProtocol.configuration)
        defer { session.invalidateAndCancel() }
        let url = URL(string: "stub://example.org/ok")!
        let log = Recorder<String>()
        let result = session.reactive.data(with: URLRequest(url: url))
            .on(completed: { log.append("completed") })
            .last()  // waits for the terminal event, which `first()` would cut off
        let (data, response) = try #require(try result?.get())
        #expect(String(decoding: data, as: UTF8.self) == "flare")
        #expect(response.url == url)
        #expect(log.items == ["completed"])
    }

    @Test("URLSession.reactive.data(with:) fails with the task's error")
    func urlSessionFailure() {
        let session = URLSession(configuration: StubProtocol.configuration)
        defer { session.invalidateAndCancel() }
        let result = session.reactive.data(with: URLRequest(url: URL(string: "stub://example.org/fail")!)).first()
        #expect(throws: (any Error).self) { try result?.get() }
        if case let .failure(error as NSError)? = result {
            #expect(error.domain == StubProtocol.errorDomain)
        } else {
            Issue.record("expected a failure, got \(String(describing: result))")
        }
    }

    @Test("disposing the run cancels the task")
    func urlSessionCancels() {
        // A request the stub never answers: only cancellation ends the task
        // (no network is involved).
        let session = URLSession(configuration: StubProtocol.configuration)
        defer { session.invalidateAndCancel() }
        let request = URLRequest(url: URL(string: "stub://example.org/hang")!, timeoutInterval: 60)
        let events = Recorder<String>()
        let disposable = session.reactive.data(with: request).start { events.append(describe($0)) }
        #expect(runningTasks(of: session) == 1)
        disposable.dispose()
        #expect(events.items == ["interrupted"])
        eventually { runningTasks(of: session) == 0 }
        #expect(runningTasks(of: session) == 0)
        #expect(events.items == ["interrupted"])
    }
}

/// The tasks of `session` that have not ended.
private func runningTasks(of session: URLSession) -> Int {
    let done = DispatchSemaphore(value: 0)
    let count = Recorder<Int>()
    session.getAllTasks { tasks in
        count.append(tasks.filter { $0.state == .running || $0.state == .suspended }.count)
        done.signal()
    }
    done.wait()
    return count.items.first ?? -1
}

/// Answers `stub://…/ok` with "flare" and fails `stub://…/fail`, without a
/// network.
private final class StubProtocol: URLProtocol {
    static let errorDomain = "flare.test.stub"

    static var configuration: URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [StubProtocol.self]
        return configuration
    }

    override class func canInit(with request: URLRequest) -> Bool { request.url?.scheme == "stub" }
    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    override func startLoading() {
        guard let url = request.url, let client else { return }
        if url.path == "/hang" { return }
        if url.path == "/ok" {
            let response = HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: nil)!
            client.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
            client.urlProtocol(self, didLoad: Data("flare".utf8))
            client.urlProtocolDidFinishLoading(self)
        } else {
            client.urlProtocol(self, didFailWithError: NSError(domain: Self.errorDomain, code: 7))
        }
    }

    override func stopLoading() {}
}
