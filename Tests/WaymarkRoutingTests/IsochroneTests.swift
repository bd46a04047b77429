import Testing
import WaymarkGeo
import WaymarkGraph
import WaymarkSupport
@testable import WaymarkPreparation
@testable import WaymarkQueries
@testable import WaymarkGuidance
@testable import WaymarkRouting

/// Isochrones: the outline tracing on hand-drawn grids, and whole isochrones against routes.
@Suite struct IsochroneTests {
    /// A grid from rows of '#' (inside) and '.', the first row northmost.
    private func grid(_ rows: [String]) -> (inside: [Bool], width: Int, height: Int) {
        let height = rows.count, width = rows[0].count
        var inside = [Bool](repeating: false, count: width * height)
        for (r, row) in rows.enumerated() {
            for (c, ch) in row.enumerated() where ch == "#" { inside[(height - 1 - r) * width + c] = true }
        }
        return (inside, width, height)
    }

    private func signedArea(_ ring: [IsochroneOutline.Point]) -> Int {
        var s = 0
        for k in 0..<(ring.count - 1) { s += ring[k].x * ring[k + 1].y - ring[k + 1].x * ring[k].y }
        return s / 2
    }

    @Test func squareIsOneCounterclockwiseRing() {
        let g = grid([".....", ".###.", ".###.", "....."])
        let polygons = IsochroneOutline.polygons(inside: g.inside, width: g.width, height: g.height, denoise: 0)
        #expect(polygons.count == 1 && polygons[0].count == 1)
        let ring = polygons[0][0]
        #expect(ring.count == 5 && ring.first == ring.last) // four corners, closed
        #expect(signedArea(ring) == 6)
    }

    @Test func holesAreClockwiseAndSmallOnesFilled() {
        let rows = ["..........", ".########.", ".#......#.", ".#......#.", ".#......#.", ".#......#.", ".#......#.",
                    ".########.", ".........."]
        let g = grid(rows)
        let kept = IsochroneOutline.polygons(inside: g.inside, width: g.width, height: g.height,
                                             denoise: 0, minimumHole: 25)
        #expect(kept.count == 1 && kept[0].count == 2)
        #expect(signedArea(kept[0][0]) == 8 * 7 && signedArea(kept[0][1]) == -(6 * 5))
        let filled = IsochroneOutline.polygons(inside: g.inside, width: g.width, height: g.height,
                                               denoise: 0, minimumHole: 31)
        #expect(filled.count == 1 && filled[0].count == 1)
    }

    @Test func cornerTouchingCellsStayApartAndDenoiseKeepsTheLargest() {
        let g = grid(["......", ".##...", ".##...", "...#..", "......"])
        let all = IsochroneOutline.polygons(inside: g.inside, width: g.width, height: g.height, denoise: 0)
        #expect(all.count == 2)
        #expect(all.map { signedArea($0[0]) } == [4, 1]) // largest first
        #expect(all.allSatisfy { $0[0].count == 5 })
        #expect(IsochroneOutline.polygons(inside: g.inside, width: g.width, height: g.height, denoise: 1).count == 1)
        #expect(IsochroneOutline.polygons(inside: g.inside, width: g.width, height: g.height, denoise: 0.25).count == 2)
        #expect(IsochroneOutline.polygons(inside: g.inside, width: g.width, height: g.height, denoise: 0.3).count == 1)
    }

    /// Random grids: every ring closed, outer rings counterclockwise and holes clockwise, and the
    /// area inside equals the cells counted (with no holes filled).
    @Test func randomGridsAreOutlinedExactly() {
        var rng = SplitMix64(seed: 77)
        for _ in 0..<200 {
            let width = 3 + Int(rng.next() % 12), height = 3 + Int(rng.next() % 12)
            var inside = [Bool](repeating: false, count: width * height)
            for y in 1..<(height - 1) { for x in 1..<(width - 1) { inside[y * width + x] = rng.next() % 3 != 0 } }
            let polygons = IsochroneOutline.polygons(inside: inside, width: width, height: height,
                                                     denoise: 0, minimumHole: 0)
            var area = 0
            for polygon in polygons {
                #expect(signedArea(polygon[0]) > 0)
                for hole in polygon.dropFirst() { #expect(signedArea(hole) < 0) }
                for ring in polygon { #expect(ring.first == ring.last && ring.count >= 5) }
                area += polygon.reduce(0) { $0 + signedArea($1) }
            }
            #expect(area == inside.filter { $0 }.count)
        }
    }

    private func contains(_ polygon: [[Coordinate]], _ p: Coordinate) -> Bool {
        func inRing(_ ring: [Coordinate]) -> Bool {
            var inside = false
            for k in 0..<(ring.count - 1) {
                let a = ring[k], b = ring[k + 1]
                if (a.latitude > p.latitude) != (b.latitude > p.latitude) {
                    let x =
                        a.longitude + (p.latitude - a.latitude) / (b.latitude - a.latitude)
                        * (b.longitude - a.longitude)
                    if p.longitude < x { inside.toggle() }
                }
            }
            return inside
        }
        return inRing(polygon[0]) && !polygon.dropFirst().contains(where: inRing)
    }

    /// Every vertex a route reaches within a time lies inside that time's area; the areas nest;
    /// far away is outside.
    @Test(arguments: [41, 42, 43]) func routesReachedAreInside(seed: Int) throws {
        let g = randomGraph(seed: UInt64(seed), nodes: 80, ways: 150)
        let map = RoadMap(graph: g, method: .hierarchy, maxSnapDistance: 5000)
        // On the main network, in the middle of the map.
        let origin = try #require(map.nearest(Coordinate(latitude: 52.01, longitude: 13.015))).coordinate
        // Times that part the vertices: the quartiles of the route durations to them.
        let durations = (0..<UInt32(g.nodeCount)).compactMap { v in (try? map.route(from: origin,
            to: g.coordinate(of: v)))?.duration }.sorted()
        let minutes = [0.25, 0.5, 0.75].map { (durations[Int(Double(durations.count) * $0)] / 6).rounded(.up) / 10 }
        let isochrone = try map.isochrone(from: origin, minutes: minutes, denoise: 1)
        #expect(isochrone.contours.map(\.minutes) == minutes)
        var checked = 0
        for (k, contour) in isochrone.contours.enumerated() {
            #expect(contour.polygons.count == 1, "seed \(seed): the reached roads are one area")
            guard let polygon = contour.polygons.first else { continue }
            for v in 0..<UInt32(g.nodeCount) {
                let target = g.coordinate(of: v)
                guard let route = try? map.route(from: origin, to: target), route.waypoints[1].distance < 0.5,
                      route.duration <= minutes[k] * 60 - 0.5 else { continue }
                checked += 1
                #expect(contains(polygon, target),
                        "seed \(seed): vertex \(v) reached in \(route.duration) s, outside the \(minutes[k]) min area")
            }
            #expect(!contains(polygon, Coordinate(latitude: 52.5, longitude: 13.5)))
        }
        #expect(checked > 10, "seed \(seed): too few vertices checked (\(checked))")
        // Nested: each shorter time's outer ring lies inside the longer one's.
        for (inner, outer) in zip(isochrone.contours, isochrone.contours.dropFirst()) {
            guard let i = inner.polygons.first, let o = outer.polygons.first else { continue }
            #expect(
                i[0].allSatisfy { p in
                    contains(o, p) || o[0].contains(p) || o.dropFirst().contains { $0.contains(p) }
                        || nearBoundary(o, p)
                })
        }
        #expect(throws: RouteError.self) { try map.isochrone(from: origin, minutes: []) }
        #expect(throws: RouteError.self) { try map.isochrone(from: origin, minutes: [5, 5]) }
        // Times out of range are one clear error, whatever the value (none may trap in the message).
        for (bad, text) in [(Double.infinity, "inf"), (-5, "-5"), (1e300, "1e+300"), (.nan, "nan"), (2000, "2000")] {
            let error = #expect(throws: RouteError.self) { try map.isochrone(from: origin, minutes: [bad]) }
            #expect(error?.description == "\(text) is not a time from 0 to 1440 minutes",
                    "\(String(describing: error))")
        }
        #expect(throws: RouteError.self) {
            try map.isochrone(from: Coordinate(latitude: 60, longitude: 13), minutes: [5])
        }
    }

    /// The sweep down the whole hierarchy, the sweep down the part within reach, and the
    /// Dijkstra reach the same roads at the same times, on maps with turn restrictions (copies of
    /// edges along restricted paths), from points on oneway and two-way roads, for times that
    /// reach a little of the map (the restricted sweep leaves most of it out) and all of it.
    @Test(arguments: [5, 6, 7, 8]) func sweepAndDijkstraAgree(seed: Int) throws {
        let g = randomGraph(seed: UInt64(seed), nodes: 120, ways: 220)
        let map = RoadMap(graph: g, method: .hierarchy, maxSnapDistance: 5000)
        let data = map.data().data
        let search = IsochroneSearch(data: data), router = Router(map: map, prepared: map.data())
        var rng = SplitMix64(seed: UInt64(seed))
        var compared = 0
        for _ in 0..<6 {
            let c = Coordinate(latitude: 52 + Double(rng.next() % 1000) / 50_000,
                               longitude: 13 + Double(rng.next() % 1000) / 33_000)
            guard let snap = try? router.snap(c) else { continue }
            for limit in [20.0, 60, 180, 1200] {
                func table(_ method: IsochroneSearch.Method) -> [String: Double] {
                    var t: [String: Double] = [:]
                    for r in search.reach(from: snap, within: limit, method: method) {
                        let key = "\(r.edge)@\(r.offset)"
                        t[key] = min(t[key] ?? .infinity, r.time)
                        #expect(r.source == g.source(of: r.edge))
                    }
                    return t
                }
                let dijkstra = table(.dijkstra)
                for sweep in [table(.sweep), table(.restrictedSweep)] {
                    #expect(Set(dijkstra.keys) == Set(sweep.keys), "seed \(seed), \(limit) s: reached roads differ")
                    for (key, time) in dijkstra { #expect(abs(time - (sweep[key] ?? -1)) < 1e-3,
                                                          "seed \(seed), \(limit) s, \(key)") }
                }
                compared += dijkstra.count
            }
        }
        #expect(compared > 100)
    }

    /// Shared outline corners test as on the boundary (the point-in-polygon test is exclusive there).
    private func nearBoundary(_ polygon: [[Coordinate]], _ p: Coordinate) -> Bool {
        polygon.contains { ring in zip(ring, ring.dropFirst()).contains { a, b in
            let minLat = min(a.latitude, b.latitude) - 1e-9, maxLat = max(a.latitude, b.latitude) + 1e-9
            let minLon = min(a.longitude, b.longitude) - 1e-9, maxLon = max(a.longitude, b.longitude) + 1e-9
            return p.latitude >= minLat && p.latitude <= maxLat && p.longitude >= minLon && p.longitude <= maxLon
        } }
    }
}
