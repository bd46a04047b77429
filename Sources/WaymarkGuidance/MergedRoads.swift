import Foundation
import WaymarkGeo
import WaymarkGraph
import WaymarkQueries
import WaymarkPreparation

/// Where OSRM sees one road though the map draws two: the two oneway carriageways of a divided
/// road, meeting a junction side by side, are one road there at the bearing between them (OSRM's
/// `MergableRoadDetector` and `getIntersectionGeometries`). Found once per map, with the
/// perceived bearings; a junction then lists the road once (the carriageway coming in is left out
/// unless the route arrives along it) at the merged bearing.
package struct MergedRoads: Sendable, Equatable {
    /// Edges arriving along a carriageway merged at their target, ascending.
    let arriving: Column<UInt32>
    /// For each, the edge leaving that junction along the carriageway beside it.
    let leaving: Column<UInt32>
    /// One bit per edge: whether it is in `arriving` (asked at every junction of a route).
    private let bits: [UInt64]

    init(arriving: Column<UInt32>, leaving: Column<UInt32>, edgeCount: Int) {
        self.arriving = arriving
        self.leaving = leaving
        var bits = [UInt64](repeating: 0, count: arriving.isEmpty ? 0 : (edgeCount + 63) / 64)
        for h in arriving { bits[Int(h) >> 6] |= 1 << (UInt64(h) & 63) }
        self.bits = bits
    }

    /// Whether edge `h`'s carriageway is merged at its target.
    @inline(__always) func isMerged(arriving h: Int) -> Bool {
        let word = h >> 6
        return word < bits.count && bits[word] & (1 << (UInt64(h) & 63)) != 0
    }

    /// The carriageway out beside edge `h`'s, where `h`'s is merged at its target.
    func partner(ofArriving h: Int) -> Int? {
        guard isMerged(arriving: h) else { return nil }
        var low = 0, high = arriving.count
        while low < high {
            let mid = (low + high) / 2
            if Int(arriving[mid]) < h { low = mid + 1 } else { high = mid }
        }
        return low < arriving.count && Int(arriving[low]) == h ? Int(leaving[low]) : nil
    }
}

/// OSRM's `MergableRoadDetector` on Waymark's graph, over the perceived bearings as measured
/// (`depart`/`arrival`, see ``GuidanceTables``).
package struct MergableRoadDetector {
    let graph: RoadGraph
    let depart: [Float]
    let arrival: [Float]
    /// The edge along each directed segment key (`edgeSegment`), -1 where the segment is not driven that way.
    let edgeByKey: [Int32]
    /// Roads at each vertex (``GuidanceTables``'s count: edges out, and carriageways only coming in).
    let roadCounts: [UInt8]
    let names: TurnClassifier

    /// Whether a carriageway only comes in at `v`: without one, nothing merges there.
    func hasInwardOnly(_ v: UInt32) -> Bool { graph.edges(from: v).count < Int(roadCounts[Int(v)]) }

    // OSRM's constants (extractor/intersection/constants.hpp, mergable_road_detector); the
    // angles and lane width it shares with the rest of guidance are ``TurnClassifier``'s and
    // ``PerceivedBearing``'s.
    static let mergableAngle = 95.0
    static let noTurnDeviation = 3.0
    static let extractDistance = 120.0
    static let pruningDistance = 30.0
    static let laneWidth = PerceivedBearing.laneWidth
    static let narrowTurn = TurnClassifier.narrowTurnAngle
    static let fuzzyAngle = TurnClassifier.fuzzyAngleDifference
    static let groupAngle = TurnClassifier.groupAngle

    /// One road at a vertex, leaving it (OSRM's node-based edge, `reversed` when it may not be driven out).
    struct End {
        /// The directed segment key leaving the vertex.
        var key: UInt32
        /// The edge out along it, -1 for a carriageway that only comes in.
        var out: Int
        /// The edge coming in along it, -1 where there is none.
        var arriving: Int
        /// The vertex at its other end.
        var far: UInt32
        var bearing: Double
        var length: Double
        var segment: Int { Int(key >> 1) }
        var reversed: Bool { out < 0 }
    }

    /// A road of an intersection as OSRM's walkers see it: its turn angle from the road arrived by.
    struct ViewRoad {
        var end: End
        var angle: Double
    }

    // MARK: - Roads at a vertex

    func ends(at v: UInt32) -> [End] {
        var found: [End] = []
        found.reserveCapacity(Int(roadCounts[Int(v)]))
        for g in graph.edges(from: v) {
            let k = graph.edgeSegment[g]
            found.append(End(key: k, out: g, arriving: Int(edgeByKey[Int(k ^ 1)]), far: graph.edgeTarget[g],
                             bearing: Double(depart[g]), length: Double(graph.edgeLength[g])))
        }
        for slot in graph.incoming(to: v) {
            let h = Int(graph.incomingEdge[slot])
            let k = graph.edgeSegment[h] ^ 1
            if edgeByKey[Int(k)] >= 0 { continue }
            found.append(End(key: k, out: -1, arriving: h, far: graph.incomingSource[slot],
                             bearing: Double(arrival[h]), length: Double(graph.edgeLength[h])))
        }
        return found
    }

    /// OSRM's `getConnectedRoads` without merging: every road at the far end of `end`, the road
    /// back first (angle 0), the rest by angle. `close`: bearings to each road's first point over
    /// a metre away, as OSRM's walkers measure (`getConnectedRoads<true>`), not the perceived ones.
    func view(after end: End, close: Bool = false) -> [ViewRoad] {
        var roads = ends(at: end.far)
        guard let back = roads.firstIndex(where: { $0.key == end.key ^ 1 }) else { return [] }
        if close {
            var scratch: [PerceivedBearing.Point] = []
            for i in roads.indices {
                let road = roads[i]
                roads[i].bearing = road.out >= 0
                    ? graph.perceivedBearing(of: road.out, from: end.far, atTarget: false, roadCount: 2,
                                             lanes: 0, scratch: &scratch)
                    : graph.perceivedBearing(of: road.arriving, from: road.far, atTarget: true, roadCount: 2,
                                             lanes: 0, scratch: &scratch)
            }
        }
        let arriving = roads[back].bearing + 180
        var view = [ViewRoad(end: roads[back], angle: 0)]
        view.reserveCapacity(roads.count)
        for (i, road) in roads.enumerated() where i != back {
            view.append(ViewRoad(end: road, angle: Junction.turnAngle(arriving: arriving, leaving: road.bearing)))
        }
        Self.sortStably(&view, from: 1) { $0.angle }
        return view
    }

    /// An insertion sort of `items[start...]` by `key`, stable (a handful of roads).
    static func sortStably<T>(_ items: inout [T], from start: Int, by key: (T) -> Double) {
        guard items.count > start + 1 else { return }
        for i in (start + 1)..<items.count {
            let item = items[i], value = key(item)
            var k = i
            while k > start && key(items[k - 1]) > value {
                items[k] = items[k - 1]
                k -= 1
            }
            items[k] = item
        }
    }

    static func deviation(_ a: Double, _ b: Double) -> Double {
        PerceivedBearing.deviation(normalized(a), normalized(b))
    }
    static func normalized(_ a: Double) -> Double { Junction.normalized(a) }
    static func reverse(_ bearing: Double) -> Double { bearing >= 180 ? bearing - 180 : bearing + 180 }
    /// OSRM's `angleBetween` of an arriving and a leaving bearing (180 straight on).
    static func angleBetween(_ entry: Double, _ exit: Double) -> Double {
        (entry - exit + 540).truncatingRemainder(dividingBy: 360)
    }

    /// OSRM's `findClosestTurn`: the first road whose angle is nearest `angle`, roads `excluded` last.
    static func closest(_ view: [ViewRoad], to angle: Double,
                        excluding excluded: (ViewRoad) -> Bool = { _ in false }) -> Int? {
        var best: Int? = nil, bestKey = (1, Double.infinity)
        for (i, road) in view.enumerated() {
            let key = (excluded(road) ? 1 : 0, deviation(road.angle, angle))
            if best == nil || key < bestKey { best = i; bestKey = key }
        }
        guard let best, !excluded(view[best]) else { return nil }
        return best
    }

    func sameNameID(_ s: Int, _ t: Int) -> Bool { graph.segmentName[s] == graph.segmentName[t]
        && graph.segmentRef[s] == graph.segmentRef[t] }
    func nameless(_ s: Int) -> Bool { graph.segmentName[s] == 0 }
    /// OSRM's lane count of a road, at least one.
    func lanes(_ road: End) -> Double { Double(max(graph.segmentLanes[road.segment], 1)) }

    // MARK: - Walking along a road (OSRM's NodeBasedGraphWalker)

    /// OSRM's `SelectStraightmostRoadByNameAndOnlyChoice` (never asking for entry).
    func straightmost(_ view: [ViewRoad], name s: Int, initialBearing: Double, stopOnAmbiguous: Bool) -> End? {
        guard view.count > 1 else { return nil }
        let desired = view.filter { sameNameID($0.end.segment, s) }.count
        if desired > 2 { return nil }
        func score(_ r: ViewRoad) -> Double { (sameNameID(r.end.segment, s) ? 0 : 180) + Self.deviation(r.angle, 180) }
        var m = 1
        for i in 2..<view.count where score(view[i]) < score(view[m]) { m = i }
        let chosen = view[m]
        let straightest = Self.closest(view, to: 180)
        if (view.count == 2 || straightest == m) && Self.deviation(chosen.angle, 180) < Self.narrowTurn
            && Self.deviation(initialBearing, chosen.end.bearing) < Self.narrowTurn {
            return chosen.end
        }
        let onlyChoice = sameNameID(chosen.end.segment, s) && Self.deviation(chosen.angle, 180) < 100
        if stopOnAmbiguous && Self.deviation(180, chosen.angle) > Self.groupAngle {
            if let o = Self.closest(view, to: Self.reverse(chosen.angle)),
                Self.deviation(chosen.angle, view[o].angle) > 180 - Self.fuzzyAngle {
                return nil
            }
            if let b = straightest, Self.deviation(view[b].angle, 180) < Self.fuzzyAngle { return nil }
        }
        return onlyChoice ? chosen.end : nil
    }

    /// OSRM's `TraverseRoad`: from `start` along `first`, then on by `select` at each junction,
    /// `update` told each road driven and the roads at its end; it ends where the walk comes back
    /// to `start`, at a dead end, where nothing is selected, or (asked only then) where
    /// `terminate` says so.
    func traverse(from start: UInt32, along first: End, select: ([ViewRoad]) -> End?,
                  update: (UInt32, End, [ViewRoad]) -> Void, terminate: () -> Bool) {
        var v = start, end = first
        for _ in 0..<1000 {
            let view = self.view(after: end, close: true)
            update(v, end, view)
            if end.far == start || view.count <= 1 { return }
            guard let next = select(view) else { return }
            if terminate() { return }
            v = end.far
            end = next
        }
    }

    /// OSRM's `LengthLimitedCoordinateAccumulator` along the road `end` leaves `start` by: its
    /// points on the plane around `origin` (metres) up to `limit` metres, and the length walked.
    /// (Each edge walked adds its own points: the walk itself passes the vertices OSRM's graph
    /// does not have, so that it stops where it comes back to `start`.)
    func pointsAlong(_ end: End, from start: UInt32, limit: Double, initialBearing: Double, stopOnAmbiguous: Bool,
                     origin: Coordinate) -> (points: [PerceivedBearing.Point], length: Double) {
        var points: [PerceivedBearing.Point] = [], scratch: [PerceivedBearing.Point] = []
        var length = 0.0
        let ruler = LocalRuler.osrm(latitude: origin.latitude)
        let name = end.segment
        traverse(from: start, along: end,
                 select: { straightmost($0, name: name, initialBearing: initialBearing,
                                        stopOnAmbiguous: stopOnAmbiguous) },
                 update: { v, road, _ in
            if road.out >= 0 {
                graph.planarGeometry(of: road.out, from: v, reversed: false, origin: origin, ruler: ruler,
                                     onward: false, into: &scratch)
            } else {
                graph.planarGeometry(of: road.arriving, from: road.far, reversed: true, origin: origin,
                                     ruler: ruler, onward: false, into: &scratch)
            }
            var piece = scratch
            var d = 0.0
            for i in 1..<piece.count { d += piece[i - 1].distance(to: piece[i]) }
            if d + length > limit { piece = PerceivedBearing.trimmed(piece, to: limit - length, grid: nil) }
            points += piece
            length = min(limit, length + d)
        }, terminate: { length >= limit })
        return (points, length)
    }

    /// OSRM's `IntersectionFinderAccumulator` state: the last road walked and the roads at its end.
    struct Found {
        var via: End
        var view: [ViewRoad]
        var hops = 0
        var node: UInt32 { via.far }
    }

    /// Walks on to the next junction of three roads or more (five roads at most, counted on from
    /// `found`'s walk before), continuing `found`.
    func findJunction(from start: UInt32, along end: End, name s: Int, initialBearing: Double,
                      into found: inout Found?) {
        var state = found
        traverse(from: start, along: end,
                 select: { straightmost($0, name: s, initialBearing: initialBearing, stopOnAmbiguous: false) },
                 update: { _, road, view in
            var f = state ?? Found(via: road, view: view)
            f.hops += 1
            f.via = road; f.view = view
            state = f
        }, terminate: {
            // (OSRM's finder starts counting again only when it stops here.)
            guard let f = state, f.view.count > 2 || f.hops == 5 else { return false }
            state!.hops = 0
            return true
        })
        found = state
    }

    /// OSRM's `skipDegreeTwoNodes`: along `end` past vertices where only two roads meet.
    func skipDegreeTwo(from start: UInt32, along end: End) -> (from: UInt32, via: End) {
        var v = start, road = end
        var steps = 0
        while road.far != start && steps < 10_000 {
            let roads = ends(at: road.far)
            guard roads.count == 2, let on = roads.first(where: { $0.key != road.key ^ 1 }) else { break }
            v = road.far
            road = on
            steps += 1
        }
        return (v, road)
    }

    // MARK: - OSRM's tests

    /// OSRM's `EdgeDataSupportsMerge`: no roundabouts, one mode, identical names, one class.
    func supportsMerge(_ s: Int, _ t: Int) -> Bool {
        let a = EdgeFlags(rawValue: graph.segmentFlags[s]), b = EdgeFlags(rawValue: graph.segmentFlags[t])
        if a.contains(.roundabout) || b.contains(.roundabout) { return false }
        if a.contains(.ferry) != b.contains(.ferry) || graph.modes(ofSegment: s) != graph.modes(ofSegment: t) {
            return false
        }
        if !names.identicalNames(s, t) { return false }
        return graph.segmentHighway[s] == graph.segmentHighway[t]
    }

    /// OSRM's `IsDistinctFrom`: far apart, or not the same road by name.
    func isDistinct(_ a: End, _ b: End) -> Bool {
        Self.deviation(a.bearing, b.bearing) > Self.mergableAngle || !names.identicalNames(a.segment, b.segment)
    }

    func isTrafficLoop(_ v: UInt32, _ road: End) -> Bool { skipDegreeTwo(from: v, along: road).via.far == v }

    /// OSRM's `IsTrafficIsland`: both carriageways meet again at once, at a split or join of one name.
    func isTrafficIsland(_ v: UInt32, _ lhs: End, _ rhs: End) -> Bool {
        let left = skipDegreeTwo(from: v, along: lhs).via.far, right = skipDegreeTwo(from: v, along: rhs).via.far
        guard left == right && left != v else { return false }
        func splitOfOneName(_ n: UInt32) -> Bool {
            let roads = ends(at: n)
            guard roads.count == 3 else { return false }
            let required = roads[0].segment
            for road in roads {
                if nameless(required) && nameless(road.segment) { return false }
                if names.announcesSegments(required, road.segment)
                    && names.announcesSegments(road.segment, required) { return false }
            }
            return true
        }
        let splitIn = splitOfOneName(v), splitOut = splitOfOneName(left)
        guard splitIn || splitOut else { return false }
        let d = graph.coordinate(of: v).distance(to: graph.coordinate(of: left))
        return splitIn && splitOut ? d < 30 : d < 15
    }

    /// OSRM's `IsLinkRoad`: the road reaches, at its next junction, a road going straight on both
    /// ways under its own name: a connection, not a carriageway.
    func isLinkRoad(_ v: UInt32, _ road: End) -> Bool {
        let next = skipDegreeTwo(from: v, along: road)
        let view = self.view(after: next.via)
        guard !view.isEmpty else { return false }
        let s = road.segment
        guard let ahead = Self.closest(view, to: 180, excluding: { r in
            nameless(s) || nameless(r.end.segment) || names.announcesSegments(s, r.end.segment)
                || names.announcesSegments(r.end.segment, s)
        }) else { return false }
        guard let opposite = Self.closest(view, to: Self.normalized(view[ahead].angle + 180)) else { return false }
        if view[opposite].end.far == next.from { return false }
        if Self.deviation(Self.deviation(view[ahead].angle, 180),
                          Self.deviation(view[opposite].angle, 0)) < Self.fuzzyAngle { return false }
        return Self.deviation(view[opposite].angle, view[ahead].angle) >= 180 - Self.fuzzyAngle
            && view[ahead].end.reversed == view[opposite].end.reversed
            && supportsMerge(view[ahead].end.segment, view[opposite].end.segment)
    }

    /// OSRM's `IsNarrowTriangle`: the road splits just before a junction, the two branches joined
    /// across by a short connection.
    func isNarrowTriangle(_ v: UInt32, _ lhs: End, _ rhs: End) -> Bool {
        let s = lhs.segment, bearing = lhs.bearing
        // To the next junction along each (on past it once where it has no turn towards the other).
        func junction(along road: End, towards side: Double) -> Found? {
            var found: Found? = nil
            findJunction(from: v, along: road, name: s, initialBearing: bearing, into: &found)
            guard let f = found, !f.view.isEmpty else { return nil }
            if let t = Self.closest(f.view, to: side), Self.deviation(f.view[t].angle, side) > Self.narrowTurn,
               let on = Self.closest(f.view, to: 180) {
                findJunction(from: f.node, along: f.view[on].end, name: s, initialBearing: bearing, into: &found)
            }
            return found
        }
        guard let l = junction(along: lhs, towards: 90) else { return false }
        if graph.coordinate(of: v).distance(to: graph.coordinate(of: l.node)) > 80 { return false }
        guard let r = junction(along: rhs, towards: 270) else { return false }
        guard let c = Self.closest(l.view, to: 90), Self.deviation(l.view[c].angle, 90) <= Self.narrowTurn else {
            return false
        }
        let width = (lanes(lhs) + lanes(rhs)) * Self.laneWidth
        if graph.coordinate(of: l.node).distance(to: graph.coordinate(of: r.node)) > width + 10 { return false }
        var connection: Found? = nil
        findJunction(from: l.node, along: l.view[c].end, name: s, initialBearing: bearing, into: &connection)
        return connection?.node == r.node
    }

    /// OSRM's `IsCircularShape`: the two roads close a ring round enough to be a loop, not a divided road.
    func isCircularShape(_ v: UInt32, _ lhs: End, _ rhs: End) -> Bool {
        let origin = graph.coordinate(of: v)
        let left = pointsAlong(lhs, from: v, limit: Self.extractDistance, initialBearing: lhs.bearing,
                               stopOnAmbiguous: false, origin: origin)
        let right = pointsAlong(rhs, from: v, limit: Self.extractDistance, initialBearing: lhs.bearing,
                                stopOnAmbiguous: false, origin: origin)
        guard let a = left.points.first, let b = left.points.last, let c = right.points.last, b == c, a == b,
            left.length > 0
        else { return false }
        var area = 0.0
        let p = left.points
        for i in p.indices { let q = p[(i + 1) % p.count]; area += p[i].x * q.y - q.x * p[i].y }
        return abs(area / 2) / (left.length * left.length) >= 0.85 / (4 * .pi)
    }

    /// OSRM's `HaveSameDirection`: both run on side by side, parallel and close, for a while.
    func haveSameDirection(_ v: UInt32, _ lhs: End, _ rhs: End) -> Bool {
        guard Self.deviation(lhs.bearing, rhs.bearing) <= Self.mergableAngle else { return false }
        let origin = graph.coordinate(of: v)
        let left = pointsAlong(lhs, from: v, limit: Self.extractDistance, initialBearing: lhs.bearing,
                               stopOnAmbiguous: true, origin: origin)
        guard left.length > 40 else { return false }
        let right = pointsAlong(rhs, from: v, limit: Self.extractDistance, initialBearing: lhs.bearing,
                                stopOnAmbiguous: true, origin: origin)
        guard right.length > 40 else { return false }
        let meetAgain = left.points.last == right.points.last
        func sampled(_ p: [PerceivedBearing.Point]) -> [PerceivedBearing.Point] {
            var out: [PerceivedBearing.Point] = []
            PerceivedBearing.forEachSample(p, maxLength: Self.extractDistance, rate: 5, grid: nil) { out.append($0) }
            if !meetAgain { out.removeFirst(out.count / 3) }
            return out
        }
        let l = sampled(left.points), r = sampled(right.points)
        guard l.count >= 2, r.count >= 2, Self.areParallel(l, r) else { return false }
        let apart = min(Self.distance(l[l.count / 2], to: r), Self.distance(r[r.count / 2], to: l))
        return apart <= 0.5 * (lanes(lhs) + lanes(rhs)) * Self.laneWidth + 12
    }

    /// OSRM's `areParallel`: the two least-squares lines differ by a slope of under a fifth.
    static func areParallel(_ a: [PerceivedBearing.Point], _ b: [PerceivedBearing.Point]) -> Bool {
        func direction(_ p: [PerceivedBearing.Point]) -> PerceivedBearing.Point {
            var fit = PerceivedBearing.Fit()
            for q in p { fit.add(q) }
            let line = fit.line(cosLatitude: 1)
            return line.1 - line.0
        }
        let u = direction(a), w = direction(b)
        let along = u.x * w.x + u.y * w.y, across = u.x * w.y - u.y * w.x
        guard along != 0 else { return false }
        return abs(across / along) < 0.2
    }

    /// The shortest distance from `p` to the line through `points`.
    static func distance(_ p: PerceivedBearing.Point, to points: [PerceivedBearing.Point]) -> Double {
        guard points.count > 1 else { return points.first.map { p.distance(to: $0) } ?? .infinity }
        var best = Double.infinity
        for i in 1..<points.count { best = min(best,
                                               p.distance(to: PerceivedBearing.project(p,
            onSegment: points[i - 1], points[i]))) }
        return best
    }

    /// OSRM's `CanMergeRoad`.
    func canMerge(_ v: UInt32, _ lhs: End, _ rhs: End) -> Bool {
        if Self.deviation(lhs.bearing, rhs.bearing) > Self.mergableAngle { return false }
        if lhs.reversed == rhs.reversed || !supportsMerge(lhs.segment, rhs.segment) { return false }
        if lhs.far == v || rhs.far == v { return false }
        if isTrafficLoop(v, lhs) || isTrafficLoop(v, rhs) { return false }
        if isTrafficIsland(v, lhs, rhs) { return true }
        if isLinkRoad(v, lhs) || isLinkRoad(v, rhs) { return false }
        if isNarrowTriangle(v, lhs, rhs) { return true }
        return haveSameDirection(v, lhs, rhs) && !isCircularShape(v, lhs, rhs)
    }

    /// OSRM's `isRoadsPairMergeable` for the roads at `i` and the next clockwise, `roads` sorted by bearing.
    func isPairMergeable(_ v: UInt32, _ roads: [End], _ i: Int) -> Bool {
        let n = roads.count
        let lhs = roads[i], rhs = roads[(i + 1) % n]
        // (The cheap conditions of `canMerge` first: all are required.)
        guard lhs.reversed != rhs.reversed
            && Self.deviation(lhs.bearing, rhs.bearing) <= Self.mergableAngle else { return false }
        return isDistinct(roads[(i + n - 1) % n], lhs) && canMerge(v, lhs, rhs) && isDistinct(rhs, roads[(i + 2) % n])
    }

    /// OSRM's `findMergedBearing`: the bisector, unless a road straight across from the carriageway
    /// in would then seem to turn (its own bearing then); at a neighbour, only when the merge
    /// brings both turns nearer straight on.
    static func mergedBearing(_ roads: [End], _ l: Int, _ r: Int, neighbour: Bool) -> (use: Bool, bearing: Double) {
        let lhs = roads[l], rhs = roads[r]
        let entry = lhs.reversed ? rhs : lhs
        let back = reverse(entry.bearing)
        var nearest = roads[0]
        for road in roads.dropFirst() where deviation(road.bearing, back) < deviation(nearest.bearing, back) {
            nearest = road
        }
        let opposite = reverse(nearest.bearing)
        let a = lhs.bearing * .pi / 180, b = rhs.bearing * .pi / 180
        let merged = (atan2(sin(b) + sin(a), cos(b) + cos(a)) * 180 / .pi + 360).truncatingRemainder(dividingBy: 360)
        if deviation(angleBetween(opposite, entry.bearing), 180) < noTurnDeviation { return (false, entry.bearing) }
        if neighbour {
            let turnNew = deviation(angleBetween(opposite, merged), 180)
            if deviation(angleBetween(opposite, lhs.bearing), 180) < turnNew
                || deviation(angleBetween(opposite, rhs.bearing), 180) < turnNew {
                return (false, opposite)
            }
        }
        return (true, merged)
    }

    /// The roads at `v` sorted clockwise as OSRM sorts them.
    func sortedEnds(at v: UInt32) -> [End] {
        var roads = ends(at: v)
        Self.sortStably(&roads, from: 0) { $0.bearing }
        return roads
    }

    /// OSRM's `getIntersectionGeometries` at `v`: the roads' bearings after merging, and the
    /// carriageways merged there (the edge coming in along one, the edge out along its partner).
    func merge(at v: UInt32) -> (roads: [End], merged: [(arriving: Int, leaving: Int)])? {
        // Nothing merges here, nor at the far end of a short road from here: bearings as measured.
        let here = hasInwardOnly(v)
        var roads = ends(at: v)
        if !here && !roads.contains(where: { $0.length <= Self.pruningDistance && hasInwardOnly($0.far) }) {
            return nil
        }
        Self.sortStably(&roads, from: 0) { $0.bearing }
        let n = roads.count
        var mergedHere = [Bool](repeating: false, count: n)
        var merged: [(arriving: Int, leaving: Int)] = []
        if n >= 3 && here {
            for i in 0..<n where isPairMergeable(v, roads, i) {
                let j = (i + 1) % n
                mergedHere[i] = true
                mergedHere[j] = true
                let bearing = Self.mergedBearing(roads, i, j, neighbour: false).bearing
                roads[i].bearing = bearing
                roads[j].bearing = bearing
                let (inward, outward) = roads[i].reversed ? (roads[i], roads[j]) : (roads[j], roads[i])
                if inward.arriving >= 0 && outward.out >= 0 { merged.append((inward.arriving, outward.out)) }
            }
        }
        if n >= 2 {
            // Roads whose other end, a few metres on, merges them there: turned by that merge.
            for i in 0..<n where !mergedHere[i] && roads[i].length <= Self.pruningDistance
                && hasInwardOnly(roads[i].far) {
                let w = roads[i].far
                let there = sortedEnds(at: w)
                let m = there.count
                guard m > 1, let current = there.firstIndex(where: { $0.key == roads[i].key ^ 1 }) else { continue }
                let previous = (current + m - 1) % m, next = (current + 1) % m
                if isPairMergeable(w, there, previous) {
                    let result = Self.mergedBearing(there, previous, current, neighbour: true)
                    if result.use {
                        let offset = Self.deviation(result.bearing, there[current].bearing)
                        roads[i].bearing = (roads[i].bearing + 360 - offset).truncatingRemainder(dividingBy: 360)
                    }
                } else if isPairMergeable(w, there, current) {
                    let result = Self.mergedBearing(there, current, next, neighbour: true)
                    if result.use {
                        let offset = Self.deviation(result.bearing, there[current].bearing)
                        roads[i].bearing = (roads[i].bearing + offset).truncatingRemainder(dividingBy: 360)
                    }
                }
            }
        }
        return (roads, merged)
    }
}
