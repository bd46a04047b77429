import WaymarkGeoJSON

/// A response a handler returns: status, header fields and body. The server adds
/// `Content-Length`, `Connection` and `Date`.
public struct HTTPResponse: Sendable {
    public var status: HTTPStatus
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(status: HTTPStatus, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON response (`application/json; charset=UTF-8`).
    public static func json(_ value: JSONValue, status: HTTPStatus = .ok) -> HTTPResponse {
        json(bytes: value.jsonBytes, status: status)
    }

    /// A JSON response from JSON already written.
    public static func json(bytes: [UInt8], status: HTTPStatus = .ok) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json; charset=UTF-8")], body: bytes)
    }

    /// The bytes on the wire. `headOnly` (a HEAD request) leaves the body out but keeps its length.
    func serialized(keepAlive: Bool, headOnly: Bool = false,
                    extraHeaders: [(name: String, value: String)] = []) -> [UInt8] {
        var head = "HTTP/1.1 \(status.code) \(status.reason)\r\n"
        for (name, value) in headers + extraHeaders { head += "\(name): \(value)\r\n" }
        if status.code != 204 { head += "Content-Length: \(body.count)\r\n" }
        head += keepAlive ? "Connection: keep-alive\r\n\r\n" : "Connection: close\r\n\r\n"
        var bytes = Array(head.utf8)
        if !headOnly { bytes += body }
        return bytes
    }
}
