import Foundation
import WaymarkGraph
import WaymarkQueries
import WaymarkPreparation

/// When a change of road deserves a word: OSRM's rule (`requiresNameAnnounced`), with the suffixes of
/// its car profile, plus one deliberate difference (docs/guidance.md): names that differ only by a
/// connecting word ("Avenida de Fernão Magalhães" / "Avenida Fernão Magalhães") are one road.
///
/// The comparisons that need words (compass suffixes, connecting words) are made once per map in
/// ``NameKeys``; on the route only string ids and bytes are compared.
package enum NameChange {
    /// OSRM car.lua's `suffix_list`: compass words that may come and go without a new name.
    static let suffixes: Set<String> = ["n", "ne", "e", "se", "s", "sw", "w", "nw", "north", "south", "west", "east",
                                        "nor", "sou", "we", "ea"]
    /// Small words a name may gain or lose and stay the same road (articles and prepositions).
    static let connectingWords: Set<String> = ["de", "da", "do", "das", "dos", "del", "la", "le", "el", "of", "the",
                                               "von", "van", "der", "di", "du", "des"]

    /// Whether going from one road onto another must be announced as a new name (strings as they
    /// are; a map's steps use the id form with its keys).
    static func mustAnnounce(fromName: String, fromRef: String, toName: String, toRef: String) -> Bool {
        let strings = ["", fromName, fromRef, toName, toRef]
        return mustAnnounce(from: (1, 2), to: (3, 4), strings: strings, keys: NameKeys(strings: strings))
    }

    /// Whether going from road (name, ref) onto road (name, ref), given as string ids, must be
    /// announced as a new name.
    static func mustAnnounce(from: (name: UInt32, ref: UInt32), to: (name: UInt32, ref: UInt32),
                             strings: [String], keys: NameKeys) -> Bool {
        if from == to { return false }
        let fromName = strings[Int(from.name)], toName = strings[Int(to.name)]
        let fromRef = strings[Int(from.ref)], toRef = strings[Int(to.ref)]
        // Equal ids are equal strings; equal strings under two ids only in a map written elsewhere.
        let sameName = from.name == to.name || sameBytes(fromName, toName)
        if sameName && (from.ref == to.ref || sameBytes(fromRef, toRef)) { return false }
        if fromName.isEmpty && fromRef.isEmpty { return true }
        let namesEmpty = fromName.isEmpty && toName.isEmpty
        // OSRM compares bytes (std::string): so do these.
        let contained = sameName || isPrefix(fromName, of: toName) || isPrefix(toName, of: fromName)
        // OSRM's suffix change: what is left around the names' common part is only compass words
        // (or nothing: equal names are one too, whatever their refs).
        let suffixChange = (sameName && !fromName.isEmpty)
            || (keys.core[Int(from.name)] != 0 && keys.core[Int(from.name)] == keys.core[Int(to.name)])
        let sameWords = keys.words[Int(from.name)] != 0 && keys.words[Int(from.name)] == keys.words[Int(to.name)]
        let namesEqual = contained || suffixChange || sameWords
        let nameRemoved = !fromName.isEmpty && toName.isEmpty
        let refsEmpty = fromRef.isEmpty && toRef.isEmpty
        let refContained = fromRef.isEmpty || toRef.isEmpty || contains(fromRef, toRef) || contains(toRef, fromRef)
            || keys.shareRef(Int(from.ref), Int(to.ref))
        let refRemoved = !fromRef.isEmpty && toRef.isEmpty
        let obvious = (namesEmpty && refsEmpty) || (namesEqual && refContained) || (namesEqual && refsEmpty)
            || (refContained && nameRemoved) || (namesEqual && refRemoved) || suffixChange
        let needsAnnouncement = (fromName.isEmpty && !fromRef.isEmpty && !toName.isEmpty && toRef.isEmpty)
            || (!fromName.isEmpty && fromRef.isEmpty && toName.isEmpty && !toRef.isEmpty)
            || (namesEmpty && !refContained)
        return !obvious || needsAnnouncement
    }

    /// The items of a `;` list with spaces taken out ("IP 1; A 20" → ["IP1", "A20"]): refs are
    /// compared this way, so a road signed under two numbers stays one road ("IP1; A20",
    /// "IP 1; A 20", "A20"; docs/guidance.md: a deliberate difference, OSRM compares the lists as text).
    static func refItems(_ s: String) -> [String] {
        s.split(separator: ";").map { String($0.filter { $0 != " " }) }.filter { !$0.isEmpty }
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

    /// The name's words, lowercased, without connecting words, one space apart: equal for
    /// "Rua de Santa Catarina" and "Rua Santa Catarina".
    static func significantWords(_ s: String) -> String {
        // Split at space bytes, not characters (as `core`); only a word as short as the longest
        // connecting word can be one: no set lookup (and no string made) for the rest.
        let lower = s.lowercased()
        var out: [UInt8] = []
        out.reserveCapacity(lower.utf8.count)
        for word in lower.utf8.split(separator: UInt8(ascii: " ")) {
            if word.count <= longestConnectingWord && connectingWords.contains(String(Substring(word))) { continue }
            if !out.isEmpty { out.append(UInt8(ascii: " ")) }
            out.append(contentsOf: word)
        }
        return String(decoding: out, as: UTF8.self)
    }
    private static let longestConnectingWord = connectingWords.map(\.utf8.count).max() ?? 0
}

/// Per string of a map, the keys name comparisons need, made once when the map is prepared:
/// equal keys mean equal words (``NameChange/significantWords(_:)``) or an equal core
/// (``NameChange/core(_:)``); 0 means none.
package struct NameKeys: Sendable {
    let words: [UInt32]
    let core: [UInt32]
    /// Per string, its ref items (``NameChange/refItems(_:)``) as interned ids (none for "").
    let refs: [[UInt32]]

    init(words: [UInt32], core: [UInt32], refs: [[UInt32]]) {
        self.words = words
        self.core = core
        self.refs = refs
    }

    /// Keys for `strings`: words and cores only for the ids in `names`, ref items only for the ids
    /// in `refs` (nil: every string). A map's string table also holds refs, signs and lanes,
    /// which name comparisons never look up.
    init(strings: [String], names nameIDs: Column<UInt32>? = nil, refs refIDs: Column<UInt32>? = nil) {
        var isName = [Bool](repeating: nameIDs == nil, count: strings.count)
        for id in nameIDs ?? [] { isName[Int(id)] = true }
        func interned(_ key: (String) -> String) -> [UInt32] {
            var ids: [String: UInt32] = [:]
            return strings.indices.map { i in
                guard isName[i] else { return 0 }
                let k = key(strings[i])
                if k.isEmpty { return 0 }
                if let id = ids[k] { return id }
                let id = UInt32(ids.count + 1)
                ids[k] = id
                return id
            }
        }
        words = interned(NameChange.significantWords)
        core = interned { String(NameChange.core($0)) }
        var isRef = [Bool](repeating: refIDs == nil, count: strings.count)
        for id in refIDs ?? [] { isRef[Int(id)] = true }
        var items: [String: UInt32] = [:]
        refs = strings.indices.map { i in
            guard isRef[i] else { return [] }
            return NameChange.refItems(strings[i]).map { item in
                if let id = items[item] { return id }
                let id = UInt32(items.count + 1)
                items[item] = id
                return id
            }
        }
    }

    /// Whether two ref lists (string ids) name a road in common.
    func shareRef(_ a: Int, _ b: Int) -> Bool {
        let x = refs[a], y = refs[b]
        return x.contains { y.contains($0) }
    }
}
