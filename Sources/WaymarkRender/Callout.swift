import WaymarkAnnotations
import WaymarkGeo

/// A map pin's callout, as MapKit shows it above a selected annotation: the title (bold), the
/// subtitle, the coordinate, a "directions" accessory on the left (the car button) and a
/// "details" accessory on the right (the info button), in a rounded box with a pointer down to
/// the pin. Rendered for a terminal by ``render(_:)``.
public struct Callout: Sendable, Equatable {
    public var title: String?
    public var subtitle: String?
    public var coordinate: Coordinate

    public init(title: String?, subtitle: String?, coordinate: Coordinate) {
        self.title = title
        self.subtitle = subtitle
        self.coordinate = coordinate
    }

    /// The callout of an annotation; control characters in its texts are shown escaped, never
    /// sent to the terminal.
    public init(_ annotation: Annotation) {
        self.init(title: annotation.title?.escapingControlCharacters,
                  subtitle: annotation.subtitle?.escapingControlCharacters,
                  coordinate: annotation.coordinate)
    }

    /// The coordinate as a callout shows it: `48.858370, 2.294481`.
    public var coordinateText: String { Callout.format(coordinate) }

    static func format(_ c: Coordinate) -> String {
        func fixed(_ v: Double) -> String {
            // Six decimals without Foundation's locale-dependent formatting.
            let scaled = (abs(v) * 1_000_000).rounded()
            let whole = Int(scaled / 1_000_000), fraction = Int(scaled.truncatingRemainder(dividingBy: 1_000_000))
            let digits = String(fraction)
            return (v < 0 && scaled != 0 ? "-" : "") + "\(whole)." + String(repeating: "0",
                                                                            count: 6 - digits.count) + digits
        }
        return fixed(c.latitude) + ", " + fixed(c.longitude)
    }
}

/// How a callout is drawn in a terminal.
public struct CalloutStyle: Sendable, Equatable {
    /// ASCII only (`+-|`), for terminals without Unicode box drawing or emoji.
    public var ascii: Bool
    /// ANSI styling (bold title, tinted accessories): for a terminal, never for a pipe or when
    /// `NO_COLOR` is set (the caller decides).
    public var ansi: Bool
    /// Total width in columns; title and subtitle wrap to fit. At least ``minimumWidth``.
    public var width: Int

    public static let minimumWidth = 48

    public init(ascii: Bool = false, ansi: Bool = false, width: Int = 64) {
        self.ascii = ascii
        self.ansi = ansi
        self.width = width
    }
}

extension Callout {
    /// The callout as lines of text (joined with newlines, ending with one).
    ///
    /// ```
    /// ╭──────────────────────────────────────────────────╮
    /// │     🚗      Avelbury Town Hall             (i)   │
    /// │ Directions  Town hall · High Street      Details │
    /// │             52.309427, -2.598781                 │
    /// ╰────────────────────────╲  ╱──────────────────────╯
    ///                           ╲╱
    /// ```
    public func render(_ style: CalloutStyle = CalloutStyle()) -> String {
        let leftIcon = style.ascii ? "(>)" : "🚗", leftLabel = "Directions"
        let rightIcon = "(i)", rightLabel = "Details"
        let leftWidth = max(TextWidth.of(leftIcon), TextWidth.of(leftLabel))
        let rightWidth = max(TextWidth.of(rightIcon), TextWidth.of(rightLabel))
        let chrome = 2 + leftWidth + 2 + 2 + rightWidth + 2
        let maxCenter = max(CalloutStyle.minimumWidth, style.width) - chrome

        // Centre column: wrapped title, wrapped subtitle, the coordinate.
        var center: [(text: String, bold: Bool)] = []
        if let title, !title.isEmpty { center += TextWidth.wrap(title, width: maxCenter).map { ($0, true) } }
        if let subtitle, !subtitle.isEmpty { center += TextWidth.wrap(subtitle, width: maxCenter).map { ($0, false) } }
        center += TextWidth.wrap(coordinateText, width: maxCenter).map { ($0, false) }
        while center.count < 2 { center.append(("", false)) }
        let centerWidth = center.map { TextWidth.of($0.text) }.max() ?? 0
        let inner = 1 + leftWidth + 2 + centerWidth + 2 + rightWidth + 1

        let (h, v, topLeft, topRight, bottomLeft, bottomRight) = style.ascii
            ? ("-", "|", "+", "+", "+", "+") : ("─", "│", "╭", "╮", "╰", "╯")
        func styled(_ text: String, _ code: String) -> String {
            style.ansi && text.contains(where: { $0 != " " }) ? "\u{1B}[\(code)m" + text + "\u{1B}[0m" : text
        }
        func centered(_ text: String, _ width: Int) -> String {
            let free = max(0, width - TextWidth.of(text))
            return String(repeating: " ", count: free / 2) + text + String(repeating: " ", count: free - free / 2)
        }

        var lines = [topLeft + String(repeating: h, count: inner) + topRight]
        let accessoryRow = (center.count - 2) / 2
        for (row, line) in center.enumerated() {
            var left = String(repeating: " ", count: leftWidth), right = String(repeating: " ", count: rightWidth)
            if row == accessoryRow {
                left = styled(centered(leftIcon, leftWidth), "34")
                right = styled(centered(rightIcon, rightWidth), "34")
            } else if row == accessoryRow + 1 {
                left = styled(centered(leftLabel, leftWidth), "34")
                right = styled(centered(rightLabel, rightWidth), "34")
            }
            let text =
                line.bold
                ? styled(TextWidth.pad(line.text, to: centerWidth), "1") : TextWidth.pad(line.text, to: centerWidth)
            lines.append(v + " " + left + "  " + text + "  " + right + " " + v)
        }
        // The pointer, under the middle of the box.
        let before = (inner - 4) / 2, after = inner - 4 - before
        let (down, up) = style.ascii ? ("\\", "/") : ("╲", "╱")
        lines.append(
            bottomLeft + String(repeating: h, count: before) + down + "  " + up + String(repeating: h, count: after)
                + bottomRight)
        lines.append(String(repeating: " ", count: before + 2) + down + up)
        return lines.joined(separator: "\n") + "\n"
    }
}

