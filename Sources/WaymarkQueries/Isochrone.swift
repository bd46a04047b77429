import Foundation
import WaymarkGeo
import WaymarkGraph
import WaymarkPreparation

/// Where a car gets within given times from a point: for each time, the area around the roads
/// reached, as polygons with holes (GeoJSON orientation: outer rings counterclockwise, holes
/// clockwise).
///
/// How it is made: a one-to-all search over the edge-based graph by routing weight (turn costs,
/// restrictions and U-turn rules as routes have them), reading off the travel time along the
/// same ways (``IsochroneSearch``); every road reached is sampled onto a grid, each cell keeping
/// the earliest time it is reached; a small neighbourhood minimum spreads that time over the
/// cells beside the roads (about two cells, so the area follows the roads and leaves out what no
/// road reaches); each time's cells are traced into rings along the cell edges. The areas of
/// shorter times lie inside the longer ones.
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

/// A label of the isochrone's searches: the routing weight they minimise (as routes do) and the
/// seconds along the same way.
/// The roads an isochrone search reached: each edge, its source vertex, the offset from there in
/// metres and the time there.
typealias ReachedRoads = [(edge: Int, source: UInt32, offset: Double, time: Double)]

struct TimedLabel: SearchCost {
    var weight: Double
    var seconds: Double
    static let none = TimedLabel(weight: .infinity, seconds: .infinity)
    var cost: Double { weight }
}

/// The isochrone search's scratch: labels per state, a heap, the entry time per edge.
///
/// Which roads a time reaches: those whose route (the way of least routing weight, as ``Router``
/// finds it) takes at most that time, so the areas agree with the durations routes and tables
/// give (to the grid's resolution). The searches (``Method``) give the same labels: on a map with
/// a contraction hierarchy, an upward search from the origin then one sweep down the hierarchy
/// (PHAST, Delling et al. 2011: no queue, every arc read once, in order), on a big map down only
/// the part within the time's reach; on a map without, a Dijkstra over the edge-based graph that
/// stops once every way still queued takes longer than the time. (The Dijkstra cannot stop at the
/// time's weight: a road for local traffic only costs OSRM's `max_turn_weight` to enter, so a way
/// within the time may weigh an hour, and the Dijkstra runs to that weight; the sweep's cost does
/// not depend on the weights.)
package final class IsochroneSearch {
    package enum Method {
        case dijkstra
        /// Down the whole hierarchy.
        case sweep
        /// Down only the part of the hierarchy the states within reach need (RPHAST, Delling et
        /// al. 2011): the states whose edges start within the time at the map's fastest speed,
        /// and every node above them their labels come from; the whole hierarchy where that
        /// circle holds a third of the map's vertices or more.
        case restrictedSweep
    }

    private let data: RoutingData
    private var labels: StampedArray<TimedLabel>
    private var entry: StampedArray<Double>
    private var heap = MinHeap(capacity: 4096)
    /// States the Dijkstra settled, in order (scratch kept between searches).
    private var settled: [Int32] = []
    /// The edges entered by the last search, in the order first entered (scratch kept between
    /// searches): read instead of every edge's stamp.
    private var entered: [Int32] = []
    /// The sweep's labels by query node, and the upward search's before it (made at the first
    /// sweep; the sweep writes every label, so only the upward ones need clearing).
    private var sweepLabels: UnsafeMutablePointer<TimedLabel>?
    private var upward: HierarchyDirection<TimedLabel>?
    /// The restricted sweep's nodes, a bit per query node (scratch kept between searches).
    private var selected: [UInt64] = []

    package init(data: RoutingData) {
        self.data = data
        labels = StampedArray(count: data.transitions.paths.stateCount)
        entry = StampedArray(count: data.graph.edgeCount)
    }

    deinit {
        labels.deallocate()
        entry.deallocate()
        heap.deallocate()
        sweepLabels?.deallocate()
        upward?.deallocate()
    }

    /// The areas reached within each of `minutes` (positive, distinct) from `origin`;
    /// `denoise` (0…1) keeps, per time, the polygons at least that share of the largest one's area
    /// (1: the largest alone, 0: all). `method` chooses the search (by default the restricted
    /// sweep where a hierarchy is loaded, else the Dijkstra).
    package func isochrone(from origin: Snap, minutes: [Double], denoise: Double, method: Method? = nil) -> Isochrone {
        let graph = data.graph
        let times = minutes.sorted()
        let limit = (times.last ?? 0) * 60
        let reached = reach(from: origin, within: limit, method: method)
        // A local metric plane around the origin.
        let lat0 = origin.coordinate.latitude, lon0 = origin.coordinate.longitude
        let metresPerDegree = 111_195.0, cosLat = max(0.01, cos(lat0 * .pi / 180))
        // (Longitudes wrap only on a map across the antimeridian.)
        let wraps = data.bounds.map { $0.crossesAntimeridian || $0.longitudeSpan > 180 } ?? true
        @inline(__always) func project(_ c: Coordinate) -> (x: Double, y: Double) {
            var dLon = c.longitude - lon0
            if wraps { if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 } }
            return (dLon * cosLat * metresPerDegree, (c.latitude - lat0) * metresPerDegree)
        }
        // Where much of the map is reached, every vertex is projected once, not once per edge.
        var projected: [(x: Double, y: Double)] = []
        if reached.count > graph.nodeCount / 2 {
            projected.reserveCapacity(graph.nodeCount)
            graph.latitudes.withUnsafeBufferPointer { latitudes in
                graph.longitudes.withUnsafeBufferPointer { longitudes in
                    for v in 0..<graph.nodeCount {
                        projected.append(project(Coordinate(latitude: FixedPoint.decode(latitudes[v]),
                                                            longitude: FixedPoint.decode(longitudes[v]))))
                    }
                }
            }
        }
        @inline(__always) func vertex(_ v: UInt32) -> (x: Double, y: Double) {
            projected.isEmpty ? project(graph.coordinate(of: v)) : projected[Int(v)]
        }
        // The grid: about 500 cells across the vertices reached, 20–500 m each, with a margin for
        // the spread and for shapes bulging past their vertices.
        var minX = 0.0, minY = 0.0, maxX = 0.0, maxY = 0.0
        for r in reached {
            let a = vertex(r.source), b = vertex(graph.edgeTarget[r.edge])
            minX = min(minX, a.x, b.x); maxX = max(maxX, a.x, b.x)
            minY = min(minY, a.y, b.y); maxY = max(maxY, a.y, b.y)
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
        let perCell = 1 / cell
        let shapeStart = graph.shapeStart
        let shapeLatitudes = graph.shapeLatitudes, shapeLongitudes = graph.shapeLongitudes
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
                        b = project(Coordinate(latitude: FixedPoint.decode(shapeLatitudes[i]),
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

    /// The roads reached within `limit` seconds: (edge, its source vertex, offset from there in
    /// metres, time there); the origin's edges first, entered part-way at time 0.
    func reach(from origin: Snap, within limit: Double, method: Method? = nil) -> ReachedRoads {
        let graph = data.graph
        let starts = data.snapIndex.edgePoints(origin, graph: graph)
        let asked = method, method = method ?? (data.hierarchy != nil ? .restrictedSweep : .dijkstra)
        guard method != .dijkstra, let hierarchy = data.hierarchy, let metrics = data.arcMetrics else {
            return dijkstra(from: starts, limit: limit)
        }
        var targets: [UInt32]?
        if method == .restrictedSweep, let grid = data.vertexGrid {
            // Every edge that can be entered within the time starts within this radius of the
            // origin (with slack for rounding and the plane's approximation of the sphere).
            let radius = limit * grid.fastest * 1.01 + 10
            // Labelling a node found costs about what the whole sweep costs a node, and finding
            // it about as much again (measured on Porto): where the circle holds a third of the
            // vertices or more, the whole sweep is as cheap (unless the restricted one is asked for).
            var inside = 0
            grid.forEachCell(near: origin.coordinate, within: radius) { inside += $0.count }
            if inside < graph.nodeCount / 3 || asked == .restrictedSweep {
                var found: [UInt32] = []
                grid.forEachCell(near: origin.coordinate, within: radius) { cell in
                    for v in cell { for f in graph.edges(from: v) { found.append(UInt32(f)) } }
                }
                // Every duplicate state (they follow the edges' own; few).
                found.append(contentsOf: (graph.edgeCount..<data.transitions.paths.stateCount).lazy.map(UInt32.init))
                // The origin's edges, and the edges into their start (entering them from behind).
                for start in starts {
                    found.append(UInt32(start.edge))
                    for slot in graph.incoming(to: graph.source(of: start.edge)) {
                        found.append(graph.incomingEdge[slot])
                    }
                }
                targets = found
            }
        }
        return sweep(from: starts, limit: limit, hierarchy: hierarchy, metrics: metrics, targets: targets)
    }

    /// The Dijkstra: labels of the states in order of weight, until every way still queued takes
    /// longer than `limit` (a state whose way of least weight takes too long still passes that
    /// on, so no heavier but quicker way reaches past it: the labels are the sweep's).
    private func dijkstra(from starts: [EdgePoint], limit: Double) -> ReachedRoads {
        let graph = data.graph
        labels.clear()
        let labels = self.labels
        var heap = self.heap, settled = self.settled
        heap.removeAll()
        settled.removeAll(keepingCapacity: true)
        defer {
            self.heap = heap
            self.settled = settled
        }
        // Heap items are state × 2, plus 1 where the label pushed was within the limit; `within`
        // counts those still queued.
        var within = 0
        @inline(__always) func push(_ s: Int, _ label: TimedLabel) {
            let inTime = label.seconds <= limit
            if inTime { within += 1 }
            heap.push(label.weight, s << 1 | (inTime ? 1 : 0))
        }
        for s in starts {
            let rest = graph.part(s.edge, from: s.offset, to: Double(graph.edgeLength[s.edge]))
            if !labels.contains(s.edge) || labels[s.edge].weight > rest.weight {
                labels[s.edge] = TimedLabel(weight: rest.weight, seconds: rest.duration)
                push(s.edge, labels[s.edge])
            }
        }
        let transitions = data.transitions, transitionCost = transitions.cost
        let turnSeconds = data.turnDurations
        while within > 0, let (k, item) = heap.pop() {
            if item & 1 != 0 { within -= 1 }
            let s = item >> 1
            let label = labels[s]
            guard k == label.weight else { continue }
            settled.append(Int32(s))
            transitions.forEachTurn(after: s, graph) { f, next, turn in
                // Summed as the hierarchy's arcs are (turn and edge first), so both searches agree.
                let weight = k + (Double(transitionCost[turn]) + Double(graph.edgeWeight[f]))
                if labels.contains(next) && labels[next].weight <= weight { return }
                let seconds = label.seconds + Double(turnSeconds[turn]) + Double(graph.edgeDuration[f])
                labels[next] = TimedLabel(weight: weight, seconds: seconds)
                push(next, labels[next])
            }
        }
        var entries = beginEntries(limit: limit, starts: starts, listed: true)
        for s in settled.lazy.map(Int.init) {
            let l = labels[s]
            if l.seconds <= limit && !entries.isStart(s) { entries.enter(state: s, seconds: l.seconds) }
        }
        return finishEntries(&entries) { s in labels.contains(s) ? labels[s] : .none }
    }

    /// The sweep: an upward search from the origin's edges, then every query node from the top
    /// down takes the best of its arcs from above.
    ///
    /// With `targets` (states), only they and the nodes above them that their labels come from are
    /// labelled: those found from the targets up the downward arcs, marked in a bitmap and swept
    /// in order.
    private func sweep(from starts: [EdgePoint], limit: Double, hierarchy ch: ContractionHierarchy,
                       metrics: ArcMetrics, targets: [UInt32]?) -> ReachedRoads {
        let n = ch.nodeCount
        let labels: UnsafeMutablePointer<TimedLabel>
        if let made = sweepLabels { labels = made } else {
            labels = .allocate(capacity: max(1, n))
            sweepLabels = labels
        }
        var search = self.upward ?? HierarchyDirection(count: n, heapCapacity: 4096)
        search.clear()
        defer { self.upward = search } // (the heap may have grown)
        search.seed(from: starts, data) { rest in TimedLabel(weight: rest.weight, seconds: rest.duration) }
        metrics.duration.withUnsafeBufferPointer { duration in
            ch.up.withBuffers { up in
                while let (k, q) = search.heap.pop() {
                    if search.isStale(k, q) { continue }
                    let seconds = search.labels[q].seconds
                    search.relaxArcs(of: q, in: up) { arc in
                        TimedLabel(weight: k + arc.weight, seconds: seconds + Double(duration[Int(arc.id)]))
                    }
                }
            }
        }
        let upward = search.labels
        // The nodes to label: all, or the targets and what lies above them.
        var selected = self.selected
        defer { self.selected = selected }
        if let targets {
            selected.removeAll(keepingCapacity: true)
            selected.append(contentsOf: repeatElement(0, count: n / 64 + 1))
            var stack = targets.map { ch.rank[Int($0)] }
            selected.withUnsafeMutableBufferPointer { bits in
                ch.down.withBuffers { down in
                    for q in stack { bits[Int(q) >> 6] |= 1 << (UInt64(q) & 63) }
                    while let q = stack.popLast() {
                        for i in down.row(Int(q)) {
                            let u = down.arcs[i].end
                            let word = Int(u) >> 6, bit: UInt64 = 1 << (UInt64(u) & 63)
                            if bits[word] & bit == 0 {
                                bits[word] |= bit
                                stack.append(u)
                            }
                        }
                    }
                }
            }
        }

        // Each node final once the nodes above it are; the edges entered noted on the way.
        var entries = beginEntries(limit: limit, starts: starts, listed: targets != nil)
        metrics.downDuration.withUnsafeBufferPointer { duration in
            ch.down.withBuffers { down in
                ch.order.withUnsafeBufferPointer { order in
                    @inline(__always) func label(_ q: Int) {
                        var best = upward.contains(q) ? upward[q] : .none
                        for i in down.row(q) {
                            let arc = down.arcs[i], from = labels[Int(arc.end)]
                            let w = from.weight + arc.weight
                            if w < best.weight { best = TimedLabel(weight: w,
                                                                   seconds: from.seconds + Double(duration[i])) }
                        }
                        labels[q] = best
                        if best.seconds <= limit {
                            let s = Int(order[q])
                            if !entries.isStart(s) { entries.enter(state: s, seconds: best.seconds) }
                        }
                    }
                    if targets == nil {
                        for q in 0..<n { label(q) }
                    } else {
                        for (w, word) in selected.enumerated() where word != 0 {
                            var bits = word
                            while bits != 0 {
                                label(w << 6 | bits.trailingZeroBitCount)
                                bits &= bits - 1
                            }
                        }
                    }
                }
            }
        }
        let rank = ch.rank
        let restricted = targets != nil
        return finishEntries(&entries) { s in
            let q = Int(rank[s])
            // (A node left out lies beyond the time's reach.)
            return !restricted || selected[q >> 6] & (1 << (UInt64(q) & 63)) != 0 ? labels[q] : .none
        }
    }

    /// When each edge is first entered (after the turn onto it), from the states' labels: an edge
    /// is entered at its state's seconds less its own.
    struct EntryTimes {
        let limit: Double
        let starts: [EdgePoint]
        /// The origin's edges (−1: none), whose states are labelled from the origin, not from their start.
        let startA: Int, startB: Int
        let paths: RestrictedPaths
        let edgeDuration: Column<Float>
        let times: StampedArray<Double>
        /// Whether the edges entered are listed (not where much of the map will be: read in edge order then).
        let listed: Bool
        var entered: [Int32]
        /// Edges entered.
        var count = 0

        @inline(__always)
        func isStart(_ s: Int) -> Bool { s == startA || s == startB }

        @inline(__always)
        mutating func enter(state s: Int, seconds: Double) {
            let f = paths.edge(s)
            enter(f, at: Swift.max(0, seconds - Double(edgeDuration[f])))
        }

        @inline(__always)
        mutating func enter(_ f: Int, at time: Double) {
            if time > limit { return }
            if !times.contains(f) {
                if listed { entered.append(Int32(f)) }
                count += 1
                times[f] = time
            } else if times[f] > time {
                times[f] = time
            }
        }
    }

    private func beginEntries(limit: Double, starts: [EdgePoint], listed: Bool) -> EntryTimes {
        entry.clear()
        var entered = self.entered
        entered.removeAll(keepingCapacity: true)
        self.entered = []
        return EntryTimes(limit: limit, starts: starts, startA: starts.first?.edge ?? -1,
                          startB: starts.count > 1 ? starts[1].edge : -1,
                          paths: data.transitions.paths, edgeDuration: data.graph.edgeDuration, times: entry,
                          listed: listed, entered: entered)
    }

    /// The roads reached: (edge, its source vertex, offset from there in metres, time there). The
    /// origin's edges are entered at the origin at time 0, and before it only by coming round to
    /// their start (from `label`'s states).
    private func finishEntries(_ entries: inout EntryTimes, label: (Int) -> TimedLabel) -> ReachedRoads {
        let graph = data.graph, starts = entries.starts
        defer { self.entered = entries.entered }
        for start in starts {
            let f = start.edge
            var best = TimedLabel.none
            data.transitions.forEachState(turningOnto: f, graph) { s, e, turn in
                let l = label(s), w = l.weight + (turn + Double(graph.edgeWeight[f]))
                if w < best.weight {
                    best = TimedLabel(weight: w,
                                      seconds: l.seconds + TransitionTable.duration(e, f,
                        graph, data.turns, data.costs))
                }
            }
            if best.weight.isFinite { entries.enter(f, at: best.seconds) }
        }
        let entry = entries.times, entered = entries.entered

        var reached: [(edge: Int, source: UInt32,
                       offset: Double, time: Double)] = starts.map { ($0.edge,
                                                                      graph.source(of: $0.edge), $0.offset, 0) }
        reached.reserveCapacity(reached.count + entries.count)
        if !entries.listed || entered.count > graph.edgeCount / 8 {
            // Much of the map: in edge order, so the graph's arrays are read front to back.
            for v in 0..<UInt32(graph.nodeCount) {
                for f in graph.edges(from: v) where entry.contains(f) { reached.append((f, v, 0, entry[f])) }
            }
        } else {
            for f in entered.lazy.map(Int.init) { reached.append((f, graph.source(of: f), 0, entry[f])) }
        }
        return reached
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
        func at(_ x: Int, _ y: Int) -> Bool { x >= 0 && y >= 0 && x < width && y < height && inside[y * width + x] }
        // Directed boundary edges by their start corner; direction 0 east, 1 north, 2 west, 3 south.
        let corners = (width + 1) * (height + 1)
        var out = [UInt8](repeating: 0, count: corners) // bit d: an unused edge leaves this corner heading d
        func id(_ x: Int, _ y: Int) -> Int { y * (width + 1) + x }
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
