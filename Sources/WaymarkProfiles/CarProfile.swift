import Foundation
import WaymarkGraph

/// The vehicle a profile routes: its size decides which ways it fits (OSRM's car defaults).
public struct Vehicle: Sendable, Equatable {
    /// Metres (2.0: slightly above the tallest SUVs).
    public var height = 2.0
    /// Metres.
    public var width = 1.9
    /// Metres.
    public var length = 4.8
    /// Kilograms.
    public var weight = 2000.0

    public init(height: Double = 2.0, width: Double = 1.9, length: Double = 4.8, weight: Double = 2000) {
        self.height = height
        self.width = width
        self.length = length
        self.weight = weight
    }
}

/// The car profile: tables and small pure functions over OSM tags, following OSRM's
/// `profiles/car.lua` and the helpers it uses (`lib/access.lua`, `lib/way_handlers.lua`,
/// `lib/measure.lua`, `lib/tags.lua`, `lib/maxspeed.lua`), handler for handler and table for
/// table. The graph and the search never read tags; everything they need is decided here.
///
/// Where Waymark differs, on purpose (README and docs/car-profile.md): the driving side is one setting for
/// the whole map rather than OSRM's per-way `driving_side` and country table; stop signs and give-way
/// signs cost nothing yet; lanes, destinations and exits are read by the guidance, not here.
public struct CarProfile: RoutingProfile {
    public var vehicle = Vehicle()

    /// km/h by `highway` value (OSRM's `speeds.highway`).
    public var speeds: [String: Double] = [
        "motorway": 90, "motorway_link": 45, "trunk": 85, "trunk_link": 40, "primary": 65, "primary_link": 30,
        "secondary": 55, "secondary_link": 25, "tertiary": 40, "tertiary_link": 20, "unclassified": 25,
        "residential": 25, "living_street": 10, "service": 15, "winter_road": 20, "ice_road": 15,
    ]
    /// km/h for a way of another class that an access tag opens to cars.
    public var defaultSpeed = 10.0
    /// km/h by `route` value: ferries and car trains.
    public var routeSpeeds: [String: Double] = ["ferry": 5, "shuttle_train": 10]
    /// km/h by `bridge` value (movable bridges).
    public var bridgeSpeeds: [String: Double] = ["movable": 5]
    /// Speed caps in km/h by `surface`, `tracktype` and `smoothness` (0: impassable).
    public var surfaceSpeeds: [String: Double] = [
        "cement": 80, "compacted": 80, "fine_gravel": 80, "paving_stones": 60, "metal": 60, "bricks": 60,
        "grass": 40, "wood": 40, "sett": 40, "grass_paver": 40, "gravel": 40, "unpaved": 40, "ground": 40, "dirt": 40,
        "pebblestone": 40, "tartan": 40, "cobblestone": 30, "clay": 30, "earth": 20, "stone": 20,
        "rocky": 20, "sand": 20,
        "laterite": 15, "mud": 10, "ice": 20, "snow": 30,
    ]
    public var tracktypeSpeeds: [String: Double] = ["grade1": 60, "grade2": 40, "grade3": 30,
                                                    "grade4": 25, "grade5": 20]
    public var smoothnessSpeeds: [String: Double] = [
        "intermediate": 80, "bad": 40, "very_bad": 20, "horrible": 10, "very_horrible": 5, "impassable": 0,
    ]
    /// Implicit limits by zone kind, for `XX:urban` and the like not in ``maxspeedTable``.
    public var maxspeedDefaults: [String: Double] = ["urban": 50, "rural": 90, "trunk": 110, "motorway": 130]
    /// Implicit limits that differ from ``maxspeedDefaults`` (keys lower-cased; 0: no limit known).
    public var maxspeedTable: [String: Double] = [
        "at:rural": 100, "at:trunk": 100, "ar:urban": 40, "ar:rural": 110, "be:motorway": 120, "be-bru:rural": 70,
        "be-bru:urban": 30, "be-vlg:rural": 70, "bg:motorway": 140, "by:urban": 60,
        "by:motorway": 110, "ca-on:rural": 80,
        "ch:rural": 80, "ch:trunk": 100, "ch:motorway": 120, "de:living_street": 7, "de:rural": 100, "de:motorway": 0,
        "dk:rural": 80, "es:trunk": 90, "fr:rural": 80, "gb:nsl_single": 60 * 1.609, "gb:nsl_dual": 70 * 1.609,
        "gb:motorway": 70 * 1.609, "lv:living_street": 20, "nl:rural": 80, "nl:trunk": 100, "no:rural": 80,
        "no:motorway": 110, "ph:urban": 40, "ph:rural": 80, "ph:motorway": 100, "pl:rural": 100, "pl:expressway": 120,
        "pl:motorway": 140, "ro:trunk": 100, "ru:living_street": 20, "ru:urban": 60, "ru:motorway": 110,
        "uk:nsl_single": 60 * 1.609, "uk:nsl_dual": 70 * 1.609, "uk:motorway": 70 * 1.609,
        "za:urban": 60, "za:rural": 100,
        "none": 140,
    ]
    /// Factor from a posted limit to the speed used (traffic averages below the limit).
    public var speedReduction = 0.8
    /// Weight penalties (rate factors) by `service` value.
    public var servicePenalties: [String: Double] = [
        "alley": 0.5, "parking": 0.5, "parking_aisle": 0.5, "driveway": 0.5, "drive-through": 0.5, "drive-thru": 0.5,
    ]
    public var sideRoadPenalty = 0.8
    public var laneMarkingsPenalty = 0.75
    public var priorityPenalty = 0.7
    public var alternatingPenalty = 0.4
    /// Seconds for passing a barrier that opens, by `barrier` value.
    public var barrierPenalties: [String: Double] = ["gate": 60, "lift_gate": 60]
    /// Seconds for passing a traffic light.
    public var trafficSignalDelay = 2.0
    public var travel: TravelProfile { .car }

    public var accessWhitelist: Set<String> = ["yes", "motorcar", "motor_vehicle", "vehicle",
                                               "permissive", "designated", "hov"]
    public var accessBlacklist: Set<String> = [
        "no", "agricultural", "forestry", "emergency", "psv", "taxi", "share_taxi", "minibus", "bus", "foot",
        "emergency_vehicle", "restricted", "military", "official", "customers", "private", "delivery", "destination",
        "permit", "residents",
    ]
    /// Access values that allow local traffic only (routable, no through traffic), on
    /// ``restrictedHighways``.
    public var restrictedAccess: Set<String> = ["private", "delivery", "destination", "customers",
                                                "permit", "residents", "unknown"]
    public var restrictedHighways: Set<String> = [
        "motorway", "motorway_link", "trunk", "trunk_link", "primary", "primary_link", "secondary", "secondary_link",
        "tertiary", "tertiary_link", "residential", "living_street", "unclassified", "service",
        "winter_road", "ice_road",
    ]
    /// Access values that keep waypoints off a service road.
    public var serviceAccessBlacklist: Set<String> = ["private"]
    /// The access hierarchy, most specific first.
    public var accessHierarchy = ["motorcar", "motor_vehicle", "vehicle", "access"] {
        didSet { accessKeys = DirectionalKeys(accessHierarchy) }
    }
    /// The modes whose `oneway:*` and `restriction:*` tags apply, most specific first.
    public var restrictionModes = ["motorcar", "motor_vehicle", "vehicle"] {
        didSet { onewayKeys = restrictionModes.map { "oneway:" + $0 } }
    }
    // Tag keys with their directional forms, made once (the way function runs per way of a country).
    private var accessKeys = DirectionalKeys(["motorcar", "motor_vehicle", "vehicle", "access"])
    private var onewayKeys = ["oneway:motorcar", "oneway:motor_vehicle", "oneway:vehicle"]
    private static let heightKeys = DirectionalKeys(["maxheight:physical", "maxheight"])
    private static let widthKeys = DirectionalKeys(["maxwidth:physical", "maxwidth", "width", "est_width"])
    private static let lengthKeys = DirectionalKeys(["maxlength"])
    private static let weightKeys = DirectionalKeys(["maxweightrating", "maxweight"])
    private static let maxspeedKeys = DirectionalKeys(["maxspeed:advisory", "maxspeed",
                                                       "source:maxspeed", "maxspeed:type"])
    public var forbiddenServices: Set<String> = ["emergency_access"]
    /// `highway` values never routed.
    public var avoidedHighways: Set<String> = ["area", "reversible", "impassable", "hov_lanes", "steps",
                                               "construction", "proposed"]
    /// `construction` values that do not close a road.
    public var constructionWhitelist: Set<String> = ["no", "widening", "minor"]
    /// Node barriers a car passes.
    public var barrierWhitelist: Set<String> = ["cattle_grid", "border_control", "toll_booth",
                                                "sally_port", "no", "entrance",
                                                "height_restrictor", "arch"]

    public init() {}

    public init(vehicle: Vehicle) {
        self.vehicle = vehicle
    }

    /// The OSM tag keys the profile reads on ways (a reader may skip every other tag).
    public static let wayKeys: Set<String> = Set(TagFamily.byKey.keys).union(["highway", "route", "duration", "footway",
                                                                              "cycleway", "is_sidepath"])
    /// Every key the profile reads, on ways or nodes.
    public var tagKeys: Set<String> { CarProfile.allKeys }
    private static let allKeys = wayKeys.union(nodeKeys)
    /// The OSM tag keys the profile reads on nodes.
    public static let nodeKeys: Set<String> = ["barrier", "highway", "motorcar", "motor_vehicle",
                                               "vehicle", "access", "maxheight",
                                               "bollard", "kerb", "sensory", "traffic_signals:direction",
                                               "direction"]

    // MARK: - Access

    /// Of a `;` list, the value that allows most (allowed > local traffic only > forbidden >
    /// unknown; the first of equals), as OSRM's `resolve_access`.
    public func resolveAccess(_ value: String?) -> String? {
        TagValues.mostAllowing(value, allowed: accessWhitelist, restricted: restrictedAccess,
                               forbidden: accessBlacklist)
    }

    /// The forward and backward values of the first of `keys` that has any: `key:forward`,
    /// `key:backward`, then `key` for a direction still without one (OSRM's
    /// `get_forward_backward_by_set`).
    static func forwardBackward(_ tags: [String: String],
                                _ keys: DirectionalKeys) -> (forward: String?, backward: String?) {
        var forward: String?, backward: String?
        for key in keys.keys {
            forward = forward ?? tags[key.forward]
            backward = backward ?? tags[key.backward]
            if forward == nil || backward == nil {
                let common = tags[key.plain]
                forward = forward ?? common
                backward = backward ?? common
            }
            if forward != nil && backward != nil { break }
        }
        return (forward, backward)
    }

    // MARK: - Ways

    /// What the way handlers below have found so far, as car.lua's `result` table: what each
    /// direction allows, its speed and its rate penalty.
    private struct WayDraft {
        var highway: String?, route: String?
        var present: TagFamily
        var forward = true, backward = true
        var accessForward: String?, accessBackward: String?
        var restrictedForward = false, restrictedBackward = false
        var oneway: String?, junction: String?
        var forwardOneway = false, reverseOneway = false
        var forwardSpeed = -1.0, backwardSpeed = -1.0, duration: Double?
        var ferry = false
        var service: String?
        var forwardPenalty = 1.0, backwardPenalty = 1.0

        init(highway: String?, route: String?, present: TagFamily) {
            (self.highway, self.route, self.present) = (highway, route, present)
        }
        var timed: Bool { (duration ?? 0) > 0 }
        var forwardDriven: Bool { forward && (forwardSpeed > 0 || timed) }
        var backwardDriven: Bool { backward && (backwardSpeed > 0 || timed) }
        /// The speed a rule records: none where not driven, at least 1 km/h on a timed crossing.
        func recorded(_ speed: Double, driven: Bool) -> Double { driven ? max(speed, timed ? 1 : speed) : 0 }
    }

    /// The rule for a way with these tags, or nil when cars cannot use it. The steps are
    /// car.lua's `process_way` handlers, in its order.
    public func way(_ tags: [String: String]) -> WayRule? {
        let highway = tags["highway"].flatMap { $0.isEmpty ? nil : $0 }
        let route = tags["route"].flatMap { $0.isEmpty ? nil : $0 }
        guard highway != nil || route != nil else { return nil }
        // Which kinds of tags the way has at all: one hash per tag it carries, so the many keys
        // below are looked up only where some of their kind is present.
        var way = WayDraft(highway: highway, route: route, present: TagFamily.of(tags))
        guard !isBlocked(tags, way),
              handleAccess(tags, &way),
              handleFerriesAndBridges(tags, &way),
              handleSpeeds(tags, &way) else { return nil }
        handlePenalties(tags, &way)
        // A direction is driven when allowed and it has a speed (or the crossing a duration).
        guard way.forwardDriven || way.backwardDriven else { return nil }
        var rule = WayRule(highway: highwayClass(way),
                           forwardSpeed: way.recorded(way.forwardSpeed, driven: way.forwardDriven),
                           backwardSpeed: way.recorded(way.backwardSpeed, driven: way.backwardDriven),
                           forwardPenalty: way.forwardPenalty, backwardPenalty: way.backwardPenalty,
                           duration: way.timed ? way.duration : nil, flags: flags(tags, way),
                           name: way.present.contains(.names) ? TagValues.wayName(tags) : "",
                           ref: way.present.contains(.names)
                               ? tags["ref"].map { TagValues.canonicalList($0) } ?? "" : "")
        if way.present.contains(.signs) { handleSigns(tags, way, &rule) }
        rule.lanes = laneCount(tags, way, rule)
        return rule
    }

    /// Blocked and avoided ways (car.lua's `blocked_ways` and `avoid_ways`).
    private func isBlocked(_ tags: [String: String], _ way: WayDraft) -> Bool {
        let highway = way.highway
        if highway == "steps" || highway == "construction" { return true }
        if way.present.contains(.blocking) {
            if tags["area"] == "yes" || tags["railway"] == "construction" { return true }
            if let construction = tags["construction"], !constructionWhitelist.contains(construction) { return true }
            if tags["proposed"] != nil && (highway == nil || highway == "proposed") { return true }
            if tags["impassable"] == "yes" || tags["status"] == "impassable" { return true }
        }
        if way.present.contains(.oneway) && tags["oneway"] == "reversible" { return true }
        if let highway, avoidedHighways.contains(highway) { return true }
        return false
    }

    /// The vehicle's size, access and oneways, per direction (`handle_dimensions`,
    /// `handle_access`, `handle_oneway`); false when neither direction is open.
    private func handleAccess(_ tags: [String: String], _ way: inout WayDraft) -> Bool {
        // The vehicle's size against physical and legal limits, per direction.
        if way.present.contains(.dimensions) { (way.forward, way.backward) = fitsVehicle(tags) }

        // Access, per direction; local-traffic-only values on public road classes are
        // restricted, not forbidden.
        let (accessTagForward, accessTagBackward) =
            way.present.contains(.access) ? CarProfile.forwardBackward(tags, accessKeys) : (nil, nil)
        way.accessForward = resolveAccess(accessTagForward)
        way.accessBackward = resolveAccess(accessTagBackward)
        if let highway = way.highway, restrictedHighways.contains(highway) {
            if let access = way.accessForward, restrictedAccess.contains(access) { way.restrictedForward = true }
            if let access = way.accessBackward, restrictedAccess.contains(access) { way.restrictedBackward = true }
        }
        if let access = way.accessForward, accessBlacklist.contains(access), !way.restrictedForward {
            way.forward = false
        }
        if let access = way.accessBackward, accessBlacklist.contains(access), !way.restrictedBackward {
            way.backward = false
        }
        guard way.forward || way.backward else { return false }

        // Oneways: `oneway:motorcar` > `oneway:motor_vehicle` > `oneway:vehicle` > `oneway`.
        if way.present.contains(.oneway) {
            for key in onewayKeys where way.oneway == nil { way.oneway = tags[key] }
            way.oneway = way.oneway ?? tags["oneway"]
        }
        way.junction = way.present.contains(.junction) ? tags["junction"] : nil
        let oneway = way.oneway, junction = way.junction
        if oneway == "-1" {
            way.reverseOneway = true
            way.forward = false
        } else if oneway == "yes" || oneway == "1" || oneway == "true"
                    || (way.highway == "motorway" || junction == "roundabout" || junction == "circular")
                    && oneway != "no" { // implied
            way.forwardOneway = true
            way.backward = false
        }
        return true
    }

    /// Ferries and car trains, movable bridges, then the services cars never use
    /// (`handle_ferries`, `handle_movables`, `handle_service`); false for a forbidden service.
    private func handleFerriesAndBridges(_ tags: [String: String], _ way: inout WayDraft) -> Bool {
        if let route = way.route, let speed = routeSpeeds[route], speed > 0 {
            if let d = tags["duration"].flatMap(TagValues.duration) { way.duration = max(d, 1) }
            way.ferry = true
            way.forwardSpeed = speed
            way.backwardSpeed = speed
        }
        if way.present.contains(.bridge), let bridge = tags["bridge"], let speed = bridgeSpeeds[bridge], speed > 0 {
            way.ferry = false
            if let d = tags["duration"].flatMap(TagValues.duration) {
                way.duration = max(d, 1)
            } else {
                way.forwardSpeed = speed
                way.backwardSpeed = speed
            }
        }
        way.service = way.present.contains(.service) ? tags["service"] : nil
        if let service = way.service, forbiddenServices.contains(service) { return false }
        return true
    }

    /// High-occupancy lanes, then speeds: by class (or the default where access opens another
    /// class), posted limits, surface caps (`handle_hov`, `handle_speed`, `handle_maxspeed`,
    /// `handle_surface`); false when no direction has a speed.
    private func handleSpeeds(_ tags: [String: String], _ way: inout WayDraft) -> Bool {
        // High-occupancy lanes: all lanes (or the road) for HOV only count as restricted.
        if way.present.contains(.hov) {
            if tags["hov"] == "designated" {
                way.restrictedForward = true
                way.restrictedBackward = true
            }
            let hovForward = tags["hov:lanes:forward"] ?? (way.reverseOneway ? nil : tags["hov:lanes"])
            let hovBackward = tags["hov:lanes:backward"] ?? (way.forwardOneway ? nil : tags["hov:lanes"])
            func allDesignated(_ lanes: String?) -> Bool {
                guard let lanes else { return false }
                return lanes.split(separator: "|", omittingEmptySubsequences: false).allSatisfy { $0 == "designated" }
            }
            if allDesignated(hovForward) { way.restrictedForward = true }
            if allDesignated(hovBackward) { way.restrictedBackward = true }
        }

        // Speed by class, or the default speed on another class that access opens.
        if way.forwardSpeed == -1 {
            if let highway = way.highway, let speed = speeds[highway] {
                way.forwardSpeed = speed
                way.backwardSpeed = speed
            } else {
                if opens(way.accessForward) {
                    way.forwardSpeed = defaultSpeed
                } else if way.accessForward == nil && way.accessBackward != nil {
                    way.forward = false
                }
                if opens(way.accessBackward) {
                    way.backwardSpeed = defaultSpeed
                } else if way.accessBackward == nil && way.accessForward != nil {
                    way.backward = false
                }
            }
            if way.forwardSpeed == -1 && way.backwardSpeed == -1 && (way.duration ?? 0) <= 0 { return false }
        }

        // Posted limits: 0.8 × the limit, per direction.
        let (limitForward, limitBackward) =
            way.present.contains(.maxspeed) ? CarProfile.forwardBackward(tags, CarProfile.maxspeedKeys) : (nil, nil)
        // (Calls, not `limitForward.map(maxspeed)`: a method reference would copy the whole profile.)
        if let value = limitForward, case let limit = maxspeed(value), limit > 0 {
            way.forwardSpeed = limit * speedReduction
        }
        if let value = limitBackward, case let limit = maxspeed(value), limit > 0 {
            way.backwardSpeed = limit * speedReduction
        }

        // Surface, track type and smoothness cap the speed.
        if way.present.contains(.surface) {
            for (value, table) in [(tags["surface"], surfaceSpeeds), (tags["tracktype"], tracktypeSpeeds),
                                   (tags["smoothness"], smoothnessSpeeds)] {
                if let value, let cap = table[value] {
                    way.forwardSpeed = min(cap, way.forwardSpeed)
                    way.backwardSpeed = min(cap, way.backwardSpeed)
                }
            }
        }
        return true
    }

    /// Rate penalties: the routing weight of a slow-to-use road, its travel time unchanged
    /// (`handle_penalties`).
    private func handlePenalties(_ tags: [String: String], _ way: inout WayDraft) {
        let bidirectional = way.forward && way.backward
        var widthPenalty = 1.0, sideRoad = 1.0, priority: String?
        if way.present.contains(.penalty) {
            if tags["lane_markings"] == "no" && bidirectional { widthPenalty = laneMarkingsPenalty }
            if let width = tags["width"].flatMap(TagValues.metres), bidirectional {
                if width <= 3 {
                    widthPenalty = 0.5
                } else if width < 4 {
                    widthPenalty = 0.6
                } else if width < 5 {
                    widthPenalty = 0.75
                } else if width < 6 {
                    widthPenalty = 0.8
                }
            }
            if let lanes = tags["lanes"].flatMap({ TagValues.leadingInteger(Substring($0)) }), lanes <= 1,
               bidirectional {
                widthPenalty = 0.5
            }
            if tags["side_road"] == "yes" || tags["side_road"] == "rotary" { sideRoad = sideRoadPenalty }
            priority = tags["priority"]
        }
        // (No closure over `self` here: it would copy the whole profile for every way.)
        var servicePenalty = 1.0
        if let service = way.service, let penalty = servicePenalties[service] { servicePenalty = penalty }
        let alternating = way.oneway == "alternating" ? alternatingPenalty : 1
        let common = min(servicePenalty, widthPenalty, alternating, sideRoad)
        way.forwardPenalty = min(common, priority == "backward" ? priorityPenalty : 1)
        way.backwardPenalty = min(common, priority == "forward" ? priorityPenalty : 1)
    }

    /// The edge flags of a way that is driven.
    private func flags(_ tags: [String: String], _ way: WayDraft) -> EdgeFlags {
        var flags: EdgeFlags = []
        if !way.forwardDriven || !way.backwardDriven { flags.insert(.oneway) }
        if way.junction == "roundabout" || way.junction == "circular" { flags.insert(.roundabout) }
        if way.ferry { flags.insert([.ferry, .notStartpoint]) }
        if way.present.contains(.toll) && tags["toll"] == "yes" { flags.insert(.toll) }
        if way.present.contains(.tunnel), let tunnel = tags["tunnel"], tunnel != "no" { flags.insert(.tunnel) }
        if way.restrictedForward { flags.insert(.restrictedForward) }
        if way.restrictedBackward { flags.insert(.restrictedBackward) }
        if way.highway == "service", let access = way.accessForward, serviceAccessBlacklist.contains(access) {
            flags.insert(.notStartpoint)
        }
        return flags
    }

    private func highwayClass(_ way: WayDraft) -> HighwayClass {
        way.ferry ? .ferry : way.highway.flatMap(HighwayClass.init(tag:)).flatMap { $0 == .ferry ? nil : $0 } ?? .other
    }

    /// Destinations, exit numbers and turn lanes, per direction driven (`handle_destinations`,
    /// `handle_turn_lanes`).
    private func handleSigns(_ tags: [String: String], _ way: WayDraft, _ rule: inout WayRule) {
        if way.forwardOneway || way.reverseOneway {
            let signed = TagValues.canonicalList(
                CarProfile.destinations(tags, forward: way.forwardOneway), separator: ",")
            if way.forwardOneway { rule.destinationsForward = signed } else { rule.destinationsBackward = signed }
        }
        rule.exits = tags["junction:ref"].map { TagValues.canonicalList($0) } ?? ""
        // OSRM's `get_forward_backward_by_key`: the plain key serves the directions driven.
        let common = tags["turn:lanes"]
        var lanesForward = tags["turn:lanes:forward"], lanesBackward = tags["turn:lanes:backward"]
        if lanesForward == nil || lanesBackward == nil {
            if way.forwardOneway {
                lanesForward = lanesForward ?? common
            } else if way.reverseOneway {
                lanesBackward = lanesBackward ?? common
            } else {
                lanesForward = lanesForward ?? common
                lanesBackward = lanesBackward ?? common
            }
        }
        rule.turnLanesForward = way.forwardDriven ? lanesForward ?? "" : ""
        rule.turnLanesBackward = way.backwardDriven ? lanesBackward ?? "" : ""
    }

    /// OSRM's `num_lanes` (guidance.lua, then at least the turn lanes kept, both ways).
    private func laneCount(_ tags: [String: String], _ way: WayDraft, _ rule: WayRule) -> UInt8 {
        var lanes = way.present.contains(.penalty) ? Int(TagValues.laneCount(tags)) : 0
        func turnLaneCount(_ s: String) -> Int {
            s.isEmpty ? 0 : s.utf8.reduce(1) { $0 + ($1 == UInt8(ascii: "|") ? 1 : 0) }
        }
        lanes = max(lanes, turnLaneCount(rule.turnLanesForward) + turnLaneCount(rule.turnLanesBackward))
        return UInt8(min(lanes, 255))
    }

    /// The signs of a oneway as OSRM's `get_destination` assembles them: "A 4: Braga, Guimarães"
    /// (`destination:ref: destination`), else the one present of ref, destination, street; each
    /// from its `:forward`/`:backward` form for the direction, else the plain key, `;` as `, `.
    static func destinations(_ tags: [String: String], forward: Bool) -> String {
        func directional(_ key: String) -> String? {
            let value = tags[key + (forward ? ":forward" : ":backward")] ?? tags[key]
            return value.map { $0.replacingOccurrences(of: ";", with: ", ") }
        }
        let ref = directional("destination:ref"), destination = directional("destination")
        if let ref, let destination { return "\(ref): \(destination)" }
        return ref ?? destination ?? directional("destination:street") ?? ""
    }

    /// Whether an access value opens a road of a class cars do not use by default.
    private func opens(_ access: String?) -> Bool {
        guard let access else { return false }
        return accessWhitelist.contains(access) || !accessBlacklist.contains(access)
    }

    /// Whether the vehicle fits the way forward and backward: height, width (or a narrow way),
    /// length and weight against the way's limits.
    private func fitsVehicle(_ tags: [String: String]) -> (Bool, Bool) {
        func fits(_ value: String?, _ parse: (String) -> Double?, _ size: Double) -> Bool {
            guard let value, let limit = parse(value) else { return true }
            return limit >= size
        }
        let (heightForward, heightBackward) = CarProfile.forwardBackward(tags, CarProfile.heightKeys)
        let (lengthForward, lengthBackward) = CarProfile.forwardBackward(tags, CarProfile.lengthKeys)
        let (weightForward, weightBackward) = CarProfile.forwardBackward(tags, CarProfile.weightKeys)
        let (widthForward, widthBackward) = CarProfile.forwardBackward(tags, CarProfile.widthKeys)
        let narrowWay = tags["narrow"] == "yes"
        func wideEnough(_ value: String?) -> Bool {
            if value == "narrow" || narrowWay { return vehicle.width <= 2.2 }
            return value.flatMap(TagValues.metres).map { $0 > vehicle.width } ?? true
        }
        let forward = fits(heightForward,
                           TagValues.height, vehicle.height) && fits(lengthForward, TagValues.metres, vehicle.length)
            && fits(weightForward, TagValues.kilograms, vehicle.weight) && wideEnough(widthForward)
        let backward = fits(heightBackward,
                            TagValues.height, vehicle.height) && fits(lengthBackward, TagValues.metres, vehicle.length)
            && fits(weightBackward, TagValues.kilograms, vehicle.weight) && wideEnough(widthBackward)
        return (forward, backward)
    }

    /// A posted speed limit in km/h as OSRM reads `maxspeed`: the leading number (× 1.609 with
    /// `mph`), else a zone value (`DE:urban`, `GB:nsl_single`, `none`) from ``maxspeedTable`` or
    /// ``maxspeedDefaults``; 0 when unknown (`signals`, `variable`, `walk`, garbage).
    public func maxspeed(_ value: String) -> Double {
        if let speed = TagValues.speed(value) { return speed }
        let text = value.lowercased()
        if let zone = maxspeedTable[text] { return zone }
        // Two letters, a colon, letters: the zone kind after the colon.
        let chars = Array(text)
        for i in 0..<max(0, chars.count - 3) where chars[i].isLetter && chars[i + 1].isLetter && chars[i + 2] == ":"
            && chars[i + 3].isLetter {
            let kind = String(chars[(i + 3)...].prefix { $0.isLetter })
            return maxspeedDefaults[kind] ?? 0
        }
        return 0
    }

    // MARK: - Nodes

    /// The rule for a node with these tags: access tags decide where present (a forbidding value
    /// blocks, a local-traffic value does not); otherwise the barrier does — whitelisted ones,
    /// rising bollards, lowered or flush kerbs, kerbs at crossings and audible (virtual) fences
    /// pass, gates pass at a penalty, a height restrictor lower than the vehicle blocks, the rest block.
    public func node(_ tags: [String: String]) -> NodeRule {
        let highway = tags["highway"]
        var rule = NodeRule(trafficSignals: highway == "traffic_signals",
                            turningPlace: highway == "turning_circle" || highway == "turning_loop"
                            || highway == "mini_roundabout")
        // The way a light faces (OSRM's obstacles: `traffic_signals:direction`, else `direction`).
        if rule.trafficSignals {
            rule.signalDirection = TagValues.signalDirection(tags["traffic_signals:direction"] ?? tags["direction"])
        }
        if let access = resolveAccess(accessHierarchy.lazy.compactMap { tags[$0] }.first) {
            rule.blocks = accessBlacklist.contains(access) && !restrictedAccess.contains(access)
        } else if let barrier = tags["barrier"] {
            let tooLow = barrier == "height_restrictor"
                && (tags["maxheight"].flatMap(TagValues.height).map { $0 < vehicle.height } ?? false)
            let kerb = tags["kerb"]
            let passes = barrierWhitelist.contains(barrier) || tags["bollard"] == "rising" || kerb == "lowered"
                || kerb == "flush"
                || (barrier == "kerb" && tags["highway"] == "crossing")
                || (barrier == "fence" && (tags["sensory"] == "audible" || tags["sensory"] == "audio"))
            let penalty = barrierPenalties[barrier]
            rule.blocks = !passes && penalty == nil || tooLow
            rule.barrierDelay = penalty ?? 0
        }
        return rule
    }

    // MARK: - Relations

    /// The kind of a restriction relation for cars, or nil when it is not one or does not apply to
    /// cars: `except` naming a car mode, a `restriction:<other vehicle>` only, `no_*_on_red`, or a
    /// value that is neither `no_*` nor `only_*`. (`restriction:conditional` is not read.)
    public func restriction(_ tags: [String: String]) -> RestrictionKind? {
        TagValues.restriction(tags, modes: restrictionModes)
    }

    /// Whether a restriction relation may name several from ways (`no_entry`) or several to ways
    /// (`no_exit`): each pair of them is a restriction of its own, as in OSRM.
    public func restrictionMayNameSeveralWays(_ tags: [String: String]) -> (from: Bool, to: Bool) {
        TagValues.restrictionMayNameSeveralWays(tags, modes: restrictionModes)
    }
}

/// Tag keys with their `:forward` and `:backward` forms, most specific first.
struct DirectionalKeys: Sendable {
    let keys: [(plain: String, forward: String, backward: String)]

    init(_ names: [String]) {
        keys = names.map { ($0, $0 + ":forward", $0 + ":backward") }
    }
}

/// The kinds of way tags the profile reads, so it looks up a kind's keys only on ways that carry
/// one of them.
struct TagFamily: OptionSet, Sendable {
    let rawValue: UInt16
    static let blocking = TagFamily(rawValue: 1 << 0)
    static let dimensions = TagFamily(rawValue: 1 << 1)
    static let access = TagFamily(rawValue: 1 << 2)
    static let oneway = TagFamily(rawValue: 1 << 3)
    static let junction = TagFamily(rawValue: 1 << 4)
    static let bridge = TagFamily(rawValue: 1 << 5)
    static let service = TagFamily(rawValue: 1 << 6)
    static let hov = TagFamily(rawValue: 1 << 7)
    static let maxspeed = TagFamily(rawValue: 1 << 8)
    static let surface = TagFamily(rawValue: 1 << 9)
    static let penalty = TagFamily(rawValue: 1 << 10)
    static let toll = TagFamily(rawValue: 1 << 11)
    static let names = TagFamily(rawValue: 1 << 12)
    static let signs = TagFamily(rawValue: 1 << 13)
    static let tunnel = TagFamily(rawValue: 1 << 14)

    /// The families of every key the way function reads (a key may be in several).
    static let byKey: [String: TagFamily] = {
        var table: [String: TagFamily] = [:]
        func add(_ keys: [String], _ family: TagFamily, directional: Bool = false) {
            for key in keys {
                for form in directional ? [key, key + ":forward", key + ":backward"] : [key] {
                    table[form, default: []].insert(family)
                }
            }
        }
        add(["area", "railway", "construction", "proposed", "impassable", "status"], .blocking)
        add(["maxheight:physical", "maxheight", "maxwidth:physical", "maxwidth", "width", "est_width", "maxlength",
             "maxweightrating", "maxweight"],
            .dimensions, directional: true)
        add(["narrow"], .dimensions)
        add(["motorcar", "motor_vehicle", "vehicle", "access"], .access, directional: true)
        add(["oneway", "oneway:motorcar", "oneway:motor_vehicle", "oneway:vehicle"], .oneway)
        add(["junction"], .junction)
        add(["bridge"], .bridge)
        add(["service"], .service)
        add(["hov"], .hov)
        add(["hov:lanes"], .hov, directional: true)
        add(["maxspeed:advisory", "maxspeed", "source:maxspeed", "maxspeed:type"], .maxspeed, directional: true)
        add(["surface", "tracktype", "smoothness"], .surface)
        add(["width", "lanes", "lanes:forward", "lanes:backward", "lane_markings", "side_road", "priority"], .penalty)
        add(["toll"], .toll)
        add(["tunnel"], .tunnel)
        add(["name", "ref", "is_sidepath:of:name", "street:name"], .names)
        add(["destination", "destination:ref", "destination:street", "turn:lanes"], .signs, directional: true)
        add(["junction:ref"], .signs)
        return table
    }()

    static func of(_ tags: [String: String]) -> TagFamily {
        var families: TagFamily = []
        for key in tags.keys { if let family = byKey[key] { families.formUnion(family) } }
        return families
    }
}
