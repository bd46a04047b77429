/// The extent of a latitude/longitude span in degrees, like `MKCoordinateSpan`.
public struct CoordinateSpan: Sendable, Hashable {
    /// North-to-south extent in degrees, 0…180.
    public var latitudeDelta: Double
    /// East-to-west extent in degrees, 0…360.
    public var longitudeDelta: Double

    public init(latitudeDelta: Double, longitudeDelta: Double) {
        self.latitudeDelta = latitudeDelta
        self.longitudeDelta = longitudeDelta
    }
}

/// A rectangular geographic region centred on a coordinate, like `MKCoordinateRegion`.
///
/// As with MapKit, the center of a region converted from a map rectangle is the rectangle's
/// Mercator midpoint, so it sits nearer the equator-facing edge than the latitudes' mean.
public struct CoordinateRegion: Sendable, Hashable {
    public var center: Coordinate
    public var span: CoordinateSpan

    public init(center: Coordinate, span: CoordinateSpan) {
        self.center = center
        self.span = span
    }

    /// The region of a map rectangle: its Mercator midpoint and the latitude and longitude
    /// extents of its edges (longitude extent at most 360°).
    public init(_ rect: MapRect, projection: WebMercator) {
        let box = projection.boundingBox(for: rect)
        center = projection.coordinate(for: MapPoint(x: rect.midX, y: rect.midY))
        span = CoordinateSpan(latitudeDelta: box.north - box.south,
                              longitudeDelta: Swift.min(360, rect.size.width / projection.worldSize * 360))
    }

    /// The box from `center ± span / 2`, latitudes clamped to ±90, longitudes wrapped (so a region
    /// around 180° gives a box with `west > east`). Like MapKit, this treats the span as symmetric in
    /// degrees around the center.
    public var boundingBox: BoundingBox {
        if span.longitudeDelta >= 360 {
            return BoundingBox(west: -180, south: Swift.max(-90, center.latitude - span.latitudeDelta / 2),
                               east: 180, north: Swift.min(90, center.latitude + span.latitudeDelta / 2))
        }
        return BoundingBox(west: normalizedLongitude(center.longitude - span.longitudeDelta / 2),
                           south: Swift.max(-90, center.latitude - span.latitudeDelta / 2),
                           east: normalizedLongitude(center.longitude + span.longitudeDelta / 2),
                           north: Swift.min(90, center.latitude + span.latitudeDelta / 2))
    }
}
