import Dispatch
import Flare
import FlareTestSupport
import Foundation
import Testing

/// `UIScheduler`: synchronous on the main queue when nothing is pending,
/// otherwise enqueued on the main queue in order. The tests run on the main
/// actor, whose executor is the main queue.
@Suite("UIScheduler")
@MainActor
struct UISchedulerTests {
    @Test("on the main queue, an action runs before schedule returns")
    func runsAtOnceOnTheMainQueue() {
        let scheduler = UIScheduler()
        let log = Recorder<String>()
        let disposable = scheduler.schedule { log.append("action 0") }
        log.append("returned")
        scheduler.schedule { log.append("action 1") }
        scheduler.schedule { log.append("action 2") }
        #expect(log.items == ["action 0", "returned", "action 1", "action 2"])
        #expect(disposable == nil)
    }

    @Test("from another thread, actions are enqueued and run on the main queue in order")
    func enqueuesFromTheBackground() async {
        let scheduler = UIScheduler()
        let log = Recorder<String>()
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                scheduler.schedule { log.append("0 main=\(isOnMainQueue())") }
                scheduler.schedule { log.append("1 main=\(isOnMainQueue())") }
                scheduler.schedule { done.resume() }
            }
        }
        #expect(log.items == ["0 main=true", "1 main=true"])
    }

    @Test("an action scheduled on the main queue waits for the enqueued ones")
    func mainQueueActionsRunAfterEnqueuedOnes() async {
        let scheduler = UIScheduler()
        let log = Recorder<String>()
        let enqueued = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            scheduler.schedule { log.append("background") }
            enqueued.signal()
        }
        enqueued.wait()
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            scheduler.schedule { log.append("main") }
            log.append("returned")
            scheduler.schedule { done.resume() }
        }
        #expect(log.items == ["returned", "background", "main"])
    }

    @Test("an action scheduled from one of its actions is enqueued, not run inline")
    func nestedActionIsEnqueued() async {
        let scheduler = UIScheduler()
        let log = Recorder<String>()
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            scheduler.schedule {
                scheduler.schedule {
                    log.append("inner")
                    done.resume()
                }
                log.append("outer end")
            }
        }
        #expect(log.items == ["outer end", "inner"])
    }

    @Test("disposing an enqueued action stops it")
    func disposingAnEnqueuedAction() async {
        let scheduler = UIScheduler()
        let log = Recorder<String>()
        let enqueued = DispatchSemaphore(value: 0)
        let disposables = Recorder<Disposable?>()
        DispatchQueue.global().async {
            disposables.append(scheduler.schedule { log.append("disposed action") })
            enqueued.signal()
        }
        enqueued.wait()
        disposables.items.first??.dispose()
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            scheduler.schedule { done.resume() }
        }
        #expect(log.items == [])
    }

    @Test("a binding target on UIScheduler is written at once from the main queue")
    func bindingTargetDoesNotDeadlock() {
        let (lifetime, token) = Lifetime.make()
        let values = Recorder<Int>()
        let target = BindingTarget<Int>(on: UIScheduler(), lifetime: lifetime) { values.append($0) }
        let property = MutableProperty(1)
        target <~ property
        property.value = 2
        #expect(values.items == [1, 2])
        withExtendedLifetime(token) {}
    }
}

/// Marks the main queue for `isOnMainQueue()`.
private let mainQueueMark: DispatchSpecificKey<Bool> = {
    let key = DispatchSpecificKey<Bool>()
    DispatchQueue.main.setSpecific(key: key, value: true)
    return key
}()

/// Whether the caller runs in a block of the main queue (on Linux, the
/// thread that drains it need not be the main thread).
private func isOnMainQueue() -> Bool {
    DispatchQueue.getSpecific(key: mainQueueMark) == true
}
