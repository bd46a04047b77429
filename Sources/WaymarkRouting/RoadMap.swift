import WaymarkGuidance
import WaymarkQueries
import Foundation
import WaymarkGeo
import WaymarkGraph
import WaymarkPreparation
import WaymarkProfiles
import WaymarkSupport

/// A loaded road map that answers many routing queries: the one entry point for apps and servers.
///
/// ```swift
/// let map = try RoadMap(contentsOf: url)                 // .wmg, or .osm/.osm.gz built in memory
/// let route = try map.route(from: a, to: b, via: [])     // thread-safe; many at once
/// let json = route.osrmJSON()
/// ```
///
/// A map owns what every query shares — the graph, the snap index, the turn geometry and turn-cost
/// table, and the landmarks or contraction hierarchy the search runs on — prepared once, at the
/// first query or by ``prepare()``, and never changed after. Each query runs on a ``Router``, which
/// owns only its search's scratch: ``route(from:to:via:)`` takes one from a pool, so any number of
/// threads may call it at once; callers that manage their own threads make one router per thread
/// with ``makeRouter()``.
public final class RoadMap: @unchecked Sendable {
    /// How routes are searched. Both searches are exact and return the same costs.
    public enum SearchMethod: String, Sendable, CaseIterable {
        /// The map's stored contraction hierarchy when it has one, otherwise ``aStar``: nothing
        /// to prepare, whatever the map's size. The choice for a few queries.
        case automatic
        /// A contraction hierarchy: the stored one, or one contracted at preparation (seconds on a
        /// city, then a fraction of a millisecond per route). The choice for many queries.
        case hierarchy
        /// ALT: A* bounded by travel times to and from 32 landmarks, made at preparation (a
        /// tenth of a second on a city, seconds on a country), then a search that settles a
        /// twentieth of Dijkstra's states. Even when the map stores a hierarchy.
        case landmarks
        /// A* bounded by great-circle distance at the fastest road's speed: nothing made at
        /// preparation, each search wider than ALT's (the answers are the same). Even when the map
        /// stores a hierarchy.
        case aStar
    }

    /// What preparing the map did, and how long it took.
    public struct Preparation: Sendable {
        /// The search routes run on.
        public var search: SearchMethod
        /// Whether the hierarchy was contracted during preparation (rather than read with the graph).
        public var contracted: Bool
        /// Seconds spent on the snap index and the turn geometry.
        public var indexSeconds: Double
        /// Seconds spent on the search structure: landmarks, or contracting the hierarchy (next
        /// to nothing for a stored one), and the turn-cost table.
        public var searchSeconds: Double
        /// Why a hierarchy was asked for but not contracted (``ContractionHierarchy/refusal(for:)``):
        /// routes then use landmarks.
        public var hierarchyRefused: String?
    }

    public let graph: RoadGraph
    public let method: SearchMethod
    /// How far a waypoint may be from its road, in metres.
    public let maxSnapDistance: Double
    /// Why a contraction hierarchy stored with the graph is not used (it was contracted for the
    /// other driving side), or nil.
    public let setAsideHierarchy: String?

    private let storedHierarchy: ContractionHierarchy?
    /// Guidance's per-map tables and the snap index as the graph file stores them (nil: made
    /// when prepared).
    private let storedGuidance: GuidanceTables?
    private let storedSnapIndex: SnapIndex?
    /// The turn tables as a graph file without a hierarchy stores them (nil: made when prepared;
    /// the weights nil where made under other turn costs).
    private let storedTurns: StoredTurns?
    /// Guidance's measures of the roads without the turn verdicts (nil: made when prepared).
    private let guidanceMeasures: GuidanceTables?
    typealias StoredTurns = (turns: TurnGeometry, transitions: TransitionTable?)
    private let givenLandmarks: Landmarks?
    private let costs: TurnCosts?
    /// What the map shows besides roads: given, or a graph file's sections (read when asked).
    private let basemapSource: BasemapSource

    private enum BasemapSource {
        case none
        case given(Basemap)
        case stored(FileSections)
    }
    private let lock = NSLock()
    /// Guarded by `lock`.
    private var prepared: PreparedMap?
    private var idleRouters: [Router] = []
    /// The map keeping off each set of classes asked for so far, the searches of each set of
    /// classes on the map, and the idle routers of each (guarded by `lock`; made under
    /// `excludingLock`, which queries of the map's own set never wait for).
    private var preparedExcluding: [ExcludedClasses: PreparedMap] = [:]
    private var searchesExcluding: [ExcludedClasses: RoutingData] = [:]
    private var idleRoutersExcluding: [ExcludedClasses: [Router]] = [:]
    private let excludingLock = NSLock()
    /// The excludable classes on the map, found at the first query keeping off any (guarded by
    /// `excludingLock`).
    private var presentClasses: ExcludedClasses?
    /// The hierarchies keeping off classes a graph file stores (``ExcludedHierarchies``), read at
    /// the first query of each set.
    private let storedExclusions: FileSections?
    /// The map's edges in nested-dissection order (``NestedDissection``), which hierarchies are
    /// customized on: read with the graph, carried from the map this one customizes, or made
    /// when first needed; and the topology made from it (both guarded by `lock`).
    private var dissection: [UInt32]?
    private var topology: CustomizableTopology?
    /// Whether the map's own hierarchy is customized rather than contracted (a customized map's).
    private var customizesHierarchy = false

    /// A map over a graph already in memory. `hierarchy` (contracted for this graph and its
    /// driving side) and `landmarks` are used as given; what `method` needs beyond them is
    /// prepared at the first query. `costs` replaces the graph's own turn costs.
    public convenience init(graph: RoadGraph, hierarchy: ContractionHierarchy? = nil, landmarks: Landmarks? = nil,
                            method: SearchMethod = .automatic, costs: TurnCosts? = nil, maxSnapDistance: Double = 1000,
                            basemap: Basemap? = nil) {
        self.init(graph: graph, hierarchy: hierarchy, landmarks: landmarks, method: method, costs: costs,
                  maxSnapDistance: maxSnapDistance, basemap: basemap, reusing: nil)
    }

    /// What a customized map with the same roads takes from the map it customizes: what depends on
    /// the roads' shapes and not on their speeds — the turn verdicts too, where the map has them:
    /// with no road closed, new speeds and turn penalties allow and forbid the same turns.
    struct Reused {
        let snapIndex: SnapIndex
        let turns: TurnGeometry
        let guidance: GuidanceTables
    }

    private init(graph: RoadGraph, hierarchy: ContractionHierarchy?, landmarks: Landmarks?, method: SearchMethod,
                 costs: TurnCosts?, maxSnapDistance: Double, basemap: Basemap?, reusing reused: Reused?) {
        basemapSource = basemap.map { .given($0) } ?? .none
        precondition(hierarchy.map { $0.nodeCount == RestrictedPaths(graph: graph).stateCount } ?? true,
                     "the hierarchy was built for another graph")
        precondition(hierarchy.map { $0.costs == (costs ?? TurnCosts(for: graph)) } ?? true,
                     "the hierarchy was contracted under other turn costs")
        self.graph = graph
        self.storedHierarchy = hierarchy
        storedExclusions = nil
        storedGuidance = reused.flatMap { $0.guidance.hasVerdicts ? $0.guidance : nil }
        storedSnapIndex = reused?.snapIndex
        storedTurns = reused.map { ($0.turns, nil) }
        guidanceMeasures = reused?.guidance
        self.givenLandmarks = landmarks
        self.method = method
        self.costs = costs
        self.maxSnapDistance = maxSnapDistance
        setAsideHierarchy = nil
    }

    /// A map from a graph file (`waymark build`), with the contraction hierarchy it stores, if
    /// any. A `drivingSide` other than the file's replaces it; a stored hierarchy (contracted for
    /// the other side) is then set aside, and ``setAsideHierarchy`` says so. `memory`: the file
    /// mapped or read whole (``memory(for:)`` chooses by the work to come).
    public init(graphFile path: String, drivingSide: DrivingSide? = nil, method: SearchMethod = .automatic,
                maxSnapDistance: Double = 1000, memory: FileMemory = .mapped) throws(RoadMapError) {
        let file: GraphFile.Opened
        do { file = try GraphFile.open(path: path, memory: memory) } catch { throw RoadMapError("\(error)") }
        var graph = file.graph
        let sections = file.extra, checked = file.alreadyChecked
        var setAside: String?
        var useHierarchy = true
        if let drivingSide, drivingSide != graph.drivingSide {
            graph.drivingSide = drivingSide
            useHierarchy = false
            if ContractionHierarchy.isStored(in: sections) {
                let other = drivingSide == .left ? "right" : "left"
                setAside = "\(path): its hierarchy was contracted for \(other)-hand traffic; not using it"
            }
        }
        // The stored hierarchy (or the turn tables stored without one) is checked on one core,
        // guidance's tables and the snap index on the other.
        let read = graph
        let (hierarchy, tables) = inParallel({
            Result { () throws(RoadMapError) -> (ContractionHierarchy?, StoredTurns?) in
                if useHierarchy, ContractionHierarchy.isStored(in: sections) {
                    do {
                        let stored = try ContractionHierarchy(fileSections: sections, graph: read,
                                                              alreadyChecked: checked)
                        return (stored, nil)
                    } catch {
                        throw RoadMapError("\(path): \(error)")
                    }
                }
                do throws(HierarchyFileError) {
                    return (nil,
                            try StoredTurnTables.read(sections, graph: read, costs: TurnCosts(for: read),
                                                      alreadyChecked: checked))
                } catch {
                    throw RoadMapError("\(path): stored turn tables: \(error.reason) (rebuild with 'waymark build')")
                }
            }
        }, {
            Result { () throws(RoadMapError) -> (GuidanceTables?, SnapIndex?) in
                let guidance: GuidanceTables?, index: SnapIndex?
                do {
                    guidance = try GuidanceTables(fileSections: sections, graph: read, alreadyChecked: checked)
                    index = try SnapIndex(fileSections: sections, graph: read, alreadyChecked: checked)
                } catch {
                    throw RoadMapError("\(path): \(error)")
                }
                return (guidance, index)
            }
        })
        let (stored, turns) = try hierarchy.get()
        storedTurns = turns
        (storedGuidance, storedSnapIndex) = try tables.get()
        // Every section passed: a large file need not be checked at its next load.
        if useHierarchy || !ContractionHierarchy.isStored(in: sections) { file.markChecked() }
        basemapSource = Basemap.isStored(in: sections) ? .stored(sections.filter(Basemap.owns)) : .none
        self.graph = graph
        storedHierarchy = stored
        storedExclusions = stored != nil && ExcludedHierarchies.isStored(in: sections)
            ? sections.filter(ExcludedHierarchies.owns) : nil
        dissection = stored != nil ? StoredDissection.read(sections, graph: graph) : nil
        givenLandmarks = nil
        guidanceMeasures = nil
        self.method = method
        costs = nil
        self.maxSnapDistance = maxSnapDistance
        setAsideHierarchy = setAside
    }

    /// The contraction hierarchy the map holds — read with the graph, or contracted by
    /// ``prepare()`` — whether or not ``method`` routes on it. Asking does not prepare anything.
    public var hierarchy: ContractionHierarchy? {
        lock.withLock { prepared?.data.hierarchy ?? storedHierarchy }
    }

    /// Prepares the map for queries now rather than at the first one: the snap index, the turn
    /// tables, and the landmarks or hierarchy ``method`` calls for. Later calls return at once.
    /// `progress` hears how contraction goes, when the hierarchy is contracted here.
    @discardableResult
    public func prepare(progress: ContractionHierarchy.Progress? = nil) -> Preparation {
        data(progress: progress).preparation
    }

    /// The shared data, prepared once.
    func data(progress: ContractionHierarchy.Progress? = nil) -> PreparedMap {
        lock.withLock {
            if let prepared { return prepared }
            let order = customizesHierarchy ? dissection ?? NestedDissection.edgePositions(graph: graph) : nil
            let made = RoadMap.makePreparedMap(graph: graph, method: method, stored: storedHierarchy,
                                               guidance: storedGuidance, snapIndex: storedSnapIndex,
                                               turns: storedTurns, measures: guidanceMeasures,
                                               landmarks: givenLandmarks, costs: costs, dissection: order,
                                               topology: customizesHierarchy ? topology : nil, progress: progress)
            prepared = made
            if made.topology != nil { (topology, dissection) = (made.topology, order) }
            return made
        }
    }

    /// A router of its own, for a caller that runs queries on threads it manages: one per thread.
    /// `excluding`: its routes, tables and isochrones keep off roads of those classes.
    public func makeRouter(excluding classes: ExcludedClasses = []) -> Router {
        Router(map: self, prepared: data(excluding: classes))
    }

    /// The shared data of the map keeping off `classes`, made at the first query that asks (the
    /// turn table masked, the hierarchy customized without those on the map), once per set.
    func data(excluding classes: ExcludedClasses) -> PreparedMap {
        let base = data()
        if classes.isEmpty { return base }
        if let made = lock.withLock({ preparedExcluding[classes] }) { return made }
        return excludingLock.withLock {
            if let made = lock.withLock({ preparedExcluding[classes] }) { return made }
            let present = presentClasses ?? graph.excludableClassesPresent
            presentClasses = present
            // One hierarchy per set of the classes on the map, whatever else a request names:
            // stored with the graph, or contracted now. (None of them on the map: its own.)
            let effective = classes.intersection(present)
            var searches = base.data
            if !effective.isEmpty {
                searches = lock.withLock({ searchesExcluding[effective] })
                    ?? excludingData(effective, base: base)
                lock.withLock { searchesExcluding[effective] = searches }
            }
            let made = PreparedMap(data: searches.marked(excluding: classes), guidance: base.guidance,
                                   preparation: base.preparation)
            lock.withLock { preparedExcluding[classes] = made }
            return made
        }
    }

    /// The searches keeping off `classes` (on the map): the file's hierarchy for them, or one
    /// customized on the map's topology (made at the first set asked for).
    private func excludingData(_ classes: ExcludedClasses, base: PreparedMap) -> RoutingData {
        if let stored = storedHierarchy(keepingOff: classes, base: base) {
            return base.data.excluding(classes, stored: stored)
        }
        guard base.data.hierarchy != nil else { return base.data.excluding(classes) }
        return base.data.excluding(classes, topology: topology(base))
    }

    /// The map's customizable topology, made at the first call (under `excludingLock`).
    private func topology(_ base: PreparedMap) -> CustomizableTopology {
        if let made = lock.withLock({ topology }) { return made }
        let made = CustomizableTopology(graph: graph, transitions: base.data.transitions,
                                        edgePositions: dissectionOrder())
        lock.withLock { topology = made }
        return made
    }

    /// The map's dissection: stored, carried or made now (and kept).
    private func dissectionOrder() -> [UInt32] {
        if let known = lock.withLock({ dissection }) { return known }
        let made = NestedDissection.edgePositions(graph: graph)
        lock.withLock { dissection = made }
        return made
    }

    /// The hierarchy keeping off `classes` the graph file stores, if it does and the map routes
    /// on the file's hierarchy. (One that fails its checks is made again instead.)
    private func storedHierarchy(keepingOff classes: ExcludedClasses, base: PreparedMap) -> ContractionHierarchy? {
        guard let sections = storedExclusions, base.data.hierarchy != nil, !base.preparation.contracted else {
            return nil
        }
        let data = base.data
        return try? ExcludedHierarchies.hierarchy(
            keepingOff: classes, in: sections, graph: graph, costs: data.costs, turns: data.turns,
            transitions: data.transitions.excluding(classes, graph: graph), alreadyChecked: false)
    }

    /// The sets of classes whose hierarchies the graph file stores (`waymark build --exclusions`).
    /// The sets of classes kept off for which this map has made searches (not read from a file).
    public var preparedExclusionSets: [ExcludedClasses] {
        lock.withLock { searchesExcluding.keys.sorted { $0.rawValue < $1.rawValue } }
    }

    public var storedExclusionSets: [ExcludedClasses] { storedExclusions.map(ExcludedHierarchies.sets(in:)) ?? [] }

    /// Makes now, for every set of the classes of road on the map that routes may keep off
    /// (``RouteOptions/exclude``), what routes keeping off them search (a hierarchy each, on a
    /// map that routes on one), so that no query waits for it and ``write(to:)`` stores them.
    /// The sets made, in order.
    @discardableResult
    public func prepareExclusions() -> [ExcludedClasses] {
        let present = graph.excludableClassesPresent
        let sets = (1...7).map { ExcludedClasses(rawValue: UInt8($0)) }.filter { $0.isSubset(of: present) }
        customizeSideBySide(sets)
        for set in sets { _ = data(excluding: set) }
        return sets
    }

    /// The hierarchies of `sets` not made or stored yet, customized on all cores (each set's
    /// customization is a pass of its own over the shared topology).
    private func customizeSideBySide(_ sets: [ExcludedClasses]) {
        let base = data()
        guard base.data.hierarchy != nil, storedExclusions == nil else { return }
        let topology = excludingLock.withLock { self.topology(base) }
        let pending = lock.withLock { sets.filter { searchesExcluding[$0] == nil } }
        guard pending.count > 1 else { return }
        var made = [RoutingData?](repeating: nil, count: pending.count)
        made.withUnsafeMutableBufferPointer { made in
            // Shared with the threads below: each writes only its own set's slot.
            nonisolated(unsafe) let made = made
            DispatchQueue.concurrentPerform(iterations: pending.count) { i in
                made[i] = base.data.excluding(pending[i], topology: topology)
            }
        }
        lock.withLock {
            for (set, data) in zip(pending, made) where searchesExcluding[set] == nil { searchesExcluding[set] = data }
        }
    }

    /// This map with the speeds and turn penalties of `updates`, as `osrm-customize` applies
    /// them (``RoadGraph/customized(with:)``): a new map, prepared as this one is — its hierarchy
    /// customized on this map's dissection where this one holds one, with those keeping off
    /// classes where this one stores or made them — so that its first route waits for nothing.
    /// This map is unchanged.
    public func customized(with updates: SpeedUpdates) throws(RoadMapError) -> (map: RoadMap,
                                                                               report: CustomizeReport) {
        let hierarchical = hierarchy != nil
        let base = data()
        // With no road closed the hierarchy's topology is this map's (it depends on the turns
        // allowed only): made beside the re-timing where no speed of the files closes a road.
        let (retimed, sameTopology) = inParallel({
            Result { () throws(SpeedFileError) in try graph.customized(with: updates) }
        }, { hierarchical && !updates.closesStretches ? excludingLock.withLock { topology(base) } : nil })
        let customized: (graph: RoadGraph, report: CustomizeReport)
        do { customized = try retimed.get() } catch { throw RoadMapError("\(error)") }
        // With no road closed the roads are the same: what depends on their shapes is kept.
        let same = customized.graph.edgeCount == graph.edgeCount
        let reused = same
            ? Reused(snapIndex: base.data.snapIndex, turns: base.data.turns, guidance: base.guidance) : nil
        let map = RoadMap(graph: customized.graph, hierarchy: nil, landmarks: nil,
                          method: hierarchical ? .hierarchy : method, costs: costs,
                          maxSnapDistance: maxSnapDistance, basemap: try basemap(), reusing: reused)
        if hierarchical {
            map.dissection = NestedDissection.carried(dissectionOrder(), from: graph, to: customized.graph)
            map.customizesHierarchy = true
            if same { map.topology = sameTopology }
        }
        map.prepare()
        let excluding = !storedExclusionSets.isEmpty || lock.withLock { !searchesExcluding.isEmpty }
        if hierarchical && excluding { map.prepareExclusions() }
        return (map, customized.report)
    }

    /// The nearest point on a road within `maxDistance` metres (default: the map's
    /// ``maxSnapDistance``), preferring the main network; nil when there is none.
    public func nearest(_ coordinate: Coordinate, maxDistance: Double? = nil) -> Snap? {
        data().data.snapIndex.nearest(to: coordinate, maxDistance: maxDistance ?? maxSnapDistance)
    }

    /// The fastest route from `origin` through `via`, in order, to `destination`. Thread-safe.
    public func route(from origin: Coordinate, to destination: Coordinate, via: [Coordinate] = [],
                      language: InstructionTemplates = .english) throws(RouteError) -> Route {
        try route([origin] + via + [destination], language: language)
    }

    /// The fastest route through the waypoints in order (two or more) as `options` asks, then the
    /// alternatives it asks for, best first (``Router/routes(_:options:)``). Thread-safe.
    public func routes(_ waypoints: [Coordinate], options: RouteOptions) throws(RouteError) -> [Route] {
        try withRouter(excluding: options.exclude) { (router) throws(RouteError) in
            try router.routes(waypoints, options: options)
        }
    }

    /// The fastest route through the waypoints in order (two or more); `radiuses` as
    /// ``Router/route(_:radiuses:)`` takes them. Thread-safe.
    public func route(_ waypoints: [Coordinate], radiuses: [Double?] = [],
                      language: InstructionTemplates = .english) throws(RouteError) -> Route {
        try withRouter { (router) throws(RouteError) in
            try router.route(waypoints, radiuses: radiuses, language: language)
        }
    }

    /// Runs `body` on a router lent from the pool (made when none is idle), then returns it;
    /// `excluding` as ``makeRouter(excluding:)``.
    func withRouter<T>(excluding classes: ExcludedClasses = [],
                               _ body: (Router) throws(RouteError) -> T) throws(RouteError) -> T {
        if classes.isEmpty {
            let router = lock.withLock { idleRouters.popLast() } ?? makeRouter()
            defer { lock.withLock { idleRouters.append(router) } }
            return try body(router)
        }
        let router = lock.withLock { idleRoutersExcluding[classes]?.popLast() } ?? makeRouter(excluding: classes)
        defer { lock.withLock { idleRoutersExcluding[classes, default: []].append(router) } }
        return try body(router)
    }

    /// The nearest points on up to `count` road segments within `maxDistance` metres (default:
    /// ``maxSnapDistance``), nearest first.
    public func nearest(_ coordinate: Coordinate, count: Int, maxDistance: Double? = nil,
                        filter: SnapFilter = .standard) -> [Snap] {
        data().data.snapIndex.nearest(to: coordinate, maxDistance: maxDistance ?? maxSnapDistance, count: count,
                                      filter: filter)
    }

    /// The OpenStreetMap ids of the nodes at the ends of the piece of road a snapped point lies on
    /// (OSRM's nearest `nodes`); nil for a map whose graph keeps no node ids.
    public func nodeIDs(of snap: Snap) -> (Int64, Int64)? { data().data.snapIndex.nodeIDs(of: snap) }

    /// The name of the road a snapped point lies on ("" when it has none).
    public func roadName(of snap: Snap) -> String {
        graph.name(ofSegment: snap.segment)
    }

    /// Travel times and distances from every source to every destination (see
    /// ``Router/table(sources:destinations:radiuses:)``). Thread-safe.
    public func table(sources: [Coordinate], destinations: [Coordinate],
                      radiuses: [Double?] = [], exclude: ExcludedClasses = []) throws(RouteError) -> DistanceTable {
        try withRouter(excluding: exclude) { (router) throws(RouteError) in
            try router.table(sources: sources, destinations: destinations, radiuses: radiuses)
        }
    }

    /// The areas reached within each of `minutes` from `origin` (see
    /// ``Router/isochrone(from:minutes:denoise:radius:)``). Thread-safe.
    public func isochrone(from origin: Coordinate, minutes: [Double], denoise: Double = 1, radius: Double? = nil,
                          exclude: ExcludedClasses = []) throws(RouteError) -> Isochrone {
        try withRouter(excluding: exclude) { (router) throws(RouteError) in
            try router.isochrone(from: origin, minutes: minutes, denoise: denoise, radius: radius)
        }
    }

    /// Routes every query (each a list of waypoints) as `options` asks, on `threads` threads, a
    /// router each, over this one map; `transform` turns each outcome (the route, then the
    /// alternatives asked for) into what the caller keeps (on the thread that routed it). Results
    /// come in input order; the times are of the routing alone.
    public func routes<T: Sendable>(
        _ queries: [[Coordinate]], options: RouteOptions, threads: Int = 1,
        _ transform: @escaping @Sendable (Result<[Route], RouteError>) -> T
    ) -> RouteBatch<T> {
        let threads = max(1, min(threads, queries.count))
        let prepared = data(excluding: options.exclude)
        let results = UnsafeMutableBufferPointer<(value: T, milliseconds: Double?)?>.allocate(capacity: queries.count)
        results.initialize(repeating: nil)
        defer {
            results.deinitialize()
            results.deallocate()
        }
        // Shared with the threads below: each writes only its own slot.
        nonisolated(unsafe) let slots = results
        DispatchQueue.concurrentPerform(iterations: threads) { worker in
            let router = Router(map: self, prepared: prepared)
            for i in stride(from: worker, to: queries.count, by: threads) {
                let start = DispatchTime.now().uptimeNanoseconds
                let outcome = Result { () throws(RouteError) in try router.routes(queries[i], options: options) }
                let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
                let time: Double? = if case .success = outcome { elapsed } else { nil }
                slots[i] = (transform(outcome), time)
            }
        }
        let done = results.map { $0! }
        return RouteBatch(results: done.map(\.value), times: QueryTimes(milliseconds: done.compactMap(\.milliseconds)))
    }

    /// ``routes(_:options:threads:_:)`` for the best route alone, with the default options.
    public func routes<T: Sendable>(
        _ queries: [[Coordinate]], threads: Int = 1,
        _ transform: @escaping @Sendable (Result<Route, RouteError>) -> T
    ) -> RouteBatch<T> {
        routes(queries, options: RouteOptions(), threads: threads) { transform($0.map { $0[0] }) }
    }

    /// ``routes(_:threads:_:)`` keeping each route or error as it is.
    public func routes(_ queries: [[Coordinate]], threads: Int = 1) -> RouteBatch<Result<Route, RouteError>> {
        routes(queries, threads: threads) { $0 }
    }

    /// Writes the graph to a graph file atomically, with the hierarchy the map holds (stored, or
    /// contracted by ``prepare()``) or else the turn tables, guidance's per-map tables and the
    /// snap index, so that routes on the file need no preparation.
    public func write(to path: String) throws {
        try GraphFile.checkStorable(graph, path: path)
        let (guidance, index) = lock.withLock {
            (prepared?.guidance ?? storedGuidance, prepared?.data.snapIndex ?? storedSnapIndex)
        }
        let basemap: [GraphFile.Section]
        switch basemapSource {
        case .none: basemap = []
        case let .given(map): basemap = map.fileSections
        case let .stored(sections): basemap = sections.tags.compactMap { sections.section($0) }
        }
        // Without a hierarchy (which keeps its own), the turn tables go too: as prepared, or read
        // with the graph, or made.
        typealias TurnTables = (turns: TurnGeometry?, transitions: TransitionTable?, costs: TurnCosts)
        let turnTables = lock.withLock { () -> TurnTables in
            if let data = prepared?.data { return (data.turns, data.transitions, data.costs) }
            return (storedTurns?.turns, storedTurns?.transitions, costs ?? TurnCosts(for: self.graph))
        }
        // Tables not made yet are made now, while the graph's sections are written: side by side
        // (the snap index, then the turn tables, each written as soon as made while the guidance
        // tables are still being made), or one after the other beside a hierarchy just built,
        // where the build's peak memory is.
        let graph = graph, hierarchy = hierarchy
        let count = GraphFileLayout.laterSectionCount(withHierarchy: hierarchy != nil)
        let tables = GraphFile.LaterSections(count: count) { early in
            if hierarchy == nil {
                // (The turns are measured on guidance's bearings: those first, beside the index.)
                let (indexSections, tables) = inParallel({
                    let sections = (index ?? SnapIndex(graph: graph)).fileSections
                    early(sections)
                    return sections
                }, { guidance ?? GuidanceTables(graph: graph) })
                let turns = turnTables.turns ?? tables.turnGeometry(graph: graph)
                let transitions = turnTables.transitions
                    ?? TransitionTable(graph: graph, turns: turns, costs: turnTables.costs)
                let turnSections = StoredTurnTables.fileSections(turns: turns, transitions: transitions,
                                                                 costs: turnTables.costs)
                early(turnSections)
                return indexSections + turnSections + tables.fileSections
            }
            let guidanceSections = (guidance ?? GuidanceTables(graph: graph)).fileSections
            returnFreedMemory()
            return (index ?? SnapIndex(graph: graph)).fileSections + guidanceSections
        }
        // The hierarchies keeping off classes beside the map's own: made here, or as the file had them.
        var exclusions: [GraphFile.Section] = []
        if hierarchy != nil {
            let made = lock.withLock { searchesExcluding.compactMap { set, data in data.hierarchy.map { (set, $0) } } }
            exclusions = !made.isEmpty ? ExcludedHierarchies.fileSections(made)
                : storedExclusions.map { stored in stored.tags.compactMap { stored.section($0) } } ?? []
        }
        let dissection = hierarchy != nil ? StoredDissection.fileSections(dissectionOrder()) : []
        try GraphFile.write(graph, to: path, extra: (hierarchy?.fileSections ?? []) + exclusions + dissection
                                + basemap, later: tables)
    }

    /// What the map shows besides roads (``Basemap``), if it has one: given when the map was
    /// made, or stored in its graph file (`waymark build --basemap`; read and checked here).
    public func basemap() throws(RoadMapError) -> Basemap? {
        switch basemapSource {
        case .none: return nil
        case let .given(map): return map
        case let .stored(sections):
            do { return try Basemap(fileSections: sections) } catch { throw RoadMapError("\(error)") }
        }
    }
}

/// The results of ``RoadMap/routes(_:threads:_:)``, in input order, and the query times.
public struct RouteBatch<T: Sendable>: Sendable {
    public var results: [T]
    /// Times of the queries that found a route.
    public var times: QueryTimes
}

/// How long queries took: the count and percentiles, in milliseconds.
public struct QueryTimes: Sendable, Equatable {
    public var count: Int
    public var p50Milliseconds: Double
    public var p95Milliseconds: Double

    public init(milliseconds: [Double]) {
        let sorted = milliseconds.sorted()
        func percentile(_ p: Double) -> Double {
            sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
        }
        count = sorted.count
        p50Milliseconds = percentile(0.5)
        p95Milliseconds = percentile(0.95)
    }
}

/// Why a map could not be loaded; the description names the file and the reason.
public struct RoadMapError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
