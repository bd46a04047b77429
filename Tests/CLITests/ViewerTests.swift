#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
import WaymarkGeoJSON

/// Whether the browser test can run here: Chromium, its driver and Python's Selenium.
private let browserReady: Bool = {
    let tools = ["chromium", "chromedriver", "python3"].allSatisfy { tool in
        (try? Run.process("/usr/bin/env", ["which", tool]))?.status == 0
    }
    return tools && (try? Run.process("/usr/bin/env", ["python3", "-c", "import selenium"]))?.status == 0
}()

/// `waymark serve --pois`: the viewer's page and endpoints over HTTP, then the page itself in a
/// real browser (`Tools/viewer_test.py`: Chromium driven by Selenium).
@Suite(.serialized) final class ViewerTests {
    let directory: String
    let places: String

    init() throws {
        directory = try Run.temporaryDirectory()
        places = directory + "/places.geojson"
        try FileManager.default.copyItem(atPath: Run.data("places.geojson"), toPath: places)
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    static func request(_ method: String, _ path: String, port: UInt16,
                        headers: [String] = [], body: String = "") throws -> RawClient.Response {
        let client = try RawClient(port: port)
        defer { client.close() }
        let head = ["\(method) \(path) HTTP/1.1", "Host: test", "Connection: close",
                    "Content-Length: \(body.utf8.count)"] + headers
        client.send(head.joined(separator: "\r\n") + "\r\n\r\n" + body)
        guard let response = client.response() else { throw ServeTestError("no response to \(method) \(path)") }
        return response
    }

    @Test func endpoints() throws {
        let server = try ServerProcess([Run.data("sample-town.osm"), "--pois", places])
        defer { _ = server.stop() }
        let port = server.port
        let page = try RawClient.get("/", port: port)
        #expect(page.status == 200 && page.headers["content-type"] == "text/html; charset=utf-8")
        #expect(page.body.contains("class MapView") && page.body.contains("class PlaceList"))
        #expect(!page.body.contains("https://")) // nothing from the internet

        // The places file, with its version.
        let pois = try RawClient.get("/pois", port: port)
        let version = try #require(pois.headers["etag"])
        let onDisk = try String(contentsOfFile: places, encoding: .utf8)
        #expect(pois.status == 200)
        #expect(try JSONValue(parsing: Array(pois.body.utf8)) == JSONValue(parsing: Array(onDisk.utf8)))

        let one = try RawClient.get("/pois/the-swan", port: port)
        #expect(one.status == 200 && one.body.contains("\"title\":\"The Swan\"") && one.headers["etag"] == version)
        #expect(try RawClient.get("/pois/nobody", port: port).status == 404)

        // Clusters and the fit over every place; the picture of a viewport.
        let clusters = try RawClient.get("/clusters?west=-2.7&south=52.2&east=-2.5&north=52.4&zoom=13", port: port)
        let items = try #require(try JSONValue(parsing: Array(clusters.body.utf8)).objectValue?["items"]?.arrayValue)
        let counted = items.reduce(0) { $0 + Int($1.objectValue?["count"]?.numberValue ?? 1) }
        #expect(clusters.status == 200 && counted == 32)
        #expect(
            items.contains {
                $0.objectValue?["type"]?.stringValue == "cluster"
                    && ($0.objectValue?["expansion_zoom"]?.numberValue ?? 0) > 13
            })
        let fit = try JSONValue(parsing: Array(try RawClient.get("/fit?width=800&height=600", port: port).body.utf8))
            .objectValue
        #expect((fit?["zoom"]?.numberValue ?? 0) > 12 && fit?["center"]?.arrayValue?.count == 2)
        let picture = try RawClient.get(
            "/render?lat=52.2904605&lon=-2.5848796&zoom=15&width=400&height=300", port: port)
        #expect(
            picture.status == 200 && picture.headers["content-type"] == "image/svg+xml"
                && picture.body.contains("class=\"basemap river\""))
        for bad in ["/render?lat=95&lon=0&zoom=3&width=100&height=100", "/render?lat=1", "/clusters?west=x",
                    "/fit?width=10&height=10"] {
            #expect(try RawClient.get(bad, port: port).status == 400, "\(bad)")
        }

        // Editing: the version read is required and must still be current.
        let json = ["Content-Type: application/json"]
        #expect(
            try Self.request("PUT", "/pois/the-swan", port: port, headers: json, body: #"{"title":"X"}"#).status == 428)
        let stale = "If-Match: \"0000000000000000\""
        #expect(
            try Self.request("PUT", "/pois/the-swan", port: port, headers: json + [stale], body: #"{"title":"X"}"#)
                .status == 412)
        let current = "If-Match: \(version)"
        #expect(
            try Self.request("PUT", "/pois/nobody", port: port, headers: json + [current], body: #"{"title":"X"}"#)
                .status == 404)
        #expect(
            try Self.request("PUT", "/pois/the-swan", port: port, headers: json + [current], body: #"{"lat":1}"#).status
                == 400)
        #expect(try Self.request("PUT", "/pois/the-swan", port: port,
                                 headers: json + [current], body: "not json").status == 400)
        #expect(try Self.request("DELETE", "/pois/the-swan", port: port).status == 405)
        let untouched = try Data(contentsOf: URL(fileURLWithPath: places)),
            original = try Data(contentsOf: URL(fileURLWithPath: Run.data("places.geojson")))
        #expect(untouched == original)
        let saved = try Self.request(
            "PUT", "/pois/the-swan", port: port, headers: json + [current], body: #"{"title":"The Swan Inn"}"#)
        #expect(saved.status == 200 && saved.headers["etag"] != version)
        // The same bytes as `waymark poi edit` writes.
        let expected = directory + "/expected.geojson"
        try FileManager.default.copyItem(atPath: Run.data("places.geojson"), toPath: expected)
        #expect(try Run.waymark("poi", "edit", expected, "--id", "the-swan", "--title", "The Swan Inn").status == 0)
        let written = try Data(contentsOf: URL(fileURLWithPath: places)),
            edited = try Data(contentsOf: URL(fileURLWithPath: expected))
        #expect(written == edited)
        // The version just used is now stale.
        #expect(
            try Self.request(
                "PUT", "/pois/the-swan", port: port, headers: json + [current], body: #"{"title":"Again"}"#
            ).status == 412)
        // The OSRM API is still served beside the viewer.
        #expect(
            try RawClient.get("/route/v1/driving/-2.598781,52.309427;-2.572561,52.311680", port: port).status == 200)
        #expect(server.stop() == 0)
    }

    /// A places file that cannot be read stops `serve` at once with one line saying why.
    @Test func badPlacesFile() throws {
        let missing = try Run.waymark("serve", Run.data("sample-town.osm"), "--pois",
                                      directory + "/missing.geojson", "--port", "0")
        #expect(missing.status != 0 && missing.stderr.contains("missing.geojson: no such file"))
        #expect(missing.stderr.split(separator: "\n").count == 1, "\(missing.stderr)")
        // A FIFO or a directory in its place: said so, never waited on or taken for a missing file.
        let fifo = directory + "/fifo.geojson"
        #expect(mkfifo(fifo, 0o644) == 0)
        for odd in [fifo, directory] {
            let refused = try Run.waymark("serve", Run.data("sample-town.osm"), "--pois", odd, "--port", "0")
            #expect(refused.status != 0 && refused.stderr.contains("not a readable regular file"), "\(refused.stderr)")
        }
        let notGeoJSON = directory + "/bad.geojson"
        try Data("{\"type\":\"Point\"}".utf8).write(to: URL(fileURLWithPath: notGeoJSON))
        let bad = try Run.waymark("serve", Run.data("sample-town.osm"), "--pois", notGeoJSON, "--port", "0")
        #expect(bad.status != 0 && bad.stderr.split(separator: "\n").count == 1, "\(bad.stderr)")
    }

    @Test(.enabled(if: browserReady, "Chromium, chromedriver or Python's selenium is missing (.ci/run installs them)"))
    func inARealBrowser() throws {
        let server = try ServerProcess([Run.data("sample-town.osm"), "--pois", places])
        defer { _ = server.stop() }
        let result = try Run.process("/usr/bin/env",
                                     ["python3", Run.packageRoot.appendingPathComponent("Tools/viewer_test.py").path,
                                                      "http://127.0.0.1:\(server.port)", places,
                                                      Run.productsDirectory.appendingPathComponent("waymark").path])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("all checks passed"))
    }
}
