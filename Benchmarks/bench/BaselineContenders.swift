import MutexBaseline

/// One mutex held for the whole delivery.
enum LockedContender: SignalContender {
    typealias Output = LockedSignal<Int, Never>
    typealias Input = LockedSignal<Int, Never>.Input
    typealias Handle = LockedSignal<Int, Never>.Observation

    static var name: String { "Locked" }

    static func pipe() -> (output: Output, input: Input) { Output.pipe() }

    static func observe(_ signal: Output, _ sink: Sink) -> Handle? {
        signal.observe(Output.Observer { event in
            if case let .value(v) = event { sink.add(v) }
        })
    }

    static var bytesPerQueuedEvent: Int { MemoryLayout<Output.Event>.stride }

    static func dispose(_ handle: Handle) { handle.dispose() }

    static func send(_ input: Input, _ value: Int) { input.send(value: value) }

    static func sendCompleted(_ input: Input) { input.sendCompleted() }

    static func mapStage(_ signal: Output) -> Output { signal.map { $0 &+ 1 } }

    static func filterStage(_ signal: Output) -> Output { signal.filter { $0 > 0 } }

    static func merge(_ a: Output, _ b: Output) -> Output { a.merge(with: b) }

    static func combineLatest(_ a: Output, _ b: Output) -> Output {
        a.combineLatest(with: b).map { $0 + $1 }
    }

    static func observeCounting(_ signal: Output, _ sink: Sink) -> Handle? {
        signal.observe(Output.Observer { event in
            if case let .value(v) = event { sink.record(v) }
        })
    }

    static func observeDelivered(_ signal: Output, _ counter: LineCounter) -> Handle? {
        signal.observe(Output.Observer { event in
            if case .value = event { counter.tick() }
        })
    }

    static func observeValues(_ signal: Output, _ action: @escaping (Int) -> Void) -> Handle? {
        signal.observe(Output.Observer { event in
            if case let .value(v) = event { action(v) }
        })
    }
}

/// ReactiveSwift's design: state lock + send lock, snapshot delivery.
enum SnapshotContender: SignalContender {
    typealias Output = SnapshotSignal<Int, Never>
    typealias Input = SnapshotSignal<Int, Never>.Input
    typealias Handle = SnapshotSignal<Int, Never>.Observation

    static var name: String { "Snapshot" }

    static func pipe() -> (output: Output, input: Input) { Output.pipe() }

    static func observe(_ signal: Output, _ sink: Sink) -> Handle? {
        signal.observe(Output.Observer { event in
            if case let .value(v) = event { sink.add(v) }
        })
    }

    static var bytesPerQueuedEvent: Int { MemoryLayout<Output.Event>.stride }

    static func dispose(_ handle: Handle) { handle.dispose() }

    static func send(_ input: Input, _ value: Int) { input.send(value: value) }

    static func sendCompleted(_ input: Input) { input.sendCompleted() }

    static func mapStage(_ signal: Output) -> Output { signal.map { $0 &+ 1 } }

    static func filterStage(_ signal: Output) -> Output { signal.filter { $0 > 0 } }

    static func merge(_ a: Output, _ b: Output) -> Output { a.merge(with: b) }

    static func combineLatest(_ a: Output, _ b: Output) -> Output {
        a.combineLatest(with: b).map { $0 + $1 }
    }

    static func observeCounting(_ signal: Output, _ sink: Sink) -> Handle? {
        signal.observe(Output.Observer { event in
            if case let .value(v) = event { sink.record(v) }
        })
    }

    static func observeDelivered(_ signal: Output, _ counter: LineCounter) -> Handle? {
        signal.observe(Output.Observer { event in
            if case .value = event { counter.tick() }
        })
    }

    static func observeValues(_ signal: Output, _ action: @escaping (Int) -> Void) -> Handle? {
        signal.observe(Output.Observer { event in
            if case let .value(v) = event { action(v) }
        })
    }
}
