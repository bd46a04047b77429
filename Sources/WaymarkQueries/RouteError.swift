import Foundation
import WaymarkGeo

/// Why a route could not be computed.
public enum RouteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A waypoint has no road within the maximum snapping distance (metres).
    case noSegment(Coordinate, maxDistance: Double)
    /// A waypoint lies outside the map's area (`bounds`); `swapped` when reading it as
    /// longitude,latitude would put it inside (a common mix-up).
    case outsideMap(Coordinate, bounds: BoundingBox, swapped: Bool)
    /// No route connects two waypoints.
    case noRoute(from: Coordinate, to: Coordinate)
    case invalidInput(String)

    /// OSRM's response code for the error.
    public var code: String {
        switch self {
        case .noSegment, .outsideMap: return "NoSegment"
        case .noRoute: return "NoRoute"
        case .invalidInput: return "InvalidInput"
        }
    }

    public var description: String {
        switch self {
        case let .noSegment(c, maxDistance):
            return String(format: "no road within %.0f m of %.6f,%.6f", maxDistance, c.latitude, c.longitude)
        case let .outsideMap(c, bounds, swapped):
            let here = String(format: "%.6f,%.6f is outside the map's area "
                                  + "(the map covers latitudes %.4f to %.4f, longitudes %.4f to %.4f)",
                              c.latitude, c.longitude, bounds.south, bounds.north, bounds.west, bounds.east)
            return swapped ? here + String(format: "; it looks like longitude,latitude: did you mean %.6f,%.6f?",
                                           c.longitude, c.latitude) : here
        case let .noRoute(from, to):
            return String(format: "no route from %.6f,%.6f to %.6f,%.6f", from.latitude, from.longitude,
                          to.latitude, to.longitude)
        case let .invalidInput(text): return text
        }
    }
}
