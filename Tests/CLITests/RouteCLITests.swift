import Foundation
import Testing
import WaymarkGeo
import WaymarkGeoJSON

/// End-to-end: `waymark route` on the sample town, all formats and the failures.
@Suite struct RouteCLITests {
    let from = "52.3025,-2.6040", to = "52.3160,-2.5450" // old town's south-west corner → beyond the motorway

    @Test func textDirectionsAreReadable() throws {
        let result = try Run.waymark("route", Run.data("sample-town.osm"), "--from", from, "--to", to)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("1. Head north on Tanners Row") == true, "\(result.stdout)")
        #expect(
            lines.contains { $0.contains("At Avel Circus, take the 2nd exit onto Ashby Road (B4221)") },
            "\(result.stdout)")
        #expect(lines.contains { $0.contains("You have arrived at your destination") })
        #expect(lines.last?.hasPrefix("Total: 4.") == true)
    }

    /// `--exclude`: the sample town's toll ferry keeps the crossing short; kept off as a ferry or
    /// as a toll road, the route goes round by the bridge, and its steps pass no such class. The
    /// same in a table and through the server's `exclude`; an unknown class is a one-line error.
    @Test func excludedClassesAreKeptOff() throws {
        let town = Run.data("sample-town.osm")
        let west = "52.2966,-2.5875", east = "52.2968,-2.5852"
        func route(_ extra: [String]) throws -> (duration: Double, classes: Set<String>) {
            let result = try Run.product("waymark",
                                         ["route", town, "--from", west, "--to", east, "--format", "json"] + extra)
            #expect(result.status == 0, "\(result.stderr)")
            let route = try #require(try JSONValue(parsing: result.stdout)["routes"]?.arrayValue?.first)
            var classes = Set<String>()
            for leg in route["legs"]?.arrayValue ?? [] {
                for step in leg["steps"]?.arrayValue ?? [] {
                    for x in step["intersections"]?.arrayValue ?? [] {
                        for c in x["classes"]?.arrayValue ?? [] { classes.insert(c.stringValue ?? "") }
                    }
                }
            }
            return (try #require(route["duration"]?.numberValue), classes)
        }
        let plain = try route([])
        #expect(plain.classes.isSuperset(of: ["ferry", "toll"]))
        for exclude in ["ferry", "toll", "toll,motorway,ferry"] {
            let kept = try route(["--exclude", exclude])
            #expect(kept.duration > plain.duration + 60 && kept.classes.isDisjoint(with: ["ferry", "toll"]),
                    "\(exclude)")
        }
        // The same from a graph file that stores the hierarchies keeping off each set.
        let dir = try Run.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/town.wmg"
        let built = try Run.waymark("build", town, "-o", file, "--hierarchy", "--exclusions")
        #expect(built.status == 0 && built.stdout.contains("7 more hierarchies"), "\(built.stderr)")
        let stored = try Run.product("waymark", ["route", file, "--from", west, "--to", east, "--format", "json",
                                                 "--exclude", "ferry"])
        let storedDuration = try JSONValue(parsing: stored.stdout)["routes"]?.arrayValue?.first?["duration"]
        #expect(storedDuration?.numberValue == (try route(["--exclude", "ferry"])).duration)
        let alone = try Run.waymark("build", town, "-o", file, "--exclusions")
        #expect(alone.status != 0 && alone.stderr.contains("--exclusions needs --hierarchy"))
        let bad = try Run.waymark("route", town, "--from", west, "--to", east, "--exclude", "tolls")
        #expect(bad.status != 0 && bad.stderr.contains("'tolls' is not a class that can be excluded"))
        #expect(bad.stderr.split(separator: "\n").count == 1)
    }

    /// `--alternatives`, `--annotations`, `--bearings`, `--approaches` and `--continue-straight`, as
    /// OSRM's options of those names.
    @Test func routeOptions() throws {
        let town = Run.data("sample-town.osm")
        let json = try Run.waymark("route", town, "--from", from, "--to", to, "--alternatives", "2", "--annotations",
                                   "duration,nodes", "--format", "json")
        #expect(json.status == 0, "\(json.stderr)")
        let routes = try #require(try JSONValue(parsing: json.stdout)["routes"]?.arrayValue)
        #expect((1...3).contains(routes.count))
        let annotation = try #require(routes[0]["legs"]?.arrayValue?.first?["annotation"])
        let nodes = try #require(annotation["nodes"]?.arrayValue)
        let durations = try #require(annotation["duration"]?.arrayValue)
        #expect(nodes.count == durations.count + 1 && annotation["distance"] == nil)
        let text = try Run.waymark("route", town, "--from", from, "--to", to, "--bearings", "0,90;",
                                   "--approaches", ";curb", "--continue-straight", "false")
        #expect(text.status == 0 && text.stdout.contains("Total:"), "\(text.stderr)")
        for bad in [["--bearings", "400,10;"], ["--bearings", "0,10"], ["--approaches", "left;"],
                    ["--alternatives", "4"], ["--annotations", "nodes"],
                    ["--alternatives", "1", "--format", "geojson"]] {
            let refused = try Run.product("waymark", ["route", town, "--from", from, "--to", to] + bad)
            #expect(refused.status == 64 && refused.stderr.split(separator: "\n").count == 1,
                    "\(bad): \(refused.stderr)")
        }
    }

    @Test func osrmJSONShape() throws {
        let result = try Run.waymark("route", Run.data("sample-town.osm"), "--from", from, "--to", to,
                                     "--via", "52.3168,-2.5846",
                                     "--format", "json", "--geometries", "geojson", "--overview", "full")
        #expect(result.status == 0, "\(result.stderr)")
        let json = try JSONValue(parsing: result.stdout)
        #expect(json["code"] == "Ok")
        let route = try #require(json["routes"]?.arrayValue?.first)
        #expect(route["geometry"]?["type"] == "LineString")
        #expect(route["weight_name"] == "routability" && route["weight"]?.numberValue != nil)
        let legs = try #require(route["legs"]?.arrayValue)
        #expect(legs.count == 2)
        let legSum = legs.compactMap { $0["distance"]?.numberValue }.reduce(0, +)
        #expect(abs(legSum - (route["distance"]?.numberValue ?? 0)) < 1)
        for leg in legs {
            let steps = try #require(leg["steps"]?.arrayValue)
            #expect(steps.first?["maneuver"]?["type"] == "depart" && steps.last?["maneuver"]?["type"] == "arrive")
            for step in steps {
                #expect(step["mode"] == "driving" || step["mode"] == "ferry")
                #expect(step["maneuver"]?["location"]?.arrayValue?.count == 2)
                #expect(step["maneuver"]?["bearing_after"]?.numberValue != nil)
            }
        }
        #expect(json["waypoints"]?.arrayValue?.count == 3)
    }

    @Test func geoJSONAndPolyline() throws {
        let dir = try Run.temporaryDirectory()
        let out = dir + "/route.geojson"
        let result = try Run.waymark("route", Run.data("sample-town.osm"), "--from", from, "--to", to,
                                     "--format", "geojson", "-o", out)
        #expect(result.status == 0, "\(result.stderr)")
        let collection = try GeoJSONReader.readFeatureCollection(Array(try Data(contentsOf: URL(fileURLWithPath: out))))
        #expect(collection.features.first?.properties?["kind"] == "route")
        #expect(
            collection.features.contains {
                $0.properties?["instruction"]?.stringValue?.hasPrefix("At Avel Circus") == true
            })
        try Validator.check([out])
        let polyline = try Run.waymark("route", Run.data("sample-town.osm"), "--from", from, "--to", to, "--format",
                                       "polyline", "--precision", "6")
        let points = try Polyline.decode(polyline.stdout.trimmingCharacters(in: .whitespacesAndNewlines), precision: 6)
        guard case let .lineString(line)? = collection.features.first?.geometry else { Issue.record("no line"); return }
        #expect(points.count == line.count)
    }

    @Test func aGraphFileRoutesLikeTheOSMFile() throws {
        let dir = try Run.temporaryDirectory()
        #expect(try Run.waymark("build", Run.data("sample-town.osm"), "-o", dir + "/town.wmg", "--quiet").status == 0)
        let fromGraph = try Run.waymark("route", dir + "/town.wmg", "--from", from, "--to", to)
        let fromXML = try Run.waymark("route", Run.data("sample-town.osm"), "--from", from, "--to", to)
        #expect(fromGraph.status == 0 && fromGraph.stdout == fromXML.stdout)
    }

    @Test func failuresAreClear() throws {
        // In the fields far from any road.
        let sea = try Run.waymark("route", Run.data("sample-town.osm"), "--from", from, "--to",
                                  "52.40,-2.40", "--format", "json")
        #expect(sea.status == 1)
        #expect(try JSONValue(parsing: sea.stdout)["code"] == "NoSegment")
        #expect(
            sea.stderr.contains("52.400000,-2.400000 is outside the map's area (the map covers latitudes 52.2"),
            "\(sea.stderr)")
        #expect(!sea.stderr.contains("did you mean"))
        // Longitude first by mistake: said so, with the pair the right way round.
        let swapped = try Run.waymark("route", Run.data("sample-town.osm"), "--from", from,
                                      "--to", "-2.572561,52.311680")
        #expect(
            swapped.status == 1
                && swapped.stderr.contains("it looks like longitude,latitude: did you mean 52.311680,-2.572561?"),
            "\(swapped.stderr)")
        // Inside the map's area but off the roads (the start is 20-odd m from its street): the plain message.
        let field = try Run.waymark("route", Run.data("sample-town.osm"), "--from", from,
                                    "--to", to, "--max-snap", "20")
        #expect(
            field.status == 1 && field.stderr.contains("no road within 20 m of 52.302500,-2.604000"), "\(field.stderr)")
        // Beyond the gate on Mill Lane, with no other road in snapping reach: reachable by no car.
        let mill = try Run.waymark("route", Run.data("sample-town.osm"), "--from", from, "--to", "52.3091,-2.6135",
                                   "--max-snap", "250", "--format", "json")
        let millCode = try JSONValue(parsing: mill.stdout)["code"]
        #expect(mill.status == 1 && millCode == "NoRoute")
        // The same point: a zero-length route, not an error.
        let same = try Run.waymark("route", Run.data("sample-town.osm"), "--from", from, "--to", from)
        #expect(same.status == 0 && same.stdout.contains("Total: 0 m"))
        // Bad input.
        let bad = try Run.waymark("route", Run.data("sample-town.osm"), "--from", "95,2", "--to", to)
        #expect(bad.status == 64 && bad.stderr.contains("latitude 95.0 is out of range"))
        let missing = try Run.waymark("route", "/nonexistent.wmg", "--from", from, "--to", to)
        #expect(missing.status == 1 && missing.stderr.contains("no such file"))
        let dir = try Run.temporaryDirectory()
        try Data("WAYMARKG garbage".utf8).write(to: URL(fileURLWithPath: dir + "/bad.wmg"))
        let corrupt = try Run.waymark("route", dir + "/bad.wmg", "--from", from, "--to", to)
        #expect(corrupt.status == 1 && corrupt.stderr.contains("graph file"))
    }

    @Test func batchWritesOneRoutePerLine() throws {
        let dir = try Run.temporaryDirectory()
        let pairs = "from_lat,from_lon,to_lat,to_lon\n\(from),\(to)\n"
            + "52.3095,-2.5988,52.3127,-2.5783\n52.3025,-2.6040,52.40,-2.40\n"
        try pairs.write(toFile: dir + "/pairs.csv", atomically: true, encoding: .utf8)
        let result = try Run.waymark("route", Run.data("sample-town.osm"), "--batch", dir + "/pairs.csv")
        // One pair has no road in reach: its record says so, and the batch exits 1.
        #expect(result.status == 1 && result.stderr.contains("1 of 3 lines failed"), "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 3)
        #expect(try JSONValue(parsing: String(lines[0]))["code"] == "Ok")
        #expect(try JSONValue(parsing: String(lines[2]))["code"] == "NoSegment")
        #expect(result.stderr.contains("queries 3 (1 failed), p50"))
        #expect(result.stderr.contains("contraction hierarchy:"))
        // Two threads over the one map: the same lines in the same order.
        let threaded = try Run.waymark("route", Run.data("sample-town.osm"), "--batch",
                                       dir + "/pairs.csv", "--threads", "2")
        #expect(
            threaded.status == 1 && threaded.stdout == result.stdout && threaded.stderr.contains("queries 3 (1 failed)")
        )
        let notBatch = try Run.waymark("route", Run.data("sample-town.osm"), "--from", from,
                                       "--to", to, "--threads", "2")
        #expect(notBatch.status == 64)
        // Batch routes on the hierarchy; landmarks give the same routes (both searches are exact).
        let alt = try Run.waymark("route", Run.data("sample-town.osm"), "--batch",
                                  dir + "/pairs.csv", "--search", "alt")
        #expect(alt.status == 1 && alt.stdout == result.stdout)
        let single = try Run.waymark("route", Run.data("sample-town.osm"), "--from", from, "--to", to, "--format",
                                     "json", "--search", "ch")
        #expect(single.status == 0 && single.stdout == String(lines[0]) + "\n")
        // A graph file with the hierarchy stored: the same routes, no contraction at query time.
        let build = try Run.waymark("build", Run.data("sample-town.osm"), "-o", dir + "/town.wmg", "--hierarchy")
        #expect(build.status == 0 && build.stdout.contains("contraction hierarchy: "), "\(build.stderr)")
        // Contraction's progress on standard error (not a terminal here: a line per tenth), ending at 100 %.
        #expect(
            build.stdout.contains("\npeak_memory_mb ") && build.stdout.contains("\nfile_bytes_per_edge "),
            "\(build.stdout)")
        let progress = build.stderr.split(separator: "\n").filter { $0.hasPrefix("hierarchy: ") }
        #expect(
            progress.last?.hasPrefix("hierarchy: 100% (") == true && progress.last?.contains(" nodes, ") == true,
            "\(build.stderr)")
        let stored = try Run.waymark("route", dir + "/town.wmg", "--batch", dir + "/pairs.csv")
        #expect(
            stored.status == 1 && stored.stdout == result.stdout && !stored.stderr.contains("contraction hierarchy:"))
        let inspect = try Run.waymark("inspect", dir + "/town.wmg")
        #expect(inspect.stdout.contains("contraction hierarchy: ") && inspect.stdout.contains(" shortcuts"))
        // The sample town lies in England: left-hand traffic by place. Right-hand traffic asked for
        // is stored in the file; overriding the side sets the stored hierarchy aside.
        let right = try Run.waymark("build", Run.data("sample-town.osm"), "-o", dir + "/right.wmg",
                                    "--driving-side", "right", "--hierarchy")
        #expect(right.status == 0 && right.stdout.contains("driving_side                    right"))
        let onRight = try Run.waymark("route", dir + "/right.wmg", "--from", from, "--to", to, "--format", "json")
        let onRightOSM = try Run.waymark("route", Run.data("sample-town.osm"), "--from", from, "--to", to,
                                         "--format", "json", "--driving-side", "right")
        #expect(onRight.status == 0 && onRight.stdout == onRightOSM.stdout && onRight.stdout != single.stdout)
        let overridden = try Run.waymark("route", dir + "/right.wmg", "--from", from, "--to", to, "--format", "json",
                                         "--driving-side", "left")
        #expect(
            overridden.status == 0 && overridden.stdout == single.stdout && overridden.stderr.contains("not using it"))
        // Without --hierarchy, inspect says there is none.
        let plain = try Run.waymark("build", Run.data("sample-town.osm"), "-o", dir + "/plain.wmg")
        #expect(plain.status == 0)
        let none = try Run.waymark("inspect", dir + "/plain.wmg")
        #expect(none.stdout.contains("contraction hierarchy: none"))
    }

    /// The batch's one rule (issue 13, item 11): one output line per input line, an error record
    /// for a bad line, a header only when the first line has no number, exit 1 if any line failed.
    @Test func batchLinesMatchInputLines() throws {
        let dir = try Run.temporaryDirectory()
        let csv = [
            "from_lat,from_lon,to_lat,to_lon",     // header: no number in it
            "52.3025,-2.6040,52.3160,-2.5450",      // a route
            "52.3,,-2.6,52.32",                     // an empty field: not dropped
            "52.3025,-2.6040,52.3160,-2.5450,7",    // a fifth column: not silently ignored
            "",                                     // a blank line keeps its place
            "nan,-2.6,52.31,-2.59",                 // not a coordinate
            "52.3025,-2.6040,52.3160,-2.5450",
        ].joined(separator: "\r\n") + "\r\n"
        try Data(csv.utf8).write(to: URL(fileURLWithPath: dir + "/pairs.csv"))
        let result = try Run.waymark("route", Run.data("sample-town.osm"), "--batch", dir + "/pairs.csv")
        #expect(result.status == 1 && result.stderr.contains("4 of 6 lines failed"), "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map {
            try? JSONValue(parsing: String($0))
        }
        #expect(lines.count == 6)
        #expect(lines.map { $0?["code"]?.stringValue } == ["Ok", "InvalidInput", "InvalidInput",
                                                           "InvalidInput", "InvalidInput", "Ok"])
        #expect(
            lines[1]?["message"]?.stringValue?.hasPrefix("line 3:") == true
                && lines[4]?["message"]?.stringValue?.hasPrefix("line 6:") == true)
        #expect(result.stderr.contains("queries 6 (4 failed)"))
        // A first line of numbers is data, not a header.
        try Data("52.3025,-2.6040,52.3160,-2.5450\n".utf8).write(to: URL(fileURLWithPath: dir + "/one.csv"))
        let one = try Run.waymark("route", Run.data("sample-town.osm"), "--batch", dir + "/one.csv")
        #expect(one.status == 0 && one.stdout.split(separator: "\n").count == 1)
        // Options for one route do not go with a batch.
        for extra in [["--from", "52.3,-2.6"], ["--via", "52.3,-2.6"], ["--format", "text"], ["--format", "geojson"]] {
            let usage = try Run.product("waymark",
                                        ["route", Run.data("sample-town.osm"), "--batch", dir + "/one.csv"] + extra)
            #expect(usage.status == 64, "\(extra): \(usage.stderr)")
        }
        #expect(try Run.waymark("route", Run.data("sample-town.osm"), "--batch",
                                dir + "/one.csv", "--format", "json").status == 0)
    }

    /// With `--format json`, every failure prints OSRM's error JSON, usage-level ones included.
    @Test func jsonModeFailuresAreJSON() throws {
        let poi = try Run.waymark("route", Run.data("sample-town.osm"), "--from", from, "--to-poi", "no-such-place",
                                  "--pois", Run.data("places.geojson"), "--format", "json")
        #expect(poi.status == 1)
        #expect(try JSONValue(parsing: poi.stdout)["code"] == "InvalidInput")
        let badOption = try Run.waymark("route", Run.data("sample-town.osm"), "--from", from, "--to", to, "--max-snap",
                                        "far", "--format", "json")
        #expect(badOption.status == 64)
        #expect(try JSONValue(parsing: badOption.stdout)["code"] == "InvalidInput")
        let noRoad = try Run.waymark("route", Run.data("sample-town.osm"), "--from", from, "--to",
                                     "52.40,-2.40", "--format", "json")
        #expect(try JSONValue(parsing: noRoad.stdout)["code"] == "NoSegment")
        #expect(noRoad.stdout.split(separator: "\n").count == 1)
    }
}

/// The OSRM JSON a client written for OSRM reads: every key, OSRM's geometries and overview options.
@Suite struct OSRMJSONTests {
    let from = "52.3025,-2.6040", to = "52.3160,-2.5450"

    @Test func everyStepCarriesOSRMsKeys() throws {
        let result = try Run.waymark("route", Run.data("sample-town.osm"), "--from", from,
                                     "--to", to, "--format", "json")
        #expect(result.status == 0, "\(result.stderr)")
        let json = try JSONValue(parsing: result.stdout)
        let route = try #require(json["routes"]?.arrayValue?.first)
        // OSRM's default: an encoded polyline (5 decimals), simplified.
        let overview = try #require(route["geometry"]?.stringValue)
        #expect(try Polyline.decode(overview, precision: 5).count >= 2)
        for key in ["distance", "duration",
                    "weight", "weight_name", "legs"] { #expect(route[key] != nil, "route.\(key)") }
        let leg = try #require(route["legs"]?.arrayValue?.first)
        for key in ["distance", "duration", "weight", "summary", "steps"] { #expect(leg[key] != nil, "leg.\(key)") }
        let steps = try #require(leg["steps"]?.arrayValue)
        var sawRotary = false
        for step in steps {
            for key in ["name", "distance", "duration", "weight", "geometry", "mode", "driving_side",
                        "maneuver", "intersections"] {
                #expect(step[key] != nil, "step.\(key)")
            }
            #expect(step["geometry"]?.stringValue != nil)
            let maneuver = try #require(step["maneuver"])
            for key in ["type", "location",
                        "bearing_before", "bearing_after"] { #expect(maneuver[key] != nil, "maneuver.\(key)") }
            let type = maneuver["type"]?.stringValue ?? ""
            if type != "depart" && type != "arrive" { #expect(maneuver["modifier"] != nil, "\(type) has a modifier") }
            if type == "rotary" {
                sawRotary = true; #expect(step["rotary_name"] == "Avel Circus" && maneuver["exit"] == 2)
            }
            let intersections = try #require(step["intersections"]?.arrayValue)
            #expect(!intersections.isEmpty)
            for x in intersections {
                let bearings = try #require(x["bearings"]?.arrayValue), entry = try #require(x["entry"]?.arrayValue)
                #expect(bearings.count == entry.count && !bearings.isEmpty)
                let values = bearings.compactMap(\.numberValue)
                #expect(values == values.sorted() && values.allSatisfy { $0 >= 0 && $0 < 360 })
                if let i = x["in"]?.numberValue { #expect(Int(i) < bearings.count) }
                if let o = x["out"]?.numberValue { #expect(Int(o) < bearings.count && entry[Int(o)] == .bool(true)) }
            }
        }
        #expect(sawRotary)
        for waypoint in json["waypoints"]?.arrayValue ?? [] {
            #expect(
                waypoint["name"] != nil && waypoint["distance"] != nil && waypoint["location"] != nil
                    && waypoint["hint"] == nil)
        }
    }

    @Test func geometriesAndOverview() throws {
        let full = try Run.waymark("route", Run.data("sample-town.osm"), "--from", from, "--to", to, "--format", "json",
                                   "--geometries", "polyline6", "--overview", "full")
        let simplified = try Run.waymark("route", Run.data("sample-town.osm"), "--from", from, "--to",
                                         to, "--format", "json",
                                         "--geometries", "polyline6")
        let fullLine = try Polyline.decode(
            try #require(JSONValue(parsing: full.stdout)["routes"]?.arrayValue?.first?["geometry"]?.stringValue),
            precision: 6)
        let simpleLine = try Polyline.decode(
            try #require(JSONValue(parsing: simplified.stdout)["routes"]?.arrayValue?.first?["geometry"]?.stringValue),
            precision: 6)
        #expect(
            simpleLine.count < fullLine.count && simpleLine.first == fullLine.first && simpleLine.last == fullLine.last)
        let none = try Run.waymark("route", Run.data("sample-town.osm"), "--from", from, "--to", to, "--format",
                                   "json", "--overview", "false")
        #expect(try JSONValue(parsing: none.stdout)["routes"]?.arrayValue?.first?["geometry"] == nil)
        let wrong = try Run.waymark("route", Run.data("sample-town.osm"), "--from", from, "--to", to, "--format",
                                    "json", "--geometries", "wkt")
        #expect(wrong.status != 0 && wrong.stderr.contains("geometries"))
        let textOnly = try Run.waymark("route", Run.data("sample-town.osm"), "--from", from, "--to",
                                       to, "--overview", "full")
        #expect(textOnly.status != 0 && textOnly.stderr.contains("--format json"))
    }
}
