import WaymarkGeo
import WaymarkGraph

/// Collects the basemap while the file streams past (beside the road graph's collector): ways
/// and multipolygon relations that are water, parks, woods, grass, railways or buildings, ways
/// that may be a multipolygon's members (untagged ones, read before their relation), and named
/// place nodes. After the pass, rings are assembled from member ways and everything gets its
/// coordinates.
final class BasemapCollector {
    /// The tags read for the basemap (beside the profile's).
    static let keys: Set<String> = ["building", "natural", "waterway", "landuse", "leisure", "railway",
                                    "place", "name", "type"]

    /// What a way or multipolygon is on the map, if anything.
    static func kind(_ tags: [String: String]) -> Basemap.Kind? {
        if let building = tags["building"], building != "no" { return .building }
        let natural = tags["natural"], waterway = tags["waterway"], landuse = tags["landuse"], leisure = tags["leisure"]
        if natural == "water" || waterway == "riverbank" || landuse == "reservoir"
            || landuse == "basin" { return .water }
        if waterway == "river" || waterway == "canal" { return .river }
        if natural == "coastline" { return .coastline }
        if leisure == "park" || leisure == "garden" || leisure == "nature_reserve" { return .park }
        if landuse == "forest" || natural == "wood" { return .wood }
        if landuse == "grass" || landuse == "meadow" || landuse == "recreation_ground"
            || landuse == "village_green" { return .grass }
        if tags["railway"] == "rail" { return .railway }
        return nil
    }

    private struct Ways {
        var ids: [Int64] = []
        var refStart: [Int] = [0]
        var refs: [Int64] = []
        var kinds: [Basemap.Kind?] = []

        mutating func add(_ id: Int64, _ nodes: [Int64], _ kind: Basemap.Kind?) {
            ids.append(id)
            refs.append(contentsOf: nodes)
            refStart.append(refs.count)
            kinds.append(kind)
        }

        func nodes(_ i: Int) -> ArraySlice<Int64> { refs[refStart[i]..<refStart[i + 1]] }
    }

    private var ways = Ways()
    private var multipolygons: [(kind: Basemap.Kind, outer: [Int64], inner: [Int64])] = []
    private var places: [Basemap.Place] = []

    /// The `place=*` values named on the map.
    static let placeKinds: [String: Basemap.Place.Kind] = ["city": .city, "town": .town,
                                                           "village": .village, "suburb": .suburb,
                                                           "quarter": .quarter,
                                                           "neighbourhood": .neighbourhood, "hamlet": .hamlet]

    func node(latitude: Int32, longitude: Int32, tags: [String: String]) {
        guard let place = tags["place"], let name = tags["name"], !name.isEmpty,
            let kind = BasemapCollector.placeKinds[place]
        else { return }
        places.append(Basemap.Place(name: name, kind: kind,
                                    coordinate: Coordinate(latitude: FixedPoint.decode(latitude),
                                                           longitude: FixedPoint.decode(longitude))))
    }

    func way(id: Int64, nodes: [Int64], tags: [String: String]) {
        guard nodes.count >= 2 else { return }
        if let kind = BasemapCollector.kind(tags) {
            ways.add(id, nodes, kind)
        } else if tags["highway"] == nil {
            ways.add(id, nodes, nil) // perhaps a multipolygon's member, told by its relation later
        }
    }

    func relation(members: [OSMMember], tags: [String: String]) {
        guard tags["type"] == "multipolygon", let kind = BasemapCollector.kind(tags), kind.isArea else { return }
        let memberWays = members.filter { $0.kind == .way }
        multipolygons.append((kind, memberWays.filter { $0.role != "inner" }.map(\.ref),
                              memberWays.filter { $0.role == "inner" }.map(\.ref)))
    }

    /// The basemap, node ids resolved by `coordinate` (nil: not in the file; a way missing one
    /// loses it, a ring missing one is dropped); the sea closed along `box`, the extract's.
    func make(box: BoundingBox?, coordinate: (Int64) -> Coordinate?) -> Basemap {
        var map = Basemap()
        var order = Array(ways.ids.indices)
        if !zip(ways.ids, ways.ids.dropFirst()).allSatisfy({ $0 < $1 }) { order.sort { ways.ids[$0] < ways.ids[$1] } }
        func way(_ id: Int64) -> Int? {
            var low = 0, high = order.count
            while low < high {
                let mid = (low + high) / 2
                if ways.ids[order[mid]] < id { low = mid + 1 } else { high = mid }
            }
            return low < order.count && ways.ids[order[low]] == id ? order[low] : nil
        }
        func points(_ refs: some Collection<Int64>) -> [Coordinate]? {
            var out: [Coordinate] = []
            out.reserveCapacity(refs.count)
            for r in refs {
                guard let c = coordinate(r) else { return nil }
                out.append(c)
            }
            return out
        }
        let memberIDs = Set(multipolygons.flatMap { $0.outer + $0.inner })
        for i in ways.ids.indices {
            guard let kind = ways.kinds[i] else { continue }
            let refs = ways.nodes(i)
            if kind.isArea && refs.first != refs.last {
                // An open way drawn as an area: a multipolygon's outer piece, or broken.
                if !memberIDs.contains(ways.ids[i]) { map.droppedRings += 1 }
                continue
            }
            guard let line = points(refs) else {
                if kind.isArea { map.droppedRings += 1 }
                continue
            }
            map.add(kind, parts: [line])
        }
        for polygon in multipolygons {
            var rings: [[Coordinate]] = []
            for members in [polygon.outer, polygon.inner] {
                let (closed, dropped) = BasemapCollector.rings(
                    members.compactMap { way($0).map { Array(ways.nodes($0)) } })
                map.droppedRings += dropped + members.filter { way($0) == nil }.count
                for ring in closed {
                    if let line = points(ring) { rings.append(line) } else { map.droppedRings += 1 }
                }
            }
            map.add(polygon.kind, parts: rings)
        }
        if let box { addSea(to: &map, box: box, coordinate: coordinate) }
        map.places = places
        return map
    }

    /// The sea (``Coastline``) from the coastline ways joined end to end in their direction; a
    /// node not in the file breaks a line there.
    private func addSea(to map: inout Basemap, box: BoundingBox, coordinate: (Int64) -> Coordinate?) {
        let pieces = ways.ids.indices.filter { ways.kinds[$0] == .coastline }.map { Array(ways.nodes($0)) }
        guard !pieces.isEmpty else { return }
        var lines: [[Coordinate]] = []
        for chain in BasemapCollector.chains(pieces) {
            var run: [Coordinate] = []
            for id in chain {
                if let c = coordinate(id) { run.append(c); continue }
                if run.count >= 2 { lines.append(run) }
                run = []
            }
            if run.count >= 2 { lines.append(run) }
        }
        map.add(.sea, parts: Coastline.sea(lines, in: box))
    }

    /// Lines joined where one ends and the next begins (never turned round: a coastline's
    /// direction says where the land is); a closed one ends where it starts.
    static func chains(_ pieces: [[Int64]]) -> [[Int64]] {
        var byStart: [Int64: [Int]] = [:]
        for (i, piece) in pieces.enumerated() { byStart[piece[0], default: []].append(i) }
        var used = [Bool](repeating: false, count: pieces.count)
        func take(startingAt node: Int64) -> Int? {
            guard let i = byStart[node]?.first(where: { !used[$0] }) else { return nil }
            used[i] = true
            return i
        }
        var chains: [[Int64]] = []
        for i in pieces.indices where !used[i] {
            used[i] = true
            var chain = pieces[i]
            while chain.first != chain.last, let next = take(startingAt: chain.last!) {
                chain += pieces[next].dropFirst()
            }
            chains.append(chain)
        }
        // Chains that end where another begins (found in the other order) joined too.
        var joined = true
        while joined {
            joined = false
            for a in chains.indices where chains[a].first != chains[a].last {
                guard let b = chains.indices.first(where: {
                    $0 != a && chains[$0].first == chains[a].last && chains[$0].first != chains[$0].last
                }) else { continue }
                chains[a] += chains[b].dropFirst()
                chains.remove(at: b)
                joined = true
                break
            }
        }
        return chains
    }

    /// Closed rings joined from ways end to end (each way used once, turned round where needed),
    /// and how many pieces could not be closed.
    static func rings(_ pieces: [[Int64]]) -> (closed: [[Int64]], dropped: Int) {
        var pending = pieces.filter { $0.count >= 2 }
        var closed: [[Int64]] = [], dropped = 0
        while var ring = pending.popLast() {
            while ring.first != ring.last {
                guard let i = pending.firstIndex(where: { $0.first == ring.last || $0.last == ring.last }) else {
                    break
                }
                let next = pending.remove(at: i)
                ring += (next.first == ring.last ? next : next.reversed()).dropFirst()
            }
            if ring.first == ring.last && ring.count >= 4 { closed.append(ring) } else { dropped += 1 }
        }
        return (closed, dropped)
    }
}
