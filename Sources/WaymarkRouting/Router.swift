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
        switch engine {
        case let .hierarchy(search): search.route(from: a, to: b)
        case let .search(search): search.route(from: a, to: b)
        }
    }

    /// Snaps points together, as OSRM does (`SnapPhantomNodes`): inside a tiny component only
    /// when every point is nearest to it. `radiuses`, one per point where given, is how far each
    /// may be from its road (nil: ``maxSnapDistance``).
    private func snap(_ points: [Coordinate], radiuses: [Double?]) throws(RouteError) -> [Snap] {
        guard radiuses.isEmpty
            || radiuses.count == points.count else { throw .invalidInput("give one radius per point") }
        let candidates = try points.enumerated().map { (i, c) throws(RouteError) in
            let reach = radiuses.isEmpty ? maxSnapDistance : radiuses[i] ?? maxSnapDistance
            guard let found = data.snapIndex.candidates(near: c, maxDistance: reach) else {
                throw data.noRoadError(c, maxDistance: reach)
            }
            return found
        }
        return SnapIndex.choose(candidates)
    }

    /// Snaps a waypoint, or fails with ``RouteError/noSegment(_:maxDistance:)``.
    public func snap(_ c: Coordinate) throws(RouteError) -> Snap {
        guard let snap = data.snapIndex.nearest(to: c, maxDistance: maxSnapDistance) else {
            throw data.noRoadError(c, maxDistance: maxSnapDistance)
        }
        return snap
    }

    /// The fastest route through the waypoints in order (two or more), its instructions in
    /// `language`. `radiuses`, one per waypoint where given, is how far each may be from its road
    /// (nil: ``maxSnapDistance``).
    public func route(_ waypoints: [Coordinate], radiuses: [Double?] = [],
                      language: InstructionTemplates = .english) throws(RouteError) -> Route {
        guard waypoints.count >= 2 else { throw .invalidInput("a route needs at least two waypoints") }
        let snaps = try snap(waypoints, radiuses: radiuses)
        var legs: [RouteLeg] = []
        var geometry: [Coordinate] = []
        for (i, (a, b)) in zip(snaps, snaps.dropFirst()).enumerated() {
            guard let path = path(from: a, to: b) else { throw .noRoute(from: waypoints[i], to: waypoints[i + 1]) }
            let leg = StepAssembler(data: data, guidance: guidance).assemble(path, from: a, to: b,
                                                                             input: (waypoints[i], waypoints[i + 1]),
                                                         legIndex: i, legCount: snaps.count - 1,
                                                         drivingSide: graph.drivingSide,
                                                                       language: language)
            legs.append(leg)
            // Each step's line without its last point (the next step starts there), then the end;
            // the closing arrive step is only that end point, so it adds nothing of its own.
            geometry.reserveCapacity(geometry.count + leg.steps.reduce(1) { $0 + $1.geometry.count })
            let legStart = geometry.count
            for k in leg.steps.indices.dropLast() { // (by index: a step's copy would retain each of its arrays)
                let count = leg.steps[k].geometry.count
                geometry.append(contentsOf: leg.steps[k].geometry[..<(count > 1 ? count - 1 : count)])
            }
            geometry.append(leg.steps.last?.geometry.last ?? b.coordinate)
            // A later leg starts where the one before it ended.
            if legStart > 0 { geometry.remove(at: legStart) }
        }
        return Route(distance: legs.reduce(0) { $0 + $1.distance }, duration: legs.reduce(0) { $0 + $1.duration },
                     weight: legs.reduce(0) { $0 + $1.weight },
                     geometry: geometry, legs: legs, waypoints: snaps, destinationName: nil)
    }

    /// Travel times and distances from every source to every destination (OSRM's table): on a
    /// contraction hierarchy by the bucket method, one search per source and per destination;
    /// otherwise one route search per pair. Points snap as a route's waypoints do, all together;
    /// `radiuses`, where given, has one per source then one per destination.
    public func table(sources: [Coordinate], destinations: [Coordinate],
                      radiuses: [Double?] = []) throws(RouteError) -> DistanceTable {
        guard !sources.isEmpty && !destinations.isEmpty else {
            throw .invalidInput("a table needs at least one source and one destination")
        }
        let snaps = try snap(sources + destinations, radiuses: radiuses)
        let from = Array(snaps[..<sources.count]), to = Array(snaps[sources.count...])
        var table = DistanceTable(sources: from, destinations: to, durations: [], distances: [])
        if let metrics = data.arcMetrics {
            if tableSearch == nil { tableSearch = TableSearch(data: data, metrics: metrics) }
            (table.durations, table.distances) = tableSearch!.table(sources: from, destinations: to)
        } else {
            for a in from {
                for b in to {
                    let found = path(from: a, to: b)
                    table.durations.append(found?.duration)
                    table.distances.append(found?.distance)
                }
            }
        }
        return table
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
