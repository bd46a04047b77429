import Foundation
import Testing
import WaymarkGeo
import WaymarkGraph
import WaymarkProfiles
import WaymarkOSM
import WaymarkSupport
@testable import WaymarkPreparation
@testable import WaymarkQueries
@testable import WaymarkGuidance
@testable import WaymarkRouting

/// A random road graph: nodes scattered over ~2 km, two-node and three-node ways between random
/// nodes (some oneway, some for local traffic only, some penalised service roads), a few traffic
/// signals and gates, random restrictions at vertices where two ways meet, and random restrictions
/// over one or two via ways. Fixed seed.
/// Whether a random graph has toll roads and motorways among its ways (one in six each), or the
/// same graph without them.
enum ClassedWays { case none, kept, dropped }

func randomGraph(seed: UInt64, nodes: Int = 40, ways: Int = 70,
                 restrictions: Int = 12, overWays: Int = 10, classed: ClassedWays = .none,
                 keepsNodeIDs: Bool = false) -> RoadGraph {
    var rng = SplitMix64(seed: seed)
    var b = GraphBuilder(profile: CarProfile())
    for _ in 0..<nodes {
        b.latitudes.append(FixedPoint.encode(52 + rng.uniform(0, 0.02)))
        b.longitudes.append(FixedPoint.encode(13 + rng.uniform(0, 0.03)))
    }
    let profile = CarProfile()
    var ends: [UInt32: [Int64]] = [:], wayEnds: [Int64: (UInt32, UInt32)] = [:]
    for w in 0..<ways {
        let a = UInt32(rng.next() % UInt64(nodes)), c = UInt32(rng.next() % UInt64(nodes))
        guard a != c else { continue }
        var tags = ["highway": ["residential", "primary", "service", "tertiary"][Int(rng.next() % 4)]]
        switch rng.next() % 5 {
        case 0: tags["oneway"] = "yes"
        case 1: tags["oneway"] = "-1"
        default: break
        }
        switch rng.next() % 8 {
        case 0: tags["access"] = "destination"
        case 1: tags["motor_vehicle:forward"] = "private"
        case 2: tags["service"] = "parking_aisle"
        case 3: tags["width"] = "3"
        default: break
        }
        var refs = [a, c]
        if rng.next() % 3 == 0 { refs.insert(UInt32(rng.next() % UInt64(nodes)), at: 1) }
        if refs[1] == refs[0] || refs[1] == refs.last! { refs = [a, c] }
        if classed != .none {
            // (Drawn whether or not used, so that both kinds of graph have the same other ways.)
            let draw = rng.next() % 6
            if draw == 0 { tags["toll"] = "yes" }
            if draw == 1 { tags["highway"] = "motorway" }
            if classed == .dropped && draw <= 1 { continue }
        }
        b.ways.append(GraphBuilder.Way(nodes: refs, rule: profile.way(tags)!, id: Int64(w)))
        ends[a, default: []].append(Int64(w))
        ends[c, default: []].append(Int64(w))
        wayEnds[Int64(w)] = (a, c)
    }
    for n in 0..<UInt32(nodes) where rng.next() % 6 == 0 {
        b.nodeRules[n] = rng.next() % 2 == 0 ? NodeRule(trafficSignals: true) : profile.node(["barrier": "gate"])
    }
    let shared = ends.filter { $0.value.count >= 2 }.sorted { $0.key < $1.key }
    for _ in 0..<restrictions where !shared.isEmpty {
        let (via, ways) = shared[Int(rng.next() % UInt64(shared.count))]
        let from = ways[Int(rng.next() % UInt64(ways.count))], to = ways[Int(rng.next() % UInt64(ways.count))]
        b.restrictions.append(GraphBuilder.Restriction(fromWay: from, via: via, toWay: to,
                                                       kind: rng.next() % 3 == 0 ? .mandatory : .prohibitive))
    }
    // From a way ending where a via way starts (either end), along one or two via ways, onto a
    // way starting where the last ends; from and to may be the same way (a U-turn over a median).
    let wayIDs = wayEnds.keys.sorted()
    for _ in 0..<overWays where !wayIDs.isEmpty {
        let first = wayIDs[Int(rng.next() % UInt64(wayIDs.count))]
        var (entry, exit) = wayEnds[first]!
        if rng.next() % 2 == 0 { swap(&entry, &exit) }
        var vias = [first]
        if rng.next() % 3 == 0, let next = ends[exit]?.filter({ $0 != first }).randomElement(using: &rng) {
            vias.append(next)
            exit = wayEnds[next]!.0 == exit ? wayEnds[next]!.1 : wayEnds[next]!.0
        }
        guard let from = ends[entry]?.filter({ !vias.contains($0) }).randomElement(using: &rng),
              let to = ends[exit]?.filter({ !vias.contains($0) }).randomElement(using: &rng) else { continue }
        b.restrictions.append(GraphBuilder.Restriction(fromWay: from, viaWays: vias, toWay: to,
                                                       kind: rng.next() % 3 == 0 ? .mandatory : .prohibitive))
    }
    if keepsNodeIDs { b.nodeIDs = (0..<Int64(nodes)).map { 1000 + $0 } }
    return b.build()
}

/// An independent oracle over edge states with the same rules (partial first and
/// last edges, routing weights, U-turn penalty, signal and gate delays, restricted-entry turns,
/// restrictions), written separately from RouteSearch: Dijkstra where a state is the last few
/// edges driven, as many as the longest restricted path needs, so restrictions over via ways are
/// checked against the edges really driven. Returns the least weight. Edges of the `excluded`
/// classes are neither entered nor started or ended on.
func oracle(_ g: RoadGraph, _ index: SnapIndex, _ from: Snap, _ to: Snap, _ costs: TurnCosts,
            excluded: ExcludedClasses = []) -> Double? {
    // Turn angles from the graph's own geometry (independent of TurnGeometry's tables).
    func angle(_ e: Int, _ f: Int) -> Double {
        let a = g.geometry(of: e), b = g.geometry(of: f)
        var d = b[0].direction(to: b[1]) - a[a.count - 2].direction(to: a[a.count - 1])
        while d > 180 { d -= 360 }
        while d <= -180 { d += 360 }
        return d
    }
    var roadsAt = [Set<Int>](repeating: [], count: g.nodeCount), roadsIn = roadsAt
    for e in 0..<g.edgeCount {
        roadsAt[Int(g.source(of: e))].insert(g.segment(of: e))
        roadsAt[Int(g.edgeTarget[e])].insert(g.segment(of: e))
        roadsIn[Int(g.edgeTarget[e])].insert(g.segment(of: e))
    }
    /// OSRM: U-turns at dead ends, turning places, or where the road came by is the only way in
    /// or the only way out.
    func uTurnAllowed(_ e: Int) -> Bool {
        let v = g.edgeTarget[e]
        let exits = g.edges(from: v).filter { allowed(v, g.segment(of: e), g.segment(of: $0)) }.count
        return roadsAt[Int(v)].count == 1 || g.nodeFlags[Int(v)] & RoadGraph.turningPlaceFlag != 0
            || roadsIn[Int(v)].count <= 1 || exits <= 1
    }
    func points(_ snap: Snap) -> [(Int, Double)] {
        let f = snap.length > 0 ? snap.offset / snap.length : 0
        var p: [(Int, Double)] = []
        if index.forwardEdge[snap.segment] >= 0 { p.append((Int(index.forwardEdge[snap.segment]), f)) }
        if index.backwardEdge[snap.segment] >= 0 { p.append((Int(index.backwardEdge[snap.segment]), 1 - f)) }
        return p.filter { !g.isOf(excluded, edge: $0.0) }
    }
    func allowed(_ v: UInt32, _ a: Int, _ b: Int) -> Bool {
        let rules = g.restrictionVia.indices.filter { g.restrictionVia[$0] == v && Int(g.restrictionFrom[$0]) == a }
        if rules.contains(where: {
            g.restrictionKind[$0] == RestrictionKind.prohibitive.rawValue && Int(g.restrictionTo[$0]) == b
        }) {
            return false
        }
        let only = rules.filter { g.restrictionKind[$0] == RestrictionKind.mandatory.rawValue }
        return only.isEmpty || only.contains { Int(g.restrictionTo[$0]) == b }
    }
    func restricted(_ e: Int) -> Bool {
        EdgeFlags(rawValue: g.segmentFlags[g.segment(of: e)]).contains(
            g.isReversed(e) ? .restrictedBackward : .restrictedForward)
    }
    let paths = (0..<g.restrictionPathCount).map { (edges: g.restrictionPath($0).map(Int.init),
                                                    kind: g.restrictionPathKind[$0]) }
    let memory = max(1, paths.map { $0.edges.count - 1 }.max() ?? 1)
    /// Whether turning onto f after driving `history` (most recent last) breaks a restricted path.
    func breaksPath(_ history: [Int], _ f: Int) -> Bool {
        paths.contains { path in
            let before = path.edges.dropLast()
            guard history.count >= before.count
                && history.suffix(before.count).elementsEqual(before) else { return false }
            return path.kind == RestrictionKind.prohibitive.rawValue ? f == path.edges.last! : f != path.edges.last!
        }
    }
    /// The weight of edge e from fraction a to b of it: a customized edge's by its stretches.
    func share(_ e: Int, _ a: Double, _ b: Double) -> Double {
        guard let row = g.customRow(of: e) else { return Double(g.edgeWeight[e]) * (b - a) }
        let length = Double(g.edgeLength[e])
        return g.customPart(e, row: row, from: a * length, to: b * length).weight
    }
    var cost: [[Int]: Double] = [:]
    let starts = points(from), goals = points(to)
    var best = Double.infinity
    for (e, f) in starts {
        cost[[e]] = min(cost[[e]] ?? .infinity, share(e, f, 1))
        for (ge, gf) in goals where ge == e && gf >= f { best = min(best, share(e, f, gf)) }
    }
    // Dijkstra over the histories, with a heap of its own.
    var heap: [(cost: Double, history: [Int])] = cost.map { ($0.value, $0.key) }
    func push(_ item: (cost: Double, history: [Int])) {
        heap.append(item)
        var i = heap.count - 1
        while i > 0 && heap[(i - 1) / 2].cost > heap[i].cost { heap.swapAt(i, (i - 1) / 2); i = (i - 1) / 2 }
    }
    func pop() -> (cost: Double, history: [Int])? {
        guard !heap.isEmpty else { return nil }
        heap.swapAt(0, heap.count - 1)
        let top = heap.removeLast()
        var i = 0
        while true {
            var m = i
            for c in [2 * i + 1, 2 * i + 2] where c < heap.count && heap[c].cost < heap[m].cost { m = c }
            if m == i { break }
            heap.swapAt(i, m)
            i = m
        }
        return top
    }
    heap.sort { $0.cost < $1.cost }
    var settled = Set<[Int]>()
    while let (reached, history) = pop() {
        if reached >= best { break }
        guard reached == cost[history], settled.insert(history).inserted else { continue }
        let e = history.last!
        let v = g.edgeTarget[e]
        var delay = 0.0
        if g.nodeFlags[Int(v)] & RoadGraph.trafficSignalsFlag != 0 { delay += costs.trafficSignalDelay }
        if g.nodeFlags[Int(v)] & RoadGraph.gateFlag != 0 { delay += costs.gateDelay }
        for f in g.edges(from: v) where !g.isOf(excluded, edge: f) {
            guard allowed(v, g.segment(of: e), g.segment(of: f)), !breaksPath(history, f) else { continue }
            let uTurn = g.segment(of: f) == g.segment(of: e) && g.isReversed(f) != g.isReversed(e)
            if uTurn && !uTurnAllowed(e) { continue }
            var c = reached
            if let t = g.customTurn(e, f) {
                c += Double(g.turnWeight[t]) // a turn penalty file's
            } else if !restricted(e) && restricted(f) {
                c += costs.restrictedEntryWeight
            } else {
                c += delay
                if uTurn { c += costs.uTurnPenalty }
                // Float bearings in the search's tables: allow for their rounding in the comparison below.
                if roadsAt[Int(v)].count > 2 || uTurn { c += costs.turn(angle(e, f)) }
                // OSRM car.lua: the wait to turn across oncoming traffic (left in right-hand
                // traffic), at real junctions, not on a U-turn or on or off a roundabout.
                let ring = EdgeFlags.roundabout
                if !uTurn && roadsAt[Int(v)].count > 2 && !g.flags(of: e).contains(ring)
                    && !g.flags(of: f).contains(ring) && (costs.leftHandTraffic ? angle(e, f) > 0 : angle(e, f) < 0) {
                    c += costs.oncomingTurnPenalty / (1 + exp(-(13 * abs(angle(e, f)) / 180 - 3.25)))
                }
            }
            for (ge, gf) in goals where ge == f { best = min(best, c + share(f, 0, gf)) }
            let next = Array((history + [f]).suffix(memory))
            if c + Double(g.edgeWeight[f]) < (cost[next] ?? .infinity) - 1e-12 {
                cost[next] = c + Double(g.edgeWeight[f])
                push((c + Double(g.edgeWeight[f]), next))
            }
        }
    }
    return best.isFinite ? best : nil
}

@Suite struct RouteSearchTests {
    /// Property: A* equals Dijkstra equals the oracle, on random graphs with oneways and
    /// restrictions (fixed seeds); paths are connected and obey the restrictions.
    @Test(arguments: 1...25) func aStarIsExact(seed: Int) throws {
        let g = randomGraph(seed: UInt64(seed))
        guard g.edgeCount > 0 else { return }
        // One map with both: A* by great-circle distance, ALT, and the hierarchy over shared tables.
        let map = RoadMap(graph: g, hierarchy: ContractionHierarchy(graph: g), landmarks: Landmarks(graph: g, count: 4))
        let index = SnapIndex(graph: g)
        let search = RouteSearch(map: map, landmarks: false)
        let alt = RouteSearch(map: map)
        let ch = HierarchySearch(map: map)
        var rng = SplitMix64(seed: UInt64(1000 + seed))
        for _ in 0..<15 {
            let a = Coordinate(latitude: 52 + rng.uniform(0, 0.02), longitude: 13 + rng.uniform(0, 0.03))
            let b = Coordinate(latitude: 52 + rng.uniform(0, 0.02), longitude: 13 + rng.uniform(0, 0.03))
            guard let from = index.nearest(to: a, maxDistance: 5000), let to = index.nearest(to: b, maxDistance: 5000)
            else { continue }
            let fast = search.route(from: from, to: to)
            let plain = search.route(from: from, to: to, heuristic: false)
            let landmarked = alt.route(from: from, to: to)
            let contracted = ch.route(from: from, to: to)
            let expected = oracle(g, index, from, to, search.costs)
            #expect(
                (fast == nil) == (expected == nil) && (plain == nil) == (expected == nil)
                    && (landmarked == nil) == (expected == nil), "seed \(seed)")
            #expect((contracted == nil) == (expected == nil), "seed \(seed): CH reachability")
            guard let fast, let plain, let landmarked, let contracted, let expected else { continue }
            #expect(abs(contracted.weight - plain.weight) <= 1e-9 * max(1, expected),
                    "seed \(seed): CH \(contracted.weight) vs Dijkstra \(plain.weight)")
            // The unpacked path is a real path: connected, allowed turns, and its cost adds up.
            // Weight and travel time add up edge by edge and turn by turn.
            let summed = pathCost(g, contracted, search.costs)
            #expect(abs(summed.weight - contracted.weight) <= 1e-6 * max(1, expected), "seed \(seed): CH path weight")
            #expect(abs(summed.duration - contracted.duration) <= 1e-6 * max(1, expected),
                    "seed \(seed): CH path duration")
            // Weights come from Float tables, durations are summed in Double: equal to 1e-6.
            #expect(contracted.duration <= contracted.weight * (1 + 1e-6) + 1e-6,
                    "seed \(seed): a weight is never below the time")
            for (e, f) in zip(contracted.edges, contracted.edges.dropFirst()) {
                #expect(g.edgeTarget[e] == g.source(of: f), "seed \(seed): CH path disconnected")
                #expect(g.turnAllowed(via: g.edgeTarget[e], from: g.segment(of: e), to: g.segment(of: f)),
                        "seed \(seed): CH path breaks a restriction")
            }
            #expect(abs(landmarked.weight - plain.weight) <= 1e-9 * max(1, expected),
                    "seed \(seed): ALT \(landmarked.weight) vs Dijkstra \(plain.weight)")
            #expect(abs(landmarked.weight - expected) <= 1e-4 * max(1, expected),
                    "seed \(seed): ALT \(landmarked.weight) vs oracle \(expected)")
            // A* and Dijkstra share the search's tables: equal to 1e-9. The oracle computes turn
            // angles in Double from the geometry, the search from Float tables: equal to 1e-4.
            #expect(abs(fast.weight - plain.weight) <= 1e-9 * max(1, expected),
                    "seed \(seed): A* \(fast.weight) vs Dijkstra \(plain.weight)")
            #expect(abs(plain.weight - expected) <= 1e-4 * max(1, expected),
                    "seed \(seed): Dijkstra \(plain.weight) vs oracle \(expected)")
            for (e, f) in zip(fast.edges, fast.edges.dropFirst()) {
                #expect(g.edgeTarget[e] == g.source(of: f), "disconnected path")
            }
            #expect(!breaksRestrictedPath(g, fast.edges) && !breaksRestrictedPath(g, contracted.edges),
                    "seed \(seed): a restricted path broken")
        }
    }

    /// The random graphs really have restrictions over via ways, of one and of two via ways, both
    /// kinds, and they change routes (without them, some answers differ).
    @Test func randomGraphsHaveRestrictedPaths() throws {
        var paths = 0, longPaths = 0, mandatory = 0, changedRoutes = 0
        for seed in 1...25 {
            let g = randomGraph(seed: UInt64(seed))
            paths += g.restrictionPathCount
            longPaths += (0..<g.restrictionPathCount).filter { g.restrictionPath($0).count > 3 }.count
            mandatory += g.restrictionPathKind.filter { $0 == RestrictionKind.mandatory.rawValue }.count
            let free = randomGraph(seed: UInt64(seed), overWays: 0)
            guard free.edgeCount == g.edgeCount else { continue }
            let index = SnapIndex(graph: g)
            let with = RouteSearch(map: RoadMap(graph: g, method: .landmarks)),
                without = RouteSearch(map: RoadMap(graph: free, method: .landmarks))
            // From the middle of each path's from edge to the middle of its to edge.
            for p in 0..<g.restrictionPathCount {
                let path = g.restrictionPath(p)
                func middle(_ e: UInt32) -> Coordinate {
                    let line = g.geometry(of: Int(e));
                    return line[0].interpolated(to: line[line.count - 1], fraction: 0.5)
                }
                guard let from = index.nearest(to: middle(path.first!), maxDistance: 5000),
                    let to = index.nearest(to: middle(path.last!), maxDistance: 5000)
                else { continue }
                if with.route(from: from, to: to)?.weight != without.route(from: from, to: to)?.weight {
                    changedRoutes += 1
                }
            }
        }
        #expect(paths > 50 && longPaths > 10 && mandatory > 10 && changedRoutes > 20,
                "\(paths) paths, \(longPaths) long, \(mandatory) only_, \(changedRoutes) routes changed")
    }

    /// One hierarchy, many threads: concurrent queries (one searcher each) give the sequential
    /// answers.
    @Test func concurrentHierarchyQueries() throws {
        let g = randomGraph(seed: 7, nodes: 80, ways: 150)
        let index = SnapIndex(graph: g)
        let hierarchy = ContractionHierarchy(graph: g)
        var rng = SplitMix64(seed: 99)
        var queries: [(Snap, Snap)] = []
        while queries.count < 64 {
            let a = Coordinate(latitude: 52 + rng.uniform(0, 0.02), longitude: 13 + rng.uniform(0, 0.03))
            let b = Coordinate(latitude: 52 + rng.uniform(0, 0.02), longitude: 13 + rng.uniform(0, 0.03))
            if let from = index.nearest(to: a, maxDistance: 5000), let to = index.nearest(to: b, maxDistance: 5000) {
                queries.append((from, to))
            }
        }
        let map = RoadMap(graph: g, hierarchy: hierarchy)
        let sequential = HierarchySearch(map: map)
        let expected = queries.map { sequential.route(from: $0.0, to: $0.1)?.weight ?? -1 }
        let results = UnsafeMutableBufferPointer<Double>.allocate(capacity: queries.count)
        defer { results.deallocate() }
        nonisolated(unsafe) let out = results
        let work = queries
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            let search = HierarchySearch(map: map)
            for i in stride(from: worker, to: work.count, by: 4) {
                out[i] = search.route(from: work[i].0, to: work[i].1)?.weight ?? -1
            }
        }
        #expect(Array(results) == expected)
    }

    /// Two hierarchies of one random graph (``randomGraph(seed:nodes:ways:)``'s area) give the
    /// same route between 30 random points.
    private func expectSameRoutes(_ g: RoadGraph, _ one: ContractionHierarchy,
                                  _ other: ContractionHierarchy, seed: UInt64) {
        let index = SnapIndex(graph: g)
        let a = HierarchySearch(map: RoadMap(graph: g, hierarchy: one)),
            b = HierarchySearch(map: RoadMap(graph: g, hierarchy: other))
        var rng = SplitMix64(seed: seed)
        for _ in 0..<30 {
            let p = Coordinate(latitude: 52 + rng.uniform(0, 0.02), longitude: 13 + rng.uniform(0, 0.03))
            let q = Coordinate(latitude: 52 + rng.uniform(0, 0.02), longitude: 13 + rng.uniform(0, 0.03))
            guard let from = index.nearest(to: p, maxDistance: 5000), let to = index.nearest(to: q, maxDistance: 5000)
            else { continue }
            #expect(a.route(from: from, to: to) == b.route(from: from, to: to))
        }
    }

    /// Contraction runs in rounds on all threads; the hierarchy depends on the map only: one
    /// thread and three make the same arcs and the same routes (the tests above hold it to Dijkstra).
    @Test func contractionIsTheSameOnAnyNumberOfThreads() throws {
        for seed in [UInt64(11)] {
            let g = randomGraph(seed: seed, nodes: 200, ways: 400)
            let one = ContractionHierarchy(graph: g, threads: 1), three = ContractionHierarchy(graph: g, threads: 3)
            #expect(one.arcCount == three.arcCount && one.shortcutCount == three.shortcutCount)
            #expect(one.arcTail == three.arcTail && one.arcHead == three.arcHead && one.arcFirst == three.arcFirst)
            #expect(one.order == three.order && one.up.arcs.map(\.weight) == three.up.arcs.map(\.weight))
            expectSameRoutes(g, one, three, seed: seed)
        }
    }

    /// The turn tables are made in ranges side by side: one range and several make the same
    /// tables, and every bearing is ``Coordinate/direction(to:)``'s to the bit (each vertex's
    /// latitude's sine and cosine are worked out once, not per edge).
    @Test func turnTablesAreTheSameInAnyNumberOfRanges() throws {
        for seed in [UInt64(12), 13] {
            let g = randomGraph(seed: seed, nodes: 200, ways: 400)
            let one = TurnGeometry(graph: g, parts: 1), three = TurnGeometry(graph: g, parts: 3),
                seven = TurnGeometry(graph: g, parts: 7)
            for e in 0..<g.edgeCount {
                let v = g.source(of: e), w = g.edgeTarget[e]
                let head = Float(g.coordinate(of: v).direction(to: g.secondPoint(of: e)))
                let tail = Float(g.penultimatePoint(of: e).direction(to: g.coordinate(of: w)))
                #expect(
                    one.headBearing[e].bitPattern == head.bitPattern
                        && one.tailBearing[e].bitPattern == tail.bitPattern, "edge \(e)")
            }
            for other in [three, seven] {
                #expect(
                    other.headBearing == one.headBearing && other.tailBearing == one.tailBearing
                        && other.roads == one.roads)
            }
            let costs = TurnCosts(for: g)
            let table = TransitionTable(graph: g, turns: one, costs: costs, parts: 1)
            #expect(table.cost.contains(.infinity) && table.cost.contains { $0 > 0 && $0.isFinite })
            for parts in [3, 7] {
                let other = TransitionTable(graph: g, turns: one, costs: costs, parts: parts)
                #expect(
                    other.start == table.start
                        && other.cost.elementsEqual(table.cost) { $0.bitPattern == $1.bitPattern })
            }
        }
        // Far apart, close together, across 180° and at the poles.
        var rng = SplitMix64(seed: 31)
        for _ in 0..<2_000 {
            let scale = [1e-5, 1e-2, 10, 180].randomElement(using: &rng)!
            let a = try Coordinate(validatingLatitude: Double.random(in: -90...90, using: &rng),
                                   longitude: Double.random(in: -180...180, using: &rng))
            let b = try Coordinate(
                validatingLatitude: max(-90, min(90, a.latitude + Double.random(in: -scale...scale, using: &rng))),
                longitude: normalizedLongitude(a.longitude + Double.random(in: -scale...scale, using: &rng)))
            let measured = TurnGeometry.Bearing(a).direction(to: TurnGeometry.Bearing(b))
            #expect(measured.bitPattern == a.direction(to: b).bitPattern, "\(a) → \(b)")
        }
    }

    /// Each node's arc list in one pool (``ArcLists``): appends past a slot's room move it,
    /// compaction keeps every list, removal and replacement touch only the arc named.
    @Test func arcListsKeepEveryList() {
        var lists = ArcLists(nodeCount: 50)
        var model = [[UInt32]](repeating: [], count: 50)
        var rng = SplitMix64(seed: 21)
        for step in 0..<20_000 {
            let v = Int(rng.next() % 50)
            switch rng.next() % 10 {
            case 0 where !model[v].isEmpty:
                let id = model[v][Int(rng.next() % UInt64(model[v].count))]
                lists.remove(id, at: v)
                let i = model[v].firstIndex(of: id)!
                model[v][i] = model[v].last!
                model[v].removeLast()
            case 1 where !model[v].isEmpty:
                let id = model[v][Int(rng.next() % UInt64(model[v].count))]
                lists.replace(id, with: UInt32(100_000 + step), at: v)
                model[v][model[v].firstIndex(of: id)!] = UInt32(100_000 + step)
            case 2 where rng.next() % 20 == 0:
                lists.clear(v)
                model[v] = []
            default:
                lists.append(UInt32(step), at: v)
                model[v].append(UInt32(step))
            }
        }
        for v in 0..<50 { #expect(Array(lists[v]) == model[v] && lists.count(v) == model[v].count) }
    }

    /// A hierarchy stored in the graph file comes back equal, answers the same, and damage to it is
    /// an error (not a wrong route or a crash).
    @Test func storedHierarchyRoundTrips() throws {
        let g = randomGraph(seed: 5, nodes: 60, ways: 110)
        let fresh = ContractionHierarchy(graph: g)
        let bytes = GraphFile.encode(g, extra: fresh.fileSections)
        let path = NSTemporaryDirectory() + "ch-\(UUID().uuidString).wmg"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let (graph, extra) = try GraphFile.readWithExtras(path: path)
        #expect(graph == g)
        let stored = try #require(try ContractionHierarchy(fileSections: extra, graph: graph))
        #expect(stored.arcCount == fresh.arcCount && stored.shortcutCount == fresh.shortcutCount)
        expectSameRoutes(g, fresh, stored, seed: 3)
        // No hierarchy stored: nil. Other turn costs, another graph, a shortcut pointing forward: errors.
        #expect(try ContractionHierarchy(fileSections: [:], graph: g) == nil)
        #expect(throws: HierarchyFileError.self) { try ContractionHierarchy(fileSections: extra, graph: g,
                                                                            costs: TurnCosts(uTurnPenalty: 5)) }
        #expect(throws: HierarchyFileError.self) { try ContractionHierarchy(fileSections: extra,
                                                                            graph: randomGraph(seed: 6)) }
        var forward = extra
        var firsts = forward["HAF1"]!.withUnsafeBytes { Array($0.bindMemory(to: Int32.self)) }
        let shortcut = try #require(firsts.firstIndex { $0 >= 0 })
        firsts[shortcut] = Int32(firsts.count - 1)
        forward["HAF1"] = firsts.withUnsafeBytes { Array($0) }
        #expect(throws: HierarchyFileError.self) { try ContractionHierarchy(fileSections: forward, graph: g) }
        var truncated = extra
        truncated["HUPR"] = Array(truncated["HUPR"]!.dropLast(3))
        #expect(throws: HierarchyFileError.self) { try ContractionHierarchy(fileSections: truncated, graph: g) }
        truncated = extra
        truncated["HUPS"] = Array(truncated["HUPS"]!.dropLast(4))
        #expect(throws: HierarchyFileError.self) { try ContractionHierarchy(fileSections: truncated, graph: g) }
        // The turn geometry is stored with it and read back as measured; a file from before it was
        // stored measures it again; a damaged one is an error.
        let measured = TurnGeometry(graph: g)
        #expect(stored.turns.headBearing == measured.headBearing && stored.turns.tailBearing == measured.tailBearing
                && stored.turns.roads == measured.roads)
        var older = extra
        for tag in ["TGHB", "TGTB", "TGRC"] { older[tag] = nil }
        #expect(try ContractionHierarchy(fileSections: older, graph: g)?.turns.headBearing == measured.headBearing)
        var short = extra
        short["TGRC"] = Array(short["TGRC"]!.dropLast())
        #expect(throws: HierarchyFileError.self) { try ContractionHierarchy(fileSections: short, graph: g) }
        var wild = extra
        var heads = wild["TGHB"]!.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        heads[0] = .nan
        wild["TGHB"] = heads.withUnsafeBytes { Array($0) }
        #expect(throws: HierarchyFileError.self) { try ContractionHierarchy(fileSections: wild, graph: g) }
        // So is every turn's weight: read back equal to the table made from the graph (and made
        // again where a file has none); a wrong count or a NaN is an error.
        let table = TransitionTable(graph: g, turns: measured, costs: TurnCosts(for: g))
        #expect(stored.transitions.cost.elementsEqual(table.cost) && stored.transitions.start == table.start)
        var noCosts = extra
        noCosts["TTCS"] = nil
        #expect(
            try ContractionHierarchy(fileSections: noCosts, graph: g)?.transitions.cost.elementsEqual(table.cost)
                == true)
        // Where each edge's turns start is stored beside them and used in place; a file from
        // before counts them again; starts that are not the graph's are an error.
        var noStarts = extra
        noStarts["TTST"] = nil
        #expect(try ContractionHierarchy(fileSections: noStarts, graph: g)?.transitions.start == table.start)
        var wrongStarts = extra
        var starts = wrongStarts["TTST"]!.withUnsafeBytes { Array($0.bindMemory(to: UInt32.self)) }
        starts[1] += 1
        wrongStarts["TTST"] = starts.withUnsafeBytes { Array($0) }
        #expect(throws: HierarchyFileError.self) { try ContractionHierarchy(fileSections: wrongStarts, graph: g) }
        /// Section `tag`'s values one short, with a NaN, with a negative one: each refused at load.
        func expectDamageRefused<T: BinaryFloatingPoint & BitwiseCopyable>(_ tag: String, _: T.Type) {
            for damage in [{ (c: inout [T]) in c.removeLast() }, { c in c[0] = .nan }, { c in c[0] = -1 }] {
                var damaged = extra
                var values = damaged[tag]!.withUnsafeBytes { Array($0.bindMemory(to: T.self)) }
                damage(&values)
                damaged[tag] = values.withUnsafeBytes { Array($0) }
                #expect(throws: HierarchyFileError.self, "\(tag)") {
                    try ContractionHierarchy(fileSections: damaged, graph: g)
                }
            }
        }
        expectDamageRefused("TTCS", Float.self)
        // Every turn's seconds likewise, as the path's sums work each turn out: stored and read
        // back; a file from before has none, and its paths (the turns worked out) are the same;
        // a wrong count, a NaN or a negative value is an error.
        #expect(table.seconds.count == table.cost.count && stored.transitions.seconds.elementsEqual(table.seconds))
        for e in 0..<g.edgeCount {
            let leaving = g.edges(from: g.edgeTarget[e])
            for f in leaving {
                #expect(table.seconds[Int(table.start[e]) + f - leaving.lowerBound]
                    == TransitionTable.duration(e, f, g, measured, TurnCosts(for: g)), "\(e) → \(f)")
            }
        }
        var noSeconds = extra
        noSeconds["TTDU"] = nil
        let worked = try #require(try ContractionHierarchy(fileSections: noSeconds, graph: g))
        #expect(worked.transitions.seconds.isEmpty)
        expectSameRoutes(g, stored, worked, seed: 5)
        expectDamageRefused("TTDU", Double.self)
    }

    /// Query nodes are numbered from the top of the hierarchy down (every arc goes to a lower
    /// number), stored in "HORD"; a file from before (rows by hierarchy node, no "HORD") is
    /// numbered at load and routes the same; a numbering that is not one, or rows that close a
    /// cycle, are errors.
    @Test func queryNodesAreNumberedTopDown() throws {
        let g = randomGraph(seed: 8, nodes: 60, ways: 110)
        let fresh = ContractionHierarchy(graph: g)
        let n = fresh.nodeCount
        #expect(fresh.order.count == n && Set(fresh.order).count == n)
        for q in 0..<n {
            #expect(Int(fresh.rank[Int(fresh.order[q])]) == q)
            for rows in [fresh.up, fresh.down] {
                for i in rows.start[q]..<rows.start[q + 1] { #expect(Int(rows.arcs[Int(i)].end) < q) }
            }
        }
        let extra = FileSections(Dictionary(uniqueKeysWithValues: fresh.fileSections.map { ($0.tag, $0.bytes) }))
        func values<T>(_ tag: String, _: T.Type) -> [T] {
            extra[tag]!.withUnsafeBytes { Array($0.bindMemory(to: T.self)) }
        }
        func bytes<T>(_ values: [T]) -> [UInt8] { values.withUnsafeBytes { Array($0) } }
        // The same rows by hierarchy node, as files before "HORD" hold them (and with each arc's
        // end, weight and id in columns of their own, as files before "HUPR" hold them).
        var older = extra
        older["HORD"] = nil
        older["HRNK"] = nil
        for tags in [("HUPS", "HUPH", "HUPW", "HUPA", "HUPR"), ("HDNS", "HDNT", "HDNW", "HDNA", "HDNR")] {
            let start = values(tags.0, UInt32.self), arcs = values(tags.4, ArcRows.Arc.self)
            let end = arcs.map(\.end), weight = arcs.map(\.weight), id = arcs.map(\.id)
            older[tags.4] = nil
            var rowStart: [UInt32] = [0], rowEnd: [UInt32] = [], rowWeight: [Double] = [], rowId: [UInt32] = []
            for v in 0..<n {
                let q = Int(fresh.rank[v])
                for i in Int(start[q])..<Int(start[q + 1]) {
                    rowEnd.append(fresh.order[Int(end[i])]); rowWeight.append(weight[i]); rowId.append(id[i])
                }
                rowStart.append(UInt32(rowEnd.count))
            }
            older[tags.0] = bytes(rowStart); older[tags.1] = bytes(rowEnd); older[tags.2] = bytes(rowWeight);
            older[tags.3] = bytes(rowId)
        }
        let numbered = try #require(try ContractionHierarchy(fileSections: older, graph: g))
        #expect(numbered.order == fresh.order && numbered.up.arcs.map(\.id) == fresh.up.arcs.map(\.id))
        expectSameRoutes(g, fresh, numbered, seed: 4)
        // Not a numbering: a node twice, a node out of range, too few.
        var order = fresh.order.array
        order[1] = order[0]
        for damaged in [order, fresh.order.map { _ in UInt32(n) }, Array(fresh.order.dropLast())] {
            var sections = extra
            sections["HORD"] = bytes(damaged)
            #expect(throws: HierarchyFileError.self) { try ContractionHierarchy(fileSections: sections, graph: g) }
            sections = extra
            sections["HRNK"] = bytes(damaged) // the stored inverse damaged instead
            #expect(throws: HierarchyFileError.self) { try ContractionHierarchy(fileSections: sections, graph: g) }
        }
        #expect(fresh.rank.array == ContractionHierarchy.inverse(fresh.order))
        // An older file whose arcs close a cycle: arc a goes up from v to w, and an original arc b
        // (no shortcut made of it) going up from w is turned back to v, its row entry with it.
        func olderValues<T>(_ tag: String, _: T.Type) -> [T] {
            older[tag]!.withUnsafeBytes { Array($0.bindMemory(to: T.self)) }
        }
        let upStart = olderValues("HUPS", UInt32.self), upId = olderValues("HUPA", UInt32.self)
        var upEnd = olderValues("HUPH", UInt32.self), arcHead = values("HAHD", UInt32.self)
        let arcFirst = values("HAF1", Int32.self), arcSecond = values("HAF2", Int32.self)
        let parts = Set(arcFirst.filter { $0 >= 0 } + arcSecond.filter { $0 >= 0 })
        var found: (v: Int, j: Int)?
        search: for v in 0..<n {
            for i in Int(upStart[v])..<Int(upStart[v + 1]) {
                let w = Int(upEnd[i])
                for j in Int(upStart[w])..<Int(upStart[w + 1]) where arcFirst[Int(upId[j])] < 0
                    && !parts.contains(Int32(upId[j])) {
                    found = (v, j)
                    break search
                }
            }
        }
        let (v, j) = try #require(found)
        upEnd[j] = UInt32(v)
        arcHead[Int(upId[j])] = UInt32(v)
        var cyclic = older
        cyclic["HUPH"] = bytes(upEnd)
        cyclic["HAHD"] = bytes(arcHead)
        #expect(throws: HierarchyFileError(reason: "arcs close a cycle")) {
            try ContractionHierarchy(fileSections: cyclic, graph: g)
        }
    }

    /// Route lines have no doubled points: not where a waypoint snapped beside a shape point,
    /// not where legs meet, not at the end (the arrive step adds none).
    @Test func routeGeometryHasNoDoubledPoints() throws {
        let g = try OSMGraphLoader.build(path: packageRoot() + "/Data/sample-town.osm")
        let router = RoadMap(graph: g, hierarchy: ContractionHierarchy(graph: g)).makeRouter()
        let townHall = Coordinate(latitude: 52.309427, longitude: -2.598781) // snaps onto a High Street shape point
        let fuel = Coordinate(latitude: 52.311680, longitude: -2.572561),
            leisure = Coordinate(latitude: 52.3127, longitude: -2.5783)
        for waypoints in [[townHall, fuel], [townHall, leisure, fuel], [fuel, townHall]] {
            let route = try router.route(waypoints)
            for (p, q) in zip(route.geometry, route.geometry.dropFirst()) {
                #expect(p.distance(to: q) >= 0.1, "doubled point \(p) in a route through \(waypoints.count) waypoints")
            }
        }
        #expect(try router.route([townHall, townHall]).geometry.count == 2) // a zero-length route is still a line
    }

    @Test func snapsOntoGeometryNotNodes() throws {
        let g = try OSMGraphLoader.build(path: packageRoot() + "/Data/sample-town.osm")
        let index = SnapIndex(graph: g)
        // A point 20 m north of the middle of a long High Street stretch snaps onto the street.
        let highStreet = try #require(
            (0..<g.edgeCount).first { g.name(of: $0) == "High Street" && g.edgeLength[$0] > 300 })
        let shape = g.geometry(of: highStreet)
        let middle = shape[shape.count / 2]
        let query = Coordinate(latitude: middle.latitude + 20 / 111_195, longitude: middle.longitude)
        let snap = try #require(index.nearest(to: query, maxDistance: 1000))
        #expect(g.strings[Int(g.segmentName[snap.segment])] == "High Street")
        #expect(abs(snap.distance - 20) < 2)
        // kilometres away
        #expect(index.nearest(to: Coordinate(latitude: 52.5, longitude: -2.2), maxDistance: 1000) == nil)
    }

    @Test func routesAcrossTheSampleTown() throws {
        let g = try OSMGraphLoader.build(path: packageRoot() + "/Data/sample-town.osm")
        let index = SnapIndex(graph: g)
        let search = RouteSearch(map: RoadMap(graph: g, method: .landmarks))
        // Town hall (old town) to the leisure centre (east bank estate).
        let from = try #require(
            index.nearest(to: Coordinate(latitude: 52.309427, longitude: -2.598781), maxDistance: 1000))
        let to = try #require(index.nearest(to: Coordinate(latitude: 52.3127, longitude: -2.5783), maxDistance: 1000))
        let route = try #require(search.route(from: from, to: to))
        let settledWithLandmarks = search.settled
        #expect(route.distance > 1500 && route.distance < 4000)
        #expect(route.duration > 60 && route.duration < 900)
        let names = Set(route.edges.map { g.name(of: $0) })
        #expect(names.contains("Avel Bridge") || names.contains("High Street"))
        let dijkstra = try #require(search.route(from: from, to: to, heuristic: false))
        #expect(abs(route.weight - dijkstra.weight) < 1e-9 * route.weight)
        #expect(settledWithLandmarks > 0 && settledWithLandmarks < search.settled) // search.settled: the Dijkstra run
        let ch = HierarchySearch(map: RoadMap(graph: g, method: .hierarchy))
        let contracted = try #require(ch.route(from: from, to: to))
        #expect(abs(contracted.weight - dijkstra.weight) < 1e-9 * route.weight)
        #expect(ch.settled < search.settled)
        #expect(ch.route(from: from, to: from)?.weight == 0)
        // The same point: a zero-length route.
        let here = try #require(search.route(from: from, to: from))
        #expect(here.duration == 0 && here.distance == 0)
        // Beyond the gate on Mill Lane: unreachable.
        let mill = try #require(index.nearest(to: Coordinate(latitude: 52.3091, longitude: -2.6135), maxDistance: 100))
        #expect(search.route(from: from, to: mill) == nil)
        #expect(ch.route(from: from, to: mill) == nil)
    }
}

/// Whether the edges drive the whole of a restricted path before its last turn and then turn
/// against it.
func breaksRestrictedPath(_ g: RoadGraph, _ edges: [Int]) -> Bool {
    (0..<g.restrictionPathCount).contains { p in
        let path = g.restrictionPath(p).map(Int.init), before = path.dropLast()
        return edges.indices.contains { i in
            guard i + before.count < edges.count, edges[i..<(i + before.count)].elementsEqual(before) else {
                return false
            }
            let next = edges[i + before.count]
            return g.restrictionPathKind[p] == RestrictionKind.prohibitive.rawValue
                ? next == path.last! : next != path.last!
        }
    }
}

/// The weight and travel time of a path by the edge-based rules, summed edge by edge (independent
/// of any search).
func pathCost(_ g: RoadGraph, _ path: RoutePath, _ costs: TurnCosts,
              turns: TurnGeometry? = nil) -> (weight: Double, duration: Double) {
    let turns = turns ?? TurnGeometry(graph: g)
    let table = TransitionTable(graph: g, turns: turns, costs: costs)
    if path.edges.count == 1 {
        let part = g.part(path.edges[0], from: path.startOffset, to: path.endOffset)
        return (part.weight, part.duration)
    }
    let first = g.part(path.edges[0], from: path.startOffset, to: Double(g.edgeLength[path.edges[0]]))
    var weight = first.weight, duration = first.duration
    for i in 1..<path.edges.count {
        let (e, f) = (path.edges[i - 1], path.edges[i])
        weight += g.turnWeight(e, f, table: table) ?? .infinity
        duration += TransitionTable.duration(e, f, g, turns, costs)
        let part = i == path.edges.count - 1 ? g.part(f, from: 0, to: path.endOffset) : (Double(g.edgeWeight[f]),
            Double(g.edgeDuration[f]), 0)
        weight += part.0
        duration += part.1
    }
    return (weight, duration)
}

func packageRoot() -> String {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .path
}

@Suite struct TurnCostTests {
    @Test func osrmSigmoid() {
        let right = TurnCosts()
        // Values computed independently (Python) from OSRM car profile formula (turn_penalty 7.5, turn_bias 1.075).
        #expect(abs(right.turn(90) - 2.1052555445044834) < 1e-9)
        #expect(abs(right.turn(-90) - 5.394744455495515) < 1e-9)
        #expect(right.turn(0) < 0.01 && right.turn(180) > 7 && right.turn(-180) > 7)
        // Left-hand traffic mirrors it.
        let left = TurnCosts(leftHandTraffic: true)
        #expect(abs(left.turn(-90) - right.turn(90)) < 1e-12)
        // OSRM 26's wait to cross oncoming traffic (oncoming_turn_penalty 2): left turns only in
        // right-hand traffic, right turns only in left-hand traffic.
        #expect(abs(right.oncoming(-90) - 1.9253462253117413) < 1e-9)
        #expect(abs(right.oncoming(-30) - 0.5057514654586609) < 1e-9)
        #expect(right.oncoming(90) == 0 && left.oncoming(-90) == 0)
        #expect(abs(left.oncoming(90) - right.oncoming(-90)) < 1e-12)
    }

    /// A graph built for left-hand traffic routes with left turns cheap, exactly (CH == Dijkstra),
    /// and a hierarchy contracted for one side is refused for the other.
    @Test func drivingSideFollowsTheGraph() throws {
        var g = try OSMGraphLoader.build(path: packageRoot() + "/Data/sample-town.osm")
        #expect(g.drivingSide == .left) // by place: the sample town lies in England
        g.drivingSide = .right
        let index = SnapIndex(graph: g)
        let from = try #require(index.nearest(to: Coordinate(latitude: 52.3127, longitude: -2.5783), maxDistance: 1000))
        let to = try #require(index.nearest(to: Coordinate(latitude: 52.3053, longitude: -2.6010), maxDistance: 1000))
        let rightHand = ContractionHierarchy(graph: g)
        let rightCost = try #require(RouteSearch(map: RoadMap(graph: g, hierarchy: rightHand)).route(from: from,
            to: to, heuristic: false)).weight
        g.drivingSide = .left
        #expect(TurnCosts(for: g).leftHandTraffic)
        let leftSearch = RouteSearch(map: RoadMap(graph: g, method: .landmarks))
        let leftCost = try #require(leftSearch.route(from: from, to: to, heuristic: false)).weight
        #expect(abs(leftCost - rightCost) > 1, "turn costs depend on the side: \(leftCost) vs \(rightCost)")
        // (Contracted by a map, on the turn geometry maps measure: guidance's perceived bearings.)
        let leftMap = RoadMap(graph: g, method: .hierarchy)
        leftMap.prepare()
        let leftHand = try #require(leftMap.hierarchy)
        #expect(leftHand.costs.leftHandTraffic)
        let contracted = try #require(
            HierarchySearch(map: RoadMap(graph: g, hierarchy: leftHand)).route(from: from, to: to))
        #expect(abs(contracted.weight - leftCost) <= 1e-9 * leftCost)
        #expect(throws: HierarchyFileError.self) {
            try ContractionHierarchy(
                fileSections: FileSections(
                    Dictionary(uniqueKeysWithValues: rightHand.fileSections.map { ($0.tag, $0.bytes) })), graph: g)
        }
    }
}
