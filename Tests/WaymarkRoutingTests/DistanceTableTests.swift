import Testing
import WaymarkGeo
import WaymarkGraph
import WaymarkSupport
@testable import WaymarkPreparation
@testable import WaymarkQueries
@testable import WaymarkGuidance
@testable import WaymarkRouting

/// The table (OSRM's many-to-many) against single routes: every cell is the route's travel time
/// and length, on the hierarchy's bucket search and on the pairwise fallback alike.
@Suite struct DistanceTableTests {
    private func points(_ count: Int, seed: UInt64) -> [Coordinate] {
        var rng = SplitMix64(seed: seed)
        return (0..<count).map { _ in Coordinate(latitude: 52 + rng.uniform(0, 0.02),
                                                 longitude: 13 + rng.uniform(0, 0.03)) }
    }

    @Test(arguments: [31, 32, 33]) func cellsAreRoutes(seed: Int) throws {
        let g = randomGraph(seed: UInt64(seed), nodes: 70, ways: 130)
        let sources = points(9, seed: UInt64(seed) * 7), destinations = points(11,
                                                                               seed: UInt64(seed) * 13) + [sources[2]]
        var reached = 0, unreachable = 0
        for method in [RoadMap.SearchMethod.hierarchy, .landmarks] {
            let map = RoadMap(graph: g, method: method, maxSnapDistance: 5000)
            let table = try map.table(sources: sources, destinations: destinations)
            #expect(table.durations.count == sources.count * destinations.count)
            #expect(table.sources.count == sources.count && table.destinations.count == destinations.count)
            for (i, a) in sources.enumerated() {
                for (j, b) in destinations.enumerated() {
                    let route = try? map.route(from: a, to: b)
                    let duration = table.duration(from: i, to: j), distance = table.distance(from: i, to: j)
                    #expect((route == nil) == (duration == nil),
                            "seed \(seed) \(method) \(i)→\(j): reachability differs")
                    #expect((duration == nil) == (distance == nil))
                    guard let route, let duration, let distance else { unreachable += 1; continue }
                    reached += 1
                    #expect(abs(route.duration - duration) <= 1e-3 * max(1, duration),
                            "seed \(seed) \(method) \(i)→\(j): \(route.duration) vs \(duration)")
                    #expect(abs(route.distance - distance) <= 1e-3 * max(1, distance),
                            "seed \(seed) \(method) \(i)→\(j): \(route.distance) vs \(distance)")
                }
            }
            // A point to itself: nothing to drive.
            #expect(table.duration(from: 2, to: destinations.count - 1) == 0)
        }
        #expect(reached > 50,
                "seed \(seed): the graph should connect most pairs (\(reached) reached, \(unreachable) not)")
    }

    @Test func emptyAndFarPointsAreRefused() throws {
        let g = randomGraph(seed: 31, nodes: 70, ways: 130)
        let map = RoadMap(graph: g, method: .hierarchy, maxSnapDistance: 5000)
        let p = points(2, seed: 1)
        #expect(throws: RouteError.self) { try map.table(sources: [], destinations: p) }
        #expect { try map.table(sources: p,
                                destinations: [Coordinate(latitude: 60, longitude: 13)]) } throws: { error in
            (error as? RouteError)?.code == "NoSegment"
        }
    }
}

/// `nearest(count:)` (OSRM's nearest with `number`): distinct roads, nearest first, the first
/// the plain nearest, each within reach, more asked never fewer given.
@Suite struct NearestTests {
    @Test func severalNearestRoads() throws {
        let g = randomGraph(seed: 35, nodes: 70, ways: 130)
        let map = RoadMap(graph: g, method: .landmarks, maxSnapDistance: 5000)
        var rng = SplitMix64(seed: 5)
        var most = 0
        for _ in 0..<50 {
            let c = Coordinate(latitude: 52 + rng.uniform(-0.005, 0.025), longitude: 13 + rng.uniform(-0.005, 0.035))
            let one = map.nearest(c, count: 1, maxDistance: 800), five = map.nearest(c, count: 5, maxDistance: 800)
            let all = map.nearest(c, count: 10_000, maxDistance: 800)
            most = max(most, all.count)
            let distinct = Set(all.map(\.segment)).count == all.count
            #expect(distinct)
            #expect(Set(five.map(\.segment)).count == five.count)
            #expect(five.map(\.distance) == five.map(\.distance).sorted())
            #expect(five.allSatisfy { $0.distance <= 800 + 1e-6 })
            #expect(Array(all.prefix(5)).map(\.segment) == five.map(\.segment))
            #expect(five.count == min(5, all.count) && one.count == min(1, all.count))
            if let first = one.first {
                let plain = try #require(map.data().data.snapIndex.nearest(to: c, maxDistance: 800,
                                                                           bigComponentsOnly: false))
                #expect(abs(first.distance - plain.distance) < 1e-9)
            }
        }
        // (Past 16 roads the search keeps its list indexed by segment.)
        #expect(most > 16)
    }
}
