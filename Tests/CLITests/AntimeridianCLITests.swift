import Foundation
import Testing
import WaymarkGeoJSON

/// A small town of our own across 180° (as in Fiji, Chukotka or the Aleutians) against the same
/// town moved 20° west, through the built `waymark` (issue 41, item 2): the same lengths (measured
/// the short way round), the same routes and tables, GeoJSON cut at ±180° (RFC 7946 §3.1.9), the
/// same picture, and a viewer that fits and draws it.
@Suite struct AntimeridianCLITests {
    /// Three streets 200 m apart, eight nodes each 200 m apart, the middle of them on 180°
    /// (`shift` 0) or 20° west of it; avenues across at every third node.
    static func town(shift: Double) -> String {
        let latitude = -17.0, rows = 3, columns = 8
        let east = 200 / (111_195 * cos(latitude * .pi / 180)), north = 200 / 111_195.0
        var lines = ["<?xml version=\"1.0\"?>", "<osm version=\"0.6\">"]
        for r in 0..<rows {
            for c in 0..<columns {
                var lon = 180 - 3.5 * east + Double(c) * east + shift
                if lon > 180 { lon -= 360 }
                lines.append("<node id=\"\(r * 100 + c + 1)\" lat=\"\(latitude + Double(r) * north)\" lon=\"\(lon)\"/>")
            }
        }
        var id = 1
        func way(_ nodes: [Int], _ highway: String, _ name: String) {
            lines.append("<way id=\"\(id)\">" + nodes.map { "<nd ref=\"\($0)\"/>" }.joined()
                         + "<tag k=\"highway\" v=\"\(highway)\"/><tag k=\"name\" v=\"\(name)\"/></way>")
            id += 1
        }
        for r in 0..<rows { way((0..<columns).map { r * 100 + $0 + 1 }, "residential", "Street \(r)") }
        for c in stride(from: 0, to: columns, by: 3) {
            way((0..<rows).map { $0 * 100 + c + 1 }, "tertiary", "Avenue \(c)")
        }
        return (lines + ["</osm>"]).joined(separator: "\n")
    }

    /// The two ends used for routes, on either side of 180° (and the same places moved west).
    static func ends(shift: Double) -> [String] {
        let east = 200 / (111_195 * cos(-17.0 * .pi / 180))
        func lon(_ c: Double) -> Double { let x = 180 - 3.5 * east + c * east + shift; return x > 180 ? x - 360 : x }
        return ["-17.0,\(lon(0))", "\(-17.0 + 2 * 200 / 111_195.0),\(lon(7))", "\(-17.0 + 200 / 111_195.0),\(lon(3.7))"]
    }

    @Test func aTownAcross180() throws {
        let dir = try Run.temporaryDirectory()
        var maps: [Double: String] = [:]
        for shift in [0.0, -20] {
            let osm = dir + "/town\(Int(shift)).osm", map = dir + "/town\(Int(shift)).wmg"
            try Self.town(shift: shift).write(toFile: osm, atomically: true, encoding: .utf8)
            let built = try Run.waymark("build", osm, "-o", map, "--hierarchy")
            #expect(built.status == 0 && built.stdout.contains("dropped_absurd_segments         0"), "\(built.stderr)")
            maps[shift] = map
        }
        let across = maps[0]!, west = maps[-20]!
        // Edges as long as the same edges away from 180° (the short way round, not around the globe).
        func edgeLengths(_ map: String) throws -> [Double] {
            #expect(try Run.waymark("inspect", map, "--edges", map + ".csv").status == 0)
            return try String(contentsOfFile: map + ".csv", encoding: .utf8).split(separator: "\n").dropFirst()
                .map { Double($0.split(separator: ",")[6])! }
        }
        #expect(try edgeLengths(across) == edgeLengths(west))

        // Routes across, both ways: the same length and time (within 0.1 %) as away from 180°.
        func route(_ map: String, _ from: String, _ to: String, _ format: String = "json") throws -> Run.Result {
            try Run.waymark("route", map, "--from", from, "--to", to, "--format", format, "--driving-side", "right")
        }
        let (a, b) = (Self.ends(shift: 0), Self.ends(shift: -20))
        for (i, j) in [(0, 1), (1, 0), (0, 2), (2, 1)] {
            let here = try JSONValue(parsing: Array(try route(across, a[i], a[j]).stdout.utf8))
            let there = try JSONValue(parsing: Array(try route(west, b[i], b[j]).stdout.utf8))
            func figures(_ v: JSONValue) -> (Double, Double) {
                let r = v.objectValue?["routes"]?.arrayValue?.first?.objectValue
                return (r?["distance"]?.numberValue ?? -1, r?["duration"]?.numberValue ?? -1)
            }
            let (d1, t1) = figures(here), (d2, t2) = figures(there)
            #expect(d1 > 100 && abs(d1 - d2) <= 0.001 * d2 && abs(t1 - t2) <= 0.001 * t2,
                    "\(i)→\(j): \(d1) \(t1) \(d2) \(t2)")
        }
        // GeoJSON cut at 180°: a MultiLineString whose parts end and begin on ±180.
        let geojson = try JSONValue(parsing: Array(try route(across, a[0], a[1], "geojson").stdout.utf8))
        let first = geojson.objectValue?["features"]?.arrayValue?.first?.objectValue
        let line = try #require(first?["geometry"]?.objectValue)
        #expect(line["type"]?.stringValue == "MultiLineString")
        let parts = line["coordinates"]?.arrayValue ?? []
        #expect(parts.count == 2)
        #expect(parts.first?.arrayValue?.last?.arrayValue?.first?.numberValue == 180)
        #expect(parts.last?.arrayValue?.first?.arrayValue?.first?.numberValue == -180)

        // OSRM's JSON with `geometries=geojson` stays as OSRM writes it: one LineString.
        let osrm = try Run.waymark("route", across, "--from", a[0], "--to", a[1], "--format", "json",
                                   "--geometries", "geojson", "--overview", "full")
        let overview = try JSONValue(parsing: Array(osrm.stdout.utf8)).objectValue?["routes"]?.arrayValue?.first?
            .objectValue?["geometry"]?.objectValue
        #expect(overview?["type"]?.stringValue == "LineString")

        // Tables: every pair as away from 180°.
        func table(_ map: String, _ points: [String]) throws -> [[Double]] {
            let csv = dir + "/points.csv"
            try (["latitude,longitude"] + points).joined(separator: "\n").write(toFile: csv, atomically: true,
                                                                                    encoding: .utf8)
            let result = try Run.waymark("table", map, "--sources", csv, "--format", "csv", "--driving-side", "right")
            // (A header, then each row's label before its durations.)
            return result.stdout.split(separator: "\n").dropFirst().map {
                $0.split(separator: ",").dropFirst().map { Double($0)! }
            }
        }
        let t1 = try table(across, a), t2 = try table(west, b)
        #expect(t1.count == 3 && zip(t1.joined(), t2.joined()).allSatisfy { abs($0 - $1) <= 0.001 * max(1, $1) })

        // Isochrones reaching across: cut at 180° into the parts on either side.
        let iso = try Run.waymark("isochrone", across, "--from", a[0], "--minutes", "4", "--driving-side", "right")
        let area = try JSONValue(parsing: Array(iso.stdout.utf8)).objectValue?["features"]?.arrayValue?.first?
            .objectValue?["geometry"]?.objectValue
        #expect(area?["type"]?.stringValue == "MultiPolygon" && area?["coordinates"]?.arrayValue?.count == 2)
        let longitudes = (area?["coordinates"]?.arrayValue ?? []).flatMap { $0.arrayValue ?? [] }
            .flatMap { $0.arrayValue ?? [] }.compactMap { $0.arrayValue?.first?.numberValue }
        #expect(longitudes.allSatisfy { abs($0) > 179.9 })

        // The same picture as the town away from 180° (but for the centre its title gives).
        func picture(_ map: String) throws -> String {
            #expect(try Run.waymark("render", map, "-o", map + ".svg").status == 0)
            return try String(contentsOfFile: map + ".svg", encoding: .utf8)
                .replacingOccurrences(of: #"centred on [-0-9.]+, [-0-9.]+"#, with: "", options: .regularExpression)
        }
        #expect(try picture(across) == picture(west))

        // The viewer: fitted on 180° with places on both sides, its pictures drawn there.
        let places = dir + "/places.geojson"
        let features = a.prefix(2).enumerated().map { k, point -> String in
            let p = point.split(separator: ",")
            return #"{"type":"Feature","id":"p\#(k)","geometry":{"type":"Point","coordinates":[\#(p[1]),\#(p[0])]},"#
                + #""properties":{"title":"Place \#(k)"}}"#
        }
        try #"{"type":"FeatureCollection","features":[\#(features.joined(separator: ","))]}"#
            .write(toFile: places, atomically: true, encoding: .utf8)
        let server = try ServerProcess([across, "--pois", places, "--read-only"])
        defer { _ = server.stop() }
        let fitted = try RawClient.get("/fit?width=800&height=600", port: server.port)
        let fit = try JSONValue(parsing: Array(fitted.body.utf8)).objectValue
        let centre = fit?["center"]?.arrayValue?.compactMap(\.numberValue) ?? []
        #expect(centre.count == 2 && abs(centre[0]) > 179.99 && (fit?["zoom"]?.numberValue ?? 0) > 14,
                "\(fitted.body)")
        let picture = try RawClient.get("/render?lat=-16.998&lon=180&zoom=16&width=400&height=300", port: server.port)
        #expect(picture.status == 200 && picture.body.contains("class=\"road residential\""))
    }
}
