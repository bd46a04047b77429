import Foundation
import Testing
import WaymarkGeo
@testable import WaymarkGraph
@testable import WaymarkOSM
import WaymarkSupport

private let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
private let sharedOSM = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/data/osm").path

/// The shared extracts present beside the project (none on a fresh clone).
private let sharedExtracts: [String] = {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: sharedOSM)) ?? []
    return names.filter { $0.hasSuffix(".osm.gz") }.sorted()
}()

@Suite struct SampleTownGraphTests {
    let graph = try! OSMGraphLoader.build(path: packageRoot.appendingPathComponent("Data/sample-town.osm").path)

    @Test func exactCounts() {
        let r = graph.report
        #expect(r.osmNodes == 2529 && r.osmWays == 369 && r.osmRelations == 3)
        // 64 highway ways, less 9 a car may not use (footways, steps, cycleway, track, construction,
        // proposed, the pedestrian block and square), plus the ferry. The private Manor Drive is
        // routable for local traffic, as in OSRM.
        #expect(r.routableWays == 56)
        #expect(r.graphNodes == 118 && r.graphEdges == 317 && r.segments == 176)
        // The locked gate on Mill Lane, the bollard on Bell Lane; not the cattle grid, nor the gate
        // on Manor Drive (it opens, at a delay).
        #expect(r.barrierCuts == 2)
        #expect(r.restrictionsRead == 3 && r.restrictionsKept == 3)
        #expect(r.droppedSegmentsMissingNodes == 0 && r.droppedDegenerateSegments == 0)
        // Outside the largest component: Mill Lane beyond the gate (2 vertices) and the M47 stub: each
        // carriageway's two ends and its two slip-road junctions, which this small map can reach or
        // leave but not both (8).
        #expect(r.largestComponentNodes == 108) // and Manor Drive's end
    }

    @Test func featuresCameThrough() throws {
        let names = Set((0..<graph.edgeCount).map { graph.name(of: $0) })
        #expect(names.isSuperset(of: ["High Street", "London Road", "Avel Circus", "Ashby Road",
                                      "Avel Ferry", "Castle Street"]))
        #expect(names.contains("Manor Drive") && !names.contains("Riverside Walk"))
        // Manor Drive: local traffic only, and no waypoint snaps onto it; its gate costs a minute.
        let drive = try #require((0..<graph.edgeCount).first { graph.name(of: $0) == "Manor Drive" })
        #expect(graph.flags(of: drive).contains([.restrictedAccess, .notStartpoint]))
        #expect(graph.edgeDuration[drive] > 60 && graph.edgeWeight[drive] > graph.edgeDuration[drive] - 60)
        let classes = Set((0..<graph.edgeCount).map { graph.highway(of: $0) })
        #expect(classes.isSuperset(of: [.motorway, .motorwayLink, .primary, .secondary, .residential,
                                        .livingStreet, .service, .ferry]))
        // Castle Street (oneway=-1, drawn west to east) is driven westwards only.
        for e in 0..<graph.edgeCount where graph.name(of: e) == "Castle Street" {
            let shape = graph.geometry(of: e)
            #expect(shape.last!.longitude < shape.first!.longitude)
        }
        // The M47 carriageways are one-way; the southbound one has no oneway tag.
        for e in (0..<graph.edgeCount) where graph.ref(of: e) == "M47" {
            #expect(graph.flags(of: e).contains(.oneway))
        }
        // The ferry takes its five minutes.
        let ferry = (0..<graph.edgeCount).filter { graph.flags(of: $0).contains(.ferry) }
        #expect(ferry.count == 2 && ferry.allSatisfy { abs(graph.edgeDuration[$0] - 300) < 1e-3 })
        // 30 mph High Street: 0.8 × 48.28 km/h.
        let high = try #require(
            (0..<graph.edgeCount).first {
                graph.name(of: $0) == "High Street" && !graph.flags(of: $0).contains(.oneway)
            })
        let length: Float = graph.edgeLength[high], duration: Float = graph.edgeDuration[high]
        let kmh = Double(length) / Double(duration) * 3.6
        #expect(abs(kmh - 30 * 1.609344 * 0.8) < 0.5)
    }

    @Test func fileRoundTrip() throws {
        let bytes = GraphFile.encode(graph)
        #expect(try GraphFile.decode(Data(bytes), path: "town.wmg") == graph)
    }
}

/// Every shared extract builds, its graph is sane and survives the file round trip. Skipped (a
/// reported skip) when ../shared/data/osm is absent, as on a fresh clone.
@Suite struct SharedExtractTests {
    @Test(.enabled(if: !sharedExtracts.isEmpty, "the shared extracts (../shared/data/osm) are absent"),
          arguments: sharedExtracts.isEmpty ? ["(none)"] : sharedExtracts)
    func builds(_ name: String) throws {
        let graph = try OSMGraphLoader.build(path: sharedOSM + "/" + name)
        let r = graph.report
        #expect(r.osmNodes > 1000 && r.routableWays > 0 && r.graphNodes > 0 && r.graphEdges > 0, "\(name): \(r.text)")
        #expect(r.largestComponentNodes > 0 && r.largestComponentNodes <= r.graphNodes)
        #expect(try GraphFile.decode(Data(GraphFile.encode(graph)), path: name) == graph)
        // Spot-check geometry: every edge's length is at least the straight line between its ends
        // (lengths are measured on the ellipsoid, as OSRM's; the sphere differs by under 0.5 %).
        for e in stride(from: 0, to: graph.edgeCount, by: max(1, graph.edgeCount / 500)) {
            let straight = graph.coordinate(of: graph.source(of: e)).distance(
                to: graph.coordinate(of: graph.edgeTarget[e]))
            #expect(Double(graph.edgeLength[e]) >= straight * 0.995 - 0.01, "\(name) edge \(e)")
        }
    }
}

/// The shared PBF extracts (Andorra, Malta) give graph files identical to those of the same data
/// as XML (issue 14), but for the input size and time in the build report.
@Suite struct SharedPBFTests {
    static let pbfs: [String] = ((try? FileManager.default.contentsOfDirectory(atPath: sharedOSM)) ?? [])
        .filter {
            $0.hasSuffix(".osm.pbf")
                && FileManager.default.fileExists(
                    atPath: sharedOSM + "/" + $0.replacingOccurrences(of: ".pbf", with: ".gz"))
        }
        .sorted()

    @Test(.enabled(if: !pbfs.isEmpty, "the shared PBF extracts (../shared/data/osm) are absent"),
          arguments: pbfs.isEmpty ? ["(none)"] : pbfs)
    func sameGraphAsXML(_ name: String) throws {
        func graph(_ file: String) throws -> RoadGraph {
            var graph = try OSMGraphLoader.build(path: sharedOSM + "/" + file)
            graph.report.inputBytes = 0
            graph.report.buildSeconds = 0
            return graph
        }
        let fromPBF = try graph(name), fromXML = try graph(name.replacingOccurrences(of: ".pbf", with: ".gz"))
        #expect(fromPBF.report == fromXML.report, "\(name)")
        #expect(GraphFile.encode(fromPBF) == GraphFile.encode(fromXML), "\(name)")
    }
}

/// Property (issue 13): any single-byte change to the sample town's graph file, with the checksum
/// recomputed as a crafted file would have it, loads or fails with an error, never crashes.
/// Fixed seed; 2,000 mutations, some in the header and section table, most in the data.
@Suite struct GraphFileMutationTests {
    @Test func mutatedFilesNeverCrashTheLoader() throws {
        let graph = try OSMGraphLoader.build(path: packageRoot.appendingPathComponent("Data/sample-town.osm").path)
        let original = GraphFile.encode(graph)
        var rng = SplitMix64(seed: 13)
        var loaded = 0, refused = 0
        for round in 0..<2000 {
            var bytes = original
            // A quarter of the mutations hit the header's counts or the section table.
            let tableEnd = 32 + Int(bytes.withUnsafeBytes { GraphFile.get($0, 12) as UInt32 }) * 24
            let position =
                round % 4 == 0
                ? 8 + Int(rng.next() % UInt64(tableEnd - 8)) : 32 + Int(rng.next() % UInt64(bytes.count - 32))
            if (24..<32).contains(position) { continue } // the checksum itself
            bytes[position] ^= UInt8(1 + rng.next() % 255)
            let version: UInt32 = bytes.withUnsafeBytes { GraphFile.get($0, 8) }
            let count: UInt32 = bytes.withUnsafeBytes { GraphFile.get($0, 12) }
            let length: UInt64 = bytes.withUnsafeBytes { GraphFile.get($0, 16) }
            GraphFile.put(GraphFile.checksum(bytes, from: 32) ^ GraphFile.headerChecksum(version: version,
                sections: count, length: length),
                          at: 24, in: &bytes)
            do {
                _ = try GraphFile.decode(Data(bytes), path: "town.wmg")
                loaded += 1
            } catch {
                refused += 1
            }
        }
        #expect(loaded + refused > 1900 && refused > 100, "\(loaded) loaded, \(refused) refused")
    }
}
