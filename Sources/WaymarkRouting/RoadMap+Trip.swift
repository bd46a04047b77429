import WaymarkGeo
import WaymarkGuidance
import WaymarkQueries

/// OSRM's trip options: whether the trip comes back, and which stops are fixed at its ends.
public struct TripOptions: Sendable {
    /// Back to the first stop at the end (OSRM's `roundtrip`, default true).
    public var roundtrip = true
    /// The first stop given is the trip's first (OSRM's `source=first`; default `any`).
    public var fixedStart = false
    /// The last stop given is the trip's last (OSRM's `destination=last`; default `any`).
    public var fixedEnd = false
    /// How each stop snaps and what the route holds (radiuses, bearings, `exclude`, annotations,
    /// language); `legEnds`, `alternatives`, `hints` and `continueStraight` are the trip's own.
    public var route = RouteOptions()

    public init() {}
}

/// A trip: its route, stop by stop in the order chosen, and where each stop given comes in it.
public struct Trip: Sendable {
    /// Legs from stop to stop in visiting order (and back to the first, for a round trip).
    public var route: Route
    /// The stops given, by index, in visiting order.
    public var order: [Int]
    /// For each stop given, its place in ``order`` (OSRM's `waypoint_index`).
    public var placeOfStop: [Int]
}

extension RoadMap {
    /// The best order to visit `stops` in and the route through them in that order (OSRM's
    /// `trip`): the travel times between every two stops from one table (the shared search kit),
    /// the order from ``TripOrder`` (exact up to 15 stops), then one route. Errors as OSRM's:
    /// `NotImplemented` for a trip that neither comes back nor has a fixed end, `NoTrips` where
    /// some stop cannot be reached from another. Thread-safe.
    public func trip(_ stops: [Coordinate], options: TripOptions = TripOptions()) throws(RouteError) -> Trip {
        guard TripOrder.isSupported(roundtrip: options.roundtrip, fixedStart: options.fixedStart,
                                    fixedEnd: options.fixedEnd) else {
            throw .notImplemented("a trip that does not come back needs source=first or destination=last")
        }
        guard stops.count >= 2 else { throw .invalidInput("a trip needs at least two stops") }
        // (The table takes a radius per source, then per destination: the stops twice.)
        let radiuses = options.route.radiuses.isEmpty ? [] : options.route.radiuses + options.route.radiuses
        let table = try self.table(sources: stops, destinations: stops, radiuses: radiuses,
                                   exclude: options.route.exclude)
        let n = stops.count
        let durations = (0..<n).map { i in (0..<n).map { j in i == j ? 0 : table.durations[i * n + j] } }
        guard let order = TripOrder.order(durations: durations, roundtrip: options.roundtrip,
                                          fixedStart: options.fixedStart, fixedEnd: options.fixedEnd) else {
            throw .noTrips
        }
        var asked = options.route
        asked.legEnds = nil
        asked.alternatives = 0
        asked.hints = []
        // As OSRM's trip: a stop may be left the way the route came (its search's
        // `continue_straight` is false at every stop).
        asked.continueStraight = false
        func inOrder<T>(_ values: [T]) -> [T] {
            values.count == n ? (order + (options.roundtrip ? [order[0]] : [])).map { values[$0] } : values
        }
        (asked.radiuses, asked.bearings, asked.approaches) = (inOrder(options.route.radiuses),
                                                             inOrder(options.route.bearings),
                                                             inOrder(options.route.approaches))
        let points = order.map { stops[$0] } + (options.roundtrip ? [stops[order[0]]] : [])
        let route = try routes(points, options: asked)[0]
        var place = [Int](repeating: 0, count: n)
        for (k, stop) in order.enumerated() { place[stop] = k }
        return Trip(route: route, order: order, placeOfStop: place)
    }
}
