import Testing
import WaymarkGeo
@testable import WaymarkGeoJSON

@Suite struct GeoJSONTests {
    let sample = """
    {"type": "FeatureCollection", "bbox": [-8.7, 41.1, -8.5, 41.2],
     "features": [
      {"type": "Feature", "id": "a", "geometry": {"type": "Point", "coordinates": [-8.611039, 41.149611, 80]},
       "properties": {"title": "Sé", "rank": 1}},
      {"type": "Feature", "id": 7, "geometry": {"type": "LineString", "coordinates": [[-8.6, 41.1], [-8.5, 41.2]]},
       "properties": null},
      {"type": "Feature", "geometry": null, "properties": {}},
      {"type": "Feature", "geometry": {"type": "Polygon", "coordinates": [[[0,0],[1,0],[1,1],[0,0]]]}, "properties": {}}
     ]}
    """

    @Test func readsAndWritesRoundTrip() throws {
        let object = try GeoJSONReader.read(sample)
        guard case let .featureCollection(collection) = object else { Issue.record("not a collection"); return }
        #expect(collection.features.count == 4)
        #expect(collection.bbox == BoundingBox(west: -8.7, south: 41.1, east: -8.5, north: 41.2))
        #expect(collection.features[0].id == .string("a"))
        #expect(collection.features[0].geometry == .point(Coordinate(latitude: 41.149611, longitude: -8.611039)))
        #expect(collection.features[0].properties?["title"] == "Sé")
        #expect(collection.features[1].id == .number(7))
        #expect(collection.features[1].properties == nil)
        #expect(collection.features[2].geometry == nil)
        let written = GeoJSONWriter().string(object)
        #expect(try GeoJSONReader.read(written) == object)
        #expect(
            written.contains(
                #"{"type":"Feature","id":"a","geometry":{"type":"Point","coordinates":[-8.611039,41.149611]},"#
                    + #""properties":{"title":"Sé","rank":1}}"#
            ))
        #expect(written.contains(#""geometry":null,"properties":{}"#))
        #expect(written.hasPrefix(#"{"type":"FeatureCollection","bbox":[-8.7,41.1,-8.5,41.2],"features":["#))
    }

    @Test func precisionIsConfigurable() {
        let point = GeoJSONObject.geometry(.point(Coordinate(latitude: 41.14961234, longitude: -8.61103987)))
        #expect(GeoJSONWriter().string(point) == "{\"type\":\"Point\",\"coordinates\":[-8.61104,41.149612]}\n")
        #expect(GeoJSONWriter(precision: 3).string(point) == "{\"type\":\"Point\",\"coordinates\":[-8.611,41.15]}\n")
    }

    /// Polygons across ±180° (an isochrone on Fiji) are cut there into a MultiPolygon, each part
    /// on its side with its rings closed; a hole goes with the side it lies on.
    @Test func splitsPolygonsAtTheAntimeridian() {
        func c(_ lat: Double, _ lon: Double) -> Coordinate { Coordinate(latitude: lat, longitude: lon) }
        let square = [c(0, 179), c(0, -178), c(2, -178), c(2, 179), c(0, 179)]
        let hole = [c(0.5, 179.2), c(0.5, 179.5), c(1, 179.5), c(1, 179.2), c(0.5, 179.2)]
        guard case let .multiPolygon(parts) = GeoJSONWriter.splittingAntimeridian(.polygon([square, hole])) else {
            Issue.record("not split"); return
        }
        #expect(parts.count == 2)
        #expect(parts[0] == [[c(0, 179), c(0, 180), c(2, 180), c(2, 179), c(0, 179)], hole])
        #expect(parts[1] == [[c(0, -180), c(0, -178), c(2, -178), c(2, -180), c(0, -180)]])
        // From the east side, the same cut (at -180 on the way round).
        let fromEast = [c(0, -178), c(2, -178), c(2, 179), c(0, 179), c(0, -178)]
        guard case let .multiPolygon(halves) = GeoJSONWriter.splittingAntimeridian(.polygon([fromEast])) else {
            Issue.record("not split"); return
        }
        #expect(halves.count == 2 && halves.allSatisfy { $0[0].first == $0[0].last })
        #expect(halves.flatMap { $0[0] }.allSatisfy { $0.longitude >= 179 || $0.longitude <= -178 })
        // One that stays on one side is left alone.
        let plain = [c(0, 10), c(0, 11), c(1, 11), c(0, 10)]
        #expect(GeoJSONWriter.splittingAntimeridian(.polygon([plain])) == .polygon([plain]))
    }

    @Test func splitsLinesAtTheAntimeridian() {
        let line = [Coordinate(latitude: 0, longitude: 170), Coordinate(latitude: 10, longitude: -170),
                    Coordinate(latitude: 20, longitude: -160)]
        let split = GeoJSONWriter.splittingAntimeridian(.lineString(line))
        #expect(split == .multiLineString([
            [Coordinate(latitude: 0, longitude: 170), Coordinate(latitude: 5, longitude: 180)],
            [Coordinate(latitude: 5, longitude: -180), Coordinate(latitude: 10, longitude: -170),
             Coordinate(latitude: 20, longitude: -160)],
        ]))
        // Westwards and back again: three parts.
        let zigzag = [Coordinate(latitude: 0, longitude: -175), Coordinate(latitude: 0, longitude: 175),
                      Coordinate(latitude: 0, longitude: -175)]
        guard case let .multiLineString(parts) = GeoJSONWriter.splittingAntimeridian(.lineString(zigzag)) else {
            Issue.record("not split"); return
        }
        #expect(parts.count == 3)
        #expect(parts[0].last == Coordinate(latitude: 0, longitude: -180))
        #expect(parts[1].first == Coordinate(latitude: 0, longitude: 180))
        // A line that stays on one side is left alone, and written as a LineString.
        let plain = [Coordinate(latitude: 0, longitude: -10), Coordinate(latitude: 1, longitude: 10)]
        #expect(GeoJSONWriter.splittingAntimeridian(.lineString(plain)) == .lineString(plain))
        let written = GeoJSONWriter().string(.geometry(.lineString(line)))
        #expect(
            written
                == "{\"type\":\"MultiLineString\",\"coordinates\":[[[170,0],[180,5]],[[-180,5],[-170,10],[-160,20]]]}\n"
        )
    }

    @Test func errorsNameLineFeatureAndPath() {
        func failure(_ text: String) -> GeoJSONError? {
            do { _ = try GeoJSONReader.read(text); return nil } catch { return error }
        }
        let badLatitude = """
        {"type": "FeatureCollection", "features": [
          {"type": "Feature", "geometry": {"type": "Point", "coordinates": [1, 2]}, "properties": {}},
          {"type": "Feature", "geometry": {"type": "Point", "coordinates": [1, 92]}, "properties": {}}
        ]}
        """
        let e = failure(badLatitude)
        #expect(e?.location.line == 3)
        #expect(e?.featureIndex == 1)
        #expect(e?.path == "features[1].geometry.coordinates")
        #expect(e?.message.contains("latitude 92") == true)
        #expect(e?.description.hasPrefix("line 3, column 68 (feature 1)") == true)

        #expect(failure(#"{"type": "Point", "coordinates": [1]}"#)?.message.contains("[longitude, latitude]") == true)
        #expect(failure(#"{"type": "Point", "coordinates": ["1", 2]}"#)?.path == "coordinates[0]")
        #expect(failure(#"{"type": "LineString", "coordinates": [[1, 2]]}"#)?.message.contains("at least 2") == true)
        #expect(
            failure(#"{"type": "Polygon", "coordinates": [[[0,0],[1,0],[1,1],[0,1]]]}"#)?.message.contains("not closed")
                == true)
        #expect(
            failure(#"{"type": "Circle", "coordinates": [1, 2]}"#)?.message.contains("unknown geometry type") == true)
        #expect(failure(#"{"coordinates": [1, 2]}"#)?.message == "missing member \"type\"")
        #expect(failure(#"{"type": "Feature", "properties": {}}"#)?.message.contains("missing \"geometry\"") == true)
        #expect(failure(#"{"type": "Feature", "geometry": null, "properties": 3}"#)?.path == "properties")
        #expect(
            failure(#"{"type": "FeatureCollection", "features": {}}"#)?.message.contains("must be an array") == true)
        #expect(
            failure(#"{"type": "FeatureCollection", "features": [{"type": "Point", "coordinates": [0, 0]}]}"#)?
                .featureIndex == 0)
        #expect(failure(#"{"type": "Point", "coordinates": [0, 0], "bbox": [1, 2]}"#)?.path == "bbox")
        #expect(failure("{\"type\": \"Point\",\n \"coordinates\": [0, 0]")?.location.line == 2)
    }

    @Test func computedBoundingBoxIsAntimeridianAware() {
        let collection = FeatureCollection(features: [
            Feature(geometry: .point(Coordinate(latitude: 1, longitude: 179))),
            Feature(geometry: .point(Coordinate(latitude: -1, longitude: -179))),
        ])
        #expect(collection.computedBoundingBox == BoundingBox(west: 179, south: -1, east: -179, north: 1))
    }
}
