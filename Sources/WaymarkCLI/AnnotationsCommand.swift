import Waymark

/// `waymark annotations`: reads annotations (GeoJSON or CSV) and writes them as GeoJSON.
enum AnnotationsCommand {
    static let spec = CommandSpec(
        name: "annotations",
        summary: "Convert annotations (GeoJSON or CSV) to a GeoJSON FeatureCollection of Points.",
        positionals: ["<annotations.geojson|.csv>"],
        options: [
            OptionSpec(name: "precision", value: "N", help: "Decimal places for positions (default 6, about 0.1 m)."),
            outputOption,
        ],
        discussion: """
        Properties: title and subtitle first, then every other property of the input (CSV columns
        other than latitude and longitude become string properties). The collection carries a bbox
        that takes the short way round the antimeridian.
        """
    )

    static func run(_ args: ParsedArguments) throws(CLIError) {
        let path = try args.requirePositionals(["<annotations file>"])[0]
        let precision = Int(try args.number("precision", default: 6, in: 0...15))
        let annotations: [Annotation]
        do {
            annotations = try loadAnnotations(path)
        } catch {
            throw .failure("\(error)")
        }
        var collection = annotations.featureCollection
        collection.bbox = collection.computedBoundingBox
        let bytes = GeoJSONWriter(precision: precision).data(.featureCollection(collection))
        try Output.emit(bytes, to: args.value("output"))
    }
}
