import Foundation
import Waymark

/// Limits on what one request may ask for (osrm-routed's `--max-*` options).
public struct OSRMServiceLimits: Sendable {
    /// Sources × destinations of a table at most this squared (osrm-routed's `--max-table-size`).
    public var maxTableSize = 100
    /// Waypoints of a route (`--max-viaroute-size`).
    public var maxWaypoints = 500
    /// Results of a nearest query (`--max-nearest-size`).
    public var maxNearest = 100
    /// Alternatives a route may ask for (`--max-alternatives`).
    public var maxAlternatives = 3
    /// Stops of a trip (`--max-trip-size`; OSRM's default is no limit, its demo server's 100).
    public var maxTripStops = 100
    /// Fixes of a trace to match (osrm-routed's `--max-matching-size`, and its default).
    public var maxMatchingFixes = 100
    /// The times an isochrone may ask for, in minutes.
    public var isochroneMinutes = Isochrone.minutesRange

    public init() {}
}

/// OSRM's HTTP API v1 over one ``RoadMap`` per profile (a car map, a walking map): `route`,
/// `table`, `nearest`, `trip`, `match`, with OSRM's request shapes
/// (`/{service}/v1/{profile}/{coordinates}[.json]?option=value&…`), response JSON and error codes,
/// so an OSRM client works by changing the URL; the profile in the URL picks the map. Also `/health`.
///
/// Each worker thread answers with a handler of its own (``makeHandler()``): routers, whose
/// search scratch it alone uses, over the shared maps.
public final class OSRMService: Sendable {
    public let limits: OSRMServiceLimits
    /// The maps answering new requests, one per profile, each replaced whole by
    /// ``replaceMap(with:slot:)``.
    private let slots: [Current]

    public convenience init(map: RoadMap, limits: OSRMServiceLimits = OSRMServiceLimits()) {
        try! self.init(maps: [map], limits: limits) // (one map: no two for one profile)
    }

    /// A service over `maps`, at most one per profile (``TravelProfile``), the first the one
    /// ``map`` names.
    public init(maps: [RoadMap], limits: OSRMServiceLimits = OSRMServiceLimits()) throws(RoadMapError) {
        guard !maps.isEmpty else { throw RoadMapError("no map to serve") }
        for (i, map) in maps.enumerated() where maps[..<i].contains(where: { $0.graph.travel == map.graph.travel }) {
            throw RoadMapError("two maps for \(map.graph.travel): one map per profile")
        }
        slots = maps.map(Current.init)
        self.limits = limits
    }

    /// The first map (the viewer's, the one a single-map server serves).
    public var map: RoadMap { slots[0].map }

    /// The maps new requests are answered on, in the order given.
    public var maps: [RoadMap] { slots.map(\.map) }

    /// Answers every request that starts from now on `map` (a rebuilt or customized map) in place
    /// of the map at `slot`; requests in flight finish on the map they started on, which is freed
    /// after them. Refused when another slot serves the new map's profile.
    public func replaceMap(with map: RoadMap, slot: Int = 0) throws(RoadMapError) {
        let travel = map.graph.travel
        guard !slots.indices.contains(where: { $0 != slot && slots[$0].map.graph.travel == travel }) else {
            throw RoadMapError("another map already serves \(travel)")
        }
        slots[slot].map = map
    }

    /// A handler for one thread: its routers over the current maps, made again at the first
    /// request after a map is replaced.
    public func makeHandler() -> HTTPHandler {
        let held = HeldRouters(slots.map { Routers(map: $0.map) })
        return { request in
            for (i, slot) in self.slots.enumerated() {
                let map = slot.map
                if held.routers[i].map !== map { held.routers[i] = Routers(map: map) }
            }
            return self.respond(to: request, routers: held.routers)
        }
    }

    /// A map, behind a lock (read at each request's start, replaced rarely).
    private final class Current: @unchecked Sendable {
        private let lock = NSLock()
        private var value: RoadMap
        init(_ map: RoadMap) { value = map }
        var map: RoadMap {
            get { lock.withLock { value } }
            set { lock.withLock { value = newValue } }
        }
    }

    /// One thread's routers, one set per map (used by that thread alone).
    private final class HeldRouters: @unchecked Sendable {
        var routers: [Routers]
        init(_ routers: [Routers]) { self.routers = routers }
    }

    /// One thread's routers over one map: the map's own, and one per set of classes a request has
    /// asked to keep off (``RoadMap/makeRouter(excluding:)``), made at the first such request.
    public final class Routers {
        let map: RoadMap
        let base: Router
        private var excluding: [ExcludedClasses: Router] = [:]

        public init(map: RoadMap) {
            self.map = map
            base = map.makeRouter()
        }

        func router(excluding classes: ExcludedClasses) -> Router {
            if classes.isEmpty { return base }
            if let made = excluding[classes] { return made }
            let made = map.makeRouter(excluding: classes)
            made.maxSnapDistance = base.maxSnapDistance
            excluding[classes] = made
            return made
        }
    }

    /// The response to one request, answered with one thread's routers (one set per map).
    public func respond(to request: HTTPRequest, routers: [Routers]) -> HTTPResponse {
        if request.method == "OPTIONS" {
            return HTTPResponse(status: .noContent,
                                headers: [("Allow", "GET, HEAD, OPTIONS"),
                                          ("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS"),
                                                              ("Access-Control-Max-Age", "86400")])
        }
        do {
            return .json(bytes: try answer(request, routers: routers))
        } catch {
            return .json(["code": .string(error.code), "message": .string(error.message)], status: error.status)
        }
    }

    // MARK: - Dispatch

    /// The JSON bytes of a successful answer.
    private func answer(_ request: HTTPRequest, routers all: [Routers]) throws(APIError) -> [UInt8] {
        let segments = request.segments
        if segments == ["health"] {
            let map = all[0].map
            var health: JSONObject = ["code": "Ok", "status": "serving",
                                      "nodes": .number(Double(map.graph.nodeCount)),
                                      "edges": .number(Double(map.graph.edgeCount)),
                                      "search": .string(map.hierarchy != nil ? "hierarchy" : "landmarks")]
            health["profiles"] = .array(all.map { .string($0.map.graph.travel.description) })
            return JSONValue.object(health).jsonBytes
        }
        guard segments.count == 4, !segments[0].isEmpty else {
            throw APIError(
                "InvalidUrl",
                "not an OSRM URL: expected /{service}/v1/{profile}/{coordinates} (services: route, table, nearest, "
                    + "trip, match, isochrone, directions) or /health"
            )
        }
        let service = segments[0]
        guard ["route", "table", "nearest", "isochrone", "trip", "match", "directions"].contains(service) else {
            throw APIError("InvalidService",
                           "service '\(service)' is not served (route, table, nearest, trip, match, isochrone, "
                           + "directions)")
        }
        guard segments[1] == "v1" else { throw APIError("InvalidVersion",
                                                        "version '\(segments[1])' is not served (v1)") }
        // (osrm-routed ignores the name; here a walking route is never a car's in disguise.)
        guard let routers = all.first(where: { $0.map.graph.travel.urlNames.contains(segments[2]) }) else {
            let served = all.map { "\($0.map.graph.travel) (\($0.map.graph.travel.urlNames.joined(separator: ", ")))" }
            throw APIError("InvalidOptions", "profile '\(segments[2].prefix(40))' is not served: this server has maps "
                           + "for " + served.joined(separator: " and "))
        }
        var text = segments[3]
        if text.hasSuffix(".json") { text.removeLast(5) }
        if text.hasSuffix(".flatbuffers") {
            throw APIError("NotImplemented", "the flatbuffers format is not served: leave out '.flatbuffers' for JSON")
        }
        guard !text.isEmpty else { throw APIError("InvalidUrl", "the URL has no coordinates after the profile") }
        let coordinates = try OSRMService.coordinates(text)
        var options = try Options(request.query)
        let result: [UInt8]
        switch service {
        case "route": result = try route(coordinates, &options, routers: routers)
        case "directions": result = try route(coordinates, &options, routers: routers, told: true)
        case "table": result = try table(coordinates, &options, routers: routers).jsonBytes
        case "isochrone": result = try isochrone(coordinates, &options, routers: routers)
        case "trip": result = try trip(coordinates, &options, routers: routers)
        case "match": result = try match(coordinates, &options, routers: routers)
        default: result = try nearest(coordinates, &options, routers: routers).jsonBytes
        }
        return result
    }

    // MARK: - Services

    /// What a route's or trip's answer holds: `steps`, `geometries`, `overview`, `annotations`.
    private struct ResponseShape {
        var steps: Bool
        var geometries: GeometryFormat
        var overview: OverviewFormat
        var annotations: Set<LegAnnotation.Kind> = []

        init(_ options: inout Options) throws(APIError) {
            steps = try options.bool("steps", default: false)
            geometries = GeometryFormat(rawValue: try options.choice(
                "geometries", GeometryFormat.allCases.map(\.rawValue), default: "polyline"))!
            overview = OverviewFormat(rawValue: try options.choice(
                "overview", OverviewFormat.allCases.map(\.rawValue), default: "simplified"))!
            if let text = options.take("annotations") {
                guard let parsed = LegAnnotation.kinds(parsing: text) else {
                    let names = LegAnnotation.Kind.allCases.map(\.rawValue).joined(separator: ", ")
                    throw APIError("InvalidQuery",
                                   "annotations: '\(text.prefix(40))' is not true, false or a list of \(names)")
                }
                annotations = parsed
            }
        }

        /// The route options that follow from the shape: legs told as steps, and annotated.
        func apply(to route: inout RouteOptions) {
            route.steps = steps
            route.annotations = !annotations.isEmpty
        }
    }

    /// At least two coordinates, at most `limit` (OSRM's `InvalidOptions`, `TooBig`).
    private static func check(_ count: Int, _ service: String, atMost limit: Int) throws(APIError) {
        guard count >= 2 else { throw APIError("InvalidOptions", "a \(service) needs at least two coordinates") }
        guard count <= limit else {
            throw APIError("TooBig", "\(count) coordinates: a \(service) takes at most \(limit)")
        }
    }

    /// OSRM's trip: `roundtrip`, `source=any|first`, `destination=any|last`, and the route's
    /// output options (`steps`, `geometries`, `overview`, `annotations`).
    private func trip(_ coordinates: [Coordinate],
                      _ options: inout Options, routers: Routers) throws(APIError) -> [UInt8] {
        try Self.check(coordinates.count, "trip", atMost: limits.maxTripStops)
        let general = try general(&options, count: coordinates.count)
        var asked = TripOptions()
        asked.route = general.routeOptions
        asked.roundtrip = try options.bool("roundtrip", default: true)
        asked.fixedStart = try options.choice("source", ["any", "first"], default: "any") == "first"
        asked.fixedEnd = try options.choice("destination", ["any", "last"], default: "any") == "last"
        let shape = try ResponseShape(&options)
        shape.apply(to: &asked.route)
        try options.finish("trip")
        do {
            let trip = try routers.map.trip(coordinates, options: asked)
            var writer = JSONWriter()
            trip.writeOSRMJSON(into: &writer, geometries: shape.geometries, overview: shape.overview,
                               steps: shape.steps, annotations: shape.annotations)
            return writer.bytes
        } catch {
            throw APIError(error)
        }
    }

    /// `language`: the instructions' language (Waymark's option; English by default).
    private static func language(_ options: inout Options) throws(APIError) -> InstructionTemplates {
        let code = try options.choice("language", InstructionTemplates.available.keys.sorted(), default: "en")
        return InstructionTemplates.available[code]!
    }

    /// `waypoints`: the coordinates that end legs (nil when not given).
    private static func legEnds(_ options: inout Options, count: Int) throws(APIError) -> [Int]? {
        guard let text = options.take("waypoints") else { return nil }
        var indices: [Int] = []
        for piece in HTTPRequestParser.pieces(of: text[...], at: UInt8(ascii: ";")) {
            guard let i = Int(piece), i >= 0 else {
                throw APIError("InvalidQuery", "waypoints: '\(piece.prefix(40))' is not an index")
            }
            indices.append(i)
        }
        guard indices.allSatisfy((0..<count).contains) else {
            throw APIError("InvalidOptions", "waypoints: an index is not one of the \(count) coordinates")
        }
        guard indices.first == 0, indices.last == count - 1 else {
            throw APIError("InvalidValue", "waypoints: the first and last coordinates must be waypoints")
        }
        // (Which coordinates end legs, as OSRM reads the list: order and repeats do not matter.)
        return Set(indices).sorted()
    }

    /// OSRM's match: `timestamps`, `gaps=split|ignore`, `tidy`, `waypoints`, `radiuses` (each fix's
    /// GPS noise), and the route's output options.
    private func match(_ coordinates: [Coordinate],
                       _ options: inout Options, routers: Routers) throws(APIError) -> [UInt8] {
        try Self.check(coordinates.count, "match", atMost: limits.maxMatchingFixes)
        let general = try general(&options, count: coordinates.count)
        var asked = MatchOptions()
        asked.route = general.routeOptions
        // (Seconds as OSRM reads them: an unsigned 32-bit number, anything else malformed.)
        let times = try options.perCoordinate("timestamps", count: coordinates.count) { piece -> Int? in
            UInt32(piece).map(Int.init)
        }
        if let times {
            guard !times.contains(where: { $0 == nil }) else {
                throw APIError("InvalidQuery", "timestamps: every coordinate needs one")
            }
            asked.timestamps = times.map { $0! }
        }
        asked.splitsAtGaps = try options.choice("gaps", ["split", "ignore"], default: "split") == "split"
        asked.tidy = try options.bool("tidy", default: false)
        asked.route.legEnds = try Self.legEnds(&options, count: coordinates.count)
        let shape = try ResponseShape(&options)
        shape.apply(to: &asked.route)
        let skipWaypoints = try options.bool("skip_waypoints", default: false)
        asked.route.language = try Self.language(&options)
        try options.finish("match")
        do {
            let router = routers.router(excluding: general.exclude)
            let matched = try router.match(coordinates, options: asked)
            // (About 400 bytes a fix: a tracepoint with its hint, a leg, a few points of line.)
            var writer = JSONWriter(capacity: 400 * coordinates.count)
            if general.generateHints {
                matched.writeOSRMJSON(into: &writer, geometries: shape.geometries, overview: shape.overview,
                                      steps: shape.steps, annotations: shape.annotations, waypoints: !skipWaypoints,
                                      hintsBy: router, inputs: coordinates)
            } else {
                matched.writeOSRMJSON(into: &writer, geometries: shape.geometries, overview: shape.overview,
                                      steps: shape.steps, annotations: shape.annotations, waypoints: !skipWaypoints)
            }
            return writer.bytes
        } catch {
            throw APIError(error)
        }
    }

    /// `told`: Waymark's `directions` service, the routes as the command line tells them
    /// (``Route/directionsJSON``) rather than OSRM's JSON.
    private func route(_ coordinates: [Coordinate],
                       _ options: inout Options, routers: Routers, told: Bool = false) throws(APIError) -> [UInt8] {
        try Self.check(coordinates.count, "route", atMost: limits.maxWaypoints)
        let general = try general(&options, count: coordinates.count)
        let router = routers.router(excluding: general.exclude)
        var asked = general.routeOptions
        var shape = try ResponseShape(&options)
        if told { shape.steps = true }
        let (steps, geometries, overview, kinds) = (shape.steps, shape.geometries, shape.overview, shape.annotations)
        if let text = options.take("alternatives") {
            guard let n = text == "true" ? 1 : text == "false" ? 0 : Int(text), n >= 0 else {
                throw APIError("InvalidQuery", "alternatives: '\(text.prefix(40))' is not true, false or a count")
            }
            // (osrm-routed with no alternatives allowed refuses even `alternatives=true`.)
            guard n <= limits.maxAlternatives else {
                throw APIError("TooBig", "alternatives=\(n): at most \(limits.maxAlternatives)")
            }
            asked.alternatives = n
        }
        shape.apply(to: &asked)
        let straight = try options.choice("continue_straight", ["default", "true", "false"], default: "default")
        asked.continueStraight = straight != "false"
        asked.legEnds = try Self.legEnds(&options, count: coordinates.count)
        let skipWaypoints = try options.bool("skip_waypoints", default: false)
        asked.language = try Self.language(&options)
        try options.finish(told ? "directions" : "route")
        do {
            let routes = try router.routes(coordinates, options: asked)
            if kinds.contains(.nodes), routes.contains(where: { $0.legs.contains { $0.annotation?.nodes == nil } }) {
                let rebuild = "rebuild it with 'waymark build'"
                throw APIError("InvalidOptions", "annotations=nodes: this map's file has no OSM node ids (\(rebuild))")
            }
            if told {
                return JSONValue.object(["code": "Ok", "routes": .array(routes.map(\.directionsJSON))]).jsonBytes
            }
            let hints = general.generateHints
                ? zip(routes[0].waypoints, coordinates).map { router.hint(for: $0, input: $1) } : nil
            var writer = JSONWriter()
            Route.writeOSRMJSON(routes, into: &writer, geometries: geometries, overview: overview, steps: steps,
                                annotations: kinds, waypoints: !skipWaypoints, hints: hints)
            return writer.bytes
        } catch let error as APIError {
            throw error
        } catch let error as RouteError {
            throw APIError(error)
        } catch {
            throw APIError("InvalidQuery", "\(error)")
        }
    }

    private func table(_ coordinates: [Coordinate],
                       _ options: inout Options, routers: Routers) throws(APIError) -> JSONValue {
        guard coordinates.count >= 2 else { throw APIError("InvalidOptions", "a table needs at least two coordinates") }
        let general = try general(&options, count: coordinates.count)
        let router = routers.router(excluding: general.exclude)
        func indices(_ name: String) throws(APIError) -> [Int] {
            guard let text = options.take(name), text != "all" else { return Array(coordinates.indices) }
            var result: [Int] = []
            for piece in HTTPRequestParser.pieces(of: text[...], at: UInt8(ascii: ";")) {
                guard let i = Int(piece), i >= 0 else {
                    throw APIError("InvalidQuery", "\(name): '\(piece.prefix(40))' is not an index")
                }
                guard coordinates.indices.contains(i) else {
                    throw APIError("InvalidOptions",
                                   "\(name): \(i) is not an index of the \(coordinates.count) coordinates")
                }
                result.append(i)
            }
            return result
        }
        let sources = try indices("sources"), destinations = try indices("destinations")
        let annotations = Set(try options.choice("annotations", ["duration", "distance"],
                                                 default: "duration", list: true).split(separator: ","))
        let scale = try options.positive("scale_factor", default: 1)
        let fallbackSpeed = options.has("fallback_speed") ? try options.positive("fallback_speed", default: 1) : nil
        let fallbackCoordinate = try options.choice("fallback_coordinate", ["input", "snapped"], default: "input")
        if sources.count * destinations.count > limits.maxTableSize * limits.maxTableSize {
            throw APIError(
                "TooBig",
                "\(sources.count) × \(destinations.count) table: at most \(limits.maxTableSize * limits.maxTableSize) "
                    + "cells"
            )
        }
        try options.finish("table")
        var table: DistanceTable
        do {
            let ends = sources + destinations, filters = general.filters
            table = try router.table(sources: sources.map { coordinates[$0] },
                                     destinations: destinations.map { coordinates[$0] },
                                     radiuses: ends.map { general.radiuses[$0] }, filters: ends.map { filters[$0] })
        } catch {
            throw APIError(error)
        }
        if let fallbackSpeed {
            let snapped = fallbackCoordinate == "snapped"
            table.fillUnreachable(speed: fallbackSpeed,
                                  sources: snapped ? table.sources.map(\.coordinate) : sources.map { coordinates[$0] },
                                  destinations: snapped ? table.destinations.map(\.coordinate)
                                      : destinations.map { coordinates[$0] })
        }
        var answer = table.osrmJSON(on: routers.map, durations: annotations.contains("duration"),
                                    distances: annotations.contains("distance"), scale: scale)
        // Each waypoint with its hint, as OSRM's.
        if general.generateHints, case var .object(fields) = answer {
            for (key, snaps, indices) in [("sources", table.sources, sources),
                                          ("destinations", table.destinations, destinations)] {
                guard case let .array(waypoints)? = fields[key] else { continue }
                fields[key] = .array(zip(waypoints, zip(snaps, indices)).map { waypoint, pair in
                    guard case var .object(entry) = waypoint else { return waypoint }
                    entry["hint"] = .string(router.hint(for: pair.0, input: coordinates[pair.1]))
                    return .object(entry)
                })
            }
            answer = .object(fields)
        }
        return answer
    }

    /// The Mapbox Isochrone API's request and response: `contours_minutes` (``Isochrone/problem(minutes:)``),
    /// `polygons`, `denoise`, `contours_colors`.
    private func isochrone(_ coordinates: [Coordinate],
                           _ options: inout Options, routers: Routers) throws(APIError) -> [UInt8] {
        guard coordinates.count == 1 else {
            throw APIError("InvalidOptions", "an isochrone takes one coordinate (\(coordinates.count) given)")
        }
        guard let text = options.take("contours_minutes") else { throw APIError("InvalidOptions",
            "contours_minutes is required, e.g. 5,10,15") }
        var minutes: [Double] = []
        for piece in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard let m = Double(piece), m.isFinite else {
                throw APIError("InvalidQuery", "contours_minutes: '\(piece.prefix(40))' is not a number")
            }
            minutes.append(m)
        }
        if let problem = Isochrone.problem(minutes: minutes, within: limits.isochroneMinutes) {
            throw APIError(minutes.count > Isochrone.maximumContours ? "TooBig" : "InvalidValue",
                           "contours_minutes: \(problem)")
        }
        guard zip(minutes, minutes.dropFirst()).allSatisfy({ $0 < $1 }) else {
            throw APIError("InvalidValue", "contours_minutes must increase")
        }
        let polygons = try options.bool("polygons", default: false)
        let denoise = try options.number("denoise", default: 1, in: 0...1)
        var colors: [String]?
        if let text = options.take("contours_colors") {
            let pieces = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard pieces.count == minutes.count, pieces.allSatisfy({ $0.count == 6 && $0.allSatisfy(\.isHexDigit) })
            else {
                throw APIError("InvalidValue", "contours_colors: one 6-digit hex colour (no '#') per time")
            }
            colors = pieces
        }
        let general = try general(&options, count: 1)
        let radius = general.radiuses[0]
        let exclude = try Self.exclude(&options)
        try options.finish("isochrone")
        do {
            let isochrone = try routers.router(excluding: exclude).isochrone(from: coordinates[0], minutes: minutes,
                                                 denoise: denoise, radius: radius)
            return GeoJSONWriter().data(
                .featureCollection(isochrone.featureCollection(polygons: polygons, colors: colors)))
        } catch {
            throw APIError(error)
        }
    }

    /// One coordinate: its nearest roads; several (as OSRM 26 answers them): one list per coordinate.
    private func nearest(_ coordinates: [Coordinate], _ options: inout Options,
                         routers: Routers) throws(APIError) -> JSONValue {
        guard coordinates.count <= limits.maxWaypoints else {
            throw APIError("TooBig", "\(coordinates.count) coordinates: nearest takes at most \(limits.maxWaypoints)")
        }
        let general = try general(&options, count: coordinates.count)
        let number: Int
        if let text = options.take("number") {
            guard let n = Int(text), n >= 0 else {
                throw APIError("InvalidQuery", "number: '\(text.prefix(40))' is not a count")
            }
            guard n >= 1 else { throw APIError("InvalidOptions", "number must be at least 1") }
            number = n
        } else {
            number = 1
        }
        guard number <= limits.maxNearest else { throw APIError("TooBig",
                                                                "number=\(number): at most \(limits.maxNearest)") }
        try options.finish("nearest")
        var lists: [JSONValue] = []
        let map = routers.map
        for (i, c) in coordinates.enumerated() {
            let radius = general.radiuses[i]
            var filter = general.filters[i]
            filter.excluded = general.exclude
            let found = map.nearest(c, count: number, maxDistance: radius, filter: filter)
            guard !found.isEmpty else {
                let reach = radius ?? map.maxSnapDistance
                let within = reach.isFinite ? "no road within \(Int(max(0, reach))) m of " : "no road near "
                throw APIError("NoSegment", within + "\(c.longitude),\(c.latitude)")
            }
            lists.append(.array(found.map { snap in
                guard case var .object(fields) = snap.osrmWaypoint(name: map.roadName(of: snap)) else {
                    return .null
                }
                if general.generateHints { fields["hint"] = .string(routers.base.hint(for: snap, input: c)) }
                if let (u, v) = map.nodeIDs(of: snap) { fields["nodes"] = [.number(Double(u)), .number(Double(v))] }
                return .object(fields)
            }))
        }
        return ["code": "Ok", "waypoints": lists.count == 1 ? lists[0] : .array(lists)]
    }

    /// What OSRM's general options ask of every coordinate.
    struct General {
        var radiuses: [Double?]
        var bearings: [(value: Int, range: Int)?]
        var approaches: [SnapFilter.Approach?]
        var anyRoad: Bool
        var hints: [String?]
        var generateHints: Bool
        var exclude: ExcludedClasses

        var routeOptions: RouteOptions {
            var options = RouteOptions()
            options.radiuses = radiuses
            options.bearings = bearings
            options.approaches = approaches
            options.snapToAnyRoad = anyRoad
            options.hints = hints
            options.exclude = exclude
            return options
        }

        var filters: [SnapFilter] {
            radiuses.indices.map { SnapFilter(bearing: bearings[$0], approach: approaches[$0] ?? .unrestricted,
                                              anyRoad: anyRoad) }
        }
    }

    /// The options every service takes (OSRM's general options): `radiuses` (nil for the
    /// default; at most the map's snapping distance), `bearings`, `approaches`, `hints`,
    /// `generate_hints`, `snapping`, and `exclude`.
    private func general(_ options: inout Options, count: Int) throws(APIError) -> General {
        var radiuses = [Double?](repeating: nil, count: count)
        if let text = options.take("radiuses") {
            let pieces = HTTPRequestParser.pieces(of: text[...], at: UInt8(ascii: ";"))
            guard pieces.count == count else {
                throw APIError("InvalidOptions", "radiuses: \(pieces.count) given for \(count) coordinates")
            }
            for (i, piece) in pieces.enumerated() where !piece.isEmpty && piece != "unlimited" {
                guard let r = HTTPRequestParser.number(piece), r.isFinite else { throw APIError("InvalidQuery",
                    "radiuses: '\(piece.prefix(40))' is not a distance in metres") }
                // (A negative radius reaches no road, as in OSRM: NoSegment.)
                radiuses[i] = min(r, map.maxSnapDistance)
            }
        }
        // Each per coordinate (OSRM: malformed InvalidQuery, out of range or miscounted InvalidOptions).
        let bearings = try options.perCoordinate("bearings", count: count) {
            piece throws(APIError) -> (value: Int, range: Int)? in
            guard let bearing = SnapFilter.bearing(parsing: piece) else { return nil }
            guard SnapFilter.isValid(bearing: bearing) else {
                throw APIError("InvalidOptions", "bearings: '\(piece.prefix(40))' is not value 0–360, range 0–180")
            }
            return bearing
        }
        let approaches = try options.perCoordinate("approaches", count: count) {
            SnapFilter.Approach(rawValue: String($0))
        }
        // A hint of OSRM's shape (112 characters of URL-safe base64 per snapped segment) not made
        // here for this coordinate on this map is ignored, as OSRM ignores a stale one; anything
        // else is malformed.
        let hints = try options.perCoordinate("hints", count: count) { piece -> String? in
            piece.utf8.count % 112 == 0 && piece.allSatisfy(Self.base64URL.contains) ? String(piece) : nil
        }
        let generateHints = try options.bool("generate_hints", default: true)
        let snapping = try options.choice("snapping", ["default", "any"], default: "default")
        let exclude = try Self.exclude(&options)
        return General(radiuses: radiuses, bearings: bearings ?? Array(repeating: nil, count: count),
                       approaches: approaches ?? Array(repeating: nil, count: count), anyRoad: snapping == "any",
                       hints: hints ?? [], generateHints: generateHints, exclude: exclude)
    }

    /// `exclude`: classes of road to keep off, any combination of `toll`, `motorway` and `ferry`
    /// (OSRM: `InvalidValue` for a class that cannot be excluded).
    static func exclude(_ options: inout Options) throws(APIError) -> ExcludedClasses {
        guard let text = options.take("exclude"), !text.isEmpty else { return [] }
        switch ExcludedClasses.parse(text) {
        case .success(let classes): return classes
        case .failure(let unknown): throw APIError("InvalidValue", "exclude: \(unknown)")
        }
    }

    // MARK: - Parsing

    static let base64URL = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=")

    /// `lon,lat;lon,lat;…` or `polyline(…)` / `polyline6(…)`.
    static func coordinates(_ text: String) throws(APIError) -> [Coordinate] {
        for (prefix, precision) in [("polyline(", 5), ("polyline6(", 6)] where text.hasPrefix(prefix)
            && text.hasSuffix(")") {
            let inner = String(text.dropFirst(prefix.count).dropLast())
            do {
                let decoded = try Polyline.decode(inner, precision: precision)
                guard !decoded.isEmpty else { throw APIError("InvalidUrl", "an empty polyline") }
                return decoded
            } catch let error as APIError {
                throw error
            } catch {
                // (OSRM reads what it can: too few coordinates for the service.)
                throw APIError("InvalidOptions", "the polyline cannot be decoded: \(error)")
            }
        }
        var result: [Coordinate] = []
        for (n, piece) in HTTPRequestParser.pieces(of: text[...], at: UInt8(ascii: ";")).enumerated() {
            let parts = HTTPRequestParser.pieces(of: piece, at: UInt8(ascii: ","))
            guard parts.count == 2, let lon = HTTPRequestParser.number(parts[0]),
                  let lat = HTTPRequestParser.number(parts[1]) else {
                throw APIError("InvalidQuery", "coordinate \(n + 1) ('\(piece.prefix(40))') is not longitude,latitude")
            }
            do {
                result.append(try Coordinate(validatingLatitude: lat, longitude: lon))
            } catch {
                throw APIError("InvalidValue", "coordinate \(n + 1) ('\(piece.prefix(40))'): \(error)")
            }
        }
        return result
    }

    /// The query's options, each read at most once; what is left unread is unknown.
    struct Options {
        private var values: [String: String] = [:]
        private var order: [String] = []

        init(_ query: [(name: String, value: String)]) throws(APIError) {
            // (An option given twice: the last one counts, as in OSRM.)
            for (name, value) in query {
                // (OSRM's grammar has no empty option: `steps=true&` is malformed.)
                guard !name.isEmpty else { throw APIError("InvalidQuery", "the query has an empty option") }
                if values[name] == nil { order.append(name) }
                values[name] = value
            }
        }

        /// Fails on the first option no one read: it is not the service's (checked before any work).
        func finish(_ service: String) throws(APIError) {
            if let unknown = order.first(where: { values[$0] != nil }) {
                throw APIError("InvalidQuery", "option '\(unknown)' is not one of \(service)'s")
            }
        }

        mutating func take(_ name: String) -> String? { values.removeValue(forKey: name) }

        func has(_ name: String) -> Bool { values[name] != nil }

        /// A number above 0 (OSRM: not a number InvalidQuery, not above 0 InvalidOptions).
        mutating func positive(_ name: String, default value: Double) throws(APIError) -> Double {
            guard let text = take(name) else { return value }
            guard let n = Double(text), n.isFinite else {
                throw APIError("InvalidQuery", "\(name): '\(text.prefix(40))' is not a number")
            }
            guard n > 0 else { throw APIError("InvalidOptions", "\(name) must be > 0") }
            return n
        }

        /// A `;`-list with one piece per coordinate (nil when not given), each empty piece nil and
        /// each other read by `read`, which returns nil for a malformed one (InvalidQuery, OSRM's
        /// "malformed"); a miscount is InvalidOptions.
        mutating func perCoordinate<T>(_ name: String, count: Int,
                                       _ read: (Substring) throws(APIError) -> T?) throws(APIError) -> [T?]? {
            guard let text = take(name) else { return nil }
            // (Read where they lie: a string made of each piece cost more than reading it.)
            let pieces = HTTPRequestParser.pieces(of: text[...], at: UInt8(ascii: ";"))
            var values: [T?] = []
            values.reserveCapacity(pieces.count)
            for piece in pieces {
                if piece.isEmpty {
                    values.append(nil)
                    continue
                }
                guard let value = try read(piece) else {
                    throw APIError("InvalidQuery", "\(name): '\(piece.prefix(40))' is malformed")
                }
                values.append(value)
            }
            guard pieces.count == count else {
                throw APIError("InvalidOptions", "\(name): \(pieces.count) given for \(count) coordinates")
            }
            return values
        }

        mutating func bool(_ name: String, default value: Bool) throws(APIError) -> Bool {
            guard let text = take(name) else { return value }
            switch text {
            case "true": return true
            case "false": return false
            default: throw APIError("InvalidQuery", "\(name): '\(text.prefix(40))' is not true or false")
            }
        }

        /// One of `allowed` (or, with `list`, several joined by commas).
        mutating func choice(_ name: String, _ allowed: [String],
                             default value: String, list: Bool = false) throws(APIError) -> String {
            guard let text = take(name) else { return value }
            let pieces = list ? text.split(separator: ",").map(String.init) : [text]
            guard !pieces.isEmpty, pieces.allSatisfy(allowed.contains) else {
                throw APIError("InvalidQuery",
                               "\(name): '\(text.prefix(40))' is not \(allowed.joined(separator: ", "))")
            }
            return text
        }

        mutating func number(_ name: String, default value: Double,
                             in range: ClosedRange<Double>) throws(APIError) -> Double {
            guard let text = take(name) else { return value }
            guard let n = Double(text), range.contains(n) else {
                throw APIError(
                    "InvalidQuery",
                    "\(name): '\(text.prefix(40))' is not a number from \(range.lowerBound) to \(range.upperBound)")
            }
            return n
        }
    }
}

/// An error answer in OSRM's shape: `{"code": …, "message": …}`, HTTP 400 unless said otherwise.
struct APIError: Error {
    var status: HTTPStatus
    var code: String
    var message: String

    init(status: HTTPStatus = .badRequest, code: String, _ message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    init(_ code: String, _ message: String) { self.init(code: code, message) }

    /// (Points in its message as the API takes them: longitude,latitude.)
    init(_ error: RouteError) {
        self.init(error.code == "InvalidInput" ? "InvalidOptions" : error.code, error.message(lonLat: true))
    }
}
