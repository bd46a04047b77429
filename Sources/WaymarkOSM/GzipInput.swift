import CZlib
import Foundation

/// Reads a file through zlib's gz* functions: gzip-compressed (`.osm.gz`) or plain, transparently.
/// Reports progress in bytes of the file itself (compressed bytes for .gz).
final class GzipInput {
    let path: String
    let fileSize: Int
    private var file: gzFile?
    /// Called about every `progressInterval` bytes of output with (file bytes read, file size).
    var progress: ((Int, Int) -> Void)?
    private let progressInterval = 1 << 22
    private var nextProgress = 1 << 22
    private(set) var uncompressedBytes = 0
    private(set) var failure: String?

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
    }

    deinit { close() }

    /// Fills `buffer` with up to `count` bytes; returns the number read, 0 at the end, -1 on error.
    func read(into buffer: UnsafeMutablePointer<CChar>, count: Int32) -> Int32 {
        guard let file else { return -1 }
        let n = gzread(file, buffer, UInt32(count))
        if n < 0 {
            var code: Int32 = 0
            failure = gzerror(file, &code).map { String(cString: $0) } ?? "gzread failed"
            return -1
        }
        uncompressedBytes += Int(n)
        if let progress, uncompressedBytes >= nextProgress {
            nextProgress += progressInterval
            progress(Int(gzoffset(file)), fileSize)
        }
        return n
    }

    /// Bytes of the file consumed so far.
    var fileBytesRead: Int { file.map { Int(gzoffset($0)) } ?? fileSize }

    func close() {
        if let file { gzclose(file) }
        file = nil
    }
}
