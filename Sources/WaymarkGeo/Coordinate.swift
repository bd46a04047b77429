import Foundation

/// A geographic coordinate on the WGS 84 ellipsoid, in degrees.
///
/// The memberwise initialiser trusts its caller (library code that computed the values).
/// Anything that comes from outside — command-line arguments, files, network — goes through
/// ``init(validatingLatitude:longitude:)`` or ``init(parsing:)``, which reject NaN, infinities
/// and out-of-range values with a ``CoordinateError`` that names the value.
public struct Coordinate: Sendable, Hashable {
    /// Latitude in degrees, positive north, within -90…90.
    public var latitude: Double
    /// Longitude in degrees, positive east, within -180…180.
    public var longitude: Double

    /// Creates a coordinate without checking it. Use for values your own code computed.
    @inlinable
    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Creates a coordinate from untrusted values.
    /// - Throws: ``CoordinateError`` when either value is NaN or infinite, when
    ///   |latitude| > 90 or when |longitude| > 180.
    public init(validatingLatitude latitude: Double, longitude: Double) throws(CoordinateError) {
        guard latitude.isFinite else { throw .notFinite(component: .latitude, value: latitude) }
        guard longitude.isFinite else { throw .notFinite(component: .longitude, value: longitude) }
        guard latitude.magnitude <= 90 else { throw .outOfRange(component: .latitude, value: latitude) }
        guard longitude.magnitude <= 180 else { throw .outOfRange(component: .longitude, value: longitude) }
        self.init(latitude: latitude, longitude: longitude)
    }

    /// Parses `"LAT,LON"` (decimal degrees, optional spaces around the comma), e.g. `"-33.9,151.2"`.
    /// - Throws: ``CoordinateError/malformed(_:)`` when the text is not two numbers separated by a
    ///   comma, or the range errors of ``init(validatingLatitude:longitude:)``.
    public init(parsing text: String) throws(CoordinateError) {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2,
              let latitude = Double(parts[0].trimmingCharacters(in: .whitespaces)),
              let longitude = Double(parts[1].trimmingCharacters(in: .whitespaces))
        else { throw .malformed(text) }
        try self.init(validatingLatitude: latitude, longitude: longitude)
    }

    /// Whether both values are finite and within range.
    @inlinable
    public var isValid: Bool { latitude.magnitude <= 90 && longitude.magnitude <= 180 }
}

/// Why a coordinate was rejected.
public enum CoordinateError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Which half of a coordinate a value is.
    public enum Component: String, Sendable { case latitude, longitude }

    /// The value is NaN or infinite.
    case notFinite(component: Component, value: Double)
    /// |latitude| > 90 or |longitude| > 180.
    case outOfRange(component: Component, value: Double)
    /// The text is not `LAT,LON`.
    case malformed(String)

    public var description: String {
        switch self {
        case let .notFinite(component, value):
            return "\(component.rawValue) \(value) is not a finite number"
        case let .outOfRange(component, value):
            let limit = component == .latitude ? "-90…90" : "-180…180"
            return "\(component.rawValue) \(value) is out of range (must be within \(limit))"
        case let .malformed(text):
            return "'\(text)' is not a coordinate (expected LAT,LON in decimal degrees, e.g. 52.52,13.40)"
        }
    }
}

// MARK: - Distance and direction

extension Coordinate {
    /// The Earth's mean radius in metres (IUGG, R₁ = (2a + b) / 3), used by the spherical formulas.
    public static let earthRadius: Double = 6_371_008.8

    /// Great-circle distance to `other` in metres (haversine formula on a sphere of
    /// ``earthRadius``). Accurate to about 0.5 % against the ellipsoid.
    @inlinable
    public func distance(to other: Coordinate) -> Double {
        distance(to: other, cosines: (cosLatitude, other.cosLatitude))
    }

    /// The cosine of the latitude, as ``distance(to:cosines:)`` takes it.
    @inlinable
    public var cosLatitude: Double { cos(latitude * .pi / 180) }

    /// ``distance(to:)`` with both points' ``cosLatitude`` given (the same value, without
    /// working them out again when a point is measured from twice, as along a line).
    @inlinable
    public func distance(to other: Coordinate, cosines: (Double, Double)) -> Double {
        let φ1 = latitude * .pi / 180, φ2 = other.latitude * .pi / 180
        let dφ = φ2 - φ1
        let dλ = (other.longitude - longitude) * .pi / 180
        let sinHalfDφ = sin(dφ / 2), sinHalfDλ = sin(dλ / 2)
        let h = sinHalfDφ * sinHalfDφ + cosines.0 * cosines.1 * sinHalfDλ * sinHalfDλ
        return 2 * Coordinate.earthRadius * asin(min(1, h.squareRoot()))
    }

    /// Initial bearing of the great circle from here to `other`, in degrees clockwise from
    /// true north, within 0..<360. The bearing from a point to itself is 0.
    @inlinable
    public func direction(to other: Coordinate) -> Double {
        let φ1 = latitude * .pi / 180, φ2 = other.latitude * .pi / 180
        let dλ = (other.longitude - longitude) * .pi / 180
        let y = sin(dλ) * cos(φ2)
        let x = cos(φ1) * sin(φ2) - sin(φ1) * cos(φ2) * cos(dλ)
        if x == 0 && y == 0 { return 0 }
        let degrees = atan2(y, x) * 180 / .pi
        return degrees < 0 ? degrees + 360 : degrees
    }
}

/// Wraps a longitude in degrees into -180…180 (180 stays 180; 540 becomes 180, -190 becomes 170).
@inlinable
public func normalizedLongitude(_ longitude: Double) -> Double {
    if longitude >= -180 && longitude <= 180 { return longitude }
    let wrapped = (longitude + 180).truncatingRemainder(dividingBy: 360)
    let result = wrapped < 0 ? wrapped + 180 : wrapped - 180
    return result == -180 && longitude > 0 ? 180 : result
}

extension Coordinate {
    /// The point a `fraction` of the way along the straight line (in degrees) to `other`, taking
    /// the short way round across 180°; linear in latitude and longitude, as map geometry is
    /// drawn between shape points.
    public func interpolated(to other: Coordinate, fraction t: Double) -> Coordinate {
        var otherLongitude = other.longitude
        if otherLongitude - longitude > 180 {
            otherLongitude -= 360
        } else if longitude - otherLongitude > 180 {
            otherLongitude += 360
        }
        return Coordinate(latitude: latitude + t * (other.latitude - latitude),
                          longitude: normalizedLongitude(longitude + t * (otherLongitude - longitude)))
    }
}
