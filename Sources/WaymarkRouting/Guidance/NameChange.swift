/// When a change of road deserves a word: OSRM's rule (`requiresNameAnnounced`), with the suffixes of
/// its car profile, plus one deliberate difference (README): names that differ only by a
/// connecting word ("Avenida de Fernão Magalhães" / "Avenida Fernão Magalhães") are one road.
enum NameChange {
    /// OSRM car.lua's `suffix_list`: compass words that may come and go without a new name.
    static let suffixes: Set<String> = ["n", "ne", "e", "se", "s", "sw", "w", "nw", "north", "south", "west", "east",
                                        "nor", "sou", "we", "ea"]
    /// Small words a name may gain or lose and stay the same road (articles and prepositions).
    static let connectingWords: Set<String> = ["de", "da", "do", "das", "dos", "del", "la", "le", "el", "of", "the",
                                               "von", "van", "der", "di", "du", "des"]

    /// Whether going from one road onto another must be announced as a new name.
    static func mustAnnounce(fromName: String, fromRef: String, toName: String, toRef: String) -> Bool {
        if fromName == toName && fromRef == toRef { return false }
        if fromName.isEmpty && fromRef.isEmpty { return true }
        let namesEmpty = fromName.isEmpty && toName.isEmpty
        let contained = fromName.hasPrefix(toName) || toName.hasPrefix(fromName)
        let suffixChange = !contained && onlyAffixesDiffer(fromName, toName)
        let namesEqual = fromName == toName || contained || suffixChange || sameWords(fromName, toName)
        let nameRemoved = !fromName.isEmpty && toName.isEmpty
        let refsEmpty = fromRef.isEmpty && toRef.isEmpty
        let refContained = fromRef.isEmpty || toRef.isEmpty || fromRef.contains(toRef) || toRef.contains(fromRef)
        let refRemoved = !fromRef.isEmpty && toRef.isEmpty
        let obvious = (namesEmpty && refsEmpty) || (namesEqual && refContained) || (namesEqual && refsEmpty)
            || (refContained && nameRemoved) || (namesEqual && refRemoved) || suffixChange
        let needsAnnouncement = (fromName.isEmpty && !fromRef.isEmpty && !toName.isEmpty && toRef.isEmpty)
            || (!fromName.isEmpty && fromRef.isEmpty && toName.isEmpty && !toRef.isEmpty)
            || (namesEmpty && !refContained)
        return !obvious || needsAnnouncement
    }

    /// OSRM's suffix rule: the names differ only by compass words at their start or end
    /// ("Main Street" / "Main Street West"). OSRM finds the common part as the longest common
    /// substring; here the compass words are peeled off both ends and the rest compared, which
    /// agrees on names made of words and costs no allocation on the usual cross street.
    static func onlyAffixesDiffer(_ a: String, _ b: String) -> Bool {
        let x = core(a), y = core(b)
        return !x.isEmpty && x.elementsEqual(y)
    }

    /// The name without compass words at either end (and the spaces around them).
    private static func core(_ s: String) -> Substring {
        var t = Substring(s)
        func trimSpaces() {
            while t.first == " " { t = t.dropFirst() }
            while t.last == " " { t = t.dropLast() }
        }
        trimSpaces()
        while let space = t.lastIndex(of: " "), isCompassWord(t[t.index(after: space)...]) {
            t = t[..<space]
            trimSpaces()
        }
        while let space = t.firstIndex(of: " "), isCompassWord(t[..<space]) {
            t = t[t.index(after: space)...]
            trimSpaces()
        }
        return t
    }

    private static func isCompassWord(_ word: Substring) -> Bool {
        word.utf8.count <= 5 && suffixes.contains(word.lowercased())
    }

    /// The same words once connecting words are dropped ("Rua de Santa Catarina" = "Rua Santa Catarina").
    static func sameWords(_ a: String, _ b: String) -> Bool {
        guard !a.isEmpty, !b.isEmpty, a != b, abs(a.utf8.count - b.utf8.count) <= 8 else { return false }
        func words(_ s: String) -> [Substring] {
            s.lowercased().split(separator: " ").filter { !connectingWords.contains(String($0)) }
        }
        let x = words(a)
        return !x.isEmpty && x == words(b)
    }
}
