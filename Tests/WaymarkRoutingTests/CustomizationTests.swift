import Foundation
import Testing
import WaymarkGeo
@testable import WaymarkGraph
@testable import WaymarkOSM
@testable import WaymarkGuidance
import WaymarkPreparation
import WaymarkProfiles
import WaymarkRouting
import WaymarkSupport

/// New speeds and turn penalties (`waymark customize`), against OSRM 26.10's `osrm-customize`
/// on the same map and files (car.lua, MLD), and against an independent oracle.
@Suite struct CustomizationTests {
    /// A road with a waypoint `1` on it and a way round (100 m grid).
    static let loop = GridMap(picture: """
        a---b-1-c
        |       |
        d-------e
        """, ways: [("abc", ["name": "abc"]), ("ad", ["name": "ad"]), ("de", ["name": "de"]), ("ec", ["name": "ec"])],
        spacing: 100)

    struct Case: Sendable, CustomStringConvertible {
        var name: String, speeds: String, turns: String
        /// From, to, OSRM's duration, weight, distance and step names.
        var routes: [(Character, Character, Double, Double, Double, String)]
        var description: String { name }
    }

    // OSRM: osrm-extract car.lua, osrm-partition, osrm-customize with the files, then the routes.
    static let cases = [
        Case(name: "slow stretch", speeds: "98,99,5\n", turns: "", routes: [
            ("a", "c", 173.2, 173.2, 1203.4, "ad,de,ec,ec"), ("c", "a", 115.6, 115.6, 803.0, "abc,abc"),
            ("1", "c", 144.6, 144.6, 200.8, "abc,abc"), ("a", "1", 202.2, 202.2, 1404.1, "ad,de,ec,abc,abc"),
            ("1", "a", 86.6, 86.6, 602.2, "abc,abc")]),
        Case(name: "closed stretch", speeds: "98,99,0\n", turns: "", routes: [
            ("a", "c", 173.2, 173.2, 1203.4, "ad,de,ec,ec"), ("c", "a", 115.6, 115.6, 803.0, "abc,abc"),
            ("1", "c", 259.8, 259.8, 1805.6, "abc,ad,de,ec,ec")]),
        Case(name: "rate", speeds: "98,99,50,1\n", turns: "", routes: [
            ("a", "c", 173.2, 173.2, 1203.4, "ad,de,ec,ec"), ("1", "c", 14.5, 200.8, 200.8, "abc,abc")]),
        Case(name: "turn penalty", speeds: "", turns: "98,99,101,300\n", routes: [
            ("1", "e", 231.0, 231.0, 1605.4, "abc,ad,de,de"), ("e", "1", 57.8, 57.8, 401.0, "ec,abc,abc")]),
        Case(name: "turn weight", speeds: "98,99,5\n", turns: "98,99,101,100,1\n", routes: [
            ("1", "e", 273.4, 174.4, 401.0, "abc,ec,ec"), ("a", "e", 144.4, 144.4, 1003.2, "ad,de,de")]),
    ]

    @Test(arguments: cases) func customizedAsOSRM(_ c: Case) throws {
        var updates = SpeedUpdates()
        if !c.speeds.isEmpty { try updates.addSegmentSpeeds(c.speeds, name: "speeds", path: "speeds.csv") }
        if !c.turns.isEmpty { try updates.addTurnPenalties(c.turns, path: "turns.csv") }
        let built = RoadMap(graph: try Self.loop.graph(), method: .hierarchy)
        let (map, report) = try built.customized(with: updates)
        #expect(report.unmatchedSpeeds == 0 && report.unmatchedPenalties == 0)
        let places = Self.loop.positions
        for (from, to, duration, weight, distance, names) in c.routes {
            let route = try map.route(from: places[from]!, to: places[to]!)
            let what = "\(c.name) \(from)→\(to)"
            // (Waymark's own durations differ from OSRM's by its rounding: a tenth or two.)
            #expect(abs(route.duration - duration) <= 0.25, "\(what): \(route.duration) against \(duration)")
            #expect(abs(route.weight - weight) <= 0.25, "\(what): \(route.weight) against \(weight)")
            #expect(abs(route.distance - distance) <= 0.5, "\(what): \(route.distance) against \(distance)")
            #expect(route.legs.flatMap(\.steps).map(\.name).joined(separator: ",") == names, "\(what)")
        }
    }

    /// The stretch from 1 to c came from the file: annotations say so, with OSRM's names.
    @Test func annotationsNameTheSource() throws {
        var updates = SpeedUpdates()
        try updates.addSegmentSpeeds("98,99,5\n", name: "traffic", path: "traffic.csv")
        let (map, _) = try RoadMap(graph: try Self.loop.graph()).customized(with: updates)
        let places = Self.loop.positions
        var options = RouteOptions()
        options.annotations = true
        let route = try map.routes([places["1"]!, places["c"]!], options: options)[0]
        let annotation = try #require(route.legs[0].annotation)
        #expect(annotation.datasourceNames == ["lua profile", "traffic"])
        #expect(annotation.datasources == [1])
        #expect(abs(annotation.duration[0] - 144.6) < 0.05) // OSRM: 144.6
        let back = try map.routes([places["1"]!, places["a"]!], options: options)[0]
        #expect(back.legs[0].annotation?.datasources.allSatisfy { $0 == 0 } == true)
    }

    @Test func speedFilesReadAsOSRMReadsThem() throws {
        var updates = SpeedUpdates()
        try updates.addSegmentSpeeds("1,2,50\n1,2,30\n3,4,20,\n5,6,40,2.5,extra,columns\r\n\n", name: "a",
                                     path: "a.csv")
        try updates.addSegmentSpeeds("5,6,10\n", name: "b", path: "b.csv")
        #expect(updates.speeds[.init(from: 1, to: 2)] == .init(kmh: 30, rate: .fromSpeed, source: 1))
        #expect(updates.speeds[.init(from: 3, to: 4)]?.rate == .kept)
        #expect(updates.speeds[.init(from: 5, to: 6)] == .init(kmh: 10, rate: .fromSpeed, source: 2))
        #expect(updates.sourceNames == ["lua profile", "a", "b"])
        try updates.addTurnPenalties("1,2,3,5.5\n4,5,6,1,2\n", path: "t.csv")
        #expect(updates.penalties[.init(from: 4, via: 5, to: 6)] == .init(seconds: 1, weight: 2))
        for (bad, line) in [("1,2\n", 1), ("1,2,50\n1,x,3\n", 2), ("1,2,-5\n", 1), ("1,2,inf\n", 1),
                            ("-1,2,5\n", 1)] {
            var u = SpeedUpdates()
            #expect(throws: SpeedFileError.self) { try u.addSegmentSpeeds(bad, name: "bad", path: "bad.csv") }
            do { try u.addSegmentSpeeds(bad, name: "bad", path: "bad.csv") } catch {
                #expect(error.line == line && error.description.hasPrefix("bad.csv:\(line): "), "\(error)")
            }
        }
        var u = SpeedUpdates()
        #expect(throws: SpeedFileError.self) { try u.addTurnPenalties("1,2,3,-4\n", path: "t.csv") }
        #expect(throws: SpeedFileError.self) {
            try SpeedUpdates(segmentSpeedFiles: ["/no/such.csv"], turnPenaltyFiles: [])
        }
    }

    /// Property: a speed reads as the standard library reads the number (fixed seed): short
    /// decimals, long mantissas, exponents, signs and bare points alike.
    @Test func speedNumbersReadAsTheStandardLibraryReadsThem() throws {
        var rng = SplitMix64(seed: 43)
        var fields = ["1e3", "2.5E-1", "+7", "5.", ".5", "007.50", "0", "123456789012345678", "3.14159265358979323"]
        for _ in 0..<3000 {
            let digits = 1 + Int(rng.next() % 18), point = Int(rng.next() % UInt64(digits + 1))
            var field = ""
            for k in 0..<digits {
                if k == point && k > 0 { field += "." }
                field += String(rng.next() % 10)
            }
            fields.append(field)
        }
        var updates = SpeedUpdates()
        let text = fields.enumerated().map { "\(2 * $0.offset),\(2 * $0.offset + 1),\($0.element)" }
            .joined(separator: "\n")
        try updates.addSegmentSpeeds(text, name: "n", path: "n.csv")
        let wrong = fields.enumerated().filter { i, field in
            updates.speeds[.init(from: Int64(2 * i), to: Int64(2 * i + 1))]?.kmh != Double(field)
        }
        #expect(wrong.isEmpty, "\(wrong.prefix(5))")
    }

    /// A customized map is customized from the map as built only, and needs node ids.
    @Test func customizingTwiceIsRefused() throws {
        var updates = SpeedUpdates()
        try updates.addSegmentSpeeds("98,99,5\n", name: "s", path: "s.csv")
        let (once, _) = try Self.loop.graph().customized(with: updates)
        #expect(throws: SpeedFileError.self) { try once.customized(with: updates) }
        #expect(throws: SpeedFileError.self) { try randomGraph(seed: 1).customized(with: updates) }
    }

    /// Property: on random graphs with random new speeds (closures among them) and turn
    /// penalties, routes by every method weigh what the independent oracle finds on the
    /// customized graph, and the customized map survives a graph file.
    @Test(arguments: [41, 42, 43]) func customizedRoutesAreShortest(seed: Int) throws {
        let g = randomGraph(seed: UInt64(seed), nodes: 40, ways: 80, keepsNodeIDs: true)
        var rng = SplitMix64(seed: UInt64(seed) * 7)
        var speeds = "", turns = ""
        for e in 0..<g.edgeCount where rng.next() % 4 == 0 {
            let k = Int(rng.next() % UInt64(g.interiorPointCount(of: e) + 1))
            let kmh = rng.next() % 12 == 0 ? 0 : 5 + rng.next() % 90
            let rate = ["", ",", ",\(1 + rng.next() % 20)"][Int(rng.next() % 3)]
            speeds += "\(g.nodeID(ofEdge: e, point: k)),\(g.nodeID(ofEdge: e, point: k + 1)),\(kmh)\(rate)\n"
        }
        for e in 0..<g.edgeCount where rng.next() % 5 == 0 {
            let n = g.interiorPointCount(of: e), v = g.edgeTarget[e]
            for f in g.edges(from: v) where rng.next() % 2 == 0 {
                turns += "\(g.nodeID(ofEdge: e, point: n)),\(g.vertexNodeIDs[Int(v)]),"
                    + "\(g.nodeID(ofEdge: f, point: 1)),\(rng.next() % 60)\n"
            }
        }
        var updates = SpeedUpdates()
        try updates.addSegmentSpeeds(speeds, name: "s", path: "s.csv")
        try updates.addTurnPenalties(turns, path: "t.csv")
        let (c, report) = try g.customized(with: updates)
        #expect(report.edgesUpdated > 10 && report.edgesClosed > 0 && report.turnsUpdated > 5, "\(report)")
        try GraphFile.checkStorable(c, path: "customized")
        let path = NSTemporaryDirectory() + "customized-\(UUID().uuidString).wmg"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let hierarchy = RoadMap(graph: c, method: .hierarchy, maxSnapDistance: 5000)
        try hierarchy.write(to: path)
        let stored = try RoadMap(graphFile: path, maxSnapDistance: 5000)
        #expect(stored.graph == c)
        let index = SnapIndex(graph: c), costs = TurnCosts(for: c)
        let maps = [RoadMap.SearchMethod.hierarchy, .aStar].map { RoadMap(graph: c, method: $0, maxSnapDistance: 5000) }
            + [stored]
        let points = randomCoordinates(20, seed: UInt64(seed))
        var compared = 0
        for (a, b) in zip(points, points.dropFirst()) {
            guard let from = index.nearest(to: a, maxDistance: 5000), let to = index.nearest(to: b, maxDistance: 5000),
                  let expected = oracle(c, index, from, to, costs) else { continue }
            for map in maps {
                guard let got = try? map.route(from: a, to: b), got.waypoints == [from, to] else { continue }
                #expect(abs(got.weight - expected) <= 1e-3 * max(1, expected),
                        "seed \(seed) \(map.method): \(got.weight) against \(expected)")
                compared += 1
            }
        }
        #expect(compared >= 20)
    }
}

extension CustomizationTests {
    /// New speeds that close no road keep the roads' shapes: the customized map keeps the snap
    /// index and guidance's tables it was made from (the turn verdicts too: turn penalties, on
    /// U-turns as well, allow and forbid the same turns), and they are what the customized
    /// graph's own would be.
    @Test func openRoadsKeepTheTablesOfTheirShapes() throws {
        let osm = packageRoot() + "/Data/sample-town.osm"
        let (graph, _) = try OSMGraphLoader.build(path: osm, profile: CarProfile(), basemap: false, progress: nil)
        let built = RoadMap(graph: graph, method: .hierarchy)
        built.prepare()
        // Every stretch of the first ways at 7 km/h (none closed), and a penalty on turning back at
        // each one's end.
        var lines = "", turns = ""
        for e in 0..<min(40, graph.edgeCount) {
            let n = graph.interiorPointCount(of: e), v = graph.source(of: e)
            for k in 0...n {
                let from = graph.nodeID(ofEdge: e, point: k, source: v)
                let to = graph.nodeID(ofEdge: e, point: k + 1, source: v)
                lines += "\(from),\(to),7\n"
                if k == n { turns += "\(from),\(to),\(from),30\n" }
            }
        }
        var updates = SpeedUpdates()
        try updates.addSegmentSpeeds(lines, name: "speeds", path: "speeds.csv")
        try updates.addTurnPenalties(turns, path: "turns.csv")
        let (customized, report) = try built.customized(with: updates)
        #expect(report.edgesUpdated > 20 && report.edgesClosed == 0 && report.turnsUpdated > 20)
        let fresh = RoadMap(graph: customized.graph, method: .hierarchy)
        fresh.prepare()
        let directory = NSTemporaryDirectory() + "open-roads-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try customized.write(to: directory + "/kept.wmg")
        try fresh.write(to: directory + "/made.wmg")
        let kept = try GraphFile.readWithExtras(path: directory + "/kept.wmg").extra
        let made = try GraphFile.readWithExtras(path: directory + "/made.wmg").extra
        for tag in SnapIndex.sectionTags + GuidanceTables.sectionTags {
            #expect(kept.section(tag)?.bytes == made.section(tag)?.bytes, "\(tag)")
        }
    }
}
