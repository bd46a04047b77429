import WaymarkGraph

/// Exact fastest-route queries on a ``ContractionHierarchy``: a forward search from the start's
/// edges and a backward search from the edges leading into the goal's edges, each going only
/// upwards, with stall-on-demand; they stop when neither can improve the best meeting.
///
/// Returns the same ``RoutePath`` as ``RouteSearch`` (shortcuts unpacked into directed edges),
/// at the same cost. Scratch memory is allocated once per searcher and stamped per query; one
/// searcher per thread, the hierarchy shared.
public final class HierarchySearch {
    public let graph: RoadGraph
    public let hierarchy: ContractionHierarchy
    private let snapIndex: SnapIndex
    /// States taken off the heaps in the last query (both directions).
    public private(set) var settled = 0

    private let forwardCost: UnsafeMutablePointer<Double>
    private let forwardParent: UnsafeMutablePointer<Int32>
    private let forwardStamp: UnsafeMutablePointer<UInt32>
    private let backwardCost: UnsafeMutablePointer<Double>
    private let backwardParent: UnsafeMutablePointer<Int32>
    private let backwardStamp: UnsafeMutablePointer<UInt32>
    /// For a node the backward search started from: which goal point it leads into.
    private let backwardGoal: UnsafeMutablePointer<Int8>
    private var generation: UInt32 = 0
    /// Scratch for unpacking shortcuts.
    private var unpackStack: [Int] = []
    private var arcs: [Int] = []
    private var forwardHeap = MinHeap(capacity: 1024)
    private var backwardHeap = MinHeap(capacity: 1024)

    public init(graph: RoadGraph, hierarchy: ContractionHierarchy, snapIndex: SnapIndex) {
        precondition(hierarchy.nodeCount == graph.edgeCount, "the hierarchy was built for another graph")
        self.graph = graph
        self.hierarchy = hierarchy
        self.snapIndex = snapIndex
        let n = max(1, graph.edgeCount)
        forwardCost = .allocate(capacity: n)
        forwardParent = .allocate(capacity: n)
        forwardStamp = .allocate(capacity: n)
        forwardStamp.initialize(repeating: 0, count: n)
        backwardCost = .allocate(capacity: n)
        backwardParent = .allocate(capacity: n)
        backwardStamp = .allocate(capacity: n)
        backwardStamp.initialize(repeating: 0, count: n)
        backwardGoal = .allocate(capacity: n)
    }

    deinit {
        forwardCost.deallocate(); forwardParent.deallocate(); forwardStamp.deallocate()
        backwardCost.deallocate(); backwardParent.deallocate(); backwardStamp.deallocate()
        backwardGoal.deallocate()
        forwardHeap.deallocate()
        backwardHeap.deallocate()
    }

    /// The fastest route from one snapped point to another, or nil when the goal is unreachable.
    public func route(from origin: Snap, to destination: Snap) -> RoutePath? {
        generation &+= 1
        if generation == 0 {
            forwardStamp.update(repeating: 0, count: max(1, graph.edgeCount))
            backwardStamp.update(repeating: 0, count: max(1, graph.edgeCount))
            generation = 1
        }
        let gen = generation
        // Local copies: no exclusivity checks in the loop; the storage comes back below.
        var forwardHeap = self.forwardHeap, backwardHeap = self.backwardHeap
        forwardHeap.removeAll()
        backwardHeap.removeAll()
        defer {
            self.forwardHeap = forwardHeap
            self.backwardHeap = backwardHeap
        }
        let starts = snapIndex.edgePoints(origin, graph: graph), goals = snapIndex.edgePoints(destination, graph: graph)

        var best = Double.infinity
        var meet = -1
        var direct: (edge: Int, from: Double, to: Double)?
        for s in starts {
            for g in goals where g.edge == s.edge && g.offset >= s.offset {
                let d = graph.part(s.edge, from: s.offset, to: g.offset).duration
                if d < best {
                    best = d
                    direct = (s.edge, s.offset, g.offset)
                }
            }
        }
        for s in starts {
            let c = graph.part(s.edge, from: s.offset, to: Double(graph.edgeLength[s.edge])).duration
            if forwardStamp[s.edge] != gen || c < forwardCost[s.edge] {
                forwardStamp[s.edge] = gen
                forwardCost[s.edge] = c
                forwardParent[s.edge] = -1
                forwardHeap.push(c, s.edge)
            }
        }
        for (i, g) in goals.enumerated() {
            let partial = graph.part(g.edge, from: 0, to: g.offset).duration
            let v = graph.source(of: g.edge)
            for slot in graph.incoming(to: v) {
                let e = Int(graph.incomingEdge[slot])
                guard let turn = graph.turnWeight(e, g.edge, table: hierarchy.transitions, signalDelay: hierarchy.signalDelay) else { continue }
                let c = turn + partial
                if backwardStamp[e] != gen || c < backwardCost[e] {
                    backwardStamp[e] = gen
                    backwardCost[e] = c
                    backwardParent[e] = -1
                    backwardGoal[e] = Int8(i)
                    backwardHeap.push(c, e)
                }
            }
        }

        var settledCount = 0
        let ch = hierarchy
        ch.upStart.withUnsafeBufferPointer { upStart in
        ch.upHead.withUnsafeBufferPointer { upHead in
        ch.upWeight.withUnsafeBufferPointer { upWeight in
        ch.upArc.withUnsafeBufferPointer { upArc in
        ch.downStart.withUnsafeBufferPointer { downStart in
        ch.downTail.withUnsafeBufferPointer { downTail in
        ch.downWeight.withUnsafeBufferPointer { downWeight in
        ch.downArc.withUnsafeBufferPointer { downArc in
            while true {
                let forwardTop = forwardHeap.peekKey ?? .infinity, backwardTop = backwardHeap.peekKey ?? .infinity
                if min(forwardTop, backwardTop) >= best { break }
                if forwardTop <= backwardTop {
                    let (k, x) = forwardHeap.pop()!
                    if k > forwardCost[x] { continue }
                    settledCount += 1
                    if backwardStamp[x] == gen && k + backwardCost[x] < best {
                        best = k + backwardCost[x]
                        meet = x
                        direct = nil
                    }
                    // Stalled: a higher node reaches x more cheaply, so nothing above x via x is needed.
                    var stalled = false
                    for i in Int(downStart[x])..<Int(downStart[x + 1]) {
                        let y = Int(downTail[i])
                        if forwardStamp[y] == gen && forwardCost[y] + downWeight[i] < k { stalled = true; break }
                    }
                    if stalled { continue }
                    for i in Int(upStart[x])..<Int(upStart[x + 1]) {
                        let y = Int(upHead[i])
                        let c = k + upWeight[i]
                        if forwardStamp[y] != gen || c < forwardCost[y] {
                            forwardStamp[y] = gen
                            forwardCost[y] = c
                            forwardParent[y] = Int32(upArc[i])
                            forwardHeap.push(c, y)
                        }
                    }
                } else {
                    let (k, x) = backwardHeap.pop()!
                    if k > backwardCost[x] { continue }
                    settledCount += 1
                    if forwardStamp[x] == gen && k + forwardCost[x] < best {
                        best = k + forwardCost[x]
                        meet = x
                        direct = nil
                    }
                    var stalled = false
                    for i in Int(upStart[x])..<Int(upStart[x + 1]) {
                        let y = Int(upHead[i])
                        if backwardStamp[y] == gen && backwardCost[y] + upWeight[i] < k { stalled = true; break }
                    }
                    if stalled { continue }
                    for i in Int(downStart[x])..<Int(downStart[x + 1]) {
                        let y = Int(downTail[i])
                        let c = k + downWeight[i]
                        if backwardStamp[y] != gen || c < backwardCost[y] {
                            backwardStamp[y] = gen
                            backwardCost[y] = c
                            backwardParent[y] = Int32(downArc[i])
                            backwardHeap.push(c, y)
                        }
                    }
                }
            }
        }}}}}}}}
        settled = settledCount
        guard best.isFinite else { return nil }
        if let direct {
            return RoutePath(graph: graph, edges: [direct.edge], startOffset: direct.from, endOffset: direct.to, duration: best)
        }

        // Start … meet by the forward parents, meet … goal by the backward ones.
        arcs.removeAll(keepingCapacity: true)
        var x = meet
        while forwardParent[x] >= 0 {
            let a = Int(forwardParent[x])
            arcs.append(a)
            x = Int(ch.arcTail[a])
        }
        var edges = [x]
        edges.reserveCapacity(256)
        for a in arcs.reversed() { ch.unpack(a, into: &edges, stack: &unpackStack) }
        x = meet
        while backwardParent[x] >= 0 {
            let a = Int(backwardParent[x])
            ch.unpack(a, into: &edges, stack: &unpackStack)
            x = Int(ch.arcHead[a])
        }
        let goal = goals[Int(backwardGoal[x])]
        edges.append(goal.edge)
        let startOffset = starts.first { $0.edge == edges[0] }!.offset
        return RoutePath(graph: graph, edges: edges, startOffset: startOffset, endOffset: goal.offset, duration: best)
    }
}
