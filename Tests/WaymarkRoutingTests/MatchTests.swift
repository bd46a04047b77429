import Foundation
import Testing
import WaymarkGeo
import WaymarkQueries
import WaymarkRouting
import WaymarkSupport

/// Map matching (``RoadMap/match(_:options:)``) on a hand-drawn grid against OSRM 26.10's answers
/// (car.lua, CH, osrm-routed over HTTP with the same fixes), on both search methods.
@Suite struct MatchTests {
    /// 400 m between columns four apart, 200 m between rows two apart; every way named by its nodes.
    static let grid = GridMap(picture: """
        a---b---c---d
            |       |
            e---f---g
        """, ways: [("abcd", [:]), ("be", [:]), ("efg", [:]), ("dg", [:])], spacing: 100, namesFromNodes: true)

    /// Fixes along the nodes of `path`, `every` per piece between two nodes, the last at the last
    /// node; `offsets` moves fix i north and east by metres.
    static func trace(_ path: String, every: Int, offsets: [Int: (Double, Double)] = [:]) -> [Coordinate] {
        let places = grid.positions, nodes = Array(path)
        var fixes: [Coordinate] = []
        for (a, b) in zip(nodes, nodes.dropFirst()) {
            let p = places[a]!, q = places[b]!
            for k in 0..<every {
                let f = Double(k) / Double(every)
                fixes.append(Coordinate(latitude: p.latitude + (q.latitude - p.latitude) * f,
                                        longitude: p.longitude + (q.longitude - p.longitude) * f))
            }
        }
        fixes.append(places[nodes.last!]!)
        for (i, (north, east)) in offsets {
            fixes[i].latitude += north / 111_195
            fixes[i].longitude += east / (111_195 * cos(52 * Double.pi / 180))
        }
        return fixes
    }

    struct Case: Sendable, CustomStringConvertible {
        var label: String
        var path: String
        var every: Int
        var offsets: [Int: (Double, Double)] = [:]
        var times: [Int] = []
        var gaps = true
        var tidy = false
        var waypoints: [Int]?
        /// OSRM's matchings: confidence, metres, the roads in order.
        var matchings: [(Double, Double, String)]
        /// OSRM's tracepoints: `matchings_index.waypoint_index.alternatives_count` ("_" a null
        /// waypoint index), "-" for a fix not matched.
        var tracepoints: String
        /// Fixes where candidates tie exactly (two roads' ends at one node, as likely as each
        /// other): which one a tie keeps is the engine's, and so is the alternatives count there.
        var ties: Set<Int> = []
        var description: String { label }
    }

    static let straight = "0.0.0 0.1.0 0.2.0 0.3.0 0.4.0 0.5.1 0.6.1 0.7.1 0.8.1 0.9.1 0.10.1 0.11.1 0.12.1 0.13.1 "
        + "0.14.1 0.15.1 0.16.3"

    static let cases: [Case] = [
        // A clean trace matches its route exactly.
        Case(label: "clean", path: "abefg", every: 4, matchings: [(0.9803, 1404.8, "abcd,be,efg")],
             tracepoints: straight),
        // Noise within σ (5 m) still does.
        Case(label: "noise", path: "abefg", every: 4,
             offsets: [1: (4, -2), 2: (-3, 3), 3: (5, 1), 5: (-4, -4), 7: (3, 2), 9: (-5, 0), 11: (4, 3), 13: (-2, -5),
                       14: (3, 3)],
             matchings: [(0.9792, 1404.9, "abcd,be,efg")], tracepoints: straight, ties: [4]),
        // A pause of 73 s in a trace of one fix a second splits it.
        Case(label: "gap", path: "abcdg", every: 4, times: [0, 1, 2, 3, 4, 5, 6, 7, 80, 81, 82, 83, 84, 85, 86, 87, 88],
             matchings: [(0.9803, 702.6, "abcd"), (0.9803, 601.8, "abcd,dg")],
             tracepoints: "0.0.0 0.1.0 0.2.0 0.3.0 0.4.0 0.5.0 0.6.0 0.7.1 1.0.0 1.1.0 1.2.0 1.3.0 1.4.0 1.5.0 1.6.0 "
                + "1.7.0 1.8.3"),
        Case(label: "gaps ignored", path: "abcdg", every: 4,
             times: [0, 1, 2, 3, 4, 5, 6, 7, 80, 81, 82, 83, 84, 85, 86, 87, 88], gaps: false,
             matchings: [(0.9803, 1404.8, "abcd,dg")],
             tracepoints: "0.0.0 0.1.0 0.2.0 0.3.0 0.4.0 0.5.0 0.6.0 0.7.0 0.8.0 0.9.0 0.10.0 0.11.0 0.12.0 0.13.0 "
                + "0.14.0 0.15.0 0.16.3"),
        // Two fixes 50 m off the road: no candidate, and OSRM drops the two fixes before them too.
        Case(label: "off the road", path: "abcdg", every: 4, offsets: [8: (-50, 0), 9: (-50, 0)],
             matchings: [(0.9803, 1404.8, "abcd,dg")],
             tracepoints: "0.0.0 0.1.0 0.2.0 0.3.0 0.4.0 0.5.1 - - - - 0.6.1 0.7.1 0.8.1 0.9.1 0.10.1 0.11.1 0.12.3"),
        // Out to c and back to b: both directions kept at the fix where the trace turns.
        Case(label: "u-turn", path: "abcb", every: 4, matchings: [(0.9803, 1204.5, "abcd")],
             tracepoints: "0.0.0 0.1.0 0.2.0 0.3.0 0.4.0 0.5.0 0.6.0 0.7.0 0.8.0 0.9.0 0.10.0 0.11.1 0.12.5"),
        Case(label: "waypoints", path: "abefg", every: 4, waypoints: [0, 8, 16],
             matchings: [(0.9803, 1404.7, "abcd,be,efg")],
             tracepoints: "0.0.0 0._.0 0._.0 0._.0 0._.0 0._.1 0._.1 0._.1 0.1.1 0._.1 0._.1 0._.1 0._.1 0._.1 0._.1 "
                + "0._.1 0.2.3"),
        // Tidy with timestamps (a fix kept after 15 m and 5 s: every third) and without (every
        // fix 20 m apart kept, every other one 10 m apart).
        Case(label: "tidy", path: "abefg", every: 20, times: (0...80).map { 2 * $0 }, tidy: true,
             matchings: [(0.979, 1404.7, "abcd,be,efg")],
             tracepoints: (0..<26).map { "0.\($0).0 - -" }.joined(separator: " ") + " 0.26.0 - 0.27.3"),
        Case(label: "tidy without times", path: "abefg", every: 20, tidy: true,
             matchings: [(0.9803, 1405.9, "abcd,be,efg")],
             tracepoints: (0...20).map { "0.\($0).0" }.joined(separator: " ") + " "
                + (21...30).map { "- 0.\($0).1" }.joined(separator: " ") + " "
                + (31...69).map { "0.\($0).1" }.joined(separator: " ") + " 0.70.3"),
    ]

    /// The tracepoints as ``Case/tracepoints`` writes them, the alternatives count "?" at `ties`.
    static func tracepoints(_ matched: MapMatch, ties: Set<Int> = []) -> String {
        matched.tracepoints.enumerated().map { i, point in
            guard let point else { return "-" }
            let alternatives = ties.contains(i) ? "?" : String(point.alternativesCount)
            return "\(point.matchingIndex).\(point.waypointIndex.map(String.init) ?? "_").\(alternatives)"
        }.joined(separator: " ")
    }

    static func blurring(_ tracepoints: String, at ties: Set<Int>) -> String {
        tracepoints.split(separator: " ").enumerated().map { i, point in
            ties.contains(i) ? point.split(separator: ".").dropLast().joined(separator: ".") + ".?" : String(point)
        }.joined(separator: " ")
    }

    /// The roads a route drives, each once where it continues.
    static func roads(_ route: Route) -> String {
        var names: [String] = []
        for step in route.legs.flatMap(\.steps) where names.last != step.name { names.append(step.name) }
        return names.joined(separator: ",")
    }

    @Test(arguments: cases, [RoadMap.SearchMethod.automatic, .hierarchy])
    func matchesAsOSRMDoes(_ c: Case, method: RoadMap.SearchMethod) throws {
        let map = RoadMap(graph: try Self.grid.graph(), method: method)
        var options = MatchOptions()
        options.timestamps = c.times
        options.splitsAtGaps = c.gaps
        options.tidy = c.tidy
        options.route.legEnds = c.waypoints
        let matched = try map.match(Self.trace(c.path, every: c.every, offsets: c.offsets), options: options)
        #expect(Self.tracepoints(matched, ties: c.ties) == Self.blurring(c.tracepoints, at: c.ties))
        #expect(matched.matchings.count == c.matchings.count)
        for (got, (confidence, metres, roads)) in zip(matched.matchings, c.matchings) {
            #expect(abs(got.confidence - confidence) < 0.002, "confidence \(got.confidence) against \(confidence)")
            #expect(abs(got.route.distance - metres) < 2, "\(got.route.distance) m against \(metres)")
            #expect(Self.roads(got.route) == roads)
        }
    }
}

/// Timestamps a library caller gives: far apart in either direction, refused or cut, never an
/// arithmetic overflow.
@Suite struct MatchTimestampTests {
    @Test func extremeTimestamps() throws {
        let map = RoadMap(graph: try MatchTests.grid.graph())
        let trace = MatchTests.trace("abcd", every: 2)
        var options = MatchOptions()
        options.timestamps = [Int.min] + Array(repeating: 0, count: trace.count - 1)
        #expect(throws: RouteError.self) { try map.match(trace, options: options) }
        options.timestamps = Array(repeating: 0, count: trace.count - 1) + [Int.max]
        #expect(throws: RouteError.self) { try map.match(trace, options: options) }
        // Some 300,000 years between two fixes: a gap, the rest matched.
        options.timestamps = (0..<trace.count).map { $0 < 4 ? $0 : 10_000_000_000_000 + $0 }
        #expect(try map.match(trace, options: options).matchings.count >= 1)
    }
}

/// `exclude` keeps a match off a class of road: two parallel roads 10 m apart, the trace nearer the
/// toll one.
@Suite struct MatchExclusionTests {
    @Test(arguments: [RoadMap.SearchMethod.automatic, .hierarchy])
    func aTraceKeepsOffExcludedRoads(method: RoadMap.SearchMethod) throws {
        let grid = GridMap(picture: """
            a--------b
            c--------d
            """, ways: [("ab", ["toll": "yes"]), ("cd", [:])], spacing: 10, namesFromNodes: true)
        let map = RoadMap(graph: try grid.graph(), method: method)
        let a = grid.positions["a"]!, b = grid.positions["b"]!
        let trace = (0...6).map { k in
            Coordinate(latitude: a.latitude - 2 / 111_195,
                       longitude: a.longitude + (b.longitude - a.longitude) * Double(k) / 6)
        }
        let plain = try map.match(trace)
        #expect(plain.matchings.map { MatchTests.roads($0.route) } == ["ab"])
        var options = MatchOptions()
        options.route.exclude = .toll
        let kept = try map.match(trace, options: options)
        #expect(kept.matchings.map { MatchTests.roads($0.route) } == ["cd"])
    }
}

/// The Viterbi pass against an oracle that scores every way through a random trellis (fixed
/// seeds): the matching it returns is one of the likeliest.
@Suite struct TraceMatchingOracleTests {
    @Test func theMatchingIsTheLikeliestWayThroughTheTrellis() {
        var rng = SplitMix64(seed: 44)
        var compared = 0
        for _ in 0..<300 {
            let count = 2 + Int(rng.next() % 5)
            let (fixes, candidates) = Self.trellis(count, upTo: 4, &rng)
            // Road distances per step and pair: about the line's, some much longer, some none.
            var roads: [[Double?]] = []
            for t in 1..<count {
                let straight = TraceMatching.distance(fixes[t - 1], fixes[t])
                roads.append((0..<(candidates[t - 1].count * candidates[t].count)).map { _ in
                    rng.next() % 6 == 0 ? nil : straight + rng.uniform(0, rng.next() % 4 == 0 ? 300 : 30)
                })
            }
            let trace = TraceMatching.Trace(coordinates: fixes, timestamps: [], precisions: [], splitsAtGaps: true,
                                            maxSpeed: 50)
            let found = TraceMatching.match(trace, candidates: candidates) { from, to, _ in
                from.flatMap { a in
                    to.map { b -> TraceMatching.Move in
                        let t = b.segment / 10
                        // (Only from the fix before: the oracle's ways never skip one.)
                        guard a.segment / 10 == t - 1 else { return nil }
                        return roads[t - 1][a.segment % 10 * candidates[t].count + b.segment % 10]
                    }
                }
            }
            guard let best = Self.best(fixes, candidates, roads) else { continue }
            compared += 1
            guard found.count == 1, found[0].fixes == Array(0..<count) else {
                Issue.record("a full way exists (\(best)) but the matching is \(found)")
                continue
            }
            #expect(abs(Self.score(found[0].candidates, fixes, candidates, roads)! - best) < 1e-9)
        }
        #expect(compared > 100)
    }

    /// A pass that cuts the trace takes steps again from where it cut: the moves of a step are
    /// asked for once, and kept (up to a bound: past it they are asked for again, same answer).
    @Test func aStepTakenAgainAsksNoMoveTwice() {
        var rng = SplitMix64(seed: 47)
        var cut = 0
        for _ in 0..<200 {
            let (fixes, candidates) = Self.trellis(8 + Int(rng.next() % 20), upTo: 2, &rng)
            // A move for any pair of candidates (fix × 10 + index each), missing often: the trace breaks.
            var roads: [Int: Double?] = [:]
            for a in candidates.joined() {
                for b in candidates.joined() where b.segment / 10 > a.segment / 10 {
                    let straight = TraceMatching.distance(fixes[a.segment / 10], fixes[b.segment / 10])
                    roads[a.segment * 1000 + b.segment] = rng.next() % 3 != 0 ? nil : straight + rng.uniform(0, 40)
                }
            }
            let trace = TraceMatching.Trace(coordinates: fixes, timestamps: [], precisions: [], splitsAtGaps: true,
                                            maxSpeed: 50)
            var asked: [Int: Int] = [:]
            let found = TraceMatching.match(trace, candidates: candidates) { from, to, _ in
                from.flatMap { a in
                    to.map { b in
                        asked[a.segment * 1000 + b.segment, default: 0] += 1
                        return roads[a.segment * 1000 + b.segment]!
                    }
                }
            }
            #expect(asked.values.allSatisfy { $0 == 1 })
            if found.count > 1 { cut += 1 }
            // Keeping none (asking again at every step) changes nothing.
            let forgetful = TraceMatching.match(trace, candidates: candidates, movesKept: 0) { from, to, _ in
                from.flatMap { a in to.map { b in roads[a.segment * 1000 + b.segment]! } }
            }
            #expect(forgetful == found)
        }
        #expect(cut > 20)
    }

    /// `count` fixes along a line and 1…`most` candidates at each, within 15 m. (Each
    /// candidate's segment says where it is: fix × 10 + its index.)
    static func trellis(_ count: Int, upTo most: UInt64, _ rng: inout SplitMix64) -> ([Coordinate], [[Snap]]) {
        let fixes = (0..<count).map { Coordinate(latitude: 52, longitude: 13 + Double($0) * 0.001) }
        let candidates = fixes.enumerated().map { t, c in
            (0..<(1 + Int(rng.next() % most))).map { k in
                Snap(segment: t * 10 + k, offset: 0, length: 1, coordinate: c, distance: rng.uniform(0, 15))
            }
        }
        return (fixes, candidates)
    }

    /// The log-likelihood of choosing `choice[t]` at each fix, nil where a move is missing.
    static func score(_ choice: [Int], _ fixes: [Coordinate], _ candidates: [[Snap]], _ roads: [[Double?]]) -> Double? {
        var total = TraceMatching.emission(candidates[0][choice[0]].distance, sigma: 5)
        for t in 1..<fixes.count {
            guard let road = roads[t - 1][choice[t - 1] * candidates[t].count + choice[t]] else { return nil }
            total += TraceMatching.emission(candidates[t][choice[t]].distance, sigma: 5)
                + TraceMatching.transition(abs(road - TraceMatching.distance(fixes[t - 1], fixes[t])))
        }
        return total
    }

    /// The best score over every choice of one candidate per fix, nil where no choice has every move.
    static func best(_ fixes: [Coordinate], _ candidates: [[Snap]], _ roads: [[Double?]]) -> Double? {
        var best: Double?
        func visit(_ choice: [Int]) {
            if choice.count == fixes.count {
                if let s = score(choice, fixes, candidates, roads), s > best ?? -.infinity { best = s }
                return
            }
            for k in candidates[choice.count].indices { visit(choice + [k]) }
        }
        visit([])
        return best
    }
}
