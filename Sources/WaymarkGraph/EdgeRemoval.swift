extension RoadGraph {
    /// This graph without the edges `removed` marks (closed roads): the rows, the reverse rows,
    /// the restricted paths (a path over a removed edge can no longer be driven: dropped), the
    /// custom stretch rows and turns renumbered. Segments stay, with fewer directions or none.
    func removingEdges(_ removed: [Bool]) -> RoadGraph {
        var newID = [UInt32](repeating: RoadGraph.invalid, count: edgeCount)
        var kept: [Int] = []
        kept.reserveCapacity(edgeCount)
        var first: [UInt32] = [0]
        first.reserveCapacity(nodeCount + 1)
        for v in 0..<UInt32(nodeCount) {
            for e in edges(from: v) where !removed[e] {
                newID[e] = UInt32(kept.count)
                kept.append(e)
            }
            first.append(UInt32(kept.count))
        }
        var g = self
        g.firstEdge = Column(first)
        g.edgeTarget = Column(kept.map { edgeTarget[$0] })
        g.edgeSegment = Column(kept.map { edgeSegment[$0] })
        g.edgeLength = Column(kept.map { edgeLength[$0] })
        g.edgeDuration = Column(kept.map { edgeDuration[$0] })
        g.edgeWeight = Column(kept.map { edgeWeight[$0] })
        if !edgeDelay.isEmpty { g.edgeDelay = Column(kept.map { edgeDelay[$0] }) }
        g.renumberIncoming(self, newID)
        g.renumberPaths(self, newID)
        g.renumberCustom(self, newID)
        return g
    }

    private mutating func renumberIncoming(_ old: RoadGraph, _ newID: [UInt32]) {
        var first: [UInt32] = [0], edges: [UInt32] = [], sources: [UInt32] = []
        for v in 0..<UInt32(old.nodeCount) {
            for slot in old.incoming(to: v) where newID[Int(old.incomingEdge[slot])] != RoadGraph.invalid {
                edges.append(newID[Int(old.incomingEdge[slot])])
                sources.append(old.incomingSource[slot])
            }
            first.append(UInt32(edges.count))
        }
        (firstIncoming, incomingEdge, incomingSource) = (Column(first), Column(edges), Column(sources))
    }

    private mutating func renumberPaths(_ old: RoadGraph, _ newID: [UInt32]) {
        var start: [UInt32] = [0], edges: [UInt32] = [], kinds: [UInt8] = []
        for p in 0..<old.restrictionPathCount {
            let path = old.restrictionPath(p).map { newID[Int($0)] }
            guard !path.contains(RoadGraph.invalid) else { continue }
            edges += path
            start.append(UInt32(edges.count))
            kinds.append(old.restrictionPathKind[p])
        }
        (restrictionPathStart, restrictionPathEdges, restrictionPathKind) = (Column(start), Column(edges),
                                                                              Column(kinds))
    }

    /// The stretch rows and turns of edges still there, under their new numbers (the order
    /// by edge is kept: edges keep their order).
    private mutating func renumberCustom(_ old: RoadGraph, _ newID: [UInt32]) {
        var edges: [UInt32] = [], start: [UInt32] = [0]
        var duration: [Float] = [], weight: [Float] = [], source: [UInt8] = []
        for (i, e) in old.customEdges.enumerated() where newID[Int(e)] != RoadGraph.invalid {
            let row = Int(old.customStart[i])..<Int(old.customStart[i + 1])
            edges.append(newID[Int(e)])
            duration += old.stretchDuration[row]
            weight += old.stretchWeight[row]
            source += old.stretchSource[row]
            start.append(UInt32(duration.count))
        }
        (customEdges, customStart) = (Column(edges), Column(start))
        (stretchDuration, stretchWeight, stretchSource) = (Column(duration), Column(weight), Column(source))
        var from: [UInt32] = [], to: [UInt32] = [], seconds: [Float] = [], weights: [Float] = []
        for t in 0..<old.turnFrom.count {
            let (e, f) = (newID[Int(old.turnFrom[t])], newID[Int(old.turnTo[t])])
            guard e != RoadGraph.invalid && f != RoadGraph.invalid else { continue }
            from.append(e)
            to.append(f)
            seconds.append(old.turnDuration[t])
            weights.append(old.turnWeight[t])
        }
        (turnFrom, turnTo, turnDuration, turnWeight) = (Column(from), Column(to), Column(seconds), Column(weights))
    }
}
