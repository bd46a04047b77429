import WaymarkGeo
import WaymarkGraph
import WaymarkQueries
import WaymarkPreparation

/// What happens at one junction of a route: nothing worth saying (`silent`), or a maneuver.
package enum TurnDecision: Hashable {
    case silent
    case maneuver(ManeuverType, ManeuverModifier)
}

/// The classifier's verdict on one turn at a junction, as a map keeps it for every turn
/// (``GuidanceTables/decisions``): made when the map is prepared for routing, as OSRM decides
/// each turn's instruction when it builds its graph, rather than on every route.
package enum TurnVerdict: Hashable {
    /// OSRM's `DrivewayHandler`: past minor roads on a road of one name; not even listed.
    case drivewayPassage
    case decided(TurnDecision)

    /// Codes from `firstManeuver` on are maneuvers: `firstManeuver + type × modifierSlots +
    /// modifier`, by the types' and modifiers' stored numbers (graph files keep these codes).
    private static let firstManeuver = 3
    private static let modifierSlots = 8
    /// One past the largest code.
    static let codeLimit = firstManeuver + ManeuverType.byStoredNumber.count * modifierSlots
    /// The code of a turn not decided in advance (one no route may take, or a table from before).
    static let unknown: UInt8 = 0

    /// The verdict one byte stands for; nil for ``unknown`` (or a code out of range).
    init?(code: UInt8) {
        switch Int(code) {
        case 1: self = .decided(.silent)
        case 2: self = .drivewayPassage
        case TurnVerdict.firstManeuver..<TurnVerdict.codeLimit:
            let k = Int(code) - TurnVerdict.firstManeuver, n = TurnVerdict.modifierSlots
            guard k % n < ManeuverModifier.byStoredNumber.count else { return nil }
            self = .decided(.maneuver(ManeuverType.byStoredNumber[k / n], ManeuverModifier.byStoredNumber[k % n]))
        default: return nil
        }
    }

    var code: UInt8 {
        switch self {
        case .decided(.silent): return 1
        case .drivewayPassage: return 2
        case let .decided(.maneuver(type, modifier)):
            return UInt8(
                TurnVerdict.firstManeuver + type.storedNumber * TurnVerdict.modifierSlots + modifier.storedNumber)
        }
    }
}

extension ManeuverModifier {
    /// OSRM's `getTurnDirection`: the modifier for a turn angle (180 straight on, below 180 right).
    init(angle: Double) {
        switch angle {
        case let a where a > 0 && a < 60: self = .sharpRight
        case 60..<140: self = .right
        case 140..<160: self = .slightRight
        case 160...200: self = .straight
        case let a where a > 200 && a <= 220: self = .slightLeft
        case let a where a > 220 && a <= 300: self = .left
        case let a where a > 300 && a < 360: self = .sharpLeft
        default: self = .uturn
        }
    }
}

extension HighwayClass {
    var isRamp: Bool {
        switch self {
        case .motorwayLink, .trunkLink, .primaryLink, .secondaryLink, .tertiaryLink: true
        default: false
        }
    }
    var isMotorwayClass: Bool { self == .motorway || self == .trunk }
}

/// Decides the maneuver at each junction the way OSRM's guidance does: obvious continuations are
/// silent, name changes announced only when OSRM would, forks, ends of roads, ramps and merges.
package final class TurnClassifier: Sendable {
    let graph: RoadGraph
    let names: NameKeys

    init(graph: RoadGraph, names: NameKeys) {
        self.graph = graph
        self.names = names
    }

    // OSRM's guidance constants (include/extractor/intersection/constants.hpp, guidance/constants.hpp).
    static let narrowTurnAngle = 40.0
    static let groupAngle = 60.0
    static let fuzzyAngleDifference = 25.0
    static let distinctionRatio = 2.0
    static let maxCollapseDistance = 30.0

    func name(_ e: Int) -> String { graph.name(of: e) }

    /// Whether driving from edge `e` onto edge `f` must be announced (OSRM's `requiresNameAnnounced`).
    func announces(_ e: Int, _ f: Int) -> Bool { announcesSegments(graph.segment(of: e), graph.segment(of: f)) }

    /// Whether going from segment `s` onto segment `t` must be announced (OSRM's `requiresNameAnnounced`).
    func announcesSegments(_ s: Int, _ t: Int) -> Bool {
        let exits = (exitsID(s), exitsID(t))
        if graph.segmentName[s] == graph.segmentName[t] && graph.segmentRef[s] == graph.segmentRef[t]
            && exits.0 == exits.1 { return false }
        return NameChange.mustAnnounce(from: (graph.segmentName[s], graph.segmentRef[s]),
                                       to: (graph.segmentName[t], graph.segmentRef[t]), exits: exits,
                                       strings: graph.strings, keys: names)
    }

    /// The string id of segment `s`'s exit numbers (`junction:ref`), 0 for none.
    private func exitsID(_ s: Int) -> UInt32 { graph.signID(segment: s, column: 2) }

    /// OSRM's `HaveIdenticalNames`: both named and no announcement either way.
    func identicalNames(_ s: Int, _ t: Int) -> Bool {
        !hasNoName(s) && !hasNoName(t) && !announcesSegments(s, t) && !announcesSegments(t, s)
    }

    /// OSRM's empty name id: neither a name nor a ref.
    func hasNoName(_ s: Int) -> Bool { graph.segmentName[s] == 0 && graph.segmentRef[s] == 0 }

    /// What OSRM's guidance reads of one road at a junction.
    struct RoadData {
        var segment: Int
        var highway: HighwayClass
        var roundabout: Bool
        var restricted: Bool
    }

    /// The road of segment key `key` (segment << 1, plus 1 against its stored direction), driven
    /// away from the junction in that direction.
    func data(key: Int) -> RoadData {
        let s = key >> 1
        let flags = EdgeFlags(rawValue: graph.segmentFlags[s])
        return RoadData(segment: s, highway: HighwayClass(stored: graph.segmentHighway[s]),
                        roundabout: flags.contains(.roundabout),
                        restricted: flags.contains(key & 1 == 1 ? .restrictedBackward : .restrictedForward))
    }

    func data(ofEdge e: Int) -> RoadData { data(key: Int(graph.edgeSegment[e])) }

    /// A junction's road leaving it (for a oneway towards the junction, the way it would leave).
    func data(of road: JunctionRoad) -> RoadData { data(key: road.segment) }

    /// The verdict on the turn junction `j` takes, arrived at along edge `e`.
    func verdict(arrival e: Int, junction j: Junction) -> TurnVerdict {
        if isDrivewayPassage(arrival: e, junction: j) || endsInRamp(arrival: e, junction: j) {
            return .drivewayPassage
        }
        return .decided(decide(arrival: e, junction: j))
    }

    /// OSRM's `fromMotorway` where the motorway goes on nowhere (no motorway-class road leaves but
    /// the one arrived by) and one ramp may be taken: no turn there at all (OSRM's `NoTurn`, not
    /// even a suppressed step), so the junction is not listed either.
    func endsInRamp(arrival e: Int, junction j: Junction) -> Bool {
        guard j.taken != nil, graph.highway(of: e).isMotorwayClass, j.roads.count <= 3,
              isMotorwayJunction(j, fromMotorway: true),
              motorwayContinuation(arrival: e, junction: j) == nil else { return false }
        return j.roads.dropFirst().lazy.filter(\.entry).count == 1
    }

    /// The decision for driving from `e` into the junction's taken road: OSRM's turn handlers
    /// (driveways, motorway junctions, two-, three- and many-way intersections) for that road.
    func decide(arrival e: Int, junction j: Junction) -> TurnDecision {
        let decision = decideByHandlers(arrival: e, junction: j)
        // OSRM's `TurnAnalysis`: an on ramp taken from a motorway-like road is an off ramp.
        if case let .maneuver(.onRamp, modifier) = decision, graph.highway(of: e).isMotorwayClass {
            return .maneuver(.offRamp, modifier)
        }
        return decision
    }

    private func decideByHandlers(arrival e: Int, junction j: Junction) -> TurnDecision {
        guard let t = j.taken else { return .silent }
        let road = j.roads[t], f = road.out
        if road.angle < 0.01 || road.angle > 359.99 { return .maneuver(.continue, .uturn) }
        let modifier = ManeuverModifier(angle: road.angle)

        if let decision = drivewayDecision(arrival: e, junction: j, taken: t) { return decision }
        // Junctions of motorways and their ramps only (OSRM's `MotorwayHandler`).
        if let decision = motorwayDecision(arrival: e, junction: j, taken: t) { return decision }

        let obvious = obviousRoad(arrival: e, junction: j)
        if j.roads.count == 3 {
            let allLinks = obvious != nil && graph.highway(of: e).isRamp
                && j.roads.allSatisfy { data(of: $0).highway.isRamp }
            if allLinks || obvious == nil, let range = fork(arrival: e, junction: j),
               let decision = forkDecision(arrival: e, junction: j, fork: range, taken: t) { return decision }
            if obvious == nil && isEndOfRoad(j) {
                let side: ManeuverModifier = t == 1 ? .right : .left
                return .maneuver(basicType(e, f) == .onRamp ? .onRamp : .endOfRoad, side)
            }
            if let o = obvious {
                if o == t { return obviousDecision(arrival: e, junction: j, taken: t) }
                // Both ways on straight: the one not obvious is the slight one.
                let bothStraight = ManeuverModifier(angle: j.roads[o].angle) == .straight && modifier == .straight
                let second = bothStraight ? (t == 2 ? ManeuverModifier.slightLeft : .slightRight) : modifier
                return .maneuver(basicType(e, f), second)
            }
            return .maneuver(basicType(e, f), modifier)
        }
        if let o = obvious, o == t { return obviousDecision(arrival: e, junction: j, taken: t) }
        let range = obvious == nil ? fork(arrival: e, junction: j) : nil
        if let range, let decision = forkDecision(arrival: e, junction: j, fork: range, taken: t) { return decision }
        return sideTurnDecision(arrival: e, junction: j, taken: t, obvious: obvious, fork: range)
    }

    /// OSRM's `DrivewayHandler`'s junctions (`canProcess`): besides the road arrived by (not a
    /// minor road) one major road, and minor roads (service, parking aisles…) only; the major
    /// road's index.
    func drivewayRoad(arrival e: Int, junction j: Junction) -> Int? {
        guard j.roads.count > 2 else { return nil }
        // Most junctions have three major roads: counted first, reading only each road's class.
        var major = 0, road: Int? = nil
        for (i, r) in j.roads.enumerated()
        where !HighwayClass(stored: graph.segmentHighway[r.segment >> 1]).mayBeIgnored {
            major += 1
            if major > 2 { return nil }
            if i > 0 { road = i }
        }
        guard major == 2, !data(of: j.roads[0]).highway.mayBeIgnored else { return nil }
        return road
    }

    /// OSRM's `DrivewayHandler` where it speaks: on along the major road under another name (or
    /// none: OSRM's `isSameName` wants both named), a new name; into a minor road, a turn (slight
    /// where it and the major road both go straight on).
    private func drivewayDecision(arrival e: Int, junction j: Junction, taken t: Int) -> TurnDecision? {
        guard let major = drivewayRoad(arrival: e, junction: j) else { return nil }
        let modifier = ManeuverModifier(angle: j.roads[t].angle)
        if t == major { return .maneuver(.newName, modifier) }
        if modifier == .straight && ManeuverModifier(angle: j.roads[major].angle) == .straight {
            return .maneuver(.turn, t < major ? .slightRight : .slightLeft)
        }
        return .maneuver(.turn, modifier)
    }

    /// OSRM's `DrivewayHandler` where it says nothing: at its junctions
    /// (``drivewayRoad(arrival:junction:)``), on along the major road of the same name (both
    /// named; OSRM's `isSameName`). OSRM gives no turn there, so the junction is not among the
    /// step's intersections.
    func isDrivewayPassage(arrival e: Int, junction j: Junction) -> Bool {
        guard let t = j.taken, drivewayRoad(arrival: e, junction: j) == t,
              j.roads[t].angle > 0.01, j.roads[t].angle < 359.99 else { return false }
        let f = j.roads[t].out
        // Both named (ids only: no string is made), and the name goes on.
        return graph.segmentName[graph.segment(of: e)] != 0 && graph.segmentName[graph.segment(of: f)] != 0
            && !announces(e, f)
    }

    /// OSRM's motorway handler's junctions (`canProcess`): motorways and their ramps only (any
    /// link arriving from a motorway), and no way on that turns off by more than 60°.
    func isMotorwayJunction(_ j: Junction, fromMotorway: Bool = false) -> Bool {
        var motorway = false
        for road in j.roads {
            if road.entry && road.deviation > TurnClassifier.groupAngle { return false }
            let highway = data(of: road).highway
            if highway.isMotorwayClass {
                motorway = motorway || road.entry
            } else if !(highway.isMotorwayRamp || fromMotorway && highway.isRamp) {
                return false
            }
        }
        return motorway || fromMotorway
    }

    /// OSRM's `findBasicTurnType`: onto a motorway or trunk ramp from elsewhere, on along the same
    /// name, or a turn.
    func basicType(_ e: Int, _ f: Int) -> ManeuverType {
        let inClass = graph.highway(of: e), outClass = graph.highway(of: f)
        if !inClass.isMotorwayRamp && outClass.isMotorwayRamp { return .onRamp }
        if !name(e).isEmpty && !name(f).isEmpty && !announces(e, f) { return .continue }
        return .turn
    }

    /// The angle of the motorway that goes on from a motorway (OSRM's `findBestContinue`): the
    /// road of the same name, else the straightest motorway; nil when none goes on.
    func motorwayContinuation(arrival e: Int, junction j: Junction) -> Double? {
        let via = graph.segment(of: e)
        for road in j.roads.dropFirst() where road.entry && road.out >= 0
            && graph.highway(of: road.out).isMotorwayClass {
            let s = graph.segment(of: road.out)
            if !hasNoName(via) && !hasNoName(s) && !announcesSegments(via, s) { return road.angle }
        }
        // (Any motorway, whether or not it may be entered, as OSRM's `getMostLikelyContinue`.)
        var best: Double? = nil, deviation = 180.0
        for road in j.roads.dropFirst() where data(of: road).highway.isMotorwayClass && road.deviation < deviation {
            deviation = road.deviation
            best = road.angle
        }
        return best
    }

    /// OSRM's `getInstructionForObvious`; `throughStreet` as the caller found it (OSRM's motorway
    /// handler asks about the first road, whichever is taken), else for the road taken.
    func obviousDecision(arrival e: Int, junction j: Junction, taken t: Int,
                         throughStreet: Bool? = nil) -> TurnDecision {
        let road = j.roads[t], f = road.out
        let type = basicType(e, f)
        let modifier = ManeuverModifier(angle: road.angle)
        if type == .onRamp { return .maneuver(.onRamp, modifier) }
        let modeChange = graph.changesMode(e, f)
        guard type == .turn, announces(e, f) else { return modeChange ? .maneuver(.notification, modifier) : .silent }
        guard throughStreet ?? isThroughStreet(j, taken: t) else {
            return .maneuver(modeChange ? .notification : .newName, modifier)
        }
        if graph.highway(of: f).isMotorwayClass {
            return .maneuver(.merge, road.angle > 180 ? .slightRight : .slightLeft)
        }
        if graph.highway(of: e).isMotorwayRamp && graph.highway(of: f).isMotorwayRamp {
            return modeChange ? .maneuver(.notification, modifier) : .silent
        }
        let onward = graph.coordinate(of: graph.edgeTarget[f]).distance(to: graph.coordinate(of: j.vertex))
        let straight = road.deviation < TurnClassifier.narrowTurnAngle
            && onward > 2 * TurnClassifier.maxCollapseDistance
        return .maneuver(.turn, straight ? .straight : modifier)
    }

    /// OSRM's `isThroughStreet`: another road here, nearly opposite the one taken, has its name
    /// (both ways) and its class: the road taken runs on through the junction.
    func isThroughStreet(_ j: Junction, taken t: Int) -> Bool {
        let taken = data(of: j.roads[t])
        guard !hasNoName(taken.segment) else { return false }
        return j.roads.indices.contains { i in
            guard i != t && i != 0 else { return false }
            let other = data(of: j.roads[i])
            return PerceivedBearing.deviation(j.roads[i].angle, j.roads[t].angle) > 180
                - TurnClassifier.fuzzyAngleDifference
                && identicalNames(taken.segment, other.segment) && other.highway == taken.highway
        }
    }

    /// OSRM's `findObviousTurn`: the index of the road a driver would follow without being told,
    /// if there is one.
    func obviousRoad(arrival e: Int, junction j: Junction) -> Int? {
        let roads = j.roads
        if roads.count == 1 { return nil }
        if roads.count == 2 { return 1 }
        let via = data(ofEdge: e)
        func closestToStraight(excluding excluded: (JunctionRoad) -> Bool) -> Int? {
            var best: Int? = nil, deviation = Double.infinity
            for i in roads.indices where !excluded(roads[i]) && roads[i].deviation < deviation {
                best = i
                deviation = roads[i].deviation
            }
            return best
        }
        func valid(_ i: Int) -> Int? {
            guard i != 0 else { return nil }
            return data(of: roads[i]).roundabout == via.roundabout ? i : nil
        }
        // The road that keeps the name (and does not drop in class).
        let continues = closestToStraight { road in
            if !road.entry { return true }
            if self.hasNoName(via.segment) && !via.highway.mayBeIgnored { return true }
            let d = self.data(of: road)
            if self.hasNoName(d.segment) && !d.highway.mayBeIgnored { return true }
            if self.hasNoName(via.segment) != self.hasNoName(d.segment) { return true }
            if d.highway.strictlyLess(than: via.highway) { return true }
            if d.highway.isLink(to: via.highway) { return true }
            return self.announcesSegments(via.segment, d.segment)
        }
        if let c = continues, isDistinct(arrival: via, candidate: c, junction: j) { return valid(c) }
        // The straightest road of the same class or better.
        let straightmost = closestToStraight { road in
            if !road.entry { return true }
            let d = self.data(of: road)
            return d.highway.strictlyLess(than: via.highway) || d.highway.isLink(to: via.highway)
        }
        if let c = straightmost, isDistinct(arrival: via, candidate: c, junction: j) { return valid(c) }
        // Any road that may be entered, if it is the only way on that is not sharp.
        guard let valid0 = closestToStraight(excluding: { !$0.entry }) else { return nil }
        var nonSharp = 0, enterable = 0
        for road in roads {
            if road.deviation <= 90 { nonSharp += 1 }
            if road.entry { enterable += 1 }
        }
        let onlyNonSharp = roads[valid0].deviation <= 90 && nonSharp == 1
        if valid0 != straightmost && (roads[valid0].deviation <= TurnClassifier.groupAngle || onlyNonSharp)
            && !data(of: roads[valid0]).highway.mayBeIgnored && isDistinct(arrival: via,
                                                                           candidate: valid0, junction: j) {
            return valid(valid0)
        }
        if data(of: roads[valid0]).highway.isMotorwayClass && roads[valid0].deviation <= TurnClassifier.groupAngle
            && enterable == 1 {
            return valid(valid0)
        }
        // A road splitting up, every part of it under the one name.
        let allSameName = roads.allSatisfy { road in
            let s = data(of: road).segment
            return graph.segmentName[s] != 0 && graph.segmentName[s] == graph.segmentName[via.segment]
                && graph.segmentRef[s] == graph.segmentRef[via.segment]
        }
        if roads.count == 3 && allSameName && enterable == 1
            && (PerceivedBearing.deviation(roads[1].angle, 90) > TurnClassifier.narrowTurnAngle
                || PerceivedBearing.deviation(roads[2].angle, 270) > TurnClassifier.narrowTurnAngle) {
            return valid(valid0)
        }
        return nil
    }

    /// OSRM's `IsDistinctTurn`: no other road here looks as likely as the candidate.
    private func isDistinct(arrival via: RoadData, candidate c: Int, junction j: Junction) -> Bool {
        j.roads[c].deviation < TurnClassifier.groupAngle ? isDistinctNarrow(arrival: via, candidate: c, junction: j)
            : isDistinctWide(arrival: via, candidate: c, junction: j)
    }

    /// OSRM's `IsDistinctNarrowTurn`.
    private func isDistinctNarrow(arrival via: RoadData, candidate c: Int, junction j: Junction) -> Bool {
        let roads = j.roads
        let candidate = data(of: roads[c])
        let cd = roads[c].deviation
        let noNameChangeToCandidate = !announcesSegments(via.segment, candidate.segment)
        let viaLanes = graph.segmentLanes[via.segment], candidateLanes = graph.segmentLanes[candidate.segment]
        for i in 1..<roads.count where i != c {
            let road = roads[i]
            if cd < TurnClassifier.narrowTurnAngle && !road.entry { continue }
            let compare = data(of: road)
            let rd = road.deviation
            // The lanes of the road arrived by split between the candidate and this road, alike.
            let compareLanes = graph.segmentLanes[compare.segment]
            let laneFork = compareLanes > 0 && candidateLanes == compareLanes
                && Int(viaLanes) == Int(candidateLanes) + Int(compareLanes)
                && PerceivedBearing.deviation(roads[c].angle, road.angle) < TurnClassifier.groupAngle
            let distinct = rd > TurnClassifier.distinctionRatio * cd
                && abs(rd - cd) > TurnClassifier.fuzzyAngleDifference / 2
            let slightlyDistinct = rd > 0.7 * TurnClassifier.distinctionRatio * cd
            if !via.restricted && !candidate.restricted && compare.restricted && distinct { continue }
            if via.roundabout == candidate.roundabout && via.roundabout != compare.roundabout && cd < rd { continue }
            // Name comparisons cost the most: made only where a rule reads them, in OSRM's order.
            var namesChange: Bool? = nil
            func nameChangesToCompare() -> Bool {
                if let known = namesChange { return known }
                let answer = announcesSegments(via.segment, compare.segment)
                namesChange = answer
                return answer
            }
            if distinct && !laneFork && (noNameChangeToCandidate || nameChangesToCompare()) { continue }
            // A road that goes on across the junction is not the candidate's rival.
            let fourOrMore = roads.count >= 4
            if distinct || (fourOrMore && slightlyDistinct && noNameChangeToCandidate) {
                let opposite = Junction.normalized(road.bearing + 180)
                var opposing = 0, closest = Double.infinity
                for k in roads.indices {
                    let d = PerceivedBearing.deviation(roads[k].bearing, opposite)
                    if d < closest { closest = d; opposing = k }
                }
                let opposingSegment = data(of: roads[opposing]).segment
                let noNameChangeFromOpposing = !announcesSegments(opposingSegment, compare.segment)
                let opposingAngle = PerceivedBearing.deviation(road.angle, roads[opposing].angle)
                let opposingDistinct = noNameChangeFromOpposing || opposingAngle > 180 - TurnClassifier.narrowTurnAngle
                if fourOrMore && opposingDistinct && distinct { continue }
                if fourOrMore && noNameChangeToCandidate && slightlyDistinct && noNameChangeFromOpposing
                    && opposingAngle > 180 - TurnClassifier.fuzzyAngleDifference && nameChangesToCompare() { continue }
                if !fourOrMore && noNameChangeToCandidate && distinct && !laneFork
                    && opposingAngle > 180 - TurnClassifier.groupAngle && nameChangesToCompare() { continue }
            }
            if via.highway.osrmPriority > HighwayClass.secondary.osrmPriority && distinct { continue }
            // The candidate keeps the lane count of the road arrived by and runs nearly straight on.
            if candidateLanes > 0 && candidateLanes == viaLanes && cd < TurnClassifier.fuzzyAngleDifference
                && distinct { continue }
            let samePriority = via.highway.osrmPriority == candidate.highway.osrmPriority
            if samePriority && candidate.highway.osrmPriority < compare.highway.osrmPriority && noNameChangeToCandidate
                && slightlyDistinct { continue }
            if samePriority && candidate.highway.osrmPriority > compare.highway.osrmPriority + 4
                && noNameChangeToCandidate && slightlyDistinct { continue }
            if roadHasLowerClass(via: via, candidate: candidate, compare: compare) { continue }
            if samePriority && via.highway.osrmGroup < compare.highway.osrmGroup
                && nameChangesToCompare() && announcesSegments(candidate.segment, compare.segment) { continue }
            if samePriority && compare.highway.isRamp { continue }
            return false
        }
        return true
    }

    /// OSRM's `IsDistinctWideTurn`: no road but one of far lesser class or of a much stronger turn
    /// looks as likely; where the road arrived by bends right at the junction (its bearing 2 m out
    /// far from the one perceived), a road that turns much more than the candidate there, and
    /// does not lead straight into it, is not its rival either.
    private func isDistinctWide(arrival via: RoadData, candidate c: Int, junction j: Junction) -> Bool {
        let roads = j.roads
        let candidate = data(of: roads[c])
        let cd = roads[c].deviation
        // The road arrived by, 2 m out, and the candidate's initial bearing: measured once, when
        // a road first gets that far; nil for the candidate while the road arrived by is straight.
        var back: Double? = nil, candidateInitial: Double? = nil
        for i in 1..<roads.count where i != c {
            let road = roads[i]
            let compare = data(of: road)
            let straight = ManeuverModifier(angle: road.angle) == .straight
            if !straight && roadHasLowerClass(via: via, candidate: candidate, compare: compare) { continue }
            if road.deviation > TurnClassifier.distinctionRatio * cd { continue }
            let backBearing = back ?? initialBearing(of: roads[0], at: j.vertex)
            back = backBearing
            if PerceivedBearing.deviation(backBearing, roads[0].bearing) > TurnClassifier.fuzzyAngleDifference {
                let arriving = backBearing + 180
                let toCandidate = candidateInitial ?? initialBearing(of: roads[c], at: j.vertex)
                candidateInitial = toCandidate
                let roadInitial = initialBearing(of: road, at: j.vertex)
                let candidateDeviation = abs(180 - Junction.turnAngle(arriving: arriving, leaving: toCandidate))
                let roadDeviation = abs(180 - Junction.turnAngle(arriving: arriving, leaving: roadInitial))
                let roadToCandidate = Junction.turnAngle(arriving: roadInitial + 180, leaving: toCandidate)
                if ManeuverModifier(angle: roadToCandidate) != .straight
                    && roadDeviation > TurnClassifier.distinctionRatio * candidateDeviation { continue }
            }
            return false
        }
        return true
    }

    /// OSRM's initial bearing of a road at junction vertex `v`: towards the point 2 m along it
    /// (read off the graph's points, no line made).
    private func initialBearing(of road: JunctionRoad, at v: UInt32) -> Double {
        // The edge along the road: out of `v`, or in (a oneway towards it) and read backwards.
        let edge: Int, far: UInt32, backwards: Bool
        if road.out >= 0 {
            (edge, far, backwards) = (road.out, graph.edgeTarget[road.out], false)
        } else if let slot = graph.incoming(to: v).first(where: {
            Int(graph.edgeSegment[Int(graph.incomingEdge[$0])] ^ 1) == road.segment
        }) {
            (edge, far, backwards) = (Int(graph.incomingEdge[slot]), graph.incomingSource[slot], true)
        } else {
            return road.bearing
        }
        let start = graph.coordinate(of: v), n = graph.interiorPointCount(of: edge)
        let ruler = LocalRuler.osrm(latitude: start.latitude)
        var previous = start, travelled = 0.0
        for k in 0...n {
            let point = k == n ? graph.coordinate(of: far) : graph.interiorPoint(of: edge, backwards ? n - 1 - k : k)
            let d = ruler.distance(from: previous, to: point)
            if travelled + d >= 2 {
                let at = previous.interpolated(to: point, fraction: d > 0 ? (2 - travelled) / d : 0)
                return ruler.bearing(from: start, to: at)
            }
            travelled += d
            previous = point
        }
        return ruler.bearing(from: start, to: previous)
    }

    /// OSRM's `roadHasLowerClass`: `compare` is of a lower category than both the road arrived by
    /// and the candidate, with fewer lanes (by two or more) than the road arrived by; or a link of
    /// both their classes.
    private func roadHasLowerClass(via: RoadData, candidate: RoadData, compare: RoadData) -> Bool {
        let viaLanes = Int(graph.segmentLanes[via.segment]), compareLanes = Int(graph.segmentLanes[compare.segment])
        if compare.highway.strictlyLess(than: via.highway) && compare.highway.strictlyLess(than: candidate.highway)
            && compareLanes > 0 && compareLanes + 1 < viaLanes { return true }
        return compare.highway.isLink(to: via.highway) && compare.highway.isLink(to: candidate.highway)
    }

    /// OSRM's `findFork`: the roads ahead, right to left, that fork (two or three, each close to
    /// straight on or to its neighbour), set apart from the roads beside them by 60°, none of
    /// them obvious against its neighbour, of classes alike, all enterable, by the same mode.
    func fork(arrival e: Int, junction j: Junction) -> ClosedRange<Int>? {
        let roads = j.roads, n = roads.count
        guard n >= 3 else { return nil }
        var straightmost = 0
        for i in roads.indices where roads[i].deviation < roads[straightmost].deviation { straightmost = i }
        guard roads[straightmost].deviation <= TurnClassifier.narrowTurnAngle else { return nil }
        // OSRM's `isOutermostForkCandidate`: `a` is a fork's outermost road when its neighbour `b`
        // further out is neither close to straight nor close to `a` (or `a` is far from straight).
        func outermost(_ a: Int, _ b: Int) -> Bool {
            roads[b].deviation > TurnClassifier.narrowTurnAngle
                && (PerceivedBearing.deviation(roads[a].angle, roads[b].angle) > TurnClassifier.narrowTurnAngle
                    || roads[a].deviation > TurnClassifier.groupAngle)
        }
        var right = 1 // (the pair of road 1 and the U-turn always ends the search)
        for i in stride(from: straightmost, to: 0, by: -1) where outermost(i, i - 1) { right = i; break }
        var left = n - 1
        for i in straightmost..<(n - 1) where outermost(i, i + 1) { left = i; break }
        guard right < left, left - right < 3 else { return nil }
        let range = right...left
        // Set apart on both sides.
        let beyondLeft = left + 1 == n ? 0 : left + 1
        guard PerceivedBearing.deviation(roads[left].angle, roads[beyondLeft].angle) >= TurnClassifier.groupAngle,
              PerceivedBearing.deviation(roads[right].angle, roads[right - 1].angle) >= TurnClassifier.groupAngle
          else { return nil }
        // Enterable, by the same mode as the road arrived by.
        for i in range {
            guard roads[i].entry, roads[i].out >= 0, !graph.changesMode(e, roads[i].out) else {
                return nil
            }
        }
        // None obvious against its neighbour (OSRM's `hasObvious`).
        for i in right..<left where isObviousOfTwo(arrival: e, roads[i], roads[i + 1])
            || isObviousOfTwo(arrival: e, roads[i + 1], roads[i]) {
            return nil
        }
        // Classes alike (OSRM's `isCompatibleByRoadClass`): links with links, none obvious by class.
        let via = graph.highway(of: e)
        let rightIsLink = graph.highway(of: roads[right].out).isRamp
        for i in range {
            let base = graph.highway(of: roads[i].out)
            if base.isRamp != rightIsLink { return nil }
            for k in range where k != i && TurnClassifier.obviousByRoadClass(via, base, graph.highway(of: roads[k].out))
            { return nil }
        }
        return range
    }

    /// OSRM's `obviousByRoadClass`: `candidate` stands out from `other` by class alone.
    static func obviousByRoadClass(_ via: HighwayClass, _ candidate: HighwayClass, _ other: HighwayClass) -> Bool {
        let higher = 1.75 * Double(candidate.osrmPriority) < Double(other.osrmPriority)
        return (higher && via == candidate) || (!candidate.mayBeIgnored && !via.mayBeIgnored && other.mayBeIgnored)
    }

    /// OSRM's `isObviousOfTwo`: taking `road` beside `other` needs no telling.
    private func isObviousOfTwo(arrival e: Int, _ road: JunctionRoad, _ other: JunctionRoad) -> Bool {
        let via = graph.highway(of: e), mine = graph.highway(of: road.out), theirs = graph.highway(of: other.out)
        if TurnClassifier.obviousByRoadClass(via, mine, theirs) { return true }
        if TurnClassifier.obviousByRoadClass(via, theirs, mine) { return false }
        if road.deviation < Double.ulpOfOne && !name(e).isEmpty && !announces(e, road.out) { return true }
        return other.deviation / road.deviation > 1.4
            && abs(other.deviation - road.deviation) > TurnClassifier.fuzzyAngleDifference
    }

    /// The decision for the road taken at a fork (`range`, right to left), as OSRM's `assignFork`
    /// words it: both branches of like importance fork; beside a minor road (service, parking)
    /// the other branch is silent and the minor one a turn; of three, the middle goes straight on
    /// (silent if it keeps the name and runs within 3° of straight). At a junction of more roads
    /// two branches of unlike class (OSRM's `canBeSeenAsFork`) are an obvious way and a slight
    /// turn. Nil when the road taken is not one of the fork's.
    func forkDecision(arrival e: Int, junction j: Junction,
                      fork range: ClosedRange<Int>, taken t: Int) -> TurnDecision? {
        guard range.contains(t) else { return nil }
        let f = j.roads[t].out
        // Unsaid, unless the mode changes (OSRM's `Suppressed` or `Notification`).
        let modeChange = graph.changesMode(e, f)
        if range.count == 3 {
            if t == range.lowerBound { return .maneuver(.fork, .slightRight) }
            if t == range.upperBound { return .maneuver(.fork, .slightLeft) }
            if j.roads[t].deviation < 3
                && !announces(e, f) { return modeChange ? .maneuver(.notification, .straight) : .silent }
            return .maneuver(.fork, .straight)
        }
        let leftClass = graph.highway(of: j.roads[range.upperBound].out),
            rightClass = graph.highway(of: j.roads[range.lowerBound].out)
        let isLeft = t == range.upperBound
        let side: ManeuverModifier = isLeft ? .slightLeft : .slightRight
        if j.roads.count > 3 && abs(leftClass.osrmPriority - rightClass.osrmPriority) > 1 {
            let obviousIsRight = leftClass.osrmPriority > rightClass.osrmPriority
            if isLeft != obviousIsRight { return obviousDecision(arrival: e, junction: j, taken: t) }
            return .maneuver(basicType(e, f), side)
        }
        let (mine, theirs) = isLeft ? (leftClass, rightClass) : (rightClass, leftClass)
        if theirs.mayBeIgnored && !mine.mayBeIgnored { return modeChange ? .maneuver(.notification, side) : .silent }
        return .maneuver(mine.mayBeIgnored && !theirs.mayBeIgnored ? .turn : .fork, side)
    }

    /// OSRM's `isEndOfRoad`: a T junction met head-on, one way to the right and one to the left.
    private func isEndOfRoad(_ j: Junction) -> Bool {
        guard j.roads.count == 3 else { return false }
        return PerceivedBearing.deviation(j.roads[1].angle, 90) < TurnClassifier.narrowTurnAngle
            && PerceivedBearing.deviation(j.roads[2].angle, 270) < TurnClassifier.narrowTurnAngle
            && PerceivedBearing.deviation(j.roads[1].angle, j.roads[2].angle) > 2 * TurnClassifier.narrowTurnAngle
    }
}

extension HighwayClass {
    /// OSRM's `RoadPriorityClass` (lower is more important).
    var osrmPriority: Int {
        switch self {
        case .motorway: 0
        case .motorwayLink: 1
        case .trunk: 2
        case .trunkLink: 3
        case .primary: 4
        case .primaryLink: 5
        case .secondary: 6
        case .secondaryLink: 7
        case .tertiary: 8
        case .tertiaryLink: 9
        case .residential: 10
        case .livingStreet: 11
        case .service: 12
        case .unclassified: 15
        case .track, .path: 16
        case .footway, .pedestrian, .steps: 18
        case .ferry, .winterRoad, .iceRoad, .other: 31
        }
    }

    /// OSRM's `getRoadGroup`.
    var osrmGroup: Int {
        switch osrmPriority {
        case 0...1: 0
        case 2...3: 1
        case 4...9: 2
        case 10...13: 3
        case 14...15: 4
        case 16: 5
        case 18: 6
        default: 7
        }
    }

    /// OSRM's `IsRampClass`: a motorway's or trunk's link.
    var isMotorwayRamp: Bool { self == .motorwayLink || self == .trunkLink }

    /// OSRM's `strictlyLess`: a lower general category of road.
    func strictlyLess(than other: HighwayClass) -> Bool {
        if !mayBeIgnored && other.mayBeIgnored { return false }
        if mayBeIgnored && !other.mayBeIgnored { return true }
        return osrmGroup > other.osrmGroup
    }

    /// OSRM's `isLinkTo`: the link of that very road class.
    func isLink(to road: HighwayClass) -> Bool {
        switch (self, road) {
        case (.motorwayLink, .motorway), (.trunkLink, .trunk), (.primaryLink, .primary), (.secondaryLink, .secondary),
             (.tertiaryLink, .tertiary): true
        default: false
        }
    }

}
