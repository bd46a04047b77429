import Foundation
import Waymark

/// `waymark table`: travel times (and distances) between every source and every destination.
enum TableCommand {
    static let spec = CommandSpec(
        name: "table",
        summary: "Travel times and distances from every source to every destination (OSRM's table).",
        positionals: ["<map.wmg|.osm|.osm.gz|.osm.pbf>"],
        options: [
            OptionSpec(name: "sources", value: "FILE",
                       help: "Sources: points as GeoJSON or CSV (latitude and longitude columns), read as places are."),
            OptionSpec(name: "destinations", value: "FILE", help: "Destinations, the same way (default: the sources)."),
            OptionSpec(
                name: "format", value: "json|csv",
                help: "OSRM's table JSON with durations and distances (default), or CSV durations, one row per "
                    + "source."),
            OptionSpec(name: "max-snap", value: "METRES", help: "Farthest a point may be from a road (default 1000)."),
            drivingSideOption,
            excludeOption,
            outputOption,
        ],
        discussion:
            "Unreachable pairs are null in JSON and empty in CSV. The map routes on its contraction hierarchy; a file "
                + "without one answers up to 100 pairs by A*, pair by pair, and contracts one first for more."
    )

    static func run(_ args: ParsedArguments) throws(CLIError) {
        let path = try args.requirePositionals(["<map>"])[0]
        guard let sourcesFile = args.value("sources") else { throw .usage("--sources FILE is required") }
        let format = try args.choice("format", ["json", "csv"], default: "json")
        let maxSnap = try args.number("max-snap", default: 1000, in: 1...100_000)
        let sourcePoints = try readAnnotations(sourcesFile)
        let destinationPoints = try args.value("destinations").map(readAnnotations) ?? sourcePoints
        let sources = sourcePoints.map(\.coordinate), destinations = destinationPoints.map(\.coordinate)
        guard !sources.isEmpty else { throw .failure("\(sourcesFile): no points") }
        guard !destinations.isEmpty else { throw .failure("\(args.value("destinations") ?? sourcesFile): no points") }
        let method = RoadMap.searchMethod(for: .table(pairs: sources.count * destinations.count))
        let map = try openMap(path, args, method: method, maxSnapDistance: maxSnap)
        let table: DistanceTable
        let exclude = try excludedClasses(args)
        do {
            table = try map.table(sources: sources, destinations: destinations, exclude: exclude)
        } catch { throw .failure("\(error)") }
        let json = { table.osrmJSON(on: map, durations: true, distances: true).jsonText() + "\n" }
        // (Each point's title, else its id, labels its row or column.)
        func labels(_ points: [Annotation]) -> [String] { points.map { $0.title ?? $0.id?.description ?? "" } }
        let text = format == "csv"
            ? table.durationsCSV(sourceLabels: labels(sourcePoints), destinationLabels: labels(destinationPoints))
            : json()
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
            OptionSpec(name: "minutes", value: "M[,M…]",
                       help: "Driving times in minutes, up to four (default 5,10,15)."),
            OptionSpec(name: "lines", value: nil, help: "Outlines as lines instead of polygons."),
            OptionSpec(
                name: "denoise", value: "0…1",
                help: "Keep polygons at least this share of the largest's area (default 1: the largest only; 0: all)."),
            OptionSpec(name: "max-snap", value: "METRES",
                       help: "Farthest the start may be from a road (default 1000)."),
            drivingSideOption,
            excludeOption,
            outputOption,
        ],
        discussion:
            "The areas follow the roads reached (about two grid cells either side), so what no road reaches stays out; "
                + "the shorter times' areas lie inside the longer ones'."
    )

    static func run(_ args: ParsedArguments) throws(CLIError) {
        let path = try args.requirePositionals(["<map>"])[0]
        guard let from = try args.coordinate("from") else { throw .usage("--from LAT,LON is required") }
        let minutes = try parseMinutes(args.value("minutes") ?? "5,10,15")
        let denoise = try args.number("denoise", default: 1, in: 0...1)
        let maxSnap = try args.number("max-snap", default: 1000, in: 1...100_000)
        let exclude = try excludedClasses(args)
        let map = try openMap(path, args, maxSnapDistance: maxSnap)
        let isochrone: Isochrone
        do {
            isochrone = try map.isochrone(from: from, minutes: minutes, denoise: denoise, exclude: exclude)
        } catch {
            throw .failure("\(error)")
        }
        try Output.emit(
            GeoJSONWriter().data(.featureCollection(isochrone.featureCollection(polygons: !args.flag("lines")))),
            to: args.value("output"))
    }

    static func parseMinutes(_ text: String) throws(CLIError) -> [Double] {
        var minutes: [Double] = []
        for piece in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard let m = Double(piece.trimmingCharacters(in: .whitespaces)), m.isFinite else {
                throw .usage("--minutes: '\(piece)' is not a number")
            }
            minutes.append(m)
        }
        if let problem = Isochrone.problem(minutes: minutes) { throw .usage("--minutes: \(problem)") }
        return minutes
    }
}
