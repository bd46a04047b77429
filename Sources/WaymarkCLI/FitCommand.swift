import Waymark

/// `waymark fit`: the camera that shows every annotation of a file (MapKit's `showAnnotations`).
enum FitCommand {
    static let spec = CommandSpec(
        name: "fit",
        summary:
            "Fit a viewport to annotations: the center and zoom that show them all (like MapKit's showAnnotations).",
        positionals: ["<annotations.geojson|.csv>"],
        options: [
            OptionSpec(name: "viewport", value: "WIDTHxHEIGHT",
                       help: "Viewport size in points, e.g. 390x844 (required)."),
            OptionSpec(name: "padding", value: "N|T,L,B,R",
                       help: "Edge padding in points: one value, or top,left,bottom,right (default 0)."),
            OptionSpec(name: "tile-size", value: "256|512",
                       help: "World size at zoom 0: 256 for MapKit/Leaflet/Google, 512 for Mapbox GL (default 256)."),
            OptionSpec(name: "min-zoom", value: "Z", help: "Lowest zoom allowed (default 0)."),
            OptionSpec(name: "max-zoom", value: "Z",
                       help: "Highest zoom allowed; one point is shown at it (default 18)."),
            OptionSpec(name: "zoom-snap", value: "S",
                       help: "Snap the zoom down to a multiple of S, as Leaflet's zoomSnap (default: no snap)."),
            OptionSpec(name: "format", value: "text|json", help: "Output format (default text)."),
        ],
        discussion: """
        The file is GeoJSON (a FeatureCollection of Points with title/subtitle properties) or CSV with
        the header latitude,longitude,title,subtitle; '-' reads GeoJSON or CSV from standard input.
        Points that straddle 180° are fitted across it (170°E and 170°W: a 20° span centred on 180°).

        JSON output: {"center":{"latitude","longitude"},"zoom","snappedZoom",
                      "span":{"latitudeDelta","longitudeDelta"},"bbox":[west,south,east,north]}
        where span and bbox are what the viewport shows at snappedZoom.
        """
    )

    static func run(_ args: ParsedArguments) throws(CLIError) {
        let path = try args.requirePositionals(["<annotations file>"])[0]
        guard let viewportText = args.value("viewport") else {
            throw .usage("--viewport WIDTHxHEIGHT is required, e.g. --viewport 390x844")
        }
        let (width, height) = try parseViewport(viewportText)
        let padding = try parsePadding(args.value("padding"))
        let tileSize = try args.choice("tile-size", ["256", "512"], default: "256")
        var options = ViewportOptions(width: width, height: height, padding: padding,
                                      minZoom: try args.number("min-zoom", default: 0, in: 0...30),
                                      maxZoom: try args.number("max-zoom", default: 18, in: 0...30),
                                      projection: tileSize == "512" ? .tiles512 : .tiles256)
        if args.value("zoom-snap") != nil {
            options.zoomSnap = try args.number("zoom-snap", default: 1, in: 0.001...30)
        }
        guard options.minZoom <= options.maxZoom else {
            throw .usage("--min-zoom \(options.minZoom) is above --max-zoom \(options.maxZoom)")
        }
        let format = try args.choice("format", ["text", "json"], default: "text")

        let annotations: [Annotation]
        do {
            annotations = try loadAnnotations(path)
        } catch {
            throw .failure("\(error)")
        }
        let fit: ViewportFit
        do {
            fit = try fitViewport(annotations, options: options)
        } catch {
            if case .paddingLeavesNoRoom = error { throw .usage("\(error)") }
            if case .invalidViewport = error { throw .usage("\(error)") }
            throw .failure("\(path): \(error)")
        }
        switch format {
        case "json": Output.write(fit.json.jsonText() + "\n")
        default: Output.write(fit.text)
        }
    }

    static func parseViewport(_ text: String) throws(CLIError) -> (Double, Double) {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let w = Double(parts[0]), let h = Double(parts[1]),
              w.isFinite, h.isFinite, w > 0, h > 0
        else { throw .usage("--viewport must be WIDTHxHEIGHT in positive points, e.g. 390x844, not '\(text)'") }
        return (w, h)
    }

    static func parsePadding(_ text: String?) throws(CLIError) -> EdgePadding {
        guard let text else { return .zero }
        let numbers = text.split(separator: ",", omittingEmptySubsequences: false).map {
            Double($0.trimmingCharacters(in: .whitespaces))
        }
        guard numbers.count == 1 || numbers.count == 4,
              numbers.allSatisfy({ $0 != nil && $0!.isFinite && $0! >= 0 })
        else { throw .usage("--padding must be N or TOP,LEFT,BOTTOM,RIGHT in points ≥ 0, not '\(text)'") }
        let v = numbers.map { $0! }
        return v.count == 1 ? EdgePadding(all: v[0]) : EdgePadding(top: v[0], left: v[1], bottom: v[2], right: v[3])
    }
}
