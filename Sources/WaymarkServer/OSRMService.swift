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
    /// The times an isochrone may ask for, in minutes.
    public var isochroneMinutes = Isochrone.minutesRange

    public init() {}
}

/// OSRM's HTTP API v1 over one ``RoadMap``: `route`, `table` and `nearest`, with OSRM's request
/// shapes (`/{service}/v1/{profile}/{coordinates}[.json]?option=value&…`), response JSON and
/// error codes, so an OSRM client works by changing the URL. Also `/health`.
///
/// Each worker thread answers with a handler of its own (``makeHandler()``): a router, whose
/// search scratch it alone uses, over the one shared map.
public final class OSRMService: Sendable {
    public let map: RoadMap
    public let limits: OSRMServiceLimits

    public init(map: RoadMap, limits: OSRMServiceLimits = OSRMServiceLimits()) {
        self.map = map
        self.limits = limits
    }

    /// A handler for one thread.
    public func makeHandler() -> HTTPHandler {
        let router = map.makeRouter()
        return { request in self.respond(to: request, router: router) }
    }

    /// The response to one request, answered with `router` (one thread's).
    public func respond(to request: HTTPRequest, router: Router) -> HTTPResponse {
        if request.method == "OPTIONS" {
            return HTTPResponse(status: .noContent,
                                headers: [("Allow", "GET, HEAD, OPTIONS"),
                                          ("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS"),
                                                              ("Access-Control-Max-Age", "86400")])
        }
        do {
            return .json(bytes: try answer(request, router: router))
        } catch {
            return .json(["code": .string(error.code), "message": .string(error.message)], status: error.status)
        }
    }

    // MARK: - Dispatch

    /// The JSON bytes of a successful answer.
    private func answer(_ request: HTTPRequest, router: Router) throws(APIError) -> [UInt8] {
        let segments = request.segments
        if segments == ["health"] {
            return (["code": "Ok", "status": "serving", "nodes": .number(Double(map.graph.nodeCount)),
                    "edges": .number(Double(map.graph.edgeCount)),
                    "search": .string(map.hierarchy != nil ? "hierarchy" : "landmarks")] as JSONValue).jsonBytes
        }
        guard segments.count == 4, !segments[0].isEmpty else {
            throw APIError(
                "InvalidUrl",
                "not an OSRM URL: expected /{service}/v1/{profile}/{coordinates} (services: route, table, nearest, "
                    + "isochrone) or /health"
            )
        }
        let service = segments[0]
        guard ["route", "table", "nearest", "isochrone"].contains(service) else {
            throw APIError("InvalidService", "service '\(service)' is not served (route, table, nearest, isochrone)")
        }
        guard segments[1] == "v1" else { throw APIError("InvalidVersion",
                                                        "version '\(segments[1])' is not served (v1)") }
        var text = segments[3]
        if text.hasSuffix(".json") { text.removeLast(5) }
        guard !text.isEmpty else { throw APIError("InvalidUrl", "the URL has no coordinates after the profile") }
        let coordinates = try OSRMService.coordinates(text)
        var options = try Options(request.query)
        let result: [UInt8]
        switch service {
        case "route": result = try route(coordinates, &options, router: router)
        case "table": result = try table(coordinates, &options, router: router).jsonBytes
        case "isochrone": result = try isochrone(coordinates, &options, router: router)
        default: result = try nearest(coordinates, &options).jsonBytes
        }
        return result
    }

    // MARK: - Services

    private func route(_ coordinates: [Coordinate],
                       _ options: inout Options, router: Router) throws(APIError) -> [UInt8] {
        guard coordinates.count >= 2 else { throw APIError("InvalidOptions", "a route needs at least two coordinates") }
        guard coordinates.count <= limits.maxWaypoints else {
            throw APIError("TooBig", "\(coordinates.count) coordinates: a route takes at most \(limits.maxWaypoints)")
        }
        let radiuses = try general(&options, count: coordinates.count)
        let steps = try options.bool("steps", default: false)
        // one route is always given (OSRM does not promise more)
        _ = try options.choice("alternatives", ["false", "true", "0", "1", "2", "3"], default: "false")
        let geometries = GeometryFormat(
            rawValue: try options.choice("geometries", GeometryFormat.allCases.map(\.rawValue), default: "polyline"))!
        let overview = OverviewFormat(
            rawValue: try options.choice("overview", OverviewFormat.allCases.map(\.rawValue), default: "simplified"))!
        if try options.choice("annotations",
                              ["false", "true", "nodes", "distance", "duration", "datasources", "weight", "speed"],
                              default: "false", list: true) != "false" {
            throw APIError("NotImplemented", "annotations are not served; leave the option out or set it to false")
        }
        let straight = try options.choice("continue_straight", ["default", "true", "false"], default: "default")
        if straight == "true" {
            throw APIError(
                "NotImplemented",
                "continue_straight=true is not served: routes may turn round at via points (continue_straight=false)")
        }
        if let text = options.take("waypoints") {
            // Checked as OSRM checks it, then refused: legs only at some coordinates are not served yet.
            var indices: [Int] = []
            for piece in text.split(separator: ";", omittingEmptySubsequences: false) {
                guard let i = Int(piece), i >= 0 else {
                    throw APIError("InvalidQuery", "waypoints: '\(piece.prefix(40))' is not an index")
                }
                indices.append(i)
            }
            guard indices.allSatisfy(coordinates.indices.contains) else {
                throw APIError("InvalidOptions",
                               "waypoints: an index is not one of the \(coordinates.count) coordinates")
            }
            guard indices.first == 0, indices.last == coordinates.count - 1 else {
                throw APIError("InvalidValue", "waypoints: the first and last coordinates must be waypoints")
            }
            if indices != Array(coordinates.indices) {
                throw APIError("NotImplemented", "the waypoints option (silent via points) is not served")
            }
        }
        let skipWaypoints = try options.bool("skip_waypoints", default: false)
        let code = try options.choice("language", InstructionTemplates.available.keys.sorted(), default: "en")
        try options.finish("route")
        do {
            let route = try router.route(coordinates, radiuses: radiuses,
                                         language: InstructionTemplates.available[code]!)
            var writer = JSONWriter()
            route.writeOSRMJSON(into: &writer, geometries: geometries, overview: overview, steps: steps,
                                waypoints: !skipWaypoints)
            return writer.bytes
        } catch {
            throw APIError(error)
        }
    }

    private func table(_ coordinates: [Coordinate],
                       _ options: inout Options, router: Router) throws(APIError) -> JSONValue {
        guard coordinates.count >= 2 else { throw APIError("InvalidOptions", "a table needs at least two coordinates") }
        let radiuses = try general(&options, count: coordinates.count)
        func indices(_ name: String) throws(APIError) -> [Int] {
            guard let text = options.take(name), text != "all" else { return Array(coordinates.indices) }
            var result: [Int] = []
            for piece in text.split(separator: ";", omittingEmptySubsequences: false) {
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
        if fallbackSpeed != nil || fallbackCoordinate != "input" {
            throw APIError("NotImplemented", "fallback_speed is not served: unreachable pairs are null")
        }
        if sources.count * destinations.count > limits.maxTableSize * limits.maxTableSize {
            throw APIError(
                "TooBig",
                "\(sources.count) × \(destinations.count) table: at most \(limits.maxTableSize * limits.maxTableSize) "
                    + "cells"
            )
        }
        try options.finish("table")
        let table: DistanceTable
        do {
            table = try router.table(sources: sources.map { coordinates[$0] },
                                     destinations: destinations.map { coordinates[$0] },
                                     radiuses: sources.map { radiuses[$0] } + destinations.map { radiuses[$0] })
        } catch {
            throw APIError(error)
        }
        return table.osrmJSON(on: map, durations: annotations.contains("duration"),
                              distances: annotations.contains("distance"), scale: scale)
    }

    /// The Mapbox Isochrone API's request and response: `contours_minutes` (``Isochrone/problem(minutes:)``),
    /// `polygons`, `denoise`, `contours_colors`.
    private func isochrone(_ coordinates: [Coordinate],
                           _ options: inout Options, router: Router) throws(APIError) -> [UInt8] {
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
        let radius = try general(&options, count: 1)[0]
        try options.finish("isochrone")
        do {
            let isochrone = try router.isochrone(from: coordinates[0], minutes: minutes,
                                                 denoise: denoise, radius: radius)
            return GeoJSONWriter().data(
                .featureCollection(isochrone.featureCollection(polygons: polygons, colors: colors)))
        } catch {
            throw APIError(error)
        }
    }

    /// One coordinate: its nearest roads; several (as OSRM 26 answers them): one list per coordinate.
    private func nearest(_ coordinates: [Coordinate], _ options: inout Options) throws(APIError) -> JSONValue {
        guard coordinates.count <= limits.maxWaypoints else {
            throw APIError("TooBig", "\(coordinates.count) coordinates: nearest takes at most \(limits.maxWaypoints)")
        }
        let radiuses = try general(&options, count: coordinates.count)
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
        for (c, radius) in zip(coordinates, radiuses) {
            let found = map.nearest(c, count: number, maxDistance: radius)
            guard !found.isEmpty else {
                let reach = radius ?? map.maxSnapDistance
                let within = reach.isFinite ? "no road within \(Int(max(0, reach))) m of " : "no road near "
                throw APIError("NoSegment", within + "\(c.longitude),\(c.latitude)")
            }
            lists.append(.array(found.map(waypoint)))
        }
        return ["code": "Ok", "waypoints": lists.count == 1 ? lists[0] : .array(lists)]
    }

    private func waypoint(_ snap: Snap) -> JSONValue { snap.osrmWaypoint(name: map.roadName(of: snap)) }

    /// The options every service takes (OSRM's general options): `radiuses` (returned, per
    /// coordinate, nil for the default; at most the map's snapping distance), and the ones
    /// Waymark accepts as OSRM's defaults or refuses with the reason.
    private func general(_ options: inout Options, count: Int) throws(APIError) -> [Double?] {
        var radiuses = [Double?](repeating: nil, count: count)
        if let text = options.take("radiuses") {
            let pieces = text.split(separator: ";", omittingEmptySubsequences: false)
            guard pieces.count == count else {
                throw APIError("InvalidOptions", "radiuses: \(pieces.count) given for \(count) coordinates")
            }
            for (i, piece) in pieces.enumerated() where !piece.isEmpty && piece != "unlimited" {
                guard let r = Double(piece), r.isFinite else { throw APIError("InvalidQuery",
                    "radiuses: '\(piece.prefix(40))' is not a distance in metres") }
                // (A negative radius reaches no road, as in OSRM: NoSegment.)
                radiuses[i] = min(r, map.maxSnapDistance)
            }
        }
        // Each per coordinate (OSRM: malformed InvalidQuery, out of range or miscounted InvalidOptions).
        if let pieces = try options.perCoordinate("bearings", count: count, { piece throws(APIError) in
            let parts = piece.split(separator: ",", omittingEmptySubsequences: false)
            guard parts.count == 2, let value = Int(parts[0]), let range = Int(parts[1]) else { return false }
            guard (0...360).contains(value), (0...180).contains(range) else {
                throw APIError("InvalidOptions", "bearings: '\(piece.prefix(40))' is not value 0–360, range 0–180")
            }
            return true
        }), !pieces.isEmpty {
            throw APIError("NotImplemented", "bearings are not served; leave each empty")
        }
        if let pieces = try options.perCoordinate("approaches", count: count, {
            ["unrestricted", "curb", "opposite"].contains($0)
        }), pieces.contains(where: { $0 != "unrestricted" }) {
            throw APIError("NotImplemented", "approaches other than unrestricted are not served")
        }
        // Hints are never given out: one of OSRM's shape (112 characters of URL-safe base64) is
        // stale and ignored, as OSRM ignores a stale one; anything else is malformed.
        _ = try options.perCoordinate("hints", count: count) { piece in
            piece.utf8.count == 112 && piece.allSatisfy(Self.base64URL.contains)
        }
        _ = try options.bool("generate_hints", default: true)
        _ = try options.choice("snapping", ["default", "any"], default: "default")
        if let exclude = options.take("exclude"), !exclude.isEmpty {
            throw APIError("InvalidValue", "exclude: no classes can be excluded on this map")
        }
        return radiuses
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
        for (n, piece) in text.split(separator: ";", omittingEmptySubsequences: false).enumerated() {
            let parts = piece.split(separator: ",", omittingEmptySubsequences: false)
            guard parts.count == 2, let lon = Double(parts[0]), let lat = Double(parts[1]) else {
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

        /// The non-empty pieces of a `;`-list with one piece per coordinate (nil when not given):
        /// each must pass `wellFormed` (else InvalidQuery, OSRM's "malformed"), the count must match
        /// (else InvalidOptions).
        mutating func perCoordinate(_ name: String, count: Int,
                                    _ wellFormed: (String) throws(APIError) -> Bool) throws(APIError) -> [String]? {
            guard let text = take(name) else { return nil }
            let pieces = text.split(separator: ";", omittingEmptySubsequences: false).map(String.init)
            for piece in pieces where !piece.isEmpty {
                guard try wellFormed(piece) else {
                    throw APIError("InvalidQuery", "\(name): '\(piece.prefix(40))' is malformed")
                }
            }
            guard pieces.count == count else {
                throw APIError("InvalidOptions", "\(name): \(pieces.count) given for \(count) coordinates")
            }
            return pieces.filter { !$0.isEmpty }
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
