import Foundation

/// One HTTP/1.x request as the server hands it to a handler: the method, the path split into
/// percent-decoded segments, the query's name–value pairs (decoded), the headers (names in lower
/// case) and the body.
public struct HTTPRequest: Sendable, Equatable {
    public var method: String
    /// The request target exactly as sent (for logs).
    public var target: String
    /// The path's segments between slashes, each percent-decoded ("/route/v1/x" → ["route", "v1", "x"]).
    public var segments: [String]
    /// The query's `name=value` pairs in order, percent-decoded (`+` is a space).
    public var query: [(name: String, value: String)]
    /// 0 for HTTP/1.0, 1 for HTTP/1.1.
    public var minorVersion: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(method: String, target: String, segments: [String], query: [(name: String, value: String)] = [],
                minorVersion: Int = 1, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.method = method
        self.target = target
        self.segments = segments
        self.query = query
        self.minorVersion = minorVersion
        self.headers = headers
        self.body = body
    }

    /// The first header named `name` (lower case).
    public func header(_ name: String) -> String? { headers.first { $0.name == name }?.value }

    /// Whether the client keeps the connection open after this request: HTTP/1.1 unless it says
    /// `Connection: close`, HTTP/1.0 only when it says `keep-alive`.
    public var keepAlive: Bool {
        let tokens = (header("connection") ?? "").lowercased().split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        return minorVersion >= 1 ? !tokens.contains("close") : tokens.contains("keep-alive")
    }

    public static func == (a: HTTPRequest, b: HTTPRequest) -> Bool {
        a.method == b.method && a.target == b.target && a.segments == b.segments && a.minorVersion == b.minorVersion
            && a.body == b.body
            && a.query.elementsEqual(b.query, by: { $0 == $1 }) && a.headers.elementsEqual(b.headers, by: { $0 == $1 })
    }
}

/// An HTTP status: code and reason phrase.
public struct HTTPStatus: Sendable, Equatable, CustomStringConvertible {
    public var code: Int
    public var reason: String
    public init(_ code: Int, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "\(code) \(reason)" }

    public static let ok = HTTPStatus(200, "OK")
    public static let noContent = HTTPStatus(204, "No Content")
    public static let badRequest = HTTPStatus(400, "Bad Request")
    public static let unauthorized = HTTPStatus(401, "Unauthorized")
    public static let forbidden = HTTPStatus(403, "Forbidden")
    public static let notFound = HTTPStatus(404, "Not Found")
    public static let methodNotAllowed = HTTPStatus(405, "Method Not Allowed")
    public static let requestTimeout = HTTPStatus(408, "Request Timeout")
    public static let lengthRequired = HTTPStatus(411, "Length Required")
    public static let contentTooLarge = HTTPStatus(413, "Content Too Large")
    public static let uriTooLong = HTTPStatus(414, "URI Too Long")
    public static let headersTooLarge = HTTPStatus(431, "Request Header Fields Too Large")
    public static let internalServerError = HTTPStatus(500, "Internal Server Error")
    public static let notImplemented = HTTPStatus(501, "Not Implemented")
    public static let serviceUnavailable = HTTPStatus(503, "Service Unavailable")
    public static let versionNotSupported = HTTPStatus(505, "HTTP Version Not Supported")
}

/// The largest request the parser accepts, part by part.
public struct HTTPLimits: Sendable, Equatable {
    /// Bytes in the request line (method, target, version).
    public var requestLine = 64 * 1024
    /// Bytes in the header fields after the request line.
    public var headers = 16 * 1024
    /// Number of header fields.
    public var headerCount = 100
    /// Bytes in a body (`Content-Length`); chunked bodies are not accepted.
    public var body = 64 * 1024

    public init() {}
}

/// What parsing the bytes received so far on a connection gave.
public enum HTTPParseResult: Sendable, Equatable {
    /// More bytes are needed (none of the limits is reached yet): at least another line.
    case incomplete
    /// The head is whole; its body needs this many bytes in all (head included) before parsing
    /// again can give a request.
    case needs(Int)
    /// A whole request, and the number of bytes it took (pipelined requests may follow).
    case request(HTTPRequest, consumed: Int)
    /// The bytes are no acceptable request: answer with this status and close the connection.
    case failure(HTTPStatus, String)
}

/// A strict HTTP/1.x request parser (RFC 9112), incremental: it is given everything received so
/// far and says whether a whole request is there. It never reads beyond the limits, refuses what
/// is malformed rather than guessing, and never touches anything but the bytes it is given.
public enum HTTPRequestParser {
    public static func parse(_ bytes: [UInt8], limits: HTTPLimits = HTTPLimits()) -> HTTPParseResult {
        bytes.withUnsafeBufferPointer { parse($0, limits: limits) }
    }

    public static func parse(_ bytes: UnsafeBufferPointer<UInt8>, limits: HTTPLimits) -> HTTPParseResult {
        do throws(Stop) {
            let line = try requestLine(bytes, limits: limits)
            let (fields, bodyStart) = try headerFields(bytes, from: line.end + 1, limits: limits)
            let length = try bodyLength(fields, minorVersion: line.minor, limits: limits)
            if bytes.count - bodyStart < length { return .needs(bodyStart + length) }
            let (segments, query) = try components(of: line.target)
            let body = Array(bytes[bodyStart..<(bodyStart + length)])
            let request = HTTPRequest(method: line.method, target: line.target, segments: segments, query: query,
                                      minorVersion: line.minor, headers: fields, body: body)
            return .request(request, consumed: bodyStart + length)
        } catch {
            return error.result
        }
    }

    /// Parsing stopped short of a request: more bytes are needed, or they are refused.
    private struct Stop: Error {
        let result: HTTPParseResult
        static let incomplete = Stop(result: .incomplete)
        static func failure(_ status: HTTPStatus, _ message: String) -> Stop {
            Stop(result: .failure(status, message))
        }
    }

    /// The request line (after any empty lines, RFC 9112 §2.2): method SP target SP HTTP-version,
    /// nothing else; `end` is its line feed.
    private static func requestLine(_ bytes: UnsafeBufferPointer<UInt8>, limits: HTTPLimits) throws(Stop)
        -> (method: String, target: String, minor: Int, end: Int) {
        let lf = UInt8(ascii: "\n"), cr = UInt8(ascii: "\r")
        var start = 0
        while start < bytes.count && (bytes[start] == cr || bytes[start] == lf) {
            start += 1
            if start > 64 { throw .failure(.badRequest, "too many empty lines before the request") }
        }
        guard let lineEnd = index(of: lf, in: bytes, from: start, limit: start + limits.requestLine + 2) else {
            throw bytes.count - start > limits.requestLine + 1
                ? .failure(.uriTooLong, "request line over \(limits.requestLine) bytes") : .incomplete
        }
        let requestLine = trimmedLine(bytes, start, lineEnd)
        let parts = bytes[requestLine].split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .failure(.badRequest, "the request line is not 'METHOD /path HTTP/1.1'") }
        guard !parts[0].isEmpty, parts[0].allSatisfy(isTokenByte) else {
            throw .failure(.badRequest, "the method is not a token")
        }
        let method = String(decoding: parts[0], as: UTF8.self)
        let version = Array(parts[2])
        let minor: Int
        switch version {
        case Array("HTTP/1.1".utf8): minor = 1
        case Array("HTTP/1.0".utf8): minor = 0
        default:
            if version.starts(with: Array("HTTP/".utf8)), version.count == 8, version[5] >= UInt8(ascii: "2"),
                version[5] <= UInt8(ascii: "9") {
                throw .failure(.versionNotSupported, "only HTTP/1.0 and HTTP/1.1 are served")
            }
            throw .failure(.badRequest, "the request line does not end in HTTP/1.0 or HTTP/1.1")
        }
        let targetBytes = parts[1]
        guard targetBytes.first == UInt8(ascii: "/")
            || (method == "OPTIONS" && Array(targetBytes) == [UInt8(ascii: "*")]) else {
            throw .failure(.badRequest, "the request target must be a path starting with '/'")
        }
        guard targetBytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw .failure(.badRequest, "the request target has bytes a URL may not hold")
        }
        return (method, String(decoding: targetBytes, as: UTF8.self), minor, lineEnd)
    }

    /// The header block from `start` up to an empty line, and where the body starts after it.
    private static func headerFields(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int,
                                     limits: HTTPLimits) throws(Stop) -> ([(name: String, value: String)], Int) {
        let lf = UInt8(ascii: "\n")
        var fields: [(name: String, value: String)] = []
        var lineStart = start
        let headerLimit = lineStart + limits.headers
        while true {
            guard let end = index(of: lf, in: bytes, from: lineStart, limit: headerLimit + 2) else {
                throw bytes.count > headerLimit + 1
                    ? .failure(.headersTooLarge, "header fields over \(limits.headers) bytes") : .incomplete
            }
            let line = trimmedLine(bytes, lineStart, end)
            lineStart = end + 1
            if line.isEmpty { return (fields, lineStart) }
            if fields.count == limits.headerCount {
                throw .failure(.headersTooLarge, "more than \(limits.headerCount) header fields")
            }
            switch field(bytes, line) {
            case let .success(f): fields.append(f)
            case let .failure(message): throw .failure(.badRequest, message.text)
            }
        }
    }

    /// The body's length: Host is required in HTTP/1.1; a body only with one Content-Length.
    private static func bodyLength(_ fields: [(name: String, value: String)], minorVersion minor: Int,
                                   limits: HTTPLimits) throws(Stop) -> Int {
        let names = fields.map(\.name)
        if minor == 1 && names.filter({ $0 == "host" }).count != 1 {
            throw .failure(.badRequest, "an HTTP/1.1 request needs one Host header")
        }
        if names.contains("transfer-encoding") {
            throw .failure(.notImplemented, "chunked or encoded request bodies are not accepted; send Content-Length")
        }
        let lengths = Set(fields.filter { $0.name == "content-length" }.map(\.value))
        guard let text = lengths.first else { return 0 }
        guard lengths.count == 1, !text.isEmpty, text.count <= 18, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }),
            let n = Int(text)
        else {
            throw .failure(.badRequest, "Content-Length is not one decimal number")
        }
        if n > limits.body { throw .failure(.contentTooLarge, "a body over \(limits.body) bytes") }
        return n
    }

    /// The target's path segments and query fields, percent-decoded. (Split at the bytes of '?',
    /// '/', '&' and '=', as the target is bytes: a long target is read once, not as characters.)
    private static func components(of target: String) throws(Stop)
        -> (segments: [String], query: [(name: String, value: String)]) {
        let pathText: Substring, queryText: Substring?
        if let q = target.utf8.firstIndex(of: UInt8(ascii: "?")) {
            pathText = target[..<q]
            queryText = target[target.utf8.index(after: q)...]
        } else {
            pathText = target[...]
            queryText = nil
        }
        if contains(UInt8(ascii: "#"), in: pathText) {
            throw .failure(.badRequest, "a fragment ('#') is not sent to a server")
        }
        var segments: [String] = []
        for piece in pieces(of: pathText.dropFirst(), at: UInt8(ascii: "/")) {
            guard let decoded = percentDecoded(piece, plusIsSpace: false) else {
                throw .failure(.badRequest, "the path has a bad percent-encoding")
            }
            segments.append(decoded)
        }
        var query: [(name: String, value: String)] = []
        if let queryText, !queryText.isEmpty {
            // (An empty field, as in `a=1&`, is kept with an empty name: a service may refuse it.)
            for pair in pieces(of: queryText, at: UInt8(ascii: "&")) {
                let equals = pair.utf8.firstIndex(of: UInt8(ascii: "="))
                let rawName = equals.map { pair[..<$0] } ?? pair
                let rawValue = equals.map { pair[pair.utf8.index(after: $0)...] } ?? ""
                guard let name = percentDecoded(rawName, plusIsSpace: true),
                    let value = percentDecoded(rawValue, plusIsSpace: true)
                else {
                    throw .failure(.badRequest, "the query has a bad percent-encoding")
                }
                query.append((name, value))
            }
        }
        return (segments, query)
    }

    /// The parts of `text` between the bytes `separator` (empty ones kept): split by bytes, not
    /// by characters (a trace's options hold a part per fix).
    static func pieces(of text: Substring, at separator: UInt8) -> [Substring] {
        // (The separators found in the bytes themselves: a generic split stepped the view's
        // indices byte by byte, a trace's coordinates costing a tenth of its matching.)
        let utf8 = text.utf8
        let found: [Int]? = utf8.withContiguousStorageIfAvailable { bytes in
            var at: [Int] = []
            for i in bytes.indices where bytes[i] == separator { at.append(i) }
            return at
        }
        guard let found else {
            return utf8.split(separator: separator, omittingEmptySubsequences: false).map(Substring.init)
        }
        var result: [Substring] = []
        result.reserveCapacity(found.count + 1)
        var start = utf8.startIndex, offset = 0
        for at in found {
            let end = utf8.index(start, offsetBy: at - offset)
            result.append(text[start..<end])
            start = utf8.index(after: end)
            offset = at + 1
        }
        result.append(text[start...])
        return result
    }

    /// The number `text` spells, as `Double(text)` reads it; short plain decimals (a sign, at
    /// most 15 digits and a point) worked out directly: their digits and power of ten are exact
    /// doubles, so one correctly rounded division gives what `strtod` gives. (A trace's radiuses
    /// and coordinates hold one or two per fix.)
    static func number(_ text: Substring) -> Double? {
        let direct: Double?? = text.utf8.withContiguousStorageIfAvailable { bytes in
            var i = 0, negative = false
            if i < bytes.count && bytes[i] == UInt8(ascii: "-") {
                negative = true
                i += 1
            }
            var mantissa: UInt64 = 0, digits = 0, decimals = 0, point = false
            while i < bytes.count {
                let b = bytes[i]
                if b == UInt8(ascii: "."), !point, digits > 0 {
                    point = true
                } else if b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") {
                    // (Past 15 digits the text is read by `Double(_:)`: the digits would not stay
                    // exact, and 20 of them would not fit.)
                    guard digits < 15 else { return nil }
                    mantissa = mantissa * 10 + UInt64(b - UInt8(ascii: "0"))
                    digits += 1
                    if point { decimals += 1 }
                } else {
                    return nil
                }
                i += 1
            }
            guard digits > 0, !point || decimals > 0 else { return nil }
            let value = Double(mantissa) / powersOfTen[decimals]
            return negative ? -value : value
        }
        if let direct, let value = direct { return value }
        return Double(text)
    }

    private static let powersOfTen: [Double] = (0...15).map { k in (0..<k).reduce(1.0) { a, _ in a * 10 } }

    /// Whether `text` holds the byte `byte`, looked for in its bytes as they lie (the view's own
    /// `contains` steps its indices one by one: a trace's options are kilobytes long).
    static func contains(_ byte: UInt8, in text: Substring) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { bytes in
            var found = false
            for b in bytes { found = found || b == byte }
            return found
        } ?? text.utf8.contains(byte)
    }

    /// Percent-decodes text that must be UTF-8 once decoded; nil for a bad escape or bad UTF-8.
    public static func percentDecoded(_ text: Substring, plusIsSpace: Bool) -> String? {
        if !contains(UInt8(ascii: "%"), in: text)
            && !(plusIsSpace && contains(UInt8(ascii: "+"), in: text)) { return String(text) }
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        var it = text.utf8.makeIterator()
        while let b = it.next() {
            if b == UInt8(ascii: "%") {
                guard let h = it.next().flatMap(hexValue), let l = it.next().flatMap(hexValue) else { return nil }
                out.append(h << 4 | l)
            } else if plusIsSpace && b == UInt8(ascii: "+") {
                out.append(UInt8(ascii: " "))
            } else {
                out.append(b)
            }
        }
        return String(validating: out, as: UTF8.self)
    }

    private static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case 48...57: b - 48
        case 65...70: b - 55
        case 97...102: b - 87
        default: nil
        }
    }

    /// The index of the first `byte` at or after `from`, looking no further than `limit`.
    private static func index(of byte: UInt8, in bytes: UnsafeBufferPointer<UInt8>, from: Int, limit: Int) -> Int? {
        var i = from
        let end = min(bytes.count, limit)
        while i < end {
            if bytes[i] == byte { return i }
            i += 1
        }
        return nil
    }

    /// The line from `start` up to the LF at `end`, without a CR before it.
    private static func trimmedLine(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Range<Int> {
        end > start && bytes[end - 1] == UInt8(ascii: "\r") ? start..<(end - 1) : start..<end
    }

    private struct Message: Error { var text: String }

    /// `name: value` with a token name and a value of visible characters, spaces and tabs.
    private static func field(_ bytes: UnsafeBufferPointer<UInt8>, _ line: Range<Int>) -> Result<
        (name: String, value: String), Message
    > {
        let first = bytes[line.lowerBound]
        if first == UInt8(ascii: " ")
            || first == UInt8(ascii: "\t") { return .failure(Message(text: "folded header lines are not accepted")) }
        guard let colon = index(of: UInt8(ascii: ":"), in: bytes, from: line.lowerBound, limit: line.upperBound) else {
            return .failure(Message(text: "a header line without ':'"))
        }
        let name = line.lowerBound..<colon
        guard !name.isEmpty, name.allSatisfy({ isTokenByte(bytes[$0]) }) else {
            return .failure(Message(text: "a header name that is not a token"))
        }
        var valueStart = colon + 1, valueEnd = line.upperBound
        func isBlank(_ b: UInt8) -> Bool { b == UInt8(ascii: " ") || b == UInt8(ascii: "\t") }
        while valueStart < valueEnd && isBlank(bytes[valueStart]) { valueStart += 1 }
        while valueEnd > valueStart && isBlank(bytes[valueEnd - 1]) { valueEnd -= 1 }
        for i in valueStart..<valueEnd {
            let b = bytes[i]
            if (b < 0x20 && b != 0x09)
                || b == 0x7F { return .failure(Message(text: "a header value with control characters")) }
        }
        return .success((String(decoding: bytes[name], as: UTF8.self).lowercased(),
                         String(decoding: bytes[valueStart..<valueEnd], as: UTF8.self)))
    }

    /// RFC 9110 `tchar`.
    private static func isTokenByte(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "*"),
             UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"),
             UInt8(ascii: "`"), UInt8(ascii: "|"),
             UInt8(ascii: "~"): true
        default: false
        }
    }
}
