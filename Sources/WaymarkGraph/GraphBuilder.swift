import Foundation
import WaymarkGeo

/// Builds a ``RoadGraph`` from ways whose tags the profile has already judged. Knows nothing of
/// XML: the OSM reader (or a test) feeds it nodes, ways and restrictions with dense node indices.
public struct GraphBuilder {
    /// A way as the builder needs it: its node indices (``missing`` where the file lacks the node),
    /// the profile's rule, and its OSM id.
    public struct Way {
        public var nodes: [UInt32]
        public var rule: WayRule
        public var id: Int64

        public init(nodes: [UInt32], rule: WayRule, id: Int64) {
            self.nodes = nodes
            self.rule = rule
            self.id = id
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

    public var profile: CarProfile
    /// Coordinates of the input nodes, indexed by node index (fixed point, 10⁻⁷°).
    public var latitudes: [Int32] = []
    public var longitudes: [Int32] = []
    /// Node rules by node index, only for nodes that have one (barriers, traffic signals).
    public var nodeRules: [UInt32: NodeRule] = [:]
    public var ways: [Way] = []
    public var restrictions: [Restriction] = []
    /// Restriction relations read but not expressible (via way, missing members, …), counted in the report.
    public var unusableRestrictions = 0
    /// Carried into the report.
    public var report = BuildReport()

    public init(profile: CarProfile = CarProfile()) {
        self.profile = profile
    }

    // MARK: - Build

    private struct PendingEdge {
        var source: UInt32, target: UInt32, segment: UInt32, length: Float, duration: Float, weight: Float
    }

    /// `edges` less the parallel duplicates of single-node-pair segments (see `build`); `name`
    /// gives a segment's name. Duplicates leave the same source, so each source's edges (in
    /// input order) are compared with each other only.
    private static func withoutDuplicates(_ edges: [PendingEdge], nodeCount: Int, shapeStart: [UInt32],
                                          name: (UInt32) -> String) -> [PendingEdge] {
        func isPlain(_ e: PendingEdge) -> Bool {
            let s = Int(e.segment >> 1)
            return shapeStart[s] == shapeStart[s + 1]
        }
        func better(_ a: PendingEdge, than b: PendingEdge) -> Bool {
            if a.weight != b.weight { return a.weight < b.weight }
            if a.duration != b.duration { return a.duration < b.duration }
            let x = name(a.segment >> 1), y = name(b.segment >> 1)
            if x.isEmpty != y.isEmpty { return !x.isEmpty }
            return x.utf8.lexicographicallyPrecedes(y.utf8)
        }
        // The edges by source, each source's in input order.
        var first = [Int](repeating: 0, count: nodeCount + 1)
        for e in edges { first[Int(e.source) + 1] += 1 }
        for v in 0..<nodeCount { first[v + 1] += first[v] }
        var cursor = first
        var bySource = [UInt32](repeating: 0, count: edges.count)
        for (i, e) in edges.enumerated() {
            bySource[cursor[Int(e.source)]] = UInt32(i)
            cursor[Int(e.source)] += 1
        }
        // In each group of plain edges with the same ends, the first best is kept.
        var dropped: [Bool] = [], settled = [Bool](repeating: false, count: edges.count)
        for v in 0..<nodeCount where first[v + 1] - first[v] > 1 {
            let row = bySource[first[v]..<first[v + 1]]
            for (k, i) in zip(row.indices, row) where !settled[Int(i)] && isPlain(edges[Int(i)]) {
                var best = Int(i)
                for j in row[(k + 1)...] where !settled[Int(j)] && edges[Int(j)].target == edges[Int(i)].target && isPlain(edges[Int(j)]) {
                    settled[Int(j)] = true
                    if dropped.isEmpty { dropped = [Bool](repeating: false, count: edges.count) }
                    if better(edges[Int(j)], than: edges[best]) {
                        dropped[best] = true
                        best = Int(j)
                    } else {
                        dropped[Int(j)] = true
                    }
                }
            }
        }
        guard !dropped.isEmpty else { return edges }
        return edges.indices.filter { !dropped[$0] }.map { edges[$0] }
    }

    /// Builds the graph. Consumes nothing; can be called once per input.
    public func build() -> RoadGraph {
        var graph = GraphArrays()
        var report = self.report
        report.routableWays = ways.count

        // 1. Which input nodes become vertices: used more than once, way ends, next to a gap.
        // One byte per input node says all the walk below asks of it (one cache miss, not three):
        // its uses (the low two bits; 2 makes it a vertex), whether it blocks, whether passing it
        // costs time.
        let inputCount = latitudes.count
        let usesMask: UInt8 = 3, blocks: UInt8 = 4, delays: UInt8 = 8
        var uses = [UInt8](repeating: 0, count: inputCount)
        for way in ways {
            for (i, node) in way.nodes.enumerated() where node != GraphBuilder.missing {
                let isEnd = i == 0 || i == way.nodes.count - 1
                    || way.nodes[i - 1] == GraphBuilder.missing || way.nodes[i + 1] == GraphBuilder.missing
                uses[Int(node)] = isEnd ? 2 : min(2, uses[Int(node)] &+ 1)
            }
        }
        /// Vertex flags of each input node (signals, gate), and the seconds passing it costs.
        var flags = [UInt8](repeating: 0, count: inputCount)
        var delay: [UInt32: Double] = [:]
        for (node, rule) in nodeRules where Int(node) < inputCount {
            if rule.blocks { uses[Int(node)] |= blocks }
            if rule.trafficSignals { flags[Int(node)] |= RoadGraph.trafficSignalsFlag }
            if rule.barrierDelay > 0 { flags[Int(node)] |= RoadGraph.gateFlag }
            if rule.turningPlace {
                flags[Int(node)] |= RoadGraph.turningPlaceFlag
                uses[Int(node)] = uses[Int(node)] & ~usesMask | 2 // a vertex of its own, as in OSRM, so cars can turn round there
            }
            let seconds = (rule.trafficSignals ? profile.trafficSignalDelay : 0) + rule.barrierDelay
            if seconds > 0 {
                delay[node] = seconds
                uses[Int(node)] |= delays
            }
        }

        var vertexOf = [UInt32](repeating: RoadGraph.invalid, count: inputCount)
        func newVertex(_ node: UInt32) -> UInt32 {
            let id = UInt32(graph.latitudes.count)
            graph.latitudes.append(latitudes[Int(node)])
            graph.longitudes.append(longitudes[Int(node)])
            graph.nodeFlags.append(flags[Int(node)])
            return id
        }
        func sharedVertex(_ node: UInt32) -> UInt32 {
            if vertexOf[Int(node)] == RoadGraph.invalid { vertexOf[Int(node)] = newVertex(node) }
            return vertexOf[Int(node)]
        }

        // 2. Walk every way, cutting it into segments between vertices.
        var stringIndex: [String: UInt32] = ["": 0]
        func intern(_ s: String) -> UInt32 {
            if let i = stringIndex[s] { return i }
            let i = UInt32(graph.strings.count)
            graph.strings.append(s)
            stringIndex[s] = i
            return i
        }
        var lastName = (string: "", index: UInt32(0)), lastRef = lastName
        // Ways with signs or lanes share rows of string ids; row 0 is none.
        var signRowIndex: [[UInt32]: UInt32] = [[0, 0, 0, 0, 0]: 0]
        func signRow(_ rule: WayRule) -> UInt32 {
            guard rule.hasSigns else { return 0 }
            let row = [intern(rule.destinationsForward), intern(rule.destinationsBackward), intern(rule.exits),
                       intern(rule.turnLanesForward), intern(rule.turnLanesBackward)]
            if let i = signRowIndex[row] { return i }
            let i = UInt32(signRowIndex.count)
            signRowIndex[row] = i
            graph.signRows += row
            return i
        }
        var pending: [PendingEdge] = []
        var segmentEnds: [(UInt32, UInt32)] = []
        // The segments of the ways restrictions name, in order.
        let restricted = Set(restrictions.flatMap { [$0.fromWay, $0.toWay] + $0.viaWays })
        var segmentsOfWay: [Int64: [UInt32]] = [:]
        var shapeLat: [Int32] = [], shapeLon: [Int32] = []
        // The length of every stretch between two references of a way (0 next to a missing
        // node), measured up front on all cores: the walk below only adds them up.
        let (stretchStart, stretches) = stretchLengths()

        for (w, way) in ways.enumerated() {
            let nodes = way.nodes
            let lengths = stretchStart[w]
            // Total length over present stretches, to share a ferry's duration out by length.
            var totalLength = 0.0
            var lostStretches = 0
            for (i, (a, b)) in zip(nodes, nodes.dropFirst()).enumerated() {
                if a == GraphBuilder.missing || b == GraphBuilder.missing { lostStretches += 1; continue }
                if way.rule.duration != nil { totalLength += stretches[lengths + i + 1] }
            }
            let recordsSegments = restricted.contains(way.id)
            if lostStretches > 0 {
                report.droppedSegmentsMissingNodes += lostStretches
                report.waysWithMissingNodes += 1
            }
            // Ways in a row often share their name and ref (one street's pieces; ways of a PBF
            // block with the same tags share even the strings): those are not hashed again.
            if way.rule.name != lastName.string { lastName = (way.rule.name, intern(way.rule.name)) }
            if way.rule.ref != lastRef.string { lastRef = (way.rule.ref, intern(way.rule.ref)) }
            let name = lastName.index, ref = lastRef.index
            let signs = signRow(way.rule)
            var start: UInt32? = nil            // vertex where the current piece started
            var length = 0.0
            var previous: UInt32 = GraphBuilder.missing
            /// Seconds of signals and gates passed inside the current piece.
            var interiorDelay = 0.0
            var shape: [(Int32, Int32)] = []

            func finishPiece(at end: UInt32) {
                guard let from = start else { return }
                if from == end && shape.isEmpty || length == 0 {
                    report.droppedDegenerateSegments += 1
                    return
                }
                let segment = UInt32(segmentEnds.count)
                segmentEnds.append((from, end))
                if recordsSegments { segmentsOfWay[way.id, default: []].append(segment) }
                graph.segmentName.append(name)
                graph.segmentRef.append(ref)
                graph.segmentSigns.append(signs)
                graph.segmentHighway.append(way.rule.highway.rawValue)
                graph.segmentFlags.append(way.rule.flags.rawValue)
                graph.segmentLanes.append(way.rule.lanes)
                graph.segmentWayID.append(way.id)
                for (lat, lon) in shape {
                    shapeLat.append(lat)
                    shapeLon.append(lon)
                }
                graph.shapeStart.append(UInt32(shapeLat.count))
                // Travel time from the speed (or a ferry's share of its duration), plus what the
                // signals and gates inside cost; the weight divides the travel part by the penalty.
                func edge(_ source: UInt32, _ target: UInt32, _ segment: UInt32, speed: Double, penalty: Double) -> PendingEdge {
                    let travel: Double
                    if let total = way.rule.duration, totalLength > 0 { travel = total * length / totalLength } else { travel = length / (speed / 3.6) }
                    return PendingEdge(source: source, target: target, segment: segment, length: Float(length),
                                       duration: Float(travel + interiorDelay), weight: Float(travel / penalty + interiorDelay))
                }
                if way.rule.forwardSpeed > 0 {
                    pending.append(edge(from, end, segment << 1, speed: way.rule.forwardSpeed, penalty: way.rule.forwardPenalty))
                }
                if way.rule.backwardSpeed > 0 {
                    pending.append(edge(end, from, segment << 1 | 1, speed: way.rule.backwardSpeed, penalty: way.rule.backwardPenalty))
                }
            }
            func begin(_ vertex: UInt32) {
                start = vertex
                length = 0
                interiorDelay = 0
                shape.removeAll(keepingCapacity: true)
            }

            for (i, node) in nodes.enumerated() {
                if node == GraphBuilder.missing {
                    start = nil // the stretch into and out of a missing node is lost
                    previous = node
                    continue
                }
                if previous != GraphBuilder.missing && previous == node { continue } // repeated reference
                // (A repeated reference skipped just before is the same node as `previous`.)
                if start != nil, previous != GraphBuilder.missing { length += stretches[lengths + i] }
                let state = uses[Int(node)]
                if state & blocks != 0 {
                    // A barrier: the piece ends at a vertex of its own and the next piece starts at
                    // another, so nothing passes through here.
                    let end = newVertex(node)
                    finishPiece(at: end)
                    begin(newVertex(node))
                    report.barrierCuts += 1
                } else if state & usesMask >= 2 || start == nil {
                    let vertex = sharedVertex(node)
                    finishPiece(at: vertex)
                    begin(vertex)
                } else {
                    shape.append((latitudes[Int(node)], longitudes[Int(node)]))
                    if state & delays != 0 { interiorDelay += delay[node] ?? 0 }
                }
                previous = node
            }
        }
        graph.shapeLatitudes = shapeLat
        graph.shapeLongitudes = shapeLon

        // 2b. Ways drawn over the same nodes (a road mapped twice, a road and a route on it) give
        // parallel edges between the same two vertices. As OSRM, keep one per direction: the least
        // weight, then duration, then the smallest name (a named one before an unnamed one).
        // Only single node pairs count: pieces with different shapes are different roads.
        pending = GraphBuilder.withoutDuplicates(pending, nodeCount: graph.latitudes.count, shapeStart: graph.shapeStart) { graph.strings[Int(graph.segmentName[Int($0)])] }

        // 3. Rows: counting sort of the edges by source, then by target for the reverse rows.
        let nodeCount = graph.latitudes.count
        var first = [UInt32](repeating: 0, count: nodeCount + 1)
        for e in pending { first[Int(e.source) + 1] += 1 }
        for v in 0..<nodeCount { first[v + 1] += first[v] }
        var cursor = first
        let edgeCount = pending.count
        graph.edgeTarget = [UInt32](repeating: 0, count: edgeCount)
        graph.edgeSegment = [UInt32](repeating: 0, count: edgeCount)
        graph.edgeLength = [Float](repeating: 0, count: edgeCount)
        graph.edgeDuration = [Float](repeating: 0, count: edgeCount)
        graph.edgeWeight = [Float](repeating: 0, count: edgeCount)
        for e in pending {
            let slot = Int(cursor[Int(e.source)])
            cursor[Int(e.source)] += 1
            graph.edgeTarget[slot] = e.target
            graph.edgeSegment[slot] = e.segment
            graph.edgeLength[slot] = e.length
            graph.edgeDuration[slot] = e.duration
            graph.edgeWeight[slot] = e.weight
        }
        graph.firstEdge = first

        var firstIn = [UInt32](repeating: 0, count: nodeCount + 1)
        for t in graph.edgeTarget { firstIn[Int(t) + 1] += 1 }
        for v in 0..<nodeCount { firstIn[v + 1] += firstIn[v] }
        var inCursor = firstIn
        graph.incomingEdge = [UInt32](repeating: 0, count: edgeCount)
        graph.incomingSource = [UInt32](repeating: 0, count: edgeCount)
        for source in 0..<nodeCount {
            for e in Int(first[source])..<Int(first[source + 1]) {
                let t = Int(graph.edgeTarget[e])
                let slot = Int(inCursor[t])
                inCursor[t] += 1
                graph.incomingEdge[slot] = UInt32(e)
                graph.incomingSource[slot] = UInt32(source)
            }
        }
        graph.firstIncoming = firstIn

        // 4. Restrictions at a via node: the from and to ways' segments that end at the via vertex.
        report.restrictionsRead = restrictions.count + unusableRestrictions
        var resolved: [(via: UInt32, from: UInt32, to: UInt32, kind: UInt8)] = []
        for r in restrictions where r.viaWays.isEmpty {
            guard Int(r.via) < inputCount, uses[Int(r.via)] & blocks == 0, vertexOf[Int(r.via)] != RoadGraph.invalid else { continue }
            let via = vertexOf[Int(r.via)]
            func touching(_ way: Int64) -> UInt32? {
                let candidates = (segmentsOfWay[way] ?? []).filter { segmentEnds[Int($0)].0 == via || segmentEnds[Int($0)].1 == via }
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
            guard let path = restrictedPath(r, graph: rows, segmentEnds: segmentEnds, segmentsOfWay: segmentsOfWay) else { continue }
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

        report.graphNodes = nodeCount
        report.graphEdges = edgeCount
        report.segments = segmentEnds.count
        var built = RoadGraph(graph)
        report.largestComponentNodes = built.largestStronglyConnectedComponent()
        built.report = report
        return built
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
            for (a, b) in zip(segments, segments.dropFirst()) where segmentEnds[Int(a)].1 != segmentEnds[Int(b)].0 { return nil }
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
            if joint == first(via) { reversed = false } else if joint == last(via) { reversed = true } else { return nil }
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

    /// Where each way's stretches start in `lengths`, and the lengths: for the way's reference
    /// `i` > 0, `lengths[start + i]` is the distance from reference `i - 1` (0 where either is
    /// missing). The ways are shared out among the cores.
    private func stretchLengths() -> (start: [Int], lengths: [Double]) {
        var start = [Int](repeating: 0, count: ways.count + 1)
        for (w, way) in ways.enumerated() { start[w + 1] = start[w] + way.nodes.count }
        var lengths = [Double](repeating: 0, count: start[ways.count])
        let parts = max(1, min(16, ProcessInfo.processInfo.activeProcessorCount * 4))
        lengths.withUnsafeMutableBufferPointer { out in
            nonisolated(unsafe) let (out, builder) = (out, self)
            let offsets = start
            DispatchQueue.concurrentPerform(iterations: parts) { part in
                let ways = builder.ways
                for w in ways.count * part / parts..<ways.count * (part + 1) / parts {
                    let nodes = ways[w].nodes
                    for i in nodes.indices.dropFirst() where nodes[i - 1] != GraphBuilder.missing && nodes[i] != GraphBuilder.missing {
                        out[offsets[w] + i] = builder.distance(nodes[i - 1], nodes[i])
                    }
                }
            }
        }
        return (start, lengths)
    }

    private func distance(_ a: UInt32, _ b: UInt32) -> Double {
        let ca = Coordinate(latitude: FixedPoint.decode(latitudes[Int(a)]), longitude: FixedPoint.decode(longitudes[Int(a)]))
        let cb = Coordinate(latitude: FixedPoint.decode(latitudes[Int(b)]), longitude: FixedPoint.decode(longitudes[Int(b)]))
        return ca.distance(to: cb)
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
