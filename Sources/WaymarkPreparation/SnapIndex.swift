import Foundation
import WaymarkGeo
import WaymarkGraph
import WaymarkSupport

/// Where a coordinate lands on the road network: a point on a segment's geometry.
public struct Snap: Sendable, Equatable {
    /// The segment (way piece) snapped to.
    public var segment: Int
    /// Metres from the segment's stored start vertex along its shape to the snapped point.
    public var offset: Double
    /// The segment's length in metres.
    public var length: Double
    /// The snapped point.
    public var coordinate: Coordinate
    /// Metres from the input coordinate to the snapped point.
    public var distance: Double
    /// The strongly connected component the segment lies in (`UInt32.max` when its ends lie in
    /// different ones), and whether that component is tiny (see ``SnapIndex/tinyComponentSize``).
    public var component: UInt32 = .max
    public var isInTinyComponent = true
    /// The directions a route may use the point in (OSRM's phantom node's enabled segments):
    /// along the segment's stored direction, and against it. A one-way road, a bearing or an
    /// approach leaves one.
    public var forward = true
    public var backward = true

    public init(segment: Int, offset: Double, length: Double, coordinate: Coordinate, distance: Double,
                component: UInt32 = .max, isInTinyComponent: Bool = true, forward: Bool = true, backward: Bool = true) {
        self.segment = segment
        self.offset = offset
        self.length = length
        self.coordinate = coordinate
        self.distance = distance
        self.component = component
        self.isInTinyComponent = isInTinyComponent
        self.forward = forward
        self.backward = backward
    }
}

/// Which roads and directions a waypoint may snap to: OSRM's `bearings`, `approaches` and
/// `snapping` options for one coordinate.
public struct SnapFilter: Sendable, Equatable {
    /// The side of the road a route must reach or leave the point on (OSRM's `approaches`).
    public enum Approach: String, Sendable, CaseIterable {
        /// Either side.
        case unrestricted
        /// The point on the driving side (the kerb): on a two-way road, the direction that has it.
        case curb
        /// The point on the other side.
        case opposite
    }

    /// Degrees clockwise from north (0–360) a direction of travel along the road must lie within
    /// `range` of (0–180), as OSRM's `bearings=value,range`.
    public var bearing: (value: Int, range: Int)?
    public var approach: Approach
    /// Roads a waypoint does not usually start on (ferries, private service roads) too (OSRM's
    /// `snapping=any`).
    public var anyRoad: Bool
    /// Roads of these classes are not snapped to (a route asked to keep off them: OSRM's
    /// `exclude`).
    public var excluded: ExcludedClasses = []

    public init(bearing: (value: Int, range: Int)? = nil, approach: Approach = .unrestricted, anyRoad: Bool = false,
                excluded: ExcludedClasses = []) {
        self.bearing = bearing
        self.approach = approach
        self.anyRoad = anyRoad
        self.excluded = excluded
    }

    public static let standard = SnapFilter()

    public static func == (a: SnapFilter, b: SnapFilter) -> Bool {
        a.bearing?.value == b.bearing?.value && a.bearing?.range == b.bearing?.range && a.approach == b.approach
            && a.anyRoad == b.anyRoad && a.excluded == b.excluded
    }

    /// OSRM's `value,range` (two integers); nil when it is not of that form. Whether the numbers
    /// are in range is ``isValid(bearing:)``'s.
    public static func bearing(parsing text: Substring) -> (value: Int, range: Int)? {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2, let value = Int(parts[0]), let range = Int(parts[1]) else { return nil }
        return (value, range)
    }

    /// Whether a bearing's value is 0–360 and its range 0–180.
    public static func isValid(bearing: (value: Int, range: Int)) -> Bool {
        (0...360).contains(bearing.value) && (0...180).contains(bearing.range)
    }

    /// Whether `bearing` (degrees, rounded) lies within the filter's range (OSRM's `CheckInBounds`).
    static func within(_ bearing: Double, value: Int, range: Int) -> Bool {
        if range >= 180 { return true }
        let a = (Int(bearing.rounded()) % 360 + 360) % 360, b = (value % 360 + 360) % 360
        let difference = abs(a - b)
        return min(difference, 360 - difference) <= range
    }
}

/// A uniform grid over every segment's shape pieces, for snapping coordinates to the nearest
/// point on a road (perpendicular projection onto the geometry, not the nearest node).
/// Built once per graph; immutable and `Sendable`. A class: searches reach it through the map's
/// data, and a struct of a dozen arrays would be copied (each array retained and released) there.
public final class SnapIndex: Sendable {
    /// Grid cell size in metres.
    public static let cellSize = 200.0

    private let graph: RoadGraph
    /// Per segment: its stored start and end vertices and its shape (start, interior, end).
    let segmentStart: Column<UInt32>, segmentEnd: Column<UInt32>
    /// The directed edges running along each segment: forward (stored direction) and backward,
    /// `-1` when that direction is not driveable.
    let forwardEdge: Column<Int32>, backwardEdge: Column<Int32>
    /// The strongly connected component both ends of each segment lie in (`UInt32.max` when they
    /// lie in different ones), and whether it is tiny.
    let segmentComponent: Column<UInt32>
    /// (1: tiny, 0: not)
    let segmentInTinyComponent: Column<UInt8>
    /// Components with fewer vertices than this are tiny (OSRM's `small_component_size`): on a map
    /// smaller than this every component is, and each waypoint keeps its nearest road, as in OSRM.
    public static let tinyComponentSize = 1000
    /// Grid cells in CSR form: sorted cell keys, and the pieces of cell k at
    /// `cellPieces[cellStart[k]..<cellStart[k + 1]]`. A piece is a step of a segment's shape
    /// (start, interior points, end), numbered without being stored: segment `s`'s first is
    /// `s + shapeStart[s]` (a segment with `n` interior points has `n + 1`; see ``piece(_:)``).
    let cellKeys: Column<Int64>, cellStart: Column<UInt32>, cellPieces: Column<UInt32>
    /// Per piece, the metres from its segment's start to the piece's end, summed piece by piece
    /// (0 on segments with no edge): a snap reads its offset and its segment's length here
    /// instead of measuring the segment's shape (a trace snaps every fix).
    let pieceEnd: Column<Double>
    /// Per piece, its segment: a snap looks at some seventy pieces, and finding each one's segment
    /// by a binary search over the segments' first pieces cost more than measuring it.
    let pieceSegment: Column<UInt32>
    /// Local planar frame (equirectangular around the graph's middle latitude).
    private let metresPerDegreeLon: Double, metresPerDegreeLat: Double
    /// Smaller cells for small circles, made at the first query that needs them.
    private let fine = MadeOnce<FineCells>()

    public convenience init(graph: RoadGraph) {
        self.init(graph: graph, stored: nil)
    }

    /// Each segment's stored start and end vertices and the directed edges along it (see
    /// ``segmentStart`` and ``forwardEdge``; ``RoadGraph/invalid`` and -1 where there are none).
    struct SegmentEnds: Equatable {
        var start: Column<UInt32>, end: Column<UInt32>
        var forward: Column<Int32>, backward: Column<Int32>
    }

    /// The parts of an index a graph file can hold: the components and the grid, and the
    /// segments' ends (files written before they were stored: read off the graph in one pass).
    struct Stored {
        var segmentComponent: Column<UInt32>, segmentInTinyComponent: Column<UInt8>
        var cellKeys: Column<Int64>, cellStart: Column<UInt32>, cellPieces: Column<UInt32>
        var metresPerDegreeLon: Double, metresPerDegreeLat: Double
        var segmentEnds: SegmentEnds?
        /// (Files written before it was stored: measured at the load.)
        var pieceEnd: Column<Double>?
        /// (Files written before it was stored: listed at the load.)
        var pieceSegment: Column<UInt32>?
    }

    init(graph: RoadGraph, stored: Stored?) {
        self.graph = graph
        let segments = graph.segmentCount
        let ends = stored?.segmentEnds ?? SegmentEnds(graph: graph)
        segmentStart = ends.start; segmentEnd = ends.end; forwardEdge = ends.forward; backwardEdge = ends.backward
        let (start, end) = (ends.start, ends.end)
        if let stored {
            segmentComponent = stored.segmentComponent; segmentInTinyComponent = stored.segmentInTinyComponent
            cellKeys = stored.cellKeys; cellStart = stored.cellStart; cellPieces = stored.cellPieces
            metresPerDegreeLon = stored.metresPerDegreeLon; metresPerDegreeLat = stored.metresPerDegreeLat
            pieceEnd = stored.pieceEnd ?? Column(SnapIndex.pieceEnds(graph, start, end))
            pieceSegment = stored.pieceSegment ?? Column(SnapIndex.pieceSegments(graph))
            return
        }
        let components = graph.stronglyConnectedComponents()
        var size: [UInt32: Int] = [:]
        for c in components.component { size[c, default: 0] += 1 }
        let component: [UInt32] = (0..<segments).map { s in
            guard start[s] != RoadGraph.invalid else { return .max }
            let a = components.component[Int(start[s])], b = components.component[Int(end[s])]
            return a == b ? a : .max
        }
        segmentComponent = Column(component)
        segmentInTinyComponent = Column(component.map { c in
            c == .max || (size[c] ?? 0) < SnapIndex.tinyComponentSize ? 1 : 0
        })

        var sumLat = 0.0
        for lat in graph.latitudes { sumLat += FixedPoint.decode(lat) }
        let midLat = graph.nodeCount > 0 ? sumLat / Double(graph.nodeCount) : 0
        metresPerDegreeLat = Coordinate.earthRadius * .pi / 180
        metresPerDegreeLon = metresPerDegreeLat * cos(midLat * .pi / 180)

        var entries: [(key: Int64, piece: UInt32)] = []
        let lonScale = metresPerDegreeLon, latScale = metresPerDegreeLat
        var shape: [Coordinate] = []
        // Every segment with an edge, ferries and private service roads too: a waypoint snaps
        // there only with OSRM's `snapping=any` (``SnapFilter/anyRoad``).
        for s in 0..<segments where start[s] != RoadGraph.invalid {
            SnapIndex.shape(graph, s, start[s], end[s], into: &shape)
            let first = SnapIndex.firstPiece(of: s, graph)
            for i in 0..<(shape.count - 1) {
                let piece = UInt32(first + i)
                SnapIndex.forEachCell(ofPiece: shape[i], shape[i + 1], cellSize: SnapIndex.cellSize,
                                      lonScale: lonScale, latScale: latScale) { entries.append(($0, piece)) }
            }
        }
        let (keys, starts) = SnapIndex.cells(&entries)
        cellKeys = Column(keys); cellStart = Column(starts); cellPieces = Column(entries.map(\.piece))
        pieceEnd = Column(SnapIndex.pieceEnds(graph, start, end))
        pieceSegment = Column(SnapIndex.pieceSegments(graph))
    }

    /// ``pieceSegment`` listed: each segment's number at each of its pieces.
    static func pieceSegments(_ graph: RoadGraph) -> [UInt32] {
        var segments = [UInt32](repeating: 0, count: pieceCount(graph))
        for s in 0..<graph.segmentCount {
            for p in firstPiece(of: s, graph)..<firstPiece(of: s + 1, graph) { segments[p] = UInt32(s) }
        }
        return segments
    }

    /// ``pieceEnd`` measured: each piece of a segment with an edge, in order, as a snap measured it.
    static func pieceEnds(_ graph: RoadGraph, _ start: Column<UInt32>, _ end: Column<UInt32>) -> [Double] {
        var ends = [Double](repeating: 0, count: pieceCount(graph))
        var shape: [Coordinate] = []
        for s in 0..<graph.segmentCount where start[s] != RoadGraph.invalid {
            SnapIndex.shape(graph, s, start[s], end[s], into: &shape)
            let first = firstPiece(of: s, graph)
            var length = 0.0, cosine = shape[0].cosLatitude
            for j in 0..<(shape.count - 1) {
                let next = shape[j + 1].cosLatitude
                length += shape[j].distance(to: shape[j + 1], cosines: (cosine, next))
                ends[first + j] = length
                cosine = next
            }
        }
        return ends
    }

    /// Entries in piece order sorted by key (equal keys keep it), and the cells they make: each
    /// key once, and where its entries start (one more at the end).
    static func cells(_ entries: inout [(key: Int64, piece: UInt32)]) -> (keys: [Int64], starts: [UInt32]) {
        sortByKey(&entries)
        var keys: [Int64] = [], starts: [UInt32] = []
        for (i, entry) in entries.enumerated() where keys.last != entry.key {
            keys.append(entry.key)
            starts.append(UInt32(i))
        }
        starts.append(UInt32(entries.count))
        return (keys, starts)
    }

    /// The keys of the cells of `cellSize` metres a piece from `a` to `b` is listed in: a short
    /// piece's bounding box; a long one's cells at points a quarter cell apart, the short way round
    /// the globe, each point's cell on its own side of 180° (its bounding box would be enormous: a
    /// piece across 180° spans the whole world in x).
    static func forEachCell(ofPiece a: Coordinate, _ b: Coordinate, cellSize: Double, lonScale: Double,
                            latScale: Double, _ body: (Int64) -> Void) {
        func cell(_ c: Coordinate) -> (Int64, Int64) {
            (Int64((c.longitude * lonScale / cellSize).rounded(.down)),
             Int64((c.latitude * latScale / cellSize).rounded(.down)))
        }
        let (ax, ay) = cell(a), (bx, by) = cell(b)
        if abs(b.longitude - a.longitude) <= 180 && abs(bx - ax) <= 2 && abs(by - ay) <= 2 {
            for x in min(ax, bx)...max(ax, bx) {
                for y in min(ay, by)...max(ay, by) { body(key(x, y)) }
            }
            return
        }
        let steps = max(1, Int((a.distance(to: b) / (cellSize / 4)).rounded(.up)))
        var last: Int64?
        for k in 0...steps {
            let (x, y) = cell(a.interpolated(to: b, fraction: Double(k) / Double(steps)))
            if key(x, y) != last { body(key(x, y)) }
            last = key(x, y)
        }
    }

    /// The number of segment `s`'s first piece (see ``cellPieces``).
    @inline(__always)
    static func firstPiece(of s: Int, _ graph: RoadGraph) -> Int { s + Int(graph.shapeStart[s]) }

    /// How many pieces the graph's segments have in all (numbers `0..<pieceCount`).
    static func pieceCount(_ graph: RoadGraph) -> Int { firstPiece(of: graph.segmentCount, graph) }

    /// The segment of piece `p` and the index in the segment's shape of the piece's first point:
    /// the last segment whose first piece is `p` or before it.
    @inline(__always)
    func piece(_ p: Int) -> (segment: Int, index: Int) {
        let s = Int(pieceSegment[p])
        return (s, p - SnapIndex.firstPiece(of: s, graph))
    }

    static func key(_ x: Int64, _ y: Int64) -> Int64 { (x << 32) ^ (y & 0xFFFF_FFFF) }

    /// The entries in ascending key order, equal keys in the order given (see ``sortByKey(_:)``).
    static func sortedByKey(_ entries: [(key: Int64, piece: UInt32)]) -> [(key: Int64, piece: UInt32)] {
        var sorted = entries
        sortByKey(&sorted)
        return sorted
    }

    /// Sorts the entries in ascending key order, equal keys in the order given: a radix sort, 16
    /// bits a pass from the lowest (the sign bit flipped, so negative keys come first), skipping a
    /// pass where every key has the same digit. Linear, where a comparison sort of a city's cell
    /// entries took much of the index's build; one buffer beside the entries (a country's are
    /// hundreds of MB).
    static func sortByKey(_ entries: inout [(key: Int64, piece: UInt32)]) {
        let n = entries.count
        guard n > 1 else { return }
        var other: [(key: Int64, piece: UInt32)] = []
        var counts = [Int](repeating: 0, count: 1 << 16 + 1)
        @inline(__always) func digit(_ key: Int64, _ shift: UInt64) -> Int {
            Int(truncatingIfNeeded: ((UInt64(bitPattern: key) ^ (1 << 63)) >> shift) & 0xFFFF)
        }
        for pass in 0..<4 {
            let shift = UInt64(16 * pass)
            let moved: Bool = counts.withUnsafeMutableBufferPointer { counts in
                counts.update(repeating: 0)
                entries.withUnsafeBufferPointer { src in
                    for e in src { counts[digit(e.key, shift) + 1] += 1 }
                }
                if counts.contains(n) { return false } // one digit for all: nothing to move
                for d in 1..<counts.count { counts[d] += counts[d - 1] }
                if other.isEmpty { other = Array(repeating: (0, 0), count: n) }
                entries.withUnsafeBufferPointer { src in
                    other.withUnsafeMutableBufferPointer { dst in
                        for e in src {
                            let d = digit(e.key, shift)
                            dst[counts[d]] = e
                            counts[d] += 1
                        }
                    }
                }
                return true
            }
            if moved { swap(&entries, &other) }
        }
    }

    /// A segment's full shape in its stored direction.
    static func shape(_ graph: RoadGraph, _ s: Int, _ start: UInt32, _ end: UInt32) -> [Coordinate] {
        var points: [Coordinate] = []
        shape(graph, s, start, end, into: &points)
        return points
    }

    /// ``shape(_:_:_:_:)`` into `points` (emptied first; its storage kept between segments).
    static func shape(_ graph: RoadGraph, _ s: Int, _ start: UInt32, _ end: UInt32, into points: inout [Coordinate]) {
        points.removeAll(keepingCapacity: true)
        points.reserveCapacity(Int(graph.shapeStart[s + 1] - graph.shapeStart[s]) + 2)
        points.append(graph.coordinate(of: start))
        for i in Int(graph.shapeStart[s])..<Int(graph.shapeStart[s + 1]) {
            points.append(Coordinate(latitude: FixedPoint.decode(graph.shapeLatitudes[i]),
                                     longitude: FixedPoint.decode(graph.shapeLongitudes[i])))
        }
        points.append(graph.coordinate(of: end))
    }

    /// The nearest point on a road within `maxDistance` metres, or nil. A road in a big strongly
    /// connected component is preferred: the nearest road is taken only when it is in one or no
    /// road of one lies within `maxDistance` (a stub cut off by a gate or a one-way trap would give
    /// no route). For routes, ``candidates(near:maxDistance:)`` and ``choose(_:)`` apply OSRM's
    /// whole rule.
    public func nearest(to c: Coordinate, maxDistance: Double, filter: SnapFilter = .standard) -> Snap? {
        nearest(to: c, maxDistance: maxDistance, bigComponentsOnly: true, filter: filter)
            ?? nearest(to: c, maxDistance: maxDistance, bigComponentsOnly: false, filter: filter)
    }

    /// The nearest point on any road within `maxDistance`, and, when it lies in a tiny component,
    /// the nearest on a road of a big one (OSRM's phantom node and its alternative); nil when no
    /// road is in reach.
    public func candidates(near c: Coordinate, maxDistance: Double,
                           filter: SnapFilter = .standard) -> (nearest: Snap, big: Snap?)? {
        guard let nearest = nearest(to: c, maxDistance: maxDistance, bigComponentsOnly: false, filter: filter) else {
            return nil
        }
        guard nearest.isInTinyComponent else { return (nearest, nil) }
        return (nearest, self.nearest(to: c, maxDistance: maxDistance, bigComponentsOnly: true, filter: filter))
    }

    /// Where a route's waypoints snap, as OSRM decides (`SnapPhantomNodes`): each at its nearest
    /// road when all of them are nearest to roads of one tiny component (a route inside it), or
    /// when none has a big alternative; otherwise each at its big-component alternative where it
    /// has one.
    public static func choose(_ candidates: [(nearest: Snap, big: Snap?)]) -> [Snap] {
        guard let first = candidates.first?.nearest else { return [] }
        let noAlternatives = candidates.allSatisfy { $0.big == nil }
        let allInOneTinyComponent = first.isInTinyComponent && first.component != .max
            && candidates.dropFirst().allSatisfy { $0.nearest.component == first.component }
        if noAlternatives || allInOneTinyComponent { return candidates.map(\.nearest) }
        return candidates.map { $0.big ?? $0.nearest }
    }

    /// The nearest point on any road (or only on roads of big components) within `maxDistance`.
    public func nearest(to c: Coordinate, maxDistance: Double, bigComponentsOnly: Bool,
                        filter: SnapFilter = .standard) -> Snap? {
        let cx = c.longitude * metresPerDegreeLon, cy = c.latitude * metresPerDegreeLat
        let (reach, searched) = SnapIndex.reach(maxDistance)
        let x0 = Int64((cx / SnapIndex.cellSize).rounded(.down)), y0 = Int64((cy / SnapIndex.cellSize).rounded(.down))
        var best: (distance: Double, piece: Int, t: Double, directions: (Bool, Bool))?
        func consider(_ s: Int, _ i: Int, _ piece: Int) {
            if bigComponentsOnly && segmentInTinyComponent[s] != 0 { return }
            let (d, t) = measure(s, i, c, cx, cy)
            guard best == nil || d < best!.distance else { return }
            let directions = self.directions(s, i, c, filter)
            if directions.0 || directions.1 { best = (d, piece, t, directions) }
        }
        func visit(_ x: Int64, _ y: Int64) {
            guard let k = binarySearch(SnapIndex.key(x, y)) else { return }
            // A piece spanning several cells is measured once per cell: cheaper than remembering it.
            for slot in Int(cellStart[k])..<Int(cellStart[k + 1]) {
                let piece = Int(cellPieces[slot])
                let (s, i) = self.piece(piece)
                consider(s, i, piece)
            }
        }
        // Once the best match is nearer than the next ring can be, stop.
        let settled = SnapIndex.rings(around: x0, y0, reach: searched, visit) { r in
            best.map { $0.distance <= Double(r) * SnapIndex.cellSize } ?? false
        }
        // Farther than the rings go: every piece once (a point far from all roads, with a radius
        // that reaches them, as OSRM's unlimited one).
        if !settled && reach > searched { forEachPiece(consider) }
        guard let best, best.distance <= maxDistance else { return nil }
        return snap(c, piece: best.piece, t: best.t, directions: best.directions)
    }

    /// The directions of segment `s` a waypoint at `c` nearest to its piece `i` may use under
    /// `filter` (OSRM's `HasValidEdge`, `CheckSegmentBearing` and `CheckApproach`), by the piece's
    /// own bearing and side.
    private func directions(_ s: Int, _ i: Int, _ c: Coordinate, _ filter: SnapFilter) -> (Bool, Bool) {
        var forward = forwardEdge[s] >= 0, backward = backwardEdge[s] >= 0
        if !filter.anyRoad && EdgeFlags(rawValue: graph.segmentFlags[s]).contains(.notStartpoint) {
            return (false, false)
        }
        if !filter.excluded.isEmpty {
            forward = forward && !graph.isOf(filter.excluded, edge: Int(forwardEdge[s]))
            backward = backward && !graph.isOf(filter.excluded, edge: Int(backwardEdge[s]))
        }
        if filter.bearing == nil && filter.approach == .unrestricted { return (forward, backward) }
        let (a, b) = endpoints(s, i)
        if let (value, range) = filter.bearing {
            let along = a.direction(to: b), against = along >= 180 ? along - 180 : along + 180
            forward = forward && SnapFilter.within(along, value: value, range: range)
            backward = backward && SnapFilter.within(against, value: value, range: range)
        }
        if filter.approach != .unrestricted && forwardEdge[s] >= 0 && backwardEdge[s] >= 0 {
            // Which side of the piece the point lies on, in plain degrees as OSRM's `isCCW`.
            let cross = (b.longitude - a.longitude) * (c.latitude - a.latitude)
                - (b.latitude - a.latitude) * (c.longitude - a.longitude)
            var onTheRight = !(cross > 0)
            if graph.drivingSide == .left { onTheRight.toggle() }
            if filter.approach == .opposite { onTheRight.toggle() }
            forward = forward && onTheRight
            backward = backward && !onTheRight
        }
        return (forward, backward)
    }

    /// The OpenStreetMap ids of the two nodes of the piece of road a snapped point lies on, in the
    /// road's stored direction (OSRM's nearest `nodes`); nil when the graph keeps no node ids.
    public func nodeIDs(of snap: Snap) -> (Int64, Int64)? {
        let s = snap.segment
        guard !graph.vertexNodeIDs.isEmpty, segmentStart[s] != RoadGraph.invalid else { return nil }
        let shape = SnapIndex.shape(graph, s, segmentStart[s], segmentEnd[s])
        var along = 0.0, k = 0
        while k < shape.count - 2 {
            let next = along + shape[k].distance(to: shape[k + 1])
            if next > snap.offset { break }
            along = next
            k += 1
        }
        // (Points counted along the segment's stored direction: its backward edge runs the other way.)
        func id(_ i: Int) -> Int64 {
            forwardEdge[s] >= 0 ? graph.nodeID(ofEdge: Int(forwardEdge[s]), point: i)
                : graph.nodeID(ofEdge: Int(backwardEdge[s]), point: shape.count - 1 - i)
        }
        return (id(k), id(k + 1))
    }

    /// Rings searched cell by cell before the rest of the map is measured piece by piece.
    static let ringLimit: Int64 = 128

    /// The rings a radius reaches (as many as can be counted) and those searched cell by cell.
    static func reach(_ maxDistance: Double) -> (reach: Int64, searched: Int64) {
        let rings = maxDistance / cellSize
        let reach = rings.isFinite && rings < 1e15 ? Int64(max(0, rings).rounded(.up)) : Int64(1e15)
        return (reach, min(reach, ringLimit))
    }

    /// Every piece of every segment with a shape: segment, index along it, piece number.
    private func forEachPiece(_ body: (Int, Int, Int) -> Void) {
        for s in 0..<graph.segmentCount where segmentStart[s] != RoadGraph.invalid {
            let first = SnapIndex.firstPiece(of: s, graph)
            let interior = Int(graph.shapeStart[s + 1]) - Int(graph.shapeStart[s])
            for i in 0...interior { body(s, i, first + i) }
        }
    }

    /// The nearest points on up to `count` different road segments within `maxDistance` metres,
    /// nearest first (OSRM's nearest service with `number`).
    public func nearest(to c: Coordinate, maxDistance: Double, count: Int, filter: SnapFilter = .standard) -> [Snap] {
        guard count > 0 else { return [] }
        let cx = c.longitude * metresPerDegreeLon, cy = c.latitude * metresPerDegreeLat
        let (reach, searched) = SnapIndex.reach(maxDistance)
        let x0 = Int64((cx / SnapIndex.cellSize).rounded(.down)), y0 = Int64((cy / SnapIndex.cellSize).rounded(.down))
        var best = NearestPerSegment()
        func consider(_ s: Int, _ i: Int, _ piece: Int) {
            let (d, t) = measure(s, i, c, cx, cy)
            guard d <= maxDistance, best.distance(of: s).map({ d < $0 }) ?? true else { return }
            let directions = self.directions(s, i, c, filter)
            if directions.0 || directions.1 { best.set((s, d, piece, t, directions, -1)) }
        }
        func visit(_ x: Int64, _ y: Int64) {
            guard let k = binarySearch(SnapIndex.key(x, y)) else { return }
            for slot in Int(cellStart[k])..<Int(cellStart[k + 1]) {
                let piece = Int(cellPieces[slot])
                let (s, i) = self.piece(piece)
                consider(s, i, piece)
            }
        }
        if maxDistance <= 2 * FineCells.cellSize {
            return nearestInFineCells(to: c, maxDistance: maxDistance, count: count, filter: filter)
        } else if maxDistance <= SnapIndex.cellSize / 2 {
            // A small circle (a few tens of metres): only the cells its box overlaps, not
            // the ring of nine around it. (A long piece is listed in the cells of points an eighth
            // of a cell apart along it: one of them lies that much beyond the circle at most.)
            let margin = maxDistance + SnapIndex.cellSize / 8
            func cells(_ v: Double) -> ClosedRange<Int64> {
                Int64(((v - margin) / SnapIndex.cellSize).rounded(.down))...Int64(
                    ((v + margin) / SnapIndex.cellSize).rounded(.down))
            }
            for x in cells(cx) { for y in cells(cy) { visit(x, y) } }
        } else {
            // Once the count-th nearest is nearer than the next ring can be, stop.
            let settled = SnapIndex.rings(around: x0, y0, reach: searched, visit) { r in
                best.found.count >= count
                    && best.found.map(\.distance).sorted()[count - 1] <= Double(r) * SnapIndex.cellSize
            }
            if !settled && reach > searched { forEachPiece(consider) }
        }
        return snaps(c, &best, count: count)
    }

    /// ``nearest(to:maxDistance:count:filter:)`` for map matching's circle at every fix: the
    /// smaller cells its box overlaps (pieces are listed as in the index's own cells, so the same
    /// margin holds). Written out as loops: per fix, closures' captures and a growing list cost
    /// more than the pieces measured.
    private func nearestInFineCells(to c: Coordinate, maxDistance: Double, count: Int,
                                    filter: SnapFilter) -> [Snap] {
        let fine = self.fine.value {
            FineCells(self, graph: graph, lonScale: metresPerDegreeLon, latScale: metresPerDegreeLat)
        }
        let cx = c.longitude * metresPerDegreeLon, cy = c.latitude * metresPerDegreeLat
        let margin = maxDistance + FineCells.cellSize / 8
        func cells(_ v: Double) -> ClosedRange<Int64> {
            Int64(((v - margin) / FineCells.cellSize).rounded(.down))...Int64(
                ((v + margin) / FineCells.cellSize).rounded(.down))
        }
        var best = NearestPerSegment(capacity: 16)
        // (Pieces surely beyond the circle are left before their square root: past this square the
        // root exceeds the radius whatever the rounding.)
        let beyond = maxDistance * maxDistance * (1 + 1e-9)
        for x in cells(cx) {
            for y in cells(cy) {
                guard let entries = fine.cell(x, y) else { continue }
                for j in entries {
                    let entry = fine.entries[j]
                    let (square, t) = measureSquared(entry.a.coordinate, entry.b.coordinate, c, cx, cy)
                    guard square <= beyond else { continue }
                    let s = Int(entry.segment), i = Int(entry.index), d = square.squareRoot()
                    guard d <= maxDistance, best.distance(of: s).map({ d < $0 }) ?? true else { continue }
                    let directions = self.directions(s, i, c, filter)
                    if directions.0 || directions.1 {
                        best.set((s, d, SnapIndex.firstPiece(of: s, graph) + i, t, directions, j))
                    }
                }
            }
        }
        return snaps(c, &best, count: count, fine: fine)
    }

    /// The snaps of the `count` nearest segments found, nearest first (equally near: by segment).
    /// (`fine`: the cells the entries found were read from.)
    private func snaps(_ c: Coordinate, _ best: inout NearestPerSegment, count: Int,
                       fine: FineCells? = nil) -> [Snap] {
        let found = best.takeNearestFirst()
        let n = min(count, found.count), cosine = c.cosLatitude
        var result: [Snap] = []
        result.reserveCapacity(n)
        for k in 0..<n {
            let f = found[k]
            // (The piece's points where it was read, not from the graph's columns again.)
            let ends = f.entry >= 0 ? fine.map { ($0.entries[f.entry].a.coordinate, $0.entries[f.entry].b.coordinate) }
                : nil
            result.append(snap(c, piece: f.piece, t: f.t, directions: f.directions, cosine: cosine, ends: ends))
        }
        return result
    }

    /// Visits the cells in square rings outwards from (`x0`, `y0`), ring 0 the cell itself, up
    /// to `reach` rings, stopping after a ring where `enough(r)` says the rings so far settle it.
    /// Whether `enough` settled it within `reach` rings.
    @discardableResult
    private static func rings(around x0: Int64, _ y0: Int64, reach: Int64,
                              _ visit: (Int64, Int64) -> Void, until enough: (Int64) -> Bool) -> Bool {
        for r in 0...reach {
            if r == 0 {
                visit(x0, y0)
            } else {
                for x in (x0 - r)...(x0 + r) { visit(x, y0 - r); visit(x, y0 + r) }
                for y in (y0 - r + 1)...(y0 + r - 1) { visit(x0 - r, y); visit(x0 + r, y) }
            }
            if enough(r) { return true }
        }
        return false
    }

    /// Metres from `c` (at `cx`, `cy` in the index's metric plane) to piece `i` of segment `s`,
    /// and where along it.
    private func measure(_ s: Int, _ i: Int, _ c: Coordinate, _ cx: Double, _ cy: Double) -> (Double, Double) {
        let (a, b) = endpoints(s, i)
        return measure(a, b, c, cx, cy)
    }

    /// Metres from `c` (at `cx`, `cy` in the index's metric plane) to the piece from `a` to `b`,
    /// and where along it.
    @inline(__always)
    private func measure(_ a: Coordinate, _ b: Coordinate, _ c: Coordinate, _ cx: Double,
                         _ cy: Double) -> (Double, Double) {
        let (square, t) = measureSquared(a, b, c, cx, cy)
        return (square.squareRoot(), t)
    }

    /// ``measure(_:_:_:_:_:)``'s distance squared, and where along the piece.
    @inline(__always)
    private func measureSquared(_ a: Coordinate, _ b: Coordinate, _ c: Coordinate, _ cx: Double,
                                _ cy: Double) -> (Double, Double) {
        func near(_ longitude: Double) -> Double {
            let d = longitude - c.longitude
            return d > 180 ? longitude - 360 : d < -180 ? longitude + 360 : longitude
        }
        let ax = near(a.longitude) * metresPerDegreeLon - cx, ay = a.latitude * metresPerDegreeLat - cy
        let bx = near(b.longitude) * metresPerDegreeLon - cx, by = b.latitude * metresPerDegreeLat - cy
        let dx = bx - ax, dy = by - ay
        let t = dx == 0 && dy == 0 ? 0 : max(0, min(1, -(ax * dx + ay * dy) / (dx * dx + dy * dy)))
        let ex = ax + t * dx, ey = ay + t * dy
        return (ex * ex + ey * ey, t)
    }

    /// The snap at fraction `t` along `piece`; `cosine`: `c`'s ``Coordinate/cosLatitude``, and
    /// `ends`, the piece's points, where known already.
    private func snap(_ c: Coordinate, piece: Int, t: Double, directions: (Bool, Bool), cosine: Double? = nil,
                      ends: (Coordinate, Coordinate)? = nil) -> Snap {
        let (s, i) = self.piece(piece)
        // The offset: the pieces before this one, summed in order; the length: all of them.
        var offset = i > 0 ? pieceEnd[piece - 1] : 0
        let length = pieceEnd[SnapIndex.firstPiece(of: s + 1, graph) - 1]
        let (a, b) = ends ?? endpoints(s, i)
        let point = a.interpolated(to: b, fraction: t), pointCosine = point.cosLatitude
        offset += a.distance(to: point, cosines: (a.cosLatitude, pointCosine))
        return Snap(segment: s, offset: min(offset, length), length: length, coordinate: point,
                    distance: c.distance(to: point, cosines: (cosine ?? c.cosLatitude, pointCosine)),
                    component: segmentComponent[s], isInTinyComponent: segmentInTinyComponent[s] != 0,
                    forward: directions.0, backward: directions.1)
    }

    private func endpoints(_ s: Int, _ i: Int) -> (Coordinate, Coordinate) {
        let (a, b) = fixedEndpoints(s, i)
        return (a.coordinate, b.coordinate)
    }

    /// The vertex edge `e` leaves, read off its segment's ends (``RoadGraph/source(of:)`` finds it
    /// by a binary search over the vertices, a cache miss a step: a table's seeds ask at every search).
    package func source(ofEdge e: Int) -> UInt32 {
        let s = graph.segment(of: e)
        let v = graph.isReversed(e) ? segmentEnd[s] : segmentStart[s]
        return v != RoadGraph.invalid ? v : graph.source(of: e)
    }

    /// The two points of piece `i` of segment `s` as the graph stores them.
    func fixedEndpoints(_ s: Int, _ i: Int) -> (FixedPoint.Pair, FixedPoint.Pair) {
        let interior = Int(graph.shapeStart[s + 1]) - Int(graph.shapeStart[s])
        func point(_ j: Int) -> FixedPoint.Pair {
            if j == 0 { return FixedPoint.Pair(vertex: segmentStart[s], of: graph) }
            if j == interior + 1 { return FixedPoint.Pair(vertex: segmentEnd[s], of: graph) }
            let k = Int(graph.shapeStart[s]) + j - 1
            return FixedPoint.Pair(latitude: graph.shapeLatitudes[k], longitude: graph.shapeLongitudes[k])
        }
        return (point(i), point(i + 1))
    }

    private func binarySearch(_ key: Int64) -> Int? {
        var low = 0, high = cellKeys.count
        while low < high {
            let mid = (low + high) / 2
            if cellKeys[mid] < key { low = mid + 1 } else { high = mid }
        }
        return low < cellKeys.count && cellKeys[low] == key ? low : nil
    }
}

extension SnapIndex.SegmentEnds {
    /// Read off the graph, in one pass over its edges.
    init(graph: RoadGraph) {
        let segments = graph.segmentCount
        var start = [UInt32](repeating: RoadGraph.invalid, count: segments), end = start
        var forward = [Int32](repeating: -1, count: segments), backward = forward
        for v in 0..<UInt32(graph.nodeCount) {
            for e in graph.edges(from: v) {
                let s = graph.segment(of: e)
                if graph.isReversed(e) {
                    backward[s] = Int32(e)
                    start[s] = graph.edgeTarget[e]; end[s] = v
                } else {
                    forward[s] = Int32(e)
                    start[s] = v; end[s] = graph.edgeTarget[e]
                }
            }
        }
        self.init(start: Column(start), end: Column(end), forward: Column(forward), backward: Column(backward))
    }
}

/// Why a stored snap index was refused.
@usableFromInline package struct SnapIndexFileError: Error, CustomStringConvertible {
    var reason: String
    @usableFromInline package var description: String { "stored snap index: \(reason)" }
}

extension SnapIndex {
    /// Its format (2: pieces numbered by their segments, not stored; 3: the largest component
    /// tiny too when small, as OSRM; 4: roads waypoints do not usually start on indexed too), the
    /// cell size and the tiny-component size: an index stored under others is built again rather
    /// than used.
    static var parameters: [Double] { [4, cellSize, Double(tinyComponentSize)] }

    /// The index's components and grid as graph-file sections.
    @usableFromInline package var fileSections: [GraphFile.Section] {
        [.init("XPRM", SnapIndex.parameters + [metresPerDegreeLon, metresPerDegreeLat]),
         .init("XCMP", segmentComponent), .init("XTNY", segmentInTinyComponent),
         .init("XCKY", cellKeys), .init("XCST", cellStart), .init("XCPC", cellPieces),
         // Each segment's ends and edges, so that a load uses them in place instead of reading
         // them off every edge of the graph.
         .init("XSGS", segmentStart), .init("XSGE", segmentEnd), .init("XSGF", forwardEdge),
         .init("XSGB", backwardEdge), .init("XPLN", pieceEnd), .init("XPSG", pieceSegment)
     ]
    }

    /// The index a graph file stores, checked against the graph so that no stored number can
    /// lead a query out of bounds; nil where there is none or it was built under other parameters.
    /// `alreadyChecked`: the file was checked in full by an earlier load; the linear checks are skipped.
    @usableFromInline package convenience init?(fileSections sections: FileSections, graph: RoadGraph,
                                                alreadyChecked: Bool = false) throws(SnapIndexFileError) {
        guard let prm = sections.column("XPRM", as: Double.self)?.array, prm.count == 5,
              Array(prm.prefix(3)) == SnapIndex.parameters else { return nil }
        func array<T: BitwiseCopyable>(_ tag: String,
                                       _ type: T.Type, count: Int? = nil) throws(SnapIndexFileError) -> Column<T> {
            try sections.values(tag, as: type, count: count) { SnapIndexFileError(reason: $0) }
        }
        func check(_ ok: Bool, _ what: String) throws(SnapIndexFileError) {
            if !ok { throw SnapIndexFileError(reason: what) }
        }
        // The frame's scales: metres per degree of latitude (a constant) and of longitude at the
        // map's middle latitude (no more than that): any other number could overflow a cell.
        let lon = prm[3], lat = prm[4]
        try check(lat == Coordinate.earthRadius * .pi / 180 && lon > 0 && lon <= lat, "scale out of range")
        let segments = graph.segmentCount
        let component = try array("XCMP", UInt32.self, count: segments)
        let tiny = try array("XTNY", UInt8.self, count: segments)
        try check(alreadyChecked || tiny.allSatisfy { $0 <= 1 }, "tiny flags not 0 or 1")
        let keys = try array("XCKY", Int64.self), start = try array("XCST", UInt32.self, count: keys.count + 1)
        let cellPieces = try array("XCPC", UInt32.self)
        try check(start.first == 0 && Int(start.last!) == cellPieces.count, "cell rows out of order")
        if !alreadyChecked {
            try check(zip(keys, keys.dropFirst()).allSatisfy { $0 < $1 }, "cell keys not ascending")
            try check(zip(start, start.dropFirst()).allSatisfy { $0 <= $1 }, "cell rows out of order")
            try check(cellPieces.allSatisfy { Int($0) < SnapIndex.pieceCount(graph) }, "cell piece out of range")
        }
        // The segments' ends, where the file has them: when checking, they must be the graph's.
        var ends: SegmentEnds? = nil
        if sections.contains("XSGS") {
            let stored = SegmentEnds(start: try array("XSGS", UInt32.self, count: segments),
                                     end: try array("XSGE", UInt32.self, count: segments),
                                     forward: try array("XSGF", Int32.self, count: segments),
                                     backward: try array("XSGB", Int32.self, count: segments))
            try check(alreadyChecked || stored == SegmentEnds(graph: graph), "segment ends do not fit the graph")
            ends = stored
        }
        // The pieces' lengths, where the file has them: finite and not negative (a crafted file's
        // can only misplace a snap on its road).
        var pieceEnd: Column<Double>? = nil
        if sections.contains("XPLN") {
            let stored = try array("XPLN", Double.self, count: SnapIndex.pieceCount(graph))
            try check(alreadyChecked || stored.allSatisfy { $0.isFinite && $0 >= 0 }, "piece lengths out of range")
            pieceEnd = stored
        }
        // The pieces' segments, where the file has them: when checking, they must be the graph's.
        var pieceSegment: Column<UInt32>? = nil
        if sections.contains("XPSG") {
            let stored = try array("XPSG", UInt32.self, count: SnapIndex.pieceCount(graph))
            try check(alreadyChecked || stored.elementsEqual(SnapIndex.pieceSegments(graph)),
                      "pieces' segments do not fit the graph")
            pieceSegment = stored
        }
        let stored = Stored(segmentComponent: component, segmentInTinyComponent: tiny, cellKeys: keys, cellStart: start,
                            cellPieces: cellPieces, metresPerDegreeLon: lon, metresPerDegreeLat: lat,
                            segmentEnds: ends, pieceEnd: pieceEnd, pieceSegment: pieceSegment)
        self.init(graph: graph, stored: stored)
        // Pieces lie on segments with both ends (the index never makes one on a segment without).
        if !alreadyChecked {
            var edgeless = [Bool](repeating: false, count: SnapIndex.pieceCount(graph))
            for s in 0..<segments where segmentStart[s] == RoadGraph.invalid {
                for p in SnapIndex.firstPiece(of: s, graph)..<SnapIndex.firstPiece(of: s + 1, graph) {
                    edgeless[p] = true
                }
            }
            if cellPieces.contains(where: { edgeless[Int($0)] }) {
                throw SnapIndexFileError(reason: "piece on a segment with no edge")
            }
        }
    }
}

extension SnapIndex: GraphFilePart {
    public static let partName = "snap index"
    public static let sectionTags = ["XPRM", "XCMP", "XTNY", "XCKY", "XCST", "XCPC", "XSGS", "XSGE", "XSGF", "XSGB",
                                     "XPLN", "XPSG"]
}

/// The nearest point found so far on each segment, as ``SnapIndex/nearest(to:maxDistance:count:filter:)``
/// gathers them: a short list searched in turn (a fix's circle meets a handful of segments),
/// indexed by segment once it grows longer.
private struct NearestPerSegment {
    /// `entry`: the fine cells' entry the piece was read from (its points there), or -1.
    typealias Found = (segment: Int, distance: Double, piece: Int, t: Double, directions: (Bool, Bool), entry: Int)
    private(set) var found: [Found] = []
    private var index: [Int: Int] = [:]
    private static let listed = 16

    init(capacity: Int = 0) { found.reserveCapacity(capacity) }

    /// What was found, nearest first, equally near by segment (one entry per segment), taken
    /// out: the list is left empty (handed over, not copied).
    mutating func takeNearestFirst() -> [Found] {
        var all: [Found] = []
        swap(&all, &found)
        index = [:]
        all.sort { ($0.distance, $0.segment) < ($1.distance, $1.segment) }
        return all
    }

    func distance(of s: Int) -> Double? { slot(of: s).map { found[$0].distance } }

    private func slot(of s: Int) -> Int? {
        found.count <= Self.listed ? found.firstIndex { $0.segment == s } : index[s]
    }

    mutating func set(_ f: Found) {
        if let k = slot(of: f.segment) {
            found[k] = f
            return
        }
        found.append(f)
        guard found.count > Self.listed else { return }
        if index.isEmpty {
            for (k, g) in found.enumerated() { index[g.segment] = k }
        } else {
            index[f.segment] = found.count - 1
        }
    }
}
