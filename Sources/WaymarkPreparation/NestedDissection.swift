import Dispatch
import WaymarkGeo
import WaymarkGraph
import WaymarkSupport

/// An order of the road graph's directed edges that depends on the map's shape only, never on its
/// speeds: nested dissection by inertial flow (Schild and Sommer), as customizable contraction
/// hierarchies need it (Dibbelt, Strasser, Wagner).
///
/// A cell of junctions is cut in two by a minimum cut of its roads between the quarter of it
/// furthest one way and the quarter furthest the other, for four directions, the smallest cut
/// kept; both halves are ordered first, then the cut roads. The cut roads separate the halves in
/// the edge-based graph too — a turn joins two edges only at a junction they share — so the
/// order is a nested dissection of the states a hierarchy is built on.
package enum NestedDissection {
    /// Each directed edge's place in the order, from the first to be contracted to the last.
    package static func edgePositions(graph: RoadGraph) -> [UInt32] {
        var dissector = Dissector(graph: graph)
        dissector.dissect(Array(0..<UInt32(graph.nodeCount)))
        var position = [UInt32](repeating: 0, count: graph.edgeCount)
        for (i, e) in dissector.order.enumerated() { position[Int(e)] = UInt32(i) }
        return position
    }

    /// `positions` (a dissection of `old`) for `new`, the same graph with some edges taken out
    /// (a customization closing roads): each edge kept keeps its place. Nil when `new` is not such
    /// a graph of `old`.
    package static func carried(_ positions: [UInt32], from old: RoadGraph, to new: RoadGraph) -> [UInt32]? {
        guard positions.count == old.edgeCount, old.nodeCount == new.nodeCount else { return nil }
        if new.edgeCount == old.edgeCount { return positions }
        var carried = [UInt32](repeating: 0, count: new.edgeCount)
        for v in 0..<UInt32(old.nodeCount) {
            // Edges taken out leave the others in their order: match them in step.
            var f = new.edges(from: v).lowerBound
            for e in old.edges(from: v) where f < new.edges(from: v).upperBound
                && old.edgeTarget[e] == new.edgeTarget[f] && old.edgeSegment[e] == new.edgeSegment[f] {
                carried[f] = positions[e]
                f += 1
            }
            guard f == new.edges(from: v).upperBound else { return nil }
        }
        return carried
    }
}

/// The junctions as an undirected graph — a neighbour per road between two of them, its capacity
/// the number of directed edges between them — and the dissection's scratch.
private struct Dissector {
    let graph: RoadGraph
    /// Neighbours of junction v: `start[v]..<start[v + 1]` of `neighbour` and `capacity`.
    var start: [Int] = [0]
    var neighbour: [UInt32] = []
    var capacity: [Int32] = []
    /// Junctions projected flat (metres from an origin), for the cuts' directions.
    let x: [Double], y: [Double]
    /// The edges in order, as the cells give them up.
    var order: [UInt32] = []
    /// Per junction: its index in the cell being cut (−1: outside it); and which cell it is in.
    var local: [Int32]
    var cell: [UInt32]
    var nextCell: UInt32 = 1

    init(graph: RoadGraph) {
        self.graph = graph
        let n = graph.nodeCount
        var x = [Double](repeating: 0, count: n), y = x
        if n > 0 {
            let origin = graph.coordinate(of: 0)
            let ruler = LocalRuler(latitude: origin.latitude)
            for v in 0..<n {
                let c = graph.coordinate(of: UInt32(v))
                x[v] = (c.longitude - origin.longitude) * ruler.east
                y[v] = (c.latitude - origin.latitude) * ruler.north
            }
        }
        (self.x, self.y) = (x, y)
        local = [Int32](repeating: -1, count: n)
        cell = [UInt32](repeating: 0, count: n)
        order.reserveCapacity(graph.edgeCount)
        var row: [(UInt32, Int32)] = []
        for v in 0..<UInt32(n) {
            row.removeAll(keepingCapacity: true)
            for e in graph.edges(from: v) where graph.edgeTarget[e] != v { row.append((graph.edgeTarget[e], 1)) }
            for slot in graph.incoming(to: v) where graph.incomingSource[slot] != v {
                row.append((graph.incomingSource[slot], 1))
            }
            row.sort { $0.0 < $1.0 }
            for (w, c) in row {
                if let last = neighbour.last, neighbour.count > start[Int(v)], last == w {
                    capacity[capacity.count - 1] += c
                } else {
                    neighbour.append(w)
                    capacity.append(c)
                }
            }
            start.append(neighbour.count)
        }
    }

    /// Orders the edges between the junctions of `vertices` (both ends inside it): each
    /// connected part alone; a part of three junctions or more cut in two, the halves first.
    mutating func dissect(_ vertices: [UInt32]) {
        let id = mark(vertices)
        if vertices.count <= 2 {
            emitEdges(vertices) { from, to in from == id && to == id }
            return
        }
        let parts = components(vertices, cell: id)
        if parts.count > 1 {
            for part in parts { dissect(part) }
            return
        }
        let inFirst = bisect(vertices)
        var first: [UInt32] = [], second: [UInt32] = []
        for (i, v) in vertices.enumerated() {
            if inFirst[i] { first.append(v) } else { second.append(v) }
        }
        dissect(first)
        dissect(second)
        // The cut: the edges from one half to the other, both ways (marked again: the halves'
        // own cells renumbered their junctions).
        let a = mark(first), b = mark(second)
        emitEdges(first) { from, to in from == a && to == b }
        emitEdges(second) { from, to in from == b && to == a }
    }

    /// Marks `vertices` as a new cell; its number.
    private mutating func mark(_ vertices: [UInt32]) -> UInt32 {
        let id = nextCell
        nextCell += 1
        for v in vertices { cell[Int(v)] = id }
        return id
    }

    /// The edges leaving `vertices` whose two ends' cells pass `keep`.
    private mutating func emitEdges(_ vertices: [UInt32], keep: (UInt32, UInt32) -> Bool) {
        for v in vertices {
            for e in graph.edges(from: v) where keep(cell[Int(v)], cell[Int(graph.edgeTarget[e])]) {
                order.append(UInt32(e))
            }
        }
    }

    /// The connected parts of the cell `id` (junctions marked with it), each a list of junctions;
    /// each part found is marked as a cell of its own on the way.
    private mutating func components(_ vertices: [UInt32], cell id: UInt32) -> [[UInt32]] {
        var parts: [[UInt32]] = []
        for root in vertices where cell[Int(root)] == id {
            let part = nextCell
            nextCell += 1
            var members: [UInt32] = [root]
            cell[Int(root)] = part
            var next = 0
            while next < members.count {
                let v = Int(members[next])
                next += 1
                for i in start[v]..<start[v + 1] where cell[Int(neighbour[i])] == id {
                    cell[Int(neighbour[i])] = part
                    members.append(neighbour[i])
                }
            }
            if members.count == vertices.count { return [vertices] }
            parts.append(members)
        }
        return parts
    }

    /// Which junctions of a connected cell go in its first half: the source side of the smallest
    /// of four inertial-flow cuts (ties: the more even one).
    private mutating func bisect(_ vertices: [UInt32]) -> [Bool] {
        for (i, v) in vertices.enumerated() { local[Int(v)] = Int32(i) }
        defer { for v in vertices { local[Int(v)] = -1 } }
        let flow = CellFlow(vertices: vertices, dissector: self)
        let directions = [(1.0, 0.0), (0.0, 1.0), (1.0, 1.0), (1.0, -1.0)]
        // The four cuts of a large cell side by side (each with its own flow), a small one's in turn.
        var cuts = [(cut: Int, side: [Bool])](repeating: (0, []), count: directions.count)
        let (x, y) = (self.x, self.y)
        @Sendable func cut(_ d: Int) -> (Int, [Bool]) {
            let (dx, dy) = directions[d]
            var keyed = vertices.enumerated().map { i, v in
                Projected(along: dx * x[Int(v)] + dy * y[Int(v)], index: Int32(i))
            }
            keyed.sort { $0.along != $1.along ? $0.along < $1.along : $0.index < $1.index }
            let k = max(1, vertices.count / 4)
            var own = flow
            return own.minimumCut(sources: keyed.prefix(k).lazy.map { Int($0.index) },
                                  sinks: keyed.suffix(k).lazy.map { Int($0.index) })
        }
        if vertices.count >= Self.sideBySide && coreCount > 1 {
            cuts.withUnsafeMutableBufferPointer { cuts in
                // Shared with the threads below: each writes its own direction's slot.
                nonisolated(unsafe) let cuts = cuts
                DispatchQueue.concurrentPerform(iterations: directions.count) { d in cuts[d] = cut(d) }
            }
        } else {
            for d in directions.indices { cuts[d] = cut(d) }
        }
        // The smallest cut, the more even of equal ones, the first direction of equal ones.
        var best = 0
        func imbalance(_ d: Int) -> Int { abs(vertices.count - 2 * cuts[d].side.count { $0 }) }
        for d in cuts.indices.dropFirst()
        where cuts[d].cut < cuts[best].cut || (cuts[d].cut == cuts[best].cut && imbalance(d) < imbalance(best)) {
            best = d
        }
        return cuts[best].side
    }

    /// Cells of at least this many junctions have their four cuts made on all cores.
    static let sideBySide = 4096
}

/// A junction of a cell and where it lies along a cut's direction.
private struct Projected {
    var along: Double
    var index: Int32
}

/// Unit augmenting paths (Ford–Fulkerson by breadth-first searches, each pushing a unit along
/// every sink's path in its tree that still has room) over one cell's roads. The sources act as
/// one: a path never needs to pass through one, so a search starts at those beside the rest of
/// the cell and never enters another.
private struct CellFlow {
    /// The cell's neighbour lists in local indices, each entry with the index of its reverse.
    var start: [Int] = [0]
    var head: [Int32] = []
    var reverse: [Int] = []
    var capacity: [Int32] = []
    var flow: [Int32] = []

    init(vertices: [UInt32], dissector d: Dissector) {
        for v in vertices {
            for i in d.start[Int(v)]..<d.start[Int(v) + 1] where d.local[Int(d.neighbour[i])] >= 0 {
                head.append(d.local[Int(d.neighbour[i])])
                capacity.append(d.capacity[i])
            }
            start.append(head.count)
        }
        reverse = [Int](repeating: 0, count: head.count)
        for u in 0..<vertices.count {
            for i in start[u]..<start[u + 1] {
                let w = Int(head[i])
                reverse[i] = (start[w]..<start[w + 1]).first { head[$0] == Int32(u) }!
            }
        }
    }

    /// The value of a maximum flow from `sources` to `sinks`, and the junctions the sources still
    /// reach once it flows (the cut's source side).
    mutating func minimumCut<S: Sequence<Int>, T: Sequence<Int>>(sources: S, sinks: T) -> (Int, [Bool]) {
        let n = start.count - 1
        flow = [Int32](repeating: 0, count: head.count)
        // 1: a source, 2: a sink.
        var kind = [UInt8](repeating: 0, count: n)
        for t in sinks { kind[t] = 2 }
        for s in sources { kind[s] = 1 }
        let roots = (0..<n).filter { u in
            kind[u] == 1 && (start[u]..<start[u + 1]).contains { kind[Int(head[$0])] != 1 }
        }
        var parent = [Int](repeating: -1, count: n)
        var seen = [UInt32](repeating: 0, count: n)
        var stamp: UInt32 = 0
        var queue: [Int] = []
        queue.reserveCapacity(n)
        var value = 0
        var sinksReached: [Int] = []
        while true {
            // One breadth-first search from every source at once along edges with room left, to
            // every sink it reaches (not past them); then a unit along each of their paths in the
            // search's tree that still has room (at least the first): fewer searches than one per
            // unit of flow. (The side the sources still reach at the end is the same for every
            // maximum flow, so the cut does not depend on the paths taken.)
            stamp += 1
            queue.removeAll(keepingCapacity: true)
            sinksReached.removeAll(keepingCapacity: true)
            for s in roots {
                seen[s] = stamp
                parent[s] = -1
                queue.append(s)
            }
            var next = 0
            while next < queue.count {
                let u = queue[next]
                next += 1
                for i in start[u]..<start[u + 1] where flow[i] < capacity[i] {
                    let w = Int(head[i])
                    if seen[w] == stamp || kind[w] == 1 { continue }
                    seen[w] = stamp
                    parent[w] = i
                    if kind[w] == 2 { sinksReached.append(w) } else { queue.append(w) }
                }
            }
            guard !sinksReached.isEmpty else {
                return (value, (0..<n).map { kind[$0] == 1 || seen[$0] == stamp })
            }
            for t in sinksReached where hasRoom(to: t, parent) {
                var w = t
                while parent[w] >= 0 {
                    let i = parent[w]
                    flow[i] += 1
                    flow[reverse[i]] -= 1
                    w = Int(head[reverse[i]])
                }
                value += 1
            }
        }
    }

    /// Whether every edge of the search tree's path to `t` still has room for a unit.
    private func hasRoom(to t: Int, _ parent: [Int]) -> Bool {
        var w = t
        while parent[w] >= 0 {
            let i = parent[w]
            if flow[i] >= capacity[i] { return false }
            w = Int(head[reverse[i]])
        }
        return true
    }
}

/// The dissection as a graph file stores it beside a hierarchy (`NDOR`: each directed edge's
/// place, `UInt32`), so that customizing the map starts from it.
public enum StoredDissection: GraphFilePart {
    public static let partName = "nested dissection (for customizing)"
    public static let sectionTags = ["NDOR"]

    package static func fileSections(_ positions: [UInt32]) -> [GraphFile.Section] {
        [GraphFile.Section("NDOR", positions)]
    }

    /// The stored dissection of `graph`, nil when there is none or it is not one of this graph
    /// (any order gives exact routes; a foreign one is only made again).
    package static func read(_ sections: FileSections, graph: RoadGraph) -> [UInt32]? {
        guard let column = sections.column("NDOR", as: UInt32.self), column.count == graph.edgeCount else { return nil }
        return Array(column)
    }
}
