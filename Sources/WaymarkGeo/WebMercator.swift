import Foundation

/// A point on the flat Web Mercator (EPSG:3857) world, in points at zoom 0, like `MKMapPoint`.
///
/// `x` grows eastwards from the antimeridian (0) to the antimeridian again (``WebMercator/worldSize``),
/// `y` grows southwards from ``WebMercator/maximumLatitude`` (0) to its negative (`worldSize`).
/// At zoom `z` a map point is `2^z` screen points from the origin per unit.
public struct MapPoint: Sendable, Hashable {
    public var x: Double
    public var y: Double

    @inlinable
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}

/// A size on the Web Mercator world, in points at zoom 0, like `MKMapSize`.
public struct MapSize: Sendable, Hashable {
    public var width: Double
    public var height: Double

    @inlinable
    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }
}

/// An axis-aligned rectangle on the Web Mercator world, like `MKMapRect`. Its `x` range may run
/// past `worldSize` when the rectangle crosses the antimeridian eastwards.
public struct MapRect: Sendable, Hashable {
    public var origin: MapPoint
    public var size: MapSize

    @inlinable
    public init(origin: MapPoint, size: MapSize) {
        self.origin = origin
        self.size = size
    }

    @inlinable public var minX: Double { origin.x }
    @inlinable public var minY: Double { origin.y }
    @inlinable public var maxX: Double { origin.x + size.width }
    @inlinable public var maxY: Double { origin.y + size.height }
    @inlinable public var midX: Double { origin.x + size.width / 2 }
    @inlinable public var midY: Double { origin.y + size.height / 2 }
}

/// The spherical Web Mercator projection used by MapKit, Google Maps, Leaflet, Mapbox and OSM tiles.
///
/// The world is a square `worldSize` points wide at zoom 0 and doubles with each zoom level:
/// 256 for MapKit, Leaflet and Google (one 256-pixel tile at zoom 0), 512 for Mapbox GL.
///
/// Latitudes are clamped to ±``maximumLatitude`` (85.05112878°), where the square world ends
/// (the latitude whose Mercator y equals ±π); the poles themselves are at infinity.
public struct WebMercator: Sendable, Hashable {
    /// Latitude limit in degrees, atan(sinh(π)) ≈ 85.05112878°: the edge of the square Web
    /// Mercator world.
    public static let maximumLatitude = atan(sinh(Double.pi)) * 180 / .pi

    /// World width and height in points at zoom 0.
    public let worldSize: Double

    /// A projection with the given world size in points at zoom 0 (must be positive and finite).
    public init(worldSize: Double) {
        precondition(worldSize > 0 && worldSize.isFinite, "world size must be positive, not \(worldSize)")
        self.worldSize = worldSize
    }

    /// 256-point world: MapKit, Leaflet, Google Maps, raster OSM tiles.
    public static let tiles256 = WebMercator(worldSize: 256)
    /// 512-point world: Mapbox GL / MapLibre GL.
    public static let tiles512 = WebMercator(worldSize: 512)

    /// Map x of a longitude: 0 at -180°, `worldSize` at 180°.
    @inlinable
    public func x(longitude: Double) -> Double { (longitude + 180) / 360 * worldSize }

    /// Map y of a latitude (clamped to ±``maximumLatitude``): 0 at the north edge.
    @inlinable
    public func y(latitude: Double) -> Double {
        let clamped = Swift.max(-WebMercator.maximumLatitude, Swift.min(WebMercator.maximumLatitude, latitude))
        let s = sin(clamped * .pi / 180)
        return (0.5 - log((1 + s) / (1 - s)) / (4 * .pi)) * worldSize
    }

    /// Longitude of a map x; x outside the world wraps round.
    @inlinable
    public func longitude(x: Double) -> Double { normalizedLongitude(x / worldSize * 360 - 180) }

    /// Latitude of a map y; y outside the world is clamped to its edges.
    @inlinable
    public func latitude(y: Double) -> Double {
        let t = Swift.max(0, Swift.min(1, y / worldSize))
        let n = Double.pi * (1 - 2 * t)
        return Swift.max(-WebMercator.maximumLatitude,
                         Swift.min(WebMercator.maximumLatitude, atan(sinh(n)) * 180 / .pi))
    }

    /// The map point of a coordinate.
    @inlinable
    public func point(for coordinate: Coordinate) -> MapPoint {
        MapPoint(x: x(longitude: coordinate.longitude), y: y(latitude: coordinate.latitude))
    }

    /// The coordinate of a map point.
    @inlinable
    public func coordinate(for point: MapPoint) -> Coordinate {
        Coordinate(latitude: latitude(y: point.y), longitude: longitude(x: point.x))
    }

    /// The map rectangle of a bounding box; a box that crosses the antimeridian gives a rectangle
    /// whose `maxX` runs past `worldSize`.
    public func rect(for box: BoundingBox) -> MapRect {
        let minX = x(longitude: box.west)
        let width = box.longitudeSpan / 360 * worldSize
        let minY = y(latitude: box.north)
        return MapRect(origin: MapPoint(x: minX, y: minY),
                       size: MapSize(width: width, height: y(latitude: box.south) - minY))
    }

    /// The bounding box of a map rectangle. A rectangle at least as wide as the world covers
    /// every longitude; `y` outside the world is clamped.
    public func boundingBox(for rect: MapRect) -> BoundingBox {
        let north = latitude(y: rect.minY), south = latitude(y: rect.maxY)
        if rect.size.width >= worldSize { return BoundingBox(west: -180, south: south, east: 180, north: north) }
        var west = longitude(x: rect.minX), east = longitude(x: rect.maxX)
        // A rectangle that starts or ends exactly on the antimeridian keeps its side of it.
        if west == 180 { west = -180 }
        if east == -180 { east = 180 }
        return BoundingBox(west: west, south: south, east: east, north: north)
    }

    /// Screen points per map point at `zoom`: 2^zoom.
    @inlinable
    public static func scale(atZoom zoom: Double) -> Double { exp2(zoom) }

    /// The zoom at which one map point is `scale` screen points: log2(scale).
    @inlinable
    public static func zoom(forScale scale: Double) -> Double { log2(scale) }
}
