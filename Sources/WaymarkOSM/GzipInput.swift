import CZlib
import Foundation

/// Reads a file through zlib's gz* functions, gzip-compressed (`.osm.gz`) or plain alike, on a
/// thread of its own: it inflates into a small pool of reusable buffers while the parser consumes
/// the previous ones, so inflation and parsing overlap on two cores. Memory stays bounded
/// (``chunkCount`` × ``chunkSize``) whatever the file size.
///
/// Threading: the producer thread alone calls gzread/gzoffset; the consumer (the parser) alone
/// reads `current`; everything else is guarded by `condition`. The producer holds the input alive
/// until it finishes, so an owner that stops reading early must call ``close()``.
final class GzipInput: @unchecked Sendable {
    let path: String
    let fileSize: Int
    static let chunkSize = 1 << 18
    static let chunkCount = 8

    private struct Chunk {
        var buffer: UnsafeMutableRawBufferPointer
        var count: Int
        /// Bytes of the file consumed once this chunk was produced.
        var fileOffset: Int
    }

    private let file: gzFile
    private let condition = NSCondition()
    private var filled: [Chunk] = []
    private var filledHead = 0
    private var free: [UnsafeMutableRawBufferPointer] = []
    private var allBuffers: [UnsafeMutableRawBufferPointer] = []
    private var finished = false
    private var cancelled = false
    private var producerRunning = false
    private var failureMessage: String?

    // Consumer side.
    private var current: Chunk?
    private var position = 0
    private(set) var fileBytesRead = 0
    private(set) var uncompressedBytes = 0
    /// Called about every 4 MiB of output with (file bytes read, file size), on the consumer thread.
    var progress: ((Int, Int) -> Void)?
    private var nextProgress = 1 << 22

    init(path: String) throws(OSMReadError) {
        self.path = path
        var info = stat()
        guard stat(path, &info) == 0 else { throw .cannotOpen(path: path, reason: String(cString: strerror(errno))) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw .cannotOpen(path: path, reason: "not a regular file") }
        fileSize = Int(info.st_size)
        guard let handle = gzopen(path, "rb") else {
            throw .cannotOpen(path: path, reason: String(cString: strerror(errno)))
        }
        gzbuffer(handle, 1 << 17)
        file = handle
        for _ in 0..<GzipInput.chunkCount {
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: GzipInput.chunkSize, alignment: 16)
            allBuffers.append(buffer)
            free.append(buffer)
        }
        producerRunning = true
        let thread = Thread { [self] in produce() }
        thread.name = "waymark-inflate"
        thread.start()
    }

    deinit {
        close()
        gzclose(file)
        for buffer in allBuffers { buffer.deallocate() }
    }

    /// An error from inflating, once the consumer has reached it.
    var failure: String? {
        condition.lock()
        defer { condition.unlock() }
        return failureMessage
    }

    // MARK: - Producer

    private func produce() {
        while true {
            condition.lock()
            while free.isEmpty && !cancelled { condition.wait() }
            if cancelled { break }
            let buffer = free.removeLast()
            condition.unlock()

            let n = gzread(file, buffer.baseAddress, UInt32(buffer.count))
            let offset = Int(gzoffset(file))

            condition.lock()
            if n <= 0 {
                var code: Int32 = 0
                let message = gzerror(file, &code).map { String(cString: $0) }
                if n < 0 {
                    failureMessage = message ?? "gzread failed"
                } else if code == Z_BUF_ERROR {
                    // zlib ends a cut-off stream quietly, with this code: say so rather than let the
                    // XML parser report the half element it was left with.
                    failureMessage = "truncated gzip data: the file ends before its compressed stream does"
                }
                free.append(buffer)
                finished = true
                condition.broadcast()
                break
            }
            filled.append(Chunk(buffer: buffer, count: Int(n), fileOffset: offset))
            condition.broadcast()
            condition.unlock()
        }
        producerRunning = false
        condition.broadcast()
        condition.unlock()
    }

    // MARK: - Consumer

    /// Fills `destination` with up to `count` bytes; returns the number read, 0 at the end, -1 on error.
    func read(into destination: UnsafeMutablePointer<CChar>, count: Int32) -> Int32 {
        if current == nil || position == current!.count {
            guard let next = nextChunk() else {
                condition.lock()
                defer { condition.unlock() }
                return failureMessage == nil ? 0 : -1
            }
            current = next
            position = 0
            fileBytesRead = next.fileOffset
        }
        let chunk = current!
        let n = min(Int(count), chunk.count - position)
        UnsafeMutableRawPointer(destination).copyMemory(from: chunk.buffer.baseAddress! + position, byteCount: n)
        position += n
        uncompressedBytes += n
        if let progress, uncompressedBytes >= nextProgress {
            nextProgress += 1 << 22
            progress(fileBytesRead, fileSize)
        }
        return Int32(n)
    }

    /// Hands the finished chunk back and waits for the next; nil at the end (or on error).
    private func nextChunk() -> Chunk? {
        condition.lock()
        defer { condition.unlock() }
        if let done = current {
            free.append(done.buffer)
            current = nil
            condition.broadcast()
        }
        while filledHead == filled.count && !finished { condition.wait() }
        guard filledHead < filled.count else { return nil }
        let chunk = filled[filledHead]
        filledHead += 1
        if filledHead > 64 {
            filled.removeFirst(filledHead)
            filledHead = 0
        }
        return chunk
    }

    /// Stops the producer and waits for it to leave the file alone.
    func close() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        while producerRunning { condition.wait() }
        condition.unlock()
    }
}
