import Foundation
import Waymark

/// Where the command line prints: results on standard output (or atomically to a file), messages
/// on standard error.
enum Output {
    static func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    static func write(_ bytes: [UInt8]) {
        FileHandle.standardOutput.write(Data(bytes))
    }

    /// Writes to standard output, or atomically to `path` when one is given.
    static func emit(_ bytes: [UInt8], to path: String?) throws(CLIError) {
        guard let path, path != "-" else { return write(bytes) }
        do {
            try AtomicFile.write(bytes, to: path)
        } catch {
            throw .failure("\(error)")
        }
    }

    /// ``emit(_:to:)`` for output made of parts (written in order, never joined in memory).
    static func emit(parts: [[UInt8]], to path: String?) throws(CLIError) {
        guard let path, path != "-" else {
            for part in parts { write(part) }
            return
        }
        do {
            try AtomicFile.write(parts: parts, to: path)
        } catch {
            throw .failure("\(error)")
        }
    }

    static func error(_ text: String) {
        FileHandle.standardError.write(Data((text.hasSuffix("\n") ? text : text + "\n").utf8))
    }
}
