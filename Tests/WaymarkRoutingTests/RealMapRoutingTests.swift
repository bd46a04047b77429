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

private let sharedOSM = URL(fileURLWithPath: packageRoot()).deletingLastPathComponent().appendingPathComponent(
    "shared/data/osm"
).path
private let extracts: [String] = ((try? FileManager.default.contentsOfDirectory(atPath: sharedOSM)) ?? []).filter {
    $0.hasSuffix(".osm.gz")
}.sorted()

/// On every shared extract (skipped when absent), ALT and the contraction hierarchy (on the
/// smaller ones) equal plain Dijkstra for random pairs of points in the main network, and full
/// routes assemble with connected steps.
@Suite struct RealMapRoutingTests {
    @Test(.enabled(if: !extracts.isEmpty, "the shared extracts (../shared/data/osm) are absent"),
          arguments: extracts.isEmpty ? ["(none)"] : extracts)
    func altIsOptimal(_ name: String) throws {
        let graph = try OSMGraphLoader.build(path: sharedOSM + "/" + name)
        // Real road networks are far from the density at which contraction is refused.
        var turns = 0
        for v in 0..<UInt32(graph.nodeCount) { turns += graph.incoming(to: v).count * graph.edges(from: v).count }
        #expect(Double(turns) < 4 * Double(max(1, graph.edgeCount)) && ContractionHierarchy.refusal(for: graph) == nil,
                "\(name): \(turns) turns over \(graph.edgeCount) edges")
        let map = RoadMap(graph: graph, landmarks: Landmarks(graph: graph, count: 8), method: .landmarks)
        let router = map.makeRouter(), dijkstra = RouteSearch(map: map)
        // The hierarchy too, where contracting it in a debug build takes seconds, not minutes.
        let ch = graph.edgeCount <= 40_000 ? HierarchySearch(map: RoadMap(graph: graph, method: .hierarchy)) : nil
        let components = graph.stronglyConnectedComponents()
        let main = (0..<graph.nodeCount).filter { components.component[$0] == components.largest }
        guard main.count > 1 else { return }
        var rng = SplitMix64(seed: 11)
        for _ in 0..<6 {
            let a = graph.coordinate(of: UInt32(main[Int(rng.next() % UInt64(main.count))]))
            let b = graph.coordinate(of: UInt32(main[Int(rng.next() % UInt64(main.count))]))
            // On a map whose main network is under 1,000 vertices every component is tiny, and a
            // vertex's own coordinate may snap to another piece's road there (as in OSRM): no route.
            guard let route = try? router.route([a, b]) else {
                #expect(main.count < SnapIndex.tinyComponentSize, "\(name): no route in the main network")
                continue
            }
            let plain = try #require(dijkstra.route(from: route.waypoints[0], to: route.waypoints[1], heuristic: false))
            #expect(abs(route.weight - plain.weight) <= 1e-9 * max(1, plain.weight), "\(name)")
            if let ch {
                let contracted = try #require(ch.route(from: route.waypoints[0], to: route.waypoints[1]))
                #expect(abs(contracted.weight - plain.weight) <= 1e-9 * max(1, plain.weight), "\(name): CH")
                #expect(
                    abs(pathCost(graph, contracted, TurnCosts(for: graph), turns: map.data().data.turns).weight
                        - plain.weight) <= 1e-6
                        * max(1, plain.weight), "\(name): CH path")
            }
            let steps = route.legs[0].steps
            #expect(steps.first?.maneuver.type == .depart && steps.last?.maneuver.type == .arrive)
            #expect(abs(steps.reduce(0) { $0 + $1.distance } - route.distance) < 1)
            for (s, t) in zip(steps, steps.dropFirst()) {
                #expect(s.geometry.last!.distance(to: t.geometry.first!) < 0.5, "\(name): steps do not join")
            }
        }
    }

    /// On the shared Andorra extract, every alternative keeps ``AlternativeRules/standard``: at
    /// most 1.25 times the best route's weight, at most 80 % of the length of the best and of
    /// each alternative before it driven along the same stretches (property test, fixed seed).
    @Test(.enabled(if: extracts.contains("andorra.osm.gz"), "the shared Andorra extract is absent"))
    func alternativesKeepTheRules() throws {
        let graph = try OSMGraphLoader.build(path: sharedOSM + "/andorra.osm.gz")
        let map = RoadMap(graph: graph, method: .hierarchy)
        var random = SplitMix64(seed: 42)
        var options = RouteOptions()
        options.alternatives = 3
        var found = 0
        let points = (0..<UInt32(graph.nodeCount)).map(graph.coordinate(of:))
        for _ in 0..<100 {
            let a = points[Int(random.next() % UInt64(points.count))]
            let b = points[Int(random.next() % UInt64(points.count))]
            guard let routes = try? map.routes([a, b], options: options) else { continue }
            for (k, alternative) in routes.enumerated().dropFirst() {
                found += 1
                #expect(alternative.weight <= routes[0].weight * 1.25 + 0.1)
                func stretches(_ route: Route) -> [String: Double] {
                    let pairs = zip(route.geometry, route.geometry.dropFirst())
                    return Dictionary(pairs.map { ("\($0.0)>\($0.1)", $0.0.distance(to: $0.1)) },
                                      uniquingKeysWith: { a, _ in a })
                }
                let mine = stretches(alternative)
                for earlier in routes[..<k] {
                    let shared = stretches(earlier).filter { mine[$0.key] != nil }.values.reduce(0, +)
                    #expect(shared <= 0.8 * earlier.distance + 1)
                }
            }
        }
        #expect(found >= 10, "\(found) alternatives")
    }
}
