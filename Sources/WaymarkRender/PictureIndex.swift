import WaymarkGeo
import WaymarkGraph

/// Which roads and basemap features lie where, for drawing a picture of part of a large map:
/// each road piece (by one of its directed edges) and each feature in the cells of a grid its box
/// overlaps, so a picture close in looks at what is in view rather than at the whole map. Made
/// once per map (the viewer's server keeps one); pictures are the same with it as without.
public final class PictureIndex: Sendable {
    /// Cells of 1/32 of a zoom-0 tile point (about 3.7 km at Porto's latitude): a close view
    /// touches a handful.
    static let cellsAcross = 8192
    static let cellSize = 256.0 / Double(cellsAcross)
    /// More cells than this in a query, and everything is returned (a view of the whole map).
    static let maximumCells = 4096

    /// One directed edge per road piece, for all of them (what a whole-map picture draws).
    let allEdges: [Int]
    let featureCount: Int
    private let edgeCells: Cells
    private let featureCells: Cells

    /// Sorted cell keys and, per key, the items in it.
    private struct Cells: Sendable {
        var keys: [Int] = []
        var start: [UInt32] = [0]
        var items: [UInt32] = []
        /// Items too large for cells (found in every query).
        var everywhere: [UInt32] = []

        init(_ boxes: [(item: UInt32, box: (Double, Double, Double, Double))]) {
            var pairs: [(key: Int, item: UInt32)] = []
            for (item, box) in boxes {
                let x0 = PictureIndex.cell(box.0), y0 = PictureIndex.cell(box.1), x1 = PictureIndex.cell(box.2),
                    y1 = PictureIndex.cell(box.3)
                if x1 - x0 > 64 || y1 - y0 > 64 {
                    everywhere.append(item)
                    continue
                }
                for y in y0...y1 { for x in x0...x1 { pairs.append((y * PictureIndex.cellsAcross + x, item)) } }
            }
            pairs.sort { $0.key != $1.key ? $0.key < $1.key : $0.item < $1.item }
            for pair in pairs {
                if keys.last != pair.key {
                    if !keys.isEmpty { start.append(UInt32(items.count)) }
                    keys.append(pair.key)
                }
                items.append(pair.item)
            }
            if !keys.isEmpty { start.append(UInt32(items.count)) }
        }

        /// The items of the cells in the box (cell coordinates), each once; nil when the box has
        /// too many cells to be worth it.
        func items(x0: Int, y0: Int, x1: Int, y1: Int) -> [Int]? {
            guard (x1 - x0 + 1) * (y1 - y0 + 1) <= PictureIndex.maximumCells else { return nil }
            var found = Set<UInt32>(everywhere)
            for y in y0...y1 {
                // The row's cells are consecutive keys: find the first, walk on.
                let low = y * PictureIndex.cellsAcross + x0, high = y * PictureIndex.cellsAcross + x1
                var i = lowerBound(low)
                while i < keys.count && keys[i] <= high {
                    for k in Int(start[i])..<Int(start[i + 1]) { found.insert(items[k]) }
                    i += 1
                }
            }
            return found.map(Int.init).sorted()
        }

        private func lowerBound(_ key: Int) -> Int {
            var low = 0, high = keys.count
            while low < high {
                let mid = (low + high) / 2
                if keys[mid] < key { low = mid + 1 } else { high = mid }
            }
            return low
        }
    }

    static func cell(_ v: Double) -> Int { max(0, min(cellsAcross - 1, Int(v / cellSize))) }

    /// The box of points in zoom-0 map units (x east, y south).
    static func box(_ points: some Sequence<Coordinate>) -> (Double, Double, Double, Double) {
        let mercator = WebMercator.tiles256
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        for c in points {
            let x = mercator.x(longitude: c.longitude), y = mercator.y(latitude: c.latitude)
            minX = min(minX, x); maxX = max(maxX, x); minY = min(minY, y); maxY = max(maxY, y)
        }
        return (minX, minY, maxX, maxY)
    }

    public init(graph: RoadGraph, basemap: Basemap? = nil) {
        allEdges = PictureIndex.edgePerSegment(graph)
        edgeCells = Cells(allEdges.map { (UInt32($0), PictureIndex.box(graph.geometry(of: $0))) })
        featureCount = basemap?.featureCount ?? 0
        if let basemap {
            featureCells = Cells(
                (0..<basemap.featureCount).map { f in (UInt32(f), PictureIndex.box(basemap.parts(of: f).joined())) })
        } else {
            featureCells = Cells([])
        }
    }

    /// One directed edge per road piece, in the graph's order (the first that runs along it).
    static func edgePerSegment(_ graph: RoadGraph) -> [Int] {
        var drawn = [Bool](repeating: false, count: graph.segmentCount)
        var edges: [Int] = []
        edges.reserveCapacity(graph.segmentCount)
        for v in 0..<UInt32(graph.nodeCount) {
            for e in graph.edges(from: v) where !drawn[graph.segment(of: e)] {
                drawn[graph.segment(of: e)] = true
                edges.append(e)
            }
        }
        return edges
    }

    /// The view's box in cells, or nil for a view that crosses 180° or spans too much.
    private static func cells(_ view: BoundingBox, margin: Double) -> (Int, Int, Int, Int)? {
        guard view.west <= view.east else { return nil }
        let mercator = WebMercator.tiles256
        let x0 = mercator.x(longitude: view.west) - margin, x1 = mercator.x(longitude: view.east) + margin
        let y0 = mercator.y(latitude: view.north) - margin, y1 = mercator.y(latitude: view.south) + margin
        return (cell(x0), cell(y0), cell(x1), cell(y1))
    }

    /// The edges (one per road piece) whose shapes may show in the view, in the graph's order;
    /// `margin` widens the view, in zoom-0 map units.
    func edges(in view: BoundingBox, margin: Double) -> [Int] {
        guard let (x0, y0, x1, y1) = PictureIndex.cells(view, margin: margin),
            let found = edgeCells.items(x0: x0, y0: y0, x1: x1, y1: y1)
        else {
            return allEdges
        }
        return found
    }

    /// The basemap features that may show in the view, in the basemap's order.
    func features(in view: BoundingBox, margin: Double) -> [Int] {
        guard let (x0, y0, x1, y1) = PictureIndex.cells(view, margin: margin),
            let found = featureCells.items(x0: x0, y0: y0, x1: x1, y1: y1)
        else {
            return Array(0..<featureCount)
        }
        return found
    }
}
