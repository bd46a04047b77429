/// The order to visit stops in, on their duration table, as OSRM's `trip` chooses it: the best
/// round trip by dynamic programming (Held and Karp; exact, as brute force) up to
/// ``exactLimit`` stops, else farthest insertion improved by 2-opt and Or-opt moves (OSRM: 2-opt
/// alone). A fixed start or end, and a trip that does not come back, are OSRM's changes to the
/// table, so that one round-trip search answers them all.
public enum TripOrder {
    /// Stops up to which the order is exact (OSRM's `DP_MAX_FEASIBLE`).
    public static let exactLimit = 15

    /// A duration no tour takes where a choice exists (OSRM's INVALID_EDGE_DURATION).
    static let forbidden = 1e12

    /// The visit order (stop indices, each once) for `durations` (`durations[i][j]`: seconds
    /// from stop i to stop j; nil where j cannot be reached from i): a round trip (from the
    /// last stop back to the first), or not; starting at stop 0 where `fixedStart`, ending at the
    /// last stop where `fixedEnd`. Nil where some stop cannot be reached from another (OSRM's
    /// `NoTrips`), or for the combination OSRM does not implement (neither fixed, not a round
    /// trip: ``isSupported(roundtrip:fixedStart:fixedEnd:)``).
    public static func order(durations: [[Double?]], roundtrip: Bool, fixedStart: Bool,
                             fixedEnd: Bool) -> [Int]? {
        let n = durations.count
        guard isSupported(roundtrip: roundtrip, fixedStart: fixedStart, fixedEnd: fixedEnd), n > 0 else { return nil }
        guard durations.allSatisfy({ $0.count == n && $0.allSatisfy { $0 != nil } }) else { return nil }
        var table = durations.map { $0.map { $0! } }
        let source = 0, destination = n - 1
        if fixedStart && fixedEnd {
            for i in 0..<n where i != source { table[i][source] = forbidden }
            for j in 0..<n where j != destination { table[destination][j] = forbidden }
            table[destination][source] = 0
            if n > 1 { table[source][destination] = forbidden }
        } else if !roundtrip && fixedStart {
            for i in 0..<n { table[i][source] = 0 }
        } else if !roundtrip && fixedEnd {
            for j in 0..<n { table[destination][j] = 0 }
        }
        var tour = n <= exactLimit ? exact(table) : improved(farthestInsertion(table), table)
        // Rotated as OSRM rotates it: from the start, or (an end alone fixed) after the end.
        if !fixedEnd || fixedStart {
            tour = rotated(tour, toStartAt: tour.firstIndex(of: source)!)
        } else {
            let at = tour.firstIndex(of: destination)!
            tour = rotated(tour, toStartAt: roundtrip ? at : (at + 1) % n)
        }
        return tour
    }

    /// OSRM implements every combination but a trip that neither comes back nor has a fixed end.
    public static func isSupported(roundtrip: Bool, fixedStart: Bool, fixedEnd: Bool) -> Bool {
        roundtrip || fixedStart || fixedEnd
    }

    /// Seconds of `tour` on `table`, back to its first stop when `roundtrip`.
    public static func duration(of tour: [Int], _ table: [[Double]], roundtrip: Bool) -> Double {
        guard tour.count > 1 else { return 0 }
        var total = 0.0
        for (a, b) in zip(tour, tour.dropFirst()) { total += table[a][b] }
        return roundtrip ? total + table[tour.last!][tour[0]] : total
    }

    static func rotated(_ tour: [Int], toStartAt i: Int) -> [Int] { Array(tour[i...] + tour[..<i]) }

    /// The shortest round trip, from stop 0: Held and Karp's dynamic programme over subsets.
    package static func exact(_ d: [[Double]]) -> [Int] {
        let n = d.count
        guard n > 2 else { return Array(0..<n) }
        // best[set][last]: the least seconds from 0 through the stops of `set` (bits 1…n−1),
        // ending at `last`.
        let sets = 1 << (n - 1)
        var best = [Double](repeating: .infinity, count: sets * n)
        var previous = [Int8](repeating: -1, count: sets * n)
        for k in 1..<n { best[(1 << (k - 1)) * n + k] = d[0][k] }
        for set in 1..<sets {
            for last in 1..<n where set & (1 << (last - 1)) != 0 {
                let here = best[set * n + last]
                guard here.isFinite else { continue }
                for next in 1..<n where set & (1 << (next - 1)) == 0 {
                    let grown = set | (1 << (next - 1)), cost = here + d[last][next]
                    if cost < best[grown * n + next] {
                        best[grown * n + next] = cost
                        previous[grown * n + next] = Int8(last)
                    }
                }
            }
        }
        let all = sets - 1
        var last = (1..<n).min { best[all * n + $0] + d[$0][0] < best[all * n + $1] + d[$1][0] }!
        var tour: [Int] = [], set = all
        while last > 0 {
            tour.append(last)
            let before = Int(previous[set * n + last])
            set &= ~(1 << (last - 1))
            last = max(0, before)
        }
        return [0] + tour.reversed()
    }

    /// OSRM's farthest insertion: the two stops farthest apart, then again and again the stop
    /// farthest from the tour, put where it lengthens the tour least.
    package static func farthestInsertion(_ d: [[Double]]) -> [Int] {
        let n = d.count
        guard n > 2 else { return Array(0..<n) }
        var (a, b) = (0, 1)
        for i in 0..<n { for j in 0..<n where i != j && d[i][j] > d[a][b] { (a, b) = (i, j) } }
        var tour = [a, b]
        var inTour = [Bool](repeating: false, count: n)
        (inTour[a], inTour[b]) = (true, true)
        // Each stop's least seconds from the tour so far.
        var nearest = (0..<n).map { min(d[a][$0], d[b][$0]) }
        for _ in 2..<n {
            let far = (0..<n).filter { !inTour[$0] }.max { nearest[$0] < nearest[$1] }!
            var place = 0, added = Double.infinity
            for i in 0..<tour.count {
                let from = tour[i], to = tour[(i + 1) % tour.count]
                let cost = d[from][far] + d[far][to] - d[from][to]
                if cost < added { (place, added) = (i + 1, cost) }
            }
            tour.insert(far, at: place)
            inTour[far] = true
            for k in 0..<n { nearest[k] = min(nearest[k], d[far][k]) }
        }
        return tour
    }

    /// `tour` improved until no 2-opt move (a stretch driven backwards) or Or-opt move (one to
    /// three stops moved elsewhere) shortens the round trip; never longer than `tour`. Each move
    /// is priced by what it changes (the table is not symmetric: a reversed stretch is summed
    /// both ways as it grows), not by summing the whole tour again.
    package static func improved(_ tour: [Int], _ d: [[Double]]) -> [Int] {
        var tour = tour
        let n = tour.count
        var better = n > 3
        while better {
            better = false
            for i in 1..<(n - 1) {
                // The stretch i…j's seconds driven forwards and backwards.
                var forwards = 0.0, backwards = 0.0
                for j in (i + 1)..<n {
                    forwards += d[tour[j - 1]][tour[j]]
                    backwards += d[tour[j]][tour[j - 1]]
                    let before = tour[i - 1], after = tour[(j + 1) % n]
                    let change = d[before][tour[j]] + backwards + d[tour[i]][after]
                        - d[before][tour[i]] - forwards - d[tour[j]][after]
                    if change < -1e-9 {
                        tour[i...j].reverse()
                        swap(&forwards, &backwards)
                        better = true
                    }
                }
            }
            for length in 1...3 where length < n - 1 {
                for i in 1...(n - length) {
                    let first = tour[i], last = tour[i + length - 1]
                    let before = tour[i - 1], after = tour[(i + length) % n]
                    let saved = d[before][first] + d[last][after] - d[before][after]
                    var rest = tour
                    rest.removeSubrange(i..<(i + length))
                    for k in 1...rest.count where k != i {
                        let a = rest[k - 1], b = rest[k % rest.count]
                        if d[a][first] + d[last][b] - d[a][b] - saved < -1e-9 {
                            rest.insert(contentsOf: tour[i..<(i + length)], at: k)
                            (tour, better) = (rest, true)
                            break
                        }
                    }
                    if better { break }
                }
            }
        }
        return tour
    }
}
