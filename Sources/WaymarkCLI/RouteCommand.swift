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
        func coordinate(_ name: String) throws(CLIError) -> Coordinate? {
            guard let text = args.value(name) else { return nil }
            do { return try Coordinate(parsing: text) } catch { throw .usage("--\(name): \(error)") }
        }
        var vias: [Coordinate] = []
        for text in args.allValues("via") {
            do { vias.append(try Coordinate(parsing: text)) } catch { throw .usage("--via: \(error)") }
        }
        let batch = args.value("batch")
        let from = try coordinate("from")
        var to = try coordinate("to")
        // Directions to a pin: the destination is the point of interest, named on arrival.
        var destinationName: String?
        if let poi = args.value("to-poi") {
            guard to == nil else { throw .usage("give --to or --to-poi, not both") }
            guard let file = args.value("pois") else { throw .usage("--to-poi needs --pois FILE") }
            let annotations: [Annotation]
            do { annotations = try AnnotationReader.read(path: file) } catch { throw .failure("\(error)") }
            guard let place = annotations.first(where: { $0.id?.description == poi }) else {
                throw .failure("\(file): no point of interest with id \"\(poi)\"")
            }
            to = place.coordinate
            destinationName = place.title ?? poi
        } else if args.value("pois") != nil {
            throw .usage("--pois is for --to-poi ID")
        }
        if batch == nil && (from == nil || to == nil) { throw .usage("--from LAT,LON and --to LAT,LON (or --to-poi ID) are required (or --batch PAIRS.csv)") }

        let (graph, stored) = try loadMap(path, drivingSide: try drivingSide(args))
        // Both searches are exact; the hierarchy costs seconds to prepare on a city and then
        // answers in a fraction of a millisecond, so it pays off over many queries, or at once
        // when the graph file already holds one ('waymark build --hierarchy').
        let search = try args.choice("search", ["ch", "alt"], default: batch == nil && stored == nil ? "alt" : "ch")
        let router: Router
        if search == "ch", let stored {
            router = Router(graph: graph, hierarchy: stored)
        } else if search == "ch" {
            let start = DispatchTime.now().uptimeNanoseconds
            let hierarchy = ContractionHierarchy(graph: graph)
            if batch != nil {
                Output.error(String(format: "contraction hierarchy: %d shortcuts in %.2f s", hierarchy.shortcutCount,
                                    Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9))
            }
            router = Router(graph: graph, hierarchy: hierarchy)
        } else {
            router = Router(graph: graph, landmarks: Landmarks(graph: graph))
        }
        router.maxSnapDistance = maxSnap

        if let batch { return try runBatch(router, batch, output: args.value("output")) }

        var route: Route
        do {
            route = try router.route([from!] + vias + [to!])
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

    /// One route per CSV line as NDJSON, then p50/p95 of the per-query time (snapping, search,
    /// steps; serialisation excluded) on standard error.
    static func runBatch(_ router: Router, _ file: String, output: String?) throws(CLIError) {
        guard let data = FileManager.default.contents(atPath: file) else { throw .failure("\(file): cannot be read") }
        var out: [UInt8] = []
        var times: [Double] = []
        var failures = 0
        for (n, line) in String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).enumerated() {
            let fields = line.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard fields.count == 4, fields.allSatisfy({ $0 != nil }) else {
                if n == 0 { continue } // a header
                throw .failure("\(file):\(n + 1): expected from_lat,from_lon,to_lat,to_lon")
            }
            let v = fields.map { $0! }
            let start = DispatchTime.now().uptimeNanoseconds
            let json: JSONValue
            do {
                let a = try Coordinate(validatingLatitude: v[0], longitude: v[1]), b = try Coordinate(validatingLatitude: v[2], longitude: v[3])
                let route = try router.route([a, b])
                times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
                json = route.osrmJSON()
            } catch let error as RouteError {
                failures += 1
                json = error.osrmJSON
            } catch {
                failures += 1
                json = ["code": "InvalidInput", "message": .string("line \(n + 1): \(error)")]
            }
            out.append(contentsOf: (json.jsonText() + "\n").utf8)
        }
        try Output.emit(out, to: output)
        let sorted = times.sorted()
        func pct(_ p: Double) -> Double { sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }
        Output.error(String(format: "queries %d (%d failed), p50 %.3f ms, p95 %.3f ms", times.count + failures, failures, pct(0.5), pct(0.95)))
    }
}
