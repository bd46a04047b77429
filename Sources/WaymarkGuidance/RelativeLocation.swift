import Foundation
import WaymarkGeo

/// Where a waypoint lies beside the road it was snapped to, as OSRM's `assignRelativeLocations`
/// tells it in the depart and arrive steps' modifiers.
enum RelativeLocation {
    /// OSRM tells the side only when the waypoint is this far from the road: nearer, it is on
    /// the road; farther, the road is not where it is.
    static let distances = 5.0...300.0

    /// The side of `waypoint` from the road that leaves `snapped` towards `next`: `right`,
    /// `straight` (within 45° of the way on) or `left`; nil when OSRM gives no modifier.
    static func departure(from waypoint: Coordinate, snapped: Coordinate, next: Coordinate) -> ManeuverModifier? {
        guard distances.contains(waypoint.distance(to: snapped)) else { return nil }
        return modifier(angle: angle(waypoint, snapped, next))
    }

    /// The side of `waypoint` from the road that reaches `snapped` from `previous`.
    static func arrival(at waypoint: Coordinate, snapped: Coordinate, previous: Coordinate) -> ManeuverModifier? {
        guard distances.contains(waypoint.distance(to: snapped)) else { return nil }
        return modifier(angle: angle(previous, snapped, waypoint))
    }

    /// The angle at `b` turning from the way `a`→`b` onto `b`→`c`, in degrees: 180 straight on,
    /// less to the right (OSRM's `computeAngle`, on the Web Mercator plane).
    static func angle(_ a: Coordinate, _ b: Coordinate, _ c: Coordinate) -> Double {
        let plane = WebMercator(worldSize: 360)
        func vector(_ p: Coordinate) -> (x: Double, y: Double) {
            (p.longitude - b.longitude, plane.y(latitude: b.latitude) - plane.y(latitude: p.latitude))
        }
        let (back, on) = (vector(a), vector(c))
        var degrees = (atan2(on.y, on.x) - atan2(back.y, back.x)) * 180 / .pi
        while degrees < 0 { degrees += 360 }
        return degrees
    }

    /// OSRM's `bearingToDirectionModifier`.
    static func modifier(angle: Double) -> ManeuverModifier {
        angle < 135 ? .right : angle <= 225 ? .straight : .left
    }
}
