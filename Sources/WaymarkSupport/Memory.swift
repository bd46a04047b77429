#if canImport(Glibc)
import Glibc
#endif

/// Hands memory the process has freed back to the system, where the allocator would keep it
/// (glibc keeps freed heap pages, in one arena per thread that allocated them). Called between
/// the phases of a build, so that the next phase's peak does not sit on top of the last one's
/// leftovers. Costs a walk over the free lists: milliseconds. Does nothing elsewhere.
public func returnFreedMemory() {
    #if canImport(Glibc)
    // glibc's `malloc_trim`, looked up at run time: Swift's Glibc module leaves out <malloc.h>.
    typealias Trim = @convention(c) (Int) -> Int32
    if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") {
        _ = unsafeBitCast(symbol, to: Trim.self)(0)
    }
    #endif
}
