import Foundation
import Waymark

/// `waymark match`: the roads a recorded GPS trace followed (OSRM's match).
enum MatchCommand {
    static let spec = CommandSpec(
        name: "match",
        summary: "The roads a GPS trace followed, from a GPX or GeoJSON file (OSRM's match).",
        positionals: ["<map.wmg|.osm|.osm.gz|.osm.pbf>"],
        options: [
            OptionSpec(name: "trace", value: "FILE",
                       help: "The trace: GPX (track or route points, with their times) or a GeoJSON LineString."),
            OptionSpec(name: "accuracy", value: "METRES",
                       help: "The GPS noise of every fix (default 5; roads within three times it are tried)."),
            OptionSpec(name: "gaps", value: "split|ignore",
                       help: "Cut the trace where the times pause much longer than usual (default split)."),
            OptionSpec(name: "tidy", value: nil, help: "Merge fixes closer than 15 m and 5 s first."),
            OptionSpec(name: "no-timestamps", value: nil, help: "Ignore the trace's times."),
            OptionSpec(name: "format", value: "text|json|geojson",
                       help: "Each matching's directions (default), OSRM's match JSON, or the matched lines."),
            drivingSideOption,
            excludeOption,
            outputOption,
        ],
        discussion: """
        A hidden Markov model over the roads near each fix, as OSRM's: a trace that cannot be followed
        from one fix to the next (no road near, too far apart for its times) is cut into several
        matchings, each with OSRM's confidence.
        """
    )

    static func run(_ args: ParsedArguments) throws(CLIError) {
        let path = try args.requirePositionals(["<map>"])[0]
        guard let traceFile = args.value("trace") else { throw .usage("--trace FILE is required") }
        let trace: GPSTrace
        do { trace = try GPSTrace.read(path: traceFile) } catch { throw .failure("\(error)") }
        var options = MatchOptions()
        if !args.flag("no-timestamps") { options.timestamps = trace.timestamps }
        options.splitsAtGaps = try args.choice("gaps", ["split", "ignore"], default: "split") == "split"
        options.tidy = args.flag("tidy")
        if args.value("accuracy") != nil {
            let sigma = try args.number("accuracy", default: 5, in: 0.1...1000)
            options.route.radiuses = Array(repeating: sigma, count: trace.coordinates.count)
        }
        options.route.exclude = try excludedClasses(args)
        let format = try args.choice("format", ["text", "json", "geojson"], default: "text")
        // (The model asks for the roads between every two fixes' candidates: a table's workload.)
        let pairs = 16 * trace.coordinates.count
        let map = try openMap(path, args, method: RoadMap.searchMethod(for: .table(pairs: pairs)))
        let matched: MapMatch
        do { matched = try map.match(trace.coordinates, options: options) } catch {
            throw .failure("\(traceFile): \(error)")
        }
        let bytes: [UInt8]
        switch format {
        case "json":
            var writer = JSONWriter()
            matched.writeOSRMJSON(into: &writer, steps: true)
            bytes = writer.bytes + [0x0A]
        case "geojson": bytes = GeoJSONWriter().data(.featureCollection(matched.featureCollection))
        default: bytes = Array(matched.text.utf8)
        }
        try Output.emit(bytes, to: args.value("output"))
    }
}
