import Foundation
import Waymark

/// `waymark-bench cch MAP.wmg`: the customizable hierarchy beside the map's stored (contracted)
/// one — the topology's time and size, one customization's time, and route queries on both
/// between random points, or first between the `pairs` of a CSV (`lat,lon,lat,lon`): weights
/// compared, per-query p50 and p95. With `excluded` classes both hierarchies are made for that
/// set (contracted and customized) and the points snap off its roads.
func benchCustomizable(map path: String, queries: Int, excluded: ExcludedClasses = [], pairs: String? = nil) {
    func since(_ t: UInt64) -> Double { Double(DispatchTime.now().uptimeNanoseconds - t) / 1e9 }
    // (Read before the minutes of work below.)
    let pairsText = pairs.map { try? String(contentsOfFile: $0, encoding: .utf8) }
    if let pairs, pairsText == .some(nil) {
        FileHandle.standardError.write(Data("waymark-bench cch: \(pairs): cannot be read\n".utf8))
        exit(66)
    }
    guard let opened = try? RoadMap(contentsOf: URL(fileURLWithPath: path)), let own = opened.hierarchy else {
        FileHandle.standardError.write(Data("waymark-bench cch: needs a map with a hierarchy\n".utf8))
        exit(64)
    }
    let graph = opened.graph
    let stored = excluded.isEmpty ? own : ContractionHierarchy(graph: graph, excluding: excluded)
    let map = excluded.isEmpty ? opened : RoadMap(graph: graph, hierarchy: stored)
    var clock = DispatchTime.now().uptimeNanoseconds
    let order = NestedDissection.edgePositions(graph: graph)
    let dissection = since(clock)
    clock = DispatchTime.now().uptimeNanoseconds
    let topology = CustomizableTopology(graph: graph, transitions: own.transitions, edgePositions: order)
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
    if let text = pairsText ?? nil {
        let index = SnapIndex(graph: graph), filter = SnapFilter(excluded: excluded)
        func snap(_ lat: Double, _ lon: Double) -> Snap? {
            index.nearest(to: Coordinate(latitude: lat, longitude: lon), maxDistance: 1000, filter: filter)
        }
        for line in text.split(separator: "\n") {
            let v = line.split(separator: ",").compactMap { Double($0) }
            guard v.count == 4, let p = snap(v[0], v[1]), let q = snap(v[2], v[3]) else { continue }
            snaps.append((p, q))
        }
    }
    while snaps.count < queries {
        func point() -> Coordinate {
            Coordinate(latitude: rng.uniform(south, north), longitude: rng.uniform(west, east))
        }
        if let p = map.nearest(point()), let q = map.nearest(point()) { snaps.append((p, q)) }
    }
    guard !snaps.isEmpty else { return }
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
    func p95<T: Comparable>(_ v: [T]) -> T { v.sorted()[v.count * 95 / 100] }
    print(String(format: "p95: contracted %.3f ms, %d settled; customized %.3f ms, %d settled; settled in all: %d / %d",
                 1000 * p95(timesA), p95(settledA), 1000 * p95(timesB), p95(settledB), settledA.reduce(0, +),
                 settledB.reduce(0, +)))
    print(String(format: "%d queries: contracted p50 %.3f ms, %d settled; customized p50 %.3f ms, %d settled; "
                    + "weights differing: %d", snaps.count, 1000 * median(timesA), median(settledA),
                 1000 * median(timesB), median(settledB), differ))
}
