import Foundation
import Testing
@testable import WaymarkSupport

@Suite struct AtomicFileTests {
    let directory: String = {
        let path = NSTemporaryDirectory() + "waymark-atomic-\(UUID().uuidString)"
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

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
        // Renaming a file over a directory fails after the temporary was written: it is removed.
        try FileManager.default.createDirectory(atPath: directory + "/dir", withIntermediateDirectories: false)
        do {
            try AtomicFile.write("x", to: directory + "/dir")
            Issue.record("wrote over a directory")
        } catch {
            #expect(error.operation == "rename")
            #expect(error.description.hasPrefix("cannot write \(directory)/dir: rename failed:"))
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "original")
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: directory)) == ["kept.txt", "dir"])
    }
}
