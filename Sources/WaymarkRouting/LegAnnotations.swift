import WaymarkGeo
import WaymarkGraph
import WaymarkGuidance
import WaymarkPreparation
import WaymarkQueries

extension Router {
    /// OSRM's annotation of a leg driven along `path` from `origin` to `destination`: its line
    /// point by point (the start, each vertex and shape point passed, the end), each stretch's
    /// length, and its share of its edge's travel time and weight by length; turns are not in it.
    func annotation(of path: RoutePath, from origin: Snap, to destination: Snap) -> LegAnnotation {
        var distance: [Double] = [], duration: [Double] = [], weight: [Double] = []
        let ids = !graph.vertexNodeIDs.isEmpty
        var nodes: [Int64] = []
        var last = origin.coordinate
        // Metres within which a waypoint is at a point of the line (offsets are rounded).
        let tolerance = 0.01
        for (i, e) in path.edges.enumerated() {
            let line = graph.geometry(of: e)
            let pointIDs = ids ? nodeIDs(of: e) : []
            var along = [0.0]
            for (a, b) in zip(line, line.dropFirst()) { along.append(along[along.count - 1] + a.distance(to: b)) }
            // The driven part of the edge, in metres of its own line (its stored length may differ
            // by rounding).
            let scale = Double(graph.edgeLength[e]) > 0 ? along[along.count - 1] / Double(graph.edgeLength[e]) : 0
            let from = i == 0 ? path.startOffset * scale : 0
            let to = i == path.edges.count - 1 ? path.endOffset * scale : along[along.count - 1]
            let total = along[along.count - 1]
            let seconds = Double(graph.edgeDuration[e]), cost = Double(graph.edgeWeight[e])
            func stretch(to point: Coordinate, metres: Double) {
                let share = total > 0 ? metres / total : 0
                distance.append(last.distance(to: point))
                duration.append(seconds * share)
                weight.append(cost * share)
                last = point
            }
            var reached = from
            // A waypoint exactly at a point of the line lies, as OSRM has it, at the end of the
            // piece before it (a start) or the start of the piece after it (an end): the stretch
            // between is there, of no length.
            if i == 0 && ids { nodes.append(pointIDs[along.lastIndex { $0 < from - tolerance } ?? 0]) }
            let isLast = i == path.edges.count - 1
            for k in 1..<line.count where along[k] > from - tolerance
                && along[k] <= (isLast ? (k < line.count - 1 ? to + tolerance : to - tolerance) : to) {
                stretch(to: line[k], metres: max(0, along[k] - reached))
                reached = along[k]
                if ids { nodes.append(pointIDs[k]) }
            }
            if isLast {
                stretch(to: destination.coordinate, metres: max(0, to - reached))
                if ids { nodes.append(pointIDs[along.firstIndex { $0 > to + tolerance } ?? line.count - 1]) }
            }
        }
        return LegAnnotation(distance: distance, duration: duration, weight: weight, nodes: ids ? nodes : nil)
    }

    /// The OSM node ids of an edge's line, from its source to its target.
    private func nodeIDs(of e: Int) -> [Int64] {
        let s = graph.segment(of: e)
        var inner = (Int(graph.shapeStart[s])..<Int(graph.shapeStart[s + 1])).map { graph.shapeNodeIDs[$0] }
        if graph.isReversed(e) { inner.reverse() }
        return [graph.vertexNodeIDs[Int(graph.source(of: e))]] + inner + [graph.vertexNodeIDs[Int(graph.edgeTarget[e])]]
    }
}
