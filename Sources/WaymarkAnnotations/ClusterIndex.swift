import Dispatch
import Foundation
import WaymarkGeo
import WaymarkGeoJSON

/// Options of a ``ClusterIndex``; names, meanings and defaults as Mapbox supercluster 8.
public struct ClusterOptions: Sendable, Hashable {
    /// Lowest zoom at which clusters are generated.
    public var minZoom = 0
    /// Highest zoom at which points are clustered (0…30); above it every point stands alone.
    public var maxZoom = 16
    /// Fewest points that form a cluster.
    public var minPoints = 2
    /// Cluster radius in pixels of a tile `extent` pixels wide.
    public var radius = 40.0
    /// Tile extent in pixels (the radius is relative to it).
    public var extent = 512.0
    /// KD-tree leaf size (affects speed only).
    public var nodeSize = 64

    public init(minZoom: Int = 0, maxZoom: Int = 16, minPoints: Int = 2, radius: Double = 40,
                extent: Double = 512, nodeSize: Int = 64) {
        self.minZoom = minZoom
        self.maxZoom = maxZoom
        self.minPoints = minPoints
        self.radius = radius
        self.extent = extent
        self.nodeSize = nodeSize
    }
}

/// Aggregated cluster properties (supercluster's `map` and `reduce` options): `map` turns a
/// point's properties into the values to aggregate, `reduce` folds another member's mapped values
/// into the cluster's (e.g. a sum or a maximum). They are carried up the hierarchy.
public struct ClusterAggregation: Sendable {
    public var map: @Sendable (JSONObject) -> JSONObject
    public var reduce: @Sendable (inout JSONObject, JSONObject) -> Void

    public init(map: @escaping @Sendable (JSONObject) -> JSONObject = { $0 },
                reduce: @escaping @Sendable (inout JSONObject, JSONObject) -> Void) {
        self.map = map
        self.reduce = reduce
    }
}

/// A cluster as a query returns it.
public struct Cluster: Sendable, Equatable {
    /// The id (supercluster's `cluster_id`): `(origin index << 5) + (zoom + 1) + point count`.
    public var id: Int
    /// The count-weighted centroid of its members.
    public var coordinate: Coordinate
    public var pointCount: Int
    /// Aggregated properties (empty without a ``ClusterAggregation``).
    public var properties: JSONObject

    /// supercluster's `point_count_abbreviated`: the count below 1,000, then "1.2k", "34k".
    public var abbreviatedCount: JSONValue {
        if pointCount >= 10_000 { return .string("\(Int(jsRound(Double(pointCount) / 1000)))k") }
        if pointCount >= 1_000 {
            return .string(JSONValue.number(jsRound(Double(pointCount) / 100) / 10).jsonText() + "k")
        }
        return .number(Double(pointCount))
    }

    /// supercluster's cluster properties: the aggregated ones, then `cluster`, `cluster_id`,
    /// `point_count`, `point_count_abbreviated`.
    public var geoJSONProperties: JSONObject {
        var p = properties
        p["cluster"] = true
        p["cluster_id"] = .number(Double(id))
        p["point_count"] = .number(Double(pointCount))
        p["point_count_abbreviated"] = abbreviatedCount
        return p
    }
}

/// JavaScript's `Math.round` (halves up), which the abbreviation uses.
private func jsRound(_ x: Double) -> Double { (x + 0.5).rounded(.down) }

/// What queries return: an input point (by its index in the input) or a cluster.
public enum ClusterItem: Sendable, Equatable {
    case point(Int)
    case cluster(Cluster)
}

/// Why a cluster query failed.
public enum ClusterError: Error, Sendable, Equatable, CustomStringConvertible {
    case unknownCluster(Int)
    case invalidOptions(String)
    case invalidCoordinate(InvalidCoordinate)

    public var description: String {
        switch self {
        case let .unknownCluster(id): return "no cluster with id \(id)"
        case let .invalidOptions(text): return text
        case let .invalidCoordinate(error): return "\(error)"
        }
    }
}

/// A hierarchical point cluster index, per integer zoom — the algorithm of Mapbox supercluster 8.
///
/// From `maxZoom` down to `minZoom`, each level's points and clusters are indexed in a KD-tree over
/// Web Mercator [0, 1]² and every item not yet taken gathers the untaken items within
/// `radius / (extent · 2^zoom)`; when they hold at least `minPoints` points they become one cluster
/// at their count-weighted centroid. For the same points in the same order and the same options
/// the clusters, counts, positions and ids equal supercluster's.
///
/// With clustering identifiers (MapKit's `clusteringIdentifier`) each identifier's annotations form
/// their own hierarchy and never merge with others'; annotations without one never cluster. Ids are
/// then offset per identifier to stay unique (a single group keeps supercluster's ids).
///
/// Hot data is kept in flat arrays per level (struct of arrays), not objects.
public final class ClusterIndex: Sendable {
    public let options: ClusterOptions
    /// Number of input points.
    public let count: Int
    private let groups: [Group]

    /// Builds the index.
    /// - Parameters:
    ///   - coordinates: the points, validated (NaN or out of range is an error naming its index).
    ///   - properties: each point's properties (needed with `aggregation`; may be empty otherwise).
    ///   - clusteringIdentifiers: per point, its identifier; nil for all in one hierarchy.
    ///   - unlocatedCount: features of the input without a location (GeoJSON's `null` geometry),
    ///     not among `coordinates`: supercluster skips them but counts them in its ids' offset, and
    ///     so do these ids (in one hierarchy) for supercluster's ids on the same input.
    /// - Complexity: O(n log n) per zoom level.
    public init(coordinates: [Coordinate], properties: [JSONObject] = [], options: ClusterOptions = ClusterOptions(),
                aggregation: ClusterAggregation? = nil, clusteringIdentifiers: [String?]? = nil,
                unlocatedCount: Int = 0) throws(ClusterError) {
        guard options.minZoom >= 0, options.maxZoom <= 30, options.minZoom <= options.maxZoom else {
            throw .invalidOptions(
                "zoom range must be within 0…30 with min ≤ max, not \(options.minZoom)…\(options.maxZoom)")
        }
        let unlocatedCount = max(0, unlocatedCount)
        guard coordinates.count + unlocatedCount < 1 << 25 else {
            throw .invalidOptions(
                "at most \(1 << 25) points per index (cluster ids must fit 32 bits), not \(coordinates.count)")
        }
        guard options.radius > 0, options.radius.isFinite, options.extent > 0, options.extent.isFinite,
            options.minPoints >= 1
        else {
            throw .invalidOptions("radius and extent must be positive and min-points at least 1")
        }
        for (i, c) in coordinates.enumerated() where !c.isValid {
            do { _ = try Coordinate(validatingLatitude: c.latitude, longitude: c.longitude) } catch {
                throw .invalidCoordinate(InvalidCoordinate(index: i, reason: error))
            }
        }
        self.options = options
        self.count = coordinates.count

        // Partition by identifier, keeping input order inside each group.
        var members: [[Int]] = []
        var groupNever: [Bool] = []
        if let identifiers = clusteringIdentifiers {
            var slot: [String: Int] = [:]
            var loners: [Int] = []
            for (i, identifier) in identifiers.enumerated() where i < coordinates.count {
                guard let identifier else { loners.append(i); continue }
                if let s = slot[identifier] { members[s].append(i) } else {
                    slot[identifier] = members.count
                    members.append([i])
                    groupNever.append(false)
                }
            }
            if coordinates.count > identifiers.count {
                loners.append(contentsOf: identifiers.count..<coordinates.count)
            }
            if !loners.isEmpty {
                members.append(loners)
                groupNever.append(true)
            }
        } else {
            members = [Array(0..<coordinates.count)]
            groupNever = [false]
        }
        var built: [Group] = []
        var base = 0
        for (g, indices) in members.enumerated() {
            var groupOptions = options
            if groupNever[g] { groupOptions.minPoints = Int.max }
            let unlocated = clusteringIdentifiers == nil ? unlocatedCount : 0
            let group = Group(indices: indices, coordinates: coordinates, properties: properties,
                              options: groupOptions, aggregation: aggregation, idBase: base,
                              idOffset: indices.count + unlocated)
            base += group.idSpan
            built.append(group)
        }
        groups = built
    }

    /// Bytes held by the index's arrays (levels, KD-trees, aggregated properties not counted):
    /// comparable with a JavaScript heap measured after garbage collection.
    public var memoryBytes: Int {
        groups.reduce(0) { total, group in
            let levels = group.levels
            return total + levels.indices.reduce(0) { sum, z in
                let l = levels[z], above = z + 1 < levels.count ? levels[z + 1] : Group.Level()
                // A level where nothing merged holds the items and the tree of the level above:
                // counted once.
                let items = sameStorage(l.x, above.x) ? 0
                    : l.x.capacity * 8 + l.y.capacity * 8 + l.id.capacity * 4 + l.numPoints.capacity * 4
                        + l.property.capacity * 4
                return sum + items + (sameStorage(l.parent, above.parent) ? 0 : l.parent.capacity * 4)
                    + (l.tree.sharesStorage(with: above.tree) ? 0 : l.tree.count * 12)
            } + group.indices.capacity * 8
        }
    }

    private func sameStorage<T>(_ a: [T], _ b: [T]) -> Bool {
        !a.isEmpty && a.withUnsafeBufferPointer { a in b.withUnsafeBufferPointer { $0.baseAddress == a.baseAddress } }
    }

    // MARK: - Queries

    /// Clusters and points in a box at a zoom (fractional zooms are floored, clamped to the index's
    /// range). Longitudes are wrapped; a box crossing the antimeridian is queried as its two halves
    /// (east first); a box 360° wide or more is the whole world.
    public func clusters(west: Double, south: Double, east: Double, north: Double, zoom: Double) -> [ClusterItem] {
        var minLng =
            ((west + 180).truncatingRemainder(dividingBy: 360) + 360).truncatingRemainder(dividingBy: 360) - 180
        let minLat = max(-90, min(90, south))
        var maxLng =
            east == 180
            ? 180 : ((east + 180).truncatingRemainder(dividingBy: 360) + 360).truncatingRemainder(dividingBy: 360) - 180
        let maxLat = max(-90, min(90, north))
        if east - west >= 360 {
            minLng = -180
            maxLng = 180
        } else if minLng > maxLng {
            return clusters(west: minLng, south: minLat, east: 180, north: maxLat, zoom: zoom)
                + clusters(west: -180, south: minLat, east: maxLng, north: maxLat, zoom: zoom)
        }
        let z = limitZoom(zoom)
        func items(_ group: Group) -> [ClusterItem] {
            group.range(level: z, minX: projectX(minLng), minY: projectY(maxLat), maxX: projectX(maxLng),
                        maxY: projectY(minLat))
        }
        // (One group's answer as it is: joining copies every item.)
        return groups.count == 1 ? items(groups[0]) : groups.flatMap(items)
    }

    /// The items one zoom level below a cluster that it was made of.
    public func children(of clusterID: Int) throws(ClusterError) -> [ClusterItem] {
        try group(of: clusterID).children(of: clusterID)
    }

    /// The input points inside a cluster (indices into the input), depth first, paginated.
    public func leaves(of clusterID: Int, limit: Int = 10, offset: Int = 0) throws(ClusterError) -> [Int] {
        let group = try group(of: clusterID)
        var result: [Int] = []
        _ = try group.appendLeaves(&result, clusterID, limit: max(1, limit), offset: max(0, offset), skipped: 0)
        return result
    }

    /// The zoom at which a cluster splits into more than one item.
    public func expansionZoom(of clusterID: Int) throws(ClusterError) -> Int {
        let group = try group(of: clusterID)
        var id = clusterID
        var zoom = try group.originZoom(of: id) - 1
        while zoom <= options.maxZoom {
            let children = try group.children(of: id)
            zoom += 1
            guard children.count == 1, case let .cluster(only) = children[0] else { break }
            id = only.id
        }
        return zoom
    }

    private func group(of clusterID: Int) throws(ClusterError) -> Group {
        guard let g = groups.first(where: { clusterID >= $0.idBase && clusterID < $0.idBase + $0.idSpan }) else {
            throw .unknownCluster(clusterID)
        }
        return g
    }

    private func limitZoom(_ z: Double) -> Int {
        guard z.isFinite else { return z > 0 ? options.maxZoom + 1 : options.minZoom }
        return max(options.minZoom, min(Int(z.rounded(.down)), options.maxZoom + 1))
    }
}

// MARK: - Projection (supercluster's, operation for operation)

@inline(__always) func projectX(_ lng: Double) -> Double { lng / 360 + 0.5 }

@inline(__always) func projectY(_ lat: Double) -> Double {
    let s = sin(lat * Double.pi / 180)
    let y = 0.5 - 0.25 * log((1 + s) / (1 - s)) / Double.pi
    return y < 0 ? 0 : y > 1 ? 1 : y
}

@inline(__always) func unprojectX(_ x: Double) -> Double { (x - 0.5) * 360 }

@inline(__always) func unprojectY(_ y: Double) -> Double {
    let y2 = (180 - y * 360) * Double.pi / 180
    return 360 * atan(exp(y2)) / Double.pi - 90
}

// MARK: - One hierarchy

/// The hierarchy of one clustering identifier (or of all points).
private final class Group: Sendable {
    /// One zoom level's items, struct of arrays (supercluster's strided `data`).
    struct Level {
        var x: [Double] = [], y: [Double] = []
        /// Input index (local to the group) for points, cluster id (local) for clusters.
        var id: [Int32] = []
        var parent: [Int32] = []
        var numPoints: [Int32] = []
        /// Index into `clusterProperties`, -1 when none; empty when the index aggregates nothing.
        var property: [Int32] = []

        func propertyIndex(_ k: Int) -> Int { property.isEmpty ? -1 : Int(property[k]) }
        var tree = KDTree(x: [], y: [], nodeSize: 64)

        var count: Int { x.count }

        /// Raw places for a level's items, written before the level's columns exist as arrays.
        struct Places: @unchecked Sendable {
            let x: UnsafeMutablePointer<Double>, y: UnsafeMutablePointer<Double>
            let id: UnsafeMutablePointer<Int32>, numPoints: UnsafeMutablePointer<Int32>
            /// Nil when the index aggregates nothing.
            let property: UnsafeMutablePointer<Int32>?

            @inline(__always)
            func set(_ at: Int, _ x: Double, _ y: Double, _ id: Int32, _ numPoints: Int32, _ property: Int32) {
                self.x[at] = x; self.y[at] = y; self.id[at] = id; self.numPoints[at] = numPoints
                self.property?[at] = property
            }
        }

        /// A level of `count` items, every one of them set by `fill` in its columns in place (no
        /// copy), none with a parent yet; its tree not built.
        static func written(count: Int, aggregates: Bool, _ fill: (Places) -> Void) -> Level {
            var level = Level()
            guard count > 0 else { return level }
            level.x = [Double](unsafeUninitializedCapacity: count) { x, xCount in
            level.y = [Double](unsafeUninitializedCapacity: count) { y, yCount in
            level.id = [Int32](unsafeUninitializedCapacity: count) { id, idCount in
            level.numPoints = [Int32](unsafeUninitializedCapacity: count) { numPoints, countCount in
            level.property = [Int32](unsafeUninitializedCapacity: aggregates ? count : 0) { property, propertyCount in
                fill(Places(x: x.baseAddress!, y: y.baseAddress!, id: id.baseAddress!,
                            numPoints: numPoints.baseAddress!, property: aggregates ? property.baseAddress! : nil))
                (xCount, yCount, idCount, countCount) = (count, count, count, count)
                propertyCount = aggregates ? count : 0
            } } } } }
            level.parent = [Int32](repeating: -1, count: count)
            return level
        }
    }

    /// The greedy pass's scratch, allocated once per build and reused by every level: its marks
    /// (one bit an item: the items processed, and the loners — alone in their circles and in no
    /// other item's list, so that the pass neither merges them nor merges anything into them), and
    /// the next level's items the pass made, each with the position of the item that made it.
    final class LevelWriter: @unchecked Sendable {
        let capacity: Int
        let x: UnsafeMutablePointer<Double>, y: UnsafeMutablePointer<Double>
        let id: UnsafeMutablePointer<Int32>, numPoints: UnsafeMutablePointer<Int32>
        let property: UnsafeMutablePointer<Int32>, position: UnsafeMutablePointer<Int32>
        let processed: ItemBits, loners: ItemBits
        var count = 0

        init(capacity: Int) {
            self.capacity = max(capacity, 1)
            x = .allocate(capacity: self.capacity); y = .allocate(capacity: self.capacity)
            id = .allocate(capacity: self.capacity); numPoints = .allocate(capacity: self.capacity)
            property = .allocate(capacity: self.capacity); position = .allocate(capacity: self.capacity)
            processed = ItemBits(words: .allocate(capacity: ItemBits.wordCount(self.capacity)))
            loners = ItemBits(words: .allocate(capacity: ItemBits.wordCount(self.capacity)))
        }

        deinit {
            x.deallocate(); y.deallocate(); id.deallocate(); numPoints.deallocate(); property.deallocate()
            position.deallocate(); processed.words.deallocate(); loners.words.deallocate()
        }
    }

    let indices: [Int]
    let options: ClusterOptions
    let idBase: Int
    /// What the cluster ids add to `(index << 5) + zoom + 1`: supercluster's input length.
    let idOffset: Int
    /// Ids used by this group: every local id is below this.
    let idSpan: Int
    /// levels[z] for z in minZoom...maxZoom+1 (index = zoom).
    let levels: [Level]
    let clusterProperties: [JSONObject]

    init(indices: [Int], coordinates: [Coordinate], properties: [JSONObject], options: ClusterOptions,
         aggregation: ClusterAggregation?, idBase: Int, idOffset: Int) {
        self.indices = indices
        self.options = options
        self.idBase = idBase
        self.idOffset = idOffset
        let n = indices.count
        idSpan = ((max(n, 1) + 1) << 5) + idOffset + 32

        var top = Level()
        (top.x, top.y) = Group.project(indices.map { coordinates[$0] })
        top.id = (0..<Int32(n)).map { $0 }
        top.parent = [Int32](repeating: -1, count: n)
        top.numPoints = [Int32](repeating: 1, count: n)
        if aggregation != nil { top.property = [Int32](repeating: -1, count: n) }
        top.tree = KDTree(x: top.x, y: top.y, nodeSize: options.nodeSize)

        // A group that never clusters (annotations without a clustering identifier): its points
        // are every zoom's items, one shared level. Running the rounds anyway would ask each point
        // for its neighbours at every zoom — at low zooms nearly all of them, quadratic in time
        // and memory (2 GB for 64,000 points at zoom 0).
        if options.minPoints == Int.max {
            levels = [Level](repeating: top, count: options.maxZoom + 2)
            clusterProperties = []
            return
        }

        var levels = [Level](repeating: Level(), count: options.maxZoom + 2)
        var props: [JSONObject] = []
        var current = top
        let workspace = NeighborWorkspace(capacity: n, parts: ProcessInfo.processInfo.activeProcessorCount)
        let writer = LevelWriter(capacity: n)
        for z in stride(from: options.maxZoom, through: options.minZoom, by: -1) {
            var next = Group.cluster(&current, zoom: z, idOffset: idOffset, options: options, workspace: workspace,
                                     writer: writer, aggregation: aggregation, pointProperties: { local in
                                         let global = indices[local]
                                         return global < properties.count ? properties[global] : [:]
                                     }, clusterProperties: &props)
            // A level where nothing merged holds the same points as the one above, in the same
            // order: its tree is that one (built from the same coordinates, it would be the same).
            next.tree = next.x == current.x && next.y == current.y
                ? current.tree : KDTree(x: next.x, y: next.y, nodeSize: options.nodeSize)
            levels[z + 1] = current
            current = next
        }
        levels[options.minZoom] = current
        self.levels = levels
        clusterProperties = props
    }

    /// Web Mercator x and y of each point, rounded to `Float` as supercluster stores them; a large
    /// input on two cores (a sine and a logarithm a point).
    private static func project(_ points: [Coordinate]) -> (x: [Double], y: [Double]) {
        let n = points.count, parts = n >= 1 << 15 ? 2 : 1
        var x = [Double](repeating: 0, count: n), y = [Double](repeating: 0, count: n)
        x.withUnsafeMutableBufferPointer { xs in
        y.withUnsafeMutableBufferPointer { ys in
            nonisolated(unsafe) let xs = xs, ys = ys // each part writes its own range
            DispatchQueue.concurrentPerform(iterations: parts) { part in
                for i in (n * part / parts)..<(n * (part + 1) / parts) {
                    xs[i] = Double(Float(projectX(points[i].longitude)))
                    ys[i] = Double(Float(projectY(points[i].latitude)))
                }
            }
        } }
        return (x, y)
    }

    /// One round of greedy clustering at `zoom` over the items of the level above: supercluster's
    /// `_cluster`, in three steps. Every item's neighbour list (kd order, both cores); the greedy
    /// pass in data order, which alone decides what merges — exactly as querying inside the pass
    /// would — over the items that are not loners; the next level written in data order on both
    /// cores, a loner where it stands, the pass's items where the items that made them stand.
    private static func cluster(_ data: inout Level, zoom: Int, idOffset n: Int, options: ClusterOptions,
                                workspace: NeighborWorkspace, writer: LevelWriter, aggregation: ClusterAggregation?,
                                pointProperties: (Int) -> JSONObject, clusterProperties: inout [JSONObject]) -> Level {
        let r = options.radius / (options.extent * pow(2, Double(zoom)))
        precondition(writer.capacity >= data.count)
        data.tree.allWithin(radius: r, x: data.x, y: data.y, workspace: workspace)
        let loners = markLoners(data.count, workspace, writer)
        let moved = greedyPass(&data, zoom: zoom, idOffset: n, options: options, workspace: workspace,
                               writer: writer, aggregation: aggregation, pointProperties: pointProperties,
                               clusterProperties: &clusterProperties)
        guard moved else {
            // Every item stays as it is, where it stands: the next level holds this one's items.
            var next = data
            next.parent = [Int32](repeating: -1, count: data.count)
            return next
        }
        return nextLevel(data, loners: loners, writer: writer, aggregates: aggregation != nil)
    }

    /// Marks the loners in `writer.loners`; returns how many there are.
    private static func markLoners(_ count: Int, _ workspace: NeighborWorkspace, _ writer: LevelWriter) -> Int {
        let words = ItemBits.wordCount(count), loners = writer.loners
        loners.words.update(from: workspace.aloneBits, count: words)
        workspace.withLists { lists in
            for w in 0..<words {
                var listed = ~workspace.aloneBits[w] & ItemBits.valid(word: w, of: count)
                while listed != 0 {
                    let i = w << 6 + listed.trailingZeroBitCount
                    listed &= listed &- 1
                    let list = workspace.found[i], from = Int(list.start)
                    for k in lists[Int(list.part)][from..<(from + Int(list.length))] where Int(k) != i {
                        loners.remove(Int(k))
                    }
                }
            }
        }
        return (0..<words).reduce(0) { $0 + loners.words[$1].nonzeroBitCount }
    }

    /// The greedy pass over the items that are not loners, in data order: the parents of the items
    /// merged written in `data`, the next level's items it makes written in `writer`. Returns whether
    /// anything merged or moved (an item carried along with another).
    private static func greedyPass(_ data: inout Level, zoom: Int, idOffset n: Int, options: ClusterOptions,
                                   workspace: NeighborWorkspace, writer: LevelWriter,
                                   aggregation: ClusterAggregation?, pointProperties: (Int) -> JSONObject,
                                   clusterProperties: inout [JSONObject]) -> Bool {
        // The parent column is written while the level is read: work on its storage directly (no
        // uniqueness or bounds checks per access in this loop).
        var parents = data.parent
        data.parent = []
        defer { data.parent = parents }
        let level = data, words = ItemBits.wordCount(data.count)
        writer.processed.words.update(repeating: 0, count: words)
        var moved = false
        parents.withUnsafeMutableBufferPointer { parentOf in
        level.x.withUnsafeBufferPointer { xOf in
        level.y.withUnsafeBufferPointer { yOf in
        level.numPoints.withUnsafeBufferPointer { countOf in
        level.id.withUnsafeBufferPointer { idOf in
        level.property.withUnsafeBufferPointer { propertyOf in
        workspace.withLists { lists in
        var pass = Pass(x: xOf, y: yOf, id: idOf, count: countOf, property: aggregation != nil ? propertyOf : nil,
                        parent: parentOf, writer: writer)
        for w in 0..<words {
            var todo = ~writer.loners.words[w] & ItemBits.valid(word: w, of: level.count)
            while todo != 0 {
                let i = w << 6 + todo.trailingZeroBitCount
                todo &= todo &- 1
                if pass.processed.contains(i) { continue }
                pass.processed.insert(i)
                if workspace.isAlone(i) { pass.carry(i, at: i); continue }
                let list = workspace.found[i], from = Int(list.start)
                let neighbors = UnsafeBufferPointer(rebasing: lists[Int(list.part)][from..<(from + Int(list.length))])
                // The neighbours not processed yet: each holds a point or more, so with none nothing
                // merges, and with enough of them the counts need not be read to know it merges.
                let fresh = neighbors.count { !pass.processed.contains(Int($0)) }
                if fresh == 0 { pass.carry(i, at: i); continue }
                moved = true
                let originCount = Int(countOf[i])
                let merges = originCount + fresh >= options.minPoints
                    || neighbors.reduce(originCount) { sum, k in
                        pass.processed.contains(Int(k)) ? sum : sum + Int(countOf[Int(k)])
                    } >= options.minPoints
                guard merges else {
                    pass.carry(i, at: i)
                    for k in neighbors where !pass.processed.contains(Int(k)) {
                        pass.processed.insert(Int(k))
                        pass.carry(Int(k), at: i)
                    }
                    continue
                }
                merge(i, neighbors, &pass, id: Int32((i << 5) + (zoom + 1) + n), level: level,
                      aggregation: aggregation, pointProperties: pointProperties,
                      clusterProperties: &clusterProperties)
            }
        }
        writer.count = pass.made
        } } } } } } }
        return moved
    }

    /// Merges item `i` and its neighbours not processed yet into a cluster with `id` at their
    /// count-weighted centroid (summed in the list's order, as supercluster sums), their properties
    /// reduced when the index aggregates.
    private static func merge(_ i: Int, _ neighbors: UnsafeBufferPointer<Int32>, _ pass: inout Pass, id: Int32,
                              level: Level, aggregation: ClusterAggregation?, pointProperties: (Int) -> JSONObject,
                              clusterProperties: inout [JSONObject]) {
        let originCount = Int(pass.count[i])
        var wx = pass.x[i] * Double(originCount), wy = pass.y[i] * Double(originCount)
        var numPoints = originCount
        var aggregated: JSONObject?
        var propertyIndex: Int32 = -1
        for neighbor in neighbors {
            let k = Int(neighbor)
            if pass.processed.contains(k) { continue }
            pass.processed.insert(k)
            let count = Double(pass.count[k])
            numPoints += Int(pass.count[k])
            wx += pass.x[k] * count
            wy += pass.y[k] * count
            pass.parent[k] = id
            if let aggregation {
                if aggregated == nil {
                    aggregated = mapped(level, i, aggregation, pointProperties, clusterProperties)
                    propertyIndex = Int32(clusterProperties.count)
                }
                aggregation.reduce(&aggregated!, mapped(level, k, aggregation, pointProperties, clusterProperties))
            }
        }
        if let aggregated { clusterProperties.append(aggregated) }
        pass.parent[i] = id
        pass.make(at: i, wx / Double(numPoints), wy / Double(numPoints), id, Int32(numPoints), propertyIndex)
    }

    /// The greedy pass's hands on one level: its columns read in place (the parents written), the
    /// marks of the items processed, and the next level's items it makes, each with the position
    /// of the item that made it (all in `writer`).
    private struct Pass {
        let x: UnsafeBufferPointer<Double>, y: UnsafeBufferPointer<Double>
        let id: UnsafeBufferPointer<Int32>, count: UnsafeBufferPointer<Int32>
        /// Nil when the index aggregates nothing.
        let property: UnsafeBufferPointer<Int32>?
        let parent: UnsafeMutableBufferPointer<Int32>
        let processed: ItemBits
        let out: Level.Places, position: UnsafeMutablePointer<Int32>
        /// How many items the pass has made.
        private(set) var made = 0

        init(x: UnsafeBufferPointer<Double>, y: UnsafeBufferPointer<Double>, id: UnsafeBufferPointer<Int32>,
             count: UnsafeBufferPointer<Int32>, property: UnsafeBufferPointer<Int32>?,
             parent: UnsafeMutableBufferPointer<Int32>, writer: LevelWriter) {
            (self.x, self.y, self.id, self.count, self.property, self.parent) = (x, y, id, count, property, parent)
            processed = writer.processed
            out = Level.Places(x: writer.x, y: writer.y, id: writer.id, numPoints: writer.numPoints,
                               property: property == nil ? nil : writer.property)
            position = writer.position
        }

        /// Item k of the level above, unchanged, as the next level's item made at `i`.
        @inline(__always) mutating func carry(_ k: Int, at i: Int) {
            make(at: i, x[k], y[k], id[k], count[k], property?[k] ?? -1)
        }

        @inline(__always)
        mutating func make(at i: Int, _ x: Double, _ y: Double, _ id: Int32, _ numPoints: Int32, _ property: Int32) {
            out.set(made, x, y, id, numPoints, property)
            position[made] = Int32(i)
            made += 1
        }
    }

    /// The next level: in data order, each loner of `data` as it is and the pass's items where the
    /// items that made them stand; on two cores when large (each writes its half's positions from
    /// an offset counted before), straight into the level's columns.
    private static func nextLevel(_ data: Level, loners: Int, writer: LevelWriter, aggregates: Bool) -> Level {
        let total = loners + writer.count, n = data.count, words = ItemBits.wordCount(n)
        let parts = total >= 1 << 15 ? 2 : 1
        // Where each part starts: in the level above, in the pass's items, in the level made.
        let split = (0...parts).map { min(n, words * $0 / parts * 64) }
        let madeBefore = split.map { at in
            var low = 0, high = writer.count
            while low < high {
                let mid = (low + high) / 2
                if Int(writer.position[mid]) < at { low = mid + 1 } else { high = mid }
            }
            return low
        }
        let outputBefore = (0...parts).map { part in
            (0..<ItemBits.wordCount(split[part])).reduce(0) { $0 + writer.loners.words[$1].nonzeroBitCount }
                + madeBefore[part]
        }
        let aggregated = aggregates ? data.property : []
        return Level.written(count: total, aggregates: aggregates) { out in
            data.x.withUnsafeBufferPointer { xOf in
            data.y.withUnsafeBufferPointer { yOf in
            data.id.withUnsafeBufferPointer { idOf in
            data.numPoints.withUnsafeBufferPointer { countOf in
            aggregated.withUnsafeBufferPointer { propertyOf in
                nonisolated(unsafe) let above = (xOf, yOf, idOf, countOf, propertyOf)
                // Each part writes its own range of the columns.
                DispatchQueue.concurrentPerform(iterations: parts) { part in
                    let (xOf, yOf, idOf, countOf, propertyOf) = above
                    var at = outputBefore[part], made = madeBefore[part]
                    for i in split[part]..<split[part + 1] {
                        if writer.loners.contains(i) {
                            out.set(at, xOf[i], yOf[i], idOf[i], countOf[i], aggregates ? propertyOf[i] : -1)
                            at += 1
                            continue
                        }
                        while made < writer.count && Int(writer.position[made]) == i {
                            out.set(at, writer.x[made], writer.y[made], writer.id[made], writer.numPoints[made],
                                    writer.property[made])
                            at += 1
                            made += 1
                        }
                    }
                }
            } } } } }
        }
    }

    /// The properties an item contributes to a reduction: a cluster's aggregate, or a point's mapped properties.
    private static func mapped(_ data: Level, _ i: Int, _ aggregation: ClusterAggregation,
                               _ pointProperties: (Int) -> JSONObject,
                               _ clusterProperties: [JSONObject]) -> JSONObject {
        if data.numPoints[i] > 1 {
            let p = data.propertyIndex(i)
            return p >= 0 ? clusterProperties[p] : [:]
        }
        return aggregation.map(pointProperties(Int(data.id[i])))
    }

    // MARK: Queries

    func item(_ level: Level, _ k: Int) -> ClusterItem {
        if level.numPoints[k] > 1 {
            let p = level.propertyIndex(k)
            return .cluster(Cluster(id: Int(level.id[k]) + idBase,
                                    coordinate: Coordinate(latitude: unprojectY(level.y[k]),
                                                           longitude: unprojectX(level.x[k])),
                                    pointCount: Int(level.numPoints[k]),
                                    properties: p >= 0 ? clusterProperties[p] : [:]))
        }
        return .point(indices[Int(level.id[k])])
    }

    func range(level z: Int, minX: Double, minY: Double, maxX: Double, maxY: Double) -> [ClusterItem] {
        let level = levels[z], tree = level.tree
        let box = KDTree.Box(minX: minX, minY: minY, maxX: maxX, maxY: maxY)
        // A large answer is gathered on two cores: the tree's top levels opened into pieces in
        // traversal order, the pieces shared out in two runs of about equal size; each run lists
        // its slots, then makes its items in place in the answer (no copy of the items).
        let wide = (maxX - minX) * (maxY - minY) >= 1.0 / 64
        let pieces = tree.rangePieces(box, depth: level.count >= 1 << 16 && wide ? 4 : 0)
        guard pieces.count > 1 else {
            return tree.slots(of: pieces[...], in: box).map { item(level, tree.item(inSlot: Int($0))) }
        }
        let half = pieces.count / 2
        var runs: [[Int32]] = [[], []]
        runs.withUnsafeMutableBufferPointer { runs in
            nonisolated(unsafe) let runs = runs // each run writes its own slot
            DispatchQueue.concurrentPerform(iterations: 2) { run in
                runs[run] = tree.slots(of: run == 0 ? pieces[..<half] : pieces[half...], in: box)
            }
        }
        let listed = runs, total = runs[0].count + runs[1].count
        return [ClusterItem](unsafeUninitializedCapacity: total) { answer, count in
            nonisolated(unsafe) let answer = answer // each run initializes its own range
            DispatchQueue.concurrentPerform(iterations: 2) { run in
                var at = run == 0 ? 0 : listed[0].count
                for slot in listed[run] {
                    (answer.baseAddress! + at).initialize(to: item(level, tree.item(inSlot: Int(slot))))
                    at += 1
                }
            }
            count = total
        }
    }

    func originZoom(of clusterID: Int) throws(ClusterError) -> Int {
        let local = clusterID - idBase - idOffset
        guard local >= 0 else { throw .unknownCluster(clusterID) }
        return local % 32
    }

    func children(of clusterID: Int) throws(ClusterError) -> [ClusterItem] {
        let local = clusterID - idBase
        let offset = local - idOffset
        guard offset >= 0 else { throw .unknownCluster(clusterID) }
        let originID = offset >> 5, originZoom = offset % 32
        guard originZoom >= options.minZoom + 1, originZoom <= options.maxZoom + 1 else {
            throw .unknownCluster(clusterID)
        }
        let level = levels[originZoom]
        guard originID < level.count else { throw .unknownCluster(clusterID) }
        let r = options.radius / (options.extent * pow(2, Double(originZoom - 1)))
        let scratch = KDTree.Scratch(capacity: level.count)
        let found = level.tree.within(level.x[originID], level.y[originID], r, into: scratch)
        let children = (0..<found).map { Int(scratch.results[$0]) }.filter { Int(level.parent[$0]) == local }.map {
            item(level, $0)
        }
        guard !children.isEmpty else { throw .unknownCluster(clusterID) }
        return children
    }

    func appendLeaves(_ result: inout [Int], _ clusterID: Int, limit: Int,
                      offset: Int, skipped start: Int) throws(ClusterError) -> Int {
        var skipped = start
        for child in try children(of: clusterID) {
            switch child {
            case let .cluster(c):
                if skipped + c.pointCount <= offset {
                    skipped += c.pointCount
                } else {
                    skipped = try appendLeaves(&result, c.id, limit: limit, offset: offset, skipped: skipped)
                }
            case let .point(index):
                if skipped < offset { skipped += 1 } else { result.append(index) }
            }
            if result.count == limit { break }
        }
        return skipped
    }
}
