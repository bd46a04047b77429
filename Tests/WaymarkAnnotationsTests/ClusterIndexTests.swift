import Foundation
import Testing
import WaymarkGeo
import WaymarkGeoJSON
import WaymarkSupport
@testable import WaymarkAnnotations

@Suite struct ClusterIndexTests {
    func c(_ lat: Double, _ lon: Double) -> Coordinate { Coordinate(latitude: lat, longitude: lon) }

    /// Uniform random points (fixed seed).
    func randomPoints(_ n: Int, seed: UInt64 = 42) -> [Coordinate] {
        var rng = SplitMix64(seed: seed)
        return (0..<n).map { _ in c(rng.uniform(-80, 80), rng.uniform(-180, 180)) }
    }

    func world(_ index: ClusterIndex, _ z: Int) -> [ClusterItem] {
        index.clusters(west: -180, south: -90, east: 180, north: 90, zoom: Double(z))
    }

    func total(_ items: [ClusterItem]) -> Int {
        items.reduce(0) { sum, item in
            switch item {
            case .point: return sum + 1
            case let .cluster(cluster): return sum + cluster.pointCount
            }
        }
    }

    @Test func countsAreConservedAtEveryZoom() throws {
        let points = randomPoints(5000)
        let index = try ClusterIndex(coordinates: points)
        for z in 0...17 { #expect(total(world(index, z)) == points.count, "zoom \(z)") }
        // Above maxZoom every point stands alone.
        #expect(world(index, 17).allSatisfy { if case .point = $0 { return true } else { return false } })
        #expect(world(index, 0).count < world(index, 5).count)
    }

    /// A large answer (a level of 2^16 items or more, a box of 1/64 of the world or more) is
    /// gathered on two cores: it holds what small boxes (one search each) find across the world.
    @Test func aLargeAnswerHoldsWhatSmallBoxesFind() throws {
        let index = try ClusterIndex(coordinates: randomPoints(70_000, seed: 5))
        func key(_ item: ClusterItem) -> Int {
            if case let .cluster(c) = item { return -c.id - 1 }
            if case let .point(i) = item { return i }
            return 0
        }
        for z in [0, 6, 12, 16, 17] {
            let whole = world(index, z)
            var tiled = Set<Int>()
            for i in 0..<16 {
                for j in 0..<16 {
                    let west = -180 + 22.5 * Double(i), south = -90 + 11.25 * Double(j)
                    for item in index.clusters(west: west, south: south, east: west + 22.5, north: south + 11.25,
                                               zoom: Double(z)) { tiled.insert(key(item)) }
                }
            }
            let keys = Set(whole.map(key))
            #expect(whole.count == keys.count, "zoom \(z)")
            let same = keys == tiled
            #expect(same, "zoom \(z)")
        }
    }

    @Test func idsDecodeToTheirOrigin() throws {
        let points = randomPoints(3000, seed: 7)
        let index = try ClusterIndex(coordinates: points)
        for z in 0...16 {
            for case let .cluster(cluster) in world(index, z) {
                // (index << 5) + (zoom + 1) + count: the zoom part is the level it was made at, + 1 —
                // this zoom or a higher one (a cluster can be carried down unchanged).
                let origin = cluster.id - points.count
                #expect(origin % 32 >= z + 1 && origin % 32 <= 17, "cluster \(cluster.id) at zoom \(z)")
                // Its leaves are exactly its count, and its children sum to it.
                let leaves = try index.leaves(of: cluster.id, limit: .max)
                #expect(leaves.count == cluster.pointCount && Set(leaves).count == leaves.count)
                #expect(total(try index.children(of: cluster.id)) == cluster.pointCount)
                #expect(try index.expansionZoom(of: cluster.id) > z)
            }
        }
    }

    /// supercluster skips features without a geometry but counts them in `points.length`, the
    /// offset of its cluster ids (its `places.json` fixture has one such feature, the last): the
    /// same clusters with every id that many higher, and children, leaves and expansion zooms of them.
    @Test func unlocatedFeaturesShiftTheIDsAsSupercluster() throws {
        let points = randomPoints(2000, seed: 11)
        let plain = try ClusterIndex(coordinates: points)
        let shifted = try ClusterIndex(coordinates: points, unlocatedCount: 3)
        for z in [0, 3, 8] {
            let a = world(plain, z), b = world(shifted, z)
            #expect(a.count == b.count)
            for (x, y) in zip(a, b) {
                switch (x, y) {
                case let (.cluster(p), .cluster(q)):
                    #expect(q.id == p.id + 3 && q.pointCount == p.pointCount && q.coordinate == p.coordinate)
                    #expect(try shifted.expansionZoom(of: q.id) == plain.expansionZoom(of: p.id))
                    #expect(try shifted.leaves(of: q.id, limit: .max, offset: 0)
                            == plain.leaves(of: p.id, limit: .max, offset: 0))
                    #expect(try shifted.children(of: q.id).count == plain.children(of: p.id).count)
                case let (.point(i), .point(j)): #expect(i == j)
                default: Issue.record("zoom \(z): \(x) against \(y)")
                }
            }
        }
    }

    @Test func antimeridianBoxEqualsItsTwoHalves() throws {
        let points = randomPoints(4000, seed: 3)
        let index = try ClusterIndex(coordinates: points)
        for z in [1, 3, 6] {
            let across = index.clusters(west: 170, south: -40, east: -170, north: 40, zoom: Double(z))
            let halves = index.clusters(west: 170, south: -40, east: 180, north: 40, zoom: Double(z))
                + index.clusters(west: -180, south: -40, east: -170, north: 40, zoom: Double(z))
            #expect(across == halves)
            #expect(!across.isEmpty)
            // Longitudes past ±180 wrap; a span of 360° or more is the world.
            #expect(index.clusters(west: 530, south: -40, east: 550, north: 40, zoom: Double(z))
                    == index.clusters(west: 170, south: -40, east: -170, north: 40, zoom: Double(z)))
            #expect(index.clusters(west: -200, south: -90, east: 200, north: 90, zoom: Double(z)) == world(index, z))
        }
        // Fractional zooms are floored.
        #expect(index.clusters(west: -180, south: -90, east: 180, north: 90, zoom: 4.9) == world(index, 4))
    }

    @Test func identicalPointsClusterAndZeroPointsWork() throws {
        let same = Array(repeating: c(48.85837, 2.294481), count: 7)
        let index = try ClusterIndex(coordinates: same)
        for z in 0...16 {
            let items = world(index, z)
            #expect(items.count == 1, "zoom \(z)")
            guard case let .cluster(cluster) = items.first else { Issue.record("not a cluster at \(z)"); continue }
            #expect(cluster.pointCount == 7)
            #expect(
                abs(cluster.coordinate.latitude - 48.85837) < 1e-5
                    && abs(cluster.coordinate.longitude - 2.294481) < 1e-5)
        }
        // Identical points never separate: the expansion zoom runs past maxZoom.
        guard case let .cluster(top) = world(index, 0)[0] else { return }
        #expect(try index.expansionZoom(of: top.id) == 17)
        #expect(world(index, 17).count == 7)

        let empty = try ClusterIndex(coordinates: [])
        #expect(world(empty, 3).isEmpty)
        #expect(throws: ClusterError.unknownCluster(5)) { try empty.children(of: 5) }
    }

    @Test func unknownIDsAndBadInputAreErrors() throws {
        let points = randomPoints(500)
        let index = try ClusterIndex(coordinates: points)
        #expect(throws: ClusterError.unknownCluster(3)) { try index.children(of: 3) } // a point's index, not a cluster
        #expect(throws: ClusterError.unknownCluster(-1)) { try index.leaves(of: -1) }
        #expect(throws: ClusterError.unknownCluster(1 << 40)) { try index.expansionZoom(of: 1 << 40) }
        #expect(throws: ClusterError.unknownCluster(points.count + 32 * 9_999 + 5)) {
            try index.children(of: points.count + 32 * 9_999 + 5)
        }
        #expect(
            throws: ClusterError.invalidCoordinate(
                InvalidCoordinate(index: 1, reason: .outOfRange(component: .latitude, value: 91)))
        ) {
            try ClusterIndex(coordinates: [c(0, 0), c(91, 0)])
        }
        #expect(throws: ClusterError.self) { try ClusterIndex(coordinates: [],
                                                              options: ClusterOptions(minZoom: 5, maxZoom: 2)) }
    }

    @Test func leavesPaginate() throws {
        let points = (0..<40).map { c(10 + Double($0) * 1e-6, 20) }
        let index = try ClusterIndex(coordinates: points)
        guard case let .cluster(top) = world(index, 0).first else { Issue.record("no cluster"); return }
        let all = try index.leaves(of: top.id, limit: .max)
        #expect(Set(all) == Set(0..<40))
        #expect(try index.leaves(of: top.id) == Array(all.prefix(10)))
        #expect(try index.leaves(of: top.id, limit: 15, offset: 30) == Array(all[30...]))
    }

    @Test func minPointsAndAggregation() throws {
        let points = [c(0, 0), c(0, 0.0001), c(0, 0.0002), c(40, 40), c(40, 40.0001)]
        let properties: [JSONObject] = [["seats": 4], ["seats": 2], ["seats": 5], ["seats": 1], ["seats": 3]]
        let sum = ClusterAggregation(map: { ["seats": $0["seats"] ?? 0] }) { acc, next in
            acc["seats"] = .number((acc["seats"]?.numberValue ?? 0) + (next["seats"]?.numberValue ?? 0))
        }
        let index = try ClusterIndex(coordinates: points, properties: properties,
                                     options: ClusterOptions(minPoints: 3), aggregation: sum)
        let items = world(index, 5)
        let clusters = items.compactMap { if case let .cluster(c) = $0 { return c } else { return nil } }
        #expect(clusters.count == 1 && clusters[0].pointCount == 3)      // the pair stays unclustered
        #expect(clusters[0].properties["seats"] == 11)
        #expect(clusters[0].geoJSONProperties.keys == ["seats", "cluster", "cluster_id", "point_count",
                                                       "point_count_abbreviated"])
        #expect(items.count == 3)
    }

    @Test func clusteringIdentifiersKeepGroupsApart() throws {
        let points = (0..<30).map { c(1 + Double($0 % 10) * 1e-5, 1) }
        let identifiers: [String?] = (0..<30).map { $0 < 10 ? "cafe" : $0 < 20 ? "bank" : nil }
        let index = try ClusterIndex(coordinates: points, clusteringIdentifiers: identifiers)
        let items = world(index, 3)
        let clusters = items.compactMap { if case let .cluster(c) = $0 { return c } else { return nil } }
        #expect(clusters.map(\.pointCount).sorted() == [10, 10])
        #expect(items.count == 12) // two clusters and ten annotations without an identifier
        for cluster in clusters {
            let leaves = try index.leaves(of: cluster.id, limit: .max)
            #expect(Set(leaves.map { identifiers[$0] }).count == 1)
        }
        #expect(total(items) == 30)
        // One identifier for all: the same ids as no identifiers at all.
        let one = try ClusterIndex(coordinates: points, clusteringIdentifiers: Array(repeating: "x", count: 30))
        #expect(world(one, 3) == world(try ClusterIndex(coordinates: points), 3))
    }

    @Test func abbreviatedCounts() {
        func abbreviation(_ n: Int) -> JSONValue {
            Cluster(id: 0, coordinate: c(0, 0), pointCount: n, properties: [:]).abbreviatedCount
        }
        #expect(abbreviation(999) == 999)
        #expect(abbreviation(1000) == "1k")
        #expect(abbreviation(1249) == "1.2k")
        #expect(abbreviation(1250) == "1.3k")
        #expect(abbreviation(34_499) == "34k")
        #expect(abbreviation(34_500) == "35k")
    }

    /// Against supercluster 8.0.1 itself: its per-zoom cluster counts for 100,000 uniform points
    /// (numpy seed 42, as ../shared/bench/peers/cluster_points.py makes them), recorded by the peers'
    /// benchmark. Greedy clustering depends on traversal order, so equal counts at all 17 zooms
    /// mean the same algorithm. Skipped when the shared results or numpy are absent.
    @Test(.enabled(if: SuperclusterReference.counts != nil,
                   "supercluster's recorded counts (../shared/bench/results) are absent"),
          .enabled(if: SuperclusterReference.hasNumpy, "numpy, which makes the points, is not installed"))
    func matchesSuperclusterCounts() throws {
        let expected = try #require(SuperclusterReference.counts)
        let out = NSTemporaryDirectory() + "waymark-cluster-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: out) }
        let status = try SuperclusterReference.python([
            SuperclusterReference.shared.appendingPathComponent("peers/cluster_points.py").path,
                                                       "--out", out, "--sizes", "100000"])
        let raw = try #require(
            status == 0 ? FileManager.default.contents(atPath: out + "/work/points_100000.f64") : nil)
        let values: [Double] = raw.withUnsafeBytes { Array($0.bindMemory(to: Double.self)) }
        let points = stride(from: 0, to: values.count, by: 2).map { c(values[$0 + 1], values[$0]) }
        let index = try ClusterIndex(coordinates: points)
        #expect((0...16).map { Double(world(index, $0).count) } == expected)
    }
}

/// supercluster's own per-zoom counts, recorded by the shared peers' benchmark, and what it takes
/// to make the same points.
private enum SuperclusterReference {
    static let shared = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/bench")

    static let counts: [Double]? = {
        guard
            let data = FileManager.default.contents(
                atPath: shared.appendingPathComponent("results/peers_cluster_js.json").path),
              let json = try? JSONValue(parsing: Array(data)) else { return nil }
        return json["datasets"]?["uniform_100000"]?["clusters_per_zoom"]?.arrayValue?.compactMap(\.numberValue)
    }()

    static let hasNumpy: Bool = (try? python(["-c", "import numpy"])) == 0

    /// Runs python3 with `arguments`, output discarded; its exit status.
    static func python(_ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }
}

/// `--group-by` where annotations lack the property (issue 13, item 4): they never cluster and
/// cost no neighbour queries; the ones that have it still cluster by it.
@Suite struct NeverClusteringGroupTests {
    @Test func annotationsWithoutTheKeyStaySingleAtEveryZoom() throws {
        var rng = SplitMix64(seed: 4)
        let points = (0..<3000).map { _ in
            Annotation(
                coordinate: Coordinate(
                    latitude: 41.15 + rng.uniform(-0.01, 0.01), longitude: -8.61 + rng.uniform(-0.01, 0.01)))
        }
        var tagged = points
        for i in 0..<100 { tagged[i].properties["kind"] = "cafe" }
        let index = try ClusterIndex(annotations: tagged, groupBy: "kind")
        for zoom in [0.0, 8, 16] {
            let items = index.clusters(west: -180, south: -90, east: 180, north: 90, zoom: zoom)
            let singles = items.filter { if case let .point(i) = $0 { i >= 100 } else { false } }
            #expect(singles.count == 2900, "zoom \(zoom)")
            // The hundred cafés, all within a few hundred metres, are one cluster at low zoom.
            let clusters = items.compactMap { if case let .cluster(c) = $0 { c } else { nil } }
            if zoom == 0 { #expect(clusters.count == 1 && clusters[0].pointCount == 100) }
        }
    }
}
