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

/// How routes are told, rule by rule, on small drawn maps after OSRM's guidance scenarios
/// (`features/guidance/*.feature`): each row gives the step names and maneuvers OSRM's tests
/// would write.
@Suite struct GuidanceTests {
    func check(_ grid: GridMap, _ rows: [(Character, Character, String, String)],
               sourceLocation: SourceLocation = #_sourceLocation) throws {
        let map = RoadMap(graph: try grid.graph(), method: .landmarks)
        for (from, to, route, turns) in rows {
            let got = try grid.directions(from, to, on: map)
            #expect(got.route == route, "\(from) → \(to)", sourceLocation: sourceLocation)
            #expect(got.turns == turns, "\(from) → \(to)", sourceLocation: sourceLocation)
        }
    }

    /// Step `k` of the route from `from` to `to` is told at vertex `vertex`.
    func expectStep(_ k: Int, from: Character, to: Character, at vertex: Character, on grid: GridMap,
                    sourceLocation: SourceLocation = #_sourceLocation) throws {
        let map = RoadMap(graph: try grid.graph(), method: .landmarks)
        let step = try map.route(from: grid.positions[from]!, to: grid.positions[to]!).legs[0].steps[k]
        #expect(step.maneuver.location.distance(to: grid.positions[vertex]!) < 1, sourceLocation: sourceLocation)
    }

    /// An intersection holds one list of roads; OSRM's `bearings` and `entry` read and write it.
    @Test func intersectionRoadsAsOSRMLists() {
        let here = Coordinate(latitude: 52, longitude: 13)
        var x = StepIntersection(location: here, bearings: [0, 90, 270], entry: [false, true, true],
                                 inIndex: 0, outIndex: 1)
        #expect(x.roads == [.init(bearing: 0, entry: false), .init(bearing: 90, entry: true),
                            .init(bearing: 270, entry: true)])
        #expect(x.bearings == [0, 90, 270] && x.entry == [false, true, true])
        x.bearings = [10, 100, 280, 300]
        #expect(x.entry == [false, true, true, true] && x.bearings == [10, 100, 280, 300])
        x.entry = [true, false]
        #expect(x.bearings == [10, 100] && x.entry == [true, false])
        #expect(x == StepIntersection(location: here,
                                      roads: [.init(bearing: 10, entry: true), .init(bearing: 100, entry: false)],
                                      inIndex: 0, outIndex: 1))
    }

    /// The roads held in the value (up to eight) or in an array (more, or a bearing too large for
    /// 16 bits) read, write and compare as an array of them does: random lists and writes,
    /// seed 43, against `[Road]`.
    @Test func intersectionRoadsAsAnArray() {
        var rng = SplitMix64(seed: 43)
        for _ in 0..<500 {
            let count = Int.random(in: 0...12, using: &rng)
            func road() -> StepIntersection.Road {
                let wide = Int.random(in: 0..<20, using: &rng) == 0
                return .init(bearing: wide ? Int.random(in: -70_000...70_000, using: &rng)
                                           : Int.random(in: 0..<360, using: &rng),
                             entry: Bool.random(using: &rng))
            }
            var expected = (0..<count).map { _ in road() }
            var roads = IntersectionRoads(expected)
            #expect(Array(roads) == expected && roads.count == expected.count)
            if count > 0 {
                let i = Int.random(in: 0..<count, using: &rng), changed = road()
                expected[i] = changed
                roads[i] = changed
            }
            let extra = road()
            expected.append(extra)
            roads.append(extra)
            #expect(Array(roads) == expected)
            #expect(roads == IntersectionRoads(expected))
            if count > 0 {
                var other = expected
                other[0].entry.toggle()
                #expect(roads != IntersectionRoads(other))
            }
        }
    }

    static let roundaboutPicture = """
            a
            b
        d c   g h
            e
            f
        """

    static func roundaboutWays(ring: [String: String] = [:]) -> [(nodes: String, tags: [String: String])] {
        [("ab", ["highway": "primary"]), ("cd", ["highway": "primary"]), ("ef", ["highway": "primary"]),
         ("gh", ["highway": "primary"]),
         ("bcegb", ["highway": "primary", "junction": "roundabout"].merging(ring) { $1 })]
    }

    /// A roundabout: the exit counted, the step named after the road it leaves on, then OSRM's
    /// `exit roundabout` step.
    @Test func roundaboutExits() throws {
        var ways = Self.roundaboutWays()
        for i in 0..<4 { ways[i].tags["name"] = ways[i].nodes }
        let grid = GridMap(picture: Self.roundaboutPicture, ways: ways, spacing: 20)
        try check(grid, [
            ("a", "d", "ab,cd,cd,cd", "depart,roundabout-exit-1,exit roundabout slight right,arrive"),
            ("a", "f", "ab,ef,ef,ef", "depart,roundabout-exit-2,exit roundabout right,arrive"),
            ("a", "h", "ab,gh,gh,gh", "depart,roundabout-exit-3,exit roundabout slight right,arrive"),
            ("d", "h", "cd,gh,gh,gh", "depart,roundabout-exit-2,exit roundabout slight right,arrive"),
        ])
        let map = RoadMap(graph: try grid.graph(), method: .landmarks)
        let route = try map.route(from: grid.positions["a"]!, to: grid.positions["f"]!)
        #expect(route.legs[0].steps[1].instruction == "At the roundabout, take the 2nd exit onto ef")
    }

    /// A large roundabout with a name of its own is a rotary, announced by that name.
    @Test func rotaryByName() throws {
        let grid = GridMap(picture: Self.roundaboutPicture,
                           ways: Self.roundaboutWays(ring: ["name": "Praça da Boavista"]),
                           spacing: 30, namesFromNodes: true)
        try check(grid, [
            ("a", "d", "ab,cd,cd,cd", "depart,Praça da Boavista-exit-1,exit rotary slight right,arrive"),
            ("a", "h", "ab,gh,gh,gh", "depart,Praça da Boavista-exit-3,exit rotary slight right,arrive"),
        ])
        let map = RoadMap(graph: try grid.graph(), method: .landmarks)
        let route = try map.route(from: grid.positions["a"]!, to: grid.positions["h"]!)
        #expect(route.legs[0].steps[1].instruction == "At Praça da Boavista, take the 3rd exit onto gh")
    }

    /// OSRM's `assignRelativeLocations`: the depart and arrive modifiers tell on which side of the
    /// road the waypoint lies (straight: within 45° of the way on), only 5 to 300 m from the road.
    /// OSRM's answers: 1 → 4 depart left, arrive right; 3 → 2 right, left; 6 (on the road) → 5
    /// (beyond the road's end) no depart modifier, arrive straight.
    @Test func departAndArriveSides() throws {
        let grid = GridMap(picture: """
                1     2
            a---6-----------b   5
                3     4
            """, ways: [("ab", [:])], spacing: 20)
        let map = RoadMap(graph: try grid.graph(), method: .landmarks)
        for (from, to, depart, arrive) in [("1", "4", "left", "right"), ("3", "2", "right", "left"),
                                           ("6", "5", "", "straight")] {
            let route = try map.route(from: grid.positions[Character(from)]!, to: grid.positions[Character(to)]!)
            let steps = route.legs[0].steps
            #expect(steps.first?.maneuver.modifier?.rawValue ?? "" == depart, "\(from) → \(to) depart")
            #expect(steps.last?.maneuver.modifier?.rawValue ?? "" == arrive, "\(from) → \(to) arrive")
        }
    }

    /// OSRM counts a ring vertex as an exit passed only where a road it does not ignore leaves
    /// (a service road does not count, unless the ring is one); the exit taken always counts.
    /// OSRM's answers with `gh` a service road: d → a the 2nd exit, f → a the 1st, a → h the 3rd.
    @Test func serviceExitsAreNotCounted() throws {
        var ways = Self.roundaboutWays()
        for i in 0..<4 { ways[i].tags["name"] = ways[i].nodes }
        ways[3].tags["highway"] = "service"
        let grid = GridMap(picture: Self.roundaboutPicture, ways: ways, spacing: 20)
        try check(grid, [
            ("d", "a", "cd,ab,ab,ab", "depart,roundabout-exit-2,exit roundabout right,arrive"),
            ("f", "a", "ef,ab,ab,ab", "depart,roundabout-exit-1,exit roundabout right,arrive"),
            ("a", "h", "ab,gh,gh,gh", "depart,roundabout-exit-3,exit roundabout slight right,arrive"),
        ])
    }

    /// A route that starts on a roundabout tells the ring in its depart step, then one exit step
    /// numbered from where it started; one that ends on the ring is a `roundabout` step without an
    /// exit. OSRM's answers (`gh` a service road): from between b and c to f, `exit roundabout
    /// right` exit 2; to h, `exit roundabout slight right` exit 3; from a to between e and g,
    /// `roundabout right`; from d to between g and b, `roundabout slight right`.
    @Test func startingAndEndingOnTheRing() throws {
        var ways = Self.roundaboutWays()
        for i in 0..<4 { ways[i].tags["name"] = ways[i].nodes }
        ways[3].tags["highway"] = "service"
        let grid = GridMap(picture: Self.roundaboutPicture, ways: ways, spacing: 20)
        let map = RoadMap(graph: try grid.graph(), method: .landmarks)
        let p = grid.positions
        func between(_ a: Character, _ b: Character) -> Coordinate {
            Coordinate(latitude: (p[a]!.latitude + p[b]!.latitude) / 2,
                       longitude: (p[a]!.longitude + p[b]!.longitude) / 2)
        }
        func told(_ from: Coordinate, _ to: Coordinate) throws -> [String] {
            try map.route(from: from, to: to).legs[0].steps.map { step in
                [step.maneuver.type.rawValue, step.maneuver.modifier?.rawValue, step.maneuver.exit.map { "exit \($0)" }]
                    .compactMap { $0 }.joined(separator: " ")
            }
        }
        #expect(try told(between("b", "c"), p["f"]!) == ["depart", "exit roundabout right exit 2", "arrive"])
        #expect(try told(between("b", "c"), p["h"]!) == ["depart", "exit roundabout slight right exit 3", "arrive"])
        #expect(try told(p["a"]!, between("e", "g")) == ["depart", "roundabout right", "arrive"])
        #expect(try told(p["d"]!, between("g", "b")) == ["depart", "roundabout slight right", "arrive"])
    }

    /// OSRM's `fromMotorway`: a trunk that ends in the one ramp it may go on by (another ramp
    /// only joins there) is no turn at all, and the junction is not listed. OSRM's answer: depart,
    /// arrive, the depart step with one intersection (was "Take the ramp" here).
    @Test func motorwayEndingInARampIsNoTurn() throws {
        let grid = GridMap(picture: """
                      d

            a----b----c
            """, ways: [("ab", ["highway": "trunk", "ref": "CG-2"]),
                        ("bc", ["highway": "trunk_link", "oneway": "yes", "ref": "CG-2"]),
                        ("db", ["highway": "trunk_link", "oneway": "yes", "ref": "CG-2"])], spacing: 20)
        try check(grid, [("a", "c", ",", "depart,arrive")])
        let map = RoadMap(graph: try grid.graph(), method: .landmarks)
        let route = try map.route(from: grid.positions["a"]!, to: grid.positions["c"]!)
        #expect(route.legs[0].steps[0].intersections.count == 1)
    }

    /// OSRM measures a road's bearing along its compressed edge, across vertices where only two
    /// ways of one kind meet end to end: a curving road into a junction, drawn as one way or as two
    /// (cut 25 m before the junction, as the CG-2 entry at 42.52527,1.56447 in Andorra), is told the
    /// same, also when the two ways have different lane counts (OSRM's compressor does not compare
    /// lanes; the CG-1 entry at 42.47646,1.49074 is cut where 1 lane becomes 2). OSRM, every way:
    /// on to the far road without a step, a sharp left to the other.
    @Test func aRoadCutIntoTwoWaysIsMeasuredAsOne() throws {
        // Points of the curving road back from the junction J: metres and bearing from J.
        let curve: [(Double, Double)] = [(7.1, 116), (14.4, 110), (19.5, 103), (24.6, 95), (32, 89), (40, 84),
                                         (50, 80), (62, 77)]
        let j = Coordinate(latitude: 42.5, longitude: 1.5)
        func at(_ metres: Double, _ bearing: Double) -> Coordinate {
            let r = bearing * .pi / 180, north = metres * cos(r), east = metres * sin(r)
            return Coordinate(latitude: j.latitude + north / 111_195,
                              longitude: j.longitude + east / (111_195 * cos(j.latitude * .pi / 180)))
        }
        let points = [at(300, 300), at(200, 160)] + curve.map { at($0.0, $0.1) }
        func xml(cutAt cut: Int?, firstLanes: Int = 2) -> String {
            var text = "<?xml version=\"1.0\"?>\n<osm version=\"0.6\">\n<node id=\"1\" lat=\"\(j.latitude)\" "
                + "lon=\"\(j.longitude)\"/>\n"
            for (k, c) in points.enumerated() {
                text += "<node id=\"\(k + 2)\" lat=\"\(c.latitude)\" lon=\"\(c.longitude)\"/>\n"
            }
            func tags(lanes: Int) -> String {
                "<tag k=\"highway\" v=\"trunk\"/><tag k=\"lanes\" v=\"\(lanes)\"/><tag k=\"oneway\" v=\"yes\"/>"
            }
            // The curve from its far end (node 9) to the junction (node 1), in one way or two.
            let entry = Array((4...points.count + 1).reversed()) + [1]
            let pieces = cut.map { [Array(entry[...$0]), Array(entry[$0...])] } ?? [entry]
            for (k, piece) in pieces.enumerated() {
                text += "<way id=\"\(10 + k)\">" + piece.map { "<nd ref=\"\($0)\"/>" }.joined()
                    + tags(lanes: k == 0 ? firstLanes : 2) + "</way>\n"
            }
            for (k, far) in [2, 3].enumerated() {
                text += "<way id=\"\(20 + k)\"><nd ref=\"1\"/><nd ref=\"\(far)\"/><tag k=\"highway\" "
                    + "v=\"trunk\"/><tag k=\"lanes\" v=\"2\"/></way>\n"
            }
            return text + "</osm>\n"
        }
        func told(_ map: RoadMap, to end: Coordinate) throws -> [String] {
            try map.route(from: points.last!, to: end).legs[0].steps.map {
                "\($0.maneuver.type.rawValue) \($0.maneuver.modifier?.rawValue ?? "")"
            }
        }
        let whole = RoadMap(graph: try OSMGraphLoader.build(xml: xml(cutAt: nil)), method: .landmarks)
        for firstLanes in [2, 1] {
            let cut = RoadMap(graph: try OSMGraphLoader.build(xml: xml(cutAt: 4, firstLanes: firstLanes)),
                              method: .landmarks)
            for end in points.prefix(2) {
                #expect(try told(cut, to: end) == told(whole, to: end))
            }
            #expect(try told(cut, to: points[0]) == ["depart ", "arrive "])
            #expect(try told(cut, to: points[1]) == ["depart ", "turn sharp left", "arrive "])
        }
    }

    /// A small unnamed roundabout with four simple arms reads as a turn: one step, no exit step.
    @Test func smallRoundaboutIsATurn() throws {
        var ways = Self.roundaboutWays()
        ways[4].tags["name"] = ""
        let grid = GridMap(picture: Self.roundaboutPicture,
                           ways: ways.map { ($0.nodes, $0.tags.filter { !$0.value.isEmpty }) },
                           spacing: 3, namesFromNodes: false)
        let map = RoadMap(graph: try grid.graph(), method: .landmarks)
        for (to, modifier, exit) in [("d", "right", 1), ("f", "straight", 2), ("h", "left", 3)] {
            let route = try map.route(from: grid.positions["a"]!, to: grid.positions[Character(to)]!)
            let types = route.legs[0].steps.map {
                "\($0.maneuver.type.rawValue) \($0.maneuver.modifier?.rawValue ?? "")"
            }
            #expect(types == ["depart ", "roundabout turn \(modifier)",
                              "arrive \(route.legs[0].steps.last!.maneuver.modifier?.rawValue ?? "")"], "a → \(to)")
            #expect(route.legs[0].steps[1].maneuver.exit == exit)
        }
    }

    /// OSRM's `qualifiesAsRoundaboutIntersection`: a small ring's exits, sorted by bearing, need
    /// only be more than 40° apart (here 45°: north and north-east) for a roundabout turn.
    @Test func smallRoundaboutWithCloseExitsIsATurn() throws {
        let grid = GridMap(picture: """
            a   h
            b
        d c   g
            e
            f
        """, ways: [("ab", ["highway": "primary"]), ("cd", ["highway": "primary"]), ("ef", ["highway": "primary"]),
                    ("gh", ["highway": "primary"]),
                    ("bcegb", ["highway": "primary", "junction": "roundabout"])], spacing: 3)
        let map = RoadMap(graph: try grid.graph(), method: .landmarks)
        let route = try map.route(from: grid.positions["a"]!, to: grid.positions["d"]!)
        #expect(route.legs[0].steps.map(\.maneuver.type) == [.depart, .roundaboutTurn, .arrive])
    }

    /// Arriving head-on at a T junction: the end of the road, left or right, when a junction was
    /// passed on the way there; straight after the step before, OSRM tells it as a plain turn.
    @Test func endOfRoad() throws {
        let grid = GridMap(picture: """
            a   b   c
                |
                e   f
                |
                d
            """, ways: [("abc", [:]), ("deb", [:]), ("ef", [:])], namesFromNodes: true)
        try check(grid, [("d", "a", "deb,abc,abc", "depart,end of road left,arrive"),
                         ("d", "c", "deb,abc,abc", "depart,end of road right,arrive"),
                         ("e", "a", "deb,abc,abc", "depart,turn left,arrive"),
                         ("f", "c", "ef,deb,abc,abc", "depart,turn right,turn right,arrive")])
    }

    /// At a crossroads, straight on along the same road says nothing; a turn says which way.
    @Test func crossroads() throws {
        let grid = GridMap(picture: """
                e
                |
            a - b - c
                |
                d
            """, ways: [("abc", [:]), ("ebd", [:])], namesFromNodes: true)
        try check(grid, [("a", "c", "abc,abc", "depart,arrive"),
                         ("a", "e", "abc,ebd,ebd", "depart,turn left,arrive"),
                         ("a", "d", "abc,ebd,ebd", "depart,turn right,arrive")])
    }

    /// A road that bends, with a minor road joining at the bend: no instruction.
    @Test func obviousBend() throws {
        let grid = GridMap(picture: """
                        c
                       /
            a - - - - b
                      |
                      d
            """, ways: [("abc", ["highway": "primary"]), ("bd", ["highway": "service"])], namesFromNodes: true)
        try check(grid, [("a", "c", "abc,abc", "depart,arrive"),
                         ("a", "d", "abc,bd,bd", "depart,turn right,arrive")])
    }

    /// Name changes: a ref-only stretch, a connecting word, a compass suffix are the same road;
    /// a different name is a new name.
    @Test func nameChanges() throws {
        let grid = GridMap(picture: """
            a   b   c   d   e       f   g
            """, ways: [("ab", ["name": "Via Norte", "ref": "EN 14"]), ("bc", ["ref": "EN 14"]),
                        ("cd", ["name": "Via Norte", "ref": "EN 14"]),
                        ("de", ["name": "Via Norte North", "ref": "EN 14"]),
                        ("ef", ["name": "Rua Nova"]), ("fg", ["name": "Rua Velha"])])
        // A name read for under 105 m is not announced (OSRM's short name segments): e → f is
        // 160 m, f → g 80 m.
        try check(grid, [("a", "e", "Via Norte,Via Norte", "depart,arrive"),
                         ("a", "f", "Via Norte,Rua Nova,Rua Nova", "depart,new name straight,arrive"),
                         ("a", "g", "Via Norte,Rua Nova,Rua Nova", "depart,new name straight,arrive")])
        // OSRM compares the text: a connecting word more or less is another name.
        #expect(NameChange.mustAnnounce(fromName: "Avenida de Fernão Magalhães", fromRef: "",
                                        toName: "Avenida Fernão Magalhães", toRef: ""))
        #expect(!NameChange.mustAnnounce(fromName: "Via Norte", fromRef: "EN 14", toName: "", toRef: "EN 14"))
        #expect(NameChange.mustAnnounce(fromName: "Via Norte", fromRef: "", toName: "", toRef: "EN 14"))
        #expect(NameChange.mustAnnounce(fromName: "", fromRef: "", toName: "Rua Nova", toRef: ""))
        #expect(!NameChange.mustAnnounce(fromName: "Main Street", fromRef: "", toName: "Main Street West", toRef: ""))
        #expect(NameChange.mustAnnounce(fromName: "", fromRef: "A 1", toName: "", toRef: "A 3"))
        // Refs as text (OSRM: one contains the other, or not).
        #expect(NameChange.mustAnnounce(fromName: "", fromRef: "IP1; A20", toName: "", toRef: "IP 1; A 20"))
        #expect(!NameChange.mustAnnounce(fromName: "", fromRef: "IP1; A20", toName: "", toRef: "A20"))
        #expect(NameChange.mustAnnounce(fromName: "", fromRef: "IP1", toName: "", toRef: "A20"))
    }

    /// Two ways ahead close together, neither obvious: a fork.
    @Test func fork() throws {
        let grid = GridMap(picture: """
                            c
            a - - - b
                            d
            """, ways: [("ab", [:]), ("bc", [:]), ("bd", [:])], spacing: 20, namesFromNodes: true)
        try check(grid, [("a", "c", "ab,bc,bc", "depart,fork slight left,arrive"),
                         ("a", "d", "ab,bd,bd", "depart,fork slight right,arrive")])
    }

    /// OSRM's `findFork`: two branches 34° either side of straight on (67° apart) still fork, set
    /// apart from the road behind; where one branch is a minor road (a service road) beside a
    /// residential one, the residential branch goes on unsaid and the service road is a slight turn
    /// (OSRM's `assignFork`).
    @Test func forksAsOSRMFindsThem() throws {
        let picture = """
                                  c



            a - - - - - - - b



                                  d
            """
        let even = GridMap(picture: picture, ways: [("ab", [:]), ("bc", [:]), ("bd", [:])])
        try check(even,
                  [("a", "c", ",,", "depart,fork slight left,arrive"),
                   ("a", "d", ",,", "depart,fork slight right,arrive")])
        let minor = GridMap(picture: picture,
                            ways: [("ab", ["highway": "service"]), ("bc", [:]), ("bd", ["highway": "service"])])
        try check(minor, [("a", "c", ",", "depart,arrive"), ("a", "d", ",,", "depart,turn slight right,arrive")])
    }

    /// Leaving a motorway by a slip road, and joining one.
    @Test func rampsAndMerges() throws {
        let grid = GridMap(picture: """
            a - - - b - - - c - - - - - - - d
                              e
                                    f
            """, ways: [("abcd", ["highway": "motorway", "oneway": "yes", "ref": "A 1"]),
                        ("bef", ["highway": "motorway_link", "oneway": "yes"])], namesFromNodes: false)
        let map = RoadMap(graph: try grid.graph(), method: .landmarks)
        let off = try map.route(from: grid.positions["a"]!, to: grid.positions["f"]!)
        #expect(off.legs[0].steps.map(\.maneuver.type) == [.depart, .offRamp, .arrive])
        #expect(off.legs[0].steps[1].maneuver.modifier == .slightRight)
        #expect(off.legs[0].steps[1].instruction == "Take the ramp")  // the side traffic keeps to goes unsaid

        let join = GridMap(picture: """
            a - - - b - - - - - - - c
                  d
            e
            """, ways: [("abc", ["highway": "motorway", "oneway": "yes", "ref": "A 1"]),
                        ("edb", ["highway": "motorway_link", "oneway": "yes"])])
        let joinMap = RoadMap(graph: try join.graph(), method: .landmarks)
        let merge = try joinMap.route(from: join.positions["e"]!, to: join.positions["c"]!)
        #expect(merge.legs[0].steps.map(\.maneuver.type) == [.depart, .merge, .arrive])
        #expect(merge.legs[0].steps[1].instruction.hasPrefix("Merge"))
    }

    /// Across a dual carriageway's median by a short link: one U-turn, not two right turns.
    @Test func uTurnAcrossAMedian() throws {
        let grid = GridMap(picture: """
            a - - - b - - - c
                    |
            f - - - e - - - d
            """, ways: [("abc", ["name": "Avenida", "oneway": "yes"]), ("be", ["name": "", "oneway": "yes"]),
                        ("def", ["name": "Avenida", "oneway": "yes"])], spacing: 10)
        try check(grid, [("a", "f", "Avenida,Avenida,Avenida", "depart,continue uturn,arrive")])
    }

    /// Arrivals: the side of the road, and via points numbered.
    @Test func arrivals() throws {
        let grid = GridMap(picture: """
            a - - - - - - - - - b
                    1       2
            """, ways: [("ab", ["name": "Long Road"])], spacing: 10)
        let map = RoadMap(graph: try grid.graph(), method: .landmarks)
        let route = try map.route(from: grid.positions["a"]!, to: grid.positions["2"]!, via: [grid.positions["1"]!])
        #expect(route.legs[0].steps.last?.instruction == "You have arrived at your 1st destination, on the right")
        #expect(route.legs[1].steps.last?.instruction == "You have arrived at your destination, on the right")
        #expect(route.legs[0].steps[0].instruction == "Head east on Long Road")
    }

    /// Signs: the ramp's destinations (`destination:ref: destination`) and exit number
    /// (`junction:ref`) go on the step and into its words; the plain motorway has none.
    @Test func signsOnARamp() throws {
        let grid = GridMap(picture: """
            a - - - b - - - c - - - - - - - d
                              e
                                    f
            """, ways: [("abcd", ["highway": "motorway", "oneway": "yes", "ref": "A 1"]),
                        ("bef", ["highway": "motorway_link", "oneway": "yes", "destination": "Braga;Guimarães",
                                 "destination:ref": "A 3", "junction:ref": "12"])], namesFromNodes: false)
        let map = RoadMap(graph: try grid.graph(), method: .landmarks)
        let off = try map.route(from: grid.positions["a"]!, to: grid.positions["f"]!)
        let step = off.legs[0].steps[1]
        #expect(step.destinations == "A 3: Braga, Guimarães")
        #expect(step.exits == "12")
        #expect(step.instruction == "Take exit 12 towards A 3: Braga")
        #expect(off.legs[0].steps[0].destinations.isEmpty)

        // Without the exit number: "towards"; destinations by direction, only on oneways.
        let plain = GridMap(picture: """
            a - - - b - - - c - - - - - - - d
                              e
                                    f
            """, ways: [("abcd", ["highway": "motorway", "oneway": "yes"]),
                        (
                            "bef",
                            [
                                "highway": "motorway_link", "oneway": "yes", "destination:forward": "Porto",
                                "destination:backward": "Lisboa"
                            ]
                        )
                    ],
            namesFromNodes: false)
        let plainRoute = try RoadMap(graph: try plain.graph(), method: .landmarks).route(from: plain.positions["a"]!,
            to: plain.positions["f"]!)
        #expect(plainRoute.legs[0].steps[1].instruction == "Take the ramp towards Porto")
    }

    /// The car profile keeps signs as OSRM's: destinations on oneways only, in the driven
    /// direction; `ref` before names; `destination:street` when neither; turn lanes per direction.
    @Test func signsInTheProfile() throws {
        let profile = CarProfile()
        let oneway = try #require(profile.way(["highway": "primary", "oneway": "yes", "destination": "Braga",
                                               "destination:ref": "A 3",
                                               "turn:lanes": "left|through"]))
        #expect(oneway.destinationsForward == "A 3: Braga" && oneway.destinationsBackward.isEmpty)
        #expect(oneway.turnLanesForward == "left|through" && oneway.turnLanesBackward.isEmpty)
        let reverse = try #require(profile.way(["highway": "primary", "oneway": "-1",
                                                "destination:street": "Rua Nova"]))
        #expect(reverse.destinationsBackward == "Rua Nova" && reverse.destinationsForward.isEmpty)
        let twoWay = try #require(profile.way(["highway": "primary", "destination": "Braga",
                                               "turn:lanes:forward": "left|through",
                                               "turn:lanes:backward": "through|right", "junction:ref": "3;4"]))
        #expect(twoWay.destinationsForward.isEmpty && twoWay.destinationsBackward.isEmpty)
        #expect(twoWay.turnLanesForward == "left|through" && twoWay.turnLanesBackward == "through|right")
        #expect(twoWay.exits == "3; 4")
    }

    static let lanesPicture = """
                e
                |
        a - - - b - - - c
                |
                d
        """

    /// Turn lanes on the road arrived by: each lane valid where its arrow leads onto the road
    /// taken; going straight on from some lanes only is no step, the lanes listed on the junction's
    /// intersection of the step going on (OSRM has deprecated `use lane`).
    @Test func turnLanes() throws {
        let grid = GridMap(picture: Self.lanesPicture, ways: [
            ("ab", ["highway": "primary", "name": "Avenida", "turn:lanes:forward": "left|through|through;right"]),
            ("bc", ["highway": "primary", "name": "Avenida"]), ("ebd", ["highway": "primary", "name": "Rua"]),
        ], spacing: 30, namesFromNodes: false)
        let map = RoadMap(graph: try grid.graph(), method: .landmarks)
        func lanes(_ to: Character) throws -> [Lane] {
            let route = try map.route(from: grid.positions["a"]!, to: grid.positions[to]!)
            return try #require(route.legs[0].steps.dropFirst().first?.intersections.first?.lanes)
        }
        #expect(try lanes("e").map(\.valid) == [true, false, false])
        #expect(try lanes("e").first?.validIndication == "left")
        #expect(try lanes("d").map(\.valid) == [false, false, true])
        #expect(try lanes("d").last?.indications == ["straight", "right"])
        let straight = try map.route(from: grid.positions["a"]!, to: grid.positions["c"]!)
        #expect(straight.legs[0].steps.map(\.maneuver.type) == [.depart, .arrive])
        #expect(straight.legs[0].steps[0].intersections[1].lanes.map(\.valid) == [false, true, true])
        try check(grid, [("a", "e", "Avenida,Rua,Rua", "depart,turn left,arrive")])
    }

    /// Lane values as OSRM parses them: `|` between lanes, `;` between arrows, empty is none,
    /// unknown arrows dropped; the keep phrase from the runs of valid lanes.
    @Test func laneParsing() {
        #expect(TurnLanes.parse("left;through||reverse|bogus") == [[.left, .straight], [.none], [.uturn], [.none]])
        func lanes(_ valid: [Bool]) -> [Lane] { valid.map { Lane(indications: ["none"], valid: $0) } }
        #expect(TurnLanes.keep(lanes([true, false])) == "left")
        #expect(TurnLanes.keep(lanes([false, false, true])) == "right")
        #expect(TurnLanes.keep(lanes([false, true, false])) == "middle")
        #expect(TurnLanes.keep(lanes([true, false, true])) == "left or right")
        #expect(TurnLanes.keep(lanes([true, true])) == nil)
        #expect(TurnLanes.keep(lanes([false, true, false, true])) == nil)
    }

    /// Wording straight from the templates, step by step: road names with refs, signs, a language
    /// of one's own (an unknown token stays as written; a table it lacks words nothing rather
    /// than failing).
    @Test func templatesWordSteps() {
        func step(_ type: ManeuverType, _ modifier: ManeuverModifier?, name: String = "", ref: String = "",
                  highway: HighwayClass = .primary, destinations: String = "", exits: String = "") -> RouteStep {
            RouteStep(name: name, ref: ref, distance: 100, duration: 10, weight: 10, geometry: [],
                      maneuver: Maneuver(type: type, modifier: modifier,
                                         location: Coordinate(latitude: 0, longitude: 0),
                                         bearingBefore: 0, bearingAfter: 90, exit: nil),
                      instruction: "", highway: highway, destinations: destinations, exits: exits)
        }
        let english = InstructionTemplates.english
        func say(_ s: RouteStep) -> String { english.instruction(for: s, legIndex: 0, legCount: 1) }
        #expect(say(step(.turn, .left, name: "Rua Nova", ref: "N 12")) == "Turn left onto Rua Nova (N 12)")
        #expect(say(step(.turn, .left, name: "Via Norte (IC 1)", ref: "IC 1")) == "Turn left onto Via Norte (IC 1)")
        #expect(say(step(.turn, .right, name: "Via Norte",
                         ref: " IC 1; IC 23", highway: .motorway)) == "Turn right onto IC 1")
        #expect(say(step(.turn, .right, ref: "A 3;A 4")) == "Turn right onto A 3")
        #expect(say(step(.offRamp, .slightRight, highway: .motorwayLink, exits: "12;12A")) == "Take exit 12")
        #expect(
            say(step(.offRamp, .slightLeft, destinations: "A 3: Braga, Valença", exits: "12"))
                == "Take exit 12 on the left towards A 3: Braga")
        #expect(say(step(.depart, nil, name: "Long Road")) == "Head east on Long Road")
        #expect(say(step(.newName, .straight, name: "évora")) == "Continue onto évora")
        // Runs of spaces fold to one wherever they fall: before, inside and past the first sixteen
        // bytes a sentence is searched in at a time, and at its ends.
        for gap in [0, 3, 14, 15, 16, 17, 30, 31, 40] {
            let name = String(repeating: "x", count: gap) + "  " + "Rua  do   Ouro"
            #expect(say(step(.newName, .straight, name: name))
                        == "Continue onto " + (gap > 0 ? String(repeating: "x", count: gap) + " " : "") + "Rua do Ouro")
        }
        #expect(say(step(.turn, .left, name: " ")) == "Turn left onto") // (a name of one space, trimmed)
        #expect(say(step(.turn, .left, name: "Rua ")) == "Turn left onto Rua")
        // A motorway's ref read alone where it holds a number, as `Character.isNumber` finds one.
        for ref in ["A 28", "VCI", "N", "Ⅻ", "٣", "é9", "é"] {
            #expect(InstructionTemplates.hasNumber(ref) == ref.contains(where: \.isNumber))
        }
        #expect(say(step(.turn, .right, name: "Via de Cintura", ref: "VCI", highway: .motorway))
                    == "Turn right onto Via de Cintura")
        // The language's own entry point words the same.
        let s = step(.fork, .slightLeft, name: "Rua da Alegria")
        #expect(InstructionLanguage.english.instruction(for: s, legIndex: 0, legCount: 1) == say(s))

        var own = InstructionLanguage.english
        own.turns = ["turn": ["default": ["default": "{verb} {modifier}", "name": "{modifier}: {way_name}"]]]
        own.arrive = [:]
        let mine = InstructionTemplates(own)
        #expect(mine.instruction(for: step(.merge, .left, name: "Rua"), legIndex: 0, legCount: 1) == "Left: Rua")
        #expect(mine.instruction(for: step(.fork, .right), legIndex: 0, legCount: 1) == "{verb} right")
        #expect(mine.instruction(for: step(.arrive, .left), legIndex: 0, legCount: 1) == "")
        own.modifiers["left"] = "à gauche"
        #expect(InstructionTemplates(own).instruction(for: step(.turn, .left, name: "Rua"),
                                                      legIndex: 0, legCount: 1) == "À gauche: Rua")
    }

    /// The key name comparisons use: compass words peeled off both ends, spaces anywhere.
    @Test func nameKeys() {
        #expect(NameChange.core("  North Main Street West  ") == "Main Street")
        #expect(NameChange.core("East  West") == "East")
        #expect(NameChange.core("Rua Nova") == "Rua Nova")
        #expect(NameChange.core("N") == "N")
        #expect(NameChange.core("") == "")
    }

    /// The per-map bearings (measured once per segment end and shared by an edge and its twin)
    /// are exactly what measuring each edge at its own junction gives.
    @Test(arguments: [0, 3, 4]) func perMapBearingsAreTheMeasuredOnes(seed: Int) throws {
        // Seed 0: the sample town, whose roads have shapes; the others: random graphs.
        let graph = seed == 0 ? try OSMGraphLoader.build(path: packageRoot() + "/Data/sample-town.osm")
            : randomGraph(seed: UInt64(seed), nodes: 60, ways: 110)
        if seed == 0 { #expect((0..<graph.edgeCount).filter { graph.interiorPointCount(of: $0) > 2 }.count > 50) }
        let tables = GuidanceTables(graph: graph)
        // (No divided road's carriageways merge in these maps: every bearing is as measured.)
        #expect(tables.merged.arriving.isEmpty)
        var twoWay = 0, scratch: [PerceivedBearing.Point] = []
        for v in 0..<UInt32(graph.nodeCount) {
            for e in graph.edges(from: v) {
                let w = graph.edgeTarget[e]
                let leaving = graph.perceivedBearing(of: e, from: v, atTarget: false,
                                                     roadCount: graph.roadCount(at: v), scratch: &scratch)
                let arriving = graph.perceivedBearing(of: e, from: v, atTarget: true,
                                                      roadCount: graph.roadCount(at: w), scratch: &scratch)
                #expect(tables.departBearing[e] == Float(leaving))
                #expect(tables.arrivalBearing[e] == Float(arriving))
                if !graph.isReversed(e)
                    && graph.edges(from: w).contains(where: { graph.isUTurn(e, $0) }) { twoWay += 1 }
            }
        }
        #expect(twoWay > 10)
    }

    /// Every turn's verdict is made with the map (as OSRM decides each turn's instruction when it
    /// builds its graph) and is the one a route would otherwise work out at the junction: read
    /// back for driving from each edge onto each edge after it, a turn no route may take unknown.
    @Test(arguments: [0, 3, 4]) func storedVerdictsAreTheWorkedOutOnes(seed: Int) throws {
        let graph = seed == 0 ? try OSMGraphLoader.build(path: packageRoot() + "/Data/sample-town.osm")
            : randomGraph(seed: UInt64(seed), nodes: 60, ways: 110)
        let table = TransitionTable(graph: graph, turns: TurnGeometry(graph: graph), costs: TurnCosts(for: graph))
        let tables = GuidanceTables(graph: graph, transitions: table)
        #expect(tables.decisions.count == GuidanceTables.turnCount(graph))
        let classifier = TurnClassifier(graph: graph, names: tables.names)
        var kinds: [TurnVerdict: Int] = [:], storage: [JunctionRoad] = []
        for e in 0..<graph.edgeCount {
            for f in graph.edges(from: graph.edgeTarget[e]) {
                let junction = Junction(graph: graph, tables: tables, arrival: e, next: f, table: table,
                                        reusing: &storage)
                let code = tables.decision(arrival: e, next: f, graph: graph, table: table)
                guard let t = junction.taken, junction.roads[t].entry else {
                    #expect(code == TurnVerdict.unknown)
                    continue
                }
                let verdict = classifier.verdict(arrival: e, junction: junction)
                #expect(TurnVerdict(code: code) == verdict, "edge \(e) onto \(f)")
                kinds[verdict, default: 0] += 1
            }
        }
        // Not a map of one kind of turn: silent passages, and left and right turns.
        #expect(kinds[.decided(.silent), default: 0] > 10)
        #expect(
            kinds[.decided(.maneuver(.turn, .left)), default: 0] > 5
                && kinds[.decided(.maneuver(.turn, .right)), default: 0] > 5)
        // Every code stands for one verdict, and that verdict for the code.
        for code in 1..<UInt8(TurnVerdict.codeLimit) { #expect(TurnVerdict(code: code)?.code == code) }
        #expect(TurnVerdict(code: 0) == nil && TurnVerdict(code: UInt8(TurnVerdict.codeLimit)) == nil)
    }

    /// The junction records made with the verdicts are the junctions a route would otherwise work
    /// out: for driving from each edge onto each edge after it (and onto none), the same roads in
    /// the same order, bearings, angles and entries, and the same `intersections` entry; and each
    /// edge's segregated-crossing flag the classifier's answer. (Seed -1: a segregated crossing.)
    @Test(arguments: [0, 3, 4, -1]) func junctionRecordsAreTheWorkedOutJunctions(seed: Int) throws {
        let crossing = GridMap(picture: """
            a    b  c    d
                 |  |
                 e  f
            """, ways: [("abc", [:]), ("cd", [:]), ("eb", ["oneway": "yes"]), ("cf", ["oneway": "yes"]),
                        ("ef", [:])], spacing: 5)
        let graph = seed == 0 ? try OSMGraphLoader.build(path: packageRoot() + "/Data/sample-town.osm")
            : seed < 0 ? try crossing.graph() : randomGraph(seed: UInt64(seed), nodes: 60, ways: 110)
        let table = TransitionTable(graph: graph, turns: TurnGeometry(graph: graph), costs: TurnCosts(for: graph))
        let tables = GuidanceTables(graph: graph, transitions: table)
        let records = tables.records
        #expect(!records.start.isEmpty && GuidanceTables(graph: graph).records.start.isEmpty)
        var storage: [JunctionRoad] = [], liveStorage: [JunctionRoad] = [], recorded = 0, listedApart = 0
        for e in 0..<graph.edgeCount {
            let leaving = graph.edges(from: graph.edgeTarget[e])
            #expect(records.has(e) == !leaving.isEmpty, "edge \(e)")
            guard records.has(e) else { continue }
            recorded += 1
            for f in [-1] + Array(leaving) {
                let live = Junction(graph: graph, tables: tables, arrival: e, next: f, table: table,
                                    reusing: &liveStorage)
                let read = records.junction(arrival: e, next: f, vertex: graph.edgeTarget[e], reusing: &storage)
                #expect(read.vertex == live.vertex && read.taken == live.taken, "edge \(e) onto \(f)")
                #expect(read.roads.map(\.out) == live.roads.map(\.out) && read.roads.map(\.segment)
                    == live.roads.map(\.segment), "edge \(e) onto \(f)")
                #expect(read.roads.map(\.bearing) == live.roads.map(\.bearing) && read.roads.map(\.angle)
                    == live.roads.map(\.angle) && read.roads.map(\.entry) == live.roads.map(\.entry))
                let location = graph.coordinate(of: live.vertex)
                let listed = records.intersection(arrival: e, taken: read.taken, location: location, classes: [.toll])
                #expect(listed == live.intersection(location: location, classes: [.toll]), "edge \(e) onto \(f)")
                if listed.roads.map(\.bearing) != live.roads.map({ Int($0.bearing.rounded()) % 360 }).sorted() {
                    listedApart += 1
                }
            }
        }
        #expect(recorded > graph.edgeCount / 2)
        // Not only junctions whose listing is their rounded bearings in order: some in 15° steps.
        if seed == 0 { #expect(listedApart > 0) }
        // Each edge's segregated-crossing flag is the classifier's answer from its source.
        let classifier = TurnClassifier(graph: graph, names: tables.names)
        var segregated = 0
        for v in 0..<UInt32(graph.nodeCount) {
            for e in graph.edges(from: v) {
                let live = classifier.isSegregated(e, from: v)
                #expect((records.segregated[e] != 0) == live, "edge \(e)")
                if live { segregated += 1 }
            }
        }
        if seed < 0 { #expect(segregated > 0) }
    }

    /// Graph files keep turn verdicts as codes made of each maneuver's stored number, which must
    /// not follow the order the cases are declared in: codes pinned as files written so far hold them.
    @Test func storedVerdictCodesAreFixed() {
        #expect(TurnVerdict.decided(.silent).code == 1 && TurnVerdict.drivewayPassage.code == 2)
        #expect(TurnVerdict.decided(.maneuver(.depart, .uturn)).code == 3)
        #expect(TurnVerdict.decided(.maneuver(.turn, .left)).code == 3 + 2 * 8 + 6)
        #expect(TurnVerdict.decided(.maneuver(.roundabout, .slightRight)).code == 3 + 10 * 8 + 3)
        #expect(TurnVerdict.decided(.maneuver(.notification, .sharpLeft)).code == 3 + 16 * 8 + 7)
        #expect(Set(ManeuverType.allCases.map(\.storedNumber)) == Set(0..<ManeuverType.allCases.count))
        #expect(Set(ManeuverModifier.allCases.map(\.storedNumber)) == Set(0..<ManeuverModifier.allCases.count))
    }

    /// OSRM's `classes` on each intersection: car.lua's classes (toll, motorway, ferry, restricted,
    /// tunnel) of the road the route leaves it by, in the profile's order; none where it arrives.
    @Test func intersectionsCarryTheClassesOfTheRoadTaken() throws {
        let grid = GridMap(picture: """
              g   h   i   j
            a b   c   d   e   f
            """,
            // (Motorways are oneways unless tagged: two-way here, so that every road is in one component.)
            ways: [("ab", ["highway": "primary"]), ("bc", ["highway": "motorway", "toll": "yes", "oneway": "no"]),
                   ("cd", ["highway": "motorway_link", "tunnel": "yes", "oneway": "no"]),
                   ("de", ["highway": "primary", "access": "destination"]),
                   ("ef", ["highway": "primary", "tunnel": "no"]),
                   ("gb", ["highway": "tertiary"]), ("hc", ["highway": "tertiary"]), ("id", ["highway": "tertiary"]),
                   ("je", ["highway": "tertiary"])],
            spacing: 25, namesFromNodes: true)
        let map = RoadMap(graph: try grid.graph(), method: .landmarks)
        let route = try map.route(from: grid.positions["a"]!, to: grid.positions["f"]!)
        let classes = route.legs[0].steps.flatMap { $0.intersections.map(\.classes.names) }
        #expect(classes == [[], ["toll", "motorway"], ["motorway", "tunnel"], ["restricted"], [], []])
        // A ferry is one too.
        let ferry = GridMap(picture: """
            a b   c d
            """, ways: [("ab", [:]), ("bc", ["route": "ferry", "highway": ""]), ("cd", [:])], spacing: 40)
        let crossing = try RoadMap(graph: try ferry.graph(), method: .landmarks).route(from: ferry.positions["a"]!,
            to: ferry.positions["d"]!)
        #expect(crossing.legs[0].steps.flatMap { $0.intersections.map(\.classes) }.contains(.ferry))
    }

    /// OSRM's perceived bearings, case by case: where the driver is taken to look along a road.
    @Test func perceivedBearings() {
        typealias P = PerceivedBearing.Point
        let residential = PerceivedBearing.Road(highway: .residential, roundabout: false)
        func bearing(_ points: [(Double, Double)],
                     _ road: PerceivedBearing.Road = residential, roads: Int = 3) -> Double {
            PerceivedBearing.bearing(points: points.map { P(x: $0.0, y: $0.1) }, road: road, roadCount: roads)
        }
        // A straight road: towards its end, whatever its length.
        #expect(abs(bearing([(0, 0), (30, 30)]) - 45) < 1e-9)
        // Repeated points count once.
        #expect(abs(bearing([(0, 0), (0, 0), (30, 0)]) - 90) < 1e-9)
        // Where two roads meet: the first point more than a metre away.
        #expect(abs(bearing([(0, 0), (0.5, 0.5), (10, 0), (10, 50)], roads: 2) - 90) < 1e-9)
        // On a roundabout: two metres along, so the ring's curve does not count.
        let ring = (0...12).map { k -> (Double, Double) in
            let a = Double(k) * .pi / 12
            return (15 * sin(a), 15 - 15 * cos(a))
        }
        let roundabout = bearing(ring, PerceivedBearing.Road(highway: .primary, roundabout: true))
        #expect(abs(roundabout - 82.5) < 1, "\(roundabout)")  // (the first chord; 16.5 m along would say 58°)
        // A road drawn from the middle of a junction: a short offset, then straight on north. The
        // offset is taken out: the road is seen heading north (a point 16.5 m along would say 18°).
        let offset = bearing([(0, 0), (4, 0), (4, 60)])
        #expect(offset < 2 || offset > 358, "\(offset)")
        // A service road: ten metres along.
        let service = bearing([(0, 0), (5, 0), (5, 50)], PerceivedBearing.Road(highway: .service, roundabout: false))
        #expect(abs(service - atan2(5.0, 5.0) * 180 / .pi) < 1e-6, "\(service)")
        // A road that runs straight on for its first stretch: five metres along it.
        #expect(abs(bearing([(0, 0), (0, 30), (20, 60)]) - 0) < 1e-9)
        // A road drawn from 8 m beside the junction: the offset of a junction of four-lane roads
        // (half their width), corrected to the road's own line; at two-lane roads a turn in itself.
        let bend: [(Double, Double)] = [(0, 0), (8, 0), (8, 60)]
        #expect(bearing(bend) > 70)
        let wide = bearing(bend, PerceivedBearing.Road(highway: .residential, roundabout: false, lanes: 4))
        #expect(wide < 2, "\(wide)")
        #expect(bearing(bend,
                        PerceivedBearing.Road(highway: .residential, roundabout: false, lanes: 2)) == bearing(bend))
        // A bending road whose last part, past the lanes' offset, fits a line only as OSRM fits it:
        // through points sampled every metre, run 10⁻⁵° beyond them at both ends, points projected
        // in degrees. The CG-3a exit of the ring at 42.51820,1.55531 (Andorra), on OSRM's grid
        // there: OSRM's bearing after the turn, 313, is its stored 1.40625° step 223, so the
        // bearing it measured lies in 313.59..<315 (the road's first point alone says 296.7).
        let origin = Coordinate(latitude: 42.518203, longitude: 1.555310)
        let grid = PerceivedBearing.Grid(origin: origin, ruler: .osrm(latitude: origin.latitude))
        let exit = bearing([(0, 0), (-11.72, 5.89), (-18.52, 11.68), (-28.28, 23.46)],
                           PerceivedBearing.Road(highway: .trunk, roundabout: false, lanes: 2, grid: grid))
        #expect(exit >= 313.59 && exit < 315, "\(exit)")
    }

    /// Two real turns 20 m apart, each with a choice, stay two steps (OSRM collapses only its
    /// scenarios: U-turns, name changes, a turn onto a road that then leaves no choice, a
    /// staggered crossing of a few metres).
    @Test func twoTurnsWithChoicesStayTwo() throws {
        let grid = GridMap(picture: """
            a   b   c
                |
                d   e
                |
                f
            """, ways: [("abc", [:]), ("bdf", [:]), ("de", [:])], namesFromNodes: true)
        try check(grid, [("a", "e", "abc,bdf,de,de", "depart,turn right,turn left,arrive")])
    }

    /// A turn and a turn back 20 m on, each where there is a choice, are two steps, as in OSRM
    /// (its collapsing scenarios leave them: not a staggered crossing under 3 m, not a name that
    /// comes and goes). Whether the roads are unnamed or the road after has the name before.
    @Test func turnAndTurnBackStayTwo() throws {
        let picture = """
                    g - - - c - - - - - d
                            |
            a - - - - - - - b - - - - - e
            """
        let unnamed = GridMap(picture: picture, ways: [("abe", [:]), ("bc", [:]), ("gcd", [:])], spacing: 10)
        try check(unnamed, [("a", "d", ",,,", "depart,turn left,turn right,arrive")])
        let named = GridMap(picture: picture, ways: [("abe", ["name": "Rua Alta"]), ("bc", ["name": "Travessa"]),
                                                     ("gc", ["name": "Rua Baixa"]),
                                                     ("cd", ["name": "Rua Alta"])], spacing: 10)
        try check(named, [("a", "d", "Rua Alta,Travessa,Rua Alta,Rua Alta", "depart,turn left,turn right,arrive")])
    }

    /// OSRM's `maneuverSucceededByNameChange`: a turn onto a short unnamed piece, then straight on
    /// onto a named road (a strong name change, up to 45 m on) is one turn onto that road.
    @Test func turnThenNameIsOneTurn() throws {
        let grid = GridMap(picture: """
            a - - - b - - - e
                    |
                f - c
                    |
                    |
                    |
                    |
                    |
                    |
                    d
            """,
        ways: [
            ("abe", ["name": "Rua Velha"]), ("bc", [:]), ("fc", ["name": "Travessa"]), ("cd", ["name": "Rua Nova"])
        ])
        try check(grid, [("a", "d", "Rua Velha,Rua Nova,Rua Nova", "depart,turn right,arrive")])
    }

    /// OSRM's `maneuverPreceededByNameChange`: a name read for a few metres before a turn joins the
    /// road before, and the turn is told where it is.
    @Test func nameThenTurnIsToldAtTheTurn() throws {
        let grid = GridMap(picture: """
                          f
                          |
            a - - - - - - b c - - - - e
                            |
                            |
                            d
            """, ways: [("ab", ["name": "Rua Velha"]), ("bf", ["name": "Travessa"]), ("bce", ["name": "Rua Curta"]),
                        ("cd", ["name": "Rua Nova"])], spacing: 10)
        try check(grid, [("a", "d", "Rua Velha,Rua Nova,Rua Nova", "depart,turn right,arrive")])
        try expectStep(1, from: "a", to: "d", at: "c", on: grid)
    }

    /// OSRM's `isNameOszillation`: a name that comes and goes (a tunnel under its own name, 300 m)
    /// is not told, however long; with a junction inside the stretch, both changes are told.
    @Test func nameThatComesAndGoes() throws {
        let plain = GridMap(picture: """
            a - - - - - b - - - - - - - - - - - - - - c - - - - - d
            """,
        ways: [
            ("ab", ["name": "Autoestrada", "ref": "A 4"]), ("bc", ["name": "Túnel (Autoestrada)", "ref": "A 4"]),
                        ("cd", ["name": "Autoestrada", "ref": "A 4"])])
        try check(plain, [("a", "d", "Autoestrada,Autoestrada", "depart,arrive")])
        let crossed = GridMap(picture: """
                                    e
                                    |
            a - - - - - b - - - - - f - - - - - - - - c - - - - - d
            """,
        ways: [
            ("ab", ["name": "Autoestrada", "ref": "A 4"]), ("bfc", ["name": "Túnel (Autoestrada)", "ref": "A 4"]),
                        ("ef", ["name": "Rua"]), ("cd", ["name": "Autoestrada", "ref": "A 4"])])
        try check(crossed, [("a", "d", "Autoestrada,Túnel (Autoestrada),Autoestrada,Autoestrada",
                             "depart,new name straight,new name straight,arrive")])
    }

    /// A straight-on step a few metres before a ramp joins it (OSRM collapses onto ramps as onto
    /// any maneuver): one "on ramp", where the ramp leaves.
    @Test func straightBeforeARampJoinsIt() throws {
        let grid = GridMap(picture: """
            a - - - - b c - - - - d
                      |   \\
                      g     e
                              f
            """, ways: [("ab", ["highway": "primary"]), ("bg", [:]), ("bcd", ["highway": "service"]),
                        ("cef", ["highway": "motorway_link", "oneway": "yes"]), ("df", [:])], spacing: 10)
        try check(grid, [("a", "f", ",,", "depart,on ramp slight right,arrive")])
        try expectStep(1, from: "a", to: "f", at: "c", on: grid)
    }

    /// A divided road whose two carriageways end side by side at a T junction: OSRM sees one road
    /// there (its `MergableRoadDetector`), so the junction has three roads, not four, and the
    /// carriageway coming in is listed once, at the bearing between the two.
    static let dividedRoadPicture = """
        x   t   y
           i o










           p q
            s





            m   w





            z
        """

    @Test func dividedRoadIsOneRoadAtTheJunction() throws {
        let primary = ["highway": "primary", "name": "Divided"]
        let grid = GridMap(picture: Self.dividedRoadPicture,
                           ways: [("xty", ["highway": "primary", "name": "Cross"]),
                                  ("spit", primary.merging(["oneway": "yes"]) { $1 }),
                                  ("toqs", primary.merging(["oneway": "yes"]) { $1 }), ("zms", primary),
                                  ("mw", ["name": "Side"])],
                           spacing: 4)
        try check(grid, [("z", "x", "Divided,Cross,Cross", "depart,end of road left,arrive"),
                         ("z", "y", "Divided,Cross,Cross", "depart,end of road right,arrive"),
                         ("x", "z", "Cross,Divided,Divided", "depart,turn right,arrive")])
        let map = RoadMap(graph: try grid.graph(), method: .landmarks)
        // Where the road splits (s) the two carriageways are one road too: a plain passage, not listed.
        let there = try map.route(from: grid.positions["z"]!, to: grid.positions["x"]!).legs[0].steps
        #expect(there[0].intersections.map(\.bearings) == [[0], [0, 90, 180]])
        #expect(there[1].intersections.map(\.bearings) == [[90, 180, 270]])
        let back = try map.route(from: grid.positions["x"]!, to: grid.positions["z"]!).legs[0].steps
        #expect(back[1].intersections.map(\.bearings) == [[90, 180, 270], [0, 90, 180]])

        // Found once per map and stored with it: read back as made; out of order, an error.
        let path = NSTemporaryDirectory() + "merged-\(UUID().uuidString).wmg"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try map.write(to: path)
        let (graph, sections) = try GraphFile.readWithExtras(path: path)
        let stored = try #require(try GuidanceTables(fileSections: sections, graph: graph))
        #expect(stored.merged.arriving.count == 2 && stored.merged == GuidanceTables(graph: graph).merged)
        #expect(stored.departBearing == GuidanceTables(graph: graph).departBearing)
        var unordered = sections
        unordered["GMIN"] = stored.merged.arriving.reversed().withUnsafeBytes { Array($0) }
        #expect(throws: GuidanceFileError.self) { try GuidanceTables(fileSections: unordered, graph: graph) }
    }

    /// OSRM's `TurnAnalysis` makes an on ramp taken from a motorway an off ramp: here a divided
    /// motorway ends (its carriageways one road at `t`) in a link that goes on.
    @Test func onRampFromAMotorwayIsAnOffRamp() throws {
        let motorway = ["highway": "motorway", "ref": "A 1", "oneway": "yes"]
        let picture = "    n\n\n\n\n\n" + Self.dividedRoadPicture.replacingOccurrences(of: "x   t   y", with: "    t")
        let grid = GridMap(picture: picture,
                           ways: [("tn", ["highway": "motorway_link", "name": "Avenida"]),
                                  ("spit", motorway), ("toqs", motorway),
                                  ("zms", ["highway": "motorway", "ref": "A 1"]), ("mw", ["name": "Side"])],
                           spacing: 4)
        try check(grid, [("z", "n", ",Avenida,Avenida", "depart,off ramp straight,arrive")])
    }

    /// OSRM's `maneuverSucceededBySuppressedDirection`: a slight right (34°), then 25 m on a
    /// junction where the road bends on, unsaid, 42° further right: one turn, by both (right).
    @Test func turnThenSilentBendIsOneTurn() throws {
        let grid = GridMap(picture: """
                       f
            a       b     g

                       c



                        d



                         e
            """, ways: [("ab", [:]), ("bg", [:]), ("bcde", [:]), ("cf", ["highway": "service"])], spacing: 7)
        try check(grid, [("a", "e", ",,", "depart,turn right,arrive")])
    }

    /// OSRM's `DrivewayHandler`: where only minor roads (here a service road) join a road of one
    /// name, there is no turn at all, and the junction is not among the step's intersections; on
    /// an unnamed road it makes a name change there, kept as the road goes on 280 m (OSRM 26.10
    /// on this map: `depart, arrive` named; `depart, new name straight, arrive` unnamed).
    @Test func drivewaysAreNotIntersections() throws {
        let picture = """
            a - - - - - - b - - - - - - c
                          |
                          d
            """
        for (name, types) in [("Rua Nova", [ManeuverType.depart, .arrive]), ("", [.depart, .newName, .arrive])] {
            let grid = GridMap(picture: picture,
                               ways: [("abc", name.isEmpty ? [:] : ["name": name]), ("bd", ["highway": "service"])])
            let map = RoadMap(graph: try grid.graph(), method: .landmarks)
            let steps = try map.route(from: grid.positions["a"]!, to: grid.positions["c"]!).legs[0].steps
            #expect(steps.map(\.maneuver.type) == types, "\(name)")
            #expect(steps[0].intersections.count == 1, "\(name)")
        }
    }

    /// OSRM's segregated intersection: a short edge (`b`–`c`, 25 m) between a oneway coming in
    /// and a oneway going out is inside one crossing. A turn at its end is told at its start, by the
    /// direction from before the one end to after the other; a new name straight through likewise.
    /// Farther apart (100 m) the two ends are junctions of their own. (The road on is long enough
    /// for its new name to be told: OSRM leaves out names read for under 105 m.)
    @Test func segregatedIntersectionIsToldAtItsStart() throws {
        let picture = """
            a         b    c                              d
                      |    |
                      |    |
                      e    f
            """
        func grid(spacing: Double, onward: String) -> GridMap {
            GridMap(picture: picture,
                    ways: [("abc", ["name": "Main"]), ("cd", ["name": onward]),
                           ("eb", ["name": "Side", "oneway": "yes"]),
                                             ("cf", ["name": "Side", "oneway": "yes"]),
                                             ("ef", ["name": "Bottom"])], spacing: spacing)
        }
        for (spacing, at) in [(5.0, Character("b")), (20.0, Character("c"))] {
            let turning = grid(spacing: spacing, onward: "Main")
            try check(turning, [("a", "f", "Main,Side,Side", "depart,turn right,arrive")])
            let route = try RoadMap(graph: try turning.graph(), method: .landmarks).route(from: turning.positions["a"]!,
                to: turning.positions["f"]!)
            #expect(
                route.legs[0].steps[1].maneuver.location.distance(to: turning.positions[at]!) < 1, "spacing \(spacing)")
            let renamed = grid(spacing: spacing, onward: "Other")
            try check(renamed, [("a", "d", "Main,Other,Other", "depart,new name straight,arrive")])
            let straight = try RoadMap(graph: try renamed.graph(), method: .landmarks).route(
                from: renamed.positions["a"]!, to: renamed.positions["d"]!)
            #expect(
                straight.legs[0].steps[1].maneuver.location.distance(to: renamed.positions[at]!) < 1,
                "spacing \(spacing)")
            #expect(straight.legs[0].steps[1].intersections.count == (at == "b" ? 2 : 1))
        }
        // Straight through under one name: nothing to say.
        try check(grid(spacing: 5, onward: "Main"), [("a", "d", "Main,Main", "depart,arrive")])
    }

    /// A ring drivable both ways is no roundabout for OSRM (two ways on at each of its vertices):
    /// it is told turn by turn, with no exit count.
    @Test func twoWayRingIsNoRoundabout() throws {
        var ways = Self.roundaboutWays(ring: ["oneway": "no"])
        for i in 0..<4 { ways[i].tags["name"] = ways[i].nodes }
        let grid = GridMap(picture: Self.roundaboutPicture, ways: ways, spacing: 20)
        let map = RoadMap(graph: try grid.graph(), method: .landmarks)
        let route = try map.route(from: grid.positions["a"]!, to: grid.positions["f"]!)
        let types = route.legs[0].steps.map(\.maneuver.type)
        #expect(
            !types.contains(.roundabout) && !types.contains(.exitRoundabout) && !types.contains(.roundaboutTurn),
            "\(types)")
        #expect(types.first == .depart && types.last == .arrive && types.count >= 3)
        // The same ring one way is a roundabout.
        var oneWay = Self.roundaboutWays()
        for i in 0..<4 { oneWay[i].tags["name"] = oneWay[i].nodes }
        let ringGrid = GridMap(picture: Self.roundaboutPicture, ways: oneWay, spacing: 20)
        let ring = try RoadMap(graph: try ringGrid.graph(), method: .landmarks).route(from: ringGrid.positions["a"]!,
            to: ringGrid.positions["f"]!)
        #expect(ring.legs[0].steps.map(\.maneuver.type).contains(.roundabout))
    }

    /// A ramp joining a motorway of one name: merge left when the motorway goes on to the right
    /// of the one behind (the ramp comes from the right), as OSRM's `fromRamp` says it.
    @Test func rampJoinsFromTheRight() throws {
        let join = GridMap(picture: """
            a - - - b - - - - - - - c
                  d
            e
            """, ways: [("ab", ["highway": "motorway", "oneway": "yes", "name": "Via Norte"]),
                        ("bc", ["highway": "motorway", "oneway": "yes", "name": "Via Norte"]),
                        ("edb", ["highway": "motorway_link", "oneway": "yes"])])
        let map = RoadMap(graph: try join.graph(), method: .landmarks)
        let merge = try map.route(from: join.positions["e"]!, to: join.positions["c"]!)
        #expect(merge.legs[0].steps.map(\.maneuver.type) == [.depart, .merge, .arrive])
        #expect(merge.legs[0].steps[1].maneuver.modifier == .slightLeft)
    }

    /// A new name straight on, then within 30 m the road bending on unsaid (the same name past a
    /// side road): OSRM takes the bend into the step (`maneuverSucceededBySuppressedDirection`),
    /// and a new name that now bends is a turn (`AdjustToCombinedTurnStrategy`). OSRM 26.10 on
    /// this map: `depart, turn slight left, arrive`, Alpha, Beta, Beta.
    @Test func newNameBendingOnIsATurn() throws {
        let grid = GridMap(picture: """
                          e
                        d
            a - - - b c
                      |
                      f
            """, ways: [("ab", ["name": "Alpha"]), ("bcde", ["name": "Beta"]), ("cf", ["name": "Gamma"])],
            spacing: 10)
        try check(grid, [("a", "e", "Alpha,Beta,Beta", "depart,turn slight left,arrive")])
    }

    /// OSRM's driveway handler: a parking aisle straight on where the street bends on slightly
    /// is a turn, slight to its side of the street (OSRM 26.10 on this map: `depart, turn slight
    /// right, arrive` into the aisle; nothing said along the street).
    @Test func drivewayStraightOnIsSlight() throws {
        let grid = GridMap(picture: """
                                    c

                          e
            a - - - - b - - - - - - - - d
            """, ways: [("abec", ["name": "Main"]), ("bd", ["highway": "service", "service": "parking_aisle"])],
            spacing: 10)
        try check(grid, [("a", "d", "Main,,", "depart,turn slight right,arrive"),
                         ("a", "c", "Main,Main", "depart,arrive")])
    }

    /// An unnamed street past a parking aisle: OSRM's driveway handler says a new name (its
    /// `isSameName` wants names), and a new name between unnamed roads stays however long (its
    /// `haveSameName` never matches empty names), unless a junction passed unsaid onto the unnamed
    /// road follows (`isNameOszillation`: empty name ids match). OSRM 26.10 on these maps:
    /// `depart, new name straight, arrive`; with a named side road 80 m on, `depart, arrive`.
    @Test func unnamedStreetPastAParkingAisle() throws {
        let aisle: [String: String] = ["highway": "service", "service": "parking_aisle"]
        let plain = GridMap(picture: """
            a - - - - b - - - - - - - - - - - - - - - - c
                      |
                      d
            """, ways: [("abc", ["highway": "tertiary"]), ("bd", aisle)], spacing: 10)
        try check(plain, [("a", "c", ",,", "depart,new name straight,arrive")])
        let sideRoad = GridMap(picture: """
                              e
                              |
            a - - - - b - - - f - - - - - - - - - - - - - c
                      |
                      d
            """, ways: [("abfc", ["highway": "tertiary"]), ("bd", aisle), ("fe", ["name": "Rua"])], spacing: 10)
        try check(sideRoad, [("a", "c", ",", "depart,arrive")])
    }

    /// An end of the road after a short name change: OSRM judges the end of the road by the step
    /// before it (the name change, no junction passed: a plain turn) before it drops that name
    /// change for being under 105 m. OSRM 26.10 on this map: `depart, turn right, arrive`.
    @Test func endOfRoadAfterAShortNameChange() throws {
        let grid = GridMap(picture: """
                              f
                              |
                              |
            a - - - - - - b - c
                              |
                              |
                              e
            """, ways: [("ab", ["name": "Alpha"]), ("bc", ["name": "Beta"]), ("fce", ["name": "Cross"])])
        try check(grid, [("a", "e", "Alpha,Cross,Cross", "depart,turn right,arrive")])
    }

    /// A name change just before a turn, after a roundabout: OSRM joins the two (the turn takes
    /// both angles) only when a junction passed unsaid since the exit stands between, for its
    /// step before the name change is then that silent one, not the roundabout's. OSRM 26.10 on
    /// these maps: `turn right` into Side with the oneway In joining at x, `turn slight right`
    /// without it.
    @Test func nameChangeBeforeATurnAfterARoundabout() throws {
        let picture = """
                                                    a
                          w
                                                    b
                      l
                          k
                              z
                                  y   x    d    c       g       h



                                      m             e

                                                    f
            """
        let ways: [(nodes: String, tags: [String: String])] = [
            ("ab", ["highway": "primary"]), ("bcegb", ["highway": "primary", "junction": "roundabout"]),
            ("gh", ["highway": "primary"]), ("ef", ["highway": "primary"]),
            ("cdxy", ["highway": "tertiary", "name": "Exit"]), ("yzkl", ["highway": "tertiary", "name": "Next"]),
            ("zw", ["highway": "tertiary", "name": "Side"])]
        let joined = GridMap(picture: picture, ways: ways + [("mx", ["highway": "tertiary", "name": "In",
                                                                      "oneway": "yes"])], spacing: 5)
        try check(joined, [("a", "w", ",Exit,Exit,Side,Side",
                            "depart,roundabout-exit-1,exit roundabout right,turn right,arrive")])
        let plain = GridMap(picture: picture, ways: ways, spacing: 5)
        try check(plain, [("a", "w", ",Exit,Exit,Side,Side",
                           "depart,roundabout-exit-1,exit roundabout right,turn slight right,arrive")])
    }

    /// A road that becomes a motorway ramp where nothing else meets: OSRM's `on ramp` there, told
    /// as straight on (OSRM 26.10 on this map: `depart, on ramp straight, arrive`).
    @Test func roadBecomesARamp() throws {
        let grid = GridMap(picture: "a - - - b - - - c - - - d",
                           ways: [("ab", ["highway": "primary", "oneway": "yes", "name": "Main"]),
                                  ("bcd", ["highway": "motorway_link", "oneway": "yes"])])
        try check(grid, [("a", "d", "Main,,", "depart,on ramp straight,arrive")])
    }

    /// Two turns to one side of the way on at a junction of many roads: OSRM tells them apart,
    /// the one nearer straight on as the slight one (`assignLeftTurns`, `assignRightTurns`,
    /// `handleDistinctConflict`). OSRM 26.10 on this map: `turn slight left` into Diag, `turn
    /// left` into West, `turn slight right` into NorthEast, `turn right` into East.
    @Test func twoTurnsToOneSideAreToldApart() throws {
        let grid = GridMap(picture: """
                d   c   h



              e     b     f



                    a
            """, ways: [("abc", ["name": "Main"]), ("bd", ["name": "Diag"]), ("be", ["name": "West"]),
                        ("bh", ["name": "NorthEast"]), ("bf", ["name": "East"])])
        try check(grid, [("a", "d", "Main,Diag,Diag", "depart,turn slight left,arrive"),
                         ("a", "e", "Main,West,West", "depart,turn left,arrive"),
                         ("a", "h", "Main,NorthEast,NorthEast", "depart,turn slight right,arrive"),
                         ("a", "f", "Main,East,East", "depart,turn right,arrive")])
    }

    /// A turn at the start of a segregated crossing (the oneway Avenue comes in at `a`, the other
    /// leaves at `b`) is told with the junction passed at its end, by the direction from before
    /// the one to after the other (OSRM's `collapseSegregatedTurnInstructions` with its suppressed
    /// step at `b`): a new name straight on, not slight left. OSRM 26.10 on this map: `depart, new
    /// name straight, arrive`.
    @Test func turnIntoASegregatedCrossingTakesInItsEnd() throws {
        let grid = GridMap(picture: """
                    nm


                      b                   c
            w       a
            """, ways: [("wa", ["name": "Alpha"]), ("abc", ["name": "Bee"]),
                        ("na", ["name": "Avenue", "oneway": "yes"]), ("bm", ["name": "Avenue", "oneway": "yes"])],
            spacing: 10)
        try check(grid, [("w", "c", "Alpha,Bee,Bee", "depart,new name straight,arrive")])
    }

    /// A segregated crossing told as one turn at `a`, then a new name without a choice within
    /// 45 m: OSRM joins them (`maneuverSucceededByNameChange` needs no undisturbed road for a
    /// choiceless name change), though the turn's step holds the crossing's far end `b`. OSRM 26.10
    /// on this map: `depart, turn left, arrive` onto Avenue.
    @Test func nameChangeJoinsATurnAcrossASegregatedCrossing() throws {
        let grid = GridMap(picture: """
                         q







                        p



                         c      f

            w         a b                 e
            """, ways: [("wabe", ["name": "Alpha"]), ("pa", ["name": "Avenue", "oneway": "yes"]),
                        ("bc", ["oneway": "yes"]), ("cq", ["name": "Avenue", "oneway": "yes"]),
                        ("fc", ["name": "Feeder", "oneway": "yes"])], spacing: 10)
        try check(grid, [("w", "q", "Alpha,Avenue,Avenue", "depart,turn left,arrive")])
    }

    /// A link of a lesser road joining a trunk: OSRM's motorway handler leaves it to the turn
    /// handler, which merges only where the name changes (OSRM 26.10 on this map: `depart, arrive`
    /// for a `primary_link` of the trunk's ref; `depart, merge slight left, arrive` onto a named
    /// trunk).
    @Test func lesserLinkJoinsTrunk() throws {
        func maneuvers(_ link: [String: String], _ trunk: [String: String]) throws -> [String] {
            let join = GridMap(picture: """
                a - - - b - - - - - - - c
                      d
                e
                """, ways: [("ab", trunk), ("bc", trunk), ("edb", link)])
            let map = RoadMap(graph: try join.graph(), method: .landmarks)
            let route = try map.route(from: join.positions["e"]!, to: join.positions["c"]!)
            return route.legs[0].steps.map { "\($0.maneuver.type.rawValue) \($0.maneuver.modifier?.rawValue ?? "")" }
        }
        let trunk = ["highway": "trunk", "oneway": "yes", "ref": "CG-3"]
        #expect(try maneuvers(["highway": "primary_link", "oneway": "yes", "ref": "CG-3"], trunk)
                == ["depart ", "arrive "])
        let named = ["highway": "trunk", "oneway": "yes", "name": "Via Norte"]
        #expect(try maneuvers(["highway": "primary_link", "oneway": "yes", "name": "Rampa"], named)
                == ["depart ", "merge slight left", "arrive "])
    }

    /// OSRM's numbers: points cut to its 10⁻⁶° grid towards zero, its corrected coordinate in
    /// integers, and its least-squares line (fitted turned a quarter when steep).
    @Test func osrmNumerics() {
        typealias P = PerceivedBearing.Point
        let grid = PerceivedBearing.Grid(unitX: 0.1, unitY: 0.1, negativeX: true, negativeY: false)
        // West of Greenwich a longitude is negative: cutting towards zero moves east (up); north
        // of the equator latitudes are cut down.
        func near(_ a: P, _ b: P) -> Bool { abs(a.x - b.x) < 1e-9 && abs(a.y - b.y) < 1e-9 }
        #expect(near(grid.cut(P(x: 0.25, y: 0.25)), P(x: 0.3, y: 0.2)))
        #expect(near(grid.cut(P(x: -0.25, y: -0.25)), P(x: -0.2, y: -0.3)))
        #expect(near(grid.cut(P(x: 0.3, y: 0.3)), P(x: 0.3, y: 0.3)))  // a grid point stays
        // 90 % of an offset of 7 units is 6 (integer division): 2.0 - 0.6 = 1.4.
        let corrected = grid.corrected(base: P(x: 0.7, y: 0), head: P(x: 2, y: 5))
        #expect(abs(corrected.x - 1.4) < 1e-9 && abs(corrected.y - 5) < 1e-9)
        // A steep line is fitted turned (x on y): a vertical run of points gives a vertical line.
        func leastSquares(_ points: [P]) -> (P, P) {
            var fit = PerceivedBearing.Fit()
            for p in points { fit.add(p) }
            return fit.line(cosLatitude: 1)
        }
        let steep = leastSquares([P(x: 0, y: 0), P(x: 0.1, y: 10), P(x: 0, y: 20), P(x: 0.1, y: 30)])
        #expect(abs(steep.0.y - 0) < 1e-9 && abs(steep.1.y - 30) < 1e-9)
        #expect(abs(steep.1.x - steep.0.x) < 0.1)
        // A flat one directly: y on x.
        let flat = leastSquares([P(x: 0, y: 1), P(x: 10, y: 2), P(x: 20, y: 3)])
        #expect(abs(flat.0.y - 1) < 1e-9 && abs(flat.1.y - 3) < 1e-9 && flat.0.x == 0 && flat.1.x == 20)
    }

    /// OSRM's obvious turns: straight on past a road that joins from behind needs no word, named
    /// or not; a ref that changes on a road of one name is the same road.
    @Test func obviousPastARoadFromBehind() throws {
        let grid = GridMap(picture: """
            a       e
              b
                c
                  d
            """, ways: [("abcd", ["highway": "primary"]), ("ce", ["highway": "primary"])])
        let map = RoadMap(graph: try grid.graph(), method: .landmarks)
        let route = try map.route(from: grid.positions["a"]!, to: grid.positions["d"]!)
        #expect(route.legs[0].steps.map(\.maneuver.type) == [.depart, .arrive])

        let refs = GridMap(picture: """
            a   b   c
                    |
                    d
            """,
        ways: [
            ("ab", ["name": "Via de Cintura Interna", "ref": "IC 23"]),
            ("bc", ["name": "Via de Cintura Interna", "ref": "A 44"]),
                        ("cd", ["name": "Rua Nova"])])
        try check(refs, [("a", "c", "Via de Cintura Interna,Via de Cintura Interna", "depart,arrive")])
        #expect(!NameChange.mustAnnounce(fromName: "Via de Cintura Interna", fromRef: "IC 23",
                                         toName: "Via de Cintura Interna", toRef: "A 44"))
        #expect(!NameChange.mustAnnounce(fromName: "Main Street", fromRef: "A 1",
                                         toName: "Main Street West", toRef: "A 2"))
        #expect(NameChange.mustAnnounce(fromName: "Main Street", fromRef: "A 1",
                                        toName: "Main Street Extension", toRef: "A 2"))
    }

    /// Leaving a motorway: the ramp's side is told against the motorway that goes on, not against
    /// straight ahead; a ramp of a lesser road is no motorway ramp (a turn, not `on ramp`).
    @Test func rampSides() throws {
        // The motorway bends left at b; the ramp leaves a little left of straight on, yet right of
        // the motorway: a ramp on the right.
        let grid = GridMap(picture: """
                            c   d




                            e   f
            a   b
            """, ways: [("abcd", ["highway": "motorway", "oneway": "yes", "ref": "A 1"]),
                        ("bef", ["highway": "motorway_link", "oneway": "yes"])])
        let map = RoadMap(graph: try grid.graph(), method: .landmarks)
        let off = try map.route(from: grid.positions["a"]!, to: grid.positions["f"]!)
        #expect(off.legs[0].steps.map(\.maneuver.type) == [.depart, .offRamp, .arrive])
        #expect(off.legs[0].steps[1].maneuver.modifier == .slightRight)

        let local = GridMap(picture: """
            a - - - b - - - c
                      e
                        f
            """,
        ways: [
            ("abc", ["highway": "primary", "name": "Rua A"]), ("bef", ["highway": "primary_link", "oneway": "yes"])
        ])
        let localMap = RoadMap(graph: try local.graph(), method: .landmarks)
        let turn = try localMap.route(from: local.positions["a"]!, to: local.positions["f"]!)
        #expect(turn.legs[0].steps.map(\.maneuver.type) != [.depart, .onRamp, .arrive])
        #expect(!turn.legs[0].steps.contains { $0.maneuver.type == .onRamp })
    }

    /// OSRM's `MotorwayHandler` from a motorway: the road that goes on under the same ref (a trunk
    /// gaining a name) is not told, whatever its angle; the ramp beside it is an off ramp to its
    /// side. OSRM 26.10 on this map: `depart, arrive` and `depart, off ramp slight left, arrive`.
    @Test func motorwayGoesOnUntold() throws {
        let grid = GridMap(picture: """




                            c   d
            a   b

                            e   f
            """, ways: [("ab", ["highway": "motorway", "oneway": "yes", "ref": "A 44"]),
                        ("bef", ["highway": "trunk", "oneway": "yes", "ref": "A 44",
                                 "name": "Via de Cintura Interna"]),
                        ("bcd", ["highway": "motorway_link", "oneway": "yes"])])
        let map = RoadMap(graph: try grid.graph(), method: .landmarks)
        let on = try map.route(from: grid.positions["a"]!, to: grid.positions["f"]!)
        #expect(on.legs[0].steps.map(\.maneuver.type) == [.depart, .arrive])
        let off = try map.route(from: grid.positions["a"]!, to: grid.positions["d"]!)
        #expect(off.legs[0].steps.map(\.maneuver.type) == [.depart, .offRamp, .arrive])
        #expect(off.legs[0].steps[1].maneuver.modifier == .slightLeft)
    }

    /// Names and refs compared as OSRM compares them (`requiresNameAnnounced`): a name that loses
    /// a connecting word, a ref list written another way on an unnamed road, and other exit
    /// numbers (`junction:ref`) are new names; losing the exit numbers is not. OSRM 26.10 on these
    /// maps: `depart, new name straight, arrive` the first three times, `depart, arrive` the last.
    @Test func nameChangesAsOSRM() throws {
        for (before, after) in [(["name": "Rua de Santa Catarina"], ["name": "Rua Santa Catarina"]),
                                (["ref": "IP 1; A 20"], ["ref": "A20"]),
                                (["name": "Rua A", "junction:ref": "12"], ["name": "Rua A", "junction:ref": "13"]),
                                (["name": "Rua A", "junction:ref": "12"], ["name": "Rua A"])] {
            let grid = GridMap(picture: """
                a     b     c

                      d
                """, ways: [("ab", ["highway": "primary"].merging(before) { $1 }),
                            ("bc", ["highway": "primary"].merging(after) { $1 }),
                            ("bd", ["name": "Travessa"])], spacing: 40)
            let map = RoadMap(graph: try grid.graph(), method: .landmarks)
            let route = try map.route(from: grid.positions["a"]!, to: grid.positions["c"]!)
            if after["name"] == "Rua A" && after["junction:ref"] == nil {
                #expect(route.legs[0].steps.map(\.maneuver.type) == [.depart, .arrive], "\(before)")
                continue
            }
            #expect(route.legs[0].steps.map(\.maneuver.type) == [.depart, .newName, .arrive], "\(before)")
            #expect(route.legs[0].steps[1].maneuver.modifier == .straight)
        }
    }

    /// OSRM's `IsDistinctNarrowTurn` lets a road that keeps the lane count of the road arrived by
    /// and runs within 25° of straight on stand out from a much stronger turn, even under a new
    /// name (as Rua do Outeiro into Rua da Cumieira at 41.38844,-8.56403, Porto). OSRM 26.10 on
    /// this map: `new name straight` with two lanes on both; `turn straight` when the road on has
    /// three.
    @Test func sameLanesGoOnObviously() throws {
        for (lanes, told) in [("2", "new name straight"), ("3", "turn straight")] {
            let grid = GridMap(picture: """
                        d

                a   b   c

                                e
                """, ways: [("abc", ["highway": "secondary", "lanes": "2", "name": "Rua do Outeiro"]),
                            ("ce", ["highway": "secondary", "lanes": lanes, "name": "Rua da Cumieira"]),
                            ("cd", ["highway": "unclassified"])])
            try check(grid, [("a", "e", "Rua do Outeiro,Rua da Cumieira,Rua da Cumieira", "depart,\(told),arrive")])
        }
    }

    /// A name that comes and goes (A, B, A) is nothing to say, as OSRM's `isNameOszillation`,
    /// but not right after a roundabout (OSRM's collapsing scenarios never follow a roundabout's
    /// step: Túnel de la Tàpia after the CG-1 ring at 42.4764,1.4905, Andorra) and not where
    /// OSRM's graph keeps a vertex between (a tunnel begins: OSRM does not join ways of
    /// different classes, and its silent step there keeps the two apart). OSRM 26.10 on each map.
    @Test func nameOscillationAsOSRM() throws {
        let ring = GridMap(picture: """
                p

                a   b

                d   c      e      f      g

                s
            """, ways: [("pa", ["highway": "primary", "name": "Rua N"]),
                        ("abcda", ["highway": "primary", "junction": "roundabout"]),
                        ("ds", ["highway": "primary", "name": "Rua S"]),
                        ("ce", ["highway": "primary", "name": "Rua A"]),
                        ("ef", ["highway": "primary", "name": "Rua B"]),
                        ("fg", ["highway": "primary", "name": "Rua A"])])
        try check(ring, [("p", "g", "Rua N,Rua A,Rua A,Rua B,Rua A,Rua A",
                          "depart,roundabout-exit-1,exit roundabout left,new name straight,new name straight,arrive")])
        for tunnel in [true, false] {
            let inTunnel = ["highway": "primary", "name": "Rua B"].merging(tunnel ? ["tunnel": "yes"] : [:]) { $1 }
            let road = GridMap(picture: "a      b      c      d      e",
                               ways: [("ab", ["highway": "primary", "name": "Rua A"]),
                                      ("bc", ["highway": "primary", "name": "Rua B"]), ("cd", inTunnel),
                                      ("de", ["highway": "primary", "name": "Rua A"])])
            try check(road, [("a", "e", tunnel ? "Rua A,Rua B,Rua A,Rua A" : "Rua A,Rua A",
                              tunnel ? "depart,new name straight,new name straight,arrive" : "depart,arrive")])
            // The tunnel's start is listed, as OSRM lists it: two roads, one way on.
            let map = RoadMap(graph: try road.graph(), method: .landmarks)
            let steps = try map.route(from: road.positions["a"]!, to: road.positions["e"]!).legs[0].steps
            #expect(steps.flatMap(\.intersections).contains { $0.location.distance(to: road.positions["c"]!) < 1 }
                    == tunnel)
        }
    }

    /// Intersection bearings as OSRM lists them (its bearing classes): 15° steps where neighbouring
    /// roads stay apart, else to the degree. Each case is a junction measured by Waymark, beside
    /// the bearings OSRM 26.10 lists at the same junction (Andorra, Porto).
    @Test func bearingClassesAsOSRM() {
        let cases: [([Int], [Int])] = [([117, 135, 319], [120, 135, 315]), ([21, 60, 237], [15, 60, 240]),
                                       ([13, 20, 193], [13, 20, 193]), ([352], [345]), ([353], [0]),
                                       ([5, 99, 234], [0, 105, 240])]
        for (measured, osrm) in cases {
            let listed = withUnsafeTemporaryAllocation(of: Int.self, capacity: 2 * measured.count) { buffer in
                for (i, b) in measured.enumerated() { buffer[i] = b }
                Junction.discretize(UnsafeMutableBufferPointer(rebasing: buffer[..<measured.count]),
                                    count: measured.count, order: buffer.baseAddress! + measured.count)
                return Array(buffer[..<measured.count])
            }
            #expect(listed == osrm, "\(measured)")
        }
    }

    /// OSRM's turn directions by angle (180 straight on, below it to the right).
    @Test func modifiersByAngle() {
        let expected: [(Double, ManeuverModifier)] = [(0, .uturn), (30, .sharpRight), (90, .right),
                                                      (150, .slightRight), (180, .straight),
                                                     (210, .slightLeft), (270, .left), (330, .sharpLeft)]
        for (angle, modifier) in expected { #expect(ManeuverModifier(angle: angle) == modifier, "\(angle)") }
    }
}
