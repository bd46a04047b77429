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

    /// Every item's neighbour list, made at once (a query inside its own leaf's region scanning
    /// that leaf alone), equals the search from the root for that item: same items, same order.
    /// Points on a coarse grid (many on the splits' lines, many alike) and uniform ones, radii
    /// from far below the spacing to wider than a leaf.
    @Test func neighbourListsEqualTheSearchFromTheRoot() {
        var rng = SplitMix64(seed: 48)
        let n = 8_000
        var x: [Double] = [], y: [Double] = []
        for i in 0..<n {
            if i % 2 == 0 {
                x.append(Double(Int(rng.uniform(0, 64))) / 64)
                y.append(Double(Int(rng.uniform(0, 64))) / 64)
            } else {
                x.append(rng.uniform(0, 1))
                y.append(rng.uniform(0, 1))
            }
        }
        let tree = KDTree(x: x, y: y, nodeSize: 16)
        let workspace = NeighborWorkspace(capacity: n, parts: 2), scratch = KDTree.Scratch(capacity: n)
        for r in [1e-7, 1.0 / 64, 0.003, 0.02, 0.08] {
            tree.allWithin(radius: r, x: x, y: y, workspace: workspace)
            var differing = 0
            workspace.withLists { lists in
                for i in 0..<n {
                    let found = tree.within(x[i], y[i], r, into: scratch)
                    let at = workspace.found[i], from = Int(at.start), count = Int(at.length)
                    let list = lists[Int(at.part)][from..<(from + count)]
                    if count != found || !zip(list, 0..<found).allSatisfy({ $0 == scratch.results[$1] }) {
                        differing += 1
                    }
                }
            }
            #expect(differing == 0, "radius \(r)")
        }
    }

    /// A copy of a tree shares its storage (a level where nothing merged keeps the tree above,
    /// and the index's memory counts it once); a tree built again from the same points does not.
    @Test func aCopySharesTheTreesStorage() {
        let x = [0.1, 0.5, 0.9], y = [0.2, 0.6, 0.3]
        let tree = KDTree(x: x, y: y, nodeSize: 2), copy = tree
        #expect(copy.sharesStorage(with: tree))
        #expect(!KDTree(x: x, y: y, nodeSize: 2).sharesStorage(with: tree))
        #expect(!KDTree(x: [], y: [], nodeSize: 2).sharesStorage(with: KDTree(x: [], y: [], nodeSize: 2)))
    }
}
