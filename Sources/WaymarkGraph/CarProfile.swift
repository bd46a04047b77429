import Foundation

/// Road classes the car profile knows, in descending order of importance. Stored per edge as one byte.
public enum HighwayClass: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    case motorway, motorwayLink, trunk, trunkLink, primary, primaryLink, secondary, secondaryLink
    case tertiary, tertiaryLink, unclassified, residential, livingStreet, service, ferry

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
        }
    }

    public init?(tag: String) {
        guard let match = HighwayClass.allCases.first(where: { $0.tag == tag }) else { return nil }
        self = match
    }

    public var description: String { tag }
}

/// Per-edge flags (one byte).
public struct EdgeFlags: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// The way can be driven in one direction only.
    public static let oneway = EdgeFlags(rawValue: 1 << 0)
    public static let roundabout = EdgeFlags(rawValue: 1 << 1)
    public static let ferry = EdgeFlags(rawValue: 1 << 2)
    public static let toll = EdgeFlags(rawValue: 1 << 3)
    /// Access is restricted (destination traffic only, parking aisles): allowed, but not for through traffic.
    public static let restrictedAccess = EdgeFlags(rawValue: 1 << 4)
}

/// What the car profile makes of a way: nil from ``CarProfile/way(_:)`` means "not for cars".
public struct WayRule: Sendable, Equatable {
    public var highway: HighwayClass
    /// Speed in km/h along the way's node order; 0 means that direction is not allowed.
    public var forwardSpeed: Double
    /// Speed in km/h against the way's node order; 0 means that direction is not allowed.
    public var backwardSpeed: Double
    /// For ferries with a `duration` tag: the crossing time in seconds (spread over the way by length).
    public var duration: Double?
    public var flags: EdgeFlags
    public var name: String
    public var ref: String
}

/// What the car profile makes of a node.
public struct NodeRule: Sendable, Equatable {
    /// A barrier a car cannot pass (the way is cut at this node).
    public var blocks = false
    /// A traffic light: the router adds ``CarProfile/trafficSignalDelay`` when passing it.
    public var trafficSignals = false

    public init(blocks: Bool = false, trafficSignals: Bool = false) {
        self.blocks = blocks
        self.trafficSignals = trafficSignals
    }
}

/// A turn restriction's kind.
public enum RestrictionKind: UInt8, Sendable {
    /// `no_*`: the turn from → to is forbidden.
    case prohibitive
    /// `only_*`: from the from-way, only the turn onto the to-way is allowed.
    case mandatory
}

/// The car profile: tables and small pure functions over OSM tags, after OSRM's `car.lua`.
/// The graph and the search never read tags; everything they need is decided here.
///
/// Rules, where OSRM's profile and this one may differ, stated plainly:
/// - **Speed**: with a `maxspeed`, 0.8 × maxspeed (traffic averages below the limit, as OSRM's
///   `speed_reduction`); without, the highway class's default (``defaultSpeeds``; service roads
///   tagged as parking aisles, driveways or alleys 5 km/h). `maxspeed=none` counts as 140 km/h,
///   `walk` as 7 km/h, zone values (`DE:urban`, `GB:nsl_single`, …) come from ``maxspeedZones``.
///   The result is capped to 1…112 km/h (0.8 × 140), so a bogus limit cannot make a road absurdly fast.
///   `maxspeed:forward` / `maxspeed:backward` override it per direction.
/// - **Oneway**: `yes`/`1`/`true` forward only, `-1`/`reverse` backward only, `no`/`false`/`0` both,
///   `reversible` and `alternating` not routable; `highway=motorway`, `motorway_link` and
///   `junction=roundabout`/`circular` imply oneway unless `oneway=no`.
/// - **Access**: the first of `motorcar`, `motor_vehicle`, `vehicle`, `access` that is present
///   decides. ``blockingAccess`` values block; ``restrictedAccess`` values allow but flag the edge.
/// - **Barriers** on nodes block unless the node's own access tags allow cars or the barrier type is
///   in ``passableBarriers``. (OSRM's profile lets gates pass by default; Waymark does not.)
/// - **Ferries** (`route=ferry`) are routed only when the access hierarchy explicitly allows cars
///   (most ferries without such tags carry people only), at their `duration` when tagged, else at
///   ``ferrySpeed``.
/// - `area=yes`, `impassable=yes` ways are not routed. Surfaces and track types are not yet used.
public struct CarProfile: Sendable {
    /// Default speed in km/h for each routable class, used when a way has no `maxspeed`.
    public var defaultSpeeds: [HighwayClass: Double] = [
        .motorway: 90, .motorwayLink: 45, .trunk: 85, .trunkLink: 40, .primary: 65, .primaryLink: 30,
        .secondary: 55, .secondaryLink: 25, .tertiary: 40, .tertiaryLink: 20, .unclassified: 25,
        .residential: 25, .livingStreet: 10, .service: 15,
    ]
    /// Speed in km/h of service roads by their `service` value.
    public var serviceSpeeds: [String: Double] = ["parking_aisle": 5, "parking": 5, "driveway": 5, "alley": 5, "drive-through": 5, "drive-thru": 5]
    /// `service` values that are not for driving through at all.
    public var forbiddenServices: Set<String> = ["emergency_access"]
    /// Zone `maxspeed` values in km/h (keys lower-cased).
    public var maxspeedZones: [String: Double] = [
        "at:urban": 50, "at:rural": 100, "at:trunk": 100, "at:motorway": 130,
        "be:urban": 50, "be-vlg:rural": 70, "be-wal:rural": 90, "be:motorway": 120,
        "ch:urban": 50, "ch:rural": 80, "ch:trunk": 100, "ch:motorway": 120,
        "cz:urban": 50, "cz:rural": 90, "cz:trunk": 110, "cz:motorway": 130,
        "de:living_street": 7, "de:urban": 50, "de:rural": 100, "de:trunk": 130, "de:motorway": 130,
        "dk:urban": 50, "dk:rural": 80, "dk:motorway": 130,
        "es:urban": 50, "es:rural": 90, "es:trunk": 100, "es:motorway": 120,
        "fr:urban": 50, "fr:rural": 80, "fr:trunk": 110, "fr:motorway": 130,
        "gb:nsl_single": 96.56064, "gb:nsl_dual": 112.65408, "gb:motorway": 112.65408,
        "uk:nsl_single": 96.56064, "uk:nsl_dual": 112.65408, "uk:motorway": 112.65408,
        "it:urban": 50, "it:rural": 90, "it:trunk": 110, "it:motorway": 130,
        "nl:urban": 50, "nl:rural": 80, "nl:trunk": 100, "nl:motorway": 130,
        "no:urban": 50, "no:rural": 80, "no:motorway": 110,
        "pl:urban": 50, "pl:rural": 90, "pl:trunk": 100, "pl:motorway": 140,
        "pt:urban": 50, "pt:rural": 90, "pt:trunk": 100, "pt:motorway": 120,
        "ro:urban": 50, "ro:rural": 90, "ro:trunk": 100, "ro:motorway": 130,
        "ru:living_street": 20, "ru:urban": 60, "ru:rural": 90, "ru:motorway": 110,
        "za:urban": 60, "za:rural": 100,
        "none": 140, "walk": 7, "signals": 0,
    ]
    /// Factor from a posted limit to the speed actually used.
    public var speedReduction = 0.8
    /// Highest speed any way gets, km/h (0.8 × 140).
    public var maximumSpeed = 112.0
    /// Ferry speed in km/h when the ferry has no `duration`.
    public var ferrySpeed = 5.0
    /// Delay in seconds for passing a traffic light (used by the router).
    public var trafficSignalDelay = 2.0
    /// Access values that forbid cars.
    public var blockingAccess: Set<String> = ["no", "private", "agricultural", "forestry", "delivery", "emergency", "psv", "customers", "military"]
    /// Access values that allow cars explicitly.
    public var allowingAccess: Set<String> = ["yes", "permissive", "designated", "motorcar", "motor_vehicle", "vehicle"]
    /// Access values that allow cars for local traffic only.
    public var restrictedAccess: Set<String> = ["destination"]
    /// Node barriers a car passes.
    public var passableBarriers: Set<String> = ["cattle_grid", "toll_booth", "border_control", "entrance", "no", "sally_port", "height_restrictor", "arch"]
    /// The access hierarchy, most specific first.
    public var accessHierarchy = ["motorcar", "motor_vehicle", "vehicle", "access"]

    public init() {}

    /// The OSM tag keys the profile reads on ways (a reader may skip every other tag).
    public static let wayKeys: Set<String> = [
        "highway", "route", "oneway", "junction", "maxspeed", "maxspeed:forward", "maxspeed:backward",
        "motorcar", "motor_vehicle", "vehicle", "access", "area", "impassable", "duration", "name", "ref",
        "toll", "service",
    ]
    /// The OSM tag keys the profile reads on nodes.
    public static let nodeKeys: Set<String> = ["barrier", "highway", "motorcar", "motor_vehicle", "vehicle", "access"]

    // MARK: - Ways

    /// The rule for a way with these tags, or nil when cars cannot use it.
    public func way(_ tags: [String: String]) -> WayRule? {
        if tags["area"] == "yes" || tags["impassable"] == "yes" { return nil }
        let access = accessValue(tags)
        if let access, blockingAccess.contains(access) { return nil }
        let oneway = tags["oneway"]
        if oneway == "reversible" || oneway == "alternating" { return nil }

        var flags: EdgeFlags = []
        if let access, restrictedAccess.contains(access) { flags.insert(.restrictedAccess) }
        if tags["toll"] == "yes" { flags.insert(.toll) }
        let name = tags["name"] ?? "", ref = tags["ref"] ?? ""

        if tags["route"] == "ferry" {
            guard let access, allowingAccess.contains(access) || restrictedAccess.contains(access) else { return nil }
            flags.insert(.ferry)
            return WayRule(highway: .ferry, forwardSpeed: ferrySpeed, backwardSpeed: ferrySpeed,
                           duration: tags["duration"].flatMap(CarProfile.parseDuration), flags: flags, name: name, ref: ref)
        }
        guard let highwayTag = tags["highway"], let highway = HighwayClass(tag: highwayTag), highway != .ferry else { return nil }
        var speed = defaultSpeeds[highway] ?? 10
        if highway == .service, let service = tags["service"] {
            if forbiddenServices.contains(service) { return nil }
            if let serviceSpeed = serviceSpeeds[service] {
                speed = serviceSpeed
                if service == "parking_aisle" { flags.insert(.restrictedAccess) }
            }
        }
        if let limit = tags["maxspeed"].flatMap(maxspeed) { speed = limit * speedReduction }
        speed = clamp(speed)
        var forward = speed, backward = speed
        if let limit = tags["maxspeed:forward"].flatMap(maxspeed) { forward = clamp(limit * speedReduction) }
        if let limit = tags["maxspeed:backward"].flatMap(maxspeed) { backward = clamp(limit * speedReduction) }

        let junction = tags["junction"]
        if junction == "roundabout" || junction == "circular" { flags.insert(.roundabout) }
        switch oneway {
        case "yes", "1", "true":
            backward = 0
        case "-1", "reverse":
            forward = 0
        case "no", "false", "0":
            break
        default:
            if highway == .motorway || highway == .motorwayLink || flags.contains(.roundabout) { backward = 0 }
        }
        if forward == 0 || backward == 0 { flags.insert(.oneway) }
        return WayRule(highway: highway, forwardSpeed: forward, backwardSpeed: backward, duration: nil,
                       flags: flags, name: name, ref: ref)
    }

    /// The first access value in the hierarchy that is present.
    public func accessValue(_ tags: [String: String]) -> String? {
        for key in accessHierarchy {
            if let value = tags[key] { return value }
        }
        return nil
    }

    /// A posted speed limit in km/h: `50`, `30 mph`, `50 km/h`, `10 knots`, `none`, `walk`, zone
    /// values like `DE:urban`. Nil for values it cannot read (`signals`, `variable`, garbage).
    /// Of several values separated by `;` the lowest counts.
    public func maxspeed(_ value: String) -> Double? {
        if value.contains(";") {
            return value.split(separator: ";").compactMap { maxspeed(String($0)) }.min()
        }
        let text = value.trimmingCharacters(in: .whitespaces).lowercased()
        if let zone = maxspeedZones[text] { return zone > 0 ? zone : nil }
        var digits = Substring(text)
        while let last = digits.last, !last.isNumber && last != "." { digits = digits.dropLast() }
        let numberPart = digits.prefix { $0.isNumber || $0 == "." }
        guard !numberPart.isEmpty, let number = Double(numberPart), number > 0 else { return nil }
        let unit = text.dropFirst(numberPart.count).trimmingCharacters(in: .whitespaces)
        switch unit {
        case "", "km/h", "kmh", "kph": return number
        case "mph", "mp/h": return number * 1.609344
        case "knots": return number * 1.852
        default: return nil
        }
    }

    private func clamp(_ speed: Double) -> Double { min(maximumSpeed, max(1, speed)) }

    // MARK: - Nodes

    /// The rule for a node with these tags.
    public func node(_ tags: [String: String]) -> NodeRule {
        var rule = NodeRule(trafficSignals: tags["highway"] == "traffic_signals")
        if let access = accessValue(tags) {
            rule.blocks = blockingAccess.contains(access)
        } else if let barrier = tags["barrier"] {
            rule.blocks = !passableBarriers.contains(barrier)
        }
        return rule
    }

    // MARK: - Relations

    /// The kind of a restriction relation for cars, or nil when it is not one or does not apply to
    /// cars (`except=motorcar`, a `restriction:<other vehicle>` only, unknown values).
    public func restriction(_ tags: [String: String]) -> RestrictionKind? {
        guard tags["type"] == "restriction" else { return nil }
        if let except = tags["except"], except.split(separator: ";").contains(where: { ["motorcar", "motor_vehicle", "vehicle"].contains($0.trimmingCharacters(in: .whitespaces)) }) {
            return nil
        }
        guard let value = tags["restriction:motorcar"] ?? tags["restriction:motor_vehicle"] ?? tags["restriction"] else { return nil }
        if value.hasPrefix("no_") { return .prohibitive }
        if value.hasPrefix("only_") { return .mandatory }
        return nil
    }

    /// Parses a duration: `HH:MM`, `HH:MM:SS`, plain minutes (`45`), or ISO 8601 (`PT1H30M`). Seconds.
    public static func parseDuration(_ text: String) -> Double? {
        let t = text.trimmingCharacters(in: .whitespaces)
        if t.hasPrefix("PT") || t.hasPrefix("pt") {
            var total = 0.0, number = ""
            for ch in t.dropFirst(2) {
                if ch.isNumber || ch == "." { number.append(ch); continue }
                guard let value = Double(number) else { return nil }
                switch ch {
                case "H", "h": total += value * 3600
                case "M", "m": total += value * 60
                case "S", "s": total += value
                default: return nil
                }
                number = ""
            }
            return number.isEmpty && total > 0 ? total : nil
        }
        let parts = t.split(separator: ":", omittingEmptySubsequences: false).map { Double($0) }
        guard !parts.isEmpty, parts.allSatisfy({ $0 != nil && $0! >= 0 }) else { return nil }
        let v = parts.map { $0! }
        let seconds: Double
        switch v.count {
        case 1: seconds = v[0] * 60
        case 2: seconds = v[0] * 3600 + v[1] * 60
        case 3: seconds = v[0] * 3600 + v[1] * 60 + v[2]
        default: return nil
        }
        return seconds > 0 ? seconds : nil
    }
}
