import Foundation
import Testing

/// Runs the built executables of this package and captures what they print.
enum Run {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The folder holding the built products (`waymark`, `sample-town`).
    static let productsDirectory: URL = {
        let candidates = [Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent()]
            + Bundle.allBundles.map { $0.bundleURL.deletingLastPathComponent() }
        return candidates.first {
            FileManager.default.isExecutableFile(atPath: $0.appendingPathComponent("waymark").path)
        }
            ?? Bundle.main.bundleURL
    }()

    /// The package root (where Data/ and Tools/ are).
    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func data(_ name: String) -> String { packageRoot.appendingPathComponent("Data/\(name)").path }

    /// Runs a product with arguments (and optional standard input) in the package root.
    static func product(_ name: String, _ arguments: [String], stdin: String? = nil) throws -> Result {
        try process(productsDirectory.appendingPathComponent(name).path, arguments, stdin: stdin)
    }

    static func waymark(_ arguments: String..., stdin: String? = nil) throws -> Result {
        try product("waymark", arguments, stdin: stdin)
    }

    static func process(_ executable: String, _ arguments: [String], stdin: String? = nil) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = packageRoot
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        // Read both pipes concurrently so neither can fill up and block the child.
        nonisolated(unsafe) var errData = Data()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            errData = err.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return Result(status: process.terminationStatus,
                      stdout: String(decoding: outData, as: UTF8.self),
                      stderr: String(decoding: errData, as: UTF8.self))
    }

    /// A fresh directory for one test, inside one directory per test process that is removed
    /// when the process exits.
    static func temporaryDirectory() throws -> String {
        let path = temporaryRoot + "/\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static let temporaryRoot: String = {
        let root = NSTemporaryDirectory() + "waymark-tests-\(UUID().uuidString)"
        try! FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(atPath: Run.temporaryRoot) }
        return root
    }()
}

/// Checks GeoJSON files with the outside validator (Tools/validate_geojson.py, geojson-validator
/// from PyPI). CI installs it and sets WAYMARK_REQUIRE_VALIDATOR=1, so there a missing validator
/// fails; elsewhere the checks are left out, and `ValidatorTests` reports the skip.
enum Validator {
    static var isRequired: Bool { ProcessInfo.processInfo.environment["WAYMARK_REQUIRE_VALIDATOR"] == "1" }

    /// Whether the validator's package is installed.
    static let isInstalled: Bool = (try? Run.process("/usr/bin/env",
                                                     ["python3", "-c", "import geojson_validator"]).status) == 0

    static func check(_ paths: [String]) throws {
        guard isInstalled || isRequired else { return }
        let result = try run(paths)
        #expect(result.status == 0, "validator: \(result.stdout) \(result.stderr)")
    }

    static func run(_ paths: [String]) throws -> Run.Result {
        try Run.process("/usr/bin/env",
                        ["python3", Run.packageRoot.appendingPathComponent("Tools/validate_geojson.py").path] + paths)
    }
}

/// The outside validator itself: it passes good GeoJSON and fails bad, so the checks that use it
/// can fail. Skipped (reported) where it is not installed and not required.
@Suite struct ValidatorTests {
    @Test(.enabled(if: Validator.isInstalled || Validator.isRequired,
                   "geojson-validator is not installed (pip install geojson-validator)"))
    func validatorTellsGoodFromBad() throws {
        #expect(try Validator.run([Run.data("places.geojson")]).status == 0)
        let bad = try Run.temporaryDirectory() + "/bad.geojson"
        let text = #"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{},"#
            + #""geometry":{"type":"Point","coordinates":[200,95]}}]}"#
        try Data(text.utf8).write(to: URL(fileURLWithPath: bad))
        #expect(try Validator.run([bad]).status == 1)
    }
}
