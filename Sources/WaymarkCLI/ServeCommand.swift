import Dispatch
import Foundation
import Waymark
import WaymarkServer

/// `waymark serve`: OSRM's HTTP API over one loaded map.
enum ServeCommand {
    static let spec = CommandSpec(
        name: "serve",
        summary: "Serve OSRM's HTTP API (route, table, nearest, trip, match) and isochrones over loaded maps.",
        positionals: ["<map.wmg|.osm|.osm.gz|.osm.pbf>…"],
        options: [
            OptionSpec(
                name: "host", value: "ADDRESS",
                help: "Numeric IPv4 or IPv6 address to listen on (default 127.0.0.1; 0.0.0.0 for every interface)."),
            OptionSpec(name: "port", value: "N", help: "Port (default 5000; 0 picks a free one, printed at start)."),
            OptionSpec(name: "threads", value: "N",
                       help: "Worker threads answering requests (default: the number of cores)."),
            OptionSpec(name: "max-table-size", value: "N",
                       help: "Largest table: sources × destinations at most N² (default 100)."),
            OptionSpec(name: "max-waypoints", value: "N", help: "Most coordinates in one route (default 500)."),
            OptionSpec(name: "max-nearest", value: "N", help: "Most results of one nearest query (default 100)."),
            OptionSpec(name: "max-matching-size", value: "N", help: "Most fixes in one trace to match (default 100)."),
            OptionSpec(name: "max-alternatives", value: "N",
                       help: "Most alternatives one route may ask for (default 3; 0 refuses them, as osrm-routed)."),
            OptionSpec(name: "max-connections", value: "N",
                       help: "Open connections at most; more get 503 (default 512)."),
            OptionSpec(name: "max-snap", value: "METRES",
                       help: "Farthest a point may be from a road (default: no limit, as OSRM; radiuses lower it)."),
            OptionSpec(name: "idle-timeout", value: "SECONDS",
                       help: "How long a kept-alive connection may wait between requests (default 5)."),
            OptionSpec(name: "request-timeout", value: "SECONDS",
                       help: "How long a client has to send a request it has begun (default 10; slower ones get 408)."),
            OptionSpec(name: "cors", value: nil,
                       help: "Allow browsers on other origins (Access-Control-Allow-Origin: *)."),
            OptionSpec(
                name: "pois", value: "FILE",
                help:
                    "Points of interest (GeoJSON): serve the viewer at / (map and list in step, directions, a details "
                        + "editor that saves FILE)."
            ),
            OptionSpec(name: "edit-token", value: "TOKEN",
                       help: "The secret that lets a client edit the places (Authorization: Bearer TOKEN; "
                           + "else --edit-token-file, WAYMARK_EDIT_TOKEN, or one made and printed at start)."),
            OptionSpec(name: "edit-token-file", value: "FILE", help: "Read the edit token from FILE's first line."),
            OptionSpec(name: "read-only", value: nil, help: "Serve the viewer without editing."),
            drivingSideOption,
        ],
        discussion: """
        The map is loaded and prepared once (a graph file without a hierarchy is contracted first), then
        requests are answered as osrm-routed answers them, e.g.
          curl 'http://127.0.0.1:5000/route/v1/driving/-8.61,41.15;-8.60,41.16?steps=true'
          curl 'http://127.0.0.1:5000/table/v1/driving/-8.61,41.15;-8.60,41.16;-8.62,41.14\
        ?annotations=duration,distance'
          curl 'http://127.0.0.1:5000/nearest/v1/driving/-8.61,41.15?number=3'
        and GET /health. One log line per request on standard error. SIGINT or SIGTERM stops accepting,
        lets requests in flight finish, and exits 0. A new map renamed over the file (as 'waymark build'
        and 'waymark customize' write theirs), or SIGHUP, loads it beside the one serving and then
        answers new requests with it; requests in flight finish on the old one.
        """
    )

    static func run(_ args: ParsedArguments) throws(CLIError) {
        // One map per profile (a car map, a walking map): the URL's profile picks one.
        guard !args.positionals.isEmpty else { throw .usage("missing <map>") }
        let paths = args.positionals
        var configuration = HTTPServerConfiguration()
        configuration.host = args.value("host") ?? "127.0.0.1"
        configuration.port = UInt16(try args.number("port", default: 5000, in: 0...65535))
        configuration.threads = Int(
            try args.number("threads", default: Double(ProcessInfo.processInfo.activeProcessorCount), in: 1...256))
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
        limits.maxMatchingFixes = Int(try args.number("max-matching-size", default: 100, in: 2...100_000))
        limits.maxAlternatives = Int(try args.number("max-alternatives", default: 3, in: 0...3))
        // (As osrm-routed: a point snaps at any distance unless its radius, or this, limits it.)
        let maxSnap = try args.number("max-snap", default: .infinity, in: 1...20_000_000)

        // Who may edit, settled before the map is loaded.
        var editing = ViewerEditing.readOnly, generated = false
        if args.value("pois") != nil {
            do {
                (editing, generated) = try ViewerEditing.choose(
                    readOnly: args.flag("read-only"), token: args.value("edit-token"),
                    tokenFile: args.value("edit-token-file"), environment: ProcessInfo.processInfo.environment)
            } catch { throw .usage("\(error)") }
        } else if args.flag("read-only") || args.value("edit-token") != nil || args.value("edit-token-file") != nil {
            throw .usage("--read-only, --edit-token and --edit-token-file are for the viewer (--pois FILE)")
        }
        // The places file is read before the maps are loaded: a bad one fails at once, in one line.
        if let pois = args.value("pois") {
            do { _ = try PlaceFile(path: pois) } catch { throw .failure("\(error)") }
        }
        let start = DispatchTime.now().uptimeNanoseconds
        var maps: [RoadMap] = []
        for (i, path) in paths.enumerated() {
            // (The viewer draws the first map: only it needs its basemap.)
            let map = try openMap(path, args, method: RoadMap.searchMethod(for: .manyQueries), maxSnapDistance: maxSnap,
                                  basemap: i == 0 && args.value("pois") != nil,
                                  memory: RoadMap.memory(for: .manyQueries))
            // A file without a stored hierarchy is contracted before serving: said, with progress.
            var meter: ProgressMeter?
            if map.hierarchy == nil && map.method == .hierarchy {
                Output.error("waymark serve: \(path) stores no hierarchy: contracting \(map.graph.edgeCount) directed "
                             + "edges first ('waymark build --hierarchy' stores one)")
                meter = ProgressMeter(label: "hierarchy")
            }
            map.prepare(progress: meter.map { meter in { meter.update(contracted: $0, total: $1) } })
                .notes.forEach(Output.error)
            meter?.finish()
            maps.append(map)
        }
        let map = maps[0], preparation = map.prepare()
        let service: OSRMService
        do { service = try OSRMService(maps: maps, limits: limits) } catch { throw .usage("\(error)") }
        var made: ViewerService?
        if let pois = args.value("pois") {
            do { made = try ViewerService(osrm: service, placesPath: pois, editing: editing) } catch {
                throw .failure("\(error)")
            }
            configuration.methods.insert("PUT") // (read-only: the viewer answers 403 itself)
        }
        let viewer = made
        if let made, !made.hasBasemap {
            Output.error("waymark serve: \(paths[0]) has no basemap (built with --no-basemap, or by an older waymark): "
                         + "the viewer draws roads only")
        }
        let server: HTTPServer
        do {
            server = try HTTPServer(configuration: configuration, log: { Output.error($0) },
                                    makeHandler: { viewer?.makeHandler() ?? service.makeHandler() })
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
        // A new map in the file (renamed over it, or on SIGHUP) replaces the one serving.
        let side = try drivingSide(args), withBasemap = args.value("pois") != nil
        let reloaders = paths.enumerated().map { slot, path in
            MapReloader(service: service, path: path, slot: slot, load: { path in
                let map = try RoadMap(contentsOf: URL(fileURLWithPath: path), drivingSide: side,
                                      method: RoadMap.searchMethod(for: .manyQueries), maxSnapDistance: maxSnap,
                                      basemap: slot == 0 && withBasemap, memory: RoadMap.memory(for: .manyQueries))
                map.prepare().notes.forEach(Output.error)
                return map
            }, log: { Output.error($0) })
        }
        // (One SIGHUP reloads every file.)
        reloaders.forEach { $0.watch() }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        Output.error(
            String(
                format: "waymark serve: %@ (%d nodes, %@) ready in %.2f s; listening on http://%@:%d with %d threads",
                            zip(paths, maps).map { "\($0) (\($1.graph.travel))" }.joined(separator: ", "),
                            map.graph.nodeCount, preparation.search.description, seconds,
                            host, Int(server.port), configuration.threads))
        if case let .token(token) = editing, generated {
            // Printed once, as Jupyter prints its link: the page keeps the token for its session.
            Output.error("waymark serve: to edit places, open http://\(host):\(Int(server.port))/#token=\(token)")
        }
        server.run()
        reloaders.forEach { $0.stop() }
        sources.forEach { $0.cancel() }
        Output.error("waymark serve: stopped")
    }
}
