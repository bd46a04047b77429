import Foundation
import Waymark

/// Terminal facts the callout needs: ANSI only on a terminal and never with NO_COLOR.
enum Terminal {
    static var stdoutIsTTY: Bool { isatty(STDOUT_FILENO) == 1 }
    static var stdinIsTTY: Bool { isatty(STDIN_FILENO) == 1 }
    /// NO_COLOR (https://no-color.org): present and not empty turns colour off.
    static var noColor: Bool { !(ProcessInfo.processInfo.environment["NO_COLOR"] ?? "").isEmpty }

    static func calloutStyle(_ args: ParsedArguments) throws(CLIError) -> CalloutStyle {
        let width = Int(try args.number("width", default: 64, in: Double(CalloutStyle.minimumWidth)...1000))
        return CalloutStyle(ascii: args.flag("ascii"), ansi: stdoutIsTTY && !noColor, width: width)
    }
}

/// Annotations from a GeoJSON or CSV file.
func readAnnotations(_ path: String) throws(CLIError) -> [Annotation] {
    do { return try loadAnnotations(path) } catch { throw .failure("\(error)") }
}

/// Annotations from a GeoJSON or CSV file; says on standard error how many features without a
/// geometry were skipped.
func loadAnnotations(_ path: String) throws(AnnotationFileError) -> [Annotation] {
    var unlocated = 0
    return try loadAnnotations(path, unlocated: &unlocated)
}

/// ``loadAnnotations(_:)``, counting the features skipped in `unlocated`.
func loadAnnotations(_ path: String, unlocated: inout Int) throws(AnnotationFileError) -> [Annotation] {
    let annotations = try AnnotationReader.read(path: path, unlocated: &unlocated)
    if unlocated > 0 {
        Output.error("\(path): skipped \(unlocated) feature\(unlocated == 1 ? "" : "s") without a geometry")
    }
    return annotations
}

/// The position of the annotation with feature id `id` in the annotations read from `path`.
func annotationIndex(_ annotations: [Annotation], id: String, in path: String,
                     noun: String = "annotation") throws(CLIError) -> Int {
    guard let i = annotations.firstIndex(ofID: id) else { throw .failure("\(path): no \(noun) with id \"\(id)\"") }
    return i
}

/// Reads annotations (GeoJSON or CSV) and picks one by `--id` or `--index`.
func pickAnnotation(_ path: String,
                    _ args: ParsedArguments) throws(CLIError) -> (annotations: [Annotation], index: Int) {
    let annotations = try readAnnotations(path)
    switch (args.value("id"), args.value("index")) {
    case let (id?, nil):
        return (annotations, try annotationIndex(annotations, id: id, in: path))
    case let (nil, text?):
        guard let i = Int(text), i >= 0 else { throw .usage("--index must be a whole number ≥ 0, not '\(text)'") }
        guard i < annotations.count else {
            throw .failure("\(path): no annotation at index \(i) (it has \(annotations.count))")
        }
        return (annotations, i)
    case (nil, nil): throw .usage("give --id ID or --index N")
    default: throw .usage("give --id or --index, not both")
    }
}

/// `waymark callout`: a map pin's callout in the terminal.
enum CalloutCommand {
    static let spec = CommandSpec(
        name: "callout",
        summary: "Show an annotation's callout: title, subtitle, coordinate, directions and details buttons.",
        positionals: ["<annotations.geojson|.csv>"],
        options: [
            OptionSpec(name: "id", value: "ID", help: "The annotation with this feature id."),
            OptionSpec(name: "index", value: "N", help: "The annotation at this position (0 = first)."),
            OptionSpec(name: "width", value: "COLUMNS",
                       help: "Total width; longer text wraps (default 64, at least 48)."),
            OptionSpec(name: "ascii", value: nil, help: "ASCII only, for terminals without Unicode."),
        ],
        discussion: "Bold and colour only on a terminal, and never when NO_COLOR is set."
    )

    static func run(_ args: ParsedArguments) throws(CLIError) {
        let path = try args.requirePositionals(["<annotations>"])[0]
        let (annotations, i) = try pickAnnotation(path, args)
        Output.write(Callout(annotations[i]).render(try Terminal.calloutStyle(args)))
    }
}

/// `waymark render`: the map as an SVG picture.
enum RenderCommand {
    static let spec = CommandSpec(
        name: "render",
        summary: "Draw a map as SVG: roads by class, a route, clustered pins, a callout, scale bar.",
        positionals: ["<map.wmg|.osm|.osm.gz|.osm.pbf>"],
        options: [
            OptionSpec(name: "from", value: "LAT,LON", help: "Route start (with --to)."),
            OptionSpec(name: "to", value: "LAT,LON", help: "Route destination."),
            OptionSpec(name: "via", value: "LAT,LON", help: "A waypoint on the way; repeatable.", repeatable: true),
            OptionSpec(name: "annotations", value: "FILE",
                       help: "Points of interest (GeoJSON or CSV), clustered at the shown zoom."),
            OptionSpec(name: "select", value: "ID", help: "Show this annotation's callout."),
            OptionSpec(name: "size", value: "WxH", help: "Picture size in points (default 800x600)."),
            drivingSideOption,
            OptionSpec(name: "output", value: "FILE",
                       help: "Write the SVG to FILE (atomically) instead of standard output.", short: "o",
                       writes: true),
        ],
        discussion: "The viewport is fitted to the route and the annotations (the whole map when there are neither)."
    )

    static func run(_ args: ParsedArguments) throws(CLIError) {
        let path = try args.requirePositionals(["<map>"])[0]
        let sizeText = args.value("size") ?? "800x600"
        let parts = sizeText.lowercased().split(separator: "x").compactMap { Double($0) }
        guard parts.count == 2, parts.allSatisfy({ (64...8000).contains($0) }) else {
            throw .usage("--size must be WIDTHxHEIGHT with each 64…8000, not '\(sizeText)'")
        }
        let waypoints = try routeWaypoints(args)
        var annotations: [Annotation] = []
        if let file = args.value("annotations") { annotations = try readAnnotations(file) }
        var selected: Int?
        if let id = args.value("select") {
            guard let file = args.value("annotations") else { throw .usage("--select needs --annotations") }
            selected = try annotationIndex(annotations, id: id, in: file)
        }
        let map = try openMap(path, args, basemap: true)
        let basemap: Basemap?
        do { basemap = try map.basemap() } catch { throw .failure("\(error)") }
        if basemap == nil {
            Output.error("waymark render: \(path) has no basemap (built with --no-basemap, or by an older waymark): "
                         + "roads only")
        }
        var route: Route?
        if let waypoints {
            do { route = try map.route(waypoints) } catch { throw .failure("\(error)") }
        }
        let picture = MapPicture(width: parts[0], height: parts[1])
        let svg: String
        do {
            svg = try picture.svg(MapScene(graph: map.graph, route: route, annotations: annotations,
                                           selected: selected, basemap: basemap))
        } catch {
            throw .failure("\(error)")
        }
        try Output.emit(Array(svg.utf8), to: args.value("output"))
    }
}

/// `--from`, `--via`…, `--to` as waypoints (nil when neither end is given).
func routeWaypoints(_ args: ParsedArguments) throws(CLIError) -> [Coordinate]? {
    let from = try args.coordinate("from"), vias = try args.coordinates("via"), to = try args.coordinate("to")
    if from == nil && to == nil {
        if !vias.isEmpty { throw .usage("--via needs --from and --to") }
        return nil
    }
    guard let from, let to else { throw .usage("give both --from LAT,LON and --to LAT,LON") }
    return [from] + vias + [to]
}

/// `waymark poi`: list, show, add, edit and remove points of interest in a GeoJSON file.
enum PlaceCommand {
    static let spec = CommandSpec(
        name: "poi",
        summary: "Points of interest in a GeoJSON file: list, show, add, edit (or an interactive editor), remove.",
        positionals: ["<list|show|add|edit|remove>", "<places.geojson>"],
        options: [
            OptionSpec(name: "id", value: "ID", help: "The point of interest (show, edit, remove; optional for add)."),
            OptionSpec(name: "title", value: "TEXT", help: "New title (add, edit; empty removes it)."),
            OptionSpec(name: "subtitle", value: "TEXT", help: "New subtitle (add, edit; empty removes it)."),
            OptionSpec(name: "coordinate", value: "LAT,LON", help: "New coordinate (add: required)."),
            OptionSpec(name: "force", value: nil,
                       help: "add, edit: keep a coordinate that looks like longitude,latitude."),
            OptionSpec(name: "interactive", value: nil,
                       help: "edit: ask for the values even when standard input is not a terminal."),
            OptionSpec(name: "width", value: "COLUMNS", help: "Callout width for show and the editor (default 64)."),
            OptionSpec(name: "ascii", value: nil, help: "ASCII-only callouts."),
        ],
        discussion: """
        'edit' with no --title/--subtitle/--coordinate on a terminal opens an editor that shows the
        callout, asks for each value (Enter keeps it) and ends with Save or Cancel; Cancel writes
        nothing. Every save replaces the file atomically and fails if the file changed on disk since
        it was read. Other properties, ids and feature order are kept.
        """
    )

    static func run(_ args: ParsedArguments) throws(CLIError) {
        let positionals = try args.requirePositionals(["<list|show|add|edit|remove>", "<places.geojson>"])
        let (action, path) = (positionals[0], positionals[1])
        func requireID() throws(CLIError) -> String {
            guard let id = args.value("id") else { throw .usage("\(action) needs --id ID") }
            return id
        }
        func open(create: Bool = false) throws(CLIError) -> PlaceFile {
            do { return try PlaceFile(path: path, create: create) } catch { throw .failure("\(error)") }
        }
        func save(_ file: PlaceFile) throws(CLIError) {
            do { try file.save() } catch { throw .failure("\(error)") }
        }
        /// A coordinate far from the other places that, read the other way round, is among them:
        /// asked about (as `route` asks), unless `--force`.
        func checkNotSwapped(_ c: Coordinate, in file: PlaceFile, except id: String?) throws(CLIError) {
            guard !args.flag("force"), let meant = file.swappedLooksMeant(c, except: id) else { return }
            throw .failure(String(format: "%.6f,%.6f is far from the other places; it looks like longitude,latitude: "
                                  + "did you mean %.6f,%.6f? (--force keeps it)", c.latitude, c.longitude,
                                  meant.latitude, meant.longitude))
        }
        // The file an edit saves is checked before the edit (an interactive one is not typed in vain).
        if ["add", "edit", "remove"].contains(action) {
            do { try AtomicFile.checkWritable(path) } catch { throw .failure("\(error)") }
        }
        switch action {
        case "list":
            let file = try open()
            var rows = [["ID", "TITLE", "SUBTITLE", "COORDINATE"]]
            for a in file.annotations {
                rows.append([(a.id?.description ?? "-").escapingControlCharacters,
                             a.title?.escapingControlCharacters ?? "",
                             a.subtitle?.escapingControlCharacters ?? "", Callout(a).coordinateText])
            }
            var widths = [Int](repeating: 0, count: 4)
            for row in rows { for (c, cell) in row.enumerated() { widths[c] = max(widths[c], TextWidth.of(cell)) } }
            let lines = rows.map { row in
                row.enumerated().map { c, cell in c == 3 ? cell : TextWidth.pad(cell, to: widths[c]) }.joined(
                    separator: "  ")
            }
            Output.write(lines.joined(separator: "\n") + "\n")
        case "show":
            let file = try open()
            let id = try requireID()
            let i: Int
            do { i = try file.requireIndex(ofID: id) } catch { throw .failure("\(error)") }
            Output.write(Callout(file.annotations[i]).render(try Terminal.calloutStyle(args)))
        case "add":
            guard let title = args.value("title"), let c = try args.coordinate("coordinate") else {
                throw .usage("add needs --title TEXT and --coordinate LAT,LON")
            }
            var file = try open(create: true)
            try checkNotSwapped(c, in: file, except: nil)
            var annotation = Annotation(coordinate: c, title: title,
                                        subtitle: args.value("subtitle").flatMap { $0.isEmpty ? nil : $0 })
            if let id = args.value("id") { annotation.id = .string(id) }
            let id: String
            do { id = try file.add(annotation) } catch { throw .failure("\(error)") }
            try save(file)
            Output.write(id + "\n")
        case "edit":
            let id = try requireID()
            var file = try open()
            let title = args.value("title"), subtitle = args.value("subtitle"), c = try args.coordinate("coordinate")
            if title == nil && subtitle == nil && c == nil {
                guard Terminal.stdinIsTTY || args.flag("interactive") else {
                    throw .usage("give --title, --subtitle or --coordinate (or run on a terminal for the editor)")
                }
                return try interactiveEdit(&file, id: id, style: try Terminal.calloutStyle(args))
            }
            if let c { try checkNotSwapped(c, in: file, except: id) }
            do {
                try file.edit(id: id, title: title, subtitle: subtitle, coordinate: c)
            } catch {
                throw .failure("\(error)")
            }
            try save(file)
        case "remove":
            let id = try requireID()
            var file = try open()
            do { try file.remove(id: id) } catch { throw .failure("\(error)") }
            try save(file)
        default:
            throw .usage("unknown action '\(action)' (list, show, add, edit, remove)")
        }
    }

    /// The details editor: the callout, a prompt per field (Enter keeps the value, "-" clears a
    /// subtitle; on a terminal with line editing), a preview, then Save or Cancel. End of input
    /// (Ctrl-D, Ctrl-C) cancels.
    static func interactiveEdit(_ file: inout PlaceFile, id: String, style: CalloutStyle) throws(CLIError) {
        let i: Int
        do { i = try file.requireIndex(ofID: id) } catch { throw .failure("\(error)") }
        let current = file.annotations[i]
        Output.write(Callout(current).render(style))
        func ask(_ prompt: String) -> String? { LineEditor.read(prompt: prompt) }
        func cancelled() {
            Output.write("\nCancelled: nothing written.\n")
        }
        /// Asks until the answer is plain text (on a terminal the line editor takes the arrow keys;
        /// from a pipe their escape sequences are refused, not stored); nil at end of input.
        func askText(_ prompt: String) -> String? {
            while true {
                guard let text = ask(prompt) else { return nil }
                if !text.containsControlCharacters { return text }
                Output.write(
                    "  That holds control characters (\(text.escapingControlCharacters)); type plain text, or press "
                        + "Enter to keep it.\n"
                )
            }
        }
        guard let titleText = askText("Title [\((current.title ?? "").escapingControlCharacters)]: ") else {
            return cancelled()
        }
        guard
            let subtitleText = askText(
                "Subtitle [\((current.subtitle ?? "").escapingControlCharacters)] (- to clear): ")
        else { return cancelled() }
        var coordinate: Coordinate?
        while true {
            guard let text = ask("Coordinate [\(Callout(current).coordinateText)]: ") else { return cancelled() }
            if text.trimmingCharacters(in: .whitespaces).isEmpty { break }
            do {
                coordinate = try Coordinate(parsing: text)
                break
            } catch {
                Output.write("  \(error); try again, or press Enter to keep it.\n")
            }
        }
        let title = titleText.isEmpty ? nil : titleText
        let subtitle = subtitleText.isEmpty ? nil : (subtitleText == "-" ? "" : subtitleText)
        var edited = file
        do { try edited.edit(id: id, title: title,
                             subtitle: subtitle, coordinate: coordinate) } catch { throw .failure("\(error)") }
        if edited.annotations[i] == current {
            Output.write("No changes: nothing written.\n")
            return
        }
        Output.write(Callout(edited.annotations[i]).render(style))
        while true {
            guard let answer = ask("Save or Cancel? [s/c]: ")?.lowercased().trimmingCharacters(in: .whitespaces) else {
                return cancelled()
            }
            if answer == "s" || answer == "save" {
                do { try edited.save() } catch { throw .failure("\(error)") }
                file = edited
                Output.write("Saved \(file.path).\n")
                return
            }
            if answer == "c" || answer == "cancel" { return cancelled() }
        }
    }
}
