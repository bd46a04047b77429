/// The box test of every pair of one leaf's items, made once a pair: for the neighbour queries
/// whose circles lie inside the leaf's region (nearly all of them at high zooms), each of which
/// would otherwise test the whole leaf itself. The box test is symmetric (a difference of `Float`s
/// changes only its sign when the pair is swapped), so an item's candidates are the same as its
/// own scan of the leaf would let through; each then gets the same exact test in slot order, and
/// its list is the scan's.
///
/// Layout: two 64-bit words per item of the leaf (at most ``maxItems``), bit j of item i's words
/// set when item j passes the box test around item i (itself not marked).
struct LeafJoin {
    static let maxItems = 128
    private let masks: UnsafeMutablePointer<UInt64>
    /// The leaf joined (−1: none yet) and its slots.
    private(set) var leaf = -1
    private var left = 0, right = -1

    /// Works in `masks`, room for `2 * maxItems` words owned by the caller.
    init(masks: UnsafeMutablePointer<UInt64>) {
        self.masks = masks
    }

    /// Tests every pair of the leaf's slots `left...right` (at most ``maxItems``, and eight slots
    /// or more before the tree's end: the tests read eight slots at a time) with the box of
    /// half-width `reach` (as ``KDTree``'s leaf scan builds it).
    mutating func join(leaf: Int, left: Int, right: Int, coords: UnsafeBufferPointer<Float>, reach: Float) {
        precondition(right - left < LeafJoin.maxItems && right + 8 <= coords.count / 2)
        self.leaf = leaf
        self.left = left
        self.right = right
        masks.update(repeating: 0, count: 2 * (right - left + 1))
        let base = UnsafeRawPointer(coords.baseAddress!)
        let reach = SIMD8<Float>(repeating: reach), lanes = SIMD8<Int32>(0, 1, 2, 3, 4, 5, 6, 7)
        for s in left..<right {
            let x0 = SIMD8<Float>(repeating: coords[2 * s]), y0 = SIMD8<Float>(repeating: coords[2 * s + 1])
            let row = s - left
            var t = s &+ 1
            while t <= right {
                let pairs = base.loadUnaligned(fromByteOffset: 8 &* t, as: SIMD16<Float>.self)
                let dx = pairs.evenHalf - x0, dy = pairs.oddHalf - y0
                var near = (dx .<= reach) .& (dx .>= -reach) .& (dy .<= reach) .& (dy .>= -reach)
                if t &+ 7 > right {
                    near = near .& (lanes .<= SIMD8<Int32>(repeating: Int32(truncatingIfNeeded: right &- t)))
                }
                var bits = LeafJoin.laneBits(near)
                if bits != 0 {
                    let column = t - left
                    masks[2 * row + (column >> 6)] |= bits << UInt64(column & 63)
                    if column < 64 && column > 56 { masks[2 * row + 1] |= bits >> UInt64(64 - column) }
                    // The pair seen from the other side.
                    while bits != 0 {
                        let other = column + bits.trailingZeroBitCount
                        bits &= bits - 1
                        masks[2 * other + (row >> 6)] |= 1 << UInt64(row & 63)
                    }
                }
                t &+= 8
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
