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
        let items = log.items
        #expect(Array(items.prefix(7)) == ["group odd", "odd v1", "group even", "even v2", "odd v3", "even v4"] + [items[6]])
        #expect(Set(items[6...7]) == ["odd failed(E9)", "even failed(E9)"])
        #expect(items.last == "outer failed(E9)")
    }

    @Test("group(by:transform:) and the producer form")
    func transformAndProducer() {
        let log = Recorder<String>()
        SignalProducer<String, Never>(["apple", "avocado", "banana"])
            .group(by: { $0.first! }, transform: { $0.count })
            .startWithValues { key, group in
                group.observe { log.append("\(key) \(describe($0))") }
            }
        #expect(log.items == ["a v5", "a v7", "b v6", "a completed", "b completed"]
            || log.items == ["a v5", "a v7", "b v6", "b completed", "a completed"])
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
