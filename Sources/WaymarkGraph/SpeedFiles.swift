import Foundation

/// New speeds and turn penalties as OSRM's `osrm-customize` reads them, keyed by OpenStreetMap
/// node ids: segment speed files (`from_osm_id,to_osm_id,speed_kmh[,rate]`, a line per stretch
/// between two consecutive nodes of a way, in the direction driven) and turn penalty files
/// (`from_osm_id,via_osm_id,to_osm_id,penalty_s[,weight]`). Later files, and later lines of a
/// file, win over earlier ones for the same stretch or turn, as in OSRM.
public struct SpeedUpdates: Sendable {
    public struct Stretch: Hashable, Sendable {
        public var from: Int64, to: Int64
        public init(from: Int64, to: Int64) { (self.from, self.to) = (from, to) }
    }

    public struct Turn: Hashable, Sendable {
        public var from: Int64, via: Int64, to: Int64
        public init(from: Int64, via: Int64, to: Int64) { (self.from, self.via, self.to) = (from, via, to) }
    }

    /// What a segment's weight becomes: OSRM's fourth column.
    public enum Rate: Sendable, Equatable {
        /// No fourth column: the weight is the new travel time.
        case fromSpeed
        /// An empty fourth column: the weight stays the profile's.
        case kept
        /// Metres per second of weight (the weight is length ÷ rate).
        case given(Double)
    }

    public struct Speed: Sendable, Equatable {
        /// km/h; 0 closes the stretch.
        public var kmh: Double
        public var rate: Rate
        /// Index into ``sourceNames`` (1 for the first file).
        public var source: UInt8
        public init(kmh: Double, rate: Rate, source: UInt8) { (self.kmh, self.rate, self.source) = (kmh, rate, source) }
    }

    public struct Penalty: Sendable, Equatable {
        public var seconds: Double
        /// The weight; nil: the same as the seconds.
        public var weight: Double?
        public init(seconds: Double, weight: Double?) { (self.seconds, self.weight) = (seconds, weight) }
    }

    public var speeds: [Stretch: Speed] = [:]
    public var penalties: [Turn: Penalty] = [:]
    /// "lua profile" (OSRM's name for the profile's own speeds), then each segment speed file's
    /// name without directory or extension.
    public var sourceNames = ["lua profile"]

    public init() {}

    /// The files read, in order. A file that cannot be read or has a malformed line is an error
    /// naming it and the line.
    public init(segmentSpeedFiles: [String], turnPenaltyFiles: [String]) throws(SpeedFileError) {
        guard segmentSpeedFiles.count < 255 else { throw SpeedFileError(path: "", line: 0,
            reason: "at most 254 segment speed files") }
        for path in segmentSpeedFiles {
            try addSegmentSpeeds(try Self.text(path), name: Self.stem(path), path: path)
        }
        for path in turnPenaltyFiles { try addTurnPenalties(try Self.text(path), path: path) }
    }

    /// The lines of one segment speed file, its speeds named `name` (OSRM's datasource name).
    public mutating func addSegmentSpeeds(_ text: String, name: String, path: String) throws(SpeedFileError) {
        guard sourceNames.count < 255 else { throw SpeedFileError(path: path, line: 0,
            reason: "at most 254 segment speed files") }
        let source = UInt8(sourceNames.count)
        sourceNames.append(name.isEmpty ? "file \(source)" : name)
        try Self.lines(text, path: path, expected: "from_osm_id,to_osm_id,speed_kmh[,rate]") { fields in
            guard fields.count >= 3, let from = Self.nodeID(fields[0]), let to = Self.nodeID(fields[1]),
                  let kmh = Self.number(fields[2]), kmh >= 0 else { return false }
            var rate = Rate.fromSpeed
            if fields.count >= 4 {
                if fields[3].isEmpty {
                    rate = .kept
                } else {
                    guard let r = Self.number(fields[3]) else { return false }
                    rate = .given(r)
                }
            }
            speeds[Stretch(from: from, to: to)] = Speed(kmh: kmh, rate: rate, source: source)
            return true
        }
    }

    /// The lines of one turn penalty file.
    public mutating func addTurnPenalties(_ text: String, path: String) throws(SpeedFileError) {
        let expected = "from_osm_id,via_osm_id,to_osm_id,penalty_s[,weight] (not negative)"
        try Self.lines(text, path: path, expected: expected) { fields in
            guard fields.count >= 4, let from = Self.nodeID(fields[0]), let via = Self.nodeID(fields[1]),
                  let to = Self.nodeID(fields[2]), let seconds = Self.number(fields[3]), seconds >= 0
            else { return false }
            var weight: Double? = nil
            if fields.count >= 5 {
                guard let w = Self.number(fields[4]), w >= 0 else { return false }
                weight = w
            }
            penalties[Turn(from: from, via: via, to: to)] = Penalty(seconds: seconds, weight: weight)
            return true
        }
    }

    /// Each non-blank line split at commas, to `parse`, which says whether it was well formed.
    private static func lines(_ text: String, path: String, expected: String,
                              _ parse: ([Substring]) -> Bool) throws(SpeedFileError) {
        // (By bytes: a country's file has millions of lines.)
        var number = 0
        var fields: [Substring] = []
        for line in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            number += 1
            fields.removeAll(keepingCapacity: true)
            for field in line.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
                var trimmed = field[...]
                while let first = trimmed.first, isBlank(first) { trimmed.removeFirst() }
                while let last = trimmed.last, isBlank(last) { trimmed.removeLast() }
                fields.append(Substring(trimmed))
            }
            if fields.count == 1 && fields[0].isEmpty { continue }
            guard parse(fields) else {
                let shown = String(decoding: line.prefix(80), as: UTF8.self)
                throw SpeedFileError(path: path, line: number, reason: "not \(expected): \(shown)")
            }
        }
    }

    private static func isBlank(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r")
    }

    private static func nodeID(_ field: Substring) -> Int64? {
        guard !field.isEmpty, field.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        return Int64(field)
    }

    /// A finite decimal number (not `inf`, `nan` or hexadecimal).
    private static func number(_ field: Substring) -> Double? {
        guard !field.isEmpty, field.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")
                || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "+")
                || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }),
              let value = Double(field), value.isFinite else { return nil }
        return value
    }

    private static func text(_ path: String) throws(SpeedFileError) -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SpeedFileError(path: path, line: 0, reason: "cannot be read")
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// The file's name without directory or extension, as OSRM names a datasource.
    static func stem(_ path: String) -> String {
        let name = (path as NSString).lastPathComponent
        let stem = (name as NSString).deletingPathExtension
        return stem.replacingOccurrences(of: "\n", with: " ")
    }
}

/// A speed or turn penalty file that cannot be used: which, where, why.
public struct SpeedFileError: Error, Sendable, CustomStringConvertible {
    public var path: String
    /// 1-based; 0 for the whole file.
    public var line: Int
    public var reason: String
    public var description: String {
        let place = line > 0 ? "\(path):\(line)" : path
        return place.isEmpty ? reason : "\(place): \(reason)"
    }
}
