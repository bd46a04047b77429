import Foundation
import WaymarkGeo
import WaymarkGraph

/// The map's vertices by square cells of a local plane, for finding every vertex within a
/// distance of a point (the isochrone's restricted sweep); and the fastest any edge is driven
/// (metres per second of travel time), which bounds how far a time can reach. Made once per map,
/// at the first isochrone that needs it, in linear time.
@usableFromInline package struct VertexGrid: Sendable {
    /// Cell side in metres.
    let cellSize: Double
    /// The plane: metres per degree of longitude and latitude, and the grid's south-west corner.
    let metresPerDegreeLon: Double, metresPerDegreeLat: Double
    let west: Double, south: Double
    let columns: Int, rows: Int
    /// Vertices of cell (column, row) at `vertices[cellStart[row * columns + column]..<cellStart[… + 1]]`.
    let cellStart: [UInt32]
    let vertices: [UInt32]
    /// The fastest edge's speed by travel time (metres per second), at least 1.
    @usableFromInline package let fastest: Double

    /// `cellSize` in metres, larger where the map would need more than a cell per vertex or
    /// four million cells.
    @usableFromInline package init(graph: RoadGraph, bounds: BoundingBox, cellSize: Double = 1000) {
        // East–west metres per degree at the latitude farthest from the equator, so that distances
        // in the plane are never longer than on the ground: a circle in the plane holds every
        // vertex within its radius on the ground.
        let farthest = max(abs(bounds.north), abs(bounds.south))
        metresPerDegreeLat = 111_195
        metresPerDegreeLon = max(1, 111_195 * cos(farthest * .pi / 180))
        let area = bounds.longitudeSpan * metresPerDegreeLon * bounds.latitudeSpan * metresPerDegreeLat
        let cellSize = max(cellSize, (area / Double(max(1024, min(graph.nodeCount, 4_000_000)))).squareRoot())
        self.cellSize = cellSize
        west = bounds.west
        south = bounds.south
        // (A map across the antimeridian is measured from its west edge round to its east edge.)
        columns = max(1, Int((bounds.longitudeSpan * metresPerDegreeLon / cellSize).rounded(.up)) + 1)
        rows = max(1, Int((bounds.latitudeSpan * metresPerDegreeLat / cellSize).rounded(.up)) + 1)
        let n = graph.nodeCount
        var cell = [UInt32](repeating: 0, count: n)
        var count = [UInt32](repeating: 0, count: columns * rows + 1)
        for v in 0..<n {
            let c = graph.coordinate(of: UInt32(v))
            let k = VertexGrid.cell(c, west: west, south: south, lon: metresPerDegreeLon, lat: metresPerDegreeLat,
                                    size: cellSize, columns: columns, rows: rows)
            cell[v] = UInt32(k)
            count[k + 1] += 1
        }
        for k in 1..<count.count { count[k] += count[k - 1] }
        cellStart = count
        var next = count, placed = [UInt32](repeating: 0, count: n)
        for v in 0..<n {
            placed[Int(next[Int(cell[v])])] = UInt32(v)
            next[Int(cell[v])] += 1
        }
        vertices = placed
        var fastest = 1.0
        for e in 0..<graph.edgeCount where graph.edgeDuration[e] > 0 {
            fastest = max(fastest, Double(graph.edgeLength[e]) / Double(graph.edgeDuration[e]))
        }
        self.fastest = fastest
    }

    private static func cell(_ c: Coordinate, west: Double, south: Double, lon: Double, lat: Double,
                             size: Double, columns: Int, rows: Int) -> Int {
        var dLon = c.longitude - west
        if dLon < 0 { dLon += 360 }
        let x = min(columns - 1, max(0, Int(dLon * lon / size))),
            y = min(rows - 1, max(0, Int((c.latitude - south) * lat / size)))
        return y * columns + x
    }

    /// Calls `body` with the vertices of each cell within `radius` metres of `c` in the grid's
    /// plane: every vertex within the radius on the ground, and some beyond it.
    @usableFromInline package func forEachCell(near c: Coordinate, within radius: Double,
                                               _ body: (ArraySlice<UInt32>) -> Void) {
        var dLon = c.longitude - west
        if dLon < -180 { dLon += 360 }
        let x = dLon * metresPerDegreeLon, y = (c.latitude - south) * metresPerDegreeLat
        // Clamped before the conversion: a huge radius (a map with an absurdly fast edge) must not
        // overflow an Int.
        func index(_ metres: Double, _ count: Int) -> Int {
            Int(min(Double(count - 1), max(-1, (metres / cellSize).rounded(.down))))
        }
        guard radius >= 0 else { return }
        let x0 = max(0, index(x - radius, columns)), x1 = index(x + radius, columns)
        let y0 = max(0, index(y - radius, rows)), y1 = index(y + radius, rows)
        guard x0 <= x1 && y0 <= y1 else { return }
        for row in y0...y1 {
            // Cells whose nearest point is beyond the radius are left out.
            let dy = max(0, max(Double(row) * cellSize - y, y - Double(row + 1) * cellSize))
            for column in x0...x1 {
                let dx = max(0, max(Double(column) * cellSize - x, x - Double(column + 1) * cellSize))
                if dx * dx + dy * dy > radius * radius { continue }
                let k = row * columns + column
                body(vertices[Int(cellStart[k])..<Int(cellStart[k + 1])])
            }
        }
    }
}
