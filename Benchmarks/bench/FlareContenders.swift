import Flare

/// Flare, used exactly as a ReactiveSwift 7 user would: `pipe()`,
/// `observeValues { … }` returning `Disposable?`, `send(value:)`,
/// `map`, `filter`, `merge(with:)`, `combineLatest(with:)`.
enum FlareContender: SignalContender {
    typealias Output = Signal<Int, Never>
    typealias Input = Signal<Int, Never>.Observer
    typealias Handle = any Disposable

    static var name: String { "Flare" }

    static func pipe() -> (output: Output, input: Input) {
        let (output, input) = Signal<Int, Never>.pipe()
        return (output, input)
    }

    static func observe(_ signal: Output, _ sink: Sink) -> Handle? {
        signal.observeValues { sink.add($0) }
    }

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
        signal.observeValues { sink.record($0) }
    }
}
