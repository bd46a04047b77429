import Foundation
import WaymarkGeo
import WaymarkGeoJSON

/// Why an annotations file could not be read. The description names the file, the line (and the
/// column or feature index) and what was wrong.
public struct AnnotationFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public var file: String
    public var line: Int?
    public var column: Int?
    public var featureIndex: Int?
    public var message: String

    public init(file: String, line: Int? = nil, column: Int? = nil, featureIndex: Int? = nil, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.featureIndex = featureIndex
        self.message = message
    }

    public var description: String {
        var where_ = file
        if let line { where_ += ":\(line)" }
        if let column { where_ += ":\(column)" }
        if let featureIndex { where_ += " (feature \(featureIndex))" }
        return "\(where_): \(message)"
    }
}

/// Reads annotations from GeoJSON (a FeatureCollection of Points, or a single Point Feature) or
/// from CSV with a header naming `latitude` and `longitude` columns (and optionally `title`,
/// `subtitle`, and `id` for the feature id; other columns become string properties).
public enum AnnotationReader {
    /// The file formats understood.
    public enum Format: Sendable {
        case geoJSON, csv

        /// The format for a path's extension: `.csv` is CSV; `.geojson` and `.json` are GeoJSON.
        public init?(path: String) {
            switch (path as NSString).pathExtension.lowercased() {
            case "csv": self = .csv
            case "geojson", "json": self = .geoJSON
            default: return nil
            }
        }
    }

    /// Reads a file, choosing the format from its extension (GeoJSON when it starts with `{`
    /// otherwise); `-` reads standard input.
    public static func read(path: String) throws(AnnotationFileError) -> [Annotation] {
        var unlocated = 0
        return try read(path: path, unlocated: &unlocated)
    }

    /// ``read(path:)``, counting in `unlocated` the GeoJSON features skipped for having no geometry.
    public static func read(path: String, unlocated: inout Int) throws(AnnotationFileError) -> [Annotation] {
        let bytes: [UInt8]
        if path == "-" {
            bytes = Array(FileHandle.standardInput.readDataToEndOfFile())
        } else {
            guard let data = FileManager.default.contents(atPath: path) else {
                var isDirectory: ObjCBool = false
                let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
                throw AnnotationFileError(
                    file: path,
                    message: exists ? (isDirectory.boolValue ? "is a directory" : "cannot be read") : "no such file")
            }
            bytes = Array(data)
        }
        let format = Format(path: path) ?? (bytes.first(where: { $0 > 0x20 }) == UInt8(ascii: "{") ? .geoJSON : .csv)
        switch format {
        case .geoJSON: return try readGeoJSON(bytes, file: path, unlocated: &unlocated)
        case .csv: return try readCSV(bytes, file: path)
        }
    }

    // MARK: - GeoJSON

    /// Reads a FeatureCollection of Point features (a lone Point Feature also works).
    /// `title` and `subtitle` must be strings (or null) when present.
    public static func readGeoJSON(_ bytes: [UInt8],
                                   file: String = "<input>") throws(AnnotationFileError) -> [Annotation] {
        var unlocated = 0
        return try readGeoJSON(bytes, file: file, unlocated: &unlocated)
    }

    /// ``readGeoJSON(_:file:)``, skipping features whose geometry is `null` (RFC 7946 §3.2:
    /// unlocated features; supercluster skips them too) and counting them in `unlocated`.
    public static func readGeoJSON(_ bytes: [UInt8], file: String = "<input>", unlocated: inout Int)
        throws(AnnotationFileError) -> [Annotation] {
        let collection: FeatureCollection
        var locations: [SourceLocation] = []
        do {
            collection = try GeoJSONReader.readFeatureCollection(bytes, featureLocations: &locations)
        } catch {
            throw AnnotationFileError(file: file, line: error.location.line, column: error.location.column,
                                      featureIndex: error.featureIndex,
                                      message: (error.path.isEmpty ? "" : "\(error.path): ") + error.message)
        }
        var annotations: [Annotation] = []
        annotations.reserveCapacity(collection.features.count)
        for (i, feature) in collection.features.enumerated() {
            func failure(_ message: String) -> AnnotationFileError {
                AnnotationFileError(file: file, line: locations[i].line, column: locations[i].column,
                                    featureIndex: i, message: message)
            }
            guard let geometry = feature.geometry else {
                unlocated += 1
                continue
            }
            guard case let .point(coordinate) = geometry else {
                throw failure("an annotation must be a Point feature, found a \(geometry.typeName)")
            }
            var properties = feature.properties ?? [:]
            var annotation = Annotation(coordinate: coordinate, id: feature.id)
            for key in ["title", "subtitle"] {
                guard let value = properties[key] else { continue }
                let text: String?
                switch value {
                case let .string(s): text = s
                case .null: text = nil
                default:
                    throw failure("property \"\(key)\" must be a string, found \(value.typeDescription)")
                }
                if key == "title" { annotation.title = text } else { annotation.subtitle = text }
                properties[key] = nil
            }
            annotation.properties = properties
            annotations.append(annotation)
        }
        return annotations
    }

    // MARK: - CSV

    /// Reads RFC 4180 CSV: a header row, then one annotation per row. Fields may be quoted
    /// (`"a, b"`, `""` for a quote, line breaks inside quotes). Blank lines are skipped.
    public static func readCSV(_ bytes: [UInt8], file: String = "<input>") throws(AnnotationFileError) -> [Annotation] {
        var records = CSVRecords(bytes: bytes)
        guard let header = try records.next(file: file) else {
            throw AnnotationFileError(file: file, line: 1,
                                      message: "empty file (expected a header: latitude,longitude,title,subtitle)")
        }
        let names = header.fields.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard let latColumn = names.firstIndex(of: "latitude"), let lonColumn = names.firstIndex(of: "longitude") else {
            throw AnnotationFileError(file: file, line: header.line,
                                      message:
                                          "header must name 'latitude' and 'longitude' columns (found: "
                                              + "\(header.fields.joined(separator: ",")))"
                                  )
        }
        let titleColumn = names.firstIndex(of: "title"), subtitleColumn = names.firstIndex(of: "subtitle")
        let idColumn = names.firstIndex(of: "id")
        var annotations: [Annotation] = []
        while let record = try records.next(file: file) {
            guard record.fields.count == names.count else {
                throw AnnotationFileError(file: file, line: record.line,
                                          message: "expected \(names.count) fields like the header, found "
                                              + "\(record.fields.count)")
            }
            func number(_ column: Int) throws(AnnotationFileError) -> Double {
                let text = record.fields[column].trimmingCharacters(in: .whitespaces)
                guard let value = Double(text) else {
                    throw AnnotationFileError(file: file, line: record.line, column: column + 1,
                                              message: "\(names[column]) '\(text)' is not a number")
                }
                return value
            }
            let latitude = try number(latColumn), longitude = try number(lonColumn)
            let coordinate: Coordinate
            do {
                coordinate = try Coordinate(validatingLatitude: latitude, longitude: longitude)
            } catch {
                let column = if case .latitude = error.component { latColumn } else { lonColumn }
                throw AnnotationFileError(file: file, line: record.line, column: column + 1, message: "\(error)")
            }
            var annotation = Annotation(coordinate: coordinate)
            if let titleColumn, !record.fields[titleColumn].isEmpty { annotation.title = record.fields[titleColumn] }
            if let subtitleColumn, !record.fields[subtitleColumn].isEmpty {
                annotation.subtitle = record.fields[subtitleColumn]
            }
            if let idColumn, !record.fields[idColumn].isEmpty { annotation.id = .string(record.fields[idColumn]) }
            for (column, name) in header.fields.enumerated()
            where ![latColumn, lonColumn, titleColumn, subtitleColumn, idColumn].contains(column) {
                annotation.properties[name] = .string(record.fields[column])
            }
            annotations.append(annotation)
        }
        return annotations
    }
}

extension CoordinateError {
    /// The component a range or finiteness error is about (longitude for malformed text).
    var component: Component {
        switch self {
        case let .notFinite(component, _), let .outOfRange(component, _): return component
        case .malformed: return .longitude
        }
    }
}

/// Splits CSV bytes into records, tracking the line each starts on.
struct CSVRecords {
    struct Record {
        var line: Int
        var fields: [String]
    }

    let bytes: [UInt8]
    var index = 0
    var line = 1

    init(bytes: [UInt8]) {
        self.bytes = bytes
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
    }

    /// The next non-blank record, or nil at the end.
    mutating func next(file: String) throws(AnnotationFileError) -> Record? {
        while index < bytes.count {
            let startLine = line
            var fields: [String] = []
            var field: [UInt8] = []
            var quoted = false
            var fieldStartColumn = 1
            var lineStart = index
            var endedWithNewline = false
            recordLoop: while true {
                guard index < bytes.count else {
                    if quoted {
                        throw AnnotationFileError(file: file, line: startLine, column: fieldStartColumn,
                                                  message: "quoted field is not closed")
                    }
                    break recordLoop
                }
                let byte = bytes[index]
                index += 1
                if quoted {
                    if byte == UInt8(ascii: "\"") {
                        if index < bytes.count && bytes[index] == UInt8(ascii: "\"") {
                            field.append(byte)
                            index += 1
                        } else {
                            quoted = false
                        }
                    } else {
                        if byte == 0x0A {
                            line += 1
                            lineStart = index
                        }
                        field.append(byte)
                    }
                    continue
                }
                switch byte {
                case UInt8(ascii: ","):
                    fields.append(try string(field, line: line, column: fieldStartColumn, file: file))
                    field.removeAll(keepingCapacity: true)
                    fieldStartColumn = index - lineStart + 1
                case UInt8(ascii: "\"") where field.isEmpty:
                    quoted = true
                case 0x0D where index < bytes.count && bytes[index] == 0x0A:
                    continue
                case 0x0A:
                    endedWithNewline = true
                    break recordLoop
                default:
                    field.append(byte)
                }
            }
            fields.append(try string(field, line: line, column: fieldStartColumn, file: file))
            if endedWithNewline { line += 1 }
            if fields.count == 1 && fields[0].trimmingCharacters(in: .whitespaces).isEmpty { continue }
            return Record(line: startLine, fields: fields)
        }
        return nil
    }

    private func string(_ bytes: [UInt8], line: Int, column: Int, file: String) throws(AnnotationFileError) -> String {
        guard let s = String(validating: bytes, as: UTF8.self) else {
            throw AnnotationFileError(file: file, line: line, column: column, message: "field is not valid UTF-8")
        }
        return s
    }
}
