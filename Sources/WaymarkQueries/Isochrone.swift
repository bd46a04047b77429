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
        let times = minutes.sorted()
        let limit = (times.last ?? 0) * 60
        let reached = reach(from: origin, within: limit, method: method)
        // (Longitudes wrap only on a map across the antimeridian.)
        let wraps = data.bounds.map { $0.crossesAntimeridian || $0.longitudeSpan > 180 } ?? true
        var grid = IsochroneGrid(around: origin.coordinate, wraps: wraps, reached: reached, graph: data.graph)
        grid.mark(reached, within: limit)
        grid.spread()
        let contours = times.map { minutes in
            Isochrone.Contour(minutes: minutes, polygons: grid.polygons(within: minutes * 60, denoise: denoise))
        }
        return Isochrone(origin: origin, contours: contours, cellSize: grid.cell)
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
    /// down takes the best of its arcs from above. (One function: both phases read and write the
    /// same label arrays, held as raw buffers for the inner loops.)
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
        search.seed(from: starts, data, data.graph) { rest in TimedLabel(weight: rest.weight, seconds: rest.duration) }
        metrics.up.withUnsafeBufferPointer { metric in
            ch.up.withBuffers { up in
                while let (k, q) = search.heap.pop() {
                    if search.isStale(k, q) { continue }
                    let seconds = search.labels[q].seconds
                    search.relaxArcs(of: q, in: up) { arc, i in
                        TimedLabel(weight: k + arc.weight, seconds: seconds + Double(metric[i].x))
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
        metrics.down.withUnsafeBufferPointer { metric in
            ch.down.withBuffers { down in
                ch.order.withUnsafeBufferPointer { order in
                    @inline(__always) func label(_ q: Int) {
                        var best = upward.contains(q) ? upward[q] : .none
                        for i in down.row(q) {
                            let arc = down.arcs[i], from = labels[Int(arc.end)]
                            let w = from.weight + arc.weight
                            if w < best.weight {
                                best = TimedLabel(weight: w, seconds: from.seconds + Double(metric[i].x))
                            }
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

        var reached: ReachedRoads = starts.map { ($0.edge, graph.source(of: $0.edge), $0.offset, 0) }
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
