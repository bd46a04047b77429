import WaymarkGeo

/// What customizing a graph changed (OSRM's `osrm-customize` logs the same counts).
public struct CustomizeReport: Sendable, Equatable {
    /// Stretches given a speed, per source (index 0, the profile's, unused).
    public var stretchesBySource: [Int] = []
    /// Directed edges with a stretch from a file.
    public var edgesUpdated = 0
    /// Directed edges a speed of 0 (or a rate of 0) closed: no route uses them.
    public var edgesClosed = 0
    public var turnsUpdated = 0
    /// Lines of the files that matched no stretch or turn of the map.
    public var unmatchedSpeeds = 0
    public var unmatchedPenalties = 0
}

extension RoadGraph {
    /// This graph with the speeds and turn penalties of `updates`, as `osrm-customize` applies
    /// them: a stretch's new duration is its length at the new speed, rounded to a tenth of a
    /// second (at least one tenth); its weight the same, or length ÷ rate, or the profile's
    /// (``SpeedUpdates/Rate``); each edge's duration and weight the sum of its stretches' plus
    /// the signals inside. A stretch at speed 0 closes its edge (the edge is removed). A turn's
    /// duration and weight are replaced where the turn is allowed. The graph must keep its node
    /// ids, and be as built: customizing starts from the profile's speeds, as OSRM's does.
    public func customized(with updates: SpeedUpdates) throws(SpeedFileError) -> (graph: RoadGraph,
                                                                                   report: CustomizeReport) {
        guard !vertexNodeIDs.isEmpty else { throw SpeedFileError(path: "", line: 0,
            reason: "the map keeps no OpenStreetMap node ids (build it again with this version)") }
        guard datasourceNames.isEmpty else { throw SpeedFileError(path: "", line: 0,
            reason: "the map is customized already: customize the map as built") }
        var g = self
        var report = CustomizeReport()
        report.stretchesBySource = [Int](repeating: 0, count: updates.sourceNames.count)
        var closed = [Bool](repeating: false, count: edgeCount)
        var rows = CustomRows()
        var duration = Array(edgeDuration), weight = Array(edgeWeight)
        var table = StretchTable(updates.speeds)
        if !updates.speeds.isEmpty {
            var stretch = StretchScratch()
            for v in 0..<UInt32(nodeCount) {
                for e in edges(from: v) {
                    guard stretch.load(self, edge: e, source: v, table: table) else { continue }
                    let result = stretch.customize(self, edge: e, table: &table, report: &report)
                    report.edgesUpdated += 1
                    if result.closed { closed[e] = true; continue }
                    (duration[e], weight[e]) = (result.duration, result.weight)
                    rows.append(edge: e, stretch)
                }
            }
        }
        report.unmatchedSpeeds = updates.speeds.count - table.matchedCount
        g.edgeDuration = Column(duration)
        g.edgeWeight = Column(weight)
        g.datasourceNames = updates.sourceNames
        (g.customEdges, g.customStart) = (Column(rows.edges), Column(rows.start))
        (g.stretchDuration, g.stretchWeight, g.stretchSource) = (Column(rows.duration), Column(rows.weight),
                                                                  Column(rows.source))
        g.setTurnPenalties(updates, report: &report)
        report.edgesClosed = closed.count { $0 }
        if report.edgesClosed > 0 { g = g.removingEdges(closed) }
        return (g, report)
    }

    /// The turns of `updates` found at the map's vertices, with their via vertices flagged.
    private mutating func setTurnPenalties(_ updates: SpeedUpdates, report: inout CustomizeReport) {
        guard !updates.penalties.isEmpty else { return }
        let vias = Set(updates.penalties.keys.map(\.via))
        var flags = Array(nodeFlags)
        var turns: [(from: UInt32, to: UInt32, seconds: Float, weight: Float)] = []
        var matched = Set<SpeedUpdates.Turn>()
        for v in 0..<nodeCount where vias.contains(vertexNodeIDs[v]) {
            for slot in incoming(to: UInt32(v)) {
                let e = Int(incomingEdge[slot])
                let before = nodeID(ofEdge: e, point: interiorPointCount(of: e), source: incomingSource[slot])
                for f in edges(from: UInt32(v)) {
                    let after = nodeID(ofEdge: f, point: 1, source: UInt32(v))
                    let key = SpeedUpdates.Turn(from: before, via: vertexNodeIDs[v], to: after)
                    guard let penalty = updates.penalties[key] else { continue }
                    let seconds = RoadGraph.tenths(penalty.seconds)
                    turns.append((UInt32(e), UInt32(f), seconds, penalty.weight.map(RoadGraph.tenths) ?? seconds))
                    flags[v] |= RoadGraph.customTurnFlag
                    matched.insert(key)
                }
            }
        }
        turns.sort { ($0.from, $0.to) < ($1.from, $1.to) }
        report.turnsUpdated = turns.count
        report.unmatchedPenalties = updates.penalties.count - matched.count
        nodeFlags = Column(flags)
        turnFrom = Column(turns.map(\.from))
        turnTo = Column(turns.map(\.to))
        turnDuration = Column(turns.map(\.seconds))
        turnWeight = Column(turns.map(\.weight))
    }

    /// Seconds rounded to tenths as OSRM stores them, below ``valueLimit``.
    static func tenths(_ seconds: Double) -> Float {
        Float(min((seconds * 10).rounded() / 10, Double(valueLimit) / 2))
    }

    /// The index of the turn e → f in the turn penalty columns, if a file gave it.
    @inlinable
    public func customTurn(_ e: Int, _ f: Int) -> Int? {
        var low = 0, high = turnFrom.count
        let key = (UInt32(e), UInt32(f))
        while low < high {
            let mid = (low + high) / 2
            if (turnFrom[mid], turnTo[mid]) < key { low = mid + 1 } else { high = mid }
        }
        return low < turnFrom.count && turnFrom[low] == key.0 && turnTo[low] == key.1 ? low : nil
    }

    /// The row of edge `e`'s stretches in the stretch columns, if a file gave one of them a speed.
    public func customRow(of e: Int) -> Range<Int>? {
        guard !customEdges.isEmpty else { return nil }
        var low = 0, high = customEdges.count
        while low < high {
            let mid = (low + high) / 2
            if Int(customEdges[mid]) < e { low = mid + 1 } else { high = mid }
        }
        guard low < customEdges.count, Int(customEdges[low]) == e else { return nil }
        return Int(customStart[low])..<Int(customStart[low + 1])
    }
}

/// The stretch columns being made, a row per edge.
private struct CustomRows {
    var edges: [UInt32] = [], start: [UInt32] = [0]
    var duration: [Float] = [], weight: [Float] = [], source: [UInt8] = []

    mutating func append(edge e: Int, _ stretch: StretchScratch) {
        edges.append(UInt32(e))
        duration += stretch.duration
        weight += stretch.weight
        source += stretch.source
        start.append(UInt32(duration.count))
    }
}

/// The stretches of the files in an open-addressed table (a multiplicative hash of the two
/// node ids, linear probing, at most half full), behind a bit per hash that fits a core's cache:
/// every directed edge of the map asks for each of its stretches, and most ask for one the files
/// do not hold.
private struct StretchTable {
    /// Per slot the two node ids (`Int64.min` in an empty slot: node ids are not negative).
    private var keys: [(from: Int64, to: Int64)]
    private var speed: [SpeedUpdates.Speed]
    private var matched: [Bool]
    private var filter: [UInt64]
    private let shift: UInt64
    private(set) var matchedCount = 0
    private static let filterBits = 20

    init(_ speeds: [SpeedUpdates.Stretch: SpeedUpdates.Speed]) {
        var bits = 4
        while 1 << bits < 2 * speeds.count { bits += 1 }
        shift = UInt64(64 - bits)
        keys = [(from: Int64, to: Int64)](repeating: (Int64.min, Int64.min), count: 1 << bits)
        speed = [SpeedUpdates.Speed](repeating: .init(kmh: 0, rate: .kept, source: 0), count: 1 << bits)
        matched = [Bool](repeating: false, count: 1 << bits)
        filter = [UInt64](repeating: 0, count: 1 << (Self.filterBits - 6))
        for (key, value) in speeds {
            var slot = Self.mix(key.from, key.to) >> shift
            while keys[Int(slot)].from != Int64.min { slot = (slot + 1) & UInt64(keys.count - 1) }
            (keys[Int(slot)], speed[Int(slot)]) = ((key.from, key.to), value)
            let bit = Self.mix(key.from, key.to) & ((1 << Self.filterBits) - 1)
            filter[Int(bit >> 6)] |= 1 << (bit & 63)
        }
    }

    private static func mix(_ a: Int64, _ b: Int64) -> UInt64 {
        UInt64(bitPattern: a) &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(bitPattern: b) &* 0xC2B2_AE3D_27D4_EB4F
    }

    /// The slot of stretch a → b, nil when the files do not give it.
    func slot(_ a: Int64, _ b: Int64) -> Int? {
        let mixed = Self.mix(a, b)
        let bit = mixed & ((1 << Self.filterBits) - 1)
        guard filter[Int(bit >> 6)] & (1 << (bit & 63)) != 0 else { return nil }
        var slot = Int(truncatingIfNeeded: mixed >> shift)
        while keys[slot].from != Int64.min {
            if keys[slot] == (a, b) { return slot }
            slot = (slot + 1) & (keys.count - 1)
        }
        return nil
    }

    /// The speed in `slot`, counting the stretch as found on the map.
    mutating func use(_ slot: Int) -> SpeedUpdates.Speed {
        if !matched[slot] { (matched[slot], matchedCount) = (true, matchedCount + 1) }
        return speed[slot]
    }
}

/// One edge's stretches while it is customized (kept between edges for its storage).
private struct StretchScratch {
    var ids: [Int64] = [], length: [Double] = []
    var duration: [Float] = [], weight: [Float] = [], source: [UInt8] = []

    /// The edge's node ids, source to target; whether a stretch of it has a new speed.
    mutating func load(_ g: RoadGraph, edge e: Int, source v: UInt32, table: StretchTable) -> Bool {
        ids.removeAll(keepingCapacity: true)
        g.appendNodeIDs(ofEdge: e, source: v, to: &ids)
        for i in 0..<(ids.count - 1) where ids[i] != ids[i + 1] && table.slot(ids[i], ids[i + 1]) != nil {
            return true
        }
        return false
    }

    /// The loaded edge's stretches: the profile's share of its travel by length, or the file's
    /// speed; its new duration and weight, or closed.
    mutating func customize(_ g: RoadGraph, edge e: Int, table: inout StretchTable,
                            report: inout CustomizeReport) -> (duration: Float, weight: Float, closed: Bool) {
        length = g.stretchLengths(of: e)
        let total = length.reduce(0, +)
        let delay = g.edgeDelay.isEmpty ? 0 : Double(g.edgeDelay[e])
        let travel = max(0, Double(g.edgeDuration[e]) - delay), cost = max(0, Double(g.edgeWeight[e]) - delay)
        (duration, weight, source) = ([], [], [])
        var closed = false
        for i in 0..<length.count {
            let share = total > 0 ? length[i] / total : 1 / Double(length.count)
            var (d, w, s) = (Float(travel * share), Float(cost * share), UInt8(0))
            if ids[i] != ids[i + 1], let slot = table.slot(ids[i], ids[i + 1]) {
                let speed = table.use(slot)
                report.stretchesBySource[Int(speed.source)] += 1
                s = speed.source
                if speed.closes { closed = true }
                if speed.kmh > 0 { d = max(0.1, RoadGraph.tenths(length[i] / (speed.kmh / 3.6))) }
                switch speed.rate {
                case .fromSpeed: w = d
                case .kept: break
                case let .given(rate): if rate > 0 { w = max(0.1, RoadGraph.tenths(length[i] / rate)) }
                }
            }
            duration.append(d)
            weight.append(w)
            source.append(s)
        }
        let newDuration = Float(Double(duration.reduce(0, +)) + delay)
        let newWeight = Float(Double(weight.reduce(0, +)) + delay)
        let storable = RoadGraph.isStorable(newDuration) && RoadGraph.isStorable(newWeight)
        return (newDuration, newWeight, closed || !storable)
    }
}

extension RoadGraph {
    /// The metres of each stretch of edge `e` (point k to k + 1, in driving order), measured as
    /// the builder measured its length.
    func stretchLengths(of e: Int) -> [Double] {
        var points: [Coordinate] = []
        appendGeometry(of: e, to: &points, skippingSource: false)
        var rulers = LocalRuler.Bands()
        return (0..<(points.count - 1)).map { rulers.distance(from: points[$0], to: points[$0 + 1]) }
    }

    /// Weight, duration and length of customized edge `e` (its stretches `row`) between `a` and
    /// `b` metres from its source: each stretch's own values (and its share of the signals
    /// inside, by length), by the part of it driven.
    public func customPart(_ e: Int, row: Range<Int>, from a: Double,
                           to b: Double) -> (weight: Double, duration: Double, distance: Double) {
        let length = Double(edgeLength[e])
        let pieces = stretchLengths(of: e)
        let total = pieces.reduce(0, +)
        guard total > 0, length > 0, pieces.count == row.count else { return (0, 0, 0) }
        let delay = edgeDelay.isEmpty ? 0 : Double(edgeDelay[e])
        let (from, to) = (a * total / length, b * total / length)
        var (weight, duration) = (0.0, 0.0)
        var start = 0.0
        for (i, piece) in pieces.enumerated() {
            let overlap = max(0, min(to, start + piece) - max(from, start))
            if overlap > 0 && piece > 0 {
                let share = overlap / piece, signals = delay * piece / total
                weight += (Double(stretchWeight[row.lowerBound + i]) + signals) * share
                duration += (Double(stretchDuration[row.lowerBound + i]) + signals) * share
            }
            start += piece
        }
        return (weight, duration, max(0, min(1, (b - a) / length)) * length)
    }
}
