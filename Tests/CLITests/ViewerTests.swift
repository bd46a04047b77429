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

    static let token = "test-edit-token-0123456789"

    @Test func endpoints() throws {
        let server = try ServerProcess([Run.data("sample-town.osm"), "--pois", places, "--edit-token", Self.token])
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
        // Given points (a route's corners): centred on them, closer in than the places' fit.
        let corners = try JSONValue(parsing: Array(try RawClient.get(
            "/fit?width=800&height=600&points=-2.60,52.30;-2.59,52.31", port: port).body.utf8)).objectValue
        let center = corners?["center"]?.arrayValue?.compactMap(\.numberValue) ?? []
        #expect(center.count == 2 && abs(center[0] + 2.595) < 0.001 && abs(center[1] - 52.305) < 0.002, "\(center)")
        #expect((corners?["zoom"]?.numberValue ?? 0) > (fit?["zoom"]?.numberValue ?? 99))
        let picture = try RawClient.get(
            "/render?lat=52.2904605&lon=-2.5848796&zoom=15&width=400&height=300", port: port)
        #expect(
            picture.status == 200 && picture.headers["content-type"] == "image/svg+xml"
                && picture.body.contains("class=\"basemap river\""))
        for bad in ["/render?lat=95&lon=0&zoom=3&width=100&height=100", "/render?lat=1", "/clusters?west=x",
                    "/fit?width=10&height=10", "/fit?width=800&height=600&points=x"] {
            #expect(try RawClient.get(bad, port: port).status == 400, "\(bad)")
        }

        // Editing: the version read is required and must still be current.
        let json = ["Content-Type: application/json", "Authorization: Bearer \(Self.token)"]
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

    /// A map built without its basemap: the viewer draws roads only, and `serve` says so.
    @Test func mapWithoutBasemapIsSaid() throws {
        let bare = directory + "/bare.wmg"
        #expect(try Run.waymark("build", Run.data("sample-town.osm"), "-o", bare, "--no-basemap", "--quiet")
            .status == 0)
        let server = try ServerProcess([bare, "--pois", places, "--read-only"])
        _ = server.stop()
        #expect(server.log.contains("has no basemap (built with --no-basemap"), "\(server.log)")
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

    /// Edits only by those allowed (issue 41, item 4): the token, as a Bearer credential, or no edit
    /// at all (401 without it, 403 with another, 403 on a read-only viewer); reading stays open;
    /// a token made at start is printed once in the viewer's link; other origins are never let
    /// write (the preflight allows no PUT); the file is untouched by every refused edit.
    @Test func editingNeedsTheToken() throws {
        let original = try Data(contentsOf: URL(fileURLWithPath: places))
        let body = #"{"title":"X"}"#
        func edit(_ port: UInt16, _ extra: [String]) throws -> RawClient.Response {
            let version = try #require(try RawClient.get("/pois", port: port).headers["etag"])
            return try Self.request("PUT", "/pois/the-swan", port: port,
                                    headers: ["Content-Type: application/json", "If-Match: \(version)"] + extra,
                                    body: body)
        }
        let server = try ServerProcess([Run.data("sample-town.osm"), "--pois", places, "--cors"])
        for _ in 0..<100 where !server.log.contains("#token=") { usleep(50_000) }
        let made = try #require(server.log.firstMatch(of: /open http:\/\/127\.0\.0\.1:[0-9]+\/#token=([0-9a-f]{64})/))
        let token = String(made.1)
        #expect(try RawClient.get("/pois", port: server.port).headers["waymark-editing"] == "token")
        let none = try edit(server.port, [])
        #expect(none.status == 401 && none.headers["www-authenticate"]?.hasPrefix("Bearer") == true)
        #expect(try edit(server.port, ["Authorization: Bearer not-the-token-at-all"]).status == 403)
        #expect(try edit(server.port, ["Authorization: Basic \(token)"]).status == 401)
        let preflight = try Self.request("OPTIONS", "/pois/the-swan", port: server.port,
                                         headers: ["Origin: https://elsewhere.example",
                                                   "Access-Control-Request-Method: PUT"])
        #expect(!(preflight.headers["access-control-allow-methods"] ?? "").contains("PUT"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: places)) == original)
        #expect(try edit(server.port, ["Authorization: Bearer \(token)"]).status == 200)
        #expect(server.stop() == 0)
        try original.write(to: URL(fileURLWithPath: places))

        let readOnly = try ServerProcess([Run.data("sample-town.osm"), "--pois", places, "--read-only"])
        #expect(!readOnly.log.contains("#token="))
        #expect(try RawClient.get("/pois", port: readOnly.port).headers["waymark-editing"] == "read-only")
        let refused = try edit(readOnly.port, ["Authorization: Bearer \(token)"])
        #expect(refused.status == 403 && refused.body.contains("ReadOnly"))
        #expect(readOnly.stop() == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: places)) == original)

        // A token from a file (its first line) or the environment; one unfit for a header refused.
        let file = directory + "/token"
        try "file-token-0123456789\nrest\n".write(toFile: file, atomically: true, encoding: .utf8)
        let fromFile = try ServerProcess([Run.data("sample-town.osm"), "--pois", places, "--edit-token-file", file])
        #expect(try edit(fromFile.port, ["Authorization: Bearer file-token-0123456789"]).status == 200)
        #expect(fromFile.stop() == 0)
        let unfit = [["--edit-token", "short"], ["--edit-token", "has spaces in it, see"],
                     ["--read-only", "--edit-token", "file-token-0123456789"],
                     ["--edit-token-file", directory + "/none"]]
        for bad in unfit {
            let result = try Run.product("waymark", ["serve", Run.data("sample-town.osm"), "--pois", places,
                                                     "--port", "0"] + bad, stdin: nil)
            #expect(result.status == 64 && result.stderr.split(separator: "\n").count == 1, "\(bad): \(result.stderr)")
        }
        let noViewer = try Run.waymark("serve", Run.data("sample-town.osm"), "--read-only", "--port", "0")
        #expect(noViewer.status == 64)
    }

    @Test(.enabled(if: browserReady, "Chromium, chromedriver or Python's selenium is missing (.ci/run installs them)"))
    func inARealBrowser() throws {
        // A cycling and a walking map beside the car's: the page offers the mode switch.
        let walk = NSTemporaryDirectory() + "waymark-viewer-walk-\(UUID().uuidString).wmg"
        let ride = NSTemporaryDirectory() + "waymark-viewer-bike-\(UUID().uuidString).wmg"
        defer { for file in [walk, ride] { try? FileManager.default.removeItem(atPath: file) } }
        for (file, profile) in [(walk, "foot"), (ride, "bicycle")] {
            #expect(try Run.waymark("build", Run.data("sample-town.osm"), "-o", file, "--profile", profile, "--quiet")
                .status == 0)
        }
        let server = try ServerProcess([Run.data("sample-town.osm"), ride, walk, "--pois", places, "--edit-token",
                                        Self.token])
        defer { _ = server.stop() }
        let result = try Run.process("/usr/bin/env",
                                     ["python3", Run.packageRoot.appendingPathComponent("Tools/viewer_test.py").path,
                                                      "http://127.0.0.1:\(server.port)", places,
                                                      Run.productsDirectory.appendingPathComponent("waymark").path,
                                                      Self.token])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("all checks passed"))
    }
}
