import Foundation
import Testing
import WaymarkGraph
import WaymarkProfiles
import WaymarkSupport
@testable import WaymarkOSM

/// Small hand-written OSM files, one profile rule each.
///
/// The base map is a row of nodes 1–5 along a parallel, 100 m apart (at latitude 52), plus node 6
/// north of node 3. Tests add ways and tags.
enum Snippet {
    static func node(_ id: Int, _ lat: Double, _ lon: Double, _ tags: [String: String] = [:]) -> String {
        let t = tags.sorted { $0.key < $1.key }.map { "<tag k=\"\($0.key)\" v=\"\($0.value)\"/>" }.joined()
        return t.isEmpty
            ? "<node id=\"\(id)\" lat=\"\(lat)\" lon=\"\(lon)\"/>"
            : "<node id=\"\(id)\" lat=\"\(lat)\" lon=\"\(lon)\">\(t)</node>"
    }

    static func way(_ id: Int, _ nodes: [Int], _ tags: [String: String]) -> String {
        let nds = nodes.map { "<nd ref=\"\($0)\"/>" }.joined()
        let t = tags.sorted { $0.key < $1.key }.map { "<tag k=\"\($0.key)\" v=\"\($0.value)\"/>" }.joined()
        return "<way id=\"\(id)\">\(nds)\(t)</way>"
    }

    static let baseNodes = (1...5).map { node($0, 52.0,
                                              13.0 + Double($0 - 1) * 0.00146) } + [node(6, 52.0009, 13.00292)]

    static func osm(_ elements: [String], nodes: [String] = baseNodes) -> String {
        "<?xml version=\"1.0\"?>\n<osm version=\"0.6\">\n<bounds minlat=\"0\" minlon=\"0\" maxlat=\"1\" "
            + "maxlon=\"1\"/>\n"
            + (nodes + elements).joined(separator: "\n") + "\n</osm>\n"
    }

    static func build(_ elements: [String], nodes: [String] = baseNodes) throws -> RoadGraph {
        try OSMGraphLoader.build(xml: osm(elements, nodes: nodes))
    }
}

extension RoadGraph {
    /// Directed edges as (from, to) coordinate pairs rounded to 5 decimals of longitude, for readable checks.
    var arcs: Set<String> {
        var result: Set<String> = []
        for v in 0..<UInt32(nodeCount) {
            for e in edges(from: v) {
                let a = coordinate(of: v).longitude, b = coordinate(of: edgeTarget[e]).longitude
                result.insert(String(format: "%.5f>%.5f", a, b))
            }
        }
        return result
    }
}

@Suite struct OSMSnippetTests {
    /// Found comparing the PBF and XML graphs of a tiled Porto: libxml2 hands an ampersand over as
    /// `&#38;`, so "Urabanização Crapts &amp; Chapts" was named "… &#38; Chapts". Every spelling of
    /// every reference now reads as the character; a literal "&#38;" stays.
    @Test func entitiesInNamesAreDecoded() throws {
        let name = "A &amp; B &lt;C&gt; &quot;D&quot; &apos;E&apos; &#60;F&#62; &#38;G &#x26;H &amp;#38;I"
        let graph = try Snippet.build([Snippet.way(10, [1, 2], ["highway": "residential", "name": name])])
        #expect(graph.name(of: 0) == "A & B <C> \"D\" 'E' <F> &G &H &#38;I")
    }

    @Test func twoWayStreetSplitsAtSharedNodes() throws {
        let g = try Snippet.build([Snippet.way(1, [1, 2, 3, 4, 5], ["highway": "residential", "name": "Long Street"]),
                                   Snippet.way(2, [3, 6], ["highway": "residential"])])
        // Vertices: 1, 3 (shared), 5, 6. Segments 1–3, 3–5, 3–6, each both ways.
        #expect(g.nodeCount == 4 && g.segmentCount == 3 && g.edgeCount == 6)
        #expect(g.report.osmNodes == 6 && g.report.osmWays == 2 && g.report.routableWays == 2)
        let e = try #require((0..<g.edgeCount).first { g.name(of: $0) == "Long Street" })
        #expect(abs(Double(g.edgeLength[e]) - 200) < 2) // two 100 m stretches
        #expect(g.geometry(of: e).count == 3)
    }

    @Test func onewayAndReversedOneway() throws {
        let forward = try Snippet.build([Snippet.way(1, [1, 2, 3], ["highway": "residential", "oneway": "yes"])])
        #expect(forward.arcs == ["13.00000>13.00292"])
        let backward = try Snippet.build([Snippet.way(1, [1, 2, 3], ["highway": "residential", "oneway": "-1"])])
        #expect(backward.arcs == ["13.00292>13.00000"])
        let implied = try Snippet.build([Snippet.way(1, [1, 2, 3], ["highway": "motorway"])])
        #expect(implied.arcs == ["13.00000>13.00292"])
        #expect(implied.flags(of: 0).contains(.oneway))
    }

    /// A private road is in the graph for local traffic (restricted, both ways), as in OSRM; a
    /// road closed to all (`access=no`) is not.
    @Test func privateRoadIsForLocalTrafficOnly() throws {
        let g = try Snippet.build([Snippet.way(1, [1, 2, 3], ["highway": "residential"]),
                                   Snippet.way(2, [3, 4, 5], ["highway": "service", "access": "private"])])
        #expect(g.report.routableWays == 2)
        #expect(g.arcs == ["13.00000>13.00292", "13.00292>13.00000", "13.00292>13.00584", "13.00584>13.00292"])
        let drive = try #require((0..<g.edgeCount).first { g.highway(of: $0) == .service })
        #expect(g.flags(of: drive).contains([.restrictedAccess, .notStartpoint]))
        let closed = try Snippet.build([Snippet.way(1, [1, 2, 3], ["highway": "residential"]),
                                        Snippet.way(2, [3, 4, 5], ["highway": "service", "access": "no"])])
        #expect(closed.report.routableWays == 1)
    }

    /// A gate opens at a minute's delay (OSRM's barrier penalty); a gate closed to all and a
    /// bollard cut the way; an open gate and a cattle grid cost nothing.
    @Test func barriersCutOrDelay() throws {
        func build(_ tags: [String: String]) throws -> RoadGraph {
            let nodes = Snippet.baseNodes.enumerated().map { i, n in i == 2 ? Snippet.node(3, 52.0, 13.00292, tags) : n
            }
            return try Snippet.build([Snippet.way(1, [1, 2, 3, 4, 5], ["highway": "unclassified"])], nodes: nodes)
        }
        let free = try build([:])
        let travel = Double(free.edgeDuration[0])
        let gate = try build(["barrier": "gate"])
        #expect(gate.report.barrierCuts == 0 && gate.nodeCount == 2)
        #expect(
            abs(Double(gate.edgeDuration[0]) - travel - 60) < 1e-3
                && abs(Double(gate.edgeWeight[0]) - travel - 60) < 1e-3)
        for tags in [["barrier": "gate", "access": "no"], ["barrier": "bollard"]] {
            // Two pieces that meet at the barrier only by coordinate: 1–barrier and barrier–5, disconnected.
            let cut = try build(tags)
            #expect(
                cut.report.barrierCuts == 1 && cut.nodeCount == 4 && cut.edgeCount == 4
                    && cut.report.largestComponentNodes == 2, "\(tags)")
        }
        for tags in [["barrier": "gate", "access": "yes"], ["barrier": "cattle_grid"]] {
            let open = try build(tags)
            #expect(open.report.barrierCuts == 0 && abs(Double(open.edgeDuration[0]) - travel) < 1e-3, "\(tags)")
        }
        // A gate at a junction: passing it costs the minute at the turn (a vertex flag).
        let junction = Snippet.baseNodes.enumerated().map { i, n in i == 2 ? Snippet.node(3, 52.0,
            13.00292, ["barrier": "gate"]) : n }
        let j = try Snippet.build([Snippet.way(1, [1, 2, 3, 4, 5], ["highway": "unclassified"]),
                                   Snippet.way(2, [3, 6], ["highway": "residential"])],
                                  nodes: junction)
        #expect((0..<UInt32(j.nodeCount)).contains { j.nodeFlags[Int($0)] & RoadGraph.gateFlag != 0 })
    }

    /// Rate penalties change the weight, not the travel time.
    @Test func penaltiesWeighNotTime() throws {
        let g = try Snippet.build([Snippet.way(1, [1, 2, 3], ["highway": "service", "service": "parking_aisle"]),
                                   Snippet.way(2, [3, 4, 5], ["highway": "service"])])
        for e in 0..<g.edgeCount {
            let aisle = g.segmentWayID[g.segment(of: e)] == 1
            #expect(abs(Double(g.edgeWeight[e]) - Double(g.edgeDuration[e]) * (aisle ? 2 : 1)) < 1e-3)
            #expect(abs(Double(g.edgeLength[e]) / Double(g.edgeDuration[e]) * 3.6 - 15) < 1e-3)
        }
    }

    /// Ferries take cars unless access says otherwise (as OSRM): at their `duration`, else at 5 km/h.
    @Test func ferryWithDuration() throws {
        let g = try Snippet.build([Snippet.way(1, [1, 2], ["highway": "residential"]),
                                   Snippet.way(2, [2, 3, 4], ["route": "ferry", "duration": "00:10"]),
                                   Snippet.way(3, [4, 5], ["highway": "residential"]),
                                   Snippet.way(4, [1, 6], ["route": "ferry", "foot": "yes"]),
                                   Snippet.way(5, [5, 6], ["route": "ferry", "motor_vehicle": "no"])])
        #expect(g.report.routableWays == 4)
        let timed = (0..<g.edgeCount).filter { g.segmentWayID[g.segment(of: $0)] == 2 }
        #expect(timed.count == 2)
        for e in timed {
            #expect(
                abs(Double(g.edgeDuration[e]) - 600) < 1e-3 && g.highway(of: e) == .ferry
                    && g.flags(of: e).contains(.ferry))
        }
        let plain = (0..<g.edgeCount).filter { g.segmentWayID[g.segment(of: $0)] == 4 }
        for e in plain { #expect(abs(Double(g.edgeLength[e]) / Double(g.edgeDuration[e]) * 3.6 - 5) < 1e-3) }
    }

    /// Ways over the same nodes give one edge per direction, as in OSRM: the least weight, then the
    /// smallest name, a named way before an unnamed one.
    @Test func overlappingWaysKeepOneEdgeWithTheSmallestName() throws {
        let g = try Snippet.build([Snippet.way(1, [1, 2], ["highway": "residential", "name": "B Street"]),
                                   Snippet.way(2, [1, 2], ["highway": "residential", "name": "A Street"]),
                                   Snippet.way(3, [2, 1], ["highway": "residential"])])
        #expect(g.edgeCount == 2)
        #expect((0..<g.edgeCount).allSatisfy { g.name(of: $0) == "A Street" })
        // A faster way wins over a smaller name; a different shape is a different road.
        let fast = try Snippet.build([Snippet.way(1, [1, 2], ["highway": "residential", "name": "A Street"]),
                                      Snippet.way(2, [1, 2], ["highway": "primary", "name": "Z Road"])])
        #expect(fast.edgeCount == 2 && (0..<fast.edgeCount).allSatisfy { fast.name(of: $0) == "Z Road" })
        let shapes = try Snippet.build([Snippet.way(1, [1, 2, 3], ["highway": "residential", "name": "A Street"]),
                                        Snippet.way(2, [1, 6, 3], ["highway": "residential", "name": "B Street"])])
        #expect(shapes.edgeCount == 4)
        // Duplicates found among a vertex's other edges: two pairs of ways over 2–1 and 2–3, in
        // between a single way to 4; the faster of each pair stays, the other edges are untouched.
        let mixed = try Snippet.build([Snippet.way(1, [2, 1], ["highway": "residential", "name": "A Street"]),
                                       Snippet.way(2, [2, 3], ["highway": "residential", "name": "B Street"]),
                                       Snippet.way(3, [2, 4], ["highway": "residential", "name": "C Street"]),
                                       Snippet.way(4, [1, 2], ["highway": "primary", "name": "D Road"]),
                                       Snippet.way(5, [3, 2], ["highway": "residential", "name": "A Street"])])
        #expect(mixed.edgeCount == 6)
        let names = Set((0..<mixed.edgeCount).map { mixed.name(of: $0) })
        #expect(names == ["A Street", "C Street", "D Road"])
    }

    @Test func maxspeedVariantsSetDurations() throws {
        let g = try Snippet.build([
            Snippet.way(1, [1, 2], ["highway": "primary", "maxspeed": "50"]),
            Snippet.way(2, [2, 3], ["highway": "primary", "maxspeed": "30 mph"]),
            Snippet.way(3, [3, 4], ["highway": "primary", "maxspeed": "DE:urban"]),
            Snippet.way(4, [4, 5], ["highway": "primary", "maxspeed:forward": "100", "maxspeed:backward": "50"]),
        ])
        func speed(_ fromLon: Double, _ toLon: Double) throws -> Double {
            for v in 0..<UInt32(g.nodeCount) where abs(g.coordinate(of: v).longitude - fromLon) < 1e-6 {
                for e in g.edges(from: v) where abs(g.coordinate(of: g.edgeTarget[e]).longitude - toLon) < 1e-6 {
                    return Double(g.edgeLength[e]) / Double(g.edgeDuration[e]) * 3.6
                }
            }
            throw CocoaError(.featureUnsupported)
        }
        #expect(abs(try speed(13.0, 13.00146) - 40) < 1e-3)
        #expect(abs(try speed(13.00146, 13.00292) - 30 * 1.609 * 0.8) < 1e-3)
        #expect(abs(try speed(13.00292, 13.00438) - 40) < 1e-3)
        #expect(abs(try speed(13.00438, 13.00584) - 80) < 1e-3)
        #expect(abs(try speed(13.00584, 13.00438) - 40) < 1e-3)
    }

    @Test func restrictionRelationIsKept() throws {
        let g = try Snippet.build([
            Snippet.way(1, [1, 2, 3], ["highway": "residential"]),
            Snippet.way(2, [3, 4, 5], ["highway": "residential"]),
            Snippet.way(3, [3, 6], ["highway": "residential"]),
            "<relation id=\"9\"><member type=\"way\" ref=\"1\" role=\"from\"/><member type=\"node\" ref=\"3\" "
                + "role=\"via\"/><member type=\"way\" ref=\"3\" role=\"to\"/><tag k=\"type\" v=\"restriction\"/><tag "
                + "k=\"restriction\" v=\"no_left_turn\"/></relation>",
            "<relation id=\"10\"><member type=\"way\" ref=\"1\" role=\"from\"/><member type=\"way\" ref=\"2\" "
                + "role=\"via\"/><member type=\"way\" ref=\"3\" role=\"to\"/><tag k=\"type\" v=\"restriction\"/><tag "
                + "k=\"restriction\" v=\"no_u_turn\"/></relation>",
            "<relation id=\"11\"><member type=\"way\" ref=\"1\" role=\"from\"/><member type=\"node\" ref=\"3\" "
                + "role=\"via\"/><member type=\"way\" ref=\"2\" role=\"to\"/><tag k=\"type\" v=\"restriction\"/><tag "
                + "k=\"restriction:hgv\" v=\"no_straight_on\"/></relation>"
        ])
        #expect(g.report.osmRelations == 3)
        #expect(g.report.restrictionsRead == 2) // the hgv-only one is not for cars
        #expect(g.report.restrictionsKept == 1 && g.report.restrictionsDropped == 1)
        #expect(g.restrictionKind == [RestrictionKind.prohibitive.rawValue])
        let via = g.restrictionVia[0]
        #expect(abs(g.coordinate(of: via).longitude - 13.00292) < 1e-9)
        #expect(g.segmentWayID[Int(g.restrictionFrom[0])] == 1 && g.segmentWayID[Int(g.restrictionTo[0])] == 3)
    }

    @Test func missingNodeReferenceLosesOnlyItsStretches() throws {
        let g = try Snippet.build([Snippet.way(1, [1, 2, 99, 4, 5], ["highway": "residential"])])
        #expect(g.report.droppedSegmentsMissingNodes == 2)
        #expect(g.report.waysWithMissingNodes == 1)
        #expect(g.segmentCount == 2 && g.edgeCount == 4)
    }

    @Test func unsortedNodeIDsAndLargeIDs() throws {
        let nodes = [Snippet.node(9_000_000_000_1, 52.0, 13.0), Snippet.node(5, 52.0, 13.001),
                     Snippet.node(-3, 52.0, 13.002)]
        let g = try Snippet.build([Snippet.way(1, [9_000_000_000_1, 5, -3], ["highway": "residential"])], nodes: nodes)
        #expect(g.nodeCount == 2 && g.edgeCount == 2 && g.report.droppedSegmentsMissingNodes == 0)
        #expect(abs(Double(g.edgeLength[0]) - 136.6) < 1)
    }

    /// Way references are found among the nodes' ids through a directory of id ranges: sparse
    /// ids spread over a wide range (negative too), some references to nodes the file lacks.
    @Test(arguments: [1, 7, 42] as [UInt64]) func wayReferencesFindTheirNodes(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        var ids = Set<Int>()
        while ids.count < 300 { ids.insert(Int(Int64(bitPattern: rng.next()) >> Int64(rng.next() % 40 + 20))) }
        let present = Array(ids)
        // A way through 120 of them in a row along the parallel, with a few ids no node has.
        var refs: [Int] = [], missing = Set<Int>()
        for id in present.prefix(120) {
            refs.append(id)
            if rng.next() % 8 == 0 {
                var absent = Int(Int64(bitPattern: rng.next()) >> 24)
                while ids.contains(absent) { absent += 1 }
                refs.append(absent)
                missing.insert(absent)
            }
        }
        let nodes = present.enumerated().map { Snippet.node($1, 52.0, 13.0 + Double($0) * 0.0005) }
        let g = try Snippet.build([Snippet.way(1, refs, ["highway": "residential"])], nodes: nodes)
        let lost = zip(refs, refs.dropFirst()).filter { missing.contains($0.0) || missing.contains($0.1) }.count
        #expect(g.report.droppedSegmentsMissingNodes == lost)
        #expect(g.report.waysWithMissingNodes == (missing.isEmpty ? 0 : 1))
        // Each run of present nodes is a road, both ways, between its first and last node.
        var runs: [[Int]] = [[]]
        for id in refs {
            if missing.contains(id) { runs.append([]) } else { runs[runs.count - 1].append(id) }
        }
        runs = runs.filter { $0.count >= 2 }
        #expect(g.edgeCount == 2 * runs.count)
        let lon = Dictionary(uniqueKeysWithValues: present.enumerated().map { ($1, 13.0 + Double($0) * 0.0005) })
        let arcs = g.arcs
        for run in runs {
            #expect(arcs.contains(String(format: "%.5f>%.5f", lon[run.first!]!, lon[run.last!]!)))
        }
    }

    @Test func malformedXMLNamesTheLine() {
        let broken =
            "<?xml version=\"1.0\"?>\n<osm>\n<node id=\"1\" lat=\"1\" lon=\"1\">\n<tag k=\"a\" "
                + "v=\"b\">\n</node>\n</osm>\n"
        do {
            _ = try OSMGraphLoader.build(xml: broken)
            Issue.record("accepted malformed XML")
        } catch {
            guard case let .xml(function, path, line, message) = error else { Issue.record("\(error)"); return }
            #expect(function == "xmlParseDocument" && path == "<xml>" && line == 5)
            #expect(message.contains("mismatch"), "\(message)")
            #expect(error.description.hasPrefix("<xml>:5: malformed XML (xmlParseDocument):"))
        }
    }

    @Test func badCoordinatesAreErrors() {
        #expect(throws: OSMReadError.invalidAttribute(path: "<xml>", line: 5, element: "node",
                                                      attribute: "lat", value: "95.0")) {
            try Snippet.build([], nodes: [Snippet.node(1, 52, 13), Snippet.node(2, 95, 13)])
        }
        #expect(throws: OSMReadError.invalidAttribute(path: "<xml>", line: 5, element: "node",
                                                      attribute: "lon", value: "abc")) {
            try Snippet.build([], nodes: [Snippet.node(1, 52, 13), "<node id=\"2\" lat=\"1\" lon=\"abc\"/>"])
        }
        #expect(throws: OSMReadError.invalidAttribute(path: "<xml>", line: 5, element: "node",
                                                      attribute: "lat", value: "")) {
            try Snippet.build([], nodes: [Snippet.node(1, 52, 13), "<node id=\"2\" lon=\"1\"/>"])
        }
        #expect(throws: OSMReadError.cannotOpen(path: "/nonexistent/x.osm", reason: "No such file or directory")) {
            try OSMGraphLoader.build(path: "/nonexistent/x.osm")
        }
    }

    @Test func gzipInputReadsLikePlain() throws {
        let xml = Snippet.osm([Snippet.way(1, [1, 2, 3, 4, 5], ["highway": "residential"])])
        let directory = NSTemporaryDirectory() + "waymark-gz-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let plain = directory + "/map.osm"
        try xml.write(toFile: plain, atomically: true, encoding: .utf8)
        let gzip = Process()
        gzip.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        gzip.arguments = ["gzip", "-k", plain]
        try gzip.run()
        gzip.waitUntilExit()
        var a = try OSMGraphLoader.build(path: plain), b = try OSMGraphLoader.build(path: plain + ".gz")
        a.report.buildSeconds = 0; b.report.buildSeconds = 0
        a.report.inputBytes = 0; b.report.inputBytes = 0
        #expect(a == b)
        // A truncated .gz is a read error, not a silent partial map.
        let bytes = try Data(contentsOf: URL(fileURLWithPath: plain + ".gz"))
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: directory + "/cut.osm.gz"))
        #expect(throws: OSMReadError.self) { try OSMGraphLoader.build(path: directory + "/cut.osm.gz") }
    }

    @Test func parsesFixedPointExactly() {
        func fixed(_ s: String) -> Int32? { Array(s.utf8).withUnsafeBufferPointer { parseFixed($0) } }
        #expect(fixed("52.5146732") == 525_146_732)
        #expect(fixed("-8.6110394") == -86_110_394)
        #expect(fixed("13.4") == 134_000_000)
        #expect(fixed("1.23456785") == 12_345_679)
        #expect(fixed("-180") == -1_800_000_000)
        #expect(fixed(".5") == 5_000_000)
        #expect(
            fixed("") == nil && fixed("-") == nil && fixed("1e5") == nil && fixed("12345") == nil
                && fixed("1.2.3") == nil)
    }
}

@Suite struct GzipInputTests {
    /// A parse that fails early leaves no inflating thread behind: the input is released.
    @Test func failedParseReleasesTheInput() throws {
        let directory = NSTemporaryDirectory() + "waymark-gzin-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Big enough to fill every buffer of the pool before the parser gives up on line 3.
        let path = directory + "/bad.osm"
        let filler = String(
            repeating: "<!-- padding padding padding padding padding padding padding -->\n", count: 60_000)
        try
            ("<osm>\n<node id=\"1\" lat=\"1\" lon=\"1\"/>\n<node id=\"2\" lat=\"x\" "
                + "lon=\"1\"/>\n" + filler + "</osm>\n")
            .write(toFile: path, atomically: true, encoding: .utf8)
        weak var released: GzipInput?
        do {
            let input = try GzipInput(path: path)
            released = input
            defer { input.close() }
            let decoder = OSMElementDecoder(sink: NullSink(), wantedKeys: [])
            #expect(throws: OSMReadError.self) { try LibXML2Parser.parse(input, into: decoder) }
        }
        // The thread lets go of its closure just after close() returns: allow it a moment.
        for _ in 0..<100 where released != nil { usleep(10_000) }
        #expect(released == nil)
        // The loader closes its input on the error path, so nothing is left holding it.
        weak var loaderInput: GzipInput?
        do {
            let input = try GzipInput(path: path)
            loaderInput = input
            #expect(throws: OSMReadError.invalidAttribute(path: path, line: 3, element: "node",
                                                          attribute: "lat", value: "x")) {
                try OSMGraphLoader.build(input: input, profile: CarProfile(), progress: nil)
            }
        }
        for _ in 0..<100 where loaderInput != nil { usleep(10_000) }
        #expect(loaderInput == nil, "the loader left its input (and inflating thread) behind")
    }
}

private final class NullSink: OSMElementSink {
    func node(id: Int64, latitude: Int32, longitude: Int32, tags: [String: String]) {}
    func way(id: Int64, nodes: [Int64], tags: [String: String]) {}
    func relation(id: Int64, members: [OSMMember], tags: [String: String]) {}
}

/// Damaged input never crashes the reader: cut the sample town at random places, splice in
/// garbage bytes, and every build either succeeds or throws an OSMReadError (fixed seed).
@Suite struct DamagedInputTests {
    @Test func truncatedAndGarbledFilesFailCleanly() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let original = try Data(contentsOf: root.appendingPathComponent("Data/sample-town.osm"))
        var state: UInt64 = 99
        func next() -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(state >> 33)
        }
        let directory = NSTemporaryDirectory() + "waymark-damaged-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var failures = 0
        for trial in 0..<24 {
            var bytes = [UInt8](original)
            if trial % 2 == 0 {
                bytes = Array(bytes.prefix(next() % bytes.count))            // cut short
            } else {
                let at = next() % bytes.count
                let junk = (0..<(1 + next() % 40)).map { _ in UInt8(next() % 256) }
                bytes.replaceSubrange(at..<min(bytes.count, at + junk.count), with: junk)
            }
            let path = directory + "/damaged-\(trial).osm"
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            do {
                let graph = try OSMGraphLoader.build(path: path)
                #expect(graph.nodeCount <= 2529)
            } catch {
                failures += 1
                #expect(!error.description.isEmpty)
            }
        }
        #expect(failures >= 12, "most damaged files must be rejected, \(failures) were")
    }
}
