import WaymarkGeo
import WaymarkGraph

/// ALT landmarks (32 by default: they narrow the search more than 16 do, BENCHMARKS.md): travel
/// times from and to a few well-spread vertices, giving a lower bound on
/// the travel time between any two vertices by the triangle inequality:
/// `d(v, t) ≥ max over L of max(d(L, t) − d(L, v), d(v, L) − d(t, L))`.
///
/// Distances are node-based over edge travel times, without turn costs; turn costs are
/// non-negative and restrictions only remove options, so the bound stays admissible for the
/// edge-based search. Landmarks are chosen farthest-first: each new one is the vertex whose
/// travel time from the landmarks so far is largest.
public struct Landmarks: Sendable {
    public let count: Int
    /// The landmark vertices.
    public let vertices: [UInt32]
    /// d(L, v) and d(v, L), vertex-major (`[v * count + l]`), seconds; infinity when unreachable.
    let from: [Double]
    let to: [Double]

    /// Chooses `count` landmarks and computes their travel times (2 × `count` Dijkstra runs over
    /// the vertices, plus `count` for the choice).
    public init(graph: RoadGraph, count requested: Int = 32) {
        let n = graph.nodeCount
        let k = max(0, min(requested, n))
        count = k
        var chosen: [UInt32] = []
        var fromAll = [Double](repeating: .infinity, count: n * k), toAll = fromAll
        guard k > 0 else {
            vertices = []
            from = []
            to = []
            return
        }
        // Start in the largest component, at the vertex farthest from an arbitrary one there.
        let components = graph.stronglyConnectedComponents()
        let seed = UInt32((0..<n).first { components.component[$0] == components.largest } ?? 0)
        var nearestToChosen = Landmarks.dijkstra(graph, from: seed, reverse: false)
        for l in 0..<k {
            var next = seed, farthest = -1.0
            for v in 0..<n where components.component[v] == components.largest && nearestToChosen[v].isFinite
                && nearestToChosen[v] > farthest {
                farthest = nearestToChosen[v]
                next = UInt32(v)
            }
            chosen.append(next)
            let forward = Landmarks.dijkstra(graph, from: next, reverse: false)
            let backward = Landmarks.dijkstra(graph, from: next, reverse: true)
            for v in 0..<n {
                fromAll[v * k + l] = forward[v]
                toAll[v * k + l] = backward[v]
                nearestToChosen[v] = l == 0 ? forward[v] : min(nearestToChosen[v], forward[v])
            }
        }
        vertices = chosen
        from = fromAll
        to = toAll
    }

    /// A lower bound in seconds on the travel time from `v` to `t`; infinity when the landmark
    /// times prove `t` unreachable from `v`, 0 when nothing is known.
    @inline(__always)
    public func lowerBound(from v: UInt32, to t: UInt32) -> Double {
        var best = 0.0
        let vb = Int(v) * count, tb = Int(t) * count
        from.withUnsafeBufferPointer { from in
            to.withUnsafeBufferPointer { to in
                for l in 0..<count {
                    // NaN (∞ − ∞) and −∞ carry no information and fail the comparison; +∞ means
                    // L reaches v but not t (or v cannot reach L while t can): unreachable.
                    let a = from[tb + l] - from[vb + l]   // d(L,t) − d(L,v)
                    let b = to[vb + l] - to[tb + l]       // d(v,L) − d(t,L)
                    if a > best { best = a }
                    if b > best { best = b }
                }
            }
        }
        // Sums of the same edge times in another order can differ in the last bits: stay below.
        return best.isFinite ? best * (1 - 1e-12) : best
    }

    /// The bound using only the landmarks in `active`.
    @inline(__always)
    @usableFromInline package func lowerBound(from v: UInt32, to t: UInt32, using active: [Int]) -> Double {
        var best = 0.0
        let vb = Int(v) * count, tb = Int(t) * count
        for l in active {
            let a = from[tb + l] - from[vb + l]
            let b = to[vb + l] - to[tb + l]
            if a > best { best = a }
            if b > best { best = b }
        }
        return best.isFinite ? best * (1 - 1e-12) : best
    }

    /// Node-based Dijkstra over edge travel times (backwards over incoming edges with `reverse`).
    static func dijkstra(_ graph: RoadGraph, from source: UInt32, reverse: Bool) -> [Double] {
        var dist = [Double](repeating: .infinity, count: graph.nodeCount)
        var heap = MinHeap()
        defer { heap.deallocate() }
        dist[Int(source)] = 0
        heap.push(0, Int(source))
        while let (d, v) = heap.pop() {
            guard d == dist[v] else { continue }
            if reverse {
                for slot in graph.incoming(to: UInt32(v)) {
                    let u = Int(graph.incomingSource[slot])
                    let nd = d + Double(graph.edgeWeight[Int(graph.incomingEdge[slot])])
                    if nd < dist[u] { dist[u] = nd; heap.push(nd, u) }
                }
            } else {
                for e in graph.edges(from: UInt32(v)) {
                    let w = Int(graph.edgeTarget[e])
                    let nd = d + Double(graph.edgeWeight[e])
                    if nd < dist[w] { dist[w] = nd; heap.push(nd, w) }
                }
            }
        }
        return dist
    }
}
