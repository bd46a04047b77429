import Dispatch
import Foundation
import Testing
@testable import WaymarkSupport

@Suite struct ParallelTests {
    @Test func returnsBothResults() {
        let (a, b) = inParallel({ (1...1000).reduce(0, +) }, { "second" })
        #expect(a == 500_500)
        #expect(b == "second")
    }

    @Test func runsBothAtOnce() {
        // Each side waits for the other to arrive: done one after the other, the first would
        // wait in vain (and time out).
        let first = DispatchSemaphore(value: 0), second = DispatchSemaphore(value: 0)
        let (a, b) = inParallel({ () -> Bool in
            first.signal()
            return second.wait(timeout: .now() + 10) == .success
        }, { () -> Bool in
            second.signal()
            return first.wait(timeout: .now() + 10) == .success
        })
        #expect(a && b)
    }

    /// Work inside either side may itself be shared out with `concurrentPerform` and gets more
    /// than one thread. (When the two sides were the two iterations of one `concurrentPerform`,
    /// the nested iterations ran one after the other on the side's own thread.)
    @Test(.enabled(if: ProcessInfo.processInfo.activeProcessorCount >= 2, "needs two cores"))
    func workInsideEitherSideIsSharedOut() {
        /// Whether the two iterations of a `concurrentPerform` ran at the same time: each waits
        /// for the other to arrive.
        @Sendable func twoIterationsMeet() -> Bool {
            let arrived = [DispatchSemaphore(value: 0), DispatchSemaphore(value: 0)]
            let met = Mutex2()
            DispatchQueue.concurrentPerform(iterations: 2) { i in
                arrived[i].signal()
                if arrived[1 - i].wait(timeout: .now() + 5) == .success { met.add() }
            }
            return met.count == 2
        }
        let (a, b) = inParallel(twoIterationsMeet, twoIterationsMeet)
        #expect(a, "the caller's side")
        #expect(b, "the second thread's side")
    }
}

/// A counter two threads add to.
private final class Mutex2: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func add() { lock.withLock { value += 1 } }
    var count: Int { lock.withLock { value } }
}
