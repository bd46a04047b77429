import Testing
@testable import WaymarkSupport

@Suite struct LargePagesTests {
    /// The memory starts on a large-page boundary, spans whole large pages, reads as zero, takes
    /// writes to its last byte, and is released; sizes below, at and past one page.
    @Test func alignedZeroedAndWritable() throws {
        for bytes in [1, 4096, LargePages.pageSize - 1, LargePages.pageSize, LargePages.pageSize + 1, 5_000_000] {
            let start = try #require(LargePages.allocate(bytes))
            #expect(Int(bitPattern: start) % LargePages.pageSize == 0)
            #expect(LargePages.span(bytes) % LargePages.pageSize == 0 && LargePages.span(bytes) >= bytes)
            let memory = UnsafeMutableRawBufferPointer(start: start, count: LargePages.span(bytes))
            #expect(memory[0] == 0 && memory[bytes - 1] == 0 && memory[memory.count - 1] == 0)
            memory[memory.count - 1] = 7
            memory[bytes - 1] = 9
            #expect(memory[bytes - 1] == 9 && (bytes == memory.count || memory[memory.count - 1] == 7))
            LargePages.release(start, byteCount: bytes)
        }
    }
}
