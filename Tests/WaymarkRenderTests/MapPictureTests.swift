import Foundation
import Testing
import WaymarkAnnotations
import WaymarkGeo
import WaymarkSupport
import WaymarkOSM
import WaymarkGraph
import WaymarkRouting
@testable import WaymarkRender

@Suite struct MapPictureTests {
    @Test func scaleBarIsARoundDistanceThatFits() {
        // Zoom 14 at 52.3°N: 5.83 m per point; 120 points = 700 m; the bar is 500 m.
        let bar = MapPicture.scaleBar(latitude: 52.3, zoom: 14)
        #expect(bar.metres == 500 && bar.label == "500 m")
        let metresPerPoint: Double = cos(52.3 * Double.pi / 180) * 2 * Double.pi * 6_378_137 / (256 * 16384)
        #expect(abs(bar.points - 500 / metresPerPoint) < 1e-9)
        #expect(MapPicture.scaleBar(latitude: 0, zoom: 5).label == "500 km") // 4.9 km per point: 587 km fit
        #expect(MapPicture.scaleBar(latitude: 41.15, zoom: 12.6).label == "2 km")
        for zoom in stride(from: 0.0, through: 18, by: 0.5) {
            let b = MapPicture.scaleBar(latitude: 45, zoom: zoom)
            #expect(b.points <= 120 && b.points > 40, "zoom \(zoom): \(b.points) points")
        }
    }

    @Test func numbersAndEscaping() {
        #expect(
            fmt(3) == "3" && fmt(-2.5) == "-2.5" && fmt(0.125) == "0.13" && fmt(-0.004) == "0" && fmt(12.10) == "12.1")
        #expect(SVGWriter.escape("Fish & Chips <\"best\">") == "Fish &amp; Chips &lt;&quot;best&quot;&gt;")
        #expect(SVGWriter.escape("a\u{1}b") == "ab")
    }

    @Test func viewportLeavesRoomForTheCallout() throws {
        let places = [Annotation(coordinate: Coordinate(latitude: 52.30, longitude: -2.60),
                                 title: "A", id: .string("a")),
                      Annotation(coordinate: Coordinate(latitude: 52.32, longitude: -2.57),
                                 title: "B", id: .string("b"))]
        let picture = MapPicture(width: 800, height: 600)
        let plain = try picture.viewport(for: MapScene(annotations: places))
        let selected = try picture.viewport(for: MapScene(annotations: places, selected: 1))
        #expect(selected.zoom < plain.zoom) // the bubble's room costs zoom
        #expect(throws: MapPictureError.self) { try picture.svg(MapScene()) }
    }

    @Test func pinsOutsideNoClusterAcrossTheWorld() throws {
        // Two far-apart places never cluster; a selected one is drawn once, as the selected pin.
        let places = [Annotation(coordinate: Coordinate(latitude: 48.858370, longitude: 2.294481),
                                 title: "Eiffel & Co", id: .string("e")),
                      Annotation(coordinate: Coordinate(latitude: 35.658581, longitude: 139.745433),
                                 title: "東京タワー", id: .string("t"))]
        let svg = try MapPicture().svg(MapScene(annotations: places, selected: 1))
        #expect(svg.components(separatedBy: "class=\"pin\"").count - 1 == 1)
        #expect(svg.components(separatedBy: "class=\"pin selected\"").count - 1 == 1)
        #expect(svg.contains("Eiffel &amp; Co") && svg.contains(">東京タワー</text>"))
        #expect(!svg.contains("class=\"cluster\""))
    }

    private static let sampleTownPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Data/sample-town.osm").path

    private static func sampleTown() throws -> RoadGraph { try OSMGraphLoader.build(path: sampleTownPath) }

    /// Roads by zoom, as OSM Carto: far out only the main roads (without casings, their fills
    /// darkened only as far as they must be to show on the land), close in every street with its
    /// casing; widths grow with zoom.
    @Test func roadsShowByZoom() throws {
        let graph = try MapPictureTests.sampleTown()
        let town = Coordinate(latitude: 52.31, longitude: -2.59)
        // Two places a degree apart put the town at about zoom 8; the town alone fills the picture.
        let far = [Annotation(coordinate: town, title: "Town"),
                   Annotation(coordinate: Coordinate(latitude: 52.9, longitude: -1.6), title: "Far")]
        let wide = try MapPicture().svg(MapScene(graph: graph, annotations: far))
        let big = MapPicture(width: 2400, height: 1800)
        let close = try big.svg(MapScene(graph: graph))
        #expect(try MapPicture().viewport(for: MapScene(graph: graph, annotations: far)).zoom < 10)
        #expect(try big.viewport(for: MapScene(graph: graph)).zoom >= 14)
        #expect(wide.contains("class=\"road motorway\"") && wide.contains("class=\"road primary\""))
        #expect(!wide.contains("class=\"road residential\"") && !wide.contains("class=\"road service\""))
        #expect(close.contains("class=\"road residential\"") && close.contains("class=\"road service\""))
        #expect(!MapPicture.hasCasing(.primary, zoom: 9) && MapPicture.hasCasing(.primary, zoom: 12))
        // The darkened fills (worked out apart, with WCAG's luminance: the first 5 % step whose
        // contrast with #f2efe9 reaches 1.5); a fill that shows already is kept.
        let darkened = [("#f7fabf", "#c6c899"), ("#ffffff", "#bfbfbf"), ("#fcd6a4", "#d6b68b"),
                        ("#e892a2", "#e892a2"), ("#66a3d9", "#66a3d9")]
        for (fill, shown) in darkened { #expect(MapPicture.showing(fill, on: MapPicture.land) == shown, "\(fill)") }
        #expect(wide.contains("stroke=\"#d6b68b\"") && !wide.contains("#707d05") && !wide.contains("#a06b00"))
        #expect(!MapPicture.hasCasing(.residential, zoom: 13) && MapPicture.hasCasing(.residential, zoom: 14))
        for highway in HighwayClass.allCases {
            #expect(MapPicture.width(highway, zoom: 16) == MapPicture.style(highway).width)
            #expect(MapPicture.width(highway,
                                     zoom: MapPicture.minimumZoom(highway)) < MapPicture.width(highway, zoom: 15))
            #expect(MapPicture.width(highway, zoom: 3) >= 0.5)
        }
    }

    /// Lines keep only the points the picture's scale needs: a straight run is its two ends, a
    /// bend wider than the tolerance stays.
    @Test func linesSimplifiedToThePixel() {
        let straight = (0...20).map { (Double($0) * 3, 10 + Double($0) * 0.01) }
        let kept = Simplification.douglasPeucker(straight, tolerance: 0.5)
        #expect(kept.count == 2 && kept[0] == straight[0] && kept[1] == straight[20])
        let bent = [(0.0, 0.0), (10, 0.2), (20, 0), (20, 10)]
        #expect(Simplification.douglasPeucker(bent, tolerance: 0.5).map(\.0) == [0, 20, 20])
        #expect(Simplification.douglasPeucker(bent, tolerance: 0.1).count == 4)
    }

    /// The callout goes above its pin unless that hides the route or other pins, then to the side
    /// that hides the fewest; never out of the picture when another side fits.
    @Test func calloutAvoidsTheRouteAndPins() {
        let picture = MapPicture(width: 800, height: 600)
        let pin = (400.0, 300.0), w = 240.0, h = 66.0
        #expect(picture.calloutSide(pin: pin, w: w, h: h, avoiding: []) == .above)
        // A route running straight up from the pin: above is covered, below is free.
        let up = stride(from: 300.0, through: 0, by: -6).map { (400.0, $0) }
        #expect(picture.calloutSide(pin: pin, w: w, h: h, avoiding: up) == .below)
        // Up and down: a side.
        let vertical = stride(from: 600.0, through: 0, by: -6).map { (400.0, $0) }
        let side = picture.calloutSide(pin: pin, w: w, h: h, avoiding: vertical)
        #expect(side == .right || side == .left)
        let box = picture.calloutBox(side, pin: pin, w: w, h: h)
        #expect(
            !vertical.contains { $0.0 >= box.left && $0.0 <= box.left + w && $0.1 >= box.top && $0.1 <= box.top + h })
        // A pin near the top: above would leave the picture.
        #expect(picture.calloutSide(pin: (400, 60), w: w, h: h, avoiding: []) == .below)
        // In the drawing: the side is marked on the callout.
        let places = [Annotation(coordinate: Coordinate(latitude: 52.30, longitude: -2.60),
                                 title: "A", id: .string("a")),
                      Annotation(coordinate: Coordinate(latitude: 52.32, longitude: -2.57),
                                 title: "B", id: .string("b"))]
        let svg = (try? picture.svg(MapScene(annotations: places, selected: 0))) ?? ""
        #expect(svg.contains("id=\"callout\"") && svg.contains("data-side=\""))
    }

    /// Via points are marked and numbered where their leg starts.
    @Test func viaPointsAreMarked() throws {
        let graph = try MapPictureTests.sampleTown()
        let map = RoadMap(graph: graph)
        let stops = [Coordinate(latitude: 52.309427, longitude: -2.598781),
                     Coordinate(latitude: 52.3127, longitude: -2.5783),
                     Coordinate(latitude: 52.311680, longitude: -2.572561)]
        let route = try map.route(stops)
        #expect(route.legs.count == 2)
        let svg = try MapPicture().svg(MapScene(graph: graph, route: route))
        #expect(svg.components(separatedBy: "class=\"route-via\"").count - 1 == 1)
        #expect(svg.contains("data-index=\"1\"") && svg.contains("Via point 1"))
        let direct = try MapPicture().svg(MapScene(graph: graph, route: try map.route([stops[0], stops[2]])))
        #expect(!direct.contains("route-via"))
    }

    /// Street names run along their roads left to right, inside the picture, never over one
    /// another or what must stay clear, main roads from zoom 13 and streets from 15; road numbers
    /// in shields on main roads.
    @Test func streetNamesAndShields() throws {
        let graph = try MapPictureTests.sampleTown()
        let picture = MapPicture(width: 2400, height: 1800)
        let fit = try picture.viewport(for: MapScene(graph: graph))
        let project = picture.projection(fit)
        let labels = StreetLabels.place(graph: graph, zoom: fit.zoom, width: 2400, height: 1800,
                                        keepClear: [], project: project)
        #expect(labels.count >= 5)
        #expect(labels.contains { $0.name == "High Street" })
        var boxes: [StreetLabels.Box] = []
        for label in labels {
            let first = try #require(label.path.first), last = try #require(label.path.last)
            #expect(first.0 <= last.0, "\(label.name) reads right to left")
            let m = label.fontSize * 0.7
            let box: StreetLabels.Box = (label.path.map(\.0).min()! - m, label.path.map(\.1).min()! - m,
                                         label.path.map(\.0).max()! + m, label.path.map(\.1).max()! + m)
            #expect(box.minX >= 0 && box.minY >= 0 && box.maxX <= 2400 && box.maxY <= 1800)
            #expect(!boxes.contains { StreetLabels.overlaps($0, box) }, "\(label.name) overlaps another label")
            boxes.append(box)
            // Long enough for its text.
            let length = zip(label.path, label.path.dropFirst()).reduce(0) {
                $0 + hypot($1.1.0 - $1.0.0, $1.1.1 - $1.0.1)
            }
            #expect(length >= StreetLabels.textWidth(label.name, fontSize: label.fontSize))
        }
        // Nothing where the picture must stay clear; nothing for streets below zoom 15 or at all below 13.
        #expect(StreetLabels.place(graph: graph, zoom: fit.zoom, width: 2400, height: 1800,
                                   keepClear: [(0, 0, 2400, 1800)], project: project).isEmpty)
        #expect(StreetLabels.place(graph: graph, zoom: 12.9, width: 2400, height: 1800,
                                   keepClear: [], project: project).isEmpty)
        let main = StreetLabels.place(graph: graph, zoom: 14, width: 2400, height: 1800,
                                      keepClear: [], project: project)
        let streets = StreetLabels.place(graph: graph, zoom: 15, width: 2400, height: 1800,
                                         keepClear: [], project: project)
        #expect(!main.isEmpty && main.count < streets.count)
        let svg = try picture.svg(MapScene(graph: graph))
        #expect(svg.contains("<textPath href=\"#street-name-0\"") && svg.contains(">High Street</textPath>"))
        let shields = StreetLabels.shields(graph: graph, zoom: fit.zoom, width: 2400, height: 1800,
                                           keepClear: [], project: project)
        #expect(
            shields.contains { $0.ref == "A4117" }
                && shields.allSatisfy { [.motorway, .trunk, .primary].contains($0.highway) })
        #expect(svg.contains(">A4117</text>"))
        #expect(StreetLabels.shields(graph: graph, zoom: 9, width: 2400, height: 1800,
                                     keepClear: [], project: project).isEmpty)
        // Cutting a line by distance along it.
        let cut = StreetLabels.cut([(0, 0), (10, 0), (10, 10)], from: 5, to: 15)
        #expect(cut.count == 3 && cut[0] == (5, 0) && cut[1] == (10, 0) && cut[2] == (10, 5))
    }

    /// The basemap under the roads: the sample town's river; buildings only from zoom 15;
    /// place names by importance, never over one another.
    @Test func basemapUnderTheRoads() throws {
        let (graph, town) = try OSMGraphLoader.buildWithBasemap(path: MapPictureTests.sampleTownPath)
        #expect(
            town.kinds.contains(.river) && town.kinds.filter { $0 == .building }.count >= 100 && town.places.isEmpty)
        let svg = try MapPicture().svg(MapScene(graph: graph, basemap: town))
        #expect(svg.contains("class=\"basemap river\"") && !svg.contains("class=\"basemap building\"")) // zoom 13
        // Drawn under the roads.
        let basemapAt = try #require(svg.range(of: "id=\"basemap\"")),
            roadsAt = try #require(svg.range(of: "id=\"roads-casing\""))
        #expect(basemapAt.lowerBound < roadsAt.lowerBound)
        let near = MapPicture(width: 3600, height: 2700), far = MapPicture(width: 300, height: 200)
        #expect(
            try near.viewport(for: MapScene(graph: graph)).zoom >= 15
                && (try far.viewport(for: MapScene(graph: graph)).zoom) < 14)
        #expect(try near.svg(MapScene(graph: graph, basemap: town)).contains("class=\"basemap building\""))
        #expect(!(try far.svg(MapScene(graph: graph, basemap: town)).contains("class=\"basemap building\"")))

        var map = Basemap()
        let centre = Coordinate(latitude: 52.31, longitude: -2.59)
        map.places = [Basemap.Place(name: "Avelbury", kind: .town, coordinate: centre),
                      Basemap.Place(name: "Avelbury Centre", kind: .suburb, coordinate: centre), // same spot: left out
                      Basemap.Place(name: "Mill End", kind: .neighbourhood,
                                    coordinate: Coordinate(latitude: 52.306, longitude: -2.6))]
        let close = try near.svg(MapScene(graph: graph, basemap: map))
        #expect(close.contains(">Avelbury</text>") && !close.contains(">Avelbury Centre</text>"))
        let fit = try near.viewport(for: MapScene(graph: graph))
        let labels = near.placeLabels(map, zoom: 15, keepClear: [], project: near.projection(fit))
        #expect(labels.map(\.place.name) == ["Avelbury", "Mill End"])
        #expect(near.placeLabels(map, zoom: 9, keepClear: [],
                                 project: near.projection(fit)).map(\.place.name) == ["Avelbury"])
    }

    /// A pin on a town keeps the town's name beside it, never under it, and shows its own title
    /// below it where there is room (issue 46, item 3); a pin without room shows none.
    @Test func placeNamesBesidePinsAndPinTitles() throws {
        let (graph, _) = try OSMGraphLoader.buildWithBasemap(path: MapPictureTests.sampleTownPath)
        let centre = Coordinate(latitude: 52.31, longitude: -2.59)
        var map = Basemap()
        map.places = [Basemap.Place(name: "Avelbury", kind: .town, coordinate: centre)]
        let pins = [Annotation(coordinate: centre, title: "Town hall")]
        let picture = MapPicture(width: 900, height: 700)
        let scene = MapScene(graph: graph, annotations: pins, basemap: map)
        let fit = try picture.viewport(for: MapScene(graph: graph))
        let project = picture.projection(fit), pin = project(centre)
        let pinBox: StreetLabels.Box = (pin.0 - 14, pin.1 - 40, pin.0 + 14, pin.1 + 2)
        let label = try #require(picture.placeLabels(map, zoom: fit.zoom, keepClear: [pinBox], project: project).first)
        #expect(label.place.name == "Avelbury" && !StreetLabels.overlaps(label.box, pinBox))
        let items = picture.pinItems(scene, zoom: fit.zoom, visible: BoundingBox(west: -3, south: 52, east: -2,
                                                                                  north: 53))
        let titles = picture.pinTitles(scene, items, keepClear: [pinBox, label.box], project: project)
        #expect(titles.map(\.text) == ["Town hall"] && titles[0].box.minY > pin.1)
        #expect(picture.pinTitles(scene, items, keepClear: [titles[0].box], project: project).isEmpty)
        let svg = try picture.svg(scene, center: fit.center, zoom: fit.zoom)
        #expect(svg.contains(">Avelbury</text>") && svg.contains("class=\"pin-title\""))
        #expect(svg.contains(">Town hall</text>"))
    }

    /// A picture drawn with the index of where things lie is the picture drawn without it, at
    /// every zoom and anywhere (random views, fixed seed), and the index finds fewer roads close in.
    @Test func indexChangesNothingButTheWork() throws {
        let (graph, town) = try OSMGraphLoader.buildWithBasemap(path: MapPictureTests.sampleTownPath)
        let index = PictureIndex(graph: graph, basemap: town)
        var rng = SplitMix64(seed: 16)
        for _ in 0..<12 {
            let center = Coordinate(latitude: 52.28 + rng.uniform(0, 0.05), longitude: -2.64 + rng.uniform(0, 0.09))
            let zoom = rng.uniform(9, 18), picture = MapPicture(width: rng.uniform(200, 900),
                                                                height: rng.uniform(150, 700))
            let plain = try picture.svg(MapScene(graph: graph, basemap: town), center: center, zoom: zoom)
            let indexed = try picture.svg(MapScene(graph: graph, basemap: town, index: index),
                                          center: center, zoom: zoom)
            #expect(plain == indexed, "zoom \(zoom) at \(center)")
        }
        #expect(index.edges(in: BoundingBox(west: -180, south: -85, east: 180, north: 85), margin: 0) == index.allEdges)
        // Two towns 100 km apart: a view of one finds only its roads (and the long road between them).
        var xml = "<osm version=\"0.6\">"
        for (n, (lat, lon)) in [(52.0, 13.0), (52.0, 13.01), (52.9, 13.0), (52.9, 13.01)].enumerated() {
            xml += "<node id=\"\(n + 1)\" lat=\"\(lat)\" lon=\"\(lon)\"/>"
        }
        xml += "<way id=\"1\"><nd ref=\"1\"/><nd ref=\"2\"/><tag k=\"highway\" v=\"residential\"/></way>"
        xml += "<way id=\"2\"><nd ref=\"3\"/><nd ref=\"4\"/><tag k=\"highway\" v=\"residential\"/></way>"
        xml += "<way id=\"3\"><nd ref=\"2\"/><nd ref=\"4\"/><tag k=\"highway\" v=\"primary\"/></way></osm>"
        let apart = try OSMGraphLoader.build(xml: xml)
        let split = PictureIndex(graph: apart)
        let south = split.edges(in: BoundingBox(west: 12.99, south: 51.99, east: 13.02, north: 52.01), margin: 0)
        #expect(split.allEdges.count == 3 && south.count == 2)
        #expect(
            south.allSatisfy {
                apart.coordinate(of: apart.source(of: $0)).latitude < 52.5
                    || apart.coordinate(of: apart.edgeTarget[$0]).latitude < 52.5
            })
    }
}

private let monacoExtract = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("shared/data/osm/monaco.osm.gz").path

/// Street names on a street-level route picture of a real, winding city (issue 46, item 5).
@Suite struct RouteStreetNameTests {
    /// A route across Monaco at the default size (about zoom 14.5): its main roads are named,
    /// names on curved roads along a straight enough stretch, and crossing the route only away
    /// from their middle (before: none at all).
    @Test(.enabled(if: FileManager.default.fileExists(atPath: monacoExtract),
                   "the shared Monaco extract (../shared/data/osm) is absent"))
    func aRouteAcrossMonacoNamesItsMainRoads() throws {
        let (graph, basemap) = try OSMGraphLoader.buildWithBasemap(path: monacoExtract)
        let map = RoadMap(graph: graph, basemap: basemap)
        let route = try map.route(from: Coordinate(latitude: 43.7262, longitude: 7.4165),
                                  to: Coordinate(latitude: 43.7411, longitude: 7.4280))
        let svg = try MapPicture().svg(MapScene(graph: graph, route: route, basemap: basemap))
        let names = svg.components(separatedBy: "<text class=\"street-name\"").count - 1
        #expect(names >= 3, "\(names) street names")
        #expect(svg.contains("Boulevard Louis II"))
    }
}
