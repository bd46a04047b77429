import Dispatch

/// Runs `first` and `second` at the same time (on two cores where there are two) and returns
/// both results once both are done.
public func inParallel<A, B>(_ first: () -> A, _ second: () -> B) -> (A, B) {
    withoutActuallyEscaping(first) { first in
        withoutActuallyEscaping(second) { second in
            nonisolated(unsafe) let run = (first, second)
            // Two variables, each written by one of the two iterations only.
            nonisolated(unsafe) var a: A?
            nonisolated(unsafe) var b: B?
            DispatchQueue.concurrentPerform(iterations: 2) { i in
                if i == 0 { a = run.0() } else { b = run.1() }
            }
            return (a!, b!)
        }
    }
}
