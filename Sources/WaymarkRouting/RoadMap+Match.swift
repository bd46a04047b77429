import WaymarkGeo
import WaymarkGuidance
import WaymarkPreparation
import WaymarkQueries
import WaymarkSupport

/// OSRM's match options: what the trace says besides its points, and how it may be cut.
public struct MatchOptions: Sendable {
    /// Seconds since any epoch, one per fix, never decreasing (OSRM's `timestamps`); empty when
    /// the trace has none.
    public var timestamps: [Int] = []
    /// Whether a pause between fixes much longer than the trace's usual interval cuts it (OSRM's
    /// `gaps=split`, the default) or not (`gaps=ignore`).
    public var splitsAtGaps = true
    /// Whether fixes close together are merged first (OSRM's `tidy`: a fix kept after each 15 m
    /// and 5 s); merged fixes get no tracepoint.
    public var tidy = false
    /// `radiuses` is each fix's GPS noise in metres (OSRM's: the roads searched lie within three
    /// times it; nil for 5 m); `bearings`, `exclude`, `annotations` and `language` as for a route;
    /// `legEnds` the fixes that end legs (OSRM's `waypoints`; nil: every matched fix).
    public var route = RouteOptions()

    public init() {}
}

/// A trace matched to the roads: one matching per unbroken piece, and one tracepoint per fix.
public struct MapMatch: Sendable {
    /// A piece of the trace matched: the route through its matched fixes, and OSRM's confidence
    /// in it (0…1).
    public struct Matching: Sendable {
        public var route: Route
        public var confidence: Double
    }

    /// Where a fix was matched: its point on the road, the matching it is in, its waypoint there,
    /// and how many other points of the road could have been chosen for it.
    public struct Tracepoint: Sendable {
        public var snap: Snap
        public var name: String
        public var matchingIndex: Int
        /// Its waypoint in the matching's route (nil: a fix passed through, with `legEnds`).
        public var waypointIndex: Int?
        public var alternativesCount: Int
    }

    public var matchings: [Matching]
    /// One per fix given, nil where a fix was not matched (too far from any road, cut off, or
    /// merged by `tidy`).
    public var tracepoints: [Tracepoint?]
}

extension RoadMap {
    /// The roads a GPS trace most likely followed (OSRM's `match`): ``TraceMatching``'s hidden
    /// Markov model over the road points near each fix, with the road distance between fixes from
    /// the shared many-to-many search; then the route through the chosen points of each unbroken
    /// piece. Errors as OSRM's: `NoSegment` when no fix has a road near it, `NoMatch` when no
    /// piece of two fixes or more matches (or `legEnds` cannot be kept). Thread-safe.
    public func match(_ trace: [Coordinate], options: MatchOptions = MatchOptions()) throws(RouteError) -> MapMatch {
        try withRouter(excluding: options.route.exclude) { (router) throws(RouteError) in
            try router.match(trace, options: options)
        }
    }
}

extension Router {
    /// ``RoadMap/match(_:options:)`` on this router.
    public func match(_ trace: [Coordinate], options: MatchOptions = MatchOptions()) throws(RouteError) -> MapMatch {
        try Self.check(trace, options)
        let kept = options.tidy ? TraceMatching.tidied(trace, timestamps: options.timestamps) : Array(trace.indices)
        func pick<T>(_ values: [T]) -> [T] { values.isEmpty ? [] : kept.map { values[$0] } }
        let points = pick(trace)
        let radiuses = pick(options.route.radiuses), bearings = pick(options.route.bearings)
        let lists = points.indices.map { candidates(near: points, at: $0, radius: radiuses, bearings: bearings) }
        guard lists.contains(where: { !$0.isEmpty }) else {
            throw .noSegmentNearTrace
        }
        let model = TraceMatching.Trace(coordinates: points, timestamps: pick(options.timestamps),
                                        precisions: radiuses, splitsAtGaps: options.splitsAtGaps,
                                        maxSpeed: graph.travel.maxSpeedForMatching)
        let found = TraceMatching.match(model, candidates: lists) { from, to, maxWeight, found in
            forEachCell(from: from, to: to, maxWeight: maxWeight) { k, _, metres in found(k, metres) }
        }
        guard !found.isEmpty else { throw .noMatch("Could not match the trace.") }
        let legEnds = try options.route.legEnds.map { (ends) throws(RouteError) in
            try Self.legEnds(ends, kept: kept, matched: found)
        }
        var asked = options.route
        asked.continueStraight = false
        asked.alternatives = 0
        asked.hints = []
        (asked.radiuses, asked.bearings, asked.approaches) = ([], [], [])
        asked.legEnds = legEnds
        var result = MapMatch(matchings: [], tracepoints: Array(repeating: nil, count: trace.count))
        for (m, matching) in found.enumerated() {
            let snaps = zip(matching.fixes, matching.candidates).map { lists[$0][$1] }
            let route = try routes(snapped: snaps, input: matching.fixes.map { points[$0] }, options: asked,
                                   shortLegsByAStar: true)[0]
            result.matchings.append(.init(route: route, confidence: matching.confidence))
            for (k, t) in matching.fixes.enumerated() {
                // (With leg ends, a fix between them is no waypoint of the route.)
                let waypoint = legEnds.map { $0.firstIndex(of: k) } ?? k
                result.tracepoints[kept[t]] = .init(snap: snaps[k], name: graph.name(ofSegment: snaps[k].segment),
                                                    matchingIndex: m, waypointIndex: waypoint,
                                                    alternativesCount: matching.alternatives[k])
            }
        }
        return result
    }

    /// The road points near fix `i`, nearest first: one per road piece within three times the
    /// fix's noise, each direction apart unless the trace turns back there (OSRM's candidates).
    private func candidates(near points: [Coordinate], at i: Int, radius: [Double?],
                            bearings: [(value: Int, range: Int)?]) -> [Snap] {
        let sigma = (radius.isEmpty ? nil : radius[i]) ?? TraceMatching.defaultPrecision
        // (A negative noise reaches no road, as in OSRM; none at all, only a road under the fix.)
        guard sigma >= 0 else { return [] }
        let filter = SnapFilter(bearing: bearings.isEmpty ? nil : bearings[i], anyRoad: true, excluded: data.excluded)
        let found = data.snapIndex.nearest(to: points[i], maxDistance: 3 * sigma, count: .max, filter: filter)
        guard !TraceMatching.turnsBack(points, at: i) else { return found }
        var split: [Snap] = []
        split.reserveCapacity(2 * found.count)
        for snap in found {
            var along = snap
            if snap.forward && snap.backward { along.backward = false }
            split.append(along)
        }
        // (As OSRM: each road's other direction after all the first ones, then nearest first, points
        // as near kept in that order.)
        for snap in found where snap.forward && snap.backward {
            var against = snap
            against.forward = false
            split.append(against)
        }
        split.insertionSort { $0.distance < $1.distance }
        return split
    }

    /// Why the trace or its options cannot be matched (OSRM's checks), or nothing.
    private static func check(_ trace: [Coordinate], _ options: MatchOptions) throws(RouteError) {
        guard trace.count >= 2 else { throw .invalidInput("a trace needs at least two coordinates") }
        if let problem = options.route.problem(waypoints: trace.count) { throw .invalidInput(problem) }
        let times = options.timestamps
        guard times.isEmpty || times.count == trace.count else {
            throw .invalidInput("timestamps: \(times.count) given for \(trace.count) coordinates")
        }
        guard zip(times, times.dropFirst()).allSatisfy({ $0 <= $1 }) else {
            throw .invalidValue("Timestamps need to be monotonically increasing.")
        }
        // (Within a million years of 1970 either way: their differences and sums stay exact.)
        guard times.allSatisfy({ $0.magnitude <= 31_557_600_000_000 }) else {
            throw .invalidValue("timestamps: seconds beyond a million years from 1970")
        }
        for case let r? in options.route.radiuses where r.isNaN || r.isInfinite {
            throw .invalidValue("radiuses: \(r) is not a distance in metres")
        }
    }

    /// The waypoints given (fixes of the trace) as places in the one matching's route; OSRM's
    /// `NoMatch` when the trace was cut or a waypoint was not matched.
    private static func legEnds(_ ends: [Int], kept: [Int],
                                matched: [TraceMatching.Matching]) throws(RouteError) -> [Int] {
        guard matched.count == 1 else { throw .noMatch("Could not match the trace with the given waypoints.") }
        // A fix merged by tidy ends its leg at the fix kept before it.
        let tidied = Set(ends.map { end in kept.lastIndex { $0 <= end }! })
        var places: [Int] = []
        for t in tidied.sorted() {
            guard let k = matched[0].fixes.firstIndex(of: t) else {
                throw .noMatch("Requested waypoint parameter could not be matched.")
            }
            places.append(k)
        }
        return places
    }
}
