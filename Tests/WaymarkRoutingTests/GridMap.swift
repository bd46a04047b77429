import Foundation
import WaymarkGeo
import WaymarkGraph
import WaymarkPreparation
import WaymarkProfiles
import WaymarkOSM
import WaymarkRouting

/// A small OSM map drawn as text, after OSRM's cucumber node maps: every letter is a node and
/// every digit a waypoint only, at its row and column (`spacing` metres apart both ways, north up);
/// ways are strings of node letters with their tags; relations name their ways by those strings.
///
///     a---b---c
///         |
///         d
struct GridMap {
    var picture: String
    /// Node letters in order, and tags (`name`, `highway` = `residential` unless given, …).
    var ways: [(nodes: String, tags: [String: String])]
    /// Restriction relations: from way, via node letter or via ways, to way, and tags.
    var relations: [(from: String, via: [String], to: String, tags: [String: String])] = []
    /// Tags of nodes (barriers, turning circles, signals).
    var nodeTags: [Character: [String: String]] = [:]
    var spacing = 20.0
    /// Name every way after its nodes unless it has a `name` (as OSRM's cucumber tests do).
    var namesFromNodes = false

    /// Position of every letter and digit in the picture.
    var positions: [Character: Coordinate] {
        var result: [Character: Coordinate] = [:]
        for (row, line) in picture.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            for (column, ch) in line.enumerated() where ch.isLetter || ch.isNumber {
                let metresPerDegree = (latitude: 111_195.0, longitude: 111_195 * cos(52 * Double.pi / 180))
                result[ch] = Coordinate(latitude: 52 - Double(row) * spacing / metresPerDegree.latitude,
                                        longitude: 13 + Double(column) * spacing / metresPerDegree.longitude)
            }
        }
        return result
    }

    func nodeID(_ ch: Character) -> Int { Int(ch.asciiValue!) }

    func wayID(_ nodes: String) -> Int {
        guard let i = ways.firstIndex(where: { $0.nodes == nodes }) else {
            fatalError("no way \(nodes) in the grid map")
        }
        return 1000 + i
    }

    var xml: String {
        var lines = ["<?xml version=\"1.0\"?>", "<osm version=\"0.6\">"]
        func tags(_ t: [String: String]) -> String {
            t.sorted { $0.key < $1.key }.map { "<tag k=\"\($0.key)\" v=\"\($0.value)\"/>" }.joined()
        }
        for (ch, c) in positions.sorted(by: { $0.key < $1.key }) where ch.isLetter {
            lines.append(
                "<node id=\"\(nodeID(ch))\" lat=\"\(c.latitude)\" "
                    + "lon=\"\(c.longitude)\">\(tags(nodeTags[ch] ?? [:]))</node>"
            )
        }
        for way in ways {
            let refs = way.nodes.map { "<nd ref=\"\(nodeID($0))\"/>" }.joined()
            let names = namesFromNodes ? ["name": way.nodes] : [:]
            let wayTags = ["highway": "residential"].merging(names) { $1 }.merging(way.tags) { $1 }
            lines.append("<way id=\"\(wayID(way.nodes))\">\(refs)\(tags(wayTags))</way>")
        }
        for (i, r) in relations.enumerated() {
            var members = r.from.split(separator: ",").map {
                "<member type=\"way\" ref=\"\(wayID(String($0)))\" role=\"from\"/>"
            }
            if r.via.count == 1 && r.via[0].count == 1 {
                members.append("<member type=\"node\" ref=\"\(nodeID(r.via[0].first!))\" role=\"via\"/>")
            } else {
                members += r.via.map { "<member type=\"way\" ref=\"\(wayID($0))\" role=\"via\"/>" }
            }
            members += r.to.split(separator: ",").map {
                "<member type=\"way\" ref=\"\(wayID(String($0)))\" role=\"to\"/>"
            }
            let relationTags = ["type": "restriction"].merging(r.tags) { $1 }
            lines.append("<relation id=\"\(i + 1)\">\(members.joined())\(tags(relationTags))</relation>")
        }
        lines.append("</osm>")
        return lines.joined(separator: "\n")
    }

    func graph() throws -> RoadGraph { try OSMGraphLoader.build(xml: xml) }

    /// The graph a profile other than the car's makes of the map.
    func graph(for profile: any RoutingProfile) throws -> RoadGraph {
        try OSMGraphLoader.build(xml: xml, profile: profile)
    }

    /// The names of the ways a route from one letter or digit to another drives (each once where
    /// it continues), "" when there is none; by the map's search method. Waypoints go to the
    /// nearest road, whatever its component (in OSRM's tests every component is tiny).
    func route(_ from: Character, _ to: Character, on map: RoadMap) -> String {
        let places = positions, index = SnapIndex(graph: map.graph)
        guard let a = index.nearest(to: places[from]!, maxDistance: 50, bigComponentsOnly: false),
              let b = index.nearest(to: places[to]!, maxDistance: 50, bigComponentsOnly: false) else { return "?" }
        let path: RoutePath?
        switch map.prepare().search {
        case .hierarchy: path = HierarchySearch(map: map).route(from: a, to: b)
        default: path = RouteSearch(map: map).route(from: a, to: b)
        }
        guard let path else { return "" }
        return names(path, map)
    }

    private func names(_ path: RoutePath, _ map: RoadMap) -> String {
        var names: [String] = []
        for e in path.edges where names.last != map.graph.name(of: e) { names.append(map.graph.name(of: e)) }
        return names.joined(separator: ",")
    }

    /// The route's steps the way OSRM's cucumber tests write them: the step names ("ab,cd,cd") and
    /// the maneuvers ("depart,turn left,arrive"; "roundabout-exit-2"; "roundabout turn left exit-3").
    func directions(_ from: Character, _ to: Character, on map: RoadMap) throws -> (route: String, turns: String) {
        let places = positions
        let route = try map.route(from: places[from]!, to: places[to]!)
        let steps = route.legs.flatMap(\.steps)
        let turns = steps.map { step -> String in
            let m = step.maneuver
            switch m.type {
            case .depart, .arrive: return m.type.rawValue
            case .roundabout, .rotary:
                return "\(step.rotaryName ?? m.type.rawValue)-exit-\(m.exit.map(String.init) ?? "undefined")"
            case .roundaboutTurn:
                return "roundabout turn \(m.modifier?.rawValue ?? "")\(m.exit.map { " exit-\($0)" } ?? "")"
            default: return "\(m.type.rawValue) \(m.modifier?.rawValue ?? "")"
            }
        }
        return (steps.map(\.name).joined(separator: ","), turns.joined(separator: ","))
    }
}
