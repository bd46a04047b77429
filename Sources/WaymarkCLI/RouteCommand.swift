import Foundation
import Waymark

/// `waymark route`: directions between coordinates.
enum RouteCommand {
    static let spec = CommandSpec(
        name: "route",
        summary: "Directions between coordinates (by the map's profile), as text, OSRM JSON, GeoJSON or an encoded "
            + "polyline.",
        positionals: ["<map.wmg|.osm|.osm.gz|.osm.pbf>"],
        options: [
            OptionSpec(name: "from", value: "LAT,LON", help: "Start (required unless --batch)."),
            OptionSpec(name: "to", value: "LAT,LON", help: "Destination (required unless --batch)."),
            OptionSpec(name: "to-poi", value: "ID",
                       help: "Destination: the point of interest with this id in --pois (the callout's car button)."),
            OptionSpec(name: "pois", value: "FILE", help: "Points of interest (GeoJSON or CSV) for --to-poi."),
            OptionSpec(name: "via", value: "LAT,LON",
                       help: "A waypoint on the way; repeat for more, in order.", repeatable: true),
            OptionSpec(name: "format", value: "text|json|geojson|polyline", help: "Output format (default text)."),
            OptionSpec(name: "geometries", value: "polyline|polyline6|geojson",
                       help: "JSON geometries, as OSRM's option (default polyline)."),
            OptionSpec(name: "overview", value: "full|simplified|false",
                       help: "JSON route geometry, as OSRM's option (default simplified)."),
            OptionSpec(name: "precision", value: "5|6",
                       help: "Polyline precision (default 5); decimals of JSON coordinates are 6."),
            OptionSpec(name: "max-snap", value: "METRES", help: "Farthest a point may be from a road (default 1000)."),
            OptionSpec(name: "alternatives", value: "N",
                       help: "Up to N (0–3) other routes too, without via points (text and JSON; as OSRM's option)."),
            OptionSpec(name: "bearings", value: "DEG,RANGE;…",
                       help: "Per waypoint (from, vias, to; empty for any): the direction to leave or reach it in."),
            OptionSpec(name: "approaches", value: "curb|opposite|unrestricted;…",
                       help: "Per waypoint: the side of the road to reach and leave it on (curb: the driving side)."),
            OptionSpec(name: "continue-straight", value: "true|false",
                       help: "Whether routes go on through via points without turning round (default true)."),
            OptionSpec(name: "annotations", value: "true|duration,distance,speed,weight,nodes,datasources",
                       help: "JSON: values along each leg's line, as OSRM's option."),
            OptionSpec(
                name: "batch", value: "PAIRS.csv",
                help:
                    "Route every line from_lat,from_lon,to_lat,to_lon: one JSON route per line (NDJSON), timing on "
                        + "stderr."
            ),
            OptionSpec(
                name: "threads", value: "N",
                help:
                    "With --batch: route on N threads over the one loaded map (default 1); output stays in input order."
            ),
            drivingSideOption,
            excludeOption,
            OptionSpec(name: "language", value: "CODE",
                       help: "The instructions' language (default en; the languages the library has)."),
            OptionSpec(
                name: "search", value: "ch|alt|astar",
                help:
                    "Contraction hierarchy (prepared once, then fastest per query; default with --batch), landmarks "
                        + "(ALT: prepared once, seconds on a country) or A* (nothing to prepare). A single route uses "
                        + "the map's stored hierarchy, else A*."
            ),
            outputOption,
        ],
        discussion: """
        An OSM map (.osm, .osm.gz, .osm.pbf) is built in memory first; a graph file from 'waymark build' loads at once.
        JSON follows OSRM's route response, so OSRM clients read it unchanged; failures are
        {"code":"NoRoute"|"NoSegment"|"InvalidInput","message":…} with exit status 1.
        """
    )

    /// With `--format json`, every failure — usage included — is also printed as OSRM's error
    /// JSON on standard output, so a client parsing the output always gets JSON.
    static func run(_ args: ParsedArguments) throws(CLIError) {
        var printedJSON = false
        do {
            try route(args, printedJSON: &printedJSON)
        } catch {
            if args.value("format") == "json" && args.value("batch") == nil && !printedJSON {
                let message: String
                switch error {
                case let .usage(text), let .failure(text): message = text
                }
                Output.write((["code": "InvalidInput", "message": .string(message)] as JSONValue).jsonText() + "\n")
            }
            throw error
        }
    }

    static func route(_ args: ParsedArguments, printedJSON: inout Bool) throws(CLIError) {
        let path = try args.requirePositionals(["<map>"])[0]
        let format = try args.choice("format", ["text", "json", "geojson", "polyline"], default: "text")
        let languages = InstructionTemplates.available
        let language = languages[try args.choice("language", languages.keys.sorted(), default: "en")]!
        let precision = Int(try args.number("precision", default: 5, in: 5...6))
        let geometries = GeometryFormat(
            rawValue: try args.choice("geometries", GeometryFormat.allCases.map(\.rawValue), default: "polyline"))!
        let overview = OverviewFormat(
            rawValue: try args.choice("overview", OverviewFormat.allCases.map(\.rawValue), default: "simplified"))!
        if (args.value("geometries") != nil || args.value("overview") != nil) && format != "json"
            && args.value("batch") == nil {
            throw .usage("--geometries and --overview shape OSRM JSON: use them with --format json or --batch")
        }
        let maxSnap = try args.number("max-snap", default: 1000, in: 1...100_000)
        let vias = try args.coordinates("via")
        let batch = args.value("batch")
        let from = try args.coordinate("from")
        let (to, destinationName) = try destination(args)
        if batch == nil && (from == nil || to == nil) {
            throw .usage("--from LAT,LON and --to LAT,LON (or --to-poi ID) are required (or --batch PAIRS.csv)")
        }
        if batch != nil {
            if from != nil || to != nil || !vias.isEmpty {
                throw .usage(
                    "--batch reads its pairs from the file; --from, --to, --via and --to-poi are for one route")
            }
            if let chosen = args.value("format"), chosen != "json" {
                throw .usage("--batch writes OSRM JSON, one route per line; --format \(chosen) is for one route")
            }
        }

        let threads = Int(try args.number("threads", default: 1, in: 1...64))
        if threads > 1 && batch == nil { throw .usage("--threads is for --batch") }
        let workload: RoadMap.Workload = batch == nil ? .fewRoutes : .manyQueries
        var method = RoadMap.searchMethod(for: workload)
        if args.value("search") != nil {
            let searches: [String: RoadMap.SearchMethod] = ["ch": .hierarchy, "alt": .landmarks, "astar": .aStar]
            method = searches[try args.choice("search", ["ch", "alt", "astar"], default: "ch")]!
        }
        var options = try routeOptions(args, waypoints: batch == nil ? vias.count + 2 : 2,
                                       format: batch == nil ? format : "json")
        options.language = language
        // Alternatives are found on a contraction hierarchy.
        if options.alternatives > 0 && args.value("search") == nil { method = .hierarchy }
        let map = try openMap(path, args, method: method, maxSnapDistance: maxSnap,
                              memory: RoadMap.memory(for: workload))
        if let batch {
            return try runBatch(map, batch, options: options, output: args.value("output"), threads: threads,
                                geometries: geometries, overview: overview)
        }
        if method == .hierarchy { map.prepare().notes.forEach(Output.error) }

        var routes: [Route]
        do {
            routes = try map.routes([from!] + vias + [to!], options: options)
            if let destinationName {
                for i in routes.indices { routes[i].arrive(at: destinationName, language: language) }
            }
        } catch {
            if format == "json" {
                Output.write(error.osrmJSON.jsonText() + "\n")
                printedJSON = true
            }
            throw .failure("\(error)")
        }
        let bytes: [UInt8]
        switch format {
        case "json":
            var writer = JSONWriter()
            Route.writeOSRMJSON(routes, into: &writer, geometries: geometries, overview: overview,
                                annotations: try annotationKinds(args))
            writer.writeByte(0x0A)
            bytes = writer.bytes
        case "geojson": bytes = GeoJSONWriter().data(.featureCollection(routes[0].featureCollection))
        case "polyline": bytes = Array((Polyline.encode(routes[0].geometry, precision: precision) + "\n").utf8)
        default:
            var text = routes[0].text
            for (n, other) in routes.dropFirst().enumerated() { text += "\nAlternative \(n + 1):\n" + other.text }
            bytes = Array(text.utf8)
        }
        try Output.emit(bytes, to: args.value("output"))
    }

    /// `--to`, or the point of interest `--to-poi ID` in `--pois FILE` (directions to a pin: the
    /// destination is the point of interest, named on arrival).
    static func destination(_ args: ParsedArguments) throws(CLIError) -> (Coordinate?, String?) {
        let to = try args.coordinate("to")
        guard let poi = args.value("to-poi") else {
            if args.value("pois") != nil { throw .usage("--pois is for --to-poi ID") }
            return (to, nil)
        }
        guard to == nil else { throw .usage("give --to or --to-poi, not both") }
        guard let file = args.value("pois") else { throw .usage("--to-poi needs --pois FILE") }
        let annotations = try readAnnotations(file)
        let place = annotations[try annotationIndex(annotations, id: poi, in: file, noun: "point of interest")]
        return (place.coordinate, place.title ?? poi)
    }

    /// One output line per input line, in order: an OSRM JSON route, or an error record for a line
    /// that is not four numbers `from_lat,from_lon,to_lat,to_lon` or finds no route. The first line
    /// is a header when none of its fields is a number. p50/p95 of the per-query time (snapping,
    /// search, steps; serialisation excluded) and the count go to standard error; the command fails
    /// (exit 1) when any line did.
    static func runBatch(_ map: RoadMap, _ file: String, options: RouteOptions, output: String?, threads: Int,
                         geometries: GeometryFormat, overview: OverviewFormat) throws(CLIError) {
        guard let data = FileManager.default.contents(atPath: file) else { throw .failure("\(file): cannot be read") }
        // (`\r\n` is one Character in Swift: split on newline characters, not on "\n".)
        var lines = String(decoding: data, as: UTF8.self).split(omittingEmptySubsequences: false,
                                                                whereSeparator: \.isNewline)
        if lines.last?.isEmpty == true { lines.removeLast() } // the file's final newline
        func fields(_ line: Substring) -> [Double?] {
            line.split(separator: ",",
                       omittingEmptySubsequences: false).map { Double($0.trimmingCharacters(in: .whitespaces)) }
        }
        let firstLine = lines.first.map { $0.isEmpty || fields($0).contains { $0 != nil } ? 1 : 2 } ?? 1
        var jobs: [(line: Int, values: [Double]?)] = []
        for (n, line) in lines.enumerated() where n + 1 >= firstLine {
            let values = fields(line)
            jobs.append((n + 1, values.count == 4 && values.allSatisfy { $0 != nil } ? values.map { $0! } : nil))
        }
        @Sendable func line(_ json: JSONValue) -> [UInt8] { Array((json.jsonText() + "\n").utf8) }
        // A line whose numbers are no coordinates gets its error record here; the rest are routed.
        var parts: [[UInt8]?] = [], queries: [[Coordinate]] = []
        for job in jobs {
            guard let v = job.values else {
                parts.append(
                    line([
                        "code": "InvalidInput",
                        "message": .string("line \(job.line): expected four numbers from_lat,from_lon,to_lat,to_lon")
                    ]))
                continue
            }
            do {
                queries.append([try Coordinate(validatingLatitude: v[0], longitude: v[1]),
                                try Coordinate(validatingLatitude: v[2], longitude: v[3])])
                parts.append(nil)
            } catch {
                parts.append(line(["code": "InvalidInput", "message": .string("line \(job.line): \(error)")]))
            }
        }
        let preparation = map.prepare()
        preparation.notes.forEach(Output.error)
        if preparation.contracted, let hierarchy = map.hierarchy {
            Output.error(String(format: "contraction hierarchy: %d shortcuts in %.2f s", hierarchy.shortcutCount,
                                preparation.searchSeconds))
        }
        let kinds: Set<LegAnnotation.Kind> = options.annotations ? Set(LegAnnotation.Kind.allCases) : []
        let batch = map.routes(queries, options: options, threads: threads) { result in
            switch result {
            case let .success(routes):
                var writer = JSONWriter()
                Route.writeOSRMJSON(routes, into: &writer, geometries: geometries, overview: overview,
                                    annotations: kinds)
                writer.writeByte(0x0A)
                return writer.bytes
            case let .failure(error): return line(error.osrmJSON)
            }
        }
        // One part per route, written in order: the output is never joined into one copy.
        var routed = batch.results.makeIterator()
        try Output.emit(parts: parts.map { $0 ?? routed.next()! }, to: output)
        let failed = jobs.count - batch.times.count
        Output.error(String(format: "queries %d (%d failed), p50 %.3f ms, p95 %.3f ms", jobs.count, failed,
                            batch.times.p50Milliseconds, batch.times.p95Milliseconds))
        if failed > 0 {
            throw .failure("\(file): \(failed) of \(jobs.count) lines failed (their error records are in the output)")
        }
    }

    /// The route options given (`--alternatives`, `--bearings`, `--approaches`,
    /// `--continue-straight`, `--annotations`, `--exclude`) for routes of `waypoints` points.
    static func routeOptions(_ args: ParsedArguments, waypoints: Int, format: String) throws(CLIError) -> RouteOptions {
        var options = RouteOptions()
        options.alternatives = Int(try args.number("alternatives", default: 0, in: 0...3))
        if options.alternatives > 0 && !["text", "json"].contains(format) {
            throw .usage("--alternatives is for --format text or json")
        }
        func perWaypoint<T>(_ name: String, _ read: (Substring) -> T?) throws(CLIError) -> [T?] {
            guard let text = args.value(name) else { return [] }
            let pieces = text.split(separator: ";", omittingEmptySubsequences: false)
            guard pieces.count == waypoints else {
                throw .usage("--\(name): \(pieces.count) given for \(waypoints) waypoints (from, vias, to)")
            }
            var values: [T?] = []
            for piece in pieces {
                if piece.isEmpty {
                    values.append(nil)
                } else if let value = read(piece) {
                    values.append(value)
                } else {
                    throw .usage("--\(name): '\(piece.prefix(40))' is not one")
                }
            }
            return values
        }
        options.bearings = try perWaypoint("bearings") { piece in
            SnapFilter.bearing(parsing: piece).flatMap { SnapFilter.isValid(bearing: $0) ? $0 : nil }
        }
        options.approaches = try perWaypoint("approaches") { SnapFilter.Approach(rawValue: String($0)) }
        options.continueStraight = try args.choice("continue-straight", ["true", "false"], default: "true") == "true"
        let kinds = try annotationKinds(args)
        if !kinds.isEmpty && format != "json" { throw .usage("--annotations is for --format json") }
        options.annotations = !kinds.isEmpty
        options.exclude = try excludedClasses(args)
        return options
    }

    /// The values `--annotations` asks for.
    static func annotationKinds(_ args: ParsedArguments) throws(CLIError) -> Set<LegAnnotation.Kind> {
        guard let text = args.value("annotations") else { return [] }
        guard let kinds = LegAnnotation.kinds(parsing: text) else {
            throw .usage("--annotations: '\(text.prefix(40))' is not true, false or a list of "
                            + LegAnnotation.Kind.allCases.map(\.rawValue).joined(separator: ", "))
        }
        return kinds
    }
}
