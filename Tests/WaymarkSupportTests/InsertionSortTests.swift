import Testing
import WaymarkSupport

/// The insertion sort against the standard sort made stable by position, on arrays with many
/// equal keys, whole and as slices (fixed seed).
@Suite struct InsertionSortTests {
    @Test func sortsStablyAsTheStandardSortByKeyThenPosition() {
        var generator = SplitMix64(seed: 21)
        for _ in 0..<500 {
            let count = Int(generator.next() % 12)
            let items = (0..<count).map { (key: Int(generator.next() % 4), id: $0) }
            var sorted = items
            sorted.insertionSort { $0.key < $1.key }
            let expected = items.sorted { ($0.key, $0.id) < ($1.key, $1.id) }
            #expect(sorted.map(\.id) == expected.map(\.id))
            // Sorting the part after the first element leaves the first where it is.
            guard count > 1 else { continue }
            var tail = items
            tail[1...].insertionSort { $0.key < $1.key }
            let rest = items[1...].sorted { ($0.key, $0.id) < ($1.key, $1.id) }
            #expect(tail[0].id == 0 && tail[1...].map(\.id) == rest.map(\.id))
        }
    }
}
