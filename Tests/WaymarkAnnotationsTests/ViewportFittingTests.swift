import Testing
import Foundation
import WaymarkGeo
import WaymarkSupport
@testable import WaymarkAnnotations

/// Reference numbers were worked out independently (Python) from Leaflet's `getBoundsZoom` and
/// Mapbox GL's `cameraForBounds` formulas: scale = min((W − padX) / boxWidth, (H − padY) / boxHeight)
/// in world points, zoom = log2(scale); Mapbox's center = box midpoint − ((left − right) / 2,
/// (top − bottom) / 2) / 2^zoom; Leaflet's snap rounds to 1 % of the step, then floors.
@Suite struct ViewportFittingTests {
    func c(_ lat: Double, _ lon: Double) -> Coordinate { Coordinate(latitude: lat, longitude: lon) }

    @Test func matchesLeafletGetBoundsZoom() throws {
        let points = [c(40.712, -74.227), c(40.774, -74.125)]
        let fit = try fitViewport(points, options: ViewportOptions(width: 1024, height: 768, zoomSnap: 1))
        #expect(abs(fit.zoom - 13.687996805969336) < 1e-9)
        #expect(fit.snappedZoom == 13)
        // Leaflet padding is summed per axis: 50 + 50 horizontally, 30 + 30 vertically; snap 0.5.
        let london = [c(51.28, -0.489), c(51.686, 0.236)]
        let padded = try fitViewport(london, options: ViewportOptions(
            width: 800, height: 600, padding: EdgePadding(top: 30, left: 50, bottom: 30, right: 50), zoomSnap: 0.5))
        #expect(abs(padded.zoom - 10.185822153178897) < 1e-9)
        #expect(padded.snappedZoom == 10)
    }

    @Test func matchesMapboxCameraForBounds() throws {
        let points = [c(43, -79), c(45, -73)]
        let padding = EdgePadding(top: 10, left: 20, bottom: 30, right: 40)
        let fit = try fitViewport(points,
                                  options: ViewportOptions(width: 800, height: 600,
                                                           padding: padding, projection: .tiles512))
        #expect(abs(fit.zoom - 6.4382720561248306) < 1e-9)
        #expect(abs(fit.center.latitude - 43.950083663432984) < 1e-9)
        #expect(abs(fit.center.longitude - -75.91891891891893) < 1e-9)
        let plain = try fitViewport(points, options: ViewportOptions(width: 800, height: 600, projection: .tiles512))
        #expect(abs(plain.zoom - 6.550746785383243) < 1e-9)
        #expect(abs(plain.center.latitude - 44.00842889283682) < 1e-9)
        #expect(abs(plain.center.longitude - -76) < 1e-9)
        // On a 256 world the same view is exactly one zoom level higher.
        let small = try fitViewport(points, options: ViewportOptions(width: 800, height: 600))
        #expect(abs(small.zoom - (plain.zoom + 1)) < 1e-12)
    }

    @Test func fitsAcrossTheAntimeridian() throws {
        let fit = try fitViewport([c(10, 170), c(-10, -170)], options: ViewportOptions(width: 390, height: 844))
        #expect(fit.contentBox == BoundingBox(west: 170, south: -10, east: -170, north: 10))
        #expect(abs(fit.center.longitude.magnitude - 180) < 1e-9)
        #expect(abs(fit.center.latitude) < 1e-9)
        // Width-limited: the 20° span fills the 390-point width.
        #expect(abs(fit.zoom - log2(390 / (20.0 / 360 * 256))) < 1e-12)
        #expect(abs(fit.region.span.longitudeDelta - 20) < 1e-9)
        #expect(fit.visibleBox.crossesAntimeridian)
        #expect(abs(fit.visibleBox.west - 170) < 1e-9 && abs(fit.visibleBox.east + 170) < 1e-9)
    }

    @Test func onePointOrIdenticalPointsUseMaxZoom() throws {
        let options = ViewportOptions(width: 300, height: 200, padding: EdgePadding(all: 20), maxZoom: 17)
        for points in [[c(52.2, -1.5)], Array(repeating: c(52.2, -1.5), count: 1000)] {
            let fit = try fitViewport(points, options: options)
            #expect(fit.zoom == 17 && fit.snappedZoom == 17)
            #expect(abs(fit.center.latitude - 52.2) < 1e-12 && abs(fit.center.longitude + 1.5) < 1e-12)
            #expect(fit.region.span.latitudeDelta > 0 && fit.region.span.latitudeDelta.isFinite)
            #expect(fit.visibleBox.contains(c(52.2, -1.5)))
        }
        // Points on one meridian: only the height limits the zoom.
        let vertical = try fitViewport([c(0, 10), c(10, 10)], options: ViewportOptions(width: 500, height: 500))
        #expect(vertical.zoom.isFinite && vertical.zoom < 18)
    }

    @Test func everyPointIsVisible() throws {
        var rng = SplitMix64(seed: 3)
        for _ in 0..<300 {
            let center = c(rng.uniform(-60, 60), rng.uniform(-180, 180))
            let spread = rng.uniform(0.001, 40)
            let points = (0..<20).map { _ in
                c(max(-85, min(85, center.latitude + rng.uniform(-spread, spread))),
                  normalizedLongitude(center.longitude + rng.uniform(-spread, spread)))
            }
            let padding = EdgePadding(top: rng.uniform(0, 80), left: rng.uniform(0, 80), bottom: rng.uniform(0, 80),
                                      right: rng.uniform(0, 80))
            let fit = try fitViewport(points,
                                      options: ViewportOptions(width: 400, height: 700, padding: padding,
                                                               maxZoom: 22, zoomSnap: 0.25))
            for p in points { #expect(fit.visibleBox.contains(p), "\(p) not in \(fit.visibleBox)") }
        }
    }

    @Test func zoomIsClampedAndSnapped() throws {
        let world = try fitViewport([c(-80, -179), c(80, 179)],
                                    options: ViewportOptions(width: 256, height: 256, minZoom: 2))
        #expect(world.zoom == 2 && world.snappedZoom == 2)
        // Leaflet: within 1 % of the next level snaps up to it.
        // A 180° span is 128 world points; at zoom 4 that is 2048 screen points.
        let line = [c(0, -90), c(0, 0), c(0, 90)]
        let nearly = try fitViewport(line, options: ViewportOptions(width: 2048 * 0.997, height: 500, zoomSnap: 1))
        #expect(nearly.zoom < 4 && nearly.zoom > 3.995 && nearly.snappedZoom == 4)
        let below = try fitViewport(line, options: ViewportOptions(width: 2048 * 0.99, height: 500, zoomSnap: 1))
        #expect(below.snappedZoom == 3)
        // -180° and 180° are one meridian: no width at all.
        #expect(try fitViewport([c(0, -180), c(1, 180)],
                                options: ViewportOptions(width: 500, height: 500)).contentBox.longitudeSpan == 0)
    }

    @Test func rejectsBadInput() {
        let options = ViewportOptions(width: 100, height: 100)
        #expect(throws: ViewportError.noCoordinates) { try fitViewport([Coordinate](), options: options) }
        #expect(
            throws: ViewportError.invalidCoordinate(
                InvalidCoordinate(index: 1, reason: .outOfRange(component: .longitude, value: 181)))
        ) {
            try fitViewport([c(0, 0), c(0, 181)], options: options)
        }
        #expect(throws: ViewportError.paddingLeavesNoRoom(axis: "horizontal", size: 100, padding: 100)) {
            try fitViewport([c(0, 0)],
                            options: ViewportOptions(width: 100, height: 100,
                                                     padding: EdgePadding(top: 0, left: 60, bottom: 0, right: 40)))
        }
        #expect(throws: ViewportError.paddingLeavesNoRoom(axis: "vertical", size: 100, padding: 120)) {
            try fitViewport([c(0, 0)],
                            options: ViewportOptions(width: 100, height: 100,
                                                     padding: EdgePadding(top: 60, left: 0, bottom: 60, right: 0)))
        }
        #expect(throws: ViewportError.self) { try fitViewport([c(0, 0)],
                                                              options: ViewportOptions(width: 0, height: 100)) }
        #expect(throws: ViewportError.self) { try fitViewport([c(0, 0)],
                                                              options: ViewportOptions(width: .nan, height: 100)) }
        #expect(throws: ViewportError.self) { try fitViewport([c(0, 0)],
                                                              options: ViewportOptions(width: 10,
            height: 10, minZoom: 5, maxZoom: 4)) }
        do {
            _ = try fitViewport([c(.nan, 0)], options: options)
            Issue.record("NaN accepted")
        } catch {
            #expect(error.description == "coordinate 0: latitude nan is not a finite number")
        }
    }

    @Test func jsonShape() throws {
        let fit = try fitViewport([c(1, 1), c(2, 2)], options: ViewportOptions(width: 100, height: 100))
        let json = fit.json
        #expect(json.objectValue?.keys == ["center", "zoom", "snappedZoom", "span", "bbox"])
        #expect(json["center"]?.objectValue?.keys == ["latitude", "longitude"])
        #expect(json["span"]?.objectValue?.keys == ["latitudeDelta", "longitudeDelta"])
        #expect(json["bbox"]?.arrayValue?.count == 4)
    }
}
