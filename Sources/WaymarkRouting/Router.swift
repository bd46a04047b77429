import Foundation
import WaymarkGeo
import WaymarkGraph

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
    private let engine: Engine

    private enum Engine {
        case hierarchy(HierarchySearch)
        case landmarks(RouteSearch)
    }

    init(map: RoadMap, data: RoutingData) {
        self.data = data
        graph = data.graph
        maxSnapDistance = map.maxSnapDistance
        engine = data.hierarchy != nil ? .hierarchy(HierarchySearch(data: data)) : .landmarks(RouteSearch(data: data))
    }

    /// States the last search took off its heaps (a measure of search effort).
    public var settled: Int {
        switch engine {
        case let .hierarchy(search): search.settled
        case let .landmarks(search): search.settled
        }
    }

    /// The fastest path between two snapped points (nil: unreachable).
    public func path(from a: Snap, to b: Snap) -> RoutePath? {
        switch engine {
        case let .hierarchy(search): search.route(from: a, to: b)
        case let .landmarks(search): search.route(from: a, to: b)
        }
    }

    /// Snaps a waypoint, or fails with ``RouteError/noSegment(_:maxDistance:)``.
    public func snap(_ c: Coordinate) throws(RouteError) -> Snap {
        guard let snap = data.snapIndex.nearest(to: c, maxDistance: maxSnapDistance) else {
            throw data.noRoadError(c, maxDistance: maxSnapDistance)
        }
        return snap
    }

    /// The fastest route through the waypoints in order (two or more).
    public func route(_ waypoints: [Coordinate]) throws(RouteError) -> Route {
        guard waypoints.count >= 2 else { throw .invalidInput("a route needs at least two waypoints") }
        // OSRM's rule: inside a tiny component only when every waypoint is nearest to it.
        let candidates = try waypoints.map { (c) throws(RouteError) in
            guard let found = data.snapIndex.candidates(near: c, maxDistance: maxSnapDistance) else {
                throw data.noRoadError(c, maxDistance: maxSnapDistance)
            }
            return found
        }
        let snaps = SnapIndex.choose(candidates)
        var legs: [RouteLeg] = []
        var geometry: [Coordinate] = []
        for (i, (a, b)) in zip(snaps, snaps.dropFirst()).enumerated() {
            guard let path = path(from: a, to: b) else { throw .noRoute(from: waypoints[i], to: waypoints[i + 1]) }
            let leg = assemble(path, from: a, to: b)
            legs.append(leg)
            // Each step's line without its last point (the next step starts there), then the end;
            // the closing arrive step is only that end point, so it adds nothing of its own.
            let legGeometry = leg.steps.dropLast().flatMap { step in step.geometry.count > 1 ? Array(step.geometry.dropLast()) : step.geometry }
                + [leg.steps.last?.geometry.last ?? b.coordinate]
            geometry += geometry.isEmpty ? legGeometry : Array(legGeometry.dropFirst())
        }
        return Route(distance: legs.reduce(0) { $0 + $1.distance }, duration: legs.reduce(0) { $0 + $1.duration },
                     weight: legs.reduce(0) { $0 + $1.weight },
                     geometry: geometry, legs: legs, waypoints: snaps, destinationName: nil)
    }

    // MARK: - Assembly

    /// Slip roads (a turn onto one is an on ramp, off a motorway onto one an off ramp).
    static let links: Set<HighwayClass> = [.motorwayLink, .trunkLink, .primaryLink, .secondaryLink, .tertiaryLink]

    /// One driven piece: an edge from `from` to `to` metres along it.
    private struct Piece {
        var edge: Int
        var from: Double
        var to: Double
    }

    func assemble(_ path: RoutePath, from origin: Snap, to destination: Snap) -> RouteLeg {
        var pieces: [Piece] = []
        for (i, e) in path.edges.enumerated() {
            let length = Double(graph.edgeLength[e])
            let start = i == 0 ? path.startOffset : 0
            let end = i == path.edges.count - 1 ? path.endOffset : length
            pieces.append(Piece(edge: e, from: start, to: max(start, end)))
        }
        // A first or last piece under a metre (a waypoint snapped onto a vertex) would make an
        // empty step; short pieces inside the route are real road and stay.
        if pieces.count > 1, let last = pieces.last, last.to - last.from < 1 { pieces.removeLast() }
        if pieces.count > 1, let first = pieces.first, first.to - first.from < 1 { pieces.removeFirst() }
        // Group pieces into steps: a new step starts where the road (name and ref) changes, where
        // a roundabout is entered, or at a sharp turn on the same road.
        var groups: [[Piece]] = []
        for (i, piece) in pieces.enumerated() {
            if let last = groups.last?.last {
                let sameRoad = graph.name(of: last.edge) == graph.name(of: piece.edge) && graph.ref(of: last.edge) == graph.ref(of: piece.edge)
                let entersRoundabout = !graph.flags(of: last.edge).contains(.roundabout) && graph.flags(of: piece.edge).contains(.roundabout)
                let inRoundabout = graph.flags(of: last.edge).contains(.roundabout)
                let angle = turnAngle(last.edge, piece.edge)
                if inRoundabout || (sameRoad && !entersRoundabout && abs(angle) < 60) || (i > 0 && piece.to - piece.from < 0.01 && sameRoad) {
                    groups[groups.count - 1].append(piece)
                    continue
                }
            }
            groups.append([piece])
        }

        var steps: [RouteStep] = []
        for (g, group) in groups.enumerated() {
            let geometry = cut(group)
            let distance = group.reduce(0.0) { $0 + ($1.to - $1.from) }
            let duration = group.reduce(0.0) { $0 + Double(graph.edgeDuration[$1.edge]) * share($1) }
            let first = group[0].edge
            let location = geometry.first ?? origin.coordinate
            let after = bearing(geometry)
            // Name the step after the road it leaves the roundabout on, if it is a roundabout step.
            let exitEdge = group.first { !graph.flags(of: $0.edge).contains(.roundabout) }?.edge
            let nameEdge = graph.flags(of: first).contains(.roundabout) ? (exitEdge ?? first) : first
            var maneuver: Maneuver
            if g == 0 {
                maneuver = Maneuver(type: .depart, modifier: nil, location: location, bearingBefore: 0, bearingAfter: after, exit: nil)
            } else {
                let previous = groups[g - 1].last!.edge
                let before = Int(data.turns.arrivalBearing(of: previous).rounded()) % 360
                maneuver = classify(from: previous, to: first, location: location, before: before, after: after, group: group)
            }
            var step = RouteStep(name: graph.name(of: nameEdge), ref: graph.ref(of: nameEdge), distance: distance, duration: duration,
                                 geometry: geometry, maneuver: maneuver, instruction: "",
                                 mode: graph.flags(of: first).contains(.ferry) ? .ferry : .driving)
            step.instruction = instruction(step)
            steps.append(step)
        }
        let end = steps.last?.geometry.last ?? destination.coordinate
        var arrive = RouteStep(name: steps.last?.name ?? "", ref: steps.last?.ref ?? "", distance: 0, duration: 0, geometry: [end, end],
                               maneuver: Maneuver(type: .arrive, modifier: nil, location: end,
                                                  bearingBefore: steps.last.map { bearing(endOfGeometry: $0.geometry) } ?? 0, bearingAfter: 0, exit: nil),
                               instruction: "")
        arrive.instruction = instruction(arrive)
        steps.append(arrive)

        // Summary: the two longest named roads, in route order.
        var lengthByName: [String: Double] = [:]
        for s in steps where !s.name.isEmpty { lengthByName[s.name, default: 0] += s.distance }
        let top = lengthByName.sorted { $0.value > $1.value }.prefix(2).map(\.key)
        let summary = steps.map(\.name).reduce(into: [String]()) { acc, n in if top.contains(n) && !acc.contains(n) { acc.append(n) } }
            .joined(separator: ", ")
        return RouteLeg(distance: steps.reduce(0) { $0 + $1.distance }, duration: path.duration, weight: path.weight, summary: summary, steps: steps)
    }

    private func share(_ p: Piece) -> Double {
        let length = Double(graph.edgeLength[p.edge])
        return length > 0 ? (p.to - p.from) / length : 0
    }

    /// The pieces' geometry joined, each cut to its driven part.
    private func cut(_ pieces: [Piece]) -> [Coordinate] {
        var points: [Coordinate] = []
        for p in pieces {
            // Whole edges (all but the first and last of a route) need no measuring: their points
            // go straight from the graph into the line.
            if p.from <= 0 && p.to >= Double(graph.edgeLength[p.edge]) {
                graph.appendGeometry(of: p.edge, to: &points, skippingSource: !points.isEmpty)
                continue
            }
            let part = slice(graph.geometry(of: p.edge), from: p.from, to: p.to)
            points.append(contentsOf: points.isEmpty ? part[...] : part.dropFirst())
        }
        return points.count >= 2 ? points : points + points
    }

    /// The part of a polyline between two distances along it.
    private func slice(_ line: [Coordinate], from a: Double, to b: Double) -> [Coordinate] {
        var result: [Coordinate] = []
        var travelled = 0.0
        for (p, q) in zip(line, line.dropFirst()) {
            let d = p.distance(to: q)
            let s = travelled, e = travelled + d
            func at(_ x: Double) -> Coordinate {
                return p.interpolated(to: q, fraction: d > 0 ? max(0, min(1, (x - s) / d)) : 0)
            }
            if e >= a && s <= b {
                if result.isEmpty { result.append(at(max(a, s))) }
                // A cut beside a shape point (a waypoint snapped onto it, its offset measured a few
                // centimetres differently) would give two points closer than the output's 6
                // decimals tell apart: keep the first.
                let point = at(min(b, e))
                if result.last.map({ $0.distance(to: point) >= 0.1 }) ?? true { result.append(point) }
            }
            travelled = e
        }
        if result.isEmpty, let last = line.last { result = [last] }
        return result
    }

    // MARK: - Bearings and maneuvers

    private func bearing(_ geometry: [Coordinate]) -> Int {
        guard geometry.count >= 2 else { return 0 }
        let a = geometry[0]
        let b = geometry.dropFirst().first { $0.distance(to: a) > 1 } ?? geometry[1]
        return Int(a.direction(to: b).rounded()) % 360
    }

    private func bearing(endOfGeometry g: [Coordinate]) -> Int {
        guard g.count >= 2 else { return 0 }
        let b = g[g.count - 1]
        let a = g.dropLast().last { $0.distance(to: b) > 1 } ?? g[g.count - 2]
        return Int(a.direction(to: b).rounded()) % 360
    }

    /// Signed turn angle in degrees from one edge into the next (positive = right), from the
    /// bearings the search precomputed.
    private func turnAngle(_ e: Int, _ f: Int) -> Double { data.turns.angle(e, f) }

    private func modifier(_ angle: Double) -> ManeuverModifier {
        let a = abs(angle), right = angle > 0
        if a < 20 { return .straight }
        if a < 60 { return right ? .slightRight : .slightLeft }
        if a < 120 { return right ? .right : .left }
        if a < 170 { return right ? .sharpRight : .sharpLeft }
        return .uturn
    }

    private func classify(from e: Int, to f: Int, location: Coordinate, before: Int, after: Int, group: [Piece]) -> Maneuver {
        let angle = turnAngle(e, f)
        let from = graph.highway(of: e), to = graph.highway(of: f)
        var maneuver = Maneuver(type: .turn, modifier: modifier(angle), location: location, bearingBefore: before, bearingAfter: after, exit: nil)
        let links = Router.links
        if graph.flags(of: f).contains(.roundabout) {
            maneuver.type = .roundabout
            maneuver.exit = roundaboutExit(group)
        } else if (from == .motorway || from == .trunk) && links.contains(to) {
            maneuver.type = .offRamp
        } else if !links.contains(from) && from != .motorway && (to == .motorwayLink || to == .trunkLink) {
            maneuver.type = .onRamp
        } else if links.contains(from) && (to == .motorway || to == .trunk) {
            maneuver.type = .merge
        } else if graph.name(of: e) == graph.name(of: f) && graph.ref(of: e) == graph.ref(of: f) {
            maneuver.type = .continue
        } else if abs(angle) < 20 {
            maneuver.type = isFork(at: graph.edgeTarget[e], taking: f, arrivingOn: e) ? .fork : .newName
        } else if abs(angle) < 45 && isFork(at: graph.edgeTarget[e], taking: f, arrivingOn: e) {
            maneuver.type = .fork
        }
        return maneuver
    }

    /// Whether another way forward leaves the vertex within 45° of the one taken.
    private func isFork(at v: UInt32, taking f: Int, arrivingOn e: Int) -> Bool {
        let taken = turnAngle(e, f)
        return graph.edges(from: v).contains { other in
            other != f && graph.segment(of: other) != graph.segment(of: e) && abs(turnAngle(e, other) - taken) < 45 && abs(turnAngle(e, other)) < 90
        }
    }

    /// The exit number: driveable ways leaving the roundabout at the vertices passed, counting the one taken.
    private func roundaboutExit(_ group: [Piece]) -> Int {
        var exits = 0
        for piece in group {
            let v = graph.edgeTarget[piece.edge]
            guard graph.flags(of: piece.edge).contains(.roundabout) else { break }
            let leaves = graph.edges(from: v).contains { !graph.flags(of: $0).contains(.roundabout) }
            if leaves { exits += 1 }
        }
        return max(1, exits)
    }

    // MARK: - Instructions

    private func instruction(_ step: RouteStep) -> String {
        let road = step.name.isEmpty ? step.ref : (step.ref.isEmpty ? step.name : "\(step.name) (\(step.ref))")
        let onto = road.isEmpty ? "" : " onto \(road)"
        let m = step.maneuver
        if step.mode == .ferry && m.type != .arrive {
            return m.type == .depart ? "Board the ferry\(road.isEmpty ? "" : " (\(road))")" : "Take the ferry\(road.isEmpty ? "" : " (\(road))")"
        }
        let side = m.modifier?.side.map { " on the \($0)" } ?? ""
        switch m.type {
        case .depart:
            return "Head \(cardinal(m.bearingAfter))" + (road.isEmpty ? "" : " on \(road)")
        case .arrive:
            return "You have arrived at your destination"
        case .roundabout:
            return "At the roundabout, take the \(ordinal(m.exit ?? 1)) exit\(onto)"
        case .newName:
            return "Continue\(onto)"
        case .continue:
            return m.modifier == .straight ? "Continue\(onto)" : "Continue \(m.modifier?.rawValue ?? "")\(onto)"
        case .onRamp:
            return "Take the ramp\(side)\(onto)"
        case .offRamp:
            return "Take the exit\(side)\(onto)"
        case .merge:
            return "Merge\(onto)"
        case .fork:
            return "Keep \(m.modifier?.side ?? "straight") at the fork\(onto)"
        default:
            switch m.modifier {
            case .uturn: return "Make a U-turn\(onto)"
            case .straight: return "Go straight\(onto)"
            default: return "Turn \(m.modifier?.rawValue ?? "")\(onto)"
            }
        }
    }

    private func cardinal(_ bearing: Int) -> String {
        ["north", "northeast", "east", "southeast", "south", "southwest", "west", "northwest"][((bearing + 22) % 360) / 45]
    }

    private func ordinal(_ n: Int) -> String {
        let suffix = (11...13).contains(n % 100) ? "th" : [1: "st", 2: "nd", 3: "rd"][n % 10] ?? "th"
        return "\(n)\(suffix)"
    }
}
