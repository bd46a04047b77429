import Foundation
import WaymarkGraph
import WaymarkOSM
import WaymarkRouting

extension RoadMap {
    /// A map from a file: a graph file from `waymark build` (`.wmg`, with its stored hierarchy),
    /// or OpenStreetMap XML (`.osm`, `.osm.gz`) or PBF (`.osm.pbf`), built into a car road graph in memory first.
    ///
    /// - Parameters:
    ///   - drivingSide: which side traffic keeps to; default: the graph file's, or for an OSM file
    ///     the side most of its roads keep to (``LeftHandTraffic``). Overriding a graph file's
    ///     side sets its stored hierarchy aside (see ``RoadMap/setAsideHierarchy``).
    ///   - method: how routes are searched (see ``RoadMap/SearchMethod``).
    ///   - maxSnapDistance: how far a waypoint may be from its road, in metres.
    ///   - basemap: for an OSM file, also read what the map shows besides roads (``RoadMap/basemap()``;
    ///     a graph file has one when it was built with `--basemap`).
    ///   - memory: a graph file mapped or read whole (``RoadMap/memory(for:)``).
    public convenience init(contentsOf url: URL, drivingSide: DrivingSide? = nil, method: SearchMethod = .automatic,
                            maxSnapDistance: Double = 1000, basemap: Bool = false,
                            memory: FileMemory = .mapped) throws(RoadMapError) {
        let path = url.path
        if path.hasSuffix(".wmg") {
            try self.init(graphFile: path, drivingSide: drivingSide, method: method, maxSnapDistance: maxSnapDistance,
                          memory: memory)
            return
        }
        var graph: RoadGraph, map: Basemap?
        do {
            if basemap {
                (graph, map) = try OSMGraphLoader.buildWithBasemap(path: path)
            } else {
                graph = try OSMGraphLoader.build(path: path)
            }
        } catch {
            throw RoadMapError("\(error)")
        }
        if let drivingSide { graph.drivingSide = drivingSide }
        self.init(graph: graph, method: method, maxSnapDistance: maxSnapDistance, basemap: map)
    }
}
