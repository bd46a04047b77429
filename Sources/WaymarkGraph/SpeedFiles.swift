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

        /// Whether it closes its stretch: a speed or a rate of 0.
        public var closes: Bool {
            if case let .given(rate) = rate, rate <= 0 { return true }
            return kmh <= 0
        }
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

    /// Whether a speed of the files closes its stretch (``Speed/closes``).
    public var closesStretches: Bool { speeds.values.contains(where: \.closes) }

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
        speeds.reserveCapacity(speeds.count + text.utf8.count / 24)
        try Self.lines(text, path: path, expected: "from_osm_id,to_osm_id,speed_kmh[,rate]") { fields in
            guard fields.count >= 3, let from = fields.nodeID(0), let to = fields.nodeID(1),
                  let kmh = fields.number(2), kmh >= 0 else { return false }
            var rate = Rate.fromSpeed
            if fields.count >= 4 {
                if fields.isEmpty(3) {
                    rate = .kept
                } else {
                    guard let r = fields.number(3) else { return false }
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
            guard fields.count >= 4, let from = fields.nodeID(0), let via = fields.nodeID(1),
                  let to = fields.nodeID(2), let seconds = fields.number(3), seconds >= 0
            else { return false }
            var weight: Double? = nil
            if fields.count >= 5 {
                guard let w = fields.number(4), w >= 0 else { return false }
                weight = w
            }
            penalties[Turn(from: from, via: via, to: to)] = Penalty(seconds: seconds, weight: weight)
            return true
        }
    }

    /// Each non-blank line split at commas, to `parse`, which says whether it was well formed.
    /// (By bytes, in place: a country's file has millions of lines.)
    private static func lines(_ text: String, path: String, expected: String,
                              _ parse: (CSVFields) -> Bool) throws(SpeedFileError) {
        var text = text
        let failure: SpeedFileError? = text.withUTF8 { bytes in
            var fields = CSVFields(bytes: bytes)
            var number = 0, lineStart = 0
            while lineStart < bytes.count {
                number += 1
                var lineEnd = lineStart
                while lineEnd < bytes.count && bytes[lineEnd] != UInt8(ascii: "\n") { lineEnd += 1 }
                fields.split(lineStart..<lineEnd)
                if !(fields.count == 1 && fields.isEmpty(0)) && !parse(fields) {
                    let shown = String(decoding: bytes[lineStart..<min(lineEnd, lineStart + 80)], as: UTF8.self)
                    return SpeedFileError(path: path, line: number, reason: "not \(expected): \(shown)")
                }
                lineStart = lineEnd + 1
            }
            return nil
        }
        if let failure { throw failure }
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

/// One line's fields of a CSV file: each field's bytes with blanks trimmed, read in place.
private struct CSVFields {
    let bytes: UnsafeBufferPointer<UInt8>
    private var starts: [Int] = [], ends: [Int] = []

    init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    var count: Int { starts.count }

    func isEmpty(_ i: Int) -> Bool { starts[i] == ends[i] }

    /// The fields of the bytes in `line`, split at commas.
    mutating func split(_ line: Range<Int>) {
        starts.removeAll(keepingCapacity: true)
        ends.removeAll(keepingCapacity: true)
        var from = line.lowerBound
        while true {
            var to = from
            while to < line.upperBound && bytes[to] != UInt8(ascii: ",") { to += 1 }
            var (a, b) = (from, to)
            while a < b && Self.isBlank(bytes[a]) { a += 1 }
            while b > a && Self.isBlank(bytes[b - 1]) { b -= 1 }
            starts.append(a)
            ends.append(b)
            if to == line.upperBound { return }
            from = to + 1
        }
    }

    private static func isBlank(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r")
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    /// Field `i` as a node id: decimal digits only, within Int64.
    func nodeID(_ i: Int) -> Int64? {
        guard starts[i] < ends[i] else { return nil }
        var value: Int64 = 0
        for k in starts[i]..<ends[i] {
            guard Self.isDigit(bytes[k]) else { return nil }
            let (times, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times.addingReportingOverflow(Int64(bytes[k] - UInt8(ascii: "0")))
            guard !o1 && !o2 else { return nil }
            value = sum
        }
        return value
    }

    /// Field `i` as a finite decimal number (not `inf`, `nan` or hexadecimal). Digits with an
    /// optional fraction, short enough to be exact, are read here (one correctly rounded division,
    /// the value the standard library gives); anything else by the standard library.
    func number(_ i: Int) -> Double? {
        let field = bytes[starts[i]..<ends[i]]
        guard !field.isEmpty else { return nil }
        var mantissa: Int64 = 0, digits = 0, fraction = -1
        for byte in field {
            if Self.isDigit(byte) {
                mantissa = mantissa * 10 + Int64(byte - UInt8(ascii: "0"))
                digits += 1
                if fraction >= 0 { fraction += 1 }
                if digits > 15 { return Self.slowNumber(field) }
            } else if byte == UInt8(ascii: ".") && fraction < 0 && digits > 0 {
                fraction = 0
            } else {
                return Self.slowNumber(field)
            }
        }
        return fraction <= 0 ? Double(mantissa) : Double(mantissa) / Self.powersOfTen[fraction]
    }

    private static let powersOfTen: [Double] = (0...15).map { (0..<$0).reduce(1.0) { p, _ in p * 10 } }

    private static func slowNumber(_ field: Slice<UnsafeBufferPointer<UInt8>>) -> Double? {
        guard field.allSatisfy({ isDigit($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-")
                || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }),
              let value = Double(String(decoding: field, as: UTF8.self)), value.isFinite else { return nil }
        return value
    }
}
