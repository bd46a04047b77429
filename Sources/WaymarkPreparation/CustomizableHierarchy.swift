import WaymarkGraph
import WaymarkProfiles

/// The metric-independent half of a customizable contraction hierarchy (Dibbelt, Strasser,
/// Wagner): the edge-based graph's states in a nested-dissection order
/// (``NestedDissection``) and every arc contracting them in that order adds, with no witness
/// search — the chordal completion of the turns. Made once per graph; any weights (new speeds,
/// classes kept off) then give a ``ContractionHierarchy`` by ``customize(graph:transitions:costs:turns:)``
/// in a fraction of a contraction's time, each arc's weight the best of its lower triangles.
///
/// Layout, over elimination ranks (rank r is contracted r-th): the arcs of rank r go to the
/// higher ranks `head[start[r]..<start[r + 1]]`, ascending, and arc a's lower end is `tail[a]`;
/// the arcs ending at rank r from below are `lowerArc[lowerStart[r]..<lowerStart[r + 1]]`,
/// ascending by their lower end.
package struct CustomizableTopology: Sendable {
    /// States (edges, then copies along restricted paths) in the graph the topology was made for.
    package let nodeCount: Int
    /// `rank[s]`: state s's place in the elimination order; `state[r]` its inverse.
    let rank: [UInt32]
    let state: [UInt32]
    let start: [UInt32]
    let head: [UInt32]
    let tail: [UInt32]
    let lowerStart: [UInt32]
    let lowerArc: [UInt32]

    package var arcCount: Int { head.count }

    /// The topology of `graph`'s states and turns: every turn `transitions` allows (give it the
    /// table no class is kept off from; keeping classes off or new penalties change weights only).
    /// `edgePositions`: the graph's dissection (``NestedDissection/edgePositions(graph:)``, made
    /// here when not given).
    package init(graph: RoadGraph, transitions: TransitionTable, edgePositions: [UInt32]? = nil) {
        let paths = transitions.paths
        let n = paths.stateCount
        nodeCount = n
        let position = edgePositions ?? NestedDissection.edgePositions(graph: graph)
        precondition(position.count == graph.edgeCount, "a dissection of another graph")
        // A copy along a restricted path turns where its edge turns: it goes beside its edge.
        let byPlace = (0..<n).sorted {
            let a = position[paths.edge($0)], b = position[paths.edge($1)]
            return a != b ? a < b : $0 < $1
        }
        state = byPlace.map(UInt32.init)
        var rank = [UInt32](repeating: 0, count: n)
        for (r, s) in byPlace.enumerated() { rank[s] = UInt32(r) }
        self.rank = rank
        var rows = Self.turnRows(graph: graph, transitions: transitions, rank: rank)
        Self.eliminate(&rows)
        var start: [UInt32] = [0], head: [UInt32] = [], tail: [UInt32] = []
        start.reserveCapacity(n + 1)
        for r in 0..<n {
            head.append(contentsOf: rows[r])
            tail.append(contentsOf: repeatElement(UInt32(r), count: rows[r].count))
            start.append(UInt32(head.count))
        }
        rows = []
        (self.start, self.head, self.tail) = (start, head, tail)
        (lowerStart, lowerArc) = Self.lowerArcs(head: head, nodes: n)
    }

    /// Per rank, the higher ranks it shares a turn with (either way), ascending, once each.
    private static func turnRows(graph: RoadGraph, transitions: TransitionTable, rank: [UInt32]) -> [[UInt32]] {
        var rows = [[UInt32]](repeating: [], count: rank.count)
        for s in 0..<rank.count {
            let e = transitions.paths.edge(s)
            transitions.forEachTurn(after: s, graph) { f, t, _ in
                guard f != e else { return }
                let a = rank[s], b = rank[t]
                if a < b { rows[Int(a)].append(b) } else if b < a { rows[Int(b)].append(a) }
            }
        }
        for r in rows.indices where rows[r].count > 1 {
            rows[r].sort()
            var kept = 0
            for i in rows[r].indices where i == 0 || rows[r][i] != rows[r][kept - 1] {
                rows[r][kept] = rows[r][i]
                kept += 1
            }
            rows[r].removeLast(rows[r].count - kept)
        }
        return rows
    }

    /// Contracts the ranks in order with no witness: a rank's higher neighbours all become
    /// neighbours of the lowest of them (its parent in the elimination tree), which passes them on.
    private static func eliminate(_ rows: inout [[UInt32]]) {
        var merged: [UInt32] = []
        for r in rows.indices where rows[r].count > 1 {
            let parent = Int(rows[r][0])
            let mine = rows[r].dropFirst(), theirs = rows[parent]
            merged.removeAll(keepingCapacity: true)
            merged.reserveCapacity(mine.count + theirs.count)
            var i = mine.startIndex, j = 0
            while i < mine.endIndex || j < theirs.count {
                if j == theirs.count || (i < mine.endIndex && mine[i] < theirs[j]) {
                    merged.append(mine[i]); i += 1
                } else if i == mine.endIndex || theirs[j] < mine[i] {
                    merged.append(theirs[j]); j += 1
                } else {
                    merged.append(mine[i]); i += 1; j += 1
                }
            }
            if merged.count != theirs.count { rows[parent] = merged }
        }
    }

    /// For each rank, the arcs reaching it from below, ascending by their lower end (the arcs
    /// are numbered by lower end already).
    private static func lowerArcs(head: [UInt32], nodes n: Int) -> ([UInt32], [UInt32]) {
        var count = [UInt32](repeating: 0, count: n + 1)
        for h in head { count[Int(h) + 1] += 1 }
        for r in 0..<n { count[r + 1] += count[r] }
        var fill = count
        var lower = [UInt32](repeating: 0, count: head.count)
        for (a, h) in head.enumerated() {
            lower[Int(fill[Int(h)])] = UInt32(a)
            fill[Int(h)] += 1
        }
        return (count, lower)
    }

    /// The arc from rank `low` up to rank `high`, nil when there is none.
    func arc(from low: UInt32, to high: UInt32) -> Int? {
        var lo = Int(start[Int(low)]), hi = Int(start[Int(low) + 1])
        while lo < hi {
            let mid = (lo + hi) / 2
            if head[mid] < high { lo = mid + 1 } else { hi = mid }
        }
        return lo < Int(start[Int(low) + 1]) && head[lo] == high ? lo : nil
    }
}

extension CustomizableTopology {
    /// The hierarchy for the weights of `transitions` (turns it forbids are never taken) and
    /// `graph`'s edge weights: each arc's two directions weighted by the turns they stand for
    /// and then, in rank order, by their lower triangles; arcs left without a finite weight are
    /// dropped. The graph must be the one the topology was made for (its states and turns).
    package func customize(graph: RoadGraph, transitions: TransitionTable, costs: TurnCosts,
                           turns: TurnGeometry) -> ContractionHierarchy {
        precondition(transitions.paths.stateCount == nodeCount, "a topology for another graph")
        var metric = Metric(arcs: arcCount)
        for s in 0..<nodeCount {
            let e = transitions.paths.edge(s)
            transitions.forEachTurn(after: s, graph) { f, t, turn in
                guard f != e else { return }
                let w = Double(transitions.cost[turn]) + Double(graph.edgeWeight[f])
                let a = rank[s], b = rank[t]
                guard a != b, let arc = a < b ? arc(from: a, to: b) : arc(from: b, to: a) else {
                    preconditionFailure("a turn the topology does not hold")
                }
                if a < b { metric.up[arc] = min(metric.up[arc], w) } else { metric.down[arc] = min(metric.down[arc], w) }
            }
        }
        relaxTriangles(&metric)
        return hierarchy(metric, costs: costs, turns: turns, transitions: transitions)
    }

    /// Both directions' weights per arc and, for a weight a triangle gave, the two directed arcs
    /// it goes through (directed arc 2a: arc a upwards; 2a + 1: downwards; −1: a turn itself).
    struct Metric {
        var up: [Double], down: [Double]
        var first: [Int32], second: [Int32]

        init(arcs: Int) {
            up = [Double](repeating: .infinity, count: arcs)
            down = up
            first = [Int32](repeating: -1, count: 2 * arcs)
            second = first
        }
    }

    /// For every rank x in order, every triangle z < x < y: arc x → y against x → z → y, both
    /// ways. Arcs from z are final by then (their triangles lie below z).
    private func relaxTriangles(_ m: inout Metric) {
        var arcTo = [Int32](repeating: -1, count: nodeCount)
        for x in 0..<nodeCount {
            let row = Int(start[x])..<Int(start[x + 1])
            for c in row { arcTo[Int(head[c])] = Int32(c) }
            for i in Int(lowerStart[x])..<Int(lowerStart[x + 1]) {
                let zx = Int(lowerArc[i]), z = Int(tail[zx])
                let (zxUp, zxDown) = (m.up[zx], m.down[zx])
                if zxUp == .infinity && zxDown == .infinity { continue }
                for zy in (zx + 1)..<Int(start[z + 1]) {
                    let xy = Int(arcTo[Int(head[zy])])
                    assert(xy >= 0, "the completion is not chordal")
                    let viaUp = zxDown + m.up[zy], viaDown = m.down[zy] + zxUp
                    if viaUp < m.up[xy] {
                        m.up[xy] = viaUp
                        (m.first[2 * xy], m.second[2 * xy]) = (Int32(2 * zx + 1), Int32(2 * zy))
                    }
                    if viaDown < m.down[xy] {
                        m.down[xy] = viaDown
                        (m.first[2 * xy + 1], m.second[2 * xy + 1]) = (Int32(2 * zy + 1), Int32(2 * zx))
                    }
                }
            }
            for c in row { arcTo[Int(head[c])] = -1 }
        }
    }

    /// The query structure: directed arc 2a runs from arc a's lower state to its higher, 2a + 1
    /// back; those with a finite weight are kept, numbered in that order (a shortcut after its
    /// parts), each in the rows of its lower state. Query nodes are the ranks from the top down
    /// (the top separators first, as a search meets them).
    private func hierarchy(_ m: Metric, costs: TurnCosts, turns: TurnGeometry,
                           transitions: TransitionTable) -> ContractionHierarchy {
        let n = nodeCount
        var kept = [Int32](repeating: -1, count: 2 * arcCount)
        var arcTail: [UInt32] = [], arcHead: [UInt32] = [], first: [Int32] = [], second: [Int32] = []
        let finite = m.up.count { $0 < .infinity } + m.down.count { $0 < .infinity }
        arcTail.reserveCapacity(finite); arcHead.reserveCapacity(finite)
        first.reserveCapacity(finite); second.reserveCapacity(finite)
        func keep(_ d: Int, from: UInt32, to: UInt32) {
            kept[d] = Int32(arcTail.count)
            arcTail.append(from)
            arcHead.append(to)
            // (A finite weight's parts are finite, and numbered before it.)
            first.append(m.first[d] < 0 ? -1 : kept[Int(m.first[d])])
            second.append(m.second[d] < 0 ? -1 : kept[Int(m.second[d])])
        }
        for a in 0..<arcCount {
            let low = state[Int(tail[a])], high = state[Int(head[a])]
            if m.up[a] < .infinity { keep(2 * a, from: low, to: high) }
            if m.down[a] < .infinity { keep(2 * a + 1, from: high, to: low) }
        }
        var upStart: [UInt32] = [0], downStart: [UInt32] = [0]
        var ups: [ArcRows.Arc] = [], downs: [ArcRows.Arc] = []
        upStart.reserveCapacity(n + 1)
        downStart.reserveCapacity(n + 1)
        for q in 0..<n {
            let r = n - 1 - q
            for a in Int(start[r])..<Int(start[r + 1]) {
                let end = UInt32(n - 1) - head[a]
                if kept[2 * a] >= 0 { ups.append(ArcRows.Arc(end: end, id: UInt32(kept[2 * a]), weight: m.up[a])) }
                if kept[2 * a + 1] >= 0 {
                    downs.append(ArcRows.Arc(end: end, id: UInt32(kept[2 * a + 1]), weight: m.down[a]))
                }
            }
            upStart.append(UInt32(ups.count))
            downStart.append(UInt32(downs.count))
        }
        let order = state.reversed().map { $0 }
        let rank = rank.map { UInt32(n - 1) - $0 }
        return ContractionHierarchy(nodeCount: n, shortcutCount: first.count { $0 >= 0 }, costs: costs, turns: turns,
                                    transitions: transitions, up: ArcRows(start: Column(upStart), arcs: Column(ups)),
                                    down: ArcRows(start: Column(downStart), arcs: Column(downs)),
                                    order: Column(order), rank: Column(rank), arcTail: Column(arcTail),
                                    arcHead: Column(arcHead), arcFirst: Column(first), arcSecond: Column(second))
    }
}

extension ContractionHierarchy {
    /// The hierarchy of `graph` under `costs` and `turns` as ``init(graph:costs:turns:threads:excluding:progress:)``
    /// makes it — the same fastest routes — but customized on `topology` (made for this graph)
    /// instead of contracted.
    package init(graph: RoadGraph, costs: TurnCosts? = nil, turns: TurnGeometry? = nil,
                 excluding excluded: ExcludedClasses = [], topology: CustomizableTopology,
                 transitions given: TransitionTable? = nil) {
        let costs = costs ?? TurnCosts(for: graph)
        let turnTables = turns ?? TurnGeometry(graph: graph)
        let table = (given ?? TransitionTable(graph: graph, turns: turnTables, costs: costs))
            .excluding(excluded, graph: graph)
        self = topology.customize(graph: graph, transitions: table, costs: costs, turns: turnTables)
    }
}

extension ContractionHierarchy {
    /// Arcs a search can take (both directions' rows).
    package var searchArcCount: Int { up.arcs.count + down.arcs.count }
}
