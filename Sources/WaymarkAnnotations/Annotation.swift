import WaymarkGeo
import WaymarkGeoJSON

/// A point of interest on a map, like `MKPointAnnotation`: a coordinate, a title and subtitle for
/// its callout, and any other properties it was read with (kept and written back out).
public struct Annotation: Sendable, Equatable {
    public var coordinate: Coordinate
    public var title: String?
    public var subtitle: String?
    /// The feature id it was read with, if any.
    public var id: FeatureID?
    /// Properties other than `title` and `subtitle`, in their original order.
    public var properties: JSONObject

    public init(coordinate: Coordinate, title: String? = nil, subtitle: String? = nil,
                id: FeatureID? = nil, properties: JSONObject = [:]) {
        self.coordinate = coordinate
        self.title = title
        self.subtitle = subtitle
        self.id = id
        self.properties = properties
    }

    /// The annotation as a GeoJSON Point feature: `title` and `subtitle` first, then the other properties.
    public var feature: Feature {
        var all = JSONObject()
        if let title { all["title"] = .string(title) }
        if let subtitle { all["subtitle"] = .string(subtitle) }
        for (key, value) in properties { all[key] = value }
        return Feature(id: id, geometry: .point(coordinate), properties: all)
    }
}

extension Array where Element == Annotation {
    /// The position of the first annotation whose feature id is `id` (a string id, or a number id
    /// written the way JSON writes it: `7`, `2.5`).
    public func firstIndex(ofID id: String) -> Int? {
        firstIndex { $0.id?.description == id }
    }

    /// The annotations as a GeoJSON FeatureCollection of Points.
    public var featureCollection: FeatureCollection {
        FeatureCollection(features: map(\.feature))
    }
}

extension String {
    /// Whether the text holds a control character (C0, DEL, C1: what a terminal would act on).
    public var containsControlCharacters: Bool {
        unicodeScalars.contains { $0.value < 0x20 || (0x7F..<0xA0).contains($0.value) }
    }

    /// The text with its control characters written out (`\n`, `\t`, `\r`, `\u{1B}`), so printing
    /// it cannot move the cursor, recolour the terminal or break a line.
    public var escapingControlCharacters: String {
        guard containsControlCharacters else { return self }
        var out = ""
        for scalar in unicodeScalars {
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || (0x7F..<0xA0).contains(scalar.value):
                out += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
