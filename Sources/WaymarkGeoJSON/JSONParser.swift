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
        var parser = JSONParser(atStartOf: bytes)
        let value = try parser.parseValue()
        try parser.expectEnd()
        return value
    }

    /// A parser at the first value: past a UTF-8 byte order mark (RFC 8259 §8.1 allows ignoring
    /// it) and leading white space.
    private init(atStartOf bytes: UnsafeBufferPointer<UInt8>) {
        self.init(bytes: bytes)
        if bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF { index = 3 }
        skipWhitespace()
    }

    /// Only white space may follow the root value.
    private mutating func expectEnd() throws(JSONSyntaxError) {
        skipWhitespace()
        if index < bytes.count { throw error("unexpected \(describeCurrent()) after the JSON value") }
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
        var members: [(key: String, value: LocatedJSON)] = []
        try syntax { p in try p.forEachMember { key, p in members.append((key, try p.parseValue())) } }
        return .object(members)
    }

    private mutating func parseArray() throws(JSONSyntaxError) -> LocatedJSON.Kind {
        var items: [LocatedJSON] = []
        try syntax { p in try p.elements { p in items.append(try p.parseValue()) } }
        return .array(items)
    }

    /// Runs a loop whose bodies throw only syntax errors, keeping the typed error.
    private mutating func syntax(_ loop: (inout JSONParser) throws -> Void) throws(JSONSyntaxError) {
        do {
            try loop(&self)
        } catch let error as JSONSyntaxError {
            throw error
        } catch {
            preconditionFailure("unreachable: \(error)")
        }
    }

    /// Reads an object (at its `{`), calling `body(key, &parser)` for each member; `body` must read
    /// the member's value. The one member loop, for the tree parser and for streaming readers.
    mutating func forEachMember(_ body: (String, inout JSONParser) throws -> Void) throws {
        try enterNesting()
        index += 1 // {
        skipWhitespace()
        if peek() == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return
        }
        while true {
            skipWhitespace()
            guard peek() == UInt8(ascii: "\"") else {
                throw error("unexpected \(describeCurrent()), expected a member name in quotes")
            }
            let key = try parseString()
            skipWhitespace()
            guard peek() == UInt8(ascii: ":") else {
                throw error("unexpected \(describeCurrent()), expected ':' after member name")
            }
            index += 1
            skipWhitespace()
            try body(key, &self)
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                index += 1
                depth -= 1
                return
            default: throw error("unexpected \(describeCurrent()), expected ',' or '}' in object")
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
                    guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                        bytes[index + 1] == UInt8(ascii: "u")
                    else { throw error("lone high surrogate \\u\(String(scalar, radix: 16))") }
                    index += 2
                    let low = try parseHex4()
                    guard (0xDC00...0xDFFF).contains(low) else {
                        throw error("invalid low surrogate \\u\(String(low, radix: 16))")
                    }
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
            throw JSONSyntaxError(location: SourceLocation(offset: offset, in: bytes),
                                  message: "string is not valid UTF-8")
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
            if scale < 0 {
                value /= JSONParser.powersOfTen[-scale]
            } else if scale > 0 {
                value *= JSONParser.powersOfTen[scale]
            }
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
        let matches = index + count <= bytes.count
            && (0..<count).allSatisfy { bytes[index + $0] == literal.utf8Start[$0] }
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
    static func streamObject(_ bytes: UnsafeBufferPointer<UInt8>,
                             member: (String, inout JSONParser) throws -> Void) throws {
        var p = JSONParser(atStartOf: bytes)
        guard p.peek() == UInt8(ascii: "{") else { throw p.error("expected an object") }
        try p.forEachMember(member)
        try p.expectEnd()
    }

    /// Reads the value at the current position.
    mutating func value() throws(JSONSyntaxError) -> LocatedJSON { try parseValue() }

    /// Whether an array starts at the current position.
    var atArray: Bool { peek() == UInt8(ascii: "[") }

    /// Reads an array (at its `[`), calling `body(&parser)` for each element; `body` must read the
    /// element. The one element loop, for the tree parser and for streaming readers.
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
