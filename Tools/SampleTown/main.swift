// sample-town: writes Data/sample-town.osm and Data/places.geojson, a small fictional market town
// ("Avelbury", on the fictional River Avel) laid out by this program. Deterministic: the same
// output on every run and machine, so the committed files can be checked against it.
//
//   swift run sample-town [OUTPUT-DIR]      (default: Data)
//
// The town carries everything the car profile has to handle: a street grid with names and refs,
// arterials, oneway streets (yes and -1, one implied by a motorway), a pedestrianised block, a
// living street, a roundabout, a motorway with on and off slip roads, a maxspeed mix (mph, zone
// values, forward/backward), a private road, a gate, a bollard, a cattle grid, traffic signals,
// a car park with parking aisles, a bridge, a car ferry, three turn restrictions, and things a
// car must ignore (footways, a cycleway, a track, steps, roads under construction or proposed,
// buildings, a river).

import Foundation
import WaymarkGeo

// MARK: - Builder

typealias Tags = [(String, String)]

/// Collects nodes, ways and relations on a local metric plane and writes OSM XML.
final class TownBuilder {
    struct Node { var id: Int64; var x: Double; var y: Double; var tags: Tags }
    struct Way { var id: Int64; var refs: [Int64]; var tags: Tags }
    struct Member { var type: String; var ref: Int64; var role: String }
    struct Relation { var id: Int64; var members: [Member]; var tags: Tags }

    let origin: Coordinate
    /// The town is drawn on a plane in metres (x east, y north), then turned by this angle.
    let rotationDegrees: Double
    private(set) var nodes: [Node] = []
    private(set) var ways: [Way] = []
    private(set) var relations: [Relation] = []
    private var nodeAt: [String: Int] = [:]

    init(origin: Coordinate, rotationDegrees: Double) {
        self.origin = origin
        self.rotationDegrees = rotationDegrees
    }

    /// The node at (x, y), created once: streets that meet at the same point share it.
    @discardableResult
    func node(_ x: Double, _ y: Double, tags: Tags = []) -> Int64 {
        let key = String(format: "%.2f,%.2f", x + 0, y + 0) // + 0 turns -0 into 0
        if let index = nodeAt[key] {
            nodes[index].tags += tags
            return nodes[index].id
        }
        let id = Int64(nodes.count + 1)
        nodes.append(Node(id: id, x: x, y: y, tags: tags))
        nodeAt[key] = nodes.count - 1
        return id
    }

    /// A node that is never shared (points of interest, buildings).
    @discardableResult
    func freeNode(_ x: Double, _ y: Double, tags: Tags = []) -> Int64 {
        let id = Int64(nodes.count + 1)
        nodes.append(Node(id: id, x: x, y: y, tags: tags))
        return id
    }

    /// Node ids along a polyline through `vertices`, with extra nodes about every `spacing` metres.
    func line(_ vertices: [(Double, Double)], spacing: Double = 30) -> [Int64] {
        var refs: [Int64] = [node(vertices[0].0, vertices[0].1)]
        for (a, b) in zip(vertices, vertices.dropFirst()) {
            let length = hypot(b.0 - a.0, b.1 - a.1)
            let steps = max(1, Int((length / spacing).rounded()))
            for i in 1...steps {
                let t = Double(i) / Double(steps)
                refs.append(node(a.0 + (b.0 - a.0) * t, a.1 + (b.1 - a.1) * t))
            }
        }
        return refs
    }

    @discardableResult
    func way(_ refs: [Int64], _ tags: Tags) -> Int64 {
        let id = Int64(ways.count + 1)
        ways.append(Way(id: id, refs: refs, tags: tags))
        return id
    }

    @discardableResult
    func road(_ vertices: [(Double, Double)], _ tags: Tags, spacing: Double = 30) -> Int64 {
        way(line(vertices, spacing: spacing), tags)
    }

    func relation(_ members: [Member], _ tags: Tags) {
        relations.append(Relation(id: Int64(relations.count + 1), members: members, tags: tags))
    }

    /// A closed rectangle of free nodes (a building or an area), centred at (x, y).
    @discardableResult
    func rectangle(_ x: Double, _ y: Double, width: Double, depth: Double, _ tags: Tags) -> Int64 {
        let corners = [(-width / 2, -depth / 2), (width / 2, -depth / 2), (width / 2, depth / 2),
                       (-width / 2, depth / 2)]
        var refs = corners.map { freeNode(x + $0.0, y + $0.1) }
        refs.append(refs[0])
        return way(refs, tags)
    }

    func coordinate(_ x: Double, _ y: Double) -> Coordinate {
        let angle = rotationDegrees * .pi / 180
        let rx = x * cos(angle) - y * sin(angle)
        let ry = x * sin(angle) + y * cos(angle)
        let lat = origin.latitude + ry / Coordinate.earthRadius * 180 / .pi
        let lon = origin.longitude + rx / (Coordinate.earthRadius * cos(origin.latitude * .pi / 180)) * 180 / .pi
        return Coordinate(latitude: lat, longitude: lon)
    }

    // MARK: Output

    func osmXML() -> String {
        let all = nodes.map { coordinate($0.x, $0.y) }
        let box = try! BoundingBox.enclosing(all)!
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        out += "<osm version=\"0.6\" generator=\"waymark sample-town\">\n"
        out += " <note>Avelbury is fictional: generated by Tools/SampleTown in the Waymark repository.</note>\n"
        out +=
            " <bounds minlat=\"\(f7(box.south))\" minlon=\"\(f7(box.west))\" maxlat=\"\(f7(box.north))\" "
                + "maxlon=\"\(f7(box.east))\"/>\n"
        for (node, c) in zip(nodes, all) {
            let head =
                " <node id=\"\(node.id)\" version=\"1\" timestamp=\"2026-01-01T00:00:00Z\" lat=\"\(f7(c.latitude))\" "
                    + "lon=\"\(f7(c.longitude))\""
            if node.tags.isEmpty {
                out += head + "/>\n"
            } else {
                out += head + ">\n" + tagLines(node.tags) + " </node>\n"
            }
        }
        for way in ways {
            out += " <way id=\"\(way.id)\" version=\"1\" timestamp=\"2026-01-01T00:00:00Z\">\n"
            for ref in way.refs { out += "  <nd ref=\"\(ref)\"/>\n" }
            out += tagLines(way.tags) + " </way>\n"
        }
        for relation in relations {
            out += " <relation id=\"\(relation.id)\" version=\"1\" timestamp=\"2026-01-01T00:00:00Z\">\n"
            for m in relation.members { out += "  <member type=\"\(m.type)\" ref=\"\(m.ref)\" role=\"\(m.role)\"/>\n" }
            out += tagLines(relation.tags) + " </relation>\n"
        }
        return out + "</osm>\n"
    }

    private func tagLines(_ tags: Tags) -> String {
        tags.map { "  <tag k=\"\(escape($0.0))\" v=\"\(escape($0.1))\"/>\n" }.joined()
    }
}

func f7(_ v: Double) -> String { String(format: "%.7f", v) }

func escape(_ s: String) -> String {
    s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
        .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
}

// MARK: - The town

let town = TownBuilder(origin: Coordinate(latitude: 52.3100, longitude: -2.5900), rotationDegrees: 8)

// Old town: a grid on the west bank, 120 m blocks. Streets west to east and south to north.
let columns: [(x: Double, name: String)] = [
    (-1020, "Tanners Row"), (-900, "Church Street"), (-780, "Wool Street"), (-660, "Queen Street"),
    (-540, "King Street"), (-420, "Market Street"), (-300, "Chapel Street"), (-180, "Water Lane"),
]
let rows: [(y: Double, name: String)] = [
    (-480, "Orchard Road"), (-360, "Priory Road"), (-240, "Barn Street"), (-120, "Sheep Street"), (0, "High Street"),
    (120, "Castle Street"), (240, "Bell Lane"), (360, "Rose Street"), (480, "North Street"),
]
let south = -480.0, north = 480.0, west = -1020.0, east = -180.0

var splitWays: [String: Int64] = [:] // name of a way that a restriction needs → id

for (x, name) in columns {
    switch name {
    case "Wool Street":
        // Oneway northbound, pedestrianised for the block between High Street and Castle Street.
        town.road([(x, south), (x, 0)],
                  [("highway", "residential"), ("name", name), ("oneway", "yes"), ("maxspeed", "20 mph")])
        town.road([(x, 0), (x, 120)], [("highway", "pedestrian"), ("name", name)])
        town.road([(x, 120), (x, north)],
                  [("highway", "residential"), ("name", name), ("oneway", "yes"), ("maxspeed", "20 mph")])
    case "Queen Street", "King Street", "Market Street":
        // Split at High Street: the turn restrictions there name the halves.
        var tags: Tags = [("highway", name == "Market Street" ? "secondary" : "residential"), ("name", name)]
        if name == "Market Street" {
            tags += [("ref", "B4190"), ("maxspeed", "30 mph")]
        } else {
            tags.append(("maxspeed", "20 mph"))
        }
        splitWays["\(name) south"] = town.road([(x, south), (x, 0)], tags)
        splitWays["\(name) north"] = town.road([(x, 0), (x, north)], tags)
    case "Chapel Street":
        town.road([(x, south), (x, north)], [("highway", "living_street"), ("name", name)])
    default:
        town.road([(x, south), (x, north)], [("highway", "residential"), ("name", name), ("maxspeed", "20 mph")])
    }
}

for (y, name) in rows {
    switch name {
    case "High Street":
        let tags: Tags = [("highway", "primary"), ("name", name), ("ref", "A456"), ("maxspeed", "30 mph")]
        splitWays["High Street west"] = town.road([(west, 0), (-660, 0)], tags)
        splitWays["High Street middle"] = town.road([(-660, 0), (-420, 0)], tags)
        splitWays["High Street east"] = town.road([(-420, 0), (-300, 0), (-180, 0), (-100, 0), (-40, 0)], tags)
    case "Sheep Street":
        town.road([(west, y), (east, y)],
                  [("highway", "residential"), ("name", name), ("oneway", "yes"), ("maxspeed", "20 mph")])
    case "Castle Street":
        // Drawn west to east, driven east to west.
        town.road([(west, y), (east, y)],
                  [("highway", "residential"), ("name", name), ("oneway", "-1"), ("maxspeed", "20 mph")])
    case "Bell Lane":
        // A bollard between Queen Street and King Street closes it to cars (a modal filter).
        town.road([(west, y), (east, y)], [("highway", "residential"), ("name", name), ("maxspeed", "20 mph")])
        town.node(-600, y, tags: [("barrier", "bollard")])
    default:
        town.road([(west, y), (east, y)], [("highway", "residential"), ("name", name), ("maxspeed", "20 mph")])
    }
}
town.node(-420, 0, tags: [("highway", "traffic_signals")])
town.node(-100, 0, tags: [("highway", "crossing"), ("crossing", "zebra")]) // Riverside Walk crosses

// Turn restrictions at High Street.
typealias M = TownBuilder.Member
@MainActor func via(_ x: Double, _ y: Double) -> Int64 { town.node(x, y) }
town.relation([M(type: "way", ref: splitWays["High Street east"]!, role: "from"),
               M(type: "node", ref: via(-420, 0), role: "via"),
               M(type: "way", ref: splitWays["Market Street north"]!, role: "to")],
              [("type", "restriction"), ("restriction", "no_right_turn")])
town.relation([M(type: "way", ref: splitWays["King Street south"]!, role: "from"),
               M(type: "node", ref: via(-540, 0), role: "via"),
               M(type: "way", ref: splitWays["King Street north"]!, role: "to")],
              [("type", "restriction"), ("restriction", "only_straight_on")])
town.relation([M(type: "way", ref: splitWays["High Street west"]!, role: "from"),
               M(type: "node", ref: via(-660, 0), role: "via"),
               M(type: "way", ref: splitWays["Queen Street north"]!, role: "to")],
              [("type", "restriction"), ("restriction:motorcar", "no_left_turn")])

// The River Avel runs north-south through the town; High Street crosses it on a bridge.
let river = stride(from: -2400.0, through: 2400, by: 100).map { (60 * sin($0 / 400), $0) }
town.way(river.map { town.freeNode($0.0, $0.1) }, [("waterway", "river"), ("name", "River Avel")])
town.road([(-40, 0), (40, 0)],
          [("highway", "primary"), ("name", "High Street"), ("ref", "A456"), ("maxspeed", "30 mph"),
                               ("bridge", "yes"), ("layer", "1"), ("bridge:name", "Avel Bridge")], spacing: 40)

// East bank: High Street to a roundabout, driven clockwise as in Britain.
town.road([(40, 0), (115, 0), (420, 0)],
          [("highway", "primary"), ("name", "High Street"), ("ref", "A456"), ("maxspeed", "30 mph")])
let roundabout = (0...16).map { i -> (Double, Double) in
    let angle = Double.pi - Double(i % 16) * Double.pi / 8 // 180° (west) clockwise: north, east, south
    return (450 + 30 * cos(angle), 30 * sin(angle))
}
town.way(roundabout.map { town.node(($0.0 * 1000).rounded() / 1000, ($0.1 * 1000).rounded() / 1000) },
         [("highway", "primary"), ("junction", "roundabout"), ("name", "Avel Circus"), ("maxspeed", "30 mph")])
// London Road north and south of the roundabout, with its speed limits rising out of town.
let arterial: Tags = [("highway", "primary"), ("name", "London Road"), ("ref", "A4117")]
town.road([(450, 30), (450, 300), (450, 500), (450, 600), (450, 800)], arterial + [("maxspeed", "30 mph")])
town.road([(450, 800), (450, 1000), (450, 1400)],
          arterial + [("maxspeed:forward", "40 mph"), ("maxspeed:backward", "30 mph")])
town.road([(450, 1400), (520, 2400)], arterial + [("maxspeed", "GB:nsl_single")])
town.road([(450, -30), (450, -400), (450, -800)], arterial + [("maxspeed", "30 mph")])
town.road([(450, -800), (450, -1000), (450, -1500)], arterial + [("maxspeed", "40 mph")])
town.road([(450, -1500), (380, -2400)], arterial + [("maxspeed", "GB:nsl_single")])
town.node(450, 600, tags: [("highway", "traffic_signals")])

// Ashby Road: east from the roundabout over the motorway on a bridge, to the countryside.
town.road([(480, 0), (1900, 0)],
          [("highway", "secondary"), ("name", "Ashby Road"), ("ref", "B4221"), ("maxspeed", "40 mph")])
town.road([(1900, 0), (2100, 0)],
          [("highway", "secondary"), ("name", "Ashby Road"), ("ref", "B4221"), ("maxspeed", "40 mph"),
                                   ("bridge", "yes"), ("layer", "1")], spacing: 50)
town.road([(2100, 0), (2700, 150), (3300, 200)],
          [("highway", "secondary"), ("name", "Ashby Road"), ("ref", "B4221"), ("maxspeed", "GB:nsl_single")])
town.node(1900, 0, tags: [("highway", "traffic_signals")])
town.node(2100, 0, tags: [("highway", "traffic_signals")])

// The M47, two carriageways; northbound on the west side (traffic keeps left). The southbound
// carriageway has no oneway tag: a motorway implies it.
let northbound = town.line([(1980, -2600), (1980, -500), (1980, 500), (1980, 2600)], spacing: 100)
town.way(northbound,
         [("highway", "motorway"), ("ref", "M47"), ("oneway", "yes"), ("maxspeed", "70 mph"), ("lanes", "3")])
let southbound = town.line([(2020, 2600), (2020, 500), (2020, -500), (2020, -2600)], spacing: 100)
town.way(southbound, [("highway", "motorway"), ("ref", "M47"), ("maxspeed", "70 mph"), ("lanes", "3")])
let slip: Tags = [("highway", "motorway_link"), ("oneway", "yes")]
town.road([(1980, -500), (1950, -250), (1900, 0)], slip + [("destination", "Avelbury")], spacing: 50) // northbound off
town.road([(1900, 0), (1950, 250), (1980, 500)], slip + [("destination", "The North")], spacing: 50) // northbound on
town.road([(2020, 500), (2050, 250), (2100, 0)], slip + [("destination", "Avelbury")], spacing: 50) // southbound off
town.road([(2100, 0), (2050, -250), (2020, -500)], slip + [("destination", "The South")], spacing: 50) // southbound on

// Car ferry across the river south of town; Ferry Lane on the west bank, Ferry Road on the east.
town.road([(-420, south), (-380, -800), (-200, -1200), (-10, -1500)],
          [("highway", "unclassified"), ("name", "Ferry Lane"), ("maxspeed", "30 mph")])
town.road([(-10, -1500), (35, -1505), (80, -1500)], [("route", "ferry"), ("name", "Avel Ferry"), ("motorcar", "yes"),
                                                      ("motor_vehicle", "yes"),
                                                      ("duration", "00:05"), ("toll", "yes")], spacing: 100)
town.road([(80, -1500), (450, -1500)], [("highway", "unclassified"), ("name", "Ferry Road"), ("maxspeed", "30 mph")])

// A private drive to the manor behind a gate (which opens: a car passes at a delay); a lane to the
// old mill closed by a locked gate; a cattle grid on the downs road.
town.road([(-900, north), (-880, 700), (-900, 900)],
          [("highway", "service"), ("name", "Manor Drive"), ("access", "private")])
town.node(-880, 700, tags: [("barrier", "gate")])
town.road([(west, 0), (-1300, 60), (-1600, 100)],
          [("highway", "unclassified"), ("name", "Mill Lane"), ("maxspeed", "GB:nsl_single")])
town.node(-1300, 60, tags: [("barrier", "gate"), ("access", "no")])
town.road([(west, north), (-1400, 800), (-2200, 1200)],
          [("highway", "tertiary"), ("name", "Downs Road"), ("maxspeed", "GB:nsl_single")])
town.node(-1400, 800, tags: [("barrier", "cattle_grid")])
town.road([(-1600, 100), (-1900, 300), (-2300, 250)], [("highway", "track"), ("tracktype", "grade3")])

// New town on the east bank: a small estate off London Road north.
town.road([(450, 300), (700, 300), (900, 380)],
          [("highway", "residential"), ("name", "Meadow Close"), ("maxspeed", "20 mph")])
town.road([(700, 300), (700, 600), (620, 700)],
          [("highway", "residential"), ("name", "Willow Way"), ("maxspeed", "20 mph")])
town.road([(450, 500), (560, 520), (620, 700), (450, 800)],
          [("highway", "residential"), ("name", "Beech Crescent"), ("maxspeed", "20 mph")])
town.road([(450, 1000), (800, 1000), (850, 1100)],
          [("highway", "unclassified"), ("name", "Orchard Farm Lane"), ("motor_vehicle", "destination")])

// Supermarket car park off London Road south: a driveway and parking aisles.
town.road([(450, -400), (600, -400)], [("highway", "service"), ("service", "driveway"), ("name", "Supermarket access")])
for aisle in [(-360.0), -400, -440] {
    town.road([(600, aisle), (760, aisle)], [("highway", "service"), ("service", "parking_aisle")], spacing: 40)
}
town.road([(600, -360), (600, -440)], [("highway", "service"), ("service", "parking_aisle")], spacing: 40)
town.rectangle(680, -400, width: 200, depth: 120, [("amenity", "parking"), ("name", "London Road car park")])
town.rectangle(700, -520, width: 120, depth: 70, [("building", "supermarket")])

// Things a car must not use.
town.road([(-100, south), (-100, north)], [("highway", "footway"), ("name", "Riverside Walk")])
town.road([(east, 240), (-100, 240)], [("highway", "footway")])
town.road([(east, -240), (-100, -240)], [("highway", "steps"), ("step_count", "12")])
town.road([(110, -1400), (115, 0), (120, 1400)], [("highway", "cycleway"), ("name", "Avel Way")], spacing: 60)
town.road([(450, -1000), (900, -1000)],
          [("highway", "construction"), ("construction", "residential"), ("name", "Station Approach")])
town.road([(-1500, -900), (-1500, 900)],
          [("highway", "proposed"), ("proposed", "primary"), ("name", "Avelbury Bypass")], spacing: 100)
town.rectangle(-600, 60, width: 80, depth: 50, [("highway", "pedestrian"), ("area", "yes"), ("name", "Market Square")])

// Houses along a few streets: buildings set back from the road.
let terraces: [(x: Double, side: Double)] = [(-1020, 1), (-900, 1), (-900, -1), (-780, 1), (-660, 1), (-660, -1),
                                             (-540, 1), (-300, 1), (-180, 1)]
for (x, side) in terraces {
    for y in stride(from: south + 20, to: north, by: 30) where Int(y + 1000) % 120 != 40 {
        town.rectangle(x + 22 * side, y, width: 14, depth: 10, [("building", "house")])
    }
}
for x in stride(from: 480.0, to: 880, by: 32) {
    town.rectangle(x, 325, width: 12, depth: 9, [("building", "house")])
}

// MARK: - Points of interest

/// (title, subtitle, x, y, OSM tags): each one a node in the OSM file and a feature in places.geojson.
let places: [(String, String, Double, Double, Tags)] = [
    ("Avelbury Town Hall", "Town hall · High Street", -600, 20, [("amenity", "townhall")]),
    ("St Mary's Church", "Church · Church Street", -880, 180,
     [("amenity", "place_of_worship"), ("religion", "christian")]),
    ("The Swan", "Pub · High Street, by the bridge", -160, 18, [("amenity", "pub")]),
    ("Avelbury Library", "Library · Castle Street", -720, 135, [("amenity", "library")]),
    ("Market Square", "Market every Saturday", -600, 60, [("amenity", "marketplace")]),
    ("Avelbury Primary School", "School · Priory Road", -960, -345, [("amenity", "school")]),
    ("Riverside Surgery", "Doctors · Water Lane", -165, -150, [("amenity", "doctors")]),
    ("High Street Pharmacy", "Pharmacy · High Street", -480, 15, [("amenity", "pharmacy")]),
    ("Avel Bakery", "Bakery · Sheep Street", -700, -105, [("shop", "bakery")]),
    ("Fenwick's Butchers", "Butcher · Market Street", -405, -60, [("shop", "butcher")]),
    ("Avelbury Supermarket", "Supermarket · London Road", 700, -520, [("shop", "supermarket")]),
    ("Ashby Road Services", "Fuel station · Ashby Road", 1200, 20, [("amenity", "fuel")]),
    ("Avelbury Police Station", "Police · London Road", 470, 700, [("amenity", "police")]),
    ("Avelbury Fire Station", "Fire station · Ashby Road", 900, -20, [("amenity", "fire_station")]),
    ("Post Office", "Post office · King Street", -525, 200, [("amenity", "post_office")]),
    ("The Old Mill", "Historic watermill · Mill Lane", -1600, 120, [("historic", "mill")]),
    ("Avelbury Manor", "Private estate · Manor Drive", -900, 920, [("historic", "manor"), ("access", "private")]),
    ("Avel Ferry (west slip)", "Car ferry, every 20 minutes", -20, -1490, [("amenity", "ferry_terminal")]),
    ("Avel Ferry (east slip)", "Car ferry, every 20 minutes", 90, -1490, [("amenity", "ferry_terminal")]),
    ("Avelbury Castle", "Castle ruins · Castle Street", -1000, 140, [("historic", "castle")]),
    ("Avel Leisure Centre", "Swimming pool and gym · Meadow Close", 800, 360, [("leisure", "sports_centre")]),
    ("The Copper Kettle", "Café · Queen Street", -645, -200, [("amenity", "cafe")]),
    ("Riverside Kitchen", "Restaurant · Water Lane", -165, 300, [("amenity", "restaurant")]),
    ("Avel & County Bank", "Bank · High Street", -300, -15, [("amenity", "bank")]),
    ("The Bell Hotel", "Hotel · Bell Lane", -480, 255, [("tourism", "hotel")]),
    ("Avelbury Bus Station", "Buses to the county towns", 430, -200, [("amenity", "bus_station")]),
    ("Avel Dental Practice", "Dentist · Rose Street", -840, 375, [("amenity", "dentist")]),
    ("Avel Valley Museum", "Museum · North Street", -300, 495, [("tourism", "museum")]),
    ("Priory Gardens", "Park · Priory Road", -240, -380, [("leisure", "park")]),
    ("The Regal", "Cinema · London Road", 470, -650, [("amenity", "cinema")]),
    ("Willow Way Vets", "Veterinary surgery · Willow Way", 715, 480, [("amenity", "veterinary")]),
    ("Avelbury Station", "Trains to the city", 470, -980, [("railway", "station"), ("public_transport", "station")]),
]
var features: [String] = []
for (title, subtitle, x, y, tags) in places {
    _ = town.freeNode(x, y, tags: tags + [("name", title)])
    let c = town.coordinate(x, y)
    func json(_ s: String) -> String {
        "\"" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
    let kind = tags[0]
    // A stable id from the title: "St Mary's Church" → "st-marys-church".
    var id = ""
    for ch in title.lowercased() where ch != "'" {
        if ch.isLetter || ch.isNumber { id.append(ch) } else if !id.isEmpty && !id.hasSuffix("-") { id.append("-") }
    }
    while id.hasSuffix("-") { id.removeLast() }
    features.append(
        "{\"type\":\"Feature\",\"id\":\(json(id)),\"geometry\":{\"type\":\"Point\",\"coordinates\":"
        + "[\(String(format: "%.6f", c.longitude)),\(String(format: "%.6f", c.latitude))]},"
        + "\"properties\":{\"title\":\(json(title)),\"subtitle\":\(json(subtitle)),\(json(kind.0)):\(json(kind.1))}}")
}

// MARK: - Write (atomically)

let outputDirectory = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "Data"
do {
    try FileManager.default.createDirectory(atPath: outputDirectory, withIntermediateDirectories: true)
    let osm = town.osmXML()
    try Data(osm.utf8).write(to: URL(fileURLWithPath: outputDirectory + "/sample-town.osm"), options: .atomic)
    let geojson = "{\"type\":\"FeatureCollection\",\"features\":[\n" + features.joined(separator: ",\n") + "\n]}\n"
    try Data(geojson.utf8).write(to: URL(fileURLWithPath: outputDirectory + "/places.geojson"), options: .atomic)
    let highwayWays = town.ways.filter { $0.tags.contains { $0.0 == "highway" } }.count
    let report = "sample-town: \(town.nodes.count) nodes, \(town.ways.count) ways (\(highwayWays) highway), "
        + "\(town.relations.count) relations, \(places.count) places → \(outputDirectory)/\n"
    FileHandle.standardError.write(Data(report.utf8))
} catch {
    FileHandle.standardError.write(Data("sample-town: error: \(error)\n".utf8))
    exit(1)
}
