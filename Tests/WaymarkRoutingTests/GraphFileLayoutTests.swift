import Foundation
import Testing
import WaymarkGraph
import WaymarkProfiles
@testable import WaymarkOSM
@testable import WaymarkPreparation
@testable import WaymarkGuidance
@testable import WaymarkRouting

/// The registry of graph-file parts (``GraphFileLayout``) against the files `write` makes: every
/// section written belongs to exactly one part, and a part stored holds all its sections, in the
/// order the part declares them.
@Suite struct GraphFileLayoutTests {
    /// The tags in a file's section table, in file order.
    private func tags(ofFile path: String) throws -> [String] {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let count = Int(bytes[12]) | Int(bytes[13]) << 8 | Int(bytes[14]) << 16 | Int(bytes[15]) << 24
        return (0..<count).map { i in String(decoding: bytes[(32 + 24 * i)..<(36 + 24 * i)], as: UTF8.self) }
    }

    @Test func partsOwnDisjointTags() {
        var owner: [String: String] = [:]
        for part in GraphFileLayout.parts {
            #expect(!part.sectionTags.isEmpty)
            for tag in part.sectionTags + part.olderTags {
                #expect(tag.utf8.count == 4, "\(part.partName): \(tag)")
                #expect(owner[tag] == nil, "\(tag) is both \(owner[tag] ?? "") and \(part.partName)")
                owner[tag] = part.partName
            }
        }
    }

    /// The hierarchies keeping off classes of road follow the map's own, each set's sections in
    /// the hierarchy's order (the sample town has toll roads, motorways and ferries: all seven).
    @Test func exclusionsFollowTheLayout() throws {
        let osm = packageRoot() + "/Data/sample-town.osm"
        let (graph, _) = try OSMGraphLoader.build(path: osm, profile: CarProfile(), basemap: false, progress: nil)
        let map = RoadMap(graph: graph, method: .hierarchy)
        map.prepare()
        #expect(map.prepareExclusions().count == 7)
        let path = NSTemporaryDirectory() + "exclusions-\(UUID().uuidString).wmg"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try map.write(to: path)
        let written = try tags(ofFile: path)
        let owned = written.filter { ExcludedHierarchies.owns($0) }
        #expect(owned == ExcludedHierarchies.sectionTags)
        let first = try #require(written.firstIndex(of: "XSET"))
        #expect(written[first - 1] == ContractionHierarchy.sectionTags.last || TransitionTable.owns(written[first - 1]))
        #expect(try RoadMap(graphFile: path).storedExclusionSets.count == 7)
    }

    @Test(arguments: [false, true])
    func writtenFilesFollowTheLayout(hierarchy: Bool) throws {
        let osm = packageRoot() + "/Data/sample-town.osm"
        let (graph, basemap) = try OSMGraphLoader.build(path: osm, profile: CarProfile(), basemap: true,
                                                        progress: nil)
        let map = RoadMap(graph: graph, method: hierarchy ? .hierarchy : .aStar, basemap: basemap)
        map.prepare()
        let path = NSTemporaryDirectory() + "layout-\(UUID().uuidString).wmg"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try map.write(to: path)
        let written = try tags(ofFile: path)
        #expect(Set(written).count == written.count)
        // Each part's sections together and complete, in the part's order, each part once.
        var runs: [(part: String, tags: [String])] = []
        for tag in written {
            let part = try #require(GraphFileLayout.part(owning: tag), "\(tag) belongs to no part")
            if runs.last?.part == part.partName { runs[runs.count - 1].tags.append(tag) }
            else { runs.append((part.partName, [tag])) }
        }
        for run in runs {
            let part = try #require(GraphFileLayout.parts.first { $0.partName == run.part })
            #expect(run.tags == part.sectionTags, "\(run.part)")
        }
        #expect(Set(runs.map(\.part)).count == runs.count)
        let (_, sections) = try GraphFile.readWithExtras(path: path)
        let stored = GraphFileLayout.storedParts(in: sections)
        // (The dissection goes with a hierarchy, the turn tables without one.)
        let absent = hierarchy ? [StoredTurnTables.partName]
            : [ContractionHierarchy.partName, StoredDissection.partName]
        var expected: [String] = []
        // (The hierarchies keeping off classes only when asked for: ``exclusionsFollowTheLayout``.)
        for part in GraphFileLayout.parts.dropFirst()
        where !absent.contains(part.partName) && part.partName != ExcludedHierarchies.partName {
            expected.append(part.partName)
        }
        #expect(stored == expected)
    }
}
