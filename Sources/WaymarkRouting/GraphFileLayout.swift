import WaymarkGraph
import WaymarkGuidance
import WaymarkPreparation

/// Every part a graph file may hold: the road graph, the hierarchy (with the turn tables it was
/// contracted on) and those keeping off classes of road, or the turn tables alone with the turn
/// costs they were made under, the basemap,
/// the snap index and guidance's tables. ``RoadMap/write(to:)`` writes each part's sections
/// together, in the part's order. A new part made once per map is added here; its tags may not
/// be another part's.
public enum GraphFileLayout {
    // (Computed: a stored array of metatypes is shared state Swift 6 cannot prove safe, and
    // warned so once per module that imports this one.)
    public static var parts: [any GraphFilePart.Type] {
        [RoadGraph.self, ContractionHierarchy.self, ExcludedHierarchies.self, StoredDissection.self,
         StoredTurnTables.self, TurnGeometry.self,
         TransitionTable.self, Basemap.self, SnapIndex.self, GuidanceTables.self]
    }

    /// The part that owns `tag`, if any (a later version's tags belong to none: readers skip them).
    public static func part(owning tag: String) -> (any GraphFilePart.Type)? {
        parts.first { $0.owns(tag) }
    }

    /// The names of the parts stored in `sections` (the graph's extra sections), in file order.
    public static func storedParts(in sections: FileSections) -> [String] {
        parts.dropFirst().filter { $0.isStored(in: sections) }.map { $0.partName }
    }

    /// How many sections the parts made while a file is written hold: the snap index and
    /// guidance's tables, and the turn tables where no hierarchy keeps them.
    static func laterSectionCount(withHierarchy: Bool) -> Int {
        let turnTables: [any GraphFilePart.Type] = withHierarchy
            ? [] : [StoredTurnTables.self, TurnGeometry.self, TransitionTable.self]
        return (turnTables + [SnapIndex.self, GuidanceTables.self]).reduce(0) { $0 + $1.fileSectionCount }
    }
}
