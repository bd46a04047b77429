import Foundation
import Waymark

/// The browser viewer of `waymark serve --pois FILE`: one page (``ViewerPage``) with the map
/// and the list of places, and the endpoints it calls beside OSRM's API, which answers the rest:
///
/// - `GET /` the page; `GET /pois` the places file (GeoJSON, with its version as `ETag`), and
///   `GET /pois/{id}` one of them;
/// - `PUT /pois/{id}` `{"title": …, "subtitle": …}` with `If-Match: <version>`: the edit, saved
///   atomically by ``PlaceFile`` (412 when the file changed since that version, 428 without it);
/// - `GET /render?lat=&lon=&zoom=&width=&height=` the map picture (roads, basemap, names) there;
/// - `GET /clusters?west=&south=&east=&north=&zoom=` the places clustered at a zoom (with each
///   cluster's expansion zoom);
/// - `GET /fit?width=&height=[&points=lon,lat;…]` the viewport that shows every place, or the
///   points given (a route's corners) (``fitViewport(_:options:)``).
///
/// The places are read again after every save; edits are serialised (one lock, and the file's own).
/// Reading is open to every client; editing needs the secret of ``ViewerEditing`` (as Jupyter's
/// token): a server reachable by others never lets them rewrite the places file.
public final class ViewerService: @unchecked Sendable {
    public let osrm: OSRMService
    public let placesPath: String
    public let editing: ViewerEditing
    private let basemap: Basemap?
    /// Whether the map has a basemap to draw (water, parks, names) besides its roads.
    public var hasBasemap: Bool { basemap != nil }
    /// The roads its pictures draw: the map's at start (a map replaced while serving routes on
    /// new speeds; its roads lie where they lay, and the places and their edits stay as they are).
    private let graph: RoadGraph
    /// Where the roads and features lie, so a picture of the view looks only at the view.
    private let pictureIndex: PictureIndex
    private let lock = NSLock()
    /// Guarded by `lock`: the places as last read.
    private var places: Places

    private struct Places {
        var version: String
        var bytes: [UInt8]
        var annotations: [Annotation]
        var ids: [String?]
        var index: ClusterIndex?
    }

    /// Fails with the reason when the places file cannot be read, or the map's stored basemap is damaged.
    public init(osrm: OSRMService, placesPath: String, editing: ViewerEditing) throws {
        self.osrm = osrm
        self.placesPath = placesPath
        self.editing = editing
        basemap = try osrm.map.basemap()
        graph = osrm.map.graph
        pictureIndex = PictureIndex(graph: graph, basemap: basemap)
        places = try ViewerService.read(placesPath)
        // Edits are saved to the file: where it cannot be written, said at start, not at the first save.
        if !editing.isReadOnly {
            do { try AtomicFile.checkWritable(placesPath) } catch {
                throw ViewerEditingError("\(error) (serve it with --read-only to show it without editing)")
            }
        }
    }

    private static func read(_ path: String) throws(PlaceFileError) -> Places {
        let file = try PlaceFile(path: path)
        let ids = file.annotations.map { $0.id?.description }
        let index = try? ClusterIndex(coordinates: file.annotations.map(\.coordinate), options: MapPicture.pinClusters)
        return Places(version: file.version, bytes: file.encoded(),
                      annotations: file.annotations, ids: ids, index: index)
    }

    /// A handler for one thread: the viewer's paths, then OSRM's API.
    public func makeHandler() -> HTTPHandler {
        let api = osrm.makeHandler()
        return { request in self.respond(to: request) ?? api(request) }
    }

    /// The viewer's answer, or nil for a path it does not serve.
    public func respond(to request: HTTPRequest) -> HTTPResponse? {
        let segments = request.segments
        switch (request.method, segments) {
        case ("GET", [""]), ("HEAD", [""]), ("GET", []), ("HEAD", []):
            return HTTPResponse(status: .ok,
                                headers: [("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store")],
                                body: Array(ViewerPage.html.utf8))
        case ("GET", ["pois"]), ("HEAD", ["pois"]):
            let current = lock.withLock { places }
            // (The page shows its editor only where saving can work.)
            return HTTPResponse(status: .ok,
                                headers: [("Content-Type", "application/geo+json"), ("ETag", "\"\(current.version)\""),
                                          ("Cache-Control", "no-store"),
                                          ("Waymark-Editing", editing.isReadOnly ? "read-only" : "token")],
                                body: current.bytes)
        case ("PUT", let path) where path.count == 2 && path[0] == "pois":
            return refusal(of: request) ?? edit(id: path[1], request)
        case ("GET", let path) where path.count == 2 && path[0] == "pois":
            let current = lock.withLock { places }
            guard let i = current.ids.firstIndex(of: path[1]) else { return ViewerService.error(.notFound, "NotFound",
                "no place with id '\(path[1])'") }
            var response = HTTPResponse.json(ViewerService.feature(current.annotations[i], id: path[1]))
            response.headers.append(("ETag", "\"\(current.version)\""))
            return response
        case (_, let path) where path.first == "pois" && path.count <= 2:
            return ViewerService.error(.methodNotAllowed, "MethodNotAllowed",
                                       "places are read with GET and edited with PUT /pois/{id}")
        case ("GET", ["render"]), ("HEAD", ["render"]):
            return render(request)
        case ("GET", ["clusters"]):
            return clusters(request)
        case ("GET", ["fit"]):
            return fit(request)
        case (let method, _) where method != "GET" && method != "HEAD" && method != "OPTIONS":
            return ViewerService.error(.methodNotAllowed, "MethodNotAllowed",
                                       "\(method) is served only for PUT /pois/{id}")
        default:
            return nil
        }
    }

    static func error(_ status: HTTPStatus, _ code: String, _ message: String,
                      headers: [(name: String, value: String)] = []) -> HTTPResponse {
        var response = HTTPResponse.json(["code": .string(code), "message": .string(message)], status: status)
        response.headers += headers
        return response
    }

    // MARK: - Editing

    /// Why an edit may not be made: read-only (403), no token (401, as RFC 6750 says), the wrong
    /// one (403); nil when it may.
    func refusal(of request: HTTPRequest) -> HTTPResponse? {
        guard case let .token(secret) = editing else {
            return ViewerService.error(.forbidden, "ReadOnly", "this viewer is read-only (waymark serve --read-only)")
        }
        let scheme = "bearer "
        guard let authorization = request.header("authorization"), authorization.count > scheme.count,
              authorization.prefix(scheme.count).lowercased() == scheme else {
            return ViewerService.error(.unauthorized, "Unauthorized",
                                       "editing needs the token waymark serve printed (Authorization: Bearer …)",
                                       headers: [("WWW-Authenticate", "Bearer realm=\"waymark\"")])
        }
        let given = authorization.dropFirst(scheme.count).trimmingCharacters(in: .whitespaces)
        guard ViewerEditing.same(given, secret) else {
            let challenge = "Bearer realm=\"waymark\", error=\"invalid_token\""
            return ViewerService.error(.forbidden, "Forbidden", "wrong edit token",
                                       headers: [("WWW-Authenticate", challenge)])
        }
        return nil
    }

    private func edit(id: String, _ request: HTTPRequest) -> HTTPResponse {
        guard let match = request.header("if-match") else {
            return ViewerService.error(HTTPStatus(428, "Precondition Required"), "PreconditionRequired",
                                       "send If-Match with the version read from GET /pois (its ETag)")
        }
        guard let body = try? JSONValue(parsing: request.body), let fields = body.objectValue else {
            return ViewerService.error(.badRequest, "InvalidValue",
                                       "the body must be a JSON object: {\"title\": …, \"subtitle\": …}")
        }
        for key in fields.keys where key != "title" && key != "subtitle" {
            return ViewerService.error(
                .badRequest, "InvalidValue",
                "'\(key)' cannot be edited here (title and subtitle can; the coordinate is read-only)")
        }
        var title: String?, subtitle: String?
        for (key, value) in fields {
            guard let text = value.stringValue else { return ViewerService.error(.badRequest, "InvalidValue",
                "'\(key)' must be a string") }
            if key == "title" { title = text } else { subtitle = text }
        }
        let wanted = match.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        return lock.withLock { () -> HTTPResponse in
            var file: PlaceFile
            do { file = try PlaceFile(path: placesPath) } catch {
                return ViewerService.error(.internalServerError, "ReadFailed", "\(error)")
            }
            guard file.version == wanted else {
                return ViewerService.error(HTTPStatus(412, "Precondition Failed"), "Conflict",
                                           "the places file changed since version \(wanted) was read (now "
                                               + "\(file.version)); nothing saved",
                                           headers: [("ETag", "\"\(file.version)\"")])
            }
            guard file.index(ofID: id) != nil else {
                return ViewerService.error(.notFound, "NotFound", "no place with id '\(id)'")
            }
            do throws(PlaceFileError) {
                _ = try file.edit(id: id, title: title, subtitle: subtitle)
                try file.save()
                places = try ViewerService.read(placesPath)
            } catch {
                let changed = error.message.contains("changed on disk")
                return ViewerService.error(changed ? HTTPStatus(412, "Precondition Failed") : .badRequest,
                                           changed ? "Conflict" : "InvalidValue", error.message)
            }
            // (Read back: another writer may have removed the place since; then no feature.)
            var answer: JSONObject = ["version": .string(places.version)]
            if let i = places.ids.firstIndex(of: id) {
                answer["feature"] = ViewerService.feature(places.annotations[i], id: id)
            }
            return HTTPResponse(status: .ok,
                                headers: [("Content-Type", "application/json"), ("ETag", "\"\(places.version)\"")],
                                body: JSONValue.object(answer).jsonBytes)
        }
    }

    static func feature(_ a: Annotation, id: String?) -> JSONValue {
        var properties: JSONObject = [:]
        if let title = a.title { properties["title"] = .string(title) }
        if let subtitle = a.subtitle { properties["subtitle"] = .string(subtitle) }
        var feature: JSONObject = ["type": "Feature", "properties": .object(properties),
                                   "geometry": ["type": "Point",
                                                "coordinates": .array([.number(a.coordinate.longitude),
                                                                       .number(a.coordinate.latitude)])]]
        if let id { feature["id"] = .string(id) }
        return .object(feature)
    }

    // MARK: - Map

    private func numbers(_ request: HTTPRequest, _ names: [String]) -> [Double]? {
        var out: [Double] = []
        for name in names {
            guard let text = request.query.first(where: { $0.name == name })?.value, let value = Double(text),
                value.isFinite
            else { return nil }
            out.append(value)
        }
        return out
    }

    private func render(_ request: HTTPRequest) -> HTTPResponse {
        guard let v = numbers(request, ["lat", "lon", "zoom", "width", "height"]) else {
            return ViewerService.error(.badRequest, "InvalidQuery", "give lat, lon, zoom, width and height as numbers")
        }
        guard (-90...90).contains(v[0]), (-180...180).contains(v[1]), (0...22).contains(v[2]),
            (16...4096).contains(v[3]), (16...4096).contains(v[4])
        else {
            return ViewerService.error(.badRequest, "InvalidValue",
                                       "lat −90…90, lon −180…180, zoom 0…22, width and height 16…4096")
        }
        let scene = MapScene(graph: graph, basemap: basemap, index: pictureIndex)
        do {
            let svg = try MapPicture(width: v[3], height: v[4]).svg(
                scene, center: Coordinate(latitude: v[0], longitude: v[1]), zoom: v[2])
            return HTTPResponse(status: .ok,
                                headers: [("Content-Type", "image/svg+xml"),
                                          ("Cache-Control", "max-age=300")], body: Array(svg.utf8))
        } catch {
            return ViewerService.error(.badRequest, "InvalidValue", "\(error)")
        }
    }

    private func clusters(_ request: HTTPRequest) -> HTTPResponse {
        guard let v = numbers(request, ["west", "south", "east", "north", "zoom"]), (0...30).contains(v[4]),
              (-180...180).contains(v[0]), (-180...180).contains(v[2]), (-90...90).contains(v[1]),
              (-90...90).contains(v[3]), v[1] <= v[3] else {
            return ViewerService.error(.badRequest, "InvalidQuery",
                                       "give west, south, east, north (degrees, south ≤ north) and zoom (0…30)")
        }
        let current = lock.withLock { places }
        var items: [JSONValue] = []
        if let index = current.index {
            for item in index.clusters(west: v[0], south: v[1], east: v[2], north: v[3], zoom: v[4].rounded(.down)) {
                switch item {
                case let .cluster(c):
                    let expansion = (try? index.expansionZoom(of: c.id)) ?? Int(v[4]) + 1
                    items.append(["type": "cluster", "id": .number(Double(c.id)),
                                  "count": .number(Double(c.pointCount)),
                                  "lat": .number(c.coordinate.latitude), "lon": .number(c.coordinate.longitude),
                                  "expansion_zoom": .number(Double(expansion))])
                case let .point(i):
                    var point: JSONObject = ["type": "point",
                                             "lat": .number(current.annotations[i].coordinate.latitude),
                                             "lon": .number(current.annotations[i].coordinate.longitude)]
                    if let id = current.ids[i] { point["id"] = .string(id) }
                    items.append(.object(point))
                }
            }
        }
        return .json(["version": .string(current.version), "items": .array(items)])
    }

    private func fit(_ request: HTTPRequest) -> HTTPResponse {
        guard let v = numbers(request, ["width", "height"]), (64...8192).contains(v[0]), (64...8192).contains(v[1])
        else {
            return ViewerService.error(.badRequest, "InvalidQuery", "give width and height (64…8192)")
        }
        var coordinates: [Coordinate]
        if let text = request.query.last(where: { $0.name == "points" })?.value {
            // Given points (a route's corners): those, not the places.
            guard let points = try? OSRMService.coordinates(text), !points.isEmpty else {
                return ViewerService.error(.badRequest, "InvalidQuery", "points: give lon,lat;lon,lat…")
            }
            coordinates = points
        } else {
            coordinates = lock.withLock { places }.annotations.map(\.coordinate)
        }
        if coordinates.isEmpty {
            coordinates = [0, UInt32(max(0, graph.nodeCount - 1))].filter { Int($0) < graph.nodeCount }.map {
                graph.coordinate(of: $0)
            }
        }
        let options = ViewportOptions(width: v[0], height: v[1],
                                      padding: EdgePadding(top: 60, left: 40, bottom: 40, right: 40),
                                      minZoom: 0, maxZoom: 18)
        guard let fit = try? fitViewport(coordinates, options: options) else {
            return ViewerService.error(.badRequest, "InvalidValue", "nothing to fit in \(Int(v[0]))×\(Int(v[1]))")
        }
        return .json(["center": .array([.number(fit.center.longitude), .number(fit.center.latitude)]),
                      "zoom": .number(fit.zoom)])
    }
}
