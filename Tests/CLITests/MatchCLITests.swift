import Foundation
import Testing
import WaymarkGeoJSON

/// `waymark match` end to end: a GPX trace made along a route of the sample town, matched back
/// onto that route; bad traces are one line and a non-zero exit.
@Suite struct MatchCLITests {
    /// A GPX trace along the route from a to b: every third point of its line, a second apart
    /// per 10 m, each fix moved a few metres.
    static func gpx(along line: [[Double]]) -> String {
        var points: [String] = []
        var seconds = 0.0
        for (i, p) in line.enumerated() where i % 3 == 0 || i == line.count - 1 {
            let wobble = Double(i % 5 - 2) * 0.00002
            let time = Date(timeIntervalSince1970: 1_795_860_000 + seconds.rounded())
            points.append("<trkpt lat=\"\(p[1] + wobble)\" lon=\"\(p[0] - wobble)\"><time>"
                          + ISO8601DateFormatter().string(from: time) + "</time></trkpt>")
            seconds += 3
        }
        return "<?xml version=\"1.0\"?>\n<gpx version=\"1.1\" xmlns=\"http://www.topografix.com/GPX/1/1\">"
            + "<trk><trkseg>\n" + points.joined(separator: "\n") + "\n</trkseg></trk></gpx>\n"
    }

    @Test func aTraceAlongARouteMatchesIt() throws {
        let dir = try Run.temporaryDirectory()
        let town = Run.data("sample-town.osm")
        let route = try Run.waymark("route", town, "--from", "52.309427,-2.598781", "--to", "52.311680,-2.572561",
                                    "--format", "geojson")
        let features = try GeoJSONReader.readFeatureCollection(Array(route.stdout.utf8)).features
        guard case let .lineString(line)? = features.first?.geometry else {
            Issue.record("no route line: \(route.stdout.prefix(200))")
            return
        }
        let trace = dir + "/trace.gpx"
        try Self.gpx(along: line.map { [$0.longitude, $0.latitude] }).write(toFile: trace, atomically: true,
                                                                              encoding: .utf8)
        let fixes = try String(contentsOfFile: trace, encoding: .utf8).components(separatedBy: "<trkpt").count - 1

        let json = try Run.waymark("match", town, "--trace", trace, "--format", "json")
        #expect(json.status == 0, "\(json.stderr)")
        let answer = try JSONValue(parsing: Array(json.stdout.utf8))
        #expect(answer["code"]?.stringValue == "Ok")
        let matchings = answer["matchings"]?.arrayValue ?? []
        #expect(matchings.count == 1 && (matchings.first?["confidence"]?.numberValue ?? 0) > 0.5)
        // The route's length again, within a few metres (the first and last fix are not its ends).
        let routeMetres = features.first?.properties?["distance"]?.numberValue ?? 0
        let matchedMetres = matchings.first?["distance"]?.numberValue ?? 0
        #expect(abs(matchedMetres - routeMetres) < 30, "\(matchedMetres) m against \(routeMetres) m")
        let tracepoints = answer["tracepoints"]?.arrayValue ?? []
        #expect(tracepoints.count == fixes && tracepoints.allSatisfy { $0 != .null })

        let text = try Run.waymark("match", town, "--trace", trace)
        #expect(text.status == 0 && text.stdout.hasPrefix("Matched \(fixes) of \(fixes) fixes in 1 matching."))
        let geojson = try Run.waymark("match", town, "--trace", trace, "--format", "geojson", "-o", dir + "/m.geojson")
        #expect(geojson.status == 0)
        try Validator.check([dir + "/m.geojson"])
    }

    @Test func badTracesAreOneLine() throws {
        let dir = try Run.temporaryDirectory()
        let town = Run.data("sample-town.osm")
        let bad = dir + "/bad.gpx", far = dir + "/far.gpx", fifo = dir + "/fifo.gpx"
        #expect(mkfifo(fifo, 0o644) == 0)
        try "<gpx><trk><trkseg><trkpt lat=\"x\" lon=\"1\"/></trkseg></trk></gpx>".write(
            toFile: bad, atomically: true, encoding: .utf8)
        try "<gpx><rte><rtept lat=\"10\" lon=\"10\"/><rtept lat=\"10.001\" lon=\"10\"/></rte></gpx>".write(
            toFile: far, atomically: true, encoding: .utf8)
        for (arguments, status, message) in [
            (["match", town], Int32(64), "--trace FILE is required"),
            (["match", town, "--trace", bad], 1, "bad.gpx:1: <trkpt> has an invalid lat=\"x\""),
            (["match", town, "--trace", dir + "/missing.gpx"], 1, "missing.gpx: cannot read"),
            (["match", town, "--trace", far], 1, "no fix of the trace has a road"),
            (["match", town, "--trace", dir], 1, "cannot read: a directory"),
            (["match", town, "--trace", fifo], 1, "cannot read: not a regular file"),
        ] {
            let result = try Run.product("waymark", arguments)
            #expect(result.status == status, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        }
    }
}
