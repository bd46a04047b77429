import WaymarkGeo

/// A GeoJSON geometry (RFC 7946 §3.1). Positions are ``Coordinate`` values written as
/// `[longitude, latitude]`; an altitude (a third number) is accepted when reading and dropped.
public enum Geometry: Sendable, Equatable {
    case point(Coordinate)
    case multiPoint([Coordinate])
    /// Two or more positions.
    case lineString([Coordinate])
    case multiLineString([[Coordinate]])
    /// Linear rings: closed (first == last), four or more positions each; the first is the exterior.
    case polygon([[Coordinate]])
    case multiPolygon([[[Coordinate]]])
    case geometryCollection([Geometry])

    /// The GeoJSON `type` name.
    public var typeName: String {
        switch self {
        case .point: return "Point"
        case .multiPoint: return "MultiPoint"
        case .lineString: return "LineString"
        case .multiLineString: return "MultiLineString"
        case .polygon: return "Polygon"
        case .multiPolygon: return "MultiPolygon"
        case .geometryCollection: return "GeometryCollection"
        }
    }

    /// Every position of the geometry, in order.
    public var allCoordinates: [Coordinate] {
        switch self {
        case let .point(c): return [c]
        case let .multiPoint(cs), let .lineString(cs): return cs
        case let .multiLineString(lines), let .polygon(lines): return lines.flatMap { $0 }
        case let .multiPolygon(polygons): return polygons.flatMap { $0.flatMap { $0 } }
        case let .geometryCollection(geometries): return geometries.flatMap(\.allCoordinates)
        }
    }

    /// The smallest box around the geometry's positions (antimeridian-aware); `nil` when it has none.
    public var boundingBox: BoundingBox? {
        try? BoundingBox.enclosing(allCoordinates)
    }
}

/// A feature `id` (RFC 7946 §3.2): a string or a number.
public enum FeatureID: Sendable, Hashable, CustomStringConvertible {
    case string(String)
    case number(Double)

    public var description: String {
        switch self {
        case let .string(s): return s
        case let .number(n): return JSONValue.number(n).jsonText()
        }
    }
}

/// A GeoJSON Feature (RFC 7946 §3.2).
public struct Feature: Sendable, Equatable {
    public var id: FeatureID?
    /// `nil` is written as `"geometry": null` (an unlocated feature).
    public var geometry: Geometry?
    /// `nil` is written as `"properties": null`.
    public var properties: JSONObject?
    /// The `bbox` member, written when set.
    public var bbox: BoundingBox?

    public init(id: FeatureID? = nil, geometry: Geometry?, properties: JSONObject? = nil, bbox: BoundingBox? = nil) {
        self.id = id
        self.geometry = geometry
        self.properties = properties
        self.bbox = bbox
    }
}

/// A GeoJSON FeatureCollection (RFC 7946 §3.3).
public struct FeatureCollection: Sendable, Equatable {
    public var features: [Feature]
    /// The `bbox` member, written when set.
    public var bbox: BoundingBox?

    public init(features: [Feature] = [], bbox: BoundingBox? = nil) {
        self.features = features
        self.bbox = bbox
    }

    /// The smallest box around every feature's geometry (antimeridian-aware); `nil` without positions.
    public var computedBoundingBox: BoundingBox? {
        try? BoundingBox.enclosing(features.flatMap { $0.geometry?.allCoordinates ?? [] })
    }
}

/// Any GeoJSON object that can stand at the top of a document.
public enum GeoJSONObject: Sendable, Equatable {
    case geometry(Geometry)
    case feature(Feature)
    case featureCollection(FeatureCollection)
}
