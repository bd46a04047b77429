import Foundation
import WaymarkGeo
import WaymarkGraph

/// Where a car gets within given times from a point: for each time, the area around the roads
/// reached, as polygons with holes (GeoJSON orientation: outer rings counterclockwise, holes
/// clockwise).
///
/// How it is made: a one-to-all Dijkstra over the edge-based graph by travel time (turn times,
/// restrictions and U-turn rules as routes have them), bounded by the longest time; every road
/// reached is sampled onto a grid, each cell keeping the earliest time it is reached; a small
/// neighbourhood minimum spreads that time over the cells beside the roads (about two cells, so
/// the area follows the roads and leaves out what no road reaches); each time's cells are traced
/// into rings along the cell edges. The areas of shorter times lie inside the longer ones.
public struct Isochrone: Sendable, Equatable {
    /// One time's area.
    public struct Contour: Sendable, Equatable {
        public var minutes: Double
        /// Polygons, largest first; each the outer ring then its holes, each ring closed (first
        /// point repeated at the end).
        public var polygons: [[[Coordinate]]]
    }

    /// Where the point snapped.
    public var origin: Snap
    /// In the order of the times asked for, shortest first.
    public var contours: [Contour]
    /// The grid's cell size in metres (the outline's resolution).
    public var cellSize: Double
}

/// The isochrone search's scratch: labels per state, a heap, the entry time per edge.
final class IsochroneSearch {
    private let data: RoutingData
    private var labels: StampedArray<Double>
    private var entry: StampedArray<Double>
    /// The vertex each entered edge was entered at (its source), beside `entry`.
    private var entrySource: StampedArray<UInt32>
    private var heap = MinHeap(capacity: 4096)
    /// The edges entered by the last search, in the order first entered (scratch kept between
    /// searches): read instead of every edge's stamp.
    private var entered: [Int32] = []

    init(data: RoutingData) {
        self.data = data
        labels = StampedArray(count: data.transitions.paths.stateCount)
        entry = StampedArray(count: data.graph.edgeCount)
        entrySource = StampedArray(count: data.graph.edgeCount)
    }

    deinit {
        labels.deallocate()
        entry.deallocate()
        entrySource.deallocate()
        heap.deallocate()
    }

    /// The areas reached within each of `minutes` (positive, distinct) from `origin`;
    /// `denoise` (0…1) keeps, per time, the polygons at least that share of the largest one's area
    /// (1: the largest alone, 0: all).
    func isochrone(from origin: Snap, minutes: [Double], denoise: Double) -> Isochrone {
        let graph = data.graph
        let times = minutes.sorted()
        let limit = (times.last ?? 0) * 60
        labels.clear()
        entry.clear()
        entrySource.clear()
        let labels = self.labels, entry = self.entry, entrySource = self.entrySource
        var heap = self.heap, entered = self.entered
        heap.removeAll()
        entered.removeAll(keepingCapacity: true)
        defer {
            self.heap = heap
            self.entered = entered
        }

        // Seconds to the end of each state's edge; `entry` keeps the earliest time each edge is
        // entered (after the turn onto it). The start edges are entered part-way, at time 0.
        let starts = data.snapIndex.edgePoints(origin, graph: graph)
        var partial: [(edge: Int, offset: Double)] = []
        for s in starts {
            let rest = graph.part(s.edge, from: s.offset, to: Double(graph.edgeLength[s.edge])).duration
            partial.append((s.edge, s.offset))
            if rest <= limit, !labels.contains(s.edge) || labels[s.edge] > rest {
                labels[s.edge] = rest
                heap.push(rest, s.edge)
            }
        }
        let paths = data.transitions.paths
        let transitionStart = data.transitions.start, transitionCost = data.transitions.cost
        let turnSeconds = data.turnDurations
        while let (t, s) = heap.pop() {
            guard t == labels[s] else { continue }
            let e = paths.edge(s), v = graph.edgeTarget[e]
            let restricted = graph.nodeFlags[Int(v)] & RoadGraph.restrictionViaFlag != 0
            let fromSegment = graph.segment(of: e)
            let outgoing = graph.edges(from: v)
            let transitions = Int(transitionStart[e]) - outgoing.lowerBound
            for f in outgoing {
                if transitionCost[transitions + f] == .infinity { continue } // a U-turn not allowed here
                if restricted && !graph.turnAllowed(via: v, from: fromSegment, to: graph.segment(of: f)) { continue }
                guard let next = paths.state(after: s, onto: f, firstOut: outgoing.lowerBound, flagged: restricted) else { continue }
                let reachedAt = t + Double(turnSeconds[transitions + f])
                if reachedAt > limit { continue }
                if !entry.contains(f) {
                    entered.append(Int32(f))
                    entry[f] = reachedAt
                    entrySource[f] = v
                } else if entry[f] > reachedAt {
                    entry[f] = reachedAt
                    entrySource[f] = v
                }
                let done = reachedAt + Double(graph.edgeDuration[f])
                if done <= limit, !labels.contains(next) || labels[next] > done {
                    labels[next] = done
                    heap.push(done, next)
                }
            }
        }

        // The roads reached: (edge, offset from its source in metres, time there). The start
        // edges are entered part-way at time 0.
        var reached: [(edge: Int, source: UInt32, offset: Double, time: Double)] = partial.map { ($0.edge, graph.source(of: $0.edge), $0.offset, 0) }
        reached.reserveCapacity(reached.count + entered.count)
        if entered.count > graph.edgeCount / 8 {
            // Much of the map: in edge order, so the graph's arrays are read front to back.
            for e in 0..<graph.edgeCount where entry.contains(e) { reached.append((e, entrySource[e], 0, entry[e])) }
        } else {
            for e in entered.lazy.map(Int.init) { reached.append((e, entrySource[e], 0, entry[e])) }
        }

        // A local metric plane around the origin.
        let lat0 = origin.coordinate.latitude, lon0 = origin.coordinate.longitude
        let metresPerDegree = 111_195.0, cosLat = max(0.01, cos(lat0 * .pi / 180))
        @inline(__always) func project(_ c: Coordinate) -> (x: Double, y: Double) {
            var dLon = c.longitude - lon0
            if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
            return (dLon * cosLat * metresPerDegree, (c.latitude - lat0) * metresPerDegree)
        }
        // The grid: about 500 cells across the vertices reached, 20–500 m each, with a margin for
        // the spread and for shapes bulging past their vertices.
        var minX = 0.0, minY = 0.0, maxX = 0.0, maxY = 0.0
        for r in reached {
            for p in [project(graph.coordinate(of: r.source)), project(graph.coordinate(of: graph.edgeTarget[r.edge]))] {
                minX = min(minX, p.x); maxX = max(maxX, p.x); minY = min(minY, p.y); maxY = max(maxY, p.y)
            }
        }
        let cell = min(500, max(20, max(maxX - minX, maxY - minY) / 500))
        let spread = 2, margin = spread + 6
        let originX = minX - Double(margin) * cell, originY = minY - Double(margin) * cell
        let width = Int(((maxX - minX) / cell).rounded(.up)) + 2 * margin + 1
        let height = Int(((maxY - minY) / cell).rounded(.up)) + 2 * margin + 1
        var time = [Float](repeating: .infinity, count: width * height)

        // Each road's reached part, sampled every 1.8 cells (the spread of two cells closes the
        // gaps), each sample keeping the earliest time. Distances along the shape are taken in the
        // plane and measured against the edge's length (the two differ by well under a percent at
        // a city's scale).
        let step = cell * 1.8
        time.withUnsafeMutableBufferPointer { grid in
            for r in reached {
                let length = Double(graph.edgeLength[r.edge]), duration = Double(graph.edgeDuration[r.edge])
                guard length > 0 else { continue }
                let reach = duration > 0 ? min(length, r.offset + (limit - r.time) / duration * length) : length
                guard reach >= r.offset else { continue }
                // The shape read in place: the source, the interior points, the target.
                let interior = graph.interiorPointCount(of: r.edge)
                var d = r.offset, walked = 0.0
                var a = project(graph.coordinate(of: r.source))
                for k in 0...interior {
                    let b = project(k < interior ? graph.interiorPoint(of: r.edge, k) : graph.coordinate(of: graph.edgeTarget[r.edge]))
                    let piece = ((b.x - a.x) * (b.x - a.x) + (b.y - a.y) * (b.y - a.y)).squareRoot()
                    while d <= walked + piece && d <= reach {
                        let f = piece > 0 ? (d - walked) / piece : 0
                        let x = a.x + f * (b.x - a.x), y = a.y + f * (b.y - a.y)
                        let i = Int((x - originX) / cell), j = Int((y - originY) / cell)
                        if i >= 0 && j >= 0 && i < width && j < height {
                            let t = Float(r.time + (d - r.offset) / length * duration)
                            if t < grid[j * width + i] { grid[j * width + i] = t }
                        }
                        if d == reach { break }
                        d = min(reach, d + step)
                    }
                    if d == reach && d <= walked + piece { break }
                    walked += piece
                    a = b
                }
            }
        }
        // Spread: the minimum over a (2·spread+1)² square, rows then columns, each pass a few
        // whole-row minimums (contiguous, so the compiler vectorises them).
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
        func unproject(_ gx: Int, _ gy: Int) -> Coordinate {
            let x = originX + Double(gx) * cell, y = originY + Double(gy) * cell
            var lon = lon0 + x / (cosLat * metresPerDegree)
            if lon > 180 { lon -= 360 } else if lon < -180 { lon += 360 }
            return Coordinate(latitude: max(-90, min(90, lat0 + y / metresPerDegree)), longitude: lon)
        }
        var contours: [Isochrone.Contour] = []
        for minutes in times {
            let inside = time.map { $0 <= Float(minutes * 60) }
            let polygons = IsochroneOutline.polygons(inside: inside, width: width, height: height, denoise: denoise)
            contours.append(Isochrone.Contour(minutes: minutes, polygons: polygons.map { rings in
                rings.map { ring in ring.map { unproject($0.x, $0.y) } }
            }))
        }
        return Isochrone(origin: origin, contours: contours, cellSize: cell)
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
    static func polygons(inside: [Bool], width: Int, height: Int, denoise: Double, minimumHole: Int = 25) -> [[[Point]]] {
        func at(_ x: Int, _ y: Int) -> Bool { x >= 0 && y >= 0 && x < width && y < height && inside[y * width + x] }
        // Directed boundary edges by their start corner; direction 0 east, 1 north, 2 west, 3 south.
        let corners = (width + 1) * (height + 1)
        var out = [UInt8](repeating: 0, count: corners) // bit d: an unused edge leaves this corner heading d
        func id(_ x: Int, _ y: Int) -> Int { y * (width + 1) + x }
        var count = 0
        for y in 0..<height {
            for x in 0..<width where inside[y * width + x] {
                if !at(x, y - 1) { out[id(x, y)] |= 1 << 0; count += 1 }
                if !at(x + 1, y) { out[id(x + 1, y)] |= 1 << 1; count += 1 }
                if !at(x, y + 1) { out[id(x + 1, y + 1)] |= 1 << 2; count += 1 }
                if !at(x - 1, y) { out[id(x, y + 1)] |= 1 << 3; count += 1 }
            }
        }
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
                let next = [(d + 1) % 4, d, (d + 3) % 4].first { here & (1 << $0) != 0 }!
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
            let px = Double(a.x) + 0.5 * Double(dx) - 0.5 * Double(dy), py = Double(a.y) + 0.5 * Double(dy) + 0.5 * Double(dx)
            if let owner = outers.filter({ contains(rings[$0], px, py) }).min(by: { areas[$0] < areas[$1] }) {
                holes[owner, default: []].append(h)
            }
        }
        if let largest = outers.first.map({ areas[$0] - (holes[$0] ?? []).reduce(0) { $0 - areas[$1] } }) {
            outers = outers.filter { o in areas[o] - (holes[o] ?? []).reduce(0) { $0 - areas[$1] } >= denoise * largest - 1e-9 }
        }
        return outers.map { o in [rings[o]] + (holes[o] ?? []).map { rings[$0] } }
    }
}
