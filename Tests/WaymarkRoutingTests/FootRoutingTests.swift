import Foundation
import Testing
import WaymarkGeo
import WaymarkGraph
import WaymarkProfiles
import WaymarkRouting

/// Walking routes on a hand-drawn map built with ``FootProfile``, each with OSRM 26.10's answer
/// (foot.lua, osrm-extract/partition/customize on the same map, 2026-11-28): car oneways do not
/// bind walkers, steps are walked, a motorway is not, gravel is slower, turns cost nothing.
@Suite struct FootRoutingTests {
    /// 400 m between columns four apart, 200 m between rows two apart.
    static let grid = GridMap(picture: """
        a---b---c
        |       |
        d---e---f
        """, ways: [("abc", ["highway": "primary", "oneway": "yes", "name": "abc"]),
                    ("ad", ["highway": "footway", "name": "ad"]),
                    ("def", ["highway": "residential", "name": "def", "surface": "gravel"]),
                    ("cf", ["highway": "steps", "name": "cf"]),
                    ("be", ["highway": "motorway", "name": "be"])], spacing: 100)

    /// OSRM's seconds and the roads walked, from one letter to another.
    static let osrm: [(Character, Character, Double, String)] = [
        ("c", "a", 578.2, "abc"), ("a", "c", 578.2, "abc"), ("f", "d", 770.8, "def"), ("d", "f", 770.8, "def"),
        ("a", "f", 722.3, "abc,cf"), ("f", "a", 722.3, "cf,abc"), ("b", "e", 818.6, "abc,cf,def"),
    ]

    @Test(arguments: [RoadMap.SearchMethod.automatic, .hierarchy])
    func walksAsOSRMWalks(method: RoadMap.SearchMethod) throws {
        let graph = try Self.grid.graph(for: FootProfile())
        #expect(graph.travel == .foot)
        let map = RoadMap(graph: graph, method: method)
        let places = Self.grid.positions
        for (from, to, seconds, roads) in Self.osrm {
            let route = try map.route(from: places[from]!, to: places[to]!)
            #expect(abs(route.duration - seconds) < 1, "\(from)→\(to): \(route.duration) s against \(seconds)")
            var names: [String] = []
            for step in route.legs.flatMap(\.steps) where names.last != step.name { names.append(step.name) }
            #expect(names.joined(separator: ",") == roads, "\(from)→\(to)")
            #expect(route.legs.flatMap(\.steps).allSatisfy { $0.mode == .walking })
        }
    }

    /// The same map for cars keeps to the oneway and off the steps and the footway.
    @Test func carsDoNot() throws {
        let map = RoadMap(graph: try Self.grid.graph())
        let places = Self.grid.positions
        #expect(map.graph.travel == .car)
        #expect(throws: RouteError.self) { try map.route(from: places["c"]!, to: places["a"]!) }
    }
}

/// A walk across a ferry: each change of mode is a step, as OSRM tells it (its answer on the same
/// map: depart walking, `notification straight` onto the ferry, again off it, arrive; 867.3 s).
@Suite struct FootFerryTests {
    static let grid = GridMap(picture: "a---b---c---d",
                              ways: [("ab", ["highway": "footway", "name": "ab"]),
                                     ("bc", ["route": "ferry", "name": "bc"]),
                                     ("cd", ["highway": "footway", "name": "cd"])], spacing: 100)

    @Test func modeChangesAreSteps() throws {
        let map = RoadMap(graph: try Self.grid.graph(for: FootProfile()))
        let places = Self.grid.positions
        for (from, to, names) in [("a", "d", ["ab", "bc", "cd", "cd"]), ("d", "a", ["cd", "bc", "ab", "ab"])] {
            let route = try map.route(from: places[Character(from)]!, to: places[Character(to)]!)
            let steps = route.legs.flatMap(\.steps)
            #expect(steps.map(\.name) == names, "\(from)→\(to)")
            #expect(steps.map(\.mode) == [.walking, .ferry, .walking, .walking], "\(from)→\(to)")
            #expect(steps.map(\.maneuver.type.rawValue) == ["depart", "notification", "notification", "arrive"])
            #expect(abs(route.duration - 867.3) < 1, "\(route.duration)")
        }
    }
}
