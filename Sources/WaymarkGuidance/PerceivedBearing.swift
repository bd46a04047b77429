import Foundation
import WaymarkGeo
import WaymarkGraph
import WaymarkQueries
import WaymarkPreparation

/// The bearing a driver perceives for a road leaving a junction, chosen the way OSRM's
/// `CoordinateExtractor` chooses the coordinate it measures a turn against: a few metres along a
/// roundabout; the first point that is not the junction where only two roads meet; elsewhere a
/// point along the road's first tens of metres, corrected for a road drawn from the middle of a
/// wide junction (an offset before the road proper), for curves that model the turn itself, and
/// smoothed by a regression line where the road wiggles.
///
/// Points are on the local plane in metres (x east, y north) with the junction at the origin,
/// measured with OSRM's ruler for the junction's latitude (``LocalRuler/osrm(latitude:)``): a
/// road at a bearing class's edge falls on the side OSRM's does.
package struct PerceivedBearing {
    struct Point: Equatable {
        var x: Double
        var y: Double
        static func - (a: Point, b: Point) -> Point { Point(x: a.x - b.x, y: a.y - b.y) }
        static func + (a: Point, b: Point) -> Point { Point(x: a.x + b.x, y: a.y + b.y) }
        static func * (k: Double, a: Point) -> Point { Point(x: k * a.x, y: k * a.y) }
        func distance(to p: Point) -> Double { ((x - p.x) * (x - p.x) + (y - p.y) * (y - p.y)).squareRoot() }
    }

    // OSRM's constants (extractor/intersection/constants.hpp, coordinate_extractor.cpp).
    static let laneWidth = 3.25
    static let lookaheadWithoutLanes = 10.0
    static let farLookahead = 40.0
    static let assumedLaneCount = 2.0
    static let desiredCoordinateDifference = 2.0
    static let skippingInaccuracies = 2.0

    /// What OSRM knows of the road when it measures: its class and whether it is part of a circle.
    struct Road {
        var highway: HighwayClass
        var roundabout: Bool
        /// The most lanes of any road at the junction (OSRM's `getIntersectionLanes`; 0 unknown,
        /// taken as ``assumedLaneCount``).
        var lanes = 0
        /// OSRM's coordinate grid around the junction, when points are to land on it as OSRM's do
        /// (and lines are fitted in degrees at its latitude).
        var grid: Grid? = nil
    }

    /// OSRM keeps coordinates as integers of 10⁻⁶° and cuts every point it interpolates to them
    /// (towards zero): at two metres along a roundabout that moves a bearing by a degree or more,
    /// enough to tip a turn across a modifier's threshold. Points measured on this grid (the
    /// junction at a grid point) land where OSRM's do.
    struct Grid {
        /// Degrees of latitude per degree of longitude, as metres go (OSRM fits lines in degrees;
        /// about the cosine of the latitude).
        var cosLatitude: Double
        /// Metres per 10⁻⁶° east and north at the junction.
        var unitX: Double
        var unitY: Double
        /// Whether the junction's longitude / latitude is negative (cutting towards zero rounds up there).
        var negativeX: Bool
        var negativeY: Bool

        /// The grid around a junction at `origin` (a grid point).
        init(origin: Coordinate, ruler: LocalRuler) {
            cosLatitude = ruler.east / ruler.north
            unitX = ruler.east / 1_000_000
            unitY = ruler.north / 1_000_000
            negativeX = origin.longitude < 0
            negativeY = origin.latitude < 0
        }

        /// A grid of the given units (at the equator, east of Greenwich unless said).
        init(unitX: Double, unitY: Double, negativeX: Bool, negativeY: Bool) {
            (self.unitX, self.unitY, self.negativeX, self.negativeY) = (unitX, unitY, negativeX, negativeY)
            cosLatitude = 1
        }

        /// A point interpolated between grid points, cut to the grid as OSRM's `interpolateLinear`.
        func cut(_ p: Point) -> Point {
            func toward(_ v: Double, _ negative: Bool) -> Double {
                negative ? (v - 1e-7).rounded(.up) : (v + 1e-7).rounded(.down)
            }
            return Point(x: toward(p.x / unitX, negativeX) * unitX, y: toward(p.y / unitY, negativeY) * unitY)
        }

        /// OSRM's `GetCorrectedCoordinate` in integers: the head moved back by 90 % of the base's
        /// offset from the junction, the 90 % cut towards zero.
        func corrected(base: Point, head: Point) -> Point {
            func units(_ v: Double, _ unit: Double) -> Int { Int((v / unit).rounded()) }
            let dx = 90 * units(base.x, unitX) / 100, dy = 90 * units(base.y, unitY) / 100
            return Point(x: head.x - Double(dx) * unitX, y: head.y - Double(dy) * unitY)
        }
    }

    /// Degrees clockwise from north from the junction (`points[0]`, the origin) to the perceived
    /// point of a road whose geometry is `points` (to the next vertex), at a junction of
    /// `roadCount` roads. A loop (`closed`, the road returns to the junction) measures to its
    /// second point, as OSRM does.
    static func bearing(points raw: [Point], road: Road, roadCount: Int, closed: Bool = false) -> Double {
        var points = raw
        // Repeated points dropped (copying only when there are some).
        if zip(raw, raw.dropFirst()).contains(where: { $0 == $1 }) {
            points = []
            points.reserveCapacity(raw.count)
            for p in raw where points.last != p { points.append(p) }
        }
        guard points.count >= 2 else { return 0 }
        let p = roadCount <= 2 ? closeToTurn(points) : representative(points, road: road, closed: closed)
        return bearing(of: p)
    }

    static func bearing(of p: Point) -> Double {
        if p.x == 0 && p.y == 0 { return 0 }
        let degrees = atan2(p.x, p.y) * 180 / .pi
        return degrees < 0 ? degrees + 360 : degrees
    }

    /// OSRM's `GetCoordinateCloseToTurn`: the first point more than a metre from the junction.
    static func closeToTurn(_ points: [Point]) -> Point {
        points.dropFirst().first { $0.distance(to: points[0]) > 1 } ?? points[points.count - 1]
    }

    /// OSRM's `ExtractRepresentativeCoordinate`.
    static func representative(_ input: [Point], road: Road, closed: Bool) -> Point {
        var points = input
        let g = road.grid
        if closed { return points[1] }
        if points.count <= 2 { return points[points.count - 1] }
        if road.roundabout { return coordinate(atLength: skippingInaccuracies, points, grid: g) }
        let turn = points[0]
        // OSRM projects onto lines in degrees.
        let c = g?.cosLatitude ?? 1
        if road.highway.mayBeIgnored {
            // OSRM also tries an offset correction here, under a condition that cannot hold.
            return trimmed(points, to: lookaheadWithoutLanes, grid: g).last!
        }
        let considered = road.highway.offsetCorrection * (road.lanes == 0 ? assumedLaneCount : Double(road.lanes))
        let firstDistance = points[0].distance(to: points[1])
        if firstDistance > considered * laneWidth + lookaheadWithoutLanes { return points[1] }

        let lookahead = farLookahead + considered * laneWidth
        var lengths = lengthCache(points, limit: lookahead)
        points = trimmed(points, to: lookahead, cache: lengths, grid: g)
        lengths[lengths.count - 1] = min(lengths[lengths.count - 1], lookahead)
        let total = lengths.reduce(0, +)
        if points.count == 2 || total <= skippingInaccuracies { return points[points.count - 1] }

        if maxDeviation(points[...], from: points[0], to: points[points.count - 1], cosLatitude: c)
            < 0.5 * laneWidth {
            return points[0] == points[points.count - 1]
                ? coordinate(atLength: skippingInaccuracies, points, grid: g) : points[points.count - 1]
        }

        // How far the road runs straight from the junction before it bends.
        var straightDistance = lengths[1]
        var index = 2
        while index < points.count {
            guard maxDeviation(points[0..<index], from: points[0], to: points[index], cosLatitude: c)
                    < 0.25 * laneWidth else { break }
            straightDistance += lengths[index]
            index += 1
        }
        let straightIndex = index - 1
        if straightDistance >= considered * laneWidth + lookaheadWithoutLanes {
            return coordinate(atLength: 5, points, cache: lengths, grid: g)
        }

        let line = regressionLine(points, grid: g)
        if maxDeviation(points[...], from: line.0, to: line.1, cosLatitude: c) < 0.35 * laneWidth {
            return corrected(turn, base: project(points[0], on: line, cosLatitude: c),
                             head: project(points[points.count - 1], on: line, cosLatitude: c), grid: g)
        }
        if isDirectOffset(points, straightIndex: straightIndex, straightDistance: straightDistance, total: total,
                          lengths: lengths, considered: considered, cosLatitude: c) {
            let k = max(1, straightIndex)
            return corrected(turn, base: points[k], head: points[k + 1], grid: g)
        }
        if isCurve(points, lengths: lengths, total: total, laneWidths: considered * laneWidth,
                   roundabout: road.roundabout, cosLatitude: c) {
            if total <= skippingInaccuracies { return points[points.count - 1] }
            var curve = trimmed(points, to: 3 * skippingInaccuracies, cache: lengths, grid: g)
            var curveLengths = Array(lengths.prefix(curve.count))
            curveLengths[curveLengths.count - 1] = curve[curve.count - 2].distance(to: curve[curve.count - 1])
            let head = curve[curve.count - 1]
            curve = trimmed(curve, to: 2 * skippingInaccuracies, cache: curveLengths, grid: g)
            return corrected(turn, base: curve[curve.count - 1], head: head, grid: g)
        }
        let trimming = 0.8 * considered * laneWidth
        let front = trimmedFront(points, by: 0.8 * trimming, grid: g)
        if front.count >= 2 && total >= trimming + 2 {
            let line = regressionLine(front, grid: g)
            if maxDeviation(front[...], from: line.0, to: line.1, cosLatitude: c) < 0.5 * laneWidth {
                return corrected(turn, base: line.0, head: line.1, grid: g)
            }
        }
        let result = coordinate(atLength: lookaheadWithoutLanes, points, cache: lengths, grid: g)
        if result != points[0] { return result }
        return points.first { $0 != points[0] } ?? result
    }

    static func onGrid(_ p: Point, _ grid: Grid?) -> Point { grid?.cut(p) ?? p }

    /// Where the line reaches `distance` metres along: the index of the point after that place
    /// and the place itself (on the grid); nil when the line is shorter.
    static func crossing(_ points: [Point], at distance: Double, grid: Grid?) -> (index: Int, point: Point)? {
        var travelled = 0.0
        for i in 1..<points.count {
            let d = points[i - 1].distance(to: points[i])
            if travelled + d >= distance {
                let t = d > 0 ? max(0, min(1, (distance - travelled) / d)) : 1
                return (i, onGrid(points[i - 1] + t * (points[i] - points[i - 1]), grid))
            }
            travelled += d
        }
        return nil
    }

    /// The point `distance` along the line (its end when shorter).
    static func coordinate(atLength distance: Double, _ points: [Point], grid: Grid?) -> Point {
        crossing(points, at: distance, grid: grid)?.point ?? points[points.count - 1]
    }

    /// The same with the segments' lengths given (`cache[i]` from point i-1 to i).
    static func coordinate(atLength distance: Double, _ points: [Point], cache: [Double], grid: Grid?) -> Point {
        var travelled = 0.0
        for i in 1..<points.count {
            let d = cache[i]
            if travelled + d >= distance {
                let t = d > 0 ? max(0, min(1, (distance - travelled) / d)) : 1
                return onGrid(points[i - 1] + t * (points[i] - points[i - 1]), grid)
            }
            travelled += d
        }
        return points[points.count - 1]
    }

    /// OSRM's `PrepareLengthCache`: 0, then each segment's length, up to the first point at or past `limit`.
    static func lengthCache(_ points: [Point], limit: Double) -> [Double] {
        var lengths = [0.0]
        lengths.reserveCapacity(points.count)
        var total = 0.0
        for i in 1..<points.count {
            let d = points[i - 1].distance(to: points[i])
            total += d
            lengths.append(d)
            if total >= limit { break }
        }
        return lengths
    }

    /// OSRM's `TrimCoordinatesToLength` without a length cache: the line cut at `length`.
    static func trimmed(_ points: [Point], to length: Double, grid: Grid?) -> [Point] {
        guard let cut = crossing(points, at: length, grid: grid) else { return points }
        var kept = Array(points[...cut.index])
        kept[cut.index] = cut.point
        return kept
    }

    /// OSRM's `TrimCoordinatesToLength` with a length cache, as it behaves: when the cache's last
    /// segment is shorter than `length` the line is cut to the cache's points (its last point kept
    /// whole); otherwise the cache's entries are read as distances from the start.
    static func trimmed(_ input: [Point], to length: Double, cache: [Double], grid: Grid?) -> [Point] {
        var points = input
        if cache[cache.count - 1] < length {
            if points.count > cache.count { points.removeSubrange(cache.count...) }
            return points
        }
        var travelled = 0.0
        for i in 1..<points.count {
            let next = cache[i]
            if next >= length {
                points.removeSubrange((i + 1)...)
                let t = next > travelled ? max(0, min(1, (length - travelled) / (next - travelled))) : 1
                points[i] = onGrid(points[i - 1] + t * (points[i] - points[i - 1]), grid)
                break
            }
            travelled = next
        }
        return points
    }

    /// OSRM's `TrimCoordinatesByLengthFront`: the line without its first `length` metres (empty when shorter).
    static func trimmedFront(_ points: [Point], by length: Double, grid: Grid?) -> [Point] {
        guard let cut = crossing(points, at: length, grid: grid) else { return [] }
        var rest = Array(points[(cut.index - 1)...])
        rest[0] = cut.point
        return rest
    }

    /// The nearest point to `p` on the segment from `a` to `b`; with `cosLatitude`, nearest in
    /// degrees as OSRM's `projectPointOnSegment` finds it (a degree east is shorter than north).
    static func project(_ p: Point, onSegment a: Point, _ b: Point, cosLatitude c: Double = 1) -> Point {
        let v = b - a, w = p - a
        let k = 1 / (c * c)
        let squared = k * v.x * v.x + v.y * v.y
        if squared < .ulpOfOne { return a }
        let t = max(0, min(1, (k * v.x * w.x + v.y * w.y) / squared))
        return a + t * v
    }

    static func project(_ p: Point, on line: (Point, Point), cosLatitude c: Double = 1) -> Point {
        project(p, onSegment: line.0, line.1, cosLatitude: c)
    }

    /// The largest distance of the points from their projections on the segment `a`–`b`.
    static func maxDeviation(_ points: ArraySlice<Point>, from a: Point, to b: Point,
                             cosLatitude c: Double = 1) -> Double {
        points.reduce(0) { max($0, $1.distance(to: project($1, onSegment: a, b, cosLatitude: c))) }
    }

    /// OSRM's `GetCorrectedCoordinate`: the head moved back by 90 % of the base's offset from the turn.
    static func corrected(_ turn: Point, base: Point, head: Point, grid: Grid?) -> Point {
        if base.distance(to: head) < desiredCoordinateDifference { return head }
        if let grid { return grid.corrected(base: base - turn, head: head) }
        return head - 0.9 * (base - turn)
    }

    /// OSRM's `SampleCoordinates`, point by point: the first point, then one every `rate` metres
    /// up to `maxLength`.
    static func forEachSample(_ points: [Point], maxLength: Double, rate: Double, grid: Grid?,
                              _ body: (Point) -> Void) {
        body(points[0])
        var carry = 0.0, total = 0.0
        for i in 1..<points.count {
            if total > maxLength { break }
            let a = points[i - 1], b = points[i]
            let d = a.distance(to: b)
            if carry + d >= rate {
                let base = rate - carry
                let n = Int(((min(maxLength - total, d) + carry) / rate).rounded(.down))
                for k in 0..<n where d > 0 {
                    let t = max(0, min(1, (base + Double(k) * rate) / d))
                    body(onGrid(a + t * (b - a), grid))
                }
                carry = (d + carry) - Double(n) * rate
            } else {
                carry += d
            }
            total += d
        }
    }

    /// Sums for a least-squares fit, gathered point by point.
    struct Fit {
        var n = 0.0, sx = 0.0, sy = 0.0, sxx = 0.0, syy = 0.0, sxy = 0.0
        var minX = Double.infinity, maxX = -Double.infinity, minY = Double.infinity, maxY = -Double.infinity

        mutating func add(_ p: Point) {
            n += 1; sx += p.x; sy += p.y
            sxx += p.x * p.x; syy += p.y * p.y; sxy += p.x * p.y
            minX = min(minX, p.x); maxX = max(maxX, p.x); minY = min(minY, p.y); maxY = max(maxY, p.y)
        }

        /// OSRM's `leastSquareRegression`: latitude fitted on longitude by ordinary least squares,
        /// from the smallest longitude to the largest; a line more than twice as tall as wide (in
        /// degrees, hence `cosLatitude`) is fitted turned a quarter: longitude on latitude, from
        /// the smallest latitude to the largest. (Ordinary least squares gives the same line
        /// whether the axes are in degrees or metres.) OSRM runs the line `reach` (10⁻⁵° in
        /// metres east and north) beyond the points at both ends.
        func line(cosLatitude: Double, reach: (x: Double, y: Double) = (0, 0)) -> (Point, Point) {
            let meanX = sx / n, meanY = sy / n
            let vx = sxx - n * meanX * meanX, vy = syy - n * meanY * meanY, cxy = sxy - n * meanX * meanY
            if (maxY - minY) * cosLatitude > 2 * (maxX - minX) {
                let slope = vy > 0 ? cxy / vy : 0
                let low = minY - reach.y, high = maxY + reach.y
                return (Point(x: meanX + slope * (low - meanY), y: low),
                        Point(x: meanX + slope * (high - meanY), y: high))
            }
            let slope = vx > 0 ? cxy / vx : 0
            let low = minX - reach.x, high = maxX + reach.x
            return (Point(x: low, y: meanY + slope * (low - meanX)),
                    Point(x: high, y: meanY + slope * (high - meanX)))
        }
    }

    /// OSRM's `RegressionLine`: a least-squares line through the first 40 m sampled every metre,
    /// from the line's first point to its last, both projected onto it.
    static func regressionLine(_ points: [Point], grid: Grid?) -> (Point, Point) {
        var fit = Fit()
        forEachSample(points, maxLength: farLookahead, rate: 1, grid: grid) { fit.add($0) }
        guard fit.n >= 2 else { return (points[0], points[points.count - 1]) }
        // (10⁻⁵°: ten grid units; about 1.1 m north without a grid.)
        let reach = grid.map { (x: 10 * $0.unitX, y: 10 * $0.unitY) } ?? (x: 1.11, y: 1.11)
        let c = grid?.cosLatitude ?? 1
        let line = fit.line(cosLatitude: c, reach: reach)
        return (project(points[0], on: line, cosLatitude: c),
                project(points[points.count - 1], on: line, cosLatitude: c))
    }

    /// OSRM's `computeAngle` at `b` from `a` to `c`: 180 straight on.
    static func angle(_ a: Point, _ b: Point, _ c: Point) -> Double {
        Junction.turnAngle(arriving: bearing(of: b - a), leaving: bearing(of: c - b))
    }

    /// How far apart two directions are, 0…180 (both in 0…360).
    static func deviation(_ a: Double, _ b: Double) -> Double {
        let d = abs(a - b)
        return d > 180 ? 360 - d : d
    }

    /// OSRM's `IsDirectOffset`: the road starts with a short offset (the width of the lanes) and
    /// then runs straight.
    static func isDirectOffset(_ points: [Point], straightIndex: Int, straightDistance: Double, total: Double,
                               lengths: [Double], considered: Double, cosLatitude c: Double) -> Bool {
        let k = max(1, straightIndex)
        if k + 1 >= points.count { return false }
        let offset = lengths[0...k].reduce(0, +)
        guard offset - 0.5 * considered * laneWidth < laneWidth else { return false }
        if total < 0.4 * farLookahead { return false }
        if total - max(straightDistance, lengths[1]) < 0.1 * total { return false }
        var end = lengths.count
        for i in k..<lengths.count where lengths[i] >= 30 { end = i; break }
        let compareEnd = min(points.count, end + 1)
        return 0.5 * laneWidth > maxDeviation(points[k..<compareEnd], from: points[k], to: points[compareEnd - 1],
                                              cosLatitude: c)
    }

    /// OSRM's `IsCurve`: the road bends steadily to one side over its length, rather than turning
    /// once near the junction.
    static func isCurve(_ points: [Point], lengths: [Double], total: Double,
                        laneWidths: Double, roundabout: Bool, cosLatitude c: Double) -> Bool {
        if roundabout { return true }
        let n = points.count
        let begin = bearing(of: points[1] - points[0]), end = bearing(of: points[n - 1] - points[n - 2])
        guard deviation(begin, end) > 0.5 * TurnClassifier.narrowTurnAngle else { return false }
        func side(_ p: Point) -> Bool {
            let a = points[0], b = points[n - 1]
            return (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x) > 0
        }
        if n > 3 {
            let first = side(points[1])
            guard points[2..<(n - 1)].allSatisfy({ side($0) == first }) else { return false }
        }
        func offLine(_ p: Point) -> Double {
            p.distance(to: project(p, onSegment: points[0], points[n - 1], cosLatitude: c))
        }
        // Deviations rise to one maximum and fall after it.
        var maxIndex = 0, maxDeviation = 0.0
        if n == 3 {
            maxIndex = 1
            maxDeviation = offLine(points[1])
        } else {
            var i = 2
            while i < n && !(offLine(points[i]) < offLine(points[i - 1])) { i += 1 }
            if i == n {
                maxIndex = n - 1
            } else {
                var falling = true
                for j in (i + 1)..<max(i + 1, n) where offLine(points[j - 1]) < offLine(points[j]) {
                    falling = false; break
                }
                guard falling else { return false }
                maxIndex = i - 1
                maxDeviation = offLine(points[i - 1])
            }
        }
        let toMax = lengths.prefix(maxIndex + 1).reduce(0, +)
        if (toMax <= 0.35 * total || maxDeviation < max(0.3 * laneWidths, 0.5 * laneWidth))
            && total > lookaheadWithoutLanes {
            return false
        }
        // No long straight stretch within the curve.
        var angles: [Double] = []
        for i in 0..<(n - 2) { angles.append(angle(points[i], points[i + 1], points[i + 2])) }
        var lastWasStraight = false
        var straight = max(0, lengths[1] - laneWidths)
        var cursor = 1
        if angles.count >= 2 {
            for i in 1..<angles.count {
                let previous = angles[i - 1], current = angles[i]
                let bothTurn = deviation(previous, 180) > TurnClassifier.fuzzyAngleDifference
                    && deviation(current, 180) > TurnClassifier.fuzzyAngleDifference
                if bothTurn && (previous > 180) == (current < 180) { return false }
                let isStraight = deviation(current, 180) < 5
                cursor += 1
                if isStraight {
                    straight += lengths[cursor]
                    if lastWasStraight && straight > 0.3 * total { return false }
                } else if straight > 0.3 * total {
                    return false
                } else {
                    straight = lengths[cursor]
                }
                lastWasStraight = isStraight
            }
        }
        return total > 2 * laneWidths
    }
}

extension HighwayClass {
    /// OSRM's `may_be_ignored`: roads outside car.lua's road types (service roads and the like).
    var mayBeIgnored: Bool {
        switch self {
        case .service, .other, .ferry, .winterRoad, .iceRoad, .track, .path, .footway, .pedestrian, .steps: true
        default: false
        }
    }

    /// OSRM's `GetOffsetCorrectionFactor`: wider junctions on bigger roads.
    var offsetCorrection: Double {
        switch self {
        case .motorway, .motorwayLink, .trunk, .trunkLink: 2.5
        case .primary: 1.5
        default: 1.0
        }
    }
}
