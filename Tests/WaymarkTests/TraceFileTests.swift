import Foundation
import Testing
import Waymark

/// Reading GPS traces (``GPSTrace``): GPX tracks and routes, GeoJSON lines, and one-line errors.
@Suite struct TraceFileTests {
    static func read(_ text: String) throws(TraceFileError) -> GPSTrace {
        try GPSTrace.read(Array(text.utf8), path: "t")
    }

    static func message(_ text: String) -> String {
        do {
            _ = try read(text)
            return "read"
        } catch {
            return error.description
        }
    }

    @Test func gpxTracksInOrderWithTheirTimes() throws {
        let trace = try Self.read("""
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">
              <wpt lat="1" lon="1"><name>not a fix</name></wpt>
              <trk><name>ride</name>
                <trkseg>
                  <trkpt lat="52.5" lon="13.4"><ele>34</ele><time>2026-11-28T10:00:00Z</time></trkpt>
                  <trkpt lat="52.5001" lon="13.4002"><time>2026-11-28T10:00:04.600Z</time></trkpt>
                </trkseg>
                <trkseg>
                  <trkpt lat="52.5002" lon="13.4004"><time>2026-11-28T11:00:10+01:00</time></trkpt>
                </trkseg>
              </trk>
              <rte><rtept lat="0" lon="0"/></rte>
            </gpx>
            """)
        #expect(trace.coordinates.map(\.latitude) == [52.5, 52.5001, 52.5002])
        #expect(trace.coordinates.map(\.longitude) == [13.4, 13.4002, 13.4004])
        let start = 1_795_860_000 // 2026-11-28T10:00:00Z
        #expect(trace.timestamps == [start, start + 4, start + 10])
    }

    @Test func gpxRoutesWithoutTimes() throws {
        let trace = try Self.read(
            "<gpx><rte><rtept lat=\"1\" lon=\"2\"/><rtept lat=\"1.5\" lon=\"2.5\"/></rte></gpx>")
        #expect(trace.coordinates.count == 2 && trace.timestamps.isEmpty)
    }

    @Test func geoJSONLinesWithOrWithoutTimes() throws {
        let bare = try Self.read(#"{"type": "LineString", "coordinates": [[13.4, 52.5], [13.41, 52.51]]}"#)
        #expect(bare.coordinates.map(\.latitude) == [52.5, 52.51] && bare.timestamps.isEmpty)
        let timed = try Self.read("""
            {"type": "FeatureCollection", "features": [
              {"type": "Feature", "geometry": {"type": "Point", "coordinates": [0, 0]}, "properties": {}},
              {"type": "Feature", "geometry": {"type": "LineString", "coordinates": [[13.4, 52.5], [13.41, 52.51]]},
               "properties": {"coordTimes": ["2026-11-28T10:00:00Z", "2026-11-28T10:00:05Z"]}},
              {"type": "Feature", "geometry": {"type": "LineString", "coordinates": [[13.42, 52.52], [13.43, 52.53]]},
               "properties": {"times": [1795860009, 1795860012]}}]}
            """)
        #expect(timed.coordinates.count == 4)
        #expect(timed.timestamps == [1_795_860_000, 1_795_860_005, 1_795_860_009, 1_795_860_012])
    }

    @Test func badTracesAreOneLineErrors() {
        let cases: [(String, String)] = [
            ("<gpx><trk><trkseg><trkpt lon=\"2\"/><trkpt lat=\"1\" lon=\"2\"/></trkseg></trk></gpx>",
             "t:1: <trkpt> is missing its lat attribute"),
            ("<gpx><trk><trkseg><trkpt lat=\"95\" lon=\"2\"/><trkpt lat=\"1\" lon=\"2\"/></trkseg></trk></gpx>",
             "t:1: <trkpt> has an invalid lat/lon=\"95.0,2.0\""),
            ("<gpx><trk><trkseg><trkpt lat=\"1\" lon=\"2\"><time>noon</time></trkpt></trkseg></trk></gpx>",
             "t:1: malformed XML (GPX <time>): 'noon' is not an ISO 8601 date and time"),
            ("<gpx><trk><trkseg><trkpt lat=\"1\" lon=\"2\"><time>2026-11-28T10:00:00Z</time></trkpt>"
                + "<trkpt lat=\"1\" lon=\"2\"/></trkseg></trk></gpx>",
             "t: point 2 has no time while others have one"),
            ("<gpx><trk><trkseg><trkpt lat=\"1\" lon=\"2\"/></trkseg></trk></gpx>",
             "t: a trace needs at least two points, found 1"),
            ("<osm version=\"0.6\"/>", "t: not GPX: its root element is <osm>, not <gpx>"),
            ("<gpx><trk>", "t:1: malformed XML (xmlReadMemory): Premature end of data in tag trk line 1"),
            (#"{"type": "Point", "coordinates": [1, 2]}"#, "t: no LineString to read a trace from"),
            (#"{"type": "Feature", "geometry": {"type": "LineString", "coordinates": [[1, 2], [1, 3]]}, "#
                + #""properties": {"times": [1]}}"#, "t: feature 1 has 1 times for 2 points"),
            ("lat,lon\n1,2\n", "t: not a trace: expected GPX (XML) or GeoJSON"),
            (#"{"type": "Feature", "geometry": {"type": "LineString", "coordinates": [[1, 2], [1, 3]]}, "#
                + #""properties": {"times": [1, 1e300]}}"#, "t: feature 1: 1e+300 is not a time"),
        ]
        for (text, expected) in cases {
            let got = Self.message(text)
            #expect(got.hasPrefix(expected), "\(text)")
            #expect(!got.contains("\n"))
        }
    }
}
