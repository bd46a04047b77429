#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
import WaymarkGeoJSON

/// A `waymark serve` process on a free loopback port, its log collected as it runs.
final class ServerProcess: @unchecked Sendable {
    let process = Process()
    let port: UInt16
    private let box = LogBox()
    /// Signalled when the log has been read to its end (the process closed its stderr).
    private let drained = DispatchSemaphore(value: 0)

    private final class LogBox: @unchecked Sendable {
        let lock = NSLock()
        var text = ""
        var read: String { lock.withLock { text } }
    }

    init(_ arguments: [String]) throws {
        process.executableURL = Run.productsDirectory.appendingPathComponent("waymark")
        process.arguments = ["serve"] + arguments + ["--port", "0"]
        process.currentDirectoryURL = Run.packageRoot
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        // Read the log as it comes (so the pipe never fills), and the port from the first line.
        let handle = err.fileHandleForReading
        let ready = DispatchSemaphore(value: 0)
        let box = self.box, drained = self.drained
        DispatchQueue.global().async {
            var signalled = false
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                box.lock.withLock { box.text += String(decoding: data, as: UTF8.self) }
                if !signalled && box.read.contains("listening on") {
                    signalled = true
                    ready.signal()
                }
            }
            if !signalled { ready.signal() }
            drained.signal()
        }
        _ = ready.wait(timeout: .now() + 60)
        let text = box.read
        guard let range = text.range(of: #"listening on http://127\.0\.0\.1:[0-9]+"#, options: .regularExpression),
              let found = UInt16(text[range].split(separator: ":").last!) else {
            process.terminate()
            throw ServeTestError("the server did not start: \(text)")
        }
        port = found
    }

    var log: String { box.read }

    /// SIGTERM, then the exit status.
    func stop() -> Int32 {
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
        process.waitUntilExit()
        // The log's last lines may still be in the pipe: read to its end before anyone looks.
        if drained.wait(timeout: .now() + 10) == .success { drained.signal() } // stays open for a second stop()
        return process.terminationStatus
    }

    deinit { if process.isRunning { process.terminate() } }
}

struct Point {
    var lat: Double
    var lon: Double
    init(_ lat: Double, _ lon: Double) { self.lat = lat; self.lon = lon }
}

struct ServeTestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A raw HTTP client: exactly the bytes given, and the responses read back by Content-Length.
struct RawClient {
    let fd: Int32

    init(port: UInt16) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0,
                                                                           socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard status == 0 else { throw ServeTestError("cannot connect to port \(port)") }
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    func send(_ text: String) { send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) {
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + sent,
                                                       $0.count - sent, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            sent += n
        }
    }

    func shutdownWrite() { shutdown(fd, Int32(SHUT_WR)) }
    func close() { Glibc.close(fd) }

    struct Response {
        var status: Int
        var headers: [String: String]
        var body: String
        var json: JSONValue? { try? JSONValue(parsing: body) }
    }

    private final class Buffer { var bytes: [UInt8] = [] }
    private let buffer = Buffer()

    /// The next response, or nil when the server closed the connection first.
    func response() -> Response? {
        func fill() -> Bool {
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = recv(fd, &chunk, chunk.count, 0)
            if n <= 0 { return false }
            buffer.bytes += chunk[0..<n]
            return true
        }
        let separator = Array("\r\n\r\n".utf8)
        var headEnd: Int?
        while headEnd == nil {
            if buffer.bytes.count >= 4 {
                headEnd = (0...(buffer.bytes.count - 4)).first { Array(buffer.bytes[$0..<($0 + 4)]) == separator }
            }
            if headEnd == nil && !fill() { return nil }
        }
        let head = String(decoding: buffer.bytes[..<headEnd!], as: UTF8.self).components(separatedBy: "\r\n")
        let status = Int(head[0].split(separator: " ")[1])!
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            let parts = line.split(separator: ":", maxSplits: 1)
            headers[parts[0].lowercased()] = parts[1].trimmingCharacters(in: .whitespaces)
        }
        let length = Int(headers["content-length"] ?? "0")!
        while buffer.bytes.count < headEnd! + 4 + length { if !fill() { return nil } }
        let body = String(decoding: buffer.bytes[(headEnd! + 4)..<(headEnd! + 4 + length)], as: UTF8.self)
        buffer.bytes.removeFirst(headEnd! + 4 + length)
        return Response(status: status, headers: headers, body: body)
    }

    /// Whether the server has closed the connection (reads end, nothing more comes).
    func isClosed() -> Bool {
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, 0) <= 0
    }

    /// One GET on a fresh connection.
    static func get(_ path: String, port: UInt16) throws -> Response {
        let client = try RawClient(port: port)
        defer { client.close() }
        client.send("GET \(path) HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n")
        guard let response = client.response() else { throw ServeTestError("no response to \(path)") }
        return response
    }
}

/// `waymark serve` end to end: every endpoint against the CLI's answers, OSRM's error codes, and
/// the abuse a server on a network meets — after which it still answers.
@Suite(.serialized) final class ServeTests {
    let directory: String
    let map: String

    init() throws {
        directory = try Run.temporaryDirectory()
        map = directory + "/town.wmg"
        let build = try Run.waymark("build", Run.data("sample-town.osm"), "--hierarchy", "-o", map, "--quiet")
        #expect(build.status == 0, "\(build.stderr)")
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    // Sample-town points (lat,lon) and the same as OSRM's lon,lat.
    let a = Point(52.309427, -2.598781), b = Point(52.311680, -2.572561), c = Point(52.3060, -2.5900)
    func lonLat(_ p: Point) -> String { "\(p.lon),\(p.lat)" }

    /// A car, a cycling and a walking map behind one server: the URL's profile picks the map
    /// (OSRM's demo servers' names), a profile none is for is refused, two maps for one profile are
    /// a usage error.
    @Test func oneServerForEveryProfile() throws {
        let walk = directory + "/walk.wmg", ride = directory + "/bike.wmg"
        for (file, profile) in [(walk, "foot"), (ride, "bicycle")] {
            let build = try Run.waymark("build", Run.data("sample-town.osm"), "-o", file, "--profile", profile,
                                        "--quiet")
            #expect(build.status == 0, "\(build.stderr)")
        }
        let server = try ServerProcess([map, ride, walk])
        defer { _ = server.stop() }
        let bc = "\(lonLat(c));\(lonLat(b))"
        func modes(_ path: String) throws -> (Double, [String]) {
            let answer = try RawClient.get(path, port: server.port)
            let route = answer.json?["routes"]?.arrayValue?.first
            let steps = route?["legs"]?.arrayValue?.first?["steps"]?.arrayValue ?? []
            return (route?["duration"]?.numberValue ?? 0, steps.compactMap { $0["mode"]?.stringValue })
        }
        let (driving, carModes) = try modes("/route/v1/driving/\(bc)?steps=true")
        let (walking, footModes) = try modes("/route/v1/walking/\(bc)?steps=true")
        let (foot, _) = try modes("/route/v1/foot/\(bc)")
        let (cycling, bikeModes) = try modes("/route/v1/cycling/\(bc)?steps=true")
        let (bike, _) = try modes("/route/v1/bike/\(bc)")
        #expect(!carModes.isEmpty && carModes.allSatisfy { $0 == "driving" })
        #expect(!footModes.isEmpty && footModes.allSatisfy { $0 == "walking" })
        #expect(bikeModes.contains("cycling") && bikeModes.allSatisfy { ["cycling", "pushing bike"].contains($0) })
        #expect(walking > 3 * driving && foot == walking, "\(walking) s walking, \(driving) s driving")
        #expect(cycling > driving && cycling < walking && bike == cycling, "\(cycling) s cycling")
        let truck = try RawClient.get("/route/v1/truck/\(bc)", port: server.port)
        #expect(truck.status == 400 && truck.json?["code"]?.stringValue == "InvalidOptions")
        #expect(truck.json?["message"]?.stringValue?.contains("bicycle (bicycle, bike, cycling)") == true,
                "\(truck.body)")
        // Isochrones per profile: ten minutes on foot reach less far than by car.
        func reach(_ profile: String) throws -> Double {
            let answer = try RawClient.get("/isochrone/v1/\(profile)/\(lonLat(c))?contours_minutes=10&polygons=true",
                                           port: server.port)
            let rings = answer.json?["features"]?.arrayValue?.first?["geometry"]?["coordinates"]?.arrayValue ?? []
            let points = rings.flatMap { $0.arrayValue ?? [] }.compactMap { $0.arrayValue?.first?.numberValue }
            return (points.max() ?? 0) - (points.min() ?? 0)
        }
        let byCar = try reach("driving"), onFoot = try reach("walking"), byBike = try reach("cycling")
        #expect(onFoot > 0 && onFoot < byBike && byBike < byCar, "\(onFoot)°, \(byBike)°, \(byCar)° of longitude")
        let health = try RawClient.get("/health", port: server.port)
        #expect(health.json?["profiles"] == .array(["car", "bicycle", "foot"]), "\(health.body)")
        let twice = try Run.waymark("serve", map, map, "--port", "0")
        #expect(twice.status == 64 && twice.stderr.contains("two maps for car"), "\(twice.stderr)")
    }

    @Test func endpointsAnswerAsTheCommandLineDoes() throws {
        let server = try ServerProcess([map, "--threads", "2"])
        // route with steps == `waymark route --format json` (which gives no hints)
        let route = try RawClient.get("/route/v1/driving/\(lonLat(a));\(lonLat(b))?steps=true&generate_hints=false",
                                      port: server.port)
        #expect(route.status == 200 && route.headers["content-type"] == "application/json; charset=UTF-8")
        let cli = try Run.waymark("route", map, "--from", "\(a.lat),\(a.lon)", "--to",
                                  "\(b.lat),\(b.lon)", "--format", "json")
        let cliJSON = try JSONValue(parsing: cli.stdout)
        #expect(route.json != nil && route.json == cliJSON)
        // Without steps (OSRM's default): the same route, legs without steps.
        let plain = try RawClient.get(
            "/route/v1/driving/\(lonLat(a));\(lonLat(b)).json?overview=full&geometries=geojson", port: server.port)
        let leg = plain.json?["routes"]?.arrayValue?.first?["legs"]?.arrayValue?.first
        #expect(leg?["steps"] == .array([]) && leg?["summary"] == "")
        #expect(plain.json?["routes"]?.arrayValue?.first?["geometry"]?["type"] == "LineString")
        #expect(
            plain.json?["routes"]?.arrayValue?.first?["duration"]
                == route.json?["routes"]?.arrayValue?.first?["duration"])
        // Polyline coordinates (rounded to 5 decimals) give the same route.
        let encoded = try RawClient.get("/route/v1/driving/polyline(\(polyline([a, b])))?steps=true", port: server.port)
        let steps = { (r: RawClient.Response) in
            r.json?["routes"]?.arrayValue?.first?["legs"]?.arrayValue?.first?["steps"]?.arrayValue?.map {
                $0["maneuver"]?["instruction"]
            }
        }
        #expect(encoded.status == 200 && steps(encoded) != nil && steps(encoded) == steps(route))
        // directions == `waymark route`'s text rows (Waymark's own service, for the viewer).
        let told = try RawClient.get("/directions/v1/driving/\(lonLat(a));\(lonLat(b))", port: server.port)
        let text = try Run.waymark("route", map, "--from", "\(a.lat),\(a.lon)", "--to", "\(b.lat),\(b.lon)")
        let toldRows = told.json?["routes"]?.arrayValue?.first?["steps"]?.arrayValue ?? []
        let textRows = text.stdout.split(separator: "\n").filter { $0.first?.isNumber == true }
        #expect(!toldRows.isEmpty && toldRows.count == textRows.count, "\(toldRows.count) against \(textRows.count)")
        for (row, line) in zip(toldRows, textRows) {
            #expect(row["instruction"]?.stringValue.map { line.contains($0) } == true, "\(line)")
        }
        let unknown = try RawClient.get("/directions/v1/driving/\(lonLat(a));\(lonLat(b))?foo=1", port: server.port)
        #expect(unknown.status == 400 && unknown.json?["message"] == "option 'foo' is not one of directions's")

        // table == `waymark table`
        let points = directory + "/points.csv"
        try "latitude,longitude\n\(a.lat),\(a.lon)\n\(b.lat),\(b.lon)\n\(c.lat),\(c.lon)\n".write(toFile: points,
            atomically: true, encoding: .utf8)
        let table = try RawClient.get("/table/v1/driving/\(lonLat(a));\(lonLat(b));\(lonLat(c))"
                                      + "?annotations=duration,distance&generate_hints=false", port: server.port)
        let cliTable = try Run.waymark("table", map, "--sources", points)
        #expect(cliTable.status == 0, "\(cliTable.stderr)")
        let cliTableJSON = try JSONValue(parsing: cliTable.stdout)
        #expect(table.status == 200 && table.json == cliTableJSON)
        // A file without a hierarchy answers a small table pair by pair with A*, and a larger one
        // (over 100 pairs) from a hierarchy contracted first: the same figures either way.
        let plainMap = directory + "/town-plain.wmg"
        #expect(try Run.waymark("build", Run.data("sample-town.osm"), "-o", plainMap, "--quiet").status == 0)
        let small = try Run.waymark("table", plainMap, "--sources", points)
        #expect(small.status == 0, "\(small.stderr)")
        #expect(try JSONValue(parsing: small.stdout) == cliTableJSON)
        let many = directory + "/many.csv"
        try
            ("latitude,longitude\n"
            + String(repeating: "\(a.lat),\(a.lon)\n\(b.lat),\(b.lon)\n\(c.lat),\(c.lon)\n", count: 12))
            .write(toFile: many, atomically: true, encoding: .utf8)
        let large = try Run.waymark("table", plainMap, "--sources", many, "--destinations", points, "--format", "csv")
        let smallCSV = try Run.waymark("table", plainMap, "--sources", points, "--format", "csv")
        #expect(large.status == 0 && smallCSV.status == 0, "\(large.stderr)")
        // (Each with its header; rows by their values, after each row's number.)
        func values(_ text: String) -> [Substring] {
            text.split(separator: "\n").dropFirst().map { $0.drop { $0 != "," } }
        }
        let rows = values(smallCSV.stdout)
        #expect(smallCSV.stdout.hasPrefix("source,1,2,3\n1,0.0,"), "\(smallCSV.stdout)")
        // Served, a file without a hierarchy is contracted first, and the log says so with progress.
        let contracting = try ServerProcess([plainMap])
        _ = contracting.stop()
        #expect(contracting.log.contains("stores no hierarchy: contracting")
                    && contracting.log.contains("hierarchy: 100%"), "\(contracting.log)")
        #expect(rows.count == 3 && values(large.stdout) == Array((0..<12).map { _ in rows }.joined()))

        // The table's a→b cell is the route's duration.
        #expect(
            table.json?["durations"]?.arrayValue?[0].arrayValue?[1]
                == route.json?["routes"]?.arrayValue?.first?["duration"])
        let part = try RawClient.get(
            "/table/v1/driving/\(lonLat(a));\(lonLat(b));\(lonLat(c))?sources=0&destinations=2;1", port: server.port)
        #expect(part.json?["durations"] == .array([.array([table.json!["durations"]!.arrayValue![0].arrayValue![2],
                                                           table.json!["durations"]!.arrayValue![0].arrayValue![1]])]))
        #expect(part.json?["distances"] == nil && part.json?["sources"]?.arrayValue?.count == 1)

        // nearest: nearest first, distinct roads.
        let nearest = try RawClient.get("/nearest/v1/driving/\(lonLat(a))?number=3", port: server.port)
        let waypoints = nearest.json?["waypoints"]?.arrayValue ?? []
        #expect(nearest.status == 200 && waypoints.count == 3)
        let distances = waypoints.compactMap { $0["distance"]?.numberValue }
        #expect(distances == distances.sorted())
        #expect(waypoints.first?["location"] == route.json?["waypoints"]?.arrayValue?.first?["location"])

        // isochrone == `waymark isochrone`, valid GeoJSON, longest time first.
        let iso = try RawClient.get(
            "/isochrone/v1/driving/\(lonLat(a))?contours_minutes=1,2&polygons=true", port: server.port)
        let cliIso = try Run.waymark("isochrone", map, "--from", "\(a.lat),\(a.lon)", "--minutes", "1,2")
        #expect(cliIso.status == 0, "\(cliIso.stderr)")
        let cliIsoJSON = try JSONValue(parsing: cliIso.stdout)
        #expect(iso.status == 200 && iso.json == cliIsoJSON)
        let contours = iso.json?["features"]?.arrayValue?.compactMap { $0["properties"]?["contour"]?.numberValue }
        #expect(contours == [2, 1])
        #expect(iso.json?["features"]?.arrayValue?.first?["geometry"]?["type"] == "Polygon")
        let isoFile = directory + "/iso.geojson"
        try iso.body.write(toFile: isoFile, atomically: true, encoding: .utf8)
        try Validator.check([isoFile])
        let lines = try RawClient.get("/isochrone/v1/driving/\(lonLat(a))?contours_minutes=2", port: server.port)
        // polygons=false, Mapbox's default
        #expect(lines.json?["features"]?.arrayValue?.first?["geometry"]?["type"] == "LineString")

        let health = try RawClient.get("/health", port: server.port)
        #expect(health.status == 200 && health.json?["search"] == "hierarchy")
        #expect(server.stop() == 0)
        #expect(server.log.contains("\"GET /health\" 200"))
        #expect(server.log.contains("waymark serve: stopped"))
    }

    /// The virtual environment .ci/run makes for the OSRM client libraries from PyPI (routingpy,
    /// py-osrm-client), apart from osrm-bindings, whose module has the same name as one of them.
    static let clients = Run.packageRoot.appendingPathComponent(".build/osrm-clients/bin/python").path
    static let clientsReady = FileManager.default.isExecutableFile(atPath: clients)
        || ProcessInfo.processInfo.environment["WAYMARK_REQUIRE_OSRM_CLIENTS"] == "1"

    /// Real OSRM clients, unchanged but for the URL, with their defaults and with alternatives,
    /// annotations, steps, bearings and radiuses: route, table, nearest, trip and match
    /// (`Tools/osrm_clients_test.py`).
    @Test(.enabled(if: clientsReady, "the OSRM client libraries are not installed (.ci/run installs them)"))
    func osrmClientsWorkUnchanged() throws {
        let server = try ServerProcess([map])
        defer { _ = server.stop() }
        let result = try Run.process(Self.clients, [
            Run.packageRoot.appendingPathComponent("Tools/osrm_clients_test.py").path, String(server.port),
            lonLat(a), lonLat(b), lonLat(c),
        ])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("11 calls, all answered"))
    }

    /// A matched trace's tracepoints carry hints as a route's waypoints do (written as they are
    /// made): each of OSRM's length, a route from them the same as from the coordinates, none with
    /// `generate_hints=false`.
    @Test func matchedFixesCarryHints() throws {
        let server = try ServerProcess([map])
        defer { _ = server.stop() }
        let fixes = (0...8).map { k in
            Point(a.lat + (b.lat - a.lat) * Double(k) / 8, a.lon + (b.lon - a.lon) * Double(k) / 8)
        }
        let path = "/match/v1/driving/" + fixes.map(lonLat).joined(separator: ";") + "?radiuses="
            + Array(repeating: "60", count: fixes.count).joined(separator: ";")
        let matched = try RawClient.get(path, port: server.port)
        let points = matched.json?["tracepoints"]?.arrayValue ?? []
        #expect(matched.status == 200 && points.count == fixes.count, "\(matched.body)")
        let hints = points.compactMap { $0["hint"]?.stringValue }
        #expect(hints.count == points.filter { $0 != .null }.count && hints.count >= 2)
        #expect(hints.allSatisfy { $0.utf8.count == 112 })
        // Each made for its own fix: the input coordinate a hint holds (bytes 56–71, see WaypointHint.swift).
        for (k, point) in points.enumerated() where point != .null {
            let text = point["hint"]?.stringValue ?? ""
            let bytes = [UInt8](Data(base64Encoded: text.replacingOccurrences(of: "-", with: "+")
                .replacingOccurrences(of: "_", with: "/")) ?? Data())
            func double(_ at: Int) -> Double {
                Double(bitPattern: (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[at + $1]) << (8 * UInt64($1)) })
            }
            #expect(bytes.count == 84 && double(56) == fixes[k].lat && double(64) == fixes[k].lon, "fix \(k)")
        }
        let (first, last) = (fixes.indices.first { points[$0] != .null }!, fixes.indices.last { points[$0] != .null }!)
        let ends = lonLat(fixes[first]) + ";" + lonLat(fixes[last])
        let hinted = try RawClient.get("/route/v1/driving/\(ends)?hints=\(hints.first!);\(hints.last!)",
                                       port: server.port)
        let plain = try RawClient.get("/route/v1/driving/\(ends)", port: server.port)
        #expect(hinted.status == 200 && hinted.json?["routes"] == plain.json?["routes"], "\(hinted.body)")
        let bare = try RawClient.get(path + "&generate_hints=false", port: server.port)
        #expect(bare.status == 200 && !bare.body.contains("\"hint\""))
    }

    /// Bad requests answered with osrm-routed's status and code: each case's code is what
    /// osrm-routed 26.10 answered to the same request (on Andorra, 2026-11-28), but for
    /// Waymark's own services and limits (isochrone, `--max-*`) and what is not served
    /// (`NotImplemented`, `InvalidService` for tile); match's on a grid map (2026-11-28).
    @Test func errorsAreOSRMs() throws {
        let server = try ServerProcess([map, "--max-table-size", "2", "--max-waypoints", "3", "--max-nearest", "2"])
        defer { _ = server.stop() }
        let ab = "\(lonLat(a));\(lonLat(b))"
        let hint = String(repeating: "B", count: 112)
        let cases: [(String, Int, String)] = [
            ("/route/v1/driving/\(lonLat(a))", 400, "InvalidOptions"),
            ("/route/v1/driving/", 400, "InvalidUrl"),
            ("/route/v1/driving/abc;def", 400, "InvalidQuery"),
            ("/route/v1/driving/-2.6,95;-2.57,52.31", 400, "InvalidValue"),
            ("/route/v1/driving/polyline(abc)", 400, "InvalidOptions"),
            ("/route/v1/driving/\(ab)?steps=maybe", 400, "InvalidQuery"),
            ("/route/v1/driving/\(ab)?bogus=1", 400, "InvalidQuery"),
            ("/route/v1/driving/\(ab)?language=xx", 400, "InvalidQuery"),
            ("/route/v1/driving/\(ab)?steps=true&steps=false", 200, "Ok"),
            ("/route/v1/driving/\(ab)?radiuses=5", 400, "InvalidOptions"),
            ("/route/v1/driving/\(ab)?radiuses=-5;10", 400, "NoSegment"),
            ("/route/v1/driving/\(ab)?radiuses=abc;10", 400, "InvalidQuery"),
            ("/route/v1/driving/\(ab)?hints=xyz;abc", 400, "InvalidQuery"),
            ("/route/v1/driving/\(ab)?hints=;;", 400, "InvalidOptions"),
            ("/route/v1/driving/\(ab)?hints=\(hint);", 200, "Ok"),
            ("/route/v1/driving/\(ab)?bearings=400,20;0,20", 400, "InvalidOptions"),
            ("/route/v1/driving/\(ab)?bearings=abc;", 400, "InvalidQuery"),
            ("/route/v1/driving/\(ab)?bearings=10;", 400, "InvalidQuery"),
            ("/route/v1/driving/\(ab)?approaches=left;curb", 400, "InvalidQuery"),
            ("/route/v1/driving/\(ab)?waypoints=0;5", 400, "InvalidOptions"),
            ("/route/v1/driving/\(ab)?waypoints=a", 400, "InvalidQuery"),
            ("/route/v1/driving/\(ab);\(lonLat(c))?waypoints=1;2", 400, "InvalidValue"),
            ("/route/v1/driving/\(ab)?waypoints=0;1", 200, "Ok"),
            ("/route/v1/driving/\(ab)?exclude=toll", 200, "Ok"),
            ("/route/v1/driving/\(ab)?exclude=motorway,ferry,toll", 200, "Ok"),
            ("/route/v1/driving/\(ab)?exclude=tolls", 400, "InvalidValue"),
            ("/table/v1/driving/\(ab)?exclude=ferry", 200, "Ok"),
            ("/nearest/v1/driving/\(lonLat(a))?exclude=motorway", 200, "Ok"),
            ("/table/v1/driving/\(lonLat(a))", 400, "InvalidOptions"),
            ("/table/v1/driving/\(ab)?sources=a", 400, "InvalidQuery"),
            ("/table/v1/driving/\(ab)?fallback_speed=-1", 400, "InvalidOptions"),
            ("/table/v1/driving/\(ab)?fallback_speed=abc", 400, "InvalidQuery"),
            ("/table/v1/driving/\(ab)?scale_factor=0", 400, "InvalidOptions"),
            ("/table/v1/driving/\(ab)?scale_factor=abc", 400, "InvalidQuery"),
            ("/table/v1/driving/\(ab)?fallback_coordinate=x", 400, "InvalidQuery"),
            ("/nearest/v1/driving/\(lonLat(a))?number=0", 400, "InvalidOptions"),
            ("/nearest/v1/driving/\(lonLat(a))?number=-1", 400, "InvalidQuery"),
            ("/route/v1/driving/\(ab)?annotations=true", 200, "Ok"),
            ("/route/v1/driving/\(ab)?steps=true&", 400, "InvalidQuery"),
            ("/route/v1/driving/\(ab).flatbuffers", 400, "NotImplemented"),
            ("/route/v1/driving/\(ab)?annotations=true,speed", 400, "InvalidQuery"),
            ("/route/v1/driving/\(ab)?annotations=nodes,nodes", 200, "Ok"),
            ("/route/v1/driving/\(ab)?bearings=10,20;", 200, "Ok"),
            ("/route/v1/driving/\(ab)?bearings=10,20,30;", 400, "InvalidQuery"),
            ("/route/v1/driving/\(ab)?approaches=curb", 400, "InvalidOptions"),
            ("/route/v1/driving/\(ab)?approaches=curb;opposite", 200, "Ok"),
            ("/route/v1/driving/\(ab)?alternatives=4", 400, "TooBig"),
            ("/route/v1/driving/\(ab)?alternatives=-1", 400, "InvalidQuery"),
            ("/route/v1/driving/\(ab)?alternatives=3", 200, "Ok"),
            ("/route/v1/driving/\(ab)?waypoints=0;0;1", 200, "Ok"),
            ("/route/v1/driving/\(ab)?continue_straight=default", 200, "Ok"),
            ("/route/v1/driving/\(ab)?radiuses=unlimited;", 200, "Ok"),
            ("/route/v1/driving/\(ab)?snapping=any&generate_hints=false&skip_waypoints=true", 200, "Ok"),
            ("/route/v1/driving/\(lonLat(a));\(lonLat(b));\(lonLat(c));\(lonLat(a))", 400, "TooBig"),
            ("/route/v1/driving/\(lonLat(a));-2.0,52.0", 200, "Ok"), // snapped at any distance, as OSRM
            ("/route/v1/driving/\(lonLat(a));-2.0,52.0?radiuses=;1000", 400, "NoSegment"),
            ("/table/v1/driving/\(lonLat(a));\(lonLat(b));\(lonLat(c))", 400, "TooBig"),
            ("/table/v1/driving/\(lonLat(a));\(lonLat(b))?sources=5", 400, "InvalidOptions"),
            ("/nearest/v1/driving/\(lonLat(a))?number=3", 400, "TooBig"),
            ("/nearest/v1/driving/\(lonLat(a))?number=1.5", 400, "InvalidQuery"),
            ("/nearest/v1/driving/\(lonLat(a));\(lonLat(b))", 200, "Ok"),
            ("/match/v1/driving/\(lonLat(a))", 400, "InvalidOptions"),
            ("/match/v1/driving/\(ab)?timestamps=5;3", 400, "InvalidValue"),
            ("/match/v1/driving/\(ab)?timestamps=5", 400, "InvalidOptions"),
            ("/match/v1/driving/\(ab)?timestamps=-1;3", 400, "InvalidQuery"),
            ("/match/v1/driving/\(ab)?gaps=maybe", 400, "InvalidQuery"),
            ("/match/v1/driving/\(ab)?tidy=x", 400, "InvalidQuery"),
            ("/match/v1/driving/\(ab);\(lonLat(a))?waypoints=1;2", 400, "InvalidValue"),
            ("/match/v1/driving/-2.0,52.0;-2.0,52.0", 400, "NoSegment"),
            ("/match/v1/driving/\(ab)?radiuses=-5;50", 400, "NoMatch"),
            ("/match/v1/driving/\(ab)?radiuses=50;50&timestamps=1;1", 400, "NoMatch"),
            // Timestamps are OSRM's unsigned 32-bit seconds: beyond, malformed (and never an overflow).
            ("/match/v1/driving/\(ab)?radiuses=50;50&timestamps=0;4294967296", 400, "InvalidQuery"),
            ("/match/v1/driving/\(ab);\(lonLat(c))?radiuses=50;50;50&timestamps=0;\(Int.max - 1);\(Int.max)",
             400, "InvalidQuery"),
            ("/match/v1/driving/\(ab)?radiuses=50;50&timestamps=0;4294967295", 200, "Ok"),
            ("/match/v1/driving/\(ab)?radiuses=50;50&steps=true&annotations=true&tidy=true", 200, "Ok"),
            ("/tile/v1/driving/tile(1,2,3).mvt", 400, "InvalidService"),
            // A profile the map is not for (osrm-routed ignores the name: a README difference).
            ("/route/v1/foot/\(ab)", 400, "InvalidOptions"),
            ("/route/v1/car/\(ab)", 200, "Ok"),
            ("/trip/v1/driving/\(lonLat(a));\(lonLat(b))?roundtrip=false", 400, "NotImplemented"),
            ("/trip/v1/driving/\(lonLat(a));\(lonLat(b))?roundtrip=false&source=first", 200, "Ok"),
            ("/trip/v1/driving/\(lonLat(a))", 400, "InvalidOptions"),
            ("/trip/v1/driving/\(lonLat(a));\(lonLat(b))?source=middle", 400, "InvalidQuery"),
            ("/isochrone/v1/driving/\(lonLat(a))", 400, "InvalidOptions"),
            ("/isochrone/v1/driving/\(lonLat(a))?contours_minutes=61", 400, "InvalidValue"),
            ("/isochrone/v1/driving/\(lonLat(a))?contours_minutes=10,5", 400, "InvalidValue"),
            ("/isochrone/v1/driving/\(lonLat(a))?contours_minutes=1,2,3,4,5", 400, "TooBig"),
            ("/isochrone/v1/driving/\(lonLat(a))?contours_minutes=x", 400, "InvalidQuery"),
            ("/isochrone/v1/driving/\(lonLat(a))?contours_minutes=5&exclude=boats", 400, "InvalidValue"),
            ("/isochrone/v1/driving/\(lonLat(a));\(lonLat(b))?contours_minutes=5", 400, "InvalidOptions"),
            ("/route/v2/driving/\(lonLat(a));\(lonLat(b))", 400, "InvalidVersion"),
            ("/", 400, "InvalidUrl"),
            ("/../etc/passwd", 400, "InvalidUrl"),
            ("/../../etc/passwd", 400, "InvalidService"),
        ]
        for (path, status, code) in cases {
            let response = try RawClient.get(path, port: server.port)
            #expect(response.status == status && response.json?["code"]?.stringValue == code,
                    "\(path): \(response.status) \(response.body)")
            let message = response.json?["message"]?.stringValue ?? ""
            #expect(message.isEmpty == (status == 200), "\(path)")
        }
        // Nearest for several coordinates, as OSRM 26: one list of waypoints per coordinate.
        let two = try RawClient.get("/nearest/v1/driving/\(ab)?number=2", port: server.port)
        let lists = two.json?["waypoints"]?.arrayValue ?? []
        #expect(lists.count == 2 && lists.allSatisfy { $0.arrayValue?.count == 2 }, "\(two.body)")

        // Messages give points as the API takes them: longitude,latitude.
        let outside = try RawClient.get("/route/v1/driving/\(lonLat(a));-2.0,52.0?radiuses=;1000", port: server.port)
        #expect(outside.json?["message"]?.stringValue?.hasPrefix("-2.000000,52.000000 is outside") == true,
                "\(outside.body)")

        // The instructions' language: one the library has.
        let english = try RawClient.get(
            "/route/v1/driving/\(lonLat(a));\(lonLat(b))?steps=true&language=en", port: server.port)
        #expect(english.status == 200 && english.json?["code"]?.stringValue == "Ok")
        // Radiuses narrow the snapping: 1 m from a point 100 m off any road finds none.
        let far = try RawClient.get("/route/v1/driving/\(lonLat(a));\(lonLat(b))?radiuses=1;", port: server.port)
        #expect(far.json?["code"] == "NoSegment" || far.json?["code"] == "Ok")
        // Without a radius a point snaps at any distance, as in OSRM: the sea off Africa to the town.
        let anywhere = try RawClient.get("/nearest/v1/driving/0,0?number=2", port: server.port)
        let snapped = anywhere.json?["waypoints"]?.arrayValue ?? []
        #expect(snapped.count == 2 && (snapped.first?["distance"]?.numberValue ?? 0) > 5_000_000, "\(anywhere.body)")
        #expect(try RawClient.get("/health", port: server.port).status == 200)
        // An isochrone keeping off toll roads (GeoJSON, no code).
        let kept = try RawClient.get("/isochrone/v1/driving/\(lonLat(a))?contours_minutes=5&exclude=toll",
                                     port: server.port)
        #expect(kept.status == 200 && kept.body.contains("FeatureCollection"))
    }

    @Test func abuseIsRefusedAndServingGoesOn() throws {
        let server = try ServerProcess([map, "--request-timeout", "1", "--idle-timeout", "1", "--max-connections", "6"])
        defer { _ = server.stop() }
        let good = "GET /route/v1/driving/\(lonLat(a));\(lonLat(b)) HTTP/1.1\r\nHost: t\r\n\r\n"

        // Pipelined: three requests in one write, three answers in order, on one connection.
        let pipelined = try RawClient(port: server.port)
        pipelined.send(
            good + "GET /health HTTP/1.1\r\nHost: t\r\n\r\n"
                + "GET /nope HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        #expect(pipelined.response()?.json?["code"] == "Ok")
        #expect(pipelined.response()?.json?["status"] == "serving")
        #expect(pipelined.response()?.status == 400)
        #expect(pipelined.isClosed())
        pipelined.close()

        // A long pipeline, answered by the server's loop itself (405 each) and then by the workers.
        let long405 = try RawClient(port: server.port)
        long405.send(
            String(repeating: "POST /x HTTP/1.1\r\nHost: t\r\n\r\n", count: 1500)
                + String(repeating: "GET /health HTTP/1.1\r\nHost: t\r\n\r\n", count: 200))
        var statuses: [Int] = []
        for _ in 0..<1700 { statuses.append(long405.response()?.status ?? 0) }
        #expect(statuses == Array(repeating: 405, count: 1500) + Array(repeating: 200, count: 200))
        long405.close()

        // A request (head and body) one byte at a time is answered once it is whole.
        let trickle = try RawClient(port: server.port)
        for byte in Array("GET /health HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nabcde".utf8) {
            trickle.send([byte])
            usleep(500)
        }
        #expect(trickle.response()?.status == 200)
        trickle.close()

        // 10,000 coordinates: the URL is too long (414), answered, connection closed.
        let many = (0..<10_000).map { _ in lonLat(a) }.joined(separator: ";")
        let long = try RawClient(port: server.port)
        long.send("GET /table/v1/driving/\(many) HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(long.response()?.status == 414)
        long.close()

        // Huge headers: 431.
        let headers = try RawClient(port: server.port)
        headers.send("GET /health HTTP/1.1\r\nHost: t\r\nX-Big: \(String(repeating: "x", count: 40_000))\r\n\r\n")
        #expect(headers.response()?.status == 431)
        headers.close()

        // Binary garbage: 400, closed.
        let garbage = try RawClient(port: server.port)
        garbage.send([0x16, 0x03, 0x01, 0x00, 0xFF, 0x00, 0x0A, 0x0D, 0x0A, 0x0D, 0x0A])
        #expect(garbage.response()?.status == 400)
        #expect(garbage.isClosed())
        garbage.close()

        // Not GET: 405 with Allow.
        let post = try RawClient.get("/health", port: server.port) // warm
        #expect(post.status == 200)
        let poster = try RawClient(port: server.port)
        poster.send("POST /route/v1/driving/1,2;3,4 HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n\r\n{}")
        let refused = poster.response()
        #expect(refused?.status == 405 && refused?.headers["allow"] == "GET, HEAD, OPTIONS")
        poster.close()

        // Slowloris: half a request, then silence: 408 after the request timeout, closed.
        let slow = try RawClient(port: server.port)
        slow.send("GET /health HTTP/1.1\r\nHo")
        #expect(slow.response()?.status == 408)
        #expect(slow.isClosed())
        slow.close()

        // Half-closed: the request, then the client's end shut: answered all the same.
        let half = try RawClient(port: server.port)
        half.send("GET /health HTTP/1.1\r\nHost: t\r\n\r\n")
        half.shutdownWrite()
        #expect(half.response()?.status == 200)
        #expect(half.isClosed())
        half.close()

        // Idle kept-alive connections are closed after the idle timeout.
        let idle = try RawClient(port: server.port)
        idle.send("GET /health HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(idle.response()?.status == 200)
        #expect(idle.isClosed()) // waits about a second
        idle.close()

        // Over the connection limit: 503, and the others still served.
        let held = try (0..<6).map { _ in try RawClient(port: server.port) }
        Thread.sleep(forTimeInterval: 0.3)
        let extra = try RawClient(port: server.port)
        #expect(extra.response()?.status == 503)
        extra.close()
        held[0].send("GET /health HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(held[0].response()?.status == 200)
        held.forEach { $0.close() }
        Thread.sleep(forTimeInterval: 0.3)

        // Whatever came before, the server answers.
        let after = try RawClient.get("/route/v1/driving/\(lonLat(a));\(lonLat(b))", port: server.port)
        #expect(after.status == 200 && after.json?["code"] == "Ok")
        // HEAD: the headers alone.
        let head = try RawClient(port: server.port)
        head.send(
            "HEAD /health HTTP/1.1\r\nHost: t\r\n\r\nGET /health HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        let first = head.response()
        #expect(first?.status == 200 && Int(first?.headers["content-length"] ?? "0")! > 0)
        head.close()
    }

    /// The isochrone command takes what the service takes: up to four distinct times of 1 to 60 minutes.
    @Test func isochroneTimesAreChecked() throws {
        for minutes in ["0.5", "1,1", "1,2,3,4,5", "61", "x", "nan"] {
            let result = try Run.waymark("isochrone", map, "--from", "\(a.lat),\(a.lon)", "--minutes", minutes)
            #expect(result.status == 64 && result.stderr.split(separator: "\n").count == 1,
                    "--minutes \(minutes): \(result.stderr)")
        }
    }

    @Test func badStartIsOneLine() throws {
        let missing = try Run.waymark("serve", directory + "/none.wmg", "--port", "0")
        #expect(missing.status == 1 && missing.stderr.split(separator: "\n").count == 1)
        let host = try Run.waymark("serve", map, "--host", "localhost.example", "--port", "0")
        #expect(host.status == 1 && host.stderr.contains("not a numeric"), "\(host.stderr)")
        // A taken port.
        let server = try ServerProcess([map])
        defer { _ = server.stop() }
        let taken = try Run.waymark("serve", map, "--port", "\(server.port)")
        #expect(taken.status == 1 && taken.stderr.contains("cannot listen"), "\(taken.stderr)")
    }

    private func polyline(_ points: [Point]) -> String {
        // Google's encoding, precision 5, written out here so the test does not trust the library.
        var result = "", previous = (0, 0)
        for p in points {
            let lat = Int((p.lat * 1e5).rounded()), lon = Int((p.lon * 1e5).rounded())
            for delta in [lat - previous.0, lon - previous.1] {
                var v = delta < 0 ? ~(delta << 1) : delta << 1
                while v >= 0x20 {
                    result.append(Character(UnicodeScalar(UInt8((0x20 | (v & 0x1F)) + 63))))
                    v >>= 5
                }
                result.append(Character(UnicodeScalar(UInt8(v + 63))))
            }
            previous = (lat, lon)
        }
        return result
    }
}
