import WaymarkAnnotations
import WaymarkGeo
import WaymarkGraph
import WaymarkRouting
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What goes on a map picture: the road network, a route, points of interest, one of them selected.
public struct MapScene: Sendable {
    public var graph: RoadGraph?
    public var route: Route?
    public var annotations: [Annotation]
    /// Index into ``annotations`` of the one whose callout is shown.
    public var selected: Int?
    /// Water, parks, railways, buildings and place names under the roads.
    public var basemap: Basemap?
    /// Where the graph's roads and the basemap's features lie (made for them), so a picture of a
    /// small part of a large map looks only at that part; without one, everything is looked at.
    public var index: PictureIndex?

    public init(graph: RoadGraph? = nil, route: Route? = nil, annotations: [Annotation] = [], selected: Int? = nil,
                basemap: Basemap? = nil,
                index: PictureIndex? = nil) {
        self.graph = graph
        self.route = route
        self.annotations = annotations
        self.selected = selected
        self.basemap = basemap
        self.index = index
    }
}

/// Why a picture could not be drawn.
public enum MapPictureError: Error, Sendable, Equatable, CustomStringConvertible {
    case nothingToShow
    case viewport(String)

    public var description: String {
        switch self {
        case .nothingToShow: return "nothing to show: give a map with roads, a route or annotations"
        case let .viewport(reason): return "cannot fit the viewport: \(reason)"
        }
    }
}

/// A map drawn as SVG, the way a map app shows it: roads by class (motorway to service, widths and
/// colours after OpenStreetMap's standard style), the route on top with its start, end and
/// maneuver points, annotation pins clustered at the shown zoom (a cluster shows its count), the
/// selected annotation's callout, a scale bar and the OpenStreetMap attribution.
///
/// The viewport is the library's own ``fitViewport(_:options:)`` over the route and the
/// annotations (the whole road network when there are neither), like MapKit's `showAnnotations`.
public struct MapPicture: Sendable {
    public var width: Double
    public var height: Double
    /// Space kept clear around the content, in points.
    public var padding: Double

    public init(width: Double = 800, height: Double = 600, padding: Double = 40) {
        self.width = width
        self.height = height
        self.padding = padding
    }

    /// The viewport the picture shows for `scene`.
    public func viewport(for scene: MapScene) throws(MapPictureError) -> ViewportFit {
        var coordinates = scene.route?.geometry ?? []
        coordinates += scene.annotations.map(\.coordinate)
        if coordinates.isEmpty, let graph = scene.graph, graph.nodeCount > 0 {
            coordinates = (0..<UInt32(graph.nodeCount)).map { graph.coordinate(of: $0) }
        }
        guard !coordinates.isEmpty else { throw .nothingToShow }
        // Room above for the callout bubble and pin heads, and at the bottom for the scale bar.
        let top = padding + (scene.selected != nil ? 110 : 36)
        let options = ViewportOptions(width: width, height: height,
                                      padding: EdgePadding(top: top, left: padding,
                                                           bottom: padding + 20, right: padding),
                                      minZoom: 0, maxZoom: 18)
        do {
            return try fitViewport(coordinates, options: options)
        } catch {
            throw .viewport("\(error)")
        }
    }

    /// Where a coordinate falls in the picture (points from its top left) for a viewport.
    func projection(_ fit: ViewportFit) -> (Coordinate) -> (Double, Double) {
        projection(center: fit.center, zoom: fit.zoom)
    }

    func projection(center: Coordinate, zoom: Double) -> (Coordinate) -> (Double, Double) {
        let scale = pow(2, zoom)
        let mercator = WebMercator.tiles256
        let centerX = mercator.x(longitude: center.longitude) * scale
        let centerY = mercator.y(latitude: center.latitude) * scale
        let world = mercator.worldSize * scale
        let (width, height) = (self.width, self.height)
        return { c in
            var x = mercator.x(longitude: c.longitude) * scale - centerX
            // The copy of the world nearest the centre (a view across 180°).
            if x > world / 2 { x -= world } else if x < -world / 2 { x += world }
            return (x + width / 2, mercator.y(latitude: c.latitude) * scale - centerY + height / 2)
        }
    }

    /// The picture as an SVG document.
    public func svg(_ scene: MapScene) throws(MapPictureError) -> String {
        let fit = try viewport(for: scene)
        return draw(scene, center: fit.center, zoom: fit.zoom, visible: fit.visibleBox)
    }

    /// The picture of `scene` centred on `center` at `zoom` (0…22), as a map view shows it
    /// while the user pans and zooms: the viewport is given, not fitted.
    public func svg(_ scene: MapScene, center: Coordinate, zoom: Double) throws(MapPictureError) -> String {
        guard center.isValid, zoom.isFinite, zoom >= 0, zoom <= 22 else {
            throw .viewport("the centre must be on the globe and the zoom from 0 to 22")
        }
        let mercator = WebMercator.tiles256, scale = pow(2, zoom)
        let x = mercator.x(longitude: center.longitude) * scale, y = mercator.y(latitude: center.latitude) * scale
        let world = mercator.worldSize * scale
        let west = width >= world ? -180 : mercator.longitude(x: (x - width / 2) / scale)
        let east = width >= world ? 180 : mercator.longitude(x: (x + width / 2) / scale)
        let visible = BoundingBox(west: west, south: mercator.latitude(y: (y + height / 2) / scale),
                                  east: east, north: mercator.latitude(y: (y - height / 2) / scale))
        return draw(scene, center: center, zoom: zoom, visible: visible)
    }

    private func draw(_ scene: MapScene, center: Coordinate, zoom: Double, visible: BoundingBox) -> String {
        let project = projection(center: center, zoom: zoom)
        // (Where the selected pin's bubble goes: names keep clear of it, and it is drawn last.)
        let callout = selectedCallout(scene, project: project)
        var svg = SVGWriter()
        svg.open("svg", ["xmlns": "http://www.w3.org/2000/svg", "width": fmt(width), "height": fmt(height),
                         "viewBox": "0 0 \(fmt(width)) \(fmt(height))",
                         "font-family": "DejaVu Sans, Helvetica, Arial, sans-serif"])
        svg.element("title", text: "Map at zoom \(fmt(zoom)) centred on \(Callout.format(center))")
        svg.element("rect", ["width": "100%", "height": "100%", "fill": MapPicture.land])

        // What may show: everything, or what the index finds in view (20 points round it).
        let margin = 40 / pow(2, zoom)
        if let basemap = scene.basemap {
            let features = scene.index?.features(in: visible, margin: margin) ?? Array(0..<basemap.featureCount)
            drawBasemap(basemap, features: features, zoom: zoom, project: project, into: &svg)
        }
        let pins = pinItems(scene, zoom: zoom, visible: visible)
        var titles: [PinTitle] = []
        if let graph = scene.graph {
            let edges = scene.index?.edges(in: visible, margin: margin) ?? PictureIndex.edgePerSegment(graph)
            drawRoads(graph, edges: edges, zoom: zoom, project: project, into: &svg)
            // Names keep clear of the pins, the clusters and the route's ends (drawn above them).
            var keepClear: [StreetLabels.Box] = pins.map { MapPicture.box(of: $0, project: project) }
            if let selected = scene.selected, scene.annotations.indices.contains(selected) {
                keepClear.append(MapPicture.box(of: .pin(selected, scene.annotations[selected].coordinate),
                                                project: project))
            }
            // And of the selected pin's callout bubble (drawn above everything).
            if let callout { keepClear.append(callout.box) }
            for end in [scene.route?.geometry.first, scene.route?.geometry.last].compactMap({ $0 }) {
                let p = project(end)
                keepClear.append((p.0 - 12, p.1 - 12, p.0 + 12, p.1 + 12))
            }
            // And of the route's line (drawn above them), a box every few points along it.
            var routeBoxes: [StreetLabels.Box] = []
            if let line = scene.route?.geometry.map(project) {
                for (a, b) in zip(line, line.dropFirst()) {
                    let steps = max(1, Int((hypot(b.0 - a.0, b.1 - a.1) / 8).rounded(.up)))
                    for k in 0...steps {
                        let t = Double(k) / Double(steps), x = a.0 + (b.0 - a.0) * t, y = a.1 + (b.1 - a.1) * t
                        routeBoxes.append((x - 5, y - 5, x + 5, y + 5))
                    }
                }
            }
            // Place names first: they outrank street names.
            if let basemap = scene.basemap {
                let places = placeLabels(basemap, zoom: zoom, keepClear: keepClear + routeBoxes, project: project)
                drawPlaceLabels(places, into: &svg)
                keepClear += places.map(\.box)
            }
            // Then the pins' titles, where there is room below them.
            titles = pinTitles(scene, pins, keepClear: keepClear + routeBoxes, project: project)
            keepClear += titles.map(\.box)
            let labels = StreetLabels.place(graph: graph, edges: edges, zoom: zoom, width: width, height: height,
                                            keepClear: keepClear, route: routeBoxes, project: project)
            keepClear += routeBoxes
            drawLabels(labels, into: &svg)
            // Road numbers keep clear of the names too.
            keepClear += labels.map { StreetLabels.bounds($0.path, widenedBy: (0, 8)) }
            drawShields(StreetLabels.shields(graph: graph, edges: edges, zoom: zoom, width: width, height: height,
                                             keepClear: keepClear, project: project),
                        into: &svg)
        }
        if let route = scene.route { drawRoute(route, project: project, into: &svg) }
        drawPins(scene, pins, titles: titles, project: project, into: &svg)
        if let route = scene.route { drawRouteEnds(route, project: project, into: &svg) }
        if let callout { drawSelected(scene, callout, project: project, into: &svg) }
        drawScaleBar(latitude: center.latitude, zoom: zoom, into: &svg)
        drawAttribution(into: &svg)
        svg.close("svg")
        return svg.text
    }

    // MARK: - Roads

    /// Casing colour, fill colour, width in points, by class (OpenStreetMap Carto's palette).
    static func style(_ highway: HighwayClass) -> (casing: String, fill: String, width: Double) {
        switch highway {
        case .motorway: return ("#dc2a67", "#e892a2", 7)
        case .motorwayLink: return ("#dc2a67", "#e892a2", 4.5)
        case .trunk: return ("#c84e2f", "#f9b29c", 6.5)
        case .trunkLink: return ("#c84e2f", "#f9b29c", 4.5)
        case .primary: return ("#a06b00", "#fcd6a4", 6)
        case .primaryLink: return ("#a06b00", "#fcd6a4", 4.5)
        case .secondary: return ("#707d05", "#f7fabf", 5.5)
        case .secondaryLink: return ("#707d05", "#f7fabf", 4)
        case .tertiary: return ("#8f8f8f", "#ffffff", 5)
        case .tertiaryLink: return ("#8f8f8f", "#ffffff", 3.5)
        case .unclassified, .residential: return ("#b0b0b0", "#ffffff", 4)
        case .livingStreet: return ("#c0c0c0", "#ededed", 3.5)
        case .service: return ("#c0c0c0", "#ffffff", 2.5)
        case .winterRoad, .iceRoad: return ("#8f8f8f", "#e6f2ff", 3.5)
        case .other, .track: return ("#b08000", "#f2e4c4", 2)
        case .pedestrian: return ("#b0b0b0", "#dddde8", 3.5)
        case .path, .footway, .steps: return ("none", "#fa8072", 1.5)
        case .ferry: return ("none", "#66a3d9", 1.5)
        }
    }

    /// The land colour under everything (OpenStreetMap Carto's).
    static let land = "#f2efe9"

    /// `fill` (a `#rrggbb` colour), darkened in steps of 5 % until it stands out against
    /// `background` by a contrast ratio of 1.5 (relative luminances, as WCAG measures them): a
    /// road without its casing keeps its hue and is as light as it can be and still show.
    static func showing(_ fill: String, on background: String) -> String {
        func channels(_ hex: String) -> [Double] {
            let value = Int(hex.dropFirst(), radix: 16) ?? 0
            return [(value >> 16) & 255, (value >> 8) & 255, value & 255].map { Double($0) / 255 }
        }
        func luminance(_ c: [Double]) -> Double {
            let linear = c.map { $0 <= 0.04045 ? $0 / 12.92 : pow(($0 + 0.055) / 1.055, 2.4) }
            return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
        }
        let base = channels(fill), ground = luminance(channels(background))
        var factor = 1.0
        while factor > 0.05 && (ground + 0.05) / (luminance(base.map { $0 * factor }) + 0.05) < 1.5 { factor -= 0.05 }
        return "#" + base.map { String(format: "%02x", Int(($0 * factor * 255).rounded())) }.joined()
    }

    /// The zoom from which a class is drawn, after OpenStreetMap Carto: motorways and trunks from
    /// 5, primaries from 8, secondaries from 9, tertiaries from 10, streets from 12, living streets
    /// from 13, service roads and the rest from 14 — so a whole city reads as its main roads, not a
    /// mass of streets.
    static func minimumZoom(_ highway: HighwayClass) -> Double {
        switch highway {
        case .motorway, .trunk: 5
        case .primary, .ferry: 8
        case .secondary: 9
        case .tertiary, .motorwayLink, .trunkLink: 10
        case .primaryLink, .secondaryLink, .tertiaryLink, .unclassified, .residential: 12
        case .livingStreet, .winterRoad, .iceRoad: 13
        case .service, .other, .track, .path, .footway, .pedestrian, .steps: 14
        }
    }

    /// Line width at a zoom: the class's full width (``style(_:)``) from zoom 16, thinning towards
    /// the zoom it appears at (a third of it there, at least half a point), as Carto's widths grow
    /// with zoom.
    static func width(_ highway: HighwayClass, zoom: Double) -> Double {
        let full = style(highway).width
        let start = minimumZoom(highway), share = zoom >= 16 ? 1 : max(0, zoom - start) / max(1, 16 - start)
        return max(0.5, full * (1 / 3 + 2 / 3 * share))
    }

    /// Whether roads of a class get a casing (an outline) at a zoom: main roads from 12, streets
    /// from 14 (below that Carto draws them as plain lines).
    static func hasCasing(_ highway: HighwayClass, zoom: Double) -> Bool {
        guard style(highway).casing != "none" else { return false }
        switch highway {
        case .motorway, .trunk, .primary, .secondary, .tertiary, .motorwayLink, .trunkLink: return zoom >= 12
        default: return zoom >= 14
        }
    }

    /// Drawing order: minor roads first, motorways on top.
    static let drawingOrder: [HighwayClass] = [
        .ferry, .steps, .footway, .path, .track, .pedestrian, .other, .service, .iceRoad, .winterRoad,
        .livingStreet, .residential, .unclassified, .tertiaryLink,
        .tertiary, .secondaryLink,
        .secondary, .primaryLink, .primary, .trunkLink, .trunk, .motorwayLink, .motorway,
    ]

    /// `edges`: one directed edge per road piece that may show (``PictureIndex``).
    private func drawRoads(_ graph: RoadGraph, edges: [Int], zoom: Double,
                           project: (Coordinate) -> (Double, Double), into svg: inout SVGWriter) {
        var paths = [String](repeating: "", count: HighwayClass.allCases.count)
        let margin = 20.0
        let shown = HighwayClass.allCases.map { zoom >= MapPicture.minimumZoom($0) }
        for e in edges {
            let s = graph.segment(of: e)
            let highway = Int(graph.segmentHighway[s])
            guard highway < paths.count, shown[highway] else { continue }
            let projected = graph.geometry(of: e).map(project)
            guard projected.count >= 2 else { continue }
            let box = StreetLabels.bounds(projected)
            guard box.maxX >= -margin, box.minX <= width + margin, box.maxY >= -margin, box.minY <= height + margin
            else { continue }
            // Under a quarter of a point in all: nothing to see.
            guard box.maxX - box.minX >= 0.25 || box.maxY - box.minY >= 0.25 else { continue }
            paths[highway] += SVGWriter.pathData(Simplification.douglasPeucker(projected,
                                                                               tolerance: MapPicture.pixelTolerance))
        }
        for layer in ["casing", "fill"] {
            svg.open("g",
                     ["id": "roads-\(layer)", "fill": "none", "stroke-linecap": "round", "stroke-linejoin": "round"])
            for highway in MapPicture.drawingOrder where !paths[Int(highway.rawValue)].isEmpty {
                let style = MapPicture.style(highway), lineWidth = MapPicture.width(highway, zoom: zoom)
                if layer == "casing" {
                    guard MapPicture.hasCasing(highway, zoom: zoom) else { continue }
                    svg.element("path", ["class": "road \(highway.tag)", "d": paths[Int(highway.rawValue)],
                                         "stroke": style.casing, "stroke-width": fmt(lineWidth + 2)])
                } else {
                    // Without a casing, a pale fill (secondary, tertiary, streets) would vanish on the
                    // land colour: darkened only as far as it takes to show there.
                    let colour = MapPicture.hasCasing(highway, zoom: zoom)
                        ? style.fill : MapPicture.showing(style.fill, on: MapPicture.land)
                    var attributes = ["class": "road \(highway.tag)", "d": paths[Int(highway.rawValue)],
                                      "stroke": colour, "stroke-width": fmt(lineWidth)]
                    if highway == .ferry { attributes["stroke-dasharray"] = "6 4" }
                    svg.element("path", attributes)
                }
            }
            svg.close("g")
        }
    }

    /// Points closer than this (in points) to the line through their neighbours are left out.
    static let pixelTolerance = 0.5

    /// Street names along their roads (``StreetLabels``), white-haloed.
    private func drawLabels(_ labels: [StreetLabels.Label], into svg: inout SVGWriter) {
        guard !labels.isEmpty else { return }
        svg.open("g", ["id": "street-names", "fill": "#333333", "text-anchor": "middle"])
        svg.open("defs")
        for (i, label) in labels.enumerated() { svg.element("path",
                                                            ["id": "street-name-\(i)",
                                                             "d": SVGWriter.pathData(label.path)]) }
        svg.close("defs")
        for (i, label) in labels.enumerated() {
            svg.open("text",
                     ["class": "street-name", "font-size": fmt(label.fontSize), "dy": fmt(label.fontSize * 0.35),
                              "stroke": "#ffffff", "stroke-width": "3", "stroke-linejoin": "round",
                              "paint-order": "stroke"])
            svg.element("textPath", ["href": "#street-name-\(i)", "startOffset": "50%"], text: label.name)
            svg.close("text")
        }
        svg.close("g")
    }

    /// Road numbers in white shields outlined in their road's colour.
    private func drawShields(_ shields: [StreetLabels.Shield], into svg: inout SVGWriter) {
        guard !shields.isEmpty else { return }
        svg.open("g", ["id": "road-shields", "font-size": "10", "font-weight": "bold", "text-anchor": "middle"])
        for shield in shields {
            let style = MapPicture.style(shield.highway), (x, y) = shield.center
            svg.open("g", ["class": "shield"])
            svg.element("rect",
                        ["x": fmt(x - shield.width / 2), "y": fmt(y - 7), "width": fmt(shield.width),
                         "height": "14", "rx": "3",
                                 "fill": "#ffffff", "stroke": style.casing, "stroke-width": "1.5"])
            svg.element("text", ["x": fmt(x), "y": fmt(y + 3.5), "fill": "#202124"], text: shield.ref)
            svg.close("g")
        }
        svg.close("g")
    }

    // MARK: - Basemap

    /// Fill, outline (or "none") and the zoom from which a basemap kind is drawn, after OSM Carto.
    static func style(_ kind: Basemap.Kind) -> (fill: String, stroke: String, minimumZoom: Double) {
        switch kind {
        case .sea: ("#aad3df", "none", 0)
        case .grass: ("#cdebb0", "none", 0)
        case .wood: ("#add19e", "none", 0)
        case .park: ("#c8facc", "#95d5a0", 0)
        case .water: ("#aad3df", "none", 0)
        case .river: ("none", "#aad3df", 8)
        case .coastline: ("none", "#8fb8c8", 0)
        case .railway: ("none", "#707070", 10)
        case .building: ("#d9d0c9", "#c4b6ab", 15)
        }
    }

    /// Areas under the roads (grass, woods, parks, water, then buildings from zoom 15) and lines
    /// (rivers, coastline, railways): each simplified to the pixel, parts outside the picture or
    /// smaller than a point left out. Areas of one ring share a path per kind; an area with holes
    /// gets a path of its own (even-odd), so overlapping areas never cut holes in each other.
    private func drawBasemap(_ basemap: Basemap, features: [Int], zoom: Double,
                             project: (Coordinate) -> (Double, Double), into svg: inout SVGWriter) {
        var simple = [String](repeating: "", count: Basemap.Kind.allCases.count)
        var holed: [(kind: Basemap.Kind, d: String)] = []
        for f in features {
            let kind = basemap.kinds[f]
            guard zoom >= MapPicture.style(kind).minimumZoom else { continue }
            var d = ""
            for part in basemap.parts(of: f) {
                let points = part.map(project), box = StreetLabels.bounds(points)
                guard box.maxX >= 0, box.minX <= width, box.maxY >= 0, box.minY <= height,
                      box.maxX - box.minX >= 1 || box.maxY - box.minY >= 1 else { continue }
                d +=
                    SVGWriter.pathData(Simplification.douglasPeucker(points, tolerance: MapPicture.pixelTolerance))
                    + (kind.isArea ? "Z" : "")
            }
            guard !d.isEmpty else { continue }
            if kind.isArea
                && basemap.partCount(of: f) > 1 { holed.append((kind, d)) } else { simple[Int(kind.rawValue)] += d }
        }
        svg.open("g", ["id": "basemap", "stroke-linejoin": "round", "stroke-linecap": "round"])
        for kind in Basemap.Kind.allCases {
            let style = MapPicture.style(kind)
            var paths = holed.filter { $0.kind == kind }.map { ($0.d, "evenodd") }
            if !simple[Int(kind.rawValue)].isEmpty { paths.insert((simple[Int(kind.rawValue)], "nonzero"), at: 0) }
            for (d, rule) in paths {
                var attributes = ["class": "basemap \(kind)", "d": d, "fill": style.fill, "stroke": style.stroke]
                if kind.isArea {
                    attributes["fill-rule"] = rule
                    if style.stroke != "none" { attributes["stroke-width"] = "0.75" }
                } else {
                    attributes["fill"] = "none"
                    attributes["stroke-width"] = kind == .railway ? "1.5" : fmt(max(1, min(6, (zoom - 8) * 0.8)))
                }
                svg.element("path", attributes)
                if kind == .railway && zoom >= 13 {
                    svg.element("path", ["class": "basemap railway-dashes", "d": d, "fill": "none", "stroke": "#ffffff",
                                         "stroke-width": "0.9", "stroke-dasharray": "6 6"])
                }
            }
        }
        svg.close("g")
    }

    /// A place's name as placed: where, how large, and the box it keeps to itself.
    struct PlaceLabel {
        var place: Basemap.Place
        var at: (Double, Double)
        var fontSize: Double
        var box: StreetLabels.Box
    }

    /// Place names that show at this zoom, most important first, none over another or over what
    /// must stay clear, inside the picture.
    func placeLabels(_ basemap: Basemap, zoom: Double, keepClear: [StreetLabels.Box],
                     project: (Coordinate) -> (Double, Double)) -> [PlaceLabel] {
        var labels: [PlaceLabel] = []
        for place in basemap.places.sorted(by: { $0.kind.rawValue < $1.kind.rawValue })
        where zoom >= place.kind.minimumZoom {
            let size: Double
            switch place.kind {
            case .city: size = 17
            case .town: size = 15
            case .village, .suburb: size = 13
            case .quarter, .neighbourhood, .hamlet: size = 11
            }
            let p = project(place.coordinate), w = StreetLabels.textWidth(place.name, fontSize: size) + 6
            // On the place; where a pin (or what else must stay clear) covers it, beside it —
            // right or left level with a pin's head, below, above — so that the pin keeps its
            // name (and its own title below it). A name in the way is not moved for.
            let shifts = [(0.0, 0.0), (w / 2 + 16, -12), (-w / 2 - 16, -12), (0, size + 20), (0, -42)]
            for (k, (dx, dy)) in shifts.enumerated() {
                let at = (p.0 + dx, p.1 + dy)
                let box: StreetLabels.Box = (at.0 - w / 2, at.1 - size, at.0 + w / 2, at.1 + size * 0.4)
                let named = labels.contains { StreetLabels.overlaps($0.box, box) }
                if k == 0 && named { break }
                guard box.minX >= 0, box.minY >= 0, box.maxX <= width, box.maxY <= height, !named,
                      !keepClear.contains(where: { StreetLabels.overlaps($0, box) }) else { continue }
                labels.append(PlaceLabel(place: place, at: at, fontSize: size, box: box))
                break
            }
        }
        return labels
    }

    private func drawPlaceLabels(_ labels: [PlaceLabel], into svg: inout SVGWriter) {
        guard !labels.isEmpty else { return }
        svg.open("g", ["id": "place-names", "text-anchor": "middle", "stroke": "#ffffff", "stroke-width": "3",
                       "stroke-linejoin": "round", "paint-order": "stroke"])
        for label in labels {
            let major = label.place.kind == .city || label.place.kind == .town
            svg.element("text",
                        ["class": "place \(label.place.kind)", "x": fmt(label.at.0), "y": fmt(label.at.1),
                         "font-size": fmt(label.fontSize),
                                 "font-weight": major ? "bold" : "normal",
                                 "fill": major ? "#222222" : "#555555"], text: label.place.name)
        }
        svg.close("g")
    }

    // MARK: - Route

    private func drawRoute(_ route: Route, project: (Coordinate) -> (Double, Double), into svg: inout SVGWriter) {
        let points = route.geometry.map(project)
        guard points.count >= 2 else { return }
        let d = SVGWriter.pathData(points)
        svg.open("g", ["id": "route", "fill": "none", "stroke-linecap": "round", "stroke-linejoin": "round"])
        svg.element("path", ["id": "route-casing", "d": d, "stroke": "#ffffff", "stroke-width": "10"])
        svg.element("path", ["id": "route-line", "d": d, "stroke": "#1a73e8", "stroke-width": "6"])
        for leg in route.legs {
            for step in leg.readableSteps where step.maneuver.type != .depart && step.maneuver.type != .arrive {
                let p = project(step.maneuver.location)
                svg.open("circle", ["class": "maneuver", "cx": fmt(p.0), "cy": fmt(p.1), "r": "4",
                                    "fill": "#ffffff", "stroke": "#174ea6", "stroke-width": "2"])
                svg.element("title", text: step.instruction)
                svg.close("circle")
            }
        }
        svg.close("g")
    }

    /// Start and end of the route, drawn above the pins (the callout stays on top of all).
    private func drawRouteEnds(_ route: Route, project: (Coordinate) -> (Double, Double), into svg: inout SVGWriter) {
        guard let first = route.geometry.first.map(project), let last = route.geometry.last.map(project) else { return }
        svg.open("g", ["id": "route-ends"])
        svg.element("circle", ["id": "route-start", "cx": fmt(first.0), "cy": fmt(first.1), "r": "8",
                               "fill": "#34a853", "stroke": "#ffffff", "stroke-width": "3"])
        svg.element("circle", ["id": "route-end", "cx": fmt(last.0), "cy": fmt(last.1), "r": "8",
                               "fill": "#1a1a1a", "stroke": "#ffffff", "stroke-width": "3"])
        // Via points: where each leg after the first starts, numbered in order.
        for (k, leg) in route.legs.dropFirst().enumerated() {
            guard let start = leg.steps.first?.maneuver.location else { continue }
            let p = project(start)
            svg.open("g", ["class": "route-via", "data-index": "\(k + 1)"])
            svg.element("title", text: "Via point \(k + 1)")
            svg.element("circle",
                        ["cx": fmt(p.0), "cy": fmt(p.1), "r": "9", "fill": "#ffffff",
                         "stroke": "#174ea6", "stroke-width": "3"])
            svg.element("text",
                        ["x": fmt(p.0), "y": fmt(p.1 + 4), "text-anchor": "middle",
                         "font-size": "11", "font-weight": "bold",
                                 "fill": "#174ea6"], text: "\(k + 1)")
            svg.close("g")
        }
        svg.close("g")
    }

    // MARK: - Pins and clusters

    /// How pins cluster on a map picture: supercluster's radius is in 1/512ths of a tile, so 60 is
    /// 30 points on this 256-point tile map, about a pin's height — pins that would overlap cluster
    /// instead (as MapKit does when annotation views collide).
    public static let pinClusters = ClusterOptions(maxZoom: 18, radius: 60)

    /// A pin or a cluster of them on the picture.
    enum PinItem {
        /// An annotation's pin (its index in the scene).
        case pin(Int, Coordinate)
        case cluster(Coordinate, count: Int)
    }

    /// What the annotations show as at this zoom: clustered like MapKit, everything but the
    /// selected annotation (which stays a pin, drawn with its callout).
    func pinItems(_ scene: MapScene, zoom: Double, visible: BoundingBox) -> [PinItem] {
        let others = scene.annotations.indices.filter { $0 != scene.selected }
        guard !others.isEmpty, let index = try? ClusterIndex(annotations: others.map { scene.annotations[$0] },
                                                             options: MapPicture.pinClusters) else { return [] }
        // The visible box, widened a little so pins at the edge are not cut off.
        let items = index.clusters(west: max(-180, visible.west - 1e-3), south: max(-90, visible.south - 1e-3),
                                   east: min(180, visible.east + 1e-3), north: min(90, visible.north + 1e-3),
                                   zoom: zoom.rounded(.down))
        return items.map { item in
            switch item {
            case let .cluster(cluster): .cluster(cluster.coordinate, count: cluster.pointCount)
            case let .point(i): .pin(others[i], scene.annotations[others[i]].coordinate)
            }
        }
    }

    /// Where a pin (its head above its point) or a cluster's circle lies on the picture.
    static func box(of item: PinItem, project: (Coordinate) -> (Double, Double)) -> StreetLabels.Box {
        switch item {
        case let .pin(_, c):
            let p = project(c)
            return (p.0 - 14, p.1 - 40, p.0 + 14, p.1 + 2)
        case let .cluster(c, count):
            let p = project(c), r = clusterRadius(count) + 4
            return (p.0 - r, p.1 - r, p.0 + r, p.1 + r)
        }
    }

    static func clusterRadius(_ count: Int) -> Double { count < 10 ? 14 : count < 100 ? 17 : 20 }

    /// A pin's title, shown below it.
    struct PinTitle {
        var text: String
        var at: (Double, Double)
        var box: StreetLabels.Box
    }

    /// The titles of the pins shown, each below its pin where it fits inside the picture clear of
    /// `keepClear` and of the titles placed before it.
    func pinTitles(_ scene: MapScene, _ pins: [PinItem], keepClear: [StreetLabels.Box],
                   project: (Coordinate) -> (Double, Double)) -> [PinTitle] {
        var placed = keepClear, titles: [PinTitle] = []
        for case let .pin(i, c) in pins {
            guard let title = scene.annotations[i].title, !title.isEmpty else { continue }
            let p = project(c), w = StreetLabels.textWidth(title, fontSize: 11) + 4
            let box: StreetLabels.Box = (p.0 - w / 2, p.1 + 3, p.0 + w / 2, p.1 + 17)
            guard box.minX >= 0, box.maxX <= width, box.maxY <= height,
                  !placed.contains(where: { StreetLabels.overlaps($0, box) }) else { continue }
            placed.append(box)
            titles.append(PinTitle(text: title, at: (p.0, p.1 + 14), box: box))
        }
        return titles
    }

    private func drawPins(_ scene: MapScene, _ pins: [PinItem], titles: [PinTitle],
                          project: (Coordinate) -> (Double, Double), into svg: inout SVGWriter) {
        guard !scene.annotations.isEmpty else { return }
        svg.open("g", ["id": "annotations"])
        for item in pins {
            switch item {
            case let .cluster(c, count):
                let p = project(c), r = MapPicture.clusterRadius(count)
                svg.open("g", ["class": "cluster", "data-count": "\(count)"])
                svg.element("circle",
                            ["cx": fmt(p.0), "cy": fmt(p.1), "r": fmt(r + 4), "fill": "#e8453c", "fill-opacity": "0.3"])
                svg.element("circle",
                            ["cx": fmt(p.0), "cy": fmt(p.1), "r": fmt(r), "fill": "#e8453c",
                             "stroke": "#ffffff", "stroke-width": "2"])
                svg.element("text", ["x": fmt(p.0), "y": fmt(p.1 + 4.5), "text-anchor": "middle", "font-size": "13",
                                     "font-weight": "bold", "fill": "#ffffff"], text: "\(count)")
                svg.close("g")
            case let .pin(i, _):
                drawPin(scene.annotations[i], selected: false, project: project, into: &svg)
            }
        }
        if !titles.isEmpty {
            svg.open("g", ["id": "pin-titles", "text-anchor": "middle", "font-size": "11", "fill": "#a50e0e",
                           "stroke": "#ffffff", "stroke-width": "3", "stroke-linejoin": "round",
                           "paint-order": "stroke"])
            for title in titles {
                svg.element("text", ["class": "pin-title", "x": fmt(title.at.0), "y": fmt(title.at.1)],
                            text: title.text)
            }
            svg.close("g")
        }
        svg.close("g")
    }

    private func drawSelected(_ scene: MapScene, _ frame: CalloutFrame, project: (Coordinate) -> (Double, Double),
                              into svg: inout SVGWriter) {
        svg.open("g", ["id": "selected-annotation"])
        drawPin(scene.annotations[scene.selected!], selected: true, project: project, into: &svg)
        drawCallout(frame, into: &svg)
        svg.close("g")
    }

    /// The selected annotation's callout and where its bubble goes (nil: none is selected).
    struct CalloutFrame {
        var callout: Callout
        var side: CalloutSide
        var left: Double, top: Double, w: Double, h: Double
        var tip: (Double, Double)
        var box: StreetLabels.Box { (left, top, left + w, top + h) }
    }

    func selectedCallout(_ scene: MapScene, project: (Coordinate) -> (Double, Double)) -> CalloutFrame? {
        guard let selected = scene.selected, scene.annotations.indices.contains(selected) else { return nil }
        let annotation = scene.annotations[selected]
        // What the bubble should not hide: the route (a point every few points along it) and
        // the other pins.
        var covered: [(Double, Double)] = []
        if let line = scene.route?.geometry.map(project) {
            for (a, b) in zip(line, line.dropFirst()) {
                let steps = max(1, Int((hypot(b.0 - a.0, b.1 - a.1) / 6).rounded(.up)))
                for k in 0..<steps { covered.append((a.0 + (b.0 - a.0) * Double(k) / Double(steps),
                                                     a.1 + (b.1 - a.1) * Double(k) / Double(steps))) }
            }
            if let last = line.last { covered.append(last) }
        }
        for (i, other) in scene.annotations.enumerated() where i != selected {
            let p = project(other.coordinate)
            covered.append(contentsOf: [p, (p.0, p.1 - 18)]) // the pin's tip and head
        }
        let callout = Callout(annotation), pin = project(annotation.coordinate)
        let title = callout.title ?? "", subtitle = callout.subtitle ?? "", coordinate = callout.coordinateText
        // Text widths estimated from terminal columns (about 0.6 em per column).
        let textWidth = max(Double(TextWidth.of(title)) * 8.6, Double(TextWidth.of(subtitle)) * 7.2,
                            Double(TextWidth.of(coordinate)) * 6.6)
        let accessory = 36.0
        let w = min(width - 16, textWidth + 2 * accessory + 40), h = 66.0
        let side = calloutSide(pin: pin, w: w, h: h, avoiding: covered)
        let (left, top, tip) = calloutBox(side, pin: pin, w: w, h: h)
        return CalloutFrame(callout: callout, side: side, left: left, top: top, w: w, h: h, tip: tip)
    }

    /// Where a callout bubble goes beside its pin.
    enum CalloutSide: String, CaseIterable {
        case above, below, right, left
    }

    /// The bubble's rectangle and the tip of its pointer for a pin at `pin` (the pin's point; its
    /// head is above it), a `w` × `h` bubble on one side.
    func calloutBox(_ side: CalloutSide,
                    pin: (Double, Double), w: Double, h: Double) -> (left: Double, top: Double, tip: (Double, Double)) {
        let clampX = { (left: Double) in max(8, min(self.width - 8 - w, left)) }
        let clampY = { (top: Double) in max(8, min(self.height - 8 - h, top)) }
        switch side {
        case .above: return (clampX(pin.0 - w / 2), pin.1 - 50 - h, (pin.0, pin.1 - 40))
        case .below: return (clampX(pin.0 - w / 2), pin.1 + 14, (pin.0, pin.1 + 4))
        case .right: return (pin.0 + 30, clampY(pin.1 - 20 - h / 2), (pin.0 + 16, pin.1 - 20))
        case .left: return (pin.0 - 30 - w, clampY(pin.1 - 20 - h / 2), (pin.0 - 16, pin.1 - 20))
        }
    }

    /// The side where the bubble covers the fewest of `points` (the route and other pins), above
    /// when that ties; a side where the bubble would leave the picture only when all would.
    func calloutSide(pin: (Double, Double), w: Double, h: Double, avoiding points: [(Double, Double)]) -> CalloutSide {
        var best = CalloutSide.above, bestScore = Int.max
        for side in CalloutSide.allCases {
            let box = calloutBox(side, pin: pin, w: w, h: h)
            let inside = box.left >= 0 && box.top >= 0 && box.left + w <= width && box.top + h <= height
            var score = inside ? 0 : 1_000_000
            for p in points where p.0 >= box.left - 4 && p.0 <= box.left + w + 4 && p.1 >= box.top - 4
                && p.1 <= box.top + h + 4 { score += 1 }
            if score < bestScore { best = side; bestScore = score }
        }
        return best
    }

    /// A balloon marker whose tip is on the coordinate.
    private func drawPin(_ annotation: Annotation, selected: Bool,
                         project: (Coordinate) -> (Double, Double), into svg: inout SVGWriter) {
        let (x, y) = project(annotation.coordinate)
        let s = selected ? 1.3 : 1.0
        let head = 10 * s, tip = 28 * s
        var attributes = ["class": selected ? "pin selected" : "pin"]
        if let id = annotation.id { attributes["data-id"] = id.description }
        svg.open("g", attributes)
        if let title = annotation.title { svg.element("title", text: title) }
        let d =
            "M\(fmt(x)) \(fmt(y))C\(fmt(x - head * 0.4)) \(fmt(y - tip * 0.45)) \(fmt(x - head)) "
                + "\(fmt(y - tip * 0.55)) \(fmt(x - head)) \(fmt(y - tip + head))"
            + "A\(fmt(head)) \(fmt(head)) 0 1 1 \(fmt(x + head)) \(fmt(y - tip + head))"
            + "C\(fmt(x + head)) \(fmt(y - tip * 0.55)) \(fmt(x + head * 0.4)) \(fmt(y - tip * 0.45)) \(fmt(x)) "
            + "\(fmt(y))Z"
        svg.element("path",
                    ["d": d, "fill": selected ? "#c5221f" : "#ea4335", "stroke": "#ffffff", "stroke-width": "1.5"])
        svg.element("circle", ["cx": fmt(x), "cy": fmt(y - tip + head), "r": fmt(head * 0.4), "fill": "#ffffff"])
        svg.close("g")
    }

    /// The callout bubble above a selected pin: title, subtitle, coordinate, the directions (car)
    /// accessory on the left and the details (info) accessory on the right, pointing at the pin.
    private func drawCallout(_ frame: CalloutFrame, into svg: inout SVGWriter) {
        let callout = frame.callout
        let title = callout.title ?? "", subtitle = callout.subtitle ?? "", coordinate = callout.coordinateText
        let accessory = 36.0
        let (side, left, top, w, h, tip) = (frame.side, frame.left, frame.top, frame.w, frame.h, frame.tip)
        svg.open("g", ["id": "callout", "font-size": "13", "data-side": side.rawValue])
        // The pointer: a triangle from the bubble's edge nearest the pin to its tip.
        let pointer: String
        switch side {
        case .above:
            pointer =
                "M\(fmt(tip.0 - 10)) \(fmt(top + h))L\(fmt(tip.0)) \(fmt(tip.1))L\(fmt(tip.0 + 10)) \(fmt(top + h))Z"
        case .below:
            pointer = "M\(fmt(tip.0 - 10)) \(fmt(top))L\(fmt(tip.0)) \(fmt(tip.1))L\(fmt(tip.0 + 10)) \(fmt(top))Z"
        case .right:
            pointer = "M\(fmt(left)) \(fmt(tip.1 - 10))L\(fmt(tip.0)) \(fmt(tip.1))L\(fmt(left)) \(fmt(tip.1 + 10))Z"
        case .left:
            pointer =
                "M\(fmt(left + w)) \(fmt(tip.1 - 10))L\(fmt(tip.0)) \(fmt(tip.1))L\(fmt(left + w)) \(fmt(tip.1 + 10))Z"
        }
        svg.element("rect",
                    ["x": fmt(left + 1), "y": fmt(top + 2), "width": fmt(w), "height": fmt(h), "rx": "12",
                     "fill": "#000000", "fill-opacity": "0.15"])
        svg.element("rect",
                    ["x": fmt(left), "y": fmt(top), "width": fmt(w), "height": fmt(h), "rx": "12", "fill": "#ffffff"])
        svg.element("path", ["d": pointer, "fill": "#ffffff"])
        // Left accessory: a blue button with a car.
        let bx = left + 10, by = top + (h - accessory) / 2
        svg.open("g", ["class": "accessory directions"])
        svg.element("title", text: "Directions")
        svg.element("rect",
                    ["x": fmt(bx), "y": fmt(by), "width": fmt(accessory), "height": fmt(accessory),
                     "rx": "8", "fill": "#1a73e8"])
        let cx = bx + accessory / 2, cy = by + accessory / 2
        svg.element(
            "path",
            [
                "d":
                    "M\(fmt(cx - 11)) \(fmt(cy + 4))L\(fmt(cx - 11)) \(fmt(cy - 1))L\(fmt(cx - 7)) "
                        + "\(fmt(cy - 2))L\(fmt(cx - 4)) \(fmt(cy - 8))L\(fmt(cx + 5)) \(fmt(cy - 8))L\(fmt(cx + 8)) "
                        + "\(fmt(cy - 2))L\(fmt(cx + 11)) \(fmt(cy - 1))L\(fmt(cx + 11)) \(fmt(cy + 4))Z",
                             "fill": "#ffffff"])
        svg.element("circle",
                    ["cx": fmt(cx - 6), "cy": fmt(cy + 5), "r": "3", "fill": "#ffffff",
                     "stroke": "#1a73e8", "stroke-width": "1.5"])
        svg.element("circle",
                    ["cx": fmt(cx + 6), "cy": fmt(cy + 5), "r": "3", "fill": "#ffffff",
                     "stroke": "#1a73e8", "stroke-width": "1.5"])
        svg.close("g")
        // Right accessory: the info (details) button.
        let ix = left + w - 10 - accessory / 2, iy = top + h / 2
        svg.open("g", ["class": "accessory details"])
        svg.element("title", text: "Details")
        svg.element("circle",
                    ["cx": fmt(ix), "cy": fmt(iy), "r": "11", "fill": "none", "stroke": "#1a73e8", "stroke-width": "2"])
        svg.element("text",
                    ["x": fmt(ix), "y": fmt(iy + 5), "text-anchor": "middle", "font-size": "15", "font-weight": "bold",
                             "font-family": "Georgia, DejaVu Serif, serif", "fill": "#1a73e8"], text: "i")
        svg.close("g")
        let tx = bx + accessory + 12
        svg.element("text",
                    ["class": "title", "x": fmt(tx), "y": fmt(top + 22), "font-size": "15",
                     "font-weight": "bold", "fill": "#202124"], text: title)
        svg.element("text",
                    ["class": "subtitle", "x": fmt(tx), "y": fmt(top + 40),
                     "font-size": "12", "fill": "#5f6368"], text: subtitle)
        svg.element("text",
                    ["class": "coordinate", "x": fmt(tx), "y": fmt(top + 56),
                     "font-size": "11", "fill": "#80868b"], text: coordinate)
        svg.close("g")
    }

    // MARK: - Scale bar and attribution

    /// The longest round distance (1, 2 or 5 × 10ⁿ metres) that fits in 120 points at the centre.
    static func scaleBar(latitude: Double, zoom: Double) -> (metres: Double, points: Double, label: String) {
        let metresPerPoint = cos(latitude * .pi / 180) * 2 * .pi * 6_378_137 / (256 * pow(2, zoom))
        let maximum = 120 * metresPerPoint
        var metres = 1.0
        var magnitude = 1.0
        while magnitude * 10 <= maximum { magnitude *= 10 }
        for factor in [1.0, 2, 5] where magnitude * factor <= maximum { metres = magnitude * factor }
        if metres < magnitude { metres = magnitude }
        let label = metres >= 1000 ? "\(fmt(metres / 1000)) km" : "\(fmt(metres)) m"
        return (metres, metres / metresPerPoint, label)
    }

    private func drawScaleBar(latitude: Double, zoom: Double, into svg: inout SVGWriter) {
        let bar = MapPicture.scaleBar(latitude: latitude, zoom: zoom)
        let x = 12.0, y = height - 14
        svg.open("g", ["id": "scale-bar"])
        svg.element("rect",
                    ["x": fmt(x - 4), "y": fmt(y - 18), "width": fmt(bar.points + 8), "height": "24",
                     "fill": "#ffffff", "fill-opacity": "0.75"])
        svg.element("path",
                    ["d": "M\(fmt(x)) \(fmt(y - 6))V\(fmt(y))H\(fmt(x + bar.points))V\(fmt(y - 6))", "fill": "none",
                     "stroke": "#333333", "stroke-width": "2"])
        svg.element("text", ["x": fmt(x + 3), "y": fmt(y - 6), "font-size": "11", "fill": "#333333"], text: bar.label)
        svg.close("g")
    }

    private func drawAttribution(into svg: inout SVGWriter) {
        let text = "© OpenStreetMap contributors"
        let w = 176.0
        svg.open("g", ["id": "attribution"])
        svg.element("rect",
                    ["x": fmt(width - w), "y": fmt(height - 18), "width": fmt(w), "height": "18",
                     "fill": "#ffffff", "fill-opacity": "0.75"])
        svg.element("text",
                    ["x": fmt(width - 5), "y": fmt(height - 5), "text-anchor": "end",
                     "font-size": "11", "fill": "#333333"], text: text)
        svg.close("g")
    }
}

/// A number for SVG: at most two decimals, no trailing zeros, no exponent.
func fmt(_ v: Double) -> String {
    let r = (v * 100).rounded() / 100
    if r == r.rounded() && abs(r) < 1e15 { return String(Int(r)) }
    var s = String(Int((abs(r) * 100).rounded()))
    while s.count < 3 { s = "0" + s }
    var text = String(s.dropLast(2)) + "." + String(s.suffix(2))
    while text.hasSuffix("0") { text.removeLast() }
    return (r < 0 ? "-" : "") + text
}

/// Writes SVG (XML) with escaped text and attributes, attributes in a fixed (sorted) order.
struct SVGWriter {
    private(set) var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    private var depth = 0

    static func escape(_ s: String) -> String {
        var out = ""
        for c in s.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "\u{0}"..."\u{8}", "\u{B}", "\u{C}", "\u{E}"..."\u{1F}": continue // not allowed in XML 1.0
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    private func tag(_ name: String, _ attributes: [String: String]) -> String {
        var s = "<" + name
        for key in attributes.keys.sorted() { s += " \(key)=\"\(SVGWriter.escape(attributes[key]!))\"" }
        return s
    }

    mutating func open(_ name: String, _ attributes: [String: String] = [:]) {
        text += String(repeating: " ", count: depth) + tag(name, attributes) + ">\n"
        depth += 1
    }

    mutating func close(_ name: String) {
        depth -= 1
        text += String(repeating: " ", count: depth) + "</\(name)>\n"
    }

    mutating func element(_ name: String, _ attributes: [String: String] = [:], text content: String? = nil) {
        text += String(repeating: " ", count: depth) + tag(name, attributes)
        if let content { text += ">" + SVGWriter.escape(content) + "</\(name)>\n" } else { text += "/>\n" }
    }

    /// `M x y L x y …` for a polyline.
    static func pathData(_ points: [(Double, Double)]) -> String {
        var d = ""
        for (i, p) in points.enumerated() { d += (i == 0 ? "M" : "L") + fmt(p.0) + " " + fmt(p.1) }
        return d
    }
}
