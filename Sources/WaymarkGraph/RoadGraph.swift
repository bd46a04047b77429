import WaymarkGeo

/// Coordinates stored as integers of 10⁻⁷ degree (about 1.1 cm at the equator), the precision of
/// OpenStreetMap itself. Int32 holds ±214.7°, enough for longitudes.
public enum FixedPoint {
    public static let scale = 10_000_000.0

    @inlinable public static func encode(_ degrees: Double) -> Int32 { Int32((degrees * scale).rounded()) }
    @inlinable public static func decode(_ value: Int32) -> Double { Double(value) / scale }
}

/// A compact, immutable car road graph with dense 32-bit ids.
///
/// - Vertices (`0..<nodeCount`): junctions, way ends and cut points, with fixed-point coordinates.
/// - Directed edges (`0..<edgeCount`), in compressed sparse rows by source: the edges leaving `v`
///   are `firstEdge[v]..<firstEdge[v + 1]`. Each has a target, a length (m), a travel time (s) and
///   the undirected *segment* (way piece) it runs along, forwards or backwards.
/// - The reverse rows list, for every vertex, the edges arriving at it (for backward search).
/// - Segments carry the shape between their end vertices, the road's name and ref (string table),
///   its class, its flags and the OSM way id.
/// - Turn restrictions are in graph terms: at a via vertex, from one segment to another; over via
///   ways, as paths of directed edges (from edge, via edges, to edge).
public struct RoadGraph: Sendable, Equatable {
    public static let invalid = UInt32.max

    // MARK: Vertices
    public internal(set) var latitudes: Column<Int32> = []
    public internal(set) var longitudes: Column<Int32> = []
    /// Bit 0: traffic signals at this vertex. Bit 1: a turn restriction has this vertex as via, or
    /// a restricted path's from edge ends here. Bit 2: a gate (passable at a delay). Bit 3: a
    /// place made for turning round (U-turns allowed).
    public internal(set) var nodeFlags: Column<UInt8> = []

    // MARK: Edges (forward rows)
    public internal(set) var firstEdge: Column<UInt32> = [0]
    public internal(set) var edgeTarget: Column<UInt32> = []
    /// Segment index << 1, plus 1 when the edge runs against the segment's stored direction.
    public internal(set) var edgeSegment: Column<UInt32> = []
    public internal(set) var edgeLength: Column<Float> = []
    /// Travel time in seconds (signals and gates passed inside the edge included).
    public internal(set) var edgeDuration: Column<Float> = []
    /// Routing weight in seconds: the travel time divided by the way's rate penalty (OSRM's
    /// "routability": service roads, narrow roads and side roads weigh more than they take).
    /// What the searches minimise; equal to the duration where no penalty applies.
    public internal(set) var edgeWeight: Column<Float> = []
    /// Seconds of traffic signals and gates passed inside each edge (in its duration and weight,
    /// not in its travel); empty in files written before it was kept (then none is known).
    public internal(set) var edgeDelay: Column<Float> = []

    // MARK: Reverse rows
    public internal(set) var firstIncoming: Column<UInt32> = [0]
    /// For each incoming slot: the edge (index into the forward arrays) and its source vertex.
    public internal(set) var incomingEdge: Column<UInt32> = []
    public internal(set) var incomingSource: Column<UInt32> = []

    // MARK: Segments
    /// Shape points strictly between a segment's end vertices: `shapeStart[s]..<shapeStart[s + 1]`.
    public internal(set) var shapeStart: Column<UInt32> = [0]
    public internal(set) var shapeLatitudes: Column<Int32> = []
    public internal(set) var shapeLongitudes: Column<Int32> = []
    /// The OpenStreetMap node id of each vertex and of each shape point (a node a barrier cuts
    /// is two vertices with its one id); both empty when the graph was made without them (a
    /// file written before they were kept, a graph not read from OpenStreetMap).
    public internal(set) var vertexNodeIDs: Column<Int64> = []
    public internal(set) var shapeNodeIDs: Column<Int64> = []
    public internal(set) var segmentName: Column<UInt32> = []
    public internal(set) var segmentRef: Column<UInt32> = []
    public internal(set) var segmentHighway: Column<UInt8> = []
    public internal(set) var segmentFlags: Column<UInt8> = []
    public internal(set) var segmentWayID: Column<Int64> = []
    /// How each segment is travelled (``WayMode``): along its stored direction in the low four
    /// bits, against it in the high four. Empty where every segment's modes follow from its ferry
    /// flag (car and foot maps), as ``mode(of:)`` reads them then.
    public internal(set) var segmentModes: Column<UInt8> = []
    /// The way's lane count as OSRM's car profile reads it (`lanes`, else `lanes:forward` plus
    /// `lanes:backward`, at least as many as its turn lanes; 0 when unknown): guidance measures
    /// bearings and carriageways' widths by it.
    public internal(set) var segmentLanes: Column<UInt8> = []
    /// Signs and lanes: per segment, a row of ``signRows`` (row 0: none, as most roads).
    public internal(set) var segmentSigns: Column<UInt32> = []
    /// Rows of five string ids: destinations forward, backward; exits (`junction:ref`); turn
    /// lanes forward, backward ("forward" along the segment's stored direction).
    public internal(set) var signRows: Column<UInt32> = [0, 0, 0, 0, 0]
    /// The strings names and refs point into; index 0 is the empty string.
    public internal(set) var strings: [String] = [""]

    // MARK: Speeds and turn penalties from files (`waymark customize`; empty as built)
    /// Where each speed came from, as OSRM's `datasource_names`: 0 the profile, then each
    /// segment speed file by its name without directory or extension.
    public internal(set) var datasourceNames: [String] = []
    /// The edges with at least one stretch (node to node) whose speed a file gave, ascending;
    /// edge `customEdges[i]`'s stretches, in driving order, are
    /// `customStart[i]..<customStart[i + 1]` of the stretch columns.
    public internal(set) var customEdges: Column<UInt32> = []
    public internal(set) var customStart: Column<UInt32> = [0]
    public internal(set) var stretchDuration: Column<Float> = []
    public internal(set) var stretchWeight: Column<Float> = []
    /// Index into ``datasourceNames``.
    public internal(set) var stretchSource: Column<UInt8> = []
    /// Turns whose duration and weight a turn penalty file gave, sorted by from edge, then to
    /// edge; their via vertices carry ``customTurnFlag``.
    public internal(set) var turnFrom: Column<UInt32> = []
    public internal(set) var turnTo: Column<UInt32> = []
    public internal(set) var turnDuration: Column<Float> = []
    public internal(set) var turnWeight: Column<Float> = []

    // MARK: Turn restrictions, sorted by via vertex
    public internal(set) var restrictionVia: Column<UInt32> = []
    public internal(set) var restrictionFrom: Column<UInt32> = []
    public internal(set) var restrictionTo: Column<UInt32> = []
    public internal(set) var restrictionKind: Column<UInt8> = []

    // MARK: Turn restrictions over via ways
    /// Restricted path p is `restrictionPathEdges[restrictionPathStart[p]..<restrictionPathStart[p + 1]]`:
    /// the directed edges from the from way's last edge, along the via ways in driving order, to the
    /// to way's first edge (at least three). `restrictionPathKind[p]` says whether that last turn is
    /// forbidden (`no_*`) or the only one allowed (`only_*`) once the whole path before it was driven.
    public internal(set) var restrictionPathStart: Column<UInt32> = [0]
    public internal(set) var restrictionPathEdges: Column<UInt32> = []
    public internal(set) var restrictionPathKind: Column<UInt8> = []

    /// How the graph was built (the OSM reader fills in input counts and timing).
    public var report = BuildReport()
    /// Which side of the road traffic keeps to (turn costs favour turns towards the kerb). Not in
    /// OpenStreetMap extracts: chosen when the graph is built (`waymark build --driving-side`).
    public var drivingSide = DrivingSide.right
    /// Who the graph was built for (`waymark build --profile`): what its turns cost and how its
    /// steps are travelled.
    public var travel = TravelProfile.car

    public init() {}

    /// An edge's length (m), duration (s) and weight stay below this: longer is no road, and a
    /// graph file with one is refused as damaged. The builder drops what would reach it.
    public static let valueLimit: Float = 1e7

    /// Whether an edge's length, duration or weight is one a graph file may hold: finite, not
    /// negative, below ``valueLimit``.
    @inlinable public static func isStorable(_ value: Float) -> Bool {
        value.isFinite && value >= 0 && value < valueLimit
    }

    // (The flags computed in place: stored constants are reached from other modules through a call.)
    @inlinable public static var trafficSignalsFlag: UInt8 { 1 << 0 }
    @inlinable public static var restrictionViaFlag: UInt8 { 1 << 1 }
    @inlinable public static var gateFlag: UInt8 { 1 << 2 }
    @inlinable public static var turningPlaceFlag: UInt8 { 1 << 3 }
    /// A turn here has its duration and weight from a turn penalty file.
    @inlinable public static var customTurnFlag: UInt8 { 1 << 4 }

    // MARK: - Reading

    public var nodeCount: Int { latitudes.count }
    public var edgeCount: Int { edgeTarget.count }
    public var segmentCount: Int { segmentName.count }
    public var restrictionPathCount: Int { restrictionPathKind.count }

    /// The directed edges of restricted path `p` (see ``restrictionPathStart``).
    public func restrictionPath(_ p: Int) -> Slice<Column<UInt32>> {
        restrictionPathEdges[Int(restrictionPathStart[p])..<Int(restrictionPathStart[p + 1])]
    }

    @inlinable
    public func coordinate(of node: UInt32) -> Coordinate {
        Coordinate(latitude: FixedPoint.decode(latitudes[Int(node)]),
                   longitude: FixedPoint.decode(longitudes[Int(node)]))
    }

    /// The edges leaving `node`.
    @inlinable
    public func edges(from node: UInt32) -> Range<Int> { Int(firstEdge[Int(node)])..<Int(firstEdge[Int(node) + 1]) }

    /// The incoming slots of `node` (index `incomingEdge` / `incomingSource` with them).
    @inlinable
    public func incoming(to node: UInt32) -> Range<Int> {
        Int(firstIncoming[Int(node)])..<Int(firstIncoming[Int(node) + 1])
    }

    /// The source vertex of an edge (binary search over the rows).
    @inlinable
    public func source(of edge: Int) -> UInt32 {
        var low = 0, high = nodeCount
        while high - low > 1 {
            let mid = (low + high) / 2
            if Int(firstEdge[mid]) <= edge { low = mid } else { high = mid }
        }
        return UInt32(low)
    }

    @inlinable public func segment(of edge: Int) -> Int { Int(edgeSegment[edge] >> 1) }
    @inlinable public func isReversed(_ edge: Int) -> Bool { edgeSegment[edge] & 1 == 1 }
    @inlinable
    public func name(of edge: Int) -> String { name(ofSegment: segment(of: edge)) }

    /// The road name of segment `s` ("" when it has none).
    public func name(ofSegment s: Int) -> String { strings[Int(segmentName[s])] }
    @inlinable
    public func ref(of edge: Int) -> String { strings[Int(segmentRef[segment(of: edge)])] }
    @inlinable
    public func highway(of edge: Int) -> HighwayClass { HighwayClass(stored: segmentHighway[segment(of: edge)]) }
    /// The destinations signed for driving along `edge` (OSRM's `destinations`; empty when none).
    @inlinable public func destinations(of edge: Int) -> String { signString(edge, isReversed(edge) ? 1 : 0) }
    /// The exit numbers signed on `edge`'s way (`junction:ref`; empty when none).
    @inlinable public func exits(of edge: Int) -> String { signString(edge, 2) }
    /// `turn:lanes` for driving along `edge`, left to right, `|` between lanes (empty when none).
    @inlinable public func turnLanes(of edge: Int) -> String { signString(edge, isReversed(edge) ? 4 : 3) }
    @inlinable
    func signString(_ edge: Int, _ column: Int) -> String {
        strings[Int(signID(segment: segment(of: edge), column: column))]
    }

    /// The string id in column `column` of segment `s`'s row of ``signRows`` (0, the empty
    /// string, for a segment without signs).
    @inlinable
    public func signID(segment s: Int, column: Int) -> UInt32 {
        let row = Int(segmentSigns[s])
        return row == 0 ? 0 : signRows[row * 5 + column]
    }

    @inlinable
    public func flags(of edge: Int) -> EdgeFlags { EdgeFlags(rawValue: segmentFlags[segment(of: edge)]) }

    /// How edge `edge` is travelled.
    @inlinable
    public func mode(of edge: Int) -> WayMode {
        let modes = modes(ofSegment: segment(of: edge))
        return isReversed(edge) ? modes.backward : modes.forward
    }

    /// Whether going from edge `e` onto edge `f` changes how the route is travelled (onto a
    /// ferry, off the saddle): guidance says so where it would otherwise be silent.
    @inlinable
    public func changesMode(_ e: Int, _ f: Int) -> Bool { mode(of: e) != mode(of: f) }

    /// Whether OSRM keeps vertex `v` in its graph whatever meets there: a turning place (OSRM's
    /// turning obstacles) or a turn restriction's via vertex. (Signals and gates it compresses.)
    public func osrmKeepsVertex(_ v: UInt32) -> Bool {
        nodeFlags[Int(v)] & (RoadGraph.turningPlaceFlag | RoadGraph.restrictionViaFlag) != 0
    }

    /// Whether OSRM's compressor joins segments `s` and `t` where only they meet, the road running
    /// along `s`'s stored direction as along `t`'s when `aligned`: one class, name, ref, signs
    /// (destinations each way and exits, OSRM's name id; not turn lanes), and the same edge
    /// flags (ring, ferry, toll, tunnel, one way, access each way: OSRM's flags and classes).
    public func joinAsOneRoad(_ s: Int, _ t: Int, aligned: Bool) -> Bool {
        guard segmentHighway[s] == segmentHighway[t], segmentName[s] == segmentName[t],
              segmentRef[s] == segmentRef[t] else { return false }
        let a = EdgeFlags(rawValue: segmentFlags[s]), b = EdgeFlags(rawValue: segmentFlags[t])
        let kinds: EdgeFlags = [.oneway, .roundabout, .ferry, .toll, .tunnel, .notStartpoint]
        let (m, n) = (modes(ofSegment: s), modes(ofSegment: t))
        guard a.intersection(kinds) == b.intersection(kinds),
              aligned ? m == n : (m.forward, m.backward) == (n.backward, n.forward),
              a.contains(.restrictedForward) == b.contains(aligned ? .restrictedForward : .restrictedBackward),
              a.contains(.restrictedBackward) == b.contains(aligned ? .restrictedBackward : .restrictedForward)
        else { return false }
        if segmentSigns[s] == segmentSigns[t] { return true }
        func sign(_ x: Int, _ column: Int) -> UInt32 { signID(segment: x, column: column) }
        return sign(s, 2) == sign(t, 2) && sign(s, 0) == sign(t, aligned ? 0 : 1)
            && sign(s, 1) == sign(t, aligned ? 1 : 0)
    }

    /// Segment `s`'s modes along and against its stored direction.
    @inlinable
    public func modes(ofSegment s: Int) -> (forward: WayMode, backward: WayMode) {
        guard !segmentModes.isEmpty else {
            let mode: WayMode = EdgeFlags(rawValue: segmentFlags[s]).contains(.ferry) ? .ferry : .travel
            return (mode, mode)
        }
        let packed = segmentModes[s]
        return (WayMode(rawValue: packed & 0xF) ?? .travel, WayMode(rawValue: packed >> 4) ?? .travel)
    }

    /// The OpenStreetMap node id of point `k` of edge `e`'s line (0 its source vertex, then its
    /// shape points in the direction it is driven, then its target); the graph must keep node ids.
    public func nodeID(ofEdge e: Int, point k: Int) -> Int64 { nodeID(ofEdge: e, point: k, source: source(of: e)) }

    /// The same, with the edge's source known (looked up only for point 0).
    func nodeID(ofEdge e: Int, point k: Int, source: @autoclosure () -> UInt32) -> Int64 {
        let n = interiorPointCount(of: e)
        if k == 0 { return vertexNodeIDs[Int(source())] }
        if k == n + 1 { return vertexNodeIDs[Int(edgeTarget[e])] }
        let s = segment(of: e)
        return shapeNodeIDs[isReversed(e) ? Int(shapeStart[s + 1]) - k : Int(shapeStart[s]) + k - 1]
    }

    /// Every point's node id of edge `e` (``nodeID(ofEdge:point:source:)`` for each point in
    /// turn), its source `source`, appended to `ids` in one pass over its shape.
    func appendNodeIDs(ofEdge e: Int, source: UInt32, to ids: inout [Int64]) {
        let s = segment(of: e)
        let shape = Int(shapeStart[s])..<Int(shapeStart[s + 1])
        ids.append(vertexNodeIDs[Int(source)])
        if isReversed(e) {
            for i in shape.reversed() { ids.append(shapeNodeIDs[i]) }
        } else {
            for i in shape { ids.append(shapeNodeIDs[i]) }
        }
        ids.append(vertexNodeIDs[Int(edgeTarget[e])])
    }

    /// How many shape points the edge has between its source and target vertices.
    @inlinable
    public func interiorPointCount(of edge: Int) -> Int {
        let s = segment(of: edge)
        return Int(shapeStart[s + 1]) - Int(shapeStart[s])
    }

    /// The edge's `k`-th shape point between its vertices (0 the first after its source), in the
    /// direction the edge is driven, without building the shape.
    @inlinable
    public func interiorPoint(of edge: Int, _ k: Int) -> Coordinate {
        let s = segment(of: edge)
        let i = isReversed(edge) ? Int(shapeStart[s + 1]) - 1 - k : Int(shapeStart[s]) + k
        return Coordinate(latitude: FixedPoint.decode(shapeLatitudes[i]),
                          longitude: FixedPoint.decode(shapeLongitudes[i]))
    }

    /// The second point of the edge's geometry (first after its source), without building the whole shape.
    public func secondPoint(of edge: Int) -> Coordinate {
        interiorPointCount(of: edge) > 0 ? interiorPoint(of: edge, 0) : coordinate(of: edgeTarget[edge])
    }

    /// The last point of the edge's geometry before its target vertex.
    public func penultimatePoint(of edge: Int) -> Coordinate {
        let n = interiorPointCount(of: edge)
        return n > 0 ? interiorPoint(of: edge, n - 1) : coordinate(of: source(of: edge))
    }

    /// Appends the edge's geometry (as ``geometry(of:)``) to `points`, without its first point when
    /// `skippingSource` (joining it to a line that already ends there), and without building
    /// arrays on the way.
    @inlinable
    public func appendGeometry(of edge: Int, to points: inout [Coordinate], skippingSource: Bool) {
        if !skippingSource { points.append(coordinate(of: source(of: edge))) }
        let s = segment(of: edge)
        let lower = Int(shapeStart[s]), upper = Int(shapeStart[s + 1])
        func point(_ i: Int) -> Coordinate {
            Coordinate(latitude: FixedPoint.decode(shapeLatitudes[i]), longitude: FixedPoint.decode(shapeLongitudes[i]))
        }
        if isReversed(edge) {
            var i = upper - 1
            while i >= lower { points.append(point(i)); i -= 1 }
        } else {
            for i in lower..<upper { points.append(point(i)) }
        }
        points.append(coordinate(of: edgeTarget[edge]))
    }

    /// The edge's full geometry from its source to its target vertex.
    public func geometry(of edge: Int) -> [Coordinate] {
        let s = segment(of: edge)
        let shape = Int(shapeStart[s])..<Int(shapeStart[s + 1])
        // (One array, filled in order: a route cuts a partly driven edge from it at every leg.)
        var points: [Coordinate] = []
        points.reserveCapacity(shape.count + 2)
        points.append(coordinate(of: source(of: edge)))
        func point(_ k: Int) -> Coordinate {
            Coordinate(latitude: FixedPoint.decode(shapeLatitudes[k]), longitude: FixedPoint.decode(shapeLongitudes[k]))
        }
        if isReversed(edge) {
            for k in shape.reversed() { points.append(point(k)) }
        } else {
            for k in shape { points.append(point(k)) }
        }
        points.append(coordinate(of: edgeTarget[edge]))
        return points
    }
}

/// The side of the road traffic keeps to.
/// Who a graph is for: OSRM's profiles (`car.lua`, `bicycle.lua`, `foot.lua`), one per graph.
public enum TravelProfile: UInt8, Sendable, Equatable, CaseIterable, CustomStringConvertible {
    case car = 0
    case bicycle = 1
    case foot = 2

    /// The profile's name (`waymark build --profile`).
    public var description: String {
        switch self {
        case .car: "car"
        case .bicycle: "bicycle"
        case .foot: "foot"
        }
    }

    /// The names an OSRM URL may give it (`/route/v1/{profile}/…`), as OSRM's demo servers
    /// name their profiles.
    public var urlNames: [String] {
        switch self {
        case .car: ["car", "driving"]
        case .bicycle: ["bicycle", "bike", "cycling"]
        case .foot: ["foot", "walking"]
        }
    }

    /// The fastest plausible travel, m/s, for map matching with timestamps (the profile's
    /// `max_speed_for_map_matching`).
    public var maxSpeedForMatching: Double {
        switch self {
        case .car: 180 / 3.6
        case .bicycle, .foot: 40 / 3.6
        }
    }

    public init?(name: String) {
        guard let match = TravelProfile.allCases.first(where: { $0.description == name }) else { return nil }
        self = match
    }
}

public enum DrivingSide: UInt8, Sendable, Equatable, CaseIterable {
    /// Most of the world.
    case right = 0
    /// Britain, Ireland, Japan, Australia, India, South Africa, …
    case left = 1

    /// The side most of these points keep to (``LeftHandTraffic``); right for none. At most
    /// 4,096 of them are looked at, evenly spread through the list.
    public init<Points: RandomAccessCollection>(mostOf points: Points) where Points.Element == Coordinate {
        let step = max(1, points.count / 4096)
        var left = 0, total = 0
        var i = points.startIndex
        while i != points.endIndex {
            total += 1
            if LeftHandTraffic.contains(points[i]) { left += 1 }
            i = points.index(i, offsetBy: step, limitedBy: points.endIndex) ?? points.endIndex
        }
        self = 2 * left > total ? .left : .right
    }
}

/// What happened while building a graph: counts a user can check against the input.
public struct BuildReport: Sendable, Equatable {
    public var osmNodes = 0
    public var osmWays = 0
    public var osmRelations = 0
    public var routableWays = 0
    public var graphNodes = 0
    public var graphEdges = 0
    public var segments = 0
    /// Node-to-node stretches of routable ways lost because a node they reference is not in the file.
    public var droppedSegmentsMissingNodes = 0
    /// Routable ways that lost at least one stretch to a missing node.
    public var waysWithMissingNodes = 0
    /// Stretches that start and end at the same point (repeated node references, closed pieces).
    public var droppedDegenerateSegments = 0
    /// Vertices created by cutting ways at barriers cars cannot pass.
    public var barrierCuts = 0
    /// Stretches no road can be: a length, travel time or weight of ``RoadGraph/valueLimit`` or
    /// more (a node on the far side of the globe, a ferry's duration of years).
    public var droppedAbsurdSegments = 0
    public var restrictionsRead = 0
    public var restrictionsKept = 0
    /// Restrictions that could not be expressed on the graph (via a way, a way not routable, a way
    /// that does not start or end at the via node, a node missing from the file).
    public var restrictionsDropped = 0
    /// Vertices in the largest strongly connected component.
    public var largestComponentNodes = 0
    /// Input size in bytes (as read, compressed or not) and build time in seconds.
    public var inputBytes = 0
    public var buildSeconds = 0.0

    public init() {}

    /// The report's fields in a fixed order, with names (for printing and the graph file).
    public var fields: [(String, Double)] {
        [("osm_nodes", Double(osmNodes)), ("osm_ways", Double(osmWays)), ("osm_relations", Double(osmRelations)),
         ("routable_ways", Double(routableWays)), ("graph_nodes", Double(graphNodes)),
         ("graph_edges", Double(graphEdges)),
         ("segments", Double(segments)), ("dropped_segments_missing_nodes", Double(droppedSegmentsMissingNodes)),
         ("ways_with_missing_nodes", Double(waysWithMissingNodes)),
         ("dropped_degenerate_segments", Double(droppedDegenerateSegments)),
         ("barrier_cuts", Double(barrierCuts)), ("restrictions_read", Double(restrictionsRead)),
         ("restrictions_kept", Double(restrictionsKept)), ("restrictions_dropped", Double(restrictionsDropped)),
         ("largest_component_nodes", Double(largestComponentNodes)), ("input_bytes", Double(inputBytes)),
         ("build_seconds", buildSeconds), ("dropped_absurd_segments", Double(droppedAbsurdSegments))]
    }

    /// The report from its stored fields; nil when a count is not a whole number from 0 to 2⁵³ or
    /// the build time is not a finite, non-negative number (a damaged or crafted file).
    init?(fields values: [Double]) {
        for (i, value) in values.enumerated() {
            let whole = value.isFinite && value >= 0
                && (i == 16 || value == value.rounded() && value <= 9_007_199_254_740_992)
            if !whole { return nil }
        }
        var r = BuildReport()
        func v(_ i: Int) -> Int { i < values.count ? Int(values[i]) : 0 }
        r.osmNodes = v(0); r.osmWays = v(1); r.osmRelations = v(2); r.routableWays = v(3)
        r.graphNodes = v(4); r.graphEdges = v(5); r.segments = v(6); r.droppedSegmentsMissingNodes = v(7)
        r.waysWithMissingNodes = v(8); r.droppedDegenerateSegments = v(9); r.barrierCuts = v(10)
        r.restrictionsRead = v(11); r.restrictionsKept = v(12); r.restrictionsDropped = v(13)
        r.largestComponentNodes = v(14); r.inputBytes = v(15); r.buildSeconds = values.count > 16 ? values[16] : 0
        r.droppedAbsurdSegments = v(17) // (files from before it have 17 fields)
        self = r
    }

    /// The report as aligned lines.
    public var text: String {
        let pairs = fields
        let width = pairs.map(\.0.count).max() ?? 0
        return pairs.map { name, value in
            let shown = name == "build_seconds" ? String(format: "%.3f", value) : String(Int(value))
            return name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + shown
        }.joined(separator: "\n") + "\n"
    }
}
