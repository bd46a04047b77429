#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import WaymarkGraph

/// Receives OpenStreetMap elements as the reader completes them. Coordinates are fixed point
/// (10⁻⁷°); only the tags whose keys the receiver asked for are passed on.
protocol OSMElementSink: AnyObject {
    func node(id: Int64, latitude: Int32, longitude: Int32, tags: [String: String])
    func way(id: Int64, nodes: [Int64], tags: [String: String])
    func relation(id: Int64, members: [OSMMember], tags: [String: String])
    /// Work a PBF reader does on each decoded block on its decoding threads, before the block is
    /// taken (judging its elements by the profile, say); nil for none.
    var blockPreparation: PBFBlock.Preparation? { get }
    /// A decoded PBF block (prepared, if ``blockPreparation`` is given), in file order.
    func take(_ block: PBFBlock)
}

extension OSMElementSink {
    var blockPreparation: PBFBlock.Preparation? { nil }

    /// Hands the block's elements over one by one, in order.
    func take(_ block: PBFBlock) {
        var tagged = 0
        for i in block.nodeIDs.indices {
            var tags: [String: String] = [:]
            if tagged < block.nodeTags.count && block.nodeTags[tagged].index == i {
                tags = block.nodeTags[tagged].tags
                tagged += 1
            }
            node(id: block.nodeIDs[i], latitude: block.latitudes[i], longitude: block.longitudes[i], tags: tags)
        }
        for way in block.ways { self.way(id: way.id, nodes: way.refs, tags: way.tags) }
        for relation in block.relations { self.relation(id: relation.id,
                                                        members: relation.members, tags: relation.tags) }
    }
}

/// A relation member.
struct OSMMember: Sendable, Equatable {
    enum Kind: UInt8 { case node, way, relation }
    var kind: Kind
    var ref: Int64
    var role: String
}

/// Turns the parser's start/end element events (names and attribute values as raw UTF-8 byte
/// ranges) into ``OSMElementSink`` calls. No libxml2 here: the SAX layer hands over bytes.
///
/// Skipped: `bounds`, `note`, `meta`, `changeset`, anything unknown, and the optional `version`,
/// `timestamp`, `user`, `uid`, `changeset`, `visible` attributes.
final class OSMElementDecoder {
    enum Element { case none, node, way, relation }

    let sink: OSMElementSink
    private let wantedKeys: KeySet
    private(set) var current: Element = .none
    private var id: Int64 = 0
    private var latitude: Int32 = 0, longitude: Int32 = 0
    private var tags: [String: String] = [:]
    private var refs: [Int64] = []
    private var members: [OSMMember] = []
    /// Counts for the build report.
    private(set) var nodeCount = 0, wayCount = 0, relationCount = 0
    /// Set when an attribute is invalid; the SAX layer stops the parse and reports it.
    var failure: (element: String, attribute: String, value: String)?
    /// The document's root element, once seen (an OSM file's is `osm`).
    private(set) var root: String?

    init(sink: OSMElementSink, wantedKeys: Set<String>) {
        self.sink = sink
        self.wantedKeys = KeySet(wantedKeys)
    }

    /// An attribute as the parser delivers it: name and value byte ranges (not NUL-terminated).
    typealias Attribute = (name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>)

    func start<Attributes: Sequence<Attribute>>(_ name: UnsafeBufferPointer<UInt8>, attributes: Attributes) {
        if root == nil {
            root = String(decoding: name, as: UTF8.self)
            if root != "osm" { return fail(root!, "", nil) }
        }
        switch name.count {
        case 2 where name[0] == UInt8(ascii: "n") && name[1] == UInt8(ascii: "d"):
            guard current == .way else { return }
            for a in attributes where equals(a.name, "ref") {
                guard let ref = parseInteger(a.value) else { return fail("nd", "ref", a.value) }
                refs.append(ref)
                return
            }
            fail("nd", "ref", nil)
        case 3 where name[0] == UInt8(ascii: "t") && name[1] == UInt8(ascii: "a") && name[2] == UInt8(ascii: "g"):
            guard current != .none else { return }
            var key: String?, value: UnsafeBufferPointer<UInt8>?
            for a in attributes {
                if equals(a.name, "k") {
                    guard let wanted = wantedKeys.lookup(a.value) else { return }
                    key = wanted
                } else if equals(a.name, "v") {
                    value = a.value
                }
            }
            if let key, let value { tags[key] = attributeString(value) }
        case 4 where name[0] == UInt8(ascii: "n") && equals(name, "node"):
            begin(.node)
            var haveID = false, haveLat = false, haveLon = false
            for a in attributes {
                if equals(a.name, "id") {
                    guard let v = parseInteger(a.value) else { return fail("node", "id", a.value) }
                    id = v
                    haveID = true
                } else if equals(a.name, "lat") {
                    guard let v = parseFixed(a.value), v >= -900_000_000, v <= 900_000_000 else {
                        return fail("node", "lat", a.value)
                    }
                    latitude = v
                    haveLat = true
                } else if equals(a.name, "lon") {
                    guard let v = parseFixed(a.value), v >= -1_800_000_000, v <= 1_800_000_000 else {
                        return fail("node", "lon", a.value)
                    }
                    longitude = v
                    haveLon = true
                }
            }
            // Deleted nodes in change files have no position; a node in a map file must.
            if !haveID { return fail("node", "id", nil) }
            if !haveLat { return fail("node", "lat", nil) }
            if !haveLon { return fail("node", "lon", nil) }
        case 3 where equals(name, "way"):
            begin(.way)
            readID(attributes, element: "way")
        case 8 where equals(name, "relation"):
            begin(.relation)
            readID(attributes, element: "relation")
        case 6 where equals(name, "member"):
            guard current == .relation else { return }
            var kind: OSMMember.Kind?, ref: Int64?, role = ""
            for a in attributes {
                if equals(a.name, "type") {
                    kind =
                        equals(a.value, "node")
                        ? .node : equals(a.value, "way") ? .way : equals(a.value, "relation") ? .relation : nil
                } else if equals(a.name, "ref") {
                    ref = parseInteger(a.value)
                } else if equals(a.name, "role") {
                    role = attributeString(a.value)
                }
            }
            if let kind, let ref { members.append(OSMMember(kind: kind, ref: ref, role: role)) }
        default:
            break
        }
    }

    func end(_ name: UnsafeBufferPointer<UInt8>) {
        switch current {
        case .node where name.count == 4 && equals(name, "node"):
            nodeCount += 1
            sink.node(id: id, latitude: latitude, longitude: longitude, tags: tags)
            current = .none
        case .way where name.count == 3 && equals(name, "way"):
            wayCount += 1
            sink.way(id: id, nodes: refs, tags: tags)
            current = .none
        case .relation where name.count == 8 && equals(name, "relation"):
            relationCount += 1
            sink.relation(id: id, members: members, tags: tags)
            current = .none
        default:
            break
        }
    }

    private func begin(_ element: Element) {
        current = element
        if !tags.isEmpty { tags.removeAll(keepingCapacity: true) }
        refs.removeAll(keepingCapacity: true)
        members.removeAll(keepingCapacity: true)
    }

    private func readID<Attributes: Sequence<Attribute>>(_ attributes: Attributes, element: String) {
        for a in attributes where equals(a.name, "id") {
            guard let v = parseInteger(a.value) else { return fail(element, "id", a.value) }
            id = v
            return
        }
        fail(element, "id", nil)
    }

    private func fail(_ element: String, _ attribute: String, _ value: UnsafeBufferPointer<UInt8>?) {
        if failure == nil {
            failure = (element, attribute, value.map { String(decoding: $0, as: UTF8.self) } ?? "")
        }
    }
}

// MARK: - Byte-level helpers

/// An attribute value as text. libxml2 (entities not substituted, as Waymark parses) hands an
/// ampersand over as the character reference `&#38;` — whatever its spelling in the file (`&amp;`,
/// `&#38;`, `&#x26;`) — so that a tree builder could parse the value again; every other
/// reference arrives decoded. So `&#38;`, read left to right, is exactly one `&`.
func attributeString(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
    guard let base = bytes.baseAddress, memchr(base, Int32(UInt8(ascii: "&")), bytes.count) != nil else {
        return String(decoding: bytes, as: UTF8.self)
    }
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count)
    var i = 0
    while i < bytes.count {
        if bytes[i] == UInt8(ascii: "&"), i + 4 < bytes.count, bytes[i + 1] == UInt8(ascii: "#"),
            bytes[i + 2] == UInt8(ascii: "3"),
           bytes[i + 3] == UInt8(ascii: "8"), bytes[i + 4] == UInt8(ascii: ";") {
            out.append(UInt8(ascii: "&"))
            i += 5
        } else {
            out.append(bytes[i])
            i += 1
        }
    }
    return String(decoding: out, as: UTF8.self)
}

@inline(__always)
func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
    let count = literal.utf8CodeUnitCount
    guard bytes.count == count, let base = bytes.baseAddress else { return count == 0 && bytes.isEmpty }
    let l = literal.utf8Start
    for i in 0..<count where base[i] != l[i] { return false }
    return true
}

/// A decimal integer, optionally negative (JOSM writes negative ids for new objects).
func parseInteger(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
    guard !bytes.isEmpty else { return nil }
    var i = 0, negative = false
    if bytes[0] == UInt8(ascii: "-") { negative = true; i = 1 }
    guard i < bytes.count, bytes.count - i <= 18 else { return nil }
    var value: Int64 = 0
    while i < bytes.count {
        let d = bytes[i] &- UInt8(ascii: "0")
        guard d < 10 else { return nil }
        value = value * 10 + Int64(d)
        i += 1
    }
    return negative ? -value : value
}

/// A decimal degree value as an integer of 10⁻⁷ degree, exactly (rounded half away from zero past
/// the seventh decimal). Accepts `-12.3456789`, `12`, `.5`; rejects exponents and garbage.
func parseFixed(_ bytes: UnsafeBufferPointer<UInt8>) -> Int32? {
    guard !bytes.isEmpty else { return nil }
    var i = 0, negative = false
    if bytes[0] == UInt8(ascii: "-") { negative = true; i = 1 } else if bytes[0] == UInt8(ascii: "+") { i = 1 }
    var whole: Int64 = 0, digits = 0
    while i < bytes.count, bytes[i] != UInt8(ascii: ".") {
        let d = bytes[i] &- UInt8(ascii: "0")
        guard d < 10, digits < 4 else { return nil }
        whole = whole * 10 + Int64(d)
        digits += 1
        i += 1
    }
    var fraction: Int64 = 0, scale = 0, roundUp = false, fractionDigits = 0
    if i < bytes.count {
        i += 1 // '.'
        while i < bytes.count {
            let d = bytes[i] &- UInt8(ascii: "0")
            guard d < 10 else { return nil }
            if scale < 7 {
                fraction = fraction * 10 + Int64(d)
                scale += 1
            } else if scale == 7 {
                roundUp = d >= 5
                scale += 1
            }
            fractionDigits += 1
            i += 1
        }
    }
    guard digits + fractionDigits > 0 else { return nil }
    for _ in 0..<max(0, 7 - min(scale, 7)) { fraction *= 10 }
    var value = whole * 10_000_000 + fraction + (roundUp ? 1 : 0)
    if negative { value = -value }
    return Int32(exactly: value)
}

/// A set of tag keys looked up by their raw bytes, returning a shared `String` (no allocation per tag).
struct KeySet {
    private var byLength: [[(bytes: [UInt8], string: String)]]

    init(_ keys: Set<String>) {
        let longest = keys.map(\.utf8.count).max() ?? 0
        byLength = Array(repeating: [], count: longest + 1)
        for key in keys.sorted() { byLength[key.utf8.count].append((Array(key.utf8), key)) }
    }

    @inline(__always)
    func lookup(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        guard bytes.count < byLength.count, let base = bytes.baseAddress else { return nil }
        for candidate in byLength[bytes.count] where candidate.bytes[0] == base[0] {
            if candidate.bytes.withUnsafeBufferPointer({ memcmp($0.baseAddress!, base, bytes.count) == 0 }) {
                return candidate.string
            }
        }
        return nil
    }
}
