import Foundation
import Testing
@testable import WaymarkOSM

/// Files that are not OpenStreetMap XML, or are damaged, fail with their real reason (issue 13,
/// item 10), each checked through the loader a user's command goes through.
@Suite struct WrongInputTests {
    let directory: TemporaryDirectory

    init() throws { directory = try TemporaryDirectory("waymark-wrong") }

    func file(_ name: String, _ bytes: [UInt8]) throws -> String { try directory.file(name, bytes) }

    func error(_ path: String) -> String {
        do {
            _ = try OSMGraphLoader.build(path: path)
            return "built"
        } catch {
            return error.description
        }
    }

    @Test func notOSM() throws {
        // Before: an HTML page built an empty graph and exited 0; a PBF said "Document is empty";
        // GeoJSON said "Start tag expected". A PBF, even named .osm, is read as one (issue 14):
        // this one's header is damaged.
        #expect(
            error(try file("page.osm", Array("<html><body><p>Not found</p></body></html>".utf8))).contains(
                "its root element is <html>, not <osm>"))
        let pbf: [UInt8] = [0, 0, 0, 14, 10, 9] + Array("OSMHeader".utf8) + [24, 1, 2, 3]
        #expect(
            error(try file("country.osm", pbf)).hasSuffix(
                "country.osm: OSM PBF, blob at byte 0: blob header: field number 0"))
        #expect(
            error(try file("places.osm", Array(#"{"type":"FeatureCollection","features":[]}"#.utf8))).contains(
                "it is JSON"))
        // An empty file (a download that never came): empty, not malformed XML.
        #expect(error(try file("empty.osm.pbf", [])).hasSuffix(
            "empty.osm.pbf: not OpenStreetMap XML: the file is empty"))
    }

    /// A FIFO named like a map is refused at once, not waited on (the format sniffing opened it).
    @Test func fifoIsRefused() throws {
        for name in ["map.osm.pbf", "map.osm"] {
            let path = directory.path + "/" + name
            #expect(mkfifo(path, 0o600) == 0)
            #expect(error(path) == "\(path): cannot open: not a regular file")
        }
    }

    @Test func nodeWithoutID() throws {
        let path = try file("n.osm", Array(#"<osm version="0.6"><node lat="52" lon="13"/></osm>"#.utf8))
        #expect(error(path).contains("<node> is missing its id attribute"))
    }

    /// A gzip file cut short is "truncated gzip data", not whatever half element the XML parser was left with.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/bin/gzip"), "gzip is not installed"))
    func truncatedGzip() throws {
        let town = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("Data/sample-town.osm").path
        let gzip = Process()
        gzip.executableURL = URL(fileURLWithPath: "/bin/gzip")
        gzip.arguments = ["-c", town]
        let out = Pipe()
        gzip.standardOutput = out
        try gzip.run()
        let compressed = out.fileHandleForReading.readDataToEndOfFile()
        gzip.waitUntilExit()
        #expect(error(try file("whole.osm.gz", Array(compressed))) == "built")
        let cut = try file("cut.osm.gz", Array(compressed.prefix(compressed.count / 2)))
        #expect(error(cut).contains("truncated gzip data"), "\(error(cut))")
    }
}
