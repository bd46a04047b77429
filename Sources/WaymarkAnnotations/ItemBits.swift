/// One bit an item over raw words: the clustering's marks (a bitset stays in cache where a byte or
/// a record an item, read or written at random, did not).
struct ItemBits {
    let words: UnsafeMutablePointer<UInt64>

    @inline(__always) func contains(_ i: Int) -> Bool { words[i >> 6] & (1 << UInt64(i & 63)) != 0 }
    @inline(__always) func insert(_ i: Int) { words[i >> 6] |= 1 << UInt64(i & 63) }
    @inline(__always) func remove(_ i: Int) { words[i >> 6] &= ~(1 << UInt64(i & 63)) }

    /// How many words `count` items take.
    @inline(__always) static func wordCount(_ count: Int) -> Int { (count + 63) / 64 }

    /// The bits of word `w` that stand for items below `count`.
    @inline(__always) static func valid(word w: Int, of count: Int) -> UInt64 {
        w < count >> 6 ? ~0 : (1 << UInt64(count & 63)) &- 1
    }
}
