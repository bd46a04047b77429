import WaymarkGeo

/// Writes JSON text into a byte buffer. Numbers use the shortest text that reads back to the same
/// `Double` (integers without a fraction); non-finite numbers, which JSON cannot express, are
/// written as `null`. Strings are escaped per RFC 8259 (control characters, quote, backslash).
///
/// A value, like an array: a writer's buffer is copied before a write when another writer shares it
/// (hence `@unchecked Sendable`: the pointer is only written through while uniquely owned).
public struct JSONWriter: @unchecked Sendable {
    /// The bytes written so far (UTF-8).
    public var bytes: [UInt8] { Array(UnsafeBufferPointer(start: base, count: count)) }
    /// Indentation per nesting level in spaces; 0 writes compact JSON on one line.
    public var indent: Int
    // The bytes, in a buffer of our own that the small writes other modules inline can reach: a
    // route's JSON is some ten thousand writes of a few bytes, and an array append each cost more
    // than the writing. The buffer is copied before a write when another writer shares it, so
    // writers stay values; pointer and counts live here, not in the owner, so that writing needs
    // no run-time exclusivity checks.
    @usableFromInline var base: UnsafeMutablePointer<UInt8>
    @usableFromInline var count = 0
    @usableFromInline var capacity: Int
    @usableFromInline var owner: Owner

    /// A writer whose buffer first holds `capacity` bytes (it grows as needed; an answer whose
    /// size is known roughly is not copied as it doubles).
    public init(indent: Int = 0, capacity: Int = 1024) {
        self.indent = indent
        self.capacity = max(16, capacity)
        owner = Owner(capacity: self.capacity)
        base = owner.base
    }

    /// Frees the buffer with the last writer that holds it.
    @usableFromInline
    final class Owner: @unchecked Sendable { // its buffer is only written while uniquely referenced
        @usableFromInline let base: UnsafeMutablePointer<UInt8>

        @usableFromInline init(capacity: Int) { base = .allocate(capacity: capacity) }

        deinit { base.deallocate() }
    }

    /// A buffer of `capacity` bytes of our own holding what was written.
    @usableFromInline mutating func moveToNewBuffer(capacity: Int) {
        let bigger = Owner(capacity: capacity)
        bigger.base.update(from: base, count: count)
        owner = bigger
        base = bigger.base
        self.capacity = capacity
    }

    /// Where the next `extra` bytes go (then ``commit(_:)`` how many were written).
    @inlinable @inline(__always)
    mutating func room(_ extra: Int) -> UnsafeMutablePointer<UInt8> {
        let needed = count + extra
        if needed > capacity || !isKnownUniquelyReferenced(&owner) {
            moveToNewBuffer(capacity: needed > capacity ? Swift.max(needed, capacity * 2) : capacity)
        }
        return base + count
    }

    @inlinable @inline(__always)
    mutating func commit(_ written: Int) { count += written }

    @inlinable @inline(__always)
    mutating func append(_ bytes: UnsafePointer<UInt8>, count: Int) {
        room(count).update(from: bytes, count: count)
        commit(count)
    }

    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        if let base = bytes.baseAddress { append(base, count: bytes.count) }
    }

    /// The text written so far.
    public var text: String { String(decoding: bytes, as: UTF8.self) }

    // MARK: - Values

    /// Writes any JSON value (objects in their member order).
    public mutating func write(_ value: JSONValue, level: Int = 0) {
        switch value {
        case .null: writeRaw("null")
        case let .bool(b): writeRaw(b ? "true" : "false")
        case let .number(n): writeNumber(n)
        case let .string(s): writeString(s)
        case let .array(items):
            let inline = items.allSatisfy { if case .number = $0 { return true } else { return false } }
            beginArray()
            for (i, item) in items.enumerated() {
                if i > 0 { writeByte(UInt8(ascii: ",")) }
                if !inline { newline(level + 1) }
                write(item, level: level + 1)
            }
            if !inline && !items.isEmpty { newline(level) }
            endArray()
        case let .object(object):
            writeObject(object, level: level)
        }
    }

    /// Writes an object's members in order.
    public mutating func writeObject(_ object: JSONObject, level: Int) {
        writeByte(UInt8(ascii: "{"))
        var first = true
        for (key, value) in object {
            if !first { writeByte(UInt8(ascii: ",")) }
            first = false
            newline(level + 1)
            writeKey(key)
            write(value, level: level + 1)
        }
        if !object.isEmpty { newline(level) }
        writeByte(UInt8(ascii: "}"))
    }

    /// Whether any of a word's eight bytes is a control character, a quote or a backslash (a few
    /// words without one are said to have one: never the other way round). The bit tricks are
    /// Mycroft's for a zero byte and a byte below a bound (bytes past 0x7F are never flagged).
    @inline(__always)
    static func mayNeedEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        func hasZero(_ v: UInt64) -> Bool { (v &- ones) & ~v & highs != 0 }
        let below32 = (word &- ones &* 0x20) & ~word & highs != 0
        return below32 || hasZero(word ^ (ones &* 0x22)) || hasZero(word ^ (ones &* 0x5C))
    }

    /// Writes a string with JSON escapes.
    public mutating func writeString(_ string: String) {
        var string = string
        string.withUTF8 { writeString(utf8: $0) }
    }

    /// ``writeString(_:)`` for a string's UTF-8 bytes where they are (none made of them).
    public mutating func writeString(utf8: UnsafeBufferPointer<UInt8>) {
        writeByte(UInt8(ascii: "\""))
        // Runs that need no escape are copied whole (most strings are one run), looked for
        // eight bytes at a time (a hint per tracepoint is 112 bytes).
        var run = 0, i = 0
        while i < utf8.count {
            if utf8.count - i >= 8, let base = utf8.baseAddress,
               !JSONWriter.mayNeedEscape(UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)) {
                i += 8
                continue
            }
            let byte = utf8[i]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else {
                i += 1
                continue
            }
            if run < i { append(UnsafeBufferPointer(rebasing: utf8[run..<i])) }
            i += 1
            run = i
            switch byte {
            case UInt8(ascii: "\""): writeRaw("\\\"")
            case UInt8(ascii: "\\"): writeRaw("\\\\")
            case 0x0A: writeRaw("\\n")
            case 0x0D: writeRaw("\\r")
            case 0x09: writeRaw("\\t")
            default:
                writeRaw("\\u00")
                writeByte(hexDigit(byte >> 4))
                writeByte(hexDigit(byte & 0xF))
            }
        }
        if run < utf8.count { append(UnsafeBufferPointer(rebasing: utf8[run...])) }
        writeByte(UInt8(ascii: "\""))
    }

    /// Writes coordinates as an encoded polyline string (``Polyline/encode(_:precision:)``),
    /// streamed without making the string: of its alphabet (`?`…`~`) only the backslash needs an escape.
    public mutating func writePolyline(_ coordinates: [Coordinate], precision: Int) {
        writeByte(UInt8(ascii: "\""))
        let out = room(Polyline.maximumEncodedCount(coordinates.count) * 2) // each character possibly escaped
        let written = Polyline.encode(coordinates, precision: precision, into: out)
        var backslashes = 0
        for i in 0..<written where out[i] == UInt8(ascii: "\\") { backslashes += 1 }
        if backslashes > 0 {
            // Each backslash doubled, moving the text right from its end.
            var to = written + backslashes
            for from in stride(from: written - 1, through: 0, by: -1) {
                to -= 1
                out[to] = out[from]
                if out[from] == UInt8(ascii: "\\") {
                    to -= 1
                    out[to] = out[from]
                }
            }
        }
        commit(written + backslashes)
        writeByte(UInt8(ascii: "\""))
    }

    /// Writes a number in its shortest round-trip form; integral values up to 2^53 without a fraction.
    public mutating func writeNumber(_ value: Double) {
        guard value.isFinite else { return writeRaw("null") }
        if value == value.rounded(.towardZero) && value.magnitude < 9_007_199_254_740_992 {
            writeInteger(Int64(value))
        } else {
            writeRaw(value.description)
        }
    }

    /// Writes a number rounded to `decimals` decimal places (half away from zero), without trailing
    /// zeros: 7.5 rather than 7.500000, 0 rather than -0.000000. Values whose scaled magnitude
    /// exceeds 2^53 fall back to ``writeNumber(_:)``.
    public mutating func writeNumber(_ value: Double, decimals: Int) {
        guard value.isFinite else { return writeRaw("null") }
        let factor = JSONWriter.powersOfTen[min(max(decimals, 0), 15)]
        let product = value * factor
        guard product.magnitude < 9_007_199_254_740_992 else { return writeNumber(value) }
        // Rounded half away from zero as `rounded()` rounds (a call into the C library, once per
        // number): below 2^53 the part truncation leaves is exact. (Added without a branch: which
        // way a coordinate rounds is a coin's toss, and a mispredicted branch cost more.)
        let truncated = Int64(product)
        let rest = product - Double(truncated)
        let scaled = truncated + (rest >= 0.5 ? 1 : 0) - (rest <= -0.5 ? 1 : 0)
        if scaled == 0 { return writeByte(UInt8(ascii: "0")) }
        // Written in place: sign, whole part, then the fraction without its trailing zeros (this
        // runs for every coordinate of a route).
        let decimals = min(max(decimals, 0), 15)
        let magnitude = scaled.magnitude
        // (By a constant where the answers use one, coordinates' six places and lengths' one: the
        // division is then a multiplication, not a divide instruction per number.)
        @inline(__always) func split(_ divisor: UInt64) -> (UInt64, UInt64) {
            (magnitude / divisor, magnitude % divisor)
        }
        let (whole, part) = decimals == 6 ? split(1_000_000) : decimals == 1 ? split(10) : split(UInt64(factor))
        var fraction = part, width = decimals
        if fraction != 0 {
            while fraction % 10 == 0 {
                fraction /= 10
                width -= 1
            }
        }
        let out = room(40) // sign, 16 whole digits, point, 15 decimals
        var at = 0
        if scaled < 0 {
            out[0] = UInt8(ascii: "-")
            at = 1
        }
        at += JSONWriter.writeDigits(whole, at: out + at)
        if fraction != 0 {
            out[at] = UInt8(ascii: ".")
            for i in stride(from: at + width, to: at, by: -1) {
                out[i] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: fraction % 10)
                fraction /= 10
            }
            at += width + 1
        }
        commit(at)
    }

    // MARK: - Structure (for writers that stream their own shapes)

    @inlinable public mutating func beginArray() { writeByte(UInt8(ascii: "[")) }
    @inlinable public mutating func endArray() { writeByte(UInt8(ascii: "]")) }

    /// Writes `"key":` (with a space after the colon when indenting).
    public mutating func writeKey(_ key: String) {
        writeString(key)
        writeByte(UInt8(ascii: ":"))
        if indent > 0 { writeByte(UInt8(ascii: " ")) }
    }

    /// A line break and indentation for `level`, when indenting.
    public mutating func newline(_ level: Int) {
        guard indent > 0 else { return }
        writeByte(0x0A)
        let out = room(level * indent)
        out.initialize(repeating: UInt8(ascii: " "), count: level * indent)
        commit(level * indent)
    }

    public mutating func writeRaw(_ text: String) {
        var text = text
        text.withUTF8 { append($0) }
    }

    /// Writes `"key":` for a key known when compiling, which must need no escapes (streaming
    /// writers' fixed member names): no string handling at run time.
    @inlinable public mutating func writeKey(_ key: StaticString) {
        let n = key.utf8CodeUnitCount
        let out = room(n + 4)
        out[0] = UInt8(ascii: "\"")
        (out + 1).update(from: key.utf8Start, count: n)
        out[n + 1] = UInt8(ascii: "\"")
        out[n + 2] = UInt8(ascii: ":")
        if indent > 0 {
            out[n + 3] = UInt8(ascii: " ")
            commit(n + 4)
        } else {
            commit(n + 3)
        }
    }

    /// Writes text known when compiling as it is.
    @inlinable public mutating func writeRaw(_ text: StaticString) {
        append(text.utf8Start, count: text.utf8CodeUnitCount)
    }

    @inlinable @inline(__always)
    public mutating func writeByte(_ byte: UInt8) {
        room(1).pointee = byte
        commit(1)
    }

    /// Writes an integer (|value| < 2^53, so never `Int64.min`).
    public mutating func writeInteger(_ value: Int64) {
        let out = room(21)
        var at = 0
        if value < 0 {
            out[0] = UInt8(ascii: "-")
            at = 1
        }
        commit(at + JSONWriter.writeDigits(UInt64(value.magnitude), at: out + at))
    }

    /// Writes the decimal digits of `value` at `out`; how many.
    @usableFromInline static func writeDigits(_ value: UInt64, at out: UnsafeMutablePointer<UInt8>) -> Int {
        var count = 1, rest = value / 10
        while rest > 0 {
            count += 1
            rest /= 10
        }
        var v = value
        for i in stride(from: count - 1, through: 0, by: -1) {
            out[i] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: v % 10)
            v /= 10
        }
        return count
    }

    private func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }

    private static let powersOfTen: [Double] = (0...15).map { n in (0..<n).reduce(1.0) { acc, _ in acc * 10 } }
}

extension JSONValue {
    /// The value as JSON text.
    public func jsonText(indent: Int = 0) -> String {
        var writer = JSONWriter(indent: indent)
        writer.write(self)
        return writer.text
    }

    /// The value as compact JSON, UTF-8 bytes.
    public var jsonBytes: [UInt8] {
        var writer = JSONWriter()
        writer.write(self)
        return writer.bytes
    }
}
