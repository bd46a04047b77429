import WaymarkGeo
import WaymarkGraph
import WaymarkQueries
import WaymarkPreparation

/// OSRM's segregated intersections (`findSegregatedNodes`): a short edge inside a junction that
/// dual carriageways or a pair of oneway roads make of one crossing (the `a`–`b` piece below, with
/// the oneways `c`→`a` and `b`→`d`). OSRM tells the turns at both ends as one maneuver, at the
/// first end, and so does Waymark (``StepAssembler``).
///
///     c        d
///      ↘      ↗
///   ─── a ── b ───
extension TurnClassifier {
    /// OSRM's longest internal edge, in metres.
    static let internalEdgeLength = 32.0

    /// Whether edge `e` is such an internal edge: at most 32 m, not on a roundabout; a oneway road
    /// (a road of a residential class or better, not a link) comes in at its source at an angle
    /// (not nearly straight on into `e`), and one leaves at its target at an angle; and the turns
    /// into `e` and out of it do not go to opposite sides. `a` is `e`'s source (the caller knows
    /// it; the graph would find it by a search).
    func isSegregated(_ e: Int, from a: UInt32) -> Bool {
        guard Double(graph.edgeLength[e]) <= TurnClassifier.internalEdgeLength,
            !graph.flags(of: e).contains(.roundabout)
        else { return false }
        let b = graph.edgeTarget[e]
        func angle(_ from: Coordinate, _ center: Coordinate, _ to: Coordinate) -> Double {
            Junction.turnAngle(arriving: from.direction(to: center), leaving: center.direction(to: to))
        }
        func internalStraight(_ angle: Double) -> Bool { angle > 150 && angle < 210 }
        func candidate(_ edge: Int) -> Bool {
            let highway = graph.highway(of: edge)
            return !highway.isRamp && highway.osrmPriority <= HighwayClass.livingStreet.osrmPriority
        }
        // First what needs no geometry (most junctions have no oneway to offer).
        guard graph.incoming(to: a).contains(where: { slot in
            let h = Int(graph.incomingEdge[slot])
            return graph.incomingSource[slot] != b && candidate(h) && onewayArriving(h)
        }),
              graph.edges(from: b).contains(where: { g in
                  graph.edgeTarget[g] != a && candidate(g) && onewayLeaving(g, from: b)
              })
        else { return false }
        let atA = graph.coordinate(of: a), atB = graph.coordinate(of: b)
        let intoA = nearLeaving(e, from: a), backFromB = nearArriving(e, from: a)
        var incomingRight = false, incomingLeft = false, onewayIn = false
        var seen: [UInt32] = []
        for slot in graph.incoming(to: a) {
            let h = Int(graph.incomingEdge[slot]), n = graph.incomingSource[slot]
            guard n != b, !seen.contains(n) else { continue }
            seen.append(n)
            let angle = angle(nearArriving(h, from: n), atA, intoA)
            switch ManeuverModifier(angle: angle) {
            case .right, .sharpRight: incomingRight = true
            case .left, .sharpLeft: incomingLeft = true
            default: break
            }
            if candidate(h) && onewayArriving(h) && !internalStraight(angle) { onewayIn = true }
        }
        guard onewayIn else { return false }
        var outgoingRight = false, outgoingLeft = false, onewayOut = false
        seen.removeAll()
        for g in graph.edges(from: b) {
            let n = graph.edgeTarget[g]
            guard n != a, !seen.contains(n) else { continue }
            seen.append(n)
            let angle = angle(backFromB, atB, nearLeaving(g, from: b))
            switch ManeuverModifier(angle: angle) {
            case .right, .sharpRight: outgoingRight = true
            case .left, .sharpLeft: outgoingLeft = true
            default: break
            }
            if candidate(g) && onewayLeaving(g, from: b) && !internalStraight(angle) { onewayOut = true }
        }
        guard onewayOut else { return false }
        return !(incomingLeft && outgoingRight) && !(incomingRight && outgoingLeft) && !(outgoingLeft && outgoingRight)
    }

    // OSRM measures the angles at a segregated edge to the first shape point more than a metre
    // from the vertex (`GetCoordinateCloseToTurn`), not with the perceived bearings.

    /// Along `edge` from its source `vertex`.
    private func nearLeaving(_ edge: Int, from vertex: UInt32) -> Coordinate {
        let start = graph.coordinate(of: vertex)
        for k in 0..<graph.interiorPointCount(of: edge) {
            let p = graph.interiorPoint(of: edge, k)
            if p.distance(to: start) > 1 { return p }
        }
        return graph.coordinate(of: graph.edgeTarget[edge])
    }

    /// Back along `edge` from its target (`vertex` is its source).
    private func nearArriving(_ edge: Int, from vertex: UInt32) -> Coordinate {
        let end = graph.coordinate(of: graph.edgeTarget[edge])
        for k in stride(from: graph.interiorPointCount(of: edge) - 1, through: 0, by: -1) {
            let p = graph.interiorPoint(of: edge, k)
            if p.distance(to: end) > 1 { return p }
        }
        return graph.coordinate(of: vertex)
    }

    /// Oneway: no edge of the same segment the other way at the vertex.
    private func onewayArriving(_ edge: Int) -> Bool {
        let key = graph.edgeSegment[edge] ^ 1
        return !graph.edges(from: graph.edgeTarget[edge]).contains { graph.edgeSegment[$0] == key }
    }

    private func onewayLeaving(_ edge: Int, from vertex: UInt32) -> Bool {
        let key = graph.edgeSegment[edge] ^ 1
        return !graph.incoming(to: vertex).contains { graph.edgeSegment[Int(graph.incomingEdge[$0])] == key }
    }
}
