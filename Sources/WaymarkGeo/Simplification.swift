import Foundation

/// Line simplification for overview geometries, as OSRM's `overview=simplified` does it: the zoom
/// at which the line's box fills an 8 × 5 tile viewport, then Douglas–Peucker with that zoom's
/// tolerance (about 3 m at zoom 18, doubling with each zoom level out).
public enum Simplification {
    /// OSRM's squared tolerances per zoom 0…18, in (10⁻⁶ Mercator degree)².
    static let thresholds: [Double] = [49438476562500, 12359619140625, 3089903027344, 772475756836,
                                       193118939209, 48279515076,
                                       12069878769, 3017414761, 754326225, 188567824, 47141956,
                                       11785489, 2944656, 736164,
                                       184041, 45796, 11449, 2809, 676]

    /// The zoom (1…18) at which the box fits an 8 × 5 tile viewport of 256-point tiles.
    public static func fittedZoom(_ box: BoundingBox) -> Int {
        let world = WebMercator(worldSize: 256 * exp2(18))
        let width = (world.x(longitude: box.east) - world.x(longitude: box.west)) / (8 * 256)
        let height = (world.y(latitude: box.south) - world.y(latitude: box.north)) / (5 * 256)
        let zoom = 18 - log2(max(width, height))
        return zoom.isFinite ? max(1, min(18, Int(zoom))) : 18
    }

    /// The points Douglas–Peucker keeps at a zoom level (first and last always).
    public static func douglasPeucker(_ line: [Coordinate], zoom: Int) -> [Coordinate] {
        guard line.count > 2 else { return line }
        let squared = thresholds[max(0, min(18, zoom))] * 1e-12
        let degrees = WebMercator(worldSize: 360)
        var points: [(Double, Double)] = []
        points.reserveCapacity(line.count)
        for c in line { points.append((degrees.x(longitude: c.longitude), degrees.y(latitude: c.latitude))) }
        let keep = kept(points, squaredTolerance: squared)
        var result: [Coordinate] = []
        for i in line.indices where keep[i] { result.append(line[i]) }
        return result
    }

    /// Douglas–Peucker on points in a plane (any unit, e.g. a picture's points): a point closer
    /// than `tolerance` to the line between the points kept around it is left out; the first and
    /// last are always kept.
    public static func douglasPeucker(_ points: [(Double, Double)], tolerance: Double) -> [(Double, Double)] {
        guard points.count > 2 else { return points }
        let keep = kept(points, squaredTolerance: tolerance * tolerance)
        var result: [(Double, Double)] = []
        for i in points.indices where keep[i] { result.append(points[i]) }
        return result
    }

    /// Which points Douglas–Peucker keeps (a point farther than the tolerance from the chord is
    /// kept and splits it).
    private static func kept(_ points: [(Double, Double)], squaredTolerance: Double) -> [Bool] {
        var keep = [Bool](repeating: false, count: points.count)
        keep[0] = true
        keep[points.count - 1] = true
        var stack = [(0, points.count - 1)]
        points.withUnsafeBufferPointer { points in
            keep.withUnsafeMutableBufferPointer { keep in
                while let (first, last) = stack.popLast() {
                    guard last - first > 1 else { continue }
                    let a = points[first], b = points[last]
                    var farthest = -1, distance = squaredTolerance
                    for i in (first + 1)..<last {
                        let d = squaredDistance(points[i], a, b)
                        if d > distance { distance = d; farthest = i }
                    }
                    if farthest >= 0 {
                        keep[farthest] = true
                        stack.append((first, farthest))
                        stack.append((farthest, last))
                    }
                }
            }
        }
        return keep
    }

    /// Squared distance from p to the segment a–b.
    @inline(__always)
    private static func squaredDistance(_ p: (Double, Double), _ a: (Double, Double), _ b: (Double, Double)) -> Double {
        let dx = b.0 - a.0, dy = b.1 - a.1
        let length = dx * dx + dy * dy
        let t = length > 0 ? max(0, min(1, ((p.0 - a.0) * dx + (p.1 - a.1) * dy) / length)) : 0
        let x = a.0 + t * dx - p.0, y = a.1 + t * dy - p.1
        return x * x + y * y
    }
}
