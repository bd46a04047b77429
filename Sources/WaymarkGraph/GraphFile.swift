import Foundation
import WaymarkGeo
import WaymarkSupport

/// Why a graph file could not be read.
public enum GraphFileError: Error, Sendable, Equatable, CustomStringConvertible {
    case notFound(String)
    case unreadable(String, String)
    case notAGraphFile(String)
    case unsupportedVersion(String, found: UInt32, supported: UInt32)
    case truncated(String, expected: Int, actual: Int)
    case corrupt(String, String)
    /// A graph about to be written that its own loader would refuse (a builder fault, not the input's).
    case unstorable(String, String)

    public var description: String {
        switch self {
        case let .notFound(path): return "\(path): no such file"
        case let .unreadable(path, reason): return "\(path): cannot be read: \(reason)"
        case let .notAGraphFile(path): return "\(path): not a Waymark graph file (build one with 'waymark build')"
        case let .unsupportedVersion(path, found, supported):
            return
                "\(path): graph file version \(found), this waymark reads version \(supported) (rebuild it with "
                    + "'waymark build')"
        case let .truncated(path, expected, actual):
            return "\(path): truncated graph file (\(actual) of \(expected) bytes; rebuild it with 'waymark build')"
        case let .corrupt(path, reason):
            return "\(path): corrupt graph file: \(reason) (rebuild it with 'waymark build')"
        case let .unstorable(path, reason):
            return "cannot write \(path): the graph would not load back: \(reason) (a fault in waymark; "
                + "please report it)"
        }
    }
}

/// The `.wmg` graph file: a little-endian binary image of a ``RoadGraph``.
///
/// ```
/// header (32 bytes)  "WAYMARKG" · version UInt32 · section count UInt32 · file length UInt64 · checksum UInt64
/// section table      count × (tag UInt32 · element size UInt32 · offset UInt64 · byte length UInt64)
/// sections           each array's raw elements, 8-byte aligned
/// ```
/// The checksum covers every byte after the header and the header's version, section count and
/// length (version 1 files: the bytes after the header only). Loading checks magic, version,
/// length, checksum, every section's size against the others, and every value the searches rely
/// on (coordinates in range, finite non-negative lengths, durations and weights, shapes as long
/// as their edges), so a truncated, corrupt, foreign or crafted file is an error, never a crash,
/// a hang or a wrong graph.
public enum GraphFile {
    public static let magic: [UInt8] = Array("WAYMARKG".utf8)
    public static let version: UInt32 = 2
    static let headerSize = 32
    static let tableEntrySize = 24

    // MARK: - Writing

    /// One section to write: a four-character tag and its bytes, copied straight from the values
    /// into the file when it is written (no copy of its own in between).
    public struct Section {
        public let tag: String
        public let byteCount: Int
        fileprivate let append: (inout [UInt8]) -> Void

        /// The section holding `values` as stored in memory (little-endian on every platform we run).
        /// The values' bytes in place, for writing them straight to a file.
        fileprivate let visit: ((UnsafeRawBufferPointer) -> Void) -> Void

        public init<T: BitwiseCopyable>(_ tag: String, _ values: [T]) { self.init(tag, Column(values)) }

        public init<T: BitwiseCopyable>(_ tag: String, _ values: Column<T>) {
            self.tag = tag
            byteCount = values.count * MemoryLayout<T>.stride
            append = { out in values.withUnsafeBufferPointer { out.append(contentsOf: UnsafeRawBufferPointer($0)) } }
            visit = { body in values.withUnsafeBufferPointer { body(UnsafeRawBufferPointer($0)) } }
        }

        /// The same section under another tag.
        public func renamed(_ newTag: String) -> Section {
            Section(tag: newTag, byteCount: byteCount, append: append, visit: visit)
        }

        private init(tag: String, byteCount: Int, append: @escaping (inout [UInt8]) -> Void,
                     visit: @escaping ((UnsafeRawBufferPointer) -> Void) -> Void) {
            self.tag = tag
            self.byteCount = byteCount
            self.append = append
            self.visit = visit
        }

        /// The section's bytes (for reading back in tests and tools).
        public var bytes: [UInt8] {
            var out: [UInt8] = []
            out.reserveCapacity(byteCount)
            append(&out)
            return out
        }
    }

    /// The file's bytes. `extra` sections (four-character tags not used by the graph itself, e.g.
    /// a routing hierarchy) are stored and checksummed with the graph; readers that do not know a
    /// tag skip it. Each section is copied once, into an output reserved at the file's size.
    public static func encode(_ graph: RoadGraph, extra: [Section] = []) -> [UInt8] {
        let sections = self.sections(graph, extra: extra)
        var out = header(sections, checksum: nil)
        out.reserveCapacity(out.count + sections.reduce(0) { $0 + padded($1.byteCount) })
        for section in sections {
            section.append(&out)
            while out.count % 8 != 0 { out.append(0) }
        }
        put(checksum(out, from: headerSize) ^ headerChecksum(version: version, sections: UInt32(sections.count),
                                                             length: UInt64(out.count)),
            at: 24, in: &out)
        return out
    }

    private static func padded(_ n: Int) -> Int { (n + 7) / 8 * 8 }

    /// The header and the section table (padded to 8 bytes), with `checksum` in its place (0 when
    /// nil, to be filled in).
    private static func header(_ sections: [Section], checksum: UInt64?) -> [UInt8] {
        let tableEnd = padded(headerSize + sections.count * tableEntrySize)
        let total = tableEnd + sections.reduce(0) { $0 + padded($1.byteCount) }
        var out = [UInt8](repeating: 0, count: tableEnd)
        out.replaceSubrange(0..<8, with: magic)
        put(version, at: 8, in: &out)
        put(UInt32(sections.count), at: 12, in: &out)
        put(UInt64(total), at: 16, in: &out)
        var offset = tableEnd
        for (i, section) in sections.enumerated() {
            let base = headerSize + i * tableEntrySize
            put(fourCC(section.tag), at: base, in: &out)
            put(UInt64(offset), at: base + 8, in: &out)
            put(UInt64(section.byteCount), at: base + 16, in: &out)
            offset += padded(section.byteCount)
        }
        if let checksum { put(checksum, at: 24, in: &out) }
        return out
    }

    /// The graph's own sections, then `extra`.
    private static func sections(_ graph: RoadGraph, extra: [Section]) -> [Section] {
        var strings: [UInt8] = [], stringOffsets: [UInt32] = [0]
        for s in graph.strings {
            strings.append(contentsOf: s.utf8)
            stringOffsets.append(UInt32(strings.count))
        }
        let sections: [Section] = [
            Section("NLAT", graph.latitudes), Section("NLON", graph.longitudes), Section("NFLG", graph.nodeFlags),
            Section("EFST", graph.firstEdge), Section("ETGT", graph.edgeTarget), Section("ESEG", graph.edgeSegment),
            Section("ELEN", graph.edgeLength), Section("EDUR", graph.edgeDuration), Section("EWGT", graph.edgeWeight),
            Section("IFST", graph.firstIncoming), Section("IEDG", graph.incomingEdge),
            Section("ISRC", graph.incomingSource),
            Section("SSHP", graph.shapeStart), Section("SLAT", graph.shapeLatitudes),
            Section("SLON", graph.shapeLongitudes),
            Section("NOID", graph.vertexNodeIDs), Section("SOID", graph.shapeNodeIDs),
            Section("SNAM", graph.segmentName), Section("SREF", graph.segmentRef),
            Section("SHWY", graph.segmentHighway),
            Section("SFLG", graph.segmentFlags), Section("SWAY", graph.segmentWayID),
            Section("SSGN", graph.segmentSigns), Section("SGNR", graph.signRows), Section("SLAN", graph.segmentLanes),
            Section("STRO", stringOffsets), Section("STRB", strings),
            Section("RVIA", graph.restrictionVia), Section("RFRM", graph.restrictionFrom),
            Section("RTO_", graph.restrictionTo),
            Section("RKND", graph.restrictionKind), Section("RPST", graph.restrictionPathStart),
            Section("RPED", graph.restrictionPathEdges), Section("RPKN", graph.restrictionPathKind),
            Section("REPT", graph.report.fields.map(\.1)),
            Section("DSID", [graph.drivingSide.rawValue]),
            Section("PROF", [graph.travel.rawValue]),
            Section("EDLY", graph.edgeDelay),
            Section("CNAM", Array(graph.datasourceNames.joined(separator: "\n").utf8)),
            Section("CEDG", graph.customEdges), Section("CSTA", graph.customStart),
            Section("CDUR", graph.stretchDuration), Section("CWGT", graph.stretchWeight),
            Section("CSRC", graph.stretchSource),
            Section("TOFR", graph.turnFrom), Section("TOTO", graph.turnTo),
            Section("TODU", graph.turnDuration), Section("TOWT", graph.turnWeight),
        ] + (graph.segmentModes.isEmpty ? [] : [Section("SMOD", graph.segmentModes)]) + extra
        return sections
    }

    /// Sections not made yet when a file is started: `count` of them, as `make` returns them,
    /// made while the sections at hand are written (see ``write(_:to:extra:later:)``).
    public struct LaterSections {
        public var count: Int
        /// Makes the sections. It may hand them to `early` as soon as they are made, from the
        /// first on, in one call or several in order (from any thread, one call at a time; the
        /// sections it returns then start with all of them): the thread writing the file writes
        /// them while it makes the rest.
        public var make: (_ early: @escaping ([Section]) -> Void) -> [Section]

        public init(count: Int, make: @escaping (_ early: @escaping ([Section]) -> Void) -> [Section]) {
            self.count = count
            self.make = make
        }
    }

    /// The later sections handed over early, in order, for the writing thread, and how many of
    /// them it has taken to write. Shared under `condition`.
    private final class EarlySections: @unchecked Sendable {
        var sections: [Section] = []
        var written = 0
        /// Set when `make` has returned: no more will come.
        var finished = false
        let condition = NSCondition()

        func add(_ next: [Section]) {
            condition.withLock {
                sections += next
                condition.signal()
            }
        }

        func finish() {
            condition.withLock {
                finished = true
                condition.signal()
            }
        }

        /// The next sections to write, and how many were handed over before them; nil once
        /// every one is written and no more will come.
        func next() -> (sections: ArraySlice<Section>, before: Int, all: [Section])? {
            condition.withLock {
                while written == sections.count && !finished { condition.wait() }
                guard written < sections.count else { return nil }
                defer { written = sections.count }
                return (sections[written...], written, sections)
            }
        }
    }

    /// Writes the graph atomically (temporary file, fsync, rename), the same bytes as
    /// ``encode(_:extra:)`` but never the whole file in memory: the sections are written from
    /// where they are (a country's file is hundreds of MB), then the header with the checksum.
    ///
    /// `later` sections go last. They are made while the graph's own sections and `extra` are
    /// written, on a thread of their own, to where they will stay in the file: only how many
    /// sections there will be must be known for that. (Made sections that do not number `count`
    /// are still written right, the others then written again.) Where the file cannot be written
    /// out of order (standard output, a FIFO), the later sections are made first.
    public static func write(_ graph: RoadGraph, to path: String, extra: [Section] = [],
                             later: LaterSections? = nil) throws(FileWriteError) {
        let known = sections(graph, extra: extra)
        try AtomicFile.write(to: path) { (sink: inout FileSink) throws(FileWriteError) in
            guard let later, sink.seekable else {
                try writeInOrder(known + (later?.make { _ in } ?? []), to: &sink)
                return
            }
            let planned = known.count + later.count
            let early = EarlySections()
            let sink = sink
            // This thread makes them; the other writes the sections at hand, then each handed
            // over early as it comes.
            let (made, placed) = inParallel({
                defer { early.finish() }
                return later.make { early.add($0) }
            }, { () -> FileWriteError? in
                do throws(FileWriteError) {
                    try place(known, at: offsets(known, among: planned), in: sink)
                    sink.flushWritten()
                    while let (next, before, all) = early.next() {
                        try place(
                            Array(next),
                            at: Array(offsets(known + all, among: planned).dropFirst(known.count + before)),
                            in: sink)
                    }
                    return nil
                } catch {
                    while early.next() != nil {} // until make is done
                    return error
                }
            })
            if let failure = placed { throw failure }
            let all = known + made
            let at = offsets(all, among: all.count)
            // Written already where they belong: the sections at hand, and those handed over
            // early when they are what `make` returned first. Anything else is written now.
            let inPlace = made.count == later.count
            let earlyInPlace = inPlace && made.starts(with: early.sections,
                                                      by: { $0.tag == $1.tag && $0.byteCount == $1.byteCount })
                ? early.sections.count : 0
            if !inPlace { try place(known, at: Array(at.prefix(known.count)), in: sink) }
            try place(Array(made.dropFirst(earlyInPlace)),
                      at: Array(at.dropFirst(known.count + earlyInPlace)), in: sink)
            var table = header(all, checksum: nil)
            put(checksum(table: table, all), at: 24, in: &table)
            try sink.write(table, at: 0)
            try sink.truncate(to: table.count + all.reduce(0) { $0 + padded($1.byteCount) })
        }
    }

    /// The file's checksum (as ``encode(_:extra:)`` puts it in the header) of the header and
    /// table `table` and the sections after it.
    private static func checksum(table: [UInt8], _ sections: [Section]) -> UInt64 {
        let zeros = [UInt8](repeating: 0, count: 8)
        var sum = StreamingChecksum()
        table.withUnsafeBytes { sum.add(UnsafeRawBufferPointer(rebasing: $0[headerSize...])) }
        for section in sections {
            section.visit { sum.add($0) }
            zeros.withUnsafeBytes {
                sum.add(UnsafeRawBufferPointer(rebasing: $0[..<(padded(section.byteCount) - section.byteCount)]))
            }
        }
        let total = UInt64(table.count + sections.reduce(0) { $0 + padded($1.byteCount) })
        return sum.value ^ headerChecksum(version: version, sections: UInt32(sections.count), length: total)
    }

    /// The whole file in order: the header and table, then each section.
    private static func writeInOrder(_ sections: [Section], to sink: inout FileSink) throws(FileWriteError) {
        let zeros = [UInt8](repeating: 0, count: 8)
        var table = header(sections, checksum: nil)
        put(checksum(table: table, sections), at: 24, in: &table)
        try sink.write(table)
        for section in sections {
            var failure: FileWriteError?
            section.visit { raw in
                do throws(FileWriteError) { try sink.write(raw) } catch { failure = error }
            }
            if let failure { throw failure }
            try sink.write(Array(zeros[..<(padded(section.byteCount) - section.byteCount)]))
        }
    }

    /// Where `sections`, the first of a file of `count` sections, start.
    private static func offsets(_ sections: [Section], among count: Int) -> [Int] {
        var offset = padded(headerSize + count * tableEntrySize), starts: [Int] = []
        for section in sections {
            starts.append(offset)
            offset += padded(section.byteCount)
        }
        return starts
    }

    /// Each section written at its offset, with the zeros that pad it to 8 bytes.
    private static func place(_ sections: [Section], at offsets: [Int], in sink: FileSink) throws(FileWriteError) {
        let zeros = [UInt8](repeating: 0, count: 8)
        for (section, offset) in zip(sections, offsets) {
            var failure: FileWriteError?, position = offset
            section.visit { raw in
                guard failure == nil else { return }
                do throws(FileWriteError) { try sink.write(raw, at: position) } catch { failure = error }
                position += raw.count
            }
            if let failure { throw failure }
            try sink.write(Array(zeros[..<(padded(section.byteCount) - section.byteCount)]), at: position)
        }
    }

    /// ``checksum(_:from:)`` over bytes that come in pieces: the same value as over their
    /// concatenation.
    struct StreamingChecksum {
        private static let k: UInt64 = 0x9E37_79B9_7F4A_7C15
        private var lanes: (UInt64, UInt64, UInt64, UInt64) = (1, 2, 3, 4)
        /// Bytes that did not fill a 32-byte block yet.
        private var pending: [UInt8] = []
        private var count = 0

        mutating func add(_ bytes: UnsafeRawBufferPointer) {
            count += bytes.count
            var i = 0
            if !pending.isEmpty {
                let take = min(32 - pending.count, bytes.count)
                pending.append(contentsOf: bytes[0..<take])
                i = take
                guard pending.count == 32 else { return }
                pending.withUnsafeBytes { block($0, at: 0) }
                pending.removeAll(keepingCapacity: true)
            }
            while i + 32 <= bytes.count {
                block(bytes, at: i)
                i += 32
            }
            pending.append(contentsOf: bytes[i...])
        }

        private mutating func block(_ bytes: UnsafeRawBufferPointer, at i: Int) {
            let k = StreamingChecksum.k
            lanes.0 = (lanes.0 ^ bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* k
            lanes.1 = (lanes.1 ^ bytes.loadUnaligned(fromByteOffset: i + 8, as: UInt64.self)) &* k
            lanes.2 = (lanes.2 ^ bytes.loadUnaligned(fromByteOffset: i + 16, as: UInt64.self)) &* k
            lanes.3 = (lanes.3 ^ bytes.loadUnaligned(fromByteOffset: i + 24, as: UInt64.self)) &* k
            lanes.0 ^= lanes.0 >> 29; lanes.1 ^= lanes.1 >> 29; lanes.2 ^= lanes.2 >> 29; lanes.3 ^= lanes.3 >> 29
        }

        var value: UInt64 {
            var h = lanes.0 &+ (lanes.1 &* 3) &+ (lanes.2 &* 5) &+ (lanes.3 &* 7) &+ UInt64(count)
            for byte in pending {
                h = (h ^ UInt64(byte)) &* StreamingChecksum.k
                h ^= h >> 31
            }
            return h
        }
    }

    // MARK: - Reading

    /// Reads and checks a graph file.
    public static func read(path: String) throws(GraphFileError) -> RoadGraph {
        try readWithExtras(path: path).graph
    }

    /// Reads and checks a graph file, and returns its extra sections by tag (checksummed with the
    /// rest; checking their content is up to whoever wrote them). The file is mapped into memory,
    /// not read: the extra sections are used in place (see ``FileSections``).
    public static func readWithExtras(path: String) throws(GraphFileError) -> (graph: RoadGraph, extra: FileSections) {
        let file = try MappedFile(path: path)
        return try decode(file.bytes, owner: file, path: path)
    }

    /// A graph file opened for a map: as ``readWithExtras(path:)``, except that a large file
    /// checked in full by an earlier load (``CheckedFiles``) is not checked again.
    public struct Opened {
        public let graph: RoadGraph
        public let extra: FileSections
        /// Whether an earlier load checked the file in full: the checksum and the graph's checks
        /// were skipped, and the caller skips its checks of the extra sections too.
        public let alreadyChecked: Bool
        fileprivate let identity: String?

        /// Records the file as checked in full; call once every extra section passed its checks.
        public func markChecked() {
            if !alreadyChecked, let identity { CheckedFiles.record(identity) }
        }
    }

    public static func open(path: String, memory: FileMemory = .mapped) throws(GraphFileError) -> Opened {
        let file = try MappedFile(path: path, memory: memory)
        let (graph, extra) = try decode(file.bytes, owner: file, path: path, trusted: file.alreadyChecked)
        return Opened(graph: graph, extra: extra, alreadyChecked: file.alreadyChecked, identity: file.identity)
    }

    /// Decodes and checks a graph file's bytes (`path` is for messages).
    public static func decode(_ data: Data, path: String) throws(GraphFileError) -> RoadGraph {
        try decodeWithExtras(data, path: path).graph
    }

    static func decodeWithExtras(_ data: Data, path: String) throws(GraphFileError) -> (
        graph: RoadGraph, extra: FileSections
    ) {
        let owned = data.withUnsafeBytes { OwnedBytes($0) }
        return try decode(owned.bytes, owner: owned, path: path)
    }

    /// Decodes `bytes`, which `owner` keeps alive (and the extra sections with them).
    static func decode(_ bytes: UnsafeRawBufferPointer, owner: AnyObject, path: String,
                       trusted: Bool = false) throws(GraphFileError) -> (graph: RoadGraph, extra: FileSections) {
        guard bytes.count >= 8, Array(bytes[0..<8]) == magic else {
            if bytes.count < 8, Array(bytes) == Array(magic.prefix(bytes.count)) {
                throw .truncated(path, expected: headerSize, actual: bytes.count)
            }
            throw .notAGraphFile(path)
        }
        guard bytes.count >= headerSize else { throw .truncated(path, expected: headerSize, actual: bytes.count) }
        let found: UInt32 = get(bytes, 8)
        guard found == version || found == 1 else { throw .unsupportedVersion(path, found: found, supported: version) }
        let storedCount: UInt32 = get(bytes, 12), storedLength: UInt64 = get(bytes, 16)
        let sectionCount = Int(storedCount)
        let length = Int(clamping: storedLength)
        guard bytes.count >= length else { throw .truncated(path, expected: length, actual: bytes.count) }
        guard bytes.count == length else { throw .corrupt(path,
                                                          "\(bytes.count - length) unexpected bytes after the end") }
        let header = found == 1 ? 0 : headerChecksum(version: found, sections: storedCount, length: storedLength)
        // A file checked in full by an earlier load (``CheckedFiles``): neither summed nor checked.
        if trusted { return try decodeSections(bytes, owner: owner, count: sectionCount,
                                               path: path, validating: false) }
        // The checksum is summed on one core while the sections are decoded and checked on the
        // other (checking is safe on any bytes); a mismatch is the error to report, whatever the
        // checks found.
        let (intact, decoded) = inParallel({ checksum(bytes, from: headerSize) ^ header == get(bytes, 24) }, {
            Result { () throws(GraphFileError) in try decodeSections(bytes, owner: owner,
                                                                     count: sectionCount, path: path) }
        })
        guard intact else { throw .corrupt(path, "checksum mismatch") }
        return try decoded.get()
    }

    /// The graph and the extra sections of a file whose header was read, checked.
    private static func decodeSections(_ bytes: UnsafeRawBufferPointer, owner: AnyObject,
                                       count sectionCount: Int, path: String,
                                       validating: Bool = true
                                   ) throws(GraphFileError) -> (graph: RoadGraph, extra: FileSections) {
        let sections = try sectionTable(bytes, count: sectionCount, path: path)
        let g = try graph(in: sections, owner: owner, path: path)
        if validating { try validate(g, path: path) }
        var extra = FileSections()
        for (tag, raw) in sections where !RoadGraph.owns(name(tag)) { extra.set(name(tag), raw, owner: owner) }
        return (g, extra)
    }

    /// Each section's bytes by tag, every one inside the file.
    private static func sectionTable(_ bytes: UnsafeRawBufferPointer, count sectionCount: Int, path: String
    ) throws(GraphFileError) -> [UInt32: UnsafeRawBufferPointer] {
        let length = bytes.count
        guard headerSize + sectionCount * tableEntrySize <= length else { throw .corrupt(path,
            "section table out of bounds") }
        var sections: [UInt32: UnsafeRawBufferPointer] = [:]
        for i in 0..<sectionCount {
            let base = headerSize + i * tableEntrySize
            let tag: UInt32 = get(bytes, base)
            let offset = Int(clamping: get(bytes, base + 8) as UInt64),
                size = Int(clamping: get(bytes, base + 16) as UInt64)
            guard offset >= 0, size >= 0, offset <= length, size <= length - offset else {
                throw .corrupt(path, "section \(name(tag)) out of bounds")
            }
            sections[tag] = UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + size)])
        }
        return sections
    }

    /// The graph's own sections read in place (not yet validated); what older files lack, made.
    private static func graph(in sections: [UInt32: UnsafeRawBufferPointer], owner: AnyObject,
                              path: String) throws(GraphFileError) -> RoadGraph {
        func array<T: BitwiseCopyable>(_ tag: String, _: T.Type) throws(GraphFileError) -> Column<T> {
            guard let raw = sections[fourCC(tag)] else { throw .corrupt(path, "section \(tag) missing") }
            guard let values = Column<T>(raw: raw, owner: owner) else { throw .corrupt(path,
                "section \(tag) has a partial element") }
            return values
        }

        var g = RoadGraph()
        g.latitudes = try array("NLAT", Int32.self)
        g.longitudes = try array("NLON", Int32.self)
        g.nodeFlags = try array("NFLG", UInt8.self)
        g.firstEdge = try array("EFST", UInt32.self)
        g.edgeTarget = try array("ETGT", UInt32.self)
        g.edgeSegment = try array("ESEG", UInt32.self)
        g.edgeLength = try array("ELEN", Float.self)
        g.edgeDuration = try array("EDUR", Float.self)
        // Files written before weights were stored route by travel time alone.
        g.edgeWeight = sections[fourCC("EWGT")] != nil ? try array("EWGT", Float.self) : g.edgeDuration
        g.firstIncoming = try array("IFST", UInt32.self)
        g.incomingEdge = try array("IEDG", UInt32.self)
        g.incomingSource = try array("ISRC", UInt32.self)
        g.shapeStart = try array("SSHP", UInt32.self)
        g.shapeLatitudes = try array("SLAT", Int32.self)
        g.shapeLongitudes = try array("SLON", Int32.self)
        // Files written before node ids were kept have none.
        if sections[fourCC("NOID")] != nil {
            g.vertexNodeIDs = try array("NOID", Int64.self)
            g.shapeNodeIDs = try array("SOID", Int64.self)
        }
        g.segmentName = try array("SNAM", UInt32.self)
        g.segmentRef = try array("SREF", UInt32.self)
        g.segmentHighway = try array("SHWY", UInt8.self)
        g.segmentFlags = try array("SFLG", UInt8.self)
        g.segmentWayID = try array("SWAY", Int64.self)
        // Files written before signs and lanes were kept have none.
        if sections[fourCC("SSGN")] != nil {
            g.segmentSigns = try array("SSGN", UInt32.self)
            g.signRows = try array("SGNR", UInt32.self)
        } else {
            g.segmentSigns = Column([UInt32](repeating: 0, count: g.segmentName.count))
        }
        // Files written before lane counts were kept know none.
        g.segmentLanes = sections[fourCC("SLAN")] != nil ? try array("SLAN", UInt8.self) : Column([UInt8](repeating: 0,
            count: g.segmentName.count))
        // Only maps with a segment travelled otherwise than its ferry flag says have modes.
        if sections[fourCC("SMOD")] != nil { g.segmentModes = try array("SMOD", UInt8.self) }
        let stringOffsets = try array("STRO", UInt32.self)
        let stringBytes = try array("STRB", UInt8.self)
        g.restrictionVia = try array("RVIA", UInt32.self)
        g.restrictionFrom = try array("RFRM", UInt32.self)
        g.restrictionTo = try array("RTO_", UInt32.self)
        g.restrictionKind = try array("RKND", UInt8.self)
        // Files written before restrictions over via ways were kept have none.
        if sections[fourCC("RPST")] != nil {
            g.restrictionPathStart = try array("RPST", UInt32.self)
            g.restrictionPathEdges = try array("RPED", UInt32.self)
            g.restrictionPathKind = try array("RPKN", UInt8.self)
        }
        guard let report = BuildReport(fields: try array("REPT", Double.self).array) else { throw .corrupt(path,
            "build report values out of range") }
        g.report = report
        // Files written before the driving side was recorded are right-hand traffic.
        if sections[fourCC("DSID")] != nil {
            let side = try array("DSID", UInt8.self)
            guard side.count == 1, let value = DrivingSide(rawValue: side[0]) else {
                throw .corrupt(path, "driving side")
            }
            g.drivingSide = value
        }
        // Files written before the profile was recorded are car maps.
        if sections[fourCC("PROF")] != nil {
            let travel = try array("PROF", UInt8.self)
            guard travel.count == 1, let value = TravelProfile(rawValue: travel[0]) else {
                throw .corrupt(path, "profile")
            }
            g.travel = value
        }

        // Files written before delays and customized speeds were kept have none.
        if sections[fourCC("EDLY")] != nil { g.edgeDelay = try array("EDLY", Float.self) }
        if sections[fourCC("CNAM")] != nil {
            let names = try array("CNAM", UInt8.self)
            g.datasourceNames = names.isEmpty ? [] : String(decoding: Array(names), as: UTF8.self)
                .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            g.customEdges = try array("CEDG", UInt32.self)
            g.customStart = try array("CSTA", UInt32.self)
            g.stretchDuration = try array("CDUR", Float.self)
            g.stretchWeight = try array("CWGT", Float.self)
            g.stretchSource = try array("CSRC", UInt8.self)
            g.turnFrom = try array("TOFR", UInt32.self)
            g.turnTo = try array("TOTO", UInt32.self)
            g.turnDuration = try array("TODU", Float.self)
            g.turnWeight = try array("TOWT", Float.self)
        }

        guard stringOffsets.first == 0, zip(stringOffsets, stringOffsets.dropFirst()).allSatisfy({ $0 <= $1 }),
              Int(stringOffsets.last ?? 0) == stringBytes.count
        else { throw .corrupt(path, "string table") }
        g.strings = zip(stringOffsets, stringOffsets.dropFirst()).map {
            String(decoding: stringBytes[Int($0)..<Int($1)], as: UTF8.self)
        }
        return g
    }

    /// Whether `graph` would load back from a file: the loader's own checks, before writing, so
    /// that no file is written that reading then refuses.
    public static func checkStorable(_ graph: RoadGraph, path: String) throws(GraphFileError) {
        do { try validate(graph, path: path) } catch {
            guard case let .corrupt(_, reason) = error else { throw error }
            throw .unstorable(path, reason)
        }
    }

    /// Checks that every array agrees with the others and every index is in range, so code that
    /// trusts the graph cannot index out of bounds.
    static func validate(_ g: RoadGraph, path: String) throws(GraphFileError) {
        let check = Validation(g: g, path: path)
        try check.rows()
        try check.mirror()
        try check.segments()
        try check.restrictions()
        try check.restrictedPaths()
        try check.values()
        try check.shapes()
        try check.customized()
    }

    /// The header's version, section count and length, mixed into the checksum (so editing them
    /// is caught like any other damage).
    static func headerChecksum(version: UInt32, sections: UInt32, length: UInt64) -> UInt64 {
        var x = UInt64(version) << 32 | UInt64(sections)
        x ^= length &* 0x9E37_79B9_7F4A_7C15
        x = (x ^ (x >> 30)) &* 0xBF58_476D_1CE4_E5B9
        x = (x ^ (x >> 27)) &* 0x94D0_49BB_1331_11EB
        return x ^ (x >> 31)
    }

    /// `bytes` with the header's length and checksum made to match the rest, so that damage or a
    /// crafted edit reaches validation instead of stopping at the checksum: for fuzzing and
    /// tests, which check that such files still fail cleanly. Shorter than a header: unchanged.
    public static func sealed(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.count >= headerSize else { return bytes }
        var out = bytes
        put(UInt64(out.count), at: 16, in: &out)
        let (version, sections): (UInt32, UInt32) = out.withUnsafeBytes { (get($0, 8), get($0, 12)) }
        put(checksum(out, from: headerSize) ^ headerChecksum(version: version, sections: sections,
                                                             length: UInt64(out.count)), at: 24, in: &out)
        return out
    }

    // MARK: - Bytes

    /// Section bytes as values of their own (the source need not be aligned); nil when they are
    /// not a whole number of values.
    static func values<T: BitwiseCopyable>(_ raw: UnsafeRawBufferPointer, as _: T.Type) -> [T]? {
        guard raw.count % MemoryLayout<T>.stride == 0 else { return nil }
        let count = raw.count / MemoryLayout<T>.stride
        return [T](unsafeUninitializedCapacity: count) { buffer, initialized in
            if count > 0 { UnsafeMutableRawBufferPointer(buffer).copyMemory(from: raw) }
            initialized = count
        }
    }

    static func fourCC(_ tag: String) -> UInt32 {
        tag.utf8.prefix(4).enumerated().reduce(0) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
    }

    static func name(_ tag: UInt32) -> String {
        String(decoding: (0..<4).map { UInt8(truncatingIfNeeded: tag >> (8 * $0)) }, as: UTF8.self)
    }

    static func put<T: FixedWidthInteger>(_ value: T, at offset: Int, in bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes.replaceSubrange(offset..<(offset + $0.count), with: $0) }
    }

    static func get<T: FixedWidthInteger>(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> T {
        T(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: T.self))
    }

    /// A fast 64-bit checksum over `bytes[start...]`: four interleaved multiply-xorshift lanes over
    /// 8-byte words, then the tail. Catches truncation, bit flips and overwritten ranges; not a
    /// cryptographic hash.
    static func checksum(_ bytes: UnsafeRawBufferPointer, from start: Int) -> UInt64 {
        let k: UInt64 = 0x9E37_79B9_7F4A_7C15
        var lanes: (UInt64, UInt64, UInt64, UInt64) = (1, 2, 3, 4)
        var i = start
        let end = bytes.count
        while i + 32 <= end {
            lanes.0 = (lanes.0 ^ bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* k
            lanes.1 = (lanes.1 ^ bytes.loadUnaligned(fromByteOffset: i + 8, as: UInt64.self)) &* k
            lanes.2 = (lanes.2 ^ bytes.loadUnaligned(fromByteOffset: i + 16, as: UInt64.self)) &* k
            lanes.3 = (lanes.3 ^ bytes.loadUnaligned(fromByteOffset: i + 24, as: UInt64.self)) &* k
            lanes.0 ^= lanes.0 >> 29; lanes.1 ^= lanes.1 >> 29; lanes.2 ^= lanes.2 >> 29; lanes.3 ^= lanes.3 >> 29
            i += 32
        }
        var h = lanes.0 &+ (lanes.1 &* 3) &+ (lanes.2 &* 5) &+ (lanes.3 &* 7) &+ UInt64(end - start)
        while i < end {
            h = (h ^ UInt64(bytes[i])) &* k
            h ^= h >> 31
            i += 1
        }
        return h
    }

    static func checksum(_ bytes: [UInt8], from start: Int) -> UInt64 {
        bytes.withUnsafeBytes { checksum($0, from: start) }
    }
}

/// ``GraphFile/validate(_:path:)``'s checks, part by part.
private struct Validation {
    let g: RoadGraph
    let path: String
    /// Vertices, directed edges, segments.
    let n: Int, m: Int, s: Int

    init(g: RoadGraph, path: String) {
        (self.g, self.path) = (g, path)
        (n, m, s) = (g.latitudes.count, g.edgeTarget.count, g.segmentName.count)
    }

    func check(_ ok: Bool, _ what: String) throws(GraphFileError) { if !ok { throw .corrupt(path, what) } }

    /// Vertex and edge arrays of one length each; forward and reverse rows monotonic and in range.
    func rows() throws(GraphFileError) {
        try check(g.longitudes.count == n && g.nodeFlags.count == n, "vertex arrays differ in length")
        try check(g.firstEdge.count == n + 1 && g.firstEdge.first == 0 && Int(g.firstEdge.last!) == m, "edge rows")
        try check(zip(g.firstEdge, g.firstEdge.dropFirst()).allSatisfy { $0 <= $1 }, "edge rows not monotonic")
        try check(g.edgeSegment.count == m && g.edgeLength.count == m && g.edgeDuration.count == m
                  && g.edgeWeight.count == m, "edge arrays differ in length")
        try check(g.edgeTarget.allSatisfy { Int($0) < n }, "edge target out of range")
        try check(g.edgeSegment.allSatisfy { Int($0 >> 1) < s }, "edge segment out of range")
        try check(
            g.firstIncoming.count == n + 1 && g.firstIncoming.first == 0 && Int(g.firstIncoming.last!) == m,
            "incoming rows")
        try check(zip(g.firstIncoming, g.firstIncoming.dropFirst()).allSatisfy { $0 <= $1 },
                  "incoming rows not monotonic")
        try check(g.incomingEdge.count == m && g.incomingSource.count == m, "incoming arrays differ in length")
        try check(g.incomingEdge.allSatisfy { Int($0) < m } && g.incomingSource.allSatisfy { Int($0) < n },
                  "incoming index out of range")
    }

    /// The reverse rows mirror the forward rows.
    func mirror() throws(GraphFileError) {
        // The reverse rows mirror the forward rows: every edge once, at its target, with its source
        // (the searches step between the two; a mismatch found by fuzzing indexed out of range).
        var listed = [Bool](repeating: false, count: m)
        var sourceOf = [UInt32](repeating: 0, count: m)
        for v in 0..<n { for e in g.edges(from: UInt32(v)) { sourceOf[e] = UInt32(v) } }
        for v in 0..<n {
            for slot in g.incoming(to: UInt32(v)) {
                let e = Int(g.incomingEdge[slot])
                guard !listed[e], Int(g.edgeTarget[e]) == v, g.incomingSource[slot] == sourceOf[e] else {
                    throw .corrupt(path, "incoming rows do not mirror the edges (slot \(slot))")
                }
                listed[e] = true
            }
        }
    }

    /// Segments' shapes, names, refs and sign rows in range.
    func segments() throws(GraphFileError) {
        try check(
            g.shapeStart.count == s + 1 && g.shapeStart.first == 0 && Int(g.shapeStart.last!) == g.shapeLatitudes.count
                  && g.shapeLongitudes.count == g.shapeLatitudes.count, "segment shapes")
        try check(g.vertexNodeIDs.isEmpty && g.shapeNodeIDs.isEmpty
                  || g.vertexNodeIDs.count == g.nodeCount && g.shapeNodeIDs.count == g.shapeLatitudes.count,
                  "node ids")
        try check(zip(g.shapeStart, g.shapeStart.dropFirst()).allSatisfy { $0 <= $1 }, "segment shapes not monotonic")
        try check(
            g.segmentRef.count == s && g.segmentHighway.count == s && g.segmentFlags.count == s
                && g.segmentWayID.count == s
                  && g.segmentLanes.count == s && (g.segmentModes.isEmpty || g.segmentModes.count == s),
                  "segment arrays differ in length")
        let modes = UInt8(WayMode.allCases.count)
        try check(g.segmentModes.allSatisfy { $0 & 0xF < modes && $0 >> 4 < modes }, "unknown travel mode")
        try check(
            g.segmentName.allSatisfy { Int($0) < g.strings.count }
                && g.segmentRef.allSatisfy { Int($0) < g.strings.count },
                  "string index out of range")
        try check(g.segmentSigns.count == s && g.signRows.count % 5 == 0 && g.signRows.count >= 5
                  && g.signRows[0..<5].allSatisfy { $0 == 0 }, "sign rows")
        try check(
            g.segmentSigns.allSatisfy { Int($0) < g.signRows.count / 5 }
                && g.signRows.allSatisfy { Int($0) < g.strings.count },
                  "sign index out of range")
    }

    /// Restrictions at a via node: arrays of one length, indices in range, known kinds.
    func restrictions() throws(GraphFileError) {
        let r = g.restrictionVia.count
        try check(
            g.restrictionFrom.count == r && g.restrictionTo.count == r && g.restrictionKind.count == r,
            "restriction arrays")
        try check(g.restrictionVia.allSatisfy { Int($0) < n } && g.restrictionFrom.allSatisfy { Int($0) < s }
                  && g.restrictionTo.allSatisfy { Int($0) < s }, "restriction index out of range")
        try check(g.restrictionKind.allSatisfy { RestrictionKind(rawValue: $0) != nil }, "unknown restriction kind")
    }

    /// Restrictions over via ways.
    func restrictedPaths() throws(GraphFileError) {
        // Restricted paths: rows, at least from, via and to, edges in range and joined end to end,
        // the from edge's target flagged for the searches.
        let paths = g.restrictionPathKind.count
        try check(g.restrictionPathStart.count == paths + 1 && g.restrictionPathStart.first == 0
                  && Int(g.restrictionPathStart.last!) == g.restrictionPathEdges.count, "restricted path rows")
        try check(zip(g.restrictionPathStart, g.restrictionPathStart.dropFirst()).allSatisfy { $0 + 3 <= $1 },
                  "restricted path shorter than three edges")
        try check(g.restrictionPathEdges.allSatisfy { Int($0) < m }, "restricted path edge out of range")
        try check(g.restrictionPathKind.allSatisfy { RestrictionKind(rawValue: $0) != nil },
                  "unknown restricted path kind")
        for p in 0..<paths {
            let edges = g.restrictionPath(p)
            for (a, b) in zip(edges, edges.dropFirst()) where g.source(of: Int(b)) != g.edgeTarget[Int(a)] {
                throw .corrupt(path, "restricted path \(p) is not joined")
            }
            try check(g.nodeFlags[Int(g.edgeTarget[Int(edges.first!)])] & RoadGraph.restrictionViaFlag != 0,
                      "restricted path \(p) not flagged")
        }
    }

    /// Coordinates on the globe; lengths, times and weights sane.
    func values() throws(GraphFileError) {
        // Values the searches rely on: coordinates on the globe; lengths, times and weights finite,
        // not negative and below a day's drive per edge.
        func onGlobe(_ lat: Int32, _ lon: Int32) -> Bool { abs(Int(lat)) <= 900_000_000
            && abs(Int(lon)) <= 1_800_000_000 }
        try check(zip(g.latitudes, g.longitudes).allSatisfy(onGlobe), "vertex coordinate out of range")
        try check(zip(g.shapeLatitudes, g.shapeLongitudes).allSatisfy(onGlobe), "shape coordinate out of range")
        for values in [g.edgeLength, g.edgeDuration, g.edgeWeight] {
            try check(values.allSatisfy(RoadGraph.isStorable),
                      "edge length, duration or weight not finite, negative or absurd")
        }
    }

    /// Speeds and turns from files: rows that fit their edges, sources named, values sane, turns
    /// sorted, joined and flagged at their via vertex.
    func customized() throws(GraphFileError) {
        try check(g.edgeDelay.isEmpty || g.edgeDelay.count == m && g.edgeDelay.allSatisfy(RoadGraph.isStorable),
                  "edge delays")
        let rows = g.customEdges.count, stretches = g.stretchDuration.count
        try check(g.customStart.count == rows + 1 && g.customStart.first == 0 && Int(g.customStart.last!) == stretches
                  && g.stretchWeight.count == stretches && g.stretchSource.count == stretches, "custom speed rows")
        try check(zip(g.customEdges, g.customEdges.dropFirst()).allSatisfy { $0 < $1 }
                  && g.customEdges.allSatisfy { Int($0) < m }, "custom speed edges")
        for i in 0..<rows where Int(g.customStart[i + 1]) - Int(g.customStart[i])
            != g.interiorPointCount(of: Int(g.customEdges[i])) + 1 {
            throw .corrupt(path, "custom speed row \(i) does not fit its edge")
        }
        try check(g.stretchDuration.allSatisfy(RoadGraph.isStorable)
                  && g.stretchWeight.allSatisfy(RoadGraph.isStorable), "custom stretch duration or weight")
        try check(g.stretchSource.allSatisfy { Int($0) < g.datasourceNames.count }
                  && g.datasourceNames.allSatisfy { !$0.isEmpty }, "custom speed sources")
        let turns = g.turnFrom.count
        try check(g.turnTo.count == turns && g.turnDuration.count == turns && g.turnWeight.count == turns,
                  "custom turn arrays")
        try check(g.turnDuration.allSatisfy(RoadGraph.isStorable) && g.turnWeight.allSatisfy(RoadGraph.isStorable),
                  "custom turn duration or weight")
        for t in 0..<turns {
            let e = Int(g.turnFrom[t]), f = Int(g.turnTo[t])
            try check(e < m && f < m, "custom turn edge out of range")
            let v = g.edgeTarget[e]
            try check(g.edges(from: v).contains(f) && g.nodeFlags[Int(v)] & RoadGraph.customTurnFlag != 0,
                      "custom turn \(t) not joined or not flagged")
            if t > 0 {
                let (a, b) = (g.turnFrom[t - 1], g.turnTo[t - 1])
                try check(a < g.turnFrom[t] || a == g.turnFrom[t] && b < g.turnTo[t], "custom turns not sorted")
            }
        }
    }

    /// Shape points within reach of their edge.
    func shapes() throws(GraphFileError) {
        // Every point of an edge's shape lies within the edge's length of its source: a file whose
        // coordinate sections were swapped or shuffled fails this. (Equirectangular distances, a
        // few multiplications per point, so loading stays fast; 2 % + 10 m of slack.)
        let metresPerUnit = Coordinate.earthRadius * .pi / 180 / FixedPoint.scale
        for v in 0..<n {
            let lat0 = Double(g.latitudes[v]), lon0 = Double(g.longitudes[v])
            let squeeze = cos(lat0 / FixedPoint.scale * .pi / 180)
            func within(_ lat: Int32, _ lon: Int32, _ reach: Double) -> Bool {
                var dLon = abs(Double(lon) - lon0)
                if dLon > 1_800_000_000 { dLon = 3_600_000_000 - dLon } // across 180°
                let dx = dLon * squeeze * metresPerUnit, dy = (Double(lat) - lat0) * metresPerUnit
                if dx * dx + dy * dy <= reach * reach { return true }
                // Far apart, the flat measure errs (thousands of km across a pole): the builder's
                // great-circle distance decides.
                func at(_ lat: Int32, _ lon: Int32) -> Coordinate {
                    Coordinate(latitude: FixedPoint.decode(lat), longitude: FixedPoint.decode(lon))
                }
                return reach > 100_000 && at(g.latitudes[v], g.longitudes[v]).distance(to: at(lat, lon)) <= reach
            }
            for e in g.edges(from: UInt32(v)) {
                let reach = Double(g.edgeLength[e]) * 1.02 + 10
                let t = Int(g.edgeTarget[e]), s = g.segment(of: e)
                guard within(g.latitudes[t], g.longitudes[t], reach) else { throw .corrupt(path,
                    "edge \(e) is shorter than the distance between its ends") }
                for k in Int(g.shapeStart[s])..<Int(g.shapeStart[s + 1]) where !within(g.shapeLatitudes[k],
                    g.shapeLongitudes[k], reach) {
                    throw .corrupt(path, "edge \(e) has a shape point farther away than its length")
                }
            }
        }
    }
}
