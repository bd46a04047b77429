import WaymarkGraph

/// Turn restrictions over via ways, as extra states of the edge-based search.
///
/// A restriction over via ways forbids (or, `only_*`, mandates) its last turn only for a car that
/// drove the whole path before it — from edge, then every via edge — and no other turn. A state
/// "just drove edge e" cannot tell, so, as OSRM's restriction graph does, the edges along such a
/// path get duplicate states that remember the path so far: state `e` is the edge itself
/// (`0..<edgeCount`), and each duplicate (`edgeCount...`) is a copy of one edge reached along a
/// prefix of one or more restricted paths. The states form an automaton over the edges driven
/// (Aho–Corasick: after each turn the state is the longest driven suffix that is a prefix of a
/// restricted path, so overlapping paths are all tracked). Costs stay the edge's own; only which
/// turns exist differs.
///
/// Restrictions at a via node are rules of the edge alone (``RoadGraph/turnAllowed(via:from:to:)``)
/// and hold in every copy of it.
@usableFromInline package struct RestrictedPaths: Sendable {
    /// Marks a forbidden turn in ``next``.
    @usableFromInline static let forbidden = UInt32.max

    @usableFromInline let edgeCount: Int
    /// The edge each duplicate state copies.
    @usableFromInline let duplicateEdge: [UInt32]
    /// Per duplicate k, per edge f leaving its edge's target (in row order): the state after
    /// turning onto f, or ``forbidden``: `next[nextStart[k] + (f − firstEdge[target])]`.
    @usableFromInline let nextStart: [UInt32]
    @usableFromInline let next: [UInt32]
    /// From a state that is an edge itself: turning onto the first via edge of a path (key: from
    /// edge << 32 | via edge) enters the path's first duplicate.
    @usableFromInline let entries: [UInt64: UInt32]
    /// The duplicates of each edge that has some.
    @usableFromInline let copies: [UInt32: [UInt32]]
    /// A bit per edge, set where it has duplicates (most have none: no lookup in ``copies``).
    @usableFromInline let copied: [UInt64]

    /// Edges plus duplicates: the node count of the edge-based graph.
    @usableFromInline package var stateCount: Int { edgeCount + duplicateEdge.count }
    var isEmpty: Bool { duplicateEdge.isEmpty }

    @usableFromInline package init(graph: RoadGraph) {
        edgeCount = graph.edgeCount
        // Prefixes of the paths (without the to edge) of two or more edges are the duplicates;
        // full prefixes carry the restrictions on the turn after them.
        var stateOf: [[UInt32]: UInt32] = [:]
        var sequences: [[UInt32]] = []
        var rules: [[UInt32]: [(to: UInt32, kind: RestrictionKind)]] = [:]
        for p in 0..<graph.restrictionPathCount {
            let path = Array(graph.restrictionPath(p))
            let prefix = Array(path.dropLast())
            for length in 2...prefix.count where stateOf[Array(prefix.prefix(length))] == nil {
                stateOf[Array(prefix.prefix(length))] = UInt32(graph.edgeCount + sequences.count)
                sequences.append(Array(prefix.prefix(length)))
            }
            rules[prefix, default: []].append((path.last!,
                                               RestrictionKind(rawValue: graph.restrictionPathKind[p]) ?? .prohibitive))
        }
        duplicateEdge = sequences.map { $0.last! }
        var entries: [UInt64: UInt32] = [:], copies: [UInt32: [UInt32]] = [:]
        for (k, sequence) in sequences.enumerated() {
            let state = UInt32(graph.edgeCount + k)
            if sequence.count == 2 { entries[UInt64(sequence[0]) << 32 | UInt64(sequence[1])] = state }
            copies[sequence.last!, default: []].append(state)
        }
        self.entries = entries
        self.copies = copies
        var copied = [UInt64](repeating: 0, count: (graph.edgeCount + 63) / 64)
        for e in copies.keys { copied[Int(e) >> 6] |= 1 << (UInt64(e) & 63) }
        self.copied = copied

        var nextStart: [UInt32] = [], next: [UInt32] = []
        for sequence in sequences {
            nextStart.append(UInt32(next.count))
            // The restrictions on the next turn: those of every driven suffix that is a whole path.
            var applying: [(to: UInt32, kind: RestrictionKind)] = []
            for i in 0..<(sequence.count - 1) { applying += rules[Array(sequence[i...])] ?? [] }
            let v = graph.edgeTarget[Int(sequence.last!)]
            for f in graph.edges(from: v) {
                let forbidden = applying.contains { $0.kind == .prohibitive ? $0.to == UInt32(f) : $0.to != UInt32(f) }
                if forbidden {
                    next.append(RestrictedPaths.forbidden)
                    continue
                }
                // The longest suffix of the driven edges that is a path prefix, else the edge itself.
                let driven = sequence + [UInt32(f)]
                var state = UInt32(f)
                for i in 0..<(driven.count - 1) {
                    if let s = stateOf[Array(driven[i...])] {
                        state = s
                        break
                    }
                }
                next.append(state)
            }
        }
        nextStart.append(UInt32(next.count))
        self.nextStart = nextStart
        self.next = next
    }

    /// The edge state `s` stands for.
    @inlinable @inline(__always)
    package func edge(_ s: Int) -> Int { s < edgeCount ? s : Int(duplicateEdge[s - edgeCount]) }

    /// The state after turning from state `s` onto edge `f` (leaving its edge's target, whose
    /// first outgoing edge is `firstOut`), or nil when a restricted path forbids the turn.
    /// `flagged`: the target carries ``RoadGraph/restrictionViaFlag`` (paths start only there).
    @inlinable @inline(__always)
    package func state(after s: Int, onto f: Int, firstOut: Int, flagged: Bool) -> Int? {
        if s < edgeCount {
            guard flagged, !entries.isEmpty else { return f }
            return entries[UInt64(s) << 32 | UInt64(f)].map(Int.init) ?? f
        }
        let t = next[Int(nextStart[s - edgeCount]) + f - firstOut]
        return t == RestrictedPaths.forbidden ? nil : Int(t)
    }

    /// Each state of edge `e`: itself, then its duplicates (without an array made per edge: a
    /// search's seeds ask for every edge into a goal).
    @inlinable @inline(__always)
    package func forEachState(of e: Int, _ body: (Int) -> Void) {
        body(e)
        guard copied[e >> 6] & (1 << (UInt64(e) & 63)) != 0, let more = copies[UInt32(e)] else { return }
        for s in more { body(Int(s)) }
    }
}
