import Foundation
import Testing
@testable import WaymarkGraph
import WaymarkProfiles
import WaymarkSupport

/// A small graph built by hand: a square A-B-C-D with a oneway diagonal A→C and a restriction.
func squareGraph() -> RoadGraph {
    var b = GraphBuilder(profile: CarProfile())
    let points: [(Double, Double)] = [(52.0, 13.0), (52.0, 13.001), (52.001, 13.001),
                                      (52.001, 13.0), (52.0005, 13.0005)]
    b.latitudes = points.map { FixedPoint.encode($0.0) }
    b.longitudes = points.map { FixedPoint.encode($0.1) }
    let street = CarProfile().way(["highway": "residential", "name": "Ring, the"])!
    let oneway = CarProfile().way(["highway": "residential", "oneway": "yes", "name": "Diagonal"])!
    b.ways = [GraphBuilder.Way(nodes: [0, 1, 2], rule: street, id: 10),
              GraphBuilder.Way(nodes: [2, 3, 0], rule: street, id: 11),
              GraphBuilder.Way(nodes: [0, 4, 2], rule: oneway, id: 12)]
    b.restrictions = [GraphBuilder.Restriction(fromWay: 12, via: 2, toWay: 10, kind: .prohibitive)]
    return b.build()
}

@Suite struct GraphBuilderTests {
    @Test func buildsRowsBothWays() throws {
        let g = squareGraph()
        // Vertices: 0 and 2 (junctions and ends); 1, 3, 4 are shape points.
        #expect(g.nodeCount == 2)
        #expect(g.segmentCount == 3)
        #expect(g.edgeCount == 5) // two two-way segments, one oneway
        #expect(g.report.largestComponentNodes == 2)
        for v in 0..<UInt32(g.nodeCount) {
            for e in g.edges(from: v) {
                #expect(g.source(of: e) == v)
                // Each edge appears once among its target's incoming slots, with the right source.
                let slots = g.incoming(to: g.edgeTarget[e]).filter { Int(g.incomingEdge[$0]) == e }
                #expect(slots.count == 1 && g.incomingSource[slots[0]] == v)
                let shape = g.geometry(of: e)
                #expect(
                    shape.count == 3 && shape.first == g.coordinate(of: v)
                        && shape.last == g.coordinate(of: g.edgeTarget[e]))
                #expect(g.edgeLength[e] > 100 && g.edgeLength[e] < 250)
                #expect(abs(Double(g.edgeDuration[e]) - Double(g.edgeLength[e]) / (25 / 3.6)) < 1e-3)
            }
        }
        #expect(
            g.restrictionVia.count == 1 && g.nodeFlags[Int(g.restrictionVia[0])] & RoadGraph.restrictionViaFlag != 0)
        #expect(g.strings.contains("Ring, the"))
    }

    @Test func missingNodesLoseOnlyTheirStretches() {
        var b = GraphBuilder(profile: CarProfile())
        b.latitudes = [0, 100, 200, 300].map { Int32($0) }
        b.longitudes = [0, 0, 0, 0]
        let rule = CarProfile().way(["highway": "residential"])!
        b.ways = [GraphBuilder.Way(nodes: [0, 1, GraphBuilder.missing, 2, 3], rule: rule, id: 1)]
        let g = b.build()
        #expect(g.report.droppedSegmentsMissingNodes == 2)
        #expect(g.report.waysWithMissingNodes == 1)
        #expect(g.segmentCount == 2)
        #expect(g.edgeCount == 4)
    }

    /// The walk over the ways runs in parts side by side; joined, they must give the graph one
    /// walk gives: random ways over shared nodes, with repeated and missing references,
    /// barriers, signals, gates, names, refs, signs, a ferry and restrictions.
    @Test(arguments: [1, 7, 42]) func theWalkInPartsMakesTheSameGraph(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var b = GraphBuilder(profile: CarProfile())
        let nodeCount = 400
        b.latitudes = (0..<nodeCount).map { _ in Int32.random(in: 520_000_000...520_200_000, using: &random) }
        b.longitudes = (0..<nodeCount).map { _ in Int32.random(in: 130_000_000...130_200_000, using: &random) }
        let profile = CarProfile()
        let tagSets: [[String: String]] = [
            ["highway": "residential", "name": "Ring"], ["highway": "primary", "ref": "A 1", "name": "High Street"],
            ["highway": "secondary", "oneway": "yes", "destination": "Ashby", "turn:lanes": "left|through"],
            ["highway": "tertiary", "name": "High Street", "destination:forward": "Kirby", "junction": "roundabout"],
            ["route": "ferry", "duration": "00:20"], ["highway": "service", "oneway": "-1", "ref": "B 2"],
            ["highway": "motorway", "ref": "M 5", "exit_to": "Ashby"], ["highway": "unclassified"],
        ]
        let rules = tagSets.map { profile.way($0)! }
        // Ways often start where the one before ended, so that restrictions can join them.
        var chained: [Bool] = []
        for id in 0..<120 {
            let count = Int.random(in: 2...9, using: &random)
            var nodes = (0..<count).map { _ in UInt32.random(in: 0..<UInt32(nodeCount), using: &random) }
            let chain = Bool.random(using: &random)
            if chain, let end = b.ways.last?.nodes.last { nodes[0] = end }
            chained.append(chain && !b.ways.isEmpty)
            if Int.random(in: 0..<10, using: &random) == 0 {
                nodes[Int.random(in: 1..<count, using: &random)] = GraphBuilder.missing
            }
            if Int.random(in: 0..<10, using: &random) == 0, let last = nodes.last { nodes.append(last) }
            b.ways.append(GraphBuilder.Way(nodes: nodes, rule: rules.randomElement(using: &random)!,
                                           id: Int64(1000 + id % 110)))
        }
        for node in UInt32(0)..<40 {
            b.nodeRules[node * 10] = [NodeRule(blocks: true), NodeRule(trafficSignals: true),
                                      NodeRule(barrierDelay: 60),
                                      NodeRule(turningPlace: true)][Int(node) % 4]
        }
        for w in 1..<b.ways.count - 1 where chained[w] {
            let (from, via, to) = (b.ways[w - 1], b.ways[w], b.ways[w + 1])
            b.restrictions.append(GraphBuilder.Restriction(fromWay: from.id, via: via.nodes[0],
                                                           toWay: via.id, kind: .prohibitive))
            if chained[w + 1] { b.restrictions.append(GraphBuilder.Restriction(fromWay: from.id, viaWays: [via.id],
                                                                               toWay: to.id, kind: .mandatory)) }
        }
        // A way of no length (two nodes in one place) and a road drawn twice.
        (b.latitudes[1], b.longitudes[1]) = (b.latitudes[2], b.longitudes[2])
        b.ways.insert(GraphBuilder.Way(nodes: [1, 2], rule: rules[0], id: 2000), at: 30)
        b.ways.insert(GraphBuilder.Way(nodes: [3, 4], rule: rules[1], id: 2001), at: 60)
        b.ways.insert(GraphBuilder.Way(nodes: [4, 3], rule: rules[7], id: 2002), at: 90)
        let whole = b.build(walkParts: 1)
        #expect(
            whole.segmentCount > 100 && whole.report.barrierCuts > 0 && whole.restrictionVia.count > 0
                && whole.restrictionPathKind.count > 0)
        #expect(
            whole.signRows.count > 5 && whole.shapeLatitudes.count > 0 && whole.report.droppedDegenerateSegments > 0)
        let vertex = { (node: Int) in
            (0..<UInt32(whole.nodeCount)).first {
                whole.latitudes[Int($0)] == b.latitudes[node] && whole.longitudes[Int($0)] == b.longitudes[node]
            }!
        }
        // the road drawn twice, once
        #expect(whole.edges(from: vertex(3)).filter { whole.edgeTarget[$0] == vertex(4) }.count == 1)
        for parts in [2, 3, 8, 200] { #expect(b.build(walkParts: parts) == whole, "in \(parts) parts") }
    }

    /// The counting sort behind the rows, cut into ranges on the cores: the numbers by key, those
    /// of one key in their own order, whatever the number of ranges (more ranges than numbers too).
    @Test(arguments: [3, 11, 2024]) func stableBucketsKeepEachKeysOrder(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        for (count, buckets) in [(0, 4), (5, 1), (1000, 37), (5000, 4000)] {
            let keys = (0..<count).map { _ in Int.random(in: 0..<buckets, using: &random) }
            let expected = keys.indices.sorted { (keys[$0], $0) < (keys[$1], $1) }.map(UInt32.init)
            var first = [UInt32](repeating: 0, count: buckets + 1)
            for b in 0..<buckets { first[b + 1] = first[b] + UInt32(keys.filter { $0 == b }.count) }
            for parts in [1, 2, 3, 7, 6000] {
                let sorted = GraphBuilder.stableBuckets(count: count, buckets: buckets, parts: parts) { keys[$0] }
                #expect(sorted.order == expected && sorted.first == first,
                        "\(count) numbers, \(buckets) keys, \(parts) parts")
            }
        }
    }
}

@Suite final class GraphFileTests {
    let directory: String = {
        let path = NSTemporaryDirectory() + "waymark-graph-\(UUID().uuidString)"
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    @Test func roundTrips() throws {
        let g = squareGraph()
        let path = directory + "/square.wmg"
        try GraphFile.write(g, to: path)
        #expect(try GraphFile.read(path: path) == g)
        // The driving side is stored; extra sections come back as written.
        var left = g
        left.drivingSide = .left
        try GraphFile.write(left, to: path, extra: [GraphFile.Section("XTRA", [UInt8(1), 2, 3])])
        let (read, extra) = try GraphFile.readWithExtras(path: path)
        #expect(read == left && read.drivingSide == .left && extra.tags == ["XTRA"] && extra["XTRA"] == [1, 2, 3])
        #expect(read != g)
        // Written section by section, the file is byte for byte what encode makes in memory.
        let extras = [GraphFile.Section("XTRA", [UInt8(1), 2, 3]),
                      GraphFile.Section("XTRB", [Double](repeating: 0.5, count: 37))]
        try GraphFile.write(left, to: path, extra: extras)
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: path))) == GraphFile.encode(left, extra: extras))
    }

    /// Sections made while the file is written go where they would have gone had they been at
    /// hand: the file is byte for byte what encode makes, also when they are not as many as
    /// announced (the others are then moved), and through a FIFO, which is written in order.
    @Test(arguments: [2, 0, 5]) func laterSectionsAreWrittenInTheirPlaces(announced: Int) throws {
        let g = squareGraph()
        let path = directory + "/later-\(announced).wmg"
        let extra = [GraphFile.Section("XTRA", [UInt8(1), 2, 3])]
        let later = [GraphFile.Section("LTR1", [Double](repeating: 0.25, count: 9)),
                     GraphFile.Section("LTR2", [UInt8(7)])]
        let expected = GraphFile.encode(g, extra: extra + later)
        try GraphFile.write(g, to: path, extra: extra, later: GraphFile.LaterSections(count: announced) { _ in later })
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: path))) == expected)
        // The first of them handed over early, from another thread, written while the rest are made.
        try GraphFile.write(g, to: path, extra: extra, later: GraphFile.LaterSections(count: announced) { early in
            nonisolated(unsafe) let (early, leading) = (early, Array(later.prefix(1)))
            let thread = Thread { early(leading) }
            thread.start()
            while !thread.isFinished { usleep(1000) }
            return later
        })
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: path))) == expected)
        #expect(try GraphFile.readWithExtras(path: path).extra.tags == ["LTR1", "LTR2", "XTRA"])
        // Handed over one by one, in order.
        try GraphFile.write(g, to: path, extra: extra, later: GraphFile.LaterSections(count: announced) { early in
            for section in later { early([section]) }
            return later
        })
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: path))) == expected)

        let fifo = directory + "/later-\(announced).pipe"
        #expect(mkfifo(fifo, 0o600) == 0)
        nonisolated(unsafe) var received = Data()
        let reader = Thread {
            if let handle = FileHandle(forReadingAtPath: fifo) { received = handle.readDataToEndOfFile() }
        }
        reader.start()
        try GraphFile.write(g, to: fifo, extra: extra, later: GraphFile.LaterSections(count: announced) { _ in later })
        while !reader.isFinished { usleep(1000) }
        #expect(Array(received) == expected)
    }

    /// The checksum over bytes given in pieces equals the checksum over them at once, however
    /// they are cut.
    @Test func streamingChecksum() {
        var state: UInt64 = 12345
        func next() -> UInt64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return state >> 33
        }
        for length in [0, 1, 31, 32, 33, 100, 1000] {
            let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: next()) }
            let whole = GraphFile.checksum(bytes, from: 0)
            for _ in 0..<20 {
                var sum = GraphFile.StreamingChecksum()
                var i = 0
                while i < length {
                    let n = min(length - i, Int(next() % 70))
                    bytes.withUnsafeBytes { sum.add(UnsafeRawBufferPointer(rebasing: $0[i..<(i + n)])) }
                    i += n
                }
                #expect(sum.value == whole, "length \(length)")
            }
        }
    }

    @Test func rejectsTruncatedCorruptAndForeignFiles() throws {
        let bytes = GraphFile.encode(squareGraph())
        func decode(_ b: [UInt8]) -> GraphFileError? {
            do { _ = try GraphFile.decode(Data(b), path: "g.wmg"); return nil } catch { return error }
        }
        #expect(decode(bytes) == nil)
        // Truncated anywhere: header, table, data.
        for cut in [4, 20, 100, bytes.count / 2, bytes.count - 1] {
            guard case .truncated? = decode(Array(bytes.prefix(cut))) else {
                Issue.record("cut at \(cut): \(String(describing: decode(Array(bytes.prefix(cut)))))"); continue
            }
        }
        // A flipped bit anywhere after the header.
        for position in [40, bytes.count / 3, bytes.count - 9] {
            var corrupt = bytes
            corrupt[position] ^= 0x10
            #expect(decode(corrupt) == .corrupt("g.wmg", "checksum mismatch"), "bit at \(position)")
        }
        var newer = bytes
        newer[8] = 9
        #expect(decode(newer) == .unsupportedVersion("g.wmg", found: 9, supported: GraphFile.version))
        #expect(decode(Array("<?xml version=\"1.0\"?><osm/>".utf8)) == .notAGraphFile("g.wmg"))
        #expect(decode([]) == .truncated("g.wmg", expected: 32, actual: 0))
        #expect(decode(bytes + [0, 0, 0, 0, 0, 0, 0, 0]) == .corrupt("g.wmg", "8 unexpected bytes after the end"))
        #expect(throws: GraphFileError.notFound(directory + "/none.wmg")) {
            try GraphFile.read(path: directory + "/none.wmg")
        }
        // The file is mapped: a FIFO is refused at once (not waited on), a directory said so, a
        // symbolic link followed.
        let fifo = directory + "/fifo.wmg", folder = directory + "/folder.wmg", file = directory + "/g.wmg",
            link = directory + "/link.wmg"
        #expect(mkfifo(fifo, 0o600) == 0)
        #expect(throws: GraphFileError.unreadable(fifo, "not a regular file")) { try GraphFile.read(path: fifo) }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        #expect(throws: GraphFileError.unreadable(folder, "a directory")) { try GraphFile.read(path: folder) }
        try GraphFile.write(squareGraph(), to: file)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: file)
        #expect(try GraphFile.read(path: link) == squareGraph())
        // Descriptions say what to do.
        #expect(
            GraphFileError.corrupt("g.wmg", "checksum mismatch").description.contains("rebuild it with 'waymark build'")
        )
    }

    /// A cycling graph keeps each way's mode per direction (the oneway pushed against its
    /// direction) through the file; a car graph, whose modes its ferry flags give, stores none; an
    /// unknown mode is refused.
    @Test func modesPerDirectionRoundTrip() throws {
        var b = GraphBuilder(profile: BicycleProfile())
        b.latitudes = [52.0, 52.0, 52.001].map { FixedPoint.encode($0) }
        b.longitudes = [13.0, 13.001, 13.001].map { FixedPoint.encode($0) }
        b.ways = [GraphBuilder.Way(nodes: [0, 1], rule: BicycleProfile().way(["highway": "residential",
                                                                                "oneway": "yes"])!, id: 1),
                  GraphBuilder.Way(nodes: [1, 2], rule: BicycleProfile().way(["highway": "steps"])!, id: 2)]
        var g = b.build()
        #expect(g.travel == .bicycle)
        let e = g.edges(from: 0).first!, pushed = g.edges(from: 1).first { g.edgeTarget[$0] == 0 }!
        #expect(g.mode(of: e) == .travel && g.mode(of: pushed) == .pushingBike && g.changesMode(e, pushed))
        let read = try GraphFile.decode(Data(GraphFile.encode(g)), path: "b.wmg")
        #expect(read == g && read.mode(of: pushed) == .pushingBike)
        #expect(squareGraph().segmentModes.isEmpty && squareGraph().mode(of: 0) == .travel)
        g.segmentModes[edit: 0] = 0x0F
        #expect(throws: GraphFileError.corrupt("b.wmg", "unknown travel mode")) {
            try GraphFile.decode(Data(GraphFile.encode(g)), path: "b.wmg")
        }
    }

    @Test func checksumStillCatchesAConsistentLookingEdit() throws {
        // An edge target pointing past the vertices, with the checksum recomputed: caught by validation.
        var g = squareGraph()
        g.edgeTarget[edit: 0] = 99
        let bytes = GraphFile.encode(g)
        #expect(throws: GraphFileError.corrupt("g.wmg", "edge target out of range")) {
            try GraphFile.decode(Data(bytes), path: "g.wmg")
        }
    }
}

/// Files whose checksum is right but whose contents are not (crafted, or written by a buggy
/// writer): every field is validated on load, so each is a clear error, not a trap, a hang or an
/// absurd allocation (issue 13, items 1 and 3).
@Suite struct CraftedGraphFileTests {
    func decode(_ g: RoadGraph) -> GraphFileError? {
        do {
            _ = try GraphFile.decode(Data(GraphFile.encode(g)), path: "x.wmg")
            return nil
        } catch {
            return error
        }
    }

    func reason(_ g: RoadGraph) -> String {
        guard case let .corrupt(_, reason) = decode(g) else { return "accepted" }
        return reason
    }

    /// Found by fuzzing: reverse rows that name the wrong edges (in range, checksum right) sent the
    /// hierarchy's backward search to a turn between edges that do not meet, out of range.
    @Test func incomingRowsMustMirrorTheEdges() throws {
        var g = squareGraph()
        // Two edges swapped between the rows of different vertices: every index still in range.
        let first = Int(g.incomingEdge[0])
        let other = try #require(
            g.incomingEdge.indices.first { g.edgeTarget[Int(g.incomingEdge[$0])] != g.edgeTarget[first] })
        var swapped = g.incomingEdge.array
        swapped.swapAt(0, other)
        g.incomingEdge = Column(swapped)
        #expect(reason(g).hasPrefix("incoming rows do not mirror"), "\(reason(g))")
        var sources = squareGraph()
        sources.incomingSource[edit: 0] = (sources.incomingSource[0] + 1) % UInt32(sources.nodeCount)
        #expect(reason(sources).hasPrefix("incoming rows do not mirror"))
        #expect(reason(squareGraph()) == "accepted")
    }

    @Test func buildReportValuesAreChecked() {
        // Before: Double → Int of NaN, ±∞ or 1e300 trapped while loading (SIGILL).
        let g = squareGraph()
        for bad in [Double.nan, .infinity, -.infinity, 1e300, -1, 2.5] {
            var fields = g.report.fields.map(\.1)
            fields[3] = bad
            // The report section rewritten in place and the checksum fixed, as a crafted file would be.
            let crafted = craft(GraphFile.encode(g), replacing: "REPT", with: fields)
            #expect(throws: GraphFileError.corrupt("x.wmg", "build report values out of range"), "\(bad)") {
                try GraphFile.decode(Data(crafted), path: "x.wmg")
            }
        }
    }

    @Test func valuesTheSearchesRelyOnAreChecked() {
        var negative = squareGraph()
        negative.edgeWeight[edit: 0] = -5 // an ALT search ran forever on a negative duration
        #expect(reason(negative).contains("not finite, negative or absurd"))
        var infinite = squareGraph()
        infinite.edgeDuration[edit: 1] = .infinity // the hierarchy's heap trapped on it
        #expect(reason(infinite).contains("not finite"))
        var offGlobe = squareGraph()
        offGlobe.latitudes[edit: 0] = 950_000_000
        #expect(reason(offGlobe).contains("coordinate out of range"))
        var swapped = squareGraph() // vertex coordinate sections swapped: routes allocated gigabytes
        (swapped.latitudes, swapped.longitudes) = (swapped.longitudes, swapped.latitudes)
        #expect(
            reason(swapped).contains("shorter than the distance between its ends")
                || reason(swapped).contains("farther away"))
        var shapes = squareGraph()
        (shapes.shapeLatitudes, shapes.shapeLongitudes) = (shapes.shapeLongitudes, shapes.shapeLatitudes)
        #expect(reason(shapes).contains("farther away than its length"))
        var kind = squareGraph()
        kind.restrictionKind[edit: 0] = 7
        #expect(reason(kind).contains("restriction kind"))
        #expect(decode(squareGraph()) == nil)
    }

    /// The section count is inside the checksum: lowering it (which silently dropped the last
    /// sections, such as the driving side) is caught.
    @Test func headerEditsAreCaught() throws {
        var bytes = GraphFile.encode(squareGraph())
        let count = bytes.withUnsafeBytes { GraphFile.get($0, 12) as UInt32 }
        GraphFile.put(count - 1, at: 12, in: &bytes)
        #expect(throws: GraphFileError.corrupt("x.wmg", "checksum mismatch")) {
            try GraphFile.decode(Data(bytes), path: "x.wmg")
        }
    }

    /// A version 1 file (checksum over the body only) still reads.
    /// Signs and lanes are kept per segment and direction, and stored in the file.
    @Test func signsAndLanesRoundTrip() throws {
        var b = GraphBuilder(profile: CarProfile())
        let points: [(Double, Double)] = [(41.0, -8.0), (41.0, -7.999), (41.001, -7.999)]
        b.latitudes = points.map { FixedPoint.encode($0.0) }
        b.longitudes = points.map { FixedPoint.encode($0.1) }
        let ramp = CarProfile().way(["highway": "motorway_link", "oneway": "yes", "destination": "Braga",
                                     "destination:ref": "A 3",
                                     "junction:ref": "12", "turn:lanes": "through|right"])!
        let street = CarProfile().way(["highway": "residential", "turn:lanes:backward": "left|through", "lanes": "3"])!
        b.ways = [GraphBuilder.Way(nodes: [0, 1], rule: ramp, id: 1),
                  GraphBuilder.Way(nodes: [1, 2], rule: street, id: 2)]
        let g = b.build()
        let rampEdge = try #require(g.edges(from: 0).first)
        #expect(
            g.destinations(of: rampEdge) == "A 3: Braga" && g.exits(of: rampEdge) == "12"
                && g.turnLanes(of: rampEdge) == "through|right")
        let up = try #require(g.edges(from: 1).first { g.edgeTarget[$0] == 2 }),
            down = try #require(g.edges(from: 2).first)
        #expect(
            g.turnLanes(of: up).isEmpty && g.turnLanes(of: down) == "left|through" && g.destinations(of: down).isEmpty)
        // Lane counts: the ramp's two turn lanes, the street's `lanes`.
        #expect(g.segmentLanes[g.segment(of: rampEdge)] == 2 && g.segmentLanes[g.segment(of: up)] == 3)
        #expect(try GraphFile.decode(Data(GraphFile.encode(g)), path: "s.wmg") == g)
    }

    @Test func versionOneFilesStillRead() throws {
        var bytes = GraphFile.encode(squareGraph())
        GraphFile.put(UInt32(1), at: 8, in: &bytes)
        GraphFile.put(GraphFile.checksum(bytes, from: 32), at: 24, in: &bytes)
        #expect(try GraphFile.decode(Data(bytes), path: "x.wmg") == squareGraph())
    }

    /// `file` with section `tag` replaced by `values` (same size) and the checksum recomputed.
    func craft(_ file: [UInt8], replacing tag: String, with values: [Double]) -> [UInt8] {
        var bytes = file
        let count = Int(bytes.withUnsafeBytes { GraphFile.get($0, 12) as UInt32 })
        for i in 0..<count {
            let base = 32 + i * 24
            let t: UInt32 = bytes.withUnsafeBytes { GraphFile.get($0, base) }
            guard t == GraphFile.fourCC(tag) else { continue }
            let offset = Int(bytes.withUnsafeBytes { GraphFile.get($0, base + 8) as UInt64 })
            let raw = values.withUnsafeBytes { Array($0) }
            bytes.replaceSubrange(offset..<(offset + raw.count), with: raw)
        }
        let length = UInt64(bytes.count)
        GraphFile.put(GraphFile.checksum(bytes, from: 32) ^ GraphFile.headerChecksum(version: GraphFile.version,
            sections: UInt32(count), length: length),
                      at: 24, in: &bytes)
        return bytes
    }
}

/// Columns over bytes: in place where aligned, copied where not (a crafted file may place a
/// section anywhere), refused when not a whole number of values.
@Suite struct ColumnTests {
    @Test func overAlignedAndMisalignedBytes() throws {
        let values: [Int32] = [7, -3, 1 << 30, 0]
        let bytes = [UInt8](repeating: 0xEE, count: 1) + values.withUnsafeBytes { Array($0) } + [0xEE]
        let owned = bytes.withUnsafeBytes { OwnedBytes($0) }
        let misaligned = try #require(
            Column<Int32>(raw: UnsafeRawBufferPointer(rebasing: owned.bytes[1..<17]), owner: owned))
        #expect(misaligned.array == values)
        let aligned = try #require(
            Column<Int32>(raw: UnsafeRawBufferPointer(rebasing: owned.bytes[0..<16]), owner: owned))
        #expect(
            aligned.count == 4
                && aligned.withUnsafeBufferPointer {
                    $0.baseAddress == UnsafeRawPointer(owned.bytes.baseAddress!).assumingMemoryBound(to: Int32.self)
                })
        #expect(Column<Int32>(raw: UnsafeRawBufferPointer(rebasing: owned.bytes[1..<16]), owner: owned) == nil)
        #expect(Column<Int32>(raw: UnsafeRawBufferPointer(rebasing: owned.bytes[3..<3]), owner: owned)?.isEmpty == true)
    }
}

extension Column {
    /// For crafting damaged graphs: one value changed (a copy of the rest).
    subscript(edit i: Int) -> Element {
        get { self[i] }
        set {
            var values = array
            values[i] = newValue
            self = Column(values)
        }
    }
}
