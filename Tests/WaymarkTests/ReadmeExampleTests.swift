import Foundation
import Testing
import Waymark

private let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

@Suite struct ReadmeExampleTests {
    /// The README's three-line app example, compiled and run on the sample town; the README shows
    /// the lines between the markers as they are written here.
    @Test func threeLineExample() throws {
        let url = packageRoot.appendingPathComponent("Data/sample-town.osm")
        let a = Coordinate(latitude: 52.309427, longitude: -2.598781),
            b = Coordinate(latitude: 52.311680, longitude: -2.572561)
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
        let example = source.components(separatedBy: "// README begin\n")[1].components(
            separatedBy: "        // README end")[0]
        let lines = example.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(lines.count == 3)
        for line in lines { #expect(readme.contains(line), "README lacks: \(line)") }
    }

    /// The README's module table names every module `Package.swift` builds (and no other), and
    /// every page the README links to exists.
    @Test func moduleMapAndLinks() throws {
        let manifest = try String(contentsOf: packageRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
        let readme = try String(contentsOf: packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        // Each engine target and its dependencies, as Package.swift declares them.
        var declared: [String: Set<String>] = [:]
        for piece in manifest.components(separatedBy: ".target(name: \"").dropFirst() {
            let name = String(piece.prefix { $0 != "\"" })
            let declaration = piece.prefix { $0 != ")" }
            let list =
                declaration.components(separatedBy: "dependencies: [").dropFirst().first?.prefix { $0 != "]" } ?? ""
            let names = list.split(separator: "\"", omittingEmptySubsequences: false).enumerated()
                .filter { $0.offset % 2 == 1 }.map { String($0.element) }
            declared[name] = Set(names).subtracting(["WaymarkGeo", "WaymarkSupport"])
        }
        // The README's table: module, what it uses besides Geo and Support, what it holds.
        var listed: [String: Set<String>] = [:]
        for row in readme.split(separator: "\n") where row.hasPrefix("| `Waymark") {
            let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            let uses = cells[1].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            listed[cells[0].trimmingCharacters(in: ["`"])] = Set(uses.map { $0.trimmingCharacters(in: ["`"]) }
                .filter { $0 != "–" })
        }
        #expect(declared.count > 10 && declared == listed, "Package.swift \(declared) vs README \(listed)")
        for link in readme.components(separatedBy: "](").dropFirst().map({ $0.prefix { $0 != ")" } })
        where !link.contains("://") {
            #expect(
                FileManager.default.fileExists(atPath: packageRoot.appendingPathComponent(String(link)).path), "\(link)"
            )
        }
    }

    /// What the loader says about files it cannot use: one line naming the file.
    @Test func loadErrors() throws {
        for name in ["no-such-map.wmg", "no-such-map.osm", "country.osm.pbf"] {
            let error = #expect(throws: RoadMapError.self) {
                try RoadMap(contentsOf: URL(fileURLWithPath: "/tmp/\(name)"))
            }
            let text = error?.description ?? ""
            #expect(text.contains(name) && !text.contains("\n"), "\(text)")
        }
    }
}

@Suite struct OSRMClassesTests {
    /// OSRM's `classes` key on an intersection whose road out has classes (and none elsewhere).
    @Test func intersectionsListTheirClasses() throws {
        // a - b - c eastwards at 52° N, about 70 m apart; b - c a toll motorway; a side road b - d.
        let nodes = [(1, 52.0, 13.0), (2, 52.0, 13.001), (3, 52.0, 13.002), (4, 52.0006, 13.001)]
        var xml = "<?xml version=\"1.0\"?><osm version=\"0.6\">"
        for (id, lat, lon) in nodes { xml += "<node id=\"\(id)\" lat=\"\(lat)\" lon=\"\(lon)\"/>" }
        xml +=
            "<way id=\"10\"><nd ref=\"1\"/><nd ref=\"2\"/><tag k=\"highway\" v=\"primary\"/><tag k=\"name\" "
                + "v=\"West\"/></way>"
        xml +=
            "<way id=\"11\"><nd ref=\"2\"/><nd ref=\"3\"/><tag k=\"highway\" v=\"motorway\"/><tag k=\"oneway\" "
                + "v=\"no\"/><tag k=\"toll\" v=\"yes\"/><tag k=\"tunnel\" v=\"yes\"/></way>"
        xml += "<way id=\"12\"><nd ref=\"2\"/><nd ref=\"4\"/><tag k=\"highway\" v=\"tertiary\"/></way></osm>"
        let url = URL(fileURLWithPath: NSTemporaryDirectory() + "classes-\(UUID().uuidString).osm")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data(xml.utf8).write(to: url)
        let map = try RoadMap(contentsOf: url)
        let json = try map.route(from: Coordinate(latitude: 52.0, longitude: 13.0002),
                                 to: Coordinate(latitude: 52.0, longitude: 13.0018), via: []).osrmJSON()
        let steps = json["routes"]?.arrayValue?.first?["legs"]?.arrayValue?.first?["steps"]?.arrayValue ?? []
        let listed = steps.flatMap { $0["intersections"]?.arrayValue
            ?? [] }.map { $0["classes"]?.arrayValue?.compactMap(\.stringValue) }
        #expect(listed == [nil, ["toll", "motorway", "tunnel"], nil], "\(listed)")
    }
}
