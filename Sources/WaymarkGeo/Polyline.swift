/// Google's encoded polyline algorithm format, at precision 5 (Google, OSRM default) or 6
/// (OSRM `polyline6`, Valhalla).
///
/// Each coordinate is rounded to `10^-precision` degrees (half away from zero); the deltas of
/// the rounded integers are zig-zag encoded in 5-bit chunks offset by 63. Because deltas are taken
/// between rounded values, decoding an encoding gives the rounded input exactly, and encoding a
/// decoding gives the original string back.
public enum Polyline {
    /// Why a polyline string could not be decoded.
    public enum DecodingError: Error, Sendable, Equatable, CustomStringConvertible {
        /// A character outside `?`…`~` (63…126) at this offset.
        case invalidCharacter(Character, offset: Int)
        /// The string ends in the middle of a value.
        case truncated(offset: Int)
        /// A latitude without its longitude.
        case oddValueCount
        /// A value too long to be a coordinate.
        case overflow(offset: Int)
        /// A decoded coordinate is out of range.
        case invalidCoordinate(index: Int, CoordinateError)

        public var description: String {
            switch self {
            case let .invalidCharacter(c, offset): return "invalid polyline character '\(c)' at offset \(offset)"
            case let .truncated(offset): return "polyline ends in the middle of a value at offset \(offset)"
            case .oddValueCount: return "polyline has a latitude without a longitude"
            case let .overflow(offset): return "polyline value too large at offset \(offset)"
            case let .invalidCoordinate(index, error): return "polyline point \(index): \(error)"
            }
        }
    }

    /// Encodes coordinates at `precision` decimal digits (5 or 6; 1…9 allowed).
    public static func encode(_ coordinates: [Coordinate], precision: Int = 5) -> String {
        var bytes: [UInt8] = []
        encode(coordinates, precision: precision, appendingTo: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// ``encode(_:precision:)``'s characters appended to `bytes` (ASCII `?`…`~`), without making a
    /// string.
    public static func encode(_ coordinates: [Coordinate], precision: Int = 5, appendingTo bytes: inout [UInt8]) {
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: maximumEncodedCount(coordinates.count)))
        let written = bytes.withUnsafeMutableBufferPointer { encode(coordinates, precision: precision,
                                                                    into: $0.baseAddress! + start) }
        bytes.removeSubrange((start + written)...)
    }

    /// The most characters ``encode(_:precision:into:)`` writes for `points` coordinates (13 per
    /// 64-bit value).
    public static func maximumEncodedCount(_ points: Int) -> Int { points * 26 }

    /// ``encode(_:precision:)``'s characters written at `out`, which has room for
    /// ``maximumEncodedCount(_:)`` of them: how many were written (what a JSON writer streams).
    public static func encode(_ coordinates: [Coordinate], precision: Int,
                              into out: UnsafeMutablePointer<UInt8>) -> Int {
        precondition((1...9).contains(precision), "polyline precision must be 1…9, not \(precision)")
        let factor = power10(precision)
        var at = 0
        @inline(__always) func put(_ delta: Int) {
            var v = delta < 0 ? ~(delta << 1) : delta << 1
            while v >= 0x20 {
                out[at] = UInt8((0x20 | (v & 0x1f)) + 63)
                at += 1
                v >>= 5
            }
            out[at] = UInt8(v + 63)
            at += 1
        }
        var previousLat = 0, previousLon = 0
        for c in coordinates {
            let lat = Int((c.latitude * factor).rounded())
            let lon = Int((c.longitude * factor).rounded())
            put(lat - previousLat)
            put(lon - previousLon)
            previousLat = lat
            previousLon = lon
        }
        return at
    }

    /// Decodes a polyline at `precision` decimal digits.
    /// - Throws: ``DecodingError`` naming the offset of the first bad character, a value cut off at
    ///   the end, or a coordinate out of range.
    public static func decode(_ polyline: String, precision: Int = 5) throws(DecodingError) -> [Coordinate] {
        precondition((1...9).contains(precision), "polyline precision must be 1…9, not \(precision)")
        let factor = power10(precision)
        var result: [Coordinate] = []
        var values: (Int, Int) = (0, 0)
        var haveLatitude = false
        var value = 0, shift = 0, offset = 0
        for byte in polyline.utf8 {
            guard byte >= 63 && byte <= 126 else {
                throw .invalidCharacter(Character(Unicode.Scalar(byte)), offset: offset)
            }
            let chunk = Int(byte) - 63
            guard shift <= 55 else { throw .overflow(offset: offset) }
            value |= (chunk & 0x1f) << shift
            shift += 5
            offset += 1
            if chunk >= 0x20 { continue }
            let delta = (value & 1) != 0 ? ~(value >> 1) : value >> 1
            value = 0
            shift = 0
            if !haveLatitude {
                values.0 += delta
                haveLatitude = true
            } else {
                values.1 += delta
                haveLatitude = false
                let lat = Double(values.0) / factor, lon = Double(values.1) / factor
                do {
                    result.append(try Coordinate(validatingLatitude: lat, longitude: lon))
                } catch {
                    throw .invalidCoordinate(index: result.count, error)
                }
            }
        }
        if shift != 0 { throw .truncated(offset: offset) }
        if haveLatitude { throw .oddValueCount }
        return result
    }

    private static func power10(_ n: Int) -> Double {
        var f = 1.0
        for _ in 0..<n { f *= 10 }
        return f
    }
}
