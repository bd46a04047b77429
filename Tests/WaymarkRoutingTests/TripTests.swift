import Foundation
import Testing
import WaymarkGeo
import WaymarkOSM
import WaymarkQueries
import WaymarkRouting
import WaymarkSupport

/// The order of a trip's stops (``TripOrder``) against brute force over every order, for every
/// combination OSRM implements, and a trip on a map.
@Suite struct TripTests {
    /// An asymmetric table of travel times (a one-way street makes A→B and B→A differ).
    static func table(_ n: Int, seed: UInt64) -> [[Double]] {
        var rng = SplitMix64(seed: seed)
        let points = (0..<n).map { _ in (rng.uniform(0, 1000), rng.uniform(0, 1000)) }
        return (0..<n).map { i in (0..<n).map { j in
            i == j ? 0 : hypot(points[i].0 - points[j].0, points[i].1 - points[j].1) * rng.uniform(1, 1.4)
        } }
    }

    /// Every order of `0..<n`.
    static func permutations(_ n: Int) -> [[Int]] {
        guard n > 1 else { return [Array(0..<n)] }
        return permutations(n - 1).flatMap { p in (0...p.count).map { var q = p; q.insert(n - 1, at: $0); return q } }
    }

    /// The least seconds brute force finds for the trip the options ask for.
    static func bruteForce(_ d: [[Double]], roundtrip: Bool, fixedStart: Bool, fixedEnd: Bool) -> Double {
        let n = d.count
        return permutations(n).filter { (!fixedStart || $0.first == 0) && (!fixedEnd || $0.last == n - 1) }
            .map { TripOrder.duration(of: $0, d, roundtrip: roundtrip) }.min()!
    }

    static let combinations = [(true, false, false), (true, true, false), (true, false, true), (true, true, true),
                               (false, true, false), (false, false, true), (false, true, true)]

    @Test(arguments: 3...7) func ordersAreTheBestOfEveryOrder(n: Int) {
        for seed in 1...4 {
            let d = Self.table(n, seed: UInt64(seed * 100 + n))
            for (roundtrip, fixedStart, fixedEnd) in Self.combinations {
                let what = "n \(n) seed \(seed) roundtrip \(roundtrip) start \(fixedStart) end \(fixedEnd)"
                guard let order = TripOrder.order(durations: d, roundtrip: roundtrip, fixedStart: fixedStart,
                                                  fixedEnd: fixedEnd) else { Issue.record("\(what): none"); continue }
                #expect(order.sorted() == Array(0..<n), "\(what)")
                if fixedStart { #expect(order.first == 0, "\(what)") }
                // (A round trip with a fixed end starts there, as OSRM's: it comes back to it.)
                if fixedEnd { #expect((roundtrip && !fixedStart ? order.first : order.last) == n - 1, "\(what)") }
                // A round trip from a fixed end is the same loop; the best is the best loop.
                let ends = roundtrip ? (false, false) : (fixedStart, fixedEnd)
                let best = Self.bruteForce(d, roundtrip: roundtrip, fixedStart: ends.0, fixedEnd: ends.1)
                let got = roundtrip && fixedStart && fixedEnd
                    ? TripOrder.duration(of: order, d, roundtrip: true)
                    : TripOrder.duration(of: order, d, roundtrip: roundtrip)
                if roundtrip && fixedStart && fixedEnd {
                    // OSRM's fixed start and end: 0 first, n − 1 last, the way between them the
                    // shortest such path (then back to 0).
                    let path = Self.bruteForce(d, roundtrip: false, fixedStart: true, fixedEnd: true)
                    #expect(abs(TripOrder.duration(of: order, d, roundtrip: false) - path) < 1e-6, "\(what)")
                    #expect(order.last == n - 1, "\(what)")
                } else {
                    #expect(abs(got - best) < 1e-6, "\(what): \(got) against \(best)")
                }
            }
        }
    }

    /// Beyond the exact limit: a valid order, never longer than farthest insertion alone.
    @Test func largeTripsImproveOnFarthestInsertion() {
        for seed in 1...3 {
            let d = Self.table(40, seed: UInt64(seed))
            let start = TripOrder.farthestInsertion(d), order = TripOrder.order(durations: d, roundtrip: true,
                fixedStart: false, fixedEnd: false)!
            #expect(order.sorted() == Array(0..<40) && order.first == 0)
            #expect(TripOrder.duration(of: order, d, roundtrip: true)
                    <= TripOrder.duration(of: start, d, roundtrip: true) + 1e-6)
        }
        // On tables small enough for the exact order, the heuristic is close to it.
        let d = Self.table(12, seed: 9)
        let exact = TripOrder.duration(of: TripOrder.exact(d), d, roundtrip: true)
        let heuristic = TripOrder.duration(of: TripOrder.improved(TripOrder.farthestInsertion(d), d), d,
                                           roundtrip: true)
        #expect(heuristic >= exact - 1e-6 && heuristic <= exact * 1.1)
    }

    @Test func unreachableStopsAndOSRMsMissingCombinationHaveNoOrder() {
        var d: [[Double?]] = Self.table(4, seed: 1)
        #expect(TripOrder.order(durations: d, roundtrip: false, fixedStart: false, fixedEnd: false) == nil)
        d[2][1] = nil
        #expect(TripOrder.order(durations: d, roundtrip: true, fixedStart: false, fixedEnd: false) == nil)
    }

    /// A round trip through the sample town's four places: a leg per stop, back to the first.
    @Test func aTripOnTheSampleTown() throws {
        let map = RoadMap(graph: try OSMGraphLoader.build(path: packageRoot() + "/Data/sample-town.osm"))
        let stops = [Coordinate(latitude: 52.309427, longitude: -2.598781),
                     Coordinate(latitude: 52.311680, longitude: -2.572561),
                     Coordinate(latitude: 52.3060, longitude: -2.5900),
                     Coordinate(latitude: 52.3128, longitude: -2.5905)]
        let trip = try map.trip(stops)
        #expect(trip.order.first == 0 && trip.order.sorted() == [0, 1, 2, 3])
        #expect(trip.route.legs.count == 4)
        #expect(trip.order.enumerated().allSatisfy { trip.placeOfStop[$0.element] == $0.offset })
        var open = TripOptions()
        open.route.radiuses = [nil, 500, nil, nil]
        open.roundtrip = false
        #expect(throws: RouteError.self) { try map.trip(stops, options: open) }
        open.fixedEnd = true
        let oneWay = try map.trip(stops, options: open)
        #expect(oneWay.route.legs.count == 3 && oneWay.order.last == 3)
        // OSRM 26.10 (car.lua, CH) on the same town and stops: each stop's place and the trip's
        // seconds, for each combination it implements.
        let osrm: [((Bool, Bool, Bool), [Int], Double)] = [
            ((true, false, false), [0, 2, 3, 1], 535.4), ((false, true, false), [0, 3, 2, 1], 378.4),
            ((false, false, true), [2, 0, 1, 3], 372.7), ((true, true, true), [0, 1, 2, 3], 536.6)]
        for ((roundtrip, start, end), places, seconds) in osrm {
            var options = TripOptions()
            (options.roundtrip, options.fixedStart, options.fixedEnd) = (roundtrip, start, end)
            let got = try map.trip(stops, options: options)
            #expect(got.placeOfStop == places, "\(roundtrip) \(start) \(end)")
            #expect(abs(got.route.duration / seconds - 1) < 0.02, "\(got.route.duration) against \(seconds)")
        }
        // Every order's travel time from the trip's own table: the trip's is the least.
        let table = try map.table(sources: stops, destinations: stops)
        let seconds = (0..<4).map { i in (0..<4).map { j in i == j ? 0 : table.durations[i * 4 + j]! } }
        #expect(abs(TripOrder.duration(of: trip.order, seconds, roundtrip: true)
                    - Self.bruteForce(seconds, roundtrip: true, fixedStart: false, fixedEnd: false)) < 1e-6)
    }
}
