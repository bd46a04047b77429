import WaymarkGraph

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
    private var forward: Direction
    private var backward: Direction
    /// Scratch for unpacking shortcuts.
    private var unpackStack: [Int] = []
    private var arcs: [Int] = []

    /// One direction's search over query nodes: its labels (in the backward search, a node it
    /// started from has parent −1 − i, i the goal point it leads into) and its heap.
    private struct Direction {
        var labels: StampedArray<SearchLabel>
        var heap = MinHeap(capacity: 1024)

        init(count: Int) { labels = StampedArray(count: count) }

        mutating func clear() {
            labels.clear()
            heap.removeAll()
        }

        func deallocate() {
            labels.deallocate()
            heap.deallocate()
        }

        /// Labels node `y` with `cost` (reached by `parent`) if that is better than what it has.
        @inline(__always)
        mutating func relax(_ y: Int, _ cost: Double, parent: Int32) {
            if labels.contains(y) && labels[y].cost <= cost { return }
            labels[y] = SearchLabel(cost: cost, parent: parent)
            heap.push(cost, y)
        }

        /// The cost of node `x` in this direction, infinity where it has none.
        @inline(__always)
        func cost(_ x: Int) -> Double { labels.contains(x) ? labels[x].cost : .infinity }

        /// Settles the cheapest node: records a better meeting with `other`, then, unless a
        /// higher node reaches it more cheaply (stalled: nothing above it is needed through it),
        /// relaxes its arcs in `rows`. `reverse` are the arcs the other way, for the stall test.
        /// Returns false when the entry was stale.
        @inline(__always)
        mutating func step(along rows: ArcRows.Buffers, stallingOn reverse: ArcRows.Buffers, against other: Direction,
                           best: inout Double, meet: inout Int) -> Bool {
            let (k, x) = heap.pop()!
            if k > labels[x].cost { return false }
            let through = k + other.cost(x)
            if through < best {
                best = through
                meet = x
            }
            for i in reverse.row(x) where cost(Int(reverse.arcs[i].end)) + reverse.arcs[i].weight < k { return true }
            for i in rows.row(x) {
                let arc = rows.arcs[i]
                relax(Int(arc.end), k + arc.weight, parent: Int32(arc.id))
            }
            return true
        }
    }

    /// A searcher on the map's hierarchy (the map must route on one: ``RoadMap/SearchMethod/hierarchy``,
    /// or a stored one).
    public convenience init(map: RoadMap) {
        let data = map.data().data
        precondition(data.hierarchy != nil, "the map routes without a contraction hierarchy (method: \(map.method))")
        self.init(data: data)
    }

    init(data: RoutingData) {
        self.data = data
        graph = data.graph
        hierarchy = data.hierarchy!
        forward = Direction(count: data.hierarchy!.nodeCount)
        backward = Direction(count: data.hierarchy!.nodeCount)
    }

    deinit {
        forward.deallocate()
        backward.deallocate()
    }

    /// The fastest route from one snapped point to another, or nil when the goal is unreachable.
    public func route(from origin: Snap, to destination: Snap) -> RoutePath? {
        forward.clear()
        backward.clear()
        // Local copies for the loop (the labels' storage is shared); the heaps may grow, so they go back.
        var forward = self.forward, backward = self.backward
        defer {
            self.forward = forward
            self.backward = backward
        }
        let ch = hierarchy
        let starts = data.snapIndex.edgePoints(origin, graph: graph), goals = data.snapIndex.edgePoints(destination, graph: graph)

        var best = Double.infinity
        var direct: (edge: Int, from: Double, to: Double)?
        for s in starts {
            for g in goals where g.edge == s.edge && g.offset >= s.offset {
                let d = graph.part(s.edge, from: s.offset, to: g.offset).weight
                if d < best {
                    best = d
                    direct = (s.edge, s.offset, g.offset)
                }
            }
        }
        for s in starts {
            forward.relax(Int(ch.rank[s.edge]), graph.part(s.edge, from: s.offset, to: Double(graph.edgeLength[s.edge])).weight, parent: -1)
        }
        // Into a goal edge from every state of the edges before it that may turn onto it.
        let paths = ch.transitions.paths
        for (i, g) in goals.enumerated() {
            let partial = graph.part(g.edge, from: 0, to: g.offset).weight
            let v = graph.source(of: g.edge), outgoing = graph.edges(from: v)
            let flagged = graph.nodeFlags[Int(v)] & RoadGraph.restrictionViaFlag != 0
            for slot in graph.incoming(to: v) {
                let e = Int(graph.incomingEdge[slot])
                guard let turn = graph.turnWeight(e, g.edge, table: ch.transitions) else { continue }
                for s in paths.states(of: e) where paths.state(after: s, onto: g.edge, firstOut: outgoing.lowerBound, flagged: flagged) != nil {
                    backward.relax(Int(ch.rank[s]), turn + partial, parent: Int32(-1 - i))
                }
            }
        }

        // Forward climbs the upward arcs and stalls on the downward ones; backward the reverse.
        var meet = -1, settledCount = 0
        ch.up.withBuffers { up in
            ch.down.withBuffers { down in
                while true {
                    let forwardTop = forward.heap.peekKey ?? .infinity, backwardTop = backward.heap.peekKey ?? .infinity
                    if min(forwardTop, backwardTop) >= best { break }
                    let settledOne = forwardTop <= backwardTop
                        ? forward.step(along: up, stallingOn: down, against: backward, best: &best, meet: &meet)
                        : backward.step(along: down, stallingOn: up, against: forward, best: &best, meet: &meet)
                    if settledOne { settledCount += 1 }
                }
            }
        }
        settled = settledCount
        guard best.isFinite else { return nil }
        // A meeting found is cheaper than any direct way along one edge (it had to beat it).
        if meet < 0, let direct {
            return RoutePath(data: data, edges: [direct.edge], startOffset: direct.from, endOffset: direct.to, weight: best)
        }

        // Start … meet by the forward parents, meet … goal by the backward ones.
        arcs.removeAll(keepingCapacity: true)
        var x = meet
        while forward.labels[x].parent >= 0 {
            let a = Int(forward.labels[x].parent)
            arcs.append(a)
            x = Int(ch.rank[Int(ch.arcTail[a])])
        }
        var edges = [Int(ch.order[x])]
        edges.reserveCapacity(256)
        for a in arcs.reversed() { ch.unpack(a, into: &edges, stack: &unpackStack) }
        x = meet
        while backward.labels[x].parent >= 0 {
            let a = Int(backward.labels[x].parent)
            ch.unpack(a, into: &edges, stack: &unpackStack)
            x = Int(ch.rank[Int(ch.arcHead[a])])
        }
        let goal = goals[Int(-1 - backward.labels[x].parent)]
        for i in edges.indices { edges[i] = paths.edge(edges[i]) }
        edges.append(goal.edge)
        let startOffset = starts.first { $0.edge == edges[0] }!.offset
        return RoutePath(data: data, edges: edges, startOffset: startOffset, endOffset: goal.offset, weight: best)
    }
}
