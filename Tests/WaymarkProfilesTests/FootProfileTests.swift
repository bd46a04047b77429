import Testing
import WaymarkGraph
@testable import WaymarkProfiles

/// The foot profile against OSRM 26.10's `foot.lua`: tags → the directions walked ("f", "b";
/// "none": not a way for walkers) and the speed in km/h. Each row is what osrm-extract with the
/// stock foot.lua made of a way with those tags (one way each on one map, routed both ways by
/// osrm-routed's engine, 2026-11-28); ferries, where nobody may start, from foot.lua's text.
@Suite struct FootProfileTests {
    let profile = FootProfile()

    static let osrmWays: [([String: String], String, Double)] = [
        (["highway": "primary"], "fb", 5.0),
        (["highway": "footway"], "fb", 5.0),
        (["highway": "steps"], "fb", 5.0),
        (["highway": "motorway"], "none", 0),
        (["highway": "motorway", "foot": "yes"], "fb", 5.0),
        (["highway": "trunk"], "none", 0),
        (["highway": "cycleway"], "none", 0),
        (["highway": "cycleway", "foot": "yes"], "fb", 5.0),
        (["highway": "bridleway"], "none", 0),
        (["highway": "residential", "oneway": "yes"], "fb", 5.0),
        (["highway": "footway", "oneway:foot": "yes"], "f-", 5.0),
        (["highway": "footway", "oneway:foot": "-1"], "-b", 5.0),
        (["highway": "residential", "foot": "no"], "none", 0),
        (["highway": "residential", "access": "private"], "none", 0),
        (["highway": "residential", "access": "no", "foot": "yes"], "fb", 5.0),
        (["highway": "residential", "foot:forward": "no"], "-b", 5.0),
        (["highway": "residential", "sidewalk": "separate"], "none", 0),
        (["highway": "residential", "sidewalk:left": "separate", "foot": "yes"], "fb", 5.0),
        (["highway": "footway", "surface": "gravel"], "fb", 3.75),
        (["highway": "path", "surface": "sand"], "fb", 2.5),
        (["highway": "steps", "conveying": "forward"], "f-", 5.0),
        (["highway": "steps", "conveying": "backward", "oneway": "no"], "fb", 5.0),
        (["highway": "residential", "motorroad": "yes"], "none", 0),
        (["highway": "proposed"], "none", 0),
        (["highway": "residential", "proposed": "secondary"], "fb", 5.0),
        (["highway": "residential", "impassable": "yes"], "none", 0),
        (["railway": "platform"], "fb", 5.0),
        (["amenity": "parking"], "fb", 5.0),
        (["man_made": "pier"], "fb", 5.0),
        (["highway": "construction"], "none", 0),
        (["highway": "track", "access": "agricultural;yes"], "fb", 5.0),
        (["highway": "service", "access": "delivery"], "none", 0),
        (["highway": "residential", "foot": "use_sidepath"], "none", 0),
        (["public_transport": "platform"], "none", 0),
        (["highway": "unknown", "foot": "yes"], "fb", 5.0),
        (["highway": "unknown", "access": "destination"], "fb", 5.0),
        (["highway": "residential", "access": "destination"], "fb", 5.0),
        (["highway": "footway", "foot:backward": "no", "oneway:foot": "-1"], "none", 0),
        (["highway": "residential", "area": "yes"], "fb", 5.0),
        (["highway": "footway", "conveying": "forward", "oneway:foot": "no"], "fb", 5.0),
        (["highway": "footway", "conveying": "forward", "oneway": "no"], "fb", 5.0),
        (["highway": "living_street", "surface": "mud"], "fb", 2.5),
        (["highway": "residential", "sidewalk:both": "separate", "foot": "designated"], "fb", 5.0),
    ]

    @Test func waysAreWalkedAsOSRMWalksThem() {
        for (tags, directions, speed) in Self.osrmWays {
            let rule = profile.way(tags)
            let got = rule.map { ($0.forwardSpeed > 0 ? "f" : "-") + ($0.backwardSpeed > 0 ? "b" : "-") } ?? "none"
            #expect(got == directions, "\(tags)")
            if let rule { #expect(max(rule.forwardSpeed, rule.backwardSpeed) == speed, "\(tags)") }
        }
    }

    /// Ferries at 5 km/h or their `duration`, both ways (the ferry handler opens both again), never
    /// a place to start; a roundabout keeps both directions for walkers.
    @Test func ferriesAndRoundabouts() {
        let ferry = profile.way(["route": "ferry", "foot:forward": "no", "duration": "00:10"])
        #expect(ferry?.forwardSpeed == 5 && ferry?.backwardSpeed == 5 && ferry?.duration == 600)
        #expect(ferry?.flags.contains([.ferry, .notStartpoint]) == true && ferry?.highway == .ferry)
        #expect(profile.way(["route": "ferry", "foot": "no"]) == nil)
        let ring = profile.way(["highway": "residential", "junction": "roundabout"])
        #expect(ring?.flags.contains(.roundabout) == true && ring?.flags.contains(.oneway) == false)
    }

    @Test func namesFallBackToTheStreetBeside() {
        #expect(TagValues.wayName(["highway": "footway", "footway": "sidewalk", "street:name": "Rua Nova"])
                == "Rua Nova")
        #expect(TagValues.wayName(["highway": "path", "is_sidepath": "yes", "is_sidepath:of:name": "Avenida"])
                == "Avenida")
        #expect(TagValues.wayName(["highway": "residential", "street:name": "Rua Nova"]) == "")
        #expect(TagValues.wayName(["highway": "footway", "name": "Passeio", "street:name": "Rua"]) == "Passeio")
    }

    /// Barriers: forbidding `foot`/`access` blocks; without them walls, fences and `barrier=yes`
    /// do, but for a rising bollard and an audible fence; gates and bollards never do.
    @Test func barriers() {
        let table: [([String: String], Bool)] = [
            (["barrier": "gate"], false), (["barrier": "bollard"], false), (["barrier": "wall"], true),
            (["barrier": "fence"], true), (["barrier": "fence", "sensory": "audible"], false),
            (["barrier": "yes"], true), (["barrier": "yes", "bollard": "rising"], false),
            (["barrier": "gate", "foot": "no"], true), (["barrier": "wall", "foot": "yes"], false),
            (["barrier": "gate", "access": "private"], true), (["highway": "traffic_signals"], false),
        ]
        for (tags, blocks) in table { #expect(profile.node(tags).blocks == blocks, "\(tags)") }
        #expect(profile.node(["highway": "traffic_signals"]).trafficSignals)
        #expect(profile.restriction(["type": "restriction", "restriction": "no_left_turn"]) == nil)
        #expect(profile.travel == .foot && profile.trafficSignalDelay == 2)
    }
}
