import Foundation
import Waymark

/// `waymark-bench cch MAP.wmg`: the customizable hierarchy beside the map's stored (contracted)
/// one — the topology's time and size, one customization's time, and route queries on both
/// between random points (weights compared, per-query medians).
func benchCustomizable(map path: String, queries: Int) {
    func since(_ t: UInt64) -> Double { Double(DispatchTime.now().uptimeNanoseconds - t) / 1e9 }
    guard let map = try? RoadMap(contentsOf: URL(fileURLWithPath: path)), let stored = map.hierarchy else {
        FileHandle.standardError.write(Data("waymark-bench cch: needs a map with a hierarchy\n".utf8))
        exit(64)
    }
    let graph = map.graph
    var clock = DispatchTime.now().uptimeNanoseconds
    let order = NestedDissection.edgePositions(graph: graph)
    let dissection = since(clock)
    clock = DispatchTime.now().uptimeNanoseconds
    let topology = CustomizableTopology(graph: graph, transitions: stored.transitions, edgePositions: order)
    let topologyTime = since(clock)
    clock = DispatchTime.now().uptimeNanoseconds
    let customized = topology.customize(graph: graph, transitions: stored.transitions, costs: stored.costs,
                                        turns: stored.turns)
    let customizeTime = since(clock)
    print(String(format: "%@: dissection %.3f s; topology %.3f s, %d arcs for %d states; "
                    + "customization %.3f s, %d finite directed arcs (%d shortcuts); contracted: %d arcs",
                 path, dissection, topologyTime, topology.arcCount, topology.nodeCount, customizeTime,
                 customized.searchArcCount, customized.shortcutCount, stored.arcCount))
    let other = RoadMap(graph: graph, hierarchy: customized)
    let a = HierarchySearch(map: map), b = HierarchySearch(map: other)
    var rng = SplitMix64(seed: 7)
    var south = 90.0, north = -90.0, west = 180.0, east = -180.0
    for v in 0..<UInt32(graph.nodeCount) {
        let c = graph.coordinate(of: v)
        (south, north) = (min(south, c.latitude), max(north, c.latitude))
        (west, east) = (min(west, c.longitude), max(east, c.longitude))
    }
    var snaps: [(Snap, Snap)] = []
    while snaps.count < queries {
        func point() -> Coordinate {
            Coordinate(latitude: rng.uniform(south, north), longitude: rng.uniform(west, east))
        }
        if let p = map.nearest(point()), let q = map.nearest(point()) { snaps.append((p, q)) }
    }
    var timesA: [Double] = [], timesB: [Double] = [], settledA: [Int] = [], settledB: [Int] = [], differ = 0
    for (p, q) in snaps {
        var t = DispatchTime.now().uptimeNanoseconds
        let ra = a.route(from: p, to: q)
        timesA.append(since(t)); settledA.append(a.settled)
        t = DispatchTime.now().uptimeNanoseconds
        let rb = b.route(from: p, to: q)
        timesB.append(since(t)); settledB.append(b.settled)
        if let ra, let rb { if abs(ra.weight - rb.weight) > 1e-6 * max(1, ra.weight) { differ += 1 } }
        else if (ra == nil) != (rb == nil) { differ += 1 }
    }
    func median<T: Comparable>(_ v: [T]) -> T { v.sorted()[v.count / 2] }
    print(String(format: "%d queries: contracted p50 %.3f ms, %d settled; customized p50 %.3f ms, %d settled; "
                    + "weights differing: %d", queries, 1000 * median(timesA), median(settledA),
                 1000 * median(timesB), median(settledB), differ))
}
