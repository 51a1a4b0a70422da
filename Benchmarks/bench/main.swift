// Minimal fan-out measurement; the full bench lives in its own issue.
import Dispatch
import Foundation
import Flare

@inline(never) func sink(_ x: Int) { if x == -42 { print(x) } }

func measure(_ label: String, observers n: Int, events: Int) {
    let (signal, input) = Signal<Int, Never>.pipe()
    nonisolated(unsafe) let acc = UnsafeMutablePointer<Int>.allocate(capacity: 1)
    acc.pointee = 0
    var closures = ContiguousArray<(Int) -> Void>()
    for _ in 0..<n {
        signal.observeValues { acc.pointee &+= $0 }
        closures.append { acc.pointee &+= $0 }
    }
    for v in 0..<1000 { input.send(value: v) }
    var best = Double.infinity, bestLoop = Double.infinity
    for _ in 0..<5 {
        var t0 = DispatchTime.now().uptimeNanoseconds
        for v in 0..<events { input.send(value: v) }
        best = min(best, Double(DispatchTime.now().uptimeNanoseconds - t0) / Double(events * n))
        t0 = DispatchTime.now().uptimeNanoseconds
        for v in 0..<events { var j = 0; while j < closures.count { closures[j](v); j += 1 } }
        bestLoop = min(bestLoop, Double(DispatchTime.now().uptimeNanoseconds - t0) / Double(events * n))
    }
    sink(acc.pointee)
    print("\(label) observers=\(n): flare \(String(format: "%.2f", best)) ns/delivery, loop \(String(format: "%.2f", bestLoop)) ns/call")
}
measure("fan-out", observers: 1, events: 2_000_000)
measure("fan-out", observers: 100, events: 50_000)
