import Foundation
import WaymarkGeo
import WaymarkGraph

/// Costs the search adds beyond the edges' travel times, after OSRM's car profile.
public struct TurnCosts: Sendable, Hashable {
    /// Seconds for turning back onto the road just travelled (OSRM uses 20).
    public var uTurnPenalty: Double = 20
    /// Seconds for passing a vertex with traffic signals.
    public var trafficSignalDelay: Double
    /// Scale of the turn penalty in seconds (OSRM: 7.5): a sharp turn costs nearly this much.
    public var turnPenalty: Double = 7.5
    /// How much cheaper turns towards the kerb side are (OSRM: 1.075).
    public var turnBias: Double = 1.075
    /// Traffic keeps left (Britain, Japan, …): left turns are the cheap ones.
    public var leftHandTraffic = false

    /// The costs for a graph: right- or left-hand traffic as the graph records.
    public init(for graph: RoadGraph) {
        self.init(leftHandTraffic: graph.drivingSide == .left)
    }

    public init(uTurnPenalty: Double = 20, trafficSignalDelay: Double = CarProfile().trafficSignalDelay,
                turnPenalty: Double = 7.5, leftHandTraffic: Bool = false) {
        self.uTurnPenalty = uTurnPenalty
        self.trafficSignalDelay = trafficSignalDelay
        self.turnPenalty = turnPenalty
        self.leftHandTraffic = leftHandTraffic
    }

    /// Seconds for turning by `angle` degrees (positive = right) at a junction: OSRM's sigmoid,
    /// near 0 for going straight, about 2 s for a right and 5.4 s for a left turn at 90° in
    /// right-hand traffic (mirrored in left-hand traffic).
    @inline(__always)
    public func turn(_ angle: Double) -> Double {
        let bias = leftHandTraffic ? 1 / turnBias : turnBias
        let x: Double
        if angle >= 0 {
            x = (13 / bias) * angle / 180 - 6.5 * bias
        } else {
            x = (13 * bias) * -angle / 180 - 6.5 / bias
        }
        return turnPenalty / (1 + exp(-x))
    }
}

/// Per-graph tables for turn costs: each edge's bearing as it leaves its source and as it reaches
/// its target, and how many roads meet at each vertex (turn costs apply where three or more do).
public struct TurnGeometry: Sendable {
    let headBearing: [Float]
    let tailBearing: [Float]
    let roads: [UInt8]

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
        headBearing = head
        tailBearing = tail
        roads = roadCount
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

extension RoutePath {
    /// A path found by a search: the edges driven (the first from `startOffset`, the last up to
    /// `endOffset`; one edge: between the two) and its cost; the length is summed here.
    init(graph: RoadGraph, edges: [Int], startOffset: Double, endOffset: Double, duration: Double) {
        let distance: Double
        if edges.count == 1 {
            distance = graph.part(edges[0], from: startOffset, to: endOffset).distance
        } else {
            var sum = graph.part(edges[0], from: startOffset, to: Double(graph.edgeLength[edges[0]])).distance
            for middle in edges.dropFirst().dropLast() { sum += Double(graph.edgeLength[middle]) }
            distance = sum + graph.part(edges[edges.count - 1], from: 0, to: endOffset).distance
        }
        self.init(duration: duration, distance: distance, edges: edges, startOffset: startOffset, endOffset: endOffset)
    }
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
    private let snapIndex: SnapIndex

    // Scratch, allocated once per searcher (raw storage: no exclusivity or bounds checks in the
    // search loop). Labels are valid only where their stamp equals the current generation.
    /// Per-vertex heuristic cache for the current query.
    private let vertexBound: UnsafeMutablePointer<Double>
    private let vertexStamp: UnsafeMutablePointer<UInt32>
    private let cost: UnsafeMutablePointer<Double>
    private let parent: UnsafeMutablePointer<Int32>
    private let stamp: UnsafeMutablePointer<UInt32>
    private var generation: UInt32 = 0
    private var heapStorage: UnsafeMutablePointer<MinHeap.Entry>
    private var heapCapacity: Int
    /// States taken off the heap in the last query (for measuring search effort).
    public private(set) var settled = 0

    /// Landmarks for the ALT lower bound (nil: great-circle distance only).
    public let landmarks: Landmarks?
    public let turns: TurnGeometry
    /// Turn cost (turn penalty by angle at junctions, plus the U-turn penalty) of every transition
    /// e → f, f leaving e's target: `transitionCost[transitionStart[e] + (f − firstEdge[target(e)])]`.
    private let transitionStart: [UInt32]
    private let transitionCost: [Float]

    public init(graph: RoadGraph, snapIndex: SnapIndex, landmarks: Landmarks? = nil, costs: TurnCosts? = nil,
                turns: TurnGeometry? = nil) {
        let costs = costs ?? TurnCosts(for: graph)
        self.graph = graph
        self.landmarks = landmarks
        let turnTables = turns ?? TurnGeometry(graph: graph)
        self.turns = turnTables
        let table = TransitionTable(graph: graph, turns: turnTables, costs: costs)
        transitionStart = table.start
        transitionCost = table.cost
        self.snapIndex = snapIndex
        self.costs = costs
        var fastest = 1.0
        for e in 0..<graph.edgeCount where graph.edgeDuration[e] > 0 {
            fastest = max(fastest, Double(graph.edgeLength[e]) / Double(graph.edgeDuration[e]))
        }
        maximumSpeed = fastest
        let n = max(1, graph.nodeCount), m = max(1, graph.edgeCount)
        let initialHeap = MinHeap(capacity: 4096)
        heapStorage = initialHeap.storage
        heapCapacity = initialHeap.capacity
        vertexBound = .allocate(capacity: n)
        vertexStamp = .allocate(capacity: n)
        vertexStamp.initialize(repeating: 0, count: n)
        cost = .allocate(capacity: m)
        cost.initialize(repeating: .infinity, count: m)
        parent = .allocate(capacity: m)
        parent.initialize(repeating: -1, count: m)
        stamp = .allocate(capacity: m)
        stamp.initialize(repeating: 0, count: m)
    }

    deinit {
        heapStorage.deallocate()
        vertexBound.deallocate()
        vertexStamp.deallocate()
        cost.deallocate()
        parent.deallocate()
        stamp.deallocate()
    }

    private func edgePoints(_ snap: Snap) -> [EdgePoint] { snapIndex.edgePoints(snap, graph: graph) }

    private func part(_ edge: Int, from a: Double, to b: Double) -> (duration: Double, distance: Double) {
        graph.part(edge, from: a, to: b)
    }

    /// The fastest route from one snapped point to another, or nil when the goal is unreachable.
    public func route(from origin: Snap, to destination: Snap, heuristic: Bool = true) -> RoutePath? {
        generation &+= 1
        if generation == 0 {
            stamp.update(repeating: 0, count: max(1, graph.edgeCount))
            vertexStamp.update(repeating: 0, count: max(1, graph.nodeCount))
            generation = 1
        }
        var heap = MinHeap(storage: heapStorage, capacity: heapCapacity)
        defer {
            heapStorage = heap.storage
            heapCapacity = heap.capacity
        }
        var settledCount = 0
        defer { settled = settledCount }
        let goalCoordinate = destination.coordinate
        let starts = edgePoints(origin), goals = edgePoints(destination)
        // Reaching the goal point means reaching the source of one of its edges first.
        let goalSources = goals.map { graph.source(of: $0.edge) }
        let landmarks = heuristic ? self.landmarks : nil
        // All landmarks: choosing only the best few per query (usual for ALT) weakened the bound
        // more than it saved here (measured on the shared Porto pairs).
        let active = landmarks.map { Array(0..<$0.count) } ?? []
        let generation = self.generation
        func h(_ e: Int) -> Double {
            guard heuristic else { return 0 }
            let v = graph.edgeTarget[e]
            if vertexStamp[Int(v)] == generation { return vertexBound[Int(v)] }
            var bound: Double
            if let landmarks {
                bound = .infinity
                for t in goalSources { bound = min(bound, landmarks.lowerBound(from: v, to: t, using: active)) }
            } else {
                bound = graph.coordinate(of: v).distance(to: goalCoordinate) / maximumSpeed
            }
            vertexStamp[Int(v)] = generation
            vertexBound[Int(v)] = bound
            return bound
        }

        var best = Double.infinity
        var bestEdge = -1, bestGoalOffset = 0.0, bestDirect: EdgePoint?
        var goalLastEdge = -1

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
            relax(s.edge, c, parent: -1, h: h(s.edge), heap: &heap)
        }

        // At most two goal edges (the two directions of the goal's segment).
        let goalEdge0 = goals.count > 0 ? goals[0].edge : -1, goalOffset0 = goals.count > 0 ? goals[0].offset : 0
        let goalEdge1 = goals.count > 1 ? goals[1].edge : -1, goalOffset1 = goals.count > 1 ? goals[1].offset : 0

        while let (key, e) = heap.pop() {
            guard stamp[e] == generation, key == cost[e] + h(e) else { continue }
            if key >= best { break }
            settledCount += 1
            let v = graph.edgeTarget[e]
            var base = cost[e]
            if graph.nodeFlags[Int(v)] & RoadGraph.trafficSignalsFlag != 0 { base += costs.trafficSignalDelay }
            let restricted = graph.nodeFlags[Int(v)] & RoadGraph.restrictionViaFlag != 0
            let fromSegment = graph.segment(of: e)
            let outgoing = graph.edges(from: v)
            let transitions = Int(transitionStart[e]) - outgoing.lowerBound
            for f in outgoing {
                let c = base + Double(transitionCost[transitions + f])
                let toSegment = graph.segment(of: f)
                if restricted && !graph.turnAllowed(via: v, from: fromSegment, to: toSegment) { continue }
                if f == goalEdge0 || f == goalEdge1 {
                    let goalOffset = f == goalEdge0 ? goalOffset0 : goalOffset1
                    let total = c + part(f, from: 0, to: goalOffset).duration
                    if total < best {
                        best = total
                        bestEdge = e
                        bestGoalOffset = goalOffset
                        bestDirect = nil
                        goalLastEdge = f
                    }
                }
                relax(f, c + Double(graph.edgeDuration[f]), parent: e, h: h(f), heap: &heap)
            }
        }
        guard best.isFinite else { return nil }

        if let direct = bestDirect {
            return RoutePath(graph: graph, edges: [direct.edge], startOffset: direct.offset, endOffset: bestGoalOffset, duration: best)
        }
        var edges = [goalLastEdge]
        var e = bestEdge
        while e >= 0 {
            edges.append(e)
            e = Int(parent[e])
        }
        edges.reverse()
        let startOffset = starts.first { $0.edge == edges[0] }!.offset
        return RoutePath(graph: graph, edges: edges, startOffset: startOffset, endOffset: bestGoalOffset, duration: best)
    }

    @inline(__always)
    private func relax(_ e: Int, _ c: Double, parent p: Int, h: Double, heap: inout MinHeap) {
        if stamp[e] == generation && cost[e] <= c { return }
        if h == .infinity { return } // the goal cannot be reached from here
        stamp[e] = generation
        cost[e] = c
        parent[e] = Int32(p)
        heap.push(c + h, e)
    }
}

/// A 4-ary min-heap of (key, item) with lazy deletion (stale entries are skipped on pop), over
/// storage its owner keeps between queries. Used as a local value inside a query, so no dynamic
/// exclusivity checks; the storage grows by doubling when full.
struct MinHeap {
    struct Entry {
        var key: Double
        var item: Int
    }

    private(set) var storage: UnsafeMutablePointer<Entry>
    private(set) var capacity: Int
    private var count = 0

    init(capacity: Int = 1024) {
        self.capacity = max(16, capacity)
        storage = .allocate(capacity: self.capacity)
    }

    /// A heap over existing storage (emptied).
    init(storage: UnsafeMutablePointer<Entry>, capacity: Int) {
        self.storage = storage
        self.capacity = capacity
    }

    func deallocate() { storage.deallocate() }

    mutating func removeAll() { count = 0 }

    /// The smallest key, without removing it.
    var peekKey: Double? { count > 0 ? storage[0].key : nil }

    mutating func push(_ key: Double, _ item: Int) {
        if count == capacity {
            let bigger = UnsafeMutablePointer<Entry>.allocate(capacity: capacity * 2)
            bigger.moveInitialize(from: storage, count: count)
            storage.deallocate()
            storage = bigger
            capacity *= 2
        }
        var i = count
        count += 1
        while i > 0 {
            let p = (i - 1) >> 2
            if storage[p].key <= key { break }
            storage[i] = storage[p]
            i = p
        }
        storage[i] = Entry(key: key, item: item)
    }

    mutating func pop() -> (Double, Int)? {
        guard count > 0 else { return nil }
        let top = storage[0]
        count -= 1
        if count > 0 {
            let last = storage[count]
            var i = 0
            while true {
                let first = 4 * i + 1
                if first >= count { break }
                var m = first
                let end = min(first + 4, count)
                var c = first + 1
                while c < end {
                    if storage[c].key < storage[m].key { m = c }
                    c += 1
                }
                if storage[m].key >= last.key { break }
                storage[i] = storage[m]
                i = m
            }
            storage[i] = last
        }
        return (top.key, top.item)
    }
}
