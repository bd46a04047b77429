import Dispatch
import Foundation
import Waymark
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Keeps a service on the newest map in its file: when told (``reload()``, SIGHUP under
/// ``watch(signal:pollEvery:)``) or when another file is renamed over it (as `waymark build`
/// and `waymark customize` write), the new map is loaded and prepared beside the one serving,
/// then replaces it (``OSRMService/replaceMap(with:slot:)``): no request waits for the load or fails
/// for it, and those in flight finish on the old map. A file that does not load is said, and the
/// old map serves on.
public final class MapReloader: @unchecked Sendable {
    public let path: String
    private let service: OSRMService
    /// Which of the service's maps the file holds.
    private let slot: Int
    private let load: @Sendable (String) throws -> RoadMap
    private let log: @Sendable (String) -> Void
    /// Loads one at a time, in order.
    private let queue = DispatchQueue(label: "waymark.map-reloader")
    /// Guarded by `queue`: the file's identity when it was last loaded.
    private var loaded: FileIdentity?
    private var sources: [any DispatchSourceProtocol] = []

    /// `load` reads and prepares a map from a path (it runs on the reloader's own queue); the map
    /// replaces the service's map at `slot`.
    public init(service: OSRMService, path: String, slot: Int = 0,
                load: @escaping @Sendable (String) throws -> RoadMap, log: @escaping @Sendable (String) -> Void) {
        self.service = service
        self.path = path
        self.slot = slot
        self.load = load
        self.log = log
        loaded = FileIdentity(path)
    }

    /// Reloads on `signal` (SIGHUP by default) and whenever the file at ``path`` is another
    /// file than the one last loaded (checked every `pollEvery` seconds).
    public func watch(signal number: Int32 = SIGHUP, pollEvery seconds: Double = 1) {
        signal(number, SIG_IGN)
        let hangUp = DispatchSource.makeSignalSource(signal: number, queue: queue)
        hangUp.setEventHandler { [weak self] in self?.reloadNow(reason: "signal \(number)") }
        hangUp.resume()
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + seconds, repeating: seconds)
        timer.setEventHandler { [weak self] in
            guard let self, let now = FileIdentity(self.path), now != self.loaded else { return }
            self.reloadNow(reason: "file replaced")
        }
        timer.resume()
        queue.sync { sources = [hangUp, timer] }
    }

    /// Loads the file again and swaps to it when it loads; returns at once.
    public func reload() { queue.async { self.reloadNow(reason: "asked") } }

    public func stop() { queue.sync { sources.forEach { $0.cancel() }; sources = [] } }

    private func reloadNow(reason: String) {
        let identity = FileIdentity(path)
        let start = DispatchTime.now().uptimeNanoseconds
        do {
            let map = try load(path)
            try service.replaceMap(with: map, slot: slot)
            loaded = identity
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            log(String(format: "waymark serve: %@ reloaded (%@) in %.2f s; new requests use it", path, reason, seconds))
        } catch {
            // Not tried again until the file changes again (or a signal asks).
            loaded = identity
            log("waymark serve: \(path): not reloaded (\(reason)): \(error); still serving the map loaded before")
        }
    }

    /// Which file a path names, and how it stood: another file renamed over it, or a file
    /// written again, differs.
    struct FileIdentity: Equatable {
        var device: UInt64, inode: UInt64, size: Int64, modified: Int

        init?(_ path: String) {
            var info = stat()
            guard stat(path, &info) == 0 else { return nil }
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
            size = Int64(info.st_size)
            #if canImport(Darwin)
            modified = Int(info.st_mtimespec.tv_sec) * 1_000_000_000 + Int(info.st_mtimespec.tv_nsec)
            #else
            modified = Int(info.st_mtim.tv_sec) * 1_000_000_000 + Int(info.st_mtim.tv_nsec)
            #endif
        }
    }
}
