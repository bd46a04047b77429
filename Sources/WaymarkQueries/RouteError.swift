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
    /// A trip's stops cannot all be reached from one another (OSRM's `NoTrips`).
    case noTrips
    /// A combination of options OSRM does not implement either (its `NotImplemented`).
    case notImplemented(String)
    /// No fix of a trace has a road within reach (OSRM's `NoSegment` for match).
    case noSegmentNearTrace
    /// A trace could not be matched to the roads (OSRM's `NoMatch`).
    case noMatch(String)
    /// A value out of its range (OSRM's `InvalidValue`).
    case invalidValue(String)

    /// OSRM's response code for the error.
    public var code: String {
        switch self {
        case .noSegment, .outsideMap, .noSegmentNearTrace: return "NoSegment"
        case .noRoute: return "NoRoute"
        case .invalidInput: return "InvalidInput"
        case .noTrips: return "NoTrips"
        case .notImplemented: return "NotImplemented"
        case .noMatch: return "NoMatch"
        case .invalidValue: return "InvalidValue"
        }
    }

    public var description: String { message(lonLat: false) }

    /// The description with points as `longitude,latitude` when `lonLat` (OSRM's HTTP API, where
    /// coordinates are given that way), else `latitude,longitude` (the command line's order).
    public func message(lonLat: Bool) -> String {
        func point(_ latitude: Double, _ longitude: Double) -> String {
            lonLat ? String(format: "%.6f,%.6f", longitude, latitude) : String(format: "%.6f,%.6f", latitude, longitude)
        }
        switch self {
        case let .noSegment(c, maxDistance):
            return String(format: "no road within %.0f m of ", maxDistance) + point(c.latitude, c.longitude)
        case let .outsideMap(c, bounds, swapped):
            let here = point(c.latitude, c.longitude) + String(
                format: " is outside the map's area (the map covers latitudes %.4f to %.4f, longitudes %.4f to %.4f)",
                bounds.south, bounds.north, bounds.west, bounds.east)
            // Swapped: the same two numbers the other way round are inside.
            let order = lonLat ? "latitude,longitude" : "longitude,latitude"
            return swapped ? here + "; it looks like \(order): did you mean \(point(c.longitude, c.latitude))?" : here
        case let .noRoute(from, to):
            return "no route from \(point(from.latitude, from.longitude)) to \(point(to.latitude, to.longitude))"
        case let .invalidInput(text): return text
        case .noSegmentNearTrace: return "no fix of the trace has a road within three times its radius"
        case .noTrips: return "no trip visits every stop: some cannot be reached from the others"
        case let .notImplemented(text), let .noMatch(text), let .invalidValue(text): return text
        }
    }
}
