import Foundation
import Testing
import WaymarkGeo
import WaymarkGraph
import WaymarkPreparation
import WaymarkOSM
import WaymarkRouting
import WaymarkSupport

/// OSRM's route options on a hand-drawn map, each with the answer osrm-routed 26.10 (car.lua,
/// CH) gives on the same map: the maneuvers ("type modifier") and the route's length.
@Suite struct RouteOptionsTests {
    // 1 and 4 lie 20 m north of the two-way Long Street, 2 and 3 40 m south of it.
    static let grid = GridMap(picture: """
            1       4
        a-------b-------c
                |
            2   |   3
                d
        """, ways: [("abc", ["name": "Long Street"]), ("bd", ["name": "Side Street"])], spacing: 20)

    let map: RoadMap
    let places = RouteOptionsTests.grid.positions

    init() throws {
        map = RoadMap(graph: try Self.grid.graph(), method: .hierarchy)
    }

    /// The maneuvers of every leg, and the length in metres, rounded.
    func drive(_ points: String, _ change: (inout RouteOptions) -> Void = { _ in }) throws -> (String, Int, Int) {
        var options = RouteOptions()
        change(&options)
        let route = try map.routes(points.map { places[$0]! }, options: options)[0]
        let turns = route.legs.flatMap(\.steps).map { step in
            [step.maneuver.type.rawValue, step.maneuver.modifier?.rawValue ?? ""].filter { !$0.isEmpty }
                .joined(separator: " ")
        }
        return (turns.joined(separator: ","), route.legs.count, Int((route.distance / 10).rounded()) * 10)
    }

    /// `approaches=curb`: a waypoint is reached and left with it on the right (right-hand
    /// traffic); `opposite` with it on the left. OSRM: 482 m with two U-turns; 161 m.
    @Test func approaches() throws {
        #expect(try drive("14") { $0.approaches = [.curb, .curb] }
                == ("depart right,continue uturn,continue uturn,arrive right", 1, 480))
        #expect(try drive("14") { $0.approaches = [.opposite, nil] } == ("depart left,arrive left", 1, 160))
        #expect(try drive("23") { $0.approaches = [.curb, .curb] } == ("depart right,arrive right", 1, 160))
    }

    /// `bearings`: the direction a waypoint is left or reached in, within the range; a bearing
    /// no road nearby has moves the waypoint to one that has it (bearing 0: Side Street).
    @Test func bearings() throws {
        #expect(try drive("14") { $0.bearings = [(270, 20), nil] }
                == ("depart right,continue uturn,arrive left", 1, 320))
        #expect(try drive("14") { $0.bearings = [(90, 20), (270, 20)] }
                == ("depart left,continue uturn,arrive right", 1, 320))
        #expect(try drive("14") { $0.bearings = [(0, 20), nil] } == ("depart straight,arrive left", 1, 80))
        let snapped = try map.routes([places["1"]!, places["4"]!],
                                     options: { var o = RouteOptions(); o.bearings = [(0, 20), nil]; return o }())
        #expect(map.roadName(of: snapped[0].waypoints[0]) == "Side Street")
    }

    /// `continue_straight`: true (the car default) carries on through a via point in the direction
    /// it arrived; false may turn round there. OSRM: 482 m, turning round at the end of the road
    /// before 4 (after it would be as long), and 321 m.
    @Test func continueStraight() throws {
        let straight = try drive("142")
        #expect(straight == ("depart left,continue uturn,arrive right,depart right,arrive left", 2, 480))
        #expect(try drive("142") { $0.continueStraight = false }
                == ("depart left,arrive left,depart right,arrive left", 2, 320))
    }

    /// `waypoints`: a coordinate not listed is passed through without a leg of its own. OSRM:
    /// one leg of 482 m.
    @Test func silentViaPoints() throws {
        #expect(try drive("142") { $0.legEnds = [0, 2] } == ("depart left,continue uturn,arrive left", 1, 480))
        #expect(throws: RouteError.self) { try drive("142") { $0.legEnds = [1, 2] } }
        #expect(throws: RouteError.self) { try drive("142") { $0.legEnds = [0, 2, 1, 2] } }
    }

    /// A hint snaps its waypoint where it was snapped before; one made for another coordinate,
    /// or damaged, is ignored.
    @Test func hints() throws {
        let router = map.makeRouter()
        let a = places["1"]!, b = places["4"]!
        let plain = try router.routes([a, b], options: RouteOptions())[0]
        let elsewhere = try #require(map.nearest(places["3"]!))
        var options = RouteOptions()
        options.hints = [router.hint(for: elsewhere, input: a), nil]
        #expect(try router.routes([a, b], options: options)[0].waypoints[0] == elsewhere)
        options.hints = [router.hint(for: elsewhere, input: b), nil]
        #expect(try router.routes([a, b], options: options)[0].waypoints == plain.waypoints)
        let hint = router.hint(for: elsewhere, input: a)
        #expect(hint.count == 112 && hint.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
        options.hints = [String(hint.dropLast(4)) + "AAAA", nil]
        #expect(try router.routes([a, b], options: options)[0].waypoints == plain.waypoints)
    }

    /// Annotations: one value per stretch of the leg's line, the OSM ids of its points, the
    /// stretches adding up to the leg (turns aside).
    @Test func annotations() throws {
        var options = RouteOptions()
        options.annotations = true
        let route = try map.routes([places["1"]!, places["d"]!], options: options)[0]
        let annotation = try #require(route.legs[0].annotation)
        let id = { (ch: Character) in Int64(Self.grid.nodeID(ch)) }
        // From the middle of a–b (its piece leaves a) to b, then down to d.
        #expect(annotation.nodes == [id("a"), id("b"), id("d")])
        #expect(annotation.distance.count == 2 && annotation.duration.count == 2 && annotation.weight.count == 2)
        #expect(abs(annotation.distance.reduce(0, +) - route.legs[0].distance) < 1)
        #expect(annotation.speed.allSatisfy { $0 > 0 && $0 < 30 })
        #expect(try map.route(from: places["1"]!, to: places["d"]!).legs[0].annotation == nil)
    }

    /// Alternatives: two roads of one length between the same two ends. OSRM (CH) gives both,
    /// South first, North as the alternative, each 602 m.
    @Test func alternatives() throws {
        let grid = GridMap(picture: """
                b     c
            x 1 a     d 2 y
                e     f
            """, ways: [("xa", ["name": "West"]), ("abcd", ["name": "North"]), ("aefd", ["name": "South"]),
                        ("dy", ["name": "East"])], spacing: 50)
        let map = RoadMap(graph: try grid.graph(), method: .hierarchy)
        var options = RouteOptions()
        options.alternatives = 3
        let routes = try map.routes([grid.positions["1"]!, grid.positions["2"]!], options: options)
        let names = routes.map { $0.legs[0].steps.map(\.name) }
        #expect(names == [["West", "South", "East", "East"], ["West", "North", "East", "East"]])
        #expect(routes.allSatisfy { abs($0.distance - 602) < 1 } && routes[0].waypoints == routes[1].waypoints,
                "\(routes.map(\.distance))")
        // None asked for, none given; none on a route with a via point (as OSRM).
        #expect(try map.routes([grid.positions["1"]!, grid.positions["2"]!], options: RouteOptions()).count == 1)
        #expect(try map.routes([grid.positions["1"]!, grid.positions["x"]!, grid.positions["2"]!],
                               options: options).count == 1)
    }

    /// Without steps, a leg's line, length, time and weight are the ones told with steps, on every
    /// pair of 40 random points of the sample town (fixed seed), with via points and alternatives.
    @Test func legsWithoutStepsKeepTheirLine() throws {
        let map = RoadMap(graph: try OSMGraphLoader.build(path: packageRoot() + "/Data/sample-town.osm"),
                          method: .hierarchy)
        var rng = SplitMix64(seed: 47)
        let points = (0..<40).map { _ in
            Coordinate(latitude: rng.uniform(52.302, 52.316), longitude: rng.uniform(-2.605, -2.57))
        }
        for k in stride(from: 0, to: points.count - 2, by: 3) {
            var told = RouteOptions(), plain = RouteOptions()
            (told.alternatives, plain.alternatives) = (k % 2 == 0 ? (2, 2) : (0, 0))
            plain.steps = false
            let waypoints = k % 2 == 0 ? [points[k], points[k + 1]] : [points[k], points[k + 1], points[k + 2]]
            let a = try map.routes(waypoints, options: told), b = try map.routes(waypoints, options: plain)
            #expect(a.count == b.count)
            for (x, y) in zip(a, b) {
                // (The lengths summed step by step or at once: the same to rounding.)
                #expect(x.geometry == y.geometry)
                #expect(abs(x.distance - y.distance) < 1e-6 && x.duration == y.duration && x.weight == y.weight)
                #expect(zip(x.legs, y.legs).allSatisfy {
                    abs($0.distance - $1.distance) < 1e-6 && $0.duration == $1.duration
                })
                #expect(y.legs.allSatisfy { $0.steps.isEmpty && $0.summary.isEmpty })
            }
        }
    }

    /// Hints' URL-safe base64 against Foundation's encoder with '+' and '/' replaced, at every
    /// length modulo three (fixed seed).
    @Test func hintsAreBase64URL() {
        var rng = SplitMix64(seed: 64)
        for count in 0..<90 {
            let bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            let foundation = Data(bytes).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            #expect(Router.base64URL(bytes) == foundation)
        }
    }
}
