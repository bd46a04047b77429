/// A longitude/latitude box with RFC 7946 §5 semantics: (west, south, east, north) in degrees.
///
/// When `west > east` the box crosses the antimeridian (180°): it covers the longitudes from
/// `west` eastwards to 180 and from -180 to `east` (RFC 7946 §5.2). A box that covers every
/// longitude has `west == -180` and `east == 180`.
public struct BoundingBox: Sendable, Hashable, CustomStringConvertible {
    /// Western edge, degrees within -180…180.
    public var west: Double
    /// Southern edge, degrees within -90…90.
    public var south: Double
    /// Eastern edge, degrees within -180…180; less than `west` when the box crosses 180°.
    public var east: Double
    /// Northern edge, degrees within -90…90, ≥ `south`.
    public var north: Double

    /// Creates a box from trusted edges (no checks).
    @inlinable
    public init(west: Double, south: Double, east: Double, north: Double) {
        self.west = west
        self.south = south
        self.east = east
        self.north = north
    }

    /// Creates a box from untrusted edges.
    /// - Throws: ``CoordinateError`` for NaN or out-of-range edges, and
    ///   ``CoordinateError/malformed(_:)`` when `south > north`.
    public init(validatingWest west: Double, south: Double, east: Double, north: Double) throws(CoordinateError) {
        _ = try Coordinate(validatingLatitude: south, longitude: west)
        _ = try Coordinate(validatingLatitude: north, longitude: east)
        guard south <= north else { throw .malformed("bbox south \(south) > north \(north)") }
        self.init(west: west, south: south, east: east, north: north)
    }

    /// The box around one coordinate (zero width and height).
    @inlinable
    public init(_ coordinate: Coordinate) {
        self.init(west: coordinate.longitude, south: coordinate.latitude,
                  east: coordinate.longitude, north: coordinate.latitude)
    }

    /// Every longitude, every latitude.
    public static let world = BoundingBox(west: -180, south: -90, east: 180, north: 90)

    /// Whether the box crosses the antimeridian (`west > east`).
    @inlinable
    public var crossesAntimeridian: Bool { west > east }

    /// Width in degrees of longitude, 0…360, measured eastwards from `west` to `east`.
    @inlinable
    public var longitudeSpan: Double { west <= east ? east - west : east - west + 360 }

    /// Height in degrees of latitude.
    @inlinable
    public var latitudeSpan: Double { north - south }

    /// The south-west and north-east corners as `[west, south, east, north]` (the RFC 7946 `bbox` order).
    public var array: [Double] { [west, south, east, north] }

    /// The point halfway along the box's longitudes (across 180° when the box crosses it) and
    /// halfway between its latitudes (arithmetic mean, not the Mercator midpoint).
    public var center: Coordinate {
        Coordinate(latitude: (south + north) / 2, longitude: normalizedLongitude(west + longitudeSpan / 2))
    }

    /// Whether `coordinate` is inside or on the edge of the box.
    @inlinable
    public func contains(_ coordinate: Coordinate) -> Bool {
        guard coordinate.latitude >= south && coordinate.latitude <= north else { return false }
        let lon = coordinate.longitude
        return crossesAntimeridian ? (lon >= west || lon <= east) : (lon >= west && lon <= east)
    }

    /// Whether the two boxes share at least one point (edges included), across 180° too.
    public func intersects(_ other: BoundingBox) -> Bool {
        guard south <= other.north && other.south <= north else { return false }
        let a = LongitudeArc(self), b = LongitudeArc(other)
        return a.contains(b.start) || b.contains(a.start)
    }

    /// The smallest box that contains both boxes. Of the two ways round the globe that join the
    /// longitude ranges, the shorter is taken, so 170°E…175°E ∪ 175°W…170°W crosses 180°.
    public func union(_ other: BoundingBox) -> BoundingBox {
        let a = LongitudeArc(self), b = LongitudeArc(other)
        let fromA = max(a.length, a.offset(to: b.start) + b.length)
        let fromB = max(b.length, b.offset(to: a.start) + a.length)
        let arc =
            fromA <= fromB ? LongitudeArc(start: a.start, length: fromA) : LongitudeArc(start: b.start, length: fromB)
        let (w, e) = arc.edges
        return BoundingBox(west: w, south: min(south, other.south), east: e, north: max(north, other.north))
    }

    public var description: String { "[\(west), \(south), \(east), \(north)]" }
}

/// A range of longitudes as a start and an eastward length, for antimeridian-safe arithmetic.
struct LongitudeArc {
    /// Start in degrees within -180..<180.
    var start: Double
    /// Eastward length in degrees, 0…360.
    var length: Double

    init(start: Double, length: Double) {
        self.start = start == 180 ? -180 : start
        self.length = min(360, length)
    }

    init(_ box: BoundingBox) {
        self.init(start: box.west, length: box.longitudeSpan)
    }

    /// Eastward distance from `start` to `longitude`, 0..<360.
    func offset(to longitude: Double) -> Double {
        var d = (longitude - start).truncatingRemainder(dividingBy: 360)
        if d < 0 { d += 360 }
        return d
    }

    func contains(_ longitude: Double) -> Bool {
        length >= 360 || offset(to: longitude) <= length
    }

    /// West and east edges in -180…180; the whole world is (-180, 180).
    var edges: (west: Double, east: Double) {
        if length >= 360 { return (-180, 180) }
        var east = start + length
        if east > 180 { east -= 360 }
        return (start, east)
    }
}
