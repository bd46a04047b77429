import WaymarkGeo
import WaymarkGraph
import WaymarkGuidance
import WaymarkPreparation

/// How a route is asked for: OSRM's route options as the library takes them. Per-waypoint lists
/// are empty (every waypoint as by default) or have one entry per waypoint, nil for the default.
public struct RouteOptions: Sendable {
    /// How far each waypoint may be from its road, in metres (nil: the router's
    /// ``Router/maxSnapDistance``; OSRM's `radiuses`).
    public var radiuses: [Double?] = []
    /// The direction of travel each waypoint's road must allow: degrees clockwise from north and
    /// the range either side (OSRM's `bearings=value,range`).
    public var bearings: [(value: Int, range: Int)?] = []
    /// The side of the road each waypoint is reached and left on (OSRM's `approaches`).
    public var approaches: [SnapFilter.Approach?] = []
    /// Snap onto roads a route does not usually start on too (ferries, private service roads:
    /// OSRM's `snapping=any`).
    public var snapToAnyRoad = false
    /// Where each waypoint was snapped before (``Router/hint(for:input:)``): used instead of
    /// snapping again when it was made on this map for the same coordinate, ignored otherwise.
    public var hints: [String?] = []
    /// Whether a route carries on through a via point in the direction it arrived (no U-turn
    /// there): OSRM's `continue_straight`, whose default for cars is true.
    public var continueStraight = true
    /// The waypoints that start and end legs, by index, the first and the last among them (OSRM's
    /// `waypoints`); the others are passed through without a leg of their own, never turning
    /// round there. Nil: every waypoint ends a leg.
    public var legEnds: [Int]?
    /// How many routes besides the best one to look for (two waypoints only; OSRM's
    /// `alternatives`). Each differs enough from the best and from the others, is not much slower,
    /// and has no detour a driver would see (``Router/alternativeRules``).
    public var alternatives = 0
    /// Whether legs are told as steps (OSRM's `steps`). Without, the guidance is not worked out and
    /// legs have no steps (as OSRM's answer shows none); the route's line, lengths and times are
    /// the same.
    public var steps = true
    /// Whether each leg carries its ``LegAnnotation`` (OSRM's `annotations`).
    public var annotations = false
    /// The language the steps are told in.
    public var language: InstructionTemplates = .english
    /// Classes of road the route keeps off, waypoints included (OSRM's `exclude`).
    public var exclude: ExcludedClasses = []

    public init() {}

    /// What a waypoint may snap to.
    func filter(_ i: Int) -> SnapFilter {
        SnapFilter(bearing: bearings.isEmpty ? nil : bearings[i],
                   approach: approaches.isEmpty ? .unrestricted : approaches[i] ?? .unrestricted,
                   anyRoad: snapToAnyRoad)
    }

    /// Why the options do not fit `count` waypoints, or nil.
    func problem(waypoints count: Int) -> String? {
        for (name, n) in [("radiuses", radiuses.count), ("bearings", bearings.count),
                          ("approaches", approaches.count), ("hints", hints.count)] where n != 0 && n != count {
            return "\(name): \(n) given for \(count) waypoints"
        }
        for case let bearing? in bearings where !SnapFilter.isValid(bearing: bearing) {
            return "bearing \(bearing.value),\(bearing.range): the value must be 0–360 and the range 0–180"
        }
        if let legEnds {
            guard legEnds.first == 0, legEnds.last == count - 1 else {
                return "the first and last waypoints must end legs"
            }
            guard zip(legEnds, legEnds.dropFirst()).allSatisfy({ $0 < $1 }) else {
                return "the waypoints that end legs must be given in increasing order"
            }
        }
        if alternatives < 0 { return "alternatives must be 0 or more" }
        return nil
    }
}
