import WaymarkGraph

/// What happens at one junction of a route: nothing worth saying (`silent`), or a maneuver.
enum TurnDecision: Equatable {
    case silent
    case maneuver(ManeuverType, ManeuverModifier)
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
    /// OSRM's road priority (lower is more important); links rank just below their road.
    var priority: Int {
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
        case .unclassified, .residential: 10
        case .livingStreet: 11
        case .ferry, .winterRoad, .iceRoad: 12
        case .service: 13
        case .other: 14
        }
    }

    var isRamp: Bool {
        switch self {
        case .motorwayLink, .trunkLink, .primaryLink, .secondaryLink, .tertiaryLink: true
        default: false
        }
    }
    var isMotorwayClass: Bool { self == .motorway || self == .trunk }
    /// Service roads and the like: never a real choice beside a through road.
    var isLowPriority: Bool { self == .service || self == .other }
}

/// Decides the maneuver at each junction the way OSRM's guidance does: obvious continuations are
/// silent, name changes announced only when OSRM would, forks, ends of roads, ramps and merges.
struct TurnClassifier {
    let graph: RoadGraph
    let names: NameKeys

    // OSRM's guidance constants (include/extractor/intersection/constants.hpp, guidance/constants.hpp).
    static let narrowTurnAngle = 40.0
    static let groupAngle = 60.0
    static let fuzzyAngleDifference = 25.0
    static let distinctionRatio = 2.0
    static let maxCollapseDistance = 30.0

    func name(_ e: Int) -> String { graph.name(of: e) }
    func ref(_ e: Int) -> String { graph.ref(of: e) }

    func announces(_ e: Int, _ f: Int) -> Bool {
        let s = graph.segment(of: e), t = graph.segment(of: f)
        if graph.segmentName[s] == graph.segmentName[t] && graph.segmentRef[s] == graph.segmentRef[t] { return false }
        return NameChange.mustAnnounce(from: (graph.segmentName[s], graph.segmentRef[s]), to: (graph.segmentName[t], graph.segmentRef[t]),
                                       strings: graph.strings, keys: names)
    }

    /// The decision for driving from `e` into the junction's taken road.
    func decide(arrival e: Int, junction j: Junction) -> TurnDecision {
        guard let t = j.taken else { return .silent }
        let road = j.roads[t], f = road.out
        let inClass = graph.highway(of: e), outClass = graph.highway(of: f)
        if road.angle < 0.01 || road.angle > 359.99 { return .maneuver(.continue, .uturn) }
        let modifier = ManeuverModifier(angle: road.angle)
        let modeChange = graph.flags(of: e).contains(.ferry) != graph.flags(of: f).contains(.ferry)

        // Motorway junctions: leaving onto a ramp, splitting, joining from a ramp.
        if inClass.isMotorwayClass && outClass.isRamp {
            if j.roads.dropFirst().contains(where: { $0.entry && $0.out != f && $0.out >= 0 }) {
                return .maneuver(.offRamp, sideModifier(road.angle))
            }
        }
        if inClass.isRamp && outClass.isMotorwayClass && isThroughStreet(j, taken: t) {
            return .maneuver(.merge, road.angle > 180 ? .slightRight : .slightLeft)
        }

        if isObvious(arrival: e, junction: j, candidate: t) {
            return obviousDecision(arrival: e, junction: j, taken: t, modeChange: modeChange)
        }
        if let fork = forkModifier(arrival: e, junction: j, taken: t) { return .maneuver(.fork, fork) }
        if isEndOfRoad(j) && !(!inClass.isRamp && outClass.isRamp) { return .maneuver(.endOfRoad, modifier) }
        return .maneuver(basicType(e, f), modifier)
    }

    /// OnRamp, Continue (same name) or Turn: OSRM's `findBasicTurnType`.
    func basicType(_ e: Int, _ f: Int) -> ManeuverType {
        let inClass = graph.highway(of: e), outClass = graph.highway(of: f)
        if !inClass.isRamp && outClass.isRamp { return .onRamp }
        if !name(e).isEmpty && !name(f).isEmpty && !announces(e, f) { return .continue }
        return .turn
    }

    private func sideModifier(_ angle: Double) -> ManeuverModifier {
        let m = ManeuverModifier(angle: angle)
        if m == .straight { return angle <= 180 ? .slightRight : .slightLeft }
        return m
    }

    /// OSRM's `getInstructionForObvious`.
    private func obviousDecision(arrival e: Int, junction j: Junction, taken t: Int, modeChange: Bool) -> TurnDecision {
        let road = j.roads[t], f = road.out
        let type = basicType(e, f)
        let modifier = ManeuverModifier(angle: road.angle)
        if type == .onRamp { return .maneuver(.onRamp, modifier) }
        if modeChange { return .maneuver(.notification, modifier) }
        guard type == .turn, announces(e, f) else { return .silent }
        guard isThroughStreet(j, taken: t) else { return .maneuver(.newName, modifier) }
        if graph.highway(of: f).isMotorwayClass { return .maneuver(.merge, road.angle > 180 ? .slightRight : .slightLeft) }
        let onward = graph.coordinate(of: graph.edgeTarget[f]).distance(to: graph.coordinate(of: j.vertex))
        let straight = road.deviation < TurnClassifier.narrowTurnAngle && onward > 2 * TurnClassifier.maxCollapseDistance
        return .maneuver(.turn, straight ? .straight : modifier)
    }

    /// Whether the road taken runs on through the junction: another road here carries its name
    /// or ref, roughly opposite it (a side road joining a through street).
    func isThroughStreet(_ j: Junction, taken t: Int) -> Bool {
        let taken = j.roads[t].segment >> 1
        guard graph.segmentName[taken] != 0 || graph.segmentRef[taken] != 0 else { return false }
        return j.roads.indices.contains { i in
            guard i != t && i != 0, abs(abs(j.roads[i].bearing - j.roads[t].bearing) - 180) < 35 else { return false }
            let other = j.roads[i].segment >> 1
            if graph.segmentName[other] == graph.segmentName[taken] && graph.segmentRef[other] == graph.segmentRef[taken] { return true }
            return !NameChange.mustAnnounce(from: (graph.segmentName[other], graph.segmentRef[other]),
                                            to: (graph.segmentName[taken], graph.segmentRef[taken]), strings: graph.strings, keys: names)
        }
    }

    /// Whether the candidate road is the one a driver would follow without being told: no other
    /// road here looks as likely (OSRM's `IsDistinctNarrowTurn` / `IsDistinctWideTurn`, simplified).
    func isObvious(arrival e: Int, junction j: Junction, candidate c: Int) -> Bool {
        let candidate = j.roads[c]
        guard candidate.entry else { return false }
        if j.roads.count <= 2 { return true }
        let via = graph.highway(of: e), to = graph.highway(of: candidate.out)
        let cd = candidate.deviation
        let continuesName = !name(e).isEmpty && !announces(e, candidate.out)
        for i in 1..<j.roads.count where i != c {
            let road = j.roads[i]
            let rd = road.deviation
            let roadClass = road.out >= 0 ? graph.highway(of: road.out) : HighwayClass(rawValue: graph.segmentHighway[road.segment >> 1]) ?? .service
            let distinct = rd > TurnClassifier.distinctionRatio * cd && abs(rd - cd) > TurnClassifier.fuzzyAngleDifference / 2
            let slightlyDistinct = rd > 0.7 * TurnClassifier.distinctionRatio * cd
            let lowerClass = roadClass.priority > max(via.priority, to.priority) && (roadClass.isLowPriority || roadClass.priority >= via.priority + 4)
            if cd < TurnClassifier.groupAngle {
                if cd < TurnClassifier.narrowTurnAngle && !road.entry { continue }
                let nameChangesToRoad = road.out >= 0 ? announces(e, road.out) : true
                if distinct && (continuesName || nameChangesToRoad) { continue }
                if distinct && via.priority > HighwayClass.secondary.priority { continue }
                if (distinct || slightlyDistinct && continuesName) && lowerClass { continue }
                if roadClass.isRamp && via.priority == to.priority && !via.isRamp { continue }
                if roadClass.isLowPriority && !to.isLowPriority && slightlyDistinct { continue }
                return false
            } else {
                let straight = ManeuverModifier(angle: road.angle) == .straight
                if !straight && lowerClass { continue }
                if distinct { continue }
                if !road.entry && road.out < 0 && !straight && rd > cd { continue }
                return false
            }
        }
        return true
    }

    /// A fork: two (or three) ways ahead close together, none obvious. The modifier says which.
    private func forkModifier(arrival e: Int, junction j: Junction, taken t: Int) -> ManeuverModifier? {
        let road = j.roads[t]
        guard road.deviation < TurnClassifier.groupAngle else { return nil }
        // Branches of like importance only: a side road or a service road beside the way on is
        // not the other half of a fork.
        let takenPriority = graph.highway(of: road.out).priority
        let ahead = j.roads.indices.filter { i in
            guard i != 0, j.roads[i].entry, j.roads[i].out >= 0, j.roads[i].deviation < TurnClassifier.groupAngle else { return false }
            return abs(graph.highway(of: j.roads[i].out).priority - takenPriority) <= 2
        }
        guard ahead.count >= 2, ahead.count <= 3, ahead.contains(t) else { return nil }
        let spread = j.roads[ahead.last!].angle - j.roads[ahead.first!].angle
        guard spread < TurnClassifier.groupAngle else { return nil }
        // Roads are in order of angle: the first is the rightmost.
        if t == ahead.first { return .slightRight }
        if t == ahead.last { return .slightLeft }
        return .straight
    }

    /// A T junction met head-on: one way to the right, one to the left, nothing straight on.
    private func isEndOfRoad(_ j: Junction) -> Bool {
        guard j.roads.count == 3 else { return false }
        return abs(j.roads[1].angle - 90) < TurnClassifier.narrowTurnAngle && abs(j.roads[2].angle - 270) < TurnClassifier.narrowTurnAngle
    }
}
