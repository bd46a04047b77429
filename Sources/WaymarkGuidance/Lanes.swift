import Foundation

/// One lane of the road arrived by at a junction, as OSRM's `lanes` entries: the arrows painted
/// on it and whether it leads where the route goes.
public struct Lane: Sendable, Equatable {
    /// OSRM's words: `none`, `straight`, `sharp left`, `left`, `slight left`, `slight right`,
    /// `right`, `sharp right`, `uturn`, `merge to left`, `merge to right`.
    public var indications: [String]
    /// Whether the route can be followed from this lane.
    public var valid: Bool
    /// The indication the route follows (OSRM's `valid_indication`), when valid.
    public var validIndication: String?

    public init(indications: [String], valid: Bool, validIndication: String? = nil) {
        self.indications = indications
        self.valid = valid
        self.validIndication = validIndication
    }
}

/// A turn-lane arrow as OSRM reads `turn:lanes` values.
package enum LaneIndication: CaseIterable {
    case none, straight, sharpLeft, left, slightLeft, slightRight, right, sharpRight, uturn, mergeToLeft, mergeToRight

    init?(osm: Substring) {
        switch osm.trimmingCharacters(in: .whitespaces) {
        case "none", "": self = .none
        case "through": self = .straight
        case "sharp_left": self = .sharpLeft
        case "left": self = .left
        case "slight_left": self = .slightLeft
        case "slight_right": self = .slightRight
        case "right": self = .right
        case "sharp_right": self = .sharpRight
        case "reverse": self = .uturn
        case "merge_to_left": self = .mergeToLeft
        case "merge_to_right": self = .mergeToRight
        default: return nil
        }
    }

    var osrmName: String {
        switch self {
        case .none: "none"
        case .straight: "straight"
        case .sharpLeft: "sharp left"
        case .left: "left"
        case .slightLeft: "slight left"
        case .slightRight: "slight right"
        case .right: "right"
        case .sharpRight: "sharp right"
        case .uturn: "uturn"
        case .mergeToLeft: "merge to left"
        case .mergeToRight: "merge to right"
        }
    }

    /// OSRM's idealised turn angle for the arrow (180 straight on, below 180 right; merges go on).
    var idealAngle: Double {
        switch self {
        case .uturn: 0
        case .sharpRight: 35
        case .right: 90
        case .slightRight: 135
        case .none, .straight, .mergeToLeft, .mergeToRight: 180
        case .slightLeft: 225
        case .left: 270
        case .sharpLeft: 315
        }
    }

    var isLeft: Bool { self == .sharpLeft || self == .left || self == .slightLeft }
    var isRight: Bool { self == .sharpRight || self == .right || self == .slightRight }
}

/// Turn lanes at a junction: `turn:lanes` of the road arrived by, matched to the roads there.
package enum TurnLanes {
    /// The lanes of a `turn:lanes` value, left to right (`|` between lanes, `;` between arrows);
    /// an empty lane is `none`, unknown arrows are dropped (as OSRM), a lane of only unknown
    /// arrows is `none`.
    static func parse(_ value: String) -> [[LaneIndication]] {
        value.split(separator: "|", omittingEmptySubsequences: false).map { lane in
            let arrows = lane.split(separator: ";").compactMap(LaneIndication.init(osm:))
            return arrows.isEmpty ? [.none] : arrows
        }
    }

    /// The lanes of `value` at junction `j` (arrived by its road 0), each valid when one of its
    /// arrows leads onto the road taken. Each arrow goes to the road it fits best: an enterable
    /// road before one that is not, then the least deviation from the arrow's ideal angle (OSRM's
    /// `findBestMatch`). A `none` lane stands for the way its neighbours leave out: the leftmost
    /// for left where no lane turns left, the rightmost for right likewise, else straight on
    /// (OSRM's handling of `none` at simple turns).
    static func lanes(_ value: String, at j: Junction) -> [Lane] {
        let parsed = parse(value)
        guard let taken = j.taken else { return [] }
        let anyLeft = parsed.contains { $0.contains(where: \.isLeft) }
        let anyRight = parsed.contains { $0.contains(where: \.isRight) }
        func bestRoad(_ arrow: LaneIndication) -> Int? {
            var best: Int?
            for i in j.roads.indices where i != 0 || arrow == .uturn {
                guard j.roads[i].out >= 0 else { continue }
                guard let b = best else { best = i; continue }
                let road = j.roads[i], other = j.roads[b]
                if road.entry != other.entry {
                    if road.entry { best = i }
                    continue
                }
                if deviation(arrow.idealAngle, road.angle) < deviation(arrow.idealAngle, other.angle) { best = i }
            }
            return best
        }
        return parsed.enumerated().map { index, arrows in
            var match: LaneIndication?
            for arrow in arrows {
                var meant = arrow
                if arrow == .none {
                    if index == 0 && !anyLeft && parsed.count > 1 { meant = .left }
                    else if index == parsed.count - 1 && !anyRight && parsed.count > 1 { meant = .right }
                    else { meant = .straight }
                }
                if bestRoad(meant) == taken { match = arrow; break }
            }
            return Lane(indications: arrows.map(\.osrmName), valid: match != nil, validIndication: match?.osrmName)
        }
    }

    private static func deviation(_ a: Double, _ b: Double) -> Double {
        let d = abs(a - b).truncatingRemainder(dividingBy: 360)
        return min(d, 360 - d)
    }

    /// How a driver is told to keep to the valid lanes (osrm-text-instructions' lane phrases):
    /// "left", "right", "middle" or "left or right"; nil when every lane (or none) is valid.
    static func keep(_ lanes: [Lane]) -> String? {
        guard lanes.contains(where: \.valid), lanes.contains(where: { !$0.valid }) else { return nil }
        // Runs of valid (o) and invalid (x) lanes, left to right.
        var runs: [Bool] = []
        for lane in lanes where runs.last != lane.valid { runs.append(lane.valid) }
        switch runs {
        case [true, false]: return "left"
        case [false, true]: return "right"
        case [false, true, false]: return "middle"
        case [true, false, true]: return "left or right"
        default: return nil
        }
    }
}
