import WaymarkGraph
import WaymarkProfiles

/// The hierarchies a map keeps for routes that keep off classes of road (OSRM's `exclude`), one
/// per set of the classes the map has, stored beside the map's own hierarchy: the sets
/// (`XSET`, their raw values), then each one's search sections under tags of its own (the
/// hierarchy's tags with the set's digit for their `H`). Their turn tables are the map's own,
/// masked (``TransitionTable/excluding(_:graph:)``), so none is stored.
public enum ExcludedHierarchies: GraphFilePart {
    public static let partName = "hierarchies keeping off classes (exclude)"
    public static let sectionTags = ["XSET"] + (1...7).flatMap { set in
        ContractionHierarchy.sectionTags.map { tag($0, set: UInt8(set)) }
    }

    static func tag(_ hierarchyTag: String, set: UInt8) -> String { "\(set)" + hierarchyTag.dropFirst() }

    /// The sections for `hierarchies`, each contracted without the classes it is listed with.
    public static func fileSections(_ hierarchies: [(ExcludedClasses, ContractionHierarchy)]) -> [GraphFile.Section] {
        guard !hierarchies.isEmpty else { return [] }
        let sorted = hierarchies.sorted { $0.0.rawValue < $1.0.rawValue }
        return [GraphFile.Section("XSET", sorted.map { $0.0.rawValue })]
            + sorted.flatMap { set, hierarchy in
                hierarchy.searchSections.map { $0.renamed(tag($0.tag, set: set.rawValue)) }
            }
    }

    /// The sets whose hierarchies the sections hold.
    public static func sets(in sections: FileSections) -> [ExcludedClasses] {
        guard let raw = sections.column("XSET", as: UInt8.self) else { return [] }
        return raw.filter { (1...7).contains($0) }.map(ExcludedClasses.init(rawValue:))
    }

    /// The stored hierarchy keeping off `set`, checked against the graph as the map's own is;
    /// nil when none is stored. `turns` and `transitions` are the map's own, the latter masked
    /// for the set.
    package static func hierarchy(keepingOff set: ExcludedClasses, in sections: FileSections, graph: RoadGraph,
                                  costs: TurnCosts, turns: TurnGeometry, transitions: TransitionTable,
                                  alreadyChecked: Bool) throws(HierarchyFileError) -> ContractionHierarchy? {
        guard sets(in: sections).contains(set) else { return nil }
        let renaming = Dictionary(uniqueKeysWithValues: ContractionHierarchy.sectionTags.map {
            (tag($0, set: set.rawValue), $0)
        })
        return try ContractionHierarchy(fileSections: sections.renamed(renaming), graph: graph, costs: costs,
                                        turns: turns, transitions: transitions, alreadyChecked: alreadyChecked)
    }
}
