import Testing
@testable import WaymarkGeo

@Suite struct MercatorTests {
    @Test func projectsAndUnprojects() {
        #expect(abs(WebMercator.maximumLatitude - 85.05112878) < 1e-8)
        let m = WebMercator.tiles256
        #expect(m.point(for: Coordinate(latitude: 0, longitude: 0)) == MapPoint(x: 128, y: 128))
        #expect(m.x(longitude: -180) == 0 && m.x(longitude: 180) == 256)
        #expect(abs(m.y(latitude: WebMercator.maximumLatitude)) < 1e-6)
        #expect(abs(m.y(latitude: -WebMercator.maximumLatitude) - 256) < 1e-6)
        // Clamped beyond the edge: the pole maps to the world's top edge, not infinity.
        #expect(m.y(latitude: 90) == m.y(latitude: WebMercator.maximumLatitude))
        #expect(m.latitude(y: -50) == WebMercator.maximumLatitude)
        let c = Coordinate(latitude: 52.520008, longitude: 13.404954)
        let back = m.coordinate(for: m.point(for: c))
        #expect(abs(back.latitude - c.latitude) < 1e-12 && abs(back.longitude - c.longitude) < 1e-12)
        // 512 worlds are twice as large.
        #expect(WebMercator.tiles512.point(for: c).x == 2 * m.point(for: c).x)
    }

    @Test func rectsAcrossTheAntimeridian() {
        let m = WebMercator.tiles256
        let box = BoundingBox(west: 170, south: -10, east: -170, north: 10)
        let rect = m.rect(for: box)
        #expect(abs(rect.size.width - 20.0 / 360 * 256) < 1e-12)
        #expect(rect.maxX > 256)
        let back = m.boundingBox(for: rect)
        #expect(abs(back.west - 170) < 1e-9 && abs(back.east + 170) < 1e-9)
        #expect(abs(back.north - 10) < 1e-9 && abs(back.south + 10) < 1e-9)
        let whole = m.boundingBox(for: MapRect(origin: MapPoint(x: -10, y: -10),
                                               size: MapSize(width: 300, height: 300)))
        #expect(whole.west == -180 && whole.east == 180 && whole.north == WebMercator.maximumLatitude)
    }

    @Test func regionOfARect() {
        let m = WebMercator.tiles256
        let box = BoundingBox(west: -10, south: 40, east: 10, north: 60)
        let region = CoordinateRegion(m.rect(for: box), projection: m)
        #expect(abs(region.span.latitudeDelta - 20) < 1e-9)
        #expect(abs(region.span.longitudeDelta - 20) < 1e-9)
        // The Mercator midpoint lies north of the mean latitude 50° in the northern hemisphere.
        #expect(abs(region.center.latitude - 51.0652289222883) < 1e-9)
        #expect(abs(region.center.longitude) < 1e-9)
        let around = CoordinateRegion(center: Coordinate(latitude: 0, longitude: 178),
                                      span: CoordinateSpan(latitudeDelta: 2, longitudeDelta: 6))
        #expect(around.boundingBox == BoundingBox(west: 175, south: -1, east: -179, north: 1))
    }
}
