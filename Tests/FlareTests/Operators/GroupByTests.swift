import Flare
import Foundation
import Testing

@Suite("group(by:)")
struct GroupByTests {
    @Test("a group is sent the first time its key is seen, then receives that key's values; the terminal event ends every group, then the result")
    func groups() {
        let (signal, input) = Signal<Int, TestError>.pipe()
        let log = Recorder<String>()
        signal.group(by: { $0 % 2 == 0 ? "even" : "odd" }).observe { event in
            switch event {
            case let .value((key, group)):
                log.append("group \(key)")
                group.observe { log.append("\(key) \(describe($0))") }
            default:
                log.append("outer \(describe(event))")
            }
        }
        for value in [1, 2, 3, 4] { input.send(value: value) }
        input.send(error: TestError(code: 9))
        #expect(log.items == [
            "group odd", "odd v1", "group even", "even v2", "odd v3", "even v4",
            "odd failed(E9)", "even failed(E9)", "outer failed(E9)",
        ])
    }

    @Test("group(by:transform:) and the producer form")
    func transformAndProducer() {
        let log = Recorder<String>()
        SignalProducer<String, Never>(["apple", "avocado", "banana"])
            .group(by: { $0.first! }, transform: { $0.count })
            .startWithValues { key, group in
                group.observe { log.append("\(key) \(describe($0))") }
            }
        #expect(log.items == ["a v5", "a v7", "b v6", "a completed", "b completed"])
    }

    /// The keys of `orderTest`'s groups in the order they are first seen: a
    /// permutation of 0..<500 that no hash order follows.
    static let scrambledKeys = (0..<500).map { ($0 * 7919 + 13) % 500 }

    /// Makes 500 groups, sends `terminal`, and returns the keys in the order
    /// their groups were created and in the order they received `terminal`.
    static func groupOrder(
        ending terminal: Signal<Int, TestError>.Event
    ) -> (created: [Int], ended: [Int], outerLast: Bool) {
        let (signal, input) = Signal<Int, TestError>.pipe()
        let created = Recorder<Int>(), ended = Recorder<Int>()
        let outerEnded = Recorder<Int>()
        signal.group(by: { $0 }).observe { event in
            if case let .value((key, group)) = event {
                created.append(key)
                group.observe { if $0.isTerminating { ended.append(key) } }
            } else if event.isTerminating {
                outerEnded.append(ended.items.count)
            }
        }
        for key in scrambledKeys { input.send(value: key) }
        for key in scrambledKeys.reversed() { input.send(value: key) }
        input.send(terminal)
        return (created.items, ended.items, outerEnded.items == [500])
    }

    @Test("completed and failed end the groups in the order they were created (ReactiveObjC's RACSignalSpec), then the result")
    func endsGroupsInCreationOrder() {
        let completed = Self.groupOrder(ending: .completed)
        #expect(completed.created == Self.scrambledKeys)
        #expect(completed.ended == Self.scrambledKeys)
        #expect(completed.outerLast)
        let failed = Self.groupOrder(ending: .failed(TestError(code: 3)))
        #expect(failed.ended == Self.scrambledKeys)
        #expect(failed.outerLast)
        let interrupted = Self.groupOrder(ending: .interrupted)
        #expect(interrupted.ended == Self.scrambledKeys)
    }

    @Test("a result abandoned with its groups open interrupts them in the order they were created")
    func abandonedInterruptsInCreationOrder() {
        let (signal, input) = Signal<Int, Never>.pipe()
        let ended = Recorder<Int>()
        var outer: Disposable? = signal.group(by: { $0 }).observeValues { key, group in
            group.observeInterrupted { ended.append(key) }
        }
        for key in Self.scrambledKeys { input.send(value: key) }
        outer?.dispose()
        outer = nil
        input.send(value: 0)
        #expect(ended.items == Self.scrambledKeys)
    }

    @Test("many keys, four concurrent senders: every value reaches its group once, each sender's values in order")
    func concurrentSenders() {
        let (signal, input) = Signal<(Int, Int), Never>.pipe()
        let perKey = Locked<[Int: [(Int, Int)]]>([:])
        let groupsSeen = Counter()
        let completed = Counter()
        signal.group(by: { $0.1 % 64 }).observeValues { key, group in
            groupsSeen.increment()
            group.observe { event in
                switch event {
                case let .value(value): perKey.withLock { $0[key, default: []].append(value) }
                case .completed: completed.increment()
                default: break
                }
            }
        }
        let perSender = 4_000
        onThreads(4) { thread in
            for i in 0..<perSender { input.send(value: (thread, i)) }
        }
        input.sendCompleted()
        let groups = perKey.withLock { $0 }
        #expect(groupsSeen.count == 64)
        #expect(completed.count == 64)
        #expect(groups.values.map(\.count).reduce(0, +) == 4 * perSender)
        for (key, values) in groups {
            #expect(values.allSatisfy { $0.1 % 64 == key })
            for thread in 0..<4 {
                let mine = values.filter { $0.0 == thread }.map(\.1)
                #expect(mine == mine.sorted())
                #expect(mine.count == perSender / 64 + (key < perSender % 64 ? 1 : 0))
            }
        }
    }

    @Test("a group nobody keeps is released; the result abandoned interrupts the groups still observed")
    func abandoned() {
        let (signal, input) = Signal<Int, Never>.pipe()
        let log = Recorder<String>()
        let unkept = Unguarded<Signal<Int, Never>?>(nil)
        weak var weakUnkept: Signal<Int, Never>?
        var result: Signal<(Int, Signal<Int, Never>), Never>? = signal.group(by: { $0 })
        var outer: Disposable? = result!.observeValues { key, group in
            if key == 1 { group.observe { log.append(describe($0)) } }
            if key == 2 { unkept.value = group }
        }
        result = nil
        input.send(value: 1)
        input.send(value: 2)
        input.send(value: 1)
        weakUnkept = unkept.value
        unkept.value = nil
        #expect(weakUnkept == nil)
        outer?.dispose()
        outer = nil
        input.send(value: 1)
        #expect(log.items == ["v1", "v1", "interrupted"])
    }
}
