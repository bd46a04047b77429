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
        if fromName.isEmpty && fromRef.isEmpty && !(toName.isEmpty && toRef.isEmpty) { return true }
        let namesEmpty = fromName.isEmpty && toName.isEmpty
        let contained = fromName.hasPrefix(toName) || toName.hasPrefix(fromName)
        let suffixChange = onlyAffixesDiffer(fromName, toName)
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

    /// OSRM's suffix check: around the longest common part, what is left on either side is empty or
    /// a compass suffix.
    static func onlyAffixesDiffer(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard !x.isEmpty, !y.isEmpty else {
            return isAffix(a) && isAffix(b)
        }
        // Longest common substring by dynamic programming over bytes (names are short).
        var previous = [Int](repeating: 0, count: y.count + 1), current = previous
        var best = 0, bestEndX = 0, bestEndY = 0
        for i in 1...x.count {
            for j in 1...y.count {
                current[j] = x[i - 1] == y[j - 1] ? previous[j - 1] + 1 : 0
                if current[j] > best { best = current[j]; bestEndX = i; bestEndY = j }
            }
            swap(&previous, &current)
        }
        guard best > 0 else { return isAffix(a) && isAffix(b) }
        func text(_ bytes: ArraySlice<UInt8>) -> String { String(decoding: bytes, as: UTF8.self) }
        let parts = [text(x[..<(bestEndX - best)]), text(x[bestEndX...]), text(y[..<(bestEndY - best)]), text(y[bestEndY...])]
        return parts.allSatisfy(isAffix)
    }

    private static func isAffix(_ s: String) -> Bool {
        let t = s.trimmingCharacters(in: " ").lowercased()
        return t.isEmpty || suffixes.contains(t)
    }

    /// The same words once connecting words are dropped ("Rua de Santa Catarina" = "Rua Santa Catarina").
    static func sameWords(_ a: String, _ b: String) -> Bool {
        guard !a.isEmpty, !b.isEmpty, a != b else { return false }
        func words(_ s: String) -> [Substring] {
            s.lowercased().split(separator: " ").filter { !connectingWords.contains(String($0)) }
        }
        let x = words(a)
        return !x.isEmpty && x == words(b)
    }
}

private extension String {
    func trimmingCharacters(in character: Character) -> String {
        var s = Substring(self)
        while s.first == character { s = s.dropFirst() }
        while s.last == character { s = s.dropLast() }
        return String(s)
    }
}
