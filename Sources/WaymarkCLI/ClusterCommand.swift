import Foundation
import Waymark

/// `waymark cluster`: supercluster-compatible clusters of annotations at a zoom.
enum ClusterCommand {
    static let spec = CommandSpec(
        name: "cluster",
        summary: "Cluster annotations at a zoom level (supercluster-compatible ids and properties).",
        positionals: ["<annotations.geojson|.csv>"],
        options: [
            OptionSpec(name: "zoom", value: "Z",
                       help: "Zoom to show (fractional zooms are floored). Required unless asking about one cluster."),
            OptionSpec(name: "bbox", value: "W,S,E,N",
                       help: "Box to show; west > east crosses 180° (default: the whole world)."),
            OptionSpec(name: "radius", value: "R", help: "Cluster radius in pixels (default 40)."),
            OptionSpec(name: "extent", value: "E", help: "Tile extent the radius is relative to (default 512)."),
            OptionSpec(name: "min-points", value: "N", help: "Fewest points that form a cluster (default 2)."),
            OptionSpec(name: "min-zoom", value: "Z", help: "Lowest zoom with clusters (default 0)."),
            OptionSpec(name: "max-zoom", value: "Z", help: "Highest zoom with clusters (default 16)."),
            OptionSpec(
                name: "group-by", value: "PROPERTY",
                help:
                    "Only annotations with the same value of PROPERTY cluster together (MapKit's clusteringIdentifier);"
                        + " those without it never cluster."
            ),
            OptionSpec(name: "children", value: "ID", help: "Print the clusters and points one zoom below cluster ID."),
            OptionSpec(name: "leaves", value: "ID", help: "Print the annotations inside cluster ID."),
            OptionSpec(name: "limit", value: "N", help: "With --leaves: at most N (default 10; 0 for all)."),
            OptionSpec(name: "offset", value: "N", help: "With --leaves: skip the first N (default 0)."),
            OptionSpec(name: "expansion-zoom", value: "ID", help: "Print the zoom at which cluster ID splits."),
            OptionSpec(name: "format", value: "geojson|text", help: "Output format (default geojson)."),
            OptionSpec(name: "precision", value: "N", help: "Decimal places for GeoJSON positions (default 6)."),
            outputOption,
        ],
        discussion: """
        GeoJSON output is a FeatureCollection: clusters carry cluster: true, cluster_id,
        point_count and point_count_abbreviated ("1.2k", "34k") as in supercluster; single
        annotations keep their own properties. Cluster ids are supercluster's, so ids stored by a
        supercluster app stay valid (with --group-by they are unique but not supercluster's).
        """
    )

    static func run(_ args: ParsedArguments) throws(CLIError) {
        let path = try args.requirePositionals(["<annotations file>"])[0]
        let options = try clusterOptions(args)
        let format = try args.choice("format", ["geojson", "text"], default: "geojson")
        let precision = Int(try args.number("precision", default: 6, in: 0...15))
        let questions = ["children", "leaves", "expansion-zoom"].filter { args.value($0) != nil }
        guard questions.count <= 1 else { throw .usage("ask one of --children, --leaves, --expansion-zoom at a time") }
        if questions.isEmpty && args.value("zoom") == nil {
            throw .usage("--zoom Z is required (or --children, --leaves or --expansion-zoom ID)")
        }

        let annotations: [Annotation]
        var unlocated = 0
        do {
            annotations = try loadAnnotations(path, unlocated: &unlocated)
        } catch {
            throw .failure("\(error)")
        }
        let index: ClusterIndex
        do {
            index = try ClusterIndex(annotations: annotations, options: options, groupBy: args.value("group-by"),
                                     unlocatedCount: unlocated)
        } catch {
            throw .failure("\(path): \(error)")
        }

        func clusterID(_ name: String) throws(CLIError) -> Int {
            let text = args.value(name)!
            guard let id = Int(text) else {
                throw .usage("--\(name) takes a cluster id (a whole number), not '\(text)'")
            }
            return id
        }
        let items: [ClusterItem]
        do {
            if questions.first == "expansion-zoom" {
                Output.write("\(try index.expansionZoom(of: try clusterID("expansion-zoom")))\n")
                return
            } else if questions.first == "children" {
                items = try index.children(of: try clusterID("children"))
            } else if questions.first == "leaves" {
                let limit = Int(try args.number("limit", default: 10, in: 0...1e12))
                let offset = Int(try args.number("offset", default: 0, in: 0...1e12))
                items = try index.leaves(of: try clusterID("leaves"),
                                         limit: limit == 0 ? .max : limit, offset: offset).map(ClusterItem.point)
            } else {
                let zoom = try args.number("zoom", default: 0, in: 0...30)
                let box = try bbox(args)
                items = index.clusters(west: box.0, south: box.1, east: box.2, north: box.3, zoom: zoom)
            }
        } catch let error as ClusterError {
            throw .failure("\(path): \(error)")
        } catch let error as CLIError {
            throw error
        } catch {
            throw .failure("\(error)")
        }

        switch format {
        case "text":
            Output.write(text(items, annotations))
        default:
            let collection = FeatureCollection(features: items.map { $0.feature(annotations: annotations) })
            try Output.emit(GeoJSONWriter(precision: precision).data(.featureCollection(collection)),
                            to: args.value("output"))
        }
    }

    static func clusterOptions(_ args: ParsedArguments) throws(CLIError) -> ClusterOptions {
        var options = ClusterOptions()
        options.radius = try args.number("radius", default: 40, in: 0.001...1_000_000)
        options.extent = try args.number("extent", default: 512, in: 1...1_000_000)
        options.minPoints = Int(try args.number("min-points", default: 2, in: 1...1_000_000_000))
        options.minZoom = Int(try args.number("min-zoom", default: 0, in: 0...30))
        options.maxZoom = Int(try args.number("max-zoom", default: 16, in: 0...30))
        guard options.minZoom <= options.maxZoom else {
            throw .usage("--min-zoom \(options.minZoom) is above --max-zoom \(options.maxZoom)")
        }
        return options
    }

    /// `--bbox WEST,SOUTH,EAST,NORTH`, the whole world without it.
    static func bbox(_ args: ParsedArguments) throws(CLIError) -> (Double, Double, Double, Double) {
        guard let text = args.value("bbox") else { return (-180.0, -90.0, 180.0, 90.0) }
        let v = text.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard v.count == 4, v.allSatisfy({ $0 != nil && $0!.isFinite }) else {
            throw CLIError.usage("--bbox must be WEST,SOUTH,EAST,NORTH in degrees, not '\(text)'")
        }
        let box = (v[0]!, v[1]!, v[2]!, v[3]!)
        guard box.1 <= box.3 else { throw CLIError.usage("--bbox south \(box.1) is above north \(box.3)") }
        return box
    }

    static func text(_ items: [ClusterItem], _ annotations: [Annotation]) -> String {
        var lines: [String] = []
        let clusters = items.filter { if case .cluster = $0 { return true } else { return false } }.count
        lines.append("\(items.count) items: \(clusters) clusters, \(items.count - clusters) single annotations")
        for item in items {
            switch item {
            case let .cluster(c):
                lines.append(String(format: "cluster %-10d %7d points  %10.6f, %11.6f", c.id, c.pointCount,
                                    c.coordinate.latitude, c.coordinate.longitude))
            case let .point(i):
                let a = annotations[i]
                lines.append(String(format: "point   #%-9d %14@  %10.6f, %11.6f", i, "",
                                    a.coordinate.latitude, a.coordinate.longitude)
                             + (a.title.map { "  \($0)" } ?? ""))
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
