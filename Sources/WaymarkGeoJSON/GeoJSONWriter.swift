import WaymarkGeo

/// Writes GeoJSON (RFC 7946).
///
/// - Positions are `[longitude, latitude]` rounded to ``precision`` decimal places (default 6,
///   about 0.1 m, as RFC 7946 §11.2 suggests), without trailing zeros.
/// - With ``splitsAntimeridian`` (default on), LineStrings and MultiLineStrings whose consecutive
///   positions are more than 180° of longitude apart are cut at ±180° into a MultiLineString
///   (RFC 7946 §3.1.9), the latitude of each cut interpolated linearly in longitude; Polygons
///   and MultiPolygons across ±180° are cut there into the parts on either side (a MultiPolygon).
/// - `bbox` members are written where the value carries one.
public struct GeoJSONWriter: Sendable {
    /// Decimal places for positions and bboxes.
    public var precision: Int
    /// Cut lines at the antimeridian (RFC 7946 §3.1.9).
    public var splitsAntimeridian: Bool
    /// Spaces per nesting level; 0 writes compact JSON.
    public var indent: Int

    public init(precision: Int = 6, splitsAntimeridian: Bool = true, indent: Int = 0) {
        self.precision = precision
        self.splitsAntimeridian = splitsAntimeridian
        self.indent = indent
    }

    /// The document as UTF-8 bytes, newline-terminated.
    public func data(_ object: GeoJSONObject) -> [UInt8] {
        var w = JSONWriter(indent: indent)
        switch object {
        case let .geometry(g): write(g, to: &w, level: 0)
        case let .feature(f): write(f, to: &w, level: 0)
        case let .featureCollection(c): write(c, to: &w, level: 0)
        }
        w.writeByte(0x0A)
        return w.bytes
    }

    /// The document as text, newline-terminated.
    public func string(_ object: GeoJSONObject) -> String {
        String(decoding: data(object), as: UTF8.self)
    }

    // MARK: - Objects

    public func write(_ collection: FeatureCollection, to w: inout JSONWriter, level: Int) {
        w.writeByte(UInt8(ascii: "{"))
        w.newline(level + 1)
        w.writeKey("type")
        w.writeString("FeatureCollection")
        if let bbox = collection.bbox { writeBBox(bbox, to: &w, level: level + 1) }
        w.writeByte(UInt8(ascii: ","))
        w.newline(level + 1)
        w.writeKey("features")
        w.beginArray()
        for (i, feature) in collection.features.enumerated() {
            if i > 0 { w.writeByte(UInt8(ascii: ",")) }
            // One feature per line even in compact mode keeps big files diffable and greppable.
            if w.indent > 0 { w.newline(level + 2) } else { w.writeByte(0x0A) }
            write(feature, to: &w, level: level + 2)
        }
        if !collection.features.isEmpty { if w.indent > 0 { w.newline(level + 1) } else { w.writeByte(0x0A) } }
        w.endArray()
        w.newline(level)
        w.writeByte(UInt8(ascii: "}"))
    }

    public func write(_ feature: Feature, to w: inout JSONWriter, level: Int) {
        w.writeByte(UInt8(ascii: "{"))
        w.newline(level + 1)
        w.writeKey("type")
        w.writeString("Feature")
        if let id = feature.id {
            w.writeByte(UInt8(ascii: ","))
            w.newline(level + 1)
            w.writeKey("id")
            switch id {
            case let .string(s): w.writeString(s)
            case let .number(n): w.writeNumber(n)
            }
        }
        if let bbox = feature.bbox { writeBBox(bbox, to: &w, level: level + 1) }
        w.writeByte(UInt8(ascii: ","))
        w.newline(level + 1)
        w.writeKey("geometry")
        if let geometry = feature.geometry { write(geometry, to: &w, level: level + 1) } else { w.writeRaw("null") }
        w.writeByte(UInt8(ascii: ","))
        w.newline(level + 1)
        w.writeKey("properties")
        if let properties = feature.properties {
            w.writeObject(properties, level: level + 1)
        } else {
            w.writeRaw("null")
        }
        w.newline(level)
        w.writeByte(UInt8(ascii: "}"))
    }

    public func write(_ geometry: Geometry, to w: inout JSONWriter, level: Int) {
        var geometry = geometry
        if splitsAntimeridian { geometry = GeoJSONWriter.splittingAntimeridian(geometry) }
        w.writeByte(UInt8(ascii: "{"))
        w.newline(level + 1)
        w.writeKey("type")
        w.writeString(geometry.typeName)
        w.writeByte(UInt8(ascii: ","))
        w.newline(level + 1)
        switch geometry {
        case let .geometryCollection(geometries):
            w.writeKey("geometries")
            w.beginArray()
            for (i, g) in geometries.enumerated() {
                if i > 0 { w.writeByte(UInt8(ascii: ",")) }
                w.newline(level + 2)
                write(g, to: &w, level: level + 2)
            }
            if !geometries.isEmpty { w.newline(level + 1) }
            w.endArray()
        case let .point(c):
            w.writeKey("coordinates")
            writePosition(c, to: &w)
        case let .multiPoint(cs), let .lineString(cs):
            w.writeKey("coordinates")
            writePositions(cs, to: &w)
        case let .multiLineString(lines), let .polygon(lines):
            w.writeKey("coordinates")
            writeLines(lines, to: &w)
        case let .multiPolygon(polygons):
            w.writeKey("coordinates")
            w.beginArray()
            for (i, p) in polygons.enumerated() {
                if i > 0 { w.writeByte(UInt8(ascii: ",")) }
                writeLines(p, to: &w)
            }
            w.endArray()
        }
        w.newline(level)
        w.writeByte(UInt8(ascii: "}"))
    }

    // MARK: - Positions

    private func writeBBox(_ box: BoundingBox, to w: inout JSONWriter, level: Int) {
        w.writeByte(UInt8(ascii: ","))
        w.newline(level)
        w.writeKey("bbox")
        w.beginArray()
        for (i, v) in box.array.enumerated() {
            if i > 0 { w.writeByte(UInt8(ascii: ",")) }
            w.writeNumber(v, decimals: precision)
        }
        w.endArray()
    }

    private func writePosition(_ c: Coordinate, to w: inout JSONWriter) {
        w.beginArray()
        w.writeNumber(c.longitude, decimals: precision)
        w.writeByte(UInt8(ascii: ","))
        w.writeNumber(c.latitude, decimals: precision)
        w.endArray()
    }

    private func writePositions(_ cs: [Coordinate], to w: inout JSONWriter) {
        w.beginArray()
        for (i, c) in cs.enumerated() {
            if i > 0 { w.writeByte(UInt8(ascii: ",")) }
            writePosition(c, to: &w)
        }
        w.endArray()
    }

    private func writeLines(_ lines: [[Coordinate]], to w: inout JSONWriter) {
        w.beginArray()
        for (i, line) in lines.enumerated() {
            if i > 0 { w.writeByte(UInt8(ascii: ",")) }
            writePositions(line, to: &w)
        }
        w.endArray()
    }

    // MARK: - Antimeridian (RFC 7946 §3.1.9)

    /// The geometry with every LineString / MultiLineString cut where it crosses ±180°.
    /// A LineString that needs no cut stays a LineString; one that does becomes a MultiLineString.
    public static func splittingAntimeridian(_ geometry: Geometry) -> Geometry {
        switch geometry {
        case let .lineString(line):
            let parts = splitLine(line)
            return parts.count == 1 ? .lineString(parts[0]) : .multiLineString(parts)
        case let .multiLineString(lines):
            return .multiLineString(lines.flatMap(splitLine))
        case let .polygon(rings):
            let parts = splitPolygon(rings)
            return parts.count == 1 ? .polygon(parts[0]) : .multiPolygon(parts)
        case let .multiPolygon(polygons):
            return .multiPolygon(polygons.flatMap(splitPolygon))
        case let .geometryCollection(geometries):
            return .geometryCollection(geometries.map(splittingAntimeridian))
        default:
            return geometry
        }
    }

    /// Cuts a polygon that crosses ±180° into its parts on either side: each ring is made
    /// continuous in longitude (holes beside the exterior), clipped to each side of the cut, and
    /// the far side moved back by 360°. A polygon that does not cross is returned as it is.
    static func splitPolygon(_ rings: [[Coordinate]]) -> [[[Coordinate]]] {
        let crosses = rings.contains { ring in
            zip(ring, ring.dropFirst()).contains { ($1.longitude - $0.longitude).magnitude > 180 }
        }
        guard crosses, let exterior = rings.first, !exterior.isEmpty else { return [rings] }
        let reference = exterior[0].longitude
        let continuous = rings.map { ring -> [(x: Double, y: Double)] in
            var previous = reference, out: [(x: Double, y: Double)] = []
            for c in ring {
                var x = c.longitude
                while x - previous > 180 { x -= 360 }
                while x - previous < -180 { x += 360 }
                out.append((x, c.latitude))
                previous = x
            }
            return out
        }
        let xs = continuous.flatMap { $0.map(\.x) }
        let cut: Double = (xs.max() ?? 0) > 180 ? 180 : -180
        var parts: [[[Coordinate]]] = []
        for (keepsLow, shift) in [(true, cut < 0 ? 360.0 : 0), (false, cut > 0 ? -360.0 : 0)] {
            var polygon: [[Coordinate]] = []
            for (k, ring) in continuous.enumerated() {
                let clipped = clip(ring, at: cut, keepingLow: keepsLow)
                guard clipped.count >= 4 else {
                    if k == 0 { break } else { continue }
                }
                polygon.append(clipped.map { Coordinate(latitude: $0.y, longitude: $0.x + shift) })
            }
            if !polygon.isEmpty { parts.append(polygon) }
        }
        return parts.isEmpty ? [rings] : parts
    }

    /// Sutherland–Hodgman against the vertical line x = `line`: the part of a closed ring west of
    /// it (`keepingLow`) or east of it, closed again.
    static func clip(_ ring: [(x: Double, y: Double)], at line: Double, keepingLow: Bool) -> [(x: Double, y: Double)] {
        func inside(_ p: (x: Double, y: Double)) -> Bool { keepingLow ? p.x <= line : p.x >= line }
        var out: [(x: Double, y: Double)] = []
        let points = ring.count > 1 && ring[0] == ring[ring.count - 1] ? Array(ring.dropLast()) : ring
        for (i, current) in points.enumerated() {
            let previous = points[(i + points.count - 1) % points.count]
            if inside(current) != inside(previous) {
                let t = (line - previous.x) / (current.x - previous.x)
                out.append((line, previous.y + t * (current.y - previous.y)))
            }
            if inside(current) { out.append(current) }
        }
        if let first = out.first { out.append(first) }
        return out
    }

    /// Cuts a line into parts that never jump more than 180° of longitude between neighbours.
    static func splitLine(_ line: [Coordinate]) -> [[Coordinate]] {
        guard line.count >= 2 else { return [line] }
        var parts: [[Coordinate]] = []
        var current: [Coordinate] = [line[0]]
        for (a, b) in zip(line, line.dropFirst()) {
            let delta = b.longitude - a.longitude
            if delta.magnitude > 180 {
                // Going east across 180° when delta < -180 (e.g. 170 → -170), west when > 180.
                let eastward = delta < 0
                let edge: Double = eastward ? 180 : -180
                let unwrappedB = b.longitude + (eastward ? 360 : -360)
                let t = (edge - a.longitude) / (unwrappedB - a.longitude)
                let latitude = a.latitude + t * (b.latitude - a.latitude)
                if a.longitude != edge { current.append(Coordinate(latitude: latitude, longitude: edge)) }
                if current.count >= 2 { parts.append(current) }
                current = b.longitude == -edge ? [] : [Coordinate(latitude: latitude, longitude: -edge)]
            }
            current.append(b)
        }
        if current.count >= 2 { parts.append(current) }
        return parts.isEmpty ? [line] : parts
    }
}
