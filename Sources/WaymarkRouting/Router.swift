import Foundation
import WaymarkGeo
import WaymarkGraph
import WaymarkGuidance
import WaymarkPreparation
import WaymarkQueries

/// Routes between coordinates on a ``RoadMap``: snapping, search, assembly into legs and steps.
///
/// A router owns the scratch of the one search it runs — the contraction hierarchy's when the map
/// routes on one, A*'s otherwise — and shares everything else with the map; use one per thread
/// (``RoadMap/makeRouter()``), or let ``RoadMap/route(from:to:via:)`` lend one.
public final class Router {
    // No reference back to the map: the map pools routers, and a router holding its map would
    // keep both alive for ever (found by the fuzzer's leak check).
    public let graph: RoadGraph
    /// Maximum distance in metres from a waypoint to its road (default: the map's).
    public var maxSnapDistance: Double
    let data: RoutingData
    /// Guidance's tables, which tell the routes found.
    let guidance: GuidanceTables
    private let engine: Engine
    /// The many-to-many search, made at the first table.
    private var tableSearch: TableSearch?
    /// The one-to-all search, made at the first isochrone.
    private var isochroneSearch: IsochroneSearch?
    /// The search for alternative routes, made at the first that asks for them.
    private var alternativeSearch: AlternativeSearch?
    /// A* beside the hierarchy, for the short legs between a matched trace's fixes (made at the
    /// first trace matched): it settles a handful of states where the hierarchy climbs hundreds.
    private var shortLegSearch: RouteSearch?
    /// Guidance's assembler, with what it keeps between routes (made once: it holds copies of
    /// the graph's columns, each retained when one is made).
    private let assembler: StepAssembler
    /// Legs shorter than this, in a straight line, go to ``shortLegSearch`` while a trace's route
    /// is searched (an exact search too: the same weights).
    static let shortLeg = 250.0
    /// What an alternative route must be (``AlternativeRules/standard`` unless changed).
    public var alternativeRules = AlternativeRules.standard
    /// The graph's checksum, which hints carry (``hint(for:input:)``).
    let mapChecksum: UInt32

    private enum Engine {
        case hierarchy(HierarchySearch)
        case search(RouteSearch)
    }

    init(map: RoadMap, prepared: PreparedMap) {
        let data = prepared.data
        self.data = data
        guidance = prepared.guidance
        graph = data.graph
        maxSnapDistance = map.maxSnapDistance
        engine = data.hierarchy != nil ? .hierarchy(HierarchySearch(data: data)) : .search(RouteSearch(data: data))
        mapChecksum = Router.checksum(of: data.graph)
        assembler = StepAssembler(data: data, guidance: prepared.guidance, kept: StepAssembler.Kept())
    }

    /// States the last search took off its heaps (a measure of search effort).
    public var settled: Int {
        switch engine {
        case let .hierarchy(search): search.settled
        case let .search(search): search.settled
        }
    }

    /// The fastest path between two snapped points (nil: unreachable).
    public func path(from a: Snap, to b: Snap) -> RoutePath? {
        path(from: data.snapIndex.edgePoints(a, graph: graph), to: data.snapIndex.edgePoints(b, graph: graph),
             at: b.coordinate)
    }

    /// The fastest path from any of `starts` (each after the weight it spent) to any of `goals`
    /// (on the segment of `goal`), or nil.
    private func path(from starts: [EdgePoint], to goals: [EdgePoint], at goal: Coordinate) -> RoutePath? {
        switch engine {
        case let .hierarchy(search): search.route(from: starts, to: goals)
        case let .search(search): search.route(from: starts, to: goals, at: goal)
        }
    }

    /// Whether leg k (from snap k, whose points are `starts`, to snap k + 1) goes to
    /// ``shortPath(from:to:at:)``: a leg shorter than ``shortLeg`` where `shortLegsByAStar` asks.
    private func isShortLeg(_ k: Int, _ snaps: [Snap], starts: [EdgePoint], shortLegsByAStar: Bool) -> Bool {
        shortLegsByAStar && !starts.isEmpty
            && snaps[k].coordinate.distance(to: snaps[k + 1].coordinate) < Router.shortLeg
    }

    /// ``path(from:to:at:)`` by A* (on a map routing on a hierarchy, its searcher made now).
    private func shortPath(from starts: [EdgePoint], to goals: [EdgePoint], at goal: Coordinate) -> RoutePath? {
        guard case .hierarchy = engine else { return path(from: starts, to: goals, at: goal) }
        let search = shortLegSearch ?? RouteSearch(data: data, landmarks: false)
        shortLegSearch = search
        return search.route(from: starts, to: goals, at: goal)
    }

    /// Snaps points together, as OSRM does (`SnapPhantomNodes`): inside a tiny component only
    /// when every point is nearest to it. `radiuses`, one per point where given, is how far each
    /// may be from its road (nil: ``maxSnapDistance``); `filters` (one per point, or none) what it
    /// may snap to; `given` (one per point, or none) snaps made before, used as they are.
    private func snap(_ points: [Coordinate], radiuses: [Double?], filters: [SnapFilter] = [],
                      given: [Snap?] = []) throws(RouteError) -> [Snap] {
        guard radiuses.isEmpty
            || radiuses.count == points.count else { throw .invalidInput("give one radius per point") }
        let candidates = try points.enumerated().map { (i, c) throws(RouteError) in
            if !given.isEmpty, let snap = given[i] { return (nearest: snap, big: Snap?.none) }
            let reach = radiuses.isEmpty ? maxSnapDistance : radiuses[i] ?? maxSnapDistance
            var filter = filters.isEmpty ? .standard : filters[i]
            filter.excluded = data.excluded
            guard let found = data.snapIndex.candidates(near: c, maxDistance: reach, filter: filter) else {
                throw data.noRoadError(c, maxDistance: reach)
            }
            return found
        }
        return SnapIndex.choose(candidates)
    }

    /// Snaps a waypoint, or fails with ``RouteError/noSegment(_:maxDistance:)``.
    public func snap(_ c: Coordinate) throws(RouteError) -> Snap {
        guard let snap = data.snapIndex.nearest(to: c, maxDistance: maxSnapDistance,
                                                filter: SnapFilter(excluded: data.excluded)) else {
            throw data.noRoadError(c, maxDistance: maxSnapDistance)
        }
        return snap
    }

    /// The fastest route through the waypoints in order (two or more), its instructions in
    /// `language`. `radiuses`, one per waypoint where given, is how far each may be from its road
    /// (nil: ``maxSnapDistance``).
    public func route(_ waypoints: [Coordinate], radiuses: [Double?] = [],
                      language: InstructionTemplates = .english) throws(RouteError) -> Route {
        var options = RouteOptions()
        options.radiuses = radiuses
        options.language = language
        return try routes(waypoints, options: options)[0]
    }

    /// The fastest route through the waypoints in order (two or more) as `options` asks, then
    /// up to ``RouteOptions/alternatives`` others (two waypoints only), best first.
    public func routes(_ waypoints: [Coordinate], options: RouteOptions) throws(RouteError) -> [Route] {
        guard waypoints.count >= 2 else { throw .invalidInput("a route needs at least two waypoints") }
        if let problem = options.problem(waypoints: waypoints.count) { throw .invalidInput(problem) }
        // (A hint may lie on a road the route is to keep off: snapped again then.)
        let given = data.excluded.isEmpty ? options.hints.enumerated().map { i, hint in
            hint.flatMap { snap(fromHint: $0, input: waypoints[i]) }
        } : []
        let snaps = try snap(waypoints, radiuses: options.radiuses,
                             filters: waypoints.indices.map(options.filter), given: given)
        return try routes(snapped: snaps, input: waypoints, options: options)
    }

    /// The routes through waypoints already snapped (`snaps`, one per coordinate of `waypoints`).
    func routes(snapped snaps: [Snap], input waypoints: [Coordinate], options: RouteOptions,
                shortLegsByAStar: Bool = false) throws(RouteError) -> [Route] {
        let ends = options.legEnds ?? Array(waypoints.indices)
        let paths = try legPaths(snaps, waypoints, turningAt: options.continueStraight ? [] : Set(ends),
                                 shortLegsByAStar: shortLegsByAStar)
        // A leg through silent via points is the paths joined: each carries on the edge the one
        // before it ended on.
        var legs: [RoutePath] = []
        for (a, b) in zip(ends, ends.dropFirst()) {
            legs.append(paths[a..<b].dropFirst().reduce(paths[a]) { $0.joined(with: $1, data: data) })
        }
        var routes = [tell(legs, snaps: snaps, ends: ends, input: waypoints, options: options)]
        if options.alternatives > 0 && waypoints.count == 2 {
            for path in alternatives(to: legs[0], from: snaps[0], to: snaps[1], count: options.alternatives) {
                routes.append(tell([path], snaps: snaps, ends: ends, input: waypoints, options: options))
            }
        }
        return routes
    }

    /// The best path of each leg between consecutive snaps, chosen together: at a via point not
    /// in `turning` the next leg leaves in the direction the last one arrived (no U-turn), so the
    /// legs are searched as OSRM does without U-turns, to each direction of the via point in turn,
    /// and the cheapest chain wins.
    private func legPaths(_ snaps: [Snap], _ input: [Coordinate], turningAt turning: Set<Int>,
                          shortLegsByAStar: Bool) throws(RouteError) -> [RoutePath] {
        if (1..<(snaps.count - 1)).allSatisfy(turning.contains) {
            return try independentLegPaths(snaps, input, shortLegsByAStar: shortLegsByAStar)
        }
        // Per leg, the ways found to its goal: the path, the weight up to its end, and the way
        // of the leg before it that it carries on from.
        typealias Arrival = (path: RoutePath, total: Double, previous: Int)
        var arrivals: [[Arrival]] = []
        for k in 0..<(snaps.count - 1) {
            var starts = data.snapIndex.edgePoints(snaps[k], graph: graph)
            var from: [(edge: Int, arrival: Int)] = [] // the arrival each start edge continues (two at most)
            if let before = arrivals.last {
                if turning.contains(k) {
                    let best = before.indices.min { before[$0].total < before[$1].total }!
                    for i in starts.indices {
                        starts[i].spent = before[best].total
                        from.append((starts[i].edge, best))
                    }
                } else {
                    starts = starts.compactMap { s in
                        guard let j = before.firstIndex(where: { $0.path.edges.last == s.edge }) else { return nil }
                        from.append((s.edge, j))
                        return EdgePoint(edge: s.edge, offset: s.offset, spent: before[j].total)
                    }
                }
            }
            let goals = data.snapIndex.edgePoints(snaps[k + 1], graph: graph)
            // The last leg, or one whose end may be turned round at: one search to either direction.
            let split = k + 1 < snaps.count - 1 && !turning.contains(k + 1)
            var found: [Arrival] = []
            let short = isShortLeg(k, snaps, starts: starts, shortLegsByAStar: shortLegsByAStar)
            for target in split ? goals.map({ [$0] }) : [goals] {
                guard let path = short ? shortPath(from: starts, to: target, at: snaps[k + 1].coordinate)
                    : path(from: starts, to: target, at: snaps[k + 1].coordinate) else { continue }
                let start = path.edges[0]
                let spent = starts.first { $0.edge == start }!.spent
                found.append((path, spent + path.weight, from.first { $0.edge == start }?.arrival ?? -1))
            }
            guard !found.isEmpty else { throw .noRoute(from: input[k], to: input[k + 1]) }
            arrivals.append(found)
        }
        // Back from the cheapest end through the ways each carried on from.
        var result: [RoutePath] = []
        var j = arrivals.last!.indices.min { arrivals.last![$0].total < arrivals.last![$1].total }!
        for k in arrivals.indices.reversed() {
            result.append(arrivals[k][j].path)
            j = arrivals[k][j].previous
        }
        return result.reversed()
    }

    /// ``legPaths(_:_:turningAt:shortLegsByAStar:)`` where every waypoint may be turned at (a
    /// matched trace's): each leg's best path on its own, found as that function finds it (each
    /// start after the weight spent so far), without its lists of ways per leg.
    private func independentLegPaths(_ snaps: [Snap], _ input: [Coordinate],
                                     shortLegsByAStar: Bool) throws(RouteError) -> [RoutePath] {
        var result: [RoutePath] = []
        result.reserveCapacity(snaps.count - 1)
        var total = 0.0
        // (Two lists kept for all the legs: a matched trace has a leg per fix.)
        var starts: [EdgePoint] = [], goals: [EdgePoint] = []
        starts.reserveCapacity(2)
        goals.reserveCapacity(2)
        let lengths = graph.edgeLength
        for k in 0..<(snaps.count - 1) {
            starts.removeAll(keepingCapacity: true)
            data.snapIndex.appendEdgePoints(snaps[k], lengths: lengths, to: &starts)
            if k > 0 { for i in starts.indices { starts[i].spent = total } }
            goals.removeAll(keepingCapacity: true)
            data.snapIndex.appendEdgePoints(snaps[k + 1], lengths: lengths, to: &goals)
            let short = isShortLeg(k, snaps, starts: starts, shortLegsByAStar: shortLegsByAStar)
            guard let path = short ? shortPath(from: starts, to: goals, at: snaps[k + 1].coordinate)
                : path(from: starts, to: goals, at: snaps[k + 1].coordinate) else {
                throw .noRoute(from: input[k], to: input[k + 1])
            }
            let start = path.edges[0]
            total = starts.first { $0.edge == start }!.spent + path.weight
            result.append(path)
        }
        return result
    }

    /// The route told from one path per leg between the waypoints at `ends`.
    private func tell(_ paths: [RoutePath], snaps: [Snap], ends: [Int], input: [Coordinate],
                      options: RouteOptions) -> Route {
        var legs: [RouteLeg] = []
        var geometry: [Coordinate] = []
        for (i, path) in paths.enumerated() {
            let a = ends[i], b = ends[i + 1]
            // Without steps, the leg's line comes beside it, as one step's would before the arrival.
            var leg: RouteLeg, line: [Coordinate] = []
            if options.steps {
                leg = assembler.assemble(path, from: snaps[a], to: snaps[b], input: (input[a], input[b]), legIndex: i,
                                         legCount: paths.count, drivingSide: graph.drivingSide,
                                         language: options.language)
            } else {
                (leg, line) = assembler.assembleLine(path)
            }
            if options.annotations { leg.annotation = annotation(of: path, from: snaps[a], to: snaps[b]) }
            // Each step's line without its last point (the next step starts there), then the end;
            // the closing arrive step is only that end point, so it adds nothing of its own.
            // (Grown by doubling: reserving just this leg's more, leg after leg, copies the line each time.)
            var needed = geometry.count + 1 + line.count
            for k in leg.steps.indices { needed += leg.steps[k].geometry.count }
            if needed > geometry.capacity { geometry.reserveCapacity(max(needed, 2 * geometry.capacity)) }
            let legStart = geometry.count
            for k in leg.steps.indices.dropLast() { // (by index: a step's copy would retain each of its arrays)
                let count = leg.steps[k].geometry.count
                geometry.append(contentsOf: leg.steps[k].geometry[..<(count > 1 ? count - 1 : count)])
            }
            geometry.append(contentsOf: line[..<(line.count > 1 ? line.count - 1 : line.count)])
            geometry.append(leg.steps.last?.geometry.last ?? line.last ?? snaps[b].coordinate)
            legs.append(leg)
            // A later leg starts where the one before it ended.
            if legStart > 0 { geometry.remove(at: legStart) }
        }
        var route = Route(distance: legs.reduce(0) { $0 + $1.distance },
                          duration: legs.reduce(0) { $0 + $1.duration }, weight: legs.reduce(0) { $0 + $1.weight },
                          geometry: geometry, legs: legs, waypoints: snaps, destinationName: nil)
        route.snappedNames = snaps.map { graph.name(ofSegment: $0.segment) }
        return route
    }

    /// Travel times and distances from every source to every destination (OSRM's table): on a
    /// contraction hierarchy by the bucket method, one search per source and per destination;
    /// otherwise one route search per pair. Points snap as a route's waypoints do, all together;
    /// `radiuses`, where given, has one per source then one per destination.
    public func table(sources: [Coordinate], destinations: [Coordinate],
                      radiuses: [Double?] = [], filters: [SnapFilter] = []) throws(RouteError) -> DistanceTable {
        guard !sources.isEmpty && !destinations.isEmpty else {
            throw .invalidInput("a table needs at least one source and one destination")
        }
        guard filters.isEmpty || filters.count == sources.count + destinations.count else {
            throw .invalidInput("give one snap filter per point")
        }
        let snaps = try snap(sources + destinations, radiuses: radiuses, filters: filters)
        let from = Array(snaps[..<sources.count]), to = Array(snaps[sources.count...])
        var durations = [Double?](repeating: nil, count: from.count * to.count), distances = durations
        forEachCell(from: from, to: to) { k, duration, distance in (durations[k], distances[k]) = (duration, distance) }
        return DistanceTable(sources: from, destinations: to, durations: durations, distances: distances)
    }

    /// Travel time and length of the fastest way from each of `sources` to each of `destinations`,
    /// handed to `cell` one by one (row-major index; only pairs with a way weighing at most
    /// `maxWeight`): the bucket search on a hierarchy (made at the first table: a trace asks for
    /// one per fix), else one route search per pair.
    func forEachCell(from sources: [Snap], to destinations: [Snap], maxWeight: Double = .infinity,
                     _ cell: (_ index: Int, _ duration: Double, _ distance: Double) -> Void) {
        if tableSearch == nil, let metrics = data.arcMetrics { tableSearch = TableSearch(data: data, metrics: metrics) }
        if let tableSearch {
            return tableSearch.forEachCell(sources: sources, destinations: destinations, maxCost: maxWeight, cell)
        }
        for (i, a) in sources.enumerated() {
            for (j, b) in destinations.enumerated() {
                guard let found = path(from: a, to: b), found.weight <= maxWeight else { continue }
                cell(i * destinations.count + j, found.duration, found.distance)
            }
        }
    }

    /// The areas a car reaches within each of `minutes` from `origin` (see ``Isochrone``);
    /// `denoise` (0…1) keeps, per time, only polygons at least that share of the largest's area;
    /// `radius` is how far the origin may be from its road (nil: ``maxSnapDistance``).
    public func isochrone(from origin: Coordinate, minutes: [Double],
                          denoise: Double = 1, radius: Double? = nil) throws(RouteError) -> Isochrone {
        if let problem = Isochrone.problem(minutes: minutes, within: Isochrone.searchMinutes, maximumCount: .max) {
            throw .invalidInput(problem)
        }
        guard denoise >= 0 && denoise <= 1 else { throw .invalidInput("denoise must be from 0 to 1") }
        let snap = try snap([origin], radiuses: [radius])[0]
        if isochroneSearch == nil { isochroneSearch = IsochroneSearch(data: data) }
        return isochroneSearch!.isochrone(from: snap, minutes: minutes, denoise: denoise)
    }
}

extension Router {
    /// Up to `count` alternatives to the best path `best` between two snaps, under
    /// ``alternativeRules``; found on the contraction hierarchy (none without one).
    func alternatives(to best: RoutePath, from a: Snap, to b: Snap, count: Int) -> [RoutePath] {
        guard case let .hierarchy(search) = engine else { return [] }
        if alternativeSearch == nil { alternativeSearch = AlternativeSearch(data: data) }
        let starts = data.snapIndex.edgePoints(a, graph: graph), goals = data.snapIndex.edgePoints(b, graph: graph)
        return alternativeSearch!.alternatives(from: starts, to: goals, best: best, count: count,
                                               rules: alternativeRules, fastest: search)
    }
}
