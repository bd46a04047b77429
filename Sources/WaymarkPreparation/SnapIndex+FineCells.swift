import WaymarkGeo
import WaymarkGraph

/// The pieces again in cells of ``cellSize`` metres, for the small circles map matching asks
/// about at every fix (three times the GPS noise: 15 m at 5 m): a 200 m cell of a city holds
/// hundreds of pieces, one of these a few. Each entry names its segment and place along it and
/// holds the piece's two points as the graph stores them, so a query measures a cell's pieces
/// from one run of memory, not from the graph's columns (a fix's time went to waiting on those
/// reads). Made at the first such query (held by the index), not stored: a map that matches no
/// trace never pays for it.
///
/// Layout: `entries` sorted by cell, each cell's in piece order; `slots`, a hash table by cell
/// key (``SnapIndex/key(_:_:)``, linear probing, at most half full), gives a cell's run of
/// entries in one read where a binary search over the keys waited on several.
final class FineCells: Sendable {
    static let cellSize = 50.0

    struct Entry {
        var segment: UInt32
        var index: UInt32
        var a: FixedPoint.Pair
        var b: FixedPoint.Pair
    }

    struct Slot {
        var key: Int64
        var start: UInt32
        var end: UInt32
    }

    let entries: [Entry]
    private let slots: [Slot]
    /// The bits of a key's hash that pick its slot (the top ones: Fibonacci hashing).
    private let shift: UInt64

    /// The cells of every piece of `index`'s segments, as the index's own cells are made: a short
    /// piece in the cells of its bounding box, a long one in those of points a quarter cell apart.
    init(_ index: SnapIndex, graph: RoadGraph, lonScale: Double, latScale: Double) {
        var listed: [(key: Int64, piece: UInt32)] = []
        var place: [(segment: UInt32, index: UInt32)] = []
        var shape: [Coordinate] = []
        for s in 0..<graph.segmentCount where index.segmentStart[s] != RoadGraph.invalid {
            SnapIndex.shape(graph, s, index.segmentStart[s], index.segmentEnd[s], into: &shape)
            for i in 0..<(shape.count - 1) {
                let number = UInt32(place.count)
                place.append((UInt32(s), UInt32(i)))
                SnapIndex.forEachCell(ofPiece: shape[i], shape[i + 1], cellSize: Self.cellSize, lonScale: lonScale,
                                      latScale: latScale) { listed.append(($0, number)) }
            }
        }
        let (keys, start) = SnapIndex.cells(&listed)
        entries = listed.map { entry in
            let (s, i) = place[Int(entry.piece)]
            let (a, b) = index.fixedEndpoints(Int(s), Int(i))
            return Entry(segment: s, index: i, a: a, b: b)
        }
        var bits: UInt64 = 4
        while 1 << bits < 2 * keys.count { bits += 1 }
        shift = 64 - bits
        let mask = (1 << Int(bits)) - 1
        var slots = [Slot](repeating: Slot(key: 0, start: 0, end: 0), count: mask + 1)
        for (k, key) in keys.enumerated() {
            var h = FineCells.slot(key, shift)
            while slots[h].end > slots[h].start { h = (h + 1) & mask }
            slots[h] = Slot(key: key, start: start[k], end: start[k + 1])
        }
        self.slots = slots
    }

    private static func slot(_ key: Int64, _ shift: UInt64) -> Int {
        Int(truncatingIfNeeded: (UInt64(bitPattern: key) &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    /// The entries of the cell at (`x`, `y`), if it has any.
    func cell(_ x: Int64, _ y: Int64) -> Range<Int>? {
        let key = SnapIndex.key(x, y), mask = slots.count - 1
        var h = FineCells.slot(key, shift)
        // (A listed cell has at least one entry: an empty slot ends the probe.)
        while slots[h].end > slots[h].start {
            if slots[h].key == key { return Int(slots[h].start)..<Int(slots[h].end) }
            h = (h + 1) & mask
        }
        return nil
    }
}

extension FixedPoint {
    /// A point as the graph stores it (``FixedPoint``: latitude and longitude each).
    struct Pair {
        var latitude: Int32
        var longitude: Int32

        init(latitude: Int32, longitude: Int32) {
            self.latitude = latitude
            self.longitude = longitude
        }

        init(vertex v: UInt32, of graph: borrowing RoadGraph) {
            self.init(latitude: graph.latitudes[Int(v)], longitude: graph.longitudes[Int(v)])
        }

        /// The point in degrees, decoded as ``RoadGraph/coordinate(of:)`` decodes it.
        var coordinate: Coordinate {
            Coordinate(latitude: FixedPoint.decode(latitude), longitude: FixedPoint.decode(longitude))
        }
    }
}
