import WaymarkGraph

/// Per-graph tables for turn costs: each edge's bearing as it leaves its source and as it reaches
/// its target, and how many roads meet at each vertex (turn costs apply where three or more do).
public struct TurnGeometry: Sendable {
    let headBearing: Column<Float>
    let tailBearing: Column<Float>
    let roads: Column<UInt8>

    public init(graph: RoadGraph) {
        var head = [Float](repeating: 0, count: graph.edgeCount), tail = head
        var roadCount = [UInt8](repeating: 0, count: graph.nodeCount)
        var segments: [Int] = []
        for v in 0..<UInt32(graph.nodeCount) {
            let from = graph.coordinate(of: v)
            segments.removeAll(keepingCapacity: true)
            for e in graph.edges(from: v) {
                let target = graph.edgeTarget[e]
                head[e] = Float(from.direction(to: graph.secondPoint(of: e)))
                tail[e] = Float(graph.penultimatePoint(of: e).direction(to: graph.coordinate(of: target)))
                segments.append(graph.segment(of: e))
            }
            for slot in graph.incoming(to: v) { segments.append(graph.segment(of: Int(graph.incomingEdge[slot]))) }
            // Distinct segments meeting here (a two-way road is one, however many edges it has).
            segments.sort()
            var distinct = 0
            for (i, s) in segments.enumerated() where i == 0 || s != segments[i - 1] { distinct += 1 }
            roadCount[Int(v)] = UInt8(min(255, distinct))
        }
        headBearing = Column(head)
        tailBearing = Column(tail)
        roads = Column(roadCount)
    }

    /// The turn geometry stored with a hierarchy (``ContractionHierarchy/fileSections``), checked
    /// against the graph; nil where the file has none (written before it was stored).
    init?(fileSections sections: FileSections, graph: RoadGraph, alreadyChecked: Bool = false) throws(HierarchyFileError) {
        guard sections.contains("TGHB") else { return nil }
        func array<T: BitwiseCopyable>(_ tag: String, _ type: T.Type, count: Int) throws(HierarchyFileError) -> Column<T> {
            try sections.values(tag, as: type, count: count) { HierarchyFileError(reason: $0) }
        }
        let head = try array("TGHB", Float.self, count: graph.edgeCount), tail = try array("TGTB", Float.self, count: graph.edgeCount)
        let roads = try array("TGRC", UInt8.self, count: graph.nodeCount)
        guard alreadyChecked || head.allSatisfy({ $0 >= 0 && $0 <= 360 }) && tail.allSatisfy({ $0 >= 0 && $0 <= 360 }) else {
            throw HierarchyFileError(reason: "turn geometry bearing out of range")
        }
        headBearing = head
        tailBearing = tail
        self.roads = roads
    }

    /// The direction in which edge `e` reaches its target, degrees clockwise from north.
    @inline(__always)
    public func arrivalBearing(of e: Int) -> Double { Double(tailBearing[e]) }

    /// Signed angle in degrees (positive = right) from edge `e` into edge `f`.
    @inline(__always)
    public func angle(_ e: Int, _ f: Int) -> Double {
        var d = Double(headBearing[f] - tailBearing[e])
        if d > 180 { d -= 360 } else if d <= -180 { d += 360 }
        return d
    }
}

/// The routing weight of every turn e → f (f leaving e's target), shared by the searches so they
/// agree to the bit: the signals and gate at the junction, the turn penalty by angle where three
/// or more roads meet, the U-turn penalty — or, entering a restricted road from an unrestricted
/// one, OSRM's `max_turn_weight` instead; infinity for a U-turn where OSRM allows none. Entry for e → f: `cost[start[e] + (f − firstEdge[target(e)])]`.
/// With it, the restricted paths over via ways: the states of the edge-based graph.
struct TransitionTable: Sendable {
    let start: Column<UInt32>
    let cost: Column<Float>
    let paths: RestrictedPaths

    init(graph: RoadGraph, turns: TurnGeometry, costs: TurnCosts) {
        // Roads a car can drive into each vertex from (OSRM's "bidirectional edges" there).
        var entries = [UInt8](repeating: 0, count: graph.nodeCount)
        var segments: [Int] = []
        for v in 0..<graph.nodeCount {
            segments.removeAll(keepingCapacity: true)
            for slot in graph.incoming(to: UInt32(v)) { segments.append(graph.segment(of: Int(graph.incomingEdge[slot]))) }
            segments.sort()
            var distinct = 0
            for (i, s) in segments.enumerated() where i == 0 || s != segments[i - 1] { distinct += 1 }
            entries[v] = UInt8(min(255, distinct))
        }
        var starts = [UInt32](repeating: 0, count: graph.edgeCount + 1)
        var transitions: [Float] = []
        transitions.reserveCapacity(graph.edgeCount * 3)
        for e in 0..<graph.edgeCount {
            starts[e] = UInt32(transitions.count)
            let restricted = graph.isRestricted(e)
            let v = graph.edgeTarget[e]
            for f in graph.edges(from: v) {
                if graph.isUTurn(e, f) && !TransitionTable.uTurnAllowed(after: e, graph, turns, entries: entries) {
                    transitions.append(.infinity)
                    continue
                }
                let weight = !restricted && graph.isRestricted(f) ? costs.restrictedEntryWeight : TransitionTable.duration(e, f, graph, turns, costs)
                transitions.append(Float(weight))
            }
        }
        starts[graph.edgeCount] = UInt32(transitions.count)
        start = Column(starts)
        cost = Column(transitions)
        paths = RestrictedPaths(graph: graph)
    }

    /// The table stored with a hierarchy (its `cost`, in the order the graph gives: each edge's
    /// turns onto the edges leaving its target), checked against the graph; nil where the file
    /// has none.
    /// Its rows' starts (`storedStart`, files written before they were stored: counted again,
    /// which reads every edge) are checked against the graph unless `alreadyChecked`.
    init?(storedCost stored: Column<Float>?, storedStart: Column<UInt32>? = nil, graph: RoadGraph, alreadyChecked: Bool = false) throws(HierarchyFileError) {
        guard let cost = stored else { return nil }
        let starts: Column<UInt32>
        if let storedStart, alreadyChecked {
            starts = storedStart
        } else {
            starts = Column(TransitionTable.rowStarts(graph))
            if let storedStart, storedStart != starts { throw HierarchyFileError(reason: "turn rows do not fit the graph") }
        }
        guard starts.count == graph.edgeCount + 1, cost.count == Int(starts[graph.edgeCount]) else {
            throw HierarchyFileError(reason: "turn costs do not fit the graph")
        }
        // Not negative, not NaN (a U-turn nowhere allowed is +infinity).
        guard alreadyChecked || cost.allSatisfy({ $0 >= 0 }) else { throw HierarchyFileError(reason: "turn cost negative or not a number") }
        start = starts
        self.cost = cost
        paths = RestrictedPaths(graph: graph)
    }

    /// Where each edge's turns start in the table: the turns of the edges before it, each onto
    /// every edge leaving its target.
    static func rowStarts(_ graph: RoadGraph) -> [UInt32] {
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
        if turns.roads[Int(v)] <= 1 || graph.nodeFlags[Int(v)] & RoadGraph.turningPlaceFlag != 0 || entries[Int(v)] <= 1 { return true }
        let restricted = graph.nodeFlags[Int(v)] & RoadGraph.restrictionViaFlag != 0
        var exits = 0
        for f in graph.edges(from: v) where !restricted || graph.turnAllowed(via: v, from: graph.segment(of: e), to: graph.segment(of: f)) {
            exits += 1
        }
        return exits <= 1
    }

    /// Seconds the turn e → f takes: the signals and gate at the junction, the turn penalty by
    /// angle where three or more roads meet (or on a U-turn), the U-turn penalty.
    static func duration(_ e: Int, _ f: Int, _ graph: RoadGraph, _ turns: TurnGeometry, _ costs: TurnCosts) -> Double {
        let v = graph.edgeTarget[e]
        let flags = graph.nodeFlags[Int(v)]
        var seconds = 0.0
        if flags & RoadGraph.trafficSignalsFlag != 0 { seconds += costs.trafficSignalDelay }
        if flags & RoadGraph.gateFlag != 0 { seconds += costs.gateDelay }
        let uTurn = graph.isUTurn(e, f)
        if uTurn { seconds += costs.uTurnPenalty }
        if turns.roads[Int(v)] > 2 || uTurn { seconds += costs.turn(turns.angle(e, f)) }
        return seconds
    }
}

extension RoadGraph {
    /// Whether turning at `v` from one segment onto another is allowed by the restrictions there
    /// (`no_*` forbids that turn; `only_*` from a segment forbids every other).
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
    @inline(__always)
    func turnWeight(_ e: Int, _ f: Int, table: TransitionTable) -> Double? {
        let v = edgeTarget[e]
        if nodeFlags[Int(v)] & RoadGraph.restrictionViaFlag != 0 && !turnAllowed(via: v, from: segment(of: e), to: segment(of: f)) {
            return nil
        }
        let weight = table.cost[Int(table.start[e]) + f - Int(firstEdge[Int(v)])]
        return weight == .infinity ? nil : Double(weight)
    }

    /// Whether f turns straight back along e's road.
    @inline(__always)
    func isUTurn(_ e: Int, _ f: Int) -> Bool { segment(of: f) == segment(of: e) && isReversed(f) != isReversed(e) }

    /// Whether access along edge `e` is restricted (local traffic only).
    @inline(__always)
    func isRestricted(_ e: Int) -> Bool {
        flags(of: e).contains(isReversed(e) ? .restrictedBackward : .restrictedForward)
    }
}

/// A position on a directed edge: metres from its source.
struct EdgePoint {
    var edge: Int
    var offset: Double
}

extension SnapIndex {
    /// The directed edges a snapped point lies on (one or two), with its offset from each edge's
    /// source.
    func edgePoints(_ snap: Snap, graph: RoadGraph) -> [EdgePoint] {
        var points: [EdgePoint] = []
        let fraction = snap.length > 0 ? snap.offset / snap.length : 0
        let forward = Int(forwardEdge[snap.segment]), backward = Int(backwardEdge[snap.segment])
        let length = Double(graph.edgeLength[forward >= 0 ? forward : max(0, backward)])
        if forward >= 0 { points.append(EdgePoint(edge: forward, offset: fraction * length)) }
        if backward >= 0 { points.append(EdgePoint(edge: backward, offset: (1 - fraction) * length)) }
        return points
    }
}

extension RoadGraph {
    /// Routing weight, travel time and length of edge `edge` between `a` and `b` metres from its
    /// source.
    func part(_ edge: Int, from a: Double, to b: Double) -> (weight: Double, duration: Double, distance: Double) {
        let length = Double(edgeLength[edge])
        guard length > 0 else { return (0, 0, 0) }
        let share = max(0, min(1, (b - a) / length))
        return (Double(edgeWeight[edge]) * share, Double(edgeDuration[edge]) * share, length * share)
    }
}
