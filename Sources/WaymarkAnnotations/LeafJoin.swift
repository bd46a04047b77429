/// A first test of every pair of one leaf's items, made once a pair: for the neighbour queries
/// whose circles lie inside the leaf's region (nearly all of them at high zooms), each of which
/// would otherwise test the whole leaf itself. The first test is a circle in `Float` a little wider
/// than the query's (its rounding is far below the margin: it lets through every item the exact
/// test takes) and symmetric (a difference of `Float`s changes only its sign when the pair is
/// swapped). Each query's candidates then get the exact test in slot order: its list is the one a
/// scan of the leaf gives.
///
/// Layout: the leaf's x and y apart (eight of a kind in one load), and two 64-bit words per item
/// of the leaf (at most ``maxItems``), bit j of item i's words set when item j passes the first
/// test around item i (itself not marked).
final class LeafJoin {
    static let maxItems = 128
    private let masks = UnsafeMutablePointer<UInt64>.allocate(capacity: 2 * LeafJoin.maxItems)
    /// The leaf's x and y, and room for the eight values the last loads read past them.
    private let xs = UnsafeMutablePointer<Float>.allocate(capacity: LeafJoin.maxItems + 8)
    private let ys = UnsafeMutablePointer<Float>.allocate(capacity: LeafJoin.maxItems + 8)
    /// The leaf joined and its slots.
    private var left = 0, right = -1

    init() {
        xs.initialize(repeating: 0, count: LeafJoin.maxItems + 8)
        ys.initialize(repeating: 0, count: LeafJoin.maxItems + 8)
    }

    deinit {
        masks.deallocate(); xs.deallocate(); ys.deallocate()
    }

    /// Tests every pair of the leaf's slots `left...right` (at most ``maxItems``) with the circle
    /// of radius `reach` (as ``KDTree``'s leaf scan builds its own).
    func join(left: Int, right: Int, coords: UnsafeBufferPointer<Float>, reach: Float) {
        precondition(right - left < LeafJoin.maxItems)
        self.left = left
        self.right = right
        let count = right - left + 1, masks = masks, xs = xs, ys = ys
        masks.update(repeating: 0, count: 2 * count)
        for k in 0..<count { (xs[k], ys[k]) = (coords[2 * (left + k)], coords[2 * (left + k) + 1]) }
        let reach2 = SIMD8<Float>(repeating: reach * reach), lanes = SIMD8<Int32>(0, 1, 2, 3, 4, 5, 6, 7)
        let xRaw = UnsafeRawPointer(xs), yRaw = UnsafeRawPointer(ys)
        for row in 0..<(count - 1) {
            let x0 = SIMD8<Float>(repeating: xs[row]), y0 = SIMD8<Float>(repeating: ys[row])
            var column = row &+ 1
            while column < count {
                let dx = xRaw.loadUnaligned(fromByteOffset: 4 &* column, as: SIMD8<Float>.self) - x0
                let dy = yRaw.loadUnaligned(fromByteOffset: 4 &* column, as: SIMD8<Float>.self) - y0
                var near = dx * dx + dy * dy .<= reach2
                if column &+ 8 > count {
                    near = near .& (lanes .< SIMD8<Int32>(repeating: Int32(truncatingIfNeeded: count &- column)))
                }
                var bits = LeafJoin.laneBits(near)
                if bits != 0 {
                    masks[2 * row + (column >> 6)] |= bits << UInt64(column & 63)
                    if column < 64 && column > 56 { masks[2 * row + 1] |= bits >> UInt64(64 - column) }
                    // The pair seen from the other side.
                    while bits != 0 {
                        let other = column + bits.trailingZeroBitCount
                        bits &= bits - 1
                        masks[2 * other + (row >> 6)] |= 1 << UInt64(row & 63)
                    }
                }
                column &+= 8
            }
        }
    }

    /// The joined leaf's items within √r2 of (qx, qy), the query of the leaf's slot `slot`, in slot
    /// order, appended to `results` from `start`; returns the new count.
    func appendWithin(slot: Int, _ qx: Double, _ qy: Double, _ r2: Double, coords: UnsafeBufferPointer<Float>,
                      ids: UnsafeBufferPointer<UInt32>, into results: UnsafeMutablePointer<Int32>,
                      at start: Int) -> Int {
        let row = slot - left
        var found = start
        for word in 0...((right - left) >> 6) {
            var bits = masks[2 * row + word]
            if word == row >> 6 { bits |= 1 << UInt64(row & 63) }
            while bits != 0 {
                let t = left + 64 * word + bits.trailingZeroBitCount
                bits &= bits - 1
                let dx = Double(coords[2 * t]) - qx, dy = Double(coords[2 * t + 1]) - qy
                if dx * dx + dy * dy <= r2 {
                    results[found] = Int32(bitPattern: ids[t])
                    found += 1
                }
            }
        }
        return found
    }

    /// Lane k of `mask` as bit k: the lanes packed to bytes, each byte's top bit gathered by one
    /// multiplication.
    @inline(__always)
    static func laneBits(_ mask: SIMDMask<SIMD8<Int32>>) -> UInt64 {
        ((KDTree.laneBytes(mask) & 0x8080_8080_8080_8080) &* 0x0002_0408_1020_4081) >> 56
    }
}
