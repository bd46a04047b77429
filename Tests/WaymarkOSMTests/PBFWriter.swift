import CZlib
@testable import WaymarkOSM

/// A small OSM PBF writer for tests: protocol buffer fields by hand, dense or plain nodes, ways,
/// relations, raw or zlib blobs. It writes what the reader must read, and — by its knobs — the
/// damaged and unsupported files the reader must refuse.
struct ProtoWriter {
    var bytes: [UInt8] = []

    mutating func varint(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(v & 0x7F) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    mutating func key(_ field: Int, _ wire: Int) { varint(UInt64(field << 3 | wire)) }
    mutating func uint(_ field: Int, _ value: UInt64) { key(field, 0); varint(value) }
    mutating func int(_ field: Int, _ value: Int64) { uint(field, UInt64(bitPattern: value)) }
    mutating func sint(_ field: Int, _ value: Int64) { uint(field, ProtoWriter.zigzag(value)) }
    mutating func bytes(_ field: Int, _ data: [UInt8]) {
        key(field, 2)
        varint(UInt64(data.count))
        bytes += data
    }
    mutating func string(_ field: Int, _ s: String) { bytes(field, Array(s.utf8)) }
    mutating func packed(_ field: Int, _ values: [UInt64]) {
        var inner = ProtoWriter()
        for v in values { inner.varint(v) }
        bytes(field, inner.bytes)
    }
    mutating func packedDeltas(_ field: Int, _ values: [Int64]) {
        var previous: Int64 = 0
        packed(field, values.map { v in
            defer { previous = v }
            return ProtoWriter.zigzag(v &- previous)
        })
    }

    static func zigzag(_ v: Int64) -> UInt64 { UInt64(bitPattern: (v << 1) ^ (v >> 63)) }
}

/// OSM elements as a test holds them (coordinates in 10⁻⁷ degree).
struct TestElements {
    struct Node { var id: Int64; var lat: Int32; var lon: Int32; var tags: [(String, String)] }
    struct Way { var id: Int64; var refs: [Int64]; var tags: [(String, String)] }
    struct Relation { var id: Int64; var members: [(OSMMember.Kind, Int64, String)]; var tags: [(String, String)] }
    var nodes: [Node] = []
    var ways: [Way] = []
    var relations: [Relation] = []
}

/// Records what a reader delivers.
final class RecordingSink: OSMElementSink {
    var elements = TestElements()
    func node(id: Int64, latitude: Int32, longitude: Int32, tags: [String: String]) {
        elements.nodes.append(.init(id: id, lat: latitude, lon: longitude,
                                    tags: tags.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }))
    }
    func way(id: Int64, nodes: [Int64], tags: [String: String]) {
        elements.ways.append(.init(id: id, refs: nodes,
                                   tags: tags.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }))
    }
    func relation(id: Int64, members: [OSMMember], tags: [String: String]) {
        elements.relations.append(.init(id: id, members: members.map { ($0.kind, $0.ref, $0.role) },
                                        tags: tags.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }))
    }
}

struct PBFWriter {
    var elementsPerBlock = 100
    var dense = true
    var compress = true
    var granularity: Int64 = 100
    var requiredFeatures = ["OsmSchema-V0.6", "DenseNodes"]

    /// A whole file: the header blob, then data blobs of nodes, ways and relations in turn.
    func file(_ elements: TestElements) -> [UInt8] {
        var header = ProtoWriter()
        for feature in requiredFeatures { header.string(4, feature) }
        header.string(16, "waymark-tests")
        var out = blob("OSMHeader", header.bytes)
        for chunk in stride(from: 0, to: elements.nodes.count, by: elementsPerBlock) {
            out += blob("OSMData",
                        nodeBlock(Array(elements.nodes[chunk..<min(chunk + elementsPerBlock, elements.nodes.count)])))
        }
        for chunk in stride(from: 0, to: elements.ways.count, by: elementsPerBlock) {
            out += blob("OSMData",
                        wayBlock(Array(elements.ways[chunk..<min(chunk + elementsPerBlock, elements.ways.count)])))
        }
        for chunk in stride(from: 0, to: elements.relations.count, by: elementsPerBlock) {
            out += blob("OSMData",
                        relationBlock(Array(elements.relations[chunk..<min(chunk + elementsPerBlock,
                                                                           elements.relations.count)])))
        }
        return out
    }

    /// Length prefix, BlobHeader and Blob around a block.
    func blob(_ type: String, _ block: [UInt8]) -> [UInt8] {
        var blob = ProtoWriter()
        if compress {
            var size = compressBound(uLong(block.count))
            var packed = [UInt8](repeating: 0, count: Int(size))
            _ = packed.withUnsafeMutableBufferPointer { out in
                block.withUnsafeBufferPointer { compress2(out.baseAddress, &size,
                                                          $0.baseAddress, uLong(block.count), 6) }
            }
            blob.uint(2, UInt64(block.count))
            blob.bytes(3, Array(packed.prefix(Int(size))))
        } else {
            blob.bytes(1, block)
        }
        return PBFWriter.frame(type, blob.bytes)
    }

    static func frame(_ type: String, _ blob: [UInt8]) -> [UInt8] {
        var header = ProtoWriter()
        header.string(1, type)
        header.uint(3, UInt64(blob.count))
        let n = header.bytes.count
        return [UInt8(n >> 24 & 0xFF), UInt8(n >> 16 & 0xFF),
                UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)] + header.bytes + blob
    }

    /// A primitive block around groups, with its string table.
    private func block(_ strings: StringTable, _ group: [UInt8]) -> [UInt8] {
        var table = ProtoWriter()
        for s in strings.list { table.string(1, s) }
        var b = ProtoWriter()
        b.bytes(1, table.bytes)
        b.bytes(2, group)
        if granularity != 100 { b.uint(17, UInt64(granularity)) }
        return b.bytes
    }

    final class StringTable {
        var list = [""]
        var index: [String: UInt64] = ["": 0]
        func id(_ s: String) -> UInt64 {
            if let i = index[s] { return i }
            list.append(s)
            index[s] = UInt64(list.count - 1)
            return UInt64(list.count - 1)
        }
    }

    func nodeBlock(_ nodes: [TestElements.Node]) -> [UInt8] {
        let strings = StringTable()
        var group = ProtoWriter()
        // Stored values: nanodegrees / granularity (the tests use granularities that divide 100).
        let scale = 100 / granularity
        if dense {
            var d = ProtoWriter()
            d.packedDeltas(1, nodes.map(\.id))
            d.packedDeltas(8, nodes.map { Int64($0.lat) * scale })
            d.packedDeltas(9, nodes.map { Int64($0.lon) * scale })
            var kv: [UInt64] = []
            for n in nodes {
                for (k, v) in n.tags { kv += [strings.id(k), strings.id(v)] }
                kv.append(0)
            }
            if nodes.contains(where: { !$0.tags.isEmpty }) { d.packed(10, kv) }
            group.bytes(2, d.bytes)
        } else {
            for n in nodes {
                var m = ProtoWriter()
                m.sint(1, n.id)
                if !n.tags.isEmpty {
                    m.packed(2, n.tags.map { strings.id($0.0) })
                    m.packed(3, n.tags.map { strings.id($0.1) })
                }
                m.sint(8, Int64(n.lat) * scale)
                m.sint(9, Int64(n.lon) * scale)
                group.bytes(1, m.bytes)
            }
        }
        return block(strings, group.bytes)
    }

    func wayBlock(_ ways: [TestElements.Way]) -> [UInt8] {
        let strings = StringTable()
        var group = ProtoWriter()
        for w in ways {
            var m = ProtoWriter()
            m.int(1, w.id)
            m.packed(2, w.tags.map { strings.id($0.0) })
            m.packed(3, w.tags.map { strings.id($0.1) })
            m.packedDeltas(8, w.refs)
            group.bytes(3, m.bytes)
        }
        return block(strings, group.bytes)
    }

    func relationBlock(_ relations: [TestElements.Relation]) -> [UInt8] {
        let strings = StringTable()
        var group = ProtoWriter()
        for r in relations {
            var m = ProtoWriter()
            m.int(1, r.id)
            m.packed(2, r.tags.map { strings.id($0.0) })
            m.packed(3, r.tags.map { strings.id($0.1) })
            m.packed(8, r.members.map { strings.id($0.2) })
            m.packedDeltas(9, r.members.map(\.1))
            m.packed(10, r.members.map { UInt64($0.0.rawValue) })
            group.bytes(4, m.bytes)
        }
        return block(strings, group.bytes)
    }
}
