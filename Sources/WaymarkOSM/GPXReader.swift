import CLibXML2
import Foundation
import WaymarkGeo

/// A GPS trace as a GPX file has it: its points in order, each with its time where it gives one.
public struct GPXPoint: Sendable, Equatable {
    public var coordinate: Coordinate
    /// The point's `<time>` in seconds since 1970, nil where it has none.
    public var time: Double?
}

/// Reads the points of a GPX file's tracks (`<trkpt>`, every segment in order) or, when it has
/// none, of its routes (`<rtept>`). A trace is a small document: libxml2 reads it whole (no
/// network, no entities) and the tree is walked once.
public enum GPXReader {
    public static func read(_ bytes: [UInt8], path: String) throws(OSMReadError) -> [GPXPoint] {
        waymark_silence_generic_errors()
        let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue)
        let document = bytes.withUnsafeBufferPointer { buffer in
            buffer.baseAddress.flatMap { base in
                base.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                    xmlReadMemory($0, Int32(clamping: buffer.count), path, nil, options)
                }
            }
        }
        guard let document else {
            let error = xmlGetLastError()
            let line = error.map { Int($0.pointee.line) } ?? 0
            let message = error?.pointee.message.map { String(cString: $0) } ?? "not XML"
            throw .xml(function: "xmlReadMemory", path: path, line: line,
                       message: message.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        defer { xmlFreeDoc(document) }
        guard let root = xmlDocGetRootElement(document), name(root) == "gpx" else {
            let found = xmlDocGetRootElement(document).map { "<\(name($0))>" } ?? "nothing"
            throw .notGPX(path: path, found: "its root element is \(found), not <gpx>")
        }
        var tracks: [UnsafeMutablePointer<xmlNode>] = [], routes: [UnsafeMutablePointer<xmlNode>] = []
        collect(root, tracks: &tracks, routes: &routes)
        return try (tracks.isEmpty ? routes : tracks).map { (node) throws(OSMReadError) in try point(node, path) }
    }

    /// The track and route points under `node`, in document order.
    private static func collect(_ node: UnsafeMutablePointer<xmlNode>, tracks: inout [UnsafeMutablePointer<xmlNode>],
                                routes: inout [UnsafeMutablePointer<xmlNode>]) {
        var child = node.pointee.children
        while let c = child {
            if c.pointee.type == XML_ELEMENT_NODE {
                switch name(c) {
                case "trkpt": tracks.append(c)
                case "rtept": routes.append(c)
                default: collect(c, tracks: &tracks, routes: &routes)
                }
            }
            child = c.pointee.next
        }
    }

    private static func point(_ node: UnsafeMutablePointer<xmlNode>, _ path: String) throws(OSMReadError) -> GPXPoint {
        let element = name(node), line = Int(xmlGetLineNo(node))
        func number(_ attribute: String) throws(OSMReadError) -> Double {
            let text = property(node, attribute)
            guard let text, let value = Double(text.trimmingCharacters(in: .whitespaces)) else {
                throw .invalidAttribute(path: path, line: line, element: element, attribute: attribute,
                                        value: text ?? "")
            }
            return value
        }
        let latitude = try number("lat"), longitude = try number("lon")
        guard let coordinate = try? Coordinate(validatingLatitude: latitude, longitude: longitude) else {
            throw .invalidAttribute(path: path, line: line, element: element, attribute: "lat/lon",
                                    value: "\(latitude),\(longitude)")
        }
        var time: Double?
        var child = node.pointee.children
        while let c = child {
            if c.pointee.type == XML_ELEMENT_NODE && name(c) == "time" {
                let text = content(c).trimmingCharacters(in: .whitespacesAndNewlines)
                guard let seconds = seconds(fromISO8601: text) else {
                    throw .xml(function: "GPX <time>", path: path, line: Int(xmlGetLineNo(c)),
                               message: "'\(text.prefix(40))' is not an ISO 8601 date and time")
                }
                time = seconds
            }
            child = c.pointee.next
        }
        return GPXPoint(coordinate: coordinate, time: time)
    }

    /// Seconds since 1970 of a GPX time (`2024-05-01T10:00:00Z`, with or without fractions, or
    /// with an offset).
    public static func seconds(fromISO8601 text: String) -> Double? {
        for options: ISO8601DateFormatter.Options in [[.withInternetDateTime],
                                                      [.withInternetDateTime, .withFractionalSeconds]] {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = options
            if let date = formatter.date(from: text) { return date.timeIntervalSince1970 }
        }
        return nil
    }

    private static func name(_ node: UnsafeMutablePointer<xmlNode>) -> String {
        node.pointee.name.map { String(cString: $0) } ?? ""
    }

    private static func property(_ node: UnsafeMutablePointer<xmlNode>, _ attribute: String) -> String? {
        guard let value = xmlGetProp(node, attribute) else { return nil }
        defer { waymark_xml_free(value) }
        return String(cString: value)
    }

    private static func content(_ node: UnsafeMutablePointer<xmlNode>) -> String {
        guard let value = xmlNodeGetContent(node) else { return "" }
        defer { waymark_xml_free(value) }
        return String(cString: value)
    }
}
