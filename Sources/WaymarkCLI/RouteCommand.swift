import Foundation
import Waymark

/// `waymark route`: driving directions between coordinates.
enum RouteCommand {
    static let spec = CommandSpec(
        name: "route",
        summary: "Driving directions between coordinates, as text, OSRM JSON, GeoJSON or an encoded polyline.",
        positionals: ["<map.wmg|.osm|.osm.gz>"],
        options: [
            OptionSpec(name: "from", value: "LAT,LON", help: "Start (required unless --batch)."),
            OptionSpec(name: "to", value: "LAT,LON", help: "Destination (required unless --batch)."),
            OptionSpec(name: "to-poi", value: "ID", help: "Destination: the point of interest with this id in --pois (the callout's car button)."),
            OptionSpec(name: "pois", value: "FILE", help: "Points of interest (GeoJSON or CSV) for --to-poi."),
            OptionSpec(name: "via", value: "LAT,LON", help: "A waypoint on the way; repeat for more, in order.", repeatable: true),
            OptionSpec(name: "format", value: "text|json|geojson|polyline", help: "Output format (default text)."),
            OptionSpec(name: "precision", value: "5|6", help: "Polyline precision (default 5); decimals of JSON coordinates are 6."),
            OptionSpec(name: "max-snap", value: "METRES", help: "Farthest a point may be from a road (default 1000)."),
            OptionSpec(name: "batch", value: "PAIRS.csv", help: "Route every line from_lat,from_lon,to_lat,to_lon: one JSON route per line (NDJSON), timing on stderr."),
            OptionSpec(name: "threads", value: "N", help: "With --batch: route on N threads over the one loaded map (default 1); output stays in input order."),
            drivingSideOption,
            OptionSpec(name: "search", value: "ch|alt", help: "Contraction hierarchy (prepared once, then fastest per query; default with --batch) or landmarks (default for single routes)."),
            OptionSpec(name: "output", value: "FILE", help: "Write to FILE (atomically) instead of standard output.", short: "o"),
        ],
        discussion: """
        A .osm or .osm.gz map is built in memory first; a graph file from 'waymark build' loads at once.
        JSON follows OSRM's route response, so OSRM clients read it unchanged; failures are
        {"code":"NoRoute"|"NoSegment"|"InvalidInput","message":…} with exit status 1.
        """
    )

    static func run(_ args: ParsedArguments) throws(CLIError) {
        let path = try args.requirePositionals(["<map>"])[0]
        let format = try args.choice("format", ["text", "json", "geojson", "polyline"], default: "text")
        let precision = Int(try args.number("precision", default: 5, in: 5...6))
        let maxSnap = try args.number("max-snap", default: 1000, in: 1...100_000)
        let vias = try args.coordinates("via")
        let batch = args.value("batch")
        let from = try args.coordinate("from")
        var to = try args.coordinate("to")
        // Directions to a pin: the destination is the point of interest, named on arrival.
        var destinationName: String?
        if let poi = args.value("to-poi") {
            guard to == nil else { throw .usage("give --to or --to-poi, not both") }
            guard let file = args.value("pois") else { throw .usage("--to-poi needs --pois FILE") }
            let annotations = try readAnnotations(file)
            let place = annotations[try annotationIndex(annotations, id: poi, in: file, noun: "point of interest")]
            to = place.coordinate
            destinationName = place.title ?? poi
        } else if args.value("pois") != nil {
            throw .usage("--pois is for --to-poi ID")
        }
        if batch == nil && (from == nil || to == nil) { throw .usage("--from LAT,LON and --to LAT,LON (or --to-poi ID) are required (or --batch PAIRS.csv)") }

        let threads = Int(try args.number("threads", default: 1, in: 1...64))
        if threads > 1 && batch == nil { throw .usage("--threads is for --batch") }
        // Both searches are exact; the hierarchy costs seconds to prepare on a city and then
        // answers in a fraction of a millisecond, so a batch asks for it.
        var method: RoadMap.SearchMethod = batch == nil ? .automatic : .hierarchy
        if args.value("search") != nil { method = try args.choice("search", ["ch", "alt"], default: "ch") == "ch" ? .hierarchy : .landmarks }
        let map = try openMap(path, args, method: method, maxSnapDistance: maxSnap)
        if let batch { return try runBatch(map, batch, output: args.value("output"), threads: threads) }

        var route: Route
        do {
            route = try map.route(from: from!, to: to!, via: vias)
            if let destinationName { route.arrive(at: destinationName) }
        } catch {
            if format == "json" { Output.write(error.osrmJSON.jsonText() + "\n") }
            throw .failure("\(error)")
        }
        let bytes: [UInt8]
        switch format {
        case "json": bytes = Array((route.osrmJSON().jsonText() + "\n").utf8)
        case "geojson": bytes = GeoJSONWriter().data(.featureCollection(route.featureCollection))
        case "polyline": bytes = Array((Polyline.encode(route.geometry, precision: precision) + "\n").utf8)
        default: bytes = Array(route.text.utf8)
        }
        try Output.emit(bytes, to: args.value("output"))
    }

    /// One route per CSV line as NDJSON (in input order), then p50/p95 of the per-query time
    /// (snapping, search, steps; serialisation excluded) on standard error.
    static func runBatch(_ map: RoadMap, _ file: String, output: String?, threads: Int) throws(CLIError) {
        guard let data = FileManager.default.contents(atPath: file) else { throw .failure("\(file): cannot be read") }
        // Read every line first: a malformed one stops the run before anything is routed.
        var jobs: [(line: Int, values: [Double])] = []
        for (n, line) in String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).enumerated() {
            let fields = line.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard fields.count == 4, fields.allSatisfy({ $0 != nil }) else {
                if n == 0 { continue } // a header
                throw .failure("\(file):\(n + 1): expected from_lat,from_lon,to_lat,to_lon")
            }
            jobs.append((n + 1, fields.map { $0! }))
        }
        @Sendable func line(_ json: JSONValue) -> [UInt8] { Array((json.jsonText() + "\n").utf8) }
        // A line whose numbers are no coordinates gets its error record here; the rest are routed.
        var parts: [[UInt8]?] = [], queries: [[Coordinate]] = []
        for job in jobs {
            let v = job.values
            do {
                queries.append([try Coordinate(validatingLatitude: v[0], longitude: v[1]), try Coordinate(validatingLatitude: v[2], longitude: v[3])])
                parts.append(nil)
            } catch {
                parts.append(line(["code": "InvalidInput", "message": .string("line \(job.line): \(error)")]))
            }
        }
        let preparation = map.prepare()
        if preparation.contracted, let hierarchy = map.hierarchy {
            Output.error(String(format: "contraction hierarchy: %d shortcuts in %.2f s", hierarchy.shortcutCount, preparation.searchSeconds))
        }
        let batch = map.routes(queries, threads: threads) { result in
            switch result {
            case let .success(route): line(route.osrmJSON())
            case let .failure(error): line(error.osrmJSON)
            }
        }
        // One part per route, written in order: the output is never joined into one copy.
        var routed = batch.results.makeIterator()
        try Output.emit(parts: parts.map { $0 ?? routed.next()! }, to: output)
        Output.error(String(format: "queries %d (%d failed), p50 %.3f ms, p95 %.3f ms", jobs.count, jobs.count - batch.times.count,
                            batch.times.p50Milliseconds, batch.times.p95Milliseconds))
    }
}
