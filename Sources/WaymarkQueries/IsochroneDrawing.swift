import Foundation
import WaymarkGeo
import WaymarkGraph
import WaymarkPreparation

/// How an isochrone is drawn from the roads its search reached: a grid over a local metric plane
/// around the origin, each cell keeping the earliest time a road reaches it (``mark(_:within:)``);
/// that time spread over the cells beside the roads (``spread()``); each time's cells traced into
/// polygons (``polygons(within:denoise:)``).
struct IsochroneGrid {
    /// Metres per degree of latitude (and of longitude at the equator).
    private static let metresPerDegree = 111_195.0
    /// Cells either side of a road that its time spreads to.
    private static let spreadCells = 2

    /// A local metric plane around the origin: metres east and north of it.
    private struct Plane {
        let latitude0: Double, longitude0: Double, cosLatitude: Double
        /// Longitudes wrap (a map across the antimeridian).
        let wraps: Bool

        @inline(__always)
        func project(_ c: Coordinate) -> (x: Double, y: Double) {
            var dLon = c.longitude - longitude0
            if wraps { if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 } }
            let metresPerDegree = IsochroneGrid.metresPerDegree
            return (dLon * cosLatitude * metresPerDegree, (c.latitude - latitude0) * metresPerDegree)
        }

        func unproject(x: Double, y: Double) -> Coordinate {
            var lon = longitude0 + x / (cosLatitude * IsochroneGrid.metresPerDegree)
            if lon > 180 { lon -= 360 } else if lon < -180 { lon += 360 }
            let latitude = max(-90, min(90, latitude0 + y / IsochroneGrid.metresPerDegree))
            return Coordinate(latitude: latitude, longitude: lon)
        }

        /// Every vertex of `graph` projected once (where much of the map is reached: not once per edge).
        func projectAll(_ graph: RoadGraph) -> [(x: Double, y: Double)] {
            var projected: [(x: Double, y: Double)] = []
            projected.reserveCapacity(graph.nodeCount)
            graph.latitudes.withUnsafeBufferPointer { latitudes in
                graph.longitudes.withUnsafeBufferPointer { longitudes in
                    for v in 0..<graph.nodeCount {
                        projected.append(project(Coordinate(latitude: FixedPoint.decode(latitudes[v]),
                                                            longitude: FixedPoint.decode(longitudes[v]))))
                    }
                }
            }
            return projected
        }
    }

    private let graph: RoadGraph
    private let plane: Plane
    /// Every vertex in the plane, where much of the map is reached (else projected as needed).
    private let projected: [(x: Double, y: Double)]
    /// The cell's side in metres.
    let cell: Double
    private let originX: Double, originY: Double
    private let width: Int, height: Int
    /// Seconds at which each cell is first reached (row-major), infinity where never.
    private var time: [Float]

    /// A grid of about 500 cells across the vertices `reached`, 20–500 m each, with a margin for
    /// the spread and for shapes bulging past their vertices. `wraps`: longitudes wrap (a map
    /// across the antimeridian).
    init(around origin: Coordinate, wraps: Bool, reached: ReachedRoads, graph: RoadGraph) {
        let plane = Plane(latitude0: origin.latitude, longitude0: origin.longitude,
                          cosLatitude: max(0.01, cos(origin.latitude * .pi / 180)), wraps: wraps)
        let projected = reached.count > graph.nodeCount / 2 ? plane.projectAll(graph) : []
        var minX = 0.0, minY = 0.0, maxX = 0.0, maxY = 0.0
        for r in reached {
            let a = IsochroneGrid.vertex(r.source, graph, plane, projected)
            let b = IsochroneGrid.vertex(graph.edgeTarget[r.edge], graph, plane, projected)
            minX = min(minX, a.x, b.x); maxX = max(maxX, a.x, b.x)
            minY = min(minY, a.y, b.y); maxY = max(maxY, a.y, b.y)
        }
        let cell = min(500, max(20, max(maxX - minX, maxY - minY) / 500))
        let margin = IsochroneGrid.spreadCells + 6
        self.graph = graph
        self.plane = plane
        self.projected = projected
        self.cell = cell
        originX = minX - Double(margin) * cell
        originY = minY - Double(margin) * cell
        width = Int(((maxX - minX) / cell).rounded(.up)) + 2 * margin + 1
        height = Int(((maxY - minY) / cell).rounded(.up)) + 2 * margin + 1
        time = [Float](repeating: .infinity, count: width * height)
    }

    @inline(__always)
    private static func vertex(_ v: UInt32, _ graph: RoadGraph, _ plane: Plane,
                               _ projected: [(x: Double, y: Double)]) -> (x: Double, y: Double) {
        projected.isEmpty ? plane.project(graph.coordinate(of: v)) : projected[Int(v)]
    }

    @inline(__always)
    private func vertex(_ v: UInt32) -> (x: Double, y: Double) { IsochroneGrid.vertex(v, graph, plane, projected) }

    /// Each road's reached part, sampled every 1.8 cells (the spread of two cells closes the
    /// gaps), each sample keeping the earliest time. Distances along the shape are taken in the
    /// plane and measured against the edge's length (the two differ by well under a percent at
    /// a city's scale).
    mutating func mark(_ reached: ReachedRoads, within limit: Double) {
        let graph = graph, step = cell * 1.8
        let perCell = 1 / cell, originX = originX, originY = originY, width = width, height = height
        let shapeStart = graph.shapeStart
        let shapeLatitudes = graph.shapeLatitudes, shapeLongitudes = graph.shapeLongitudes
        var time = self.time
        self.time = []
        defer { self.time = time }
        time.withUnsafeMutableBufferPointer { grid in
            @inline(__always) func mark(_ x: Double, _ y: Double, _ t: Double) {
                let i = Int((x - originX) * perCell), j = Int((y - originY) * perCell)
                if i >= 0 && j >= 0 && i < width && j < height
                    && Float(t) < grid[j * width + i] { grid[j * width + i] = Float(t) }
            }
            for r in reached {
                let length = Double(graph.edgeLength[r.edge]), duration = Double(graph.edgeDuration[r.edge])
                guard length > 0 else { continue }
                let secondsPerMetre = duration / length
                let reach = duration > 0 ? min(length, r.offset + (limit - r.time) / secondsPerMetre) : length
                guard reach >= r.offset else { continue }
                // The shape read in place: the source, the interior points (in the direction
                // driven), the target.
                let segment = graph.segment(of: r.edge), reversed = graph.isReversed(r.edge)
                let lower = Int(shapeStart[segment]), upper = Int(shapeStart[segment + 1])
                let interior = upper - lower
                var a = vertex(r.source)
                if interior == 0 && r.offset == 0 && reach == length && length <= step {
                    // Most roads reached: a straight piece shorter than a step, wholly reached,
                    // sampled at its two ends.
                    let b = vertex(graph.edgeTarget[r.edge])
                    mark(a.x, a.y, r.time)
                    mark(b.x, b.y, r.time + duration)
                    continue
                }
                var d = r.offset, walked = 0.0
                for k in 0...interior {
                    let b: (x: Double, y: Double)
                    if k < interior {
                        let i = reversed ? upper - 1 - k : lower + k
                        b = plane.project(Coordinate(latitude: FixedPoint.decode(shapeLatitudes[i]),
                                                     longitude: FixedPoint.decode(shapeLongitudes[i])))
                    } else {
                        b = vertex(graph.edgeTarget[r.edge])
                    }
                    let piece = ((b.x - a.x) * (b.x - a.x) + (b.y - a.y) * (b.y - a.y)).squareRoot()
                    let perPiece = piece > 0 ? 1 / piece : 0
                    while d <= walked + piece && d <= reach {
                        let f = (d - walked) * perPiece
                        mark(a.x + f * (b.x - a.x), a.y + f * (b.y - a.y), r.time + (d - r.offset) * secondsPerMetre)
                        if d == reach { break }
                        d = min(reach, d + step)
                    }
                    if d == reach && d <= walked + piece { break }
                    walked += piece
                    a = b
                }
            }
        }
    }

    /// Spread: the minimum over a (2·spread+1)² square, rows then columns, each pass a few
    /// whole-row minimums (contiguous, so the compiler vectorises them).
    mutating func spread() {
        let spread = IsochroneGrid.spreadCells, width = width, height = height
        var rows = time
        time.withUnsafeMutableBufferPointer { time in
            rows.withUnsafeMutableBufferPointer { rows in
                for j in 0..<height {
                    let source = UnsafeMutableBufferPointer(rebasing: time[(j * width)..<((j + 1) * width)])
                    let target = UnsafeMutableBufferPointer(rebasing: rows[(j * width)..<((j + 1) * width)])
                    for shift in 1...spread where shift < width {
                        // target[i] = min(source[i - spread…i + spread]), by shifted copies.
                        for i in 0..<(width - shift) { target[i] = Swift.min(target[i], source[i + shift]) }
                        for i in shift..<width { target[i] = Swift.min(target[i], source[i - shift]) }
                    }
                }
                for j in 0..<height {
                    let target = UnsafeMutableBufferPointer(rebasing: time[(j * width)..<((j + 1) * width)])
                    let first = Swift.max(0, j - spread), last = Swift.min(height - 1, j + spread)
                    for i in 0..<width { target[i] = rows[first * width + i] }
                    for dj in first...last where dj != first {
                        let row = UnsafeMutableBufferPointer(rebasing: rows[(dj * width)..<((dj + 1) * width)])
                        for i in 0..<width { target[i] = Swift.min(target[i], row[i]) }
                    }
                }
            }
        }
    }

    /// The polygons of the cells reached within `seconds`, on the globe; `denoise` as
    /// ``IsochroneOutline/polygons(inside:width:height:denoise:minimumHole:)``'s.
    func polygons(within seconds: Double, denoise: Double) -> [[[Coordinate]]] {
        let inside = time.map { $0 <= Float(seconds) }
        let polygons = IsochroneOutline.polygons(inside: inside, width: width, height: height, denoise: denoise)
        return polygons.map { rings in rings.map { ring in ring.map { unproject($0.x, $0.y) } } }
    }

    /// A grid corner on the globe.
    private func unproject(_ gx: Int, _ gy: Int) -> Coordinate {
        plane.unproject(x: originX + Double(gx) * cell, y: originY + Double(gy) * cell)
    }
}

/// Outlines of a set of grid cells: rings along the cell edges with the set on their left (outer
/// rings counterclockwise, holes clockwise), corner points only; cells that touch only at a
/// corner stay apart. Holes under `minimumHole` cells are left out (filled).
enum IsochroneOutline {
    struct Point: Equatable {
        var x: Int
        var y: Int
    }

    /// Polygons (outer ring, then holes; closed rings) of the cells `inside` (row-major, `width`
    /// per row, the border rows and columns outside), largest first; `denoise` as
    /// ``IsochroneSearch``'s.
    static func polygons(inside: [Bool], width: Int, height: Int,
                         denoise: Double, minimumHole: Int = 25) -> [[[Point]]] {
        var (out, count) = boundaryEdges(inside: inside, width: width, height: height)
        let rings = traceRings(&out, count: count, width: width)
        return nest(rings, denoise: denoise, minimumHole: minimumHole)
    }

    /// Directed boundary edges by their start corner, a bit for each direction (0 east, 1 north,
    /// 2 west, 3 south) on each of the `(width + 1) × (height + 1)` corners, and how many.
    private static func boundaryEdges(inside: [Bool], width: Int, height: Int) -> (out: [UInt8], count: Int) {
        func at(_ x: Int, _ y: Int) -> Bool { x >= 0 && y >= 0 && x < width && y < height && inside[y * width + x] }
        let corners = (width + 1) * (height + 1)
        var out = [UInt8](repeating: 0, count: corners) // bit d: an unused edge leaves this corner heading d
        var count = 0
        inside.withUnsafeBufferPointer { inside in
            out.withUnsafeMutableBufferPointer { out in
                for y in 0..<height {
                    let row = y * width, corner = y * (width + 1)
                    for x in 0..<width where inside[row + x] {
                        // Away from the grid's edge the neighbours are read directly.
                        let away = y > 0 && y < height - 1 && x > 0 && x < width - 1
                        if !(away ? inside[row - width + x] : at(x, y - 1)) { out[corner + x] |= 1 << 0; count += 1 }
                        if !(away ? inside[row + x + 1] : at(x + 1, y)) { out[corner + x + 1] |= 1 << 1; count += 1 }
                        if !(away ? inside[row + width + x] : at(x, y + 1)) {
                            out[corner + width + 1 + x + 1] |= 1 << 2; count += 1
                        }
                        if !(away ? inside[row + x - 1] : at(x - 1, y)) {
                            out[corner + width + 1 + x] |= 1 << 3; count += 1
                        }
                    }
                }
            }
        }
        return (out, count)
    }

    /// The boundary edges walked into closed rings, using each once.
    private static func traceRings(_ out: inout [UInt8], count: Int, width: Int) -> [[Point]] {
        func id(_ x: Int, _ y: Int) -> Int { y * (width + 1) + x }
        var count = count
        let step = [(1, 0), (0, 1), (-1, 0), (0, -1)]
        var rings: [[Point]] = []
        var start = 0
        while count > 0 {
            while out[start] == 0 { start += 1 }
            let sx = start % (width + 1), sy = start / (width + 1)
            var d = (0..<4).first { out[start] & (1 << $0) != 0 }!
            var x = sx, y = sy
            var ring = [Point(x: x, y: y)]
            while true {
                out[id(x, y)] &= ~(1 << d)
                count -= 1
                x += step[d].0
                y += step[d].1
                let here = out[id(x, y)]
                // Back at the start: a ring passes each corner once (a saddle corner once per cell).
                if (x == sx && y == sy) || here == 0 { break }
                // At a corner two cells share diagonally, turn left: the set stays on the left,
                // so the two cells are outlined apart.
                let left = (d + 1) & 3, right = (d + 3) & 3
                let next = here & (1 << left) != 0 ? left : here & (1 << d) != 0 ? d : right
                if next != d { ring.append(Point(x: x, y: y)) }
                d = next
            }
            // Closing: drop the start if it lies on a straight run, then repeat the first point.
            if ring.count > 2 {
                let a = ring[ring.count - 1], b = ring[0], c = ring[1]
                if (a.x == b.x && b.x == c.x) || (a.y == b.y && b.y == c.y) { ring.removeFirst() }
            }
            ring.append(ring[0])
            rings.append(ring)
        }
        return rings
    }

    /// Outer rings (counterclockwise) with the holes inside them, holes under `minimumHole` cells
    /// and outer rings under `denoise` of the largest left out.
    private static func nest(_ rings: [[Point]], denoise: Double, minimumHole: Int) -> [[[Point]]] {
        func area(_ ring: [Point]) -> Double {
            var s = 0
            for k in 0..<(ring.count - 1) { s += ring[k].x * ring[k + 1].y - ring[k + 1].x * ring[k].y }
            return Double(s) / 2
        }
        func contains(_ ring: [Point], _ px: Double, _ py: Double) -> Bool {
            var inside = false
            for k in 0..<(ring.count - 1) {
                let a = ring[k], b = ring[k + 1]
                if (Double(a.y) > py) != (Double(b.y) > py) {
                    let x = Double(a.x) + (py - Double(a.y)) / Double(b.y - a.y) * Double(b.x - a.x)
                    if px < x { inside.toggle() }
                }
            }
            return inside
        }
        let areas = rings.map(area)
        var outers = rings.indices.filter { areas[$0] > 0 }.sorted { areas[$0] > areas[$1] }
        var holes: [Int: [Int]] = [:]
        // Holes smaller than a 5×5-cell square are blocks inside the reached streets, not places
        // out of reach: filled.
        for h in rings.indices where areas[h] < -Double(minimumHole) {
            // The cell left of the hole's first edge belongs to the polygon around the hole.
            let a = rings[h][0], b = rings[h][1]
            let dx = (b.x - a.x).signum(), dy = (b.y - a.y).signum()
            let px = Double(a.x) + 0.5 * Double(dx) - 0.5 * Double(dy)
            let py = Double(a.y) + 0.5 * Double(dy) + 0.5 * Double(dx)
            if let owner = outers.filter({ contains(rings[$0], px, py) }).min(by: { areas[$0] < areas[$1] }) {
                holes[owner, default: []].append(h)
            }
        }
        if let largest = outers.first.map({ areas[$0] - (holes[$0] ?? []).reduce(0) { $0 - areas[$1] } }) {
            outers = outers.filter { o in
                areas[o] - (holes[o] ?? []).reduce(0) { $0 - areas[$1] } >= denoise * largest - 1e-9
            }
        }
        return outers.map { o in [rings[o]] + (holes[o] ?? []).map { rings[$0] } }
    }
}
