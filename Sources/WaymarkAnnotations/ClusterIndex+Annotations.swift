import WaymarkGeo
import WaymarkGeoJSON

extension ClusterIndex {
    /// An index over annotations; `groupBy` names a property whose string value is the annotation's
    /// clustering identifier (annotations without it never cluster). `unlocatedCount`: features
    /// the file had without a geometry (``AnnotationReader/readGeoJSON(_:file:unlocated:)``),
    /// counted in the ids' offset as supercluster counts them.
    public convenience init(annotations: [Annotation], options: ClusterOptions = ClusterOptions(),
                            aggregation: ClusterAggregation? = nil, groupBy: String? = nil,
                            unlocatedCount: Int = 0) throws(ClusterError) {
        let identifiers: [String?]? = groupBy.map { key in
            annotations.map { annotation in
                switch key {
                case "title": return annotation.title
                case "subtitle": return annotation.subtitle
                default: return annotation.properties[key]?.stringValue
                    ?? annotation.properties[key].map { $0.jsonText() }
                }
            }
        }
        try self.init(coordinates: annotations.map(\.coordinate),
                      properties: aggregation == nil ? [] : annotations.map { $0.feature.properties ?? [:] },
                      options: options, aggregation: aggregation, clusteringIdentifiers: identifiers,
                      unlocatedCount: unlocatedCount)
    }
}

extension ClusterItem {
    /// The item as a GeoJSON feature: a cluster with supercluster's properties (`cluster`,
    /// `cluster_id`, `point_count`, `point_count_abbreviated`) and its id, or the annotation itself.
    public func feature(annotations: [Annotation]) -> Feature {
        switch self {
        case let .point(index):
            return annotations[index].feature
        case let .cluster(cluster):
            return Feature(id: .number(Double(cluster.id)), geometry: .point(cluster.coordinate),
                           properties: cluster.geoJSONProperties)
        }
    }
}
