import CPrefetch
import WaymarkGraph
import WaymarkPreparation

// The search kit: the steps every search over a map is made of, each written once, as OSRM's
// `routing_base_ch.hpp` holds `stallAtNode` and `insertTargetInHeap` for all of its services.
// Route, table and isochrone searches are written in terms of these, and so is a new service:
//
// - seeding: a forward search from a snapped point (``HierarchyDirection/seed(from:_:_:_:)``), a
//   backward one into a snapped point's edges (``HierarchyDirection/seed(into:_:_:turnSeconds:_:)``, built on
//   ``TransitionTable/forEachState(turningOnto:_:_:)``);
// - one step: a label relaxed (``HierarchyDirection/relax(_:_:)``), a node's arcs relaxed, a node
//   stalled (``HierarchyDirection/stalls(_:at:over:)``), the next node's arcs fetched ahead
//   (``HierarchyDirection/prefetchNext(_:_:)``); on the graph without a hierarchy, the
//   turns after a state (``TransitionTable/forEachTurn(after:_:_:)``);
// - the end: the way along one edge (``RoutingData/alongOneEdge(from:to:)``), a meeting unpacked
//   into edges (``ContractionHierarchy/unpackPath(meetingAt:forward:backward:into:scratch:)``).

/// A label of a search over query nodes: at least the cost the search minimises.
protocol SearchCost: BitwiseCopyable {
    var cost: Double { get }
}

/// A search's label of a node: the best cost found so far (seconds) and the arc or edge it was
/// reached by (negative at a node the search started from).
struct SearchLabel: SearchCost {
    var cost: Double
    var parent: Int32
}

/// One direction of a search over a contraction hierarchy's query nodes: a label per node and a
/// heap. Per-query scratch, kept by its searcher between queries (``clear()`` starts a query);
/// the owner calls ``deallocate()`` once. A copy shares the labels' storage: searchers take a
/// local copy for the loop and put it back (the heap may have grown).
struct HierarchyDirection<Label: SearchCost> {
    var labels: StampedArray<Label>
    var heap: MinHeap

    init(count: Int, heapCapacity: Int = 1024) {
        labels = StampedArray(count: count)
        heap = MinHeap(capacity: heapCapacity)
    }

    mutating func clear() {
        labels.clear()
        heap.removeAll()
    }

    func deallocate() {
        labels.deallocate()
        heap.deallocate()
    }

    /// The cost of node `x` in this direction, infinity where it has none.
    @inline(__always)
    func cost(_ x: Int) -> Double { labels.contains(x) ? labels[x].cost : .infinity }

    /// Labels node `y` with `label` (and queues it) where that is cheaper than what it has.
    @inline(__always)
    mutating func relax(_ y: Int, _ label: Label) {
        if labels.contains(y) && labels[y].cost <= label.cost { return }
        labels[y] = label
        heap.push(label.cost, y)
    }

    /// Whether a heap entry popped at `cost` for node `x` is out of date (the node was labelled
    /// more cheaply after it was queued).
    @inline(__always)
    func isStale(_ cost: Double, _ x: Int) -> Bool { cost > labels[x].cost }

    /// Stall-on-demand (OSRM's `stallAtNode`): whether node `x`, settled at `cost`, is reached
    /// more cheaply from a node above it that this direction has labelled, by one of `reverse`'s
    /// arcs (the arcs that lead down to x). No best route goes up through such a node, so its
    /// arcs need not be relaxed.
    @inline(__always)
    func stalls(_ x: Int, at cost: Double, over reverse: ArcRows.Buffers) -> Bool {
        for i in reverse.row(x) where self.cost(Int(reverse.arcs[i].end)) + reverse.arcs[i].weight < cost {
            return true
        }
        return false
    }

    /// Starts loading the arcs of the node queued next, in `rows` and `reverse`, while the node
    /// just taken off the queue is worked on: they are far apart in memory, and the next step reads
    /// them first (to stall, then to relax).
    @inline(__always)
    func prefetchNext(_ rows: ArcRows.Buffers, _ reverse: ArcRows.Buffers) {
        guard let next = heap.peekItem else { return }
        waymark_prefetch(rows.arcs.baseAddress! + rows.row(next).lowerBound)
        waymark_prefetch(reverse.arcs.baseAddress! + reverse.row(next).lowerBound)
    }

    /// ``prefetchNext(_:_:)``, and the next node's `values` kept in `rows`' order beside its arcs.
    @inline(__always)
    func prefetchNext<T>(_ rows: ArcRows.Buffers, _ reverse: ArcRows.Buffers, with values: UnsafeBufferPointer<T>) {
        prefetchNext(rows, reverse)
        guard let next = heap.peekItem else { return }
        waymark_prefetch(values.baseAddress! + rows.row(next).lowerBound)
    }

    /// Relaxes every arc of node `x` in `rows`; `label` makes the label at the arc's far end from
    /// the arc and its place in the rows (where values kept in the rows' order are read).
    @inline(__always)
    mutating func relaxArcs(of x: Int, in rows: ArcRows.Buffers, _ label: (ArcRows.Arc, _ place: Int) -> Label) {
        for i in rows.row(x) {
            let arc = rows.arcs[i]
            relax(Int(arc.end), label(arc, i))
        }
    }

    /// ``relaxArcs(of:in:_:)`` for a search that stops past `bound`, from node `x` settled at
    /// `cost`: arcs leading past the bound are passed over (their labels would never be settled,
    /// nor stall a node that is, so the search finds the same).
    @inline(__always)
    mutating func relaxArcs(of x: Int, at cost: Double, in rows: ArcRows.Buffers, upTo bound: Double,
                            _ label: (ArcRows.Arc, _ place: Int) -> Label) {
        for i in rows.row(x) {
            let arc = rows.arcs[i]
            if cost + arc.weight > bound { continue }
            relax(Int(arc.end), label(arc, i))
        }
    }

    /// Seeds a forward search from a snapped point's edges (OSRM's source phantom): each edge's
    /// query node, labelled by `label` from what is left of the edge past the point.
    @inline(__always)
    mutating func seed(from starts: [EdgePoint], _ data: RoutingData, _ graph: borrowing RoadGraph,
                       _ label: (EdgePart) -> Label) {
        let rank = data.hierarchy!.rank
        for s in starts {
            var rest = graph.part(s.edge, from: s.offset, to: Double(graph.edgeLength[s.edge]))
            rest.weight += s.spent
            relax(Int(rank[s.edge]), label(rest))
        }
    }

    /// Seeds a backward search into a snapped point's edges (OSRM's `insertTargetInHeap`, edge
    /// based): every state that may turn onto one of `goals`' edges, labelled by `label` from the
    /// goal's index, the edge turned from, the turn's weight and the goal edge up to the point;
    /// with `turnSeconds`, the last argument is the turn's travel time (else 0).
    @inline(__always)
    mutating func seed(into goals: ArraySlice<EdgePoint>, _ data: RoutingData, _ graph: borrowing RoadGraph,
                       turnSeconds: Bool = false,
                       _ label: (_ goal: Int, _ from: Int, _ turn: Double, _ part: EdgePart,
                                 _ seconds: Double) -> Label) {
        let rank = data.hierarchy!.rank
        let table = data.transitions
        for (i, g) in goals.enumerated() {
            let part = graph.part(g.edge, from: 0, to: g.offset)
            table.forEachState(turningOnto: g.edge, from: data.snapIndex.source(ofEdge: g.edge), graph) { s, e, turn in
                let seconds = !turnSeconds ? 0
                    : table.turnSeconds(e, g.edge, graph: graph, turns: data.turns, costs: data.costs)
                relax(Int(rank[s]), label(i, e, turn, part, seconds))
            }
        }
    }
}


extension HierarchyDirection where Label == SearchLabel {
    /// Clears both directions and seeds them for a route from `starts` to `goals`: forward from the
    /// start points (parent −1), backward into the goal points (parent −1 − i, i the goal's index).
    static func seedRoute(_ forward: inout Self, _ backward: inout Self, from starts: [EdgePoint],
                          to goals: [EdgePoint], _ data: RoutingData) {
        forward.clear()
        backward.clear()
        forward.seed(from: starts, data, data.graph) { rest in SearchLabel(cost: rest.weight, parent: -1) }
        backward.seed(into: goals[...], data, data.graph) { i, _, turn, part, _ in
            SearchLabel(cost: turn + part.weight, parent: Int32(-1 - i))
        }
    }
}

extension RoutingData {
    /// The cheapest way from a start point to a goal point ahead of it on the same edge, without
    /// reaching a vertex: the edge, the two offsets and the weight (the start's spent weight
    /// included); nil where there is none.
    func alongOneEdge(from starts: [EdgePoint],
                      to goals: [EdgePoint]) -> (edge: Int, from: Double, to: Double, weight: Double)? {
        var best: (edge: Int, from: Double, to: Double, weight: Double)?
        for s in starts {
            for g in goals where g.edge == s.edge && g.offset >= s.offset {
                let weight = s.spent + graph.part(s.edge, from: s.offset, to: g.offset).weight
                if weight < best?.weight ?? .infinity { best = (s.edge, s.offset, g.offset, weight) }
            }
        }
        return best
    }
}

extension ContractionHierarchy {
    /// The edges of the route through query node `meet` (OSRM's `unpackPath`): down the forward
    /// labels' arcs to the start, up the backward ones to the goal, shortcuts unpacked, the goal
    /// edge last. The backward search's seeds have parent −1 − i, i the index of the goal they
    /// lead into; that index is returned. `scratch` is the caller's, kept between queries.
    func unpackPath(meetingAt meet: Int, forward: StampedArray<SearchLabel>, backward: StampedArray<SearchLabel>,
                    into edges: inout [Int], scratch: inout (arcs: [Int], stack: [Int])) -> Int {
        scratch.arcs.removeAll(keepingCapacity: true)
        var x = meet
        while forward[x].parent >= 0 {
            let a = Int(forward[x].parent)
            scratch.arcs.append(a)
            x = Int(rank[Int(arcTail[a])])
        }
        edges.append(Int(order[x]))
        for a in scratch.arcs.reversed() { unpack(a, into: &edges, stack: &scratch.stack) }
        x = meet
        while backward[x].parent >= 0 {
            let a = Int(backward[x].parent)
            unpack(a, into: &edges, stack: &scratch.stack)
            x = Int(rank[Int(arcHead[a])])
        }
        let paths = transitions.paths
        for i in edges.indices { edges[i] = paths.edge(edges[i]) }
        return Int(-1 - backward[x].parent)
    }
}
