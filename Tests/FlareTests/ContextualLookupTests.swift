import Flare
import FlareTestSupport
import Foundation
import Testing

// ReactiveSwift code leans on overload resolution: an implicit member such
// as `.init(value: 0)` or `.empty` passed where a producer-convertible is
// expected, and `.init(value:)` in a transform preferring a producer that
// cannot fail. Each test is ReactiveSwift code, unchanged; that it compiles
// is half the check, the events it logs the other half.

private enum UploadError: Error, Equatable {
    case rejected(Int)
}

@Suite("Contextual lookups and ReactiveSwift's overloads")
struct ContextualLookupTests {
    /// The upload queue of a real program: `SignalProducer(jobs)` cannot
    /// fail, `upload` can. Without the initializers ReactiveSwift declares a
    /// second time for `Error == Never`, `flatMap` here is ambiguous.
    @Test("SignalProducer(jobs).flatMap(.concat) { job in upload(job) } with a failing upload")
    func uploadQueue() {
        func upload(_ job: Int) -> SignalProducer<String, UploadError> {
            job == 3 ? SignalProducer(error: .rejected(job)) : SignalProducer(value: "uploaded \(job)")
        }
        let jobs = [1, 2, 3, 4]
        let log = Recorder<String>()
        SignalProducer(jobs)
            .flatMap(.concat) { job in upload(job) }
            .start { log.append(describe($0)) }
        #expect(log.items == ["vuploaded 1", "vuploaded 2", "failed(rejected(3))"])
    }

    @Test(".init(value:) as the result of a flatMap or flatMapError transform")
    func initValueInTransforms() {
        let log = Recorder<String>()
        let recovered: SignalProducer<Int, Never> = SignalProducer<Int, UploadError>(error: .rejected(1))
            .flatMapError { _ in .init(value: 0) }
        recovered.start { log.append(describe($0)) }

        let (signal, input) = Signal<Int, UploadError>.pipe()
        let mapped: Signal<Int, UploadError> = signal.flatMap(.latest) { _ in .init(value: 0) }
        mapped.observe { log.append("signal " + describe($0)) }
        input.send(value: 1)
        input.sendCompleted()

        SignalProducer<Int, Never>(values: 1, 2, 3).start { log.append("values " + describe($0)) }
        #expect(log.items == [
            "v0", "completed",
            "signal v0", "signal completed",
            "values v1", "values v2", "values v3", "values completed",
        ])
    }

    @Test("an implicit member stands for the other producer of a binary operator")
    func implicitMembersAsOperands() {
        let log = Recorder<String>()
        func record<V>(_ label: String, _ producer: SignalProducer<V, Never>) {
            producer.start { log.append("\(label) " + describe($0)) }
        }
        let one = SignalProducer<Int, Never>(value: 1)
        record("merge", one.merge(with: .init(value: 2)))
        record("combineLatest", one.combineLatest(with: .init(value: "a")).map { "\($0)\($1)" })
        record("zip", one.zip(with: .init(value: "b")).map { "\($0)\($1)" })
        record("withLatest", one.withLatest(from: .init(value: "c")).map { "\($0)\($1)" })
        record("sample", one.sample(with: .init(value: "d")).map { "\($0)\($1)" })
        record("sampleOn", one.sample(on: .init(value: ())))
        record("takeUntil", SignalProducer<Int, Never>.never.take(until: .init(value: ())))
        record("skipUntil", one.skip(until: .init(value: ())))
        record("untilReplacement", SignalProducer<Int, Never>.never.take(untilReplacement: .init(value: 5)))
        record("and", SignalProducer<Bool, Never>(value: true).and(.init(value: false)))
        record("or", SignalProducer<Bool, Never>(value: false).or(.init(value: true)))
        record("then", one.then(.init(value: "e")))
        record("thenEmpty", one.then(.empty))

        let (signal, input) = Signal<Int, Never>.pipe()
        signal.withLatest(from: .init(value: "f")).observeValues { log.append("signal \($0)\($1)") }
        input.send(value: 7)

        #expect(log.items == [
            "merge v1", "merge v2", "merge completed",
            "combineLatest v1a", "combineLatest completed",
            "zip v1b", "zip completed",
            "withLatest v1c", "withLatest completed",
            "sample v1d", "sample completed",
            "sampleOn v1", "sampleOn completed",
            "takeUntil completed",
            "skipUntil v1", "skipUntil completed",
            "untilReplacement v5", "untilReplacement completed",
            "and vfalse", "and completed",
            "or vtrue", "or completed",
            "then ve", "then completed",
            "thenEmpty completed",
            "signal 7f",
        ])
    }

    @Test("then(.empty) and then(.init(result:)) on a producer that can fail")
    func thenOnAFailableProducer() {
        let log = Recorder<String>()
        SignalProducer<Int, UploadError>(value: 1).then(.empty).start { log.append("empty " + describe($0)) }
        SignalProducer<Int, UploadError>(value: 1)
            .then(.init(result: Result<String, UploadError>.failure(.rejected(2))))
            .start { log.append("result " + describe($0)) }
        SignalProducer<Int, Never>(value: 1)
            .then(.init(result: Result<String, UploadError>.success("x")))
            .start { log.append("never " + describe($0)) }
        SignalProducer<Int, UploadError>(value: 1)
            .then(.init(value: "y"))
            .start { log.append("value " + describe($0)) }
        #expect(log.items == [
            "empty completed", "result failed(rejected(2))", "never vx", "never completed",
            "value vy", "value completed",
        ])
    }

    @Test("a Result is a producer: SignalProducer(Result.success(…))")
    func resultIsAProducer() {
        let log = Recorder<String>()
        SignalProducer<String, UploadError>(Result.success("ok")).start { log.append(describe($0)) }
        SignalProducer<String, UploadError>(Result.failure(.rejected(4))).start { log.append(describe($0)) }
        Result<Int, UploadError>.success(9).producer.start { log.append(describe($0)) }
        #expect(log.items == ["vok", "completed", "failed(rejected(4))", "v9", "completed"])
    }

    @Test("combineLatest and zip of no producer send emptySentinel, then complete")
    func emptySentinel() {
        let log = Recorder<String>()
        SignalProducer<String, Never>.combineLatest(EmptyCollection<SignalProducer<String, Never>>(), emptySentinel: ["empty"])
            .start { log.append("combineLatest " + describe($0)) }
        SignalProducer<String, Never>.zip(EmptyCollection<SignalProducer<String, Never>>(), emptySentinel: ["empty"])
            .start { log.append("zip " + describe($0)) }
        SignalProducer<String, Never>.combineLatest([SignalProducer(value: "a")], emptySentinel: ["empty"])
            .start { log.append("one " + describe($0)) }
        #expect(log.items == [
            "combineLatest v[\"empty\"]", "combineLatest completed",
            "zip v[\"empty\"]", "zip completed",
            "one v[\"a\"]", "one completed",
        ])
    }

    @Test("Property.all and Property.any take their properties listed")
    func propertyAllAnyVariadic() {
        let a = MutableProperty(false)
        let b = MutableProperty(false)
        let any = Property.any(a, b)
        let all = Property.all(a, b)
        #expect(any.value == false && all.value == false)
        a.value = true
        #expect(any.value == true && all.value == false)
        b.value = true
        #expect(any.value == true && all.value == true)
    }

    @Test("liftLeft starts this producer first, liftRight the other one")
    func liftLeftAndRight() {
        let log = Recorder<String>()
        let left = SignalProducer<Int, Never>(value: 1).on(starting: { log.append("left starts") })
        let right = SignalProducer<Int, Never>(value: 2).on(starting: { log.append("right starts") })
        let merge: (Signal<Int, Never>) -> (Signal<Int, Never>) -> Signal<Int, Never> = { a in { b in a.merge(with: b) } }

        left.liftLeft(merge)(right).start { log.append("left-first " + describe($0)) }
        left.liftRight(merge)(right).start { log.append("right-first " + describe($0)) }
        #expect(log.items == [
            "left starts", "left-first v1", "right starts", "left-first v2", "left-first completed",
            "right starts", "right-first v2", "left starts", "right-first v1", "right-first completed",
        ])
    }
}
