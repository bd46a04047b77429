import Foundation
import Testing
import Waymark

private let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

@Suite struct ReadmeExampleTests {
    /// The README's three-line app example, compiled and run on the sample town; the README shows
    /// the lines between the markers as they are written here.
    @Test func threeLineExample() throws {
        let url = packageRoot.appendingPathComponent("Data/sample-town.osm")
        let a = Coordinate(latitude: 52.309427, longitude: -2.598781), b = Coordinate(latitude: 52.311680, longitude: -2.572561)
        // README begin
        let map = try RoadMap(contentsOf: url)                 // .wmg (or .osm/.osm.gz/.osm.pbf: built in memory)
        let route = try map.route(from: a, to: b, via: [])     // thread-safe; many at once
        let json = route.osrmJSON()
        // README end
        #expect(json["code"] == "Ok")
        #expect((json["routes"]?.arrayValue?.first?["legs"]?.arrayValue?.first?["steps"]?.arrayValue?.count ?? 0) > 2)
        #expect(route.distance > 1000 && route.legs.count == 1)

        let source = try String(contentsOfFile: #filePath, encoding: .utf8)
        let readme = try String(contentsOf: packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let example = source.components(separatedBy: "// README begin\n")[1].components(separatedBy: "        // README end")[0]
        let lines = example.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(lines.count == 3)
        for line in lines { #expect(readme.contains(line), "README lacks: \(line)") }
    }

    /// What the loader says about files it cannot use: one line naming the file.
    @Test func loadErrors() throws {
        for name in ["no-such-map.wmg", "no-such-map.osm", "country.osm.pbf"] {
            let error = #expect(throws: RoadMapError.self) { try RoadMap(contentsOf: URL(fileURLWithPath: "/tmp/\(name)")) }
            let text = error?.description ?? ""
            #expect(text.contains(name) && !text.contains("\n"), "\(text)")
        }
    }
}
