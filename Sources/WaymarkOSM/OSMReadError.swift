/// Why an OSM file could not be read.
public enum OSMReadError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file could not be opened (missing, unreadable).
    case cannotOpen(path: String, reason: String)
    /// Reading (or inflating) failed part-way.
    case read(path: String, reason: String)
    /// libxml2 reported an error: the function, the file, the line and libxml2's message.
    case xml(function: String, path: String, line: Int, message: String)
    /// An element's attribute is missing or not valid (e.g. `lat="abc"`, `lat="95"`).
    case invalidAttribute(path: String, line: Int, element: String, attribute: String, value: String)
    /// The file is not OpenStreetMap XML: what it is instead (an HTML page, a PBF, JSON, …).
    case notOSM(path: String, found: String)
    /// A trace file is not GPX: what its root element is instead.
    case notGPX(path: String, found: String)
    /// An OSM PBF file is truncated, corrupt or uses what Waymark does not read: the byte offset
    /// of the blob at fault and what is wrong.
    case pbf(path: String, offset: Int, message: String)

    public var description: String {
        switch self {
        case let .cannotOpen(path, reason): return "\(path): cannot open: \(reason)"
        case let .read(path, reason): return "\(path): read failed: \(reason)"
        case let .xml(function, path, line, message):
            // libxml2's messages may run over two lines (encoding errors): one line here.
            let oneLine = message.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
                .joined(separator: " ")
            return "\(path):\(line): malformed XML (\(function)): \(oneLine)"
        case let .notOSM(path, found): return "\(path): not OpenStreetMap XML: \(found)"
        case let .notGPX(path, found): return "\(path): not GPX: \(found)"
        case let .pbf(path, offset, message): return "\(path): OSM PBF, blob at byte \(offset): \(message)"
        case let .invalidAttribute(path, line, element, attribute, value):
            return value.isEmpty
                ? "\(path):\(line): <\(element)> is missing its \(attribute) attribute"
                : "\(path):\(line): <\(element)> has an invalid \(attribute)=\"\(value)\""
        }
    }
}
