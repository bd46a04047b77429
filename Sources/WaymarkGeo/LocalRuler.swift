import Foundation

/// Metres per degree of longitude and latitude at one latitude of the WGS 84 ellipsoid, for
/// measuring across a few hundred metres on a flat plane: the flat-earth approximation with the
/// ellipsoid's radii of curvature (normal radius east, meridional radius north).
///
/// OSRM measures its guidance this way (`coordinate_calculation::bearing` and
/// `greatCircleDistance` go through such rulers, one per band of latitude), so a bearing at a
/// modifier's or a bearing class's edge tips the same way only when measured as it does.
public struct LocalRuler: Sendable, Equatable {
    /// Metres per degree east.
    public let east: Double
    /// Metres per degree north.
    public let north: Double

    /// The ruler at `latitude` (degrees).
    public init(latitude: Double) {
        let a = 6_378_137.0, flattening = 1 / 298.257223563
        let e2 = flattening * (2 - flattening)
        let metresPerRadian = a * .pi / 180
        let c = cos(latitude * .pi / 180)
        let w2 = 1 / (1 - e2 * (1 - c * c))
        east = metresPerRadian * w2.squareRoot() * c
        north = metresPerRadian * w2.squareRoot() * w2 * (1 - e2)
    }

    /// OSRM's ruler for a place at `latitude`: the one at the middle of its band (1,800 bands of
    /// 0.05° from the equator to a pole, found from the latitude in 10⁻⁶° as OSRM keeps it).
    public static func osrm(latitude: Double) -> LocalRuler {
        LocalRuler(latitude: bandMiddle(band(latitude)))
    }

    static func band(_ latitude: Double) -> Int {
        // (Beyond a pole the last band, not a number the first: never a trap.)
        guard latitude.isFinite else { return 0 }
        let micro = min(90_000_000, abs((latitude * 1_000_000).rounded()))
        return max(0, (Int(micro) - 1) / 50_000)
    }

    static func bandMiddle(_ band: Int) -> Double { 0.05 * (Double(band) + 0.5) }

    /// OSRM's distances along a line: each piece measured with the ruler of its middle latitude's
    /// band, the last ruler kept (a line rarely leaves its band).
    public struct Bands: Sendable {
        private var band = -1
        private var ruler = LocalRuler(latitude: 0)

        public init() {}

        /// The distance from `a` to `b` in metres, as OSRM's `greatCircleDistance` measures it;
        /// on the sphere where the two are over a degree apart (no road's piece is, but bad data
        /// has them, and a flat ruler is wrong that far).
        public mutating func distance(from a: Coordinate, to b: Coordinate) -> Double {
            let dLon = LocalRuler.wrappedLongitudeDifference(b.longitude - a.longitude)
            if abs(a.latitude - b.latitude) > 1 || abs(dLon) > 1 { return a.distance(to: b) }
            let middle = LocalRuler.band((a.latitude + b.latitude) / 2)
            if middle != band {
                band = middle
                ruler = LocalRuler(latitude: LocalRuler.bandMiddle(middle))
            }
            return ruler.distance(from: a, to: b)
        }
    }

    /// Degrees clockwise from north from `a` to `b`, within 0..<360 (0 from a point to itself).
    public func bearing(from a: Coordinate, to b: Coordinate) -> Double {
        let dx = Self.wrappedLongitudeDifference(b.longitude - a.longitude) * east
        let dy = (b.latitude - a.latitude) * north
        if dx == 0 && dy == 0 { return 0 }
        let degrees = atan2(dx, dy) * 180 / .pi
        return degrees < 0 ? degrees + 360 : degrees
    }

    /// The distance from `a` to `b` in metres.
    public func distance(from a: Coordinate, to b: Coordinate) -> Double {
        let dx = Self.wrappedLongitudeDifference(b.longitude - a.longitude) * east
        let dy = (b.latitude - a.latitude) * north
        return (dx * dx + dy * dy).squareRoot()
    }

    fileprivate static func wrappedLongitudeDifference(_ d: Double) -> Double {
        d > 180 ? d - 360 : d < -180 ? d + 360 : d
    }
}
