import Testing
import WaymarkGeo
import WaymarkGraph
import WaymarkProfiles
import WaymarkOSM
import WaymarkSupport
@testable import WaymarkPreparation
@testable import WaymarkQueries
@testable import WaymarkGuidance
@testable import WaymarkRouting

/// The isochrone's vertex grid: every vertex within a radius on the ground is among the cells it
/// gives, on a map spanning 40° of latitude (where a plane at the middle latitude would stretch
/// distances in the north) and for radii from one cell to most of the map.
@Suite struct VertexGridTests {
    @Test func everyVertexWithinTheRadiusIsGiven() throws {
        var rng = SplitMix64(seed: 11)
        var b = GraphBuilder(profile: CarProfile())
        let count = 400
        for _ in 0..<count {
            b.latitudes.append(FixedPoint.encode(rng.uniform(30, 70)))
            b.longitudes.append(FixedPoint.encode(rng.uniform(-20, 40)))
        }
        let rule = CarProfile().way(["highway": "primary"])!
        for w in 0..<count { b.ways.append(GraphBuilder.Way(nodes: [UInt32(w), UInt32((w + 1) % count)],
                                                            rule: rule, id: Int64(w))) }
        let graph = b.build()
        let box = try #require(try BoundingBox.enclosing((0..<UInt32(graph.nodeCount)).map(graph.coordinate(of:))))
        let grid = VertexGrid(graph: graph, bounds: box, cellSize: 50_000)
        #expect(grid.fastest > 1)
        // (About a cell per vertex at most, with at least 1,024 cells: 400 vertices over about
        // 2,300 × 4,400 km in the plane; each side rounded up a cell.)
        #expect(grid.columns * grid.rows <= 2 * 1024)
        for _ in 0..<200 {
            let c = Coordinate(latitude: rng.uniform(28, 72), longitude: rng.uniform(-22, 42))
            let radius = rng.uniform(30_000, 2_000_000)
            var given = Set<UInt32>()
            grid.forEachCell(near: c, within: radius) { given.formUnion($0) }
            for v in 0..<UInt32(graph.nodeCount) where graph.coordinate(of: v).distance(to: c) <= radius {
                #expect(given.contains(v),
                        "vertex \(v) at \(graph.coordinate(of: v).distance(to: c)) m of \(c), radius \(radius)")
            }
        }
        // A radius past any Int's reach (a map with an absurdly fast edge) gives every vertex, a
        // negative or NaN one none: no trap converting the cell range.
        for (radius, expected) in [(1e300, graph.nodeCount), (.infinity, graph.nodeCount), (-1, 0), (.nan, 0)] {
            var given = 0
            grid.forEachCell(near: Coordinate(latitude: 50, longitude: 10), within: radius) { given += $0.count }
            #expect(given == expected, "radius \(radius)")
        }
    }
}
