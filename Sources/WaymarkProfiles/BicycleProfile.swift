import Foundation
import WaymarkGraph

/// OSRM's bicycle profile (`profiles/bicycle.lua` of OSRM 26.10), handler by handler: who may ride
/// where (`bicycle` over `vehicle` over `access`, per direction), speeds by way, surface and
/// `maxspeed`, oneways (`oneway:bicycle` first) and cycle lanes against them, pushing the bicycle
/// at walking pace where it may not be ridden (footways, steps, a oneway's other direction,
/// `bicycle=dismount`), ferries, trains, movable bridges and barriers. Cyclists obey turn
/// restrictions for bicycles.
public struct BicycleProfile: RoutingProfile {
    public var travel: TravelProfile { .bicycle }
    /// km/h on ways made for riding.
    public var defaultSpeed = 15.0
    /// km/h pushing the bicycle.
    public var walkingSpeed = 4.0
    /// No speed above this, km/h (`vehicle_max_speed`: recreational cycling).
    public var maxSpeed = 21.0
    /// Seconds for passing a traffic light (`traffic_signal_penalty`).
    public var trafficSignalDelay = 2.0
    /// Seconds for passing a light between junctions, whichever way it faces: OSRM prices it as
    /// a turn where two roads meet, made with an angle of 180°, which bicycle.lua's turn
    /// function (no count of roads) charges as a U-turn's angle: (180/90)² × 6 / 1.4 s.
    public var signalPassingDelay: Double { 4 * turnPenalty / turnBias }
    /// bicycle.lua's `turn_penalty` (seconds at a right angle) and `turn_bias`.
    public var turnPenalty = 6.0, turnBias = 1.4

    public var accessWhitelist: Set<String> = ["yes", "permissive", "designated"]
    /// `use_sidepath`: a parallel way for cyclists is mapped and must be used instead.
    public var accessBlacklist: Set<String> = ["no", "private", "agricultural", "forestry", "delivery",
                                               "use_sidepath"]
    public var barrierBlacklist: Set<String> = ["yes", "wall", "fence"]
    public var constructionWhitelist: Set<String> = ["no", "widening", "minor"]
    public var cyclewayTags: Set<String> = ["track", "lane", "share_busway", "sharrow", "shared", "shared_lane"]
    public var oppositeCyclewayTags: Set<String> = ["opposite", "opposite_lane", "opposite_track"]
    /// Riding speeds by `highway`, km/h.
    public var bicycleSpeeds: [String: Double] = [
        "cycleway": 15, "primary": 15, "primary_link": 15, "secondary": 15, "secondary_link": 15,
        "tertiary": 15, "tertiary_link": 15, "residential": 15, "unclassified": 15, "living_street": 15,
        "service": 15, "track": 12, "path": 13,
    ]
    /// Pushing speeds by `highway`, km/h.
    public var pedestrianSpeeds: [String: Double] = ["footway": 4, "pedestrian": 4, "steps": 2]
    public var railwaySpeeds: [String: Double] = ["train": 10, "railway": 10, "subway": 10, "light_rail": 10,
                                                  "monorail": 10, "tram": 10]
    public var platformSpeeds: [String: Double] = ["platform": 4]
    public var amenitySpeeds: [String: Double] = ["parking": 10, "parking_entrance": 10]
    public var manMadeSpeeds: [String: Double] = ["pier": 4]
    public var routeSpeeds: [String: Double] = ["ferry": 5]
    public var bridgeSpeeds: [String: Double] = ["movable": 5]
    /// Speed caps by `surface`, km/h.
    public var surfaceSpeeds: [String: Double] = [
        "asphalt": 15, "chipseal": 15, "concrete": 15, "concrete_lanes": 15, "wood": 10, "metal": 10,
        "cobblestone:flattened": 10, "paving_stones": 10, "compacted": 10, "cobblestone": 7, "unpaved": 6,
        "fine_gravel": 10, "gravel": 6, "pebblestone": 6, "grass_paver": 6, "ground": 10, "dirt": 8,
        "earth": 6, "laterite": 5, "grass": 6, "mud": 3, "sand": 3, "woodchips": 3, "sett": 9,
    ]

    public init() {}

    /// `access_tags_hierarchy`, most specific first.
    static let accessHierarchy = ["bicycle", "vehicle", "access"]
    static let accessKeys = DirectionalKeys(accessHierarchy)
    /// The keys of which a way needs one to be considered at all (bicycle.lua's first check).
    static let routableKeys = ["highway", "route", "railway", "amenity", "man_made", "public_transport", "bridge"]
    static let separateCyclewayKeys = ["cycleway", "cycleway:both", "cycleway:left", "cycleway:right"]
    /// `bicycle` values that open a carriageway whose cycleway is mapped apart.
    static let separateCyclewayOverride: Set<String> = ["yes", "permissive", "designated", "destination"]
    static let restrictionModes = ["bicycle"]
    static let wayKeys: Set<String> = [
        "highway", "route", "man_made", "railway", "amenity", "public_transport", "bridge", "bicycle",
        "vehicle", "access", "bicycle:forward", "bicycle:backward", "vehicle:forward", "vehicle:backward",
        "access:forward", "access:backward", "junction", "maxspeed", "maxspeed:forward", "maxspeed:backward",
        "oneway", "oneway:bicycle", "cycleway", "cycleway:both", "cycleway:left", "cycleway:right", "duration",
        "foot", "foot:forward", "foot:backward", "impassable", "status", "construction", "motorroad", "proposed",
        "surface", "name", "ref", "is_sidepath:of:name", "street:name", "footway", "is_sidepath", "tunnel",
        "route:forward", "route:backward", "lanes", "lanes:forward", "lanes:backward",
    ]
    static let nodeKeys: Set<String> = ["bicycle", "vehicle", "access", "barrier", "sensory", "highway",
                                        "traffic_signals:direction"]
    public var tagKeys: Set<String> { BicycleProfile.wayKeys.union(BicycleProfile.nodeKeys) }

    // MARK: - Ways

    /// What the handlers have found so far, as bicycle.lua's `result` and `data` tables; a mode
    /// of nil is OSRM's `inaccessible`.
    private struct WayDraft {
        var highway: String?
        var forwardMode: WayMode? = .travel, backwardMode: WayMode? = .travel
        var forwardSpeed = -1.0, backwardSpeed = -1.0, duration = 0.0
        var access: String?, forwardAccess: String?, backwardAccess: String?
        var allowsPushing = false, impliedOneway = false, reverse = false
        var forwardUsed: Bool { forwardMode != nil && (forwardSpeed > 0 || duration > 0) }
        var backwardUsed: Bool { backwardMode != nil && (backwardSpeed > 0 || duration > 0) }
        func recorded(_ speed: Double, used: Bool) -> Double { used ? max(speed, duration > 0 ? 1 : speed) : 0 }
    }

    /// The rule for a way with these tags, or nil when a bicycle cannot use it: bicycle.lua's
    /// `process_way` handlers in its order.
    public func way(_ tags: [String: String]) -> WayRule? {
        var way = WayDraft(highway: tags["highway"])
        guard !isBlocked(tags, way), handleBicycleTags(tags, &way), !hasSeparateCycleway(tags) else { return nil }
        if let cap = tags["surface"].flatMap({ surfaceSpeeds[$0] }) {
            way.forwardSpeed = min(cap, way.forwardSpeed)
            way.backwardSpeed = min(cap, way.backwardSpeed)
        }
        if way.forwardSpeed > 0 { way.forwardSpeed = min(way.forwardSpeed, maxSpeed) }
        if way.backwardSpeed > 0 { way.backwardSpeed = min(way.backwardSpeed, maxSpeed) }
        guard way.forwardUsed || way.backwardUsed else { return nil }
        return rule(tags, way)
    }

    /// The way's rule from the finished draft: classes, start points, roundabouts, names.
    private func rule(_ tags: [String: String], _ way: WayDraft) -> WayRule {
        let (forwardRoute, backwardRoute) = (tags["route:forward"] ?? tags["route"],
                                             tags["route:backward"] ?? tags["route"])
        var flags: EdgeFlags = []
        if !way.forwardUsed || !way.backwardUsed { flags.insert(.oneway) }
        if tags["junction"] == "roundabout" || tags["junction"] == "circular" { flags.insert(.roundabout) }
        if forwardRoute == "ferry" || backwardRoute == "ferry" { flags.insert(.ferry) }
        if let tunnel = tags["tunnel"], tunnel != "no" { flags.insert(.tunnel) }
        // Start points: ways ridden or pushed (not ferries, not trains).
        func starts(_ mode: WayMode?) -> Bool { mode == .travel || mode == .pushingBike }
        if !starts(way.forwardMode) && !starts(way.backwardMode) { flags.insert(.notStartpoint) }
        let highway: HighwayClass = flags.contains(.ferry) ? .ferry
            : way.highway.flatMap(HighwayClass.init(tag:)).flatMap { $0 == .ferry ? nil : $0 } ?? .other
        var rule = WayRule(highway: highway,
                           forwardSpeed: way.recorded(way.forwardSpeed, used: way.forwardUsed),
                           backwardSpeed: way.recorded(way.backwardSpeed, used: way.backwardUsed),
                           duration: way.duration > 0 ? way.duration : nil, flags: flags,
                           name: TagValues.wayName(tags),
                           ref: tags["ref"].map { TagValues.canonicalList($0) } ?? "")
        rule.forwardMode = way.forwardMode ?? .travel
        rule.backwardMode = way.backwardMode ?? .travel
        rule.lanes = TagValues.laneCount(tags)
        return rule
    }

    /// `blocked_ways` with bicycle.lua's avoid set: impassable, construction, proposed, motorroads.
    private func isBlocked(_ tags: [String: String], _ way: WayDraft) -> Bool {
        if way.highway == "construction" || tags["railway"] == "construction" { return true }
        if tags["motorroad"] == "yes" { return true }
        if let construction = tags["construction"], !constructionWhitelist.contains(construction) { return true }
        if tags["proposed"] != nil && (way.highway == nil || way.highway == "proposed") { return true }
        return tags["impassable"] == "yes" || tags["status"] == "impassable"
    }

    /// `handle_bicycle_tags`: whether the way is one at all and not closed to bicycles, then its
    /// speeds, oneways, cycle lanes, pushing, speed limits and access per direction.
    private func handleBicycleTags(_ tags: [String: String], _ way: inout WayDraft) -> Bool {
        guard BicycleProfile.routableKeys.contains(where: { !(tags[$0] ?? "").isEmpty }) else { return false }
        way.access = BicycleProfile.access(tags)
        let (forward, backward) = CarProfile.forwardBackward(tags, BicycleProfile.accessKeys)
        way.forwardAccess = TagValues.mostAllowing(forward, allowed: accessWhitelist, forbidden: accessBlacklist)
        way.backwardAccess = TagValues.mostAllowing(backward, allowed: accessWhitelist, forbidden: accessBlacklist)
        if let access = way.access, accessBlacklist.contains(access) { return false }
        if let f = way.forwardAccess, let b = way.backwardAccess, accessBlacklist.contains(f),
           accessBlacklist.contains(b) { return false }
        handleSpeed(tags, &way)
        handleOneway(tags, &way)
        handleCycleways(tags, &way)
        handlePushing(tags, &way)
        limitToMaxspeed(tags, &way)
        if way.forwardSpeed <= 0 && way.duration <= 0 { way.forwardMode = nil }
        if way.backwardSpeed <= 0 && way.duration <= 0 { way.backwardMode = nil }
        if let access = way.forwardAccess, accessBlacklist.contains(access) {
            (way.forwardMode, way.forwardSpeed) = (nil, 0)
        }
        if let access = way.backwardAccess, accessBlacklist.contains(access) {
            (way.backwardMode, way.backwardSpeed) = (nil, 0)
        }
        return true
    }

    /// `speed_handler`: a movable bridge, a ferry, a platform, a train, a car park, a way by its
    /// `highway`, else any way whose access tag allows bicycles.
    private func handleSpeed(_ tags: [String: String], _ way: inout WayDraft) {
        func both(_ speed: Double, pushing: Bool = true) {
            (way.forwardSpeed, way.backwardSpeed) = (speed, speed)
            way.allowsPushing = pushing
        }
        let duration = tags["duration"].flatMap(TagValues.duration)
        if let bridge = tags["bridge"], let speed = bridgeSpeeds[bridge], speed > 0 {
            way.highway = bridge
            if let duration { way.duration = max(duration, 1) }
            both(speed)
        } else if let route = tags["route"], let speed = routeSpeeds[route] {
            (way.forwardMode, way.backwardMode) = (.ferry, .ferry)
            if let duration { way.duration = max(1, duration) } else { both(speed, pushing: false) }
        } else if let speed = tags["railway"].flatMap({ platformSpeeds[$0] })
                    ?? tags["public_transport"].flatMap({ platformSpeeds[$0] }) {
            both(speed)
        } else if let speed = tags["railway"].flatMap({ railwaySpeeds[$0] }),
                  accessWhitelist.contains(way.access ?? "") {
            (way.forwardMode, way.backwardMode) = (.train, .train)
            both(speed, pushing: false)
        } else if let speed = tags["amenity"].flatMap({ amenitySpeeds[$0] }) {
            both(speed)
        } else if let speed = way.highway.flatMap({ bicycleSpeeds[$0] }) {
            both(speed)
        } else if accessWhitelist.contains(way.access ?? "") {
            both(defaultSpeed)
        }
    }

    /// `oneway_handler`: `oneway:bicycle`, else `oneway`, else roundabouts and motorways one way.
    private func handleOneway(_ tags: [String: String], _ way: inout WayDraft) {
        let junction = tags["junction"]
        way.impliedOneway = junction == "roundabout" || junction == "circular" || way.highway == "motorway"
        func apply(_ value: String?) -> Bool {
            switch value {
            case "yes", "1", "true": way.backwardMode = nil
            case "no", "0", "false": break
            case "-1":
                way.forwardMode = nil
                way.reverse = true
            default: return false
            }
            return true
        }
        if !apply(tags["oneway:bicycle"]) && !apply(tags["oneway"]) && way.impliedOneway { way.backwardMode = nil }
    }

    /// `cycleway_handler`: cycle lanes and tracks ride at cycleway speed, in the directions they
    /// serve; on a oneway, `opposite*` lanes are contraflow.
    private func handleCycleways(_ tags: [String: String], _ way: inout WayDraft) {
        let cycleway = tags["cycleway"] ?? tags["cycleway:both"]
        let (left, right) = (tags["cycleway:left"], tags["cycleway:right"])
        func lane(_ v: String?) -> Bool { v.map(cyclewayTags.contains) ?? false }
        func opposite(_ v: String?) -> Bool { v.map(oppositeCyclewayTags.contains) ?? false }
        var forward = false, backward = false
        if way.forwardMode != nil && way.backwardMode != nil && !way.impliedOneway {
            if lane(cycleway) { (forward, backward) = (true, true) }
            if lane(right) || opposite(left) { forward = true }
            if lane(left) || opposite(right) { backward = true }
        } else if opposite(cycleway) || opposite(right) || opposite(left) {
            // (bicycle.lua's "opposite cycleway" case comes after this one and is never reached.)
            (forward, backward) = (true, true)
        } else if lane(cycleway) || lane(right) || lane(left) {
            if way.reverse { backward = true } else { forward = true }
        }
        let speed = bicycleSpeeds["cycleway"] ?? defaultSpeed
        if backward { (way.backwardMode, way.backwardSpeed) = (.travel, speed) }
        if forward { (way.forwardMode, way.forwardSpeed) = (.travel, speed) }
    }

    /// `bike_push_handler`: where a direction is closed or has no speed, walking beside the
    /// bicycle where a pedestrian could; `bicycle=dismount` everywhere on the way.
    private func handlePushing(_ tags: [String: String], _ way: inout WayDraft) {
        let closed = way.forwardMode == nil || way.backwardMode == nil || way.forwardSpeed == -1
            || way.backwardSpeed == -1
        let foot = tags["foot"]
        if closed && foot != "no" {
            var forward: Double?, backward: Double?
            if let speed = way.highway.flatMap({ pedestrianSpeeds[$0] })
                ?? tags["man_made"].flatMap({ manMadeSpeeds[$0] }) {
                (forward, backward) = (speed, speed)
            } else if foot == "yes" {
                forward = walkingSpeed
                if !way.impliedOneway { backward = walkingSpeed }
            } else if tags["foot:forward"] == "yes" {
                forward = walkingSpeed
            } else if tags["foot:backward"] == "yes" {
                backward = walkingSpeed
            } else if way.allowsPushing {
                forward = walkingSpeed
                if !way.impliedOneway { backward = walkingSpeed }
            }
            if let forward, way.forwardMode == nil || way.forwardSpeed == -1 {
                (way.forwardMode, way.forwardSpeed) = (.pushingBike, forward)
            }
            if let backward, way.backwardMode == nil || way.backwardSpeed == -1 {
                (way.backwardMode, way.backwardSpeed) = (.pushingBike, backward)
            }
        }
        if tags["bicycle"] == "dismount" {
            (way.forwardMode, way.backwardMode) = (.pushingBike, .pushingBike)
            (way.forwardSpeed, way.backwardSpeed) = (walkingSpeed, walkingSpeed)
        }
    }

    /// `maxspeed.limit`: no faster than the posted limit, per direction (`maxspeed:forward`
    /// before `maxspeed`).
    private func limitToMaxspeed(_ tags: [String: String], _ way: inout WayDraft) {
        func limit(_ key: String) -> Double { tags[key].flatMap(TagValues.speed) ?? 0 }
        let (all, forward, backward) = (limit("maxspeed"), limit("maxspeed:forward"), limit("maxspeed:backward"))
        if forward > 0 { way.forwardSpeed = min(way.forwardSpeed, forward) } else if all > 0 {
            way.forwardSpeed = min(way.forwardSpeed, all)
        }
        if backward > 0 { way.backwardSpeed = min(way.backwardSpeed, backward) } else if all > 0 {
            way.backwardSpeed = min(way.backwardSpeed, all)
        }
    }

    /// `handle_cycleway_separate`: a carriageway whose cycleway is mapped as a way of its own is
    /// not ridden, unless its own `bicycle` tag opens it.
    private func hasSeparateCycleway(_ tags: [String: String]) -> Bool {
        guard BicycleProfile.separateCyclewayKeys.contains(where: { tags[$0] == "separate" }) else { return false }
        return !BicycleProfile.separateCyclewayOverride.contains(tags["bicycle"] ?? "")
    }

    /// `find_access_tag`: the first of the hierarchy's keys the element has.
    static func access(_ tags: [String: String]) -> String? {
        for key in accessHierarchy { if let value = tags[key] { return value } }
        return nil
    }

    // MARK: - Nodes and relations

    /// A barrier blocks cyclists where `bicycle`/`vehicle`/`access` forbids them (not at a
    /// crossing, whose access tags are about the road crossed), or, without those, where it is a
    /// wall, a fence (not an audible one) or `barrier=yes`.
    public func node(_ tags: [String: String]) -> NodeRule {
        var rule = NodeRule(trafficSignals: tags["highway"] == "traffic_signals")
        if rule.trafficSignals { rule.signalDirection = TagValues.signalDirection(tags["traffic_signals:direction"]) }
        if let access = BicycleProfile.access(tags), !access.isEmpty {
            rule.blocks = accessBlacklist.contains(access) && tags["highway"] != "crossing"
        } else if let barrier = tags["barrier"], !barrier.isEmpty {
            let audible = barrier == "fence" && (tags["sensory"] == "audible" || tags["sensory"] == "audio")
            rule.blocks = barrierBlacklist.contains(barrier) && !audible
        }
        return rule
    }

    /// Restrictions for bicycles (`restriction`, `restriction:bicycle`; not where `except`
    /// names bicycles), as OSRM's restriction parser reads them with `restrictions = {bicycle}`.
    public func restriction(_ tags: [String: String]) -> RestrictionKind? {
        TagValues.restriction(tags, modes: BicycleProfile.restrictionModes)
    }

    public func restrictionMayNameSeveralWays(_ tags: [String: String]) -> (from: Bool, to: Bool) {
        TagValues.restrictionMayNameSeveralWays(tags, modes: BicycleProfile.restrictionModes)
    }
}
