import Foundation
import WaymarkGraph

/// OSRM's foot profile (`profiles/foot.lua` of OSRM 26.10), handler by handler: who may walk
/// where (`foot` over `access`), a walking speed of 5 km/h on every way made for it, slower on
/// loose surfaces, `oneway:foot` (never `oneway`), escalators' direction, ferries, ways whose
/// sidewalk is mapped apart, and barriers that block walkers. Walkers obey no turn restrictions.
public struct FootProfile: RoutingProfile {
    public var travel: TravelProfile { .foot }
    /// km/h.
    public var walkingSpeed = 5.0
    /// Seconds for passing a traffic light (foot.lua's `traffic_signal_penalty`).
    public var trafficSignalDelay = 2.0

    public var accessWhitelist: Set<String> = ["yes", "foot", "permissive", "designated"]
    /// `use_sidepath`: a parallel way for walkers is mapped and must be used instead.
    public var accessBlacklist: Set<String> = ["no", "agricultural", "forestry", "private", "delivery",
                                               "use_sidepath"]
    public var barrierBlacklist: Set<String> = ["yes", "wall", "fence"]
    /// The ways walkers use at ``walkingSpeed``, by key and value.
    public var wayValues: [String: Set<String>] = [
        "highway": ["primary", "primary_link", "secondary", "secondary_link", "tertiary", "tertiary_link",
                    "unclassified", "residential", "living_street", "service", "track", "path", "steps",
                    "pedestrian", "platform", "footway", "pier"],
        "railway": ["platform"],
        "amenity": ["parking", "parking_entrance"],
        "man_made": ["pier"],
    ]
    public var routeSpeeds: [String: Double] = ["ferry": 5]
    /// Speed caps by `surface`, km/h.
    public var surfaceSpeeds: [String: Double] = ["fine_gravel": 3.75, "gravel": 3.75, "pebblestone": 3.75,
                                                  "mud": 2.5, "sand": 2.5]

    public init() {}

    static let wayKeys: Set<String> = [
        "highway", "bridge", "route", "man_made", "railway", "platform", "amenity", "public_transport",
        "impassable", "status", "motorroad", "proposed", "foot", "access", "foot:forward", "foot:backward",
        "access:forward", "access:backward", "sidewalk", "sidewalk:both", "sidewalk:left", "sidewalk:right",
        "oneway:foot", "oneway", "duration", "surface", "conveying", "junction", "name", "ref",
        "is_sidepath:of:name", "street:name", "footway", "cycleway", "is_sidepath", "tunnel",
    ]
    static let nodeKeys: Set<String> = ["foot", "access", "barrier", "bollard", "sensory", "highway"]
    public var tagKeys: Set<String> { FootProfile.wayKeys.union(FootProfile.nodeKeys) }

    // MARK: - Ways

    /// What the handlers have found so far, as foot.lua's `result` table.
    private struct WayDraft {
        var highway: String?
        var forward = true, backward = true
        var accessForward: String?, accessBackward: String?
        var oneway: String?
        var forwardSpeed = -1.0, backwardSpeed = -1.0, duration: Double?
        var ferry = false
        var timed: Bool { (duration ?? 0) > 0 }
        var forwardWalked: Bool { forward && (forwardSpeed > 0 || timed) }
        var backwardWalked: Bool { backward && (backwardSpeed > 0 || timed) }
        func recorded(_ speed: Double, walked: Bool) -> Double { walked ? max(speed, timed ? 1 : speed) : 0 }
    }

    /// The rule for a way with these tags, or nil when walkers cannot use it: foot.lua's
    /// `process_way` handlers in its order.
    public func way(_ tags: [String: String]) -> WayRule? {
        // (foot.lua reads a way only when it has one of these keys.)
        let prefetched = ["highway", "bridge", "route", "man_made", "railway", "platform", "amenity",
                          "public_transport"]
        guard prefetched.contains(where: { tags[$0] != nil }) else { return nil }
        var way = WayDraft(highway: tags["highway"])
        guard !isBlocked(tags, way), handleAccess(tags, &way), handleSeparateSidewalk(tags, &way) else { return nil }
        handleOneway(tags, &way)
        handleFerry(tags, &way)
        guard handleSpeed(tags, &way) else { return nil }
        if let cap = tags["surface"].flatMap({ surfaceSpeeds[$0] }) {
            way.forwardSpeed = min(cap, way.forwardSpeed)
            way.backwardSpeed = min(cap, way.backwardSpeed)
        }
        handleConveying(tags, &way)
        guard way.forwardWalked || way.backwardWalked else { return nil }
        var flags: EdgeFlags = []
        if !way.forwardWalked || !way.backwardWalked { flags.insert(.oneway) }
        if tags["junction"] == "roundabout" || tags["junction"] == "circular" { flags.insert(.roundabout) }
        // (A ferry is no start point: foot.lua's start points are ways walked.)
        if way.ferry { flags.insert([.ferry, .notStartpoint]) }
        if let tunnel = tags["tunnel"], tunnel != "no" { flags.insert(.tunnel) }
        let highway: HighwayClass = way.ferry ? .ferry
            : way.highway.flatMap(HighwayClass.init(tag:)).flatMap { $0 == .ferry ? nil : $0 } ?? .other
        return WayRule(highway: highway,
                       forwardSpeed: way.recorded(way.forwardSpeed, walked: way.forwardWalked),
                       backwardSpeed: way.recorded(way.backwardSpeed, walked: way.backwardWalked),
                       duration: way.timed ? way.duration : nil, flags: flags, name: TagValues.wayName(tags),
                       ref: tags["ref"].map { TagValues.canonicalList($0) } ?? "")
    }

    /// `blocked_ways` with foot.lua's avoid set: impassable, motorroads, proposed roads.
    private func isBlocked(_ tags: [String: String], _ way: WayDraft) -> Bool {
        if tags["motorroad"] == "yes" { return true }
        if tags["proposed"] != nil && (way.highway == nil || way.highway == "proposed") { return true }
        return tags["impassable"] == "yes" || tags["status"] == "impassable"
    }


    /// `access`: `foot`, then `access`, per direction; a forbidden direction is not walked.
    private func handleAccess(_ tags: [String: String], _ way: inout WayDraft) -> Bool {
        let (forward, backward) = CarProfile.forwardBackward(tags, FootProfile.accessKeys)
        way.accessForward = TagValues.mostAllowing(forward, allowed: accessWhitelist, forbidden: accessBlacklist)
        way.accessBackward = TagValues.mostAllowing(backward, allowed: accessWhitelist, forbidden: accessBlacklist)
        if let access = way.accessForward, accessBlacklist.contains(access) { way.forward = false }
        if let access = way.accessBackward, accessBlacklist.contains(access) { way.backward = false }
        return way.forward || way.backward
    }

    static let accessKeys = DirectionalKeys(["foot", "access"])

    /// A carriageway whose sidewalk is mapped as a way of its own is not walked, unless `foot`
    /// (or `access`) opens a direction.
    private func handleSeparateSidewalk(_ tags: [String: String], _ way: inout WayDraft) -> Bool {
        guard ["sidewalk", "sidewalk:both", "sidewalk:left", "sidewalk:right"].contains(where: {
            tags[$0] == "separate"
        }) else { return true }
        func opened(_ access: String?) -> Bool { access.map { !accessBlacklist.contains($0) } ?? false }
        if !opened(way.accessForward) { way.forward = false }
        if !opened(way.accessBackward) { way.backward = false }
        return way.forward || way.backward
    }

    /// `oneway` handled as foot.lua's `specific`: `oneway:foot` alone.
    private func handleOneway(_ tags: [String: String], _ way: inout WayDraft) {
        way.oneway = tags["oneway:foot"]
        switch way.oneway {
        case "-1": way.forward = false
        case "yes", "1", "true": way.backward = false
        default: break
        }
    }

    private func handleFerry(_ tags: [String: String], _ way: inout WayDraft) {
        guard let route = tags["route"], let speed = routeSpeeds[route], speed > 0 else { return }
        if let d = tags["duration"].flatMap(TagValues.duration) { way.duration = max(d, 1) }
        // (foot.lua's ferry handler sets both directions' mode again, a oneway's too.)
        (way.forward, way.backward) = (true, true)
        way.ferry = true
        way.forwardSpeed = speed
        way.backwardSpeed = speed
    }

    /// `speed`: the walking speed on the ways listed, else where access allows walking; false
    /// when no direction has one.
    private func handleSpeed(_ tags: [String: String], _ way: inout WayDraft) -> Bool {
        guard way.forwardSpeed == -1 else { return true }
        if wayValues.contains(where: { key, values in tags[key].map(values.contains) ?? false }) {
            way.forwardSpeed = walkingSpeed
            way.backwardSpeed = walkingSpeed
        } else {
            // (A listed or unlisted access value that is not forbidding opens a direction; an
            // access given only the other way closes this one.)
            if let access = way.accessForward, !accessBlacklist.contains(access) {
                way.forwardSpeed = walkingSpeed
            } else if way.accessForward == nil && way.accessBackward != nil {
                way.forward = false
            }
            if let access = way.accessBackward, !accessBlacklist.contains(access) {
                way.backwardSpeed = walkingSpeed
            } else if way.accessBackward == nil && way.accessForward != nil {
                way.backward = false
            }
        }
        return way.forwardSpeed != -1 || way.backwardSpeed != -1 || way.timed
    }

    /// `conveying` on escalators and moving walkways: the other direction is closed unless
    /// `oneway=no` says it may be walked.
    private func handleConveying(_ tags: [String: String], _ way: inout WayDraft) {
        guard let conveying = tags["conveying"], conveying != "yes", conveying != "reversible",
              way.highway == "steps" || way.highway == "footway" else { return }
        let reversible = (way.oneway ?? tags["oneway"]) == "no"
        if conveying == "forward" && !reversible { way.backward = false }
        if conveying == "backward" && !reversible { way.forward = false }
    }


    // MARK: - Nodes and relations

    /// A barrier blocks walkers where `foot`/`access` forbids them, or, without those, where
    /// it is a wall, a fence (not an audible one) or `barrier=yes` (not a rising bollard).
    public func node(_ tags: [String: String]) -> NodeRule {
        var rule = NodeRule(trafficSignals: tags["highway"] == "traffic_signals")
        if let access = tags["foot"] ?? tags["access"] {
            rule.blocks = accessBlacklist.contains(access)
        } else if let barrier = tags["barrier"] {
            let rising = tags["bollard"] == "rising"
            let audible = barrier == "fence" && (tags["sensory"] == "audible" || tags["sensory"] == "audio")
            rule.blocks = barrierBlacklist.contains(barrier) && !rising && !audible
        }
        return rule
    }

    /// None: foot.lua's `use_turn_restrictions` is false.
    public func restriction(_ tags: [String: String]) -> RestrictionKind? { nil }

    public func restrictionMayNameSeveralWays(_ tags: [String: String]) -> (from: Bool, to: Bool) { (false, false) }
}
