/// How many terminal columns text takes, grapheme by grapheme (a grapheme is what Swift calls a
/// `Character`: a base with its combining marks, a flag, a ZWJ emoji sequence).
///
/// A grapheme is two columns when it is shown as an emoji (emoji presentation by default, or
/// asked for with U+FE0F) or when its base is East Asian Wide or Fullwidth (CJK ideographs, kana,
/// Hangul syllables, fullwidth forms); zero for controls and a lone zero-width character; one
/// otherwise. Combining marks add nothing: they belong to their base's grapheme. This is what
/// terminals following Unicode's East Asian Width (UAX #11) and emoji presentation (UTS #51)
/// do; East Asian *Ambiguous* characters count as one column, as in a non-CJK locale.
public enum TextWidth {
    public static func of(_ text: some StringProtocol) -> Int {
        var total = 0
        for grapheme in text { total += of(grapheme) }
        return total
    }

    public static func of(_ grapheme: Character) -> Int {
        let scalars = grapheme.unicodeScalars
        guard let base = scalars.first else { return 0 }
        if base.value < 0x20 || (0x7F..<0xA0).contains(base.value) { return 0 }
        if scalars.count == 1
            && (base.value == 0x200B || base.value == 0x200C || base.value == 0x200D || base.value == 0x2060
                || base.value == 0xFEFF) {
            return 0
        }
        if scalars.contains(where: { $0.value == 0xFE0F }) { return 2 }
        if base.properties.isEmojiPresentation { return 2 }
        if scalars.count > 1 && scalars.contains(where: { $0.value == 0x200D }) && base.properties.isEmoji { return 2 }
        return isWide(base.value) ? 2 : 1
    }

    /// East Asian Wide (W) and Fullwidth (F) ranges of Unicode 15 (outside the emoji handled above).
    static func isWide(_ v: UInt32) -> Bool {
        switch v {
        case 0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x2E80...0x303E, 0x3041...0x33FF,
             0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3,
             0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F, 0xFF00...0xFF60, 0xFFE0...0xFFE6,
             0x16FE0...0x16FE4, 0x17000...0x18CFF, 0x1B000...0x1B2FF, 0x1F200...0x1F2FF,
             0x20000...0x2FFFD, 0x30000...0x3FFFD:
            return true
        default:
            return false
        }
    }

    /// Splits text into lines of at most `width` columns: at spaces where it can, inside a word
    /// (between graphemes) where one word is wider than a line. Never returns an empty array.
    public static func wrap(_ text: String, width: Int) -> [String] {
        let width = max(1, width)
        var lines: [String] = []
        var line = "", lineWidth = 0
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            var word = Substring(word)
            var wordWidth = of(word)
            if lineWidth > 0 && lineWidth + 1 + wordWidth <= width {
                line += " " + word
                lineWidth += 1 + wordWidth
                continue
            }
            if lineWidth > 0 {
                lines.append(line)
                line = ""
                lineWidth = 0
            }
            // A word wider than the line: break it between graphemes.
            while wordWidth > width {
                var piece = "", pieceWidth = 0
                var rest = word.startIndex
                for (i, g) in zip(word.indices, word) {
                    let w = of(g)
                    if pieceWidth + w > width && pieceWidth > 0 { break }
                    piece.append(g)
                    pieceWidth += w
                    rest = word.index(after: i)
                }
                lines.append(piece)
                word = word[rest...]
                wordWidth = of(word)
            }
            line = String(word)
            lineWidth = wordWidth
        }
        if lineWidth > 0 || lines.isEmpty { lines.append(line) }
        return lines
    }

    /// `text` followed by spaces up to `width` columns.
    public static func pad(_ text: String, to width: Int) -> String {
        text + String(repeating: " ", count: max(0, width - of(text)))
    }
}
