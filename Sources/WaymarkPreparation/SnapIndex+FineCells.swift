import WaymarkGeo
import WaymarkGraph

/// The pieces again in cells of ``cellSize`` metres, for the small circles map matching asks
/// about at every fix (three times the GPS noise: 15 m at 5 m): a 200 m cell of a city holds
/// hundreds of pieces, one of these a few. Each entry names its segment and place along it, so a
/// query looks no piece number up. Made at the first such query (held by the index), not
/// stored: a map that matches no trace never pays for it.
///
/// Layout: sorted cell keys (``SnapIndex/key(_:_:)``); the entries of cell k at
/// `start[k]..<start[k + 1]` of `segment` and `index`, in piece order. (A class: each query
/// takes it from where the index holds it, and a struct would be copied, its arrays retained.)
final class FineCells: Sendable {
    static let cellSize = 50.0
    let keys: [Int64]
    let start: [UInt32]
    let segment: [UInt32]
    let index: [UInt32]

    /// The cells of every piece of `index`'s segments, as the index's own cells are made: a short
    /// piece in the cells of its bounding box, a long one in those of points a quarter cell apart.
    init(_ index: SnapIndex, graph: RoadGraph, lonScale: Double, latScale: Double) {
        var entries: [(key: Int64, piece: UInt32)] = []
        var place: [(segment: UInt32, index: UInt32)] = []
        var shape: [Coordinate] = []
        for s in 0..<graph.segmentCount where index.segmentStart[s] != RoadGraph.invalid {
            SnapIndex.shape(graph, s, index.segmentStart[s], index.segmentEnd[s], into: &shape)
            for i in 0..<(shape.count - 1) {
                let number = UInt32(place.count)
                place.append((UInt32(s), UInt32(i)))
                SnapIndex.forEachCell(ofPiece: shape[i], shape[i + 1], cellSize: Self.cellSize, lonScale: lonScale,
                                      latScale: latScale) { entries.append(($0, number)) }
            }
        }
        (keys, start) = SnapIndex.cells(&entries)
        segment = entries.map { place[Int($0.piece)].segment }
        self.index = entries.map { place[Int($0.piece)].index }
    }

    /// The entries of the cell at (`x`, `y`), if it has any.
    func entries(_ x: Int64, _ y: Int64) -> Range<Int>? {
        let key = SnapIndex.key(x, y)
        var low = 0, high = keys.count
        while low < high {
            let mid = (low + high) / 2
            if keys[mid] < key { low = mid + 1 } else { high = mid }
        }
        guard low < keys.count && keys[low] == key else { return nil }
        return Int(start[low])..<Int(start[low + 1])
    }
}
