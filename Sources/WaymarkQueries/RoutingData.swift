import Foundation
import WaymarkGeo
import WaymarkGraph
import WaymarkPreparation
import WaymarkProfiles
import WaymarkSupport

/// What every search on one map shares (OSRM's data facade): built once per map and never changed;
/// what searches derive from it on demand is made once (``MadeOnce``).
package final class RoutingData: Sendable {
    package let graph: RoadGraph
    package let snapIndex: SnapIndex
    package let costs: TurnCosts
    package let turns: TurnGeometry
    package let transitions: TransitionTable
    let landmarks: Landmarks?
    package let hierarchy: ContractionHierarchy?
    /// The classes of road every search on this data keeps off (OSRM's `exclude`): the turn
    /// table forbids entering them, the hierarchy was contracted without them, and snapping
    /// leaves them out.
    package let excluded: ExcludedClasses
    // What searches derive from the above at their first need, not at load (each reads the whole
    // map): made once, each under its own lock.
    private let madeMaximumSpeed = MadeOnce<Double>()
    private let madeBounds = MadeOnce<BoundingBox?>()
    private let madeTurnDurations = MadeOnce<[Float]>()
    private let madeVertexGrid = MadeOnce<VertexGrid?>()
    private let madeArcMetrics = MadeOnce<ArcMetrics?>()

    /// Metres per unit of weight of the "fastest" edge by weight (A*'s great-circle bound),
    /// measured at the first search that needs it; raised by the most the sphere's great circle
    /// can exceed an edge's length on the ellipsoid (lengths are measured as OSRM's), so that the
    /// bound never overestimates.
    var maximumSpeed: Double {
        madeMaximumSpeed.value {
            var fastest = 1.0
            for e in 0..<graph.edgeCount where graph.edgeWeight[e] > 0 {
                fastest = max(fastest, Double(graph.edgeLength[e]) / Double(graph.edgeWeight[e]))
            }
            return fastest * 1.006
        }
    }

    /// The box around every vertex (nil for an empty graph), measured at the first error that
    /// needs it.
    var bounds: BoundingBox? {
        madeBounds.value { try? BoundingBox.enclosing((0..<UInt32(graph.nodeCount)).map(graph.coordinate(of:))) }
    }

    /// Seconds of every turn in ``transitions`` (same layout; the weights there may carry
    /// penalties), made at the first isochrone on a map without a hierarchy.
    var turnDurations: [Float] {
        madeTurnDurations.value {
            var seconds = [Float](repeating: .infinity, count: transitions.cost.count)
            for e in 0..<graph.edgeCount {
                let v = graph.edgeTarget[e], first = Int(graph.firstEdge[Int(v)])
                let row = Int(transitions.start[e]) - first
                for f in graph.edges(from: v) where transitions.cost[row + f] != .infinity {
                    seconds[row + f] = Float(TransitionTable.duration(e, f, graph, turns, costs))
                }
            }
            return seconds
        }
    }

    /// The vertices by cell and the fastest speed by travel time (nil for an empty map), made at
    /// the first isochrone that needs them.
    var vertexGrid: VertexGrid? {
        madeVertexGrid.value { bounds.map { VertexGrid(graph: graph, bounds: $0) } }
    }

    /// Travel time and length of every hierarchy arc (nil without a hierarchy), made at the first
    /// table or isochrone.
    package var arcMetrics: ArcMetrics? {
        madeArcMetrics.value { hierarchy.map { ArcMetrics(hierarchy: $0, data: self) } }
    }

    package init(graph: RoadGraph, snapIndex: SnapIndex, costs: TurnCosts, turns: TurnGeometry,
                 transitions: TransitionTable,
                 landmarks: Landmarks?, hierarchy: ContractionHierarchy?, excluded: ExcludedClasses = []) {
        self.graph = graph
        self.snapIndex = snapIndex
        self.costs = costs
        self.turns = turns
        self.transitions = transitions
        self.landmarks = landmarks
        self.hierarchy = hierarchy
        self.excluded = excluded
    }

    /// This data with `classes` as the ones its snapping leaves out (the searches as they are).
    package func marked(excluding classes: ExcludedClasses) -> RoutingData {
        classes == excluded ? self
            : RoutingData(graph: graph, snapIndex: snapIndex, costs: costs, turns: turns, transitions: transitions,
                          landmarks: landmarks, hierarchy: hierarchy, excluded: classes)
    }

    /// The same map keeping off `classes`: the turn table masked, the hierarchy (when this data
    /// has one) `stored` for them, else customized on `topology` (the map's, made from this
    /// data's table) or, without one, contracted again without them; the rest shared.
    package func excluding(_ classes: ExcludedClasses, stored: ContractionHierarchy? = nil,
                           topology: CustomizableTopology? = nil) -> RoutingData {
        let contracted = hierarchy.map { _ in
            stored ?? topology.map {
                ContractionHierarchy(graph: graph, costs: costs, turns: turns, excluding: classes, topology: $0,
                                     transitions: transitions)
            } ?? ContractionHierarchy(graph: graph, costs: costs, turns: turns, excluding: classes)
        }
        return RoutingData(graph: graph, snapIndex: snapIndex, costs: costs, turns: turns,
                           transitions: contracted?.transitions ?? transitions.excluding(classes, graph: graph),
                           landmarks: landmarks, hierarchy: contracted, excluded: classes)
    }

    /// Why no road is within `maxDistance` metres of `c`: outside the map's area (and perhaps given
    /// as longitude,latitude), or simply no road near enough.
    package func noRoadError(_ c: Coordinate, maxDistance: Double) -> RouteError {
        guard let bounds else { return .noSegment(c, maxDistance: maxDistance) }
        func near(_ p: Coordinate) -> Bool {
            let dLat = maxDistance / 111_195, dLon = maxDistance / (111_195 * max(0.01, cos(p.latitude * .pi / 180)))
            let box = BoundingBox(west: bounds.west - dLon, south: bounds.south - dLat, east: bounds.east + dLon,
                                  north: bounds.north + dLat)
            return box.contains(p)
        }
        if near(c) { return .noSegment(c, maxDistance: maxDistance) }
        let swapped = (try? Coordinate(validatingLatitude: c.longitude, longitude: c.latitude)).map(near) ?? false
        return .outsideMap(c, bounds: bounds, swapped: swapped)
    }
}
