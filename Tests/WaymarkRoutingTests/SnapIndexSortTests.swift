import Testing
import WaymarkSupport
@testable import WaymarkPreparation
@testable import WaymarkQueries
@testable import WaymarkGuidance
@testable import WaymarkRouting

/// The snap index's cell sort (a radix sort) against the standard library's stable sort, on
/// keys of every sign and spread, and many equal keys.
@Suite struct SnapIndexSortTests {
    @Test(arguments: [1, 2, 3]) func radixSortIsAStableSortByKey(seed: Int) {
        var rng = SplitMix64(seed: UInt64(seed))
        var entries: [(key: Int64, piece: UInt32)] = []
        for piece in 0..<5_000 {
            // Cell keys as the index makes them (x << 32 ^ y), near and far, negative and positive;
            // a fifth repeat an earlier key (pieces sharing a cell).
            let key: Int64
            if !entries.isEmpty && rng.next() % 5 == 0 {
                key = entries[Int(rng.next() % UInt64(entries.count))].key
            } else {
                let x = Int64(bitPattern: rng.next()) >> (1 + rng.next() % 62),
                    y = Int64(bitPattern: rng.next()) >> (1 + rng.next() % 62)
                key = (x << 32) ^ (y & 0xFFFF_FFFF)
            }
            entries.append((key, UInt32(piece)))
        }
        let sorted = SnapIndex.sortedByKey(entries)
        let expected = entries.enumerated().sorted { ($0.element.key, $0.offset) < ($1.element.key, $1.offset) }.map(
            \.element)
        #expect(sorted.map(\.key) == expected.map(\.key))
        #expect(sorted.map(\.piece) == expected.map(\.piece))
        #expect(SnapIndex.sortedByKey([]).isEmpty)
        #expect(SnapIndex.sortedByKey([(7, 1)]).map(\.piece) == [1])
        // All keys sharing their upper digits (every pass but the lowest skipped).
        let small = (0..<100).map { (key: Int64(($0 * 37) % 11), piece: UInt32($0)) }
        #expect(
            SnapIndex.sortedByKey(small).map(\.piece)
                == small.enumerated().sorted { ($0.element.key, $0.offset) < ($1.element.key, $1.offset) }.map(
                    \.element.piece))
    }
}
