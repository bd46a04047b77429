/// The sea an extract's coastlines bound, as osmcoastline makes it: OpenStreetMap draws coastlines
/// as lines with the land on their left; an extract cuts them at its edge. Lines that run from edge
/// to edge are closed into land polygons along the extract's box (turning left there, so the land
/// stays on the left), closed lines are islands (anticlockwise) or lagoons (clockwise), and the sea
/// is the box without the land: the rings returned, read with the even-odd rule.
public enum Coastline {
    /// The sea inside `box`: rings to fill with the even-odd rule, the first the box itself when
    /// the sea surrounds the land there; empty when the coastlines bound no sea. `lines`: the
    /// coastlines joined end to end, each in OpenStreetMap's direction (closed ones first point
    /// = last point).
    public static func sea(_ lines: [[Coordinate]], in box: BoundingBox) -> [[Coordinate]] {
        let open = lines.filter { $0.count >= 2 && $0.first != $0.last }
        let closed = lines.filter { $0.count >= 4 && $0.first == $0.last }
        let land = landAlongTheEdge(open, box)
        // Without a line to the edge, the sea is around the islands, unless every closed line
        // holds water (a lagoon inland): then the rings themselves are the sea.
        if open.isEmpty && !closed.contains(where: { signedArea($0) > 0 }) { return closed }
        return [boxRing(box)] + land + closed
    }

    /// Whether `point` is in the sea `rings` describe (even-odd).
    public static func contains(_ rings: [[Coordinate]], _ point: Coordinate) -> Bool {
        var inside = false
        for ring in rings {
            for (a, b) in zip(ring, ring.dropFirst())
            where (a.latitude > point.latitude) != (b.latitude > point.latitude) {
                let x = a.longitude + (point.latitude - a.latitude) / (b.latitude - a.latitude)
                    * (b.longitude - a.longitude)
                if point.longitude < x { inside.toggle() }
            }
        }
        return inside
    }

    /// Twice the area enclosed, in square degrees: positive for an anticlockwise ring.
    public static func signedArea(_ ring: [Coordinate]) -> Double {
        zip(ring, ring.dropFirst()).reduce(0) { $0 + $1.0.longitude * $1.1.latitude - $1.1.longitude * $1.0.latitude }
    }

    /// The land polygons that lines from edge to edge make: each line, then the box's edge
    /// anticlockwise from where it ends to the start of the next line there, and so on round.
    static func landAlongTheEdge(_ lines: [[Coordinate]], _ box: BoundingBox) -> [[Coordinate]] {
        guard !lines.isEmpty else { return [] }
        let starts = lines.map { EdgePoint($0.first!, box) }, ends = lines.map { EdgePoint($0.last!, box) }
        var used = [Bool](repeating: false, count: lines.count)
        var rings: [[Coordinate]] = []
        for first in lines.indices where !used[first] {
            var ring: [Coordinate] = [], line = first
            while !used[line] {
                used[line] = true
                ring.append(starts[line].point)
                ring += lines[line]
                ring.append(ends[line].point)
                // The next line to start along the edge, anticlockwise from here.
                let next = lines.indices.min {
                    ends[line].distance(to: starts[$0]) < ends[line].distance(to: starts[$1])
                }!
                ring += ends[line].corners(upTo: starts[next], box)
                line = next
            }
            ring.append(ring[0])
            rings.append(ring)
        }
        return rings
    }

    static func boxRing(_ box: BoundingBox) -> [Coordinate] {
        let (s, w, n, e) = (box.south, box.west, box.north, box.east)
        return [Coordinate(latitude: s, longitude: w), Coordinate(latitude: s, longitude: e),
                Coordinate(latitude: n, longitude: e), Coordinate(latitude: n, longitude: w),
                Coordinate(latitude: s, longitude: w)]
    }

    /// A point on the box's edge, by how far anticlockwise round it lies: 0…1 along the south side
    /// from the south-west corner, 1…2 up the east, 2…3 along the north westwards, 3…4 down the west.
    struct EdgePoint {
        var point: Coordinate
        var t: Double

        /// The edge point nearest `c`.
        init(_ c: Coordinate, _ box: BoundingBox) {
            let (s, w, n, e) = (box.south, box.west, box.north, box.east)
            let width = max(e - w, 1e-12), height = max(n - s, 1e-12)
            let lat = min(max(c.latitude, s), n), lon = min(max(c.longitude, w), e)
            let gaps = [(lat - s) / height, (e - lon) / width, (n - lat) / height, (lon - w) / width]
            switch gaps.indices.min(by: { gaps[$0] < gaps[$1] })! {
            case 0: (point, t) = (Coordinate(latitude: s, longitude: lon), (lon - w) / width)
            case 1: (point, t) = (Coordinate(latitude: lat, longitude: e), 1 + (lat - s) / height)
            case 2: (point, t) = (Coordinate(latitude: n, longitude: lon), 2 + (e - lon) / width)
            default: (point, t) = (Coordinate(latitude: lat, longitude: w), 3 + (n - lat) / height)
            }
        }

        /// How far anticlockwise `other` lies from here, 0 ≤ d < 4.
        func distance(to other: EdgePoint) -> Double {
            let d = (other.t - t).truncatingRemainder(dividingBy: 4)
            return d < 0 ? d + 4 : d
        }

        /// The box's corners passed going anticlockwise from here to `other`.
        func corners(upTo other: EdgePoint, _ box: BoundingBox) -> [Coordinate] {
            let corners = [Coordinate(latitude: box.south, longitude: box.east),
                           Coordinate(latitude: box.north, longitude: box.east),
                           Coordinate(latitude: box.north, longitude: box.west),
                           Coordinate(latitude: box.south, longitude: box.west)]
            let span = distance(to: other)
            var passed: [Coordinate] = []
            var corner = t.rounded(.down) + 1
            while corner - t < span {
                passed.append(corners[(Int(corner) - 1) % 4])
                corner += 1
            }
            return passed
        }
    }
}
