#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import WaymarkSupport

// Per-query scratch of the searches, kept by each searcher between queries (OSRM keeps the same
// apart from the map's shared data, as its search-engine heaps beside its data facade). A
// searcher owns its scratch and frees it in its deinit; the map's data is shared by all.

/// Labels of one search over a fixed range of indices (vertices, or directed edges). A label
/// counts only where its stamp is the current query's generation, so a new query starts in O(1)
/// and touches only what it visits.
///
/// Stamps and labels are separate arrays: most probes in a search ask only whether a node is
/// labelled (stall and meeting checks), and sixteen stamps share a cache line. The stamps are
/// zeroed memory (`calloc`), which the system hands out lazily, so a searcher pays only for the
/// pages its queries visit; a zero stamp marks a slot never written, and a label is read only
/// where its stamp is current. Raw storage, so search loops pay no exclusivity or bounds checks
/// (bounds are asserted in debug builds). A copy shares the storage: searchers take a local copy
/// for the loop. The owner calls ``deallocate()`` once.
@usableFromInline package struct StampedArray<Label: BitwiseCopyable> {
    @usableFromInline package let count: Int
    @usableFromInline let stamps: UnsafeMutablePointer<UInt32>
    @usableFromInline let labels: UnsafeMutablePointer<Label>
    /// The current query's stamp (never 0). Set only by ``clear()`` (and by tests, to reach the
    /// wrap-around).
    @usableFromInline package var generation: UInt32 = 1

    /// Storage for `count` labels, none set.
    @usableFromInline package init(count: Int) {
        self.count = count
        let n = max(1, count)
        if StampedArray.inLargePages(count) {
            guard let stampMemory = LargePages.allocate(n * MemoryLayout<UInt32>.stride),
                  let labelMemory = LargePages.allocate(n * MemoryLayout<Label>.stride) else {
                fatalError("out of memory for \(count) search labels")
            }
            stamps = stampMemory.bindMemory(to: UInt32.self, capacity: n)
            labels = labelMemory.bindMemory(to: Label.self, capacity: n)
            return
        }
        guard let raw = calloc(n, MemoryLayout<UInt32>.stride) else {
            fatalError("out of memory for \(count) search labels")
        }
        stamps = raw.bindMemory(to: UInt32.self, capacity: n)
        labels = .allocate(capacity: n)
    }

    /// Whether `count` labels are many enough to be read at random across megabytes: then
    /// stamps and labels are each kept in ``LargePages`` (both zeroed and mapped lazily, as
    /// `calloc`'s are), fewer address-cache misses for each query.
    @usableFromInline static func inLargePages(_ count: Int) -> Bool {
        count * (MemoryLayout<UInt32>.stride + MemoryLayout<Label>.stride) >= LargePages.pageSize / 2
    }

    @usableFromInline package func deallocate() {
        let n = max(1, count)
        if StampedArray.inLargePages(count) {
            LargePages.release(stamps, byteCount: n * MemoryLayout<UInt32>.stride)
            LargePages.release(labels, byteCount: n * MemoryLayout<Label>.stride)
            return
        }
        free(stamps)
        labels.deallocate()
    }

    /// Forgets every label: the next query starts empty.
    @usableFromInline package mutating func clear() {
        generation &+= 1
        if generation == 0 { // wrapped round: stamps written 2³² queries ago would look current
            stamps.update(repeating: 0, count: max(1, count))
            generation = 1
        }
    }

    /// Whether index `i` has a label in this query.
    @inlinable @inline(__always)
    package func contains(_ i: Int) -> Bool {
        assert(i >= 0 && i < count, "index \(i) out of 0..<\(count)")
        return stamps[i] == generation
    }

    /// The label at `i`; read only where ``contains(_:)`` says there is one. Setting stamps it.
    @inlinable @inline(__always)
    package subscript(i: Int) -> Label {
        get {
            assert(i >= 0 && i < count && stamps[i] == generation, "no label at \(i) in this query")
            return labels[i]
        }
        nonmutating set {
            assert(i >= 0 && i < count, "index \(i) out of 0..<\(count)")
            stamps[i] = generation
            labels[i] = newValue
        }
    }
}

/// A 4-ary min-heap of (key, item) with lazy deletion (stale entries are skipped on pop), over
/// storage its owner keeps between queries. Used as a local value inside a query, so no dynamic
/// exclusivity checks; the storage grows by doubling when full.
@usableFromInline package struct MinHeap {
    @usableFromInline struct Entry {
        @usableFromInline var key: Double
        @usableFromInline var item: Int
        @inlinable init(key: Double, item: Int) {
            self.key = key
            self.item = item
        }
    }

    @usableFromInline private(set) var storage: UnsafeMutablePointer<Entry>
    @usableFromInline private(set) var capacity: Int
    @usableFromInline var count = 0

    @usableFromInline package init(capacity: Int = 1024) {
        self.capacity = max(16, capacity)
        storage = .allocate(capacity: self.capacity)
    }

    /// A heap over existing storage (emptied).
    init(storage: UnsafeMutablePointer<Entry>, capacity: Int) {
        self.storage = storage
        self.capacity = capacity
    }

    @usableFromInline package func deallocate() { storage.deallocate() }

    @inlinable package mutating func removeAll() { count = 0 }

    /// The smallest key, without removing it.
    @inlinable package var peekKey: Double? { count > 0 ? storage[0].key : nil }

    /// The item with the smallest key, without removing it.
    @inlinable package var peekItem: Int? { count > 0 ? storage[0].item : nil }

    @inlinable @inline(__always)
    package mutating func push(_ key: Double, _ item: Int) {
        if count == capacity { grow() }
        var i = count
        count += 1
        while i > 0 {
            let p = (i - 1) >> 2
            if storage[p].key <= key { break }
            storage[i] = storage[p]
            i = p
        }
        storage[i] = Entry(key: key, item: item)
    }

    /// Doubles the storage (rare: kept out of line so `push` stays small enough to inline).
    @inline(never) @usableFromInline
    mutating func grow() {
        let bigger = UnsafeMutablePointer<Entry>.allocate(capacity: capacity * 2)
        bigger.moveInitialize(from: storage, count: count)
        storage.deallocate()
        storage = bigger
        capacity *= 2
    }

    @inlinable @inline(__always)
    package mutating func pop() -> (Double, Int)? {
        guard count > 0 else { return nil }
        let top = storage[0]
        count -= 1
        if count > 0 {
            let last = storage[count]
            var i = 0
            while true {
                let first = 4 * i + 1
                if first >= count { break }
                var m = first
                let end = min(first + 4, count)
                var c = first + 1
                while c < end {
                    if storage[c].key < storage[m].key { m = c }
                    c += 1
                }
                if storage[m].key >= last.key { break }
                storage[i] = storage[m]
                i = m
            }
            storage[i] = last
        }
        return (top.key, top.item)
    }
}
