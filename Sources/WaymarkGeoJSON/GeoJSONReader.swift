import Foundation
import WaymarkGeo

/// Why a GeoJSON document could not be read: where (line, column, and the feature's index when
/// inside a FeatureCollection), the member path, and what was wrong.
public struct GeoJSONError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Line and column of the offending value.
    public var location: SourceLocation
    /// Index of the feature in `features`, when the error is inside one.
    public var featureIndex: Int?
    /// Path of the member from the document root, e.g. `features[3].geometry.coordinates[0]`.
    public var path: String
    public var message: String

    public var description: String {
        var text = "line \(location.line), column \(location.column)"
        if let featureIndex { text += " (feature \(featureIndex))" }
        if !path.isEmpty { text += ", \(path)" }
        return text + ": " + message
    }
}

/// Reads GeoJSON (RFC 7946) strictly: required members and their types are checked, positions
/// must be in range, LineStrings need two positions and Polygon rings four and closure.
public enum GeoJSONReader {
    /// Reads a GeoJSON document.
    /// - Throws: ``GeoJSONError`` naming line, column, feature index and member path.
    public static func read(_ bytes: [UInt8]) throws(GeoJSONError) -> GeoJSONObject {
        let root = try parseRoot(bytes)
        return try decode(root, bytes)
    }

    /// The common case, without a tree of the whole document: a FeatureCollection whose features
    /// are decoded one by one as the parser reaches them. Nil (the caller then takes the full path,
    /// with its exact errors) for any other document or any error.
    private static func streamFeatureCollection(_ bytes: [UInt8], featureLocations: inout [SourceLocation])
        throws(GeoJSONError) -> FeatureCollection? {
        var features: [Feature] = [], offsets: [Int] = []
        var typeNode: LocatedJSON?, bboxNode: LocatedJSON?
        var sawFeatures = false
        let outcome: Result<Void, Error> = bytes.withUnsafeBufferPointer { buffer in
            Result {
                var decoder = Decoder(bytes: buffer)
                try JSONParser.streamObject(buffer) { key, p in
                    guard key == "features", p.atArray else {
                        let node = try p.value()
                        if key == "type" { typeNode = node } else if key == "bbox" { bboxNode = node }
                        return
                    }
                    sawFeatures = true
                    var i = 0
                    try p.elements { p in
                        let node = try p.value()
                        offsets.append(node.offset)
                        decoder.featureIndex = i
                        let path = "features[\(i)]"
                        let type = try decoder.typeName(node, path)
                        guard type == "Feature" else {
                            throw decoder.fail(node, path, "expected a Feature, found type \"\(type)\"")
                        }
                        features.append(try decoder.feature(node, path: path))
                        i += 1
                    }
                }
            }
        }
        let isCollection: Bool = {
            if case .string("FeatureCollection")? = typeNode?.kind { return true }
            return false
        }()
        // On any error the full path reads the document again and reports what it always has
        // (a syntax error anywhere comes before a feature's own error).
        if case .failure = outcome { return nil }
        guard isCollection, sawFeatures else { return nil }
        var collection = FeatureCollection(features: features)
        if let bboxNode {
            collection.bbox = try bytes.withUnsafeBufferPointer { (buffer) throws(GeoJSONError) in
                try Decoder(bytes: buffer).bbox(LocatedJSON(offset: bboxNode.offset,
                                                            kind: .object([("bbox", bboxNode)])), path: "")
            }
        }
        featureLocations = bytes.withUnsafeBufferPointer { SourceLocation.locations(ofAscending: offsets, in: $0) }
        return collection
    }

    private static func parseRoot(_ bytes: [UInt8]) throws(GeoJSONError) -> LocatedJSON {
        do {
            return try JSONParser.parse(bytes)
        } catch {
            throw GeoJSONError(location: error.location, featureIndex: nil, path: "", message: error.message)
        }
    }

    private static func decode(_ root: LocatedJSON, _ bytes: [UInt8]) throws(GeoJSONError) -> GeoJSONObject {
        try bytes.withUnsafeBufferPointer { (buffer) throws(GeoJSONError) in
            var decoder = Decoder(bytes: buffer)
            return try decoder.object(root, path: "")
        }
    }

    /// Reads a GeoJSON document from text.
    public static func read(_ text: String) throws(GeoJSONError) -> GeoJSONObject {
        try read(Array(text.utf8))
    }

    /// Reads a document that must be a FeatureCollection (a lone Feature is wrapped in one).
    public static func readFeatureCollection(_ bytes: [UInt8]) throws(GeoJSONError) -> FeatureCollection {
        var locations: [SourceLocation] = []
        return try readFeatureCollection(bytes, featureLocations: &locations)
    }

    /// Reads a FeatureCollection (or a lone Feature) and where each feature starts, so that checks
    /// made later (by the caller) can name the line of a feature.
    public static func readFeatureCollection(_ bytes: [UInt8], featureLocations: inout [SourceLocation])
        throws(GeoJSONError) -> FeatureCollection {
        if let streamed = try streamFeatureCollection(bytes, featureLocations: &featureLocations) { return streamed }
        let root = try parseRoot(bytes)
        let object = try decode(root, bytes)
        let starts: [Int]
        if case let .array(items)? = root.member("features")?.kind {
            starts = items.map(\.offset)
        } else {
            starts = [root.offset]
        }
        // Features appear in document order, so one pass finds every line.
        featureLocations = bytes.withUnsafeBufferPointer { SourceLocation.locations(ofAscending: starts, in: $0) }
        switch object {
        case let .featureCollection(collection): return collection
        case let .feature(feature): return FeatureCollection(features: [feature])
        case .geometry:
            throw GeoJSONError(location: SourceLocation(line: 1, column: 1), featureIndex: nil, path: "",
                               message: "expected a FeatureCollection or a Feature, found a bare geometry")
        }
    }
}

private struct Decoder {
    let bytes: UnsafeBufferPointer<UInt8>
    var featureIndex: Int?

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    func fail(_ node: LocatedJSON, _ path: String, _ message: String) -> GeoJSONError {
        GeoJSONError(location: SourceLocation(offset: node.offset, in: bytes), featureIndex: featureIndex,
                     path: path, message: message)
    }

    func typeName(_ node: LocatedJSON, _ path: String) throws(GeoJSONError) -> String {
        guard case .object = node.kind else { throw fail(node, path,
                                                         "expected a GeoJSON object, found \(node.typeDescription)") }
        guard let type = node.member("type") else { throw fail(node, path, "missing member \"type\"") }
        guard case let .string(name) = type.kind else {
            throw fail(type, join(path, "type"), "\"type\" must be a string, found \(type.typeDescription)")
        }
        return name
    }

    mutating func object(_ node: LocatedJSON, path: String) throws(GeoJSONError) -> GeoJSONObject {
        switch try typeName(node, path) {
        case "FeatureCollection": return .featureCollection(try featureCollection(node, path: path))
        case "Feature": return .feature(try feature(node, path: path))
        default: return .geometry(try geometry(node, path: path))
        }
    }

    mutating func featureCollection(_ node: LocatedJSON, path: String) throws(GeoJSONError) -> FeatureCollection {
        guard let features = node.member("features") else { throw fail(node, path,
                                                                       "FeatureCollection is missing \"features\"") }
        guard case let .array(items) = features.kind else {
            throw fail(features, join(path, "features"),
                       "\"features\" must be an array, found \(features.typeDescription)")
        }
        var collection = FeatureCollection(features: [], bbox: try bbox(node, path: path))
        collection.features.reserveCapacity(items.count)
        for (i, item) in items.enumerated() {
            featureIndex = i
            let itemPath = "\(join(path, "features"))[\(i)]"
            let type = try typeName(item, itemPath)
            guard type == "Feature" else { throw fail(item, itemPath, "expected a Feature, found type \"\(type)\"") }
            collection.features.append(try feature(item, path: itemPath))
        }
        featureIndex = nil
        return collection
    }

    func feature(_ node: LocatedJSON, path: String) throws(GeoJSONError) -> Feature {
        var feature = Feature(geometry: nil)
        if let id = node.member("id") {
            switch id.kind {
            case let .string(s): feature.id = .string(s)
            case let .number(n): feature.id = .number(n)
            default: throw fail(id, join(path, "id"),
                                "\"id\" must be a string or a number, found \(id.typeDescription)")
            }
        }
        guard let geometryNode = node.member("geometry") else {
            throw fail(node, path, "Feature is missing \"geometry\" (use null for none)")
        }
        if case .null = geometryNode.kind {} else { feature.geometry = try geometry(geometryNode,
            path: join(path, "geometry")) }
        if let properties = node.member("properties") {
            switch properties.kind {
            case .null: break
            case .object: feature.properties = properties.value.objectValue
            default: throw fail(properties, join(path, "properties"),
                                "\"properties\" must be an object or null, found \(properties.typeDescription)")
            }
        }
        feature.bbox = try bbox(node, path: path)
        return feature
    }

    func geometry(_ node: LocatedJSON, path: String) throws(GeoJSONError) -> Geometry {
        let type = try typeName(node, path)
        _ = try bbox(node, path: path) // checked, not kept: geometries carry no bbox here
        if type == "GeometryCollection" {
            guard let member = node.member("geometries") else {
                throw fail(node, path, "GeometryCollection is missing \"geometries\"")
            }
            guard case let .array(items) = member.kind else { throw fail(member, join(path, "geometries"),
                                                                         "\"geometries\" must be an array") }
            var geometries: [Geometry] = []
            for (i, item) in items.enumerated() {
                geometries.append(try geometry(item, path: "\(join(path, "geometries"))[\(i)]"))
            }
            return .geometryCollection(geometries)
        }
        let known = ["Point", "MultiPoint", "LineString", "MultiLineString", "Polygon", "MultiPolygon"]
        guard known.contains(type) else {
            throw fail(
                node, join(path, "type"),
                "unknown geometry type \"\(type)\" (expected one of \(known.joined(separator: ", ")), "
                    + "GeometryCollection)"
            )
        }
        guard let coordinates = node.member("coordinates") else { throw fail(node, path,
                                                                             "\(type) is missing \"coordinates\"") }
        let cpath = join(path, "coordinates")
        switch type {
        case "Point": return .point(try position(coordinates, cpath))
        case "MultiPoint": return .multiPoint(try positions(coordinates, cpath, minimum: 0))
        case "LineString": return .lineString(try positions(coordinates, cpath, minimum: 2))
        case "MultiLineString":
            return .multiLineString(
                try list(coordinates, cpath) { (n, p) throws(GeoJSONError) in try positions(n, p, minimum: 2) })
        case "Polygon": return .polygon(try rings(coordinates, cpath))
        default: // MultiPolygon
            return .multiPolygon(try list(coordinates, cpath) { (n, p) throws(GeoJSONError) in try rings(n, p) })
        }
    }

    func rings(_ node: LocatedJSON, _ path: String) throws(GeoJSONError) -> [[Coordinate]] {
        try list(node, path) { (ring, ringPath) throws(GeoJSONError) in
            let coordinates = try positions(ring, ringPath, minimum: 4)
            guard coordinates.first == coordinates.last else {
                throw fail(ring, ringPath, "linear ring is not closed (its first and last positions differ)")
            }
            return coordinates
        }
    }

    func list<T>(_ node: LocatedJSON, _ path: String,
                 _ element: (LocatedJSON, String) throws(GeoJSONError) -> T) throws(GeoJSONError) -> [T] {
        guard case let .array(items) = node.kind else { throw fail(node, path,
                                                                   "expected an array, found \(node.typeDescription)") }
        var result: [T] = []
        result.reserveCapacity(items.count)
        for (i, item) in items.enumerated() { result.append(try element(item, "\(path)[\(i)]")) }
        return result
    }

    func positions(_ node: LocatedJSON, _ path: String, minimum: Int) throws(GeoJSONError) -> [Coordinate] {
        let result = try list(node, path) { (n, p) throws(GeoJSONError) in try position(n, p) }
        guard result.count >= minimum else {
            throw fail(node, path, "expected at least \(minimum) positions, found \(result.count)")
        }
        return result
    }

    func position(_ node: LocatedJSON, _ path: String) throws(GeoJSONError) -> Coordinate {
        guard case let .array(items) = node.kind else {
            throw fail(node, path, "expected a position [longitude, latitude], found \(node.typeDescription)")
        }
        guard items.count >= 2 else {
            throw fail(node, path, "a position needs [longitude, latitude], found \(items.count) number(s)")
        }
        var numbers: [Double] = []
        for (i, item) in items.prefix(3).enumerated() {
            guard case let .number(n) = item.kind else {
                throw fail(item, "\(path)[\(i)]", "expected a number, found \(item.typeDescription)")
            }
            numbers.append(n)
        }
        do {
            return try Coordinate(validatingLatitude: numbers[1], longitude: numbers[0])
        } catch {
            throw fail(node, path, "\(error)")
        }
    }

    func bbox(_ node: LocatedJSON, path: String) throws(GeoJSONError) -> BoundingBox? {
        guard let member = node.member("bbox") else { return nil }
        let bpath = join(path, "bbox")
        guard case let .array(items) = member.kind, items.count == 4 || items.count == 6 else {
            throw fail(member, bpath, "\"bbox\" must be an array of 4 (or 6) numbers")
        }
        var numbers: [Double] = []
        for item in items {
            guard case let .number(n) = item.kind else { throw fail(item, bpath, "\"bbox\" must hold numbers only") }
            numbers.append(n)
        }
        let half = items.count / 2
        do {
            return try BoundingBox(validatingWest: numbers[0], south: numbers[1], east: numbers[half],
                                   north: numbers[half + 1])
        } catch {
            throw fail(member, bpath, "\(error)")
        }
    }

    func join(_ path: String, _ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }
}
