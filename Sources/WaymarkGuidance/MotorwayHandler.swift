import WaymarkGraph

/// OSRM's `MotorwayHandler`: junctions of motorway-class roads and their ramps only, none turning
/// off by more than 60°. From a motorway, the road that goes on is told as the obvious way and
/// every other as an off ramp (or a turn) to its side, motorways splitting as forks; from a ramp,
/// joining the motorway is a merge to the side it comes from.
extension TurnClassifier {
    /// The decision for road `t`, when the motorway handler decides this junction (OSRM's
    /// `canProcess`); nil when another handler does.
    func motorwayDecision(arrival e: Int, junction j: Junction, taken t: Int) -> TurnDecision? {
        let fromMotorway = graph.highway(of: e).isMotorwayClass
        guard isMotorwayJunction(j, fromMotorway: fromMotorway) else { return nil }
        return fromMotorway ? fromMotorwayDecision(arrival: e, junction: j, taken: t)
            : fromRampDecision(arrival: e, junction: j, taken: t)
    }

    /// OSRM's `fromMotorway`.
    private func fromMotorwayDecision(arrival e: Int, junction j: Junction, taken t: Int) -> TurnDecision {
        let roads = j.roads
        func motorway(_ i: Int) -> Bool { data(of: roads[i]).highway.isMotorwayClass }
        guard let on = motorwayContinuation(arrival: e, junction: j) else {
            // The motorway ends: in a ramp passing by, a fork of ramps, or three ways alike.
            switch roads.count {
            case 2: return .silent
            case 3:
                guard roads[1].entry && roads[2].entry else { return .silent }
                return twoWayFork(arrival: e, junction: j, left: 2, right: 1, taken: t)
            case 4 where data(of: roads[1]).highway == data(of: roads[2]).highway
                && data(of: roads[2]).highway == data(of: roads[3]).highway:
                return threeWayFork(arrival: e, junction: j, left: 3, center: 2, right: 1, taken: t)
            default: return motorwayFallback(junction: j, taken: t)
            }
        }
        let valid = roads.indices.filter { roads[$0].entry }
        let motorways = valid.filter(motorway)
        if motorways.isEmpty { return .silent } // ending in ramps
        if motorways.count == 1 || motorways.count != valid.count {
            // A motorway passing ramps, or merging onto another.
            let road = roads[t]
            if roads.count == 2 || road.angle == on {
                return obviousDecision(arrival: e, junction: j, taken: t,
                                       throughStreet: isThroughStreet(j, taken: 1))
            }
            let type: ManeuverType = data(of: road).highway.isRamp ? .offRamp : .turn
            if road.angle < on { return .maneuver(type, road.angle < 145 ? .right : .slightRight) }
            return .maneuver(type, road.angle > 215 ? .left : .slightLeft)
        }
        switch motorways.count {
        case 2: return twoWayFork(arrival: e, junction: j, left: motorways[1], right: motorways[0], taken: t)
        case 3: return threeWayFork(arrival: e, junction: j, left: motorways[2], center: motorways[1],
                                    right: motorways[0], taken: t)
        default: return motorwayFallback(junction: j, taken: t)
        }
    }

    /// OSRM's `fromRamp`.
    private func fromRampDecision(arrival e: Int, junction j: Junction, taken t: Int) -> TurnDecision {
        let roads = j.roads
        func motorway(_ i: Int) -> Bool { data(of: roads[i]).highway.isMotorwayClass }
        let enterable = roads.filter(\.entry).count
        switch roads.count {
        case 2 where enterable == 1:
            return obviousDecision(arrival: e, junction: j, taken: t, throughStreet: isThroughStreet(j, taken: 1))
        case 3 where enterable == 1:
            // Merging onto a passing motorway of one name (the side the ramp comes from says which
            // way), or passing the end of one.
            let right = data(of: roads[1]).segment, left = data(of: roads[2]).segment
            if motorway(t) && graph.segmentName[right] != 0 && graph.segmentName[left] != 0
                && !announcesSegments(left, right) {
                if roads[t].deviation < 2 * TurnClassifier.narrowTurnAngle {
                    return .maneuver(.merge, t == 1 ? .slightLeft : .slightRight)
                }
                return .maneuver(.merge, ManeuverModifier(angle: roads[t].angle))
            }
            return obviousDecision(arrival: e, junction: j, taken: t)
        case 3:
            // Two ways on from the ramp's end: two motorways fork; a motorway entry passed by a
            // ramp going on is a slight right onto the motorway, the ramp continuing slight left.
            if motorway(1) && !motorway(2) {
                return t == 1 ? .maneuver(.turn, .slightRight) : .maneuver(.continue, .slightLeft)
            }
            return twoWayFork(arrival: e, junction: j, left: 2, right: 1, taken: t)
        case 4:
            // On and off ramps beside a passing motorway: merging onto it to the side of its entry.
            guard motorway(t) else { return .maneuver(.offRamp, ManeuverModifier(angle: roads[t].angle)) }
            let passedEntry = (0..<t).contains { !roads[$0].entry && motorway($0) }
            return .maneuver(.merge, passedEntry ? .slightRight : .slightLeft)
        default:
            return motorwayFallback(junction: j, taken: t)
        }
    }

    /// OSRM's `assignFork` for two roads: both fork, unless one is a minor road (then the other is
    /// silent and the minor one a turn).
    private func twoWayFork(arrival e: Int, junction j: Junction, left: Int, right: Int,
                            taken t: Int) -> TurnDecision {
        guard t == left || t == right else { return .silent }
        let leftMinor = data(of: j.roads[left]).highway.mayBeIgnored,
            rightMinor = data(of: j.roads[right]).highway.mayBeIgnored
        let side: ManeuverModifier = t == left ? .slightLeft : .slightRight
        let (mine, theirs) = t == left ? (leftMinor, rightMinor) : (rightMinor, leftMinor)
        if theirs && !mine { return silentOrNotification(arrival: e, onto: j.roads[t].out, side) }
        return .maneuver(mine && !theirs ? .turn : .fork, side)
    }

    /// OSRM's `assignFork` for three roads, all enterable or not.
    private func threeWayFork(arrival e: Int, junction j: Junction, left: Int, center: Int, right: Int,
                              taken t: Int) -> TurnDecision {
        let roads = j.roads
        switch (roads[left].entry, roads[center].entry, roads[right].entry) {
        case (true, true, true):
            if t == left { return .maneuver(.fork, .slightLeft) }
            if t == right { return .maneuver(.fork, .slightRight) }
            guard t == center else { return .silent }
            if roads[center].deviation < 3 && !announces(e, roads[center].out) {
                return silentOrNotification(arrival: e, onto: roads[center].out, .straight)
            }
            return .maneuver(.fork, .straight)
        case (true, _, true): return twoWayFork(arrival: e, junction: j, left: left, right: right, taken: t)
        case (true, true, false): return twoWayFork(arrival: e, junction: j, left: left, right: center, taken: t)
        case (false, true, true): return twoWayFork(arrival: e, junction: j, left: center, right: right, taken: t)
        default:
            return .maneuver(basicType(e, roads[t].out), ManeuverModifier(angle: roads[t].angle))
        }
    }

    /// OSRM's motorway `fallback`: motorways merge, other roads turn slightly (or go straight on).
    private func motorwayFallback(junction j: Junction, taken t: Int) -> TurnDecision {
        let road = j.roads[t]
        if data(of: road).highway.isMotorwayClass {
            return .maneuver(.merge, road.angle < 180 ? .slightLeft : .slightRight)
        }
        if road.deviation < TurnClassifier.fuzzyAngleDifference { return .maneuver(.turn, .straight) }
        return .maneuver(.turn, road.angle > 180 ? .slightLeft : .slightRight)
    }

    /// Unsaid, unless the mode changes (OSRM's `Suppressed` or `Notification`).
    private func silentOrNotification(arrival e: Int, onto f: Int, _ modifier: ManeuverModifier) -> TurnDecision {
        graph.changesMode(e, f) ? .maneuver(.notification, modifier) : .silent
    }
}
