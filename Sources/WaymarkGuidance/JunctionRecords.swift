import Dispatch
import WaymarkGeo
import WaymarkGraph
import WaymarkSupport

/// Every edge's junction at its target, as ``Junction`` sees it when the edge is arrived by,
/// made with the turn verdicts: a route reads the hundred junctions it passes instead of working
/// each out again from the graph's scattered tables.
///
/// Layout: edge e's roads are `roads[start[e]..<start[e + 1]]`, in the junction's order (the road
/// arrived by first, then by angle); an empty row (no road out, or too many roads to number) is
/// worked out at the junction. Made with the map's own transition table, and read by routers
/// keeping classes off too: OSRM lists a junction as the map has it, whatever a request excludes.
///
/// Beside them, per edge, whether it is the internal edge of a segregated crossing
/// (``TurnClassifier/isSegregated(_:from:)`` from its source; the roads' shapes and classes alone
/// decide it): a byte per edge, 1 where it is.
package struct JunctionRecords: Sendable {
    /// One road of a junction, 16 bytes.
    package struct Road: BitwiseCopyable, Sendable, Equatable {
        /// ``JunctionRoad/out``: the edge leaving along it, -1 where the road only comes in.
        var out: Int32
        /// ``JunctionRoad/segment``.
        var segment: UInt32
        /// ``JunctionRoad/bearing``, as the tables hold it.
        var bearing: Float
        /// The bearing as OSRM lists it (bearing classes applied), 0..<360.
        var listed: UInt16
        /// The road's place in the intersection's listing, ascending by `listed`.
        var position: UInt8
        /// 1 where the car may turn onto it from the road arrived by.
        var entry: UInt8
    }

    let start: Column<UInt32>
    let roads: Column<Road>
    let segregated: Column<UInt8>

    init(start: Column<UInt32>, roads: Column<Road>, segregated: Column<UInt8>) {
        self.start = start
        self.roads = roads
        self.segregated = segregated
    }

    /// No records: every junction worked out where it is passed.
    static let none = JunctionRecords(start: [], roads: [], segregated: [])

    /// Every edge's segregated-crossing byte, the vertices shared out among `parts` side by side.
    static func segregatedEdges(graph: RoadGraph, classifier: TurnClassifier, parts: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: graph.edgeCount)
        bytes.withUnsafeMutableBufferPointer { bytes in
            // Shared with the threads below: each part writes only the edges of its vertices.
            nonisolated(unsafe) let bytes = bytes
            DispatchQueue.concurrentPerform(iterations: parts) { part in
                for v in share(part, of: parts, graph.nodeCount) {
                    for e in graph.edges(from: UInt32(v)) where classifier.isSegregated(e, from: UInt32(v)) {
                        bytes[e] = 1
                    }
                }
            }
        }
        return bytes
    }

    /// The records of `junction`, arrived at by its first road; nothing where it has more roads
    /// than a listing position holds.
    static func roads(of junction: Junction, into records: inout [Road]) {
        let n = junction.roads.count
        guard n <= Int(UInt8.max) else { return }
        let first = records.count
        for road in junction.roads {
            records.append(Road(out: Int32(road.out), segment: UInt32(road.segment), bearing: Float(road.bearing),
                                listed: 0, position: 0, entry: road.entry ? 1 : 0))
        }
        junction.listing { position, i, listed in
            records[first + i].listed = UInt16(listed)
            records[first + i].position = UInt8(position)
        }
    }

    /// Whether edge `e` has a record.
    @inline(__always)
    func has(_ e: Int) -> Bool { e + 1 < start.count && start[e] < start[e + 1] }

    /// `e`'s junction with `f` taken (-1: none), its roads written into `found`'s buffer; `e` has
    /// a record.
    func junction(arrival e: Int, next f: Int, vertex: UInt32, reusing found: inout [JunctionRoad]) -> Junction {
        let row = Int(start[e])..<Int(start[e + 1])
        // The buffer brought to the row's length one road at a time (a handful; emptying it at
        // once goes through a generic range replacement), then written in place.
        while found.count > row.count { found.removeLast() }
        while found.count < row.count {
            found.append(JunctionRoad(out: -1, segment: 0, bearing: 0, angle: 0, entry: false))
        }
        // The angles worked out as the junction works them out from the same bearings.
        let arrivalBearing = Double(roads[row.lowerBound].bearing) + 180
        var taken: Int?
        found.withUnsafeMutableBufferPointer { found in
            for i in 0..<row.count {
                let road = roads[row.lowerBound + i]
                let bearing = Double(road.bearing)
                if Int(road.out) == f && f >= 0 { taken = i }
                let angle = i == 0 ? 0 : Junction.turnAngle(arriving: arrivalBearing, leaving: bearing)
                found[i] = JunctionRoad(out: Int(road.out), segment: Int(road.segment), bearing: bearing,
                                        angle: angle, entry: road.entry != 0)
            }
        }
        return Junction(vertex: vertex, roads: found, taken: taken)
    }

    /// `e`'s junction as OSRM's `intersections` entry (``Junction/intersection(location:classes:)``),
    /// road `taken` of the record's order the one driven out; `e` has a record.
    func intersection(arrival e: Int, taken: Int?, location: Coordinate,
                      classes: TravelClasses) -> StepIntersection {
        let row = Int(start[e])..<Int(start[e + 1])
        let n = row.count
        var inIndex: Int?, outIndex: Int?
        if n <= IntersectionRoads.inlineCapacity {
            // Each road written at its place (no listing order to work out first).
            var listed = IntersectionRoads(inlineCount: n)
            for k in row {
                let record = roads[k], place = Int(record.position), i = k - row.lowerBound
                listed.setInline(place, bearing: record.listed, entry: record.entry != 0)
                if i == 0 { inIndex = place }
                if i == taken { outIndex = place }
            }
            return StepIntersection(location: location, roads: listed, inIndex: inIndex, outIndex: outIndex,
                                    classes: classes)
        }
        var listed = IntersectionRoads()
        withUnsafeTemporaryAllocation(of: Int.self, capacity: n) { road in
            for k in row { road[Int(roads[k].position)] = k - row.lowerBound }
            for position in 0..<n {
                let i = road[position]
                if i == 0 { inIndex = position }
                if i == taken { outIndex = position }
                let record = roads[row.lowerBound + i]
                listed.append(StepIntersection.Road(bearing: Int(record.listed), entry: record.entry != 0))
            }
        }
        return StepIntersection(location: location, roads: listed, inIndex: inIndex, outIndex: outIndex,
                                classes: classes)
    }

    /// Checks records read from a file against `graph`: rows in order, every value in range, each
    /// row's listing a numbering of its roads and its roads out the edges leaving the junction,
    /// each once (a route finds the edge it takes there).
    static func check(start: Column<UInt32>, roads: Column<Road>, segregated: Column<UInt8>,
                      graph: RoadGraph) -> String? {
        let edgeCount = graph.edgeCount
        guard start.count == edgeCount + 1, start.first == 0, Int(start[edgeCount]) == roads.count,
              segregated.count == edgeCount else {
            return "junction records do not fit the graph"
        }
        guard segregated.allSatisfy({ $0 <= 1 }) else { return "segregated edge flag out of range" }
        var listed = [Bool](repeating: false, count: 256)
        var leftBy: [Int] = [] // per edge leaving the junction, the last row that named it
        for e in 0..<edgeCount {
            guard start[e] <= start[e + 1], start[e + 1] - start[e] <= UInt32(UInt8.max) else {
                return "junction records out of order"
            }
            let row = Int(start[e])..<Int(start[e + 1])
            guard !row.isEmpty else { continue }
            let leaving = graph.edges(from: graph.edgeTarget[e])
            if leftBy.count < leaving.count { leftBy += [Int](repeating: -1, count: leaving.count - leftBy.count) }
            var named = 0
            for k in 0..<row.count { listed[k] = false }
            for k in row {
                let road = roads[k], out = Int(road.out)
                guard out >= -1, Int(road.segment) < 2 * graph.segmentCount, road.bearing >= 0, road.bearing <= 360,
                      road.listed < 360, Int(road.position) < row.count, road.entry <= 1,
                      !listed[Int(road.position)] else { return "junction record out of range" }
                listed[Int(road.position)] = true
                guard out >= 0 else { continue }
                guard leaving.contains(out), leftBy[out - leaving.lowerBound] != e else {
                    return "junction record names a road that does not leave there"
                }
                leftBy[out - leaving.lowerBound] = e
                named += 1
            }
            guard named == leaving.count else { return "junction record leaves out a road" }
        }
        return nil
    }
}
