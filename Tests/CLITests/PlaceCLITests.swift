import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
import WaymarkGeoJSON

/// End to end through the built binary: `waymark callout`, `render`, `poi` and `route --to-poi`.
@Suite struct CalloutCLITests {
    @Test func calloutTextIsExact() throws {
        let result = try Run.waymark("callout", Run.data("places.geojson"), "--id", "avelbury-town-hall")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == """
        ╭──────────────────────────────────────────────╮
        │     🚗      Avelbury Town Hall         (i)   │
        │ Directions  Town hall · High Street  Details │
        │             52.309427, -2.598781             │
        ╰─────────────────────╲  ╱─────────────────────╯
                               ╲╱

        """)
        let ascii = try Run.waymark("callout", Run.data("places.geojson"), "--index", "2", "--ascii")
        #expect(ascii.stdout == """
        +-------------------------------------------------------+
        |    (>)      The Swan                            (i)   |
        | Directions  Pub · High Street, by the bridge  Details |
        |             52.309960, -2.592367                      |
        +-------------------------\\  /--------------------------+
                                   \\/

        """)
    }

    @Test func calloutErrors() throws {
        let unknown = try Run.waymark("callout", Run.data("places.geojson"), "--id", "nowhere")
        #expect(unknown.status == 1 && unknown.stderr.contains("no annotation with id \"nowhere\""))
        let neither = try Run.waymark("callout", Run.data("places.geojson"))
        #expect(neither.status == 64 && neither.stderr.contains("--id ID or --index N"))
        let outOfRange = try Run.waymark("callout", Run.data("places.geojson"), "--index", "99")
        #expect(outOfRange.status == 1 && outOfRange.stderr.contains("no annotation at index 99"))
        let badWidth = try Run.waymark("callout", Run.data("places.geojson"), "--index", "0", "--width", "wide")
        #expect(badWidth.status == 64)
    }

    /// On a terminal (a pseudo-terminal from util-linux `script`) the title is bold; NO_COLOR turns
    /// styling off.
    @Test(.enabled(if: hasScript, "util-linux script (a pseudo-terminal) is not installed"))
    func stylingOnlyOnATerminal() throws {
        let binary = Run.productsDirectory.appendingPathComponent("waymark").path
        let command = "\(binary) callout \(Run.data("places.geojson")) --id the-swan"
        let tty = try Run.process("/usr/bin/env", ["-u", "NO_COLOR", "/usr/bin/script", "-qc", command, "/dev/null"])
        #expect(tty.stdout.contains("\u{1B}[1mThe Swan"), "\(tty.stdout)")
        let noColor = try Run.process("/usr/bin/env", ["NO_COLOR=1", "/usr/bin/script", "-qc", command, "/dev/null"])
        #expect(noColor.stdout.contains("The Swan") && !noColor.stdout.contains("\u{1B}["))
    }
}

@Suite struct RenderCLITests {
    /// Elements of an SVG document, parsed by an XML parser (so it is well-formed XML).
    final class Elements: NSObject, XMLParserDelegate, @unchecked Sendable {
        var all: [(name: String, attributes: [String: String])] = []
        var texts: [String] = []
        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            all.append((name, attributes))
        }
        func parser(_ parser: XMLParser, foundCharacters string: String) { texts.append(string) }
        func with(id: String) -> [String: String]? { all.first { $0.attributes["id"] == id }?.attributes }
        func classed(_ c: String) -> [[String: String]] {
            all.filter { ($0.attributes["class"] ?? "").split(separator: " ").contains(Substring(c)) }.map(\.attributes)
        }
    }

    static func parse(_ path: String) throws -> Elements {
        let parser = try #require(XMLParser(contentsOf: URL(fileURLWithPath: path)))
        let elements = Elements()
        parser.delegate = elements
        #expect(parser.parse(), "not well-formed XML: \(String(describing: parser.parserError))")
        return elements
    }

    @Test func mapWithRouteClusteredPinsAndCallout() throws {
        let dir = try Run.temporaryDirectory()
        let result = try Run.waymark("render", Run.data("sample-town.osm"), "--from", "52.309427,-2.598781",
                                     "--to", "52.311680,-2.572561", "--annotations", Run.data("places.geojson"),
                                     "--select", "the-swan", "--size", "800x600", "-o", dir + "/town.svg")
        #expect(result.status == 0, "\(result.stderr)")
        let svg = try Self.parse(dir + "/town.svg")
        let root = try #require(svg.all.first)
        #expect(root.name == "svg" && root.attributes["width"] == "800" && root.attributes["height"] == "600")
        // The route: a line with many vertices, start and end markers, maneuver points.
        let line = try #require(svg.with(id: "route-line"))
        #expect((line["d"] ?? "").filter { $0 == "L" }.count > 10)
        #expect(svg.with(id: "route-start") != nil && svg.with(id: "route-end") != nil)
        #expect(!svg.classed("maneuver").isEmpty)
        // Roads by class, each class with its own stroke.
        let roads = svg.classed("road")
        #expect(Set(roads.compactMap { $0["class"] }).isSuperset(of: ["road motorway",
                                                                      "road primary", "road residential"]))
        // Every annotation is on the picture once: as a pin or inside a cluster's count.
        let pins = svg.classed("pin"), clusters = svg.classed("cluster")
        let clustered = clusters.compactMap { Int($0["data-count"] ?? "") }.reduce(0, +)
        #expect(!clusters.isEmpty, "the town's pins cluster at the fitted zoom")
        #expect(pins.count + clustered == 32)
        #expect(svg.classed("selected").first?["data-id"] == "the-swan")
        // The callout, the scale bar and the attribution.
        #expect(
            svg.with(id: "callout") != nil && svg.texts.contains("The Swan")
                && svg.texts.contains("52.309960, -2.592367"))
        #expect(svg.with(id: "scale-bar") != nil && svg.texts.contains { $0.hasSuffix(" m") || $0.hasSuffix(" km") })
        #expect(svg.texts.contains("© OpenStreetMap contributors"))
    }

    /// With chromium installed (not needed for CI): the SVG renders in a real browser to a PNG of
    /// the asked size.
    @Test(.enabled(if: ["/usr/bin/chromium",
                        "/usr/bin/chromium-browser"].contains(where: FileManager.default.isExecutableFile(atPath:)),
                   "chromium is not installed (apt-get install chromium)"))
    func rendersInChromium() throws {
        let dir = try Run.temporaryDirectory()
        let render = try Run.waymark("render", Run.data("sample-town.osm"), "--from", "52.309427,-2.598781",
                                     "--to", "52.311680,-2.572561",
                                     "--annotations", Run.data("places.geojson"), "--size", "640x480",
                                     "-o", dir + "/town.svg")
        #expect(render.status == 0)
        let shot = try Run.process("/bin/bash",
                                   [Run.packageRoot.appendingPathComponent("Tools/screenshot.sh").path,
                                    dir + "/town.svg", dir + "/town.png"])
        #expect(shot.status == 0, "\(shot.stderr)")
        let png = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/town.png")))
        #expect(png.count > 10_000 && Array(png[1..<4]) == Array("PNG".utf8))
        func be32(_ at: Int) -> Int { png[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        #expect(be32(16) == 640 && be32(20) == 480) // IHDR width and height
    }

    @Test func renderErrors() throws {
        let badSize = try Run.waymark("render", Run.data("sample-town.osm"), "--size", "huge")
        #expect(badSize.status == 64)
        let unknown = try Run.waymark("render", Run.data("sample-town.osm"), "--annotations",
                                      Run.data("places.geojson"), "--select", "nope")
        #expect(unknown.status == 1 && unknown.stderr.contains("no annotation with id \"nope\""))
        let halfRoute = try Run.waymark("render", Run.data("sample-town.osm"), "--from", "52.3094,-2.5987")
        #expect(halfRoute.status == 64)
        let sea = try Run.waymark("render", Run.data("sample-town.osm"), "--from", "52.3094,-2.5987", "--to", "10,10")
        #expect(
            sea.status == 1 && sea.stderr.contains("10.000000,10.000000 is outside the map's area"), "\(sea.stderr)")
    }

    /// The map alone (no route, no pins) frames the whole network.
    @Test func wholeMap() throws {
        let result = try Run.waymark("render", Run.data("sample-town.osm"))
        #expect(result.status == 0 && result.stdout.hasPrefix("<?xml"))
        #expect(result.stdout.contains("class=\"road motorway\"") && !result.stdout.contains("id=\"route-line\""))
    }
}

@Suite struct PlaceCLITests {
    /// A copy of the sample places with a foreign member and an extra property to keep.
    func workingCopy() throws -> String {
        let dir = try Run.temporaryDirectory()
        var text = try String(contentsOfFile: Run.data("places.geojson"), encoding: .utf8)
        text = text.replacingOccurrences(of: "{\"type\":\"FeatureCollection\",",
                                         with: "{\"type\":\"FeatureCollection\",\"name\":\"Avelbury\",")
        text = text.replacingOccurrences(of: "\"id\":\"the-swan\",",
                                         with: "\"id\":\"the-swan\",\"source\":\"survey 2026\",")
        try text.write(toFile: dir + "/places.geojson", atomically: true, encoding: .utf8)
        return dir + "/places.geojson"
    }

    func features(_ path: String) throws -> [JSONValue] {
        let root = try JSONValue(parsing: Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        return root["features"]?.arrayValue ?? []
    }

    @Test func listAndShow() throws {
        let list = try Run.waymark("poi", "list", Run.data("places.geojson"))
        let lines = list.stdout.split(separator: "\n")
        #expect(list.status == 0 && lines.count == 33)
        #expect(
            lines[0].hasPrefix("ID") && lines[3].hasPrefix("the-swan") && lines[3].hasSuffix("52.309960, -2.592367"))
        let show = try Run.waymark("poi", "show", Run.data("places.geojson"), "--id", "avelbury-town-hall")
        let callout = try Run.waymark("callout", Run.data("places.geojson"), "--id", "avelbury-town-hall")
        #expect(show.status == 0 && show.stdout == callout.stdout)
    }

    @Test func editKeepsEverythingElse() throws {
        let path = try workingCopy()
        let before = try features(path)
        let result = try Run.waymark("poi", "edit", path, "--id", "the-swan", "--title", "The Swan Inn",
                                     "--coordinate", "52.30997,-2.59240")
        #expect(result.status == 0, "\(result.stderr)")
        let after = try features(path)
        #expect(after.count == before.count)
        for (i, (a, b)) in zip(before, after).enumerated() where a["id"] != "the-swan" {
            #expect(a == b, "feature \(i) changed")
        }
        let swan = try #require(after.first { $0["id"] == "the-swan" })
        #expect(swan["properties"]?["title"] == "The Swan Inn")
        #expect(swan["properties"]?["subtitle"] == "Pub · High Street, by the bridge")
        #expect(swan["properties"]?["amenity"] == "pub")
        #expect(swan["source"] == "survey 2026")
        #expect(swan["geometry"]?["coordinates"] == [-2.5924, 52.30997])
        let root = try JSONValue(parsing: Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        #expect(root["name"] == "Avelbury")
        // Property order is kept: title, subtitle, amenity.
        #expect(swan["properties"]?.objectValue?.keys == ["title", "subtitle", "amenity"])
    }

    @Test func addAndRemove() throws {
        let path = try workingCopy()
        let added = try Run.waymark("poi", "add", path, "--title", "The Swan", "--coordinate", "52.3101,-2.5931")
        #expect(added.status == 0 && added.stdout == "the-swan-2\n", "\(added.stderr)")
        var now = try features(path)
        #expect(now.count == 33 && now.last?["id"] == "the-swan-2")
        let removed = try Run.waymark("poi", "remove", path, "--id", "avelbury-library")
        #expect(removed.status == 0)
        now = try features(path)
        #expect(now.count == 32 && !now.contains { $0["id"] == "avelbury-library" })
        #expect(now.map { $0["id"]?.stringValue ?? "" }.first == "avelbury-town-hall")
        let taken = try Run.waymark("poi", "add", path, "--id", "the-swan", "--title", "X",
                                    "--coordinate", "52.31,-2.59")
        #expect(taken.status == 1 && taken.stderr.contains("already taken"))
    }

    @Test func badEditsWriteNothing() throws {
        let path = try workingCopy()
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        let unknown = try Run.waymark("poi", "edit", path, "--id", "nope", "--title", "X")
        #expect(unknown.status == 1 && unknown.stderr.contains("no point of interest with id \"nope\""))
        let badCoordinate = try Run.waymark("poi", "edit", path, "--id", "the-swan", "--coordinate", "95,10")
        #expect(badCoordinate.status == 64 && badCoordinate.stderr.contains("latitude"))
        let notTTY = try Run.waymark("poi", "edit", path, "--id", "the-swan")
        #expect(notTTY.status == 64) // no fields and no terminal: nothing to ask
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == original)
    }

    @Test func interactiveEditorSaveAndCancel() throws {
        let path = try workingCopy()
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        // Cancel: nothing written.
        let cancel = try Run.waymark("poi", "edit", path, "--id", "the-swan", "--interactive",
                                     stdin: "The Cygnet\n\n\nc\n")
        #expect(cancel.status == 0 && cancel.stdout.contains("Cancelled: nothing written."))
        #expect(cancel.stdout.contains("Title [The Swan]: ") && cancel.stdout.contains("The Cygnet"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == original)
        // End of input cancels too.
        let eof = try Run.waymark("poi", "edit", path, "--id", "the-swan", "--interactive", stdin: "The Cygnet\n")
        #expect(eof.status == 0 && eof.stdout.contains("Cancelled"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == original)
        // Save: a bad coordinate is asked again; "-" clears the subtitle.
        let save = try Run.waymark("poi", "edit", path, "--id", "the-swan", "--interactive",
                                   stdin: "The Cygnet\n-\n91,0\n52.30999,-2.59236\nsave\n")
        #expect(save.status == 0 && save.stdout.contains("Saved"), "\(save.stdout)\(save.stderr)")
        #expect(save.stdout.contains("try again"))
        let swan = try #require(try features(path).first { $0["id"] == "the-swan" })
        #expect(swan["properties"]?["title"] == "The Cygnet" && swan["properties"]?["subtitle"] == nil)
        #expect(swan["geometry"]?["coordinates"] == [-2.59236, 52.30999])
    }

    /// On a terminal (a pseudo-terminal from util-linux `script`), `edit` without field options
    /// opens the editor by itself.
    @Test(.enabled(if: hasScript, "util-linux script (a pseudo-terminal) is not installed"))
    func editorOpensOnATerminal() throws {
        let path = try workingCopy()
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        let binary = Run.productsDirectory.appendingPathComponent("waymark").path
        let session = try Run.process("/usr/bin/script",
                                      ["-qc", "\(binary) poi edit \(path) --id the-swan", "/dev/null"],
                                      stdin: "The Cygnet\n\n\nc\n")
        #expect(
            session.stdout.contains("Title [The Swan]: ") && session.stdout.contains("Save or Cancel?"),
            "\(session.stdout)")
        #expect(session.stdout.contains("Cancelled: nothing written."))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == original)
    }

    /// Line editing on a terminal (issue 13, item 9): arrow keys, Home/End, Backspace and Delete
    /// edit the answer instead of landing in it as escape sequences; up and down are ignored; the
    /// terminal is back in its own mode afterwards. Keys are typed only once each prompt shows, as
    /// a person would (typed ahead, the terminal's own line discipline would see them first).
    @Test(.enabled(if: hasScript, "util-linux script (a pseudo-terminal) is not installed"))
    func editorEditsLinesOnATerminal() throws {
        let path = try workingCopy()
        let binary = Run.productsDirectory.appendingPathComponent("waymark").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qc",
                             "\(binary) poi edit \(path) --id the-swan; stty -a | grep -o -- '-\\?icanon'", "/dev/null"]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        try process.run()
        var seen = ""
        func waitFor(_ text: String) -> Bool {
            let deadline = Date().addingTimeInterval(20)
            while !seen.contains(text) && Date() < deadline {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                seen += String(decoding: chunk, as: UTF8.self)
            }
            return seen.contains(text)
        }
        let left = "\u{1B}[D", up = "\u{1B}[A", end = "\u{1B}[F", home = "\u{1B}[H", delete = "\u{1B}[3~"
        // "Cygnet", six lefts, "The ", End, a stray "s" erased, an up arrow (ignored): "The Cygnet".
        #expect(waitFor("Title ["))
        input.fileHandleForWriting.write(
            Data(("Cygnet" + String(repeating: left, count: 6) + "The " + end + "s\u{7F}" + up + "\r").utf8))
        // "XBy the river", Home, Delete: "By the river".
        #expect(waitFor("Subtitle ["))
        input.fileHandleForWriting.write(Data(("XBy the river" + home + delete + "\r").utf8))
        #expect(waitFor("Coordinate ["))
        input.fileHandleForWriting.write(Data("\r".utf8))
        #expect(waitFor("Save or Cancel?"))
        input.fileHandleForWriting.write(Data("s\r".utf8))
        #expect(waitFor("Saved"))
        _ = waitFor("icanon")
        process.waitUntilExit()
        let swan = try #require(try features(path).first { $0["id"] == "the-swan" })
        #expect(swan["properties"]?["title"] == "The Cygnet", "\(seen)")
        #expect(swan["properties"]?["subtitle"] == "By the river")
        // The terminal is in canonical mode again (stty prints "icanon", not "-icanon").
        #expect(seen.contains("icanon") && !seen.contains("-icanon"), "\(seen)")
    }

    /// A coordinate given as longitude,latitude is asked about, as `route` asks; `--force` keeps it.
    @Test func swappedCoordinateIsAskedAbout() throws {
        let path = try workingCopy()
        let before = try String(contentsOfFile: path, encoding: .utf8)
        let swapped = try Run.waymark("poi", "edit", path, "--id", "the-swan", "--coordinate", "-2.592367,52.30996")
        #expect(swapped.status == 1 && swapped.stderr.contains("did you mean 52.309960,-2.592367?"),
                "\(swapped.stderr)")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == before)
        let added = try Run.waymark("poi", "add", path, "--title", "Far", "--coordinate", "-2.59,52.30")
        #expect(added.status == 1 && added.stderr.split(separator: "\n").count == 1)
        let forced = try Run.waymark("poi", "add", path, "--title", "Far", "--coordinate", "-2.59,52.30", "--force")
        #expect(forced.status == 0, "\(forced.stderr)")
        let right = try Run.waymark("poi", "edit", path, "--id", "the-swan", "--coordinate", "52.30996,-2.592367")
        #expect(right.status == 0, "\(right.stderr)")
    }

    /// The file changes on disk while the editor is open: saving is refused, the other change stays.
    @Test func changedOnDiskIsAnError() throws {
        let path = try workingCopy()
        let process = Process()
        process.executableURL = Run.productsDirectory.appendingPathComponent("waymark")
        process.arguments = ["poi", "edit", path, "--id", "the-swan", "--interactive"]
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // Wait for the first prompt: by then the file has been read.
        var seen = Data()
        while !String(decoding: seen, as: UTF8.self).contains("Title [") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            seen += chunk
        }
        let elsewhere = try String(contentsOfFile: path, encoding: .utf8).replacingOccurrences(of: "Avelbury Library",
            with: "Avelbury Free Library")
        try elsewhere.write(toFile: path, atomically: true, encoding: .utf8)
        input.fileHandleForWriting.write(Data("The Cygnet\n\n\ns\n".utf8))
        try input.fileHandleForWriting.close()
        _ = output.fileHandleForReading.readDataToEndOfFile()
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 1 && stderr.contains("changed on disk"), "\(stderr)")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == elsewhere)
    }

    /// A crash between writing the new content and renaming it into place leaves the old file whole.
    @Test func crashMidWriteKeepsTheOldFile() throws {
        let path = try workingCopy()
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        let binary = Run.productsDirectory.appendingPathComponent("waymark").path
        let crashed = try Run.process("/usr/bin/env", ["WAYMARK_FAILPOINT=atomic-write-before-rename", binary,
                                                       "poi", "edit", path, "--id", "the-swan",
                                                       "--title", "Half Written"])
        #expect(crashed.status == 9) // killed (SIGKILL) before the rename
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == original)
        let directory = (path as NSString).deletingLastPathComponent
        func leftovers() throws -> [String] {
            try FileManager.default.contentsOfDirectory(atPath: directory).filter {
                $0.hasPrefix(".places.geojson.tmp-")
            }
        }
        #expect(try leftovers().count == 1) // the crashed writer's temporary file
        // The next edit works normally.
        let again = try Run.waymark("poi", "edit", path, "--id", "the-swan", "--title", "Whole")
        let now = try features(path)
        #expect(again.status == 0 && now.contains { $0["properties"]?["title"] == "Whole" })
        #expect(try leftovers().isEmpty, "the next write removes what the crashed one left")
    }
}

@Suite struct RouteToPOITests {
    @Test func arrivesAtThePlace() throws {
        let text = try Run.waymark("route", Run.data("sample-town.osm"), "--from", "52.309427,-2.598781",
                                   "--to-poi", "avel-leisure-centre", "--pois", Run.data("places.geojson"))
        #expect(text.status == 0, "\(text.stderr)")
        let lines = text.stdout.split(separator: "\n")
        #expect(
            lines.dropLast().last?.hasSuffix("You have arrived at Avel Leisure Centre, on the left") == true,
            "\(text.stdout)")
        let json = try Run.waymark("route", Run.data("sample-town.osm"), "--from", "52.309427,-2.598781",
                                   "--to-poi", "avel-leisure-centre", "--pois",
                                   Run.data("places.geojson"), "--format", "json")
        let root = try JSONValue(parsing: json.stdout)
        let steps = root["routes"]?.arrayValue?.first?["legs"]?.arrayValue?.first?["steps"]?.arrayValue ?? []
        #expect(steps.last?["maneuver"]?["type"] == "arrive")
        let geojson = try Run.waymark("route", Run.data("sample-town.osm"), "--from", "52.309427,-2.598781",
                                      "--to-poi", "avel-leisure-centre", "--pois",
                                      Run.data("places.geojson"), "--format", "geojson")
        #expect(geojson.stdout.contains("\"destination\":\"Avel Leisure Centre\""))
    }

    @Test func errors() throws {
        let unknown = try Run.waymark("route", Run.data("sample-town.osm"), "--from", "52.309427,-2.598781",
                                      "--to-poi", "nowhere", "--pois", Run.data("places.geojson"))
        #expect(unknown.status == 1 && unknown.stderr.contains("no point of interest with id \"nowhere\""))
        let both = try Run.waymark("route", Run.data("sample-town.osm"), "--from",
                                   "52.309427,-2.598781", "--to", "52.31,-2.59",
                                   "--to-poi", "the-swan", "--pois", Run.data("places.geojson"))
        #expect(both.status == 64)
        let noFile = try Run.waymark("route", Run.data("sample-town.osm"), "--from",
                                     "52.309427,-2.598781", "--to-poi", "the-swan")
        #expect(noFile.status == 64 && noFile.stderr.contains("--pois"))
    }
}

/// util-linux `script`, which runs a command on a pseudo-terminal.
private let hasScript = FileManager.default.isExecutableFile(atPath: "/usr/bin/script")

/// Two editors saving one places file at once (issue 13, item 7): before, both could exit 0 with
/// one change lost (55 of 322 trials). Now every editor that succeeds finds its change in the
/// final file; one that loses the race says the file changed and exits 1.
@Suite struct ConcurrentEditTests {
    @Test func noEditIsLost() throws {
        let binary = Run.productsDirectory.appendingPathComponent("waymark").path
        var lostUpdates = 0, conflicts = 0
        for trial in 0..<40 {
            let dir = try Run.temporaryDirectory()
            let path = dir + "/places.geojson"
            try FileManager.default.copyItem(atPath: Run.data("places.geojson"), toPath: path)
            let edits = [("the-swan", "Swan \(trial)"), ("avel-leisure-centre", "Leisure \(trial)")]
            let processes = edits.map { id, title in
                let p = Process()
                p.executableURL = URL(fileURLWithPath: binary)
                p.arguments = ["poi", "edit", path, "--id", id, "--title", title]
                p.standardOutput = FileHandle.nullDevice
                p.standardError = FileHandle.nullDevice
                return p
            }
            for p in processes { try p.run() }
            for p in processes { p.waitUntilExit() }
            let final = try String(contentsOfFile: path, encoding: .utf8)
            for (p, edit) in zip(processes, edits) {
                if p.terminationStatus == 0 {
                    if !final.contains("\"\(edit.1)\"") { lostUpdates += 1 }
                } else {
                    conflicts += 1
                    #expect(p.terminationStatus == 1)
                }
            }
        }
        #expect(lostUpdates == 0,
                "\(lostUpdates) saved edits missing from the file (\(conflicts) refused as conflicts)")
    }
}

/// Control characters never reach a places file, and never reach the terminal from one (issue 13,
/// item 9): before, `poi add --title $'\e[31m…'` stored the escape and `poi list` printed it raw,
/// and arrow keys in the editor were stored as escape sequences.
@Suite struct ControlCharacterTests {
    @Test func refusedOnEveryWayIn() throws {
        let dir = try Run.temporaryDirectory()
        let path = dir + "/places.geojson"
        try FileManager.default.copyItem(atPath: Run.data("places.geojson"), toPath: path)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let add = try Run.waymark("poi", "add", path, "--title", "\u{1B}[31mRed", "--coordinate", "52.31,-2.59")
        #expect(add.status == 1 && add.stderr.contains("control characters (\\u{1B}[31mRed)"), "\(add.stderr)")
        let edit = try Run.waymark("poi", "edit", path, "--id", "the-swan", "--subtitle", "two\nlines")
        #expect(edit.status == 1)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        // The editor: an arrow key's escape sequence is refused and the question asked again.
        let editor = try Run.waymark("poi", "edit", path, "--id", "the-swan", "--interactive",
                                     stdin: "\u{1B}[A\nThe Cygnet\n\n\n\ns\n")
        #expect(editor.status == 0, "\(editor.stdout)\(editor.stderr)")
        #expect(editor.stdout.contains("That holds control characters (\\u{1B}[A)"))
        let saved = try String(contentsOfFile: path, encoding: .utf8)
        #expect(saved.contains("\"The Cygnet\"") && !saved.contains("\u{1B}"))
    }

    @Test func escapedWhenPrinted() throws {
        let dir = try Run.temporaryDirectory()
        let path = dir + "/places.geojson"
        let text = #"{"type":"FeatureCollection","features":[{"type":"Feature","id":"x","geometry":{"type":"Point","#
            + #""coordinates":[-2.59,52.31]},"properties":{"title":"\u001b[31mRed\u001b[0m"}}]}"#
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        for command in [["poi", "list", path], ["poi", "show", path, "--id", "x"], ["callout", path, "--id", "x"]] {
            let result = try Run.product("waymark", command)
            #expect(result.status == 0 && !result.stdout.contains("\u{1B}") && result.stdout.contains("\\u{1B}[31mRed"),
                    "\(command): \(result.stdout)")
        }
    }
}
