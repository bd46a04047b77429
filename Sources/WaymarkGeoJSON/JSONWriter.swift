/// Writes JSON text into a byte buffer. Numbers use the shortest text that reads back to the same
/// `Double` (integers without a fraction); non-finite numbers, which JSON cannot express, are
/// written as `null`. Strings are escaped per RFC 8259 (control characters, quote, backslash).
public struct JSONWriter: Sendable {
    /// The bytes written so far (UTF-8).
    public private(set) var bytes: [UInt8] = []
    /// Indentation per nesting level in spaces; 0 writes compact JSON on one line.
    public var indent: Int

    public init(indent: Int = 0) {
        self.indent = indent
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

    /// Writes a string with JSON escapes.
    public mutating func writeString(_ string: String) {
        writeByte(UInt8(ascii: "\""))
        var string = string
        string.withUTF8 { utf8 in
            // Runs that need no escape are copied whole (most strings are one run).
            var run = 0
            for i in 0..<utf8.count {
                let byte = utf8[i]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                if run < i { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[run..<i])) }
                run = i + 1
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
            if run < utf8.count { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[run...])) }
        }
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
        let scaledDouble = (value * factor).rounded()
        guard scaledDouble.magnitude < 9_007_199_254_740_992 else { return writeNumber(value) }
        var scaled = Int64(scaledDouble)
        if scaled == 0 { return writeByte(UInt8(ascii: "0")) }
        // The text is put together right to left in a stack buffer and appended once (this runs
        // for every coordinate of a route: one append, not one per digit).
        let decimals = min(max(decimals, 0), 15)
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { buffer in // at most 18 bytes
            var at = buffer.count
            func put(_ byte: UInt8) {
                at -= 1
                buffer[at] = byte
            }
            let negative = scaled < 0
            if negative { scaled = -scaled }
            let divisor = Int64(factor)
            var whole = scaled / divisor, fraction = scaled % divisor
            if fraction != 0 {
                var width = decimals
                while fraction % 10 == 0 {
                    fraction /= 10
                    width -= 1
                }
                for _ in 0..<width {
                    put(UInt8(ascii: "0") + UInt8(fraction % 10))
                    fraction /= 10
                }
                put(UInt8(ascii: "."))
            }
            repeat {
                put(UInt8(ascii: "0") + UInt8(whole % 10))
                whole /= 10
            } while whole > 0
            if negative { put(UInt8(ascii: "-")) }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[at...]))
        }
    }

    // MARK: - Structure (for writers that stream their own shapes)

    public mutating func beginArray() { writeByte(UInt8(ascii: "[")) }
    public mutating func endArray() { writeByte(UInt8(ascii: "]")) }

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
        bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: level * indent))
    }

    public mutating func writeRaw(_ text: String) { bytes.append(contentsOf: text.utf8) }

    /// Writes `"key":` for a key known when compiling, which must need no escapes (streaming
    /// writers' fixed member names): no string handling at run time.
    public mutating func writeKey(_ key: StaticString) {
        writeByte(UInt8(ascii: "\""))
        bytes.append(contentsOf: UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
        writeByte(UInt8(ascii: "\""))
        writeByte(UInt8(ascii: ":"))
        if indent > 0 { writeByte(UInt8(ascii: " ")) }
    }

    /// Writes text known when compiling as it is.
    public mutating func writeRaw(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    @inline(__always)
    public mutating func writeByte(_ byte: UInt8) { bytes.append(byte) }

    private mutating func writeInteger(_ value: Int64) {
        if value < 0 {
            writeByte(UInt8(ascii: "-"))
            // Int64.min cannot reach here: callers keep |value| < 2^53.
            return writeInteger(-value)
        }
        if value < 10 { return writeByte(UInt8(ascii: "0") + UInt8(value)) }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { buffer in
            var at = buffer.count
            var v = value
            while v > 0 {
                at -= 1
                buffer[at] = UInt8(ascii: "0") + UInt8(v % 10)
                v /= 10
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[at...]))
        }
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
