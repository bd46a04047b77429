import WaymarkGeo
import WaymarkGraph

/// Costs the search adds beyond the edges' travel times.
public struct TurnCosts: Sendable, Hashable {
    /// Seconds for turning back onto the road just travelled (OSRM uses 20).
    public var uTurnPenalty: Double = 20
    /// Seconds for passing a vertex with traffic signals.
    public var trafficSignalDelay: Double

    public init(uTurnPenalty: Double = 20, trafficSignalDelay: Double = CarProfile().trafficSignalDelay) {
        self.uTurnPenalty = uTurnPenalty
        self.trafficSignalDelay = trafficSignalDelay
    }
}

/// The fastest way between two snapped points.
public struct RoutePath: Sendable, Equatable {
    /// Travel time in seconds (edges, partial edges at both ends, turn costs).
    public var duration: Double
    /// Length in metres.
    public var distance: Double
    /// The directed edges driven, in order; the first and last are driven partly.
    public var edges: [Int]
    /// How far into the first edge the route starts and into the last edge it ends, in metres
    /// from each edge's source (for a route along one edge, both on that edge).
    public var startOffset: Double
    public var endOffset: Double
}

/// Exact fastest-route search on a ``RoadGraph``: edge-based (a state is "just drove edge e"), so
/// turn restrictions (`no_*`, `only_*`) and a U-turn penalty are exact; A* with the admissible
/// heuristic great-circle distance ÷ the graph's fastest edge speed, or plain Dijkstra
/// (`heuristic: false`) — the two return equal costs, which the tests check on random graphs.
///
/// Scratch memory (per-edge labels, the heap) is allocated once per searcher and reused: labels
/// carry a generation stamp, so a query touches only what it visits. One searcher per thread; the
/// graph and ``SnapIndex`` are shared.
public final class RouteSearch {
    public let graph: RoadGraph
    public let costs: TurnCosts
    /// Metres per second of the fastest edge (for the heuristic).
    public let maximumSpeed: Double
    private let segmentLength: [Double]
    private let snapIndex: SnapIndex

    private var cost: [Double]
    private var parent: [Int32]
    private var stamp: [UInt32]
    private var generation: UInt32 = 0
    private var heap = MinHeap()
    /// States taken off the heap in the last query (for measuring search effort).
    public private(set) var settled = 0

    public init(graph: RoadGraph, snapIndex: SnapIndex, costs: TurnCosts = TurnCosts()) {
        self.graph = graph
        self.snapIndex = snapIndex
        self.costs = costs
        var fastest = 1.0
        for e in 0..<graph.edgeCount where graph.edgeDuration[e] > 0 {
            fastest = max(fastest, Double(graph.edgeLength[e]) / Double(graph.edgeDuration[e]))
        }
        maximumSpeed = fastest
        var lengths = [Double](repeating: 0, count: graph.segmentCount)
        for e in 0..<graph.edgeCount { lengths[graph.segment(of: e)] = Double(graph.edgeLength[e]) }
        segmentLength = lengths
        cost = [Double](repeating: .infinity, count: graph.edgeCount)
        parent = [Int32](repeating: -1, count: graph.edgeCount)
        stamp = [UInt32](repeating: 0, count: graph.edgeCount)
    }

    /// A position on a directed edge: metres from its source.
    struct EdgePoint {
        var edge: Int
        var offset: Double
    }

    /// The directed edges a snapped point lies on, with its offset from each edge's source.
    private func edgePoints(_ snap: Snap) -> [EdgePoint] {
        var points: [EdgePoint] = []
        let fraction = snap.length > 0 ? snap.offset / snap.length : 0
        let length = segmentLength[snap.segment]
        if snapIndex.forwardEdge[snap.segment] >= 0 {
            points.append(EdgePoint(edge: Int(snapIndex.forwardEdge[snap.segment]), offset: fraction * length))
        }
        if snapIndex.backwardEdge[snap.segment] >= 0 {
            points.append(EdgePoint(edge: Int(snapIndex.backwardEdge[snap.segment]), offset: (1 - fraction) * length))
        }
        return points
    }

    private func part(_ edge: Int, from a: Double, to b: Double) -> (duration: Double, distance: Double) {
        let length = Double(graph.edgeLength[edge])
        guard length > 0 else { return (0, 0) }
        let share = max(0, min(1, (b - a) / length))
        return (Double(graph.edgeDuration[edge]) * share, length * share)
    }

    /// The fastest route from one snapped point to another, or nil when the goal is unreachable.
    public func route(from origin: Snap, to destination: Snap, heuristic: Bool = true) -> RoutePath? {
        generation &+= 1
        if generation == 0 {
            for i in stamp.indices { stamp[i] = 0 }
            generation = 1
        }
        heap.removeAll()
        settled = 0
        let goalCoordinate = destination.coordinate
        func h(_ e: Int) -> Double {
            heuristic ? graph.coordinate(of: graph.edgeTarget[e]).distance(to: goalCoordinate) / maximumSpeed : 0
        }

        let starts = edgePoints(origin), goals = edgePoints(destination)
        var best = Double.infinity
        var bestEdge = -1, bestGoalOffset = 0.0, bestDirect: EdgePoint?

        // Along a single edge from start to goal, without reaching a vertex.
        for s in starts {
            for g in goals where g.edge == s.edge && g.offset >= s.offset {
                let d = part(s.edge, from: s.offset, to: g.offset).duration
                if d < best {
                    best = d
                    bestDirect = EdgePoint(edge: s.edge, offset: s.offset)
                    bestGoalOffset = g.offset
                }
            }
        }
        for s in starts {
            let c = part(s.edge, from: s.offset, to: Double(graph.edgeLength[s.edge])).duration
            relax(s.edge, c, parent: -1, h: h(s.edge))
        }

        var goalByEdge: [Int: Double] = [:]
        for g in goals { goalByEdge[g.edge] = g.offset }

        while let (key, e) = heap.pop() {
            guard stamp[e] == generation, key == cost[e] + h(e) else { continue }
            if key >= best { break }
            settled += 1
            let v = graph.edgeTarget[e]
            var base = cost[e]
            if graph.nodeFlags[Int(v)] & RoadGraph.trafficSignalsFlag != 0 { base += costs.trafficSignalDelay }
            let restricted = graph.nodeFlags[Int(v)] & RoadGraph.restrictionViaFlag != 0
            let fromSegment = graph.segment(of: e)
            for f in graph.edges(from: v) {
                var c = base
                let toSegment = graph.segment(of: f)
                if toSegment == fromSegment && graph.isReversed(f) != graph.isReversed(e) { c += costs.uTurnPenalty }
                if restricted && !allowed(via: v, from: fromSegment, to: toSegment) { continue }
                if let goalOffset = goalByEdge[f] {
                    let total = c + part(f, from: 0, to: goalOffset).duration
                    if total < best {
                        best = total
                        bestEdge = e
                        bestGoalOffset = goalOffset
                        bestDirect = nil
                        goalLastEdge = f
                    }
                }
                relax(f, c + Double(graph.edgeDuration[f]), parent: e, h: h(f))
            }
        }
        guard best.isFinite else { return nil }

        if let direct = bestDirect {
            let p = part(direct.edge, from: direct.offset, to: bestGoalOffset)
            return RoutePath(duration: p.duration, distance: p.distance, edges: [direct.edge],
                             startOffset: direct.offset, endOffset: bestGoalOffset)
        }
        var edges = [goalLastEdge]
        var e = bestEdge
        while e >= 0 {
            edges.append(e)
            e = Int(parent[e])
        }
        edges.reverse()
        let startOffset = starts.first { $0.edge == edges[0] }!.offset
        var distance = part(edges[0], from: startOffset, to: Double(graph.edgeLength[edges[0]])).distance
        for middle in edges.dropFirst().dropLast() { distance += Double(graph.edgeLength[middle]) }
        distance += part(goalLastEdge, from: 0, to: bestGoalOffset).distance
        return RoutePath(duration: best, distance: distance, edges: edges, startOffset: startOffset, endOffset: bestGoalOffset)
    }

    private var goalLastEdge = -1

    @inline(__always)
    private func relax(_ e: Int, _ c: Double, parent p: Int, h: Double) {
        if stamp[e] == generation && cost[e] <= c { return }
        stamp[e] = generation
        cost[e] = c
        parent[e] = Int32(p)
        heap.push(c + h, e)
    }

    /// Whether turning at `via` from one segment onto another is allowed by the restrictions there.
    private func allowed(via v: UInt32, from: Int, to: Int) -> Bool {
        var low = 0, high = graph.restrictionVia.count
        while low < high {
            let mid = (low + high) / 2
            if graph.restrictionVia[mid] < v { low = mid + 1 } else { high = mid }
        }
        var mandatory = false, mandatoryMatched = false
        var i = low
        while i < graph.restrictionVia.count && graph.restrictionVia[i] == v {
            if Int(graph.restrictionFrom[i]) == from {
                let target = Int(graph.restrictionTo[i])
                if graph.restrictionKind[i] == RestrictionKind.prohibitive.rawValue {
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
}

/// A binary min-heap of (key, edge) with lazy deletion (stale entries are skipped on pop).
struct MinHeap {
    private var keys: [Double] = []
    private var items: [Int] = []

    mutating func removeAll() {
        keys.removeAll(keepingCapacity: true)
        items.removeAll(keepingCapacity: true)
    }

    mutating func push(_ key: Double, _ item: Int) {
        keys.append(key)
        items.append(item)
        var i = keys.count - 1
        while i > 0 {
            let p = (i - 1) / 2
            if keys[p] <= keys[i] { break }
            keys.swapAt(p, i)
            items.swapAt(p, i)
            i = p
        }
    }

    mutating func pop() -> (Double, Int)? {
        guard let key = keys.first, let item = items.first else { return nil }
        let lastKey = keys.removeLast(), lastItem = items.removeLast()
        if !keys.isEmpty {
            keys[0] = lastKey
            items[0] = lastItem
            var i = 0
            let n = keys.count
            while true {
                let l = 2 * i + 1, r = l + 1
                var m = i
                if l < n && keys[l] < keys[m] { m = l }
                if r < n && keys[r] < keys[m] { m = r }
                if m == i { break }
                keys.swapAt(m, i)
                items.swapAt(m, i)
                i = m
            }
        }
        return (key, item)
    }
}
