import Dispatch
import Foundation
import WaymarkGeo
import WaymarkGraph
import WaymarkQueries
import WaymarkPreparation
import WaymarkSupport

/// One road at a junction, as a driver arriving there sees it.
package struct JunctionRoad {
    /// The edge leaving the junction along this road; -1 when the road only comes in (a oneway).
    var out: Int
    /// The road's segment << 1, plus 1 when its segment ends here (for telling roads apart):
    /// an edge's `edgeSegment` leaving the junction, flipped arriving.
    var segment: Int
    /// Degrees clockwise from north, from the junction along the road, measured over a distance
    /// (``Junction/lookahead``) rather than to the first shape point: what a driver perceives.
    var bearing: Double
    /// OSRM's turn angle from the road arrived by: 0 back the same way, 180 straight on, below
    /// 180 to the right, above to the left.
    var angle: Double
    /// Whether the car may turn onto it from the road arrived by (direction, restrictions, U-turn rule).
    var entry: Bool

    /// How far the turn is from going straight on, 0…180.
    var deviation: Double { abs(180 - angle) }
}

/// Every road at one vertex of the route, seen from the road arrived by (`roads[0]`, angle 0);
/// the rest in order of angle (sharp right first), as OSRM's intersection views.
package struct Junction {
    var vertex: UInt32
    var roads: [JunctionRoad]
    /// The index in `roads` of the edge driven out, if one was.
    var taken: Int?

    /// The junction at the end of edge `arrival`, with `next` the edge taken (or -1), its roads
    /// written into `found`'s buffer: a caller that lets each junction go before making the next
    /// (a route passes a hundred) allocates one buffer for all of them.
    init(graph: borrowing RoadGraph, tables: borrowing GuidanceTables, arrival e: Int, next f: Int,
         table: borrowing TransitionTable,
         reusing found: inout [JunctionRoad]) {
        let v = graph.edgeTarget[e]
        vertex = v
        found.removeAll(keepingCapacity: true)
        found.reserveCapacity(8)
        // Roads are ends of segments: an outgoing edge is one; an incoming edge adds one only when its
        // road has no edge out here (a oneway towards the junction). Bearings are the per-map
        // perceived ones (``PerceivedBearing``).
        let outgoing = graph.edges(from: v)
        for g in outgoing {
            found.append(JunctionRoad(out: g, segment: Int(graph.edgeSegment[g]),
                                      bearing: Double(tables.departBearing[g]),
                                      angle: 0, entry: graph.turnWeight(e, g, table: table) != nil))
        }
        for slot in graph.incoming(to: v) {
            let h = Int(graph.incomingEdge[slot])
            let key = Int(graph.edgeSegment[h] ^ 1)
            if found.contains(where: { $0.segment == key }) { continue }
            // A carriageway merged with the one out beside it is that road (``MergedRoads``).
            if h != e && tables.merged.isMerged(arriving: h) { continue }
            found.append(JunctionRoad(out: -1, segment: key,
                                      bearing: Double(tables.arrivalBearing[h]), angle: 0, entry: false))
        }
        let arrivedKey = Int(graph.edgeSegment[e] ^ 1)
        var first = found.firstIndex { $0.segment == arrivedKey } ?? 0
        // Arrived along a merged carriageway: the one out beside it is the road back (OSRM's U-turn).
        if let g = tables.merged.partner(ofArriving: e), let p = found.firstIndex(where: { $0.out == g }), p != first {
            found[first].out = g
            found[first].entry = found[p].entry
            found.remove(at: p)
            if p < first { first -= 1 }
        }
        let arrivalBearing = found[first].bearing + 180
        found.withUnsafeMutableBufferPointer { roads in
            for i in roads.indices {
                roads[i].angle = i == first ? 0 : Junction.turnAngle(arriving: arrivalBearing,
                                                                     leaving: roads[i].bearing)
            }
            roads.swapAt(0, first)
            // By angle after the road arrived by (a handful of roads; stable).
            if roads.count > 2 { roads[1...].insertionSort { $0.angle < $1.angle } }
        }
        roads = found
        taken = f >= 0 ? roads.firstIndex { $0.out == f } : nil
    }

    /// A junction from its parts (``JunctionRecords``).
    init(vertex: UInt32, roads: [JunctionRoad], taken: Int?) {
        self.vertex = vertex
        self.roads = roads
        self.taken = taken
    }

    /// The direction of travel arriving at the junction, degrees clockwise from north.
    var arrivalBearing: Double { Junction.normalized(roads[0].bearing + 180) }

    /// OSRM's turn angle between the direction of arrival and a road's bearing out (180 straight
    /// on, below 180 to the right).
    static func turnAngle(arriving: Double, leaving: Double) -> Double { normalized(180 - (leaving - arriving)) }

    static func normalized(_ bearing: Double) -> Double {
        // The usual cases without a division (exact: the subtraction of 360 from a value under 720 is).
        if bearing >= 0 && bearing < 360 { return bearing }
        if bearing >= 360 && bearing < 720 { return bearing - 360 }
        if bearing < 0 && bearing > -360 { return bearing + 360 }
        let b = bearing.truncatingRemainder(dividingBy: 360)
        return b < 0 ? b + 360 : b
    }

    /// OSRM's `intersections` entry: bearings sorted clockwise from north, which may be entered,
    /// the road arrived by and the road taken, and the `classes` of the road taken.
    func intersection(location: Coordinate, classes: TravelClasses) -> StepIntersection {
        var inIndex: Int? = nil, outIndex: Int? = nil
        var sorted = IntersectionRoads()
        listing { position, i, listed in
            if i == 0 { inIndex = position }
            if i == taken { outIndex = position }
            sorted.append(StepIntersection.Road(bearing: listed, entry: roads[i].entry))
        }
        return StepIntersection(location: location, roads: sorted, inIndex: inIndex,
                                outIndex: outIndex, classes: classes)
    }

    /// The roads in the order OSRM lists them, ascending by the bearing listed (ties in road
    /// order): `body` gets each one's position, its index in `roads` and the bearing listed.
    @inline(__always)
    func listing(_ body: (_ position: Int, _ road: Int, _ listed: Int) -> Void) {
        let n = roads.count
        withUnsafeTemporaryAllocation(of: Int.self, capacity: 2 * n) { scratch in
            // Rounded bearings in road order, then the roads in the order of their listed bearings.
            // (Bearings lie in 0..<360, so adding a half and cutting rounds them as `rounded()` does;
            // one that rounds to 360 stays last, listed as 0, as in OSRM.)
            for i in 0..<n { scratch[i] = Int(roads[i].bearing + 0.5) }
            let order = scratch.baseAddress! + n
            Junction.discretize(scratch, count: n, order: order)
            for position in 0..<n {
                let i = order[position]
                body(position, i, scratch[i] % 360)
            }
        }
    }

    /// OSRM's bearing classes (`classifyIntersection`): the rounded bearings in 15° steps (each to
    /// the nearest multiple of 15) where no two neighbouring roads then share a step, as they
    /// are as rounded otherwise. OSRM's guidance reads these (a roundabout turned through, the
    /// straightest road of a collapsed turn), not the bearings themselves.
    /// `order` gets the roads ascending by the bearings listed (ties in road order).
    static func discretize(_ bearings: UnsafeMutableBufferPointer<Int>, count n: Int,
                           order: UnsafeMutablePointer<Int>) {
        // (The step of b, 0...360: ⌊(b + 7.5) / 15⌋, 360 being 0; worked out unsigned, as the
        // bearings are rounded ones, not below 0: a signed division needs its sign fixed.)
        func step(_ b: Int) -> Int { Int(truncatingIfNeeded: (UInt(truncatingIfNeeded: b) &* 2 &+ 15) / 30 % 24) }
        // Ascending by bearing, ties in road order: an insertion sort (a handful of roads).
        for i in 0..<n {
            let b = bearings[i]
            var k = i
            while k > 0 && bearings[order[k - 1]] > b {
                order[k] = order[k - 1]
                k -= 1
            }
            order[k] = i
        }
        // Neighbours all round (the last beside the first) in one step: the bearings stay.
        if n > 1 {
            var previous = step(bearings[order[n - 1]])
            for k in 0..<n {
                let s = step(bearings[order[k]])
                if s == previous { return }
                previous = s
            }
        }
        for i in 0..<n { bearings[i] = step(bearings[i]) * 15 }
        // Steps differ, so their order is the bearings' but for one road in step 0 from the top
        // of the circle (352.5° and up), which goes first.
        if n > 1 && bearings[order[n - 1]] == 0 {
            let wrapped = order[n - 1]
            var k = n - 1
            while k > 0 {
                order[k] = order[k - 1]
                k -= 1
            }
            order[0] = wrapped
        }
    }
}

/// Per map, what guidance would otherwise measure on every route: keys for comparing names, and
/// each edge's perceived bearing (``PerceivedBearing``) from its source and, looking back, from
/// its target.
package struct GuidanceTables: Sendable {
    let names: NameKeys
    /// Degrees clockwise from north, from the edge's source along it (divided roads' carriageways
    /// merged, ``MergedRoads``).
    let departBearing: Column<Float>
    /// From the edge's target back along it.
    let arrivalBearing: Column<Float>
    /// The carriageways OSRM sees as one road at a junction.
    let merged: MergedRoads
    /// Every turn's ``TurnVerdict`` code, in the order of the transition table's turns (each
    /// edge's onto the edges leaving its target); ``TurnVerdict/unknown`` for a turn no route
    /// takes. Empty when not made (the verdicts are then found on each route).
    let decisions: Column<UInt8>
    /// Each edge's junction at its target, made with the verdicts (none without them, or in a
    /// file written before they were stored).
    let records: JunctionRecords

    init(names: NameKeys, departBearing: Column<Float>, arrivalBearing: Column<Float>, merged: MergedRoads,
         decisions: Column<UInt8>, records: JunctionRecords = .none) {
        self.names = names
        self.departBearing = departBearing
        self.arrivalBearing = arrivalBearing
        self.merged = merged
        self.decisions = decisions
        self.records = records
    }

    /// Whether the tables hold every turn's verdict.
    package var hasVerdicts: Bool { !decisions.isEmpty }

    /// The stored verdict code for driving from edge `e` onto edge `f` (leaving `e`'s target).
    @inline(__always)
    func decision(arrival e: Int, next f: Int, graph: borrowing RoadGraph, table: borrowing TransitionTable) -> UInt8 {
        guard !decisions.isEmpty else { return TurnVerdict.unknown }
        return decisions[table.turn(e, f, graph: graph)]
    }

    /// The turns of a transition table over `graph` (each edge's onto the edges leaving its target).
    static func turnCount(_ graph: RoadGraph) -> Int { Int(TransitionTable.rowStarts(graph)[graph.edgeCount]) }

    /// Made for `graph`; every turn's verdict too where `transitions` (which turns may be taken)
    /// are given: a map prepared for routing has them (a plain `build` stores no verdicts, and
    /// its routes work each out at the junction).
    package init(graph: RoadGraph, transitions: TransitionTable? = nil) {
        let names = NameKeys(strings: graph.strings, names: graph.segmentName)
        var depart = [Float](repeating: 0, count: graph.edgeCount), arrival = depart
        // An edge and its twin the other way along the same segment read the same points in the
        // same order at each end: leaving a vertex along one is arriving there along the other.
        // Each end of a segment is measured once.
        var twin = [Int32](repeating: -1, count: graph.segmentCount * 2)
        for e in 0..<graph.edgeCount { twin[Int(graph.edgeSegment[e])] = Int32(e) }
        // Roads at each vertex (OSRM measures differently where only two meet): every edge out,
        // and every edge in whose road has no edge out here.
        var roads = [UInt8](repeating: 0, count: graph.nodeCount), lanes = roads
        for v in 0..<UInt32(graph.nodeCount) {
            lanes[Int(v)] = UInt8(graph.intersectionLanes(at: v))
            var n = graph.edges(from: v).count
            for slot in graph.incoming(to: v) where twin[Int(graph.edgeSegment[Int(graph.incomingEdge[slot])] ^ 1)] < 0
            { n += 1 }
            roads[Int(v)] = UInt8(min(n, 255))
        }
        let parts = min(8, coreCount)
        GuidanceTables.measureBearings(graph: graph, twin: twin, roads: roads, lanes: lanes, parts: parts,
                                       depart: &depart, arrival: &arrival)
        let pairs = GuidanceTables.mergeCarriageways(graph: graph, names: names, twin: twin, roads: roads,
                                                     parts: parts, depart: &depart, arrival: &arrival)
        let measured = GuidanceTables(names: names, departBearing: Column(depart), arrivalBearing: Column(arrival),
                                      merged: MergedRoads(arriving: Column(pairs.map { UInt32($0.arriving) }),
                                                          leaving: Column(pairs.map { UInt32($0.leaving) }),
                                                          edgeCount: graph.edgeCount),
                                      decisions: [])
        self = transitions.map { measured.addingVerdicts(graph: graph, transitions: $0) } ?? measured
    }

    /// These tables with every turn's verdict, for the turns `transitions` allows.
    package func addingVerdicts(graph: RoadGraph, transitions: TransitionTable) -> GuidanceTables {
        let (verdicts, records) = GuidanceTables.verdicts(graph: graph, tables: self, table: transitions,
                                                          parts: min(8, coreCount))
        return GuidanceTables(names: names, departBearing: departBearing, arrivalBearing: arrivalBearing,
                              merged: merged, decisions: Column(verdicts), records: records)
    }

    /// The turn geometry that turn costs are measured on: these perceived bearings, as OSRM
    /// measures a turn's angle on the bearings of its intersection view.
    package func turnGeometry(graph: RoadGraph) -> TurnGeometry {
        TurnGeometry(graph: graph, departBearing: departBearing, arrivalBearing: arrivalBearing)
    }

    /// Every edge's perceived bearings leaving its source and arriving at its target. Each pair
    /// of twins is measured by the part of the map holding the source of the smaller edge of the
    /// two, and written there only: the parts run side by side.
    private static func measureBearings(graph: RoadGraph, twin: [Int32], roads: [UInt8], lanes: [UInt8], parts: Int,
                                        depart: inout [Float], arrival: inout [Float]) {
        let (twinOf, roadsAt, lanesAt) = (twin, roads, lanes)
        depart.withUnsafeMutableBufferPointer { departs in
            arrival.withUnsafeMutableBufferPointer { arrivals in
                // Shared with the threads below: each part writes only its own share of it.
                nonisolated(unsafe) let (departs, arrivals) = (departs, arrivals)
                DispatchQueue.concurrentPerform(iterations: parts) { part in
                    var points: [PerceivedBearing.Point] = []
                    for i in share(part, of: parts, graph.nodeCount) {
                        let v = UInt32(i)
                        for e in graph.edges(from: v) {
                            let back = Int(twinOf[Int(graph.edgeSegment[e] ^ 1)])
                            if back >= 0 && back < e { continue }
                            let w = graph.edgeTarget[e]
                            let leaving = Float(graph.perceivedBearing(of: e, from: v, atTarget: false,
                                                                       roadCount: Int(roadsAt[Int(v)]),
                                                                       lanes: Int(lanesAt[Int(v)]), scratch: &points))
                            let arriving = Float(graph.perceivedBearing(of: e, from: v, atTarget: true,
                                                                        roadCount: Int(roadsAt[Int(w)]),
                                                                        lanes: Int(lanesAt[Int(w)]), scratch: &points))
                            departs[e] = leaving
                            arrivals[e] = arriving
                            if back >= 0 {
                                departs[back] = arriving
                                arrivals[back] = leaving
                            }
                        }
                    }
                }
            }
        }
    }

    /// OSRM's merged carriageways, judged on the bearings as measured, by the same parts: the
    /// merged roads' bearings replaced, and the (arriving, leaving) pairs merged, in order.
    private static func mergeCarriageways(graph: RoadGraph, names: NameKeys, twin: [Int32], roads: [UInt8],
                                          parts: Int, depart: inout [Float], arrival: inout [Float]
    ) -> [(arriving: Int, leaving: Int)] {
        let roadsAt = roads
        let detector = MergableRoadDetector(graph: graph, depart: depart, arrival: arrival,
                                            edgeByKey: twin, roadCounts: roads,
                                            names: TurnClassifier(graph: graph, names: names))
        var found = [[(arriving: Int, leaving: Int)]](repeating: [], count: parts)
        depart.withUnsafeMutableBufferPointer { departs in
            arrival.withUnsafeMutableBufferPointer { arrivals in
                found.withUnsafeMutableBufferPointer { found in
                    // Shared with the threads below: each part writes only its own share of it.
                    nonisolated(unsafe) let (departs, arrivals, found) = (departs, arrivals, found)
                    DispatchQueue.concurrentPerform(iterations: parts) { part in
                        for i in share(part, of: parts, graph.nodeCount) where roadsAt[i] >= 2 {
                            guard let result = detector.merge(at: UInt32(i)) else { continue }
                            found[part] += result.merged
                            // Each road's bearing at the vertex: its edge out's, and its edge in's looking back.
                            for road in result.roads {
                                let b = Float(road.bearing)
                                if road.out >= 0 && departs[road.out] != b { departs[road.out] = b }
                                if road.arriving >= 0 && arrivals[road.arriving] != b { arrivals[road.arriving] = b }
                            }
                        }
                    }
                }
            }
        }
        return found.flatMap { $0 }.sorted { $0.arriving < $1.arriving }
    }

    /// Every turn's verdict (``decisions``) and every edge's junction record (``records``), the
    /// edges shared out among `parts` run side by side.
    private static func verdicts(graph: RoadGraph, tables: GuidanceTables,
                                 table: TransitionTable, parts: Int) -> ([UInt8], JunctionRecords) {
        var codes = [UInt8](repeating: TurnVerdict.unknown, count: Int(table.start[graph.edgeCount]))
        let classifier = TurnClassifier(graph: graph, names: tables.names)
        // Each part's junction records and the ends of its edges' rows, joined in order after.
        var made = [(roads: [JunctionRecords.Road], ends: [UInt32])](repeating: ([], []), count: parts)
        codes.withUnsafeMutableBufferPointer { codes in
            made.withUnsafeMutableBufferPointer { made in
                // Shared with the threads below: each part writes only its own share of them.
                nonisolated(unsafe) let (codes, made) = (codes, made)
                DispatchQueue.concurrentPerform(iterations: parts) { part in
                    let edges = share(part, of: parts, graph.edgeCount)
                    var storage: [JunctionRoad] = [], records: [JunctionRecords.Road] = [], ends: [UInt32] = []
                    ends.reserveCapacity(edges.count)
                    for e in edges {
                        verdicts(arrival: e, graph: graph, tables: tables, table: table, classifier: classifier,
                                 codes: codes, records: &records, storage: &storage)
                        ends.append(UInt32(records.count))
                    }
                    made[part] = (records, ends)
                }
            }
        }
        var start: [UInt32] = [0], roads: [JunctionRecords.Road] = []
        start.reserveCapacity(graph.edgeCount + 1)
        roads.reserveCapacity(made.reduce(0) { $0 + $1.roads.count })
        for part in made {
            let offset = UInt32(roads.count)
            start.append(contentsOf: part.ends.lazy.map { $0 + offset })
            roads.append(contentsOf: part.roads)
        }
        let segregated = JunctionRecords.segregatedEdges(graph: graph, classifier: classifier, parts: parts)
        return (codes, JunctionRecords(start: Column(start), roads: Column(roads), segregated: Column(segregated)))
    }

    /// The verdicts of every turn after edge `e` into `codes`, and `e`'s junction record.
    private static func verdicts(arrival e: Int, graph: RoadGraph, tables: GuidanceTables, table: TransitionTable,
                                 classifier: TurnClassifier, codes: UnsafeMutableBufferPointer<UInt8>,
                                 records: inout [JunctionRecords.Road], storage: inout [JunctionRoad]) {
        let leaving = graph.edges(from: graph.edgeTarget[e])
        guard !leaving.isEmpty else { return }
        var junction = Junction(graph: graph, tables: tables, arrival: e, next: -1, table: table, reusing: &storage)
        JunctionRecords.roads(of: junction, into: &records)
        let row = Int(table.start[e]) - leaving.lowerBound
        // Each road out that may be entered is one turn (a route takes no other).
        for k in junction.roads.indices where junction.roads[k].out >= 0 && junction.roads[k].entry {
            junction.taken = k
            codes[row + junction.roads[k].out] = classifier.verdict(arrival: e, junction: junction).code
        }
    }
}

extension RoadGraph {
    /// The shape point `k` of edge `e` counted from its source (0 is the first point after the
    /// source vertex), `m` shape points in all.
    private func shapePoint(_ k: Int, of e: Int) -> Coordinate {
        let s = segment(of: e)
        let lower = Int(shapeStart[s]), upper = Int(shapeStart[s + 1])
        let i = isReversed(e) ? upper - 1 - k : lower + k
        return Coordinate(latitude: FixedPoint.decode(shapeLatitudes[i]),
                          longitude: FixedPoint.decode(shapeLongitudes[i]))
    }

    private func shapeCount(of e: Int) -> Int {
        let s = segment(of: e)
        return Int(shapeStart[s + 1] - shapeStart[s])
    }

    /// Roads at vertex `v`: the segments that end there (OSRM's out-degree in its node-based graph).
    func roadCount(at v: UInt32) -> Int {
        var keys = Set<UInt32>()
        for e in edges(from: v) { keys.insert(edgeSegment[e]) }
        for slot in incoming(to: v) { keys.insert(edgeSegment[Int(incomingEdge[slot])] ^ 1) }
        return keys.count
    }

    /// The most lanes of any road at vertex `v` (OSRM's `getIntersectionLanes`).
    func intersectionLanes(at v: UInt32) -> Int {
        var most: UInt8 = 0
        for e in edges(from: v) { most = max(most, segmentLanes[segment(of: e)]) }
        for slot in incoming(to: v) { most = max(most, segmentLanes[segment(of: Int(incomingEdge[slot]))]) }
        return Int(most)
    }

    /// The perceived bearing (``PerceivedBearing``) of edge `e` (from `v`) leaving `v`, or, `atTarget`,
    /// of its road seen from its target back along it, at a junction of `roadCount` roads.
    func perceivedBearing(of e: Int, from v: UInt32, atTarget: Bool, roadCount: Int, lanes: Int? = nil,
                          scratch points: inout [PerceivedBearing.Point]) -> Double {
        // Measured where OSRM measures: on its 10⁻⁶° grid around the junction.
        let origin = OSRMGrid.rounded(coordinate(of: atTarget ? edgeTarget[e] : v))
        let ruler = LocalRuler.osrm(latitude: origin.latitude)
        let grid = PerceivedBearing.Grid(origin: origin, ruler: ruler)
        let road = PerceivedBearing.Road(highway: highway(of: e), roundabout: flags(of: e).contains(.roundabout),
                                         lanes: lanes
                                         ?? intersectionLanes(at: atTarget ? edgeTarget[e] : v), grid: grid)
        planarGeometry(of: e, from: v, reversed: atTarget, origin: origin, ruler: ruler, into: &points)
        return PerceivedBearing.bearing(points: points, road: road, roadCount: roadCount, closed: v == edgeTarget[e])
    }

    /// Edge `e`'s (from `v`) geometry, on OSRM's grid, on the local plane in metres (measured
    /// with `ruler`) around `origin`, its first point (its source, or its target when
    /// `reversed`), from there to its other end, and `onward` through the vertices OSRM's graph
    /// does not have.
    func planarGeometry(of e: Int, from v: UInt32, reversed: Bool, origin: Coordinate, ruler: LocalRuler,
                        onward: Bool = true, into points: inout [PerceivedBearing.Point]) {
        points.removeAll(keepingCapacity: true)
        let m = shapeCount(of: e)
        let first = coordinate(of: v), last = coordinate(of: edgeTarget[e])
        func add(_ c: Coordinate) {
            let p = OSRMGrid.rounded(c)
            var dLon = p.longitude - origin.longitude
            if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
            points.append(PerceivedBearing.Point(x: dLon * ruler.east, y: (p.latitude - origin.latitude) * ruler.north))
        }
        if reversed {
            add(last)
            for k in stride(from: m - 1, through: 0, by: -1) { add(shapePoint(k, of: e)) }
            add(first)
        } else {
            add(first)
            for k in 0..<m { add(shapePoint(k, of: e)) }
            add(last)
        }
        // On through vertices OSRM's graph does not have (two roads of one kind meet end to end),
        // as OSRM follows its compressed edge: up to 150 m, enough for every lookahead.
        var (edge, along, far) = (e, reversed, reversed ? v : edgeTarget[e])
        var length = first.distance(to: last)
        while onward, length < 150, let next = compressedOnward(at: far, after: edge, reversed: along) {
            (edge, along) = next
            let n = shapeCount(of: edge)
            if along {
                for k in stride(from: n - 1, through: 0, by: -1) { add(shapePoint(k, of: edge)) }
                far = source(of: edge)
            } else {
                for k in 0..<n { add(shapePoint(k, of: edge)) }
                far = edgeTarget[edge]
            }
            add(coordinate(of: far))
            length += Double(edgeLength[edge])
        }
    }

    /// The road on from vertex `w` beyond edge `e` (traversed against its direction when
    /// `reversed`) where OSRM's graph has no vertex: only the two roads meet there, OSRM does not
    /// keep the vertex (``osrmKeepsVertex``), and the two are of one kind (``joinAsOneRoad``), one
    /// way the same way or both ways, so that OSRM's compressor joins them.
    private func compressedOnward(at w: UInt32, after e: Int, reversed: Bool) -> (edge: Int, reversed: Bool)? {
        // (Two roads have at most four edges here: a count first, the set of roads only then.)
        guard !osrmKeepsVertex(w), edges(from: w).count + incoming(to: w).count <= 4,
              roadCount(at: w) == 2 else { return nil }
        let s = segment(of: e)
        var onward: (edge: Int, reversed: Bool)?
        for g in edges(from: w) where segment(of: g) != s { onward = (g, false) }
        if onward == nil {
            for slot in incoming(to: w) where segment(of: Int(incomingEdge[slot])) != s {
                onward = (Int(incomingEdge[slot]), true)
            }
        }
        guard let (g, backwards) = onward else { return nil }
        let oneway = flags(of: e).contains(.oneway)
        // Along the road, each segment's stored direction: with the walk or against it.
        let aligned = ((edgeSegment[e] & 1 == 1) != reversed) == ((edgeSegment[g] & 1 == 1) != backwards)
        guard joinAsOneRoad(s, segment(of: g), aligned: aligned), !oneway || backwards == reversed else { return nil }
        return (g, backwards)
    }

}

/// OSRM keeps coordinates in integers of 10⁻⁶° (Waymark in 10⁻⁷°): rounded to the nearest.
package enum OSRMGrid {
    static func rounded(_ c: Coordinate) -> Coordinate {
        Coordinate(latitude: (c.latitude * 1_000_000).rounded() / 1_000_000,
                   longitude: (c.longitude * 1_000_000).rounded() / 1_000_000)
    }
}

/// Why stored guidance tables were refused.
package struct GuidanceFileError: Error, CustomStringConvertible {
    var reason: String
    package var description: String { "stored guidance tables: \(reason)" }
}

extension GuidanceTables {
    /// What the tables were made with: the version of their format, of the bearings' measure and
    /// of the turn verdicts (8: a motorway ending in one ramp is no turn; 9: roads followed on
    /// through vertices OSRM's graph does not have; 10: names and refs compared as OSRM compares
    /// them; 11: wide turns judged on lanes and on bearings 2 m out too; 12: exit numbers
    /// announced as OSRM announces them; 13: roads followed on as OSRM's compressor joins them,
    /// lines fitted as OSRM fits them; 14: measured with OSRM's ruler; 15: a ramp joins a
    /// motorway-class road by a merge only where OSRM says one; 16: OSRM's driveway handler's new
    /// names and turns). Tables stored under other parameters are made again rather than used.
    static var parameters: [Double] { [17] }

    /// The tables as graph-file sections: the bearings, the name keys, the merged roads, the
    /// verdicts and the junction records (empty where not made).
    package var fileSections: [GraphFile.Section] {
        [.init("GPRM", GuidanceTables.parameters), .init("GDEP", departBearing), .init("GARR", arrivalBearing),
         .init("GKCR", names.core), .init("GMIN", merged.arriving), .init("GMOU", merged.leaving),
         .init("GDEC", decisions), .init("GJST", records.start), .init("GJRD", records.roads),
         .init("GJSG", records.segregated)]
    }

    /// The tables a graph file stores, checked against the graph; nil where there are none or
    /// they were made under other parameters.
    package init?(fileSections sections: FileSections, graph: RoadGraph,
                  alreadyChecked: Bool = false) throws(GuidanceFileError) {
        guard sections.column("GPRM", as: Double.self)?.array == GuidanceTables.parameters else { return nil }
        func array<T: BitwiseCopyable>(_ tag: String,
                                       _ type: T.Type, count: Int? = nil) throws(GuidanceFileError) -> Column<T> {
            try sections.values(tag, as: type, count: count) { GuidanceFileError(reason: $0) }
        }
        let depart = try array("GDEP", Float.self, count: graph.edgeCount), arrival = try array("GARR",
            Float.self, count: graph.edgeCount)
        guard alreadyChecked || depart.allSatisfy({ $0 >= 0 && $0 <= 360 })
            && arrival.allSatisfy({ $0 >= 0 && $0 <= 360 }) else {
            throw GuidanceFileError(reason: "bearing out of range")
        }
        let core = try array("GKCR", UInt32.self, count: graph.strings.count)
        let arriving = try array("GMIN", UInt32.self), leaving = try array("GMOU", UInt32.self, count: arriving.count)
        guard alreadyChecked || zip(arriving, arriving.dropFirst()).allSatisfy({ $0 < $1 })
            && arriving.allSatisfy({ Int($0) < graph.edgeCount })
                && leaving.allSatisfy({ Int($0) < graph.edgeCount }) else {
            throw GuidanceFileError(reason: "merged roads out of order or range")
        }
        // (Counting the turns reads every edge: skipped, as the checks of values are, for a file
        // checked in full before.)
        let decisions = try array("GDEC", UInt8.self)
        guard alreadyChecked || decisions.isEmpty || decisions.count == GuidanceTables.turnCount(graph) else {
            throw GuidanceFileError(reason: "turn verdicts do not fit the graph")
        }
        guard alreadyChecked || decisions.allSatisfy({ Int($0) < TurnVerdict.codeLimit }) else {
            throw GuidanceFileError(reason: "turn verdict out of range")
        }
        // Junction records: none without verdicts or in files written before they were stored
        // (the junctions are then worked out on each route).
        var records = JunctionRecords.none
        if sections.contains("GJST"), case let start = try array("GJST", UInt32.self), !start.isEmpty {
            let roads = try array("GJRD", JunctionRecords.Road.self), segregated = try array("GJSG", UInt8.self)
            if !alreadyChecked, let reason = JunctionRecords.check(start: start, roads: roads, segregated: segregated,
                                                                    graph: graph) {
                throw GuidanceFileError(reason: reason)
            }
            records = JunctionRecords(start: start, roads: roads, segregated: segregated)
        }
        // The bearings, merged roads, verdicts and records used where they lie in the file (no copy).
        self.init(names: NameKeys(core: core.array), departBearing: depart,
                  arrivalBearing: arrival,
                  merged: MergedRoads(arriving: arriving, leaving: leaving,
                                      edgeCount: graph.edgeCount), decisions: decisions, records: records)
    }
}

extension GuidanceTables: GraphFilePart {
    package static let partName = "guidance tables"
    package static let sectionTags = ["GPRM", "GDEP", "GARR", "GKCR", "GMIN", "GMOU", "GDEC", "GJST", "GJRD",
                                      "GJSG"]
    /// Files before version 10 of the tables kept word and ref keys.
    package static let olderTags = ["GKWD", "GKRS", "GKRI"]
}
