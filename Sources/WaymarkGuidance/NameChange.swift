import Foundation
import WaymarkGraph
import WaymarkQueries
import WaymarkPreparation

/// When a change of road deserves a word: OSRM's rule (`requiresNameAnnounced`), with the suffixes of
/// its car profile.
///
/// The comparison that needs words (compass suffixes) is made once per map in ``NameKeys``; on the
/// route only string ids and bytes are compared.
package enum NameChange {
    /// OSRM car.lua's `suffix_list`: compass words that may come and go without a new name.
    static let suffixes: Set<String> = ["n", "ne", "e", "se", "s", "sw", "w", "nw", "north", "south", "west", "east",
                                        "nor", "sou", "we", "ea"]
    /// Whether going from one road onto another must be announced as a new name (strings as they
    /// are; a map's steps use the id form with its keys).
    static func mustAnnounce(fromName: String, fromRef: String, toName: String, toRef: String) -> Bool {
        let strings = ["", fromName, fromRef, toName, toRef]
        return mustAnnounce(from: (1, 2), to: (3, 4), strings: strings, keys: NameKeys(strings: strings))
    }

    /// Whether going from road (name, ref) onto road (name, ref), given as string ids, must be
    /// announced as a new name; `exits` the roads' exit numbers (`junction:ref`), which OSRM
    /// announces when they change, unless the road only loses them.
    static func mustAnnounce(from: (name: UInt32, ref: UInt32), to: (name: UInt32, ref: UInt32),
                             exits: (from: UInt32, to: UInt32) = (0, 0), strings: [String],
                             keys: NameKeys) -> Bool {
        let fromExits = strings[Int(exits.from)], toExits = strings[Int(exits.to)]
        let exitsChange = exits.from != exits.to && !sameBytes(fromExits, toExits)
        if from == to && !exitsChange { return false }
        let fromName = strings[Int(from.name)], toName = strings[Int(to.name)]
        let fromRef = strings[Int(from.ref)], toRef = strings[Int(to.ref)]
        // Equal ids are equal strings; equal strings under two ids only in a map written elsewhere.
        let sameName = from.name == to.name || sameBytes(fromName, toName)
        let sameRef = from.ref == to.ref || sameBytes(fromRef, toRef)
        if sameName && sameRef && !exitsChange { return false }
        if fromName.isEmpty && fromRef.isEmpty && !(sameName && sameRef) { return true }
        let namesEmpty = fromName.isEmpty && toName.isEmpty
        // OSRM compares bytes (std::string): so do these.
        let contained = sameName || isPrefix(fromName, of: toName) || isPrefix(toName, of: fromName)
        // OSRM's suffix change: what is left around the names' common part is only compass words
        // (or nothing: equal names are one too, whatever their refs).
        let suffixChange = (sameName && !fromName.isEmpty)
            || (keys.core[Int(from.name)] != 0 && keys.core[Int(from.name)] == keys.core[Int(to.name)])
        let namesEqual = contained || suffixChange
        let nameRemoved = !fromName.isEmpty && toName.isEmpty
        let refsEmpty = fromRef.isEmpty && toRef.isEmpty
        let refContained = fromRef.isEmpty || toRef.isEmpty || contains(fromRef, toRef) || contains(toRef, fromRef)

        let refRemoved = !fromRef.isEmpty && toRef.isEmpty
        let obvious = (namesEmpty && refsEmpty) || (namesEqual && refContained) || (namesEqual && refsEmpty)
            || (refContained && nameRemoved) || (namesEqual && refRemoved) || suffixChange
        let needsAnnouncement = (fromName.isEmpty && !fromRef.isEmpty && !toName.isEmpty && toRef.isEmpty)
            || (!fromName.isEmpty && fromRef.isEmpty && toName.isEmpty && !toRef.isEmpty)
            || (namesEmpty && !refContained)
        let losesExit = namesEqual && !fromExits.isEmpty && toExits.isEmpty
        return !obvious || needsAnnouncement || (exitsChange && !losesExit)
    }

    /// Whether `text` starts with `prefix`, byte for byte.
    static func isPrefix(_ prefix: String, of text: String) -> Bool {
        let p = prefix.utf8, t = text.utf8
        guard p.count <= t.count else { return false }
        return p.withContiguousStorageIfAvailable { pb in
            t.withContiguousStorageIfAvailable { tb in
                pb.isEmpty || memcmp(pb.baseAddress!, tb.baseAddress!, pb.count) == 0
            }
        }.flatMap { $0 } ?? t.starts(with: p)
    }

    static func sameBytes(_ a: String, _ b: String) -> Bool { a.utf8.count == b.utf8.count && isPrefix(a, of: b) }

    /// Whether `text` has `part` in it, byte for byte.
    static func contains(_ text: String, _ part: String) -> Bool {
        var text = text, part = part
        return text.withUTF8 { t in
            part.withUTF8 { p in
                guard p.count <= t.count else { return false }
                guard let first = p.first else { return true }
                for start in 0...(t.count - p.count) where t[start] == first {
                    if (0..<p.count).allSatisfy({ t[start + $0] == p[$0] }) { return true }
                }
                return false
            }
        }
    }

    /// OSRM's suffix rule (names that differ only by compass words at their start or end, "Main
    /// Street" / "Main Street West") compares cores: OSRM finds the common part as the longest
    /// common substring; here the compass words are peeled off both ends, which agrees on names
    /// made of words. This is the name without compass words at either end (and the spaces
    /// around them).
    static func core(_ s: String) -> Substring {
        // Spaces are found as bytes (a space is one byte in UTF-8 and never part of another
        // character's bytes): no grapheme breaking for what is a per-map pass over every name.
        let u = s.utf8
        let space = UInt8(ascii: " ")
        var lower = u.startIndex, upper = u.endIndex
        func trimSpaces() {
            while lower < upper && u[lower] == space { lower = u.index(after: lower) }
            while lower < upper && u[u.index(before: upper)] == space { upper = u.index(before: upper) }
        }
        trimSpaces()
        while let gap = u[lower..<upper].lastIndex(of: space), isCompassWord(s[u.index(after: gap)..<upper]) {
            upper = gap
            trimSpaces()
        }
        while let gap = u[lower..<upper].firstIndex(of: space), isCompassWord(s[lower..<gap]) {
            lower = u.index(after: gap)
            trimSpaces()
        }
        return s[lower..<upper]
    }

    private static func isCompassWord(_ word: Substring) -> Bool {
        word.utf8.count <= 5 && suffixes.contains(word.lowercased())
    }
}

/// Per string of a map, the key name comparisons need, made once when the map is prepared:
/// equal keys mean an equal core (``NameChange/core(_:)``); 0 means none.
package struct NameKeys: Sendable {
    let core: [UInt32]

    init(core: [UInt32]) {
        self.core = core
    }

    /// Keys for `strings`, only for the ids in `names` (nil: every string). A map's string table
    /// also holds refs, signs and lanes, which name comparisons never look up.
    init(strings: [String], names nameIDs: Column<UInt32>? = nil) {
        var isName = [Bool](repeating: nameIDs == nil, count: strings.count)
        for id in nameIDs ?? [] { isName[Int(id)] = true }
        var ids: [String: UInt32] = [:]
        core = strings.indices.map { i in
            guard isName[i] else { return 0 }
            let k = String(NameChange.core(strings[i]))
            if k.isEmpty { return 0 }
            if let id = ids[k] { return id }
            let id = UInt32(ids.count + 1)
            ids[k] = id
            return id
        }
    }
}
