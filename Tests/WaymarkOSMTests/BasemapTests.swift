import Foundation
import Testing
import WaymarkProfiles
import WaymarkGeo
@testable import WaymarkGraph
@testable import WaymarkOSM

/// The basemap (`waymark build --basemap`, issue 16): what a map shows besides roads, read from
/// a small hand-written map with every case — areas, lines, multipolygons joined from pieces
/// with a hole, broken rings counted, places — the same from XML and PBF, and checked when read
/// back from a graph file.
@Suite struct BasemapTests {
    let directory: TemporaryDirectory

    init() throws { directory = try TemporaryDirectory("waymark-basemap") }

    /// Nodes on a grid: node n at (52 + row/1000, 13 + column/1000), n = 10·row + column.
    static func node(_ n: Int, _ tags: [String: String] = [:]) -> String {
        let lat = 52 + Double(n / 10) / 1000, lon = 13 + Double(n % 10) / 1000
        let body = tags.sorted { $0.key < $1.key }.map { "<tag k=\"\($0.key)\" v=\"\($0.value)\"/>" }.joined()
        return "<node id=\"\(n + 1)\" lat=\"\(lat)\" lon=\"\(lon)\">\(body)</node>"
    }

    static func way(_ id: Int, _ nodes: [Int], _ tags: [String: String] = [:]) -> String {
        let refs = nodes.map { "<nd ref=\"\($0 + 1)\"/>" }.joined()
        let body = tags.sorted { $0.key < $1.key }.map { "<tag k=\"\($0.key)\" v=\"\($0.value)\"/>" }.joined()
        return "<way id=\"\(id)\">\(refs)\(body)</way>"
    }

    static let xml: String = {
        var nodes = (0..<100).filter { ![80, 81, 82].contains($0) }.map { node($0) }
        nodes += [node(80, ["place": "town", "name": "Avelford"]), node(81, ["place": "locality", "name": "Far Field"]),
                  node(82, ["place": "suburb"])]
        let ways = [
            way(1, [0, 1, 11, 10, 0], ["natural": "water"]),                 // a pond: a closed way
            way(2, [22, 23, 24]), way(3, [24, 44, 42, 22]),                   // a wood's outer ring in two pieces
            way(4, [33, 34, 43, 33]),                                         // its hole
            way(5, [60, 61, 62]),                                             // a park's outer ring that never closes
            way(6, [70, 71, 72], ["natural": "water"]),                      // an area drawn open: broken
            way(7, [5, 6, 7, 8], ["waterway": "river", "name": "Avel"]),     // a river
            way(8, [90, 91, 92], ["railway": "rail"]),                       // a railway
            way(9, [26, 27, 37, 36, 26], ["building": "yes"]),               // a building
            way(10, [46, 47, 57, 46], ["building": "no"]),                   // not a building
            way(11, [0, 9], ["highway": "residential", "name": "Mill Lane"]), // a road, for the graph
        ]
        let relations = """
            <relation id="1"><member type="way" ref="2" role="outer"/><member type="way" ref="3" role="outer"/>\
            <member type="way" ref="4" role="inner"/><member type="way" ref="999" role="outer"/>\
            <tag k="type" v="multipolygon"/><tag k="landuse" v="forest"/></relation>
            <relation id="2"><member type="way" ref="5" role="outer"/><tag k="type" v="multipolygon"/><tag k="leisure" \
            v="park"/></relation>
            <relation id="3"><member type="way" ref="1" role="outer"/><tag k="type" v="route"/><tag k="natural" \
            v="water"/></relation>
            """
        return "<?xml version=\"1.0\"?>\n<osm version=\"0.6\">\n" + (nodes + ways).joined(separator: "\n") + "\n"
            + relations + "\n</osm>\n"
    }()

    func build(_ name: String, _ bytes: [UInt8]) throws -> Basemap {
        try OSMGraphLoader.buildWithBasemap(path: try directory.file(name, bytes)).basemap
    }

    @Test func readsWhatAMapShows() throws {
        let map = try build("town.osm", Array(BasemapTests.xml.utf8))
        #expect(map.kinds == [.water, .river, .railway, .building, .wood])
        // The pond: one closed ring of five points (the first again at the end).
        let pond = map.parts(of: 0)
        #expect(pond.count == 1 && pond[0].count == 5 && pond[0].first == pond[0].last)
        #expect(pond[0][1] == Coordinate(latitude: 52, longitude: 13.001))
        // The wood: its two outer pieces joined into one ring, and its hole.
        let wood = map.parts(of: 4)
        #expect(wood.count == 2 && map.partCount(of: 4) == 2)
        #expect(wood[0].count == 6 && wood[0].first == wood[0].last && wood[1].count == 4)
        #expect(map.parts(of: 1)[0].count == 4 && map.parts(of: 2)[0].count == 3) // lines as drawn
        // Dropped: the park that never closes, the open pond, the wood's missing member way.
        #expect(map.droppedRings == 3)
        #expect(map.places == [Basemap.Place(name: "Avelford", kind: .town,
                                             coordinate: Coordinate(latitude: 52.008, longitude: 13))])
        // Without asking, nothing extra is read, and the graph is the same.
        let path = try directory.file("plain.osm", Array(BasemapTests.xml.utf8))
        var plain = try OSMGraphLoader.build(path: path), with = try OSMGraphLoader.buildWithBasemap(path: path).graph
        plain.report.buildSeconds = 0
        with.report.buildSeconds = 0
        #expect(plain == with)
    }

    /// The same basemap from PBF as from XML (the same collector behind both readers).
    @Test func pbfGivesTheSameBasemap() throws {
        let xml = try directory.file("town.osm", Array(BasemapTests.xml.utf8))
        let sink = RecordingSink()
        let input = try GzipInput(path: xml)
        try LibXML2Parser.parse(
            input,
            into: OSMElementDecoder(sink: sink, wantedKeys: OSMGraphLoader.wantedKeys(CarProfile(), basemap: true)))
        input.close()
        for dense in [true, false] {
            let pbf = try build("town-\(dense).osm.pbf",
                                PBFWriter(elementsPerBlock: 7, dense: dense, compress: true).file(sink.elements))
            #expect(pbf == (try build("again.osm", Array(BasemapTests.xml.utf8))))
        }
    }

    /// Stored in a graph file and read back equal; a damaged section is an error, not a wrong map.
    @Test func storedAndChecked() throws {
        let map = try build("town.osm", Array(BasemapTests.xml.utf8))
        let sections = Dictionary(uniqueKeysWithValues: map.fileSections.map { ($0.tag, $0.bytes) })
        #expect(try Basemap(fileSections: FileSections(sections)) == map)
        #expect(try Basemap(fileSections: [:]) == nil)
        func damaged(_ tag: String, _ change: (inout [UInt8]) -> Void) -> [String: [UInt8]] {
            var copy = sections
            change(&copy[tag]!)
            return copy
        }
        let cases: [(String, [String: [UInt8]])] = [
            ("unknown kind", damaged("BKND") { $0[0] = 99 }),
            ("partial part table", damaged("BPST") { $0.removeLast() }),
            ("part table cut short", damaged("BPST") { $0.removeLast(4) }),
            ("latitude off the globe", damaged("BLAT") { $0.replaceSubrange(0..<4, with: [0xFF, 0xFF, 0xFF, 0x7F]) }),
            ("name not UTF-8", damaged("BPNM") { $0[0] = 0xFF }),
            ("place kind unknown", damaged("BPKD") { $0[0] = 42 }),
            ("other format", damaged("BPRM") { $0 = [Double](arrayLiteral: 2, 0).withUnsafeBytes { Array($0) } }),
            ("section missing", { var copy = sections; copy["BLON"] = nil; return copy }()),
        ]
        for (what, bad) in cases {
            #expect(throws: BasemapFileError.self, "\(what)") { try Basemap(fileSections: FileSections(bad)) }
        }
    }

    /// Rings join end to end, turned round where needed; pieces that never close are counted.
    @Test func ringsFromPieces() {
        let (closed, dropped) = BasemapCollector.rings([[1, 2, 3], [5, 4, 3], [5, 6, 1], [7, 8, 9], [10, 11, 12, 10]])
        #expect(dropped == 1)
        #expect(closed.count == 2 && closed.contains([10, 11, 12, 10]))
        #expect(closed.contains { Set($0) == [1, 2, 3, 4, 5, 6] && $0.count == 7 && $0.first == $0.last })
    }
}

/// The sea from an extract's coastline ways (issue 46): pieces joined in their direction whatever
/// order they come in, the land on their left, closed along the box of the extract's nodes.
@Suite struct SeaTests {
    @Test func piecesJoinInTheirDirection() {
        #expect(BasemapCollector.chains([[3, 4, 5], [1, 2, 3], [5, 6, 1]]) == [[3, 4, 5, 6, 1, 2, 3]])
        #expect(BasemapCollector.chains([[5, 6], [1, 2, 3], [3, 4, 5]]).sorted { $0.count > $1.count }
                == [[1, 2, 3, 4, 5, 6]])
        // Never turned round: two pieces meeting end to end stay two lines.
        #expect(BasemapCollector.chains([[1, 2], [3, 2]]).count == 2)
    }

    @Test func aCoastAcrossTheExtract() throws {
        // Nodes on a 10 × 10 grid; a road along the north; a coastline eastwards in two pieces
        // across the middle (land north), given in the other order.
        let nodes = (0..<100).map { BasemapTests.node($0) }
        let xml = "<?xml version=\"1.0\"?>\n<osm version=\"0.6\">\n" + (nodes + [
            BasemapTests.way(1, [54, 55, 56, 57, 58, 59], ["natural": "coastline"]),
            BasemapTests.way(2, [50, 51, 52, 53, 54], ["natural": "coastline"]),
            BasemapTests.way(3, [90, 99], ["highway": "residential"]),
        ]).joined(separator: "\n") + "\n</osm>\n"
        let directory = try TemporaryDirectory("waymark-sea")
        let path = try directory.file("coast.osm", Array(xml.utf8))
        let basemap = try OSMGraphLoader.buildWithBasemap(path: path).basemap
        let sea = try #require((0..<basemap.featureCount).first { basemap.kinds[$0] == .sea })
        let rings = basemap.parts(of: sea)
        func at(_ row: Double, _ column: Double) -> Coordinate {
            Coordinate(latitude: 52 + row / 1000, longitude: 13 + column / 1000)
        }
        #expect(Coastline.contains(rings, at(2, 4.5)) && !Coastline.contains(rings, at(8, 4.5)))
    }
}
