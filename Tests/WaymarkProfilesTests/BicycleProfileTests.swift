import Testing
import WaymarkGraph
@testable import WaymarkProfiles

/// The bicycle profile against OSRM 26.10's `bicycle.lua`: tags → each direction's mode and speed
/// in km/h ("" where a bicycle cannot go that way). Each row is what osrm-extract with the stock
/// bicycle.lua made of a way with those tags (one way each on one map, routed both ways by OSRM's
/// engine through its Python bindings, 2026-11-28, speeds from distance ÷ duration, rounded);
/// trains and ferries, where nobody may start, from bicycle.lua's text.
@Suite struct BicycleProfileTests {
    let profile = BicycleProfile()

    static let osrmWays: [([String: String], String, String)] = [
        (["highway": "primary"], "cycling 15", "cycling 15"),
        (["highway": "residential", "oneway": "yes"], "cycling 15", "pushing bike 4"),
        (["highway": "residential", "oneway": "yes", "oneway:bicycle": "no"], "cycling 15", "cycling 15"),
        (["highway": "residential", "oneway": "yes", "cycleway": "opposite"], "cycling 15", "cycling 15"),
        (["highway": "residential", "oneway": "yes", "cycleway:left": "opposite_lane"], "cycling 15", "cycling 15"),
        (["highway": "residential", "oneway": "-1"], "pushing bike 4", "cycling 15"),
        (["highway": "residential", "oneway": "-1", "cycleway": "lane"], "pushing bike 4", "cycling 15"),
        (["highway": "footway"], "pushing bike 4", "pushing bike 4"),
        (["highway": "footway", "bicycle": "yes"], "cycling 15", "cycling 15"),
        (["highway": "footway", "foot": "no"], "", ""),
        (["highway": "steps"], "pushing bike 2", "pushing bike 2"),
        (["highway": "pedestrian"], "pushing bike 4", "pushing bike 4"),
        (["highway": "cycleway"], "cycling 15", "cycling 15"),
        (["highway": "track"], "cycling 12", "cycling 12"),
        (["highway": "path"], "cycling 13", "cycling 13"),
        (["highway": "motorway"], "", ""),
        (["highway": "motorway", "bicycle": "yes"], "cycling 15", ""),
        (["highway": "trunk"], "", ""),
        (["highway": "trunk", "bicycle": "yes"], "cycling 15", "cycling 15"),
        (["highway": "residential", "bicycle": "no"], "", ""),
        (["highway": "residential", "access": "no"], "", ""),
        (["highway": "residential", "access": "no", "bicycle": "yes"], "cycling 15", "cycling 15"),
        (["highway": "residential", "bicycle": "dismount"], "pushing bike 4", "pushing bike 4"),
        (["highway": "residential", "oneway": "yes", "bicycle": "dismount"], "pushing bike 4", "pushing bike 4"),
        (["highway": "residential", "surface": "cobblestone"], "cycling 7", "cycling 7"),
        (["highway": "residential", "surface": "sett"], "cycling 9", "cycling 9"),
        (["highway": "footway", "surface": "mud"], "pushing bike 3", "pushing bike 3"),
        (["highway": "residential", "maxspeed": "10"], "cycling 10", "cycling 10"),
        (["highway": "residential", "maxspeed": "30 mph"], "cycling 15", "cycling 15"),
        (["highway": "residential", "maxspeed:forward": "5"], "cycling 5", "cycling 15"),
        (["highway": "residential", "vehicle:forward": "no"], "", "cycling 15"),
        (["highway": "residential", "cycleway": "separate"], "", ""),
        (["highway": "residential", "cycleway:right": "separate", "bicycle": "designated"], "cycling 15", "cycling 15"),
        (["highway": "residential", "junction": "roundabout"], "cycling 15", ""),
        (["highway": "service"], "cycling 15", "cycling 15"),
        (["highway": "living_street"], "cycling 15", "cycling 15"),
        (["railway": "platform"], "cycling 4", "cycling 4"),
        (["amenity": "parking"], "cycling 10", "cycling 10"),
        (["man_made": "pier"], "pushing bike 4", "pushing bike 4"),
        (["highway": "residential", "bridge": "movable"], "cycling 5", "cycling 5"),
        (["railway": "rail"], "", ""),
        (["highway": "construction"], "", ""),
        (["highway": "residential", "construction": "yes"], "", ""),
        (["highway": "residential", "construction": "minor"], "cycling 15", "cycling 15"),
        (["highway": "residential", "motorroad": "yes"], "", ""),
        (["highway": "unknown", "bicycle": "yes"], "cycling 15", "cycling 15"),
        (["highway": "unknown", "access": "destination"], "", ""),
        (["highway": "residential", "access": "destination"], "cycling 15", "cycling 15"),
        (["highway": "service", "oneway": "yes", "foot": "yes"], "cycling 15", "pushing bike 4"),
        (["highway": "residential", "oneway": "yes", "foot": "no"], "cycling 15", ""),
        (["highway": "track", "surface": "gravel"], "cycling 6", "cycling 6"),
        (["highway": "residential", "bicycle": "use_sidepath"], "", ""),
        (["highway": "residential", "access": "agricultural;yes"], "cycling 15", "cycling 15"),
        (["highway": "cycleway", "oneway": "yes"], "cycling 15", "pushing bike 4"),
        (["highway": "cycleway", "oneway:bicycle": "yes", "oneway": "no"], "cycling 15", "pushing bike 4"),
        (["highway": "residential", "oneway:bicycle": "-1"], "pushing bike 4", "cycling 15"),
        (["highway": "primary", "cycleway:right": "lane", "oneway": "yes"], "cycling 15", "pushing bike 4"),
        (["highway": "path", "bicycle": "no", "foot": "yes"], "", ""),
        (["highway": "footway", "bicycle": "dismount"], "pushing bike 4", "pushing bike 4"),
        (["highway": "residential", "area": "yes"], "cycling 15", "cycling 15"),
        (["highway": "steps", "bicycle": "yes"], "cycling 15", "cycling 15"),
        (["highway": "residential", "tunnel": "yes"], "cycling 15", "cycling 15"),
        (["public_transport": "platform"], "cycling 4", "cycling 4"),
        (["highway": "primary", "bicycle:backward": "no"], "cycling 15", ""),
        (["highway": "residential", "oneway": "yes", "cycleway:left": "opposite_track"], "cycling 15", "cycling 15"),
        (["highway": "residential", "maxspeed": "walk"], "cycling 15", "cycling 15"),
        (["highway": "residential", "junction": "roundabout", "cycleway": "lane"], "cycling 15", ""),
        (["highway": "unclassified", "oneway": "yes", "foot:backward": "yes"], "cycling 15", "pushing bike 4"),
        (["highway": "residential", "oneway": "yes", "foot:forward": "yes"], "cycling 15", ""),
        (["highway": "footway", "oneway": "yes"], "pushing bike 4", "pushing bike 4"),
        (["highway": "residential", "oneway": "yes", "cycleway:right": "opposite"], "cycling 15", "cycling 15"),
        (["highway": "residential", "cycleway:left": "lane", "oneway": "no"], "cycling 15", "cycling 15"),
        (["highway": "path", "surface": "asphalt"], "cycling 13", "cycling 13"),
        (["highway": "residential", "impassable": "yes"], "", ""),
        (["highway": "residential", "proposed": "secondary"], "cycling 15", "cycling 15"),
        (["highway": "proposed"], "", ""),
        (["highway": "bridleway"], "", ""),
        (["highway": "bridleway", "bicycle": "yes"], "cycling 15", "cycling 15"),
        (["highway": "residential", "access": "private", "bicycle": "permissive"], "cycling 15", "cycling 15"),
        (["highway": "residential", "vehicle": "no"], "", ""),
        (["highway": "footway", "access": "no", "foot": "yes"], "", ""),
        (["highway": "service", "maxspeed": "3"], "cycling 3", "cycling 3"),
    ]

    static func described(_ rule: WayRule?, forward: Bool) -> String {
        guard let rule, (forward ? rule.forwardSpeed : rule.backwardSpeed) > 0 else { return "" }
        let mode = forward ? rule.forwardMode : rule.backwardMode
        let name = switch mode {
        case .travel: "cycling"
        case .pushingBike: "pushing bike"
        case .ferry: "ferry"
        case .train: "train"
        }
        let speed = forward ? rule.forwardSpeed : rule.backwardSpeed
        return "\(name) \(speed.rounded() == speed ? String(Int(speed)) : String(speed))"
    }

    @Test func waysAreRiddenAsOSRMRidesThem() {
        for (tags, forward, backward) in Self.osrmWays {
            let rule = profile.way(tags)
            #expect(Self.described(rule, forward: true) == forward, "\(tags)")
            #expect(Self.described(rule, forward: false) == backward, "\(tags)")
            if let rule {
                #expect(rule.flags.contains(.oneway) == (forward.isEmpty || backward.isEmpty), "\(tags)")
            }
        }
    }

    /// Ferries at 5 km/h or their `duration`, never a place to start; a ferry with a duration
    /// that walkers may use is a pushed one (bicycle.lua pushes wherever a direction has no speed
    /// and `foot=yes`). Trains where the railway lets bicycles on, at 10 km/h, not to start on.
    @Test func ferriesAndTrains() {
        let ferry = profile.way(["route": "ferry"])
        #expect(ferry?.forwardMode == .ferry && ferry?.backwardMode == .ferry && ferry?.forwardSpeed == 5)
        #expect(ferry?.flags.contains([.ferry, .notStartpoint]) == true && ferry?.highway == .ferry)
        let timed = profile.way(["route": "ferry", "duration": "00:20"])
        #expect(timed?.duration == 1200 && timed?.forwardMode == .ferry)
        let walked = profile.way(["route": "ferry", "duration": "00:20", "foot": "yes"])
        #expect(walked?.forwardMode == .pushingBike && walked?.duration == 1200)
        #expect(walked?.flags.contains(.notStartpoint) == false && walked?.flags.contains(.ferry) == true)
        let tram = profile.way(["railway": "tram", "bicycle": "yes"])
        #expect(tram?.forwardMode == .train && tram?.forwardSpeed == 10 && tram?.flags.contains(.notStartpoint) == true)
        #expect(profile.way(["railway": "tram"]) == nil)
    }

    /// Barriers as bicycle.lua's `process_node`: access tags first (not at a crossing), then the
    /// barrier blacklist; lights cost 2 s.
    @Test func barriersAndLights() {
        #expect(profile.node(["barrier": "gate"]).blocks == false)
        #expect(profile.node(["barrier": "bollard"]).blocks == false)
        #expect(profile.node(["barrier": "wall"]).blocks == true)
        #expect(profile.node(["barrier": "fence", "sensory": "audible"]).blocks == false)
        #expect(profile.node(["barrier": "gate", "access": "private"]).blocks == true)
        #expect(profile.node(["barrier": "gate", "access": "private", "bicycle": "yes"]).blocks == false)
        #expect(profile.node(["highway": "crossing", "bicycle": "no"]).blocks == false)
        #expect(profile.node(["barrier": "wall", "bicycle": "yes"]).blocks == false)
        #expect(profile.node(["highway": "traffic_signals"]).trafficSignals == true)
    }

    /// Turn restrictions for bicycles: plain ones and `restriction:bicycle`, not where `except`
    /// names bicycles, not a car's own.
    @Test func turnRestrictions() {
        #expect(profile.restriction(["type": "restriction", "restriction": "no_left_turn"]) == .prohibitive)
        #expect(profile.restriction(["type": "restriction", "restriction:bicycle": "only_straight_on"]) == .mandatory)
        #expect(profile.restriction(["type": "restriction", "restriction": "no_left_turn", "except": "bicycle"]) == nil)
        #expect(profile.restriction(["type": "restriction", "restriction:motorcar": "no_left_turn"]) == nil)
    }

    @Test func turnCostsAreQuadratic() {
        var graph = RoadGraph()
        graph.travel = .bicycle
        let costs = TurnCosts(for: graph)
        #expect(costs.turn(0) == 0)
        #expect(abs(costs.turn(90) - 6 / 1.4) < 1e-9 && abs(costs.turn(-90) - 6 * 1.4) < 1e-9)
        #expect(abs(costs.turn(45) - 0.25 * 6 / 1.4) < 1e-9)
        #expect(costs.uTurnPenalty == 20 && costs.trafficSignalDelay == 2 && costs.oncoming(-90) == 0)
        graph.drivingSide = .left
        #expect(abs(TurnCosts(for: graph).turn(90) - 6 / 1.4) < 1e-9)
    }
}
