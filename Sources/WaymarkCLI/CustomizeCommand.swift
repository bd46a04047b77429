import Foundation
import Waymark

/// `waymark customize`: new speeds and turn penalties (OSRM's CSV files) → a new graph file.
enum CustomizeCommand {
    static let spec = CommandSpec(
        name: "customize",
        summary: "Write a graph file whose routes use new speeds and turn penalties (OSRM's CSV files).",
        positionals: ["<map.wmg>"],
        options: [
            OptionSpec(name: "output", value: "FILE",
                       help: "The graph file to write (atomically; may be the input, replaced by rename) (required).",
                       short: "o", writes: true),
            OptionSpec(name: "segment-speeds", value: "FILE.csv",
                       help: "from_osm_id,to_osm_id,speed_kmh[,rate] per line, as osrm-customize's "
                           + "--segment-speed-file (repeatable; a later file wins).", repeatable: true),
            OptionSpec(name: "turn-penalties", value: "FILE.csv",
                       help: "from_osm_id,via_osm_id,to_osm_id,penalty_s[,weight] per line, as osrm-customize's "
                           + "--turn-penalty-file (repeatable).", repeatable: true),
            OptionSpec(name: "quiet", value: nil, help: "No report."),
        ],
        discussion: """
        Customizes the map as built (its speeds from the profile) every time, as osrm-customize
        does: keep the built map and customize it again for each new set of files. A speed of 0
        closes a road. The map's hierarchy, and those keeping off classes where it stores them,
        are customized on the map's dissection (not contracted again); 'annotations=datasources'
        then names the file each speed came from.
        """
    )

    static func run(_ args: ParsedArguments) throws(CLIError) {
        let input = try args.requirePositionals(["<map.wmg>"])[0]
        guard let output = args.value("output") else { throw .usage("-o FILE is required (where to write the map)") }
        let speedFiles = args.allValues("segment-speeds"), penaltyFiles = args.allValues("turn-penalties")
        guard !speedFiles.isEmpty || !penaltyFiles.isEmpty else {
            throw .usage("give --segment-speeds FILE.csv or --turn-penalties FILE.csv")
        }
        let start = Date()
        let updates: SpeedUpdates
        do {
            updates = try SpeedUpdates(segmentSpeedFiles: speedFiles, turnPenaltyFiles: penaltyFiles)
        } catch { throw .failure("\(error)") }
        let read = Date()
        let map: RoadMap
        do { map = try RoadMap(graphFile: input) } catch { throw .failure("\(error)") }
        let customized: (map: RoadMap, report: CustomizeReport)
        do { customized = try map.customized(with: updates) } catch { throw .failure("\(error)") }
        let prepared = Date()
        do { try customized.map.write(to: output) } catch { throw .failure("\(error)") }
        guard !args.flag("quiet") else { return }
        let r = customized.report
        func line(_ key: String, _ value: String) -> String {
            key.padding(toLength: 32, withPad: " ", startingAt: 0) + value + "\n"
        }
        var text = ""
        for (i, name) in updates.sourceNames.enumerated().dropFirst() {
            text += line("stretches_from_\(name)", "\(r.stretchesBySource[i])")
        }
        text += line("speed_lines_unmatched", "\(r.unmatchedSpeeds)")
        text += line("edges_updated", "\(r.edgesUpdated)") + line("edges_closed", "\(r.edgesClosed)")
        text += line("turns_updated", "\(r.turnsUpdated)") + line("turn_lines_unmatched", "\(r.unmatchedPenalties)")
        if let hierarchy = customized.map.hierarchy {
            text += line("hierarchy", "\(hierarchy.shortcutCount) shortcuts, \(hierarchy.arcCount) arcs")
            let sets = customized.map.preparedExclusionSets
            if !sets.isEmpty { text += line("keeping_off", sets.map(\.description).joined(separator: " | ")) }
        }
        text += line("read_files_seconds", String(format: "%.3f", read.timeIntervalSince(start)))
        text += line("customize_seconds", String(format: "%.3f", prepared.timeIntervalSince(read)))
        text += line("write_seconds", String(format: "%.3f", Date().timeIntervalSince(prepared)))
        Output.write(text)
    }
}
