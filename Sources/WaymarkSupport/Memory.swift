#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
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

/// Memory for arrays that queries read at random across megabytes (a map read whole, a search's
/// labels): it starts on a 2 MB boundary and asks for 2 MB pages (Linux's transparent huge pages,
/// which this system gives only where asked), so that a query's jumps miss the processor's address
/// cache far less often than over 4 KB pages. Zeroed, readable and writable, mapped lazily.
package enum LargePages {
    package static let pageSize = 2 << 20

    /// The bytes `allocate(_:)` maps for `byteCount` bytes: whole large pages.
    package static func span(_ byteCount: Int) -> Int { max(1, (byteCount + pageSize - 1) / pageSize) * pageSize }

    /// `span(byteCount)` bytes on a large-page boundary; nil where the system has no memory to map.
    /// Released with ``release(_:byteCount:)`` and the same count.
    package static func allocate(_ byteCount: Int) -> UnsafeMutableRawPointer? {
        let span = span(byteCount)
        // Mapped one page more, then trimmed to the boundary at both ends.
        guard let base = mmap(nil, span + pageSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
              base != MAP_FAILED else { return nil }
        let head = (pageSize - Int(bitPattern: base) % pageSize) % pageSize
        if head > 0 { munmap(base, head) }
        munmap(base + head + span, pageSize - head) // (head < pageSize: something is always left over)
        let start = base + head
        #if os(Linux)
        _ = madvise(start, span, MADV_HUGEPAGE)
        #endif
        return start
    }

    package static func release(_ start: UnsafeMutableRawPointer, byteCount: Int) {
        munmap(start, span(byteCount))
    }
}
