import Foundation
import WaymarkGraph

/// Readers for OpenStreetMap tag values, as OSRM's profiles read them (`lib/measure.lua`, the
/// maxspeed and duration parsers): the same inputs give the same numbers, quirks included (a
/// speed is its leading integer; `3,5 m` is 3.5; a weight without a unit is in tonnes).
public enum TagValues {
    /// Of a `;` list of access values, the one that allows most (`allowed` > `restricted` (local
    /// traffic only) > `forbidden` > unknown; the first of equals), as OSRM's `resolve_access`; a
    /// single value as it is.
    static func mostAllowing(_ value: String?, allowed: Set<String>, restricted: Set<String> = [],
                             forbidden: Set<String>) -> String? {
        guard let value, value.contains(";") else { return value }
        var best: String?, bestRank = -1
        for part in value.split(separator: ";") {
            let item = part.trimmingCharacters(in: .whitespaces)
            let rank = allowed.contains(item) ? 3 : restricted.contains(item) ? 2 : forbidden.contains(item) ? 1 : 0
            if rank > bestRank {
                best = item
                bestRank = rank
            }
        }
        return best ?? value
    }

    /// The integer at the start of `text` (digits only), or nil when it does not start with one.
    static func leadingInteger(_ text: Substring) -> Double? {
        let digits = text.prefix { $0.isASCII && $0.isNumber }
        return digits.isEmpty ? nil : Double(digits)
    }

    /// Whether `text` holds `part`, byte for byte (without Foundation's `NSString` search, which a
    /// country's ways would pay for once each).
    static func mentions(_ text: String, _ part: StaticString) -> Bool {
        let needle = UnsafeRawBufferPointer(start: part.utf8Start, count: part.utf8CodeUnitCount)
        let bytes = Array(text.utf8)
        guard needle.count > 0, bytes.count >= needle.count else { return needle.count == 0 }
        for start in 0...(bytes.count - needle.count) where bytes[start] == needle[0] {
            var i = 1
            while i < needle.count && bytes[start + i] == needle[i] { i += 1 }
            if i == needle.count { return true }
        }
        return false
    }

    /// The first decimal number anywhere in `text` (`,` read as a decimal point): OSRM's
    /// `%d+%.?%d*`.
    static func firstNumber(_ text: String) -> Double? {
        let chars = text.replacingOccurrences(of: ",", with: ".")
        guard let start = chars.firstIndex(where: { $0.isASCII && $0.isNumber }) else { return nil }
        var end = chars[start...].firstIndex { !($0.isASCII && $0.isNumber) } ?? chars.endIndex
        if end < chars.endIndex && chars[end] == "." {
            end = chars[chars.index(after: end)...].firstIndex { !($0.isASCII && $0.isNumber) } ?? chars.endIndex
        }
        var number = String(chars[start..<end])
        if number.hasSuffix(".") { number.removeLast() }
        return Double(number)
    }

    /// A speed in km/h: the leading integer, times 1.609 when the value mentions `mph` or
    /// `mp/h`. Nil when the value does not start with a digit (`none`, `DE:urban`, ` 50`).
    public static func speed(_ text: String) -> Double? {
        guard let n = leadingInteger(Substring(text)) else { return nil }
        return mentions(text, "mph") || mentions(text, "mp/h") ? n * 1.609 : n
    }

    /// A length in metres: `2.5`, `2,5 m`, `3'6"` (feet and inches), `12 ft`. Nil without a number.
    public static func metres(_ text: String) -> Double? {
        guard let n = firstNumber(text) else { return nil }
        guard let quote = text.firstIndex(of: "'") else { return n }
        // Feet, then the first number after the quote as inches.
        let inches = text[text.index(after: quote)...].drop { !($0.isASCII && $0.isNumber) }.prefix { $0.isASCII
            && $0.isNumber }
        return (n * 12 + (Double(inches) ?? 0)) * 0.0254
    }

    /// A height in metres, where `default`, `none`, `no-sign` and `unsigned` mean 4.5 m (OSM's
    /// default clearance).
    public static func height(_ text: String) -> Double? {
        ["default", "none", "no-sign", "unsigned"].contains(text) ? 4.5 : metres(text)
    }

    /// A weight in kilograms: `3.5` and `3.5 t` are tonnes, `2000 kg` kilograms, `5000 lbs` pounds.
    public static func kilograms(_ text: String) -> Double? {
        guard let n = firstNumber(text) else { return nil }
        if mentions(text, "lbs") { return n * 0.45359237 }
        if mentions(text, "kg") { return n }
        return n * 1000
    }

    /// A duration in seconds, as OSRM reads `duration`: `M`, `H:M` or `H:M:S` (one or two digits
    /// each), or an ISO 8601 period (`PT1H30M`, `P1D`, `P2W`, `PT01:30:00`, `PT013000`). Nil for
    /// anything else, and for values beyond 32 bits of seconds (OSRM's parser fails on them).
    public static func duration(_ text: String) -> Double? {
        guard !text.isEmpty else { return nil }
        var s = Substring(text)
        /// Reads an unsigned integer of `min...max` digits; nil (nothing consumed) otherwise.
        func number(_ min: Int = 1, _ max: Int = 10) -> UInt64? {
            let digits = s.prefix { $0.isASCII && $0.isNumber }.prefix(max)
            guard digits.count >= min, let value = UInt64(digits), value <= UInt64(UInt32.max) else { return nil }
            s = s.dropFirst(digits.count)
            return value
        }
        func take(_ c: Character) -> Bool {
            guard let first = s.first, first.lowercased() == c.lowercased() else { return false }
            s = s.dropFirst()
            return true
        }
        func checked(_ total: UInt64) -> Double? { s.isEmpty && total <= UInt64(UInt32.max) ? Double(total) : nil }

        if text.first != "P" {
            // H:M:S, H:M or M, with one or two digits each.
            guard let a = number(1, 2) else { return nil }
            guard take(":") else { return checked(a * 60) }
            guard let b = number(1, 2) else { return nil }
            guard take(":") else { return checked(a * 3600 + b * 60) }
            guard let c = number(1, 2) else { return nil }
            return checked(a * 3600 + b * 60 + c)
        }
        s = s.dropFirst()
        // P<n>W
        let afterP = s
        if let weeks = number(), take("W") { return checked(weeks * 604_800) }
        s = afterP
        // PThhmmss and PThh:mm:ss (hours < 24, minutes and seconds < 60)
        if s.first == "T" {
            let afterT = s.dropFirst()
            s = afterT
            if let h = number(2, 2), h < 24 {
                let extended = take(":")
                if let m = number(2, 2), m < 60, !extended || take(":"), let sec = number(2, 2), sec < 60, s.isEmpty {
                    return Double(h * 3600 + m * 60 + sec)
                }
            }
            s = afterP
        }
        // P[nD][T[nH][nM][nS]]
        var total: UInt64 = 0
        if let days = number() {
            guard take("D") else { return nil }
            total += days * 86_400
        }
        if take("T") {
            // Each of nH, nM, nS is optional, in that order.
            for (unit, seconds) in [("H", 3600), ("M", 60), ("S", 1)] as [(Character, UInt64)] {
                let before = s
                if let n = number(), take(unit) { total += n * seconds } else { s = before }
            }
        }
        return checked(total)
    }

    /// The value split at `;` with a space after each separator, as OSRM lists refs (`A 1;A 2`
    /// → `A 1; A 2`); runs of white space fold to one.
    public static func canonicalList(_ text: String, separator: Character = ";") -> String {
        var out = ""
        var lastWasSpace = false
        for c in text {
            if c == separator {
                out.append(c)
                out.append(" ")
                lastWasSpace = true
                continue
            }
            if c.isWhitespace {
                if !lastWasSpace { out.append(" ") }
                lastWasSpace = true
                continue
            }
            out.append(c)
            lastWasSpace = false
        }
        return out
    }

    // MARK: - Handlers the profiles share

    /// The name used in directions (`WayHandlers.names`): `name`; for an unnamed sidewalk or side
    /// path, the street it runs beside.
    static func wayName(_ tags: [String: String]) -> String {
        if let name = tags["name"] { return name }
        guard let beside = tags["is_sidepath:of:name"] ?? tags["street:name"],
              ["footway", "cycleway", "path"].contains(tags["highway"] ?? ""),
              tags["footway"] == "sidewalk" || tags["cycleway"] == "sidepath"
              || tags["is_sidepath"] == "yes" else { return "" }
        return beside
    }

    /// The way a light faces along its way (OSRM's obstacle directions): `forward`, `backward`,
    /// else both.
    static func signalDirection(_ value: String?) -> SignalDirection {
        switch value {
        case "forward": .forward
        case "backward": .backward
        default: .both
        }
    }

    /// OSRM's lane count for guidance (guidance.lua's `set_classification`): `lanes`, else
    /// `lanes:forward` plus `lanes:backward`; 0 when unknown.
    static func laneCount(_ tags: [String: String]) -> UInt8 {
        let lanes: Int
        if let total = tags["lanes"] {
            lanes = laneNumber(total) ?? 0
        } else {
            lanes = (tags["lanes:forward"].flatMap(laneNumber) ?? 0) + (tags["lanes:backward"].flatMap(laneNumber) ?? 0)
        }
        return UInt8(min(lanes, 255))
    }

    /// OSRM's `to_number_uint`: a positive whole number as Lua's `tonumber` reads it, else nil.
    static func laneNumber(_ text: String) -> Int? {
        guard let n = Double(text.trimmingCharacters(in: .whitespaces)), n > 0, n.rounded(.down) == n, n < 1e9 else {
            return nil
        }
        return Int(n)
    }

    /// The kind of a restriction relation for a profile whose `restrictions` are `modes`, as
    /// OSRM's restriction parser reads it: nil where `except` names one of them, where only a
    /// `restriction:<other mode>` is given, for `no_*_on_red` and for values it does not know.
    static func restriction(_ tags: [String: String], modes: [String]) -> RestrictionKind? {
        guard tags["type"] == "restriction" else { return nil }
        if let except = tags["except"],
            except.split(separator: ";").contains(where: { modes.contains($0.trimmingCharacters(in: .whitespaces)) }) {
            return nil
        }
        let values = (["restriction"] + modes.map { "restriction:" + $0 }).compactMap { tags[$0] }
        guard !values.isEmpty else { return nil }
        var kind: RestrictionKind?
        for value in values {
            if value.hasPrefix("only_") {
                kind = .mandatory
            } else if value.hasPrefix("no_") && !value.hasSuffix("_on_red") {
                kind = .prohibitive
            } else {
                return nil
            }
        }
        return kind
    }

    /// Whether a restriction relation may name several from ways (`no_entry`) or several to ways
    /// (`no_exit`): each pair of them is a restriction of its own, as in OSRM.
    static func restrictionMayNameSeveralWays(_ tags: [String: String], modes: [String]) -> (from: Bool, to: Bool) {
        let values = (["restriction"] + modes.map { "restriction:" + $0 }).compactMap { tags[$0] }
        return (values.contains { $0.hasPrefix("no_entry") }, values.contains { $0.hasPrefix("no_exit") })
    }
}
