import Foundation
import WaymarkAnnotations
import WaymarkGeo
import WaymarkGeoJSON
import WaymarkGraph
import WaymarkOSM
import WaymarkRouting

/// What each fuzz target feeds its input to. Every input must end in a value or a thrown error:
/// a trap, a sanitizer report or a hang is a finding.
enum FuzzTarget: String, CaseIterable {
    /// OpenStreetMap XML → car road graph → a route across it, by ALT and by the hierarchy.
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

    func run(_ bytes: [UInt8]) {
        switch self {
        case .osmXML:
            guard let graph = try? OSMGraphLoader.build(xml: String(decoding: bytes, as: UTF8.self)) else { return }
            routeAcross(graph)
        case .pbf:
            guard let graph = try? OSMGraphLoader.build(pbf: bytes) else { return }
            routeAcross(graph)
        case .graphFile:
            guard let graph = try? GraphFile.decode(Data(GraphFile.sealed(bytes)), path: "<fuzz>") else { return }
            routeAcross(graph)
        case .geoJSON:
            _ = try? JSONValue(parsing: bytes)
            _ = try? GeoJSONReader.read(bytes)
            _ = try? AnnotationReader.readGeoJSON(bytes)
        case .csv:
            _ = try? AnnotationReader.readCSV(bytes)
        }
    }

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
