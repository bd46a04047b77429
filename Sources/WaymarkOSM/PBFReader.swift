import CZlib
import Dispatch
import Foundation
import WaymarkGraph
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads an OpenStreetMap PBF file (`.osm.pbf`: the OSM project's `fileformat.proto` and
/// `osmformat.proto`) and hands its elements, in file order, to an ``OSMElementSink`` — the same
/// calls the XML reader makes, so both give the same graph.
///
/// The file is a sequence of blobs, each a 4-byte big-endian length, a `BlobHeader` (type,
/// data size) and a `Blob` (raw or zlib-compressed). The first is an `OSMHeader` (its required
/// features must be ones Waymark reads: `OsmSchema-V0.6`, `DenseNodes`); the rest are `OSMData`
/// primitive blocks: a string table and groups of nodes, dense nodes (delta-coded), ways
/// (delta-coded node refs) or relations. Blobs are read in order on the calling thread, inflated
/// and decoded in batches on all cores, and delivered in order while the next batch decodes.
///
/// Limits, as the format sets them: a blob header under 64 KiB, a blob (compressed or not) under
/// 32 MiB. Anything beyond, truncated, or malformed is an error naming the blob's byte offset;
/// no size read from the file is allocated before it is checked against these limits and the
/// bytes the file has left.
final class PBFReader {
    static let maxHeaderSize = 64 * 1024
    static let maxBlobSize = 32 * 1024 * 1024
    /// Required features Waymark reads; any other (e.g. `HistoricalInformation`) is refused.
    static let supportedFeatures: Set<String> = ["OsmSchema-V0.6", "DenseNodes"]

    let path: String
    let fileSize: Int
    private let descriptor: Int32
    private var offset = 0

    /// Elements delivered so far, by kind.
    private(set) var nodeCount = 0, wayCount = 0, relationCount = 0

    init(path: String) throws(OSMReadError) {
        self.path = path
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw .cannotOpen(path: path, reason: String(cString: strerror(errno))) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw .cannotOpen(path: path, reason: "not a regular file")
        }
        descriptor = fd
        fileSize = Int(info.st_size)
    }

    deinit { close(descriptor) }

    /// One blob as stored: its type and its `Blob` message, not yet inflated.
    struct RawBlob: Sendable {
        var type: String
        var data: [UInt8]
        /// Byte offset of the blob's length prefix in the file.
        var offset: Int
    }

    private func failure(_ message: String, at offset: Int) -> OSMReadError {
        .pbf(path: path, offset: offset, message: message)
    }

    /// Exactly `count` bytes from the current offset, or an error naming what the file lacks.
    private func readBytes(_ count: Int, what: String, blobOffset: Int) throws(OSMReadError) -> [UInt8] {
        guard count <= fileSize - offset else {
            throw failure(
                "truncated: \(what) needs \(count) bytes, the file has \(fileSize - offset) left", at: blobOffset)
        }
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        let fd = descriptor
        let error: Int32? = bytes.withUnsafeMutableBytes { buffer in
            while done < count {
                let n = systemRead(fd, buffer.baseAddress! + done, count - done)
                if n < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                if n == 0 { return 0 }
                done += n
            }
            return nil
        }
        if let error {
            throw error == 0 ? failure("truncated: \(what) ends early", at: blobOffset) : OSMReadError.read(path: path,
                reason: String(cString: strerror(error)))
        }
        offset += count
        return bytes
    }

    /// The next blob, or nil at the end of the file.
    func nextBlob() throws(OSMReadError) -> RawBlob? {
        let start = offset
        guard offset < fileSize else { return nil }
        let prefix = try readBytes(4, what: "the blob header's length", blobOffset: start)
        let headerLength = Int(prefix[0]) << 24 | Int(prefix[1]) << 16 | Int(prefix[2]) << 8 | Int(prefix[3])
        guard headerLength <= PBFReader.maxHeaderSize else {
            throw failure(
                "blob header of \(headerLength) bytes (the format allows 64 KiB); not a PBF file, or a corrupt one",
                at: start)
        }
        let header = try readBytes(headerLength, what: "the blob header", blobOffset: start)
        var type: String?, dataSize: Int?
        do throws(PBFFormatError) {
            try withBytes(header) { bytes throws(PBFFormatError) in
                var reader = ProtobufReader(bytes)
                while let (field, wire) = try reader.field() {
                    switch field {
                    case 1: type = String(decoding: try reader.lengthDelimited(wire: wire), as: UTF8.self)
                    case 3: dataSize = Int(truncatingIfNeeded: Int32(truncatingIfNeeded: try reader.varint(wire: wire)))
                    default: try reader.skip(wire: wire)
                    }
                }
            }
        } catch {
            throw failure("blob header: \(error.message)", at: start)
        }
        guard let type, let dataSize else { throw failure("blob header without its type or data size", at: start) }
        guard dataSize >= 0, dataSize <= PBFReader.maxBlobSize else {
            throw failure("blob of \(dataSize) bytes (the format allows 32 MiB)", at: start)
        }
        let data = try readBytes(dataSize, what: "the \(type) blob", blobOffset: start)
        return RawBlob(type: type, data: data, offset: start)
    }

    /// The blob's content, inflated.
    static func inflate(_ blob: [UInt8]) throws(PBFFormatError) -> [UInt8] {
        try withBytes(blob) { bytes throws(PBFFormatError) in
            var reader = ProtobufReader(bytes)
            var raw: UnsafeRawBufferPointer?, zlib: UnsafeRawBufferPointer?, rawSize: Int?
            while let (field, wire) = try reader.field() {
                switch field {
                case 1: raw = try reader.lengthDelimited(wire: wire)
                case 2: rawSize = Int(truncatingIfNeeded: Int32(truncatingIfNeeded: try reader.varint(wire: wire)))
                case 3: zlib = try reader.lengthDelimited(wire: wire)
                case 4:
                    throw PBFFormatError(
                        "LZMA-compressed blob, which Waymark does not read (re-encode with zlib: osmium cat in.osm.pbf "
                            + "-o out.osm.pbf)"
                    )
                case 5:
                    throw PBFFormatError("bzip2-compressed blob (obsolete in the format), which Waymark does not read")
                case 6:
                    throw PBFFormatError(
                        "LZ4-compressed blob, which Waymark does not read (re-encode with zlib: osmium cat in.osm.pbf "
                            + "-o out.osm.pbf)"
                    )
                case 7:
                    throw PBFFormatError(
                        "ZSTD-compressed blob, which Waymark does not read (re-encode with zlib: osmium cat in.osm.pbf "
                            + "-o out.osm.pbf)"
                    )
                default: try reader.skip(wire: wire)
                }
            }
            if let raw { return Array(raw) }
            guard let zlib else { throw PBFFormatError("blob with no data") }
            guard let rawSize, rawSize >= 0, rawSize <= maxBlobSize else {
                throw PBFFormatError(
                    "zlib blob without a valid raw size (\(rawSize.map(String.init) ?? "none"); the format allows 32 "
                        + "MiB)"
                )
            }
            var output = [UInt8](repeating: 0, count: rawSize)
            var produced = uLongf(rawSize)
            let status = output.withUnsafeMutableBytes { out in
                uncompress(out.baseAddress!.assumingMemoryBound(to: Bytef.self), &produced,
                           zlib.baseAddress?.assumingMemoryBound(to: Bytef.self), uLong(zlib.count))
            }
            switch status {
            case Z_OK where Int(produced) == rawSize: return output
            case Z_OK: throw PBFFormatError("zlib data inflates to \(produced) bytes, the blob says \(rawSize)")
            case Z_BUF_ERROR:
                throw PBFFormatError(
                    "zlib data inflates to more than the blob's raw size (\(rawSize) bytes), or is truncated")
            case Z_DATA_ERROR: throw PBFFormatError("zlib data is corrupt")
            case Z_MEM_ERROR: throw PBFFormatError("out of memory inflating the blob")
            default: throw PBFFormatError("zlib error \(status)")
            }
        }
    }

    /// Checks an `OSMHeader` block's required features.
    static func checkHeader(_ block: [UInt8]) throws(PBFFormatError) {
        try withBytes(block) { bytes throws(PBFFormatError) in
            var reader = ProtobufReader(bytes)
            while let (field, wire) = try reader.field() {
                if field == 4 {
                    let feature = String(decoding: try reader.lengthDelimited(wire: wire), as: UTF8.self)
                    guard supportedFeatures.contains(feature) else {
                        throw PBFFormatError("the file requires the feature \"\(feature)\", which Waymark does not read"
                                             + (feature == "HistoricalInformation" ? " (a history file: use a current "
                                             + "extract)" : "")
                                     )
                    }
                } else {
                    try reader.skip(wire: wire)
                }
            }
        }
    }

    /// Reads the whole file into `sink`, decoding on all cores; `progress` is called after each
    /// batch with (bytes read, file size, elements delivered).
    func read(into sink: OSMElementSink, wantedKeys: Set<String>,
              progress: OSMGraphLoader.Progress? = nil) throws(OSMReadError) {
        guard let first = try nextBlob() else { throw failure("the file is empty", at: 0) }
        guard first.type == "OSMHeader" else {
            throw failure(
                "the first blob is \"\(first.type)\", not the OSMHeader every PBF file starts with", at: first.offset)
        }
        do throws(PBFFormatError) {
            try PBFReader.checkHeader(try PBFReader.inflate(first.data))
        } catch {
            throw failure(error.message, at: first.offset)
        }

        let keys = KeySet(wantedKeys)
        let preparation = sink.blockPreparation
        let batchSize = max(4, 4 * ProcessInfo.processInfo.activeProcessorCount)
        // Two batches decode at a time: while the cores finish one batch's last blobs, the next
        // batch's keep them busy. Batches are delivered in file order. A blob that cannot be
        // read ends the reading, but the blobs before it are still decoded and delivered first:
        // the error reported is the first fault in the file, a damaged blob before a cut or the
        // cut before a damaged blob.
        var inFlight: [DecodeBatch] = []
        // On every way out (an error included), no decoding is left running.
        defer { for batch in inFlight { batch.wait() } }
        var readError: OSMReadError?
        func readAhead() {
            while readError == nil && inFlight.count < 2 {
                var batch: [RawBlob] = []
                do {
                    while batch.count < batchSize, let blob = try nextBlob() {
                        // Unknown blob types are skipped, as the format asks.
                        if blob.type == "OSMData" { batch.append(blob) }
                    }
                } catch {
                    readError = error
                }
                if batch.isEmpty { return }
                inFlight.append(DecodeBatch(batch, keys: keys, preparation: preparation))
            }
        }
        readAhead()
        while !inFlight.isEmpty {
            let batch = inFlight.removeFirst()
            batch.wait()
            readAhead()
            for (i, result) in batch.results.enumerated() {
                switch result {
                case let .failure(error): throw failure(error.message, at: batch.blobs[i].offset)
                case let .success(block): deliver(block, to: sink)
                }
            }
            progress?(offset, fileSize, nodeCount + wayCount + relationCount)
        }
        if let readError { throw readError }
    }

    private func deliver(_ block: PBFBlock, to sink: OSMElementSink) {
        sink.take(block)
        nodeCount += block.nodeIDs.count
        wayCount += block.wayCount
        relationCount += block.relations.count
    }
}

/// `body` on the array's bytes, with its typed error.
private func withBytes<R>(_ array: [UInt8],
                          _ body: (UnsafeRawBufferPointer) throws(PBFFormatError) -> R) throws(PBFFormatError) -> R {
    var failure: PBFFormatError?
    let result: R? = array.withUnsafeBytes { bytes in
        do throws(PBFFormatError) { return try body(bytes) } catch {
            failure = error
            return nil
        }
    }
    if let failure { throw failure }
    return result!
}

@inline(__always)
private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.read(fd, buffer, count)
    #else
    Darwin.read(fd, buffer, count)
    #endif
}

/// A batch of blobs decoding on all cores; ``wait()`` returns once every one is done.
private final class DecodeBatch: @unchecked Sendable {
    let blobs: [PBFReader.RawBlob]
    private let slots: UnsafeMutableBufferPointer<Result<PBFBlock, PBFFormatError>?>
    private let done = DispatchSemaphore(value: 0)
    private var finished = false

    init(_ blobs: [PBFReader.RawBlob], keys: KeySet, preparation: PBFBlock.Preparation?) {
        self.blobs = blobs
        slots = .allocate(capacity: blobs.count)
        slots.initialize(repeating: nil)
        // Shared with the threads below: each writes only its own slot.
        nonisolated(unsafe) let slots = slots
        let done = done
        DispatchQueue.global().async {
            DispatchQueue.concurrentPerform(iterations: blobs.count) { i in
                slots[i] = Result { () throws(PBFFormatError) in
                    var block = try PBFBlock(PBFReader.inflate(blobs[i].data), keys: keys)
                    preparation?(&block)
                    return block
                }
            }
            done.signal()
        }
    }

    func wait() {
        if finished { return }
        done.wait()
        finished = true
    }

    /// The decoded blocks, in order (after ``wait()``).
    var results: [Result<PBFBlock, PBFFormatError>] { slots.map { $0! } }

    deinit {
        wait()
        slots.deinitialize()
        slots.deallocate()
    }
}

/// One `PrimitiveBlock` decoded: its nodes, ways and relations with the wanted tags only.
struct PBFBlock: Sendable {
    struct TaggedNode: Sendable {
        var index: Int
        var tags: [String: String]
        /// What the profile makes of the node, when a preparation has judged it.
        var rule: NodeRule? = nil
    }
    struct Way: Sendable {
        var id: Int64
        var refs: [Int64]
        var tags: [String: String]
        /// What the profile makes of the way (nil: not a road), when a preparation has judged it.
        var rule: WayRule? = nil
        /// Which of the block's distinct tag sets the way has (see ``PBFBlock/wayTagSets``): ways
        /// with the same wanted tags share one number and one dictionary.
        var tagSet: Int32 = 0
    }
    /// Work on a decoded block, done on the decoding thread.
    typealias Preparation = @Sendable (inout PBFBlock) -> Void
    struct Relation: Sendable {
        var id: Int64
        var members: [OSMMember]
        var tags: [String: String]
    }

    /// The ways a preparation keeps, moved out of ``ways`` on the decoding thread (the reader's
    /// thread then takes them as they are, without a step per way).
    var kept = KeptWays()
    /// Whether the node ids ascend within the block (worked out by a preparation).
    var nodesAscend = true

    var nodeIDs: [Int64] = []
    /// Fixed point, 10⁻⁷ degree (as the XML reader gives them).
    var latitudes: [Int32] = []
    var longitudes: [Int32] = []
    /// The nodes that have wanted tags, in order of index.
    var nodeTags: [TaggedNode] = []
    var ways: [Way] = []
    var relations: [Relation] = []
    /// How many distinct tag sets the block's ways have (a street cut at its junctions repeats
    /// its tags): a preparation judges each set once.
    var wayTagSets = 0
    /// How many ways the block holds (also once a preparation has taken them out of ``ways``).
    var wayCount = 0

    /// Decodes a primitive block, keeping only tags whose keys are in `keys`.
    init(_ block: [UInt8], keys: KeySet) throws(PBFFormatError) {
        var decoded = PBFBlock()
        try withBytes(block) { bytes throws(PBFFormatError) in try decoded.decode(bytes, keys: keys) }
        self = decoded
    }

    private init() {}

    private mutating func decode(_ bytes: UnsafeRawBufferPointer, keys: KeySet) throws(PBFFormatError) {
        do {
            var reader = ProtobufReader(bytes)
            var stringTable: UnsafeRawBufferPointer?
            var groups: [UnsafeRawBufferPointer] = []
            var granularity: Int64 = 100, latOffset: Int64 = 0, lonOffset: Int64 = 0
            while let (field, wire) = try reader.field() {
                switch field {
                case 1: stringTable = try reader.lengthDelimited(wire: wire)
                case 2: groups.append(try reader.lengthDelimited(wire: wire))
                case 17: granularity = Int64(Int32(truncatingIfNeeded: try reader.varint(wire: wire)))
                case 19: latOffset = Int64(bitPattern: try reader.varint(wire: wire))
                case 20: lonOffset = Int64(bitPattern: try reader.varint(wire: wire))
                default: try reader.skip(wire: wire)
                }
            }
            guard granularity > 0 else { throw PBFFormatError("granularity \(granularity)") }
            var strings = Strings(keys: keys)
            if let stringTable {
                var table = ProtobufReader(stringTable)
                while let (field, wire) = try table.field() {
                    if field == 1 {
                        strings.bytes.append(try table.lengthDelimited(wire: wire))
                    } else {
                        try table.skip(wire: wire)
                    }
                }
            }
            strings.prepare()
            let coordinates = Coordinates(granularity: granularity, latOffset: latOffset, lonOffset: lonOffset)
            var tagSets = WayTagSets()
            defer { (wayTagSets, wayCount) = (tagSets.count, ways.count) }
            for group in groups {
                var g = ProtobufReader(group)
                while let (field, wire) = try g.field() {
                    switch field {
                    case 1: try decodeNode(try g.lengthDelimited(wire: wire), &strings, coordinates)
                    case 2: try decodeDense(try g.lengthDelimited(wire: wire), &strings, coordinates)
                    case 3: try decodeWay(try g.lengthDelimited(wire: wire), &strings, &tagSets)
                    case 4: try decodeRelation(try g.lengthDelimited(wire: wire), &strings)
                    default: try g.skip(wire: wire) // changesets
                    }
                }
            }
        }
    }

    /// The block's string table, and what the tags need of it: which strings are wanted keys,
    /// and each value or role decoded once.
    private struct Strings {
        let keys: KeySet
        var bytes: [UnsafeRawBufferPointer] = []
        var wantedKey: [String?] = []
        var decoded: [String?] = []

        init(keys: KeySet) { self.keys = keys }

        mutating func prepare() {
            wantedKey = bytes.map { keys.lookup($0.assumingMemoryBound(to: UInt8.self)) }
            decoded = Array(repeating: nil, count: bytes.count)
        }

        @inline(__always)
        func check(_ i: UInt64) throws(PBFFormatError) -> Int {
            guard i < UInt64(bytes.count) else {
                throw PBFFormatError("string index \(i) beyond the block's \(bytes.count) strings")
            }
            return Int(i)
        }

        @inline(__always)
        func key(_ i: UInt64) throws(PBFFormatError) -> String? { wantedKey[try check(i)] }

        mutating func string(_ i: UInt64) throws(PBFFormatError) -> String {
            let k = try check(i)
            return decoded[k] ?? decode(k)
        }

        /// String `k` (in range), decoded and kept for the block's next use of it.
        private mutating func decode(_ k: Int) -> String {
            let s = String(decoding: bytes[k], as: UTF8.self)
            decoded[k] = s
            return s
        }

        /// The wanted tags of parallel key and value index lists, each as `key << 32 | value`
        /// (string indices, all checked), in the lists' order.
        func wantedPairs(keys: [UInt64], values: [UInt64]) throws(PBFFormatError) -> [UInt64] {
            var pairs: [UInt64] = []
            try wantedPairs(keys: keys, values: values, into: &pairs)
            return pairs
        }

        /// The same, written over `pairs` (its storage kept).
        func wantedPairs(keys: [UInt64], values: [UInt64], into pairs: inout [UInt64]) throws(PBFFormatError) {
            guard keys.count == values.count else {
                throw PBFFormatError("\(keys.count) tag keys but \(values.count) values")
            }
            pairs.removeAll(keepingCapacity: true)
            for (k, v) in zip(keys, values) {
                let wanted = try key(k) != nil
                _ = try check(v)
                if wanted { pairs.append(k << 32 | v) } // (a block's string table has far fewer than 2³² strings)
            }
        }

        /// Tags from ``wantedPairs(keys:values:)`` (a later value of a key replaces an earlier one).
        mutating func tags(pairs: [UInt64]) -> [String: String] {
            var tags = [String: String](minimumCapacity: pairs.count)
            for pair in pairs {
                let k = Int(pair >> 32), v = Int(pair & 0xFFFF_FFFF)
                tags[wantedKey[k]!] = decoded[v] ?? decode(v)
            }
            return tags
        }

        /// Tags from parallel key and value index lists.
        mutating func tags(keys: [UInt64], values: [UInt64]) throws(PBFFormatError) -> [String: String] {
            tags(pairs: try wantedPairs(keys: keys, values: values))
        }
    }

    private struct Coordinates {
        var granularity: Int64, latOffset: Int64, lonOffset: Int64

        /// 10⁻⁷ degree from the stored value: nanodegrees = offset + granularity × value, rounded
        /// half away from zero; nil when out of range (or overflowing).
        @inline(__always)
        func fixed(_ value: Int64, offset: Int64, limit: Int64) -> Int32? {
            let (scaled, o1) = granularity.multipliedReportingOverflow(by: value)
            let (nano, o2) = offset.addingReportingOverflow(scaled)
            guard !o1 && !o2 else { return nil }
            var q = nano / 100
            let r = nano % 100
            if r >= 50 { q += 1 } else if r <= -50 { q -= 1 }
            guard q >= -limit && q <= limit else { return nil }
            return Int32(q)
        }

        func latitude(_ value: Int64, node id: Int64) throws(PBFFormatError) -> Int32 {
            guard let v = fixed(value, offset: latOffset, limit: 900_000_000) else {
                throw PBFFormatError("node \(id) has a latitude beyond ±90°")
            }
            return v
        }

        func longitude(_ value: Int64, node id: Int64) throws(PBFFormatError) -> Int32 {
            guard let v = fixed(value, offset: lonOffset, limit: 1_800_000_000) else {
                throw PBFFormatError("node \(id) has a longitude beyond ±180°")
            }
            return v
        }
    }

    private mutating func decodeNode(_ bytes: UnsafeRawBufferPointer,
                                     _ strings: inout Strings, _ c: Coordinates) throws(PBFFormatError) {
        var reader = ProtobufReader(bytes)
        var id: Int64?, lat: Int64?, lon: Int64?
        var keys: [UInt64] = [], values: [UInt64] = []
        while let (field, wire) = try reader.field() {
            switch field {
            case 1: id = ProtobufReader.zigzag(try reader.varint(wire: wire))
            case 2: try reader.repeatedVarints(wire: wire) { keys.append($0) }
            case 3: try reader.repeatedVarints(wire: wire) { values.append($0) }
            case 8: lat = ProtobufReader.zigzag(try reader.varint(wire: wire))
            case 9: lon = ProtobufReader.zigzag(try reader.varint(wire: wire))
            default: try reader.skip(wire: wire)
            }
        }
        guard let id, let lat, let lon else { throw PBFFormatError("a node without its id, latitude or longitude") }
        let tags = try strings.tags(keys: keys, values: values)
        if !tags.isEmpty { nodeTags.append(TaggedNode(index: nodeIDs.count, tags: tags)) }
        nodeIDs.append(id)
        latitudes.append(try c.latitude(lat, node: id))
        longitudes.append(try c.longitude(lon, node: id))
    }

    private mutating func decodeDense(_ bytes: UnsafeRawBufferPointer,
                                      _ strings: inout Strings, _ c: Coordinates) throws(PBFFormatError) {
        var reader = ProtobufReader(bytes)
        let first = nodeIDs.count
        var ids: [Int64] = [], lats: [Int64] = [], lons: [Int64] = []
        var keysValues: UnsafeRawBufferPointer?
        while let (field, wire) = try reader.field() {
            switch field {
            case 1: try reader.repeatedDeltas(wire: wire, into: &ids)
            case 8: try reader.repeatedDeltas(wire: wire, into: &lats)
            case 9: try reader.repeatedDeltas(wire: wire, into: &lons)
            case 10: keysValues = try reader.lengthDelimited(wire: wire)
            default: try reader.skip(wire: wire) // dense info
            }
        }
        guard ids.count == lats.count && ids.count == lons.count else {
            throw PBFFormatError("dense nodes: \(ids.count) ids, \(lats.count) latitudes, \(lons.count) longitudes")
        }
        nodeIDs.append(contentsOf: ids)
        latitudes.reserveCapacity(nodeIDs.count)
        longitudes.reserveCapacity(nodeIDs.count)
        for i in ids.indices {
            latitudes.append(try c.latitude(lats[i], node: ids[i]))
            longitudes.append(try c.longitude(lons[i], node: ids[i]))
        }
        // Keys and values of every node in turn, each node's list ended by a 0.
        guard let keysValues, !keysValues.isEmpty else { return }
        var kv = ProtobufReader(keysValues)
        var node = 0
        var tags: [String: String] = [:]
        while !kv.isAtEnd {
            let k = try kv.varint()
            if k == 0 {
                guard node < ids.count else { throw PBFFormatError("dense nodes: tags for more nodes than there are") }
                if !tags.isEmpty {
                    nodeTags.append(TaggedNode(index: first + node, tags: tags))
                    tags = [:]
                }
                node += 1
                continue
            }
            guard !kv.isAtEnd else { throw PBFFormatError("dense nodes: a tag key without its value") }
            let v = try kv.varint()
            if let key = try strings.key(k) { tags[key] = try strings.string(v) } else { _ = try strings.check(v) }
        }
        guard tags.isEmpty else { throw PBFFormatError("dense nodes: the last node's tags are not ended") }
    }

    /// The distinct wanted tag sets of a block's ways, by their (key, value) string indices.
    private struct WayTagSets {
        var known: [[UInt64]: (number: Int32, tags: [String: String])] = [:]
        var count: Int { known.count }
        /// A way's key and value indices and its wanted pairs, kept from way to way for their
        /// storage.
        var keys: [UInt64] = [], values: [UInt64] = [], pairs: [UInt64] = []
    }

    private mutating func decodeWay(_ bytes: UnsafeRawBufferPointer, _ strings: inout Strings,
                                    _ tagSets: inout WayTagSets) throws(PBFFormatError) {
        var reader = ProtobufReader(bytes)
        var id: Int64?
        var refs: [Int64] = []
        tagSets.keys.removeAll(keepingCapacity: true)
        tagSets.values.removeAll(keepingCapacity: true)
        while let (field, wire) = try reader.field() {
            switch field {
            case 1: id = Int64(bitPattern: try reader.varint(wire: wire))
            case 2: try reader.repeatedVarints(wire: wire) { tagSets.keys.append($0) }
            case 3: try reader.repeatedVarints(wire: wire) { tagSets.values.append($0) }
            case 8: try reader.repeatedDeltas(wire: wire, into: &refs)
            default: try reader.skip(wire: wire) // info; locations on ways
            }
        }
        guard let id else { throw PBFFormatError("a way without its id") }
        // A set of wanted tags seen before in the block shares its dictionary and its number.
        try strings.wantedPairs(keys: tagSets.keys, values: tagSets.values, into: &tagSets.pairs)
        let signature = tagSets.pairs
        if let known = tagSets.known[signature] {
            ways.append(Way(id: id, refs: refs, tags: known.tags, tagSet: known.number))
        } else {
            let tags = strings.tags(pairs: signature)
            let number = Int32(tagSets.count)
            tagSets.known[signature] = (number, tags)
            ways.append(Way(id: id, refs: refs, tags: tags, tagSet: number))
        }
    }

    private mutating func decodeRelation(_ bytes: UnsafeRawBufferPointer,
                                         _ strings: inout Strings) throws(PBFFormatError) {
        var reader = ProtobufReader(bytes)
        var id: Int64?
        var keys: [UInt64] = [], values: [UInt64] = [], roles: [UInt64] = [], refs: [Int64] = [], types: [UInt64] = []
        while let (field, wire) = try reader.field() {
            switch field {
            case 1: id = Int64(bitPattern: try reader.varint(wire: wire))
            case 2: try reader.repeatedVarints(wire: wire) { keys.append($0) }
            case 3: try reader.repeatedVarints(wire: wire) { values.append($0) }
            case 8: try reader.repeatedVarints(wire: wire) { roles.append($0) }
            case 9: try reader.repeatedDeltas(wire: wire, into: &refs)
            case 10: try reader.repeatedVarints(wire: wire) { types.append($0) }
            default: try reader.skip(wire: wire)
            }
        }
        guard let id else { throw PBFFormatError("a relation without its id") }
        guard roles.count == refs.count && refs.count == types.count else {
            throw PBFFormatError("relation \(id): \(refs.count) members, \(roles.count) roles, \(types.count) types")
        }
        var members: [OSMMember] = []
        members.reserveCapacity(refs.count)
        for i in refs.indices {
            guard let kind = OSMMember.Kind(rawValue: UInt8(truncatingIfNeeded: types[i])), types[i] <= 2 else {
                throw PBFFormatError("relation \(id): member type \(types[i])")
            }
            members.append(OSMMember(kind: kind, ref: refs[i], role: try strings.string(roles[i])))
        }
        relations.append(Relation(id: id, members: members, tags: try strings.tags(keys: keys, values: values)))
    }
}
