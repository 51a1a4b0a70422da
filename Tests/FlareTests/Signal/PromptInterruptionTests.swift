import Flare
import Foundation
import Testing

/// Contract 8 (docs/contracts.md): `interrupted` overtakes the values queued
/// behind a delivery in progress; `completed` and `failed` keep FIFO order.
///
/// Each test makes the schedule deterministic with semaphores: a delivery is
/// held inside an observer on one thread while the test queues events behind
/// it from another, then lets the delivery go.
@Suite("Prompt interruption: what a terminal event does to queued values")
struct PromptInterruptionTests {
    /// A pipe whose first delivery of `1` blocks inside the observer until
    /// `release` is signalled; `entered` is signalled once it is blocked.
    final class HeldDelivery: @unchecked Sendable {
        let (signal, input) = Signal<Int, TestError>.pipe()
        let log = Recorder<String>()
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)

        init() {
            signal.observe { [entered, release, log] event in
                log.append(describe(event))
                if case .value(1) = event {
                    entered.signal()
                    release.wait()
                }
            }
        }

        /// Sends `1` from another thread and returns once its delivery is
        /// blocked in the observer: that thread holds the serial word.
        func holdFirstDelivery() {
            Thread.detachNewThread { [self] in
                input.send(value: 1)
                finished.signal()
            }
            entered.wait()
        }

        /// Lets the held delivery go and waits for the delivering thread to
        /// have drained everything queued behind it.
        func letGo() {
            release.signal()
            finished.wait()
        }
    }

    @Test("interrupted overtakes values queued behind the delivery in progress")
    func interruptedOvertakesQueuedValues() {
        let held = HeldDelivery()
        held.holdFirstDelivery()
        held.input.send(value: 2)  // queued behind the blocked delivery
        held.input.send(value: 3)
        held.input.sendInterrupted()  // returns at once: queued too
        held.letGo()
        #expect(held.log.items == ["v1", "interrupted"])
        held.input.send(value: 4)
        #expect(held.log.items == ["v1", "interrupted"])
    }

    @Test("interrupted overtakes a completion queued before it")
    func interruptedOvertakesQueuedCompletion() {
        let held = HeldDelivery()
        held.holdFirstDelivery()
        held.input.send(value: 2)
        held.input.sendCompleted()
        held.input.sendInterrupted()
        held.letGo()
        #expect(held.log.items == ["v1", "interrupted"])
    }

    @Test("completed keeps FIFO: values queued before it are delivered first")
    func completedKeepsQueuedValues() {
        let held = HeldDelivery()
        held.holdFirstDelivery()
        held.input.send(value: 2)
        held.input.send(value: 3)
        held.input.sendCompleted()
        held.input.send(value: 4)  // after the terminal event: ignored
        held.letGo()
        #expect(held.log.items == ["v1", "v2", "v3", "completed"])
    }

    @Test("failed keeps FIFO: values queued before it are delivered first")
    func failedKeepsQueuedValues() {
        let held = HeldDelivery()
        held.holdFirstDelivery()
        held.input.send(value: 2)
        held.input.send(error: TestError(code: 1))
        held.input.send(value: 3)
        held.letGo()
        #expect(held.log.items == ["v1", "v2", "failed(E1)"])
    }

    @Test("an interruption sent from inside an observer drops the values it queued before")
    func reentrantInterruption() {
        let (signal, input) = Signal<Int, Never>.pipe()
        let log = Recorder<String>()
        signal.observe { event in
            log.append(describe(event))
            if case .value(1) = event {
                input.send(value: 2)  // queued behind this delivery
                input.sendInterrupted()  // overtakes it
            }
        }
        input.send(value: 1)
        #expect(log.items == ["v1", "interrupted"])
    }

    @Test("a derived signal sees the interruption ahead of the queued values")
    func derivedSignalIsInterruptedPromptly() {
        let held = HeldDelivery()
        let derivedLog = Recorder<String>()
        held.signal.map { $0 * 10 }.observe { derivedLog.append(describe($0)) }
        held.holdFirstDelivery()
        held.input.send(value: 2)
        held.input.sendInterrupted()
        held.letGo()
        #expect(held.log.items == ["v1", "interrupted"])
        #expect(derivedLog.items == ["v10", "interrupted"])
    }
}
