import Flare
import Foundation
import Testing

/// Bad input stops with a precondition failure naming the operator and the
/// value (checked in a child process).
@Suite("Producer operators: bad input")
struct ProducerPreconditionTests {
    private func expectMessage(_ result: ExitTest.Result?, _ message: String) {
        guard let result else { return }
        let stderr = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(stderr.contains(message), "stderr: \(stderr)")
    }

    @Test("negative counts")
    func negativeCounts() async {
        expectMessage(await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = SignalProducer<Int, Never>(value: 1).repeat(-1)
        }, "repeat(_:) needs a non-negative count, got -1")
        expectMessage(await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = SignalProducer<Int, Never>(value: 1).retry(upTo: -1)
        }, "retry(upTo:) needs a non-negative count, got -1")
        expectMessage(await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = SignalProducer<Int, Never>(value: 1).take(first: -1)
        }, "take(first:) needs a non-negative count, got -1")
        expectMessage(await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = Signal<Int, Never>.never.take(first: -2)
        }, "take(first:) needs a non-negative count, got -2")
        expectMessage(await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = SignalProducer<Int, Never>(value: 1).skip(first: -3)
        }, "skip(first:) needs a non-negative count, got -3")
        expectMessage(await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = SignalProducer<Int, Never>(value: 1).take(last: -4)
        }, "take(last:) needs a non-negative count, got -4")
    }
}
