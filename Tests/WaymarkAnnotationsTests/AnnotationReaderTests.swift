import Testing
import WaymarkGeo
import WaymarkGeoJSON
@testable import WaymarkAnnotations

@Suite struct AnnotationReaderTests {
    @Test func readsGeoJSONPoints() throws {
        let text = """
        {"type": "FeatureCollection", "features": [
          {"type": "Feature", "id": 3, "geometry": {"type": "Point", "coordinates": [-1.5, 52.2]},
           "properties": {"title": "Town Hall", "subtitle": "Civic", "amenity": "townhall", "open": true}},
          {"type": "Feature", "geometry": {"type": "Point", "coordinates": [-1.6, 52.3]}, "properties": null}
        ]}
        """
        let annotations = try AnnotationReader.readGeoJSON(Array(text.utf8))
        #expect(annotations.count == 2)
        #expect(annotations[0].title == "Town Hall" && annotations[0].subtitle == "Civic")
        #expect(annotations[0].properties.keys == ["amenity", "open"])
        #expect(annotations[0].id == .number(3))
        #expect(annotations[1].title == nil)
        // Written back out, title and subtitle lead and the rest follow.
        let feature = annotations[0].feature
        #expect(feature.properties?.keys == ["title", "subtitle", "amenity", "open"])
    }

    @Test func geoJSONErrorsNameTheFeature() {
        let line = """
        {"type": "FeatureCollection", "features": [
          {"type": "Feature", "geometry": {"type": "LineString", "coordinates": [[0, 0], [1, 1]]}, "properties": {}}]}
        """
        #expect(throws: AnnotationFileError(file: "x.geojson", line: 2, column: 3, featureIndex: 0,
                                            message: "an annotation must be a Point feature, found a LineString")) {
            try AnnotationReader.readGeoJSON(Array(line.utf8), file: "x.geojson")
        }
        let badTitle = """
        {"type": "FeatureCollection", "features": [
          {"type": "Feature", "geometry": {"type": "Point", "coordinates": [0, 0]}, "properties": {"title": 5}}]}
        """
        #expect(throws: AnnotationFileError(file: "<input>", line: 2, column: 3, featureIndex: 0,
                                            message: "property \"title\" must be a string, found a number")) {
            try AnnotationReader.readGeoJSON(Array(badTitle.utf8))
        }
        do {
            _ = try AnnotationReader.readGeoJSON(
                Array("{\"type\": \"FeatureCollection\",\n \"features\": [}".utf8), file: "f")
            Issue.record("accepted")
        } catch {
            #expect(error.description == "f:2:15: unexpected '}', expected a value")
        }
    }

    @Test func readsCSVWithQuotesAndExtraColumns() throws {
        let text =
            "latitude,longitude,title,subtitle,phone\r\n52.2,-1.5,\"Mill, the old\",\"A \"\"real\"\" mill\","
                + "123\r\n\r\n52.3,-1.6,Bakery,,\n"
        let annotations = try AnnotationReader.readCSV(Array(text.utf8))
        #expect(annotations.count == 2)
        #expect(annotations[0].title == "Mill, the old")
        #expect(annotations[0].subtitle == "A \"real\" mill")
        #expect(annotations[0].properties["phone"] == "123")
        #expect(annotations[1].subtitle == nil)
        #expect(annotations[1].coordinate == Coordinate(latitude: 52.3, longitude: -1.6))
        // Columns in another order, multi-line quoted field.
        let reordered = "title,longitude,latitude\n\"two\nlines\",10,20\nthird,11,21\n"
        let more = try AnnotationReader.readCSV(Array(reordered.utf8))
        #expect(more.map(\.title) == ["two\nlines", "third"])
        #expect(more[1].coordinate == Coordinate(latitude: 21, longitude: 11))
    }

    @Test func csvErrorsNameLineAndColumn() {
        func failure(_ text: String) -> AnnotationFileError? {
            do { _ = try AnnotationReader.readCSV(Array(text.utf8), file: "p.csv"); return nil } catch { return error }
        }
        #expect(
            failure("latitude,longitude\n1,2\n3\n")?.description
                == "p.csv:3: expected 2 fields like the header, found 1")
        #expect(
            failure("latitude,longitude\n1,2\n3,abc\n")?.description == "p.csv:3:2: longitude 'abc' is not a number")
        #expect(
            failure("latitude,longitude\n95,2\n")?.description
                == "p.csv:2:1: latitude 95.0 is out of range (must be within -90…90)")
        #expect(failure("latitude,longitude\nnan,2\n")?.description == "p.csv:2:1: latitude nan is not a finite number")
        #expect(failure("lat,lon\n1,2\n")?.message.contains("header must name 'latitude' and 'longitude'") == true)
        #expect(failure("")?.line == 1)
        #expect(failure("latitude,longitude,title\n1,2,\"open\n")?.message == "quoted field is not closed")
        #expect(failure("title,latitude,longitude\n\"a\nb\",1,2\nx,1\n")?.line == 4)
    }

    /// RFC 7946 §3.2: a feature may have a null geometry; such features are skipped and counted.
    @Test func unlocatedFeaturesAreSkipped() throws {
        let text =
            #"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":null,"properties":{}},{"type":"#
                + #""Feature","geometry":{"type":"Point","coordinates":[1,2]},"properties":{}}]}"#
        var unlocated = 0
        let annotations = try AnnotationReader.readGeoJSON(Array(text.utf8), unlocated: &unlocated)
        #expect(annotations.count == 1 && unlocated == 1)
    }
}
