import Foundation

/// Large graph files this user's waymark has already checked in full, by identity — device,
/// inode, size, modification and change times, and the checksum the header states — so that
/// opening one again (a country's file: hundreds of MB, half a second and more of checking)
/// skips the checksum and the linear checks. Any write to the file changes its change time
/// (which no user can set), and `waymark build` writes a new file (a new inode) anyway.
///
/// Kept in `$XDG_CACHE_HOME/waymark/checked-graph-files` (or `~/.cache/…`), the last 64 files.
/// Best effort: a record that cannot be read or written only means checking again.
/// `WAYMARK_CHECK_GRAPH_FILES=always` checks every time; files under 16 MB are always checked.
public enum CheckedFiles {
    /// Files smaller than this are checked at every load (it costs milliseconds).
    public static let minimumSize = 16 << 20
    static let kept = 64

    /// The record's location, or nil where there is no cache folder or checking is forced.
    static var recordPath: String? {
        let environment = ProcessInfo.processInfo.environment
        if environment["WAYMARK_CHECK_GRAPH_FILES"] == "always" { return nil }
        let base: String
        if let cache = environment["XDG_CACHE_HOME"], cache.hasPrefix("/") {
            base = cache
        } else if let home = environment["HOME"], home.hasPrefix("/") {
            base = home + "/.cache"
        } else {
            return nil
        }
        return base + "/waymark/checked-graph-files"
    }

    static func contains(_ identity: String) -> Bool {
        guard let path = recordPath, let text = try? String(contentsOfFile: path, encoding: .utf8) else { return false }
        return text.split(separator: "\n").contains { $0 == identity }
    }

    static func record(_ identity: String) {
        guard let path = recordPath else { return }
        let folder = (path as NSString).deletingLastPathComponent
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let lines = ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        let kept = (lines.filter { $0 != identity } + [identity]).suffix(CheckedFiles.kept)
        // A temporary file renamed over the record: readers see the old or the new one.
        let temporary = path + ".\(ProcessInfo.processInfo.processIdentifier)"
        guard FileManager.default.createFile(atPath: temporary,
                                             contents: Data((kept.joined(separator: "\n") + "\n").utf8)) else { return }
        if rename(temporary, path) != 0 { unlink(temporary) }
    }
}
