import Testing
@testable import WaymarkGraph

@Suite struct CarProfileTests {
    let profile = CarProfile()

    @Test func routableClassesAndExclusions() throws {
        for highway in ["motorway", "trunk_link", "primary", "secondary", "tertiary", "unclassified", "residential", "living_street", "service"] {
            #expect(profile.way(["highway": highway]) != nil, "\(highway)")
        }
        for highway in ["track", "path", "footway", "cycleway", "steps", "pedestrian", "construction", "proposed", "bus_stop"] {
            #expect(profile.way(["highway": highway]) == nil, "\(highway)")
        }
        #expect(profile.way(["highway": "residential", "area": "yes"]) == nil)
        #expect(profile.way(["highway": "service", "service": "emergency_access"]) == nil)
        #expect(try #require(profile.way(["highway": "service", "service": "parking_aisle"])).forwardSpeed == 5)
        #expect(try #require(profile.way(["highway": "residential"])).forwardSpeed == 25)
    }

    @Test func oneway() throws {
        func directions(_ tags: [String: String]) throws -> (Bool, Bool) {
            let rule = try #require(profile.way(tags))
            return (rule.forwardSpeed > 0, rule.backwardSpeed > 0)
        }
        for yes in ["yes", "1", "true"] { #expect(try directions(["highway": "residential", "oneway": yes]) == (true, false)) }
        for reverse in ["-1", "reverse"] { #expect(try directions(["highway": "residential", "oneway": reverse]) == (false, true)) }
        #expect(try directions(["highway": "residential", "oneway": "no"]) == (true, true))
        #expect(try directions(["highway": "residential"]) == (true, true))
        #expect(profile.way(["highway": "residential", "oneway": "reversible"]) == nil)
        // Implied.
        #expect(try directions(["highway": "motorway"]) == (true, false))
        #expect(try directions(["highway": "motorway_link"]) == (true, false))
        #expect(try directions(["highway": "motorway", "oneway": "no"]) == (true, true))
        #expect(try directions(["highway": "primary", "junction": "roundabout"]) == (true, false))
        #expect(try directions(["highway": "primary", "junction": "circular"]) == (true, false))
        #expect(try #require(profile.way(["highway": "primary", "junction": "roundabout"])).flags.contains([.roundabout, .oneway]))
    }

    @Test func accessHierarchy() {
        #expect(profile.way(["highway": "residential", "access": "private"]) == nil)
        #expect(profile.way(["highway": "residential", "access": "no", "motorcar": "yes"]) != nil)
        #expect(profile.way(["highway": "residential", "access": "yes", "motor_vehicle": "no"]) == nil)
        #expect(profile.way(["highway": "residential", "vehicle": "no", "motor_vehicle": "yes"]) != nil)
        #expect(profile.way(["highway": "residential", "motorcar": "no", "access": "yes"]) == nil)
        for blocking in ["no", "private", "agricultural", "forestry", "delivery"] {
            #expect(profile.way(["highway": "service", "access": blocking]) == nil, "\(blocking)")
        }
        for allowing in ["destination", "permissive", "yes"] {
            #expect(profile.way(["highway": "service", "access": allowing]) != nil, "\(allowing)")
        }
        #expect(profile.way(["highway": "service", "motor_vehicle": "destination"])?.flags.contains(.restrictedAccess) == true)
    }

    @Test func maxspeedValues() throws {
        #expect(profile.maxspeed("50") == 50)
        #expect(profile.maxspeed("30 mph") == 30 * 1.609344)
        #expect(profile.maxspeed("30mph") == 30 * 1.609344)
        #expect(profile.maxspeed("50 km/h") == 50)
        #expect(profile.maxspeed("none") == 140)
        #expect(profile.maxspeed("walk") == 7)
        #expect(profile.maxspeed("DE:urban") == 50)
        #expect(profile.maxspeed("FR:rural") == 80)
        #expect(profile.maxspeed("GB:nsl_single") == 96.56064)
        #expect(profile.maxspeed("30;50") == 30)
        #expect(profile.maxspeed("signals") == nil)
        #expect(profile.maxspeed("fast") == nil)
        // The rule: 0.8 × the limit, capped to 112 km/h; directions override.
        #expect(try #require(profile.way(["highway": "residential", "maxspeed": "50"])).forwardSpeed == 40)
        #expect(try #require(profile.way(["highway": "motorway", "maxspeed": "none"])).forwardSpeed == 112)
        #expect(try #require(profile.way(["highway": "motorway", "maxspeed": "300"])).forwardSpeed == 112)
        let split = try #require(profile.way(["highway": "primary", "maxspeed": "50", "maxspeed:forward": "70", "maxspeed:backward": "30"]))
        #expect(split.forwardSpeed == 56 && split.backwardSpeed == 24)
        // An unreadable maxspeed leaves the class default.
        #expect(try #require(profile.way(["highway": "primary", "maxspeed": "signals"])).forwardSpeed == 65)
    }

    @Test func barriers() {
        #expect(profile.node(["barrier": "gate"]).blocks)
        #expect(profile.node(["barrier": "bollard"]).blocks)
        #expect(profile.node(["barrier": "lift_gate"]).blocks)
        #expect(!profile.node(["barrier": "gate", "access": "yes"]).blocks)
        #expect(!profile.node(["barrier": "lift_gate", "motorcar": "permissive"]).blocks)
        #expect(profile.node(["barrier": "gate", "motor_vehicle": "private"]).blocks)
        for passable in ["cattle_grid", "toll_booth", "border_control", "entrance"] {
            #expect(!profile.node(["barrier": passable]).blocks, "\(passable)")
        }
        #expect(profile.node(["highway": "traffic_signals"]).trafficSignals)
        #expect(profile.node(["highway": "crossing"]) == NodeRule())
    }

    @Test func ferries() throws {
        #expect(profile.way(["route": "ferry"]) == nil, "no car access tags: people only")
        let ferry = try #require(profile.way(["route": "ferry", "motorcar": "yes", "duration": "00:20"]))
        #expect(ferry.highway == .ferry && ferry.duration == 1200 && ferry.flags.contains(.ferry))
        #expect(try #require(profile.way(["route": "ferry", "motor_vehicle": "yes"])).forwardSpeed == 5)
        #expect(CarProfile.parseDuration("1:30:15") == 5415)
        #expect(CarProfile.parseDuration("45") == 2700)
        #expect(CarProfile.parseDuration("PT1H30M") == 5400)
        #expect(CarProfile.parseDuration("soon") == nil)
    }

    @Test func restrictions() {
        #expect(profile.restriction(["type": "restriction", "restriction": "no_left_turn"]) == .prohibitive)
        #expect(profile.restriction(["type": "restriction", "restriction": "only_straight_on"]) == .mandatory)
        #expect(profile.restriction(["type": "restriction", "restriction:motorcar": "no_u_turn"]) == .prohibitive)
        #expect(profile.restriction(["type": "restriction", "restriction:hgv": "no_left_turn"]) == nil)
        #expect(profile.restriction(["type": "restriction", "restriction": "no_left_turn", "except": "bicycle;motorcar"]) == nil)
        #expect(profile.restriction(["type": "multipolygon"]) == nil)
    }
}
