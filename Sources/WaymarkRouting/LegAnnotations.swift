import WaymarkGeo
import WaymarkGraph
import WaymarkGuidance
import WaymarkPreparation
import WaymarkQueries

extension Router {
    /// OSRM's annotation of a leg driven along `path` from `origin` to `destination`: its line
    /// point by point (the start, each vertex and shape point passed, the end), each stretch's
    /// length, and its share of its edge's travel time and weight by length (a customized
    /// stretch's own, and where its speed came from); turns are not in it.
    func annotation(of path: RoutePath, from origin: Snap, to destination: Snap) -> LegAnnotation {
        let graph = graph
        var distance: [Double] = [], duration: [Double] = [], weight: [Double] = []
        var sources: [Int] = []
        let ids = !graph.vertexNodeIDs.isEmpty
        var nodes: [Int64] = []
        var last = origin.coordinate
        // Metres within which a waypoint is at a point of the line (offsets are rounded).
        let tolerance = 0.01
        // Each edge's line and the metres along it to each point (kept between edges).
        var line: [Coordinate] = [], along: [Double] = []
        for (i, e) in path.edges.enumerated() {
            line.removeAll(keepingCapacity: true)
            graph.appendGeometry(of: e, to: &line, skippingSource: false)
            along.removeAll(keepingCapacity: true)
            along.append(0)
            for k in 1..<line.count { along.append(along[k - 1] + line[k - 1].distance(to: line[k])) }
            let total = along[along.count - 1]
            // The driven part of the edge, in metres of its own line (its stored length may differ
            // by rounding).
            let scale = Double(graph.edgeLength[e]) > 0 ? total / Double(graph.edgeLength[e]) : 0
            let isFirst = i == 0, isLast = i == path.edges.count - 1
            let from = isFirst ? path.startOffset * scale : 0, to = isLast ? path.endOffset * scale : total
            let seconds = Double(graph.edgeDuration[e]), cost = Double(graph.edgeWeight[e])
            let row = graph.customRow(of: e)
            let signals = graph.edgeDelay.isEmpty || total <= 0 ? 0 : Double(graph.edgeDelay[e]) / total
            /// `metres` of piece `k` (points k to k + 1) driven: a customized piece's own values,
            /// else its share of the edge's by length.
            func stretch(_ k: Int, to point: Coordinate, metres: Double, length: Double) {
                distance.append(length)
                let piece = along[k + 1] - along[k]
                if let row, row.count == line.count - 1 {
                    let share = piece > 0 ? metres / piece : 0
                    duration.append((Double(graph.stretchDuration[row.lowerBound + k]) + signals * piece) * share)
                    weight.append((Double(graph.stretchWeight[row.lowerBound + k]) + signals * piece) * share)
                    sources.append(Int(graph.stretchSource[row.lowerBound + k]))
                } else {
                    let share = total > 0 ? metres / total : 0
                    duration.append(seconds * share)
                    weight.append(cost * share)
                    sources.append(0)
                }
                last = point
            }
            var reached = from
            // A waypoint exactly at a point of the line lies, as OSRM has it, at the end of the
            // piece before it (a start) or the start of the piece after it (an end): the stretch
            // between is there, of no length.
            if isFirst && ids {
                nodes.append(graph.nodeID(ofEdge: e, point: along.lastIndex { $0 < from - tolerance } ?? 0))
            }
            for k in 1..<line.count where along[k] > from - tolerance
                && along[k] <= (isLast ? (k < line.count - 1 ? to + tolerance : to - tolerance) : to) {
                // (A whole piece's length is known; a part of one is measured.)
                let whole = reached == along[k - 1] && !(isFirst && reached == from && from > 0)
                stretch(k - 1, to: line[k], metres: max(0, along[k] - reached),
                        length: whole ? along[k] - along[k - 1] : last.distance(to: line[k]))
                reached = along[k]
                if ids { nodes.append(graph.nodeID(ofEdge: e, point: k)) }
            }
            if isLast {
                let piece = max(0, (along.firstIndex { $0 >= to } ?? line.count - 1) - 1)
                stretch(min(piece, line.count - 2), to: destination.coordinate, metres: max(0, to - reached),
                        length: last.distance(to: destination.coordinate))
                if ids {
                    let after = along.firstIndex { $0 > to + tolerance } ?? line.count - 1
                    nodes.append(graph.nodeID(ofEdge: e, point: after))
                }
            }
        }
        var annotation = LegAnnotation(distance: distance, duration: duration, weight: weight,
                                       nodes: ids ? nodes : nil)
        if !graph.datasourceNames.isEmpty { (annotation.datasources, annotation.datasourceNames) =
            (sources, graph.datasourceNames) }
        return annotation
    }
}
