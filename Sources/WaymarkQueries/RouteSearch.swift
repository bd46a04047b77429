import Foundation
import WaymarkGeo
import WaymarkGraph
import WaymarkPreparation
import WaymarkProfiles

/// The best way between two snapped points: the least routing weight.
public struct RoutePath: Sendable, Equatable {
    /// The routing weight in seconds the search minimised (travel time with OSRM's routability
    /// penalties, turn costs, restricted-entry turns).
    public var weight: Double
    /// Travel time in seconds (edges, partial edges at both ends, turns, signals and gates).
    public var duration: Double
    /// Length in metres.
    public var distance: Double
    /// The directed edges driven, in order; the first and last are driven partly.
    public var edges: [Int]
    /// How far into the first edge the route starts and into the last edge it ends, in metres
    /// from each edge's source (for a route along one edge, both on that edge).
    public var startOffset: Double
    public var endOffset: Double
    /// The seconds of the turn into each edge (`edges[i - 1]` → `edges[i]`; 0 for the first), one
    /// per edge, as summed into ``duration``: guidance sums them again by step.
    package var turnDurations: [Double] = []
}

extension RoutePath {
    /// A path found by a search: the edges driven (the first from `startOffset`, the last up to
    /// `endOffset`; one edge: between the two) and its weight; length and travel time are summed
    /// here, edge by edge and turn by turn.
    init(data: RoutingData, edges: [Int], startOffset: Double, endOffset: Double, weight: Double) {
        // (The graph lent, not copied: a copy retains each of its columns, once per path — per leg of
        // a matched trace.)
        let (distance, duration, turns) = RoutePath.sums(data.graph, data, edges, startOffset, endOffset)
        self.init(weight: weight, duration: duration, distance: distance, edges: edges,
                  startOffset: startOffset, endOffset: endOffset, turnDurations: turns)
    }

    /// The path's length and travel time, edge by edge and turn by turn, and each turn's seconds.
    private static func sums(_ graph: borrowing RoadGraph, _ data: RoutingData, _ edges: [Int], _ startOffset: Double,
                             _ endOffset: Double) -> (distance: Double, duration: Double, turns: [Double]) {
        var distance = 0.0, duration = 0.0
        var turns: [Double] = [0]
        if edges.count == 1 {
            (_, duration, distance) = graph.part(edges[0], from: startOffset, to: endOffset)
        } else {
            (_, duration, distance) = graph.part(edges[0], from: startOffset, to: Double(graph.edgeLength[edges[0]]))
            turns.reserveCapacity(edges.count)
            let table = data.transitions
            for i in 1..<edges.count {
                let e = edges[i - 1], f = edges[i]
                let turn = table.turnSeconds(e, f, graph: graph, turns: data.turns, costs: data.costs)
                turns.append(turn)
                duration += turn
                if i < edges.count - 1 {
                    distance += Double(graph.edgeLength[edges[i]])
                    duration += Double(graph.edgeDuration[edges[i]])
                }
            }
            let last = graph.part(edges[edges.count - 1], from: 0, to: endOffset)
            distance += last.distance
            duration += last.duration
        }
        return (distance, duration, turns)
    }
}

extension RoutePath {
    /// This path, then `next`, which leaves from where this one ends, on the same edge (a route
    /// carrying on through a via point).
    package func joined(with next: RoutePath, data: RoutingData) -> RoutePath {
        precondition(edges.last == next.edges.first, "the next path must carry on along the edge this one ends on")
        return RoutePath(data: data, edges: edges + next.edges.dropFirst(), startOffset: startOffset,
                         endOffset: next.endOffset, weight: weight + next.weight)
    }
}

/// Exact fastest-route search on a ``RoadMap``'s graph: edge-based (a state is "just drove edge
/// e", or a copy of it along a restricted path: ``RestrictedPaths``), so turn restrictions
/// (`no_*`, `only_*`, at via nodes and over via ways) and a U-turn penalty are exact; A* with the
/// admissible bound of the map's landmarks (ALT) or, without them, great-circle distance ÷ the
/// fastest edge speed, or plain Dijkstra (`heuristic: false`) — all return equal costs, which the
/// tests check on random graphs.
///
/// The searcher owns its per-query scratch (edge labels, bounds cache, heap), kept between
/// queries; the graph, snap index and turn tables are the map's, shared. One searcher per thread.
public final class RouteSearch {
    public let graph: RoadGraph
    public var costs: TurnCosts { data.costs }
    /// States taken off the heap in the last query (for measuring search effort).
    public private(set) var settled = 0

    private let data: RoutingData
    /// The map's turn table, held here: taken from `data` at each query, it was copied with its columns.
    private let transitions: TransitionTable
    private let landmarks: Landmarks?
    /// Per state: the best cost of having driven its edge, and the state before it.
    private var labels: StampedArray<SearchLabel>
    /// Per vertex: the heuristic's bound to the goal (seconds), cached for the current query.
    private var bounds: StampedArray<Double>
    private var heap = MinHeap(capacity: 4096)

    package init(data: RoutingData, landmarks: Bool = true) {
        self.data = data
        graph = data.graph
        transitions = data.transitions
        self.landmarks = landmarks ? data.landmarks : nil
        labels = StampedArray(count: data.transitions.paths.stateCount)
        bounds = StampedArray(count: data.graph.nodeCount)
    }

    deinit {
        labels.deallocate()
        bounds.deallocate()
        heap.deallocate()
    }

    /// The fastest route from one snapped point to another, or nil when the goal is unreachable.
    /// (One function: the A*/ALT loop over this search's own label and heap buffers.)
    public func route(from origin: Snap, to destination: Snap, heuristic: Bool = true) -> RoutePath? {
        route(from: data.snapIndex.edgePoints(origin, graph: graph),
              to: data.snapIndex.edgePoints(destination, graph: graph), at: destination.coordinate,
              heuristic: heuristic)
    }

    /// The fastest route from any of `starts` (each after the weight it has spent) to any of
    /// `goals` (at most two, on one segment at `goalCoordinate`), or nil; the path's weight leaves
    /// out what its start had spent.
    package func route(from starts: [EdgePoint], to goals: [EdgePoint], at goalCoordinate: Coordinate,
                       heuristic: Bool = true) -> RoutePath? {
        // Along a single edge from start to goal, without reaching a vertex. Where no start can
        // leave its edge for less than that weighs, the search below stops at its first step (its
        // keys are at least that): it is not set up (most legs of a matched trace).
        let direct = data.alongOneEdge(from: starts, to: goals)
        if let direct, starts.allSatisfy({ s in
            s.spent + graph.part(s.edge, from: s.offset, to: Double(graph.edgeLength[s.edge])).weight >= direct.weight
        }) {
            settled = 0
            return path(along: direct, from: starts)
        }
        labels.clear()
        bounds.clear()
        // Local copies for the loop (the storage is shared); the heap's may grow, so it goes back.
        let labels = self.labels, bounds = self.bounds
        var heap = self.heap
        heap.removeAll()
        defer { self.heap = heap }
        var settledCount = 0
        defer { settled = settledCount }
        let landmarks = heuristic ? self.landmarks : nil
        // Reaching the goal point means reaching the source of one of its edges first (two at most;
        // the landmarks' bounds lead there).
        func goalSource(_ k: Int) -> UInt32? {
            landmarks != nil && k < goals.count ? graph.source(of: goals[k].edge) : nil
        }
        let goalSources = (goalSource(0), goalSource(1))
        // All landmarks: choosing only the best few per query (usual for ALT) weakened the bound
        // more than it saved here (measured on the shared Porto pairs).
        let active = landmarks.map { Array(0..<$0.count) } ?? []
        let maximumSpeed = data.maximumSpeed
        let paths = transitions.paths
        /// The bound from the end of edge `e`.
        func h(_ e: Int) -> Double {
            guard heuristic else { return 0 }
            let v = Int(graph.edgeTarget[e])
            if bounds.contains(v) { return bounds[v] }
            var bound: Double
            if let landmarks {
                bound = .infinity
                if let t = goalSources.0 {
                    bound = min(bound, landmarks.lowerBound(from: UInt32(v), to: t, using: active))
                }
                if let t = goalSources.1 {
                    bound = min(bound, landmarks.lowerBound(from: UInt32(v), to: t, using: active))
                }
            } else {
                bound = graph.coordinate(of: UInt32(v)).distance(to: goalCoordinate) / maximumSpeed
            }
            bounds[v] = bound
            return bound
        }
        @inline(__always) func relax(_ e: Int, _ c: Double, parent p: Int, h: Double) {
            if labels.contains(e) && labels[e].cost <= c { return }
            if h == .infinity { return } // the goal cannot be reached from here
            labels[e] = SearchLabel(cost: c, parent: Int32(p))
            heap.push(c + h, e)
        }

        var bestDirect = direct
        var best = bestDirect?.weight ?? .infinity
        var bestState = -1, bestGoalOffset = bestDirect?.to ?? 0 // bestState: the one before the goal edge
        var goalLastEdge = -1
        for s in starts {
            let c = s.spent + graph.part(s.edge, from: s.offset, to: Double(graph.edgeLength[s.edge])).weight
            relax(s.edge, c, parent: -1, h: h(s.edge))
        }

        // At most two goal edges (the two directions of the goal's segment).
        let goalEdge0 = goals.count > 0 ? goals[0].edge : -1, goalOffset0 = goals.count > 0 ? goals[0].offset : 0
        let goalEdge1 = goals.count > 1 ? goals[1].edge : -1, goalOffset1 = goals.count > 1 ? goals[1].offset : 0
        let transitionCost = transitions.cost

        while let (key, s) = heap.pop() {
            let cost = labels[s].cost
            let e = paths.edge(s)
            guard key == cost + h(e) else { continue }
            if key >= best { break }
            settledCount += 1
            transitions.forEachTurn(after: s, graph) { f, t, turn in
                let c = cost + Double(transitionCost[turn])
                if f == goalEdge0 || f == goalEdge1 {
                    let goalOffset = f == goalEdge0 ? goalOffset0 : goalOffset1
                    let total = c + graph.part(f, from: 0, to: goalOffset).weight
                    if total < best {
                        best = total
                        bestState = s
                        bestGoalOffset = goalOffset
                        bestDirect = nil
                        goalLastEdge = f
                    }
                }
                relax(t, c + Double(graph.edgeWeight[f]), parent: s, h: h(f))
            }
        }
        guard best.isFinite else { return nil }

        if let bestDirect { return path(along: bestDirect, from: starts) }
        var edges = [goalLastEdge]
        var s = bestState
        while s >= 0 {
            edges.append(paths.edge(s))
            s = Int(labels[s].parent)
        }
        edges.reverse()
        let start = starts.first { $0.edge == edges[0] }!
        return RoutePath(data: data, edges: edges, startOffset: start.offset, endOffset: bestGoalOffset,
                         weight: best - start.spent)
    }

    /// The path along one edge ``RoutingData/alongOneEdge(from:to:)`` found, its weight without
    /// what its start had spent.
    private func path(along direct: (edge: Int, from: Double, to: Double, weight: Double),
                      from starts: [EdgePoint]) -> RoutePath {
        let spent = starts.first { $0.edge == direct.edge && $0.offset == direct.from }!.spent
        return RoutePath(data: data, edges: [direct.edge], startOffset: direct.from, endOffset: direct.to,
                         weight: direct.weight - spent)
    }
}
