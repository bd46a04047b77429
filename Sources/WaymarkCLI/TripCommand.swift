import Foundation
import Waymark

/// `waymark trip`: the best order to visit stops in, and the route through them (OSRM's trip).
enum TripCommand {
    static let spec = CommandSpec(
        name: "trip",
        summary: "The best order to visit stops in and the route through them (OSRM's trip).",
        positionals: ["<map.wmg|.osm|.osm.gz|.osm.pbf>"],
        options: [
            OptionSpec(name: "stops", value: "FILE",
                       help: "The stops: points as GeoJSON or CSV (latitude and longitude columns), in order."),
            OptionSpec(name: "roundtrip", value: "true|false",
                       help: "Back to the first stop at the end (default true)."),
            OptionSpec(name: "source", value: "any|first", help: "Start at the first stop given (default any)."),
            OptionSpec(name: "destination", value: "any|last", help: "End at the last stop given (default any)."),
            OptionSpec(name: "format", value: "text|json",
                       help: "The order and the directions (default), or OSRM's trip JSON."),
            OptionSpec(name: "max-snap", value: "METRES", help: "Farthest a stop may be from a road (default 1000)."),
            drivingSideOption,
            excludeOption,
            outputOption,
        ],
        discussion: """
        Exact (as trying every order) up to 15 stops; beyond, farthest insertion improved by 2-opt and
        Or-opt moves. As OSRM: a trip that neither comes back nor ends at the last stop is not
        implemented, and stops that cannot all reach one another have no trip.
        """
    )

    static func run(_ args: ParsedArguments) throws(CLIError) {
        let path = try args.requirePositionals(["<map>"])[0]
        guard let stopsFile = args.value("stops") else { throw .usage("--stops FILE is required") }
        var options = TripOptions()
        options.roundtrip = try args.choice("roundtrip", ["true", "false"], default: "true") == "true"
        options.fixedStart = try args.choice("source", ["any", "first"], default: "any") == "first"
        options.fixedEnd = try args.choice("destination", ["any", "last"], default: "any") == "last"
        options.route.exclude = try excludedClasses(args)
        let format = try args.choice("format", ["text", "json"], default: "text")
        let maxSnap = try args.number("max-snap", default: 1000, in: 1...100_000)
        let stops = try readAnnotations(stopsFile).map(\.coordinate)
        guard stops.count >= 2 else { throw .failure("\(stopsFile): a trip needs at least two stops") }
        let map = try openMap(path, args, method: RoadMap.searchMethod(for: .table(pairs: stops.count * stops.count)),
                              maxSnapDistance: maxSnap)
        let trip: Trip
        do { trip = try map.trip(stops, options: options) } catch { throw .failure("\(error)") }
        let text: String
        if format == "json" {
            var writer = JSONWriter()
            trip.writeOSRMJSON(into: &writer, steps: true)
            text = String(decoding: writer.bytes, as: UTF8.self) + "\n"
        } else {
            text = "Stops in order: " + trip.order.map { String($0 + 1) }.joined(separator: ", ")
                + (options.roundtrip ? ", back to \(trip.order[0] + 1)" : "") + "\n\n" + trip.route.text
        }
        try Output.emit(Array(text.utf8), to: args.value("output"))
    }
}
