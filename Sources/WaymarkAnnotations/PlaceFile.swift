#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import WaymarkGeo
import WaymarkGeoJSON
import WaymarkSupport

/// Why a places file could not be read, changed or saved.
public struct PlaceFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// A GeoJSON file of points of interest, opened for editing: what `waymark poi` works on, and what
/// an app's "details" editor would save through.
///
/// Edits change only what they name. Everything else in the document survives a save: other
/// properties and their order, feature ids, foreign members, feature order. Saving checks that
/// the file on disk is still the one that was read (an edit made elsewhere in the meantime is an
/// error, not silently overwritten) and replaces it atomically (temporary file, fsync, rename):
/// a crash leaves the old file or the new one, never a mix.
public struct PlaceFile: Sendable {
    public let path: String
    /// The annotations, in feature order (parallel to the features).
    public private(set) var annotations: [Annotation]
    /// The top-level object; its `features` member is kept in ``features``.
    private var document: JSONObject
    private var features: [JSONValue]
    /// The bytes read, to detect a change on disk before replacing the file.
    private let original: [UInt8]?

    /// Which version of the file this is: a hash of the bytes read (64-bit FNV-1a, hex; "none" for
    /// a file not yet written). An editor that read one version saves only over that version (an
    /// HTTP `ETag` / `If-Match` pair).
    public var version: String { PlaceFile.version(of: original) }

    /// The version of file bytes (see ``version``).
    public static func version(of bytes: [UInt8]?) -> String {
        guard let bytes else { return "none" }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes { hash = (hash ^ UInt64(b)) &* 0x100_0000_01b3 }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// Opens an existing file; with `create`, a missing file is an empty collection (written on save).
    public init(path: String, create: Bool = false) throws(PlaceFileError) {
        self.path = path
        guard let bytes = PlaceFile.read(path) else {
            // Something there that is not a readable file (a directory, a FIFO, no permission) is
            // never taken for a missing one, nor replaced.
            if FileManager.default.fileExists(atPath: path) {
                throw PlaceFileError("\(path): not a readable regular file")
            }
            guard create else { throw PlaceFileError("\(path): no such file") }
            annotations = []
            document = ["type": "FeatureCollection", "features": .array([])]
            features = []
            original = nil
            return
        }
        if AnnotationReader.Format(path: path) == .csv {
            throw PlaceFileError(
                "\(path): points of interest are edited in GeoJSON; convert with 'waymark annotations \(path) -o "
                    + "places.geojson'"
            )
        }
        do {
            annotations = try AnnotationReader.readGeoJSON(bytes, file: path)
        } catch {
            throw PlaceFileError("\(error)")
        }
        guard let root = try? JSONValue(parsing: bytes), let object = root.objectValue,
              object["type"]?.stringValue == "FeatureCollection", let list = object["features"]?.arrayValue else {
            throw PlaceFileError("\(path): points of interest must be a GeoJSON FeatureCollection")
        }
        document = object
        features = list
        original = bytes
    }

    private static func read(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map { Array($0) }
    }

    // MARK: - Finding

    /// The index of the feature whose id is `id` (a string id, or a number id written the same way).
    public func index(ofID id: String) -> Int? {
        annotations.firstIndex(ofID: id)
    }

    /// ``index(ofID:)``, or an error naming the file and the id.
    public func requireIndex(ofID id: String) throws(PlaceFileError) -> Int {
        guard let i = index(ofID: id) else {
            throw PlaceFileError("\(path): no point of interest with id \"\(id)\"")
        }
        return i
    }

    // MARK: - Changing

    /// Changes a point of interest's title, subtitle or coordinate (nil: unchanged; an empty
    /// title or subtitle removes it). Returns the annotation as it now is.
    @discardableResult
    public mutating func edit(id: String, title: String? = nil, subtitle: String? = nil,
                              coordinate: Coordinate? = nil) throws(PlaceFileError) -> Annotation {
        let i = try requireIndex(ofID: id)
        try PlaceFile.checkText(title, "title")
        try PlaceFile.checkText(subtitle, "subtitle")
        guard var feature = features[i].objectValue else {
            throw PlaceFileError("\(path): feature \(i) is not an object")
        }
        var properties = feature["properties"]?.objectValue ?? [:]
        if let title {
            properties["title"] = title.isEmpty ? nil : .string(title)
            annotations[i].title = title.isEmpty ? nil : title
        }
        if let subtitle {
            properties["subtitle"] = subtitle.isEmpty ? nil : .string(subtitle)
            annotations[i].subtitle = subtitle.isEmpty ? nil : subtitle
        }
        if title != nil || subtitle != nil { feature["properties"] = .object(properties) }
        if let coordinate {
            var geometry = feature["geometry"]?.objectValue ?? ["type": "Point"]
            geometry["coordinates"] = PlaceFile.position(coordinate)
            feature["geometry"] = .object(geometry)
            annotations[i].coordinate = coordinate
        }
        features[i] = .object(feature)
        return annotations[i]
    }

    /// Adds a point of interest at the end. Without an id it gets one made from its title
    /// (`the-swan`, `the-swan-2`, …). Returns the id.
    @discardableResult
    /// The coordinate `c` read the other way round (latitude and longitude swapped), when that
    /// is where the file's other places are and `c` itself is far from them: the mix-up a
    /// caller should be asked about. Nil where the file has no other place, or `c` is near them.
    public func swappedLooksMeant(_ c: Coordinate, except id: String? = nil) -> Coordinate? {
        let others = annotations.filter { id == nil || $0.id?.description != id }.map(\.coordinate)
        guard let box = (try? BoundingBox.enclosing(others)).flatMap({ $0 }),
              let swapped = try? Coordinate(validatingLatitude: c.longitude, longitude: c.latitude) else { return nil }
        // The places' area, grown by its own size and by at least half a degree each way.
        let dx = max(0.5, box.east - box.west), dy = max(0.5, box.north - box.south)
        let area = BoundingBox(west: box.west - dx, south: box.south - dy, east: box.east + dx, north: box.north + dy)
        return !area.contains(c) && area.contains(swapped) ? swapped : nil
    }

    public mutating func add(_ annotation: Annotation) throws(PlaceFileError) -> String {
        try PlaceFile.checkText(annotation.title, "title")
        try PlaceFile.checkText(annotation.subtitle, "subtitle")
        var annotation = annotation
        let id: String
        if let given = annotation.id?.description {
            guard index(ofID: given) == nil else { throw PlaceFileError("\(path): id \"\(given)\" is already taken") }
            id = given
        } else {
            id = uniqueID(from: annotation.title ?? "poi")
            annotation.id = .string(id)
        }
        var feature: JSONObject = ["type": "Feature", "id": annotation.id.map(PlaceFile.json) ?? .string(id)]
        feature["geometry"] = ["type": "Point", "coordinates": PlaceFile.position(annotation.coordinate)]
        feature["properties"] = .object(annotation.feature.properties ?? [:])
        features.append(.object(feature))
        annotations.append(annotation)
        return id
    }

    /// Removes a point of interest; returns it.
    @discardableResult
    public mutating func remove(id: String) throws(PlaceFileError) -> Annotation {
        let i = try requireIndex(ofID: id)
        features.remove(at: i)
        return annotations.remove(at: i)
    }

    private func uniqueID(from title: String) -> String {
        var slug = ""
        for scalar in title.lowercased().unicodeScalars {
            if scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) {
                slug.unicodeScalars.append(scalar)
            } else if !slug.isEmpty && !slug.hasSuffix("-") {
                slug += "-"
            }
        }
        while slug.hasSuffix("-") { slug.removeLast() }
        if slug.isEmpty { slug = "poi" }
        var candidate = slug, n = 2
        while index(ofID: candidate) != nil {
            candidate = "\(slug)-\(n)"
            n += 1
        }
        return candidate
    }

    private static func position(_ c: Coordinate) -> JSONValue {
        .array([.number(c.longitude), .number(c.latitude)])
    }

    private static func json(_ id: FeatureID) -> JSONValue {
        switch id {
        case let .string(s): return .string(s)
        case let .number(n): return .number(n)
        }
    }

    // MARK: - Saving

    /// The document as written: the top-level members in their order, one feature per line.
    public func encoded() -> [UInt8] {
        var out = Array("{".utf8)
        var first = true
        for (key, value) in document {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            var writer = JSONWriter()
            writer.writeString(key)
            out += writer.bytes
            out.append(UInt8(ascii: ":"))
            if key == "features" {
                out += Array("[\n".utf8)
                for (i, feature) in features.enumerated() {
                    var w = JSONWriter()
                    w.write(feature)
                    out += w.bytes
                    out += Array((i + 1 < features.count ? ",\n" : "\n").utf8)
                }
                out.append(UInt8(ascii: "]"))
            } else {
                var w = JSONWriter()
                w.write(value)
                out += w.bytes
            }
        }
        out += Array("}\n".utf8)
        return out
    }

    /// Replaces the file with the edited document, if it has not changed on disk since it was read.
    ///
    /// The check and the replacement happen under an exclusive advisory lock (`flock`) on a
    /// sidecar file, `.NAME.lock` beside it, that every writer of the file takes: of two editors
    /// saving at once, one wins and the other is told the file changed, never both "succeed".
    /// The lock file is removed again before the lock is let go, so none is left behind.
    public func save() throws(PlaceFileError) {
        let lock = PlaceFile.lockPath(for: path)
        let fd = try PlaceFile.lockFile(lock, of: path)
        defer {
            unlink(lock)
            flock(fd, LOCK_UN)
            close(fd)
        }
        let current = PlaceFile.read(path)
        guard current == original else {
            throw PlaceFileError("\(path) changed on disk since it was read; nothing written (run the command again)")
        }
        do {
            try AtomicFile.write(encoded(), to: path)
        } catch {
            throw PlaceFileError("\(error)")
        }
    }

    /// Titles and subtitles are plain text: a control character (an arrow key's escape sequence,
    /// a colour code, a line break) is refused rather than stored.
    static func checkText(_ text: String?, _ field: String) throws(PlaceFileError) {
        guard let text, text.containsControlCharacters else { return }
        throw PlaceFileError(
            "the \(field) holds control characters (\(text.escapingControlCharacters)); a \(field) is plain text")
    }

    /// Opens (making it) and locks the lock file `lock`. A holder removes it before letting go,
    /// so the file locked may be one already removed: then it is opened and locked again, until
    /// the file locked is the one at `lock`.
    static func lockFile(_ lock: String, of path: String) throws(PlaceFileError) -> Int32 {
        while true {
            let fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            guard fd >= 0 else {
                throw PlaceFileError("\(path): cannot open the lock file \(lock): \(String(cString: strerror(errno)))")
            }
            while flock(fd, LOCK_EX) != 0 {
                guard errno == EINTR else {
                    close(fd)
                    throw PlaceFileError("\(path): cannot lock \(lock): \(String(cString: strerror(errno)))")
                }
            }
            var held = stat(), named = stat()
            if fstat(fd, &held) == 0 && stat(lock, &named) == 0 && held.st_dev == named.st_dev
                && held.st_ino == named.st_ino {
                return fd
            }
            flock(fd, LOCK_UN)
            close(fd)
        }
    }

    /// The sidecar lock file of `path`: `.NAME.lock` in the same directory.
    static func lockPath(for path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return ".\(path).lock" }
        return String(path[...slash]) + "." + path[path.index(after: slash)...] + ".lock"
    }
}
