import Foundation
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
                    if workspace.isAlone(i) {
                        if found != 1 || scratch.results[0] != Int32(i) { differing += 1 }
                        continue
                    }
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

    /// The tree's arrangement (which item sits in which slot: queries list items in that order,
    /// and supercluster's cluster ids and centroids follow it) equals KDBush's sort done slot by
    /// slot, for uniform points, points on a coarse grid (many equal values, many on the splits)
    /// and a mix, at several leaf sizes and counts around the selection's sampling threshold.
    @Test func theArrangementIsKDBushs() {
        var rng = SplitMix64(seed: 49)
        for (n, nodeSize) in [(700, 16), (5_000, 64), (20_000, 8), (60_000, 64)] {
            for kind in 0..<3 {
                var x: [Double] = [], y: [Double] = []
                for i in 0..<n {
                    if kind == 1 || (kind == 2 && i % 3 == 0) {
                        x.append(Double(Int(rng.uniform(0, 32))) / 32)
                        y.append(Double(Int(rng.uniform(0, 32))) / 32)
                    } else {
                        x.append(rng.uniform(0, 1))
                        y.append(rng.uniform(0, 1))
                    }
                }
                let tree = KDTree(x: x, y: y, nodeSize: nodeSize)
                var reference = ReferenceKDSort(x: x, y: y)
                reference.sort(nodeSize, 0, n - 1, 0)
                let same = tree.ids == reference.ids && tree.coords == reference.coords
                #expect(same, "\(n) points of kind \(kind), leaves of \(nodeSize)")
            }
        }
    }
}

/// KDBush 4's sort written plainly (one slot at a time, arrays, no threads): the oracle for the
/// tree's arrangement.
private struct ReferenceKDSort {
    var ids: [UInt32], coords: [Float]

    init(x: [Double], y: [Double]) {
        ids = (0..<x.count).map { UInt32($0) }
        coords = zip(x, y).flatMap { [Float($0), Float($1)] }
    }

    mutating func sort(_ nodeSize: Int, _ left: Int, _ right: Int, _ axis: Int) {
        if right - left <= nodeSize { return }
        let m = (left + right) >> 1
        select(m, left, right, axis)
        sort(nodeSize, left, m - 1, 1 - axis)
        sort(nodeSize, m + 1, right, 1 - axis)
    }

    mutating func select(_ k: Int, _ leftStart: Int, _ rightStart: Int, _ axis: Int) {
        var left = leftStart, right = rightStart
        while right > left {
            if right - left > 600 {
                let n = Double(right - left + 1), m = Double(k - left + 1), z = log(n)
                let s = 0.5 * exp(2 * z / 3)
                let sd = 0.5 * (z * s * (n - s) / n).squareRoot() * (m - n / 2 < 0 ? -1 : 1)
                select(k, max(left, Int((Double(k) - m * s / n + sd).rounded(.down))),
                       min(right, Int((Double(k) + (n - m) * s / n + sd).rounded(.down))), axis)
            }
            let t = coords[2 * k + axis]
            var i = left, j = right
            swap(left, k)
            if coords[2 * right + axis] > t { swap(left, right) }
            while i < j {
                swap(i, j)
                i += 1
                j -= 1
                while coords[2 * i + axis] < t { i += 1 }
                while coords[2 * j + axis] > t { j -= 1 }
            }
            if coords[2 * left + axis] == t {
                swap(left, j)
            } else {
                j += 1
                swap(j, right)
            }
            if j <= k { left = j + 1 }
            if k <= j { right = j - 1 }
        }
    }

    mutating func swap(_ i: Int, _ j: Int) {
        ids.swapAt(i, j)
        coords.swapAt(2 * i, 2 * j)
        coords.swapAt(2 * i + 1, 2 * j + 1)
    }
}
