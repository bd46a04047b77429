import Foundation
import Testing
import WaymarkGeo
import WaymarkGraph
import WaymarkOSM
import WaymarkRouting
import WaymarkSupport

/// Whatever the builder accepts, its loader accepts (issue 41, item 1): every graph built from
/// random and mutated OSM input is written to a file and read back with the loader's checks.
@Suite struct StoredGraphTests {
    let directory: String = {
        let path = NSTemporaryDirectory() + "waymark-stored-\(UUID().uuidString)"
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    /// Builds `xml` (input it refuses is fine), writes the graph and loads it back; a failure to
    /// load what was written is the fault this guards against. `whole`: as `waymark build` writes
    /// it, with the tables made for routing (the snap index grows with a map's extent: slow in a
    /// debug build for maps spanning the globe), else the graph's own sections.
    func roundTrip(_ xml: String, _ name: String, whole: Bool = false) throws {
        guard let graph = try? OSMGraphLoader.build(xml: xml) else { return }
        let path = directory + "/\(name).wmg"
        defer { try? FileManager.default.removeItem(atPath: path) }
        if whole { try RoadMap(graph: graph, method: .landmarks).write(to: path) } else {
            try GraphFile.checkStorable(graph, path: path)
            try GraphFile.write(graph, to: path)
        }
        do {
            let edges = whole ? try RoadMap(graphFile: path).graph.edgeCount : try GraphFile.read(path: path).edgeCount
            #expect(edges == graph.edgeCount, "\(name)")
        } catch {
            Issue.record("\(name): built, written, then refused: \(error)\n\(xml)")
        }
    }

    /// A node across 180° from the roads it joins, one on the far side of the globe, one on a
    /// pole: the first loads (its edge measured the short way round), the far one is dropped as
    /// no road and counted. First the case found (the sample town with a node at lon 180).
    @Test func nodesFarAwayLoadOrAreDropped() throws {
        let town = try String(contentsOfFile: Self.sampleTown, encoding: .utf8)
        try roundTrip(town.replacingOccurrences(of: "</osm>", with: Self.farWay(52.3, 180) + "</osm>"), "town-180",
                      whole: true)
        let road = """
            <?xml version="1.0"?>
            <osm version="0.6">
            <node id="1" lat="52.3" lon="-2.6"/><node id="2" lat="52.301" lon="-2.6"/>
            <way id="1"><nd ref="1"/><nd ref="2"/><tag k="highway" v="residential"/></way>
            """
        for (lat, lon) in [(52.3, 180.0), (52.3, -180.0), (-52.3, 177.4), (90, 0), (-90, 0)] {
            try roundTrip(road + Self.farWay(lat, lon) + "</osm>", "far-\(lat)-\(lon)")
        }
        let antipode = try OSMGraphLoader.build(xml: road + Self.farWay(-52.3, 177.4) + "</osm>")
        #expect(antipode.report.droppedAbsurdSegments == 1)
        let across = try OSMGraphLoader.build(xml: road + Self.farWay(52.3, 180) + "</osm>")
        #expect(across.report.droppedAbsurdSegments == 0 && across.edgeCount == 4)
    }

    /// A way from node 1 to a new node at (`lat`, `lon`).
    static func farWay(_ lat: Double, _ lon: Double) -> String {
        "<node id=\"999999901\" lat=\"\(lat)\" lon=\"\(lon)\"/>\n<way id=\"999999902\"><nd ref=\"1\"/>"
            + "<nd ref=\"999999901\"/><tag k=\"highway\" v=\"residential\"/></way>\n"
    }

    /// Random maps, seeded: nodes near each other, on the poles and 180°, repeated; ways of every
    /// kind with odd speeds, durations, directions and rings; then each map with some of its
    /// nodes moved to extreme places.
    @Test(arguments: 0..<6) func randomMapsLoad(seed: UInt64) throws {
        var rng = SplitMix64(seed: 41_000 + seed)
        let places = ["lat=\"90\" lon=\"0\"", "lat=\"-90\" lon=\"10\"", "lat=\"52.3\" lon=\"180\"",
                      "lat=\"52.3\" lon=\"-180\"", "lat=\"0\" lon=\"179.9999999\"", "lat=\"-33.9\" lon=\"151.2\""]
        for round in 0..<25 {
            let map = Self.randomMap(&rng)
            try roundTrip(map, "random-\(seed)-\(round)")
            var lines = map.split(separator: "\n").map(String.init)
            for i in lines.indices where lines[i].hasPrefix("<node ") && Int.random(in: 0..<4, using: &rng) == 0 {
                guard let at = lines[i].range(of: #"lat="[^"]*" lon="[^"]*""#, options: .regularExpression)
                else { continue }
                lines[i].replaceSubrange(at, with: places.randomElement(using: &rng)!)
            }
            try roundTrip(lines.joined(separator: "\n"), "mutated-\(seed)-\(round)")
        }
    }

    static var sampleTown: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Data/sample-town.osm").path
    }

    static func randomMap(_ rng: inout SplitMix64) -> String {
        var lines = ["<?xml version=\"1.0\"?>", "<osm version=\"0.6\">"]
        let count = Int.random(in: 2...24, using: &rng)
        let centre = (Double.random(in: -89...89, using: &rng), Double.random(in: -180...180, using: &rng))
        for id in 1...count {
            let lat: Double, lon: Double
            switch Int.random(in: 0..<10, using: &rng) {
            case 0: (lat, lon) = ([90.0, -90, 89.9999999].randomElement(using: &rng)!, centre.1)
            case 1: (lat, lon) = (centre.0, [180.0, -180, 179.9999999, -179.9999999].randomElement(using: &rng)!)
            case 2: (lat, lon) = (Double.random(in: -90...90, using: &rng), Double.random(in: -180...180, using: &rng))
            case 3: (lat, lon) = centre // the same place as another node
            default:
                (lat, lon) = (max(-90, min(90, centre.0 + Double.random(in: -0.01...0.01, using: &rng))),
                              centre.1 + Double.random(in: -0.01...0.01, using: &rng))
            }
            let wrapped = lon > 180 ? lon - 360 : lon < -180 ? lon + 360 : lon
            lines.append("<node id=\"\(id)\" lat=\"\(lat)\" lon=\"\(wrapped)\"/>")
        }
        let highways = ["motorway", "trunk", "primary", "residential", "service", "motorway_link", "track"]
        let extras = [["oneway", "yes"], ["oneway", "-1"], ["junction", "roundabout"], ["maxspeed", "1"],
                      ["maxspeed", "0"], ["maxspeed", "300"], ["maxspeed", "none"], ["lanes", "9"], ["toll", "yes"]]
        for way in 0..<Int.random(in: 1...8, using: &rng) {
            let nodes = (0..<Int.random(in: 2...6, using: &rng)).map { _ in Int.random(in: 1...count, using: &rng) }
            var tags: [(String, String)]
            if Int.random(in: 0..<5, using: &rng) == 0 {
                let durations = ["00:01", "9999:00", "0", "-5", "1:00:00", "99999999"]
                tags = [("route", "ferry"), ("duration", durations.randomElement(using: &rng)!)]
            } else {
                tags = [("highway", highways.randomElement(using: &rng)!)]
            }
            if Bool.random(using: &rng) {
                let extra = extras.randomElement(using: &rng)!
                tags.append((extra[0], extra[1]))
            }
            lines.append("<way id=\"\(1000 + way)\">" + nodes.map { "<nd ref=\"\($0)\"/>" }.joined()
                         + tags.map { "<tag k=\"\($0.0)\" v=\"\($0.1)\"/>" }.joined() + "</way>")
        }
        lines.append("</osm>")
        return lines.joined(separator: "\n")
    }
}
