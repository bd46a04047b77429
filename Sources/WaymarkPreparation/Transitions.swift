import Foundation
import WaymarkGeo
import WaymarkGraph
import WaymarkProfiles
import WaymarkSupport

/// Per-graph tables for turn costs: each edge's bearing as it leaves its source and as it reaches
/// its target, and how many roads meet at each vertex (turn costs apply where three or more do).
/// A map prepared for routing measures the bearings as OSRM measures its turn angles, along the
/// road as a driver perceives it (``init(graph:departBearing:arrivalBearing:)``, from guidance's
/// tables); ``init(graph:)`` takes the first and last pieces of each edge.
public struct TurnGeometry: Sendable {
    @usableFromInline let headBearing: Column<Float>
    @usableFromInline let tailBearing: Column<Float>
    @usableFromInline package let roads: Column<UInt8>

    /// Measured on all cores, each taking a range of vertices (each vertex's edges out and its
    /// road count are its own). The bearings are ``Coordinate/direction(to:)``'s to the bit, each
    /// vertex's latitude's sine and cosine worked out once.
    public init(graph: RoadGraph) { self.init(graph: graph, parts: TurnGeometry.parts(graph.nodeCount)) }

    /// The bearings given: each edge's from its source (`departBearing`) and, looking back, from
    /// its target (`arrivalBearing`).
    public init(graph: RoadGraph, departBearing: Column<Float>, arrivalBearing: Column<Float>) {
        precondition(departBearing.count == graph.edgeCount && arrivalBearing.count == graph.edgeCount)
        headBearing = departBearing
        var tail = [Float](repeating: 0, count: graph.edgeCount)
        for e in 0..<graph.edgeCount {
            let back = arrivalBearing[e] + 180
            tail[e] = back >= 360 ? back - 360 : back
        }
        tailBearing = Column(tail)
        roads = TurnGeometry.roadCounts(graph, parts: TurnGeometry.parts(graph.nodeCount))
    }

    /// How many roads meet at each vertex (a two-way road is one), on all cores.
    static func roadCounts(_ graph: RoadGraph, parts: Int) -> Column<UInt8> {
        var roadCount = [UInt8](repeating: 0, count: graph.nodeCount)
        roadCount.withUnsafeMutableBufferPointer { roadCount in
            // Shared with the threads below: each part writes only its own share of it.
            nonisolated(unsafe) let roadCount = roadCount
            DispatchQueue.concurrentPerform(iterations: parts) { part in
                var segments: [Int] = []
                for i in share(part, of: parts, graph.nodeCount) {
                    let v = UInt32(i)
                    segments.removeAll(keepingCapacity: true)
                    for e in graph.edges(from: v) { segments.append(graph.segment(of: e)) }
                    for slot in graph.incoming(to: v) {
                        segments.append(graph.segment(of: Int(graph.incomingEdge[slot])))
                    }
                    roadCount[i] = UInt8(min(255, TurnGeometry.distinct(&segments)))
                }
            }
        }
        return Column(roadCount)
    }

    /// Measured in `parts` ranges side by side (the same tables however many).
    init(graph: RoadGraph, parts: Int) {
        var head = [Float](repeating: 0, count: graph.edgeCount), tail = head
        var sines = [Double](repeating: 0, count: graph.nodeCount), cosines = sines
        sines.withUnsafeMutableBufferPointer { sines in
            cosines.withUnsafeMutableBufferPointer { cosines in
                // Shared with the threads below: each part writes only its own share of it.
                nonisolated(unsafe) let (sines, cosines) = (sines, cosines)
                DispatchQueue.concurrentPerform(iterations: parts) { part in
                    for v in share(part, of: parts, graph.nodeCount) {
                        let φ = graph.coordinate(of: UInt32(v)).latitude * .pi / 180
                        (sines[v], cosines[v]) = (sin(φ), cos(φ))
                    }
                }
            }
        }
        head.withUnsafeMutableBufferPointer { head in
            tail.withUnsafeMutableBufferPointer { tail in
                // Shared with the threads below: each part writes only its own share of it.
                nonisolated(unsafe) let (head, tail) = (head, tail)
                let (sines, cosines) = (sines, cosines)
                DispatchQueue.concurrentPerform(iterations: parts) { part in
                    for i in share(part, of: parts, graph.nodeCount) {
                        let v = UInt32(i)
                        let from = Bearing(graph.coordinate(of: v), sine: sines[i], cosine: cosines[i])
                        for e in graph.edges(from: v) {
                            let w = graph.edgeTarget[e]
                            let to = Bearing(graph.coordinate(of: w), sine: sines[Int(w)], cosine: cosines[Int(w)])
                            let n = graph.interiorPointCount(of: e)
                            let second = n > 0 ? Bearing(graph.interiorPoint(of: e, 0)) : to
                            let penultimate = n > 0 ? Bearing(graph.interiorPoint(of: e, n - 1)) : from
                            head[e] = Float(from.direction(to: second))
                            tail[e] = Float(penultimate.direction(to: to))
                        }
                    }
                }
            }
        }
        headBearing = Column(head)
        tailBearing = Column(tail)
        roads = TurnGeometry.roadCounts(graph, parts: parts)
    }

    /// A point with its latitude's sine and cosine, for ``Coordinate/direction(to:)`` without
    /// working them out again.
    struct Bearing {
        var longitude: Double, sine: Double, cosine: Double

        init(_ c: Coordinate,
             sine: Double, cosine: Double) { (longitude, self.sine, self.cosine) = (c.longitude, sine, cosine) }

        init(_ c: Coordinate) {
            let φ = c.latitude * .pi / 180
            self.init(c, sine: sin(φ), cosine: cos(φ))
        }

        /// ``Coordinate/direction(to:)``, the same sums on the same numbers.
        @inline(__always)
        func direction(to other: Bearing) -> Double {
            let dλ = (other.longitude - longitude) * .pi / 180
            let y = sin(dλ) * other.cosine
            let x = cosine * other.sine - sine * other.cosine * cos(dλ)
            if x == 0 && y == 0 { return 0 }
            let degrees = atan2(y, x) * 180 / .pi
            return degrees < 0 ? degrees + 360 : degrees
        }
    }

    /// How many ranges a table over `count` items is cut into, one per core (one for a small map).
    static func parts(_ count: Int) -> Int { count < 20_000 ? 1 : min(8, coreCount) }

    /// The distinct numbers in `segments` (sorted here): a two-way road meeting a vertex is one
    /// road there, however many edges it has.
    static func distinct(_ segments: inout [Int]) -> Int {
        segments.sort()
        var distinct = 0
        for (i, s) in segments.enumerated() where i == 0 || s != segments[i - 1] { distinct += 1 }
        return distinct
    }

    /// The turn geometry stored with a hierarchy (``ContractionHierarchy/fileSections``), checked
    /// against the graph; nil where the file has none (written before it was stored).
    init?(fileSections sections: FileSections, graph: RoadGraph,
          alreadyChecked: Bool = false) throws(HierarchyFileError) {
        guard sections.contains("TGHB") else { return nil }
        func array<T: BitwiseCopyable>(_ tag: String,
                                       _ type: T.Type, count: Int) throws(HierarchyFileError) -> Column<T> {
            try sections.values(tag, as: type, count: count) { HierarchyFileError(reason: $0) }
        }
        let head = try array("TGHB", Float.self, count: graph.edgeCount), tail = try array("TGTB",
            Float.self, count: graph.edgeCount)
        let roads = try array("TGRC", UInt8.self, count: graph.nodeCount)
        guard alreadyChecked || head.allSatisfy({ $0 >= 0 && $0 <= 360 })
            && tail.allSatisfy({ $0 >= 0 && $0 <= 360 }) else {
            throw HierarchyFileError(reason: "turn geometry bearing out of range")
        }
        headBearing = head
        tailBearing = tail
        self.roads = roads
    }

    /// As graph-file sections: read back rather than measured again at every load (two
    /// great-circle bearings per edge).
    var fileSections: [GraphFile.Section] {
        [.init("TGHB", headBearing), .init("TGTB", tailBearing), .init("TGRC", roads)]
    }

    /// The direction in which edge `e` reaches its target, degrees clockwise from north.
    @inline(__always)
    public func arrivalBearing(of e: Int) -> Double { Double(tailBearing[e]) }

    /// Signed angle in degrees (positive = right) from edge `e` into edge `f`.
    @inlinable @inline(__always)
    public func angle(_ e: Int, _ f: Int) -> Double {
        var d = Double(headBearing[f] - tailBearing[e])
        if d > 180 { d -= 360 } else if d <= -180 { d += 360 }
        return d
    }
}

/// The routing weight of every turn e → f (f leaving e's target), shared by the searches so they
/// agree to the bit: the signals and gate at the junction, the turn penalty by angle and the wait
/// to cross oncoming traffic where three or more roads meet, the U-turn penalty — or, entering a
/// restricted road from an unrestricted one, OSRM's `max_turn_weight` instead; infinity for a
/// U-turn where OSRM allows none. Entry for e → f: `cost[start[e] + (f − firstEdge[target(e)])]`.
/// With it, the restricted paths over via ways: the states of the edge-based graph.
@usableFromInline package struct TransitionTable: Sendable {
    @usableFromInline package let start: Column<UInt32>
    @usableFromInline package let cost: Column<Float>
    /// Every turn's seconds (``duration(_:_:_:_:_:)``, in the same layout), for a path's sums:
    /// one read instead of the turn's geometry and costs. Empty in files written before it was
    /// stored (the path then works each turn out).
    @usableFromInline package let seconds: Column<Double>
    @usableFromInline package let paths: RestrictedPaths

    /// Made on all cores (or in `parts` ranges side by side: the same table however many): each
    /// vertex's count of roads in, then each edge's row (where each row starts is counted
    /// first), a range of them per core.
    @usableFromInline package init(graph: RoadGraph, turns: TurnGeometry, costs: TurnCosts, parts: Int? = nil) {
        // Roads a car can drive into each vertex from (OSRM's "bidirectional edges" there).
        var entries = [UInt8](repeating: 0, count: graph.nodeCount)
        entries.withUnsafeMutableBufferPointer { entries in
            // Shared with the threads below: each part writes only its own share of it.
            nonisolated(unsafe) let entries = entries
            let parts = parts ?? TurnGeometry.parts(graph.nodeCount)
            DispatchQueue.concurrentPerform(iterations: parts) { part in
                var segments: [Int] = []
                for v in share(part, of: parts, graph.nodeCount) {
                    segments.removeAll(keepingCapacity: true)
                    for slot in graph.incoming(to: UInt32(v)) {
                        segments.append(graph.segment(of: Int(graph.incomingEdge[slot])))
                    }
                    entries[v] = UInt8(min(255, TurnGeometry.distinct(&segments)))
                }
            }
        }
        let starts = TransitionTable.rowStarts(graph)
        var transitions = [Float](repeating: 0, count: Int(starts[graph.edgeCount]))
        var durations = [Double](repeating: 0, count: transitions.count)
        transitions.withUnsafeMutableBufferPointer { transitions in
            durations.withUnsafeMutableBufferPointer { durations in
                TransitionTable.fill(transitions, durations, graph: graph, turns: turns, costs: costs, entries: entries,
                                     starts: starts, parts: parts ?? TurnGeometry.parts(graph.edgeCount))
            }
        }
        start = Column(starts)
        cost = Column(transitions)
        seconds = Column(durations)
        paths = RestrictedPaths(graph: graph)
    }

    /// Every turn's weight and seconds, the edges shared out among `parts` side by side.
    private static func fill(_ transitions: UnsafeMutableBufferPointer<Float>,
                             _ durations: UnsafeMutableBufferPointer<Double>, graph: RoadGraph, turns: TurnGeometry,
                             costs: TurnCosts, entries: [UInt8], starts: [UInt32], parts: Int) {
        // Shared with the threads below: each part writes only its own share of them.
        nonisolated(unsafe) let (transitions, durations) = (transitions, durations)
        DispatchQueue.concurrentPerform(iterations: parts) { part in
            for e in share(part, of: parts, graph.edgeCount) {
                let restricted = graph.isRestricted(e)
                let outgoing = graph.edges(from: graph.edgeTarget[e])
                let row = Int(starts[e]) - outgoing.lowerBound
                let custom = graph.nodeFlags[Int(graph.edgeTarget[e])] & RoadGraph.customTurnFlag != 0
                for f in outgoing {
                    let seconds = TransitionTable.duration(e, f, graph, turns, costs)
                    durations[row + f] = seconds
                    if graph.isUTurn(e, f)
                        && !TransitionTable.uTurnAllowed(after: e, graph, turns, entries: entries) {
                        transitions[row + f] = .infinity
                        continue
                    }
                    if custom, let t = graph.customTurn(e, f) {
                        transitions[row + f] = graph.turnWeight[t]
                        continue
                    }
                    let weight = !restricted && graph.isRestricted(f) ? costs.restrictedEntryWeight : seconds
                    transitions[row + f] = Float(weight)
                }
            }
        }
    }

    /// Where the turn e → f lies in the table's per-turn columns (`cost`, `seconds`, and
    /// guidance's verdicts, laid out alike): e's row, at f's place among the edges leaving e's
    /// target. `f` must leave e's target.
    @inlinable @inline(__always)
    package func turn(_ e: Int, _ f: Int, graph: borrowing RoadGraph) -> Int {
        Int(start[e]) + f - Int(graph.firstEdge[Int(graph.edgeTarget[e])])
    }

    /// The seconds of the turn e → f: stored where the table keeps them (the same value, one
    /// read), else worked out from the turn's geometry and `costs` (``duration(_:_:_:_:_:)``).
    @inlinable @inline(__always)
    package func turnSeconds(_ e: Int, _ f: Int, graph: borrowing RoadGraph, turns: TurnGeometry,
                             costs: TurnCosts) -> Double {
        seconds.isEmpty ? TransitionTable.duration(e, f, graph, turns, costs) : seconds[turn(e, f, graph: graph)]
    }

    /// This table with every turn onto an edge of `classes` forbidden (OSRM's `exclude`): no
    /// search then enters such an edge, and a hierarchy contracted on it never holds one.
    package func excluding(_ classes: ExcludedClasses, graph: RoadGraph) -> TransitionTable {
        if classes.isEmpty { return self }
        var masked = Array(cost)
        for e in 0..<graph.edgeCount {
            let outgoing = graph.edges(from: graph.edgeTarget[e])
            let row = Int(start[e]) - outgoing.lowerBound
            for f in outgoing where graph.isOf(classes, edge: f) { masked[row + f] = .infinity }
        }
        return TransitionTable(start: start, cost: Column(masked), seconds: seconds, paths: paths)
    }

    private init(start: Column<UInt32>, cost: Column<Float>, seconds: Column<Double>, paths: RestrictedPaths) {
        self.start = start
        self.cost = cost
        self.seconds = seconds
        self.paths = paths
    }

    /// The table a graph file stores (``fileSections``: its `cost`, in the order the graph gives:
    /// each edge's turns onto the edges leaving its target), checked against the graph; nil where
    /// the file has none. Its rows' starts (files written before they were stored: counted
    /// again, which reads every edge) are checked against the graph unless `alreadyChecked`.
    init?(fileSections sections: FileSections, graph: RoadGraph,
          alreadyChecked: Bool = false) throws(HierarchyFileError) {
        guard sections.contains("TTCS") else { return nil }
        func array<T: BitwiseCopyable>(_ tag: String, _ type: T.Type) throws(HierarchyFileError) -> Column<T> {
            try sections.values(tag, as: type) { HierarchyFileError(reason: $0) }
        }
        let cost = try array("TTCS", Float.self)
        let storedStart = sections.contains("TTST") ? try array("TTST", UInt32.self) : nil
        let starts: Column<UInt32>
        if let storedStart, alreadyChecked {
            starts = storedStart
        } else {
            starts = Column(TransitionTable.rowStarts(graph))
            if let storedStart, storedStart != starts {
                throw HierarchyFileError(reason: "turn rows do not fit the graph")
            }
        }
        guard starts.count == graph.edgeCount + 1, cost.count == Int(starts[graph.edgeCount]) else {
            throw HierarchyFileError(reason: "turn costs do not fit the graph")
        }
        // Not negative, not NaN (a U-turn nowhere allowed is +infinity).
        guard alreadyChecked || cost.allSatisfy({ $0 >= 0 }) else {
            throw HierarchyFileError(reason: "turn cost negative or not a number")
        }
        // The turns' seconds, where stored: one per turn, finite and not negative.
        let seconds = sections.contains("TTDU") ? try array("TTDU", Double.self) : []
        guard seconds.isEmpty || seconds.count == cost.count else {
            throw HierarchyFileError(reason: "turn seconds do not fit the graph")
        }
        guard alreadyChecked || seconds.allSatisfy({ $0.isFinite && $0 >= 0 }) else {
            throw HierarchyFileError(reason: "turn seconds negative or not finite")
        }
        start = starts
        self.cost = cost
        self.seconds = seconds
        paths = RestrictedPaths(graph: graph)
    }

    /// As graph-file sections: every turn's weight, and where each edge's turns start (so that a
    /// load need not count them).
    var fileSections: [GraphFile.Section] { [.init("TTCS", cost), .init("TTST", start), .init("TTDU", seconds)] }

    /// Where each edge's turns start in the table: the turns of the edges before it, each onto
    /// every edge leaving its target.
    @usableFromInline package static func rowStarts(_ graph: RoadGraph) -> [UInt32] {
        var starts = [UInt32](repeating: 0, count: graph.edgeCount + 1)
        var total = 0
        for e in 0..<graph.edgeCount {
            starts[e] = UInt32(total)
            total += graph.edges(from: graph.edgeTarget[e]).count
        }
        starts[graph.edgeCount] = UInt32(total)
        return starts
    }

    /// Whether a car may turn round at the end of edge `e`, by OSRM's rule: at a dead end, at a
    /// place made for turning (a turning circle or loop, a mini roundabout), where the road it came
    /// by is the only way out or the only way in — never at an ordinary junction.
    static func uTurnAllowed(after e: Int, _ graph: RoadGraph, _ turns: TurnGeometry, entries: [UInt8]) -> Bool {
        let v = graph.edgeTarget[e]
        if turns.roads[Int(v)] <= 1 || graph.nodeFlags[Int(v)] & RoadGraph.turningPlaceFlag != 0
            || entries[Int(v)] <= 1 { return true }
        let restricted = graph.nodeFlags[Int(v)] & RoadGraph.restrictionViaFlag != 0
        var exits = 0
        for f in graph.edges(from: v) where !restricted || graph.turnAllowed(via: v, from: graph.segment(of: e),
                                                                             to: graph.segment(of: f)) {
            exits += 1
        }
        return exits <= 1
    }

    /// Whether e → f passes from one road to another at a vertex OSRM keeps ("bends": only two
    /// roads meet there; a road's own vertices OSRM's compressor removes).
    @inlinable package static func isKeptBend(_ e: Int, _ f: Int, _ graph: RoadGraph) -> Bool {
        let s = graph.segment(of: e), t = graph.segment(of: f)
        return s != t && (graph.osrmKeepsVertex(graph.edgeTarget[e])
                          || !graph.joinAsOneRoad(s, t, aligned: graph.isReversed(e) == graph.isReversed(f)))
    }

    /// Seconds the turn e → f takes: a turn penalty file's, else the signals and gate at the
    /// junction, the turn penalty by angle where three or more roads meet (or on a U-turn, or at
    /// a kept bend where the costs charge bends), the U-turn penalty, and the wait to cross
    /// oncoming traffic where three or more roads meet (not on or off a roundabout, where traffic
    /// runs one way). Signals between two roads OSRM joins cost as along a road where the costs
    /// charge bends.
    @inlinable package static func duration(_ e: Int, _ f: Int, _ graph: borrowing RoadGraph,
                                                   _ turns: TurnGeometry, _ costs: TurnCosts) -> Double {
        let v = graph.edgeTarget[e]
        let flags = graph.nodeFlags[Int(v)]
        if flags & RoadGraph.customTurnFlag != 0, let t = graph.customTurn(e, f) {
            return Double(graph.turnDuration[t])
        }
        var seconds = 0.0
        let uTurn = graph.isUTurn(e, f)
        let bend = turns.roads[Int(v)] <= 2 && !uTurn
        // Where the costs charge bends, OSRM's vertex between two roads it joins into one is no
        // junction: signals there are priced as along a road.
        let joined = bend && costs.chargesBends && !isKeptBend(e, f, graph)
        if flags & RoadGraph.trafficSignalsFlag != 0 {
            seconds += joined ? costs.signalAlongRoad : costs.trafficSignalDelay
        }
        if flags & RoadGraph.gateFlag != 0 { seconds += costs.gateDelay }
        if uTurn { seconds += costs.uTurnPenalty }
        guard !bend || costs.chargesBends && !joined else { return seconds }
        let angle = turns.angle(e, f)
        seconds += costs.turn(angle)
        if !uTurn && turns.roads[Int(v)] > 2 && !graph.flags(of: e).contains(.roundabout)
            && !graph.flags(of: f).contains(.roundabout) {
            seconds += costs.oncoming(angle)
        }
        return seconds
    }
}

extension RoadGraph {
    /// Whether turning at `v` from one segment onto another is allowed by the restrictions there
    /// (`no_*` forbids that turn; `only_*` from a segment forbids every other).
    @usableFromInline
    func turnAllowed(via v: UInt32, from: Int, to: Int) -> Bool {
        var low = 0, high = restrictionVia.count
        while low < high {
            let mid = (low + high) / 2
            if restrictionVia[mid] < v { low = mid + 1 } else { high = mid }
        }
        var mandatory = false, mandatoryMatched = false
        var i = low
        while i < restrictionVia.count && restrictionVia[i] == v {
            if Int(restrictionFrom[i]) == from {
                let target = Int(restrictionTo[i])
                if restrictionKind[i] == RestrictionKind.prohibitive.rawValue {
                    if target == to { return false }
                } else {
                    mandatory = true
                    if target == to { mandatoryMatched = true }
                }
            }
            i += 1
        }
        return !mandatory || mandatoryMatched
    }

    /// The weight of turning from e onto f at the vertex between them (see ``TransitionTable``);
    /// nil when the turn is not allowed: a restriction at the vertex, a U-turn at an ordinary
    /// junction (restricted paths are the caller's: ``RestrictedPaths``). `f` must leave e's target.
    @inlinable @inline(__always)
    package borrowing func turnWeight(_ e: Int, _ f: Int, table: TransitionTable) -> Double? {
        let v = edgeTarget[e]
        if nodeFlags[Int(v)] & RoadGraph.restrictionViaFlag != 0
            && !turnAllowed(via: v, from: segment(of: e), to: segment(of: f)) {
            return nil
        }
        let weight = table.cost[table.turn(e, f, graph: self)]
        return weight == .infinity ? nil : Double(weight)
    }

    /// Whether f turns straight back along e's road.
    @inlinable @inline(__always)
    package func isUTurn(_ e: Int, _ f: Int) -> Bool { segment(of: f) == segment(of: e)
        && isReversed(f) != isReversed(e) }

    /// Whether access along edge `e` is restricted (local traffic only).
    @inline(__always)
    func isRestricted(_ e: Int) -> Bool {
        flags(of: e).contains(isReversed(e) ? .restrictedBackward : .restrictedForward)
    }
}

/// A position on a directed edge: metres from its source.
@usableFromInline package struct EdgePoint {
    @usableFromInline package var edge: Int
    @usableFromInline package var offset: Double
    /// The weight already spent before a route leaves from here (a later leg's start, reached
    /// by the leg before it); 0 for a goal.
    @usableFromInline package var spent = 0.0

    @usableFromInline package init(edge: Int, offset: Double, spent: Double = 0) {
        self.edge = edge
        self.offset = offset
        self.spent = spent
    }
}

extension SnapIndex {
    /// The directed edges a snapped point lies on (one or two, those its ``Snap/forward`` and
    /// ``Snap/backward`` allow), with its offset from each edge's source.
    @usableFromInline package func edgePoints(_ snap: Snap, graph: RoadGraph) -> [EdgePoint] {
        var points: [EdgePoint] = []
        points.reserveCapacity(2) // (one allocation, not one for each direction)
        appendEdgePoints(snap, lengths: graph.edgeLength, to: &points)
        return points
    }

    /// ``edgePoints(_:graph:)`` appended to `points` (a table's searches keep one list for all),
    /// given the graph's edge lengths (the graph itself, passed from where it is stored, is copied).
    @usableFromInline package func appendEdgePoints(_ snap: Snap, lengths: Column<Float>,
                                                    to points: inout [EdgePoint]) {
        let fraction = snap.length > 0 ? snap.offset / snap.length : 0
        let forward = Int(forwardEdge[snap.segment]), backward = Int(backwardEdge[snap.segment])
        let length = Double(lengths[forward >= 0 ? forward : max(0, backward)])
        if forward >= 0 && snap.forward { points.append(EdgePoint(edge: forward, offset: fraction * length)) }
        if backward >= 0 && snap.backward { points.append(EdgePoint(edge: backward, offset: (1 - fraction) * length)) }
    }
}

/// Routing weight, travel time and length of part of an edge (``RoadGraph/part(_:from:to:)``).
@usableFromInline package typealias EdgePart = (weight: Double, duration: Double, distance: Double)

extension RoadGraph {
    /// Routing weight, travel time and length of edge `edge` between `a` and `b` metres from its
    /// source.
    @inlinable
    package borrowing func part(_ edge: Int, from a: Double, to b: Double) -> EdgePart {
        let length = Double(edgeLength[edge])
        guard length > 0 else { return (0, 0, 0) }
        if !customEdges.isEmpty, let row = customRow(of: edge) { return customPart(edge, row: row, from: a, to: b) }
        let share = max(0, min(1, (b - a) / length))
        return (Double(edgeWeight[edge]) * share, Double(edgeDuration[edge]) * share, length * share)
    }
}

/// The turn tables a graph file keeps beside a graph stored without a hierarchy (a hierarchy keeps
/// its own): ``TurnGeometry`` and the ``TransitionTable`` with the turn costs it was made under.
/// Read back, so that the first route on a plain file need not make them (two great-circle
/// bearings per edge and a weight per turn, which grows with the map; BENCHMARKS.md).
@usableFromInline package enum StoredTurnTables {
    @usableFromInline
    package static func fileSections(turns: TurnGeometry,
                                     transitions: TransitionTable, costs: TurnCosts) -> [GraphFile.Section] {
        [.init("TTPR", ContractionHierarchy.parameters(costs))] + turns.fileSections + transitions.fileSections
    }

    /// The tables stored in a graph file's sections (a hierarchy's too), checked against the
    /// graph: nil where there are none; the turns' weights nil where the file has none made
    /// under `costs` (they are made again).
    @usableFromInline package static func read(_ sections: FileSections, graph: RoadGraph, costs: TurnCosts,
                     alreadyChecked: Bool
                 ) throws(HierarchyFileError) -> (turns: TurnGeometry, transitions: TransitionTable?)? {
        guard let turns = try TurnGeometry(fileSections: sections, graph: graph,
                                           alreadyChecked: alreadyChecked) else { return nil }
        let stored = sections.column("TTPR", as: Double.self)?.array
        // Tables of an older metric (the geometry measured otherwise) are made again whole.
        guard stored?.first == ContractionHierarchy.parameters(costs).first else { return nil }
        guard stored == ContractionHierarchy.parameters(costs) else { return (turns, nil) }
        return (turns, try TransitionTable(fileSections: sections, graph: graph, alreadyChecked: alreadyChecked))
    }
}

// The edge-based graph the searches walk, read off the table: which states turn onto an edge,
// and which turns follow a state. Every search and the contraction use these two.
extension TransitionTable {
    /// Every state from which a search may turn onto edge `f` of `graph`: the states of the
    /// edges into f's source whose turn onto f the restrictions and this table allow and whose
    /// restricted path lets them; `body` hears the state, the edge it drove and the turn's weight.
    @inlinable @inline(__always)
    package func forEachState(turningOnto f: Int, _ graph: borrowing RoadGraph,
                              _ body: (_ state: Int, _ from: Int, _ turn: Double) -> Void) {
        forEachState(turningOnto: f, from: graph.source(of: f), graph, body)
    }

    /// ``forEachState(turningOnto:_:_:)`` where f's source `v` is known (the graph finds it by a
    /// binary search; ``SnapIndex/source(ofEdge:)`` at once).
    @inlinable @inline(__always)
    package func forEachState(turningOnto f: Int, from v: UInt32, _ graph: borrowing RoadGraph,
                              _ body: (_ state: Int, _ from: Int, _ turn: Double) -> Void) {
        let outgoing = graph.edges(from: v)
        let flagged = graph.nodeFlags[Int(v)] & RoadGraph.restrictionViaFlag != 0
        for slot in graph.incoming(to: v) {
            let e = Int(graph.incomingEdge[slot])
            guard let turn = graph.turnWeight(e, f, table: self) else { continue }
            paths.forEachState(of: e) { s in
                if paths.state(after: s, onto: f, firstOut: outgoing.lowerBound, flagged: flagged) != nil {
                    body(s, e, turn)
                }
            }
        }
    }

    /// Every turn a search over `graph`'s states may take after state `s` (the arcs of the
    /// edge-based graph): the edge `f` turned onto, the state reached, and the turn's place in
    /// this table (its weight is `cost[turn]`). Turns the table forbids (a U-turn at an ordinary
    /// junction), the restrictions at the vertex or a restricted path forbid are left out.
    @inlinable @inline(__always)
    package func forEachTurn(after s: Int, _ graph: RoadGraph, _ body: (_ f: Int, _ next: Int, _ turn: Int) -> Void) {
        let e = paths.edge(s), v = graph.edgeTarget[e]
        let restricted = graph.nodeFlags[Int(v)] & RoadGraph.restrictionViaFlag != 0
        let fromSegment = graph.segment(of: e)
        let outgoing = graph.edges(from: v)
        let first = Int(start[e]) - outgoing.lowerBound
        for f in outgoing {
            if cost[first + f] == .infinity { continue }
            if restricted && !graph.turnAllowed(via: v, from: fromSegment, to: graph.segment(of: f)) { continue }
            guard let next = paths.state(after: s, onto: f,
                                         firstOut: outgoing.lowerBound, flagged: restricted) else { continue }
            body(f, next, first + f)
        }
    }
}

extension TurnGeometry: GraphFilePart {
    public static let partName = "turn geometry"
    public static let sectionTags = ["TGHB", "TGTB", "TGRC"]
}

extension TransitionTable: GraphFilePart {
    public static let partName = "turn weights"
    public static let sectionTags = ["TTCS", "TTST", "TTDU"]
}

/// The turn costs that turn tables stored without a hierarchy were made under; the tables
/// themselves are the ``TurnGeometry`` and ``TransitionTable`` parts.
extension StoredTurnTables: GraphFilePart {
    @usableFromInline package static let partName = "turn costs"
    @usableFromInline package static let sectionTags = ["TTPR"]
}
