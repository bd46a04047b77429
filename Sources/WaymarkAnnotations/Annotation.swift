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
