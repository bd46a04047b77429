import Foundation
import Testing
import WaymarkGeo
@testable import WaymarkGraph
import WaymarkProfiles
import WaymarkSupport
@testable import WaymarkPreparation
@testable import WaymarkQueries
@testable import WaymarkRouting

@Suite struct CustomizableHierarchyTests {
    /// The dissection orders every directed edge once, whatever the graph's shape.
    @Test(arguments: [1, 2, 3, 9]) func dissectionOrdersEveryEdgeOnce(seed: Int) {
        let g = randomGraph(seed: UInt64(seed), nodes: 120, ways: 220)
        let position = NestedDissection.edgePositions(graph: g)
        #expect(Set(position).count == g.edgeCount && position.allSatisfy { Int($0) < g.edgeCount })
    }

    /// Property: a customized hierarchy routes at Dijkstra's weight on random graphs with oneways
    /// and restrictions over via ways (fixed seeds), and its paths are real paths that keep every
    /// restriction; with a class kept off, at the weight of Dijkstra on the graph without it.
    @Test(arguments: 1...20) func customizedHierarchyIsExact(seed: Int) throws {
        let g = randomGraph(seed: UInt64(seed))
        guard g.edgeCount > 0 else { return }
        let costs = TurnCosts(for: g), turns = TurnGeometry(graph: g)
        let table = TransitionTable(graph: g, turns: turns, costs: costs)
        let topology = CustomizableTopology(graph: g, transitions: table)
        let customized = ContractionHierarchy(graph: g, costs: costs, turns: turns, topology: topology,
                                              transitions: table)
        let map = RoadMap(graph: g, hierarchy: customized)
        let index = SnapIndex(graph: g)
        let dijkstra = RouteSearch(map: map, landmarks: false)
        let ch = HierarchySearch(map: map)
        var rng = SplitMix64(seed: UInt64(2000 + seed))
        var compared = 0
        for _ in 0..<15 {
            let a = Coordinate(latitude: 52 + rng.uniform(0, 0.02), longitude: 13 + rng.uniform(0, 0.03))
            let b = Coordinate(latitude: 52 + rng.uniform(0, 0.02), longitude: 13 + rng.uniform(0, 0.03))
            guard let from = index.nearest(to: a, maxDistance: 5000), let to = index.nearest(to: b, maxDistance: 5000)
            else { continue }
            let plain = dijkstra.route(from: from, to: to, heuristic: false)
            let found = ch.route(from: from, to: to)
            #expect((plain == nil) == (found == nil), "seed \(seed): reachability")
            guard let plain, let found else { continue }
            compared += 1
            #expect(abs(found.weight - plain.weight) <= 1e-9 * max(1, plain.weight),
                    "seed \(seed): customized \(found.weight) vs Dijkstra \(plain.weight)")
            let summed = pathCost(g, found, costs)
            #expect(abs(summed.weight - found.weight) <= 1e-6 * max(1, plain.weight), "seed \(seed): path weight")
            for (e, f) in zip(found.edges, found.edges.dropFirst()) {
                #expect(g.edgeTarget[e] == g.source(of: f), "seed \(seed): path disconnected")
            }
            #expect(!breaksRestrictedPath(g, found.edges), "seed \(seed): a restricted path broken")
        }
        if seed == 1 { #expect(compared > 5) }
    }
}

extension CustomizableHierarchyTests {
    /// The two cores' ranks never share a triangle: every arc into a rank a core relaxes comes
    /// from a rank of the same core, and the ranks done last are closed upwards; both cores work.
    @Test(arguments: [1, 4, 7]) func twoCoreCutKeepsTheCoresApart(seed: Int) {
        let g = randomGraph(seed: UInt64(seed), nodes: 400, ways: 700)
        let table = TransitionTable(graph: g, turns: TurnGeometry(graph: g), costs: TurnCosts(for: g))
        let t = CustomizableTopology(graph: g, transitions: table)
        var apart = true, closedUpwards = true
        for a in 0..<t.arcCount {
            let (low, high) = (Int(t.tail[a]), Int(t.head[a]))
            if t.core[high] < 2 && t.core[low] != t.core[high] { apart = false }
            if a == Int(t.start[low]) && t.core[low] == 2 && t.core[high] != 2 { closedUpwards = false }
        }
        #expect(apart && closedUpwards)
        #expect(t.core.contains(0) && t.core.contains(1), "seed \(seed): one core idle")
    }

    /// A dissection carried to the graph with some edges taken out (roads a customization
    /// closed) keeps each kept edge's place; it is refused for another graph.
    @Test func dissectionIsCarriedPastClosedEdges() {
        let g = randomGraph(seed: 5, nodes: 80, ways: 150)
        let position = NestedDissection.edgePositions(graph: g)
        var rng = SplitMix64(seed: 5)
        let closed = (0..<g.edgeCount).map { _ in rng.next() % 7 == 0 }
        let fewer = g.removingEdges(closed)
        let kept = (0..<g.edgeCount).filter { !closed[$0] }.map { position[$0] }
        #expect(fewer.edgeCount == kept.count && fewer.edgeCount < g.edgeCount)
        #expect(NestedDissection.carried(position, from: g, to: fewer) == kept)
        #expect(NestedDissection.carried(position, from: g, to: g) == position)
        #expect(NestedDissection.carried(position, from: g, to: randomGraph(seed: 6, nodes: 80, ways: 150)) == nil)
    }
}

/// A matched trace's route searches its short legs by A*: the same weight as the hierarchy's
/// on random graphs with restrictions (fixed seeds).
@Suite struct ShortLegTests {
    @Test(arguments: 1...8) func shortLegsWeighWhatTheHierarchyFinds(seed: Int) throws {
        let g = randomGraph(seed: UInt64(seed))
        guard g.edgeCount > 0 else { return }
        let map = RoadMap(graph: g, hierarchy: ContractionHierarchy(graph: g))
        let router = map.makeRouter()
        var rng = SplitMix64(seed: UInt64(500 + seed))
        var compared = 0
        for _ in 0..<10 {
            // A walk of points up to 150 m apart.
            var points = [Coordinate(latitude: 52 + rng.uniform(0, 0.02), longitude: 13 + rng.uniform(0, 0.03))]
            for _ in 0..<5 {
                let last = points.last!
                points.append(Coordinate(latitude: last.latitude + rng.uniform(-0.001, 0.001),
                                         longitude: last.longitude + rng.uniform(-0.0015, 0.0015)))
            }
            let snaps = points.compactMap { map.nearest($0, maxDistance: 5000) }
            guard snaps.count == points.count else { continue }
            // Straight on at via points (a route's default) and turning there (a matched trace's).
            for straight in [true, false] {
                var options = RouteOptions()
                options.continueStraight = straight
                guard let byHierarchy = try? router.routes(snapped: snaps, input: points, options: options)[0],
                      let byAStar = try? router.routes(snapped: snaps, input: points, options: options,
                                                       shortLegsByAStar: true)[0] else { continue }
                compared += 1
                // (The whole route: where equal chains place a turn between two legs may differ.)
                #expect(abs(byHierarchy.weight - byAStar.weight) <= 1e-6 * max(1, byHierarchy.weight),
                        "seed \(seed)")
                #expect(byHierarchy.legs.count == byAStar.legs.count)
            }
        }
        if seed == 1 { #expect(compared > 3) }
    }
}
