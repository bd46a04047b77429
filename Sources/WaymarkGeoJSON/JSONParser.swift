import Foundation

/// A position in a text file: 1-based line and column (column counted in bytes).
public struct SourceLocation: Sendable, Equatable, CustomStringConvertible {
    public var line: Int
    public var column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    /// The location of byte `offset` in `bytes`.
    public init(offset: Int, in bytes: UnsafeBufferPointer<UInt8>) {
        var line = 1, lineStart = 0
        for i in 0..<min(offset, bytes.count) where bytes[i] == UInt8(ascii: "\n") {
            line += 1
            lineStart = i + 1
        }
        self.init(line: line, column: offset - lineStart + 1)
    }

    public var description: String { "\(line):\(column)" }

    /// The locations of many ascending offsets in one pass over the bytes (O(size + count)).
    public static func locations(ofAscending offsets: [Int], in bytes: UnsafeBufferPointer<UInt8>) -> [SourceLocation] {
        var result: [SourceLocation] = []
        result.reserveCapacity(offsets.count)
        var line = 1, lineStart = 0, position = 0
        for offset in offsets {
            let target = min(offset, bytes.count)
            precondition(target >= position, "offsets must ascend")
            while position < target {
                if bytes[position] == UInt8(ascii: "\n") {
                    line += 1
                    lineStart = position + 1
                }
                position += 1
            }
            result.append(SourceLocation(line: line, column: offset - lineStart + 1))
        }
        return result
    }
}

/// A JSON syntax error with where it happened.
public struct JSONSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    public var location: SourceLocation
    public var message: String

    public var description: String { "line \(location.line), column \(location.column): \(message)" }
}

/// A parsed JSON value that remembers the byte offset it started at, so later checks
/// (GeoJSON types, CSV-like records) can name the line and column of a bad value.
struct LocatedJSON {
    indirect enum Kind {
        case null
        case bool(Bool)
        case number(Double)
        case string(String)
        case array([LocatedJSON])
        case object([(key: String, value: LocatedJSON)])
    }

    var offset: Int
    var kind: Kind

    /// The plain value, without locations.
    var value: JSONValue {
        switch kind {
        case .null: return .null
        case let .bool(b): return .bool(b)
        case let .number(n): return .number(n)
        case let .string(s): return .string(s)
        case let .array(items): return .array(items.map(\.value))
        case let .object(members):
            var object = JSONObject()
            for member in members { object[member.key] = member.value.value }
            return .object(object)
        }
    }

    func member(_ key: String) -> LocatedJSON? {
        guard case let .object(members) = kind else { return nil }
        // Later duplicates win, as in most JSON readers.
        return members.last { $0.key == key }?.value
    }

    var typeDescription: String {
        switch kind {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

/// A strict RFC 8259 parser over UTF-8 bytes. Nesting is limited to ``maximumDepth`` so hostile
/// input cannot exhaust the stack.
struct JSONParser {
    static let maximumDepth = 512

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private var depth = 0

    private init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// Parses one JSON text (a value with optional surrounding white space).
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONSyntaxError) -> LocatedJSON {
        var parser = JSONParser(bytes: bytes)
        // A UTF-8 byte order mark is tolerated (RFC 8259 §8.1 allows ignoring it).
        if bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF { parser.index = 3 }
        parser.skipWhitespace()
        let value = try parser.parseValue()
        parser.skipWhitespace()
        if parser.index < bytes.count { throw parser.error("unexpected \(parser.describeCurrent()) after the JSON value") }
        return value
    }

    static func parse(_ data: [UInt8]) throws(JSONSyntaxError) -> LocatedJSON {
        try data.withUnsafeBufferPointer { (buffer) throws(JSONSyntaxError) in try parse(buffer) }
    }

    // MARK: - Values

    private mutating func parseValue() throws(JSONSyntaxError) -> LocatedJSON {
        guard index < bytes.count else { throw error("unexpected end of input, expected a value") }
        let start = index
        switch bytes[index] {
        case UInt8(ascii: "{"): return LocatedJSON(offset: start, kind: try parseObject())
        case UInt8(ascii: "["): return LocatedJSON(offset: start, kind: try parseArray())
        case UInt8(ascii: "\""): return LocatedJSON(offset: start, kind: .string(try parseString()))
        case UInt8(ascii: "t"): try expectLiteral("true"); return LocatedJSON(offset: start, kind: .bool(true))
        case UInt8(ascii: "f"): try expectLiteral("false"); return LocatedJSON(offset: start, kind: .bool(false))
        case UInt8(ascii: "n"): try expectLiteral("null"); return LocatedJSON(offset: start, kind: .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return LocatedJSON(offset: start, kind: .number(try parseNumber()))
        default:
            throw error("unexpected \(describeCurrent()), expected a value")
        }
    }

    private mutating func parseObject() throws(JSONSyntaxError) -> LocatedJSON.Kind {
        try enterNesting()
        index += 1 // {
        var members: [(key: String, value: LocatedJSON)] = []
        skipWhitespace()
        if peek() == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard peek() == UInt8(ascii: "\"") else { throw error("unexpected \(describeCurrent()), expected a member name in quotes") }
            let key = try parseString()
            skipWhitespace()
            guard peek() == UInt8(ascii: ":") else { throw error("unexpected \(describeCurrent()), expected ':' after member name") }
            index += 1
            skipWhitespace()
            members.append((key, try parseValue()))
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                index += 1
                depth -= 1
                return .object(members)
            default: throw error("unexpected \(describeCurrent()), expected ',' or '}' in object")
            }
        }
    }

    private mutating func parseArray() throws(JSONSyntaxError) -> LocatedJSON.Kind {
        try enterNesting()
        index += 1 // [
        var items: [LocatedJSON] = []
        skipWhitespace()
        if peek() == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array(items)
        }
        while true {
            skipWhitespace()
            items.append(try parseValue())
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                index += 1
                depth -= 1
                return .array(items)
            default: throw error("unexpected \(describeCurrent()), expected ',' or ']' in array")
            }
        }
    }

    private mutating func enterNesting() throws(JSONSyntaxError) {
        depth += 1
        if depth > JSONParser.maximumDepth { throw error("nesting deeper than \(JSONParser.maximumDepth) levels") }
    }

    // MARK: - Strings

    private mutating func parseString() throws(JSONSyntaxError) -> String {
        let start = index
        index += 1 // opening quote
        var scratch: [UInt8] = []
        var runStart = index
        while true {
            guard index < bytes.count else {
                index = start
                throw error("unterminated string")
            }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let run = UnsafeBufferPointer(rebasing: bytes[runStart..<index])
                index += 1
                if scratch.isEmpty { return try makeString(run, at: start) }
                scratch.append(contentsOf: run)
                return try makeString(scratch, at: start)
            }
            if byte < 0x20 { throw error("control character 0x\(String(byte, radix: 16)) in string (escape it)") }
            if byte != UInt8(ascii: "\\") {
                index += 1
                continue
            }
            scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
            index += 1
            guard index < bytes.count else { throw error("unterminated escape sequence") }
            let escaped = bytes[index]
            index += 1
            switch escaped {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(escaped)
            case UInt8(ascii: "b"): scratch.append(0x08)
            case UInt8(ascii: "f"): scratch.append(0x0C)
            case UInt8(ascii: "n"): scratch.append(0x0A)
            case UInt8(ascii: "r"): scratch.append(0x0D)
            case UInt8(ascii: "t"): scratch.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try parseHex4()
                if (0xD800...0xDBFF).contains(scalar) {
                    guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                    else { throw error("lone high surrogate \\u\(String(scalar, radix: 16))") }
                    index += 2
                    let low = try parseHex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw error("invalid low surrogate \\u\(String(low, radix: 16))") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    throw error("lone low surrogate \\u\(String(scalar, radix: 16))")
                }
                scratch.append(contentsOf: Array(String(Character(Unicode.Scalar(scalar)!)).utf8))
            default:
                index -= 1
                throw error("invalid escape '\\\(Character(Unicode.Scalar(escaped)))'")
            }
            runStart = index
        }
    }

    private mutating func parseHex4() throws(JSONSyntaxError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("incomplete \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[index]
            let digit: UInt32
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(b - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(b - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(b - UInt8(ascii: "A") + 10)
            default: throw error("invalid hex digit in \\u escape")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    private func makeString<S: Collection<UInt8>>(_ utf8: S, at offset: Int) throws(JSONSyntaxError) -> String {
        guard let string = String(validating: utf8, as: UTF8.self) else {
            throw JSONSyntaxError(location: SourceLocation(offset: offset, in: bytes), message: "string is not valid UTF-8")
        }
        return string
    }

    // MARK: - Numbers

    private mutating func parseNumber() throws(JSONSyntaxError) -> Double {
        let start = index
        var negative = false
        if peek() == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        var mantissa: UInt64 = 0
        var exactMantissa = true
        // Integer part: 0, or 1-9 followed by digits.
        guard let first = peek(), isDigit(first) else { throw error("invalid number: expected a digit") }
        if first == UInt8(ascii: "0") {
            index += 1
            if let next = peek(), isDigit(next) { throw error("invalid number: leading zero") }
        } else {
            while let b = peek(), isDigit(b) {
                accumulate(b, into: &mantissa, exact: &exactMantissa)
                index += 1
            }
        }
        var fractionDigits = 0
        if peek() == UInt8(ascii: ".") {
            index += 1
            guard let b = peek(), isDigit(b) else { throw error("invalid number: expected a digit after '.'") }
            while let b = peek(), isDigit(b) {
                accumulate(b, into: &mantissa, exact: &exactMantissa)
                fractionDigits += 1
                index += 1
            }
        }
        var exponent = 0
        if let e = peek(), e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
            index += 1
            var negativeExponent = false
            if let s = peek(), s == UInt8(ascii: "+") || s == UInt8(ascii: "-") {
                negativeExponent = s == UInt8(ascii: "-")
                index += 1
            }
            guard let b = peek(), isDigit(b) else { throw error("invalid number: expected a digit in the exponent") }
            while let b = peek(), isDigit(b) {
                if exponent < 100_000 { exponent = exponent * 10 + Int(b - UInt8(ascii: "0")) }
                index += 1
            }
            if negativeExponent { exponent = -exponent }
        }
        // Fast path (exact): mantissa below 2^53 and a power of ten that is itself exact, so one
        // correctly rounded multiplication or division gives the correctly rounded result.
        let scale = exponent - fractionDigits
        if exactMantissa && mantissa < (1 << 53) && scale >= -22 && scale <= 22 {
            var value = Double(mantissa)
            if scale < 0 { value /= JSONParser.powersOfTen[-scale] } else if scale > 0 { value *= JSONParser.powersOfTen[scale] }
            return negative ? -value : value
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let value = Double(text) else { throw error("invalid number '\(text)'") }
        guard value.isFinite else {
            index = start
            throw error("number '\(text)' is too large")
        }
        return value
    }

    private static let powersOfTen: [Double] = (0...22).map { pow(10, Double($0)) }

    @inline(__always)
    private func accumulate(_ digit: UInt8, into mantissa: inout UInt64, exact: inout Bool) {
        if mantissa > (UInt64.max - 9) / 10 {
            exact = false
            return
        }
        mantissa = mantissa * 10 + UInt64(digit - UInt8(ascii: "0"))
    }

    @inline(__always)
    private func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }

    // MARK: - Helpers

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONSyntaxError) {
        let count = literal.utf8CodeUnitCount
        let matches = index + count <= bytes.count && (0..<count).allSatisfy { bytes[index + $0] == literal.utf8Start[$0] }
        guard matches else { throw error("unexpected \(describeCurrent()), expected a value") }
        index += count
    }

    @inline(__always)
    private func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private func describeCurrent() -> String {
        guard let b = peek() else { return "end of input" }
        if b >= 0x21 && b < 0x7F { return "'\(Character(Unicode.Scalar(b)))'" }
        return "byte 0x\(String(b, radix: 16))"
    }

    private func error(_ message: String) -> JSONSyntaxError {
        JSONSyntaxError(location: SourceLocation(offset: index, in: bytes), message: message)
    }
}

// MARK: - Streaming

extension JSONParser {
    /// Streams a document whose root is an object: `member(key, &parser)` is called for each
    /// member and must read its value, with ``value()`` or ``elements(_:)``. Lets a reader decode a
    /// huge array element by element instead of holding the whole document's tree.
    static func streamObject(_ bytes: UnsafeBufferPointer<UInt8>, member: (String, inout JSONParser) throws -> Void) throws {
        var p = JSONParser(bytes: bytes)
        if bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF { p.index = 3 }
        p.skipWhitespace()
        guard p.peek() == UInt8(ascii: "{") else { throw p.error("expected an object") }
        p.index += 1
        p.depth += 1
        p.skipWhitespace()
        if p.peek() == UInt8(ascii: "}") {
            p.index += 1
        } else {
            members: while true {
                p.skipWhitespace()
                guard p.peek() == UInt8(ascii: "\"") else { throw p.error("unexpected \(p.describeCurrent()), expected a member name in quotes") }
                let key = try p.parseString()
                p.skipWhitespace()
                guard p.peek() == UInt8(ascii: ":") else { throw p.error("unexpected \(p.describeCurrent()), expected ':' after member name") }
                p.index += 1
                p.skipWhitespace()
                try member(key, &p)
                p.skipWhitespace()
                switch p.peek() {
                case UInt8(ascii: ","): p.index += 1
                case UInt8(ascii: "}"):
                    p.index += 1
                    break members
                default: throw p.error("unexpected \(p.describeCurrent()), expected ',' or '}' in object")
                }
            }
        }
        p.skipWhitespace()
        if p.index < bytes.count { throw p.error("unexpected \(p.describeCurrent()) after the JSON value") }
    }

    /// Reads the value at the current position.
    mutating func value() throws(JSONSyntaxError) -> LocatedJSON { try parseValue() }

    /// Whether an array starts at the current position.
    var atArray: Bool { peek() == UInt8(ascii: "[") }

    /// Reads an array, calling `body(&parser)` for each element; `body` must read the element.
    mutating func elements(_ body: (inout JSONParser) throws -> Void) throws {
        try enterNesting()
        index += 1
        skipWhitespace()
        if peek() == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return
        }
        while true {
            skipWhitespace()
            try body(&self)
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                index += 1
                depth -= 1
                return
            default: throw error("unexpected \(describeCurrent()), expected ',' or ']' in array")
            }
        }
    }
}

extension JSONValue {
    /// Parses a JSON text.
    /// - Throws: ``JSONSyntaxError`` with the line and column of the first error.
    public init(parsing bytes: [UInt8]) throws(JSONSyntaxError) {
        self = try JSONParser.parse(bytes).value
    }

    /// Parses a JSON text.
    public init(parsing text: String) throws(JSONSyntaxError) {
        try self.init(parsing: Array(text.utf8))
    }
}
