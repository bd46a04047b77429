import WaymarkGraph
import WaymarkPreparation

/// Exact fastest-route queries on a ``ContractionHierarchy``: a forward search from the start's
/// edges and a backward search from the edges leading into the goal's edges, each going only
/// upwards, with stall-on-demand; they stop when neither can improve the best meeting.
///
/// Returns the same ``RoutePath`` as ``RouteSearch`` (shortcuts unpacked into directed edges), at
/// the same cost. The searcher owns its per-query scratch (labels and a heap per direction) and
/// shares the map's hierarchy; one searcher per thread.
public final class HierarchySearch {
    public let graph: RoadGraph
    public let hierarchy: ContractionHierarchy
    /// States taken off the heaps in the last query (both directions).
    public private(set) var settled = 0

    private let data: RoutingData
    private var forward: HierarchyDirection<SearchLabel>
    private var backward: HierarchyDirection<SearchLabel>
    /// Scratch for unpacking shortcuts.
    private var unpacking: (arcs: [Int], stack: [Int]) = ([], [])
    private var unpacked: [Int] = []

    package init(data: RoutingData) {
        self.data = data
        graph = data.graph
        hierarchy = data.hierarchy!
        forward = HierarchyDirection(count: data.hierarchy!.nodeCount)
        backward = HierarchyDirection(count: data.hierarchy!.nodeCount)
    }

    deinit {
        forward.deallocate()
        backward.deallocate()
    }

    /// The fastest route from one snapped point to another, or nil when the goal is unreachable.
    public func route(from origin: Snap, to destination: Snap) -> RoutePath? {
        route(from: data.snapIndex.edgePoints(origin, graph: graph), to: data.snapIndex.edgePoints(destination,
                                                                                                    graph: graph))
    }

    /// The fastest route from any of `starts` (each after the weight it has spent) to any of
    /// `goals`, or nil; the path's weight leaves out what its start had spent.
    package func route(from starts: [EdgePoint], to goals: [EdgePoint]) -> RoutePath? {
        let (best, meet, direct) = search(from: starts, to: goals, cap: .infinity, enough: -.infinity)
        guard best.isFinite else { return nil }
        // A meeting found is cheaper than any direct way along one edge (it had to beat it).
        if meet < 0, let direct {
            let spent = starts.first { $0.edge == direct.edge && $0.offset == direct.from }!.spent
            return RoutePath(data: data, edges: [direct.edge], startOffset: direct.from,
                             endOffset: direct.to, weight: best - spent)
        }
        // Unpacked into the searcher's own buffer, then copied once at the path's length.
        unpacked.removeAll(keepingCapacity: true)
        let goal = goals[hierarchy.unpackPath(meetingAt: meet, forward: forward.labels,
                                              backward: backward.labels, into: &unpacked,
                                              scratch: &unpacking)]
        unpacked.append(goal.edge)
        let edges = Array(unpacked)
        let start = starts.first { $0.edge == edges[0] }!
        return RoutePath(data: data, edges: edges, startOffset: start.offset, endOffset: goal.offset,
                         weight: best - start.spent)
    }

    /// Whether no route from `starts` to `goals` weighs less than `weight` (within `tolerance`):
    /// the search stops as soon as it meets one that does, or its queues pass `weight`, and
    /// unpacks nothing.
    package func isFastest(_ weight: Double, from starts: [EdgePoint], to goals: [EdgePoint],
                           tolerance: Double) -> Bool {
        let bound = weight - tolerance
        return search(from: starts, to: goals, cap: bound, enough: bound).best >= bound
    }

    /// The bidirectional search: the best weight found (infinity: none), the query node where the
    /// directions met for it (−1: the direct way along one edge, returned too). The directions stop
    /// when neither queue holds less than the best or `cap`, or once the best is below `enough`.
    private func search(from starts: [EdgePoint], to goals: [EdgePoint], cap: Double, enough: Double)
        -> (best: Double, meet: Int, direct: (edge: Int, from: Double, to: Double, weight: Double)?) {
        // Local copies for the loop (the labels' storage is shared); the heaps may grow, so they go back.
        var forward = self.forward, backward = self.backward
        defer {
            self.forward = forward
            self.backward = backward
        }
        HierarchyDirection.seedRoute(&forward, &backward, from: starts, to: goals, data)
        let ch = hierarchy
        let direct = data.alongOneEdge(from: starts, to: goals)
        var best = direct?.weight ?? .infinity
        // Forward climbs the upward arcs and stalls on the downward ones; backward the reverse.
        var meet = -1, settledCount = 0
        ch.up.withBuffers { up in
            ch.down.withBuffers { down in
                while best >= enough {
                    let forwardTop = forward.heap.peekKey ?? .infinity, backwardTop = backward.heap.peekKey ?? .infinity
                    if min(forwardTop, backwardTop) >= min(best, cap) { break }
                    let settledOne = forwardTop <= backwardTop
                        ? Self.step(&forward, along: up, stallingOn: down, against: backward, best: &best, meet: &meet)
                        : Self.step(&backward, along: down, stallingOn: up, against: forward, best: &best, meet: &meet)
                    if settledOne { settledCount += 1 }
                }
            }
        }
        settled = settledCount
        return (best, meet, direct)
    }

    /// Settles the cheapest node of `search`: records a better meeting with `other`, then, unless
    /// it stalls over `reverse` (the arcs the other way), relaxes its arcs in `rows`. Returns false
    /// when the entry was stale.
    @inline(__always)
    private static func step(_ search: inout HierarchyDirection<SearchLabel>, along rows: ArcRows.Buffers,
                             stallingOn reverse: ArcRows.Buffers, against other: HierarchyDirection<SearchLabel>,
                             best: inout Double, meet: inout Int) -> Bool {
        let (k, x) = search.heap.pop()!
        if search.isStale(k, x) { return false }
        search.prefetchNext(rows, reverse)
        let through = k + other.cost(x)
        if through < best {
            best = through
            meet = x
        }
        if search.stalls(x, at: k, over: reverse) { return true }
        search.relaxArcs(of: x, in: rows) { arc, _ in SearchLabel(cost: k + arc.weight, parent: Int32(arc.id)) }
        return true
    }
}
