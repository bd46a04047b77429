import Dispatch
import Foundation
import Waymark
import WaymarkServer

/// `waymark serve`: OSRM's HTTP API over one loaded map.
enum ServeCommand {
    static let spec = CommandSpec(
        name: "serve",
        summary: "Serve OSRM's HTTP API (route, table, nearest) and isochrones over one loaded map.",
        positionals: ["<map.wmg|.osm|.osm.gz|.osm.pbf>"],
        options: [
            OptionSpec(name: "host", value: "ADDRESS", help: "Numeric IPv4 or IPv6 address to listen on (default 127.0.0.1; 0.0.0.0 for every interface)."),
            OptionSpec(name: "port", value: "N", help: "Port (default 5000; 0 picks a free one, printed at start)."),
            OptionSpec(name: "threads", value: "N", help: "Worker threads answering requests (default: the number of cores)."),
            OptionSpec(name: "max-table-size", value: "N", help: "Largest table: sources × destinations at most N² (default 100)."),
            OptionSpec(name: "max-waypoints", value: "N", help: "Most coordinates in one route (default 500)."),
            OptionSpec(name: "max-nearest", value: "N", help: "Most results of one nearest query (default 100)."),
            OptionSpec(name: "max-connections", value: "N", help: "Open connections at most; more get 503 (default 512)."),
            OptionSpec(name: "max-snap", value: "METRES", help: "Farthest a point may be from a road (default 1000; radiuses can only lower it)."),
            OptionSpec(name: "idle-timeout", value: "SECONDS", help: "How long a kept-alive connection may wait between requests (default 5)."),
            OptionSpec(name: "request-timeout", value: "SECONDS", help: "How long a client has to send a request it has begun (default 10; slower ones get 408)."),
            OptionSpec(name: "cors", value: nil, help: "Allow browsers on other origins (Access-Control-Allow-Origin: *)."),
            drivingSideOption,
        ],
        discussion: """
        The map is loaded and prepared once (a graph file without a hierarchy is contracted first), then
        requests are answered as osrm-routed answers them, e.g.
          curl 'http://127.0.0.1:5000/route/v1/driving/-8.61,41.15;-8.60,41.16?steps=true'
          curl 'http://127.0.0.1:5000/table/v1/driving/-8.61,41.15;-8.60,41.16;-8.62,41.14?annotations=duration,distance'
          curl 'http://127.0.0.1:5000/nearest/v1/driving/-8.61,41.15?number=3'
        and GET /health. One log line per request on standard error. SIGINT or SIGTERM stops accepting,
        lets requests in flight finish, and exits 0.
        """
    )

    static func run(_ args: ParsedArguments) throws(CLIError) {
        let path = try args.requirePositionals(["<map>"])[0]
        var configuration = HTTPServerConfiguration()
        configuration.host = args.value("host") ?? "127.0.0.1"
        configuration.port = UInt16(try args.number("port", default: 5000, in: 0...65535))
        configuration.threads = Int(try args.number("threads", default: Double(ProcessInfo.processInfo.activeProcessorCount), in: 1...256))
        configuration.maxConnections = Int(try args.number("max-connections", default: 512, in: 1...60000))
        configuration.idleTimeout = try args.number("idle-timeout", default: 5, in: 0.1...3600)
        configuration.requestTimeout = try args.number("request-timeout", default: 10, in: 0.1...3600)
        if args.flag("cors") {
            configuration.extraHeaders = [("Access-Control-Allow-Origin", "*"), ("Access-Control-Allow-Headers", "*")]
        }
        var limits = OSRMServiceLimits()
        limits.maxTableSize = Int(try args.number("max-table-size", default: 100, in: 1...100_000))
        limits.maxWaypoints = Int(try args.number("max-waypoints", default: 500, in: 2...100_000))
        limits.maxNearest = Int(try args.number("max-nearest", default: 100, in: 1...10_000))
        let maxSnap = try args.number("max-snap", default: 1000, in: 1...100_000)

        let start = DispatchTime.now().uptimeNanoseconds
        let map = try openMap(path, args, method: .hierarchy, maxSnapDistance: maxSnap)
        let preparation = map.prepare()
        if let refused = preparation.hierarchyRefused { Output.error("note: no contraction hierarchy (\(refused)); routing with landmarks") }
        let service = OSRMService(map: map, limits: limits)
        let server: HTTPServer
        do {
            server = try HTTPServer(configuration: configuration, log: { Output.error($0) }, makeHandler: { service.makeHandler() })
        } catch {
            throw .failure("\(error)")
        }
        // Stop on SIGINT/SIGTERM: handled on a queue, not in the signal handler itself.
        signal(SIGPIPE, SIG_IGN)
        var sources: [DispatchSourceSignal] = []
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                Output.error("waymark serve: stopping (signal \(number)); finishing requests in flight")
                server.stop()
            }
            source.resume()
            sources.append(source)
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        Output.error(String(format: "waymark serve: %@ (%d nodes, %@) ready in %.2f s; listening on http://%@:%d with %d threads",
                            path, map.graph.nodeCount, preparation.search == .hierarchy ? "hierarchy" : "landmarks", seconds,
                            host, Int(server.port), configuration.threads))
        server.run()
        sources.forEach { $0.cancel() }
        Output.error("waymark serve: stopped")
    }
}

/// `waymark table`: travel times (and distances) between every source and every destination.
enum TableCommand {
    static let spec = CommandSpec(
        name: "table",
        summary: "Travel times and distances from every source to every destination (OSRM's table).",
        positionals: ["<map.wmg|.osm|.osm.gz|.osm.pbf>"],
        options: [
            OptionSpec(name: "sources", value: "FILE", help: "Sources: points as GeoJSON or CSV (latitude and longitude columns), read as places are."),
            OptionSpec(name: "destinations", value: "FILE", help: "Destinations, the same way (default: the sources)."),
            OptionSpec(name: "format", value: "json|csv", help: "OSRM's table JSON with durations and distances (default), or CSV durations, one row per source."),
            OptionSpec(name: "max-snap", value: "METRES", help: "Farthest a point may be from a road (default 1000)."),
            drivingSideOption,
            OptionSpec(name: "output", value: "FILE", help: "Write to FILE (atomically) instead of standard output.", short: "o"),
        ],
        discussion: "Unreachable pairs are null in JSON and empty in CSV. The map routes on its contraction hierarchy (contracted first if the file has none)."
    )

    static func run(_ args: ParsedArguments) throws(CLIError) {
        let path = try args.requirePositionals(["<map>"])[0]
        guard let sourcesFile = args.value("sources") else { throw .usage("--sources FILE is required") }
        let format = try args.choice("format", ["json", "csv"], default: "json")
        let maxSnap = try args.number("max-snap", default: 1000, in: 1...100_000)
        let sources = try readAnnotations(sourcesFile).map(\.coordinate)
        let destinations = try args.value("destinations").map { (file) throws(CLIError) in try readAnnotations(file).map(\.coordinate) } ?? sources
        guard !sources.isEmpty else { throw .failure("\(sourcesFile): no points") }
        guard !destinations.isEmpty else { throw .failure("\(args.value("destinations") ?? sourcesFile): no points") }
        let map = try openMap(path, args, method: .hierarchy, maxSnapDistance: maxSnap)
        let table: DistanceTable
        do { table = try map.table(sources: sources, destinations: destinations) } catch { throw .failure("\(error)") }
        let text = format == "csv" ? table.durationsCSV : table.osrmJSON(on: map, durations: true, distances: true).jsonText() + "\n"
        try Output.emit(Array(text.utf8), to: args.value("output"))
    }
}

/// `waymark isochrone`: where a car gets within given times, as GeoJSON.
enum IsochroneCommand {
    static let spec = CommandSpec(
        name: "isochrone",
        summary: "Areas reachable within given driving times, as GeoJSON (the Mapbox Isochrone API's shape).",
        positionals: ["<map.wmg|.osm|.osm.gz|.osm.pbf>"],
        options: [
            OptionSpec(name: "from", value: "LAT,LON", help: "The start (required)."),
            OptionSpec(name: "minutes", value: "M[,M…]", help: "Driving times in minutes, up to four (default 5,10,15)."),
            OptionSpec(name: "lines", value: nil, help: "Outlines as lines instead of polygons."),
            OptionSpec(name: "denoise", value: "0…1", help: "Keep polygons at least this share of the largest's area (default 1: the largest only; 0: all)."),
            OptionSpec(name: "max-snap", value: "METRES", help: "Farthest the start may be from a road (default 1000)."),
            drivingSideOption,
            OptionSpec(name: "output", value: "FILE", help: "Write to FILE (atomically) instead of standard output.", short: "o"),
        ],
        discussion: "The areas follow the roads reached (about two grid cells either side), so what no road reaches stays out; the shorter times' areas lie inside the longer ones'."
    )

    static func run(_ args: ParsedArguments) throws(CLIError) {
        let path = try args.requirePositionals(["<map>"])[0]
        guard let from = try args.coordinate("from") else { throw .usage("--from LAT,LON is required") }
        let minutes = try parseMinutes(args.value("minutes") ?? "5,10,15")
        let denoise = try args.number("denoise", default: 1, in: 0...1)
        let maxSnap = try args.number("max-snap", default: 1000, in: 1...100_000)
        let map = try openMap(path, args, maxSnapDistance: maxSnap)
        let isochrone: Isochrone
        do { isochrone = try map.isochrone(from: from, minutes: minutes, denoise: denoise) } catch { throw .failure("\(error)") }
        try Output.emit(GeoJSONWriter().data(.featureCollection(isochrone.featureCollection(polygons: !args.flag("lines")))), to: args.value("output"))
    }

    static func parseMinutes(_ text: String) throws(CLIError) -> [Double] {
        var minutes: [Double] = []
        for piece in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard let m = Double(piece.trimmingCharacters(in: .whitespaces)), m > 0, m <= 60 else {
                throw .usage("--minutes: '\(piece)' is not a time from 1 to 60 minutes")
            }
            minutes.append(m)
        }
        guard minutes.count <= 4 else { throw .usage("--minutes: at most four times") }
        guard Set(minutes).count == minutes.count else { throw .usage("--minutes: each time once") }
        return minutes
    }
}
