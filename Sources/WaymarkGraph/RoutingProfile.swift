/// What the tags of ways, nodes and turn restrictions mean for one mode of travel (OSRM's Lua
/// profile: `process_way`, `process_node` and its restriction settings). Readers keep only the
/// keys a profile reads and hand it each element's tags; the graph builder stores what it
/// decides. The graph and the searches never read tags.
public protocol RoutingProfile: Sendable {
    /// Which of OSRM's profiles this is (recorded in the graph built with it).
    var travel: TravelProfile { get }
    /// The OSM tag keys the profile reads on ways and on nodes (a reader may drop every other).
    var tagKeys: Set<String> { get }
    /// Seconds for passing a vertex with traffic signals.
    var trafficSignalDelay: Double { get }
    /// Seconds for passing traffic signals between junctions whichever way they face, on top of
    /// ``trafficSignalDelay`` the way they face (OSRM prices such a node as a turn where two
    /// roads meet); none unless the profile says.
    var signalPassingDelay: Double { get }
    /// What a way is for this mode; nil where it cannot be used at all.
    func way(_ tags: [String: String]) -> WayRule?
    /// What a node is for this mode (barriers, signals, places to turn round).
    func node(_ tags: [String: String]) -> NodeRule
    /// The kind of a `type=restriction` relation this mode obeys; nil where it does not apply.
    func restriction(_ tags: [String: String]) -> RestrictionKind?
    /// Whether the relation may name several `from` or `to` ways (OSRM reads only the first of
    /// each otherwise).
    func restrictionMayNameSeveralWays(_ tags: [String: String]) -> (from: Bool, to: Bool)
}

extension RoutingProfile {
    public var signalPassingDelay: Double { 0 }
}
