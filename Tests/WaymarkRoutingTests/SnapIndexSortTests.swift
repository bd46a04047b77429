import Testing
import WaymarkGeo
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

/// The small cells map matching's circles use find what the index's own cells find: every road
/// within the radius, each at the same distance (random graphs with long pieces, fixed seeds).
@Suite struct FineCellTests {
    @Test(arguments: [1, 2, 3, 4]) func smallCirclesFindWhatTheWholeIndexFinds(seed: Int) {
        let g = randomGraph(seed: UInt64(seed), nodes: 120, ways: 200)
        let index = SnapIndex(graph: g)
        var rng = SplitMix64(seed: UInt64(300 + seed))
        var found = 0
        for _ in 0..<300 {
            let c = Coordinate(latitude: 52 + rng.uniform(0, 0.02), longitude: 13 + rng.uniform(0, 0.03))
            let wide = index.nearest(to: c, maxDistance: 150, count: .max, filter: SnapFilter(anyRoad: true))
            for radius in [3.0, 15, 40, 99] {
                let small = index.nearest(to: c, maxDistance: radius, count: .max, filter: SnapFilter(anyRoad: true))
                // (The radius is measured on the index's plane, a snap's distance on the globe: a
                // road right at the edge may fall either side.)
                let inside = wide.filter { $0.distance <= radius * 0.999 }.map(\.segment)
                #expect(Set(inside).isSubset(of: Set(small.map(\.segment))), "seed \(seed), \(radius) m")
                for snap in small {
                    let other = wide.first { $0.segment == snap.segment }
                    #expect(other.map { abs($0.distance - snap.distance) < 1e-6 } ?? false, "seed \(seed)")
                    #expect(snap.distance <= radius * 1.001)
                }
                found += small.count
            }
        }
        #expect(found > 100)
    }
}
