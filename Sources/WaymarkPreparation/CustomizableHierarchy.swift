import WaymarkGraph
import WaymarkSupport
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
    /// Per rank, which core relaxes its triangles (``TwoCoreCut``): 0 or 1 for the ranks of two
    /// groups of disjoint elimination subtrees, 2 for the ranks above them, relaxed after both.
    let core: [UInt8]

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
        var keys = (0..<n).map { UInt64(position[paths.edge($0)]) << 32 | UInt64($0) }
        keys.sort()
        state = keys.map { UInt32(truncatingIfNeeded: $0) }
        keys = []
        var rank = [UInt32](repeating: 0, count: n)
        for (r, s) in state.enumerated() { rank[Int(s)] = UInt32(r) }
        self.rank = rank
        let turns = Self.turnRows(graph: graph, transitions: transitions, rank: rank)
        (start, head) = Self.eliminate(turns)
        var tail = [UInt32](repeating: 0, count: head.count)
        for r in 0..<n { for a in Int(start[r])..<Int(start[r + 1]) { tail[a] = UInt32(r) } }
        self.tail = tail
        (lowerStart, lowerArc) = Self.lowerArcs(head: head, nodes: n)
        core = TwoCoreCut(start: start, head: head, tail: tail, lowerStart: lowerStart, lowerArc: lowerArc).core
    }

    /// Per rank, the higher ranks it shares a turn with (either way), ascending, once each: rows
    /// `start[r]..<start[r + 1]` of `higher`.
    private static func turnRows(graph: RoadGraph, transitions: TransitionTable,
                                 rank: [UInt32]) -> (start: [UInt32], higher: [UInt32]) {
        let n = rank.count
        func forEachPair(_ body: (_ low: Int, _ high: UInt32) -> Void) {
            ContractionHierarchy.forEachArc(graph, transitions) { s, t, _ in
                let a = rank[s], b = rank[t]
                if a < b { body(Int(a), b) } else if b < a { body(Int(b), a) }
            }
        }
        var count = [UInt32](repeating: 0, count: n + 1)
        forEachPair { low, _ in count[low + 1] += 1 }
        for r in 0..<n { count[r + 1] += count[r] }
        var fill = count, higher = [UInt32](repeating: 0, count: Int(count[n]))
        forEachPair { low, high in
            higher[Int(fill[low])] = high
            fill[low] += 1
        }
        // Each row sorted, its repeats dropped, packed.
        var start: [UInt32] = [0], packed: [UInt32] = []
        start.reserveCapacity(n + 1)
        packed.reserveCapacity(higher.count)
        for r in 0..<n {
            let row = Int(count[r])..<Int(count[r + 1])
            higher[row].sort()
            for i in row where i == row.lowerBound || higher[i] != higher[i - 1] { packed.append(higher[i]) }
            start.append(UInt32(packed.count))
        }
        return (start, packed)
    }

    /// Contracts the ranks in order with no witness: a rank's higher neighbours are those of its
    /// turns and those its children in the elimination tree (the ranks whose lowest higher
    /// neighbour it is) pass on; rows are made in rank order, so they go one after another.
    private static func eliminate(_ turns: (start: [UInt32], higher: [UInt32])) -> ([UInt32], [UInt32]) {
        let n = turns.start.count - 1
        var start: [UInt32] = [0], head: [UInt32] = []
        start.reserveCapacity(n + 1)
        head.reserveCapacity(2 * turns.higher.count)
        // Children as linked lists; `marked[y] == r + 1` while y is in row r.
        var firstChild = [Int32](repeating: -1, count: n), nextSibling = firstChild
        var marked = [UInt32](repeating: 0, count: n)
        var row: [UInt32] = []
        for r in 0..<n {
            row.removeAll(keepingCapacity: true)
            let stamp = UInt32(r + 1)
            func add(_ y: UInt32) {
                if marked[Int(y)] != stamp {
                    marked[Int(y)] = stamp
                    row.append(y)
                }
            }
            for i in Int(turns.start[r])..<Int(turns.start[r + 1]) { add(turns.higher[i]) }
            var child = firstChild[r]
            while child >= 0 {
                for i in Int(start[Int(child)])..<Int(start[Int(child) + 1]) where head[i] != UInt32(r) { add(head[i]) }
                child = nextSibling[Int(child)]
            }
            row.sort()
            head.append(contentsOf: row)
            start.append(UInt32(head.count))
            if let parent = row.first {
                nextSibling[r] = firstChild[Int(parent)]
                firstChild[Int(parent)] = Int32(r)
            }
        }
        return (start, head)
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
        ContractionHierarchy.forEachArc(graph, transitions) { s, t, w in
            let a = rank[s], b = rank[t]
            guard a != b, let arc = a < b ? arc(from: a, to: b) : arc(from: b, to: a) else {
                preconditionFailure("a turn the topology does not hold")
            }
            if a < b {
                metric.up[arc] = min(metric.up[arc], w)
            } else {
                metric.down[arc] = min(metric.down[arc], w)
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
            // (Each its own buffer: one shared would be copied at its first write.)
            up = [Double](repeating: .infinity, count: arcs)
            down = [Double](repeating: .infinity, count: arcs)
            first = [Int32](repeating: -1, count: 2 * arcs)
            second = [Int32](repeating: -1, count: 2 * arcs)
        }
    }

    /// For every rank x in order, every triangle z < x < y: arc x → y against x → z → y, both
    /// ways. Arcs from z are final by then (their triangles lie below z). A rank's lower
    /// neighbours lie in its elimination subtree, so the two cores' subtrees are relaxed side by
    /// side, each reading and writing only its own ranks' rows; the ranks above them after.
    private func relaxTriangles(_ m: inout Metric) {
        m.up.withUnsafeMutableBufferPointer { up in
            m.down.withUnsafeMutableBufferPointer { down in
                m.first.withUnsafeMutableBufferPointer { first in
                    m.second.withUnsafeMutableBufferPointer { second in
                        let rows = MetricRows(up: up, down: down, first: first, second: second)
                        _ = inParallel({ relaxTriangles(rows, core: 0) }, { relaxTriangles(rows, core: 1) })
                        relaxTriangles(rows, core: 2)
                    }
                }
            }
        }
    }

    /// The metric's columns, written in place by both cores (each at its own ranks' arcs).
    private struct MetricRows {
        let up: UnsafeMutableBufferPointer<Double>, down: UnsafeMutableBufferPointer<Double>
        let first: UnsafeMutableBufferPointer<Int32>, second: UnsafeMutableBufferPointer<Int32>
    }

    /// The triangles of the ranks ``core`` gives to `part`, in order.
    private func relaxTriangles(_ m: MetricRows, core part: UInt8) {
        var arcTo = [Int32](repeating: -1, count: nodeCount)
        for x in 0..<nodeCount where core[x] == part {
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
        let kept = KeptArcs(m)
        // The arcs for unpacking and the query rows read the same metric and write apart: made
        // side by side.
        let (arcs, (up, down)) = inParallel({ unpackingArcs(m, kept) }, { queryRows(m, kept) })
        let order = state.reversed().map { $0 }
        let rank = rank.map { UInt32(n - 1) - $0 }
        return ContractionHierarchy(nodeCount: n, shortcutCount: arcs.first.count { $0 >= 0 }, costs: costs,
                                    turns: turns, transitions: transitions, up: up, down: down,
                                    order: Column(order), rank: Column(rank), arcTail: Column(arcs.tail),
                                    arcHead: Column(arcs.head), arcFirst: Column(arcs.first),
                                    arcSecond: Column(arcs.second))
    }

    /// Every kept arc's ends (states) and, for a shortcut, the two kept arcs it stands for.
    private func unpackingArcs(_ m: Metric, _ kept: KeptArcs)
        -> (tail: [UInt32], head: [UInt32], first: [Int32], second: [Int32]) {
        let count = kept.count
        var arcTail = [UInt32](repeating: 0, count: count), arcHead = [UInt32](repeating: 0, count: count)
        var first = [Int32](repeating: -1, count: count), second = [Int32](repeating: -1, count: count)
        var k = 0
        for d in 0..<2 * arcCount where kept.contains(d) {
            let a = d / 2
            let low = state[Int(tail[a])], high = state[Int(head[a])]
            (arcTail[k], arcHead[k]) = d % 2 == 0 ? (low, high) : (high, low)
            // (A finite weight's parts are finite, and numbered before it.)
            if m.first[d] >= 0 {
                (first[k], second[k]) = (Int32(kept.number(Int(m.first[d]))), Int32(kept.number(Int(m.second[d]))))
            }
            k += 1
        }
        return (arcTail, arcHead, first, second)
    }

    /// The upward and downward rows by query node (the ranks from the top down).
    private func queryRows(_ m: Metric, _ kept: KeptArcs) -> (ArcRows, ArcRows) {
        let n = nodeCount
        var upStart: [UInt32] = [0], downStart: [UInt32] = [0]
        var ups: [ArcRows.Arc] = [], downs: [ArcRows.Arc] = []
        upStart.reserveCapacity(n + 1)
        downStart.reserveCapacity(n + 1)
        for q in 0..<n {
            let r = n - 1 - q
            for a in Int(start[r])..<Int(start[r + 1]) {
                let end = UInt32(n - 1) - head[a]
                if kept.contains(2 * a) {
                    ups.append(ArcRows.Arc(end: end, id: UInt32(kept.number(2 * a)), weight: m.up[a]))
                }
                if kept.contains(2 * a + 1) {
                    downs.append(ArcRows.Arc(end: end, id: UInt32(kept.number(2 * a + 1)), weight: m.down[a]))
                }
            }
            upStart.append(UInt32(ups.count))
            downStart.append(UInt32(downs.count))
        }
        return (ArcRows(start: Column(upStart), arcs: Column(ups)),
                ArcRows(start: Column(downStart), arcs: Column(downs)))
    }
}

/// The directed arcs a metric keeps (those with a finite weight) as a bit each, and how many are
/// kept before each word of bits: an arc's number among the kept ones is a count and a popcount,
/// read from an array a thirty-second the size of one number per arc (on a country, random reads
/// of parts' numbers stay in cache).
private struct KeptArcs {
    private var bits: [UInt64]
    private var before: [UInt32]
    private(set) var count = 0

    init(_ m: CustomizableTopology.Metric) {
        bits = [UInt64](repeating: 0, count: (2 * m.up.count + 63) / 64)
        for a in 0..<m.up.count {
            if m.up[a] < .infinity { bits[(2 * a) >> 6] |= 1 << UInt64((2 * a) & 63) }
            if m.down[a] < .infinity { bits[(2 * a + 1) >> 6] |= 1 << UInt64((2 * a + 1) & 63) }
        }
        before = [UInt32](repeating: 0, count: bits.count)
        for w in bits.indices {
            before[w] = UInt32(count)
            count += bits[w].nonzeroBitCount
        }
    }

    @inline(__always) func contains(_ d: Int) -> Bool { bits[d >> 6] & (1 << UInt64(d & 63)) != 0 }

    /// The number of kept arc `d` (kept arcs numbered in order).
    @inline(__always) func number(_ d: Int) -> Int {
        Int(before[d >> 6]) + (bits[d >> 6] & ((1 << UInt64(d & 63)) - 1)).nonzeroBitCount
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

/// The ranks cut for customizing on two cores. In the elimination tree (a rank's parent is its
/// lowest higher neighbour) a rank's triangles reach only into its own subtree. From the roots
/// down, the subtree with the most triangle work is opened (its root goes to the ranks done last)
/// while that lowers the estimated time (the ranks above plus the larger core's share); the
/// subtrees left are dealt to the two cores, largest first, each to the core with less work.
struct TwoCoreCut {
    let core: [UInt8]

    init(start: [UInt32], head: [UInt32], tail: [UInt32], lowerStart: [UInt32], lowerArc: [UInt32]) {
        let n = start.count - 1
        // Work: the inner steps of a rank's triangles (and one for the rank).
        var work = [Int](repeating: 1, count: n)
        var parent = [Int32](repeating: -1, count: n)
        for x in 0..<n {
            for i in Int(lowerStart[x])..<Int(lowerStart[x + 1]) {
                let zx = Int(lowerArc[i])
                work[x] += Int(start[Int(tail[zx]) + 1]) - zx
            }
            if start[x] < start[x + 1] { parent[x] = Int32(head[Int(start[x])]) }
        }
        var subtree = work
        for x in 0..<n where parent[x] >= 0 { subtree[Int(parent[x])] += subtree[x] }
        let total = subtree.enumerated().reduce(0) { $0 + (parent[$1.offset] < 0 ? $1.element : 0) }
        var childStart = [Int](repeating: 0, count: n + 1)
        for x in 0..<n where parent[x] >= 0 { childStart[Int(parent[x]) + 1] += 1 }
        for x in 0..<n { childStart[x + 1] += childStart[x] }
        var fill = childStart, children = [Int](repeating: 0, count: childStart[n])
        for x in 0..<n where parent[x] >= 0 {
            children[fill[Int(parent[x])]] = x
            fill[Int(parent[x])] += 1
        }
        // Open the largest subtree while that helps (tens of steps on a city).
        var frontier = (0..<n).filter { parent[$0] < 0 }
        var opened: [Int] = [], above = 0
        var best = (estimate: Int.max, steps: 0)
        for _ in 0..<4096 {
            guard let largest = frontier.indices.max(by: { subtree[frontier[$0]] < subtree[frontier[$1]] })
            else { break }
            let estimate = above + max(subtree[frontier[largest]], (total - above + 1) / 2)
            if estimate < best.estimate { best = (estimate, opened.count) }
            // (From here the estimate only grows: the ranks above do, and it is at least half the rest.)
            if subtree[frontier[largest]] <= (total - above + 1) / 2 { break }
            let root = frontier.swapRemoveAt(largest)
            opened.append(root)
            above += work[root]
            frontier += children[childStart[root]..<childStart[root + 1]]
        }
        // The cut at the best step: its opened roots last, the subtrees under them dealt out.
        var core = [UInt8](repeating: 3, count: n)
        for root in opened.prefix(best.steps) { core[root] = 2 }
        var roots = (0..<n).filter { core[$0] == 3 && (parent[$0] < 0 || core[Int(parent[$0])] == 2) }
        roots.sort { subtree[$0] > subtree[$1] }
        var load = (0, 0)
        for root in roots {
            core[root] = load.0 <= load.1 ? 0 : 1
            if core[root] == 0 { load.0 += subtree[root] } else { load.1 += subtree[root] }
        }
        // Every other rank goes with its parent (parents are higher: from the top down).
        for x in stride(from: n - 1, through: 0, by: -1) where core[x] == 3 { core[x] = core[Int(parent[x])] }
        self.core = core
    }
}

private extension Array {
    /// Removes the element at `i` by moving the last one there (order not kept).
    mutating func swapRemoveAt(_ i: Int) -> Element {
        swapAt(i, count - 1)
        return removeLast()
    }
}
