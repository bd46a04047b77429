import Foundation
import Testing
import WaymarkGeo
import WaymarkGraph
import WaymarkProfiles
@testable import WaymarkPreparation
@testable import WaymarkQueries
@testable import WaymarkGuidance
@testable import WaymarkRouting

/// Turn restrictions over via ways, scenario by scenario after OSRM's
/// `features/car/multi_via_restrictions.feature` (the expected routes are OSRM's, with each way
/// named once where the route stays on it), by both searches.
@Suite struct RestrictedPathTests {
    /// Every (from, to, expected) row, by ALT and by the contraction hierarchy.
    func check(_ grid: GridMap, _ rows: [(Character, Character, String)],
               sourceLocation: SourceLocation = #_sourceLocation) throws {
        let graph = try grid.graph()
        for method in [RoadMap.SearchMethod.landmarks, .hierarchy] {
            let map = RoadMap(graph: graph, method: method)
            for (from, to, expected) in rows {
                #expect(grid.route(from, to, on: map) == expected, "\(from) → \(to) by \(method)",
                        sourceLocation: sourceLocation)
            }
        }
    }

    static let forwardRow = """
          1   2   3          4         5
        a---b---c---d---e---------f---------g
                        |         |         |
                        |7        |8        |9
                        |         |         |
                    x---h---------i---------j
        """

    static func forwardWays() -> [(nodes: String, tags: [String: String])] {
        [("ab", "forward"), ("bc", "forward"), ("cd", "forward"), ("de", "forward"),
         ("ef", "forward"), ("fg", "forward"),
         ("eh", "first"), ("fi", "second"), ("gj", "third"), ("ih", "back"), ("ji", "back"), ("hx", "back")]
            .map { ($0.0, ["oneway": "yes", "name": $0.1]) }
    }

    /// The from way, then four via ways: only a car that came all the way from `ab` may not turn
    /// into `fi`; the node restriction at `e` holds for everyone.
    @Test func nodeRestrictionInsideAPathRestriction() throws {
        var grid = GridMap(picture: Self.forwardRow, ways: Self.forwardWays())
        grid.relations = [("ab", ["bc", "cd", "de", "ef"], "fi", ["restriction": "no_right_turn"]),
                          ("de", ["e"], "eh", ["restriction": "no_right_turn"])]
        try check(grid,
                  [("1", "x", "forward,third,back"), ("2", "x", "forward,second,back"),
                   ("3", "x", "forward,second,back"),
                         ("4", "x", "forward,second,back"), ("5", "x", "forward,third,back"), ("7", "x", "first,back"),
                         ("8", "x", "second,back"), ("9", "x", "third,back")])
    }

    /// A path restriction inside another: each applies only to cars that drove its own path.
    @Test func pathRestrictionInsideAnother() throws {
        var grid = GridMap(picture: Self.forwardRow, ways: Self.forwardWays())
        grid.relations = [("ab", ["bc", "cd", "de", "ef"], "fi", ["restriction": "no_right_turn"]),
                          ("bc", ["cd", "de"], "eh", ["restriction": "no_right_turn"])]
        try check(grid,
                  [("1", "x", "forward,third,back"), ("2", "x", "forward,second,back"),
                   ("3", "x", "forward,first,back"),
                         ("4", "x", "forward,second,back"), ("5", "x", "forward,third,back"), ("7", "x", "first,back")])
    }

    /// Two `only_straight_on` paths that overlap: the second starts inside the first, and a car on
    /// the first is held by both (the search tracks every path prefix it is on).
    @Test func overlappingOnlyPaths() throws {
        let picture = """
            a       f       j
            |       |       |
            b---d---e---i---k----m
            |       |       |
            c       g       l
            """
        let ways = [("ab", "down"), ("cb", "up"), ("bd", "right"), ("de", "right"), ("ef", "up"), ("eg", "down"),
                    ("ei", "right"), ("ik", "right"), ("kj", "up"), ("kl", "down"), ("km", "right")]
        var grid = GridMap(picture: picture, ways: ways.map { ($0.0, ["oneway": "yes", "name": $0.1]) })
        grid.relations = [("ab", ["bd", "de"], "ei", ["restriction": "only_straight_on"]),
                          ("de", ["ei", "ik"], "km", ["restriction": "only_straight_on"])]
        try check(grid, [("a", "f", ""), ("a", "g", ""), ("a", "j", ""), ("a", "l", ""), ("a", "m", "down,right"),
                         ("c", "f", "up,right,up"), ("c", "g", "up,right,down"), ("c", "j", ""), ("c", "l", ""),
                         ("c", "m", "up,right"),
                         ("i", "j", "right,up"), ("i", "l", "right,down"), ("i", "m", "right")])
    }

    /// No U-turns through the median of a dual carriageway junction, each over two via ways.
    @Test func uTurnsOverTwoViaWays() throws {
        let picture = """
                a   b
                |   |
            c---d---e---f
                |   |
            g---h---i---j
                |   |
                k   l
            """
        let ways = [("ad", "down"), ("eb", "up"), ("fe", "left"), ("ij", "right"), ("li", "up"), ("hk", "down"),
                    ("gh", "right"), ("dc", "left"), ("dh", "down"), ("hi", "right"), ("ie", "up"), ("ed", "left")]
        var grid = GridMap(picture: picture, ways: ways.map { ($0.0, ["oneway": "yes", "name": $0.1]) })
        grid.relations = [("ad", ["dh", "hi"], "ie", ["restriction": "no_u_turn"]),
                          ("li", ["ie", "ed"], "dh", ["restriction": "no_u_turn"])]
        try check(grid, [("a", "b", ""), ("a", "c", "down,left"), ("a", "k", "down"), ("a", "j", "down,right"),
                         ("f", "b", "left,up"), ("f", "c", "left"), ("f", "k", "left,down"),
                         ("f", "j", "left,down,right"),
                         ("l", "b", "up"), ("l", "c", "up,left"), ("l", "k", ""), ("l", "j", "up,right"),
                         ("g", "b", "right,up"), ("g", "c", "right,up,left"),
                         ("g", "k", "right,down"), ("g", "j", "right")])
    }

    /// `except` naming a car mode exempts cars; naming others does not.
    @Test func exceptions() throws {
        for (except, expected) in [("motorcar", "ab,bc,cd,de"), ("psv;emergency", "")] {
            var grid = GridMap(picture: "a---b---c---d--e",
                               ways: ["ab", "bc", "cd", "de"].map { ($0, ["oneway": "yes", "name": $0]) })
            grid.relations = [("ab", ["bc", "cd"], "de", ["restriction": "no_straight_on", "except": except])]
            try check(grid, [("a", "e", expected)])
        }
    }

    /// `only_left_turn` over one via way beside an `only_u_turn` over two that ends on the same
    /// road: from a the car must turn into the dead end and come back; from g it must go on to d
    /// and come back.
    @Test func pathRestrictionOverlappingANodeRestriction() throws {
        let picture = """
                    e
                    |
            a---b---c---d
                |
                f---g
                |
                h
            """
        var grid = GridMap(picture: picture,
                           ways: [("ab", ["name": "abcd"]), ("bc", ["name": "abcd"]), ("cd", ["name": "abcd"]),
                                                    ("hf", ["name": "hfb"]), ("fb", ["name": "hfb"]),
                                                    ("gf", ["name": "gf"]),
                                                    ("ce", ["name": "ce"])])
        grid.relations = [("ab", ["bc"], "ce", ["restriction": "only_left_turn"]),
                          ("gf", ["fb", "bc"], "cd", ["restriction": "only_u_turn"])]
        try check(grid,
                  [("a", "d", "abcd,ce,abcd"), ("a", "e", "abcd,ce"), ("a", "f", "abcd,hfb"),
                   ("g", "e", "gf,hfb,abcd,ce"),
                         ("g", "d", "gf,hfb,abcd"), ("h", "e", "hfb,abcd,ce"), ("h", "d", "hfb,abcd")])
    }

    /// `no_entry` may name several from ways and `no_exit` several to ways: each pair is a
    /// restriction; other relations with several from or to ways are not used.
    @Test func severalFromOrToWays() throws {
        let picture = """
                c
                |
            a---b---d
                |
                e
            """
        let ways = ["ab", "cb", "bd", "be"].map { ($0, ["name": $0]) }
        for (value, from, to, expectedFromA, expectedFromC) in [
            ("no_entry", "ab,cb", "bd", "ab,be,bd", "cb,be,bd"), // must go round: b→e and back
            ("no_exit", "ab", "bd,be", "ab,cb,bd", "cb,bd"),
            ("no_left_turn", "ab,cb", "bd", "ab,bd", "cb,bd"), // several from ways: not used
        ] {
            var grid = GridMap(picture: picture, ways: ways)
            grid.relations = [(from, ["b"], to, ["restriction": value])]
            try check(grid, [("a", "d", expectedFromA), ("c", "d", expectedFromC)])
            let report = try grid.graph().report
            #expect(report.restrictionsKept == (value == "no_left_turn" ? 0 : 2), "\(value)")
        }
    }

    /// Restrictions over via ways that cannot be placed are dropped and counted: via ways that do
    /// not join, a via way that is not a road.
    @Test func unusablePathsAreCounted() throws {
        var grid = GridMap(picture: "a---b---c---d   e---f", ways: ["ab", "bc", "cd", "ef"].map { ($0, ["name": $0]) })
        grid.relations = [("ab", ["bc"], "cd", ["restriction": "no_straight_on"]),
                          ("ab", ["ef"], "cd", ["restriction": "no_straight_on"]),
                          ("ab", ["cd"], "bc", ["restriction": "no_u_turn"])]
        let g = try grid.graph()
        #expect(g.report.restrictionsRead == 3 && g.report.restrictionsKept == 1 && g.report.restrictionsDropped == 2)
        #expect(g.restrictionPathCount == 1 && g.restrictionPath(0).count == 3)
        try check(grid, [("a", "d", "")])
    }
}

/// Where a car may turn round, as OSRM decides (`isTurnAllowed` in its intersection analysis):
/// at a dead end, at a turning circle or loop or a mini roundabout, where the road it came by is the
/// only way in or the only way out — not at an ordinary junction. (The random-graph oracle applies
/// the same rule, and OSRM's `uTurnsOverTwoViaWays` scenario depends on it.)
@Suite struct UTurnTests {
    /// Whether a car coming from a along `ab` may turn round at b, on the T junction a—b—c with d
    /// below b.
    func uTurnAtB(_ ways: [(nodes: String, tags: [String: String])], nodeTags: [Character: [String: String]] = [:],
                  relations: [(from: String, via: [String], to: String, tags: [String: String])] = []) throws -> Bool {
        let grid = GridMap(picture: "a---b---c\n    |\n    d", ways: ways, relations: relations, nodeTags: nodeTags)
        let g = try grid.graph()
        let table = TransitionTable(graph: g, turns: TurnGeometry(graph: g), costs: TurnCosts(for: g))
        let b = try #require(
            (0..<UInt32(g.nodeCount)).first { g.coordinate(of: $0).distance(to: grid.positions["b"]!) < 1 })
        let arriving = try #require(
            g.incoming(to: b).map { Int(g.incomingEdge[$0]) }.first {
                g.segmentWayID[g.segment(of: $0)] == Int64(grid.wayID("ab"))
            })
        let back = try #require(g.edges(from: b).first { g.isUTurn(arriving, $0) })
        return g.turnWeight(arriving, back, table: table) != nil
    }

    @Test func onlyWhereOSRMAllowsThem() throws {
        let twoWay = ["ab", "bc", "bd"].map { ($0, [String: String]()) }
        #expect(try !uTurnAtB(twoWay))
        #expect(try uTurnAtB(twoWay, nodeTags: ["b": ["highway": "turning_circle"]]))
        #expect(try uTurnAtB(twoWay, nodeTags: ["b": ["highway": "mini_roundabout"]]))
        // A blocking barrier at b cuts the roads there: each becomes a dead end.
        #expect(try uTurnAtB(twoWay, nodeTags: ["b": ["barrier": "block"]]))
        // c and d lead only away from b: ab is the only way in.
        #expect(try uTurnAtB([("ab", [:]), ("bc", ["oneway": "yes"]), ("bd", ["oneway": "yes"])]))
        // c and d lead only into b: back along ab is the only way out.
        #expect(try uTurnAtB([("ab", [:]), ("cb", ["oneway": "yes"]), ("db", ["oneway": "yes"])]))
        // One of them each way: neither rule applies.
        #expect(try !uTurnAtB([("ab", [:]), ("bc", ["oneway": "yes"]), ("db", ["oneway": "yes"])]))
        // Restrictions that forbid both other exits from ab leave the U-turn the only way out.
        #expect(try uTurnAtB(twoWay, relations: [("ab", ["b"], "bc", ["restriction": "no_straight_on"]),
                                                 ("ab", ["b"], "bd", ["restriction": "no_right_turn"])]))
        #expect(try !uTurnAtB(twoWay, relations: [("ab", ["b"], "bc", ["restriction": "no_straight_on"])]))
    }
}
