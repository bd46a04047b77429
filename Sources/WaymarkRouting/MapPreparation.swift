import Dispatch
import WaymarkGraph
import WaymarkGuidance
import WaymarkPreparation
import WaymarkProfiles
import WaymarkQueries
import WaymarkSupport

/// What every query on one map shares, prepared once: the searches' data (``RoutingData``) and
/// guidance's tables.
struct PreparedMap: Sendable {
    let data: RoutingData
    let guidance: GuidanceTables
    let preparation: RoadMap.Preparation
    /// The topology the hierarchy was customized on, when it was (hierarchies keeping off
    /// classes are customized on it too).
    var topology: CustomizableTopology? = nil
}

extension RoadMap {
    /// Builds what `method` needs: the stored hierarchy (its turn tables serve every search) or a
    /// contracted one — customized on `dissection` when given — landmarks, or nothing more for A*.
    /// `measures`: guidance's tables of these roads without the turn verdicts, which are made.
    /// `topology`: the one `dissection` gives for these roads' turns, when made already.
    static func makePreparedMap(graph: RoadGraph, method: SearchMethod, stored: ContractionHierarchy?,
                                guidance: GuidanceTables? = nil, snapIndex storedIndex: SnapIndex? = nil,
                                turns storedTurns: StoredTurns? = nil, measures: GuidanceTables? = nil,
                                landmarks givenLandmarks: Landmarks?,
                                costs givenCosts: TurnCosts?, dissection: [UInt32]? = nil,
                                topology givenTopology: CustomizableTopology? = nil,
                                progress: ContractionHierarchy.Progress? = nil) -> PreparedMap {
        func since(_ t: UInt64) -> Double { Double(DispatchTime.now().uptimeNanoseconds - t) / 1e9 }
        let costs = givenCosts ?? TurnCosts(for: graph)
        let useHierarchy = method == .hierarchy || (method == .automatic && stored != nil)
        var hierarchy = useHierarchy ? stored : nil
        var clock = DispatchTime.now().uptimeNanoseconds
        // A stored hierarchy's turn tables serve every search, whether or not routes run on it;
        // otherwise the turns are measured on guidance's perceived bearings (as OSRM's are).
        var measured = guidance ?? measures
        let turns: TurnGeometry
        if let kept = stored?.turns ?? storedTurns?.turns {
            turns = kept
        } else {
            let tables = guidance ?? GuidanceTables(graph: graph)
            measured = tables
            turns = tables.turnGeometry(graph: graph)
        }
        var indexSeconds = since(clock)
        // The search structure first, the snap index after it: contraction's peak memory then
        // does not hold the index too.
        clock = DispatchTime.now().uptimeNanoseconds
        var landmarks = givenLandmarks
        var refused: String?
        var topology: CustomizableTopology?
        var index = storedIndex, guidance = guidance
        if useHierarchy && hierarchy == nil {
            refused = ContractionHierarchy.refusal(for: graph)
            if refused == nil, let dissection {
                let made = customizedHierarchy(graph: graph, costs: costs, turns: turns, dissection: dissection,
                                               topology: givenTopology, index: index, guidance: guidance,
                                               measured: measured)
                (topology, hierarchy, index, guidance) = (made.topology, made.hierarchy, made.index, made.guidance)
            } else if refused == nil {
                hierarchy = ContractionHierarchy(graph: graph, costs: costs, turns: turns, progress: progress)
            }
        }
        // Landmarks where asked for, or for the many queries a hierarchy was asked for but refused.
        if hierarchy == nil && landmarks == nil && (method == .landmarks || refused != nil) {
            landmarks = Landmarks(graph: graph)
        }
        let transitions = (hierarchy ?? stored)?.transitions ?? storedTurns?.transitions
            ?? TransitionTable(graph: graph, turns: turns, costs: costs)
        let searchSeconds = since(clock)
        clock = DispatchTime.now().uptimeNanoseconds
        if index == nil { index = SnapIndex(graph: graph) }
        indexSeconds += since(clock)
        let data = RoutingData(graph: graph, snapIndex: index!, costs: costs, turns: turns, transitions: transitions,
                               landmarks: landmarks, hierarchy: hierarchy)
        // Guidance's tables are guidance's code; preparing a map calls it (the bearings once).
        let tables = guidance
            ?? measured.map { $0.addingVerdicts(graph: graph, transitions: transitions) }
            ?? GuidanceTables(graph: graph, transitions: transitions)
        let search: SearchMethod = hierarchy != nil ? .hierarchy : landmarks != nil ? .landmarks : .aStar
        let preparation = RoadMap.Preparation(search: search,
                                              contracted: hierarchy != nil && stored == nil,
                                              indexSeconds: indexSeconds, searchSeconds: searchSeconds,
                                              hierarchyRefused: refused)
        return PreparedMap(data: data, guidance: tables, preparation: preparation, topology: topology)
    }

    /// The hierarchy customized on `dissection` (or on `topology`, made already) and, beside it,
    /// what needs no hierarchy and is not given yet: the snap index, and guidance's tables from
    /// the `measured` ones (the turn verdicts added).
    private static func customizedHierarchy(graph: RoadGraph, costs: TurnCosts, turns: TurnGeometry,
                                            dissection: [UInt32], topology given: CustomizableTopology?,
                                            index: SnapIndex?, guidance: GuidanceTables?, measured: GuidanceTables?)
        -> (topology: CustomizableTopology, hierarchy: ContractionHierarchy, index: SnapIndex,
            guidance: GuidanceTables?) {
        let table = TransitionTable(graph: graph, turns: turns, costs: costs)
        let (made, beside) = inParallel({ () -> (CustomizableTopology, ContractionHierarchy) in
            let topology = given ?? CustomizableTopology(graph: graph, transitions: table, edgePositions: dissection)
            return (topology, ContractionHierarchy(graph: graph, costs: costs, turns: turns, topology: topology,
                                                   transitions: table))
        }, {
            (index ?? SnapIndex(graph: graph),
             guidance ?? measured.map { $0.addingVerdicts(graph: graph, transitions: table) })
        })
        return (made.0, made.1, beside.0, beside.1)
    }
}
