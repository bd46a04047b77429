import Testing
@testable import WaymarkGeo
import WaymarkSupport

@Suite struct BoundingBoxTests {
    let acrossDateLine = BoundingBox(west: 170, south: -10, east: -170, north: 10)

    @Test func containsAcrossAntimeridian() {
        #expect(acrossDateLine.crossesAntimeridian)
        #expect(acrossDateLine.longitudeSpan == 20)
        #expect(acrossDateLine.contains(Coordinate(latitude: 0, longitude: 175)))
        #expect(acrossDateLine.contains(Coordinate(latitude: 0, longitude: -175)))
        #expect(acrossDateLine.contains(Coordinate(latitude: 10, longitude: 180)))
        #expect(!acrossDateLine.contains(Coordinate(latitude: 0, longitude: 0)))
        #expect(!acrossDateLine.contains(Coordinate(latitude: 11, longitude: 175)))
        let plain = BoundingBox(west: -10, south: -10, east: 10, north: 10)
        #expect(plain.contains(Coordinate(latitude: 0, longitude: 0)))
        #expect(!plain.contains(Coordinate(latitude: 0, longitude: 175)))
        #expect(acrossDateLine.center == Coordinate(latitude: 0, longitude: 180))
    }

    @Test func intersectsAcrossAntimeridian() {
        #expect(acrossDateLine.intersects(BoundingBox(west: 175, south: 0, east: 178, north: 5)))
        #expect(acrossDateLine.intersects(BoundingBox(west: -179, south: 0, east: -100, north: 5)))
        #expect(acrossDateLine.intersects(BoundingBox(west: 160, south: 0, east: -160, north: 5)))
        #expect(!acrossDateLine.intersects(BoundingBox(west: -160, south: 0, east: 160, north: 5)))
        #expect(!acrossDateLine.intersects(BoundingBox(west: 175, south: 20, east: 178, north: 30)))
        #expect(BoundingBox.world.intersects(acrossDateLine))
        // Touching edges count.
        #expect(BoundingBox(west: 0,
                            south: 0, east: 1, north: 1).intersects(BoundingBox(west: 1, south: 1, east: 2, north: 2)))
    }

    @Test func unionTakesTheShortWayRound() {
        let east = BoundingBox(west: 170, south: 0, east: 175, north: 5)
        let west = BoundingBox(west: -175, south: -5, east: -170, north: 1)
        #expect(east.union(west) == BoundingBox(west: 170, south: -5, east: -170, north: 5))
        #expect(west.union(east) == BoundingBox(west: 170, south: -5, east: -170, north: 5))
        let a = BoundingBox(west: -10,
                            south: 0, east: 0, north: 1), b = BoundingBox(west: 5, south: 0, east: 10, north: 1)
        #expect(a.union(b) == BoundingBox(west: -10, south: 0, east: 10, north: 1))
        #expect(a.union(acrossDateLine) == BoundingBox(west: 170, south: -10, east: 0, north: 10))
        #expect(a.union(.world) == BoundingBox(west: -180, south: -90, east: 180, north: 90))
        #expect(acrossDateLine.union(BoundingBox(west: 175, south: 0, east: 176, north: 1)) == acrossDateLine)
    }

    @Test func enclosingPicksTheSmallestLongitudeRange() throws {
        func box(_ lons: [Double], lats: [Double]? = nil) throws -> BoundingBox? {
            let lats = lats ?? lons.map { _ in 0 }
            return try BoundingBox.enclosing(zip(lats, lons).map { Coordinate(latitude: $0, longitude: $1) })
        }
        #expect(try box([]) == nil)
        #expect(try box([170, -170]) == BoundingBox(west: 170, south: 0, east: -170, north: 0))
        #expect(try box([-10, 10]) == BoundingBox(west: -10, south: 0, east: 10, north: 0))
        #expect(try box([5], lats: [7]) == BoundingBox(west: 5, south: 7, east: 5, north: 7))
        // Largest gap contains neither 0° nor 180°: both simple framings give 340°, the answer is 200°.
        let wide = try #require(try box([-10, 10, 170, -170, -90]))
        #expect(wide.west == 170 && wide.east == 10)
        #expect(wide.longitudeSpan == 200)
        // Negative zero counts as zero, not as a negative longitude.
        #expect(try box([-0.0, 170, -170])?.longitudeSpan == 190)
        #expect(try box([-0.0, 100, -100])?.longitudeSpan == 200)
        #expect(try box([-179, 179, 178.5]) == BoundingBox(west: 178.5, south: 0, east: -179, north: 0))
        #expect(throws: InvalidCoordinate(index: 2, reason: .outOfRange(component: .latitude, value: 91))) {
            try box([1, 2, 3], lats: [0, 0, 91])
        }
        do {
            _ = try box([1, .nan])
            Issue.record("NaN accepted")
        } catch {
            #expect((error as? InvalidCoordinate)?.index == 1)
        }
    }

    /// Property: the enclosing box has the span of the exact answer (360° less the widest gap
    /// between sorted longitudes) and contains every point. Fixed seed.
    @Test func enclosingMatchesBruteForce() throws {
        var rng = SplitMix64(seed: 42)
        for trial in 0..<2000 {
            let count = 1 + Int(rng.next() % 12)
            let center = rng.uniform(-180, 180), spread = [2.0, 30, 150, 250, 360][trial % 5]
            let coordinates = (0..<count).map { _ in
                Coordinate(latitude: rng.uniform(-80, 80),
                           longitude: normalizedLongitude(center + rng.uniform(-spread / 2, spread / 2)))
            }
            let box = try #require(try BoundingBox.enclosing(coordinates))
            let sorted = coordinates.map(\.longitude).sorted()
            var widestGap = sorted.first! + 360 - sorted.last!
            for (a, b) in zip(sorted, sorted.dropFirst()) { widestGap = max(widestGap, b - a) }
            let expected = count == 1 ? 0 : 360 - widestGap
            #expect(abs(box.longitudeSpan - expected) < 360.0 / 4096 + 1e-9,
                    "trial \(trial): \(box) vs span \(expected)")
            if widestGap > 360.0 / 4096 { #expect(abs(box.longitudeSpan - expected) < 1e-9, "trial \(trial)") }
            for c in coordinates { #expect(box.contains(c), "trial \(trial): \(c) outside \(box)") }
        }
    }
}
