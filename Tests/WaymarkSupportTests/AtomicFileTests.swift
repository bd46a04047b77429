import Foundation
import Testing
@testable import WaymarkSupport

@Suite final class AtomicFileTests {
    let directory: String = {
        let path = NSTemporaryDirectory() + "waymark-atomic-\(UUID().uuidString)"
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    @Test func replacesTheWholeFileAndLeavesNoTemporary() throws {
        let path = directory + "/out.txt"
        try AtomicFile.write("first", to: path)
        try AtomicFile.write("second, longer", to: path)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "second, longer")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["out.txt"])
    }

    @Test func failureLeavesTheDestinationAlone() throws {
        let path = directory + "/kept.txt"
        try AtomicFile.write("original", to: path)
        // The destination's directory is fine but a missing subdirectory cannot be written.
        #expect(throws: FileWriteError.self) { try AtomicFile.write("x", to: directory + "/missing/kept.txt") }
        // A directory is refused before anything is written, and nothing is left behind.
        try FileManager.default.createDirectory(atPath: directory + "/dir", withIntermediateDirectories: false)
        do {
            try AtomicFile.write("x", to: directory + "/dir")
            Issue.record("wrote over a directory")
        } catch {
            #expect(error.description == "cannot write \(directory)/dir: open failed: is a directory")
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "original")
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: directory)) == ["kept.txt", "dir"])
    }

    /// What a write would refuse is refused before it, with the same line, and nothing is left
    /// behind; what it would write passes (issue 41, item 3).
    @Test func writabilityIsCheckedFirst() throws {
        try FileManager.default.createDirectory(atPath: directory + "/dir", withIntermediateDirectories: false)
        try AtomicFile.write("x", to: directory + "/file")
        for path in [directory + "/dir", directory + "/missing/out.txt", directory + "/file/out.txt"] {
            var checked: String? = nil, written: String? = nil
            do { try AtomicFile.checkWritable(path) } catch { checked = error.description }
            do { try AtomicFile.write("x", to: path) } catch { written = error.description }
            #expect(checked != nil && checked == written, "\(path)")
        }
        for path in [directory + "/file", directory + "/new.txt", "/dev/null", "-"] {
            #expect(throws: Never.self, "\(path)") { try AtomicFile.checkWritable(path) }
        }
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: directory)) == ["dir", "file"])
    }
}

/// Only regular files are replaced by rename (issue 13, item 8): a symbolic link keeps pointing
/// where it did and its target gets the new content; a FIFO is written through and stays a FIFO;
/// a directory is an error.
@Suite final class AtomicFileTargetTests {
    let root = NSTemporaryDirectory() + "waymark-atomic-\(UUID().uuidString)"

    deinit { try? FileManager.default.removeItem(atPath: root) }

    func directory() throws -> String {
        let dir = root + "/\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test func symlinkTargetIsReplaced() throws {
        let dir = try directory()
        try AtomicFile.write("old", to: dir + "/real.txt")
        try FileManager.default.createSymbolicLink(atPath: dir + "/link.txt", withDestinationPath: "real.txt")
        try AtomicFile.write("new", to: dir + "/link.txt")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: dir + "/link.txt") == "real.txt")
        #expect(try String(contentsOfFile: dir + "/real.txt", encoding: .utf8) == "new")
        // A dangling link: the file it names is created.
        try FileManager.default.createSymbolicLink(atPath: dir + "/dangling.txt", withDestinationPath: "later.txt")
        try AtomicFile.write("made", to: dir + "/dangling.txt")
        #expect(try String(contentsOfFile: dir + "/later.txt", encoding: .utf8) == "made")
    }

    @Test func fifoIsWrittenThrough() throws {
        let dir = try directory()
        let fifo = dir + "/pipe"
        #expect(mkfifo(fifo, 0o600) == 0)
        nonisolated(unsafe) var received = Data()
        let reader = Thread {
            if let handle = FileHandle(forReadingAtPath: fifo) { received = handle.readDataToEndOfFile() }
        }
        reader.start()
        try AtomicFile.write(parts: [Array("through ".utf8), Array("the pipe".utf8)], to: fifo)
        while !reader.isFinished { usleep(1000) }
        #expect(String(decoding: received, as: UTF8.self) == "through the pipe")
        var info = stat()
        #expect(stat(fifo, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO, "still a FIFO, not replaced by a file")
    }

    @Test func directoryIsAnError() throws {
        let dir = try directory()
        #expect(throws: FileWriteError(path: dir, operation: "open",
                                       reason: "is a directory")) { try AtomicFile.write("x", to: dir) }
    }
}
