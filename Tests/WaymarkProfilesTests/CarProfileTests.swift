import Testing
import WaymarkGraph
@testable import WaymarkProfiles

/// The car profile against OSRM's `car.lua`, rule by rule, as tables in the manner of OSRM's
/// feature files: tags → which directions a car may drive (nil: the way is not for cars), speed,
/// penalty or flags. Expected values are worked out from car.lua and its helpers.
@Suite struct CarProfileTests {
    let profile = CarProfile()

    /// Forward and backward drivable, or nil when the way is not for cars at all.
    func directions(_ tags: [String: String], _ profile: CarProfile = CarProfile()) -> String {
        guard let rule = profile.way(tags) else { return "none" }
        return (rule.forwardSpeed > 0 ? "f" : "-") + (rule.backwardSpeed > 0 ? "b" : "-")
    }

    static let classesAndAccessTable: [([String: String], String)] = [
        (["highway": "primary"], "fb"), (["highway": "service"], "fb"), (["highway": "living_street"], "fb"),
        (["highway": "winter_road"], "fb"), (["highway": "ice_road"], "fb"),
        // Not for cars unless an access tag opens them (at the default 10 km/h).
        (["highway": "track"], "none"), (["highway": "footway"], "none"), (["highway": "pedestrian"], "none"),
        (["highway": "runway"], "none"), (["highway": "bus_guideway"], "none"),
        (["highway": "track", "access": "yes"], "fb"), (["highway": "footway", "access": "permissive"], "fb"),
        (["highway": "runway", "access": "yes"], "fb"), (["highway": "pedestrian", "motorcar": "yes"], "fb"),
        (["highway": "path", "motor_vehicle": "designated"], "fb"),
        (["highway": "bus_guideway", "access": "yes"], "fb"),
        (["highway": "track", "access": "private"], "none"),
        (["highway": "track", "access": "agricultural;forestry"], "none"),
        // Never routed, whatever access says.
        (["highway": "steps", "access": "yes"], "none"), (["highway": "construction"], "none"),
        (["highway": "residential", "construction": "yes"], "none"),
        (["highway": "residential", "construction": "minor"], "fb"),
        (["highway": "proposed"], "none"), (["highway": "tertiary", "proposed": "secondary"], "fb"),
        (["highway": "residential", "area": "yes"], "none"), (["highway": "residential", "impassable": "yes"], "none"),
        (["highway": "residential", "status": "impassable"], "none"),
        (["highway": "service", "service": "emergency_access"], "none"),
        // The access hierarchy: motorcar > motor_vehicle > vehicle > access.
        (["highway": "residential", "access": "no"], "none"), (["highway": "residential",
                                                                "access": "no", "motorcar": "yes"], "fb"),
        (["highway": "residential", "access": "yes", "motor_vehicle": "no"], "none"),
        (["highway": "residential", "vehicle": "no", "motor_vehicle": "yes"], "fb"),
        (["highway": "residential", "motorcar": "no", "access": "yes"], "none"),
        // Forbidding values, allowing values, lists (the most allowing counts).
        (["highway": "residential", "access": "taxi"], "none"), (["highway": "residential", "access": "bus"], "none"),
        (["highway": "residential", "access": "psv"], "none"), (["highway": "residential", "access": "foot"], "none"),
        (["highway": "residential", "access": "official"], "none"),
        (["highway": "residential", "access": "military"], "none"),
        (["highway": "residential", "access": "emergency_vehicle"], "none"),
        (["highway": "residential", "access": "agricultural"], "none"),
        (["highway": "residential", "access": "hov"], "fb"), (["highway": "residential", "access": "designated"], "fb"),
        (["highway": "residential", "access": "agricultural;forestry"], "none"),
        (["highway": "residential", "access": "agricultural; yes"], "fb"),
        // Local traffic only: routable (restricted), on public road classes.
        (["highway": "residential", "access": "private"], "fb"), (["highway": "residential",
                                                                   "access": "destination"], "fb"),
        (["highway": "service", "access": "delivery"], "fb"),
        (["highway": "primary", "motor_vehicle": "customers"], "fb"),
        (["highway": "residential", "access": "permit"], "fb"),
        (["highway": "residential", "access": "residents"], "fb"),
        // Per direction, at every level.
        (["highway": "residential", "motorcar:forward": "no"], "-b"), (["highway": "residential",
                                                                        "vehicle:backward": "no"], "f-"),
        (["highway": "residential", "access:forward": "no"], "-b"),
        (["highway": "residential", "access:forward": "no", "motorcar:forward": "yes"], "fb"),
        (["highway": "residential", "access": "no", "motorcar:backward": "yes"], "-b"),
        (["highway": "track", "motor_vehicle:forward": "yes"], "f-"),
    ]

    @Test(arguments: classesAndAccessTable.indices)
    func classesAndAccess(_ row: Int) {
        let (tags, expected) = Self.classesAndAccessTable[row]
        #expect(directions(tags) == expected, "\(tags)")
    }

    @Test func restrictedRoadsAndStartpoints() throws {
        let privateRoad = try #require(profile.way(["highway": "residential", "access": "private"]))
        #expect(privateRoad.flags.contains(.restrictedAccess) && !privateRoad.flags.contains(.notStartpoint))
        let oneSide = try #require(profile.way(["highway": "residential", "motor_vehicle:backward": "destination"]))
        #expect(oneSide.flags.contains(.restrictedBackward) && !oneSide.flags.contains(.restrictedForward))
        // A private service road: routable, restricted, and no waypoint snaps onto it.
        let drive = try #require(profile.way(["highway": "service", "access": "private"]))
        #expect(drive.flags.contains([.restrictedAccess, .notStartpoint]))
        #expect(try #require(profile.way(["highway": "service",
                                          "access": "destination"])).flags.contains(.notStartpoint) == false)
        #expect(
            try #require(profile.way(["highway": "primary", "hov": "designated"])).flags.contains(.restrictedAccess))
        #expect(try #require(profile.way(["highway": "primary",
                                          "hov:lanes": "designated|designated"])).flags.contains(.restrictedAccess))
        #expect(try #require(profile.way(["highway": "primary",
                                          "hov:lanes": "designated|"])).flags.isDisjoint(with: .restrictedAccess))
        #expect(
            try #require(profile.way(["highway": "primary"])).flags.isDisjoint(with: [.restrictedAccess, .notStartpoint]
            ))
    }

    static let onewaysTable: [([String: String], String)] = [
        (["highway": "residential", "oneway": "yes"], "f-"), (["highway": "residential", "oneway": "1"], "f-"),
        (["highway": "residential", "oneway": "true"], "f-"), (["highway": "residential", "oneway": "-1"], "-b"),
        (["highway": "residential", "oneway": "no"], "fb"),
        (["highway": "residential", "oneway": "reversible"], "none"),
        (["highway": "residential", "oneway": "alternating"], "fb"),
        // Implied: motorways and roundabouts, not motorway links.
        (["highway": "motorway"], "f-"), (["highway": "motorway", "oneway": "no"], "fb"),
        (["highway": "motorway_link"], "fb"),
        (["highway": "primary", "junction": "roundabout"], "f-"),
        (["highway": "primary", "junction": "circular"], "f-"),
        (["highway": "primary", "junction": "roundabout", "oneway": "-1"], "-b"),
        // oneway:motorcar > oneway:motor_vehicle > oneway:vehicle > oneway.
        (["highway": "residential", "oneway": "no", "oneway:motorcar": "yes"], "f-"),
        (["highway": "residential", "oneway": "yes", "oneway:motor_vehicle": "no"], "fb"),
        (["highway": "residential", "oneway:vehicle": "-1"], "-b"),
        (["highway": "residential", "oneway": "yes", "oneway:vehicle": "-1", "oneway:motorcar": "no"], "fb"),
    ]

    @Test(arguments: onewaysTable.indices)
    func oneways(_ row: Int) {
        let (tags, expected) = Self.onewaysTable[row]
        #expect(directions(tags) == expected, "\(tags)")
    }

    /// car.lua's `tunnel` class: any `tunnel` value but `no`.
    @Test func tunnels() throws {
        for (value, inTunnel) in [("yes", true), ("building_passage", true), ("culvert", true), ("no", false)] {
            #expect(
                try #require(profile.way(["highway": "primary", "tunnel": value])).flags.contains(.tunnel) == inTunnel,
                "tunnel=\(value)")
        }
        #expect(try #require(profile.way(["highway": "primary"])).flags.contains(.tunnel) == false)
        #expect(CarProfile.wayKeys.contains("tunnel"))
    }

    @Test func roundaboutFlags() throws {
        #expect(try #require(profile.way(["highway": "primary",
                                          "junction": "roundabout"])).flags.contains([.roundabout, .oneway]))
        #expect(try #require(profile.way(["highway": "primary", "junction": "circular"])).flags.contains(.roundabout))
    }

    /// The default car: 2.0 m high, 1.9 m wide, 4.8 m long, 2000 kg.
    static let dimensionsTable: [([String: String], String)] = [
        (["highway": "primary", "maxheight": "1.8"], "none"), (["highway": "primary", "maxheight": "2"], "fb"),
        (["highway": "primary", "maxheight": "2.5 m"], "fb"), (["highway": "primary", "maxheight": "6'6\""], "none"),
        (["highway": "primary", "maxheight": "7'"], "fb"), (["highway": "primary", "maxheight": "none"], "fb"),
        (["highway": "primary", "maxheight": "1,8"], "none"),
        (["highway": "primary", "maxheight:forward": "1.5"], "-b"),
        (["highway": "primary", "maxheight:physical": "1.9", "maxheight": "3"], "none"),
        (["highway": "primary", "maxwidth": "1.8"], "none"), (["highway": "primary", "maxwidth": "1.9"], "none"),
        (["highway": "primary", "maxwidth": "2"], "fb"), (["highway": "primary", "width": "1.5"], "none"),
        (["highway": "primary", "narrow": "yes"], "fb"), (["highway": "primary", "maxwidth": "narrow"], "fb"),
        (["highway": "primary", "maxlength": "4"], "none"), (["highway": "primary", "maxlength": "5"], "fb"),
        (["highway": "primary", "maxweight": "1.5"], "none"), (["highway": "primary", "maxweight": "3.5 t"], "fb"),
        (["highway": "primary", "maxweight": "1500 kg"], "none"),
        (["highway": "primary", "maxweight": "2000 kg"], "fb"),
        (["highway": "primary", "maxweight": "3000 lbs"], "none"),
        (["highway": "primary", "maxweightrating": "1.8"], "none"),
    ]

    @Test(arguments: dimensionsTable.indices)
    func dimensions(_ row: Int) {
        let (tags, expected) = Self.dimensionsTable[row]
        #expect(directions(tags) == expected, "\(tags)")
    }

    @Test func anotherVehicle() {
        let van = CarProfile(vehicle: Vehicle(height: 3.5, width: 2.3, length: 7, weight: 3500))
        #expect(directions(["highway": "primary", "maxheight": "3"], van) == "none")
        #expect(directions(["highway": "primary", "narrow": "yes"], van) == "none")
        #expect(directions(["highway": "primary", "maxlength": "6"], van) == "none")
        #expect(directions(["highway": "primary", "maxweight": "3"], van) == "none")
        #expect(directions(["highway": "primary", "maxweight": "3.5"], van) == "fb")
        #expect(van.node(["barrier": "height_restrictor", "maxheight": "3"]).blocks)
    }

    /// km/h, forward: class, posted limits (0.8 × the limit), surfaces, routes, movable bridges.
    static let speedsTable: [([String: String], Double)] = [
        (["highway": "motorway"], 90), (["highway": "motorway_link"], 45), (["highway": "trunk_link"], 40),
        (["highway": "primary_link"], 30), (["highway": "residential"], 25), (["highway": "service"], 15),
        (["highway": "winter_road"], 20), (["highway": "ice_road"], 15), (["highway": "track", "access": "yes"], 10),
        (["highway": "residential", "maxspeed": "50"], 40),
        (["highway": "residential", "maxspeed": "30 mph"], 30 * 1.609 * 0.8),
        (["highway": "motorway", "maxspeed": "none"], 112), (["highway": "motorway", "maxspeed": "300"], 240),
        (["highway": "residential", "maxspeed": "DE:urban"], 40), (["highway": "primary", "maxspeed": "FR:rural"], 64),
        (["highway": "primary", "maxspeed": "GB:nsl_single"], 60 * 1.609 * 0.8),
        (["highway": "primary", "maxspeed": "XY:rural"], 72),
        (["highway": "motorway", "maxspeed": "DE:motorway"], 90), (["highway": "primary", "maxspeed": "signals"], 65),
        (["highway": "primary", "maxspeed": "variable"], 65), (["highway": "primary", "maxspeed": "walk"], 65),
        (["highway": "primary", "maxspeed": "30;50"], 24),
        (["highway": "primary", "maxspeed:advisory": "40", "maxspeed": "80"], 32),
        (["highway": "primary", "source:maxspeed": "DE:urban"], 40),
        (["highway": "primary", "surface": "gravel"], 40), (["highway": "residential", "surface": "gravel"], 25),
        (["highway": "primary", "surface": "asphalt"], 65), (["highway": "primary", "surface": "mud"], 10),
        (["highway": "primary", "tracktype": "grade3"], 30), (["highway": "primary", "smoothness": "bad"], 40),
        (["highway": "primary", "surface": "cobblestone", "smoothness": "horrible"], 10),
        (["route": "ferry"], 5), (["route": "shuttle_train"], 10), (["highway": "primary", "bridge": "movable"], 5),
    ]

    @Test(arguments: speedsTable.indices)
    func speeds(_ row: Int) throws {
        let (tags, expected) = Self.speedsTable[row]
        let rule = try #require(profile.way(tags), "\(tags)")
        #expect(abs(rule.forwardSpeed - expected) < 1e-9, "\(tags): \(rule.forwardSpeed)")
    }

    @Test func perDirectionSpeedsAndImpassable() throws {
        let split = try #require(profile.way(["highway": "primary", "maxspeed": "50", "maxspeed:forward": "70",
                                              "maxspeed:backward": "30"]))
        #expect(split.forwardSpeed == 56 && split.backwardSpeed == 24)
        #expect(profile.way(["highway": "primary", "smoothness": "impassable"]) == nil)
    }

    /// Weight penalties (OSRM's rates): the route avoids these roads more than their speed says.
    @Test func penalties() throws {
        func penalties(_ tags: [String: String]) throws -> [Double] {
            let rule = try #require(profile.way(tags))
            return [rule.forwardPenalty, rule.backwardPenalty]
        }
        #expect(try penalties(["highway": "primary"]) == [1, 1])
        for service in ["parking_aisle", "driveway", "alley", "parking", "drive-through"] {
            #expect(try penalties(["highway": "service", "service": service]) == [0.5, 0.5], "\(service)")
        }
        #expect(try #require(profile.way(["highway": "service", "service": "parking_aisle"])).forwardSpeed == 15)
        #expect(try penalties(["highway": "residential", "width": "3"]) == [0.5, 0.5])
        #expect(try penalties(["highway": "residential", "width": "3.5"]) == [0.6, 0.6])
        #expect(try penalties(["highway": "residential", "width": "4.5"]) == [0.75, 0.75])
        #expect(try penalties(["highway": "residential", "width": "5.5"]) == [0.8, 0.8])
        #expect(try penalties(["highway": "residential",
                               "width": "3", "oneway": "yes"]) == [1, 1], "only two-way roads")
        #expect(try penalties(["highway": "residential", "lanes": "1"]) == [0.5, 0.5])
        #expect(try penalties(["highway": "residential", "lane_markings": "no"]) == [0.75, 0.75])
        #expect(try penalties(["highway": "residential", "side_road": "yes"]) == [0.8, 0.8])
        #expect(try penalties(["highway": "residential", "oneway": "alternating"]) == [0.4, 0.4])
        #expect(try penalties(["highway": "residential", "priority": "forward"]) == [1, 0.7])
        #expect(try penalties(["highway": "residential", "priority": "backward"]) == [0.7, 1])
    }

    /// OSRM's lane count for guidance: `lanes` (a positive whole number, else none), else
    /// `lanes:forward` + `lanes:backward`, and at least as many as the turn lanes kept.
    @Test func laneCounts() throws {
        func lanes(_ tags: [String: String]) throws -> UInt8 {
            try #require(profile.way(["highway": "primary"].merging(tags) { $1 })).lanes
        }
        #expect(try lanes([:]) == 0)
        #expect(try lanes(["lanes": "4"]) == 4)
        #expect(try lanes(["lanes": " 3 "]) == 3)
        #expect(try lanes(["lanes": "2;3"]) == 0)
        #expect(try lanes(["lanes": "1.5"]) == 0)
        #expect(try lanes(["lanes": "0"]) == 0)
        #expect(try lanes(["lanes:forward": "2", "lanes:backward": "1"]) == 3)
        #expect(try lanes(["lanes": "2", "lanes:forward": "5"]) == 2) // `lanes` wins when present
        #expect(try lanes(["turn:lanes:forward": "left|through|right", "turn:lanes:backward": "through"]) == 4)
        #expect(try lanes(["lanes": "2", "oneway": "yes", "turn:lanes": "left|through|through"]) == 3)
        #expect(try lanes(["lanes": "600"]) == 255)
        for garbage in ["nan", "inf",
                        "-2", "1e300", "two", ""] { #expect(try lanes(["lanes": garbage]) == 0, "\(garbage)") }
    }

    @Test func ferriesAndCarTrains() throws {
        let ferry = try #require(profile.way(["route": "ferry"]))
        #expect(ferry.highway == .ferry && ferry.flags.contains([.ferry, .notStartpoint]) && ferry.duration == nil)
        #expect(profile.way(["route": "ferry", "motorcar": "no"]) == nil)
        #expect(try #require(profile.way(["route": "ferry", "duration": "00:20"])).duration == 1200)
        #expect(try #require(profile.way(["route": "ferry", "duration": "PT1H30M"])).duration == 5400)
        let absurd = try #require(profile.way(["route": "ferry", "duration": "PT999999999999999H"]))
        #expect(absurd.duration == nil && absurd.forwardSpeed == 5, "an unreadable duration leaves the ferry speed")
        #expect(try #require(profile.way(["route": "shuttle_train"])).flags.contains(.ferry))
        #expect(profile.way(["route": "bus"]) == nil)
        #expect(try #require(profile.way(["highway": "primary", "bridge": "movable"])).flags.contains(.ferry) == false)
    }

    @Test func durations() {
        let cases: [(String, Double?)] = [
            ("00:20", 1200), ("1:30:15", 5415), ("45", 2700), ("1:60", 7200), ("120", nil), ("PT1H30M", 5400),
            ("PT45M", 2700),
            ("pt1h", nil), ("P1D", 86400), ("P1DT2H", 93600), ("P2W", 1_209_600),
            ("PT01:30:00", 5400), ("PT013000", 5400),
            ("PT25:00:00", nil), ("PT1.5H", nil), ("soon", nil), ("", nil), ("PT999999999999999H", nil),
        ]
        for (text, seconds) in cases { #expect(TagValues.duration(text) == seconds, "\(text)") }
    }

    @Test func namesAndRefs() throws {
        let road = try #require(profile.way(["highway": "motorway", "name": "Via Norte", "ref": "IC 1;IC 23;A 1"]))
        #expect(road.name == "Via Norte" && road.ref == "IC 1; IC 23; A 1")
        let sidewalk = try #require(profile.way(["highway": "footway", "access": "yes", "footway": "sidewalk",
                                                 "street:name": "High Street"]))
        #expect(sidewalk.name == "High Street")
    }

    static let barriersTable: [([String: String], Bool, Double)] = [
        // (tags, blocks, delay in seconds)
        (["barrier": "gate"], false, 60), (["barrier": "lift_gate"], false, 60),
        (["barrier": "gate", "access": "no"], true, 0), (["barrier": "gate", "access": "private"], false, 0),
        (["barrier": "gate", "motor_vehicle": "yes"], false, 0), (["barrier": "swing_gate"], true, 0),
        (["barrier": "bollard"], true, 0), (["barrier": "bollard", "bollard": "rising"], false, 0),
        (["barrier": "kerb"], true, 0), (["barrier": "kerb", "kerb": "lowered"], false, 0),
        (["barrier": "kerb", "kerb": "flush"], false, 0),
        (["barrier": "kerb", "kerb": "raised"], true, 0), (["barrier": "kerb", "highway": "crossing"], false, 0),
        (["barrier": "fence"], true, 0), (["barrier": "fence", "sensory": "audible"], false, 0),
        (["barrier": "fence", "sensory": "audio"], false, 0),
        (["barrier": "height_restrictor"], false, 0), (["barrier": "height_restrictor", "maxheight": "1.9"], true, 0),
        (["barrier": "height_restrictor", "maxheight": "2.5"], false, 0),
        (["barrier": "cattle_grid"], false, 0), (["barrier": "toll_booth"], false, 0),
        (["barrier": "border_control"], false, 0),
        (["barrier": "sally_port"], false, 0), (["barrier": "entrance"], false, 0), (["barrier": "arch"], false, 0),
        (["barrier": "no"], false, 0), (["barrier": "block"], true, 0), (["barrier": "chain"], true, 0),
        (["barrier": "bollard", "access": "agricultural;yes"], false, 0), (["access": "no"], true, 0),
    ]

    @Test(arguments: barriersTable.indices)
    func barriers(_ row: Int) {
        let (tags, blocks, delay) = Self.barriersTable[row]
        let rule = profile.node(tags)
        #expect(rule.blocks == blocks && rule.barrierDelay == delay, "\(tags): \(rule)")
    }

    @Test func trafficSignals() {
        #expect(profile.node(["highway": "traffic_signals"]).trafficSignals)
        #expect(profile.node(["highway": "crossing"]).isEmpty)
    }

    @Test func restrictions() {
        let cases: [([String: String], RestrictionKind?)] = [
            (["restriction": "no_left_turn"], .prohibitive), (["restriction": "only_straight_on"], .mandatory),
            (["restriction:motorcar": "no_u_turn"], .prohibitive),
            (["restriction:vehicle": "no_left_turn"], .prohibitive),
            (["restriction:motor_vehicle": "only_right_turn"], .mandatory), (["restriction:hgv": "no_left_turn"], nil),
            (["restriction": "no_left_turn", "except": "bicycle;motorcar"], nil),
            (["restriction": "no_left_turn", "except": "bicycle"], .prohibitive),
            (["restriction": "no_right_turn_on_red"], nil), (["restriction": "no_left_turn_on_red"], nil),
            (["restriction": "give_way"], nil),
            (["restriction:conditional": "no_left_turn @ (Mo-Fr 07:00-09:00)"], nil),
        ]
        for (tags, kind) in cases {
            #expect(profile.restriction(tags.merging(["type": "restriction"]) { a, _ in a }) == kind, "\(tags)")
        }
        #expect(profile.restriction(["type": "multipolygon", "restriction": "no_left_turn"]) == nil)
    }

    @Test func tagValues() {
        #expect(TagValues.metres("2.5") == 2.5 && TagValues.metres("3,5 m") == 3.5 && TagValues.metres("wide") == nil)
        #expect(abs(TagValues.metres("3'6\"")! - 1.0668) < 1e-9)
        #expect(TagValues.kilograms("7.5") == 7500 && TagValues.kilograms("800 kg") == 800)
        #expect(TagValues.speed("50") == 50 && TagValues.speed("none") == nil && TagValues.speed(" 50") == nil)
        #expect(abs(TagValues.speed("30 mph")! - 48.27) < 1e-9 && abs(TagValues.speed("30mp/h")! - 48.27) < 1e-9)
        #expect(
            TagValues.speed("30 mp") == 30 && TagValues.speed("30 km/h") == 30
                && TagValues.kilograms("5000 lbs")! > 2267)
        #expect(
            TagValues.mentions("ab mph", "mph") && TagValues.mentions("mph", "mph") && !TagValues.mentions("mp", "mph")
                && !TagValues.mentions("", "mph") && TagValues.mentions("x", "") && !TagValues.mentions("mmp h", "mph"))
        #expect(TagValues.canonicalList("A 1;A  2; A 3") == "A 1; A 2; A 3")
    }
}
