#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
import WaymarkGeoJSON

/// `waymark serve` picks up a customized map renamed over its file, and a rebuilt one on SIGHUP,
/// while clients keep asking: no request fails, each is answered on the old map or the new, and
/// no client hears the old map once it has heard the new.
@Suite(.serialized) final class ServeReloadTests {
    let directory: String
    let served: String
    let customized: String
    // Sample-town points, OSRM's lon,lat.
    let route = "/route/v1/driving/-2.598781,52.309427;-2.572561,52.311680?overview=false&generate_hints=false"

    init() throws {
        directory = try Run.temporaryDirectory()
        served = directory + "/served.wmg"
        customized = directory + "/customized.wmg"
        let build = try Run.waymark("build", Run.data("sample-town.osm"), "--hierarchy", "-o", served, "--quiet")
        #expect(build.status == 0, "\(build.stderr)")
        // Slow the first stretches of the town hall's route to 5 km/h.
        let nodes = try Run.waymark("route", served, "--from", "52.309427,-2.598781", "--to", "52.311680,-2.572561",
                                    "--format", "json", "--annotations", "nodes")
        guard case let .object(top)? = try? JSONValue(parsing: nodes.stdout), case let .array(routes)? = top["routes"],
              case let .object(first)? = routes.first, case let .array(legs)? = first["legs"],
              case let .object(leg)? = legs.first, case let .object(annotation)? = leg["annotation"],
              case let .array(ids)? = annotation["nodes"] else { throw ServeTestError("no nodes: \(nodes.stdout)") }
        let numbers = ids.compactMap { value -> Int? in if case let .number(n) = value { Int(n) } else { nil } }
        let csv = (2..<8).map { "\(numbers[$0]),\(numbers[$0 + 1]),5\n" }.joined()
        try csv.write(toFile: directory + "/slow.csv", atomically: true, encoding: .utf8)
        let made = try Run.waymark("customize", served, "--segment-speeds", directory + "/slow.csv", "-o", customized,
                                   "--quiet")
        #expect(made.status == 0, "\(made.stderr)")
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    /// The route's duration on a map file, by the command line.
    func duration(on map: String) throws -> Double {
        let run = try Run.waymark("route", map, "--from", "52.309427,-2.598781", "--to", "52.311680,-2.572561",
                                  "--format", "json")
        guard case let .object(top)? = try? JSONValue(parsing: run.stdout), case let .array(routes)? = top["routes"],
              case let .object(first)? = routes.first, case let .number(seconds)? = first["duration"] else {
            throw ServeTestError("no route on \(map): \(run.stderr)")
        }
        return seconds
    }

    /// Four clients, 30 requests each on a kept-alive connection (a debug build answers slowly:
    /// `Tools/serve_swap_load.py` sends 2,000 to a release build); after the first client's
    /// 10th, `swap` runs. Each client's durations, in order.
    func load(port: UInt16, swap: @escaping @Sendable () -> Void) throws -> [[Double?]] {
        final class Results: @unchecked Sendable {
            let lock = NSLock()
            var durations = [[Double?]](repeating: [], count: 4)
        }
        let results = Results(), route = route
        // Threads of their own (a concurrent loop on two cores would run two clients after two).
        let done = DispatchGroup()
        for client in 0..<4 {
            done.enter()
            Thread {
                let seen = Self.client(port: port, route: route, swap: client == 0 ? swap : nil)
                results.lock.withLock { results.durations[client] = seen }
                done.leave()
            }.start()
        }
        done.wait()
        return results.durations
    }

    /// One client's 30 requests: each answer's duration (nil for a failure).
    static func client(port: UInt16, route: String, swap: (@Sendable () -> Void)?) -> [Double?] {
        var seen: [Double?] = []
        guard let connection = try? RawClient(port: port) else { return seen }
        defer { connection.close() }
        for i in 0..<30 {
            if i == 10 { swap?() }
            connection.send("GET \(route) HTTP/1.1\r\nHost: test\r\n\r\n")
            guard let response = connection.response() else { return seen + [nil] }
            var duration: Double?
            if response.status == 200, case let .object(top)? = response.json,
               case let .array(routes)? = top["routes"], case let .object(first)? = routes.first,
               case let .number(seconds)? = first["duration"] {
                duration = seconds
            }
            seen.append(duration)
        }
        return seen
    }

    func check(_ durations: [[Double?]], old: Double, new: Double) {
        #expect(durations.map(\.count) == [30, 30, 30, 30])
        for (client, list) in durations.enumerated() {
            #expect(list.allSatisfy { $0 == old || $0 == new }, "client \(client): a failed or strange answer")
            let firstNew = list.firstIndex { $0 == new } ?? list.count
            #expect(firstNew > 0 && firstNew < list.count, "client \(client): never old or never new")
            #expect(list[firstNew...].allSatisfy { $0 == new }, "client \(client): the old map after the new")
        }
    }

    @Test func aMapRenamedOverTheFileIsPickedUp() throws {
        let old = try duration(on: served), new = try duration(on: customized)
        #expect(new > old + 10)
        let server = try ServerProcess([served, "--threads", "4"])
        let (from, to) = (customized, served)
        let durations = try load(port: server.port) { _ = rename(from, to) }
        check(durations, old: old, new: new)
        #expect(server.stop() == 0)
        #expect(server.log.contains("reloaded (file replaced)"), "\(server.log.suffix(600))")
    }

    @Test func aBadFileKeepsTheOldMapAndSIGHUPReadsTheFileAgain() throws {
        let old = try duration(on: served), new = try duration(on: customized)
        let server = try ServerProcess([served, "--threads", "4"])
        // A damaged file renamed over it: said, and the old map serves on.
        let damaged = directory + "/damaged.wmg"
        try Data("not a map".utf8).write(to: URL(fileURLWithPath: damaged))
        _ = rename(damaged, served)
        usleep(2_500_000)
        #expect(try RawClient.get(route, port: server.port).status == 200)
        #expect(server.log.contains("not reloaded (file replaced)"), "\(server.log.suffix(600))")
        // SIGHUP reads the file again: still damaged, still said.
        kill(server.process.processIdentifier, SIGHUP)
        usleep(1_000_000)
        #expect(server.log.contains("not reloaded (signal \(SIGHUP))"), "\(server.log.suffix(600))")
        // Then a good one, under load.
        let (from, to) = (customized, served)
        let durations = try load(port: server.port) { _ = rename(from, to) }
        check(durations, old: old, new: new)
        #expect(server.stop() == 0)
    }
}
