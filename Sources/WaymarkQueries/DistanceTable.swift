import Dispatch
import Foundation
import WaymarkGeo
import WaymarkGraph
import WaymarkPreparation
import WaymarkSupport

/// Travel times and distances between every source and every destination (OSRM's table
/// service): row-major, `nil` where a destination cannot be reached from a source.
public struct DistanceTable: Sendable, Equatable {
    /// Where each source and destination snapped.
    public var sources: [Snap]
    public var destinations: [Snap]
    /// Seconds (travel time of the fastest route by weight), `durations[i * destinations.count + j]`.
    public var durations: [Double?]
    /// Metres along the same routes.
    public var distances: [Double?]

    public init(sources: [Snap], destinations: [Snap], durations: [Double?], distances: [Double?]) {
        self.sources = sources
        self.destinations = destinations
        self.durations = durations
        self.distances = distances
    }

    /// Cells without a route that ``fillUnreachable(speed:sources:destinations:)`` estimated, as
    /// (row, column).
    public var estimated: [(row: Int, column: Int)] = []

    public static func == (a: DistanceTable, b: DistanceTable) -> Bool {
        a.sources == b.sources && a.destinations == b.destinations && a.durations == b.durations
            && a.distances == b.distances && a.estimated.elementsEqual(b.estimated) { $0 == $1 }
    }

    /// Fills each cell without a route with the great-circle distance between its points (the
    /// inputs, or where they snapped) and that distance at `speed` metres per second, as OSRM's
    /// `fallback_speed`; the cells are listed in ``estimated``.
    public mutating func fillUnreachable(speed: Double, sources from: [Coordinate], destinations to: [Coordinate]) {
        precondition(speed > 0 && from.count == sources.count && to.count == destinations.count)
        for i in from.indices {
            for j in to.indices where durations[i * to.count + j] == nil {
                let metres = from[i].distance(to: to[j])
                durations[i * to.count + j] = metres / speed
                if !distances.isEmpty { distances[i * to.count + j] = metres }
                estimated.append((i, j))
            }
        }
    }

    public func duration(from i: Int, to j: Int) -> Double? { durations[i * destinations.count + j] }
    public func distance(from i: Int, to j: Int) -> Double? { distances[i * destinations.count + j] }
}

/// Travel time and length of every arc of a contraction hierarchy (a shortcut: the sum of the two
/// arcs it replaces), for searches that report more than the weight they minimise. Built once
/// per map, on the first table or isochrone.
///
/// Layout: `up[i]` and `down[i]` are (seconds, metres) of the arc at place `i` of the
/// hierarchy's upward and downward rows: a search reads them beside the arcs it relaxes, where
/// a column by arc number cost a cache miss per arc.
package struct ArcMetrics: Sendable {
    let up: [SIMD2<Float>]
    let down: [SIMD2<Float>]

    init(hierarchy ch: ContractionHierarchy, data: RoutingData) {
        let graph = data.graph, paths = ch.transitions.paths
        let count = ch.arcCount
        // Each arc's travel time and length side by side (x, y): a shortcut reads its two parts
        // in two cache lines, not four.
        var metric = [SIMD2<Double>](repeating: .zero, count: count)
        // The arcs of the road graph's turns first, shared out among the cores (each measures
        // its turn's geometry); then the shortcuts in order: a shortcut refers to arcs made
        // before it (stored hierarchies are checked for that), so each sums two arcs already done.
        let parts = min(8, coreCount)
        metric.withUnsafeMutableBufferPointer { metric in
            // Shared with the threads below: each part writes only its own share of it.
            nonisolated(unsafe) let metric = metric
            DispatchQueue.concurrentPerform(iterations: parts) { part in
                for a in share(part, of: parts, count) where ch.arcFirst[a] < 0 {
                    let e = paths.edge(Int(ch.arcTail[a])), f = paths.edge(Int(ch.arcHead[a]))
                    let turn = TransitionTable.duration(e, f, graph, data.turns, data.costs)
                    metric[a] = SIMD2(turn + Double(graph.edgeDuration[f]), Double(graph.edgeLength[f]))
                }
            }
            for a in 0..<count {
                let first = Int(ch.arcFirst[a]), second = Int(ch.arcSecond[a])
                guard first >= 0 else { continue }
                // (The raw buffer has no bounds check.)
                precondition(first < a && second < a, "shortcut \(a) refers to a later arc")
                metric[a] = metric[first] + metric[second]
            }
        }
        func inRows(_ arcs: UnsafeBufferPointer<ArcRows.Arc>) -> [SIMD2<Float>] {
            arcs.map { SIMD2(Float(metric[Int($0.id)].x), Float(metric[Int($0.id)].y)) }
        }
        up = ch.up.withBuffers { inRows($0.arcs) }
        down = ch.down.withBuffers { inRows($0.arcs) }
    }
}

/// Many-to-many on a contraction hierarchy, the bucket way (Knopp et al., as OSRM's table): one
/// upward backward search per destination leaves, at every node it settles, a bucket entry (the
/// destination and the cost from there); then one upward forward search per source scans the
/// buckets of the nodes it settles. Every pair's best meeting is its fastest route, as for single
/// queries. Costs are the weight the searches minimise; travel time and length ride along.
package final class TableSearch {
    private let data: RoutingData
    /// The map's graph, held here: taken from `data` at each search, it was copied whole.
    private let graph: RoadGraph
    private let hierarchy: ContractionHierarchy
    private let metrics: ArcMetrics
    private var search: HierarchyDirection<TableLabel>
    /// Where each node's bucket lies in the table's entries (sorted by node, so a forward search
    /// reads each bucket as one run).
    private var buckets: StampedArray<BucketRange>

    /// The bucket entries as the backward searches leave them, sorted by node, and the nodes
    /// that have a bucket: kept between tables (a trace's moves ask for thousands of small ones).
    private struct Scratch {
        var entries: [Entry] = []
        var sorted: [Entry] = []
        var touched: [Int32] = []
        /// The destinations' edge points, one run each (destination j's end at `goalEnds[j]`),
        /// and one source's.
        var goalPoints: [EdgePoint] = []
        var goalEnds: [Int] = []
        var starts: [EdgePoint] = []
        var goalsOnEdge = GoalsOnEdge()
        var cells = Cells()
    }
    private var scratch = Scratch()

    private struct BucketRange {
        var start: Int32
        var count: Int32
    }

    private struct TableLabel: SearchCost {
        var cost: Double
        var duration: Double
        var distance: Double
    }

    private struct Entry {
        var destination: Int32
        var node: Int32
        var cost: Double
        var duration: Double
        var distance: Double
    }

    package init(data: RoutingData, metrics: ArcMetrics) {
        self.data = data
        graph = data.graph
        hierarchy = data.hierarchy!
        self.metrics = metrics
        search = HierarchyDirection(count: hierarchy.nodeCount)
        buckets = StampedArray(count: hierarchy.nodeCount)
    }

    deinit {
        search.deallocate()
        buckets.deallocate()
    }

    /// Each pair's best so far: routing weight, and the travel time and length of that way (the
    /// first `count` of each, kept between tables: a trace asks for a small one per fix).
    private struct Cells {
        var cost: [Double] = []
        var durations: [Double] = []
        var distances: [Double] = []

        /// Every pair of the next table without a way (`count` of them).
        mutating func reset(count: Int) {
            if cost.count < count {
                cost = [Double](repeating: .infinity, count: count)
                durations = [Double](repeating: 0, count: count)
                distances = [Double](repeating: 0, count: count)
            } else {
                for j in 0..<count { cost[j] = .infinity }
            }
        }

        /// Takes a way for pair `j` where it is cheaper than the best so far.
        @inline(__always)
        mutating func offer(_ j: Int, cost c: Double, duration: Double, distance: Double) {
            guard c < cost[j] else { return }
            cost[j] = c
            durations[j] = duration
            distances[j] = distance
        }
    }

    /// The table between snapped points (their edge points on the graph): the buckets filled
    /// from the destinations, then scanned from each source. Each pair with a way is handed to
    /// `cell` (row-major index, travel time, length), with no array made for them: a trace asks
    /// for a small table per fix. Pairs whose way weighs more than `maxCost` are left out: both
    /// directions stop there, which keeps searches between points close together small.
    package func forEachCell(sources: [Snap], destinations: [Snap], maxCost: Double = .infinity,
                             _ cell: (_ index: Int, _ duration: Double, _ distance: Double) -> Void) {
        let columns = destinations.count, count = sources.count * columns
        // (Taken out while in use, so that filling it copies nothing; swapped, not copied, which
        // would retain each of its arrays.)
        var scratch = Scratch()
        swap(&scratch, &self.scratch)
        defer { swap(&scratch, &self.scratch) }
        scratch.cells.reset(count: count)
        scratch.goalPoints.removeAll(keepingCapacity: true)
        scratch.goalEnds.removeAll(keepingCapacity: true)
        for destination in destinations {
            data.snapIndex.appendEdgePoints(destination, lengths: graph.edgeLength, to: &scratch.goalPoints)
            scratch.goalEnds.append(scratch.goalPoints.count)
        }
        scratch.goalsOnEdge.set(scratch.goalPoints, ends: scratch.goalEnds)
        buckets.clear()
        var search = self.search
        defer { self.search = search }
        hierarchy.up.withBuffers { up in
            hierarchy.down.withBuffers { down in
                metrics.up.withUnsafeBufferPointer { upMetric in
                    metrics.down.withUnsafeBufferPointer { downMetric in
                        fillBuckets(&search, &scratch, maxCost: maxCost, up: up, down: (down, downMetric))
                        for (i, source) in sources.enumerated() {
                            scanBuckets(from: source, row: i * columns, &search, &scratch, maxCost: maxCost,
                                        up: (up, upMetric), down: down)
                        }
                    }
                }
            }
        }
        for j in 0..<count where scratch.cells.cost[j] < .infinity && scratch.cells.cost[j] <= maxCost {
            cell(j, scratch.cells.durations[j], scratch.cells.distances[j])
        }
    }

    /// The label at the far end of `arc` (its seconds and metres: `metric`) from a node labelled
    /// `label` at `k`.
    @inline(__always)
    private func label(along arc: ArcRows.Arc, _ metric: SIMD2<Float>, from label: TableLabel,
                       at k: Double) -> TableLabel {
        TableLabel(cost: k + arc.weight, duration: label.duration + Double(metric.x),
                   distance: label.distance + Double(metric.y))
    }

    /// The destinations' points by edge, for the ways along one edge: sorted by edge, then by
    /// destination (a binary search finds an edge's; no table of lists to make per query).
    private struct GoalsOnEdge {
        var list: [(edge: Int, destination: Int, offset: Double)] = []

        /// The list for destinations whose points are `points`, destination j's ending at `ends[j]`.
        mutating func set(_ points: [EdgePoint], ends: [Int]) {
            list.removeAll(keepingCapacity: true)
            var start = 0
            for (j, end) in ends.enumerated() {
                for g in points[start..<end] { list.append((g.edge, j, g.offset)) }
                start = end
            }
            list.insertionSort { ($0.edge, $0.destination) < ($1.edge, $1.destination) } // (a few points)
        }

        func range(of edge: Int) -> Range<Int> {
            var low = 0, high = list.count
            while low < high {
                let mid = (low + high) / 2
                if list[mid].edge < edge { low = mid + 1 } else { high = mid }
            }
            var end = low
            while end < list.count && list[end].edge == edge { end += 1 }
            return low..<end
        }
    }

    /// Backward: from the edges that may turn into each destination's edge, down the hierarchy,
    /// an entry in the bucket of every node settled and not stalled; the entries sorted by node
    /// into `scratch.sorted` (each bucket one run, where ``buckets`` says).
    private func fillBuckets(_ search: inout HierarchyDirection<TableLabel>, _ scratch: inout Scratch,
                             maxCost: Double, up: ArcRows.Buffers,
                             down: (rows: ArcRows.Buffers, metric: UnsafeBufferPointer<SIMD2<Float>>)) {
        let buckets = self.buckets
        scratch.entries.removeAll(keepingCapacity: true)
        scratch.touched.removeAll(keepingCapacity: true)
        var start = 0
        for (j, end) in scratch.goalEnds.enumerated() {
            let goals = scratch.goalPoints[start..<end]
            start = end
            search.clear()
            search.seed(into: goals, data, graph, turnSeconds: true) { _, _, turn, part, turnSeconds in
                TableLabel(cost: turn + part.weight, duration: turnSeconds + part.duration, distance: part.distance)
            }
            while let (k, x) = search.heap.pop(), k <= maxCost {
                if search.isStale(k, x) { continue }
                search.prefetchNext(down.rows, up, with: down.metric)
                // Stalled: a higher node reaches x more cheaply, so no best route meets here.
                if search.stalls(x, at: k, over: up) { continue }
                if buckets.contains(x) {
                    buckets[x].count += 1
                } else {
                    buckets[x] = BucketRange(start: 0, count: 1)
                    scratch.touched.append(Int32(x))
                }
                let label = search.labels[x]
                scratch.entries.append(Entry(destination: Int32(j), node: Int32(x), cost: k,
                                             duration: label.duration, distance: label.distance))
                search.relaxArcs(of: x, at: k, in: down.rows, upTo: maxCost) { arc, i in
                    self.label(along: arc, down.metric[i], from: label, at: k)
                }
            }
        }
        // The entries by node (a counting sort): each bucket one run.
        var offset: Int32 = 0
        for x in scratch.touched {
            let count = buckets[Int(x)].count
            buckets[Int(x)] = BucketRange(start: offset, count: 0)
            offset += count
        }
        scratch.sorted.removeAll(keepingCapacity: true)
        scratch.sorted.append(contentsOf: scratch.entries)
        for e in scratch.entries {
            let range = buckets[Int(e.node)]
            scratch.sorted[Int(range.start + range.count)] = e
            buckets[Int(e.node)].count += 1
        }
    }

    /// Forward: from one source's edges up the hierarchy, scanning the buckets of the nodes it
    /// settles into the source's row of `cells` (and along one edge, to a destination ahead on it).
    private func scanBuckets(from source: Snap, row: Int, _ search: inout HierarchyDirection<TableLabel>,
                             _ scratch: inout Scratch, maxCost: Double,
                             up: (rows: ArcRows.Buffers, metric: UnsafeBufferPointer<SIMD2<Float>>),
                             down: ArcRows.Buffers) {
        let buckets = self.buckets
        search.clear()
        scratch.starts.removeAll(keepingCapacity: true)
        data.snapIndex.appendEdgePoints(source, lengths: graph.edgeLength, to: &scratch.starts)
        search.seed(from: scratch.starts, data, graph) { rest in
            TableLabel(cost: rest.weight, duration: rest.duration, distance: rest.distance)
        }
        for s in scratch.starts {
            for g in scratch.goalsOnEdge.range(of: s.edge) where scratch.goalsOnEdge.list[g].offset >= s.offset {
                let (j, offset) = (scratch.goalsOnEdge.list[g].destination, scratch.goalsOnEdge.list[g].offset)
                let direct = graph.part(s.edge, from: s.offset, to: offset)
                scratch.cells.offer(row + j, cost: direct.weight, duration: direct.duration, distance: direct.distance)
            }
        }
        while let (k, x) = search.heap.pop(), k <= maxCost {
            if search.isStale(k, x) { continue }
            search.prefetchNext(up.rows, down, with: up.metric)
            let label = search.labels[x]
            if buckets.contains(x) {
                let range = buckets[x]
                for slot in Int(range.start)..<Int(range.start + range.count) {
                    let entry = scratch.sorted[slot]
                    scratch.cells.offer(row + Int(entry.destination), cost: k + entry.cost,
                                        duration: label.duration + entry.duration,
                                        distance: label.distance + entry.distance)
                }
            }
            if search.stalls(x, at: k, over: down) { continue }
            search.relaxArcs(of: x, at: k, in: up.rows, upTo: maxCost) { arc, i in
                self.label(along: arc, up.metric[i], from: label, at: k)
            }
        }
    }
}
