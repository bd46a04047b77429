import Foundation
import Testing
import WaymarkProfiles
@testable import WaymarkGraph
@testable import WaymarkOSM
import WaymarkSupport

private let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
private let sampleTown = packageRoot.appendingPathComponent("Data/sample-town.osm").path

/// The PBF reader (issue 14): the sample town written as PBF in every shape the format allows
/// builds the very graph its XML does; damaged and unsupported files fail with a one-line reason
/// naming the blob; mutated files never crash it.
@Suite struct PBFTests {
    let directory: TemporaryDirectory

    init() throws { directory = try TemporaryDirectory("waymark-pbf") }

    func write(_ name: String, _ bytes: [UInt8]) throws -> String { try directory.file(name, bytes) }

    /// The sample town's elements as the XML reader delivers them (the tags the profile reads).
    static let townElements: TestElements = {
        let sink = RecordingSink()
        let input = try! GzipInput(path: sampleTown)
        defer { input.close() }
        try! LibXML2Parser.parse(
            input,
            into: OSMElementDecoder(sink: sink, wantedKeys: OSMGraphLoader.wantedKeys(CarProfile(), basemap: false)))
        return sink.elements
    }()

    /// The graph, without what differs by file rather than by data (its size, the time taken).
    func graph(_ path: String) throws -> RoadGraph {
        var graph = try OSMGraphLoader.build(path: path)
        graph.report.inputBytes = 0
        graph.report.buildSeconds = 0
        return graph
    }

    /// A block whose one way names string 99 of a one-string table.
    static let badStringIndexBlock: [UInt8] = {
        var way = ProtoWriter()
        way.int(1, 7)
        way.packed(2, [99])
        way.packed(3, [0])
        var group = ProtoWriter()
        group.bytes(3, way.bytes)
        var block = ProtoWriter()
        block.bytes(1, [0x0A, 0x00])
        block.bytes(2, group.bytes)
        return block.bytes
    }()

    func failure(_ bytes: [UInt8], name: String = "bad.osm.pbf") throws -> String {
        let path = try write(name, bytes)
        do {
            _ = try OSMGraphLoader.build(path: path)
            return "built"
        } catch {
            return error.description.replacingOccurrences(of: path, with: name)
        }
    }

    @Test(arguments: [(true, true, 100), (true, false, 7), (false, true, 1000), (false, false, 1)])
    func sampleTownFromPBFIsTheXMLGraph(dense: Bool, compress: Bool, perBlock: Int) throws {
        let writer = PBFWriter(elementsPerBlock: perBlock, dense: dense, compress: compress)
        let pbf = try write("town-\(dense)-\(compress)-\(perBlock).osm.pbf", writer.file(PBFTests.townElements))
        let fromXML = try graph(sampleTown), fromPBF = try graph(pbf)
        #expect(fromPBF == fromXML)
        #expect(GraphFile.encode(fromPBF) == GraphFile.encode(fromXML))
        #expect(fromPBF.report.osmNodes == 2529 && fromPBF.report.osmWays == 369 && fromPBF.report.osmRelations == 3)
    }

    /// Every element and tag comes through as written, in order, across blocks and batches.
    @Test func elementsComeThroughAsWritten() throws {
        let town = PBFTests.townElements
        let path = try write("town.osm.pbf", PBFWriter(elementsPerBlock: 50).file(town))
        let sink = RecordingSink()
        let reader = try PBFReader(path: path)
        try reader.read(into: sink, wantedKeys: OSMGraphLoader.wantedKeys(CarProfile(), basemap: false))
        let got = sink.elements
        #expect(got.nodes.map(\.id) == town.nodes.map(\.id))
        #expect(got.nodes.map(\.lat) == town.nodes.map(\.lat) && got.nodes.map(\.lon) == town.nodes.map(\.lon))
        #expect(
            got.nodes.map { $0.tags.map { "\($0.0)=\($0.1)" } } == town.nodes.map { $0.tags.map { "\($0.0)=\($0.1)" } })
        #expect(got.ways.map(\.refs) == town.ways.map(\.refs))
        #expect(
            got.ways.map { $0.tags.map { "\($0.0)=\($0.1)" } } == town.ways.map { $0.tags.map { "\($0.0)=\($0.1)" } })
        #expect(
            got.relations.map { $0.members.map { "\($0.0)\($0.1)\($0.2)" } }
                == town.relations.map { $0.members.map { "\($0.0)\($0.1)\($0.2)" } })
        #expect(reader.nodeCount == 2529 && reader.wayCount == 369 && reader.relationCount == 3)
    }

    /// Coordinates stored at another granularity (10 nanodegrees) decode to the same points.
    @Test func granularity() throws {
        let pbf = try write("town-g10.osm.pbf", PBFWriter(granularity: 10).file(PBFTests.townElements))
        #expect(try graph(pbf) == graph(sampleTown))
    }

    /// Packed delta fields (ids, refs, coordinates) are read by a fast path where the field's last
    /// byte ends a value: it gives the values, or the error, a byte-by-byte read gives. Random
    /// fields of short and long varints, overlong and overflowing ones among them (fixed seed).
    @Test func packedDeltasReadAsByteByByte() throws {
        var random = SplitMix64(seed: 14)
        for round in 0..<3000 {
            var field: [UInt8] = []
            for _ in 0..<Int.random(in: 0...12, using: &random) {
                switch Int.random(in: 0..<10, using: &random) {
                case 0:
                    field +=
                        Array(repeating: 0xFF, count: Int.random(in: 9...11, using: &random)) + [
                            UInt8.random(in: 0...3, using: &random)
                        ]
                case 1: field.append(UInt8.random(in: 0x80...0xFF, using: &random)) // a value left open
                default:
                    var value =
                        UInt64.random(in: 0...UInt64.max, using: &random) >> UInt64.random(in: 0...63, using: &random)
                    repeat {
                        field.append(UInt8(value & 0x7F) | (value > 0x7F ? 0x80 : 0))
                        value >>= 7
                    } while value > 0
                }
            }
            // Byte by byte, as every other field is read.
            var expected: Result<[Int64], PBFFormatError> = .success([])
            field.withUnsafeBytes { bytes in
                var reader = ProtobufReader(bytes), running: Int64 = 0, values: [Int64] = []
                do throws(PBFFormatError) {
                    while !reader.isAtEnd {
                        running &+= ProtobufReader.zigzag(try reader.varint())
                        values.append(running)
                    }
                    expected = .success(values)
                } catch {
                    expected = .failure(error)
                }
            }
            var message: [UInt8] = [0x0A]
            var length = UInt64(field.count)
            repeat {
                message.append(UInt8(length & 0x7F) | (length > 0x7F ? 0x80 : 0))
                length >>= 7
            } while length > 0
            message += field
            let got: Result<[Int64], PBFFormatError> = message.withUnsafeBytes { bytes in
                var reader = ProtobufReader(bytes), values: [Int64] = [-1]
                do throws(PBFFormatError) {
                    _ = try reader.field()
                    try reader.repeatedDeltas(wire: 2, into: &values)
                    return .success(Array(values.dropFirst()))
                } catch {
                    return .failure(error)
                }
            }
            switch (expected, got) {
            case let (.success(a), .success(b)): #expect(a == b, "round \(round): \(field)")
            case let (.failure(a), .failure(b)): #expect(a.message == b.message, "round \(round): \(field)")
            default: Issue.record("round \(round): \(field): expected \(expected), got \(got)")
            }
        }
    }

    @Test func damagedAndUnsupportedFiles() throws {
        let town = PBFTests.townElements
        let writer = PBFWriter(elementsPerBlock: 500, compress: false)
        let whole = writer.file(town)
        var header = ProtoWriter()
        header.string(4, "OsmSchema-V0.6")
        let headerBlob = writer.blob("OSMHeader", header.bytes)

        // Cut short, anywhere: in a length prefix, a header, a blob.
        for cut in [whole.count - 1, whole.count / 2, headerBlob.count + 2] {
            #expect(try failure(Array(whole.prefix(cut))).contains("truncated"), "cut at \(cut)")
        }
        // A header length no PBF has is refused before anything is read or allocated.
        #expect(try failure(headerBlob + [0x00, 0x10, 0x00, 0x00] + Array(repeating: 0, count: 16))
            == "bad.osm.pbf: OSM PBF, blob at byte \(headerBlob.count): blob header of 1048576 bytes (the format "
                + "allows 64 KiB); not a PBF file, or a corrupt one"
    )
        // A blob claiming 40 MiB.
        var big = ProtoWriter()
        big.string(1, "OSMData")
        big.uint(3, 40 << 20)
        #expect(
            try failure(headerBlob + [0, 0, 0, UInt8(big.bytes.count)] + big.bytes).contains(
                "blob of 41943040 bytes (the format allows 32 MiB)"))
        // Compressions Waymark does not read.
        for (field, name) in [(4, "LZMA"), (6, "LZ4"), (7, "ZSTD")] {
            var blob = ProtoWriter()
            blob.uint(2, 10)
            blob.bytes(field, [1, 2, 3])
            #expect(
                try failure(headerBlob + PBFWriter.frame("OSMData", blob.bytes)).contains(
                    "\(name)-compressed blob, which Waymark does not read"))
        }
        // A history file; a file that does not start with its header.
        let history = PBFWriter(requiredFeatures: ["OsmSchema-V0.6", "HistoricalInformation"]).file(town)
        #expect(
            try failure(history)
                == "bad.osm.pbf: OSM PBF, blob at byte 0: the file requires the feature \"HistoricalInformation\", "
                    + "which Waymark does not read (a history file: use a current extract)"
        )
        #expect(try failure(writer.blob("OSMData",
                                        writer.wayBlock(town.ways))).contains("is \"OSMData\", not the OSMHeader"))
        // zlib data that is corrupt, or inflates to another size than the blob says.
        var corrupt = ProtoWriter()
        corrupt.uint(2, 100)
        corrupt.bytes(3, [0x78, 0x9C, 0xFF, 0xFF, 0xFF, 0xFF])
        #expect(try failure(headerBlob + PBFWriter.frame("OSMData", corrupt.bytes)).contains("zlib data is corrupt"))
        let compressed = PBFWriter().blob("OSMData", writer.wayBlock(town.ways))
        var lying = compressed
        // The raw size is the Blob's first field, right after the 4-byte prefix and the header.
        let rawSizeAt = 4 + Int(compressed[3]) + 1
        lying[rawSizeAt] ^= 0x01
        #expect(try failure(headerBlob + lying).contains("inflates to"))
        // A string index beyond the block's table; a varint that never ends; a latitude off the globe.
        #expect(try failure(headerBlob + writer.blob("OSMData", PBFTests.badStringIndexBlock))
            == "bad.osm.pbf: OSM PBF, blob at byte \(headerBlob.count): string index 99 beyond the block's 1 strings")
        #expect(
            try failure(headerBlob + writer.blob("OSMData", [0x88, 0x01] + Array(repeating: 0xFF, count: 11))).contains(
                "varint"))
        let offGlobe = TestElements(nodes: [.init(id: 1, lat: 950_000_000, lon: 0, tags: [])])
        #expect(try failure(writer.file(offGlobe)).contains("node 1 has a latitude beyond ±90°"))
        // Dense nodes whose columns disagree.
        var dense = ProtoWriter()
        dense.packedDeltas(1, [1, 2, 3])
        dense.packedDeltas(8, [1, 2])
        dense.packedDeltas(9, [1, 2, 3])
        var denseGroup = ProtoWriter()
        denseGroup.bytes(2, dense.bytes)
        var denseBlock = ProtoWriter()
        denseBlock.bytes(2, denseGroup.bytes)
        #expect(
            try failure(headerBlob + writer.blob("OSMData", denseBlock.bytes)).contains(
                "dense nodes: 3 ids, 2 latitudes, 3 longitudes"))
        // The error names the blob at fault, not the first one.
        let secondBlob = whole.count
        #expect(try failure(whole + [0, 0]).contains("blob at byte \(secondBlob): truncated"))
    }

    /// Blobs are read ahead of the ones decoding, in batches: of two faults the one earlier in
    /// the file is reported, however far apart they are — a damaged blob before a cut reports
    /// the damage, a cut before it the cut.
    @Test func theFirstFaultInTheFileIsReported() throws {
        let writer = PBFWriter(elementsPerBlock: 1, compress: false)
        let nodes = (1...60).map { TestElements.Node(id: Int64($0), lat: 0, lon: Int32($0) * 1000, tags: []) }
        var header = ProtoWriter()
        header.string(4, "OsmSchema-V0.6")
        var blobs =
            [writer.blob("OSMHeader", header.bytes)] + nodes.map { writer.blob("OSMData", writer.nodeBlock([$0])) }
        // Blob 2: a string index beyond its block's table.
        blobs[2] = writer.blob("OSMData", PBFTests.badStringIndexBlock)
        let damagedAt = blobs[0].count + blobs[1].count
        for cutBlob in [1, 2, 3, 4, 6, 9, 13, 17, 20, 25, 33, 40, 49, 58] {
            let whole = blobs.prefix(cutBlob + 1).flatMap { $0 }
            let cut = Array(whole.dropLast(3))
            let message = try failure(cut)
            if cutBlob <= 2 {
                #expect(message.contains("truncated"), "cut in blob \(cutBlob): \(message)")
            } else {
                #expect(message.contains("blob at byte \(damagedAt): string index 99"),
                        "cut in blob \(cutBlob): \(message)")
            }
        }
    }

    /// Property: any byte of an (uncompressed) PBF changed — with a fixed seed, 600 times — builds
    /// or fails with an error, never crashes or hangs.
    @Test func mutatedFilesNeverCrashTheReader() throws {
        let original = PBFWriter(elementsPerBlock: 400, compress: false).file(PBFTests.townElements)
        var rng = SplitMix64(seed: 14)
        var built = 0, refused = 0
        for round in 0..<600 {
            var bytes = original
            let changes = 1 + round % 3
            for _ in 0..<changes {
                bytes[Int(rng.next() % UInt64(bytes.count))] ^= UInt8(1 + rng.next() % 255)
            }
            let path = try write("m.osm.pbf", bytes)
            do {
                _ = try OSMGraphLoader.build(path: path)
                built += 1
            } catch {
                refused += 1
            }
        }
        #expect(built + refused == 600 && refused > 100, "\(built) built, \(refused) refused")
    }
}
