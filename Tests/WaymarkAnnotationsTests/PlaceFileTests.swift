import Foundation
import Testing
import WaymarkGeo
import WaymarkGeoJSON
@testable import WaymarkAnnotations

@Suite final class PlaceFileTests {
    let directory: String = {
        let path = NSTemporaryDirectory() + "waymark-places-\(UUID().uuidString)"
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    func file(_ text: String) throws -> String {
        let path = directory + "/places-\(UUID().uuidString).geojson"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    let sample = """
    {"type":"FeatureCollection","features":[
    {"type":"Feature","id":7,"geometry":{"type":"Point","coordinates":[2.294481,48.85837]},\
    "properties":{"title":"Tour Eiffel","kind":"tower"}},
    {"type":"Feature","id":"louvre","geometry":{"type":"Point","coordinates":[2.3376,48.8606]},\
    "properties":{"subtitle":"Museum","title":"Louvre"}}
    ]}
    """

    @Test func editsByStringOrNumberID() throws {
        let path = try file(sample)
        var places = try PlaceFile(path: path)
        #expect(places.index(ofID: "7") == 0 && places.index(ofID: "louvre") == 1 && places.index(ofID: "8") == nil)
        try places.edit(id: "7", subtitle: "Tower")
        try places.edit(id: "louvre", title: "Musée du Louvre",
                        coordinate: Coordinate(latitude: 48.8611, longitude: 2.3364))
        try places.save()
        let reread = try PlaceFile(path: path)
        #expect(reread.annotations.map(\.title) == ["Tour Eiffel", "Musée du Louvre"])
        #expect(reread.annotations[0].subtitle == "Tower" && reread.annotations[0].properties["kind"] == "tower")
        #expect(reread.annotations[0].id == .number(7))
        #expect(reread.annotations[1].coordinate == Coordinate(latitude: 48.8611, longitude: 2.3364))
        // The Louvre's properties keep their order (subtitle before title).
        let root = try JSONValue(parsing: Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        #expect(root["features"]?.arrayValue?[1]["properties"]?.objectValue?.keys == ["subtitle", "title"])
    }

    @Test func unchangedSaveIsByteStableAfterTheFirst() throws {
        let path = try file(sample)
        try PlaceFile(path: path).save()
        let once = try Data(contentsOf: URL(fileURLWithPath: path))
        try PlaceFile(path: path).save()
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == once)
    }

    /// Savers racing on one file, each from the same read: exactly one writes, the others are told
    /// it changed; the lock file is gone afterwards (its holder removes it before letting go, and
    /// a saver that locked a removed one locks the new one instead).
    @Test func racingSaversOneWinsNoLockFileLeft() throws {
        let path = try file(sample)
        for round in 0..<20 {
            let editors = try (0..<8).map { i in
                var places = try PlaceFile(path: path)
                try places.edit(id: "7", title: "Eiffel \(round).\(i)")
                return places
            }
            let wins = Wins()
            DispatchQueue.concurrentPerform(iterations: editors.count) { i in
                if (try? editors[i].save()) != nil { wins.add() }
            }
            #expect(wins.count == 1, "round \(round): \(wins.count) saves succeeded")
            #expect(!FileManager.default.fileExists(atPath: PlaceFile.lockPath(for: path)))
        }
    }

    final class Wins: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0
        func add() { lock.withLock { value += 1 } }
        var count: Int { lock.withLock { value } }
    }

    /// A coordinate far from the other places that, swapped, is among them (Paris here).
    @Test func swappedCoordinatesAreNoticed() throws {
        let places = try PlaceFile(path: try file(sample))
        let swapped = Coordinate(latitude: 2.35, longitude: 48.85)
        #expect(places.swappedLooksMeant(swapped) == Coordinate(latitude: 48.85, longitude: 2.35))
        #expect(places.swappedLooksMeant(Coordinate(latitude: 48.85, longitude: 2.35)) == nil)
        // Far, but not the other way round either: a place of its own, not a mix-up.
        #expect(places.swappedLooksMeant(Coordinate(latitude: -33.9, longitude: 151.2)) == nil)
        // Moving a place: the others are compared with.
        #expect(places.swappedLooksMeant(swapped, except: "7") != nil)
        // A file with no other place: nothing to compare with.
        let empty = try PlaceFile(path: try file(#"{"type":"FeatureCollection","features":[]}"#))
        #expect(empty.swappedLooksMeant(swapped) == nil)
    }

    @Test func refusesWhenChangedOnDisk() throws {
        let path = try file(sample)
        var places = try PlaceFile(path: path)
        try places.edit(id: "7", title: "Eiffel")
        try (sample + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: PlaceFileError.self) { try places.save() }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == sample + "\n")
    }

    @Test func addRemoveAndErrors() throws {
        let path = try file(sample)
        var places = try PlaceFile(path: path)
        #expect(try places.add(Annotation(coordinate: Coordinate(latitude: 48.853, longitude: 2.3499),
                                          title: "Notre-Dame de Paris")) == "notre-dame-de-paris")
        #expect(try places.add(Annotation(coordinate: Coordinate(latitude: 48.853, longitude: 2.3499),
                                          title: "Notre-Dame de Paris")) == "notre-dame-de-paris-2")
        #expect(throws: PlaceFileError.self) {
            try places.add(Annotation(coordinate: Coordinate(latitude: 1, longitude: 1), id: .string("louvre")))
        }
        #expect(throws: PlaceFileError.self) { try places.remove(id: "nope") }
        #expect(throws: PlaceFileError.self) { try places.edit(id: "nope", title: "x") }
        try places.remove(id: "7")
        try places.save()
        #expect(try PlaceFile(path: path).annotations.compactMap(\.id?.description) == ["louvre", "notre-dame-de-paris",
            "notre-dame-de-paris-2"])
        #expect(throws: PlaceFileError.self) { try PlaceFile(path: path + ".missing") }
        var created = try PlaceFile(path: path + ".new", create: true)
        try created.add(Annotation(coordinate: Coordinate(latitude: 0, longitude: 0), title: "Null Island"))
        try created.save()
        #expect(try PlaceFile(path: path + ".new").annotations.first?.title == "Null Island")
        let broken = try file("{\"type\":\"FeatureCollection\",\"features\":[{\"type\":\"Feature\"")
        #expect(throws: PlaceFileError.self) { try PlaceFile(path: broken) }
        let csv = directory + "/places-\(UUID().uuidString).csv"
        try "title,latitude,longitude\nA,1,2\n".write(toFile: csv, atomically: true, encoding: .utf8)
        #expect(
            throws: PlaceFileError(
                "\(csv): points of interest are edited in GeoJSON; convert with 'waymark annotations \(csv) -o "
                    + "places.geojson'"
            )
        ) {
            try PlaceFile(path: csv)
        }
    }
}
