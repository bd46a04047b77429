import Foundation
import Dispatch

/// Runs `first` and `second` at the same time (on two cores where there are two) and returns
/// both results once both are done.
///
/// `second` runs on a thread of its own and `first` on the caller's, so that either may share
/// its own work out with `DispatchQueue.concurrentPerform`. (When both ran as the two
/// iterations of one `concurrentPerform`, such nested work stayed on its one thread, slower than
/// running the two one after the other.)
public func inParallel<A, B>(_ first: () -> A, _ second: () -> B) -> (A, B) {
    withoutActuallyEscaping(second) { second in
        // The thread holds the box, not the closure, and the box lets go of the closure before
        // the thread signals: by the time this returns, nothing but the caller holds it (as
        // `withoutActuallyEscaping` checks).
        let work = SecondWork(second)
        let thread = Thread {
            work.run()
        }
        thread.stackSize = 8 << 20
        thread.start()
        let a = first()
        work.done.wait()
        return (a, work.result!)
    }
}

/// The work `inParallel` hands to its second thread, and what it gives back.
private final class SecondWork<B>: @unchecked Sendable {
    private var body: (() -> B)?
    /// Written by the thread before it signals `done`; read after the wait.
    var result: B?
    let done = DispatchSemaphore(value: 0)

    init(_ body: @escaping () -> B) { self.body = body }

    func run() {
        result = body?()
        body = nil
        done.signal()
    }
}

/// The cores work is shared out among.
public var coreCount: Int { max(1, ProcessInfo.processInfo.activeProcessorCount) }

/// Part `part` of `0..<count` cut into `parts` ranges of about equal size, in order.
@inline(__always)
public func share(_ part: Int, of parts: Int, _ count: Int) -> Range<Int> {
    count * part / parts..<count * (part + 1) / parts
}
