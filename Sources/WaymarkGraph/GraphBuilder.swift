import Foundation
import WaymarkGeo
import WaymarkSupport

/// Builds a ``RoadGraph`` from ways whose tags the profile has already judged. Knows nothing of
/// XML: the OSM reader (or a test) feeds it nodes, ways and restrictions with dense node indices.
public struct GraphBuilder {
    /// A way as the builder needs it: its node indices (``missing`` where the file lacks the node),
    /// the profile's rule, and its OSM id.
    public struct Way: Sendable {
        public var nodes: [UInt32]
        public var rule: WayRule
        public var id: Int64

        public init(nodes: [UInt32], rule: WayRule, id: Int64) {
            self.nodes = nodes
            self.rule = rule
            self.id = id
        }
    }

    /// The ways, read and written like an array of ``Way`` but held as columns: every way's node
    /// indices one after another in one array (a country has millions of ways: an array each
    /// cost an allocation to make, a release to read and a free to drop), each way's rule and id.
    public struct Ways: Sendable, RandomAccessCollection, ExpressibleByArrayLiteral {
        /// Every way's node indices, way after way.
        public private(set) var nodes: [UInt32] = []
        /// Where each way's nodes end in ``nodes`` (way `w` starts where way `w - 1` ends).
        public private(set) var ends: [Int] = []
        public private(set) var rules: [WayRule] = []
        public private(set) var ids: [Int64] = []

        public init() {}

        public init(arrayLiteral ways: Way...) {
            for way in ways { append(way) }
        }

        /// Ways already in columns: `ends` ascending, the last equal to `nodes.count`, one end,
        /// rule and id per way.
        public init(nodes: [UInt32], ends: [Int], rules: [WayRule], ids: [Int64]) {
            precondition(ends.count == rules.count && ends.count == ids.count && (ends.last ?? 0) == nodes.count
                         && zip(ends, ends.dropFirst()).allSatisfy { $0 <= $1 }, "ways: inconsistent columns")
            (self.nodes, self.ends, self.rules, self.ids) = (nodes, ends, rules, ids)
        }

        public var startIndex: Int { 0 }
        public var endIndex: Int { ids.count }

        /// Where way `w`'s node indices lie in ``nodes``.
        @inline(__always)
        public func range(_ w: Int) -> Range<Int> { (w == 0 ? 0 : ends[w - 1])..<ends[w] }

        public subscript(w: Int) -> Way { Way(nodes: Array(nodes[range(w)]), rule: rules[w], id: ids[w]) }

        public mutating func append(_ way: Way) {
            nodes += way.nodes
            ends.append(nodes.count)
            rules.append(way.rule)
            ids.append(way.id)
        }

        public mutating func insert(_ way: Way, at w: Int) {
            let start = w == 0 ? 0 : ends[w - 1]
            nodes.insert(contentsOf: way.nodes, at: start)
            for i in w..<ends.count { ends[i] += way.nodes.count }
            ends.insert(start + way.nodes.count, at: w)
            rules.insert(way.rule, at: w)
            ids.insert(way.id, at: w)
        }

        /// A rule that holds nothing (freeing it frees no memory).
        private static let released = WayRule(highway: .residential, forwardSpeed: 0,
                                              backwardSpeed: 0, flags: [], name: "",
                                              ref: "")

        /// Frees the columns: the rules (whose strings are released one by one) on all cores.
        mutating func release() {
            nodes = []
            ends = []
            ids = []
            let parts = rules.count < 1 << 14 ? 1 : coreCount, count = rules.count
            let empty = Ways.released
            rules.withUnsafeMutableBufferPointer { rules in
                // Shared with the threads below: each part writes only its own share of it.
                nonisolated(unsafe) let rules = rules
                DispatchQueue.concurrentPerform(iterations: parts) { part in
                    // Each rule swapped for one that holds nothing: the old one is freed here.
                    for w in share(part, of: parts, count) { rules[w] = empty }
                }
            }
            rules = []
        }
    }

    /// A restriction relation: from way, via node (index) or via ways (in the relation's order),
    /// to way.
    public struct Restriction {
        public var fromWay: Int64
        /// The via node's index; ``GraphBuilder/missing`` when the restriction is over via ways.
        public var via: UInt32
        /// The via ways, connected end to end from the from way to the to way; empty for a via node.
        public var viaWays: [Int64]
        public var toWay: Int64
        public var kind: RestrictionKind

        public init(fromWay: Int64, via: UInt32, toWay: Int64, kind: RestrictionKind) {
            self.fromWay = fromWay
            self.via = via
            self.viaWays = []
            self.toWay = toWay
            self.kind = kind
        }

        public init(fromWay: Int64, viaWays: [Int64], toWay: Int64, kind: RestrictionKind) {
            self.fromWay = fromWay
            self.via = GraphBuilder.missing
            self.viaWays = viaWays
            self.toWay = toWay
            self.kind = kind
        }
    }

    /// Marks a node reference the input file does not define.
    public static let missing = UInt32.max

    public var profile: any RoutingProfile
    /// Coordinates of the input nodes, indexed by node index (fixed point, 10⁻⁷°).
    public var latitudes: [Int32] = []
    public var longitudes: [Int32] = []
    /// The OpenStreetMap id of each input node, by node index; empty when there are none (the
    /// graph then keeps none).
    public var nodeIDs: [Int64] = []

    /// Whether every input node has an id, so that the graph keeps them.
    var keepsNodeIDs: Bool { !latitudes.isEmpty && nodeIDs.count == latitudes.count }
    /// Node rules by node index, only for nodes that have one (barriers, traffic signals).
    public var nodeRules: [UInt32: NodeRule] = [:]
    public var ways = Ways()
    public var restrictions: [Restriction] = []
    /// Restriction relations read but not expressible (via way, missing members, …), counted in the report.
    public var unusableRestrictions = 0
    /// Carried into the report.
    public var report = BuildReport()

    public init(profile: any RoutingProfile) {
        self.profile = profile
    }

    // MARK: - Build

    fileprivate struct PendingEdge {
        var source: UInt32, target: UInt32, segment: UInt32, length: Float, duration: Float, weight: Float
        /// Seconds of signals and gates inside (in the duration and the weight).
        var delay: Float = 0

        var isStorable: Bool {
            RoadGraph.isStorable(length) && RoadGraph.isStorable(duration) && RoadGraph.isStorable(weight)
        }
    }

    /// The rows of `edges` by source: where each source's row starts, and the row's edges (indices
    /// into `edges`, each source's in input order), less the parallel duplicates of
    /// single-node-pair segments (see `build`); `name` gives a segment's name. Duplicates leave
    /// the same source, so each row's edges are compared with each other only.
    private static func rows(of edges: [PendingEdge], nodeCount: Int, shapeStart: [UInt32],
                             name: (UInt32) -> String) -> (first: [UInt32], order: [UInt32]) {
        nonisolated(unsafe) let name = name // read by the cores side by side
        @Sendable func isPlain(_ e: PendingEdge) -> Bool {
            let s = Int(e.segment >> 1)
            return shapeStart[s] == shapeStart[s + 1]
        }
        @Sendable func better(_ a: PendingEdge, than b: PendingEdge) -> Bool {
            if a.weight != b.weight { return a.weight < b.weight }
            if a.duration != b.duration { return a.duration < b.duration }
            let x = name(a.segment >> 1), y = name(b.segment >> 1)
            if x.isEmpty != y.isEmpty { return !x.isEmpty }
            return x.utf8.lexicographicallyPrecedes(y.utf8)
        }
        var (first, order) = stableBuckets(count: edges.count, buckets: nodeCount) { Int(edges[$0].source) }
        // In each group of plain edges with the same ends, the first best is kept. Rows are
        // compared on their own, so the vertices are shared out among the cores.
        let parts = coreCount
        var dropped = [Bool](repeating: false, count: edges.count), settled = dropped
        dropped.withUnsafeMutableBufferPointer { dropped in
            settled.withUnsafeMutableBufferPointer { settled in
                // Shared with the threads below: each part writes only its own share of it.
                nonisolated(unsafe) let (dropped, settled) = (dropped, settled)
                let (first, order) = (first, order)
                DispatchQueue.concurrentPerform(iterations: parts) { part in
                    for v in share(part, of: parts, nodeCount) where first[v + 1] - first[v] > 1 {
                        let row = order[Int(first[v])..<Int(first[v + 1])]
                        for (k, i) in zip(row.indices, row) where !settled[Int(i)] && isPlain(edges[Int(i)]) {
                            var best = Int(i)
                            for j in row[(k + 1)...] where !settled[Int(j)]
                                && edges[Int(j)].target == edges[Int(i)].target && isPlain(edges[Int(j)]) {
                                settled[Int(j)] = true
                                if better(edges[Int(j)], than: edges[best]) {
                                    dropped[best] = true
                                    best = Int(j)
                                } else {
                                    dropped[Int(j)] = true
                                }
                            }
                        }
                    }
                }
            }
        }
        guard dropped.contains(true) else { return (first, order) }
        // The rows closed up over the dropped edges.
        var kept = 0
        for v in 0..<nodeCount {
            let row = Int(first[v])..<Int(first[v + 1])
            first[v] = UInt32(kept)
            for slot in row where !dropped[Int(order[slot])] {
                order[kept] = order[slot]
                kept += 1
            }
        }
        first[nodeCount] = UInt32(kept)
        order.removeLast(order.count - kept)
        return (first, order)
    }

    /// The numbers `0..<count` sorted by `key` (each in `0..<buckets`), those with equal keys in
    /// their own order: where each key's run starts (`buckets + 1` entries), and the numbers. A
    /// counting sort, the numbers cut into one range per core: each range counted, then placed
    /// after the ranges before it (the same order a single pass gives).
    static func stableBuckets(count: Int, buckets: Int, parts: Int? = nil,
                              key: @escaping (Int) -> Int) -> (first: [UInt32], order: [UInt32]) {
        nonisolated(unsafe) let key = key // read by the cores side by side
        let parts = max(1, parts ?? (count < 1 << 16 ? 1 : coreCount))
        var counts = [[UInt32]](repeating: [], count: parts)
        counts.withUnsafeMutableBufferPointer { counts in
            // Shared with the threads below: each part writes only its own share of it.
            nonisolated(unsafe) let counts = counts
            DispatchQueue.concurrentPerform(iterations: parts) { part in
                var mine = [UInt32](repeating: 0, count: buckets)
                for i in share(part, of: parts, count) { mine[key(i)] += 1 }
                counts[part] = mine
            }
        }
        // Each part's counts become where its first number of each key goes.
        var first = [UInt32](repeating: 0, count: buckets + 1), placed: UInt32 = 0
        for b in 0..<buckets {
            first[b] = placed
            for part in 0..<parts {
                let n = counts[part][b]
                counts[part][b] = placed
                placed += n
            }
        }
        first[buckets] = placed
        var order = [UInt32](repeating: 0, count: count)
        order.withUnsafeMutableBufferPointer { order in
            counts.withUnsafeMutableBufferPointer { counts in
                // Shared with the threads below: each part writes only its own share of it.
                nonisolated(unsafe) let (order, counts) = (order, counts)
                DispatchQueue.concurrentPerform(iterations: parts) { part in
                    for i in share(part, of: parts, count) {
                        let k = key(i)
                        order[Int(counts[part][k])] = UInt32(i)
                        counts[part][k] += 1
                    }
                }
            }
        }
        return (first, order)
    }

    /// Frees the ways (once built: hundreds of thousands of rules in a country) on all cores,
    /// not one after another on the caller's.
    public mutating func releaseWays() { ways.release() }

    /// Builds the graph. Consumes nothing; can be called once per input.
    public func build() -> RoadGraph { build(walkParts: nil) }

    /// Builds the graph, the ways walked in `walkParts` parts side by side (by default one per
    /// core, at most four); the graph is the same for any number.
    func build(walkParts: Int?) -> RoadGraph {
        var graph = GraphArrays()
        var report = self.report
        report.routableWays = ways.count

        // 1. Which input nodes become vertices: used more than once, way ends, next to a gap.
        // One byte per input node says all the walk below asks of it (one cache miss, not three):
        // its uses (the low two bits; 2 makes it a vertex), whether it blocks, whether passing it
        // costs time.
        var uses = countUses(parts: max(1, walkParts ?? (ways.count < 1 << 14 ? 1 : coreCount)))
        let (flags, delay) = applyNodeRules(to: &uses)

        // 2. Walk every way, cutting it into segments between vertices. The ways are cut into
        // parts of about equal references, each walked on a core of its own with numbers of its
        // own (``WalkPart``), and the parts joined in order: the graph one walk in way order makes.
        let input = WalkInput(ways: ways, latitudes: latitudes, longitudes: longitudes, uses: uses, delay: delay,
                              restricted: Set(restrictions.flatMap { [$0.fromWay, $0.toWay] + $0.viaWays }),
                              keepsNodes: keepsNodeIDs)
        var parts = walk(input, parts: max(1, walkParts ?? min(4, coreCount)))
        var joined = join(&parts, flags: flags, into: &graph, report: &report)

        // 3. Rows: the edges by source, then by target for the reverse rows. Ways drawn over the
        // same nodes (a road mapped twice, a road and a route on it) give parallel edges between
        // the same two vertices. As OSRM, keep one per direction: the least weight, then
        // duration, then the smallest name (a named one before an unnamed one). Only single node
        // pairs count: pieces with different shapes are different roads.
        let nodeCount = graph.latitudes.count
        let (first, order) = GraphBuilder.rows(of: joined.pending, nodeCount: nodeCount,
                                               shapeStart: graph.shapeStart) {
            graph.strings[Int(graph.segmentName[Int($0)])]
        }
        let edgeCount = order.count
        let edgeSource = GraphBuilder.placeEdges(joined.pending, order: order, first: first, into: &graph)
        joined.pending = []
        graph.firstEdge = first

        // The largest strongly connected component (for the report) is found beside the reverse
        // rows and the restrictions: it reads the forward rows only.
        let forward = RoadGraph(graph)
        let (largestComponent, _) = inParallel({ forward.largestStronglyConnectedComponent() }, {
            // The reverse rows: each vertex's edges in, in edge order.
            let targets = graph.edgeTarget
            (graph.firstIncoming, graph.incomingEdge) = GraphBuilder.stableBuckets(
                count: edgeCount, buckets: nodeCount
            ) { Int(targets[$0]) }
            graph.incomingSource = graph.incomingEdge.map { edgeSource[Int($0)] }
            resolveRestrictions(into: &graph, report: &report, uses: uses, joined: joined)
        })

        report.graphNodes = nodeCount
        report.graphEdges = edgeCount
        report.segments = joined.segmentEnds.count
        var built = RoadGraph(graph)
        report.largestComponentNodes = largestComponent
        built.report = report
        // Where the roads are says which side traffic keeps to (a caller may say otherwise).
        let vertices = built
        built.drivingSide = DrivingSide(mostOf: (0..<UInt32(nodeCount)).lazy.map { vertices.coordinate(of: $0) })
        built.travel = profile.travel
        return built
    }

    /// Each input node's uses by the ways (2: a way end, or used twice or more), the ways
    /// counted in parts side by side, each part's counts (at most 2) added up after.
    private func countUses(parts countingParts: Int) -> [UInt8] {
        let inputCount = latitudes.count
        var partUses = [[UInt8]](repeating: [], count: countingParts)
        partUses.withUnsafeMutableBufferPointer { partUses in
            // Shared with the threads below: each part writes only its own share of it.
            nonisolated(unsafe) let partUses = partUses
            let ways = ways
            ways.nodes.withUnsafeBufferPointer { all in
                // Shared with the threads below (not Sendable): they only read it.
                nonisolated(unsafe) let all = all
                DispatchQueue.concurrentPerform(iterations: countingParts) { part in
                    var uses = [UInt8](repeating: 0, count: inputCount)
                    for w in share(part, of: countingParts, ways.count) {
                        let nodes = UnsafeBufferPointer(rebasing: all[ways.range(w)])
                        for (i, node) in nodes.enumerated() where node != GraphBuilder.missing {
                            let isEnd = i == 0 || i == nodes.count - 1 || nodes[i - 1] == GraphBuilder.missing
                                || nodes[i + 1] == GraphBuilder.missing
                            uses[Int(node)] = isEnd ? 2 : min(2, uses[Int(node)] &+ 1)
                        }
                    }
                    partUses[part] = uses
                }
            }
        }
        var uses = partUses.removeFirst()
        for more in partUses {
            for node in 0..<inputCount where more[node] != 0 { uses[node] = min(2, uses[node] + more[node]) }
        }
        partUses = []
        return uses
    }

    /// The node rules applied: blocking nodes, turning places (a vertex each) and delays marked
    /// in `uses`; the vertex flags of each input node (signals, gate), and the seconds passing it costs.
    private func applyNodeRules(to uses: inout [UInt8]) -> (flags: [UInt8], delay: [UInt32: NodeDelay]) {
        let inputCount = latitudes.count
        let (usesMask, blocks, delays) = (WalkInput.usesMask, WalkInput.blocks, WalkInput.delays)
        var flags = [UInt8](repeating: 0, count: inputCount)
        var delay: [UInt32: NodeDelay] = [:]
        for (node, rule) in nodeRules where Int(node) < inputCount {
            if rule.blocks { uses[Int(node)] |= blocks }
            if rule.trafficSignals { flags[Int(node)] |= RoadGraph.trafficSignalsFlag }
            if rule.barrierDelay > 0 { flags[Int(node)] |= RoadGraph.gateFlag }
            if rule.turningPlace {
                flags[Int(node)] |= RoadGraph.turningPlaceFlag
                // a vertex of its own, as in OSRM, so cars can turn round there
                uses[Int(node)] = uses[Int(node)] & ~usesMask | 2
            }
            let (signal, always) = rule.trafficSignals
                ? (profile.trafficSignalDelay, profile.signalPassingDelay) : (0, 0)
            let passing = NodeDelay(
                forward: (rule.signalDirection == .backward ? 0 : signal) + always + rule.barrierDelay,
                backward: (rule.signalDirection == .forward ? 0 : signal) + always + rule.barrierDelay)
            if passing.forward > 0 || passing.backward > 0 {
                delay[node] = passing
                uses[Int(node)] |= delays
            }
        }
        return (flags, delay)
    }

    /// The ways walked in `partCount` parts side by side, each about the same share of the references.
    private func walk(_ input: WalkInput, parts partCount: Int) -> [WalkPart] {
        // Where the parts start: each about the same share of the references.
        let references = ways.nodes.count
        var bounds = [0]
        for w in ways.indices {
            let counted = ways.range(w).lowerBound
            while bounds.count < partCount && counted >= references * bounds.count / partCount { bounds.append(w) }
        }
        while bounds.count <= partCount { bounds.append(ways.count) }
        var parts = [WalkPart](repeating: WalkPart(), count: partCount)
        parts.withUnsafeMutableBufferPointer { parts in
            // Shared with the threads below: each part writes only its own share of it.
            nonisolated(unsafe) let parts = parts
            let bounds = bounds
            DispatchQueue.concurrentPerform(iterations: partCount) { p in
                parts[p].walk(bounds[p]..<bounds[p + 1], input)
            }
        }
        return parts
    }

    /// What joining the parts gives beside the graph's columns: the vertex of each input node
    /// that is one, each way's segments, the segments' end vertices and the edges not yet in rows.
    private struct Joined {
        var vertexOf: [UInt32]
        var segmentsOfWay: [Int64: [UInt32]]
        var segmentEnds: [(UInt32, UInt32)]
        var pending: [PendingEdge]
    }

    /// The parts joined: each part's vertices, strings and sign rows numbered after those of the
    /// parts before it (a vertex, string or row an earlier part made keeps its number), part
    /// after part; then its segments, shape points and edges placed after theirs, column by
    /// column on all cores (each part's column freed once placed). The parts are used up.
    private func join(_ parts: inout [WalkPart], flags: [UInt8], into graph: inout GraphArrays,
                      report: inout BuildReport) -> Joined {
        let inputCount = latitudes.count
        var vertexOf = [UInt32](repeating: RoadGraph.invalid, count: inputCount)
        var stringIndex: [String: UInt32] = ["": 0]
        var signRowIndex: [[UInt32]: UInt32] = [[0, 0, 0, 0, 0]: 0]
        var segmentsOfWay: [Int64: [UInt32]] = [:]
        let vertexBound = parts.reduce(0) { $0 + $1.vertexNodes.count }
        graph.latitudes.reserveCapacity(vertexBound)
        graph.longitudes.reserveCapacity(vertexBound)
        graph.nodeFlags.reserveCapacity(vertexBound)
        var numbers = PartNumbers()
        for p in parts.indices {
            var vertexNumber = [UInt32](repeating: 0, count: parts[p].vertexNodes.count)
            for (j, node) in parts[p].vertexNodes.enumerated() {
                let shared = parts[p].vertexShared[j]
                if shared && vertexOf[Int(node)] != RoadGraph.invalid {
                    vertexNumber[j] = vertexOf[Int(node)]
                    continue
                }
                let id = UInt32(graph.latitudes.count)
                graph.latitudes.append(latitudes[Int(node)])
                graph.longitudes.append(longitudes[Int(node)])
                graph.nodeFlags.append(flags[Int(node)])
                if keepsNodeIDs { graph.vertexNodeIDs.append(nodeIDs[Int(node)]) }
                if shared { vertexOf[Int(node)] = id }
                vertexNumber[j] = id
            }
            let stringNumber = parts[p].strings.map { string in
                if let i = stringIndex[string] { return i }
                let i = UInt32(graph.strings.count)
                graph.strings.append(string)
                stringIndex[string] = i
                return i
            }
            let signRows = parts[p].signRows
            let rowNumber = stride(from: 0, to: signRows.count, by: 5).map { start in
                let row = signRows[start..<start + 5].map { stringNumber[Int($0)] }
                if let i = signRowIndex[row] { return i }
                let i = UInt32(signRowIndex.count)
                signRowIndex[row] = i
                graph.signRows += row
                return i
            }
            numbers.vertex.append(vertexNumber)
            numbers.string.append(stringNumber)
            numbers.row.append(rowNumber)
            (parts[p].vertexNodes, parts[p].vertexShared, parts[p].strings, parts[p].signRows) = ([], [], [], [])
            numbers.segmentBases.append(UInt32(numbers.segments))
            numbers.shapeBases.append(UInt32(numbers.shapes))
            for (way, segments) in parts[p].segmentsOfWay {
                segmentsOfWay[way, default: []] += segments.map { $0 + UInt32(numbers.segments) }
            }
            numbers.segments += parts[p].segmentEnds.count
            numbers.shapes += parts[p].shapeLatitudes.count
            numbers.edges += parts[p].pending.count
            report.droppedSegmentsMissingNodes += parts[p].droppedSegmentsMissingNodes
            report.waysWithMissingNodes += parts[p].waysWithMissingNodes
            report.droppedDegenerateSegments += parts[p].droppedDegenerateSegments
            report.droppedAbsurdSegments += parts[p].droppedAbsurdSegments
            report.barrierCuts += parts[p].barrierCuts
        }
        let (segmentEnds, pending) = GraphBuilder.joinColumns(&parts, numbers, nodeIDs: keepsNodeIDs ? nodeIDs : [],
                                                              into: &graph)
        return Joined(vertexOf: vertexOf, segmentsOfWay: segmentsOfWay, segmentEnds: segmentEnds, pending: pending)
    }

    /// Each part's numbers of its vertices, strings and sign rows in the joined graph, and where
    /// its segments and shape points start there.
    private struct PartNumbers {
        var vertex: [[UInt32]] = [], string: [[UInt32]] = [], row: [[UInt32]] = []
        var segmentBases: [UInt32] = [], shapeBases: [UInt32] = []
        var segments = 0, shapes = 0, edges = 0
    }

    /// The parts' segments, shape points and edges placed one part after another, column by
    /// column on all cores; the parts are used up.
    private static func joinColumns(_ parts: inout [WalkPart], _ numbers: PartNumbers, nodeIDs: [Int64],
                                    into graph: inout GraphArrays) -> ([(UInt32, UInt32)], [PendingEdge]) {
        // Each column taken out of the parts, so that the core placing it holds the parts' arrays
        // alone (and frees each once placed); the parts themselves go.
        let ends = PartColumn<(UInt32, UInt32), (UInt32, UInt32)>(parts.map(\.segmentEnds))
        let names = PartColumn<UInt32, UInt32>(parts.map(\.segmentName)),
            refs = PartColumn<UInt32, UInt32>(parts.map(\.segmentRef))
        let signs = PartColumn<UInt32, UInt32>(parts.map(\.segmentSigns))
        let highways = PartColumn<UInt8, UInt8>(parts.map(\.segmentHighway)),
            segmentFlags = PartColumn<UInt8, UInt8>(parts.map(\.segmentFlags))
        let lanes = PartColumn<UInt8, UInt8>(parts.map(\.segmentLanes)),
            modes = PartColumn<UInt8, UInt8>(parts.map(\.segmentModes)),
            wayIDs = PartColumn<Int64, Int64>(parts.map(\.segmentWayID))
        let shapeEnds = PartColumn<UInt32, UInt32>(parts.map(\.shapeEnd))
        let shapeLatitudes = PartColumn<Int32, Int32>(parts.map(\.shapeLatitudes)),
            shapeLongitudes = PartColumn<Int32, Int32>(parts.map(\.shapeLongitudes))
        let shapeNodes = PartColumn<UInt32, Int64>(parts.map(\.shapeNodes))
        let edges = PartColumn<PendingEdge, PendingEdge>(parts.map(\.pending))
        parts = []
        let (vertexNumbers, stringNumbers, rowNumbers) = (numbers.vertex, numbers.string, numbers.row)
        let (segmentBases, shapeBases) = (numbers.segmentBases, numbers.shapeBases)
        let (segments, shapes, edgeTotal) = (numbers.segments, numbers.shapes, numbers.edges)
        let shapeNodeCount = nodeIDs.isEmpty ? 0 : shapes
        DispatchQueue.concurrentPerform(iterations: 14) { column in
            switch column {
            case 0: ends.join(total: segments) { p, e in (vertexNumbers[p][Int(e.0)], vertexNumbers[p][Int(e.1)]) }
            case 1: names.join(total: segments) { p, s in stringNumbers[p][Int(s)] }
            case 2: refs.join(total: segments) { p, s in stringNumbers[p][Int(s)] }
            case 3: signs.join(total: segments) { p, r in rowNumbers[p][Int(r)] }
            case 4: highways.join(total: segments) { _, x in x }
            case 5: segmentFlags.join(total: segments) { _, x in x }
            case 6: lanes.join(total: segments) { _, x in x }
            case 7: wayIDs.join(total: segments) { _, x in x }
            case 8: shapeEnds.join(total: segments, after: [0]) { p, end in end + shapeBases[p] }
            case 9: shapeLatitudes.join(total: shapes) { _, x in x }
            case 10: shapeLongitudes.join(total: shapes) { _, x in x }
            case 11: shapeNodes.join(total: shapeNodeCount) { _, node in nodeIDs[Int(node)] }
            case 12: modes.join(total: segments) { _, x in x }
            default:
                edges.join(total: edgeTotal) { p, e in
                    PendingEdge(source: vertexNumbers[p][Int(e.source)], target: vertexNumbers[p][Int(e.target)],
                                segment: e.segment + segmentBases[p] << 1, length: e.length,
                                duration: e.duration, weight: e.weight, delay: e.delay)
                }
            }
        }
        let segmentEnds = ends.joined
        (graph.segmentName, graph.segmentRef, graph.segmentSigns) = (names.joined, refs.joined, signs.joined)
        (graph.segmentHighway, graph.segmentFlags, graph.segmentLanes) = (highways.joined,
                                                                          segmentFlags.joined, lanes.joined)
        (graph.segmentWayID, graph.shapeStart, graph.segmentModes) = (wayIDs.joined, shapeEnds.joined, modes.joined)
        (graph.shapeLatitudes, graph.shapeLongitudes) = (shapeLatitudes.joined, shapeLongitudes.joined)
        graph.shapeNodeIDs = shapeNodes.joined
        return (segmentEnds, edges.joined)
    }

    /// The edges' columns in row order, and each edge's source (returned), the slots shared out
    /// among the cores.
    private static func placeEdges(_ pending: [PendingEdge], order: [UInt32], first: [UInt32],
                                   into graph: inout GraphArrays) -> [UInt32] {
        let edgeCount = order.count, nodeCount = first.count - 1
        var edgeSource = [UInt32](repeating: 0, count: edgeCount)
        (graph.edgeTarget, graph.edgeSegment) = ([UInt32](repeating: 0, count: edgeCount),
                                                 [UInt32](repeating: 0, count: edgeCount))
        (graph.edgeLength, graph.edgeDuration, graph.edgeWeight) = ([Float](repeating: 0, count: edgeCount),
                                                                    [Float](repeating: 0, count: edgeCount),
                                                                    [Float](repeating: 0, count: edgeCount))
        // Rare (signals inside a piece): set after, one slot at a time.
        graph.edgeDelay = [Float](repeating: 0, count: edgeCount)
        for (slot, i) in order.enumerated() where pending[Int(i)].delay > 0 {
            graph.edgeDelay[slot] = pending[Int(i)].delay
        }
        graph.edgeTarget.withUnsafeMutableBufferPointer { target in
            graph.edgeSegment.withUnsafeMutableBufferPointer { segment in
                graph.edgeLength.withUnsafeMutableBufferPointer { length in
                    graph.edgeDuration.withUnsafeMutableBufferPointer { duration in
                        graph.edgeWeight.withUnsafeMutableBufferPointer { weight in
                            edgeSource.withUnsafeMutableBufferPointer { source in
                                // Shared with the threads below: each part writes only its own share of it.
                                nonisolated(unsafe) let columns = (target, segment, length, duration, weight, source)
                                let (pending, order, first) = (pending, order, first)
                                let parts = coreCount
                                DispatchQueue.concurrentPerform(iterations: parts) { part in
                                    for slot in share(part, of: parts, edgeCount) {
                                        let e = pending[Int(order[slot])]
                                        columns.0[slot] = e.target
                                        columns.1[slot] = e.segment
                                        columns.2[slot] = e.length
                                        columns.3[slot] = e.duration
                                        columns.4[slot] = e.weight
                                    }
                                    for v in share(part, of: parts, nodeCount) {
                                        for slot in Int(first[v])..<Int(first[v + 1]) { columns.5[slot] = UInt32(v) }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return edgeSource
    }

    /// 4. Restrictions at a via node: the from and to ways' segments that end at the via vertex;
    /// then those over via ways.
    private func resolveRestrictions(into graph: inout GraphArrays, report: inout BuildReport, uses: [UInt8],
                                     joined: Joined) {
        let inputCount = latitudes.count, blocks = WalkInput.blocks
        let (vertexOf, segmentsOfWay, segmentEnds) = (joined.vertexOf, joined.segmentsOfWay, joined.segmentEnds)
        report.restrictionsRead = restrictions.count + unusableRestrictions
        var resolved: [(via: UInt32, from: UInt32, to: UInt32, kind: UInt8)] = []
        for r in restrictions where r.viaWays.isEmpty {
            guard Int(r.via) < inputCount, uses[Int(r.via)] & blocks == 0,
                vertexOf[Int(r.via)] != RoadGraph.invalid
            else { continue }
            let via = vertexOf[Int(r.via)]
            func touching(_ way: Int64) -> UInt32? {
                let candidates = (segmentsOfWay[way] ?? []).filter { segmentEnds[Int($0)].0 == via
                    || segmentEnds[Int($0)].1 == via }
                return candidates.count == 1 ? candidates[0] : nil
            }
            guard let from = touching(r.fromWay), let to = touching(r.toWay) else { continue }
            resolved.append((via, from, to, r.kind.rawValue))
            graph.nodeFlags[Int(via)] |= RoadGraph.restrictionViaFlag
        }
        resolved.sort { ($0.via, $0.from, $0.to) < ($1.via, $1.from, $1.to) }
        graph.restrictionVia = resolved.map(\.via)
        graph.restrictionFrom = resolved.map(\.from)
        graph.restrictionTo = resolved.map(\.to)
        graph.restrictionKind = resolved.map(\.kind)

        // 4b. Restrictions over via ways: the path of directed edges from the from way's end along
        // the via ways to the to way's start, the ways joined end to end as OSRM joins them.
        var paths = Set<[UInt32]>(), keptOverWays = 0
        let rows = RoadGraph(graph)
        for r in restrictions where !r.viaWays.isEmpty {
            guard let path = restrictedPath(r, graph: rows, segmentEnds: segmentEnds,
                                            segmentsOfWay: segmentsOfWay) else { continue }
            paths.insert(path + [UInt32(r.kind.rawValue)])
            keptOverWays += 1
        }
        for path in paths.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
            graph.restrictionPathEdges.append(contentsOf: path.dropLast())
            graph.restrictionPathStart.append(UInt32(graph.restrictionPathEdges.count))
            graph.restrictionPathKind.append(UInt8(path.last!))
            graph.nodeFlags[Int(graph.edgeTarget[Int(path[0])])] |= RoadGraph.restrictionViaFlag
        }
        report.restrictionsKept = resolved.count + keptOverWays
        report.restrictionsDropped = report.restrictionsRead - report.restrictionsKept
    }

    /// The directed edges of a restriction over via ways, or nil when its ways are not in the
    /// graph, are broken (a barrier, a missing node), do not meet end to end, or cannot be driven
    /// in the direction the path needs. Ways meet as OSRM joins them: the from way at one of its
    /// ends with an end of the first via way, each via way with the next, the last with an end of
    /// the to way.
    private func restrictedPath(_ r: Restriction, graph: RoadGraph, segmentEnds: [(UInt32, UInt32)],
                                segmentsOfWay: [Int64: [UInt32]]) -> [UInt32]? {
        /// A way's segments in order, if they join into one unbroken line.
        func line(_ way: Int64) -> [UInt32]? {
            guard let segments = segmentsOfWay[way], !segments.isEmpty else { return nil }
            for (a, b) in zip(segments, segments.dropFirst()) where segmentEnds[Int(a)].1 != segmentEnds[Int(b)].0 {
                return nil
            }
            return segments
        }
        func first(_ line: [UInt32]) -> UInt32 { segmentEnds[Int(line[0])].0 }
        func last(_ line: [UInt32]) -> UInt32 { segmentEnds[Int(line[line.count - 1])].1 }
        /// The edge along segment `s`, with its direction (`reversed`: from its end to its start).
        func edge(_ s: UInt32, reversed: Bool) -> UInt32? {
            let code = s << 1 | (reversed ? 1 : 0)
            let a = reversed ? segmentEnds[Int(s)].1 : segmentEnds[Int(s)].0
            return graph.edges(from: a).first { graph.edgeSegment[$0] == code }.map(UInt32.init)
        }
        guard let from = line(r.fromWay), let to = line(r.toWay) else { return nil }
        var vias: [[UInt32]] = []
        for way in r.viaWays {
            guard let via = line(way) else { return nil }
            vias.append(via)
        }
        var path: [UInt32] = []
        // The from way's end at the first via way.
        let firstVia = vias[0]
        var joint: UInt32
        if last(from) == first(firstVia) || last(from) == last(firstVia) {
            guard let e = edge(from[from.count - 1], reversed: false) else { return nil }
            path.append(e)
            joint = last(from)
        } else if first(from) == first(firstVia) || first(from) == last(firstVia) {
            guard let e = edge(from[0], reversed: true) else { return nil }
            path.append(e)
            joint = first(from)
        } else {
            return nil
        }
        for via in vias {
            let reversed: Bool
            if joint == first(via) {
                reversed = false
            } else if joint == last(via) {
                reversed = true
            } else {
                return nil
            }
            for s in reversed ? via.reversed() : via {
                guard let e = edge(s, reversed: reversed) else { return nil }
                path.append(e)
            }
            joint = reversed ? first(via) : last(via)
        }
        if joint == first(to), let e = edge(to[0], reversed: false) {
            path.append(e)
        } else if joint == last(to), let e = edge(to[to.count - 1], reversed: true) {
            path.append(e)
        } else {
            return nil
        }
        return path
    }

}

extension RoadGraph {
    /// Size of the largest strongly connected component (iterative Tarjan, O(V + E)).
    public func largestStronglyConnectedComponent() -> Int {
        stronglyConnectedComponents().largestSize
    }

    /// Strongly connected components (iterative Tarjan, O(V + E)): each vertex's component number,
    /// the number of the largest, and its size.
    public func stronglyConnectedComponents() -> (component: [UInt32], largest: UInt32, largestSize: Int) {
        let n = nodeCount
        guard n > 0 else { return ([], 0, 0) }
        let unvisited = UInt32.max
        var component = [UInt32](repeating: 0, count: n)
        var components: UInt32 = 0, largestComponent: UInt32 = 0
        var index = [UInt32](repeating: unvisited, count: n)
        var low = [UInt32](repeating: 0, count: n)
        var onStack = [Bool](repeating: false, count: n)
        var stack: [UInt32] = []
        var callStack: [(node: UInt32, next: Int)] = []
        var counter: UInt32 = 0
        var largest = 0
        for root in 0..<n where index[root] == unvisited {
            callStack.append((UInt32(root), Int(firstEdge[root])))
            index[root] = counter; low[root] = counter; counter += 1
            stack.append(UInt32(root)); onStack[root] = true
            while let (v, next) = callStack.last {
                let end = Int(firstEdge[Int(v) + 1])
                if next < end {
                    callStack[callStack.count - 1].next = next + 1
                    let w = Int(edgeTarget[next])
                    if index[w] == unvisited {
                        index[w] = counter; low[w] = counter; counter += 1
                        stack.append(UInt32(w)); onStack[w] = true
                        callStack.append((UInt32(w), Int(firstEdge[w])))
                    } else if onStack[w] {
                        low[Int(v)] = min(low[Int(v)], index[w])
                    }
                    continue
                }
                callStack.removeLast()
                if let parent = callStack.last { low[Int(parent.node)] = min(low[Int(parent.node)], low[Int(v)]) }
                if low[Int(v)] == index[Int(v)] {
                    var size = 0
                    while let w = stack.popLast() {
                        onStack[Int(w)] = false
                        component[Int(w)] = components
                        size += 1
                        if w == v { break }
                    }
                    if size > largest {
                        largest = size
                        largestComponent = components
                    }
                    components += 1
                }
            }
        }
        return (component, largestComponent, largest)
    }
}

/// One column of the walk's parts, joined by a core of its own (``GraphBuilder/build()``,
/// step 2): each part's array in turn, its values renumbered, each part's array freed once placed.
private final class PartColumn<Value, Joined>: @unchecked Sendable {
    private var pieces: [[Value]]
    private(set) var joined: [Joined] = []

    init(_ pieces: [[Value]]) { self.pieces = pieces }

    /// Joins the pieces after `start`, `total` values in all, each made by `value` (given its part).
    func join(total: Int, after start: [Joined] = [], _ value: (Int, Value) -> Joined) {
        var all = start
        all.reserveCapacity(start.count + total)
        for p in pieces.indices {
            for x in pieces[p] { all.append(value(p, x)) }
            pieces[p] = []
        }
        joined = all
    }
}

/// What every part of the walk over the ways reads (step 2 of ``GraphBuilder/build()``).
private struct WalkInput: @unchecked Sendable {
    /// The bits of an input node's byte in `uses`: its uses (2 makes it a vertex), whether it
    /// blocks, whether passing it costs time.
    static let usesMask: UInt8 = 3, blocks: UInt8 = 4, delays: UInt8 = 8

    let ways: GraphBuilder.Ways
    let latitudes: [Int32], longitudes: [Int32]
    let uses: [UInt8]
    let delay: [UInt32: NodeDelay]
    /// The ways restrictions name: their segments are listed.
    let restricted: Set<Int64>
    /// Whether the shape points' input nodes are kept (to give them their OSM ids).
    let keepsNodes: Bool

    /// The distance in metres between input nodes `a` and `b`, as OSRM measures it.
    func distance(_ a: UInt32, _ b: UInt32) -> Double {
        var rulers = LocalRuler.Bands()
        return rulers.distance(from: coordinate(a), to: coordinate(b))
    }

    func coordinate(_ node: UInt32) -> Coordinate {
        Coordinate(latitude: FixedPoint.decode(latitudes[Int(node)]),
                   longitude: FixedPoint.decode(longitudes[Int(node)]))
    }
}

/// One part of the walk over the ways: its vertices, strings, sign rows, segments, shape points
/// and edges, numbered within the part. Joined in order, the parts give what one walk over all
/// the ways in order would.
private struct WalkPart {
    /// Each vertex's input node, in the order the walk made them, and whether it is the node's
    /// shared vertex (a barrier makes vertices of its own, shared with no other way).
    var vertexNodes: [UInt32] = [], vertexShared: [Bool] = []
    /// Strings in the order first used; 0 is "".
    var strings: [String] = [""]
    /// Rows of five string numbers; row 0 is none.
    var signRows: [UInt32] = [0, 0, 0, 0, 0]
    var segmentEnds: [(UInt32, UInt32)] = []
    var segmentsOfWay: [Int64: [UInt32]] = [:]
    var segmentName: [UInt32] = [], segmentRef: [UInt32] = [], segmentSigns: [UInt32] = []
    var segmentHighway: [UInt8] = [], segmentFlags: [UInt8] = [], segmentLanes: [UInt8] = []
    /// ``RoadGraph/segmentModes``' packing, every segment's.
    var segmentModes: [UInt8] = []
    var segmentWayID: [Int64] = []
    /// Where each segment's shape points end (its start is the previous segment's end, or 0).
    var shapeEnd: [UInt32] = []
    var shapeLatitudes: [Int32] = [], shapeLongitudes: [Int32] = []
    /// The shape points' input nodes (when the input keeps them: ``WalkInput/keepsNodes``).
    var shapeNodes: [UInt32] = []
    var pending: [GraphBuilder.PendingEdge] = []
    var droppedSegmentsMissingNodes = 0, waysWithMissingNodes = 0, droppedDegenerateSegments = 0, barrierCuts = 0
    var droppedAbsurdSegments = 0

    /// Walks the ways `range`, cutting each into segments between vertices. (One function: the
    /// build's hottest loop, whose every step reads and writes the same running segment, shape
    /// and counters; parts would pass them all back and forth.)
    mutating func walk(_ range: Range<Int>, _ input: WalkInput) {
        let (usesMask, blocks, delays) = (WalkInput.usesMask, WalkInput.blocks, WalkInput.delays)
        // Every column reserved at the most the references can make (a vertex, a segment or a
        // shape point each; two edges a segment), so that none grows: growing copied each column
        // several times over, into fresh memory each time. Room not used is never touched, so
        // it costs address space, not memory.
        let references =
            range.isEmpty
            ? 0 : input.ways.range(range.upperBound - 1).upperBound - input.ways.range(range.lowerBound).lowerBound
        vertexNodes.reserveCapacity(references)
        vertexShared.reserveCapacity(references)
        segmentEnds.reserveCapacity(references)
        segmentWayID.reserveCapacity(references)
        shapeEnd.reserveCapacity(references)
        segmentName.reserveCapacity(references)
        segmentRef.reserveCapacity(references)
        segmentSigns.reserveCapacity(references)
        segmentHighway.reserveCapacity(references)
        segmentFlags.reserveCapacity(references)
        segmentLanes.reserveCapacity(references)
        segmentModes.reserveCapacity(references)
        shapeLatitudes.reserveCapacity(references)
        shapeLongitudes.reserveCapacity(references)
        if input.keepsNodes { shapeNodes.reserveCapacity(references) }
        pending.reserveCapacity(2 * references)
        var vertexOf = [UInt32](repeating: RoadGraph.invalid, count: input.uses.count)
        var stringIndex: [String: UInt32] = ["": 0]
        var signRowIndex: [[UInt32]: UInt32] = [[0, 0, 0, 0, 0]: 0]
        var lastName = (string: "", index: UInt32(0)), lastRef = lastName
        func newVertex(_ node: UInt32, shared: Bool) -> UInt32 {
            vertexNodes.append(node)
            vertexShared.append(shared)
            return UInt32(vertexNodes.count - 1)
        }
        func intern(_ s: String) -> UInt32 {
            if let i = stringIndex[s] { return i }
            let i = UInt32(strings.count)
            strings.append(s)
            stringIndex[s] = i
            return i
        }

        // One shape buffer for every way (emptied at each piece's start, its storage kept).
        var shape: [(Int32, Int32, UInt32)] = []
        for w in range {
            let way = (rule: input.ways.rules[w], id: input.ways.ids[w])
            let nodes = input.ways.nodes[input.ways.range(w)]
            // Total length over present stretches, to share a ferry's duration out by length.
            var totalLength = 0.0
            var lostStretches = 0
            for (a, b) in zip(nodes, nodes.dropFirst()) {
                if a == GraphBuilder.missing || b == GraphBuilder.missing { lostStretches += 1; continue }
                if way.rule.duration != nil { totalLength += input.distance(a, b) }
            }
            let recordsSegments = input.restricted.contains(way.id)
            if lostStretches > 0 {
                droppedSegmentsMissingNodes += lostStretches
                waysWithMissingNodes += 1
            }
            // Ways in a row often share their name and ref (one street's pieces; ways of a PBF
            // block with the same tags share even the strings): those are not hashed again.
            if way.rule.name != lastName.string { lastName = (way.rule.name, intern(way.rule.name)) }
            if way.rule.ref != lastRef.string { lastRef = (way.rule.ref, intern(way.rule.ref)) }
            let name = lastName.index, ref = lastRef.index
            // Ways with signs or lanes share rows of string numbers.
            var signs: UInt32 = 0
            if way.rule.hasSigns {
                let row = [intern(way.rule.destinationsForward), intern(way.rule.destinationsBackward),
                           intern(way.rule.exits),
                           intern(way.rule.turnLanesForward), intern(way.rule.turnLanesBackward)]
                if let i = signRowIndex[row] {
                    signs = i
                } else {
                    signs = UInt32(signRowIndex.count)
                    signRowIndex[row] = signs
                    signRows += row
                }
            }
            var start: UInt32? = nil            // vertex where the current piece started
            var length = 0.0
            var previous: UInt32 = GraphBuilder.missing
            /// The cosine of `previous`'s latitude once worked out (each node's is worked out once
            /// along the way, not once for each stretch it ends), else nil.
            // Lengths as OSRM measures them (its extractor's `greatCircleDistance`), so that
            // durations and the routes they choose agree with its.
            var rulers = LocalRuler.Bands()
            /// Seconds of signals and gates passed inside the current piece, along the way and
            /// against it.
            var interiorDelay = NodeDelay(forward: 0, backward: 0)

            func finishPiece(at end: UInt32) {
                guard let from = start else { return }
                if from == end && shape.isEmpty || length == 0 {
                    droppedDegenerateSegments += 1
                    return
                }
                let segment = UInt32(segmentEnds.count), made = pending.count
                if way.rule.forwardSpeed > 0 {
                    pending.append(edge(from, end, segment << 1, speed: way.rule.forwardSpeed,
                                        penalty: way.rule.forwardPenalty, delay: interiorDelay.forward))
                }
                if way.rule.backwardSpeed > 0 {
                    pending.append(edge(end, from, segment << 1 | 1, speed: way.rule.backwardSpeed,
                                        penalty: way.rule.backwardPenalty, delay: interiorDelay.backward))
                }
                // A length, time or weight no road has (a node on the far side of the globe):
                // what a graph file may not hold is not made.
                guard pending[made...].allSatisfy(\.isStorable) else {
                    pending.removeSubrange(made...)
                    droppedAbsurdSegments += 1
                    return
                }
                segmentEnds.append((from, end))
                if recordsSegments { segmentsOfWay[way.id, default: []].append(segment) }
                segmentName.append(name)
                segmentRef.append(ref)
                segmentSigns.append(signs)
                segmentHighway.append(way.rule.highway.rawValue)
                segmentFlags.append(way.rule.flags.rawValue)
                segmentLanes.append(way.rule.lanes)
                segmentModes.append(way.rule.forwardMode.rawValue | way.rule.backwardMode.rawValue << 4)
                segmentWayID.append(way.id)
                for (lat, lon, node) in shape {
                    shapeLatitudes.append(lat)
                    shapeLongitudes.append(lon)
                    if input.keepsNodes { shapeNodes.append(node) }
                }
                shapeEnd.append(UInt32(shapeLatitudes.count))
            }
            // Travel time from the speed (or a ferry's share of its duration), plus what the
            // signals and gates inside cost; the weight divides the travel part by the penalty.
            func edge(_ source: UInt32, _ target: UInt32, _ segment: UInt32,
                      speed: Double, penalty: Double, delay: Double) -> GraphBuilder.PendingEdge {
                let travel: Double
                if let total = way.rule.duration, totalLength > 0 {
                    travel = total * length / totalLength
                } else {
                    travel = length / (speed / 3.6)
                }
                return GraphBuilder.PendingEdge(source: source, target: target,
                                                segment: segment, length: Float(length),
                                                duration: Float(travel + delay),
                                                weight: Float(travel / penalty + delay),
                                                delay: Float(delay))
            }
            func begin(_ vertex: UInt32) {
                start = vertex
                length = 0
                interiorDelay = NodeDelay(forward: 0, backward: 0)
                shape.removeAll(keepingCapacity: true)
            }

            for node in nodes {
                if node == GraphBuilder.missing {
                    start = nil // the stretch into and out of a missing node is lost
                    previous = node
                    continue
                }
                if previous != GraphBuilder.missing && previous == node { continue } // repeated reference
                // (A repeated reference skipped just before is the same node as `previous`.)
                if start != nil, previous != GraphBuilder.missing {
                    length += rulers.distance(from: input.coordinate(previous), to: input.coordinate(node))
                }
                let state = input.uses[Int(node)]
                if state & blocks != 0 {
                    // A barrier: the piece ends at a vertex of its own and the next piece starts at
                    // another, so nothing passes through here.
                    let end = newVertex(node, shared: false)
                    finishPiece(at: end)
                    begin(newVertex(node, shared: false))
                    barrierCuts += 1
                } else if state & usesMask >= 2 || start == nil {
                    if vertexOf[Int(node)] == RoadGraph.invalid { vertexOf[Int(node)] = newVertex(node, shared: true) }
                    let vertex = vertexOf[Int(node)]
                    finishPiece(at: vertex)
                    begin(vertex)
                } else {
                    shape.append((input.latitudes[Int(node)], input.longitudes[Int(node)], node))
                    if state & delays != 0, let passing = input.delay[node] {
                        interiorDelay.forward += passing.forward
                        interiorDelay.backward += passing.backward
                    }
                }
                previous = node
            }
        }
    }
}

/// Seconds for passing an input node along its way and against it (signals facing one way).
struct NodeDelay {
    var forward: Double, backward: Double
}
