import Foundation
import Testing

/// What `waymark` prints for the sample town, byte for byte, against files in `Golden/`: a change
/// that alters any of it shows up here and in the diff of those files. When a change is meant to
/// alter output, rewrite them with `WAYMARK_UPDATE_GOLDEN=1 swift test --filter GoldenTests` and
/// read the diff.
@Suite struct GoldenTests {
    static let town = Run.data("sample-town.osm"), places = Run.data("places.geojson")
    static let trip = ["--from", "52.309427,-2.598781", "--to", "52.311680,-2.572561"]
    static let cases: [(name: String, arguments: [String])] = [
        ("route.txt", ["route", town] + trip + ["--driving-side", "left"]),
        ("route-via.json", ["route", town] + trip + ["--via", "52.3127,-2.5783", "--format", "json"]),
        ("route.geojson", ["route", town] + trip + ["--format", "geojson"]),
        ("route-to-poi.txt",
         ["route", town, "--from", "52.3025,-2.6040", "--to-poi", "avel-leisure-centre", "--pois", places]),
        ("batch.ndjson",
         ["route", town, "--batch", Run.packageRoot.appendingPathComponent("Tests/CLITests/Golden/pairs.csv").path]),
        ("render.svg", ["render", town] + trip + ["--annotations", places, "--select", "the-swan"]),
    ]

    @Test(arguments: cases.map(\.name))
    func output(_ name: String) throws {
        let arguments = try #require(Self.cases.first { $0.name == name }).arguments
        let result = try Run.product("waymark", arguments)
        // The batch's pairs include two lines that fail on purpose (exit 1, records in the output).
        #expect(result.status == (name == "batch.ndjson" ? 1 : 0), "\(result.stderr)")
        try Self.compare(result.stdout, name)
    }

    /// A graph file's build report (less the build time) and its edges, through `inspect`.
    @Test func inspect() throws {
        let map = try Run.temporaryDirectory() + "/town.wmg"
        #expect(try Run.waymark("build", Self.town, "-o", map, "--hierarchy", "--quiet").status == 0)
        let report = try Run.waymark("inspect", map, "--edges", map + ".csv")
        #expect(report.status == 0, "\(report.stderr)")
        let stable = report.stdout.split(separator: "\n",
                                         omittingEmptySubsequences: false).filter { !$0.hasPrefix("build_seconds") }
        try Self.compare(stable.joined(separator: "\n"), "inspect.txt")
        try Self.compare(
            String(decoding: try Data(contentsOf: URL(fileURLWithPath: map + ".csv")), as: UTF8.self), "edges.csv")
    }

    static let porto = Run.packageRoot.deletingLastPathComponent().appendingPathComponent(
        "shared/data/osm/porto.osm.gz"
    ).path
    /// Three real trips (from the shared Porto pairs), read and judged as a driver would: across
    /// town by roundabouts and motorways to Santo Tirso, north on the EN 14, and from the east
    /// of the city over the Freixo bridge.
    static let portoTrips: [(name: String, from: String, to: String)] = [
        ("porto-trip-1.txt", "41.1148177,-8.609972", "41.3873583,-8.4037659"),
        ("porto-trip-2.txt", "41.1943799,-8.6038833", "41.2785788,-8.5741982"),
        ("porto-trip-3.txt", "41.1438885,-8.5757373", "41.3262265,-8.6641153"),
    ]

    /// Directions on real trips, word for word (heavy: builds Porto; skipped without the extract).
    @Test(.enabled(if: FileManager.default.fileExists(atPath: porto),
                   "the shared Porto extract (../shared/data/osm/porto.osm.gz) is absent"))
    func portoDirections() throws {
        let map = try Run.temporaryDirectory() + "/porto.wmg"
        #expect(try Run.waymark("build", Self.porto, "-o", map, "--quiet").status == 0)
        for trip in Self.portoTrips {
            let result = try Run.waymark("route", map, "--from", trip.from, "--to", trip.to)
            #expect(result.status == 0, "\(result.stderr)")
            try Self.compare(result.stdout, trip.name)
        }
    }

    static func compare(_ actual: String, _ name: String) throws {
        let path = Run.packageRoot.appendingPathComponent("Tests/CLITests/Golden/\(name)").path
        if ProcessInfo.processInfo.environment["WAYMARK_UPDATE_GOLDEN"] == "1" {
            try Data(actual.utf8).write(to: URL(fileURLWithPath: path))
            return
        }
        let expected = try String(contentsOfFile: path, encoding: .utf8)
        guard actual != expected else { return }
        let a = actual.split(separator: "\n", omittingEmptySubsequences: false), e = expected.split(separator: "\n",
            omittingEmptySubsequences: false)
        let line = zip(a, e).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(a.count, e.count)
        let got = line < a.count ? String(a[line].prefix(200)) : "(end)"
        let wanted = line < e.count ? String(e[line].prefix(200)) : "(end)"
        Issue.record("\(name) differs from Golden/\(name) at line \(line + 1): got \(got), expected \(wanted)")
    }
}
