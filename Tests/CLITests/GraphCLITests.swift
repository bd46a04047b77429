import Foundation
import Testing
import WaymarkGeoJSON

/// End-to-end: `waymark build` and `waymark inspect` on the sample town.
@Suite struct GraphCLITests {
    /// `--profile foot`: a walking map, its file saying so, its steps walked; car options refused.
    @Test func buildsAWalkingMap() throws {
        let dir = try Run.temporaryDirectory()
        let map = dir + "/walk.wmg"
        let build = try Run.waymark("build", Run.data("sample-town.osm"), "-o", map, "--profile", "foot", "--quiet")
        #expect(build.status == 0, "\(build.stderr)")
        // (Not from the market square: a pedestrian area joined to no street, which a walker's
        // map keeps as a component of its own.)
        let route = try Run.waymark("route", map, "--from", "52.3060,-2.5900", "--to", "52.311680,-2.572561",
                                    "--format", "json")
        #expect(route.status == 0, "\(route.stderr)")
        let answer = try JSONValue(parsing: Array(route.stdout.utf8))
        let modes = answer["routes"]?.arrayValue?.first?["legs"]?.arrayValue?.first?["steps"]?.arrayValue?
            .compactMap { $0["mode"]?.stringValue } ?? []
        #expect(!modes.isEmpty && modes.allSatisfy { $0 == "walking" }, "\(modes)")
        let refused = try Run.waymark("build", Run.data("sample-town.osm"), "-o", map, "--profile", "foot",
                                      "--vehicle-height", "3")
        #expect(refused.status == 64 && refused.stderr.contains("--vehicle-height is for --profile car"))
        let unknown = try Run.waymark("build", Run.data("sample-town.osm"), "-o", map, "--profile", "horse")
        #expect(unknown.status == 64)
    }

    @Test func buildsAndInspectsTheSampleTown() throws {
        let dir = try Run.temporaryDirectory()
        let map = dir + "/town.wmg"
        let build = try Run.waymark("build", Run.data("sample-town.osm"), "-o", map)
        #expect(build.status == 0, "\(build.stderr)")
        #expect(build.stdout.contains("routable_ways                   56"))
        #expect(build.stdout.contains("graph_nodes                     118"))
        // Not a terminal: progress, if any, is plain lines; with --quiet nothing at all.
        let quiet = try Run.waymark("build", Run.data("sample-town.osm"), "-o", map, "--quiet")
        #expect(quiet.status == 0 && quiet.stdout.isEmpty && quiet.stderr.isEmpty)

        let csv = dir + "/edges.csv", geojson = dir + "/edges.geojson"
        let inspect = try Run.waymark("inspect", map, "--edges", csv, "--geojson", geojson)
        #expect(inspect.status == 0, "\(inspect.stderr)")
        // The same report as the build printed (it is stored in the graph file); the build's own
        // time, memory and file size are not.
        #expect(
            build.stdout.contains("\npeak_memory_mb ") && build.stdout.contains("\nfile_bytes ")
                && build.stdout.contains("\nfile_bytes_per_edge "))
        func withoutTiming(_ text: String) -> [Substring] {
            text.split(separator: "\n").filter { !$0.hasPrefix("build_seconds") && !$0.hasPrefix("peak_memory_mb")
                && !$0.hasPrefix("file_bytes") }
        }
        // (The build also says what the basemap kept, which inspect does not repeat.)
        let built = withoutTiming(build.stdout).filter { !$0.hasPrefix("basemap:") }
        #expect(
            withoutTiming(inspect.stdout) == built + [
                "contraction hierarchy: none (add one with 'waymark build --hierarchy')"
            ])
        #expect(built.count == 19)
        // (The sample town lies in England: left-hand traffic, by place.) A car's map.
        #expect(build.stdout.contains("driving_side                    left"))
        #expect(build.stdout.contains("profile                         car"))
        let lines = try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\n")
        #expect(lines.first == "from,to,from_lat,from_lon,to_lat,to_lon,length_m,duration_s,name,highway")
        #expect(lines.count == 318) // header + 317 directed edges
        #expect(lines.contains { $0.hasSuffix(",Avel Ferry,ferry") })
        let collection = try GeoJSONReader.readFeatureCollection(
            Array(try Data(contentsOf: URL(fileURLWithPath: geojson))))
        #expect(collection.features.count == 317)
        try Validator.check([geojson])
    }

    /// `build` keeps water, buildings and the like for `render` (unless `--no-basemap`); a graph
    /// file without them draws roads only, and says so; an OSM file renders with its basemap read
    /// on the way.
    @Test func basemapBuiltStoredAndDrawn() throws {
        let dir = try Run.temporaryDirectory()
        let with = dir + "/with.wmg", without = dir + "/without.wmg"
        let build = try Run.waymark("build", Run.data("sample-town.osm"), "-o", with)
        #expect(build.status == 0, "\(build.stderr)")
        #expect(build.stdout.contains("basemap: 303 features, 0 places, 0 rings dropped (not closed)"))
        #expect(try Run.waymark("build", Run.data("sample-town.osm"), "-o", without, "--quiet", "--no-basemap")
            .status == 0)
        let both = try Run.waymark("build", Run.data("sample-town.osm"), "-o", without, "--basemap", "--no-basemap")
        #expect(both.status == 64)
        let drawn = try Run.waymark("render", with, "--size", "3600x2700")
        #expect(
            drawn.status == 0 && drawn.stdout.contains("class=\"basemap river\"")
                && drawn.stdout.contains("class=\"basemap building\"") && drawn.stderr.isEmpty)
        let plain = try Run.waymark("render", without, "--size", "3600x2700")
        #expect(plain.status == 0 && !plain.stdout.contains("class=\"basemap"))
        #expect(plain.stderr.contains("has no basemap (built with --no-basemap"), "\(plain.stderr)")
        let fromOSM = try Run.waymark("render", Run.data("sample-town.osm"))
        #expect(fromOSM.status == 0 && fromOSM.stdout.contains("class=\"basemap river\""))
        // Routes on the file with a basemap are the same as without.
        let trip = ["--from", "52.309427,-2.598781", "--to", "52.311680,-2.572561"]
        #expect(try Run.product("waymark", ["route", with] + trip).stdout == (try Run.product("waymark",
            ["route", without] + trip).stdout))
    }

    @Test func badInputsExitWithAClearMessage() throws {
        let dir = try Run.temporaryDirectory()
        let broken = dir + "/broken.osm"
        try "<osm>\n<node id=\"1\" lat=\"1\" lon=\"1\">\n</osm>\n".write(toFile: broken,
                                                                         atomically: true, encoding: .utf8)
        let malformed = try Run.waymark("build", broken, "-o", dir + "/x.wmg")
        #expect(malformed.status == 1)
        #expect(malformed.stderr.contains("broken.osm:3: malformed XML (xmlParseDocument)"), "\(malformed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/x.wmg"), "nothing written on failure")

        let missing = try Run.waymark("build", dir + "/none.osm.gz", "-o", dir + "/x.wmg")
        #expect(missing.status == 1 && missing.stderr.contains("none.osm.gz: cannot open: No such file or directory"))
        let noOutput = try Run.waymark("build", Run.data("sample-town.osm"))
        #expect(noOutput.status == 64 && noOutput.stderr.contains("-o FILE is required"))
        // Where the output cannot go is said at once, in one line, before any work (no progress).
        for (output, reason) in [(".", "is a directory"), (dir + "/none/x.wmg", "No such file or directory")] {
            let refused = try Run.waymark("build", Run.data("sample-town.osm"), "--output=\(output)", "--hierarchy")
            #expect(refused.status == 1 && refused.stdout.isEmpty, "\(output)")
            #expect(refused.stderr == "waymark build: error: cannot write \(output): open failed: \(reason)\n",
                    "\(refused.stderr)")
        }
        let edges = try Run.waymark("inspect", dir + "/none.wmg", "--edges", dir)
        #expect(edges.status == 1 && edges.stderr.contains("cannot write \(dir): open failed: is a directory"),
                "\(edges.stderr)")

        // A graph file cut short, and one with a flipped byte.
        let map = dir + "/town.wmg"
        #expect(try Run.waymark("build", Run.data("sample-town.osm"), "-o", map, "--quiet").status == 0)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: map))
        try bytes.prefix(bytes.count - 100).write(to: URL(fileURLWithPath: dir + "/short.wmg"))
        let short = try Run.waymark("inspect", dir + "/short.wmg")
        #expect(short.status == 1 && short.stderr.contains("truncated graph file"), "\(short.stderr)")
        var flipped = bytes
        flipped[bytes.count / 2] ^= 0xFF
        try flipped.write(to: URL(fileURLWithPath: dir + "/flipped.wmg"))
        let corrupt = try Run.waymark("inspect", dir + "/flipped.wmg")
        #expect(
            corrupt.status == 1 && corrupt.stderr.contains("corrupt graph file: checksum mismatch"), "\(corrupt.stderr)"
        )
        let notGraph = try Run.waymark("inspect", Run.data("places.geojson"))
        #expect(notGraph.status == 1 && notGraph.stderr.contains("not a Waymark graph file"))
    }
}

/// `waymark build --vehicle-height`: the vehicle is part of the profile.
@Suite struct VehicleCLITests {
    @Test func tallVehicleAvoidsLowBridge() throws {
        let dir = try Run.temporaryDirectory()
        let osm = """
        <?xml version="1.0"?>
        <osm version="0.6">
        <node id="1" lat="52.0" lon="13.0"/><node id="2" lat="52.0" lon="13.001"/><node id="3" lat="52.0" lon="13.002"/>
        <way id="1"><nd ref="1"/><nd ref="2"/><tag k="highway" v="residential"/></way>
        <way id="2"><nd ref="2"/><nd ref="3"/><tag k="highway" v="residential"/><tag k="maxheight" v="3"/></way>
        </osm>
        """
        try Data(osm.utf8).write(to: URL(fileURLWithPath: dir + "/bridge.osm"))
        let car = try Run.waymark("build", dir + "/bridge.osm", "-o", dir + "/car.wmg")
        #expect(car.status == 0 && car.stdout.contains("routable_ways                   2"),
                "\(car.stdout)\(car.stderr)")
        let van = try Run.waymark("build", dir + "/bridge.osm", "-o", dir + "/van.wmg", "--vehicle-height", "3.5")
        #expect(van.status == 0 && van.stdout.contains("routable_ways                   1"),
                "\(van.stdout)\(van.stderr)")
        let bad = try Run.waymark("build", dir + "/bridge.osm", "-o", dir + "/x.wmg", "--vehicle-height", "tall")
        #expect(bad.status == 64 && bad.stderr.contains("--vehicle-height must be a number"))
    }
}

/// `build` on a map with no road a car may use writes nothing and says why.
@Suite struct EmptyGraphCLITests {
    @Test func nothingRoutableIsAnError() throws {
        let dir = try Run.temporaryDirectory()
        let text = #"<osm version="0.6"><node id="1" lat="52" lon="13"/><node id="2" lat="52.001" lon="13"/>"#
            + #"<way id="1"><nd ref="1"/><nd ref="2"/><tag k="highway" v="footway"/></way></osm>"#
        try Data(text.utf8).write(to: URL(fileURLWithPath: dir + "/paths.osm"))
        let result = try Run.waymark("build", dir + "/paths.osm", "-o", dir + "/paths.wmg")
        #expect(
            result.status == 1
                && result.stderr.contains("holds no road a car may use (2 nodes, 1 way read); no graph file written"),
            "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/paths.wmg"))
    }
}
