import Foundation
import WaymarkAnnotations
import WaymarkGeo
import WaymarkGeoJSON
import WaymarkGraph
import WaymarkOSM
import WaymarkRender
import WaymarkRouting
import WaymarkServer

/// What each fuzz target feeds its input to. Every input must end in a value or a thrown error:
/// a trap, a sanitizer report or a hang is a finding.
enum FuzzTarget: String, CaseIterable {
    /// OpenStreetMap XML → car road graph and basemap → a route across it, by ALT and by the
    /// hierarchy, and a picture of it all.
    case osmXML = "osm-xml"
    /// OpenStreetMap PBF → car road graph → a route across it.
    case pbf
    /// Graph-file bytes, resealed (length and checksum made to match, as a crafted file would be)
    /// → a validated graph → a route across it.
    case graphFile = "graph-file"
    /// JSON, GeoJSON and annotations from GeoJSON.
    case geoJSON = "geojson"
    /// Annotations from CSV.
    case csv
    /// HTTP request bytes → the server's request parser → the viewer's paths and the OSRM API on a
    /// small map.
    case http

    func run(_ bytes: [UInt8]) {
        switch self {
        case .osmXML:
            let path = NSTemporaryDirectory() + "waymark-fuzz-\(getpid()).osm"
            defer { try? FileManager.default.removeItem(atPath: path) }
            guard FileManager.default.createFile(atPath: path, contents: Data(bytes)),
                  let (graph, basemap) = try? OSMGraphLoader.buildWithBasemap(path: path) else { return }
            // Whatever the builder accepts, its loader must: a graph it would refuse is a finding.
            do { try GraphFile.checkStorable(graph, path: "<fuzz>") } catch {
                fatalError("built a graph its loader refuses: \(error)")
            }
            routeAcross(graph)
            draw(graph, basemap)
        case .pbf:
            guard let graph = try? OSMGraphLoader.build(pbf: bytes) else { return }
            routeAcross(graph)
        case .graphFile:
            let sealed = GraphFile.sealed(bytes)
            guard let graph = try? GraphFile.decode(Data(sealed), path: "<fuzz>") else { return }
            routeAcross(graph)
            // The tables a file stores beside the graph (hierarchy, turn geometry and weights,
            // guidance tables, snap index) are read only from a file: checked, then routed on.
            let path = NSTemporaryDirectory() + "waymark-fuzz-\(getpid()).wmg"
            defer { try? FileManager.default.removeItem(atPath: path) }
            guard FileManager.default.createFile(atPath: path, contents: Data(sealed)),
                let map = try? RoadMap(graphFile: path)
            else { return }
            let a = graph.coordinate(of: 0), b = graph.coordinate(of: UInt32(graph.nodeCount - 1))
            _ = try? map.route(from: a, to: b)
            _ = map.nearest(b)
            if let basemap = try? map.basemap() { draw(graph, basemap) }
        case .geoJSON:
            _ = try? JSONValue(parsing: bytes)
            _ = try? GeoJSONReader.read(bytes)
            _ = try? AnnotationReader.readGeoJSON(bytes)
        case .csv:
            _ = try? AnnotationReader.readCSV(bytes)
        case .http:
            var rest = bytes[...]
            // Pipelined requests, one after another, as the server takes them.
            while case let .request(request, consumed) = HTTPRequestParser.parse(Array(rest)), consumed > 0 {
                // The viewer's paths first (as `serve --pois` answers), then OSRM's API.
                if FuzzTarget.viewer.respond(to: request) == nil {
                    _ = FuzzTarget.service.respond(to: request, routers: [FuzzTarget.routers])
                }
                rest = rest.dropFirst(consumed)
            }
        }
    }

    /// The map as a picture, far out and close in (every layer: roads, basemap, names, shields).
    private func draw(_ graph: RoadGraph, _ basemap: Basemap) {
        for size in [(120.0, 90.0), (2400.0, 1800.0)] {
            _ = try? MapPicture(width: size.0, height: size.1).svg(MapScene(graph: graph, basemap: basemap))
        }
    }

    /// A 3×3 grid of two-way streets around 52.3 N, 2.6 W, for the HTTP target's requests.
    static let service: OSRMService = {
        var xml = "<osm version=\"0.6\">"
        for r in 0..<3 {
            for c in 0..<3 {
                xml +=
                    "<node id=\"\(r * 3 + c + 1)\" lat=\"\(52.3 + Double(r) * 0.002)\" "
                        + "lon=\"\(-2.6 + Double(c) * 0.003)\"/>"
            }
        }
        var way = 1
        for r in 0..<3 {
            xml +=
                "<way id=\"\(way)\">" + (0..<3).map { "<nd ref=\"\(r * 3 + $0 + 1)\"/>" }.joined()
                + "<tag k=\"highway\" v=\"residential\"/><tag k=\"name\" v=\"Row \(r)\"/></way>"
            way += 1
        }
        for c in 0..<3 {
            xml +=
                "<way id=\"\(way)\">" + (0..<3).map { "<nd ref=\"\($0 * 3 + c + 1)\"/>" }.joined()
                + "<tag k=\"highway\" v=\"residential\"/></way>"
            way += 1
        }
        xml += "</osm>"
        let graph = try! OSMGraphLoader.build(xml: xml)
        return OSRMService(map: RoadMap(graph: graph, method: .hierarchy))
    }()
    nonisolated(unsafe) static let routers = OSRMService.Routers(map: service.map)

    /// The viewer over the same map, with two places in a scratch file of its own.
    static let viewer: ViewerService = {
        let path = NSTemporaryDirectory() + "waymark-fuzz-places-\(getpid()).geojson"
        let places =
            #"{"type":"FeatureCollection","features":[{"type":"Feature","id":"a","geometry":{"type":"Point","#
                + #""coordinates":[-2.6,52.3]},"properties":{"title":"A"}},{"type":"Feature","id":7,"geometry":"#
                + #"{"type":"Point","coordinates":[-2.597,52.302]},"properties":{"title":"B","subtitle":"b"}}]}"#
        _ = FileManager.default.createFile(atPath: path, contents: Data(places.utf8))
        // (The seed's edits carry this token, so mutations reach the editing code both ways.)
        return try! ViewerService(osrm: service, placesPath: path, editing: .token("fuzz-edit-token-0001"))
    }()

    /// Snaps the first and last vertex and routes between them with each search.
    private func routeAcross(_ graph: RoadGraph) {
        guard graph.nodeCount > 0, graph.edgeCount > 0 else { return }
        let a = graph.coordinate(of: 0), b = graph.coordinate(of: UInt32(graph.nodeCount - 1))
        for method in [RoadMap.SearchMethod.landmarks, .hierarchy] {
            let map = RoadMap(graph: graph, method: method)
            _ = try? map.route(from: a, to: b)
        }
    }
}
