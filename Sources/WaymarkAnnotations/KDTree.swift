import Dispatch
import Foundation

/// Buffers for computing every item's neighbour list, allocated once per index build and reused
/// for each level (allocating them per level made the kernel zero fresh pages every time).
/// An item whose list holds itself and nothing else (the usual answer at high zooms) is only
/// marked ``isAlone(_:)``; any other item i's list is
/// `lists[found[i].part][found[i].start ..< found[i].start + found[i].length]`.
final class NeighborWorkspace: @unchecked Sendable {
    let capacity: Int
    let parts: Int
    /// Where each item's list is (one record: the query writes it with one store); not written for
    /// an item alone.
    let found: UnsafeMutablePointer<Found>
    /// Bit i: item i is alone. Each part marks its items in a bitset of its own (small enough to
    /// stay in cache where the items' records, written at random, did not), merged after.
    let aloneBits: UnsafeMutablePointer<UInt64>
    let words: Int
    /// The query points by kd-sorted slot, gathered before the queries (read in turn by them).
    let queryX: UnsafeMutablePointer<Double>, queryY: UnsafeMutablePointer<Double>
    let scratch: [KDTree.Scratch]

    struct Found {
        var start: Int32
        var length: Int32
        var part: Int32
    }
    /// One growing list per part, raw (queries write their finds straight into it); each part's
    /// thread alone touches its own.
    let lists: UnsafeMutablePointer<List>

    struct List {
        var base: UnsafeMutablePointer<Int32>
        var count = 0
        var capacity: Int

        init(capacity: Int) {
            self.capacity = capacity
            base = .allocate(capacity: capacity)
        }

        /// Room for `more` after the list's end (the storage doubled as needed).
        @inline(__always) mutating func reserve(_ more: Int) {
            if count + more > capacity { grow(count + more) }
        }

        @inline(never) private mutating func grow(_ needed: Int) {
            let bigger = UnsafeMutablePointer<Int32>.allocate(capacity: max(needed, 2 * capacity))
            bigger.update(from: base, count: count)
            base.deallocate()
            base = bigger
            capacity = max(needed, 2 * capacity)
        }
    }

    init(capacity: Int, parts: Int) {
        self.capacity = max(capacity, 1)
        self.parts = max(1, min(parts, 8))
        found = .allocate(capacity: self.capacity)
        words = ItemBits.wordCount(self.capacity)
        aloneBits = .allocate(capacity: words * self.parts)
        queryX = .allocate(capacity: self.capacity)
        queryY = .allocate(capacity: self.capacity)
        scratch = (0..<self.parts).map { _ in KDTree.Scratch(capacity: capacity) }
        lists = .allocate(capacity: self.parts)
        for p in 0..<self.parts { (lists + p).initialize(to: List(capacity: 1024)) }
    }

    deinit {
        found.deallocate()
        aloneBits.deallocate()
        queryX.deallocate()
        queryY.deallocate()
        for p in 0..<parts { lists[p].base.deallocate() }
        lists.deallocate()
    }

    /// Whether item i's list holds itself alone (after ``KDTree/allWithin(radius:x:y:workspace:)``).
    @inline(__always) func isAlone(_ i: Int) -> Bool { ItemBits(words: aloneBits).contains(i) }

    /// Calls `body` with every part's list storage.
    func withLists<R>(_ body: ([UnsafeBufferPointer<Int32>]) -> R) -> R {
        body((0..<parts).map { UnsafeBufferPointer(start: lists[$0].base, count: lists[$0].count) })
    }
}

/// A static 2-D index over points, the same algorithm as KDBush 4 (used by supercluster 8): items
/// are kd-sorted in place with Floyd–Rivest selection around each node's middle, leaves of up to
/// `nodeSize` items are scanned linearly, and queries walk the implicit tree with an explicit
/// stack. Coordinates are stored as `Float` (as supercluster stores them, in a `Float32Array`),
/// distances computed in `Double`.
///
/// The order in which queries return items is the traversal order, which supercluster's cluster
/// ids depend on; this implementation keeps it exactly.
struct KDTree: Sendable {
    let nodeSize: Int
    /// Item index per kd-sorted slot.
    private(set) var ids: [UInt32]
    /// x, y per kd-sorted slot.
    private(set) var coords: [Float]

    /// Indexes points `(x[i], y[i])`; item `i` is reported as `i`.
    init(x: [Double], y: [Double], nodeSize: Int) {
        precondition(x.count == y.count)
        self.nodeSize = min(max(nodeSize, 2), 65535)
        let n = x.count
        ids = (0..<n).map { UInt32($0) }
        coords = [Float](repeating: 0, count: 2 * n)
        for i in 0..<n {
            coords[2 * i] = Float(x[i])
            coords[2 * i + 1] = Float(y[i])
        }
        if n > 0 {
            ids.withUnsafeMutableBufferPointer { ids in
                coords.withUnsafeMutableBufferPointer { coords in
                    KDTree.parallelSort(ids, coords, self.nodeSize, 0, n - 1, 0, depth: 2)
                }
            }
        }
    }

    var count: Int { ids.count }

    /// Whether this tree and `other` are one tree's storage (a copy of the same tree).
    func sharesStorage(with other: KDTree) -> Bool {
        !ids.isEmpty && ids.withUnsafeBufferPointer { mine in
            other.ids.withUnsafeBufferPointer { $0.baseAddress == mine.baseAddress }
        }
    }

    /// The item stored in kd-sorted slot `slot` (iterating slots visits items in spatial order).
    @inline(__always)
    func item(inSlot slot: Int) -> Int { Int(ids[slot]) }

    /// Neighbour lists for every item at once. The lists are computed in kd order (neighbouring
    /// queries touch the same nodes, so the tree stays in cache), split over the workspace's
    /// threads; item i's query point is `(x[i], y[i])`. Each list equals what
    /// ``within(_:_:_:into:)`` returns for that item, in the same order.
    ///
    /// A query whose circle lies inside the region of the leaf holding its own item scans that
    /// leaf alone: every item within the circle is in that leaf (another node's items lie in its
    /// own region, which meets this one at most on its edge), and a search from the root would
    /// list the leaf's in slot order as the scan does. At high zooms nearly every query is one.
    func allWithin(radius r: Double, x: [Double], y: [Double], workspace: NeighborWorkspace) {
        let n = ids.count
        precondition(workspace.capacity >= n && x.count == n && y.count == n)
        let parts = workspace.parts
        let leaves = Leaves(self)
        // Past the circle's edge by more than the distance test's rounding.
        let reach = r * (1 + 1e-9) + 1e-12, r2 = r * r, firstReach = KDTree.firstReach(r2)
        x.withUnsafeBufferPointer { xs in
        y.withUnsafeBufferPointer { ys in
        ids.withUnsafeBufferPointer { idOf in
        coords.withUnsafeBufferPointer { coords in
            nonisolated(unsafe) let xs = xs, ys = ys, idOf = idOf, coords = coords
            // Each item sits in exactly one slot, so each part writes its own items' entries and
            // its own list: no element is written by two threads.
            DispatchQueue.concurrentPerform(iterations: parts) { part in
                let lower = n * part / parts, upper = n * (part + 1) / parts
                let scratch = workspace.scratch[part]
                var list = workspace.lists[part]
                list.count = 0
                let alone = ItemBits(words: workspace.aloneBits + part * workspace.words)
                alone.words.update(repeating: 0, count: workspace.words)
                // The query points gathered first, by slot: loads that do not wait on each other
                // (read inside the query loop, each was a cache miss the loop stalled on).
                let queryX = workspace.queryX, queryY = workspace.queryY
                for slot in lower..<upper {
                    let item = Int(idOf[slot])
                    (queryX[slot], queryY[slot]) = (xs[item], ys[item])
                }
                // The leaf last met, and whether its pairs were tested at once.
                let join = LeafJoin()
                var metLeaf = -1, joined = false
                for slot in lower..<upper {
                    let item = Int(idOf[slot])
                    let qx = queryX[slot], qy = queryY[slot]
                    let first = list.count
                    let leaf = leaves.leaf(ofSlot: slot)
                    if let leaf, leaf != metLeaf {
                        metLeaf = leaf
                        // Testing the pairs costs about what half the leaf's own scans do.
                        let (left, right) = leaves.slots(of: leaf)
                        let held = leaves.heldCount(leaf, in: lower..<upper, queryX, queryY, reach)
                        joined = right - left < LeafJoin.maxItems && 2 * held > right - left + 1
                        if joined { join.join(left: left, right: right, coords: coords, reach: firstReach) }
                    }
                    if let leaf, leaves.holds(leaf, qx, qy, reach) {
                        let (left, right) = leaves.slots(of: leaf)
                        list.reserve(right - left + 1)
                        list.count = joined
                            ? join.appendWithin(slot: slot, qx, qy, r2, coords: coords, ids: idOf,
                                                into: list.base, at: first)
                            : KDTree.scanLeaf(left, right, coords, idOf, qx, qy, r2, into: list.base, at: first)
                    } else {
                        // The search takes its own leaf's part from the leaf's pairs when tested.
                        let start = leaf.map { leaves.searchStart($0, qx, qy, reach) }
                        let own = leaf.flatMap { joined ? (leaves.slots(of: $0).0, join, slot) : nil }
                        let found = within(qx, qy, r, into: scratch, from: start, ownLeaf: own)
                        list.reserve(found)
                        (list.base + first).update(from: scratch.results, count: found)
                        list.count += found
                    }
                    if list.count - first == 1 && list.base[first] == Int32(item) {
                        alone.insert(item)
                        list.count = first
                    } else {
                        workspace.found[item] = NeighborWorkspace.Found(start: Int32(first),
                                                                        length: Int32(list.count - first),
                                                                        part: Int32(part))
                    }
                }
                workspace.lists[part] = list
            }
        } } } }
        let words = workspace.words, bits = workspace.aloneBits
        for part in 1..<max(parts, 1) {
            for w in 0..<words { bits[w] |= bits[part * words + w] }
        }
    }

    /// The tree's nodes, each with its subtree (slots, first split's axis), its parent (−1: the
    /// root) and its region (the box its path's splits bound, edges included), and the leaf node
    /// holding each slot (−1: a node's middle item). A leaf is known by its node.
    private struct Leaves {
        typealias Region = (minX: Double, minY: Double, maxX: Double, maxY: Double)
        var leafOfSlot: [Int32]
        var node: [(left: Int32, right: Int32, axis: Int32, parent: Int32)] = []
        var region: [Region] = []

        init(_ tree: KDTree) {
            leafOfSlot = [Int32](repeating: -1, count: tree.count)
            guard tree.count > 0 else { return }
            var stack: [(left: Int, right: Int, axis: Int, box: Region, parent: Int32)] =
                [(0, tree.count - 1, 0, (-.infinity, -.infinity, .infinity, .infinity), -1)]
            while let (left, right, axis, box, parent) = stack.popLast() {
                let index = Int32(node.count)
                node.append((Int32(left), Int32(right), Int32(axis), parent))
                region.append(box)
                if right - left <= tree.nodeSize {
                    if left <= right {
                        for s in left...right { leafOfSlot[s] = index }
                    }
                    continue
                }
                let m = (left + right) >> 1
                let split = Double(tree.coords[2 * m + axis])
                var below = box, above = box
                if axis == 0 { (below.2, above.0) = (split, split) } else { (below.3, above.1) = (split, split) }
                stack.append((left, m - 1, 1 - axis, below, index))
                stack.append((m + 1, right, 1 - axis, above, index))
            }
        }

        /// Where a search for the circle of radius `reach` around (qx, qy), from a slot of `leaf`,
        /// can start: the nearest of the leaf's ancestors whose region holds the circle, off its
        /// edges (the root when none does). Outside that subtree every item lies on or past the
        /// region's edges, out of the circle, and the search from the root would go straight down
        /// to it, meeting no item on the way: from there it lists the same items in the same order.
        func searchStart(_ leaf: Int, _ qx: Double, _ qy: Double, _ reach: Double) -> (Int, Int, Int) {
            var n = Int(node[leaf].parent)
            while n > 0 && !holds(n, qx, qy, reach) { n = Int(node[n].parent) }
            let start = node[max(n, 0)]
            return (Int(start.left), Int(start.right), Int(start.axis))
        }

        @inline(__always) func leaf(ofSlot s: Int) -> Int? {
            let k = leafOfSlot[s]
            return k >= 0 ? Int(k) : nil
        }

        @inline(__always) func slots(of leaf: Int) -> (Int, Int) { (Int(node[leaf].left), Int(node[leaf].right)) }

        /// How many of the leaf's slots within `part` have query circles it holds.
        func heldCount(_ leaf: Int, in part: Range<Int>, _ queryX: UnsafeMutablePointer<Double>,
                       _ queryY: UnsafeMutablePointer<Double>, _ reach: Double) -> Int {
            let (left, right) = slots(of: leaf)
            return (max(left, part.lowerBound)...min(right, part.upperBound - 1)).count {
                holds(leaf, queryX[$0], queryY[$0], reach)
            }
        }

        /// Whether the circle of radius `reach` around (qx, qy) lies inside the node's region,
        /// off its edges.
        @inline(__always) func holds(_ node: Int, _ qx: Double, _ qy: Double, _ reach: Double) -> Bool {
            let b = region[node]
            return qx - reach > b.minX && qx + reach < b.maxX && qy - reach > b.minY && qy + reach < b.maxY
        }
    }

    // MARK: - Queries

    /// Scratch space for ``within(_:_:_:into:)``: a result buffer as large as the tree and a
    /// traversal stack (its depth is bounded by the tree's height), allocated once per build.
    final class Scratch {
        let results: UnsafeMutablePointer<Int32>
        let stack: UnsafeMutablePointer<Int>
        let capacity: Int
        static let stackCapacity = 3 * 2 * 64

        init(capacity: Int) {
            self.capacity = max(capacity, 1)
            results = .allocate(capacity: self.capacity)
            stack = .allocate(capacity: Scratch.stackCapacity)
        }

        deinit {
            results.deallocate()
            stack.deallocate()
        }
    }

    /// Items with Euclidean distance to (qx, qy) ≤ r, in traversal order, written to
    /// `scratch.results`; returns how many. `scratch.capacity` must be at least ``count``.
    ///
    /// `start`: the subtree to search (slots, first split's axis) when every item in the circle is
    /// in it and the search from the root meets none on the way down to it (the root when nil).
    ///
    /// `ownLeaf`: the leaf starting at slot `left` whose pairs `join` tested, holding the query's
    /// own slot `slot`: its items are taken from the join (the same, in the same order).
    func within(_ qx: Double, _ qy: Double, _ r: Double, into scratch: Scratch,
                from start: (left: Int, right: Int, axis: Int)? = nil,
                ownLeaf: (left: Int, join: LeafJoin, slot: Int)? = nil) -> Int {
        guard !ids.isEmpty else { return 0 }
        precondition(scratch.capacity >= ids.count)
        let r2 = r * r
        let stack = scratch.stack, results = scratch.results
        var top = 0, found = 0
        (stack[0], stack[1], stack[2]) = start ?? (0, ids.count - 1, 0)
        top = 3
        ids.withUnsafeBufferPointer { ids in
            coords.withUnsafeBufferPointer { coords in
                while top > 0 {
                    let axis = stack[top - 1], right = stack[top - 2], left = stack[top - 3]
                    top -= 3
                    if right - left <= nodeSize {
                        if let own = ownLeaf, own.left == left {
                            found = own.join.appendWithin(slot: own.slot, qx, qy, r2, coords: coords, ids: ids,
                                                          into: results, at: found)
                        } else {
                            found = KDTree.scanLeaf(left, right, coords, ids, qx, qy, r2, into: results, at: found)
                        }
                        continue
                    }
                    let m = (left + right) >> 1
                    let x = Double(coords[2 * m]), y = Double(coords[2 * m + 1])
                    if KDTree.squaredDistance(coords, m, qx, qy) <= r2 {
                        results[found] = Int32(bitPattern: ids[m])
                        found += 1
                    }
                    if axis == 0 ? qx - r <= x : qy - r <= y {
                        stack[top] = left; stack[top + 1] = m - 1; stack[top + 2] = 1 - axis
                        top += 3
                    }
                    if axis == 0 ? qx + r >= x : qy + r >= y {
                        stack[top] = m + 1; stack[top + 1] = right; stack[top + 2] = 1 - axis
                        top += 3
                    }
                }
            }
        }
        return found
    }

    /// A box query (edges included) over the kd-sorted slots.
    struct Box {
        let minX: Double, minY: Double, maxX: Double, maxY: Double

        /// Whether the box reaches below / above the point (x, y) on `axis`: the query goes down
        /// that side of a node split there.
        @inline(__always) func reachesBelow(_ x: Double, _ y: Double, axis: Int) -> Bool {
            axis == 0 ? minX <= x : minY <= y
        }
        @inline(__always) func reachesAbove(_ x: Double, _ y: Double, axis: Int) -> Bool {
            axis == 0 ? maxX >= x : maxY >= y
        }
        @inline(__always) func contains(_ x: Double, _ y: Double) -> Bool {
            x >= minX && x <= maxX && y >= minY && y <= maxY
        }
    }

    /// Part of a box query's answer, in traversal order: one slot (a node's middle item, inside
    /// the box) or a subtree's slots `left...right` split first on `axis`, searched on its own.
    enum RangePiece {
        case slot(Int)
        case subtree(left: Int, right: Int, axis: Int)
    }

    /// The answer to a box query as pieces in traversal order, the top `depth` levels of the tree
    /// opened (up to 2^depth subtrees): the pieces' slots, concatenated, are the query's answer,
    /// and the subtrees can be searched side by side. A node's middle comes first, then the
    /// subtree above it, then the one below (the order of the search's stack).
    func rangePieces(_ box: Box, depth: Int) -> [RangePiece] {
        var pieces: [RangePiece] = []
        guard !ids.isEmpty else { return pieces }
        func open(_ left: Int, _ right: Int, _ axis: Int, _ depth: Int) {
            if depth == 0 || right - left <= nodeSize {
                pieces.append(.subtree(left: left, right: right, axis: axis))
                return
            }
            let m = (left + right) >> 1
            let x = Double(coords[2 * m]), y = Double(coords[2 * m + 1])
            if box.contains(x, y) { pieces.append(.slot(m)) }
            if box.reachesAbove(x, y, axis: axis) { open(m + 1, right, 1 - axis, depth - 1) }
            if box.reachesBelow(x, y, axis: axis) { open(left, m - 1, 1 - axis, depth - 1) }
        }
        open(0, ids.count - 1, 0, depth)
        return pieces
    }

    /// Appends every slot of the subtree `left...right` (split first on `axis`) inside the box to
    /// `slots`, in traversal order (KDBush's `range`, an explicit stack).
    func appendSlots(in box: Box, _ left: Int, _ right: Int, _ axis: Int, to slots: inout [Int32]) {
        var stack: [Int] = []
        stack.reserveCapacity(3 * 2 * 64)
        stack.append(left); stack.append(right); stack.append(axis)
        coords.withUnsafeBufferPointer { coords in
            while let axis = stack.popLast() {
                let right = stack.removeLast(), left = stack.removeLast()
                if right - left <= nodeSize {
                    var i = left
                    while i <= right {
                        if box.contains(Double(coords[2 * i]), Double(coords[2 * i + 1])) { slots.append(Int32(i)) }
                        i += 1
                    }
                    continue
                }
                let m = (left + right) >> 1
                let x = Double(coords[2 * m]), y = Double(coords[2 * m + 1])
                if box.contains(x, y) { slots.append(Int32(m)) }
                if box.reachesBelow(x, y, axis: axis) {
                    stack.append(left); stack.append(m - 1); stack.append(1 - axis)
                }
                if box.reachesAbove(x, y, axis: axis) {
                    stack.append(m + 1); stack.append(right); stack.append(1 - axis)
                }
            }
        }
    }

    /// The slots of `pieces` (from ``rangePieces(_:depth:)``) in order.
    func slots(of pieces: ArraySlice<RangePiece>, in box: Box) -> [Int32] {
        var slots: [Int32] = []
        for piece in pieces {
            switch piece {
            case let .slot(slot): slots.append(Int32(slot))
            case let .subtree(left, right, axis): appendSlots(in: box, left, right, axis, to: &slots)
            }
        }
        return slots
    }

    /// The radius of the circle the leaf scans test first.
    @inline(__always) static func firstReach(_ r2: Double) -> Float { Float(r2.squareRoot()) * 1.001 + 1e-6 }

    /// A leaf's items within √r2 of (qx, qy), in slot order, appended to `results` from `found`;
    /// returns the new count. Eight at a time, first by a circle in `Float` a little wider than
    /// the query's (its rounding is below a millionth of Web Mercator's unit: what it lets through
    /// includes every item in the circle), then each item it lets through by the exact test.
    @inline(__always)
    private static func scanLeaf(_ left: Int, _ right: Int, _ coords: UnsafeBufferPointer<Float>,
                                 _ ids: UnsafeBufferPointer<UInt32>, _ qx: Double, _ qy: Double, _ r2: Double,
                                 into results: UnsafeMutablePointer<Int32>, at start: Int) -> Int {
        var found = start, i = left
        let base = UnsafeRawPointer(coords.baseAddress!)
        let x0 = SIMD8<Float>(repeating: Float(qx)), y0 = SIMD8<Float>(repeating: Float(qy))
        let reach = firstReach(r2), reach2 = SIMD8<Float>(repeating: reach * reach)
        while i + 7 <= right {
            let pairs = base.loadUnaligned(fromByteOffset: 8 * i, as: SIMD16<Float>.self)
            let dx = pairs.evenHalf - x0, dy = pairs.oddHalf - y0
            let near = dx * dx + dy * dy .<= reach2
            if any(near) {
                for k in 0..<8 where near[k] && squaredDistance(coords, i + k, qx, qy) <= r2 {
                    results[found] = Int32(bitPattern: ids[i + k])
                    found += 1
                }
            }
            i += 8
        }
        while i <= right {
            if squaredDistance(coords, i, qx, qy) <= r2 {
                results[found] = Int32(bitPattern: ids[i])
                found += 1
            }
            i += 1
        }
        return found
    }

    @inline(__always)
    private static func squaredDistance(_ coords: UnsafeBufferPointer<Float>, _ i: Int,
                                        _ qx: Double, _ qy: Double) -> Double {
        let dx = Double(coords[2 * i]) - qx, dy = Double(coords[2 * i + 1]) - qy
        return dx * dx + dy * dy
    }

    // MARK: - Building

    /// The same sort, with the two halves below the top `depth` levels handed to separate
    /// threads: they cover disjoint slot ranges, so the result is exactly the sequential one.
    private static func parallelSort(_ ids: UnsafeMutableBufferPointer<UInt32>,
                                     _ coords: UnsafeMutableBufferPointer<Float>,
                                     _ nodeSize: Int, _ left: Int, _ right: Int, _ axis: Int, depth: Int) {
        if depth == 0 || right - left < 50_000 { return sort(ids, coords, nodeSize, left, right, axis) }
        if right - left <= nodeSize { return }
        let m = (left + right) >> 1
        select(ids, coords, m, left, right, axis)
        // Shared with the threads below: each part writes only its own share of it.
        nonisolated(unsafe) let ids = ids, coords = coords
        DispatchQueue.concurrentPerform(iterations: 2) { half in
            if half == 0 {
                parallelSort(ids, coords, nodeSize, left, m - 1, 1 - axis, depth: depth - 1)
            } else {
                parallelSort(ids, coords, nodeSize, m + 1, right, 1 - axis, depth: depth - 1)
            }
        }
    }

    private static func sort(_ ids: UnsafeMutableBufferPointer<UInt32>, _ coords: UnsafeMutableBufferPointer<Float>,
                             _ nodeSize: Int, _ left: Int, _ right: Int, _ axis: Int) {
        if right - left <= nodeSize { return }
        let m = (left + right) >> 1
        select(ids, coords, m, left, right, axis)
        sort(ids, coords, nodeSize, left, m - 1, 1 - axis)
        sort(ids, coords, nodeSize, m + 1, right, 1 - axis)
    }

    /// Floyd–Rivest selection: afterwards slots left..<k hold values ≤ the k-th on `axis`, slots
    /// k+1...right values ≥ it. The sampling bounds use the same formula as KDBush, so the
    /// arrangement (not just the partition) matches.
    private static func select(_ ids: UnsafeMutableBufferPointer<UInt32>, _ coords: UnsafeMutableBufferPointer<Float>,
                               _ k: Int, _ leftStart: Int, _ rightStart: Int, _ axis: Int) {
        var left = leftStart, right = rightStart
        while right > left {
            if right - left > 600 {
                let n = Double(right - left + 1)
                let m = Double(k - left + 1)
                let z = log(n)
                let s = 0.5 * exp(2 * z / 3)
                let sd = 0.5 * (z * s * (n - s) / n).squareRoot() * (m - n / 2 < 0 ? -1 : 1)
                let newLeft = max(left, Int((Double(k) - m * s / n + sd).rounded(.down)))
                let newRight = min(right, Int((Double(k) + (n - m) * s / n + sd).rounded(.down)))
                select(ids, coords, k, newLeft, newRight, axis)
            }
            let t = coords[2 * k + axis]
            swapItem(ids, coords, left, k)
            if coords[2 * right + axis] > t { swapItem(ids, coords, left, right) }
            // Hoare's loop: swap, step in, scan up and down for the next pair to swap. Its swaps
            // in the middle of a long range are made a block at a time first (the same swaps).
            swapItem(ids, coords, left, right)
            var i = left + 1, j = right - 1
            swapInBlocks(ids, coords, t, axis, &i, &j)
            i = firstNotBelow(t, from: i, upTo: right, coords, axis)
            j = lastNotAbove(t, from: j, downTo: left, coords, axis)
            while i < j {
                swapItem(ids, coords, i, j)
                i += 1
                j -= 1
                i = firstNotBelow(t, from: i, upTo: right, coords, axis)
                j = lastNotAbove(t, from: j, downTo: left, coords, axis)
            }
            if coords[2 * left + axis] == t {
                swapItem(ids, coords, left, j)
            } else {
                j += 1
                swapItem(ids, coords, j, right)
            }
            if j <= k { left = j + 1 }
            if k <= j { right = j - 1 }
        }
    }

    /// Makes, in order, the first of the swaps Hoare's loop would make from `i` up and `j` down, and
    /// leaves `i` and `j` where that loop would be after them (just inside the last pair swapped).
    /// Untouched slots keep their values until the scans reach them, so the loop swaps the k-th
    /// slot from `i` up whose value is not below `t` with the k-th from `j` down not above it, for as
    /// long as the two do not cross. Those slots are listed a block of 64 at a time from each end
    /// without a branch (a scan waited on every slot it found before it could look for the next)
    /// and swapped pairwise; the blocks stop when the two would overlap, and the loop does the rest.
    private static func swapInBlocks(_ ids: UnsafeMutableBufferPointer<UInt32>,
                                     _ coords: UnsafeMutableBufferPointer<Float>, _ t: Float, _ axis: Int,
                                     _ i: inout Int, _ j: inout Int) {
        let block = 64
        guard j - i >= 4 * block else { return }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 2 * block) { offsets in
            let up = offsets.baseAddress!, down = up + block
            let values = coords.baseAddress! + axis
            var low = i, high = j                   // the blocks: low..<low+64 and high-63...high
            var upCount = 0, upNext = 0, downCount = 0, downNext = 0
            var lastUp = i - 1, lastDown = j + 1    // the last pair swapped
            while true {
                if upNext == upCount || downNext == downCount {
                    guard high - low >= 2 * block - 1 else { break }
                }
                if upNext == upCount {
                    upCount = 0; upNext = 0
                    for p in 0..<block {
                        up[upCount] = UInt8(truncatingIfNeeded: p)
                        upCount &+= Int(unsafeBitCast(values[2 &* (low &+ p)] >= t, to: UInt8.self))
                    }
                }
                if downNext == downCount {
                    downCount = 0; downNext = 0
                    for p in 0..<block {
                        down[downCount] = UInt8(truncatingIfNeeded: p)
                        downCount &+= Int(unsafeBitCast(values[2 &* (high &- p)] <= t, to: UInt8.self))
                    }
                }
                let pairs = min(upCount - upNext, downCount - downNext)
                for q in 0..<pairs {
                    lastUp = low &+ Int(up[upNext &+ q])
                    lastDown = high &- Int(down[downNext &+ q])
                    swapItem(ids, coords, lastUp, lastDown)
                }
                upNext += pairs; downNext += pairs
                if upNext == upCount { low += block }
                if downNext == downCount { high -= block }
            }
            i = lastUp + 1
            j = lastDown - 1
        }
    }

    /// The first slot from `i` on whose value on `axis` is not below `t` (the partition's scan up;
    /// one exists at or before `right`): eight slots at a time while they lie inside the range,
    /// the first one found taken from the lanes' bits (a scan slot by slot stalled on a
    /// mispredicted branch at nearly every stop).
    @inline(__always)
    private static func firstNotBelow(_ t: Float, from i: Int, upTo right: Int,
                                      _ coords: UnsafeMutableBufferPointer<Float>, _ axis: Int) -> Int {
        let base = UnsafeRawPointer(coords.baseAddress!), tt = SIMD8<Float>(repeating: t)
        var p = i
        while p &+ 7 <= right {
            let pairs = base.loadUnaligned(fromByteOffset: 8 &* p, as: SIMD16<Float>.self)
            let bytes = laneBytes((axis == 0 ? pairs.evenHalf : pairs.oddHalf) .>= tt)
            if bytes != 0 { return p &+ bytes.trailingZeroBitCount >> 3 }
            p &+= 8
        }
        while coords[2 &* p &+ axis] < t { p &+= 1 }
        return p
    }

    /// The last slot from `j` down whose value on `axis` is not above `t` (the scan down; one
    /// exists at or after `left`), eight slots at a time as ``firstNotBelow``.
    @inline(__always)
    private static func lastNotAbove(_ t: Float, from j: Int, downTo left: Int,
                                     _ coords: UnsafeMutableBufferPointer<Float>, _ axis: Int) -> Int {
        let base = UnsafeRawPointer(coords.baseAddress!), tt = SIMD8<Float>(repeating: t)
        var p = j
        while p &- 7 >= left {
            let pairs = base.loadUnaligned(fromByteOffset: 8 &* (p &- 7), as: SIMD16<Float>.self)
            let bytes = laneBytes((axis == 0 ? pairs.evenHalf : pairs.oddHalf) .<= tt)
            if bytes != 0 { return p &- 7 &+ (63 &- bytes.leadingZeroBitCount) >> 3 }
            p &-= 8
        }
        while coords[2 &* p &+ axis] > t { p &-= 1 }
        return p
    }

    /// Lane k of `mask` as byte k of a word (all ones when set): two packs and a move (a sum of
    /// weighted lanes took a dozen instructions more at every step of the scans).
    @inline(__always)
    static func laneBytes(_ mask: SIMDMask<SIMD8<Int32>>) -> UInt64 {
        let lanes = SIMD8<Int32>(repeating: 0).replacing(with: -1, where: mask)
        return unsafeBitCast(SIMD8<UInt8>(truncatingIfNeeded: lanes), to: UInt64.self)
    }

    @inline(__always)
    private static func swapItem(_ ids: UnsafeMutableBufferPointer<UInt32>,
                                 _ coords: UnsafeMutableBufferPointer<Float>, _ i: Int, _ j: Int) {
        ids.swapAt(i, j)
        // An item's x and y as one 8-byte word (slot i at byte 8i).
        let pairs = UnsafeMutableRawPointer(coords.baseAddress!)
        let a = pairs.loadUnaligned(fromByteOffset: 8 * i, as: UInt64.self)
        let b = pairs.loadUnaligned(fromByteOffset: 8 * j, as: UInt64.self)
        pairs.storeBytes(of: b, toByteOffset: 8 * i, as: UInt64.self)
        pairs.storeBytes(of: a, toByteOffset: 8 * j, as: UInt64.self)
    }
}
