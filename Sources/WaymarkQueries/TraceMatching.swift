import Foundation
import WaymarkGeo
import WaymarkPreparation

/// Map matching as a hidden Markov model (Newson and Krumm 2009), with OSRM's constants and its
/// rules for where a trace breaks: each fix's states are the road points near it, a state is as
/// likely as its distance from the fix under Gaussian noise, and a move from one fix's point to
/// the next's as likely as the road distance between them is close to the straight one. Viterbi
/// chooses one point per fix; where no move is plausible the trace splits into several matchings.
///
/// The model knows no map: the caller gives the candidates and, per step, the road distances
/// from every live candidate of one fix to every candidate of the next (one many-to-many search
/// on the hierarchy, not one route per pair).
package enum TraceMatching {
    /// The GPS noise assumed where a fix gives none, in metres (OSRM's `DEFAULT_GPS_PRECISION`).
    package static let defaultPrecision = 5.0
    /// How much longer or shorter the road may be than the straight line between fixes before a
    /// move is implausible, per metre of difference (OSRM's `MATCHING_BETA`).
    static let beta = 10.0
    /// The largest plausible difference without timestamps, in metres.
    static let maxDistanceDelta = 2000.0
    /// Fixes in a row without a plausible state before the trace is cut (`MAX_BROKEN_STATES`).
    static let maxBrokenStates = 10

    /// The trace as the model reads it.
    package struct Trace {
        package var coordinates: [Coordinate]
        /// Seconds, one per fix, never decreasing; empty without timestamps.
        package var timestamps: [Int]
        /// Each fix's GPS noise in metres (nil: ``defaultPrecision``); empty for all defaults.
        package var precisions: [Double?]
        /// Whether a long pause between timestamps cuts the trace (OSRM's `gaps=split`).
        package var splitsAtGaps: Bool
        /// The fastest plausible travel, metres per second (the profile's, for timestamps).
        package var maxSpeed: Double

        package init(coordinates: [Coordinate], timestamps: [Int], precisions: [Double?], splitsAtGaps: Bool,
                     maxSpeed: Double) {
            self.coordinates = coordinates
            self.timestamps = timestamps
            self.precisions = precisions
            self.splitsAtGaps = splitsAtGaps
            self.maxSpeed = maxSpeed
        }
    }

    /// Road metres of the fastest way between two candidates (nil: none, or none light enough).
    package typealias Move = Double?

    /// The moves from every one of some candidates (`from`) to every one of others (`to`), row
    /// by row, each nil where its way weighs more than the last argument (seconds for a car).
    package typealias Moves = (_ from: [Snap], _ to: [Snap], _ maxWeight: Double) -> [Move]

    /// ``Moves`` handed over one by one, those found only (row-major index and road metres):
    /// a search writes them where the model keeps them, with no array made per step.
    package typealias MovesFound = (_ from: [Snap], _ to: [Snap], _ maxWeight: Double,
                                    _ found: (_ index: Int, _ metres: Double) -> Void) -> Void

    /// One unbroken piece of the trace: the fixes it matched (indices into the trace), the
    /// candidate chosen at each, how many other candidates there could still have led to the
    /// end (OSRM's `alternatives_count`), and OSRM's confidence in the whole.
    package struct Matching: Equatable {
        package var fixes: [Int] = []
        package var candidates: [Int] = []
        package var alternatives: [Int] = []
        package var confidence = 0.0
    }

    /// The matchings of `trace` over `candidates` (one list per fix, nearest first), using
    /// `moves` for the road between the candidates at two fixes.
    /// `movesKept` bounds the moves kept for steps taken again (``Model/movesFound``).
    package static func match(_ trace: Trace, candidates: [[Snap]], movesKept: Int = 1 << 20,
                              moves: Moves) -> [Matching] {
        match(trace, candidates: candidates, movesKept: movesKept) { from, to, maxWeight, found in
            for (k, move) in moves(from, to, maxWeight).enumerated() {
                if let move { found(k, move) }
            }
        }
    }

    /// ``match(_:candidates:movesKept:moves:)`` with the moves handed over one by one.
    package static func match(_ trace: Trace, candidates: [[Snap]], movesKept: Int = 1 << 20,
                              movesFound moves: MovesFound) -> [Matching] {
        precondition(candidates.count == trace.coordinates.count && candidates.count > 1)
        var model = Model(trace, candidates: candidates)
        model.movesKept = movesKept
        guard let splits = model.run(moves: moves) else { return [] }
        return model.matchings(endingAt: splits)
    }

    /// Metres between two fixes as the road lengths are measured (OSRM's `greatCircleDistance`),
    /// so that a straight road is as long as the line along it.
    package static func distance(_ a: Coordinate, _ b: Coordinate) -> Double {
        var ruler = LocalRuler.Bands()
        return ruler.distance(from: a, to: b)
    }

    /// Log-likelihood of a fix `distance` metres from a road point under noise `sigma`.
    package static func emission(_ distance: Double, sigma: Double) -> Double {
        -0.5 * (log(2 * Double.pi) + (distance / sigma) * (distance / sigma)) - log(sigma)
    }

    /// Log-likelihood of a move whose road is `delta` metres longer or shorter than the line.
    package static func transition(_ delta: Double) -> Double { -log(beta) - delta / beta }

    /// OSRM's confidence in a matching: a Bayes classifier (two Laplace distributions fitted to
    /// hand-classified traces) on how much longer the matched roads are than the trace.
    static func confidence(traceLength: Double, matchedLength: Double) -> Double {
        let feature = log(Double(Float(matchedLength))) - log(Double(Float(traceLength)))
        guard feature.isFinite else { return 0 }
        func laplace(_ x: Double, _ location: Double, _ scale: Double) -> Double {
            exp(-abs(x - location) / scale) / (2 * scale)
        }
        let good = 0.696774 * laplace(feature, 0.005986, 0.016646)
        let bad = (1 - 0.696774) * laplace(feature, 0.054385, 0.458432)
        // (Either label's answer is the good one's share.)
        return good + bad > 0 ? good / (good + bad) : 0
    }

    /// The fixes OSRM's `tidy` keeps, in order: the first and the last, and between them each
    /// fix after at least 15 m (and 5 s, with timestamps) since the last one kept.
    package static func tidied(_ coordinates: [Coordinate], timestamps: [Int]) -> [Int] {
        guard coordinates.count > 2 else { return Array(coordinates.indices) }
        var kept = [0]
        var metres = 0.0, seconds = 0
        for next in 1..<(coordinates.count - 1) {
            metres += distance(coordinates[next - 1], coordinates[next])
            if !timestamps.isEmpty { seconds += timestamps[next] - timestamps[next - 1] }
            if metres >= 15 && (timestamps.isEmpty || seconds >= 5) {
                kept.append(next)
                (metres, seconds) = (0, 0)
            }
        }
        kept.append(coordinates.count - 1)
        return kept
    }

    /// Whether the trace turns back at fix `i` (the ways in and out within 45° of each other), so
    /// that a U-turn there is plausible (OSRM keeps both directions of a road point only there).
    package static func turnsBack(_ coordinates: [Coordinate], at i: Int) -> Bool {
        guard i > 0 && i < coordinates.count - 1 else { return false }
        let here = coordinates[i]
        let scale = cos(here.latitude * .pi / 180)
        func angle(_ c: Coordinate) -> Double {
            atan2(c.latitude - here.latitude, (c.longitude - here.longitude) * scale)
        }
        var between = (angle(coordinates[i + 1]) - angle(coordinates[i - 1])) * 180 / .pi
        between = between.truncatingRemainder(dividingBy: 360)
        if between < 0 { between += 360 }
        return between <= 45 || between >= 315
    }
}

extension TraceMatching {
    /// The Viterbi trellis over the whole trace: per fix, per candidate, the best log-likelihood
    /// of a path ending there, where it came from, the road distance of its last move, and whether
    /// it is out of the running; per fix, whether no candidate is reachable (a breakage).
    struct Model {
        let trace: Trace
        let candidates: [[Snap]]
        var emissions: PerCandidate<Double>
        var viterbi: PerCandidate<Double>
        var parents: PerCandidate<(fix: Int, candidate: Int)>
        var lengths: PerCandidate<Double>
        var pruned: PerCandidate<Bool>
        var reachable: PerCandidate<Bool>
        var broken: [Bool]
        /// The moves found so far, kept because the pass takes steps again after it cuts the trace
        /// (and the roads have not changed): per step (fix, next fix) a block of ``movesFound``,
        /// a row per candidate of the fix (its moves to each candidate of the next), each row
        /// marked in ``rowFound`` once found. Each fix links the blocks into it, latest first.
        var blocks: [MoveBlock] = []
        var latestBlockInto: [Int32]
        var movesFound: [TraceMatching.Move] = []
        var rowFound: [Bool] = []
        /// The most moves ``movesFound`` keeps before it starts again (16 bytes each): a trace of
        /// many thousand fixes keeps no more.
        var movesKept = 1 << 20
        /// A step's live candidates and those of them without moves found, kept between steps (a
        /// list made per step cost more than the step's own arithmetic).
        private var live: [Int] = []
        private var missing: [Int] = []

        struct MoveBlock {
            var fix: Int32
            /// The block into the same next fix made before this one (-1: none).
            var before: Int32
            var firstRow: Int32
            var firstMove: Int32
        }

        init(_ trace: Trace, candidates: [[Snap]]) {
            self.trace = trace
            self.candidates = candidates
            var first = [0]
            first.reserveCapacity(candidates.count + 1)
            for list in candidates { first.append(first.last! + list.count) }
            emissions = PerCandidate(first: first, repeating: 0)
            for (t, list) in candidates.enumerated() {
                let sigma = (trace.precisions.isEmpty ? nil : trace.precisions[t]) ?? defaultPrecision
                // (No noise at all would make every likelihood 0 or infinite: a centimetre's.)
                for (s, snap) in list.enumerated() {
                    emissions[t, s] = emission(snap.distance, sigma: max(sigma, 0.01))
                }
            }
            viterbi = PerCandidate(first: first, repeating: -.infinity)
            parents = PerCandidate(first: first, repeating: (0, 0))
            lengths = PerCandidate(first: first, repeating: 0)
            pruned = PerCandidate(first: first, repeating: true)
            reachable = PerCandidate(first: first, repeating: false)
            broken = [Bool](repeating: true, count: candidates.count)
            latestBlockInto = [Int32](repeating: -1, count: candidates.count)
        }

        /// Forgets everything from fix `t` on.
        mutating func clear(from t: Int) {
            viterbi.fill(from: t, with: -.infinity)
            parents.fill(from: t, with: (0, 0))
            lengths.fill(from: t, with: 0)
            pruned.fill(from: t, with: true)
            reachable.fill(from: t, with: false)
            for u in t..<candidates.count { broken[u] = true }
        }

        /// Starts a matching at the first fix from `t` on that has a candidate; nil when none has.
        mutating func start(at t: Int) -> Int? {
            for u in t..<candidates.count {
                for s in candidates[u].indices {
                    viterbi[u, s] = emissions[u, s]
                    parents[u, s] = (u, s)
                    pruned[u, s] = !(viterbi[u, s] >= -Double.greatestFiniteMagnitude)
                    if !pruned[u, s] { broken[u] = false }
                }
                if !broken[u] { return u < candidates.count - 1 ? u : nil }
            }
            return nil
        }

        /// Seconds between fixes `a` and `b` (1 without timestamps).
        func seconds(from a: Int, to b: Int) -> Int {
            trace.timestamps.isEmpty ? 1 : trace.timestamps[b] - trace.timestamps[a]
        }

        /// The typical seconds between fixes (at least 1).
        var medianInterval: Int {
            guard trace.timestamps.count > 1 else { return 1 }
            let steps = zip(trace.timestamps.dropFirst(), trace.timestamps).map { $0 - $1 }.sorted()
            return max(1, steps[steps.count / 2])
        }
    }
}

extension TraceMatching.Model {
    /// The forward pass: each fix's candidates scored from the last unbroken fix before it, the
    /// trace cut where OSRM cuts it. Returns where each matching ends (exclusive), nil when no
    /// fix has a candidate to start from.
    mutating func run(moves: TraceMatching.MovesFound) -> [Int]? {
        guard let first = start(at: 0) else { return nil }
        // (Saturating: timestamps a caller gives may be as far apart as an Int allows.)
        let (product, overflow) = medianInterval.multipliedReportingOverflow(by: TraceMatching.maxBrokenStates)
        let maxBrokenTime = overflow ? Int.max : product
        var splits: [Int] = []
        var unbroken = [first]
        var breakageBegin: Int?
        var t = first + 1
        while t < candidates.count {
            let last = unbroken.last!
            let interval = seconds(from: last, to: t)
            let gap = !trace.timestamps.isEmpty && trace.splitsAtGaps
                ? interval > maxBrokenTime : t - last > TraceMatching.maxBrokenStates
            if !gap {
                step(from: last, to: t, seconds: interval, moves: moves)
                if broken[t] {
                    breakageBegin = min(t, breakageBegin ?? t)
                    unbroken.removeLast()
                } else {
                    unbroken.append(t)
                }
            }
            if unbroken.isEmpty || gap {
                // Cut where the breakage began (or here), and start again from there.
                let cut = breakageBegin ?? t
                breakageBegin = nil
                splits.append(cut)
                clear(from: cut)
                guard let restart = start(at: cut) else { return splits }
                unbroken = [restart]
                t = restart
            }
            t += 1
        }
        if let last = unbroken.last { splits.append(last + 1) }
        return splits
    }

    /// Scores fix `t`'s candidates from fix `last`'s live ones.
    mutating func step(from last: Int, to t: Int, seconds: Int, moves: TraceMatching.MovesFound) {
        var live: [Int] = []
        swap(&live, &self.live)
        defer { swap(&live, &self.live) }
        live.removeAll(keepingCapacity: true)
        for s in candidates[last].indices where !pruned[last, s] { live.append(s) }
        guard !live.isEmpty && !candidates[t].isEmpty else { return }
        let straight = TraceMatching.distance(trace.coordinates[last], trace.coordinates[t])
        let maxDelta = trace.timestamps.isEmpty ? TraceMatching.maxDistanceDelta : Double(seconds) * trace.maxSpeed
        // (As OSRM, no way weighing more than the line and the largest difference at 4 m/s.)
        let block = movesBlock(from: last, live, to: t, maxWeight: (straight + maxDelta) / 4, moves: moves)
        let columns = candidates[t].count
        for s in live {
            let row = Int(block.firstMove) + s * columns
            for next in 0..<columns {
                guard let road = movesFound[row + next] else { continue }
                let delta = abs(road - straight)
                guard delta < maxDelta else { continue }
                let score = viterbi[last, s] + emissions[t, next] + TraceMatching.transition(delta)
                guard score > viterbi[t, next] else { continue }
                viterbi[t, next] = score
                parents[t, next] = (last, s)
                lengths[t, next] = road
                pruned[t, next] = false
                broken[t] = false
            }
        }
    }

    /// The block of the moves from fix `last` to fix `t`, its rows for the `live` candidates
    /// found (those not found before, now: one table for them all).
    mutating func movesBlock(from last: Int, _ live: [Int], to t: Int, maxWeight: Double,
                             moves: TraceMatching.MovesFound) -> MoveBlock {
        let columns = candidates[t].count
        if movesFound.count > movesKept { forgetMoves() }
        var b = Int(latestBlockInto[t])
        while b >= 0 && blocks[b].fix != last { b = Int(blocks[b].before) }
        if b < 0 {
            b = blocks.count
            blocks.append(MoveBlock(fix: Int32(last), before: latestBlockInto[t], firstRow: Int32(rowFound.count),
                                    firstMove: Int32(movesFound.count)))
            latestBlockInto[t] = Int32(b)
            // (Element by element: a few, where appending a repeated one went the generic way.)
            for _ in 0..<candidates[last].count { rowFound.append(false) }
            for _ in 0..<(candidates[last].count * columns) { movesFound.append(nil) }
        }
        let block = blocks[b]
        var missing: [Int] = []
        swap(&missing, &self.missing)
        defer { swap(&missing, &self.missing) }
        missing.removeAll(keepingCapacity: true)
        for s in live where !rowFound[Int(block.firstRow) + s] { missing.append(s) }
        guard !missing.isEmpty else { return block }
        for s in missing { rowFound[Int(block.firstRow) + s] = true }
        // (The rows' moves are nil already: those found are written in. All the fix's candidates,
        // in order, are its list as it is.)
        let from = missing.count == candidates[last].count ? candidates[last] : missing.map { candidates[last][$0] }
        moves(from, candidates[t], maxWeight) { k, metres in
            let (m, next) = k.quotientAndRemainder(dividingBy: columns)
            movesFound[Int(block.firstMove) + missing[m] * columns + next] = metres
        }
        return block
    }

    mutating func forgetMoves() {
        blocks.removeAll(keepingCapacity: true)
        movesFound.removeAll(keepingCapacity: true)
        rowFound.removeAll(keepingCapacity: true)
        for t in latestBlockInto.indices { latestBlockInto[t] = -1 }
    }

    /// The matchings the pass found, each read back from its best last state.
    mutating func matchings(endingAt splits: [Int]) -> [TraceMatching.Matching] {
        var result: [TraceMatching.Matching] = []
        var begin = 0
        while begin < candidates.count && broken[begin] { begin += 1 }
        for end in splits {
            defer { begin = end }
            var last = end - 1
            while last >= begin && broken[last] { last -= 1 }
            while begin < end && broken[begin] { begin += 1 }
            guard last >= begin + 1 else { continue }
            let path = bestPath(endingAt: last, from: begin)
            guard path.count >= 2 else { continue }
            markReachable(endingAt: last, from: begin)
            result.append(matching(along: path))
        }
        return result
    }

    /// The chosen (fix, candidate) pairs from `begin` to `last`, following parents back from the
    /// likeliest candidate at `last`.
    mutating func bestPath(endingAt last: Int, from begin: Int) -> [(fix: Int, candidate: Int)] {
        var best = 0
        for s in candidates[last].indices.dropFirst() where viterbi[last, s] > viterbi[last, best] { best = s }
        var path: [(fix: Int, candidate: Int)] = []
        var (t, s) = (last, best)
        while t > begin {
            path.append((t, s))
            reachable[t, s] = true
            let parent = parents[t, s]
            if parent.fix == t { break }
            (t, s) = parent
        }
        path.append((t, s))
        reachable[t, s] = true
        return path.reversed()
    }

    /// Marks every candidate some candidate at `last` leads back through (OSRM's count of
    /// alternatives at each fix).
    mutating func markReachable(endingAt last: Int, from begin: Int) {
        for end in candidates[last].indices {
            var (t, s) = (last, end)
            while t > begin && !reachable[t, s] && !pruned[t, s] {
                reachable[t, s] = true
                (t, s) = parents[t, s]
            }
            reachable[t, s] = true
        }
    }

    func matching(along path: [(fix: Int, candidate: Int)]) -> TraceMatching.Matching {
        var matching = TraceMatching.Matching()
        var matched = 0.0, straight = 0.0
        for (k, (t, s)) in path.enumerated() {
            matching.fixes.append(t)
            matching.candidates.append(s)
            matching.alternatives.append(reachable.row(t).reduce(0) { $0 + ($1 ? 1 : 0) } - 1)
            matched += lengths[t, s]
            if k > 0 { straight += TraceMatching.distance(trace.coordinates[path[k - 1].fix], trace.coordinates[t]) }
        }
        matching.confidence = TraceMatching.confidence(traceLength: straight, matchedLength: matched)
        return matching
    }
}

/// One value per candidate of every fix of a trace, in one array (fix t's at `first[t]..<first[t + 1]`):
/// the trellis as a handful of arrays, not a handful per fix.
struct PerCandidate<Value> {
    let first: [Int]
    var values: [Value]

    init(first: [Int], repeating value: Value) {
        self.first = first
        values = Array(repeating: value, count: first.last ?? 0)
    }

    subscript(t: Int, s: Int) -> Value {
        get { values[first[t] + s] }
        set { values[first[t] + s] = newValue }
    }

    /// Fix `t`'s values, by candidate.
    func row(_ t: Int) -> ArraySlice<Value> { values[first[t]..<first[t + 1]] }

    /// Sets every value of fix `t` and the fixes after it to `value`.
    mutating func fill(from t: Int, with value: Value) {
        for k in first[t]..<values.count { values[k] = value }
    }
}
