import Foundation
import WaymarkGeo
import WaymarkGeoJSON
import WaymarkOSM

/// A recorded GPS trace: its fixes in order and, where the file gives them for every fix, their
/// times (seconds since 1970, OSRM's match `timestamps`).
public struct GPSTrace: Sendable, Equatable {
    public var coordinates: [Coordinate]
    /// One per fix, or empty when the trace has no times.
    public var timestamps: [Int]

    public init(coordinates: [Coordinate], timestamps: [Int] = []) {
        self.coordinates = coordinates
        self.timestamps = timestamps
    }
}

/// Why a trace file could not be read: one line naming the file.
public struct TraceFileError: Error, Sendable, CustomStringConvertible {
    public var description: String
}

extension GPSTrace {
    /// Reads a trace from a GPX file (track points, else route points, with their `<time>`) or a
    /// GeoJSON LineString (bare, a Feature, or a FeatureCollection's LineStrings in order, with
    /// times from the feature's `coordTimes` or `times` property: ISO 8601 texts or seconds).
    public static func read(path: String) throws(TraceFileError) -> GPSTrace {
        // (Only a regular file is opened: a FIFO would wait for a writer, a directory says nothing.)
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw TraceFileError(description: "\(path): cannot read: \(String(cString: strerror(errno)))")
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            let what = (info.st_mode & S_IFMT) == S_IFDIR ? "a directory" : "not a regular file"
            throw TraceFileError(description: "\(path): cannot read: \(what)")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw TraceFileError(description: "\(path): cannot read: permission denied or an input error")
        }
        return try read([UInt8](data), path: path)
    }

    /// ``read(path:)`` on a file's bytes (`path` names it in errors).
    public static func read(_ bytes: [UInt8], path: String) throws(TraceFileError) -> GPSTrace {
        let first = bytes.first { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }
        let fixes: [(Coordinate, Double?)]
        switch first {
        case UInt8(ascii: "<"):
            do {
                fixes = try GPXReader.read(bytes, path: path).map { ($0.coordinate, $0.time) }
            } catch {
                throw TraceFileError(description: "\(error)")
            }
        case UInt8(ascii: "{"): fixes = try geoJSONFixes(bytes, path: path)
        default: throw TraceFileError(description: "\(path): not a trace: expected GPX (XML) or GeoJSON")
        }
        guard fixes.count >= 2 else {
            throw TraceFileError(description: "\(path): a trace needs at least two points, found \(fixes.count)")
        }
        let times = fixes.compactMap(\.1)
        guard times.isEmpty || times.count == fixes.count else {
            let k = fixes.firstIndex { $0.1 == nil }! + 1
            throw TraceFileError(description: "\(path): point \(k) has no time while others have one")
        }
        return GPSTrace(coordinates: fixes.map(\.0), timestamps: times.map { Int($0.rounded(.down)) })
    }

    private static func geoJSONFixes(_ bytes: [UInt8], path: String) throws(TraceFileError) -> [(Coordinate, Double?)] {
        let object: GeoJSONObject
        do { object = try GeoJSONReader.read(bytes) } catch {
            throw TraceFileError(description: "\(path): \(error)")
        }
        let features: [Feature]
        switch object {
        case let .geometry(geometry): features = [Feature(geometry: geometry)]
        case let .feature(feature): features = [feature]
        case let .featureCollection(collection): features = collection.features
        }
        var fixes: [(Coordinate, Double?)] = []
        for (n, feature) in features.enumerated() {
            guard case let .lineString(line)? = feature.geometry else { continue }
            let times = try featureTimes(feature, count: line.count, path: path, feature: n + 1)
            fixes += line.enumerated().map { i, c in (c, times?[i]) }
        }
        guard !fixes.isEmpty else { throw TraceFileError(description: "\(path): no LineString to read a trace from") }
        return fixes
    }

    /// A feature's per-point times (`coordTimes` or `times`), nil where it has none.
    private static func featureTimes(_ feature: Feature, count: Int, path: String,
                                     feature n: Int) throws(TraceFileError) -> [Double]? {
        guard let values = (feature.properties?["coordTimes"] ?? feature.properties?["times"])?.arrayValue else {
            return nil
        }
        guard values.count == count else {
            throw TraceFileError(description: "\(path): feature \(n) has \(values.count) times for \(count) points")
        }
        var times: [Double] = []
        for value in values {
            if let seconds = value.numberValue ?? value.stringValue.flatMap(GPXReader.seconds(fromISO8601:)),
               abs(seconds) < 1e12 {
                times.append(seconds)
            } else {
                throw TraceFileError(description: "\(path): feature \(n): \(value.jsonText()) is not a time")
            }
        }
        return times
    }
}
