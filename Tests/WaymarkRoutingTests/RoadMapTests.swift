import Foundation
import Testing
import WaymarkGeo
import WaymarkGraph
import WaymarkProfiles
import WaymarkOSM
import WaymarkSupport
@testable import WaymarkPreparation
@testable import WaymarkQueries
@testable import WaymarkGuidance
@testable import WaymarkRouting

/// Random waypoints over the random graphs' area (fixed seed).
func randomCoordinates(_ count: Int, seed: UInt64) -> [Coordinate] {
    var rng = SplitMix64(seed: seed)
    return (0..<count).map { _ in Coordinate(latitude: 52 + rng.uniform(0, 0.02),
                                             longitude: 13 + rng.uniform(0, 0.03)) }
}

@Suite struct RoadMapTests {
    /// A map that routed (and so pooled a router) is freed when its last owner lets go: the pooled
    /// routers do not hold the map (the fuzzer's leak check found that cycle).
    @Test func routedMapIsFreed() throws {
        weak var freed: RoadMap?
        do {
            let g = randomGraph(seed: 21, nodes: 60, ways: 110)
            for method in [RoadMap.SearchMethod.landmarks, .hierarchy] {
                let map = RoadMap(graph: g, method: method)
                _ = try? map.route(from: g.coordinate(of: 0), to: g.coordinate(of: UInt32(g.nodeCount - 1)))
                freed = map
            }
        }
        #expect(freed == nil)
    }

    /// The instructions are told in the language the route is asked in, from the API to the words
    /// (here English with its arrival reworded, as another language's table would word it).
    @Test func instructionsFollowTheLanguageAsked() throws {
        let g = randomGraph(seed: 21, nodes: 60, ways: 110)
        let map = RoadMap(graph: g)
        var table = InstructionLanguage.english
        table.arrive = table.arrive.mapValues { $0.mapValues { _ in "Angekommen" } }
        let a = g.coordinate(of: 0), b = g.coordinate(of: UInt32(g.nodeCount - 1))
        let english = try map.route(from: a, to: b), other = try map.route(from: a, to: b,
                                                                           language: InstructionTemplates(table))
        let arrival = { (route: Route) in route.legs.last!.steps.last!.instruction }
        #expect(arrival(english).hasPrefix("You have arrived") && arrival(other) == "Angekommen")
        #expect(
            english.legs[0].steps.dropLast().map(\.instruction) == other.legs[0].steps.dropLast().map(\.instruction))
        var named = other
        named.arrive(at: "the Swan", language: InstructionTemplates(table))
        #expect(arrival(named) == "Angekommen")
    }

    /// The search each method picks, what preparing costs, and that asking for the hierarchy
    /// prepares nothing.
    @Test func methodRules() throws {
        let g = randomGraph(seed: 21, nodes: 60, ways: 110)
        let automatic = RoadMap(graph: g)
        #expect(automatic.hierarchy == nil)
        let a = automatic.prepare()
        #expect(a.search == .aStar && !a.contracted) // nothing made for it
        #expect(automatic.hierarchy == nil)
        #expect(RoadMap(graph: g, method: .landmarks).prepare().search == .landmarks)

        let contracting = RoadMap(graph: g, method: .hierarchy)
        #expect(contracting.hierarchy == nil) // not prepared yet
        let c = contracting.prepare()
        #expect(c.search == .hierarchy && c.contracted)
        let contracted = try #require(contracting.hierarchy)
        #expect(contracting.prepare().contracted) // the same preparation, not a second one
        #expect(contracting.hierarchy?.arcCount == contracted.arcCount)

        let stored = RoadMap(graph: g, hierarchy: contracted)
        let s = stored.prepare()
        #expect(s.search == .hierarchy && !s.contracted && s.searchSeconds < c.searchSeconds)
        let aside = RoadMap(graph: g, hierarchy: contracted, method: .landmarks)
        #expect(aside.prepare().search == .landmarks)
        #expect(aside.hierarchy != nil) // still held (for writing or inspecting), not routed on
        #expect(RoadMap(graph: g, hierarchy: contracted, method: .aStar).prepare().search == .aStar)
    }

    /// Every method gives the same costs through the whole router, and the routes are real.
    @Test(arguments: [21, 22, 23]) func methodsAgree(seed: Int) throws {
        let g = randomGraph(seed: UInt64(seed), nodes: 60, ways: 110)
        let maps = RoadMap.SearchMethod.allCases.map { RoadMap(graph: g, method: $0, maxSnapDistance: 5000) }
        let points = randomCoordinates(40, seed: UInt64(seed))
        for (a, b) in zip(points, points.dropFirst()) {
            let outcomes = maps.map { map in Result { () throws(RouteError) in try map.route(from: a, to: b) } }
            let durations = outcomes.map { (try? $0.get())?.weight }
            #expect(durations.allSatisfy { ($0 == nil) == (durations[0] == nil) }, "seed \(seed): reachability differs")
            if let d = durations[0] {
                for other in durations { #expect(abs(other! - d) <= 1e-9 * max(1, d), "seed \(seed): \(durations)") }
            }
        }
    }

    /// Routes keeping off toll roads and motorways, by every method, weigh what an independent
    /// Dijkstra that never enters them finds (``oracle``), and never use one; a table on the
    /// hierarchy agrees with the routes.
    @Test(arguments: [31, 32, 33]) func excludedClassesAreKeptOff(seed: Int) throws {
        let g = randomGraph(seed: UInt64(seed), nodes: 60, ways: 120, classed: .kept)
        let excluded: ExcludedClasses = [.toll, .motorway]
        #expect(g.excludableClassesPresent == excluded)
        let index = SnapIndex(graph: g), costs = TurnCosts(for: g)
        let maps = RoadMap.SearchMethod.allCases.map { RoadMap(graph: g, method: $0, maxSnapDistance: 5000) }
        var options = RouteOptions()
        options.exclude = excluded
        let points = randomCoordinates(30, seed: UInt64(seed))
        var compared = 0
        for (a, b) in zip(points, points.dropFirst()) {
            let filter = SnapFilter(excluded: excluded)
            guard let from = index.nearest(to: a, maxDistance: 5000, filter: filter),
                  let to = index.nearest(to: b, maxDistance: 5000, filter: filter) else { continue }
            let expected = oracle(g, index, from, to, costs, excluded: excluded)
            for map in maps {
                guard let got = try? map.routes([a, b], options: options)[0],
                      got.waypoints == [from, to] else { continue }
                let classes = got.legs.flatMap(\.steps).flatMap(\.intersections).map(\.classes)
                #expect(!classes.contains { !$0.isDisjoint(with: [.toll, .motorway]) }, "seed \(seed)")
                #expect(expected != nil, "seed \(seed) \(map.method): a route the oracle does not find")
                guard let expected else { continue }
                #expect(abs(got.weight - expected) <= 1e-4 * max(1, expected),
                        "seed \(seed) \(map.method): \(got.weight) against \(expected)")
                compared += 1
            }
        }
        #expect(compared >= 20)
        let hierarchy = maps.first { $0.method == .hierarchy }!
        let table = try hierarchy.table(sources: [points[0]], destinations: [points[1]], exclude: excluded)
        let route = try? hierarchy.routes([points[0], points[1]], options: options)[0]
        #expect(table.durations[0].map { abs($0 - (route?.duration ?? -1)) < 0.1 } ?? (route == nil))
    }

    /// Hierarchies keeping off classes, made before writing, are stored with the graph and read
    /// back at the first query of their set; routes on them are the ones contracted anew.
    @Test func storedExclusionsRouteAsMadeOnes() throws {
        let g = randomGraph(seed: 34, nodes: 60, ways: 120, classed: .kept)
        let built = RoadMap(graph: g, method: .hierarchy, maxSnapDistance: 5000)
        built.prepare()
        #expect(built.prepareExclusions() == [.toll, .motorway, [.toll, .motorway]])
        // A set none of whose classes is on the map (no ferries) is the map's own: nothing stored.
        var ferries = RouteOptions()
        ferries.exclude = .ferry
        _ = try? built.routes(randomCoordinates(2, seed: 35), options: ferries)
        let path = NSTemporaryDirectory() + "exclusions-\(UUID().uuidString).wmg"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try built.write(to: path)
        let (_, sections) = try GraphFile.readWithExtras(path: path)
        #expect(sections.tags.allSatisfy { GraphFileLayout.part(owning: $0) != nil }, "\(sections.tags)")
        let read = try RoadMap(graphFile: path, maxSnapDistance: 5000)
        #expect(read.storedExclusionSets == [.toll, .motorway, [.toll, .motorway]])
        let fresh = RoadMap(graph: g, method: .hierarchy, maxSnapDistance: 5000)
        let points = randomCoordinates(20, seed: 34)
        var found = 0
        for exclude: ExcludedClasses in [.toll, [.motorway, .ferry], [.toll, .motorway]] {
            var options = RouteOptions()
            options.exclude = exclude
            for (a, b) in zip(points, points.dropFirst()) {
                let stored = try? read.routes([a, b], options: options)[0]
                let anew = try? fresh.routes([a, b], options: options)[0]
                #expect(stored?.weight == anew?.weight && stored?.waypoints == anew?.waypoints, "\(exclude)")
                if stored != nil { found += 1 }
            }
        }
        #expect(found > 20)
    }

    /// `route` is safe from many threads at once (routers lent from a pool), and `routes` gives
    /// the sequential answers in input order on any number of threads, failures included.
    @Test func concurrentQueriesMatchSequential() throws {
        let g = randomGraph(seed: 7, nodes: 80, ways: 150)
        let map = RoadMap(graph: g, method: .hierarchy, maxSnapDistance: 5000)
        let points = randomCoordinates(65, seed: 99)
        var queries = zip(points, points.dropFirst()).map { [$0, $1] }
        queries.append([Coordinate(latitude: 53, longitude: 13), points[0]]) // far from any road: NoSegment
        queries.append([points[0], points[1], points[2]]) // with a via point
        let expected = queries.map { q in Result { () throws(RouteError) in try map.route(q) } }
        #expect(expected.contains { if case let .failure(error) = $0 { error.code == "NoSegment" } else { false } })

        let results = UnsafeMutableBufferPointer<Result<Route, RouteError>?>.allocate(capacity: queries.count)
        results.initialize(repeating: nil)
        defer { results.deallocate() }
        nonisolated(unsafe) let out = results
        let work = queries
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            for i in stride(from: worker, to: work.count, by: 4) {
                out[i] = Result { () throws(RouteError) in try map.route(work[i]) }
            }
        }
        #expect(results.map { $0! } == expected)

        for threads in [1, 2, 3] {
            let batch = map.routes(queries, threads: threads)
            #expect(batch.results == expected, "\(threads) threads")
            #expect(batch.times.count == expected.filter { (try? $0.get()) != nil }.count)
            #expect(batch.times.p50Milliseconds <= batch.times.p95Milliseconds)
        }
        let transformed = map.routes(queries, threads: 2) { result in (try? result.get())?.distance ?? -1 }
        #expect(transformed.results == expected.map { (try? $0.get())?.distance ?? -1 })
        #expect(map.routes([], threads: 4).results.isEmpty)
    }

    @Test func nearestAndSnapLimit() throws {
        let g = try OSMGraphLoader.build(path: packageRoot() + "/Data/sample-town.osm")
        let map = RoadMap(graph: g, maxSnapDistance: 50)
        let townHall = Coordinate(latitude: 52.309427, longitude: -2.598781)
        let snap = try #require(map.nearest(townHall))
        #expect(snap.distance < 50)
        // 200 m off the network: beyond the map's limit, within an explicit one.
        let field = Coordinate(latitude: 52.3020, longitude: -2.6175)
        if let near = map.nearest(field, maxDistance: 5000), near.distance > 50 {
            #expect(map.nearest(field) == nil)
            #expect(throws: RouteError.self) { try map.route(from: field, to: townHall) }
        }
    }

    /// Keeping classes off changes the way taken, not how a junction is told: where a route
    /// keeping motorways off passes a junction the plain route passes too (arriving and leaving
    /// by the same roads), both list it alike, a motorway there still enterable — OSRM lists a
    /// junction as its map has it, whatever a request excludes.
    @Test func exclusionsListJunctionsAsTheMap() throws {
        let g = randomGraph(seed: 36, nodes: 60, ways: 120, classed: .kept)
        let map = RoadMap(graph: g, method: .hierarchy, maxSnapDistance: 5000)
        map.prepare()
        var keptOff = RouteOptions()
        keptOff.exclude = .motorway
        struct Passage: Hashable { let place: Coordinate, arrival: Int?, leaving: Int? }
        func passages(_ route: Route) -> [Passage: [Bool]] {
            var found: [Passage: [Bool]] = [:]
            for step in route.legs.flatMap(\.steps) {
                for i in step.intersections {
                    let place = Passage(place: i.location, arrival: i.inIndex.map { i.bearings[$0] },
                                        leaving: i.outIndex.map { i.bearings[$0] })
                    found[place] = i.entry
                }
            }
            return found
        }
        let points = randomCoordinates(40, seed: 37)
        var compared = 0, avoided = 0
        for (a, b) in zip(points, points.dropFirst()) {
            guard let plain = try? map.routes([a, b], options: RouteOptions())[0],
                  let kept = try? map.routes([a, b], options: keptOff)[0] else { continue }
            if plain.weight != kept.weight { avoided += 1 }
            let told = passages(plain)
            for (passage, entry) in passages(kept) where told[passage] != nil {
                #expect(told[passage] == entry, "\(passage)")
                compared += 1
            }
        }
        #expect(compared > 50 && avoided > 0, "\(compared) junctions, \(avoided) routes kept off motorways")
    }

    /// A graph file read whole into memory of its own (``FileMemory/resident``, as a server and a
    /// batch load it) gives the graph and answers of the file mapped; a damaged file is refused
    /// the same way.
    @Test func residentFileAnswersAsMapped() throws {
        let g = try OSMGraphLoader.build(path: packageRoot() + "/Data/sample-town.osm")
        let path = NSTemporaryDirectory() + "resident-\(UUID().uuidString).wmg"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let built = RoadMap(graph: g, method: .hierarchy)
        built.prepare()
        try built.write(to: path)
        let mapped = try RoadMap(graphFile: path), resident = try RoadMap(graphFile: path, memory: .resident)
        #expect(resident.graph == mapped.graph)
        #expect(!resident.prepare().contracted && resident.hierarchy != nil) // the stored one, read
        let points = [Coordinate(latitude: 52.3050, longitude: -2.6050),
                      Coordinate(latitude: 52.3120, longitude: -2.5920),
                      Coordinate(latitude: 52.309427, longitude: -2.598781),
                      Coordinate(latitude: 52.311680, longitude: -2.572561)]
        for (a, b) in zip(points, points.dropFirst()) {
            #expect(try resident.route(from: a, to: b) == mapped.route(from: a, to: b))
        }
        #expect(try resident.table(sources: points, destinations: points).durations
                == mapped.table(sources: points, destinations: points).durations)
        #expect(RoadMap.memory(for: .manyQueries) == .resident && RoadMap.memory(for: .fewRoutes) == .mapped)
        // A byte of the file changed: refused when read whole as when mapped.
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        bytes[bytes.count / 2] ^= 0xFF
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(throws: RoadMapError.self) { try RoadMap(graphFile: path, memory: .resident) }
        #expect(throws: RoadMapError.self) { try RoadMap(graphFile: path) }
    }

    /// A large graph file checked in full once is not checked again (``CheckedFiles``): the
    /// second load skips the checks and routes the same; a write to the file (same size) is
    /// seen and the file checked — and refused — again.
    @Test func largeFilesCheckedOnce() throws {
        let g = try OSMGraphLoader.build(path: packageRoot() + "/Data/sample-town.osm")
        let folder = NSTemporaryDirectory() + "checked-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        setenv("XDG_CACHE_HOME", folder + "/cache", 1)
        let path = folder + "/town.wmg"
        // Padded past the size below which files are always checked.
        let padding = GraphFile.Section("XPAD", [UInt8](repeating: 7, count: CheckedFiles.minimumSize))
        try GraphFile.write(g, to: path, extra: ContractionHierarchy(graph: g).fileSections + [padding])
        let from = Coordinate(latitude: 52.3050, longitude: -2.6050),
            to = Coordinate(latitude: 52.3120, longitude: -2.5920)
        #expect(try GraphFile.open(path: path).alreadyChecked == false)
        let first = try RoadMap(graphFile: path).route(from: from, to: to)
        let opened = try GraphFile.open(path: path)
        #expect(opened.alreadyChecked && opened.graph == g)
        #expect(try RoadMap(graphFile: path).route(from: from, to: to) == first)
        // One byte of the padding changed in place: a new change time, checked again, refused.
        usleep(20_000)
        let handle = try #require(FileHandle(forWritingAtPath: path))
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let offset = try #require(bytes.lastIndex(of: 7))
        handle.seek(toFileOffset: UInt64(offset))
        handle.write(Data([8]))
        handle.closeFile()
        #expect(throws: GraphFileError.corrupt(path, "checksum mismatch")) { try GraphFile.open(path: path) }
        #expect(throws: RoadMapError.self) { try RoadMap(graphFile: path) }
    }

    /// A graph file without a hierarchy keeps the turn tables (a hierarchy keeps its own), so that
    /// its first route makes nothing: read back as made and routed on (the same routes as the map
    /// in memory); the turns' weights made again under other turn costs (the other driving side);
    /// damaged tables make the file an error.
    @Test func storedTurnTables() throws {
        let g = try OSMGraphLoader.build(path: packageRoot() + "/Data/sample-town.osm")
        let path = NSTemporaryDirectory() + "turns-\(UUID().uuidString).wmg"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try RoadMap(graph: g).write(to: path)
        let (graph, sections) = try GraphFile.readWithExtras(path: path)
        let costs = TurnCosts(for: graph)
        // (The turns measured as a map measures them: on guidance's perceived bearings.)
        let turns = GuidanceTables(graph: graph).turnGeometry(graph: graph)
        let table = TransitionTable(graph: graph, turns: turns, costs: costs)
        #expect(
            StoredTurnTables.fileSections(turns: turns, transitions: table, costs: costs).map(\.tag)
                == StoredTurnTables.sectionTags + TurnGeometry.sectionTags + TransitionTable.sectionTags)
        let stored = try #require(try StoredTurnTables.read(sections, graph: graph,
                                                            costs: costs, alreadyChecked: false))
        #expect(
            stored.turns.headBearing == turns.headBearing && stored.turns.tailBearing == turns.tailBearing
                && stored.turns.roads == turns.roads)
        let weights = try #require(stored.transitions)
        #expect(weights.cost.elementsEqual(table.cost) && weights.start == table.start)
        // Other turn costs: the geometry still serves, the weights do not.
        let other = try #require(try StoredTurnTables.read(sections, graph: graph,
                                                           costs: TurnCosts(uTurnPenalty: 5), alreadyChecked: false))
        #expect(other.transitions == nil && other.turns.headBearing == turns.headBearing)
        #expect(try StoredTurnTables.read(FileSections(), graph: graph, costs: costs, alreadyChecked: false) == nil)

        // Routes on the file are the map's in memory, for either side.
        let from = Coordinate(latitude: 52.3127, longitude: -2.5783),
            to = Coordinate(latitude: 52.3053, longitude: -2.6010)
        let loaded = try RoadMap(graphFile: path)
        #expect(loaded.prepare().search == .aStar)
        #expect(try loaded.route(from: from, to: to) == RoadMap(graph: g).route(from: from, to: to))
        var left = g
        left.drivingSide = g.drivingSide == .left ? .right : .left
        #expect(
            try RoadMap(graphFile: path, drivingSide: left.drivingSide).route(from: from, to: to)
                == RoadMap(graph: left).route(from: from, to: to))
        // A file written from a loaded map keeps the same tables.
        let again = path + ".again"
        defer { try? FileManager.default.removeItem(atPath: again) }
        try loaded.write(to: again)
        let (_, rewritten) = try GraphFile.readWithExtras(path: again)
        for tag in ["TTPR", "TGHB",
                    "TGTB", "TGRC", "TTCS", "TTST"] { #expect(rewritten[tag] == sections[tag], "\(tag)") }

        // The stored weights are the ones routed on: raised in the file, they raise the route's.
        var raised = sections
        raised["TTCS"] = GraphFile.Section("TTCS", table.cost.array.map { $0.isFinite ? $0 + 100 : $0 }).bytes
        let heavier = path + ".raised"
        defer { try? FileManager.default.removeItem(atPath: heavier) }
        try Data(GraphFile.encode(graph, extra: raised.tags.compactMap { raised.section($0) })).write(
            to: URL(fileURLWithPath: heavier))
        #expect(
            try RoadMap(graphFile: heavier).route(from: from, to: to).weight > RoadMap(graph: g).route(
                from: from, to: to
            ).weight + 100)

        // Damage: a wrong count, a weight below zero, a bearing out of range.
        func firstFloat(_ value: Float) -> (inout [UInt8]) -> Void {
            { b in b.replaceSubrange(0..<4, with: GraphFile.Section("x", [value]).bytes) }
        }
        for (tag, damage) in [("TTCS", { (b: inout [UInt8]) in b.removeLast(4) }),
                              ("TTCS", firstFloat(-1)),
                              ("TGHB", firstFloat(400)),
                              ("TTST", { (b: inout [UInt8]) in b[4] &+= 1 })] {
            var damaged = sections
            damaged[tag] = { var b = sections[tag]!; damage(&b); return b }()
            #expect(throws: HierarchyFileError.self, "\(tag)") { try StoredTurnTables.read(damaged, graph: graph,
                costs: costs, alreadyChecked: false) }
            let file = path + ".damaged"
            defer { try? FileManager.default.removeItem(atPath: file) }
            let bytes = GraphFile.encode(graph, extra: damaged.tags.compactMap { damaged.section($0) })
            try Data(bytes).write(to: URL(fileURLWithPath: file))
            #expect(performing: { try RoadMap(graphFile: file) }, throws: { "\($0)".contains("stored turn tables") })
        }
    }

    /// Guidance's per-map tables and the snap index are stored with the graph and read back as
    /// made; those made under other parameters are made again; damaged ones make the file an error.
    @Test func storedGuidanceTables() throws {
        let g = try OSMGraphLoader.build(path: packageRoot() + "/Data/sample-town.osm")
        let path = NSTemporaryDirectory() + "guidance-\(UUID().uuidString).wmg"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try RoadMap(graph: g).write(to: path)
        let (graph, sections) = try GraphFile.readWithExtras(path: path)
        let stored = try #require(try GuidanceTables(fileSections: sections, graph: graph))
        let made = GuidanceTables(graph: graph)
        // The file is started before the tables are made, with room for as many sections as they have.
        #expect(made.fileSections.map(\.tag) == GuidanceTables.sectionTags)
        #expect(SnapIndex(graph: graph).fileSections.map(\.tag) == SnapIndex.sectionTags)
        #expect(stored.departBearing == made.departBearing && stored.arrivalBearing == made.arrivalBearing)
        #expect(stored.names.core == made.names.core)
        #expect(made.names.core.contains { $0 != 0 })
        // A map written unprepared stores no turn verdicts; one prepared for routing stores them all.
        #expect(stored.decisions.isEmpty && made.decisions.isEmpty)
        let prepared = RoadMap(graph: g)
        _ = prepared.prepare()
        try prepared.write(to: path)
        let (_, withVerdicts) = try GraphFile.readWithExtras(path: path)
        let verdicts = try #require(try GuidanceTables(fileSections: withVerdicts, graph: graph)).decisions
        let table = TransitionTable(graph: graph, turns: TurnGeometry(graph: graph), costs: TurnCosts(for: graph))
        #expect(verdicts == GuidanceTables(graph: graph, transitions: table).decisions && verdicts.contains { $0 > 2 })
        var unknownVerdict = withVerdicts
        unknownVerdict["GDEC"]![0] = UInt8(TurnVerdict.codeLimit)
        #expect(throws: GuidanceFileError.self) { try GuidanceTables(fileSections: unknownVerdict, graph: graph) }
        var shortVerdicts = withVerdicts
        shortVerdicts["GDEC"] = Array(shortVerdicts["GDEC"]!.dropLast())
        #expect(throws: GuidanceFileError.self) { try GuidanceTables(fileSections: shortVerdicts, graph: graph) }
        // The junction records likewise: stored as made; a file from before them loads without
        // (its junctions worked out on each route); damaged or short ones are an error.
        let readRecords = try #require(try GuidanceTables(fileSections: withVerdicts, graph: graph)).records
        let madeRecords = GuidanceTables(graph: graph, transitions: table).records
        #expect(!madeRecords.start.isEmpty && readRecords.start.elementsEqual(madeRecords.start)
            && readRecords.roads.elementsEqual(madeRecords.roads)
            && readRecords.segregated.elementsEqual(madeRecords.segregated))
        var unrecorded = withVerdicts
        unrecorded["GJST"] = nil
        unrecorded["GJRD"] = nil
        #expect(try #require(try GuidanceTables(fileSections: unrecorded, graph: graph)).records.start.isEmpty)
        typealias Record = JunctionRecords.Road
        for damage in [{ (r: inout Record) in r.position = 200 }, { $0.out = Int32.max }, { $0.listed = 360 },
                       { $0.entry = 2 }, { $0.bearing = .nan }, { $0.segment = UInt32.max }] {
            var damaged = withVerdicts
            var roads = damaged["GJRD"]!.withUnsafeBytes { Array($0.bindMemory(to: Record.self)) }
            damage(&roads[roads.count / 2])
            damaged["GJRD"] = roads.withUnsafeBytes { Array($0) }
            #expect(throws: GuidanceFileError.self) { try GuidanceTables(fileSections: damaged, graph: graph) }
        }
        // A road out that is not the junction's, or one of its roads out left out: an error (a
        // route would not find the edge it takes there).
        var records = withVerdicts["GJRD"]!.withUnsafeBytes { Array($0.bindMemory(to: Record.self)) }
        let rowStarts = withVerdicts["GJST"]!.withUnsafeBytes { Array($0.bindMemory(to: UInt32.self)) }
        let out = try #require(records.indices.first { records[$0].out >= 0 })
        let owner = try #require(rowStarts.lastIndex { Int($0) <= out })
        let leaving = graph.edges(from: graph.edgeTarget[owner])
        let foreign = try #require((0..<graph.edgeCount).first { !leaving.contains($0) })
        for wrong in [Int32(-1), Int32(foreign)] {
            var moved = withVerdicts
            records[out].out = wrong
            moved["GJRD"] = records.withUnsafeBytes { Array($0) }
            #expect(throws: GuidanceFileError.self, "\(wrong)") {
                try GuidanceTables(fileSections: moved, graph: graph)
            }
        }
        var twice = withVerdicts
        var twiceRoads = twice["GJRD"]!.withUnsafeBytes { Array($0.bindMemory(to: Record.self)) }
        let k = twiceRoads.indices.first { twiceRoads[$0].position == 1 }!
        twiceRoads[k].position = 0
        twice["GJRD"] = twiceRoads.withUnsafeBytes { Array($0) }
        #expect(throws: GuidanceFileError.self) { try GuidanceTables(fileSections: twice, graph: graph) }
        var badFlag = withVerdicts
        badFlag["GJSG"]![0] = 2
        #expect(throws: GuidanceFileError.self) { try GuidanceTables(fileSections: badFlag, graph: graph) }
        var shortFlags = withVerdicts
        shortFlags["GJSG"] = Array(shortFlags["GJSG"]!.dropLast())
        #expect(throws: GuidanceFileError.self) { try GuidanceTables(fileSections: shortFlags, graph: graph) }
        var shortRecords = withVerdicts
        shortRecords["GJRD"] = Array(shortRecords["GJRD"]!.dropLast(16))
        #expect(throws: GuidanceFileError.self) { try GuidanceTables(fileSections: shortRecords, graph: graph) }
        var unorderedRecords = withVerdicts
        var starts = unorderedRecords["GJST"]!.withUnsafeBytes { Array($0.bindMemory(to: UInt32.self)) }
        starts[starts.count / 2] = UInt32.max
        unorderedRecords["GJST"] = starts.withUnsafeBytes { Array($0) }
        #expect(throws: GuidanceFileError.self) { try GuidanceTables(fileSections: unorderedRecords, graph: graph) }
        var other = sections
        other["GPRM"] = GraphFile.Section("GPRM", [99.0, 16.5]).bytes
        #expect(try GuidanceTables(fileSections: other, graph: graph) == nil)
        var short = sections
        short["GDEP"] = Array(short["GDEP"]!.dropLast(4))
        #expect(throws: GuidanceFileError.self) { try GuidanceTables(fileSections: short, graph: graph) }
        var shortKeys = sections
        shortKeys["GKCR"] = Array(shortKeys["GKCR"]!.dropLast(4))
        #expect(throws: GuidanceFileError.self) { try GuidanceTables(fileSections: shortKeys, graph: graph) }
        // The snap index likewise: stored as built, other parameters built again, damage an error.
        let storedIndex = try #require(try SnapIndex(fileSections: sections, graph: graph))
        #expect(storedIndex.fileSections.map(\.bytes) == SnapIndex(graph: graph).fileSections.map(\.bytes))
        var otherIndex = sections
        otherIndex["XPRM"] = GraphFile.Section("XPRM", [1.0, 100, 1000, 1, 1]).bytes
        #expect(try SnapIndex(fileSections: otherIndex, graph: graph) == nil)
        for (tag, damage) in [("XCPC", { (v: inout [UInt32]) in v[0] = UInt32(SnapIndex.pieceCount(graph)) }),
                              ("XCPC", { (v: inout [UInt32]) in v[0] = UInt32.max }),
                              ("XCST", { (v: inout [UInt32]) in v[v.count - 1] += 1 })] {
            var damaged = sections
            var values = damaged[tag]!.withUnsafeBytes { Array($0.bindMemory(to: UInt32.self)) }
            damage(&values)
            damaged[tag] = values.withUnsafeBytes { Array($0) }
            #expect(throws: SnapIndexFileError.self, "\(tag)") { try SnapIndex(fileSections: damaged, graph: graph) }
        }
        // An index of the format before (its pieces stored, not numbered by their segments) is built again.
        var formerIndex = sections
        formerIndex["XPRM"] =
            GraphFile.Section("XPRM", [1.0, 200, 1000] + sections.column("XPRM", as: Double.self)!.array.suffix(2))
            .bytes
        #expect(try SnapIndex(fileSections: formerIndex, graph: graph) == nil)
        // So is one whose largest component was never tiny (format 2).
        formerIndex["XPRM"] =
            GraphFile.Section("XPRM", [2.0, 200, 1000] + sections.column("XPRM", as: Double.self)!.array.suffix(2))
            .bytes
        #expect(try SnapIndex(fileSections: formerIndex, graph: graph) == nil)
        // And one without the roads waypoints do not usually start on (format 3).
        formerIndex["XPRM"] =
            GraphFile.Section("XPRM", [3.0, 200, 1000] + sections.column("XPRM", as: Double.self)!.array.suffix(2))
            .bytes
        #expect(try SnapIndex(fileSections: formerIndex, graph: graph) == nil)
        for scales in [[4.0, 200, 1000, 1e300, 111_195], [4.0, 200, 1000, -1, 111_195], [4.0, 200, 1000, .nan, .nan]] {
            var scaled = sections
            scaled["XPRM"] = GraphFile.Section("XPRM", scales).bytes
            #expect(throws: SnapIndexFileError.self, "\(scales)") { try SnapIndex(fileSections: scaled, graph: graph) }
        }
        // Each segment's ends and edges are stored too and used in place; a file from before they
        // were stored reads them off the graph; ends that are not the graph's are an error.
        #expect(storedIndex.segmentStart.elementsEqual(SnapIndex(graph: graph).segmentStart))
        var olderIndex = sections
        for tag in ["XSGS", "XSGE", "XSGF", "XSGB"] { olderIndex[tag] = nil }
        let rebuilt = try #require(try SnapIndex(fileSections: olderIndex, graph: graph))
        #expect(rebuilt.fileSections.map(\.bytes) == storedIndex.fileSections.map(\.bytes))
        for tag in ["XSGS", "XSGE", "XSGF", "XSGB"] {
            var damaged = sections
            var values = damaged[tag]!.withUnsafeBytes { Array($0.bindMemory(to: UInt32.self)) }
            values[values.count / 2] ^= 1
            damaged[tag] = values.withUnsafeBytes { Array($0) }
            #expect(throws: SnapIndexFileError.self, "\(tag)") { try SnapIndex(fileSections: damaged, graph: graph) }
            var short = sections
            short[tag] = Array(short[tag]!.dropLast(4))
            #expect(throws: SnapIndexFileError.self, "\(tag)") { try SnapIndex(fileSections: short, graph: graph) }
        }
        // The pieces' lengths likewise: a file from before they were stored measures them at the
        // load (the same values); lengths not finite or negative, or too few, are an error.
        var unmeasured = sections
        unmeasured["XPLN"] = nil
        let measured = try #require(try SnapIndex(fileSections: unmeasured, graph: graph))
        #expect(measured.fileSections.map(\.bytes) == storedIndex.fileSections.map(\.bytes))
        #expect(storedIndex.pieceEnd.contains { $0 > 0 })
        for bad in [Double.nan, -1, .infinity] {
            var damaged = sections
            var values = damaged["XPLN"]!.withUnsafeBytes { Array($0.bindMemory(to: Double.self)) }
            values[values.count / 2] = bad
            damaged["XPLN"] = values.withUnsafeBytes { Array($0) }
            #expect(throws: SnapIndexFileError.self, "\(bad)") { try SnapIndex(fileSections: damaged, graph: graph) }
        }
        var shortLengths = sections
        shortLengths["XPLN"] = Array(shortLengths["XPLN"]!.dropLast(8))
        #expect(throws: SnapIndexFileError.self) { try SnapIndex(fileSections: shortLengths, graph: graph) }
        // The pieces' segments likewise: listed at the load for a file from before; segments that
        // are not the graph's, or too few, are an error.
        var unlisted = sections
        unlisted["XPSG"] = nil
        let listed = try #require(try SnapIndex(fileSections: unlisted, graph: graph))
        #expect(listed.fileSections.map(\.bytes) == storedIndex.fileSections.map(\.bytes))
        var moved = sections
        var pieceSegments = moved["XPSG"]!.withUnsafeBytes { Array($0.bindMemory(to: UInt32.self)) }
        pieceSegments[pieceSegments.count / 2] ^= 1
        moved["XPSG"] = pieceSegments.withUnsafeBytes { Array($0) }
        #expect(throws: SnapIndexFileError.self) { try SnapIndex(fileSections: moved, graph: graph) }
        var fewer = sections
        fewer["XPSG"] = Array(fewer["XPSG"]!.dropLast(4))
        #expect(throws: SnapIndexFileError.self) { try SnapIndex(fileSections: fewer, graph: graph) }
        var unsorted = sections
        var keys = unsorted["XCKY"]!.withUnsafeBytes { Array($0.bindMemory(to: Int64.self)) }
        keys.swapAt(0, 1)
        unsorted["XCKY"] = keys.withUnsafeBytes { Array($0) }
        #expect(throws: SnapIndexFileError.self) { try SnapIndex(fileSections: unsorted, graph: graph) }
        // Routes on the file (stored tables) and on the graph in memory (made tables) agree.
        let a = try RoadMap(graphFile: path), b = RoadMap(graph: g)
        let from = Coordinate(latitude: 52.3080, longitude: -2.6010),
            to = Coordinate(latitude: 52.3110, longitude: -2.5960)
        #expect(try a.route(from: from, to: to) == b.route(from: from, to: to))
    }

    /// A graph file's hierarchy is used, written back, and set aside (with a reason) when the
    /// caller asks for the other driving side; routes then follow that side.
    @Test func graphFilesAndDrivingSide() throws {
        var g = try OSMGraphLoader.build(path: packageRoot() + "/Data/sample-town.osm")
        g.drivingSide = .left
        let built = RoadMap(graph: g, method: .hierarchy)
        built.prepare()
        let path = NSTemporaryDirectory() + "roadmap-\(UUID().uuidString).wmg"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try built.write(to: path)

        let loaded = try RoadMap(graphFile: path)
        #expect(loaded.graph == g && loaded.setAsideHierarchy == nil)
        #expect(loaded.hierarchy?.arcCount == built.hierarchy?.arcCount)
        #expect(loaded.prepare().search == .hierarchy && !loaded.prepare().contracted)
        let from = Coordinate(latitude: 52.3127, longitude: -2.5783),
            to = Coordinate(latitude: 52.3053, longitude: -2.6010)
        let left = try loaded.route(from: from, to: to)
        #expect(try built.route(from: from, to: to) == left)

        let same = try RoadMap(graphFile: path, drivingSide: .left)
        #expect(same.setAsideHierarchy == nil && same.hierarchy != nil)
        let other = try RoadMap(graphFile: path, drivingSide: .right)
        #expect(other.setAsideHierarchy?.contains("contracted for left-hand traffic") == true)
        #expect(other.hierarchy == nil && other.graph.drivingSide == .right)
        #expect(other.prepare().search == .aStar)
        let right = try other.route(from: from, to: to)
        #expect(abs(right.duration - left.duration) > 1,
                "turn costs follow the side: \(right.duration) vs \(left.duration)")
        #expect(throws: RoadMapError.self) { try RoadMap(graphFile: path + ".missing") }
    }
}

@Suite struct StampedArrayTests {
    @Test func labelsLastOneQuery() {
        var labels = StampedArray<SearchLabel>(count: 10)
        defer { labels.deallocate() }
        #expect(!(0..<10).contains { labels.contains($0) })
        labels[3] = SearchLabel(cost: 2.5, parent: 7)
        let copy = labels // shares the storage
        #expect(copy.contains(3) && copy[3].cost == 2.5 && copy[3].parent == 7 && !copy.contains(4))
        labels.clear()
        #expect(!labels.contains(3))
        labels[4] = SearchLabel(cost: 1, parent: -1)
        #expect(labels.contains(4) && !labels.contains(3))
    }

    /// Labels enough to be kept in large pages: the same behaviour, at both ends of the range,
    /// and wiped whole at the wrap-around.
    @Test func largeLabelsLastOneQuery() {
        let count = LargePages.pageSize / 8 + 3
        #expect(StampedArray<SearchLabel>.inLargePages(count) && !StampedArray<SearchLabel>.inLargePages(10))
        var labels = StampedArray<SearchLabel>(count: count)
        defer { labels.deallocate() }
        #expect(!labels.contains(0) && !labels.contains(count - 1))
        labels[count - 1] = SearchLabel(cost: 4, parent: 2)
        labels[0] = SearchLabel(cost: 1, parent: -1)
        #expect(labels.contains(count - 1) && labels[count - 1].cost == 4 && labels[0].parent == -1)
        labels.clear()
        #expect(!labels.contains(count - 1) && !labels.contains(0))
        labels[5] = SearchLabel(cost: 2, parent: 1)
        labels.generation = UInt32.max
        labels.clear()
        #expect(labels.generation == 1 && !labels.contains(5))
    }

    /// After 2³² queries the stamps start again from 1 and old ones are wiped, so a label from
    /// long ago never reads as current.
    @Test func generationWrapsRound() {
        var labels = StampedArray<Double>(count: 4)
        defer { labels.deallocate() }
        labels[0] = 5 // stamped 1
        labels.generation = UInt32.max
        labels[1] = 6
        labels.clear() // wraps: every stamp wiped, generation 1 again
        #expect(labels.generation == 1)
        #expect(!labels.contains(0) && !labels.contains(1))
    }
}

/// OSRM's snapping rule for small components: a route stays inside a tiny component when every
/// waypoint is nearest to it; otherwise waypoints near it move to the big network.
@Suite struct TinyComponentTests {
    static let xml = """
    <?xml version="1.0"?>
    <osm version="0.6">
    <node id="1" lat="52.000" lon="13.000"/><node id="2" lat="52.000" lon="13.003"/>
    <node id="3" lat="52.002" lon="13.003"/><node id="4" lat="52.002" lon="13.000"/>
    <node id="5" lat="52.006" lon="13.000"/><node id="6" lat="52.006" lon="13.003"/>
    <node id="7" lat="51.998" lon="13.003"/>
    <way id="1"><nd ref="1"/><nd ref="2"/><nd ref="3"/><tag k="highway" v="residential"/><tag k="name" v="Loop"/></way>
    <way id="3"><nd ref="3"/><nd ref="4"/><nd ref="1"/><tag k="highway" v="residential"/><tag k="name" v="Loop"/></way>
    <way id="4"><nd ref="2"/><nd ref="7"/><tag k="highway" v="residential"/><tag k="name" v="Spur"/></way>
    <way id="2"><nd ref="5"/><nd ref="6"/><tag k="highway" v="residential"/><tag k="name" v="Island Road"/></way>
    </osm>
    """

    /// On a map this small every component is tiny (under 1,000 vertices), so each waypoint keeps
    /// its nearest road, as in OSRM. OSRM's answers on this map: both ends by Island Road, a route
    /// of 137.3 m along it; one end by Island Road and one by the loop, NoRoute (no road joins them).
    @Test func onASmallMapEveryWaypointKeepsItsNearestRoad() throws {
        let map = RoadMap(graph: try OSMGraphLoader.build(xml: Self.xml))
        let a = Coordinate(latitude: 52.0062, longitude: 13.0005), b = Coordinate(latitude: 52.0062, longitude: 13.0025)
        let c = Coordinate(latitude: 52.0021, longitude: 13.0015)
        let island = try map.route(from: a, to: b)
        #expect(island.distance > 100 && island.distance < 200, "\(island.distance)")
        #expect(island.legs[0].steps[0].name == "Island Road")
        #expect(island.waypoints.allSatisfy { $0.distance < 30 && $0.isInTinyComponent })
        do {
            let route = try map.route(from: a, to: c)
            Issue.record("a route of \(route.distance) m; OSRM: NoRoute")
        } catch {
            #expect(error.code == "NoRoute")
        }
        let choice = SnapIndex.choose([(island.waypoints[0], nil), (island.waypoints[1], nil)])
        #expect(choice == island.waypoints)
    }

    /// A town of 1,089 junctions (a 33 × 33 grid, above OSRM's 1,000) with Island Road beside it: a
    /// route stays on the island only when both ends are nearest to it; with one end in town,
    /// the other moves to the town's nearest road.
    @Test func nearABigNetworkWaypointsByATinyPieceMoveToIt() throws {
        var xml = "<?xml version=\"1.0\"?>\n<osm version=\"0.6\">\n"
        let side = 33, step = 0.0005
        func id(_ row: Int, _ column: Int) -> Int { 100 + row * side + column }
        for row in 0..<side {
            for column in 0..<side {
                xml += "<node id=\"\(id(row, column))\" lat=\"\(52 - Double(row) * step)\" "
                    + "lon=\"\(13 + Double(column) * step)\"/>\n"
            }
        }
        for k in 0..<side {
            let across = (0..<side).map { "<nd ref=\"\(id(k, $0))\"/>" }.joined()
            let down = (0..<side).map { "<nd ref=\"\(id($0, k))\"/>" }.joined()
            xml += "<way id=\"\(10 + 2 * k)\">\(across)<tag k=\"highway\" v=\"residential\"/></way>\n"
            xml += "<way id=\"\(11 + 2 * k)\">\(down)<tag k=\"highway\" v=\"residential\"/></way>\n"
        }
        xml += """
            <node id="1" lat="52.004" lon="13.000"/><node id="2" lat="52.004" lon="13.003"/>
            <way id="1"><nd ref="1"/><nd ref="2"/><tag k="highway" v="residential"/>\
            <tag k="name" v="Island Road"/></way>
            </osm>
            """
        let map = RoadMap(graph: try OSMGraphLoader.build(xml: xml))
        let a = Coordinate(latitude: 52.0037, longitude: 13.0005), b = Coordinate(latitude: 52.0037, longitude: 13.0025)
        let c = Coordinate(latitude: 51.995, longitude: 13.0052)
        let island = try map.route(from: a, to: b)
        #expect(island.legs[0].steps[0].name == "Island Road")
        #expect(island.waypoints.allSatisfy { $0.isInTinyComponent })
        let mixed = try map.route(from: a, to: c)
        #expect(mixed.waypoints.allSatisfy { !$0.isInTinyComponent })
        #expect(mixed.waypoints[0].distance > 300, "\(mixed.waypoints[0].distance)")
    }
}

/// A road across 180° (issue 13, item 6: a two-node map took 5 s and 1.5 GB to route, its one
/// piece registered in every grid cell of a bounding box as wide as the world).
@Suite struct AntimeridianTests {
    static let xml = """
    <?xml version="1.0"?>
    <osm version="0.6">
    <node id="1" lat="-17.0" lon="179.99"/><node id="2" lat="-17.0" lon="-179.99"/>
    <way id="1"><nd ref="1"/><nd ref="2"/><tag k="highway" v="residential"/><tag k="name" v="Date Line Road"/></way>
    </osm>
    """

    @Test func snapsAndRoutesAcross180() throws {
        let graph = try OSMGraphLoader.build(xml: Self.xml)
        let index = SnapIndex(graph: graph)
        // The piece is about 2.1 km long: a few dozen cells along it, not the world.
        #expect(index.cellPieces.count < 100, "\(index.cellPieces.count) cell entries")
        let map = RoadMap(graph: graph)
        let west = Coordinate(latitude: -17.0001, longitude: 179.995),
            east = Coordinate(latitude: -16.9999, longitude: -179.995)
        for point in [west, east] {
            let snap = try #require(map.nearest(point))
            #expect(snap.distance < 20 && abs(abs(snap.coordinate.longitude) - 179.995) < 1e-6, "\(snap)")
        }
        let route = try map.route(from: west, to: east)
        #expect(abs(route.distance - 1064) < 20, "\(route.distance)")
        #expect(route.geometry.allSatisfy { abs($0.longitude) > 179.9 })
    }
}

/// A map keeps to the side most of its roads lie in (Malta: left; the same road moved to
/// Portugal: right), unless the caller says otherwise.
@Suite struct DrivingSideByPlaceTests {
    static func xml(latitude: Double, longitude: Double) -> String {
        """
        <?xml version="1.0"?>
        <osm version="0.6">
        <node id="1" lat="\(latitude)" lon="\(longitude)"/><node id="2" lat="\(latitude + 0.002)" lon="\(longitude)"/>
        <way id="1"><nd ref="1"/><nd ref="2"/><tag k="highway" v="residential"/></way>
        </osm>
        """
    }

    @Test func decidedByWhereTheRoadsAre() throws {
        #expect(try OSMGraphLoader.build(xml: Self.xml(latitude: 35.9, longitude: 14.5)).drivingSide == .left)
        #expect(try OSMGraphLoader.build(xml: Self.xml(latitude: 41.15, longitude: -8.61)).drivingSide == .right)
        #expect(DrivingSide(mostOf: []) == .right)
    }
}
