import Dispatch
import Foundation
import WaymarkGraph
import WaymarkProfiles
import WaymarkSupport

/// A contraction hierarchy over the edge-based graph: its nodes are the road graph's directed
/// edges (and their copies along restricted paths, ``RestrictedPaths``) and its arcs the allowed turns (weight: signal
/// delay + turn cost + travel time of the
/// edge turned onto), so turn restrictions, U-turn penalties and turn costs are part of the
/// hierarchy exactly as in ``RouteSearch``, and a query returns the same cost as Dijkstra.
///
/// Preparation contracts nodes one by one in the order of a lazily updated priority (edge
/// difference, edge quotient, depth); a shortcut u → w replaces u → v → w unless a
/// witness path (a bounded Dijkstra avoiding v) is no longer. Queries are bidirectional
/// Dijkstra searches that only go upwards, with stall-on-demand (``HierarchySearch``).
///
/// Immutable and `Sendable`: one hierarchy serves any number of concurrent searchers.
public struct ContractionHierarchy: Sendable {
    /// Nodes = directed edges of the road graph, then their copies along restricted paths.
    public let nodeCount: Int
    /// Arcs in the hierarchy (original turns kept plus shortcuts).
    public var arcCount: Int { arcHead.count }
    /// Shortcuts added by contraction.
    public let shortcutCount: Int

    /// Arcs out of each node to higher-ranked nodes (the forward search climbs these), and arcs
    /// into each node from higher-ranked nodes, stored at the lower node (the backward search);
    /// both over query nodes.
    @usableFromInline package let up: ArcRows
    @usableFromInline package let down: ArcRows
    /// Query nodes: the hierarchy's nodes numbered from the top down (``topDownOrder(count:higher:)``).
    /// `rank[s]` is node s's query node; `order[q]` the node numbered q. Searches start and end
    /// in hierarchy nodes and run in query nodes.
    @usableFromInline package let rank: Column<UInt32>
    @usableFromInline package let order: Column<UInt32>
    /// Every arc, for unpacking: its ends and, for a shortcut, the two arcs it replaces.
    @usableFromInline package let arcTail: Column<UInt32>
    @usableFromInline package let arcHead: Column<UInt32>
    @usableFromInline package let arcFirst: Column<Int32>
    @usableFromInline package let arcSecond: Column<Int32>
    /// Turn costs, for entering the goal edge part-way.
    @usableFromInline package let transitions: TransitionTable
    /// The turn costs it was contracted under.
    public let costs: TurnCosts
    /// The graph's turn geometry the costs came from (routers on this hierarchy reuse it).
    public let turns: TurnGeometry

    /// How far contraction has got: nodes contracted, of how many. Called on the contracting
    /// thread, at most about two hundred times in all, and once at the end.
    public typealias Progress = (_ contracted: Int, _ total: Int) -> Void

    /// Contracts the edge-based graph of `graph` under the given turn costs (by default the
    /// graph's own: its driving side) and turn geometry (by default each edge's first and last
    /// pieces; a `RoadMap` passes the one it routes on, measured on perceived bearings), on
    /// `threads` threads (default: one per core). The hierarchy is the same whatever the number
    /// of threads.
    ///
    /// `excluding`: roads of those classes are left out (OSRM's `exclude`): no route found on
    /// the hierarchy enters one.
    public init(graph: RoadGraph, costs: TurnCosts? = nil, turns: TurnGeometry? = nil, threads: Int? = nil,
                excluding excluded: ExcludedClasses = [], progress: Progress? = nil) {
        let costs = costs ?? TurnCosts(for: graph)
        let turnTables = turns ?? TurnGeometry(graph: graph)
        let table = TransitionTable(graph: graph, turns: turnTables, costs: costs).excluding(excluded, graph: graph)
        transitions = table
        self.costs = costs
        self.turns = turnTables
        let paths = table.paths
        var builder = HierarchyBuilder(nodeCount: paths.stateCount)
        ContractionHierarchy.forEachArc(graph, table) { s, t, weight in
            builder.addOriginal(UInt32(s), UInt32(t), weight)
        }
        returnFreedMemory()
        builder.contractAll(threads: threads ?? ProcessInfo.processInfo.activeProcessorCount, progress: progress)
        returnFreedMemory()
        nodeCount = paths.stateCount
        shortcutCount = builder.shortcuts
        var (arcTail, arcHead, arcWeight) = builder.takeArcColumns()

        // Every arc kept is stored once, at its lower-ranked end, in query-node order.
        let order = ContractionHierarchy.topDownOrder(count: paths.stateCount) { v, visit in
            for a in builder.upward.arcs(of: v) { visit(Int(arcHead[Int(a)])) }
            for a in builder.downward.arcs(of: v) { visit(Int(arcTail[Int(a)])) }
        }! // (contraction's arcs go up, from each node to nodes contracted after it)
        let rank = ContractionHierarchy.inverse(order)! // (a topological order is a numbering)
        self.order = Column(order)
        self.rank = Column(rank)
        up = ArcRows(builder.upward, order: order, rank: rank, end: arcHead, weight: arcWeight)
        builder.upward = FrozenRows(nodeCount: 0) // (freed before the next copy is made)
        down = ArcRows(builder.downward, order: order, rank: rank, end: arcTail, weight: arcWeight)
        builder.downward = FrozenRows(nodeCount: 0)
        arcWeight = [] // (in the rows now)
        self.arcTail = Column(arcTail)
        self.arcHead = Column(arcHead)
        arcFirst = Column(builder.arcFirst)
        arcSecond = Column(builder.arcSecond)
    }

    /// A hierarchy from its parts (checked by the caller).
    init(nodeCount: Int, shortcutCount: Int, costs: TurnCosts, turns: TurnGeometry, transitions: TransitionTable,
         up: ArcRows, down: ArcRows, order: Column<UInt32>, rank: Column<UInt32>, arcTail: Column<UInt32>,
         arcHead: Column<UInt32>,
         arcFirst: Column<Int32>, arcSecond: Column<Int32>) {
        self.nodeCount = nodeCount
        self.order = order
        self.rank = rank
        self.shortcutCount = shortcutCount
        self.costs = costs
        self.turns = turns
        self.transitions = transitions
        self.up = up
        self.down = down
        self.arcTail = arcTail; self.arcHead = arcHead; self.arcFirst = arcFirst; self.arcSecond = arcSecond
    }

    /// Appends the nodes an arc stands for after its tail (its head last), unpacking shortcuts;
    /// `stack` is the caller's scratch (what it holds is not kept; it grows to the deepest nesting
    /// met, doubling when full).
    @usableFromInline package func unpack(_ arc: Int, into nodes: inout [Int], stack: inout [Int]) {
        // The stack kept in the scratch's storage, its depth counted here (pushed and popped through
        // the array, each step checked the array's room and owner); the storage doubled when full.
        if stack.count < 16 { stack = [Int](repeating: 0, count: 16) }
        var depth = 1
        stack[0] = arc
        while depth > 0 {
            let full = stack.withUnsafeMutableBufferPointer { s in
                while depth > 0 {
                    let a = s[depth - 1]
                    if arcFirst[a] < 0 {
                        nodes.append(Int(arcHead[a]))
                        depth -= 1
                    } else if depth == s.count {
                        return true
                    } else {
                        (s[depth - 1], s[depth]) = (Int(arcSecond[a]), Int(arcFirst[a]))
                        depth += 1
                    }
                }
                return false
            }
            if full { stack += [Int](repeating: 0, count: stack.count) }
        }
    }
}

extension ContractionHierarchy {
    /// Every arc of the edge-based graph over `table`'s states, in state order: state `s` to the
    /// state `t` a turn the table allows leads to, weighing the turn and the edge turned onto (a
    /// turn back onto the same edge, a loop's, is left out). What a hierarchy is made from.
    @inline(__always)
    static func forEachArc(_ graph: RoadGraph, _ table: TransitionTable,
                           _ body: (_ s: Int, _ t: Int, _ weight: Double) -> Void) {
        for s in 0..<table.paths.stateCount {
            let e = table.paths.edge(s)
            table.forEachTurn(after: s, graph) { f, t, turn in
                if f != e { body(s, t, Double(table.cost[turn]) + Double(graph.edgeWeight[f])) }
            }
        }
    }

    /// Why contracting `graph` would not finish in reasonable time, or nil. Contraction is near
    /// linear on road networks, where a directed edge turns onto about three others; input where
    /// every edge turns onto dozens (one way drawn through every node of a town, thousands of times)
    /// makes every witness search and every shortcut count explode. Such graphs are refused (the
    /// edge-based turns are counted first, in one pass); routes on them still answer by ALT.
    public static func refusal(for graph: RoadGraph) -> String? {
        var turns = 0, widest = 0
        for v in 0..<UInt32(graph.nodeCount) {
            let arriving = graph.incoming(to: v).count, leaving = graph.edges(from: v).count
            turns += arriving * leaving
            widest = max(widest, arriving, leaving)
        }
        guard turns > maximumTurnsPerEdge * graph.edgeCount + 100_000 else { return nil }
        return
            "too dense to contract: \(turns) turns over \(graph.edgeCount) directed edges (up to \(widest) roads at "
                + "one junction; road networks have about 3 turns per edge)"
    }

    /// More turns per directed edge than this (on average, beyond a margin for small maps) and the
    /// graph is not contracted. Porto, Malta and the sample town have under 4.
    public static let maximumTurnsPerEdge = 16
}

/// One direction of the query graph in CSR form, over query nodes (``ContractionHierarchy/rank``):
/// the arcs of query node q are `start[q]..<start[q + 1]`, each with the query node at its other
/// end, its id (for unpacking) and its weight (seconds), side by side so that relaxing an arc
/// reads one cache line.
@usableFromInline package struct ArcRows: Sendable {
    @usableFromInline package struct Arc: Sendable, BitwiseCopyable {
        @usableFromInline package var end: UInt32
        @usableFromInline package var id: UInt32
        @usableFromInline package var weight: Double
    }

    @usableFromInline let start: Column<UInt32>
    @usableFromInline let arcs: Column<Arc>

    init(start: Column<UInt32>, arcs: Column<Arc>) {
        self.start = start
        self.arcs = arcs
    }

    /// Rows from the columns files stored before the arcs were stored side by side (checked by the caller).
    init(start: Column<UInt32>, end: Column<UInt32>, weight: Column<Double>, id: Column<UInt32>) {
        var arcs: [Arc] = []
        arcs.reserveCapacity(end.count)
        for i in 0..<min(end.count, weight.count, id.count) {
            arcs.append(Arc(end: end[i], id: id[i], weight: weight[i]))
        }
        self.init(start: start, arcs: Column(arcs))
    }

    /// Rows in query-node order from each hierarchy node's list of arc ids: query node q's row is
    /// node `order[q]`'s list; `end` and `weight` are per arc id, `end` a hierarchy node.
    init(_ rows: FrozenRows, order: [UInt32], rank: [UInt32], end arcEnd: [UInt32], weight arcWeight: [Double]) {
        self.init(order: order, rank: rank, total: rows.flat.count) { v, body in
            for a in rows.arcs(of: v) { body(Arc(end: arcEnd[Int(a)], id: a, weight: arcWeight[Int(a)])) }
        }
    }

    /// These rows (indexed by hierarchy node, their ends hierarchy nodes) renumbered into query nodes.
    func renumbered(order: [UInt32], rank: [UInt32]) -> ArcRows {
        ArcRows(order: order, rank: rank, total: arcs.count) { v, body in
            for i in Int(start[v])..<Int(start[v + 1]) { body(arcs[i]) }
        }
    }

    private init(order: [UInt32], rank: [UInt32], total: Int, row: (Int, (Arc) -> Void) -> Void) {
        var start: [UInt32] = [0], arcs: [Arc] = []
        start.reserveCapacity(order.count + 1)
        arcs.reserveCapacity(total)
        for v in order {
            row(Int(v)) { arc in arcs.append(Arc(end: rank[Int(arc.end)], id: arc.id, weight: arc.weight)) }
            start.append(UInt32(arcs.count))
        }
        self.init(start: Column(start), arcs: Column(arcs))
    }

    /// The rows as raw buffers, for a search loop (no bounds checks in release builds).
    @usableFromInline package struct Buffers {
        @usableFromInline let start: UnsafeBufferPointer<UInt32>
        @usableFromInline package let arcs: UnsafeBufferPointer<Arc>

        @inlinable init(start: UnsafeBufferPointer<UInt32>, arcs: UnsafeBufferPointer<Arc>) {
            self.start = start
            self.arcs = arcs
        }

        /// Positions of query node q's arcs.
        @inlinable @inline(__always)
        package func row(_ q: Int) -> Range<Int> { Int(start[q])..<Int(start[q + 1]) }
    }

    @inlinable
    package func withBuffers<R>(_ body: (Buffers) -> R) -> R {
        start.withUnsafeBufferPointer { start in
            arcs.withUnsafeBufferPointer { arcs in body(Buffers(start: start, arcs: arcs)) }
        }
    }
}

extension ContractionHierarchy {
    /// The hierarchy's nodes from the top down, as query nodes are numbered: a node comes after
    /// every node above it (reached by its arcs, all of which go up), so the few nodes every
    /// search climbs to are numbered first and share cache lines and pages. `higher(v, visit)`
    /// visits the nodes node v's arcs lead up to.
    /// Nil where the arcs close a cycle (a damaged file).
    static func topDownOrder(count n: Int, higher: (Int, (Int) -> Void) -> Void) -> [UInt32]? {
        // Kahn's topological sort from the bottom (nodes nothing leads up to), then reversed.
        var below = [UInt32](repeating: 0, count: n)
        for v in 0..<n { higher(v) { below[$0] += 1 } }
        var order: [UInt32] = []
        order.reserveCapacity(n)
        for v in 0..<n where below[v] == 0 { order.append(UInt32(v)) }
        var next = 0
        while next < order.count {
            higher(Int(order[next])) { y in
                below[y] -= 1
                if below[y] == 0 { order.append(UInt32(y)) }
            }
            next += 1
        }
        guard order.count == n else { return nil }
        order.reverse()
        return order
    }

    /// The inverse of a numbering: `rank[order[q]] == q`; nil when `order` is not a numbering of
    /// `0..<order.count` (a value out of range or twice).
    static func inverse<C: Collection<UInt32>>(_ order: C) -> [UInt32]? {
        var rank = [UInt32](repeating: UInt32.max, count: order.count)
        for (q, v) in order.enumerated() {
            guard Int(v) < rank.count, rank[Int(v)] == UInt32.max else { return nil }
            rank[Int(v)] = UInt32(q)
        }
        return rank
    }
}

/// Each node's list of arcs, set once (when the node is contracted) and never changed: the lists
/// one after another in one array, in the order they were set, instead of an array per node
/// (which costs a heap block and its header for every node of a country).
@usableFromInline package struct FrozenRows {
    private(set) var flat: [UInt32] = []
    private(set) var offset: [UInt32]
    private(set) var count: [UInt32]

    init(nodeCount n: Int) {
        offset = [UInt32](repeating: 0, count: n)
        count = [UInt32](repeating: 0, count: n)
    }

    mutating func set<C: Collection<UInt32>>(_ v: Int, _ arcs: C) {
        offset[v] = UInt32(flat.count)
        count[v] = UInt32(arcs.count)
        flat.append(contentsOf: arcs)
    }

    func arcs(of v: Int) -> ArraySlice<UInt32> { flat[Int(offset[v])..<Int(offset[v] + count[v])] }
}

/// Each node's list of arc ids while contraction changes them: all lists in one pool, each in a
/// slot that moves to the pool's end, twice as large, when it fills (the pool is compacted when
/// more than half of it is abandoned slots). One array instead of one per node: no heap block
/// and header per node, and no reference count per list for the threads to fight over.
@usableFromInline package struct ArcLists {
    private var start: [UInt32]
    private var counts: [UInt32]
    private var capacity: [UInt32]
    private var pool: [UInt32] = []
    private var live = 0

    init(nodeCount n: Int) {
        start = [UInt32](repeating: 0, count: n)
        counts = start
        capacity = start
    }

    var nodeCount: Int { start.count }

    func count(_ v: Int) -> Int { Int(counts[v]) }

    subscript(v: Int) -> ArraySlice<UInt32> { pool[Int(start[v])..<Int(start[v] + counts[v])] }

    mutating func append(_ id: UInt32, at v: Int) {
        if counts[v] == capacity[v] { move(v, capacity: max(4, 2 * Int(capacity[v]))) }
        pool[Int(start[v] + counts[v])] = id
        counts[v] += 1
        live += 1
    }

    /// Replaces arc `old` in v's list by `new` (in its place).
    mutating func replace(_ old: UInt32, with new: UInt32, at v: Int) {
        for i in Int(start[v])..<Int(start[v] + counts[v]) where pool[i] == old {
            pool[i] = new
            return
        }
    }

    /// Removes arc `id` from v's list (the last one takes its place).
    mutating func remove(_ id: UInt32, at v: Int) {
        let first = Int(start[v]), last = first + Int(counts[v]) - 1
        guard last >= first else { return }
        for i in first...last where pool[i] == id {
            pool[i] = pool[last]
            counts[v] -= 1
            live -= 1
            return
        }
    }

    mutating func clear(_ v: Int) {
        live -= Int(counts[v])
        counts[v] = 0
    }

    private mutating func move(_ v: Int, capacity newCapacity: Int) {
        // (about half abandoned: compaction stays amortised O(1))
        if pool.count + newCapacity > 4 * live + 4096 { compact() }
        let from = Int(start[v]), count = Int(counts[v])
        let to = pool.count
        for i in 0..<count { pool.append(pool[from + i]) }
        for _ in count..<newCapacity { pool.append(0) }
        start[v] = UInt32(to)
        capacity[v] = UInt32(newCapacity)
    }

    /// Every list packed again, each with room for as many more as it has.
    private mutating func compact() {
        var packed: [UInt32] = []
        packed.reserveCapacity(2 * live + 4 * start.count)
        for v in start.indices {
            let from = Int(start[v]), count = Int(counts[v])
            start[v] = UInt32(packed.count)
            if count == 0 {
                capacity[v] = 0
                continue
            }
            packed.append(contentsOf: pool[from..<(from + count)])
            let room = max(count, 2)
            for _ in 0..<room { packed.append(0) }
            capacity[v] = UInt32(count + room)
        }
        pool = packed
    }

    /// The lists as raw buffers, for a search loop on several threads.
    struct Rows {
        let start: UnsafeBufferPointer<UInt32>
        let counts: UnsafeBufferPointer<UInt32>
        let pool: UnsafeBufferPointer<UInt32>

        @inline(__always)
        func row(_ v: Int) -> UnsafeBufferPointer<UInt32> {
            UnsafeBufferPointer(rebasing: pool[Int(start[v])..<Int(start[v] + counts[v])])
        }
    }

    func withRows<R>(_ body: (Rows) -> R) -> R {
        start.withUnsafeBufferPointer { start in
            counts.withUnsafeBufferPointer { counts in
                pool.withUnsafeBufferPointer { pool in body(Rows(start: start, counts: counts, pool: pool)) }
            }
        }
    }
}

/// The contraction itself, on adjacency lists that change as nodes go.
@usableFromInline package struct HierarchyBuilder {
    /// An arc of the graph being contracted: its ends and weight side by side, so that a witness
    /// search relaxing it reads one cache line (not one per column).
    struct Arc {
        var head: UInt32
        var tail: UInt32
        var weight: Double
    }

    var arcs: [Arc] = []
    var arcFirst: [Int32] = [], arcSecond: [Int32] = []
    /// Arcs of the remaining graph at each remaining node.
    var outgoing: ArcLists
    var incoming: ArcLists
    /// Arcs kept for the query graph, at the node contracted first of their two ends.
    var upward: FrozenRows
    var downward: FrozenRows
    var contracted: [Bool]
    /// The nodes being contracted in the current round, numbered from 1 in their order (0: not
    /// in the round). A witness search for a node of the round goes round those before it.
    var contracting: [UInt32]
    /// The same as bits, one per node, set for the round's nodes: small enough to stay in cache,
    /// so that a search reads `contracting` only at the round's nodes.
    var inRound: [UInt64]
    var depth: [Int32]
    var shortcuts = 0
    /// Witness searches settle at most this many nodes when estimating a priority, and when
    /// contracting. Lower limits only add shortcuts that a longer search would have found
    /// unnecessary (never a wrong one); these were chosen by measuring on Porto (BENCHMARKS.md).
    static let estimateLimit = 20
    static let contractLimit = 100

    init(nodeCount n: Int) {
        outgoing = ArcLists(nodeCount: n)
        incoming = ArcLists(nodeCount: n)
        upward = FrozenRows(nodeCount: n)
        downward = FrozenRows(nodeCount: n)
        contracted = Array(repeating: false, count: n)
        contracting = Array(repeating: 0, count: n)
        inRound = Array(repeating: 0, count: (n + 63) / 64)
        depth = Array(repeating: 0, count: n)
    }

    mutating func addOriginal(_ u: UInt32, _ w: UInt32, _ weight: Double) {
        addArc(u, w, weight, first: -1, second: -1)
    }

    /// Adds u → w, or lowers an existing u → w; no-op when an existing one is as cheap.
    private mutating func addArc(_ u: UInt32, _ w: UInt32, _ weight: Double, first: Int32, second: Int32) {
        let id = UInt32(arcs.count)
        if let a = outgoing[Int(u)].first(where: { arcs[Int($0)].head == w }) {
            if arcs[Int(a)].weight <= weight { return }
            outgoing.replace(a, with: id, at: Int(u))
            incoming.replace(a, with: id, at: Int(w))
            append(u, w, weight, first, second)
            return
        }
        outgoing.append(id, at: Int(u))
        incoming.append(id, at: Int(w))
        append(u, w, weight, first, second)
    }

    private mutating func append(_ u: UInt32, _ w: UInt32, _ weight: Double, _ first: Int32, _ second: Int32) {
        arcs.append(Arc(head: w, tail: u, weight: weight))
        arcFirst.append(first); arcSecond.append(second)
        if first >= 0 { shortcuts += 1 }
    }

    /// Every arc's tail, head and weight as three columns (the builder's arcs freed on the way, so
    /// that no more than 32 bytes an arc are held at once).
    mutating func takeArcColumns() -> (tail: [UInt32], head: [UInt32], weight: [Double]) {
        let tail = arcs.map(\.tail), head = arcs.map(\.head), weight = arcs.map(\.weight)
        arcs = []
        return (tail, head, weight)
    }

    /// A shortcut u → w for the path through arcs `first` (u → v) and `second` (v → w).
    struct Shortcut {
        var tail: UInt32, head: UInt32, weight: Double, first: Int32, second: Int32
    }

    /// A node as one witness search sees it: `distance` is valid where `stamp` is the search's
    /// generation, and `target` is the generation while the search is looking for the node. One
    /// record per node, so that reaching a node reads one cache line.
    struct Mark {
        var distance: Double = .infinity
        var stamp: UInt32 = 0
        var target: UInt32 = 0
    }

    /// One thread's witness-search scratch (its buffers freed by ``release()``).
    struct Scratch {
        let marks: UnsafeMutableBufferPointer<Mark>
        var generation: UInt32 = 0
        var heap = MinHeap(capacity: 1024)
        var targets: [UInt32] = []

        init(nodeCount n: Int) {
            marks = .allocate(capacity: n)
            marks.initialize(repeating: Mark())
        }

        func release() {
            heap.deallocate()
            marks.deallocate()
        }
    }

    /// The graph as the searches read it, raw, while nothing changes it: shared by the threads
    /// without touching any array's reference count (a cache line the cores would fight over).
    struct View {
        let outgoing: ArcLists.Rows
        let incoming: ArcLists.Rows
        let arcs: UnsafeBufferPointer<Arc>
        let contracting: UnsafeBufferPointer<UInt32>
        let inRound: UnsafeBufferPointer<UInt64>
        let depth: UnsafeBufferPointer<Int32>
    }

    func withView<R>(_ body: (View) -> R) -> R {
        outgoing.withRows { outgoing in
            incoming.withRows { incoming in
                arcs.withUnsafeBufferPointer { arcs in
                    contracting.withUnsafeBufferPointer { contracting in
                        inRound.withUnsafeBufferPointer { inRound in
                            depth.withUnsafeBufferPointer { depth in
                                body(View(outgoing: outgoing, incoming: incoming, arcs: arcs, contracting: contracting,
                                          inRound: inRound, depth: depth))
                            }
                        }
                    }
                }
            }
        }
    }

    /// `body(i, scratch)` for every i in `0..<count`, on `scratches.count` threads, each with its
    /// own scratch; the graph is only read meanwhile.
    private func forEach(_ count: Int, _ scratches: UnsafeMutableBufferPointer<Scratch>,
                         _ body: (View, Int, inout Scratch) -> Void) {
        let threads = count < 64 ? 1 : scratches.count
        // Shared with the threads below: thread t uses only scratch[t].
        nonisolated(unsafe) let scratch = scratches
        withView { view in
            // Shared with the threads below (not Sendable): they only read it.
            nonisolated(unsafe) let view = view
            withoutActuallyEscaping(body) { body in
                // Shared with the threads below (not Sendable): they only read it.
                nonisolated(unsafe) let body = body
                DispatchQueue.concurrentPerform(iterations: threads) { t in
                    for i in stride(from: t, to: count, by: threads) { body(view, i, &scratch[t]) }
                }
            }
        }
    }

    /// A node's place in the contraction order among its neighbours: priority, then a hash of its
    /// number (so that ties do not follow the numbering, which follows the map).
    private static func key(_ priority: Double, _ v: UInt32) -> (Double, UInt64) {
        var x = UInt64(v) &* 0x9E37_79B9_7F4A_7C15
        x ^= x >> 29
        return (priority, x)
    }

    /// Contracts every node, in rounds: each round takes the nodes whose priority is lower than
    /// every neighbour's (no two of them adjacent, so none adds a shortcut at another), finds their
    /// shortcuts on all `threads` at once with witness searches that go round all of them, adds
    /// the shortcuts, and re-estimates the neighbours' priorities, also in parallel. The result
    /// depends on the map only, not on the number of threads or their timing. (One function: the
    /// rounds share the round's buffers and the threads' scratch, made once for all rounds.)
    mutating func contractAll(threads: Int, progress: ContractionHierarchy.Progress? = nil) {
        let n = outgoing.nodeCount
        let threads = max(1, min(threads, 64))
        let scratches = UnsafeMutableBufferPointer<Scratch>.allocate(capacity: threads)
        _ = scratches.initialize(from: (0..<threads).map { _ in Scratch(nodeCount: n) })
        defer {
            for s in scratches { s.release() }
            scratches.deinitialize()
            scratches.deallocate()
        }
        let reportEvery = max(256, n / 200)
        var reported = 0
        var priority = [Double](repeating: 0, count: n)
        priority.withUnsafeMutableBufferPointer { out in
            // Shared with the threads below: each part writes only its own share of it.
            nonisolated(unsafe) let out = out
            forEach(n, scratches) { view, v, s in out[v] = view.priority(UInt32(v), &s) }
        }
        var remaining = (0..<UInt32(n)).map { $0 }
        var done = 0
        var round: [UInt32] = [], neighbours: [UInt32] = []
        var seen = [Bool](repeating: false, count: n)
        while !remaining.isEmpty {
            // The round: nodes that come before all their neighbours.
            round.removeAll(keepingCapacity: true)
            for v in remaining {
                let own = HierarchyBuilder.key(priority[Int(v)], v)
                var first = true
                for a in incoming[Int(v)]
                where HierarchyBuilder.key(priority[Int(arcs[Int(a)].tail)], arcs[Int(a)].tail) < own {
                    first = false; break
                }
                if first {
                    for b in outgoing[Int(v)]
                    where HierarchyBuilder.key(priority[Int(arcs[Int(b)].head)], arcs[Int(b)].head) < own {
                        first = false; break
                    }
                }
                if first { round.append(v) }
            }
            for (i, v) in round.enumerated() {
                contracting[Int(v)] = UInt32(i + 1)
                inRound[Int(v) >> 6] |= 1 << (UInt64(v) & 63)
            }
            var found = [[Shortcut]](repeating: [], count: round.count)
            found.withUnsafeMutableBufferPointer { out in
                // Shared with the threads below: each part writes only its own share of it.
                nonisolated(unsafe) let out = out
                let chosen = round
                forEach(chosen.count, scratches) { view, i, s in
                    _ = view.shortcuts(of: chosen[i], simulate: false, &s, into: &out[i])
                }
            }
            neighbours.removeAll(keepingCapacity: true)
            for (i, v32) in round.enumerated() {
                let v = Int(v32)
                for c in found[i] { addArc(c.tail, c.head, c.weight, first: c.first, second: c.second) }
                upward.set(v, outgoing[v])
                downward.set(v, incoming[v])
                for a in incoming[v] {
                    let u = Int(arcs[Int(a)].tail)
                    outgoing.remove(a, at: u)
                    depth[u] = max(depth[u], depth[v] + 1)
                    if !seen[u] { seen[u] = true; neighbours.append(UInt32(u)) }
                }
                for b in outgoing[v] {
                    let w = Int(arcs[Int(b)].head)
                    incoming.remove(b, at: w)
                    depth[w] = max(depth[w], depth[v] + 1)
                    if !seen[w] { seen[w] = true; neighbours.append(UInt32(w)) }
                }
                outgoing.clear(v)
                incoming.clear(v)
                contracted[v] = true
                contracting[v] = 0
                inRound[v >> 6] &= ~(1 << (UInt64(v) & 63))
            }
            done += round.count
            if done - reported >= reportEvery || done == n {
                reported = done
                if done < n { progress?(done, n) }
            }
            remaining.removeAll { contracted[Int($0)] }
            // The neighbours' priorities, again.
            for u in neighbours { seen[Int(u)] = false }
            priority.withUnsafeMutableBufferPointer { out in
                // Shared with the threads below: each part writes only its own share of it.
                nonisolated(unsafe) let out = out
                let nodes = neighbours
                forEach(nodes.count, scratches) { view, i, s in out[Int(nodes[i])] = view.priority(nodes[i], &s) }
            }
        }
        // What only contraction needed, freed before the query rows are made.
        outgoing = ArcLists(nodeCount: 0)
        incoming = ArcLists(nodeCount: 0)
        contracted = []
        contracting = []
        inRound = []
        depth = []
        progress?(n, n)
    }
}

extension HierarchyBuilder.View {
    /// Bounded Dijkstra from `source` in the remaining graph without `avoid` and the nodes of the
    /// round before it, up to `limit` cost or `maxSettled` nodes, or until the `targets` (in
    /// `scratch`: the heads of `avoid`'s outgoing arcs) are all settled.
    ///
    /// A round's nodes are contracted at once as if one after another in their order: a witness
    /// for a node may pass later ones (each of which keeps the distances through itself, with a
    /// shortcut or a witness avoiding every node before it), never earlier ones. The last node's
    /// witnesses avoid the whole round, so, from the last back, every witness survives the round.
    func witnessSearch(from source: UInt32, avoid: UInt32, limit: Double, maxSettled: Int,
                       _ s: inout HierarchyBuilder.Scratch) {
        let before = contracting[Int(avoid)]
        s.generation &+= 1
        if s.generation == 0 {
            s.marks.update(repeating: HierarchyBuilder.Mark())
            s.generation = 1
        }
        let generation = s.generation, marks = s.marks
        var remaining = 0
        for w in s.targets where marks[Int(w)].target != generation && w != source {
            marks[Int(w)].target = generation
            remaining += 1
        }
        s.heap.removeAll()
        marks[Int(source)].stamp = generation
        marks[Int(source)].distance = 0
        s.heap.push(0, Int(source))
        var settled = 0
        while let (d, x) = s.heap.pop() {
            if d > marks[x].distance { continue }
            if d > limit || settled >= maxSettled { break }
            settled += 1
            if marks[x].target == generation {
                remaining -= 1
                if remaining == 0 { break }
            }
            for a in outgoing.row(x) {
                let arc = arcs[Int(a)]
                let y = Int(arc.head)
                if y == Int(avoid) || inRound[y >> 6] & (1 << (UInt64(y) & 63)) != 0
                    && contracting[y] < before { continue }
                let c = d + arc.weight
                // Beyond the limit a node is never settled: not worth a place in the heap.
                if c > limit { continue }
                if marks[y].stamp != generation || c < marks[y].distance {
                    marks[y].stamp = generation
                    marks[y].distance = c
                    s.heap.push(c, y)
                }
            }
        }
    }

    /// The shortcuts contracting `v` needs (appended to `found`), or only their number when
    /// `simulate`. Reads the graph, changes nothing: safe on several threads at once.
    func shortcuts(of v: UInt32, simulate: Bool, _ s: inout HierarchyBuilder.Scratch,
                   into found: inout [HierarchyBuilder.Shortcut]) -> Int {
        var added = 0
        let ins = incoming.row(Int(v)), outs = outgoing.row(Int(v))
        guard !ins.isEmpty && !outs.isEmpty else { return 0 }
        var maxOut = 0.0
        s.targets.removeAll(keepingCapacity: true)
        for b in outs {
            maxOut = max(maxOut, arcs[Int(b)].weight)
            s.targets.append(arcs[Int(b)].head)
        }
        let maxSettled = simulate ? HierarchyBuilder.estimateLimit : HierarchyBuilder.contractLimit
        for a in ins {
            let u = arcs[Int(a)].tail
            let wa = arcs[Int(a)].weight
            witnessSearch(from: u, avoid: v, limit: wa + maxOut, maxSettled: maxSettled, &s)
            for b in outs {
                let w = arcs[Int(b)].head
                if w == u { continue }
                let c = wa + arcs[Int(b)].weight
                if s.marks[Int(w)].stamp == s.generation && s.marks[Int(w)].distance <= c { continue }
                added += 1
                if !simulate {
                    found.append(HierarchyBuilder.Shortcut(tail: u, head: w, weight: c, first: Int32(a),
                                                           second: Int32(b)))
                }
            }
        }
        return added
    }

    func priority(_ v: UInt32, _ s: inout HierarchyBuilder.Scratch) -> Double {
        var none: [HierarchyBuilder.Shortcut] = []
        let added = shortcuts(of: v, simulate: true, &s, into: &none)
        let removed = incoming.row(Int(v)).count + outgoing.row(Int(v)).count
        // Edge difference, edge quotient and depth (the weights chosen by measuring Porto's
        // preparation time and query effort; counting contracted neighbours did not help).
        return Double(added - removed) + 4 * Double(added) / Double(max(1, removed)) + Double(depth[Int(v)])
    }
}

// MARK: - Stored in the graph file

/// Why a stored hierarchy cannot be used.
public struct HierarchyFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public var reason: String
    public var description: String {
        "stored contraction hierarchy: \(reason) (rebuild with 'waymark build --hierarchy')"
    }
}

extension ContractionHierarchy {
    /// The hierarchy as graph-file sections (see ``GraphFile/encode(_:extra:)``): the query graph,
    /// the arcs for unpacking, and the turn-cost settings it was contracted under.
    public var fileSections: [GraphFile.Section] {
        // The turn geometry the weights were measured on, and every turn's weight on it (made
        // from the geometry and the turn costs in "HPRM").
        searchSections + turns.fileSections + transitions.fileSections
    }

    /// The sections of the search itself (``ContractionHierarchy/sectionTags``), without the turn
    /// tables.
    public var searchSections: [GraphFile.Section] {
        let parameters = ContractionHierarchy.parameters(costs) + [Double(nodeCount), Double(shortcutCount)]
        return [.init("HPRM", parameters),
                // The query graph's rows by query node, each arc (end, id, weight) as searches
                // read it, so that a mapped file is searched in place. (Files without "HUPR" have
                // the arcs as three columns; files without "HORD", their rows by hierarchy node.)
                .init("HUPS", up.start), .init("HUPR", up.arcs),
                .init("HDNS", down.start), .init("HDNR", down.arcs),
                .init("HORD", order), .init("HRNK", rank),
                .init("HATL", arcTail), .init("HAHD", arcHead), .init("HAF1", arcFirst), .init("HAF2", arcSecond)]
    }

    /// The weights the hierarchy was contracted under: the metric's version (3: routing weights
    /// with restricted-entry turns, U-turns only where OSRM allows them, restricted paths; 4: the
    /// wait to cross oncoming traffic; 5: turn angles on bearings measured as OSRM's compressor
    /// and regression lines measure them; older hierarchies are refused and must be rebuilt) and
    /// the turn costs (the curve and bends only where they are not car.lua's, so that car maps'
    /// stay as they were).
    static func parameters(_ c: TurnCosts) -> [Double] {
        [5, c.uTurnPenalty, c.trafficSignalDelay, c.turnPenalty, c.turnBias, c.leftHandTraffic ? 1 : 0, c.gateDelay,
         c.restrictedEntryWeight, c.oncomingTurnPenalty]
            + (c.curve == .sigmoid && !c.chargesBends ? [] : [Double(c.curve.rawValue), c.chargesBends ? 1 : 0,
                                                              c.signalAlongRoad])
    }

    /// The hierarchy stored in a graph file's sections, checked against the graph and the turn
    /// costs: every index in range, shortcuts refer only to earlier arcs (so unpacking ends),
    /// weights finite and not negative. Nothing stored: nil.
    /// `alreadyChecked`: the file was checked in full by an earlier load (``GraphFile/Opened``):
    /// the linear checks are skipped.
    public init?(fileSections sections: FileSections, graph: RoadGraph, costs: TurnCosts? = nil,
                 turns: TurnGeometry? = nil, alreadyChecked: Bool = false) throws(HierarchyFileError) {
        try self.init(fileSections: sections, graph: graph, costs: costs, turns: turns, transitions: nil,
                      alreadyChecked: alreadyChecked)
    }

    /// As ``init(fileSections:graph:costs:turns:alreadyChecked:)``; `transitions`: the turn table
    /// it was contracted on, where the sections do not hold it.
    package init?(fileSections sections: FileSections, graph: RoadGraph, costs: TurnCosts?,
                  turns: TurnGeometry?, transitions given: TransitionTable?,
                  alreadyChecked: Bool) throws(HierarchyFileError) {
        let costs = costs ?? TurnCosts(for: graph)
        guard sections.contains("HPRM") else { return nil }
        func array<T: BitwiseCopyable>(_ tag: String, _ type: T.Type) throws(HierarchyFileError) -> Column<T> {
            try sections.values(tag, as: type) { HierarchyFileError(reason: $0) }
        }
        let parameters = try array("HPRM", Double.self).array
        func check(_ ok: Bool, _ what: String) throws(HierarchyFileError) {
            if !ok { throw HierarchyFileError(reason: what) }
        }
        let expected = ContractionHierarchy.parameters(costs)
        try check(parameters.count == expected.count + 2 && parameters[0] == expected[0],
                  "contracted under an older weight metric")
        try check(Array(parameters.prefix(expected.count)) == expected, "contracted under other turn costs")
        let turnTables: TurnGeometry
        if let turns {
            turnTables = turns
        } else if let stored = try TurnGeometry(fileSections: sections, graph: graph, alreadyChecked: alreadyChecked) {
            turnTables = stored
        } else {
            turnTables = TurnGeometry(graph: graph) // a file from before the geometry was stored
        }
        let transitions: TransitionTable
        if let given {
            transitions = given
        } else {
            transitions = try TransitionTable(fileSections: sections, graph: graph, alreadyChecked: alreadyChecked)
                ?? TransitionTable(graph: graph, turns: turnTables, costs: costs)
        }
        let n = transitions.paths.stateCount
        try check(parameters[expected.count] == Double(n), "built for another graph")
        let arcTail = try array("HATL", UInt32.self), arcHead = try array("HAHD", UInt32.self)
        let arcFirst = try array("HAF1", Int32.self), arcSecond = try array("HAF2", Int32.self)
        let arcs = arcHead.count
        try check(arcTail.count == arcs && arcFirst.count == arcs && arcSecond.count == arcs,
                  "arc arrays differ in length")
        var (order, rank) = try ContractionHierarchy.storedNumbering(sections, nodes: n, alreadyChecked: alreadyChecked)
        var rows = try ContractionHierarchy.storedRows(sections)
        // The shortcuts and upward rows checked on one core, the downward rows on the other.
        let (upward, downward) = alreadyChecked && order != nil ? (.success(()), .success(())) : inParallel({
            Result { () throws(HierarchyFileError) in
                try ContractionHierarchy.checkShortcuts(tail: arcTail, head: arcHead, first: arcFirst,
                                                        second: arcSecond, nodes: n)
                try rows[0].check(name: "upward", nodes: n, arcs: arcs, order: order, rank: rank,
                                  near: arcTail, far: arcHead)
            }
        }, {
            Result { () throws(HierarchyFileError) in
                try rows[1].check(name: "downward", nodes: n, arcs: arcs, order: order, rank: rank,
                                  near: arcHead, far: arcTail)
            }
        })
        try upward.get()
        try downward.get()
        if order == nil {
            let (up, down) = (rows[0], rows[1])
            guard let made = ContractionHierarchy.topDownOrder(count: n, higher: { v, visit in
                for i in Int(up.start[v])..<Int(up.start[v + 1]) { visit(Int(up.arcs[i].end)) }
                for i in Int(down.start[v])..<Int(down.start[v + 1]) { visit(Int(down.arcs[i].end)) }
            }) else { throw HierarchyFileError(reason: "arcs close a cycle") }
            let numbered = ContractionHierarchy.inverse(made)!
            order = Column(made)
            rank = Column(numbered)
            rows = rows.map { $0.renumbered(order: made, rank: numbered) }
        }
        self.init(nodeCount: n, shortcutCount: Int(parameters[expected.count + 1]), costs: costs, turns: turnTables,
                  transitions: transitions,
                  up: rows[0], down: rows[1], order: order!, rank: rank!, arcTail: arcTail, arcHead: arcHead,
                  arcFirst: arcFirst, arcSecond: arcSecond)
    }
}

extension ContractionHierarchy {
    /// Query nodes: stored since files have "HORD" (with its inverse since "HRNK", used in place);
    /// nil for older files, whose rows are by hierarchy node and are numbered at load.
    static func storedNumbering(_ sections: FileSections, nodes n: Int, alreadyChecked: Bool
    ) throws(HierarchyFileError) -> (order: Column<UInt32>?, rank: Column<UInt32>?) {
        func array(_ tag: String) throws(HierarchyFileError) -> Column<UInt32> {
            try sections.values(tag, as: UInt32.self) { HierarchyFileError(reason: $0) }
        }
        guard sections.contains("HORD") else { return (nil, nil) }
        let order = try array("HORD")
        guard sections.contains("HRNK") else {
            guard order.count == n else { throw HierarchyFileError(reason: "section HORD does not fit the hierarchy") }
            guard let numbered = ContractionHierarchy.inverse(order) else {
                throw HierarchyFileError(reason: "query nodes are not a numbering of the nodes")
            }
            return (order, Column(numbered))
        }
        // Each query node's node has that query node as its rank, so both are numberings.
        let stored = try array("HRNK")
        guard order.count == n && stored.count == n else {
            throw HierarchyFileError(reason: "sections HORD and HRNK do not fit the hierarchy")
        }
        if !alreadyChecked {
            try order.withUnsafeBufferPointer { (order) throws(HierarchyFileError) in
                try stored.withUnsafeBufferPointer { (rank) throws(HierarchyFileError) in
                    for q in 0..<n where Int(order[q]) >= n || rank[Int(order[q])] != UInt32(q) {
                        throw HierarchyFileError(reason: "query nodes are not a numbering of the nodes")
                    }
                }
            }
        }
        return (order, stored)
    }

    /// The upward and downward rows as stored: each arc (end, id, weight) in one section, or in
    /// three columns in older files.
    static func storedRows(_ sections: FileSections) throws(HierarchyFileError) -> [ArcRows] {
        func array<T: BitwiseCopyable>(_ tag: String, _ type: T.Type) throws(HierarchyFileError) -> Column<T> {
            try sections.values(tag, as: type) { HierarchyFileError(reason: $0) }
        }
        var rows: [ArcRows] = []
        for (tags, upward) in [(("HUPS", "HUPR", "HUPH", "HUPW", "HUPA"), true),
                               (("HDNS", "HDNR", "HDNT", "HDNW", "HDNA"), false)] {
            let start = try array(tags.0, UInt32.self)
            if sections.contains(tags.1) {
                rows.append(ArcRows(start: start, arcs: try array(tags.1, ArcRows.Arc.self)))
                continue
            }
            let ends = try array(tags.2, UInt32.self), weights = try array(tags.3, Double.self),
                ids = try array(tags.4, UInt32.self)
            guard weights.count == ends.count && ids.count == ends.count else {
                throw HierarchyFileError(reason: "\(upward ? "upward" : "downward") arrays differ in length")
            }
            rows.append(ArcRows(start: start, end: ends, weight: weights, id: ids))
        }
        return rows
    }
}

extension ContractionHierarchy {
    /// Checks stored arcs for unpacking: ends in range, and each shortcut made of two earlier arcs
    /// that join (so unpacking ends, and yields a path).
    static func checkShortcuts(tail: Column<UInt32>, head: Column<UInt32>, first: Column<Int32>, second: Column<Int32>,
                               nodes n: Int) throws(HierarchyFileError) {
        func check(_ ok: Bool, _ what: String) throws(HierarchyFileError) {
            if !ok { throw HierarchyFileError(reason: what) }
        }
        try tail.withUnsafeBufferPointer { (tail) throws(HierarchyFileError) in
            try head.withUnsafeBufferPointer { (head) throws(HierarchyFileError) in
                try check(tail.allSatisfy { Int($0) < n } && head.allSatisfy { Int($0) < n }, "arc end out of range")
                try first.withUnsafeBufferPointer { (firsts) throws(HierarchyFileError) in
                    try second.withUnsafeBufferPointer { (seconds) throws(HierarchyFileError) in
                        for a in 0..<tail.count {
                            let first = Int(firsts[a]), second = Int(seconds[a])
                            if first < 0 && second < 0 { continue }
                            guard first >= 0 && first < a && second >= 0 && second < a else {
                                throw HierarchyFileError(reason: "shortcut \(a) does not refer to earlier arcs")
                            }
                            guard tail[first] == tail[a] && head[first] == tail[second]
                                && head[second] == head[a] else {
                                throw HierarchyFileError(reason: "shortcut \(a) does not join its parts")
                            }
                        }
                    }
                }
            }
        }
    }
}

extension ArcRows {
    /// Checks stored rows against the hierarchy's `nodes` and `arcs`: rows in order, every index
    /// in range, weights finite and not negative, and each row's arcs really starting (upward) or
    /// ending (downward) at its node — `near` — and leading to `far`. Rows are by query node when
    /// the file has the numbering (`order`, `rank`), by hierarchy node when not.
    func check(name: String, nodes n: Int, arcs arcCount: Int, order: Column<UInt32>?, rank: Column<UInt32>?,
               near: Column<UInt32>, far: Column<UInt32>) throws(HierarchyFileError) {
        func check(_ ok: Bool, _ what: String) throws(HierarchyFileError) {
            if !ok { throw HierarchyFileError(reason: what) }
        }
        try check(start.count == n + 1 && start.first == 0 && Int(start.last!) == arcs.count, "\(name) rows")
        try start.withUnsafeBufferPointer { (start) throws(HierarchyFileError) in
            try check(zip(start, start.dropFirst()).allSatisfy { $0 <= $1 }, "\(name) rows not monotonic")
            try self.arcs.withUnsafeBufferPointer { (rows) throws(HierarchyFileError) in
                try check(rows.allSatisfy { Int($0.end) < n && Int($0.id) < arcCount }, "\(name) index out of range")
                try check(rows.allSatisfy { $0.weight.isFinite && $0.weight >= 0 }, "\(name) weight not finite")
                try near.withUnsafeBufferPointer { (near) throws(HierarchyFileError) in
                    try far.withUnsafeBufferPointer { (far) throws(HierarchyFileError) in
                        let numbered = order != nil, order = order ?? [], rank = rank ?? []
                        for q in 0..<n {
                            let v = numbered ? Int(order[q]) : q
                            for i in Int(start[q])..<Int(start[q + 1]) {
                                // (The arcs' ends are checked on the other core at the same time: not yet trusted
                                // here.)
                                let a = Int(rows[i].id), far = far[a]
                                guard Int(far) < n else { throw HierarchyFileError(reason: "arc end out of range") }
                                let end = numbered ? rank[Int(far)] : far
                                if Int(near[a]) != v || end != rows[i].end {
                                    throw HierarchyFileError(reason: "\(name) arc \(i) does not match its row")
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

extension ContractionHierarchy: GraphFilePart {
    public static let partName = "contraction hierarchy"
    public static let sectionTags = ["HPRM", "HUPS", "HUPR", "HDNS", "HDNR", "HORD", "HRNK", "HATL", "HAHD", "HAF1",
                                     "HAF2"]
    /// Files before "HUPR" and "HDNR" kept each row's arcs as three columns.
    public static let olderTags = ["HUPH", "HUPW", "HUPA", "HDNT", "HDNW", "HDNA"]
}
