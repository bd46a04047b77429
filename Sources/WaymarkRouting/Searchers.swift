import WaymarkPreparation
import WaymarkGuidance
import WaymarkQueries

// The searches of the query core, made on a loaded map for an app that runs them itself.

extension HierarchySearch {
    /// A searcher on the map's hierarchy (the map must route on one: ``RoadMap/SearchMethod/hierarchy``,
    /// or a stored one).
    public convenience init(map: RoadMap) {
        let data = map.data().data
        precondition(data.hierarchy != nil, "the map routes without a contraction hierarchy (method: \(map.method))")
        self.init(data: data)
    }
}

extension RouteSearch {
    /// A searcher on the map's data; `landmarks: false` bounds by great-circle distance even where
    /// the map has landmarks.
    public convenience init(map: RoadMap, landmarks: Bool = true) {
        self.init(data: map.data().data, landmarks: landmarks)
    }
}
