import Foundation
import Testing
import WaymarkGeo
import WaymarkGraph
import WaymarkProfiles
import WaymarkRouting

/// Cycling routes on a hand-drawn map built with ``BicycleProfile``, each with OSRM 26.10's answer
/// (bicycle.lua, osrm-extract and osrm-contract on the same map, routed by its engine through the
/// Python bindings, 2026-11-28): a oneway ridden one way and pushed the other, a cycle lane against
/// a oneway, steps and a footway pushed, quadratic turn costs; every change between riding and
/// pushing a step of its own.
@Suite struct BicycleRoutingTests {
    /// 400 m between columns four apart, 200 m between rows two apart; the digits are waypoints
    /// between junctions (a waypoint on a vertex snaps to one of its roads, and which one OSRM
    /// picks among equals depends on its R-tree's order).
    static let grid = GridMap(picture: """
        a-1-b---c-2-d
        6   |       3
        e-4-f---g-5-h
        """, ways: [("abcd", ["highway": "residential", "oneway": "yes", "name": "North"]),
                    ("efgh", ["highway": "residential", "oneway": "yes", "cycleway": "opposite", "name": "South"]),
                    ("ae", ["highway": "steps", "name": "Steps"]),
                    ("dh", ["highway": "footway", "name": "Path"]),
                    ("bf", ["highway": "cycleway", "name": "Link"])], spacing: 100)

    /// OSRM's seconds and steps (maneuver, road, mode), from one waypoint to another.
    static let osrm: [(Character, Character, Double, [String])] = [
        ("1", "2", 192.8, ["depart North cycling", "arrive North cycling"]),
        ("2", "1", 671.0, ["depart North cycling", "notification right Path pushing bike",
                           "notification right South cycling", "turn right Link cycling",
                           "turn left North pushing bike", "arrive North pushing bike"]),
        ("5", "4", 192.8, ["depart South cycling", "arrive South cycling"]),
        ("4", "5", 192.8, ["depart South cycling", "arrive South cycling"]),
        ("6", "1", 232.3, ["depart Steps pushing bike", "notification right North cycling", "arrive North cycling"]),
        ("1", "6", 368.9, ["depart North pushing bike", "arrive Steps pushing bike"]),
        ("3", "2", 279.1, ["depart Path pushing bike", "new name left North pushing bike",
                           "arrive North pushing bike"]),
        ("2", "3", 142.5, ["depart North cycling", "notification right Path pushing bike", "arrive Path pushing bike"]),
        ("3", "1", 528.5, ["depart Path pushing bike", "notification right South cycling", "turn right Link cycling",
                           "turn left North pushing bike", "arrive North pushing bike"]),
    ]

    @Test(arguments: [RoadMap.SearchMethod.automatic, .hierarchy])
    func ridesAsOSRMRides(method: RoadMap.SearchMethod) throws {
        let graph = try Self.grid.graph(for: BicycleProfile())
        #expect(graph.travel == .bicycle)
        let map = RoadMap(graph: graph, method: method)
        let places = Self.grid.positions
        for (from, to, seconds, steps) in Self.osrm {
            let route = try map.route(from: places[from]!, to: places[to]!)
            #expect(abs(route.duration - seconds) < 1, "\(from)→\(to): \(route.duration) s against \(seconds)")
            let told = route.legs.flatMap(\.steps).map { step in
                [step.maneuver.type.rawValue, step.maneuver.modifier?.rawValue, step.name, step.mode.rawValue]
                    .compactMap { $0 }.joined(separator: " ")
            }
            if from == "1" && to == "6" {
                // OSRM keeps the corner from a pushed oneway onto the steps silent, and names the
                // arrival after the steps: not yet told as OSRM tells it.
                withKnownIssue("a silent corner between pushed ways") { #expect(told == steps) }
            } else {
                #expect(told == steps, "\(from)→\(to)")
            }
        }
    }

    /// Lights between junctions cost what OSRM's compressor makes them cost: 2 s the way they face
    /// and bicycle.lua's turn price for 180°, (180/90)² × 6 / 1.4 s, either way (OSRM: 61.8 s and
    /// 59.8 s over 180 m with a light facing forward).
    @Test func lightsBetweenJunctions() throws {
        let grid = GridMap(picture: "a-s-b", ways: [("asb", ["highway": "residential", "name": "Rua"])],
                           nodeTags: ["s": ["highway": "traffic_signals", "traffic_signals:direction": "forward"]],
                           spacing: 45)
        let map = RoadMap(graph: try grid.graph(for: BicycleProfile()))
        let places = grid.positions
        let forward = try map.route(from: places["a"]!, to: places["b"]!).duration
        let backward = try map.route(from: places["b"]!, to: places["a"]!).duration
        let travel = 180 / (15 / 3.6)
        #expect(abs(forward - (travel + 2 + 4 * 6 / 1.4)) < 0.2, "\(forward)")
        #expect(abs(backward - (travel + 4 * 6 / 1.4)) < 0.2, "\(backward)")
        // A car pays the light's 2 s the way it faces only (OSRM's car.lua on the same kind of
        // map: 27.6 s and 25.6 s); `direction` does as `traffic_signals:direction`.
        for key in ["traffic_signals:direction", "direction"] {
            let car = GridMap(picture: "a-s-b", ways: [("asb", ["highway": "residential", "name": "Rua"])],
                              nodeTags: ["s": ["highway": "traffic_signals", key: "forward"]], spacing: 45)
            let carMap = RoadMap(graph: try car.graph())
            let there = try carMap.route(from: places["a"]!, to: places["b"]!).duration
            let back = try carMap.route(from: places["b"]!, to: places["a"]!).duration
            #expect(abs(there - back - 2) < 0.05, "\(key): \(there) s there, \(back) s back")
        }
    }
}

/// A ride across a ferry, each change of mode a step, as OSRM tells it (its answers on the same
/// map); a timed ferry walkers may use is pushed aboard (bicycle.lua's quirk, OSRM's answer too).
@Suite struct BicycleFerryTests {
    static func grid(ferry: [String: String]) -> GridMap {
        GridMap(picture: "a-1-b---c-2-d", ways: [("ab", ["highway": "residential", "name": "ab"]),
                                                 ("bc", ferry.merging(["name": "bc"]) { a, _ in a }),
                                                 ("cd", ["highway": "residential", "name": "cd"])], spacing: 100)
    }

    @Test(arguments: [(["route": "ferry"], "ferry", 385.5),
                      (["route": "ferry", "duration": "00:05", "foot": "yes"], "pushing bike", 396.4)])
    func modeChangesAreSteps(ferry: [String: String], aboard: String, seconds: Double) throws {
        let grid = Self.grid(ferry: ferry)
        let map = RoadMap(graph: try grid.graph(for: BicycleProfile()))
        let places = grid.positions
        for (from, to, names) in [("1", "2", ["ab", "bc", "cd", "cd"]), ("2", "1", ["cd", "bc", "ab", "ab"])] {
            let route = try map.route(from: places[Character(from)]!, to: places[Character(to)]!)
            let steps = route.legs.flatMap(\.steps)
            #expect(steps.map(\.name) == names, "\(from)→\(to)")
            #expect(steps.map(\.mode.rawValue) == ["cycling", aboard, "cycling", "cycling"], "\(from)→\(to)")
            #expect(steps.map(\.maneuver.type.rawValue) == ["depart", "notification", "notification", "arrive"])
            #expect(abs(route.duration - seconds) < 1, "\(route.duration)")
        }
    }
}
