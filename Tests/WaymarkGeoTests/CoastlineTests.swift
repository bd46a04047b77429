import Testing
import WaymarkGeo

/// The sea from coastlines (land on their left), closed along the extract's box: hand-drawn
/// islands, a peninsula, a bay, a coast the box cuts, a strait, a lagoon — each checked by points
/// known to be sea or land and by the sea's share of the box.
@Suite struct CoastlineTests {
    /// A 10 × 10 box at the origin; points as (x, y) = (longitude, latitude).
    let box = BoundingBox(west: 0, south: 0, east: 10, north: 10)
    func line(_ points: [(Double, Double)]) -> [Coordinate] {
        points.map { Coordinate(latitude: $0.1, longitude: $0.0) }
    }
    func isSea(_ rings: [[Coordinate]], _ x: Double, _ y: Double) -> Bool {
        Coastline.contains(rings, Coordinate(latitude: y, longitude: x))
    }
    /// The sea's share of the box, sampled on a 100 × 100 grid of cell centres.
    func seaShare(_ rings: [[Coordinate]]) -> Double {
        var sea = 0
        for i in 0..<100 {
            for j in 0..<100 where isSea(rings, Double(i) / 10 + 0.05, Double(j) / 10 + 0.05) { sea += 1 }
        }
        return Double(sea) / 10_000
    }

    @Test func anIslandIsLandInTheSea() {
        let sea = Coastline.sea([line([(4, 4), (6, 4), (6, 6), (4, 6), (4, 4)])], in: box)
        #expect(!isSea(sea, 5, 5) && isSea(sea, 1, 1) && isSea(sea, 9, 9))
        #expect(abs(seaShare(sea) - 0.96) < 0.005)
    }

    @Test func aCoastTheBoxCutsHasTheLandOnItsLeft() {
        // Eastwards: land to the north. Ends short of the box's edge are taken to it.
        let sea = Coastline.sea([line([(0.2, 5), (5, 5.5), (9.8, 5)])], in: box)
        #expect(isSea(sea, 5, 2) && !isSea(sea, 5, 8) && !isSea(sea, 0.5, 9.5))
        #expect(abs(seaShare(sea) - 0.525) < 0.02)
        // Westwards the other way round.
        let turned = Coastline.sea([line([(10, 5), (0, 5)])], in: box)
        #expect(!isSea(turned, 5, 2) && isSea(turned, 5, 8))
    }

    @Test func aPeninsulaAndABay() {
        let peninsula = Coastline.sea([line([(7, 0), (7, 6), (3, 6), (3, 0)])], in: box)
        #expect(!isSea(peninsula, 5, 3) && isSea(peninsula, 1, 3) && isSea(peninsula, 5, 8))
        #expect(abs(seaShare(peninsula) - 0.76) < 0.005)
        let bay = Coastline.sea([line([(3, 0), (3, 6), (7, 6), (7, 0)])], in: box)
        #expect(isSea(bay, 5, 3) && !isSea(bay, 1, 3) && !isSea(bay, 5, 8))
        #expect(abs(seaShare(bay) - 0.24) < 0.005)
    }

    @Test func aStraitBetweenTwoCoasts() {
        let sea = Coastline.sea([line([(0, 8), (10, 8)]), line([(10, 2), (0, 2)])], in: box)
        #expect(isSea(sea, 5, 5) && !isSea(sea, 5, 9) && !isSea(sea, 5, 1))
        #expect(abs(seaShare(sea) - 0.6) < 0.005)
        // With an island in it.
        let island = Coastline.sea([line([(0, 8), (10, 8)]), line([(10, 2), (0, 2)]),
                                    line([(4, 4), (6, 4), (6, 6), (4, 6), (4, 4)])], in: box)
        #expect(!isSea(island, 5, 5) && isSea(island, 2, 5))
    }

    @Test func aLagoonAloneIsTheSea() {
        // Clockwise: water inside, land all round.
        let sea = Coastline.sea([line([(4, 4), (4, 6), (6, 6), (6, 4), (4, 4)])], in: box)
        #expect(isSea(sea, 5, 5) && !isSea(sea, 1, 1))
        #expect(Coastline.sea([], in: box).isEmpty)
    }
}
