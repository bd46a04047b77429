import Foundation

// The graph's vocabulary for what a profile decides (``RoutingProfile``): road classes, edge
// flags, and the rules a profile makes of a way, a node and a turn restriction. The graph stores
// these and never reads tags.

/// Road classes the profiles know, in descending order of importance. Stored per edge as one byte.
public enum HighwayClass: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    case motorway, motorwayLink, trunk, trunkLink, primary, primaryLink, secondary, secondaryLink
    case tertiary, tertiaryLink, unclassified, residential, livingStreet, service, ferry
    /// Seasonal roads (`highway=winter_road`, `highway=ice_road`).
    case winterRoad, iceRoad
    /// Any other `highway` value the profile allows (`cycleway`, `bridleway`, `runway`, … for a
    /// car with `access=yes`).
    case other
    /// Ways OSRM's guidance ranks as bike paths (`track`, `path`) and foot paths (`footway`,
    /// `pedestrian`, `steps`): after `other` so that files written before keep their numbers.
    case track, path, footway, pedestrian, steps

    /// The class a graph stores as `raw` (`.service` for a number no class has), read without a
    /// call: the cases are numbered from 0 in order, as their raw values are.
    @inlinable package init(stored raw: UInt8) {
        self = raw < HighwayClass.storedCount ? unsafeBitCast(raw, to: HighwayClass.self) : .service
    }

    /// How many classes there are (`allCases.count`, as a constant; a test checks it).
    @inlinable package static var storedCount: UInt8 { 23 }

    /// The OSM `highway` value (or `ferry` for `route=ferry`).
    public var tag: String {
        switch self {
        case .motorway: "motorway"
        case .motorwayLink: "motorway_link"
        case .trunk: "trunk"
        case .trunkLink: "trunk_link"
        case .primary: "primary"
        case .primaryLink: "primary_link"
        case .secondary: "secondary"
        case .secondaryLink: "secondary_link"
        case .tertiary: "tertiary"
        case .tertiaryLink: "tertiary_link"
        case .unclassified: "unclassified"
        case .residential: "residential"
        case .livingStreet: "living_street"
        case .service: "service"
        case .ferry: "ferry"
        case .winterRoad: "winter_road"
        case .iceRoad: "ice_road"
        case .other: "other"
        case .track: "track"
        case .path: "path"
        case .footway: "footway"
        case .pedestrian: "pedestrian"
        case .steps: "steps"
        }
    }

    public init?(tag: String) {
        guard let match = HighwayClass.byTag[tag] else { return nil }
        self = match
    }

    private static let byTag = Dictionary(uniqueKeysWithValues: HighwayClass.allCases.map { ($0.tag, $0) })

    public var description: String { tag }
}

/// Per-edge flags (one byte).
public struct EdgeFlags: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue }
    // (Constants computed in place: stored ones are reached through a call and a once-check each,
    // from every other module, at every junction a route passes.)
    /// The way can be driven in one direction only.
    @inlinable public static var oneway: EdgeFlags { EdgeFlags(rawValue: 1 << 0) }
    @inlinable public static var roundabout: EdgeFlags { EdgeFlags(rawValue: 1 << 1) }
    @inlinable public static var ferry: EdgeFlags { EdgeFlags(rawValue: 1 << 2) }
    @inlinable public static var toll: EdgeFlags { EdgeFlags(rawValue: 1 << 3) }
    /// Access along the way's node order is restricted (`private`, `destination`, `delivery`, …):
    /// a route may start or end there, but entering it from an unrestricted road costs OSRM's
    /// `max_turn_weight`, so no route passes through.
    @inlinable public static var restrictedForward: EdgeFlags { EdgeFlags(rawValue: 1 << 4) }
    /// The same against the way's node order.
    @inlinable public static var restrictedBackward: EdgeFlags { EdgeFlags(rawValue: 1 << 5) }
    /// Waypoints do not snap here (ferries, private service roads), as OSRM's `is_startpoint`.
    @inlinable public static var notStartpoint: EdgeFlags { EdgeFlags(rawValue: 1 << 6) }
    /// In a tunnel (`tunnel` other than `no`; OSRM's `tunnel` class).
    @inlinable public static var tunnel: EdgeFlags { EdgeFlags(rawValue: 1 << 7) }
    /// Both directions restricted.
    @inlinable public static var restrictedAccess: EdgeFlags { [.restrictedForward, .restrictedBackward] }
}

/// How one direction of a way is travelled (OSRM's travel `mode`): by the profile's own means
/// (driving, walking or cycling, as the graph's ``TravelProfile`` says) or otherwise. Stored in
/// four bits.
public enum WayMode: UInt8, Sendable, CaseIterable {
    case travel = 0
    case ferry = 1
    /// Walking beside a bicycle where it may not be ridden (OSRM's `pushing bike`).
    case pushingBike = 2
    /// A railway a bicycle rides along on a train (bicycle.lua's public transport).
    case train = 3
}

/// What a profile makes of a way: nil from ``RoutingProfile/way(_:)`` means "not for this mode".
public struct WayRule: Sendable, Equatable {
    public var highway: HighwayClass
    /// Speed in km/h along the way's node order; 0 means that direction is not allowed.
    public var forwardSpeed: Double
    /// Speed in km/h against the way's node order; 0 means that direction is not allowed.
    public var backwardSpeed: Double
    /// How much less a route wants this way than its speed says, per direction (OSRM's rate
    /// penalties, 0 < p ≤ 1: service roads, narrow roads, side roads, alternating oneways): the
    /// routing weight is the travel time ÷ p, the travel time itself is unchanged.
    public var forwardPenalty: Double = 1
    public var backwardPenalty: Double = 1
    /// For ferries and movable bridges with a `duration` tag: the crossing time in seconds (spread
    /// over the way by length).
    public var duration: Double?
    public var flags: EdgeFlags
    /// How each direction is travelled: by default a ferry's by ferry, any other way's by the
    /// profile's own means.
    public var forwardMode: WayMode
    public var backwardMode: WayMode
    public var name: String
    public var ref: String
    /// OSRM's lane count (`lanes`, else `lanes:forward` + `lanes:backward`, at least the turn
    /// lanes' count; 0 unknown), for guidance.
    public var lanes: UInt8 = 0
    /// Signs, per direction (`destination:ref: destination`, else `destination:street`, `;` read
    /// as `, `), on oneways only, as OSRM's car profile keeps them.
    public var destinationsForward: String { get { sign(0) } set { setSign(0, newValue) } }
    public var destinationsBackward: String { get { sign(1) } set { setSign(1, newValue) } }
    /// `junction:ref`: the exit numbers signed on the way (a list, `;`-separated).
    public var exits: String { get { sign(2) } set { setSign(2, newValue) } }
    /// `turn:lanes` per direction (`:forward`/`:backward`, or the plain key for the driven ones).
    public var turnLanesForward: String { get { sign(3) } set { setSign(3, newValue) } }
    public var turnLanesBackward: String { get { sign(4) } set { setSign(4, newValue) } }
    public init(highway: HighwayClass, forwardSpeed: Double, backwardSpeed: Double, forwardPenalty: Double = 1,
                backwardPenalty: Double = 1, duration: Double? = nil, flags: EdgeFlags, name: String, ref: String) {
        self.highway = highway
        self.forwardSpeed = forwardSpeed
        self.backwardSpeed = backwardSpeed
        self.forwardPenalty = forwardPenalty
        self.backwardPenalty = backwardPenalty
        self.duration = duration
        self.flags = flags
        forwardMode = flags.contains(.ferry) ? .ferry : .travel
        backwardMode = forwardMode
        self.name = name
        self.ref = ref
    }

    /// Whether the way has any of the five signs above.
    public var hasSigns: Bool { !signs.isEmpty }

    /// The five signs in that order, or none at all: most ways have none, and a graph build holds
    /// every way's rule (an empty array is one word; five empty strings would be ten).
    private var signs: [String] = []
    private func sign(_ i: Int) -> String { signs.isEmpty ? "" : signs[i] }
    private mutating func setSign(_ i: Int, _ value: String) {
        if signs.isEmpty {
            if value.isEmpty { return }
            signs = Array(repeating: "", count: 5)
        }
        signs[i] = value
        if signs.allSatisfy(\.isEmpty) { signs = [] }
    }
}

/// What a profile makes of a node.
public struct NodeRule: Sendable, Equatable {
    /// A barrier a car cannot pass (the way is cut at this node).
    public var blocks = false
    /// A traffic light: passing it costs the profile's ``RoutingProfile/trafficSignalDelay``
    /// (and ``RoutingProfile/signalPassingDelay`` where no roads meet).
    public var trafficSignals = false
    /// Which way along the road a light faces (`traffic_signals:direction`): a light between
    /// junctions stops only traffic that way. (At a junction it counts for every turn.)
    public var signalDirection = SignalDirection.both
    /// Seconds for passing a barrier that opens (a gate: OSRM's `barrier_penalties`).
    public var barrierDelay = 0.0
    /// A place made for turning round (`highway=turning_circle`, `turning_loop`,
    /// `mini_roundabout`): U-turns are allowed here as at a dead end.
    public var turningPlace = false

    public init(blocks: Bool = false, trafficSignals: Bool = false, barrierDelay: Double = 0,
                turningPlace: Bool = false) {
        self.blocks = blocks
        self.trafficSignals = trafficSignals
        self.barrierDelay = barrierDelay
        self.turningPlace = turningPlace
    }

    /// Whether the node matters to the graph at all.
    public var isEmpty: Bool { !blocks && !trafficSignals && barrierDelay == 0 && !turningPlace }
}

/// Which traffic a light between junctions stops, along the way it stands on.
public enum SignalDirection: UInt8, Sendable {
    case both, forward, backward
}

/// A turn restriction's kind.
public enum RestrictionKind: UInt8, Sendable {
    /// `no_*`: the turn from → to is forbidden.
    case prohibitive
    /// `only_*`: from the from-way, only the turn onto the to-way is allowed.
    case mandatory
}
