import WaymarkGraph

/// OSRM's `handleComplexTurn` for the roads beside the way on at a junction of four roads or
/// more: the turns to each side of it (the obvious road, a fork, or the road nearest straight on)
/// told apart, so that two left turns are `slight left` and `left` rather than both `left`
/// (`assignLeftTurns`, `assignRightTurns`, `handleDistinctConflict`).
extension TurnClassifier {
    /// What OSRM's side assignment gives one road: a modifier, or the obvious road's own
    /// instruction (``obviousDecision(arrival:junction:taken:throughStreet:)``).
    enum SideAssignment: Equatable {
        case modifier(ManeuverModifier)
        case obvious
    }

    /// A road as the side assignment sees it: its turn angle (mirrored for the left side) and
    /// whether it may be entered.
    struct SideRoad {
        var angle: Double
        var entry: Bool
        var priority: Int
    }

    /// The decision for the road taken, `t`, neither the obvious road nor a fork's.
    func sideTurnDecision(arrival e: Int, junction j: Junction, taken t: Int, obvious: Int?,
                          fork: ClosedRange<Int>?) -> TurnDecision {
        let roads = j.roads, n = roads.count, f = roads[t].out
        let plain = TurnDecision.maneuver(basicType(e, f), ManeuverModifier(angle: roads[t].angle))
        // Right turns are the roads before `rightEnd`, left turns those after `leftAfter`.
        let rightEnd: Int, leftAfter: Int
        if let o = obvious {
            (rightEnd, leftAfter) = (o, o)
        } else if let fork {
            (rightEnd, leftAfter) = (fork.lowerBound, fork.upperBound)
        } else {
            var s = 0
            for i in roads.indices where roads[i].deviation < roads[s].deviation { s = i }
            if roads[s].deviation < TurnClassifier.fuzzyAngleDifference && !roads[s].entry {
                (rightEnd, leftAfter) = (s, s)
            } else if roads[s].angle > 180 {
                (rightEnd, leftAfter) = (s, s - 1)
            } else if roads[s].angle < 180 {
                (rightEnd, leftAfter) = (s + 1, s)
            } else {
                return plain
            }
        }
        func side(_ i: Int, mirrored: Bool) -> SideRoad {
            SideRoad(angle: mirrored ? 360 - roads[i].angle : roads[i].angle, entry: roads[i].entry,
                     priority: roads[i].out >= 0 ? graph.highway(of: roads[i].out).osrmPriority
                        : data(of: roads[i]).highway.osrmPriority)
        }
        let assigned: SideAssignment?
        if t < rightEnd {
            assigned = Self.assignRightTurns((1..<rightEnd).map { side($0, mirrored: false) })[t - 1]
        } else if t > leftAfter {
            // Mirrored, the sharpest left first: the left side becomes a right side.
            let order = Array(((leftAfter + 1)..<n).reversed())
            let result = Self.assignRightTurns(order.map { side($0, mirrored: true) })
            assigned = result[order.firstIndex(of: t)!].map { a in
                if case let .modifier(m) = a { return .modifier(m.mirrored) }
                return a
            }
        } else {
            return plain
        }
        switch assigned {
        case .modifier(let m): return .maneuver(basicType(e, f), m)
        case .obvious: return obviousDecision(arrival: e, junction: j, taken: t, throughStreet: false)
        case nil: return plain
        }
    }

    /// OSRM's `assignRightTurns` over the roads to the right of the way on (nearest the U-turn
    /// first): up to three told apart, more each by its own angle. Nil for a road left as it is.
    static func assignRightTurns(_ roads: [SideRoad]) -> [SideAssignment?] {
        var result = [SideAssignment?](repeating: nil, count: roads.count)
        func trivial(_ range: Range<Int>) {
            for i in range where roads[i].entry { result[i] = .modifier(ManeuverModifier(angle: roads[i].angle)) }
        }
        func conflict(left l: Int, right r: Int) {
            let (left, right) = distinctConflict(left: roads[l], right: roads[r])
            result[l] = left
            result[r] = right
        }
        guard roads.contains(where: \.entry) else { return result }
        let directions = roads.map { ManeuverModifier(angle: $0.angle) }
        switch roads.count {
        case 1:
            trivial(0..<1)
        case 2:
            if directions[0] == directions[1] { conflict(left: 1, right: 0) } else { trivial(0..<2) }
        case 3:
            assignThree(roads, directions, into: &result)
        default:
            trivial(0..<roads.count)
        }
        return result
    }

    /// `assignRightTurns` for three roads to one side.
    private static func assignThree(_ roads: [SideRoad], _ directions: [ManeuverModifier],
                                    into result: inout [SideAssignment?]) {
        func conflict(left l: Int, right r: Int) {
            let (left, right) = distinctConflict(left: roads[l], right: roads[r])
            result[l] = left
            result[r] = right
        }
        func trivial() {
            for i in 0..<3 where roads[i].entry { result[i] = .modifier(directions[i]) }
        }
        let (first, second, third) = (directions[0], directions[1], directions[2])
        let apart01 = PerceivedBearing.deviation(roads[0].angle, roads[1].angle)
        let apart12 = PerceivedBearing.deviation(roads[1].angle, roads[2].angle)
        if first != second && second != third {
            trivial()
        } else if roads.filter(\.entry).count <= 2 {
            if !roads[2].entry { conflict(left: 1, right: 0) }
            else if !roads[0].entry { conflict(left: 2, right: 1) }
            else { conflict(left: 2, right: 0) }
        } else if apart01 >= TurnClassifier.narrowTurnAngle && apart12 >= TurnClassifier.narrowTurnAngle {
            result[0] = .modifier(.sharpRight)
            result[1] = .modifier(.right)
            result[2] = .modifier(.slightRight)
        } else if (first == second && second == third) || (first == second && apart12 < TurnClassifier.groupAngle)
                    || (second == third && apart01 < TurnClassifier.groupAngle) {
            trivial()
        } else if apart12 >= TurnClassifier.groupAngle {
            conflict(left: 1, right: 0)
            result[2] = .modifier(third)
        } else {
            result[0] = .modifier(first)
            conflict(left: 2, right: 1)
        }
    }

    /// OSRM's `handleDistinctConflict`: two roads to one side with one modifier told apart (`left`
    /// the one nearer straight on).
    static func distinctConflict(left: SideRoad, right: SideRoad) -> (SideAssignment?, SideAssignment?) {
        func own(_ r: SideRoad) -> SideAssignment? { r.entry ? .modifier(ManeuverModifier(angle: r.angle)) : nil }
        if !left.entry || !right.entry || left.angle == right.angle { return (own(left), own(right)) }
        let l = ManeuverModifier(angle: left.angle), r = ManeuverModifier(angle: right.angle)
        if l == .straight || l == .slightLeft || r == .slightRight {
            // The more important road goes on as the obvious one (lower OSRM priority is more important).
            return left.priority > right.priority ? (.modifier(.slightLeft), .obvious)
                : (.obvious, .modifier(.slightRight))
        }
        let exact = 3.0 // OSRM's MAXIMAL_ALLOWED_NO_TURN_DEVIATION
        func pair(_ a: ManeuverModifier, _ b: ManeuverModifier) -> (SideAssignment?, SideAssignment?) {
            (.modifier(a), .modifier(b))
        }
        if PerceivedBearing.deviation(left.angle, 90) < exact { return pair(.right, .sharpRight) }
        if PerceivedBearing.deviation(right.angle, 90) < exact { return pair(.slightRight, .right) }
        if PerceivedBearing.deviation(left.angle, 270) < exact { return pair(.left, .slightLeft) }
        if PerceivedBearing.deviation(right.angle, 270) < exact { return pair(.sharpLeft, .left) }
        if l == .sharpLeft { return pair(.sharpLeft, .left) }
        if r == .sharpRight { return pair(.right, .sharpRight) }
        // (OSRM then asks whether the left road turns right by comparing a modifier with 180,
        // which always holds: both are told as right turns.)
        return PerceivedBearing.deviation(left.angle, 85) >= PerceivedBearing.deviation(right.angle, 85)
            ? pair(.slightRight, .right) : pair(.right, .sharpRight)
    }
}

extension ManeuverModifier {
    /// The same turn to the other side.
    var mirrored: ManeuverModifier {
        switch self {
        case .sharpRight: .sharpLeft
        case .right: .left
        case .slightRight: .slightLeft
        case .slightLeft: .slightRight
        case .left: .right
        case .sharpLeft: .sharpRight
        case .straight, .uturn: self
        }
    }
}
