import WaymarkGraph
import WaymarkPreparation

/// What makes a route an alternative worth offering beside the best one (via-node alternatives,
/// Abraham, Delling, Goldberg and Werneck 2013): not much slower, different enough, and with no
/// detour a driver would see as one (locally optimal). OSRM's contraction hierarchy uses 1.15,
/// 0.75 and 0.25; ``standard`` takes GraphHopper's looser 1.25 and 0.8, which find more of them
/// (see BENCHMARKS.md).
public struct AlternativeRules: Sendable, Equatable {
    /// At most this many times the best route's weight.
    public var maxWeightFactor: Double
    /// At most this share of the best route's length (and of each alternative's before it)
    /// driven along the same roads.
    public var maxShare: Double
    /// Every stretch of this share of the best route's weight around the via point is itself a
    /// fastest route.
    public var localOptimality: Double

    public init(maxWeightFactor: Double, maxShare: Double, localOptimality: Double) {
        self.maxWeightFactor = maxWeightFactor
        self.maxShare = maxShare
        self.localOptimality = localOptimality
    }

    public static let standard = AlternativeRules(maxWeightFactor: 1.25, maxShare: 0.8, localOptimality: 0.25)
    /// OSRM's (its contraction hierarchy's `VIAPATH_*`).
    public static let osrm = AlternativeRules(maxWeightFactor: 1.15, maxShare: 0.75, localOptimality: 0.25)
}

/// Via-node alternatives on a contraction hierarchy: both directions of the hierarchy search run
/// on past the best meeting, to every node reached both ways within the weight allowed; each such
/// node is a via point, its route the two halves unpacked, tried cheapest first against
/// ``AlternativeRules``. The test of local optimality asks `fastest` (the caller's hierarchy
/// search) whether the stretch around the via point is a fastest route.
package final class AlternativeSearch {
    private let data: RoutingData
    private let hierarchy: ContractionHierarchy
    private var forward: HierarchyDirection<SearchLabel>
    private var backward: HierarchyDirection<SearchLabel>
    /// Per edge, where a route being made loop-free drives it.
    private var position: StampedArray<Int32>
    /// Per edge, which of the routes kept so far drive it: bit 0 the best, bit k the k-th
    /// alternative.
    private var drivenBy: StampedArray<UInt8>
    private var unpacking: (arcs: [Int], stack: [Int]) = ([], [])
    /// The goal points of the query being answered.
    private var goals: [EdgePoint] = []

    package init(data: RoutingData) {
        self.data = data
        hierarchy = data.hierarchy!
        forward = HierarchyDirection(count: hierarchy.nodeCount)
        backward = HierarchyDirection(count: hierarchy.nodeCount)
        position = StampedArray(count: data.graph.edgeCount)
        drivenBy = StampedArray(count: data.graph.edgeCount)
    }

    deinit {
        forward.deallocate()
        backward.deallocate()
        position.deallocate()
        drivenBy.deallocate()
    }

    /// A route through a via point while it is judged: its edges, where it starts and ends on
    /// them, and its weight. Made into a ``RoutePath`` once accepted.
    private struct Candidate {
        var edges: [Int]
        var startOffset: Double, endOffset: Double
        var weight: Double
    }

    /// Up to `count` alternatives to `best` from `starts` to `goals`, best first.
    package func alternatives(from starts: [EdgePoint], to goals: [EdgePoint], best: RoutePath, count: Int,
                              rules: AlternativeRules,
                              fastest: HierarchySearch) -> [RoutePath] {
        let limit = best.weight * rules.maxWeightFactor
        let candidates = viaNodes(from: starts, to: goals, within: limit)
        self.goals = goals
        // The routes so far (the best first): their lengths, and the edges each drives.
        var accepted: [RoutePath] = [], lengths = [best.distance]
        drivenBy.clear()
        mark(best.edges, 0)
        var tried = 0
        // (A node on a route tried before may still lead to another: its labels need not be the
        // ones that route used. One that repeats a route is turned away as sharing all of it.)
        for (node, weight) in candidates {
            guard accepted.count < count, tried < Self.maxTried else { break }
            tried += 1
            let (unpacked, goal) = unpack(node)

            // A via point off the way (up a side road and round back onto the same road) gives a
            // route that drives a stretch twice: without that loop it may be one. (The goal edge
            // last: the unpacking leaves it out.)
            let edges = withoutLoops(unpacked + [goals[goal].edge])
            let start = starts.first { $0.edge == edges[0] }!
            let candidate = Candidate(edges: edges, startOffset: start.offset, endOffset: goals[goal].offset,
                                      weight: edges.count == unpacked.count + 1 ? weight - start.spent
                                          : self.weight(of: edges, from: start.offset, to: goals[goal].offset))
            let sharing = shared(candidate.edges, routes: lengths.count)
            guard candidate.weight <= limit, zip(lengths, sharing).allSatisfy({ $1 <= rules.maxShare * $0 }),
                  isLocallyOptimal(candidate, via: node, span: rules.localOptimality * best.weight, fastest: fastest)
            else { continue }
            let path = RoutePath(data: data, edges: candidate.edges, startOffset: candidate.startOffset,
                                 endOffset: candidate.endOffset, weight: candidate.weight)
            accepted.append(path)
            mark(path.edges, lengths.count)
            lengths.append(path.distance)
        }
        return accepted
    }

    /// Via points tried at most per query: past these, a route this different is rare and the
    /// unpacking costs more than it finds.
    static let maxTried = 12

    /// The nodes both directions reached, with the weight through each, within `limit`, cheapest
    /// first.
    private func viaNodes(from starts: [EdgePoint], to goals: [EdgePoint],
                          within limit: Double) -> [(node: Int, weight: Double)] {
        var forward = self.forward, backward = self.backward
        defer {
            self.forward = forward
            self.backward = backward
        }
        HierarchyDirection.seedRoute(&forward, &backward, from: starts, to: goals, data)
        var met: [(node: Int, weight: Double)] = []
        let ch = hierarchy
        ch.up.withBuffers { up in
            ch.down.withBuffers { down in
                while true {
                    let forwardTop = forward.heap.peekKey ?? .infinity, backwardTop = backward.heap.peekKey ?? .infinity
                    if min(forwardTop, backwardTop) > limit { break }
                    if forwardTop <= backwardTop {
                        Self.step(&forward, along: up, stallingOn: down, against: backward, met: &met)
                    } else {
                        Self.step(&backward, along: down, stallingOn: up, against: forward, met: &met)
                    }
                }
            }
        }
        // A node met from both sides is listed once per side: its best weight, once.
        met.sort { ($0.node, $0.weight) < ($1.node, $1.weight) }
        var once: [(node: Int, weight: Double)] = []
        for m in met where m.weight <= limit && once.last?.node != m.node { once.append(m) }
        return once.sorted { ($0.weight, $0.node) < ($1.weight, $1.node) }
    }

    /// Settles the cheapest node of `search`, noting it when `other` has reached it too, and
    /// relaxes its arcs unless it stalls.
    private static func step(_ search: inout HierarchyDirection<SearchLabel>, along rows: ArcRows.Buffers,
                             stallingOn reverse: ArcRows.Buffers, against other: HierarchyDirection<SearchLabel>,
                             met: inout [(node: Int, weight: Double)]) {
        let (k, x) = search.heap.pop()!
        if search.isStale(k, x) { return }
        search.prefetchNext(rows, reverse)
        let through = k + other.cost(x)
        if through.isFinite { met.append((x, through)) }
        if search.stalls(x, at: k, over: reverse) { return }
        search.relaxArcs(of: x, in: rows) { arc, _ in SearchLabel(cost: k + arc.weight, parent: Int32(arc.id)) }
    }

    /// The edges of the route through via node `node`, and the goal it ends at.
    private func unpack(_ node: Int) -> (edges: [Int], goal: Int) {
        var edges: [Int] = []
        let goal = hierarchy.unpackPath(meetingAt: node, forward: forward.labels, backward: backward.labels,
                                        into: &edges, scratch: &unpacking)
        return (edges, goal)
    }

    /// `edges` without the loops that bring them back onto an edge driven before (the part between
    /// the two times cut out).
    private func withoutLoops(_ path: [Int]) -> [Int] {
        var edges: [Int] = []
        edges.reserveCapacity(path.count)
        position.clear()
        for e in path {
            // (A position past the end was cut out with a loop before.)
            if position.contains(e), case let i = Int(position[e]), i < edges.count, edges[i] == e {
                edges.removeSubrange((i + 1)...)
                continue
            }
            position[e] = Int32(edges.count)
            edges.append(e)
        }
        return edges
    }

    /// The weight of driving `edges`, the first from `start` metres, the last up to `end`
    /// (infinity where a turn between them is not allowed).
    private func weight(of edges: [Int], from start: Double, to end: Double) -> Double {
        let graph = data.graph, table = data.transitions
        if edges.count == 1 { return graph.part(edges[0], from: start, to: end).weight }
        var total = graph.part(edges[0], from: start, to: Double(graph.edgeLength[edges[0]])).weight
        for k in 1..<edges.count {
            total += Self.turn(edges[k - 1], edges[k], graph, table)
            total += k < edges.count - 1 ? Double(graph.edgeWeight[edges[k]])
                : graph.part(edges[k], from: 0, to: end).weight
        }
        return total
    }

    /// The weight of turning from edge `e` onto `f` on `graph`; infinity where it is not allowed.
    @inline(__always)
    private static func turn(_ e: Int, _ f: Int, _ graph: RoadGraph, _ table: TransitionTable) -> Double {
        graph.turnWeight(e, f, table: table) ?? .infinity
    }

    /// Notes that route `k` (0 the best) drives `edges`.
    private func mark(_ edges: [Int], _ k: Int) {
        for e in edges { drivenBy[e] = (drivenBy.contains(e) ? drivenBy[e] : 0) | UInt8(1 << k) }
    }

    /// Metres of `edges` along edges each of the first `routes` routes kept drives.
    private func shared(_ edges: [Int], routes: Int) -> [Double] {
        let lengths = data.graph.edgeLength
        var shared = [Double](repeating: 0, count: routes)
        for e in edges where drivenBy.contains(e) {
            let routes = drivenBy[e]
            for k in shared.indices where routes & UInt8(1 << k) != 0 { shared[k] += Double(lengths[e]) }
        }
        return shared
    }

    /// The T-test: the stretch of the candidate from `span` before the via node's edge to `span`
    /// after it (whole edges within the route: not the first or the last, driven in part) is a
    /// fastest route between its ends. Weights count the stretch's first edge whole, as a search
    /// seeds it, and not the turn onto it.
    private func isLocallyOptimal(_ candidate: Candidate, via node: Int, span: Double,
                                  fastest: HierarchySearch) -> Bool {
        let graph = data.graph, table = data.transitions, edges = candidate.edges
        let viaEdge = data.transitions.paths.edge(Int(hierarchy.order[node]))
        guard let k = edges.firstIndex(of: viaEdge) else { return true }
        func weight(_ i: Int) -> Double { Double(graph.edgeWeight[edges[i]]) }
        // Back from the via edge, then on from it, each edge's weight with the turn between.
        var i = k, j = k, before = 0.0, after = 0.0
        while i > 1 && before < span {
            before += weight(i - 1) + Self.turn(edges[i - 1], edges[i], graph, table)
            i -= 1
        }
        while j < edges.count - 2 && after < span {
            after += Self.turn(edges[j], edges[j + 1], graph, table) + weight(j + 1)
            j += 1
        }
        let stretch = before + weight(k) + after
        guard i < j else { return true }
        guard stretch.isFinite else { return false }
        let end = edges[j]
        return fastest.isFastest(stretch, from: [EdgePoint(edge: edges[i], offset: 0)],
                                 to: [EdgePoint(edge: end, offset: Double(graph.edgeLength[end]))],
                                 tolerance: stretch * 1e-6 + 1e-3)
    }
}

