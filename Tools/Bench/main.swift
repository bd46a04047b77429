// waymark-bench: speed checks for Waymark, run in release mode side by side with baselines
// measured in the same process and run.
//
//   swift run -c release waymark-bench fit [--sizes 1000000,10000000] [--runs 15]
//
//   swift run -c release waymark-bench load ../shared/data/osm/*.osm.gz [--runs 5]
//   swift run -c release waymark-bench cluster bench-results/work/points_100000.f64 … [--runs 3]
//       [--reference ../shared/bench/results/peers_cluster_js.json]
//
// `fit`: viewport fitting over N coordinates against a bare min/max loop over the same array
// (the floor any fit has to pay: it reads every coordinate once). Prints a Markdown table with
// medians, nanoseconds per coordinate, the ratio fit / bare loop, and how much the resident set
// grew while fitting (it should not grow with N: the fit allocates nothing proportional to N).
// `load`: graph file load time against the time to build the graph from XML (target ≤ 1/10).

import Foundation
import Waymark

#if canImport(Glibc)
import Glibc
#endif

/// The baseline: one pass, four running extremes, nothing else.
@inline(never)
func bareMinMax(_ coordinates: UnsafeBufferPointer<Coordinate>) -> (Double, Double, Double, Double) {
    var minLat = Double.infinity, maxLat = -Double.infinity, minLon = Double.infinity, maxLon = -Double.infinity
    for c in coordinates {
        minLat = min(minLat, c.latitude)
        maxLat = max(maxLat, c.latitude)
        minLon = min(minLon, c.longitude)
        maxLon = max(maxLon, c.longitude)
    }
    return (minLat, maxLat, minLon, maxLon)
}

func seconds(_ body: () -> Void) -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.count % 2 == 1
        ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

/// Resident set size now, in KiB (from /proc/self/statm).
func residentKiB() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) / 1024 : 0
}

nonisolated(unsafe) var sink = 0.0

func benchFit(sizes: [Int], runs: Int) {
    print(
        "| coordinates | spread | bare min/max loop (median) | fitViewport (median) | ns/coord bare / fit | ratio fit "
            + "÷ bare | RSS growth while fitting |"
    )
    print("|---:|---|---:|---:|---:|---:|---:|")
    let options = ViewportOptions(width: 390, height: 844, padding: EdgePadding(all: 40), zoomSnap: 1)
    for size in sizes {
        for spread in ["city (0.2°)", "Pacific (20°, across 180°)", "world (all longitudes)"] {
            var rng = SplitMix64(seed: 42)
            let coordinates: [Coordinate] = (0..<size).map { _ in
                switch spread.prefix(4) {
                case "city": return Coordinate(latitude: 41.15 + rng.uniform(-0.1, 0.1),
                                               longitude: -8.61 + rng.uniform(-0.1, 0.1))
                case "Paci": return Coordinate(latitude: rng.uniform(-25, -5),
                                               longitude: normalizedLongitude(rng.uniform(170, 190)))
                default: return Coordinate(latitude: rng.uniform(-80, 80), longitude: rng.uniform(-180, 180))
                }
            }
            var bare: [Double] = [], fit: [Double] = []
            var growth = 0
            coordinates.withUnsafeBufferPointer { buffer in
                // Warm up both (page in the array, fill caches and branch predictors).
                sink += bareMinMax(buffer).0
                sink += (try? fitViewport(buffer, options: options))?.zoom ?? 0
                let before = residentKiB()
                for _ in 0..<runs {
                    // Alternate so drift in machine speed hits both alike.
                    bare.append(seconds { sink += bareMinMax(buffer).1 })
                    fit.append(seconds { sink += (try! fitViewport(buffer, options: options)).zoom })
                }
                growth = residentKiB() - before
            }
            let b = median(bare), f = median(fit)
            let perB = b / Double(size) * 1e9, perF = f / Double(size) * 1e9
            print(
                "| \(size.formatted()) | \(spread) | \(String(format: "%.2f", b * 1e3)) ms | "
                    + "\(String(format: "%.2f", f * 1e3)) ms | \(String(format: "%.3f", perB)) / "
                    + "\(String(format: "%.3f", perF)) | \(String(format: "%.2f", f / b))× | \(growth) KiB |"
            )
        }
    }
}

/// Build each file once (in process, as `waymark build` does), write its graph file, then load it
/// `runs` times; report build time, median load time and their ratio.
func benchLoad(files: [String], runs: Int) {
    print("| file | build (s) | graph file (MB) | load, median of \(runs) (s) | load ÷ build |")
    print("|---|---:|---:|---:|---:|")
    for file in files {
        let name = ((file as NSString).lastPathComponent as NSString).deletingPathExtension.replacingOccurrences(
            of: ".osm", with: "")
        let path = NSTemporaryDirectory() + "waymark-bench-\(name).wmg"
        var graph: RoadGraph?
        let build = seconds { graph = try? OSMGraphLoader.build(path: file) }
        guard let graph else {
            print("| \(name) | failed | | | |")
            continue
        }
        try? GraphFile.write(graph, to: path)
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        var loads: [Double] = []
        for _ in 0..<runs {
            loads.append(seconds { sink += Double((try? GraphFile.read(path: path))?.nodeCount ?? 0) })
        }
        try? FileManager.default.removeItem(atPath: path)
        let load = median(loads)
        print(
            "| \(name) | \(String(format: "%.3f", build)) | \(String(format: "%.2f", Double(size) / 1e6)) | "
                + "\(String(format: "%.4f", load)) | 1/\(String(format: "%.0f", build / load)) |"
        )
    }
}

/// Cluster index build and world queries over the peers' point files (`cluster_points.py`, seed 42),
/// with per-zoom cluster counts checked against supercluster's own (from its results JSON) and a
/// digest of every world query's answer (items in order; cluster ids, counts and coordinates' bits),
/// which two builds compare to show their indexes answer alike.
func benchCluster(files: [String], runs: Int, reference: String?) {
    var referenceCounts: [Int: [Int]] = [:]
    if let reference, let data = FileManager.default.contents(atPath: reference),
       let json = try? JSONValue(parsing: Array(data)), let sets = json["datasets"]?.objectValue {
        for (_, set) in sets {
            if let n = set["points"]?.numberValue, let counts = set["clusters_per_zoom"]?.arrayValue {
                referenceCounts[Int(n)] = counts.compactMap { $0.numberValue.map(Int.init) }
            }
        }
    }
    print(
        "| points | build, median (s) | build, fastest (s) | clusters(world, z) for z = 0…16, median (s) "
            + "| index arrays (MB) "
            + "| process peak RSS (MB) | counts per zoom = supercluster's | answers' digest |"
    )
    print("|---:|---:|---:|---:|---:|---:|---|---|")
    for file in files {
        guard let data = FileManager.default.contents(atPath: file) else {
            print("| \(file) | unreadable | | | |"); continue
        }
        let values: [Double] = data.withUnsafeBytes { Array($0.bindMemory(to: Double.self)) }
        let coordinates = stride(from: 0, to: values.count - 1, by: 2).map {
            Coordinate(latitude: values[$0 + 1], longitude: values[$0])
        }
        var builds: [Double] = [], sweeps: [Double] = []
        var counts: [Int] = []
        var indexBytes = 0
        var digest = "-"
        for run in 0..<runs {
            var index: ClusterIndex?
            builds.append(seconds { index = try? ClusterIndex(coordinates: coordinates) })
            guard let index else { break }
            indexBytes = index.memoryBytes
            var zoomCounts: [Int] = []
            sweeps.append(seconds {
                for z in 0...16 { zoomCounts.append(index.clusters(west: -180, south: -90, east: 180,
                                                                   north: 90, zoom: Double(z)).count) }
            })
            counts = zoomCounts
            if run == runs - 1 { digest = answersDigest(index) }
        }
        let match: String
        if let expected = referenceCounts[coordinates.count] {
            match = expected == counts ? "yes, all 17 zooms" : "NO: \(counts) vs \(expected)"
        } else {
            match = "no reference"
        }
        print(
            "| \(coordinates.count.formatted()) | \(String(format: "%.3f", median(builds))) | "
                + "\(String(format: "%.3f", builds.min() ?? 0)) | "
                + "\(String(format: "%.3f", median(sweeps))) | \(String(format: "%.0f", Double(indexBytes) / 1e6)) | "
                + "\(peakRSSMB()) | \(match) | \(digest) |"
        )
    }
}

/// FNV-1a over the world queries' answers at zooms 0…16: each item's kind and index, or its
/// cluster id, point count and coordinates' bit patterns, in the order given.
func answersDigest(_ index: ClusterIndex) -> String {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    func mix(_ value: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) {
            hash = (hash ^ ((value >> UInt64(shift)) & 0xff)) &* 0x100_0000_01b3
        }
    }
    for z in 0...16 {
        for item in index.clusters(west: -180, south: -90, east: 180, north: 90, zoom: Double(z)) {
            switch item {
            case let .point(i): mix(0); mix(UInt64(i))
            case let .cluster(c):
                mix(1); mix(UInt64(c.id)); mix(UInt64(c.pointCount))
                mix(c.coordinate.latitude.bitPattern); mix(c.coordinate.longitude.bitPattern)
            }
        }
    }
    return String(hash, radix: 16)
}

/// Peak resident set size of this process so far, in MB (VmHWM).
func peakRSSMB() -> String {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
          let kb = Double(line.split(separator: " ").dropFirst().first ?? "") else { return "?" }
    return String(format: "%.0f", kb / 1024)
}

/// Route queries over the shared origin/destination pairs: per query p50/p95 of the whole
/// `Router.route` (snap both ends, ALT search, geometry, steps; serialisation excluded) and of the
/// search alone, settled states against plain Dijkstra, a cost check against Dijkstra, and, given
/// OSRM's results for the same pairs, the median ratio of durations and distances to OSRM's.
func benchRoute(map: String, pairsFile: String, osrm: String?) {
    let graph: RoadGraph
    do {
        graph = try RoadMap(contentsOf: URL(fileURLWithPath: map)).graph
    } catch {
        print("cannot load \(map): \(error)")
        return
    }
    // Two maps over the one graph: one routing on a hierarchy contracted here, one on landmarks.
    let chMap = RoadMap(graph: graph, method: .hierarchy)
    let chPreparation = chMap.prepare()
    let landmarkCount = Int(ProcessInfo.processInfo.environment["WAYMARK_LANDMARKS"] ?? "") ?? 32
    var landmarks: Landmarks?
    let landmarkTime = seconds { landmarks = Landmarks(graph: graph, count: landmarkCount) }
    let altMap = RoadMap(graph: graph, landmarks: landmarks, method: .landmarks)
    altMap.prepare()
    let indexTime = chPreparation.indexSeconds, hierarchyTime = chPreparation.searchSeconds
    let altRouter = altMap.makeRouter(), chRouter = chMap.makeRouter()
    let search = RouteSearch(map: altMap), chSearch = HierarchySearch(map: chMap)
    let hierarchy = chMap.hierarchy
    guard let data = FileManager.default.contents(atPath: pairsFile), let json = try? JSONValue(parsing: Array(data)),
          let pairs = json["pairs"]?.arrayValue else { print("cannot read \(pairsFile)"); return }
    var osrmPairs: [JSONValue] = []
    if let osrm, let d = FileManager.default.contents(atPath: osrm), let j = try? JSONValue(parsing: Array(d)) {
        osrmPairs = j["per_pair"]?.arrayValue ?? []
    }
    var coordinates: [(Coordinate, Coordinate)] = []
    for pair in pairs {
        guard let fl = pair["from"]?["lat"]?.numberValue, let fo = pair["from"]?["lon"]?.numberValue,
              let tl = pair["to"]?["lat"]?.numberValue, let to = pair["to"]?["lon"]?.numberValue else { continue }
        coordinates.append((Coordinate(latitude: fl, longitude: fo), Coordinate(latitude: tl, longitude: to)))
    }
    // Whole Router.route per query (snapping, search, geometry, steps), CH then ALT, one pass each.
    var chFull: [Double] = [], altFull: [Double] = []
    var routes: [Route?] = []
    for (a, b) in coordinates {
        var route: Route?
        let t = seconds { route = try? chRouter.route([a, b]) }
        routes.append(route)
        if route != nil { chFull.append(t) }
    }
    for (a, b) in coordinates {
        var route: Route?
        let t = seconds { route = try? altRouter.route([a, b]) }
        if route != nil { altFull.append(t) }
    }
    var chOnly: [Double] = [], altOnly: [Double] = [], settledCH: [Int] = [], settledA: [Int] = [], settledD: [Int] = []
    var durationRatios: [Double] = [], distanceRatios: [Double] = []
    var mismatches = 0, altMismatches = 0
    // The hierarchy's searches one after another, as a batch runs them (between ALT's and
    // Dijkstra's searches, each would start with cold caches).
    var chPaths: [RoutePath?] = []
    for route in routes {
        guard let route else { chPaths.append(nil); continue }
        var chPath: RoutePath?
        chOnly.append(seconds { chPath = chSearch.route(from: route.waypoints[0], to: route.waypoints[1]) })
        settledCH.append(chSearch.settled)
        chPaths.append(chPath)
    }
    for (i, route) in routes.enumerated() {
        guard let route else { continue }
        let sa = route.waypoints[0], sb = route.waypoints[1]
        let chPath = chPaths[i]
        var altPath: RoutePath?
        altOnly.append(seconds { altPath = search.route(from: sa, to: sb) })
        settledA.append(search.settled)
        if let plain = search.route(from: sa, to: sb, heuristic: false) {
            settledD.append(search.settled)
            if abs(plain.duration - (chPath?.duration ?? -1)) > 1e-9 * max(1, plain.duration) { mismatches += 1 }
            if abs(plain.duration - (altPath?.duration ?? -1)) > 1e-9 * max(1, plain.duration) { altMismatches += 1 }
        }
        if i < osrmPairs.count, let d = osrmPairs[i]["ch"]?["duration_s"]?.numberValue,
            let m = osrmPairs[i]["ch"]?["distance_m"]?.numberValue, d > 0, m > 0 {
            durationRatios.append(route.duration / d)
            distanceRatios.append(route.distance / m)
        }
    }
    func pct(_ xs: [Double], _ p: Double) -> Double {
        let s = xs.sorted()
        return s.isEmpty ? 0 : s[min(s.count - 1, Int(Double(s.count) * p))]
    }
    func ms(_ xs: [Double]) -> String { String(format: "%.3f / %.3f", pct(xs, 0.5) * 1e3, pct(xs, 0.95) * 1e3) }
    let mean = { (xs: [Int]) in xs.isEmpty ? 0 : Double(xs.reduce(0, +)) / Double(xs.count) }
    func settled(_ xs: [Int]) -> String { String(format: "%.0f (1/%.1f)", mean(xs), mean(settledD) / max(1, mean(xs))) }
    print(
        "| map | routed | search | route p50 / p95 (ms) | search only p50 / p95 (ms) | settled (÷ Dijkstra's) "
            + "| cost ≠ Dijkstra | preparation (s) |"
    )
    print("|---|---:|---|---:|---:|---:|---:|---:|")
    let name = (map as NSString).lastPathComponent
    print(
        "| \(name) | \(chFull.count) of \(pairs.count) | CH | \(ms(chFull)) | \(ms(chOnly)) | \(settled(settledCH)) | "
            + "\(mismatches) | \(String(format: "%.2f + %.2f", indexTime, hierarchyTime)) (snap index and turn tables "
            + "+ hierarchy: \(hierarchy!.shortcutCount) shortcuts) |"
    )
    print(
        "| \(name) | \(altFull.count) of \(pairs.count) | ALT | \(ms(altFull)) | \(ms(altOnly)) | \(settled(settledA)) "
            + "| \(altMismatches) | \(String(format: "%.2f + %.2f", indexTime, landmarkTime)) (snap index and turn "
            + "tables + \(landmarkCount) landmarks) |"
    )
    print("| \(name) | | Dijkstra | | | \(String(format: "%.0f", mean(settledD))) | | |")
    let within = durationRatios.filter { abs($0 - 1) <= 0.1 }.count
    let withinText = durationRatios.isEmpty
        ? "–" : String(format: "%.1f %%", 100 * Double(within) / Double(durationRatios.count))
    print(
        "duration ÷ OSRM (median) "
            + "\(durationRatios.isEmpty ? "–" : String(format: "%.3f", pct(durationRatios, 0.5))), "
            + "within 10 %: \(withinText), "
            + "distance ÷ OSRM (median) "
            + "\(distanceRatios.isEmpty ? "–" : String(format: "%.3f", pct(distanceRatios, 0.5))); peak RSS "
            + "\(peakRSSMB()) MB"
    )
}

// MARK: - Command line

let arguments = Array(CommandLine.arguments.dropFirst())
func option(_ name: String) -> String? {
    guard let i = arguments.firstIndex(of: "--\(name)"), i + 1 < arguments.count else { return nil }
    return arguments[i + 1]
}
switch arguments.first {
case "fit":
    let sizes = (option("sizes") ?? "1000000,10000000").split(separator: ",").compactMap { Int($0) }
    let runs = Int(option("runs") ?? "15") ?? 15
    benchFit(sizes: sizes, runs: runs)
case "cluster":
    let files = Array(arguments.dropFirst()).filter { $0.hasSuffix(".f64") }
    benchCluster(files: files, runs: Int(option("runs") ?? "3") ?? 3, reference: option("reference"))
case "route":
    guard arguments.count > 1, let pairs = option("pairs") else {
        FileHandle.standardError.write(
            Data("usage: waymark-bench route MAP(.osm.gz|.wmg) --pairs od_pairs.json [--osrm osrm_results.json]\n".utf8)
        )
        exit(64)
    }
    benchRoute(map: arguments[1], pairsFile: pairs, osrm: option("osrm"))
case "prepare":
    // Contraction hierarchy preparation alone (for profiling).
    guard arguments.count > 1, let graph = try? GraphFile.read(path: arguments[1]) else { exit(64) }
    let map = RoadMap(graph: graph, method: .hierarchy)
    let t = map.prepare().searchSeconds, hierarchy = map.hierarchy!
    print(String(format: "%@: %.2f s, %d shortcuts, %d arcs; peak RSS %@ MB", arguments[1], t, hierarchy.shortcutCount,
                 hierarchy.arcCount, peakRSSMB()))
case "cch":
    guard arguments.count > 1 else { exit(64) }
    let classes = option("exclude").map(ExcludedClasses.parse) ?? .success([])
    guard case let .success(excluded) = classes else {
        FileHandle.standardError.write(Data("waymark-bench cch: --exclude takes toll, motorway, ferry\n".utf8))
        exit(64)
    }
    benchCustomizable(map: arguments[1], queries: Int(option("queries") ?? "1000") ?? 1000, excluded: excluded,
                      pairs: option("pairs"))
case "load":
    let files = Array(arguments.dropFirst()).filter { $0.hasSuffix(".osm") || $0.hasSuffix(".osm.gz") }
    benchLoad(files: files, runs: Int(option("runs") ?? "5") ?? 5)
default:
    FileHandle.standardError.write(
        Data("usage: waymark-bench fit [--sizes N,N] [--runs R] | load FILE.osm.gz... [--runs R]\n".utf8))
    exit(64)
}
if sink == 42 { print("") } // keep results observable
