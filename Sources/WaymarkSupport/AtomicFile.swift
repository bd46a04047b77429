#if canImport(Glibc)
import Glibc
private let systemWrite = Glibc.write
#elseif canImport(Darwin)
import Darwin
private let systemWrite = Darwin.write
#endif

/// Why a file could not be written.
public struct FileWriteError: Error, Sendable, Equatable, CustomStringConvertible {
    public var path: String
    /// The system call that failed (`open`, `write`, `ftruncate`, `fsync`, `rename`).
    public var operation: String
    /// The system's message for the error (strerror).
    public var reason: String

    public var description: String { "cannot write \(path): \(operation) failed: \(reason)" }
}

/// Writes files so that readers see either the old content or the whole new content, never a
/// part: the bytes go to a temporary file in the same directory, which is flushed to disk
/// (`fsync`) and then renamed over the destination (`rename` is atomic on POSIX file systems).
/// On any failure the temporary file is removed and the destination is untouched.
public enum AtomicFile {
    public static func write(_ bytes: [UInt8], to path: String) throws(FileWriteError) {
        try write(parts: [bytes], to: path)
    }

    /// Writes the parts one after another, as one file (no concatenated copy in memory).
    ///
    /// Only regular files are replaced by rename. `-` is standard output; a symbolic link is
    /// followed and its target replaced; a FIFO or a device (`/dev/null`, `/dev/stdout`, a shell's
    /// process substitution) is opened and written through; a directory or a socket is an error.
    public static func write(parts: [[UInt8]], to requested: String) throws(FileWriteError) {
        try write(to: requested) { (sink: inout FileSink) throws(FileWriteError) in
            for part in parts { try sink.write(part) }
        }
    }

    /// Writes whatever `produce` hands its sink, in order, as one file — for content too large to
    /// hold in memory a second time (a country's graph file): the same destinations and the same
    /// atomic replacement as ``write(parts:to:)``.
    public static func write(to requested: String,
                             _ produce: (inout FileSink) throws(FileWriteError) -> Void) throws(FileWriteError) {
        switch try destination(requested) {
        case .standardOutput:
            var sink = FileSink(fd: STDOUT_FILENO, path: requested)
            return try produce(&sink)
        case let .stream(path):
            let fd = open(path, O_WRONLY | O_CLOEXEC)
            guard fd >= 0 else { throw failure(requested, "open") }
            defer { close(fd) }
            var sink = FileSink(fd: fd, path: requested)
            return try produce(&sink)
        case let .regular(path):
            try replace(path, with: produce, reportingAs: requested)
        }
    }

    /// Whether ``write(to:_:)`` could write `requested` now: called before the work that makes the
    /// content (a contraction takes minutes on a country), so that a directory, a missing folder
    /// or a folder without permission fails at once. A regular file or a new one: a temporary
    /// file is made beside it and removed (what the write itself needs); a FIFO or a device: it
    /// may be opened for writing (not opened: a FIFO would wait for its reader).
    public static func checkWritable(_ requested: String) throws(FileWriteError) {
        switch try destination(requested) {
        case .standardOutput: return
        case let .stream(path):
            guard access(path, W_OK) == 0 else { throw failure(requested, "open") }
        case let .regular(path):
            let probe = (directory(of: path).isEmpty ? "" : directory(of: path) + "/")
                + ".waymark-probe-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            let fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw failure(requested, "open") }
            close(fd)
            unlink(probe)
        }
    }

    /// Where a write to `requested` goes: standard output (`-`), a FIFO or device written
    /// through, or a regular file (existing or not) replaced by rename; a directory or a socket
    /// is an error.
    enum Destination { case standardOutput, stream(String), regular(String) }

    static func destination(_ requested: String) throws(FileWriteError) -> Destination {
        if requested == "-" { return .standardOutput }
        let path = resolvingLinks(requested)
        var info = stat()
        if stat(path, &info) == 0 {
            switch info.st_mode & S_IFMT {
            case S_IFREG: return .regular(path)
            case S_IFIFO, S_IFCHR: return .stream(path)
            case S_IFDIR:
                throw FileWriteError(path: requested, operation: "open", reason: "is a directory")
            default:
                throw FileWriteError(path: requested, operation: "open", reason: "not a regular file, FIFO or device")
            }
        }
        guard errno == ENOENT else { throw failure(requested, "open") }
        return .regular(path)
    }

    /// The directory part of a path ("." when it has none; "" for a file at the root).
    static func directory(of path: String) -> String {
        path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
    }

    /// The file a path names once its symbolic links are followed (for a dangling link, where
    /// it points); the path itself when it is no link.
    static func resolvingLinks(_ path: String) -> String {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK else { return path }
        if let resolved = realpath(path, nil) {
            defer { free(resolved) }
            return String(cString: resolved)
        }
        var target = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink(path, &target, Int(PATH_MAX))
        guard n > 0 else { return path }
        let link = String(decoding: target[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if link.hasPrefix("/") { return link }
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        return directory + "/" + link
    }

    /// Replaces (or creates) the regular file `path` through a temporary file and a rename.
    private static func replace(_ path: String, with produce: (inout FileSink) throws(FileWriteError) -> Void,
                                reportingAs requested: String) throws(FileWriteError) {
        let directory = directory(of: path)
        let name = path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
        let temporary =
            (directory.isEmpty ? "" : directory + "/") + ".\(name).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        removeAbandonedTemporaries(in: directory.isEmpty ? "/" : directory, of: name)

        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw failure(requested, "open") }
        // Replacing a file keeps its permissions.
        var existing = stat()
        if stat(path, &existing) == 0 { _ = fchmod(fd, existing.st_mode & 0o7777) }
        do {
            var sink = FileSink(fd: fd, path: requested, seekable: true)
            try produce(&sink)
        } catch {
            close(fd)
            unlink(temporary)
            throw error
        }
        if fsync(fd) != 0 {
            let error = failure(requested, "fsync")
            close(fd)
            unlink(temporary)
            throw error
        }
        close(fd)
        // Fault injection for the crash-safety tests: die the hard way between writing the new
        // content and putting it in place.
        if let point = getenv("WAYMARK_FAILPOINT"), String(cString: point) == "atomic-write-before-rename" {
            kill(getpid(), SIGKILL)
        }
        if rename(temporary, path) != 0 {
            let error = failure(requested, "rename")
            unlink(temporary)
            throw error
        }
        // Make the rename itself durable.
        let directoryFD = open(directory.isEmpty ? "/" : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryFD >= 0 {
            _ = fsync(directoryFD)
            close(directoryFD)
        }
    }

    /// Writes UTF-8 text atomically.
    public static func write(_ text: String, to path: String) throws(FileWriteError) {
        try write(Array(text.utf8), to: path)
    }

    /// Deletes temporary files a crashed writer of the same file left behind: `.NAME.tmp-PID-…`
    /// whose process no longer exists. (A live or reused PID keeps its file: never removes a
    /// write in progress.)
    static func removeAbandonedTemporaries(in directory: String, of name: String) {
        guard let dir = opendir(directory) else { return }
        defer { closedir(dir) }
        let prefix = ".\(name).tmp-"
        while let entry = readdir(dir) {
            let entryName = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard entryName.hasPrefix(prefix) else { continue }
            let rest = entryName.dropFirst(prefix.count)
            guard let dash = rest.firstIndex(of: "-"), let pid = pid_t(rest[..<dash]), pid > 0 else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH {
                unlink(directory + "/" + entryName)
            }
        }
    }

    static func failure(_ path: String, _ operation: String) -> FileWriteError {
        FileWriteError(path: path, operation: operation, reason: String(cString: strerror(errno)))
    }
}

/// Where ``AtomicFile/write(to:_:)`` puts bytes: every byte written, in order, or an error.
public struct FileSink: Sendable {
    let fd: Int32
    let path: String
    /// Whether the sink is a file being made (the temporary one of an atomic write), which
    /// ``write(_:at:)`` can write anywhere in; otherwise bytes go out in order only (standard
    /// output, a FIFO, a device).
    public var seekable = false

    public mutating func write(_ buffer: UnsafeRawBufferPointer) throws(FileWriteError) {
        try writeAll(buffer) { at, left, _ in systemWrite(fd, at, left) }
    }

    /// Writes all of `buffer` by `call` (given where the rest starts, how many bytes are left and
    /// how many are written), again after a partial write or an interrupted call.
    private func writeAll(_ buffer: UnsafeRawBufferPointer,
                          _ call: (UnsafeRawPointer, Int, Int) -> Int) throws(FileWriteError) {
        guard var at = buffer.baseAddress else { return }
        var left = buffer.count
        while left > 0 {
            let n = call(at, left, buffer.count - left)
            if n < 0 {
                if errno == EINTR { continue }
                throw AtomicFile.failure(path, "write")
            }
            at += n
            left -= n
        }
    }

    /// Writes `buffer` at byte `offset` of a ``seekable`` sink (from any thread: writes at
    /// different places may run side by side), leaving what the in-order writes do untouched.
    public func write(_ buffer: UnsafeRawBufferPointer, at offset: Int) throws(FileWriteError) {
        precondition(seekable, "positioned writes need a seekable sink")
        try writeAll(buffer) { at, left, done in pwrite(fd, at, left, off_t(offset + done)) }
    }

    /// ``write(_:at:)`` of an array's bytes.
    public func write(_ bytes: [UInt8], at offset: Int) throws(FileWriteError) {
        var failure: FileWriteError?
        bytes.withUnsafeBytes { raw in
            do throws(FileWriteError) { try write(raw, at: offset) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// Sends what a ``seekable`` sink's file holds so far to the disk now (`fdatasync`), so that
    /// the atomic write's final `fsync` waits only for what comes after (and reports any failure:
    /// the data is still in the file's pages).
    public func flushWritten() {
        precondition(seekable, "flushing early needs a seekable sink")
        _ = fdatasync(fd)
    }

    /// Makes a ``seekable`` sink's file `length` bytes long (cutting off what lies beyond).
    public func truncate(to length: Int) throws(FileWriteError) {
        precondition(seekable, "truncating needs a seekable sink")
        if ftruncate(fd, off_t(length)) != 0 { throw AtomicFile.failure(path, "ftruncate") }
    }

    public mutating func write(_ bytes: [UInt8]) throws(FileWriteError) {
        var failure: FileWriteError?
        bytes.withUnsafeBytes { raw in
            do throws(FileWriteError) { try write(raw) } catch { failure = error }
        }
        if let failure { throw failure }
    }
}
