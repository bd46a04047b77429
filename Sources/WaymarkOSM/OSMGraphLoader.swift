import Foundation
import WaymarkGeo
import WaymarkGraph
import WaymarkProfiles
import WaymarkSupport

/// Reads an OpenStreetMap file — XML (`.osm`, `.osm.gz`) in one streaming pass, or PBF
/// (`.osm.pbf`, decoded on all cores by ``PBFReader``) — and builds the car road graph. Both
/// formats feed the same collector, so the same data gives the same graph.
///
/// Nodes are kept as three flat arrays (id, latitude, longitude: 16 bytes each) because a way may
/// use any of them; ways and restriction relations are judged by the profile as they arrive and
/// only routable ones are kept. After the pass, nodes are sorted by id if the file did not have
/// them sorted, way references are resolved by binary search (a reference to a node not in the
/// file loses only the stretches next to it), and ``GraphBuilder`` makes the graph.
public enum OSMGraphLoader {
    /// Progress while reading: bytes of the file read so far, its size, and elements seen.
    public typealias Progress = @Sendable (_ bytesRead: Int, _ fileSize: Int, _ elements: Int) -> Void

    /// The keys of the tags the profile reads (and the basemap, when it is kept); all others are
    /// dropped as the file is read.
    static func wantedKeys(_ profile: any RoutingProfile, basemap: Bool) -> Set<String> {
        let keys = profile.tagKeys.union(Collector.relationKeys)
        return basemap ? keys.union(BasemapCollector.keys) : keys
    }

    /// Builds the graph of the file at `path`, XML or PBF (told apart by its first bytes).
    public static func build(path: String, profile: any RoutingProfile = CarProfile(),
                             progress: Progress? = nil) throws(OSMReadError) -> RoadGraph {
        try build(path: path, profile: profile, basemap: false, progress: progress).graph
    }

    /// Builds the graph and the basemap (``Basemap``: water, parks, woods, railways, buildings,
    /// place names) of the file at `path`, in the same pass.
    public static func buildWithBasemap(path: String, profile: any RoutingProfile = CarProfile(),
                                        progress: Progress? = nil
                                    ) throws(OSMReadError) -> (graph: RoadGraph, basemap: Basemap) {
        let (graph, basemap) = try build(path: path, profile: profile, basemap: true, progress: progress)
        return (graph, basemap ?? Basemap())
    }

    static func build(path: String, profile: any RoutingProfile, basemap: Bool, progress: Progress?)
        throws(OSMReadError) -> (graph: RoadGraph, basemap: Basemap?) {
        switch sniff(path) {
        case .pbf: return try buildPBF(path: path, profile: profile, basemap: basemap, progress: progress)
        case let .other(what): throw .notOSM(path: path, found: what)
        case .xml: return try build(input: try GzipInput(path: path), profile: profile,
                                    basemap: basemap, progress: progress)
        }
    }

    enum Format: Equatable {
        case xml, pbf
        case other(String)
    }

    /// What a file is by its first bytes: an OSM PBF, JSON, or (possibly gzipped) XML — also
    /// when it cannot be read: opening it reports that.
    static func sniff(_ path: String) -> Format {
        // Only a regular file is opened here: opening a FIFO would wait for a writer. Anything
        // else goes on to the reader, which says what is wrong with it.
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG,
            let handle = FileHandle(forReadingAtPath: path)
        else { return .xml }
        defer { try? handle.close() }
        // (An empty file is no map of any kind, not "malformed XML"; reading it gives nil.)
        guard info.st_size > 0 else { return .other("the file is empty") }
        guard let head = try? handle.read(upToCount: 64), !head.isEmpty else { return .xml }
        let bytes = Array(head)
        // gzip: XML inside, as far as we can tell
        if bytes.count >= 2 && bytes[0] == 0x1F && bytes[1] == 0x8B { return .xml }
        // A PBF starts with a blob header's 4-byte length, then its type: field 1, "OSMHeader"
        // (or, in a damaged one, "OSMData").
        if bytes.count >= 13 && bytes[0] == 0 && bytes[1] == 0 && bytes[4] == 0x0A
            && String(decoding: bytes[6..<13], as: UTF8.self).hasPrefix("OSM") {
            return .pbf
        }
        if let first = bytes.first(where: { $0 > 0x20 }), first == UInt8(ascii: "{") || first == UInt8(ascii: "[") {
            return .other(
                "it is JSON (GeoJSON?); a map is OpenStreetMap XML (.osm, .osm.gz), OSM PBF (.osm.pbf) or a graph file "
                    + "(.wmg)"
            )
        }
        return .xml
    }

    /// Builds from an open input and closes it on every path, errors included (its inflating
    /// thread holds it alive until then).
    static func build(input: GzipInput, profile: any RoutingProfile, basemap: Bool = false, progress: Progress?)
        throws(OSMReadError) -> (graph: RoadGraph, basemap: Basemap?) {
        defer { input.close() }
        let start = DispatchTime.now().uptimeNanoseconds
        let collector = Collector(profile: profile, basemap: basemap)
        let decoder = OSMElementDecoder(sink: collector, wantedKeys: wantedKeys(profile, basemap: basemap))
        if let progress {
            input.progress = { read, size in progress(read, size,
                                                      decoder.nodeCount + decoder.wayCount + decoder.relationCount) }
        }
        try LibXML2Parser.parse(input, into: decoder)
        return finish(collector, counts: (decoder.nodeCount, decoder.wayCount, decoder.relationCount),
                      inputBytes: input.fileSize, start: start)
    }

    /// Builds from an OSM PBF file.
    static func buildPBF(path: String, profile: any RoutingProfile, basemap: Bool = false, progress: Progress?)
        throws(OSMReadError) -> (graph: RoadGraph, basemap: Basemap?) {
        let start = DispatchTime.now().uptimeNanoseconds
        let reader = try PBFReader(path: path)
        let collector = Collector(profile: profile, basemap: basemap)
        try reader.read(into: collector, wantedKeys: wantedKeys(profile, basemap: basemap), progress: progress)
        return finish(collector, counts: (reader.nodeCount, reader.wayCount, reader.relationCount),
                      inputBytes: reader.fileSize, start: start)
    }

    private static func finish(_ collector: Collector, counts: (nodes: Int, ways: Int, relations: Int), inputBytes: Int,
                               start: UInt64) -> (graph: RoadGraph, basemap: Basemap?) {
        var builder = collector.makeBuilder()
        builder.report.osmNodes = counts.nodes
        builder.report.osmWays = counts.ways
        builder.report.osmRelations = counts.relations
        builder.report.inputBytes = inputBytes
        var graph = builder.build()
        let basemap = collector.makeBasemap()
        graph.report.buildSeconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        // What the build used goes back to the system now (freed on every core, then handed back
        // from each one's arena), not kept under what comes next: the snap index and guidance
        // tables of a file.
        builder.releaseWays()
        returnFreedMemory()
        return (graph, basemap)
    }

    /// Builds the graph of OSM XML text (for tests and small inputs).
    public static func build(xml: String,
                             profile: any RoutingProfile = CarProfile()) throws(OSMReadError) -> RoadGraph {
        let path = NSTemporaryDirectory() + "waymark-\(UUID().uuidString).osm"
        guard FileManager.default.createFile(atPath: path, contents: Data(xml.utf8)) else {
            throw .cannotOpen(path: "<xml>", reason: "could not write a temporary file")
        }
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            return try build(path: path, profile: profile)
        } catch {
            throw error.renamingPath(path, to: "<xml>")
        }
    }
}

extension OSMGraphLoader {
    /// Builds the graph of OSM PBF bytes (for tests and fuzzing).
    public static func build(pbf bytes: [UInt8],
                             profile: any RoutingProfile = CarProfile()) throws(OSMReadError) -> RoadGraph {
        let path = NSTemporaryDirectory() + "waymark-\(UUID().uuidString).osm.pbf"
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
            throw .cannotOpen(path: "<pbf>", reason: "could not write a temporary file")
        }
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            return try buildPBF(path: path, profile: profile, progress: nil).graph
        } catch {
            throw error.renamingPath(path, to: "<pbf>")
        }
    }
}

extension OSMReadError {
    func renamingPath(_ old: String, to new: String) -> OSMReadError {
        switch self {
        case let .cannotOpen(path, reason): return .cannotOpen(path: path == old ? new : path, reason: reason)
        case let .read(path, reason): return .read(path: path == old ? new : path, reason: reason)
        case let .notOSM(path, found): return .notOSM(path: path == old ? new : path, found: found)
        case let .notGPX(path, found): return .notGPX(path: path == old ? new : path, found: found)
        case let .pbf(path, offset, message): return .pbf(path: path == old ? new : path,
                                                          offset: offset, message: message)
        case let .xml(function, path, line, message): return .xml(function: function, path: path == old ? new : path,
                                                                  line: line, message: message)
        case let .invalidAttribute(path, line, element, attribute, value):
            return .invalidAttribute(path: path == old ? new : path, line: line, element: element,
                                     attribute: attribute, value: value)
        }
    }
}

/// Ways the profile keeps: their node references (way after way, in one array), rules and ids.
struct KeptWays: Sendable {
    var refs: [Int64] = []
    /// Where each way's references end in `refs` (way `w` starts where way `w - 1` ends).
    var ends: [Int] = []
    var rules: [WayRule] = []
    var ids: [Int64] = []

    mutating func append(id: Int64, refs nodes: [Int64], rule: WayRule) {
        refs += nodes
        ends.append(refs.count)
        rules.append(rule)
        ids.append(id)
    }
}

/// Collects what the graph needs while the file streams past.
private final class Collector: OSMElementSink {
    static let relationKeys: Set<String> = ["type", "restriction", "restriction:motorcar", "restriction:motor_vehicle",
                                            "restriction:vehicle", "except"]

    let profile: any RoutingProfile
    var nodeIDs: [Int64] = [], nodeLatitudes: [Int32] = [], nodeLongitudes: [Int32] = []
    var nodesSorted = true
    var nodeRules: [Int64: NodeRule] = [:]
    /// The kept ways, in runs in file order the same way: a PBF block's as its preparation made
    /// them, and those kept one at a time.
    var wayRuns: [KeptWays] = []
    var ways = KeptWays()
    /// Restrictions with OSM ids: a via node, or via ways (then `via` is unused).
    var restrictions: [(from: Int64, via: Int64, viaWays: [Int64], to: Int64, kind: RestrictionKind)] = []
    var unusableRestrictions = 0
    /// The basemap's collector, when one is built too.
    let basemap: BasemapCollector?

    init(profile: any RoutingProfile, basemap: Bool = false) {
        self.profile = profile
        self.basemap = basemap ? BasemapCollector() : nil
    }

    func node(id: Int64, latitude: Int32, longitude: Int32, tags: [String: String]) {
        if !tags.isEmpty { basemap?.node(latitude: latitude, longitude: longitude, tags: tags) }
        if let last = nodeIDs.last, id <= last { nodesSorted = false }
        nodeIDs.append(id)
        nodeLatitudes.append(latitude)
        nodeLongitudes.append(longitude)
        if !tags.isEmpty {
            let rule = profile.node(tags)
            if !rule.isEmpty { nodeRules[id] = rule }
        }
    }

    /// On the decoding threads: each way and tagged node judged by the profile, and the tags
    /// dropped unless the basemap needs them (so they are also freed there).
    var blockPreparation: PBFBlock.Preparation? {
        let profile = profile, keepTags = basemap != nil
        return { block in
            block.nodesAscend = zip(block.nodeIDs, block.nodeIDs.dropFirst()).allSatisfy { $0 < $1 }
            for i in block.nodeTags.indices {
                block.nodeTags[i].rule = profile.node(block.nodeTags[i].tags)
                if !keepTags { block.nodeTags[i].tags = [:] }
            }
            // Each distinct tag set judged once.
            var judged = [WayRule??](repeating: nil, count: block.wayTagSets)
            for i in block.ways.indices {
                var rule: WayRule?
                if block.ways[i].refs.count >= 2 {
                    let set = Int(block.ways[i].tagSet)
                    if set < judged.count, let known = judged[set] {
                        rule = known
                    } else {
                        rule = profile.way(block.ways[i].tags)
                        if set < judged.count { judged[set] = .some(rule) }
                    }
                }
                block.ways[i].rule = rule
                if !keepTags {
                    block.ways[i].tags = [:]
                    if let rule, block.ways[i].refs.count >= 2 {
                        block.kept.append(id: block.ways[i].id, refs: block.ways[i].refs, rule: rule)
                    }
                    block.ways[i].refs = []
                }
            }
            // Without a basemap only the kept ways go on, freed of the rest here.
            if !keepTags { block.ways = [] }
        }
    }

    /// A judged block: its nodes appended in bulk, its roads kept.
    func take(_ block: PBFBlock) {
        // (Nodes are appended, not kept in runs like the ways: joining runs at the end held
        // them twice at once, where growing arrays free their old storage as they go.)
        if let first = block.nodeIDs.first, !block.nodesAscend
            || nodeIDs.last.map({ first <= $0 }) == true { nodesSorted = false }
        nodeIDs.append(contentsOf: block.nodeIDs)
        nodeLatitudes.append(contentsOf: block.latitudes)
        nodeLongitudes.append(contentsOf: block.longitudes)
        for node in block.nodeTags {
            let id = block.nodeIDs[node.index]
            if let basemap, !node.tags.isEmpty {
                basemap.node(
                    latitude: block.latitudes[node.index], longitude: block.longitudes[node.index], tags: node.tags)
            }
            if let rule = node.rule, !rule.isEmpty { nodeRules[id] = rule }
        }
        // By index: a way's fields read in place, not the whole way copied (and released) each time.
        for i in block.ways.indices {
            if let basemap { basemap.way(id: block.ways[i].id, nodes: block.ways[i].refs, tags: block.ways[i].tags) }
            guard block.ways[i].refs.count >= 2, let rule = block.ways[i].rule else { continue }
            keep(id: block.ways[i].id, nodes: block.ways[i].refs, rule: rule)
        }
        if !block.kept.ids.isEmpty {
            endRun()
            wayRuns.append(block.kept)
        }
        for relation in block.relations { self.relation(id: relation.id,
                                                        members: relation.members, tags: relation.tags) }
    }

    private func keep(id: Int64, nodes: [Int64], rule: WayRule) {
        ways.append(id: id, refs: nodes, rule: rule)
        // Runs of a PBF block's size, so that the cores can share them out.
        if ways.ids.count == 8192 { endRun() }
    }

    /// The ways kept one at a time so far, closed as a run (in file order after the runs before).
    private func endRun() {
        guard !ways.ids.isEmpty else { return }
        wayRuns.append(ways)
        ways = KeptWays()
    }

    func way(id: Int64, nodes: [Int64], tags: [String: String]) {
        basemap?.way(id: id, nodes: nodes, tags: tags)
        guard nodes.count >= 2, let rule = profile.way(tags) else { return }
        keep(id: id, nodes: nodes, rule: rule)
    }

    func relation(id: Int64, members: [OSMMember], tags: [String: String]) {
        basemap?.relation(members: members, tags: tags)
        guard let kind = profile.restriction(tags) else { return }
        let from = members.filter { $0.role == "from" }, via = members.filter { $0.role == "via" },
            to = members.filter { $0.role == "to" }
        // One from and one to way, except that `no_entry` may name several from ways and
        // `no_exit` several to ways (each pair a restriction of its own, as in OSRM); one via node
        // or one or more via ways.
        let several = profile.restrictionMayNameSeveralWays(tags)
        guard !from.isEmpty, !to.isEmpty, from.count == 1 || several.from, to.count == 1 || several.to,
              (from + to).allSatisfy({ $0.kind == .way }), !via.isEmpty,
              via.count == 1 && via[0].kind == .node || via.allSatisfy({ $0.kind == .way })
        else {
            unusableRestrictions += 1
            return
        }
        let viaWays = via[0].kind == .way ? via.map(\.ref) : []
        for f in from {
            for t in to { restrictions.append((f.ref, via[0].ref, viaWays, t.ref, kind)) }
        }
    }

    /// The basemap, once ``makeBuilder()`` has sorted the nodes (nil when none was asked for).
    func makeBasemap() -> Basemap? {
        guard let basemap else { return nil }
        let ids = nodeIDs, latitudes = nodeLatitudes, longitudes = nodeLongitudes
        // The extract's box: where its nodes lie.
        var box: BoundingBox?
        if let south = latitudes.min(), let north = latitudes.max(), let west = longitudes.min(),
           let east = longitudes.max() {
            box = BoundingBox(west: FixedPoint.decode(west), south: FixedPoint.decode(south),
                              east: FixedPoint.decode(east), north: FixedPoint.decode(north))
        }
        return basemap.make(box: box) { id in
            var low = 0, high = ids.count
            while low < high {
                let mid = (low + high) / 2
                if ids[mid] < id { low = mid + 1 } else { high = mid }
            }
            guard low < ids.count && ids[low] == id else { return nil }
            return Coordinate(latitude: FixedPoint.decode(latitudes[low]),
                              longitude: FixedPoint.decode(longitudes[low]))
        }
    }

    func makeBuilder() -> GraphBuilder {
        if !nodesSorted {
            let order = nodeIDs.indices.sorted { nodeIDs[$0] < nodeIDs[$1] }
            nodeIDs = order.map { nodeIDs[$0] }
            nodeLatitudes = order.map { nodeLatitudes[$0] }
            nodeLongitudes = order.map { nodeLongitudes[$0] }
        }
        var builder = GraphBuilder(profile: profile)
        builder.latitudes = nodeLatitudes
        builder.longitudes = nodeLongitudes
        builder.nodeIDs = nodeIDs
        let directory = NodeDirectory(sortedIDs: nodeIDs)
        for (id, rule) in nodeRules {
            let i = directory.index(of: id)
            if i != GraphBuilder.missing { builder.nodeRules[i] = rule }
        }
        builder.ways = resolveWays(directory)
        // The runs were made on the decoding threads, in their arenas: what they held (freed
        // while resolving) goes back to the system, not kept under the build's later, larger arrays.
        returnFreedMemory()
        for r in restrictions {
            if !r.viaWays.isEmpty {
                builder.restrictions.append(GraphBuilder.Restriction(fromWay: r.from, viaWays: r.viaWays,
                                                                     toWay: r.to, kind: r.kind))
                continue
            }
            let via = directory.index(of: r.via)
            if via == GraphBuilder.missing {
                unusableRestrictions += 1
                continue
            }
            builder.restrictions.append(GraphBuilder.Restriction(fromWay: r.from, via: via, toWay: r.to, kind: r.kind))
        }
        builder.unusableRestrictions = unusableRestrictions
        // The builder keeps its own reference to the node ids (the graph keeps the ids of its
        // vertices and shape points); the loader's other node data goes now.
        if basemap == nil { (nodeIDs, nodeLatitudes, nodeLongitudes, nodeRules) = ([], [], [], [:]) }
        return builder
    }

    /// Way references to node indices, the runs of ways shared out between two cores whole,
    /// each run's written in its place and freed by the core that read it. A way's nodes were
    /// often made one after another, so a reference is first tried beside the one before it;
    /// then searched for.
    private func resolveWays(_ directory: NodeDirectory) -> GraphBuilder.Ways {
        endRun()
        var runs = wayRuns
        wayRuns = [] // the references as read are not needed again
        var starts = [0], refStarts = [0]
        for run in runs {
            starts.append(starts[starts.count - 1] + run.ids.count)
            refStarts.append(refStarts[refStarts.count - 1] + run.refs.count)
        }
        let count = starts[starts.count - 1], refCount = refStarts[refStarts.count - 1]
        let cut = starts.indices.dropLast().min { abs(2 * starts[$0] - count) < abs(2 * starts[$1] - count) } ?? 0
        // Each way's end and id, then the references resolved and the rules copied, run by run.
        var ends: [Int] = [], wayIDs: [Int64] = []
        ends.reserveCapacity(count)
        wayIDs.reserveCapacity(count)
        for r in runs.indices {
            ends += runs[r].ends.lazy.map { $0 + refStarts[r] }
            wayIDs += runs[r].ids
        }
        var rules: [WayRule] = []
        let nodes = [UInt32](unsafeUninitializedCapacity: refCount) { nodes, initialized in
            rules = [WayRule](unsafeUninitializedCapacity: count) { rules, made in
                runs.withUnsafeMutableBufferPointer { runs in
                    // Shared with the threads below: each part writes only its own share of it.
                    nonisolated(unsafe) let (runs, nodes, rules) = (runs, nodes, rules)
                    func resolve(runs range: Range<Int>) {
                        for r in range {
                            directory.resolve(runs[r], into: nodes.baseAddress! + refStarts[r])
                            runs[r].rules.withUnsafeBufferPointer {
                                (rules.baseAddress! + starts[r]).initialize(from: $0.baseAddress!, count: $0.count)
                            }
                            runs[r] = KeptWays()
                        }
                    }
                    _ = inParallel({ resolve(runs: 0..<cut) }, { resolve(runs: cut..<runs.count) })
                }
                made = count
            }
            initialized = refCount
        }
        return GraphBuilder.Ways(nodes: nodes, ends: ends, rules: rules, ids: wayIDs)
    }
}

/// A directory over the sorted node ids (about eight to a bucket of equal id range): a lookup
/// searches its bucket only, not all the ids (a binary search of millions of ids missed the
/// cache at nearly every step).
struct NodeDirectory: Sendable {
    let ids: [Int64]
    let lowest: Int64
    let shift: UInt64
    let buckets: [UInt32]

    init(sortedIDs ids: [Int64]) {
        self.ids = ids
        lowest = ids.first ?? 0
        let span = UInt64(bitPattern: (ids.last ?? 0) &- lowest)
        var shift: UInt64 = 0
        while span >> shift > UInt64(max(1, ids.count / 8)) { shift += 1 }
        var directory = [UInt32](repeating: 0, count: ids.isEmpty ? 0 : Int(span >> shift) + 2)
        for id in ids { directory[Int(UInt64(bitPattern: id &- lowest) >> shift) + 1] += 1 }
        for b in directory.indices.dropFirst() { directory[b] += directory[b - 1] }
        self.shift = shift
        buckets = directory
    }

    /// The index of node `id`, or ``GraphBuilder/missing``.
    func index(of id: Int64) -> UInt32 {
        guard let last = ids.last, id >= lowest, id <= last else { return GraphBuilder.missing }
        let b = Int(UInt64(bitPattern: id &- lowest) >> shift)
        var low = Int(buckets[b]), high = Int(buckets[b + 1])
        while low < high {
            let mid = (low + high) / 2
            if ids[mid] < id { low = mid + 1 } else { high = mid }
        }
        return low < Int(buckets[b + 1]) && ids[low] == id ? UInt32(low) : GraphBuilder.missing
    }

    /// The node indices of one run's references, written to `nodes`.
    func resolve(_ run: KeptWays, into nodes: UnsafeMutablePointer<UInt32>) {
        var start = 0
        for end in run.ends {
            var previous = -1
            for i in start..<end {
                let id = run.refs[i]
                let found: UInt32
                if previous >= 0 && previous + 1 < ids.count && ids[previous + 1] == id {
                    found = UInt32(previous + 1)
                } else if previous > 0 && ids[previous - 1] == id {
                    found = UInt32(previous - 1)
                } else {
                    found = index(of: id)
                }
                previous = found == GraphBuilder.missing ? -1 : Int(found)
                (nodes + i).initialize(to: found)
            }
            start = end
        }
    }
}

