import Foundation
import Waymark

/// `waymark build`: OSM XML → graph file.
enum BuildCommand {
    static let spec = CommandSpec(
        name: "build",
        summary: "Build a car road graph from OpenStreetMap XML (.osm, .osm.gz) or PBF (.osm.pbf) into a graph file.",
        positionals: ["<input.osm|.osm.gz|.osm.pbf>"],
        options: [
            OptionSpec(name: "output", value: "FILE",
                       help: "The graph file to write (atomically), e.g. map.wmg (required).", short: "o",
                       writes: true),
            OptionSpec(
                name: "no-basemap", value: nil,
                help:
                    "Leave out what a map shows besides roads (water, parks, woods, railways, buildings, place "
                        + "names), kept by default for 'render' and the viewer."
            ),
            OptionSpec(name: "basemap", value: nil, help: "Keep the basemap (the default; for older scripts)."),
            OptionSpec(
                name: "hierarchy", value: nil,
                help:
                    "Also contract the graph (seconds on a city) and store the hierarchy: routes on the file are then "
                        + "answered in a fraction of a millisecond."
            ),
            OptionSpec(
                name: "exclusions", value: nil,
                help:
                    "With --hierarchy: also contract and store one per set of the toll roads, motorways and ferries "
                        + "the map has, for routes asked to keep off them (else made at the first such query)."
            ),
            OptionSpec(
                name: "driving-side", value: "right|left",
                help:
                    "Which side traffic keeps to, stored in the file (default: where the roads are, e.g. left "
                        + "in Britain, Japan, Australia)."
            ),
            OptionSpec(name: "quiet", value: nil, help: "No progress and no report."),
            OptionSpec(name: "profile", value: "car|bicycle|foot",
                       help: "Who the map is for: OSRM's car.lua (the default), bicycle.lua or foot.lua, stored in "
                           + "the file."),
            OptionSpec(name: "vehicle-height", value: "M",
                       help: "The vehicle's height in metres against maxheight (default 2.0, OSRM's car)."),
            OptionSpec(name: "vehicle-width", value: "M",
                       help: "Its width in metres against maxwidth, width, narrow (default 1.9)."),
            OptionSpec(name: "vehicle-length", value: "M",
                       help: "Its length in metres against maxlength (default 4.8)."),
            OptionSpec(name: "vehicle-weight", value: "KG",
                       help: "Its weight in kilograms against maxweight (default 2000)."),
        ],
        discussion: """
        Prints the build report (elements read, routable ways, graph size, what was dropped and why,
        the largest strongly connected component). Progress goes to standard error: a bar on a
        terminal, an occasional line otherwise.
        """
    )

    static func run(_ args: ParsedArguments) throws(CLIError) {
        let input = try args.requirePositionals(["<input.osm|.osm.gz|.osm.pbf>"])[0]
        guard let output = args.value("output") else { throw .usage("-o FILE is required (where to write the graph)") }
        if args.flag("exclusions") && !args.flag("hierarchy") { throw .usage("--exclusions needs --hierarchy") }
        let quiet = args.flag("quiet")
        let meter = quiet ? nil : ProgressMeter(label: (input as NSString).lastPathComponent)
        var progress: OSMGraphLoader.Progress?
        if let meter {
            progress = { bytes, total, elements in meter.update(bytes: bytes, total: total, elements: elements) }
        }
        let side = try drivingSide(args)
        let standard = Vehicle()
        let vehicle = Vehicle(height: try args.number("vehicle-height", default: standard.height, in: 0.5...10),
                              width: try args.number("vehicle-width", default: standard.width, in: 0.5...10),
                              length: try args.number("vehicle-length", default: standard.length, in: 1...50),
                              weight: try args.number("vehicle-weight", default: standard.weight, in: 100...100_000))
        let travel = TravelProfile(name: try args.choice("profile", TravelProfile.allCases.map(\.description),
                                                         default: "car"))!
        let vehicleOptions = ["vehicle-height", "vehicle-width", "vehicle-length", "vehicle-weight"]
        if travel != .car, let given = vehicleOptions.first(where: { args.value($0) != nil }) {
            throw .usage("--\(given) is for --profile car")
        }
        let profile = travel.routingProfile(vehicle: vehicle)
        if args.flag("no-basemap") && args.flag("basemap") {
            throw .usage("--basemap and --no-basemap ask for opposite things")
        }
        var graph: RoadGraph, basemap: Basemap?
        do {
            if !args.flag("no-basemap") {
                (graph, basemap) = try OSMGraphLoader.buildWithBasemap(path: input, profile: profile,
                                                                       progress: progress)
            } else {
                graph = try OSMGraphLoader.build(path: input, profile: profile, progress: progress)
            }
            if let side { graph.drivingSide = side }
        } catch {
            meter?.finish()
            throw .failure("\(error)")
        }
        meter?.finish()
        guard graph.edgeCount > 0 else {
            let r = graph.report
            func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }
            throw .failure(
                "\(input) holds no road a car may use (\(count(r.osmNodes, "node")), \(count(r.osmWays, "way")) read); "
                    + "no graph file written"
            )
        }
        let map = RoadMap(graph: graph, method: args.flag("hierarchy") ? .hierarchy : .automatic, basemap: basemap)
        var hierarchyLine = ""
        if args.flag("hierarchy") {
            if !quiet { Output.error("contracting \(graph.edgeCount) directed edges…") }
            let meter = quiet ? nil : ProgressMeter(label: "hierarchy")
            let preparation = map.prepare(progress: meter.map { meter in { meter.update(contracted: $0, total: $1) } })
            meter?.finish()
            if let refused = preparation.hierarchyRefused {
                throw .failure(
                    "\(input): no contraction hierarchy: \(refused); no graph file written (build without --hierarchy: "
                        + "routes then search without one)"
                )
            }
            if let hierarchy = map.hierarchy {
                hierarchyLine = String(format: "contraction hierarchy: %d shortcuts, %d arcs, %.2f s\n",
                                       hierarchy.shortcutCount,
                                       hierarchy.arcCount, preparation.searchSeconds)
            }
            if args.flag("exclusions") {
                let start = Date()
                let sets = map.prepareExclusions()
                if !sets.isEmpty {
                    hierarchyLine += String(format: "keeping off %@: %d more hierarchies, %.2f s\n",
                                            sets.map(\.description).joined(separator: " | "), sets.count,
                                            Date().timeIntervalSince(start))
                }
            }
        }
        do {
            try map.write(to: output)
        } catch {
            throw .failure("\(error)")
        }
        let basemapLine =
            basemap.map {
                "basemap: \($0.featureCount) features, \($0.places.count) places, \($0.droppedRings) rings dropped "
                    + "(not closed)\n"
            } ?? ""
        if !quiet { Output.write(summary(graph) + hierarchyLine + basemapLine + memoryLines(graph, file: output)) }
    }

    /// What the build cost in memory and what the file holds per edge: the peak resident size of
    /// the process (reading, the graph, contraction) and the file's bytes per directed edge.
    static func memoryLines(_ graph: RoadGraph, file: String) -> String {
        func line(_ key: String, _ value: String) -> String {
            key.padding(toLength: 32, withPad: " ", startingAt: 0) + value + "\n"
        }
        var usage = rusage()
        #if os(Linux)
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let peakBytes = Double(usage.ru_maxrss) * 1024 // KiB on Linux
        #else
        getrusage(RUSAGE_SELF, &usage)
        let peakBytes = Double(usage.ru_maxrss) // bytes on Darwin
        #endif
        var text = line("peak_memory_mb", String(format: "%.1f", peakBytes / 1_048_576))
        if let size = (try? FileManager.default.attributesOfItem(atPath: file))?[.size] as? Int {
            text += line("file_bytes", "\(size)")
            text += line("file_bytes_per_edge", String(format: "%.1f", Double(size) / Double(max(1, graph.edgeCount))))
        }
        return text
    }
}

/// The build report, the driving side and the profile, one `key value` line each.
func summary(_ graph: RoadGraph) -> String {
    graph.report.text + "driving_side".padding(toLength: 32, withPad: " ", startingAt: 0)
        + (graph.drivingSide == .left ? "left" : "right") + "\n"
        + "profile".padding(toLength: 32, withPad: " ", startingAt: 0) + graph.travel.description + "\n"
}

/// `waymark inspect`: what is in a graph file.
enum InspectCommand {
    static let spec = CommandSpec(
        name: "inspect",
        summary: "Show a graph file's build report; export its edges as CSV or GeoJSON.",
        positionals: ["<map.wmg>"],
        options: [
            OptionSpec(
                name: "edges", value: "FILE.csv",
                help:
                    "Write every directed edge: from,to,from_lat,from_lon,to_lat,to_lon,length_m,duration_s,name,"
                        + "highway.",
                writes: true
            ),
            OptionSpec(name: "geojson", value: "FILE",
                       help: "Write every directed edge as a GeoJSON LineString with its properties.", writes: true),
        ]
    )

    static func run(_ args: ParsedArguments) throws(CLIError) {
        let path = try args.requirePositionals(["<map.wmg>"])[0]
        let map: RoadMap
        do { map = try RoadMap(graphFile: path) } catch { throw .failure("\(error)") }
        let graph = map.graph, hierarchy = map.hierarchy
        if let csv = args.value("edges") { try Output.emit(graph.edgesCSV(), to: csv) }
        if let geojson = args.value("geojson") {
            try Output.emit(GeoJSONWriter().data(.featureCollection(graph.edgesFeatureCollection())), to: geojson)
        }
        if args.value("edges") != "-" && args.value("geojson") != "-" {
            let hierarchyLine =
                hierarchy.map { "contraction hierarchy: \($0.shortcutCount) shortcuts, \($0.arcCount) arcs\n" }
                ?? "contraction hierarchy: none (add one with 'waymark build --hierarchy')\n"
            Output.write(summary(graph) + hierarchyLine)
        }
    }
}

/// Build progress on standard error: a redrawn bar on a terminal, a plain line every ten percent
/// otherwise.
final class ProgressMeter: @unchecked Sendable {
    private let label: String
    private let isTerminal = isatty(STDERR_FILENO) == 1
    private let start = DispatchTime.now().uptimeNanoseconds
    private var lastDecile = -1
    private var drewBar = false
    private let lock = NSLock()

    init(label: String) {
        self.label = label
    }

    private var seconds: Double { max(1e-9, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9) }

    /// Reading: bytes of the file read, elements decoded.
    func update(bytes: Int, total: Int, elements: Int) {
        lock.lock()
        defer { lock.unlock() }
        let fraction = total > 0 ? min(1, Double(bytes) / Double(total)) : 0
        let rate = Double(elements) / seconds
        let mb = { (b: Int) in String(format: "%.1f MB", Double(b) / 1e6) }
        show(fraction, bar: String(format: "%@ / %@  %.1fk elements/s", mb(bytes), mb(total), rate / 1000),
             line: String(format: "%@ of %@, %.1fk elements/s", mb(bytes), mb(total), rate / 1000))
    }

    /// Contraction: nodes contracted of all, and the time left. Later nodes cost more (the graph
    /// left is denser): the last tenth takes about 45 % of the time. The share of the whole time
    /// spent by each point is nearly the same from map to map (measured on Porto and on Porto
    /// tiled 2 × 2, four times the nodes: within a few percent at every decile), so the time
    /// left is the time so far scaled by that share.
    func update(contracted: Int, total: Int) {
        lock.lock()
        defer { lock.unlock() }
        let now = seconds
        let fraction = total > 0 ? min(1, Double(contracted) / Double(total)) : 1
        let share = ProgressMeter.contractionShare(fraction)
        let eta =
            fraction >= 1
            ? String(format: "%.1f s", now) : "about " + ProgressMeter.duration(now * (1 / share - 1)) + " left"
        let k = { (n: Int) in String(format: "%.1fk", Double(n) / 1000) }
        let detail = "\(k(contracted)) of \(k(total)) nodes, \(eta)"
        show(fraction, bar: detail, line: detail)
    }

    /// The share of a contraction's time (preparation included) spent when `fraction` of the
    /// nodes are contracted: measured, interpolated between the points.
    static func contractionShare(_ fraction: Double) -> Double {
        let points: [(Double, Double)] = [(0, 0.03), (0.1, 0.040), (0.2, 0.058), (0.3, 0.078), (0.4, 0.108),
                                          (0.5, 0.138), (0.6, 0.180),
                                          (0.7, 0.250), (0.8, 0.36), (0.9, 0.55), (0.95, 0.73), (0.98, 0.88), (1, 1)]
        let f = min(1, max(0, fraction))
        guard let upper = points.firstIndex(where: { $0.0 >= f }), upper > 0 else { return points[0].1 }
        let (f0, s0) = points[upper - 1], (f1, s1) = points[upper]
        return s0 + (s1 - s0) * (f - f0) / (f1 - f0)
    }

    /// "8 s", "2 min 5 s", "1 h 3 min".
    static func duration(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        if s < 60 { return "\(s) s" }
        if s < 3600 { return "\(s / 60) min \(s % 60) s" }
        return "\(s / 3600) h \(s % 3600 / 60) min"
    }

    private func show(_ fraction: Double, bar detail: String, line: String) {
        if isTerminal {
            let width = 30, filled = Int(fraction * Double(width))
            let bar = String(repeating: "█", count: filled) + String(repeating: "·", count: width - filled)
            FileHandle.standardError.write(Data(String(format: "\r%@ [%@] %3.0f%%  %@ \u{1B}[K", label,
                                                       bar, fraction * 100, detail).utf8))
            drewBar = true
        } else {
            let decile = Int(fraction * 10)
            guard decile > lastDecile else { return }
            lastDecile = decile
            Output.error(String(format: "%@: %3.0f%% (%@)", label, fraction * 100, line))
        }
    }

    func finish() {
        if drewBar { FileHandle.standardError.write(Data("\n".utf8)) }
        drewBar = false
    }
}

// MARK: - Loading maps (shared by route, render and inspect)

/// The `--driving-side` option's value, if given.
func drivingSide(_ args: ParsedArguments) throws(CLIError) -> DrivingSide? {
    guard args.value("driving-side") != nil else { return nil }
    return try args.choice("driving-side", ["right", "left"], default: "right") == "left" ? .left : .right
}

let drivingSideOption = OptionSpec(name: "driving-side", value: "right|left",
                                   help: "Which side traffic keeps to (turns towards the kerb are cheaper); default: "
                                       + "the graph file's, or where the roads are.")

/// `--exclude`, as route, table and isochrone take it.
let excludeOption = OptionSpec(name: "exclude", value: "toll,motorway,ferry",
                               help: "Keep off roads of these classes (any combination; as OSRM's option).")

/// The classes `--exclude` names (none when not given).
func excludedClasses(_ args: ParsedArguments) throws(CLIError) -> ExcludedClasses {
    guard let text = args.value("exclude"), !text.isEmpty else { return [] }
    switch ExcludedClasses.parse(text) {
    case .success(let classes): return classes
    case .failure(let unknown): throw .usage("--exclude: \(unknown)")
    }
}

/// `-o FILE`, as every command that prints its result takes it.
let outputOption = OptionSpec(name: "output", value: "FILE",
                              help: "Write to FILE (atomically) instead of standard output.", short: "o",
                              writes: true)

/// The map at `path` (a graph file, or OSM XML built in memory), with the `--driving-side`
/// option applied; says on standard error when that sets the file's hierarchy aside.
func openMap(_ path: String, _ args: ParsedArguments, method: RoadMap.SearchMethod = .automatic,
             maxSnapDistance: Double = 1000, basemap: Bool = false,
             memory: FileMemory = .mapped) throws(CLIError) -> RoadMap {
    let map: RoadMap
    do {
        map = try RoadMap(contentsOf: URL(fileURLWithPath: path), drivingSide: try drivingSide(args), method: method,
                          maxSnapDistance: maxSnapDistance, basemap: basemap, memory: memory)
    } catch {
        throw .failure("\(error)")
    }
    if let note = map.setAsideHierarchy { Output.error(note) }
    return map
}
