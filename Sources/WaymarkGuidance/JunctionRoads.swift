import WaymarkGraph
import WaymarkSupport

/// Every vertex's roads as a ``Junction`` lists them before sorting — each edge out, then each
/// edge in whose road has no edge out there (a oneway towards the vertex) — one record per road,
/// a vertex's records side by side. A route reads a junction from here in a cache line or two,
/// where the graph's and the bearings' tables cost a miss each.
///
/// Layout: vertex v's roads are `entries[start[v] ..< start[v + 1]]`; an entry is 16 bytes.
package struct JunctionRoads: Sendable {
    package struct Entry: Sendable, BitwiseCopyable, Equatable {
        /// The edge out along the road; for a road that only comes in, the edge arriving.
        var edge: Int32
        /// The road's segment << 1, plus 1 when its segment ends here (``JunctionRoad/segment``).
        var segment: UInt32
        /// The perceived bearing from the vertex along the road (``GuidanceTables``).
        var bearing: Float
        /// ``Entry/leaving``, ``Entry/arriving`` or ``Entry/arrivingMerged``.
        var kind: UInt32

        /// The road's edge leaves the vertex.
        static let leaving: UInt32 = 0
        /// The road only comes in.
        static let arriving: UInt32 = 1
        /// The road only comes in, along a carriageway merged with the one out beside it (listed
        /// only when the route arrives along it, ``MergedRoads``).
        static let arrivingMerged: UInt32 = 2
    }

    let start: Column<UInt32>
    let entries: Column<Entry>

    /// Vertex v's roads.
    @inline(__always) func range(of v: UInt32) -> Range<Int> { Int(start[Int(v)])..<Int(start[Int(v) + 1]) }

    init(start: Column<UInt32>, entries: Column<Entry>) {
        self.start = start
        self.entries = entries
    }

    /// Made from the graph, the perceived bearings and the merged carriageways.
    init(graph: RoadGraph, depart: Column<Float>, arrival: Column<Float>, merged: MergedRoads) {
        var start: [UInt32] = [0], entries: [Entry] = []
        start.reserveCapacity(graph.nodeCount + 1)
        entries.reserveCapacity(graph.edgeCount + graph.edgeCount / 4)
        // An edge in has a road of its own here when no edge out runs along its segment.
        var leavesBy = [Bool](repeating: false, count: graph.segmentCount * 2)
        for e in 0..<graph.edgeCount { leavesBy[Int(graph.edgeSegment[e])] = true }
        for v in 0..<UInt32(graph.nodeCount) {
            for g in graph.edges(from: v) {
                entries.append(Entry(edge: Int32(g), segment: graph.edgeSegment[g], bearing: depart[g],
                                     kind: Entry.leaving))
            }
            for slot in graph.incoming(to: v) {
                let h = Int(graph.incomingEdge[slot]), key = graph.edgeSegment[h] ^ 1
                if leavesBy[Int(key)] { continue }
                entries.append(Entry(edge: Int32(h), segment: key, bearing: arrival[h],
                                     kind: merged.isMerged(arriving: h) ? Entry.arrivingMerged : Entry.arriving))
            }
            start.append(UInt32(entries.count))
        }
        self.init(start: Column(start), entries: Column(entries))
    }

    var fileSections: [GraphFile.Section] { [.init("GJRS", start), .init("GJRE", entries)] }

    /// The stored table, checked against the graph (unless checked in full before).
    init(fileSections sections: FileSections, graph: RoadGraph, alreadyChecked: Bool) throws(GuidanceFileError) {
        start = try sections.values("GJRS", as: UInt32.self, count: graph.nodeCount + 1) {
            GuidanceFileError(reason: $0)
        }
        entries = try sections.values("GJRE", as: Entry.self) { GuidanceFileError(reason: $0) }
        guard !alreadyChecked else { return }
        // Each record a road of its vertex: an edge out of it, or in to it (routes index the
        // vertex's turns by them).
        let (starts, records) = (start, entries)
        guard starts.first == 0 && Int(starts.last ?? 1) == records.count
            && zip(starts, starts.dropFirst()).allSatisfy({ $0 <= $1 }) else {
            throw GuidanceFileError(reason: "junction roads out of order")
        }
        for v in 0..<UInt32(graph.nodeCount) {
            for i in Int(starts[Int(v)])..<Int(starts[Int(v) + 1]) {
                let r = records[i], e = Int(r.edge)
                let fits = e >= 0 && e < graph.edgeCount && Int(r.segment) < 2 * graph.segmentCount
                    && r.bearing >= 0 && r.bearing <= 360 && r.kind <= Entry.arrivingMerged
                    && (r.kind == Entry.leaving ? graph.edges(from: v).contains(e) : graph.edgeTarget[e] == v)
                if !fits { throw GuidanceFileError(reason: "junction road out of range") }
            }
        }
    }
}
