import Testing
import WaymarkSupport
@testable import WaymarkAnnotations

@Suite struct KDTreeTests {
    /// A box query opened into pieces (searched side by side on a large answer) lists the same
    /// slots in the same order as the one search over the whole tree, and exactly the points a
    /// scan of all of them finds inside the box.
    @Test func piecesKeepTheTraversalOrder() {
        var rng = SplitMix64(seed: 47)
        let n = 80_000
        let x = (0..<n).map { _ in rng.uniform(0, 1) }, y = (0..<n).map { _ in rng.uniform(0, 1) }
        let tree = KDTree(x: x, y: y, nodeSize: 64)
        for _ in 0..<40 {
            let (x0, x1) = (rng.uniform(-0.1, 1), rng.uniform(-0.1, 1.1))
            let (y0, y1) = (rng.uniform(-0.1, 1), rng.uniform(0, 1.1))
            let box = KDTree.Box(minX: min(x0, x1), minY: min(y0, y1), maxX: max(x0, x1), maxY: max(y0, y1))
            let whole = tree.slots(of: tree.rangePieces(box, depth: 0)[...], in: box)
            for depth in [1, 4, 6] {
                let pieces = tree.rangePieces(box, depth: depth)
                // (Compared first: a failure prints the verdict, not two lists of thousands.)
                let joined = tree.slots(of: pieces[...], in: box) == whole
                let half = pieces.count / 2
                let first = tree.slots(of: pieces[..<half], in: box), second = tree.slots(of: pieces[half...], in: box)
                let twoRuns = first + second == whole
                #expect(joined, "depth \(depth)")
                #expect(twoRuns, "depth \(depth)")
            }
            let inside = (0..<n).filter {
                let (px, py) = (Double(Float(x[$0])), Double(Float(y[$0])))
                return px >= box.minX && px <= box.maxX && py >= box.minY && py <= box.maxY
            }
            let found = whole.map { tree.item(inSlot: Int($0)) }.sorted() == inside
            #expect(found)
        }
    }
}
