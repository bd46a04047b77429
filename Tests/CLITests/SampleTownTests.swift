import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
import WaymarkGeo

/// The committed sample town is what the generator writes, and it holds what the car profile needs.
@Suite struct SampleTownTests {
    @Test func committedFilesMatchTheGenerator() throws {
        let dir = try Run.temporaryDirectory()
        let result = try Run.product("sample-town", [dir])
        #expect(result.status == 0, "\(result.stderr)")
        for name in ["sample-town.osm", "places.geojson"] {
            let fresh = try Data(contentsOf: URL(fileURLWithPath: dir + "/" + name))
            let committed = try Data(contentsOf: URL(fileURLWithPath: Run.data(name)))
            #expect(fresh == committed, "Data/\(name) is stale: run `swift run sample-town`")
        }
    }

    @Test func townHasWhatTheCarProfileNeeds() throws {
        let osm = try OSMSnapshot(path: Run.data("sample-town.osm"))
        #expect(osm.nodes.count > 2000 && osm.nodes.count < 5000)
        // Every way's node references resolve.
        for way in osm.ways { for ref in way.refs { #expect(osm.nodes[ref] != nil, "way \(way.id) → node \(ref)") } }

        func ways(_ key: String, _ value: String? = nil) -> [OSMSnapshot.Way] {
            osm.ways.filter { w in w.tags[key].map { value == nil || $0 == value } ?? false }
        }
        func nodes(_ key: String, _ value: String) -> Int { osm.nodes.values.filter { $0.tags[key] == value }.count }
        #expect(Set(ways("highway").compactMap { $0.tags["name"] }).count >= 25, "named streets")
        #expect(!ways("junction", "roundabout").isEmpty)
        #expect(ways("highway", "motorway").count == 2)
        #expect(ways("highway", "motorway_link").count == 4)
        #expect(ways("highway", "motorway").contains { $0.tags["oneway"] == nil }, "a oneway implied by the motorway")
        #expect(!ways("oneway", "yes").isEmpty && !ways("oneway", "-1").isEmpty)
        let speeds = Set(ways("maxspeed").compactMap { $0.tags["maxspeed"] })
        #expect(speeds.isSuperset(of: ["20 mph", "30 mph", "40 mph", "70 mph", "GB:nsl_single"]))
        #expect(!ways("maxspeed:forward").isEmpty && !ways("maxspeed:backward").isEmpty)
        #expect(!ways("access", "private").isEmpty)
        #expect(!ways("service", "parking_aisle").isEmpty)
        #expect(!ways("route", "ferry").isEmpty && !ways("bridge", "yes").isEmpty)
        #expect(!ways("highway", "living_street").isEmpty && !ways("highway", "pedestrian").isEmpty)
        for excluded in ["footway", "cycleway", "track", "steps", "construction", "proposed"] {
            #expect(!ways("highway", excluded).isEmpty, "a \(excluded) for the profile to skip")
        }
        // A gate that opens (Manor Drive), a locked one (Mill Lane), a bollard, a cattle grid.
        #expect(
            nodes("barrier", "gate") == 2 && nodes("barrier", "bollard") == 1 && nodes("barrier", "cattle_grid") == 1)
        #expect(nodes("highway", "traffic_signals") >= 3)

        // Turn restrictions: from and to ways end (or start) at the via node.
        let restrictions = osm.relations.filter { $0.tags["type"] == "restriction" }
        #expect(restrictions.count == 3)
        #expect(restrictions.contains { $0.tags["restriction:motorcar"] != nil })
        #expect(restrictions.contains { $0.tags["restriction"]?.hasPrefix("only_") == true })
        for r in restrictions {
            let from = try #require(r.members.first { $0.role == "from" }),
                to = try #require(r.members.first { $0.role == "to" })
            let via = try #require(r.members.first { $0.role == "via" && $0.type == "node" })
            for member in [from, to] {
                let way = try #require(osm.ways.first { $0.id == member.ref })
                #expect(way.refs.first == via.ref || way.refs.last == via.ref,
                        "relation \(r.id): way \(way.id) does not end at \(via.ref)")
            }
        }
    }

    /// A road end that touches another road must share its node: otherwise the graph has a gap.
    @Test func roadsThatMeetShareANode() throws {
        let osm = try OSMSnapshot(path: Run.data("sample-town.osm"))
        let roads = osm.ways.filter { $0.tags["highway"] != nil && $0.tags["area"] != "yes" }
        for road in roads {
            for end in [road.refs.first!, road.refs.last!] {
                let p = osm.nodes[end]!.coordinate
                for other in roads where other.id != road.id && !other.refs.contains(end) {
                    // Bridges cross over what they do not share a node with.
                    if road.tags["bridge"] != nil || other.tags["bridge"] != nil { continue }
                    for (a, b) in zip(other.refs, other.refs.dropFirst()) {
                        let d = distance(p, toSegment: osm.nodes[a]!.coordinate, osm.nodes[b]!.coordinate)
                        let (name, otherName) = (road.tags["name"] ?? "?", other.tags["name"] ?? "?")
                        #expect(d > 1, """
                            end of way \(road.id) (\(name)) is \(d) m from way \(other.id) (\(otherName)) \
                            without a shared node
                            """)
                    }
                }
            }
        }
    }

    /// Distance in metres from p to segment ab, on a local flat approximation.
    func distance(_ p: Coordinate, toSegment a: Coordinate, _ b: Coordinate) -> Double {
        let k = cos(p.latitude * .pi / 180)
        func xy(_ c: Coordinate) -> (Double, Double) {
            ((c.longitude - p.longitude) * k * 111_195, (c.latitude - p.latitude) * 111_195)
        }
        let (ax, ay) = xy(a), (bx, by) = xy(b)
        let dx = bx - ax, dy = by - ay
        let t = dx == 0 && dy == 0 ? 0 : max(0, min(1, -(ax * dx + ay * dy) / (dx * dx + dy * dy)))
        return hypot(ax + t * dx, ay + t * dy)
    }
}

/// The parts of an OSM XML file these tests look at, read with Foundation's XMLParser
/// (independent of Waymark's own libxml2 reader).
final class OSMSnapshot: NSObject, XMLParserDelegate {
    struct Node { var coordinate: Coordinate; var tags: [String: String] = [:] }
    struct Way { var id: Int64; var refs: [Int64] = []; var tags: [String: String] = [:] }
    struct Member { var type: String; var ref: Int64; var role: String }
    struct Relation { var id: Int64; var members: [Member] = []; var tags: [String: String] = [:] }

    var nodes: [Int64: Node] = [:]
    var ways: [Way] = []
    var relations: [Relation] = []
    private var current: (kind: String, id: Int64)?

    init(path: String) throws {
        super.init()
        let parser = try #require(XMLParser(contentsOf: URL(fileURLWithPath: path)))
        parser.delegate = self
        guard parser.parse() else { throw parser.parserError ?? CocoaError(.fileReadCorruptFile) }
    }

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes a: [String: String] = [:]) {
        let id = Int64(a["id"] ?? "") ?? 0
        switch name {
        case "node":
            nodes[id] = Node(coordinate: Coordinate(latitude: Double(a["lat"]!)!, longitude: Double(a["lon"]!)!))
            current = ("node", id)
        case "way":
            ways.append(Way(id: id))
            current = ("way", id)
        case "relation":
            relations.append(Relation(id: id))
            current = ("relation", id)
        case "nd": ways[ways.count - 1].refs.append(Int64(a["ref"]!)!)
        case "member": relations[relations.count - 1].members.append(Member(type: a["type"]!,
                                                                            ref: Int64(a["ref"]!)!, role: a["role"]!))
        case "tag":
            guard let current, let k = a["k"], let v = a["v"] else { return }
            switch current.kind {
            case "node": nodes[current.id]?.tags[k] = v
            case "way": ways[ways.count - 1].tags[k] = v
            default: relations[relations.count - 1].tags[k] = v
            }
        default: break
        }
    }
}
