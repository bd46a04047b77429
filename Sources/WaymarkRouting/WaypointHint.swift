import Foundation
import WaymarkGeo
import WaymarkGraph
import WaymarkPreparation

// A hint is where a waypoint snapped, handed to the client so that its next request for the same
// coordinate skips snapping (OSRM's `hint`). It has the shape of OSRM's: 84 bytes, URL-safe
// base64 (112 characters), the last four a checksum of the map, so that a client which checks
// hints' lengths takes ours.
//
// Layout (little-endian): "WMH1"; segment (UInt32); offset, segment length, snapped latitude and
// longitude, distance from the input (Float64 each); component (UInt32); flags (UInt8: 1 tiny
// component, 2 forward usable, 4 backward usable); 3 zero bytes; input latitude and longitude
// (Float64 each); 8 zero bytes; the map's checksum (UInt32).

extension Router {
    /// The hint for a waypoint snapped at `snap` from the coordinate `input`. (Its bytes are
    /// written in place on the stack: a trace asks for a hint per fix.)
    public func hint(for snap: Snap, input: Coordinate) -> String {
        String(unsafeUninitializedCapacity: Router.hintLength) { out in
            encodeHint(for: snap, input: input, into: out.baseAddress!)
            return Router.hintLength
        }
    }

    /// ``hint(for:input:)``'s characters (URL-safe base64) handed to `body` where they are made,
    /// without a string made of them (an answer writes them as they are).
    package func withHint<R>(for snap: Snap, input: Coordinate, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Router.hintLength) { out in
            encodeHint(for: snap, input: input, into: out.baseAddress!)
            return body(UnsafeBufferPointer(out))
        }
    }

    /// Writes the hint's ``hintLength`` characters at `out`.
    private func encodeHint(for snap: Snap, input: Coordinate, into out: UnsafeMutablePointer<UInt8>) {
        withUnsafeTemporaryAllocation(byteCount: Router.hintSize, alignment: 8) { raw in
            var at = 0
            func put<T: FixedWidthInteger>(_ x: T) {
                raw.storeBytes(of: x.littleEndian, toByteOffset: at, as: T.self)
                at += MemoryLayout<T>.size
            }
            func put(_ x: Double) { put(x.bitPattern) }
            for byte in "WMH1".utf8 { put(byte) }
            put(UInt32(truncatingIfNeeded: snap.segment))
            put(snap.offset)
            put(snap.length)
            put(snap.coordinate.latitude)
            put(snap.coordinate.longitude)
            put(snap.distance)
            put(snap.component)
            put(UInt32((snap.isInTinyComponent ? 1 : 0) | (snap.forward ? 2 : 0) | (snap.backward ? 4 : 0)))
            put(input.latitude)
            put(input.longitude)
            put(UInt64(0))
            put(mapChecksum)
            _ = Router.base64URL(UnsafeRawBufferPointer(raw), into: out)
        }
    }

    private static let hintSize = 84
    /// Characters of a hint: its bytes in base64.
    private static let hintLength = (hintSize + 2) / 3 * 4

    private static let base64Alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// URL-safe base64 (RFC 4648 §5, padded), written group by group (a hint per waypoint, per
    /// fix of a trace: Foundation's encoder and two replacements cost more than the search).
    package static func base64URL(_ bytes: [UInt8]) -> String {
        bytes.withUnsafeBytes { bytes in
            String(unsafeUninitializedCapacity: (bytes.count + 2) / 3 * 4) { out in
                out.baseAddress.map { base64URL(bytes, into: $0) } ?? 0
            }
        }
    }

    /// Writes `bytes` in URL-safe base64 (padded) at `out`, which has room for
    /// `(bytes.count + 2) / 3 * 4`; the count written.
    private static func base64URL(_ bytes: UnsafeRawBufferPointer, into out: UnsafeMutablePointer<UInt8>) -> Int {
        base64Alphabet.withUnsafeBufferPointer { alphabet in
            var i = 0, o = 0
            // Whole groups of three bytes without a test per character, then the padded rest.
            while bytes.count - i >= 3 {
                let word = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
                out[o] = alphabet[Int(word >> 18)]
                out[o + 1] = alphabet[Int((word >> 12) & 63)]
                out[o + 2] = alphabet[Int((word >> 6) & 63)]
                out[o + 3] = alphabet[Int(word & 63)]
                i += 3
                o += 4
            }
            while i < bytes.count {
                let n = min(3, bytes.count - i)
                let word = UInt32(bytes[i]) << 16 | (n > 1 ? UInt32(bytes[i + 1]) << 8 : 0)
                    | (n > 2 ? UInt32(bytes[i + 2]) : 0)
                for k in 0..<4 {
                    out[o] = k <= n ? alphabet[Int((word >> (18 - 6 * k)) & 63)] : UInt8(ascii: "=")
                    o += 1
                }
                i += 3
            }
            return o
        }
    }

    /// The snap a hint holds, when it was made on this map for `input`; nil otherwise (a stale
    /// hint, or one from another server, is ignored as OSRM ignores one).
    func snap(fromHint text: String, input: Coordinate) -> Snap? {
        let standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        guard let decoded = Data(base64Encoded: standard), decoded.count == 84 else { return nil }
        let bytes = [UInt8](decoded)
        func integer<T: FixedWidthInteger>(_ at: Int, _: T.Type) -> T {
            var x: T = 0
            withUnsafeMutableBytes(of: &x) { $0.copyBytes(from: bytes[at..<(at + MemoryLayout<T>.size)]) }
            return T(littleEndian: x)
        }
        func double(_ at: Int) -> Double { Double(bitPattern: integer(at, UInt64.self)) }
        guard Array(bytes.prefix(4)) == Array("WMH1".utf8), integer(80, UInt32.self) == mapChecksum,
              double(56) == input.latitude, double(64) == input.longitude else { return nil }
        let segment = Int(integer(4, UInt32.self)), flags = bytes[52]
        let offset = double(8), length = double(16)
        guard segment < graph.segmentCount, length.isFinite, offset >= 0, offset <= length,
              let point = try? Coordinate(validatingLatitude: double(24), longitude: double(32)),
              double(40).isFinite else { return nil }
        let snap = Snap(segment: segment, offset: offset, length: length, coordinate: point, distance: double(40),
                        component: integer(48, UInt32.self), isInTinyComponent: flags & 1 != 0,
                        forward: flags & 2 != 0, backward: flags & 4 != 0)
        return data.snapIndex.edgePoints(snap, graph: graph).isEmpty ? nil : snap
    }

    /// A checksum of the map's graph (its counts and a few of its coordinates): a hint made on
    /// another map is not used.
    static func checksum(of graph: RoadGraph) -> UInt32 {
        var hash: UInt32 = 2_166_136_261
        func mix(_ x: UInt64) {
            for k in 0..<8 { hash = (hash ^ UInt32((x >> (8 * UInt64(k))) & 0xFF)) &* 16_777_619 }
        }
        for count in [graph.nodeCount, graph.edgeCount, graph.segmentCount] { mix(UInt64(count)) }
        for v in Set([0, graph.nodeCount / 2, graph.nodeCount - 1]).sorted() where v >= 0 && v < graph.nodeCount {
            let c = graph.coordinate(of: UInt32(v))
            mix(c.latitude.bitPattern)
            mix(c.longitude.bitPattern)
        }
        return hash
    }
}
