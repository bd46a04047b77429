import Testing
import WaymarkAnnotations
import WaymarkGeo
@testable import WaymarkRender

@Suite struct TextWidthTests {
    @Test func graphemeWidths() {
        #expect(TextWidth.of("Avelbury") == 8)
        #expect(TextWidth.of("東京タワー") == 10)          // CJK and katakana: two columns each
        #expect(TextWidth.of("서울") == 4)                 // Hangul syllables
        #expect(TextWidth.of("Café") == 4)                 // precomposed é
        #expect(TextWidth.of("Cafe\u{301}") == 4)          // e + combining acute: one grapheme
        #expect(TextWidth.of("🚗") == 2)
        #expect(TextWidth.of("👩‍👩‍👧") == 2)                 // a ZWJ family: one grapheme
        #expect(TextWidth.of("🇵🇹") == 2)                  // a flag: two regional indicators
        #expect(TextWidth.of("☕") == 2)                   // emoji presentation by default
        #expect(TextWidth.of("✈\u{FE0F}") == 2)            // text default, emoji asked for
        #expect(TextWidth.of("✈") == 1)
        #expect(TextWidth.of("ＡＢ") == 4)                 // fullwidth forms
        #expect(TextWidth.of("a\u{200B}b") == 2)           // zero-width space
    }

    @Test func wrapsAtSpacesAndInsideLongWords() {
        #expect(TextWidth.wrap("the quick brown fox", width: 9) == ["the quick", "brown fox"])
        #expect(TextWidth.wrap("Rua de Santa Catarina", width: 10) == ["Rua de", "Santa", "Catarina"])
        #expect(TextWidth.wrap("abcdefghij", width: 4) == ["abcd", "efgh", "ij"])
        #expect(TextWidth.wrap("東京タワー", width: 5) == ["東京", "タワ", "ー"]) // never splits a wide grapheme
        #expect(TextWidth.wrap("", width: 5) == [""])
        for line in TextWidth.wrap("Ünïcödé wörds with 🚗 emoji and 東京 in a long line", width: 12) {
            #expect(TextWidth.of(line) <= 12)
        }
    }
}

@Suite struct CalloutTests {
    let townHall = Callout(title: "Avelbury Town Hall", subtitle: "Town hall · High Street",
                           coordinate: Coordinate(latitude: 52.309427, longitude: -2.598781))

    @Test func rendersTheBox() {
        #expect(townHall.render() == """
        ╭──────────────────────────────────────────────╮
        │     🚗      Avelbury Town Hall         (i)   │
        │ Directions  Town hall · High Street  Details │
        │             52.309427, -2.598781             │
        ╰─────────────────────╲  ╱─────────────────────╯
                               ╲╱

        """)
    }

    @Test func asciiOnly() {
        let text = townHall.render(CalloutStyle(ascii: true))
        #expect(text == """
        +----------------------------------------------+
        |    (>)      Avelbury Town Hall         (i)   |
        | Directions  Town hall · High Street  Details |
        |             52.309427, -2.598781             |
        +---------------------\\  /---------------------+
                               \\/

        """)
    }

    /// Wide (CJK, emoji) and combining graphemes line up, and long text wraps at the width.
    @Test func wideAndCombiningTextWraps() {
        let callout = Callout(title: "Kyōto Station 京都駅 and the long Karasuma concourse 🚉",
                              subtitle: "Cafe\u{301} crème · 烏丸口 exit",
                              coordinate: Coordinate(latitude: 34.985849, longitude: 135.758767))
        let text = callout.render(CalloutStyle(width: 50))
        #expect(text == """
        ╭───────────────────────────────────────────────╮
        │             Kyōto Station 京都駅 and          │
        │     🚗      the long Karasuma           (i)   │
        │ Directions  concourse 🚉              Details │
        │             Cafe\u{301} crème · 烏丸口 exit          │
        │             34.985849, 135.758767             │
        ╰─────────────────────╲  ╱──────────────────────╯
                               ╲╱

        """)
        let rows = text.split(separator: "\n").dropLast()
        #expect(Set(rows.map { TextWidth.of($0) }).count == 1, "every row of the box is as wide")
        #expect(rows.allSatisfy { TextWidth.of($0) <= 50 })
    }

    @Test func styledOnlyWhenAsked() {
        let plain = townHall.render(CalloutStyle(ansi: false))
        let styled = townHall.render(CalloutStyle(ansi: true))
        #expect(!plain.contains("\u{1B}"))
        #expect(styled.contains("\u{1B}[1mAvelbury Town Hall"))
        // Without the escapes it is the plain callout.
        var stripped = styled
        for code in ["\u{1B}[1m",
                     "\u{1B}[34m", "\u{1B}[0m"] { stripped = stripped.replacingOccurrences(of: code, with: "") }
        #expect(stripped == plain)
    }

    @Test func untitledAndNarrow() {
        let bare = Callout(title: nil, subtitle: nil,
                           coordinate: Coordinate(latitude: -33.856784, longitude: 151.215297))
        let text = bare.render(CalloutStyle(width: 10)) // below the minimum: the minimum applies
        #expect(text.contains("-33.856784, 151.215297"))
        #expect(text.contains("Directions") && text.contains("Details"))
    }
}
