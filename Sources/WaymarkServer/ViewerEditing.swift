import Foundation

/// Who may edit the places the viewer serves: nobody (`readOnly`), or whoever sends the secret
/// token as `Authorization: Bearer …` (RFC 6750). Reading stays open either way.
public enum ViewerEditing: Sendable, Equatable {
    case readOnly
    case token(String)

    public var isReadOnly: Bool { self == .readOnly }

    /// A new secret: 32 random bytes from the system's generator, in hex (URL- and header-safe).
    public static func newToken() -> String {
        var generator = SystemRandomNumberGenerator()
        var text = ""
        for _ in 0..<32 {
            let byte = UInt8.random(in: 0...255, using: &generator)
            text += (byte < 16 ? "0" : "") + String(byte, radix: 16)
        }
        return text
    }

    /// A token given by hand (an option, a file, the environment), checked: printable ASCII
    /// without spaces (what a header carries unchanged), at least 16 characters.
    public static func checked(_ token: String) -> String? {
        let trimmed = token.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.count >= 16, trimmed.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
        return trimmed
    }

    /// The editing a server starts with, from its options: read-only; else the token given
    /// (`token`), read from a file (`tokenFile`, its first line), or in the environment
    /// (`WAYMARK_EDIT_TOKEN`), in that order; else a new one (`generated`: to be printed once).
    /// Fails with one line for a token that is unreadable or unfit, or read-only with a token.
    public static func choose(readOnly: Bool, token: String?, tokenFile: String?,
                              environment: [String: String]) throws(ViewerEditingError)
        -> (editing: ViewerEditing, generated: Bool) {
        if readOnly {
            guard token == nil && tokenFile == nil else {
                throw ViewerEditingError("--read-only takes no edit token (nobody edits a read-only viewer)")
            }
            return (.readOnly, false)
        }
        var given: (text: String, source: String)? = token.map { ($0, "--edit-token") }
        if given == nil, let path = tokenFile {
            // Its first 4 KiB at most (a token is a line; a file of gigabytes is not read whole).
            let handle = FileHandle(forReadingAtPath: path)
            defer { try? handle?.close() }
            guard let data = try? handle?.read(upToCount: 4096), let text = String(data: data, encoding: .utf8)
            else { throw ViewerEditingError("\(path): cannot read the edit token") }
            given = (String(text.split(separator: "\n", omittingEmptySubsequences: false).first ?? ""), path)
        }
        if given == nil, let text = environment["WAYMARK_EDIT_TOKEN"] { given = (text, "WAYMARK_EDIT_TOKEN") }
        guard let given else { return (.token(newToken()), true) }
        guard let checked = checked(given.text) else {
            throw ViewerEditingError(
                "\(given.source): an edit token is at least 16 printable characters without spaces")
        }
        return (.token(checked), false)
    }

    /// Compares in time that depends on the lengths only, not on where the two first differ.
    static func same(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for i in x.indices { difference |= x[i] ^ y[i] }
        return difference == 0
    }
}

/// Why a server's editing could not be set up.
public struct ViewerEditingError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
