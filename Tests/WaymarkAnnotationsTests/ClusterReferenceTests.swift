import Foundation
import Testing
import WaymarkGeo
import WaymarkGeoJSON
import WaymarkSupport
@testable import WaymarkAnnotations

/// The index against supercluster's clustering written plainly: one item record at a time, each
/// neighbour list from a search from the tree's root, the levels' items and marks kept as
/// supercluster keeps them. Every zoom's answer must be the same items in the same order, with
/// the same ids, counts, centroids (to the bit) and aggregated properties.
@Suite struct ClusterReferenceTests {
    @Test func everyZoomEqualsSuperclustersClusteringDonePlainly() throws {
        var rng = SplitMix64(seed: 50)
        // Clumps of several spreads around 30 centres: merges at every zoom, equal points, items
        // that stay alone, clusters whose centroids are not a Float's.
        let centres = (0..<30).map { _ in (rng.uniform(-60, 60), rng.uniform(-170, 170)) }
        let points = (0..<4_000).map { i in
            let (lat, lon) = centres[i % 30], spread = [0.0, 0.001, 0.05, 2.0][i % 4]
            return Coordinate(latitude: lat + rng.uniform(-spread, spread),
                              longitude: lon + rng.uniform(-spread, spread))
        }
        let properties: [JSONObject] = (0..<points.count).map { ["n": .number(Double($0 % 7))] }
        let sum = ClusterAggregation(map: { ["n": $0["n"] ?? 0] }) { acc, next in
            acc["n"] = .number((acc["n"]?.numberValue ?? 0) + (next["n"]?.numberValue ?? 0))
        }
        for minPoints in [1, 2, 3, 5] {
            for aggregation in [nil, sum] {
                let options = ClusterOptions(minPoints: minPoints)
                let index = try ClusterIndex(coordinates: points, properties: properties, options: options,
                                             aggregation: aggregation)
                let reference = ReferenceSupercluster(points, properties, options, aggregation)
                for z in 0...(options.maxZoom + 1) {
                    let answer = index.clusters(west: -180, south: -90, east: 180, north: 90, zoom: Double(z))
                    let same = answer == reference.items(atZoom: z)
                    #expect(same, "min points \(minPoints), aggregating \(aggregation != nil), zoom \(z)")
                }
            }
        }
    }
}

/// supercluster 8's `load` and `_cluster`, record by record.
private struct ReferenceSupercluster {
    struct Item {
        var x: Double, y: Double
        var zoom = Int.max, id: Int, parent = -1, numPoints = 1
        var properties: JSONObject?
    }

    var levels: [Int: (items: [Item], tree: KDTree)] = [:]

    init(_ coordinates: [Coordinate], _ properties: [JSONObject], _ options: ClusterOptions,
         _ aggregation: ClusterAggregation?) {
        var data = coordinates.enumerated().map { i, c in
            Item(x: Double(Float(projectX(c.longitude))), y: Double(Float(projectY(c.latitude))), id: i)
        }
        var tree = KDTree(x: data.map(\.x), y: data.map(\.y), nodeSize: options.nodeSize)
        for z in stride(from: options.maxZoom, through: options.minZoom, by: -1) {
            let r = options.radius / (options.extent * pow(2, Double(z)))
            let scratch = KDTree.Scratch(capacity: data.count)
            var next: [Item] = []
            func mapped(_ k: Int) -> JSONObject {
                data[k].numPoints > 1 ? data[k].properties ?? [:] : aggregation!.map(properties[data[k].id])
            }
            for i in data.indices {
                if data[i].zoom <= z { continue }
                data[i].zoom = z
                let found = tree.within(data[i].x, data[i].y, r, into: scratch)
                let neighbors = (0..<found).map { Int(scratch.results[$0]) }
                let origin = data[i].numPoints
                var numPoints = origin
                for k in neighbors where data[k].zoom > z { numPoints += data[k].numPoints }
                if numPoints > origin && numPoints >= options.minPoints {
                    var wx = data[i].x * Double(origin), wy = data[i].y * Double(origin)
                    var aggregated = aggregation.map { _ in mapped(i) }
                    let id = (i << 5) + (z + 1) + coordinates.count
                    for k in neighbors where data[k].zoom > z {
                        data[k].zoom = z
                        wx += data[k].x * Double(data[k].numPoints)
                        wy += data[k].y * Double(data[k].numPoints)
                        data[k].parent = id
                        if let aggregation { aggregation.reduce(&aggregated!, mapped(k)) }
                    }
                    data[i].parent = id
                    next.append(Item(x: wx / Double(numPoints), y: wy / Double(numPoints), id: id,
                                     numPoints: numPoints, properties: aggregated))
                } else {
                    next.append(data[i])
                    guard numPoints > 1 else { continue }
                    for k in neighbors where data[k].zoom > z {
                        data[k].zoom = z
                        next.append(data[k])
                    }
                }
            }
            levels[z + 1] = (data, tree)
            data = next
            tree = KDTree(x: data.map(\.x), y: data.map(\.y), nodeSize: options.nodeSize)
        }
        levels[options.minZoom] = (data, tree)
    }

    /// The world's items at zoom `z`, in the tree's order, as the index's queries give them.
    func items(atZoom z: Int) -> [ClusterItem] {
        guard let (items, tree) = levels[z], !items.isEmpty else { return [] }
        var slots: [Int32] = []
        tree.appendSlots(in: KDTree.Box(minX: 0, minY: 0, maxX: 1, maxY: 1), 0, items.count - 1, 0, to: &slots)
        return slots.map { slot in
            let item = items[tree.item(inSlot: Int(slot))]
            guard item.numPoints > 1 else { return .point(item.id) }
            return .cluster(Cluster(id: item.id,
                                    coordinate: Coordinate(latitude: unprojectY(item.y), longitude: unprojectX(item.x)),
                                    pointCount: item.numPoints, properties: item.properties ?? [:]))
        }
    }
}
