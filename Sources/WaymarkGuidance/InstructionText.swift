import Foundation
import WaymarkGraph
import WaymarkQueries
import WaymarkPreparation

/// Instruction templates for one language, shaped like osrm-text-instructions' tables: for each
/// maneuver type, by modifier (or `default`), a template per variant (`default`, `name`,
/// `destination`, `exit`, `exit_destination`, `named`). Roundabouts add a level: `default`,
/// `exit`, `name`, `name_exit`. Tokens: `{way_name}`, `{destination}`, `{exit}`,
/// `{exit_number}`, `{rotary_name}`, `{modifier}`, `{direction}`, `{nth}`, `{waypoint_name}`.
/// Another language is another table (`InstructionLanguage(code:…)`); English is built in.
public struct InstructionLanguage: Sendable {
    public typealias Variants = [String: String]
    public var code: String
    /// type → modifier or "default" → variant → template.
    public var turns: [String: [String: Variants]]
    /// "roundabout" / "rotary" → "default" | "exit" | "name" | "name_exit" → variant → template.
    public var roundabouts: [String: [String: Variants]]
    /// Arrival by modifier (or "default"): variants "default", "named".
    public var arrive: [String: Variants]
    public var ferry: Variants
    public var ordinals: [String]
    public var modifiers: [String: String]
    /// north, northeast, east, southeast, south, southwest, west, northwest.
    public var directions: [String]
    public var nameAndRef: String
    /// "use lane" phrases by which lanes are valid: "left", "right", "middle", "left or right".
    public var lanes: [String: String] = [:]

    /// The sentence for a step. `legIndex`/`legCount` number the arrivals at via points; a step
    /// carrying `destinations` or `exits` uses them as osrm-text-instructions does. (Parses the
    /// tables on every call: to word many steps, make ``InstructionTemplates`` once.)
    public func instruction(for step: RouteStep, legIndex: Int, legCount: Int, waypointName: String? = nil) -> String {
        InstructionTemplates(self).instruction(for: step, legIndex: legIndex, legCount: legCount,
                                               waypointName: waypointName)
    }

    /// The road as a driver reads it: "Name (ref)", the ref alone on motorways or unnamed roads,
    /// the first ref of a list ("IC 1;IC 23" → "IC 1").
    public func wayName(_ step: RouteStep) -> String { InstructionTemplates(self).wayName(step) }
}

/// A language's tables parsed once and indexed by maneuver: wording a step looks up arrays and
/// copies bytes, with no string hashing or template parsing per step. Chooses templates exactly
/// as osrm-text-instructions does (see ``InstructionLanguage``).
public struct InstructionTemplates: Sendable {
    public static let english = InstructionTemplates(.english)
    /// The languages instructions can be told in, by their codes (another language is another
    /// ``InstructionLanguage`` table).
    public static let available: [String: InstructionTemplates] = ["en": english]

    enum Token: Sendable {
        case wayName, destination, exit, exitNumber, rotaryName, modifier, direction, nth, waypointName, laneInstruction

        init?(_ name: Substring) {
            switch name {
            case "way_name": self = .wayName
            case "destination": self = .destination
            case "exit": self = .exit
            case "exit_number": self = .exitNumber
            case "rotary_name": self = .rotaryName
            case "modifier": self = .modifier
            case "direction": self = .direction
            case "nth": self = .nth
            case "waypoint_name": self = .waypointName
            case "lane_instruction": self = .laneInstruction
            default: return nil
            }
        }
    }

    /// A template as literal bytes and tokens (an unknown `{token}` stays literal).
    enum Part: Sendable {
        case text([UInt8])
        case token(Token)
    }
    typealias Template = [Part]

    /// A maneuver's templates by variant, in the order of `keys`.
    struct Variants: Sendable {
        static let keys = ["default", "name", "destination", "exit", "exit_destination", "named", "lanes"]
        var templates: [Template?]

        init(_ table: InstructionLanguage.Variants?) {
            templates = Variants.keys.map { key in table?[key].map(InstructionTemplates.parse) }
        }
        var plain: Template? { templates[0] }
        var name: Template? { templates[1] }
        var destination: Template? { templates[2] }
        var exit: Template? { templates[3] }
        var exitDestination: Template? { templates[4] }
        var named: Template? { templates[5] }
        var lanes: Template? { templates[6] }
    }

    /// The language's key for each modifier slot (`slot(_:)` of a modifier), "default" for none.
    private static let modifierKeys: [String] = {
        var keys = [String](repeating: "default", count: ManeuverModifier.allCases.count + 1)
        for m in ManeuverModifier.allCases { keys[slot(m)] = m.rawValue }
        return keys
    }()

    /// [type slot × modifier slots + modifier slot], the language's fallbacks applied.
    private let turns: [Variants]
    private let modifierSlots: Int
    /// [type slot]: a turn table's "default" (an off ramp on the driving side names no side).
    private let turnDefaults: [Variants]
    /// [type slot]: "default", "exit", "name", "name_exit" for roundabout types, else nil.
    private let roundabouts: [[Variants]?]
    /// [modifier slot].
    private let arrive: [Variants]
    private let ferry: Variants
    private let ordinals: [String]
    /// [modifier slot]: the word for `{modifier}`.
    private let modifierWords: [String]
    private let directions: [String]
    /// "Name (ref)" with `{name}` and `{ref}` found once.
    private let nameAndRef: [NameAndRefPart]
    private enum NameAndRefPart: Sendable { case text([UInt8]), name, ref }
    private let lanePhrases: [String: String]

    public init(_ language: InstructionLanguage) {
        let modifierKeys = InstructionTemplates.modifierKeys, width = modifierKeys.count
        let none = Variants(nil), typeCount = ManeuverType.allCases.count
        var turns = [Variants](repeating: none,
                               count: typeCount * width), defaults = [Variants](repeating: none, count: typeCount)
        var roundabouts = [[Variants]?](repeating: nil, count: typeCount)
        for type in ManeuverType.allCases {
            let t = InstructionTemplates.slot(type)
            let table = language.turns[type.rawValue] ?? language.turns["turn"] ?? [:]
            for (m, key) in modifierKeys.enumerated() {
                turns[t * width + m] = Variants(table[key] ?? table["default"])
            }
            defaults[t] = Variants(table["default"])
            roundabouts[t] = language.roundabouts[type.rawValue].map { table in
                ["default", "exit", "name", "name_exit"].map { Variants(table[$0] ?? table["default"]) }
            }
        }
        self.turns = turns
        modifierSlots = width
        turnDefaults = defaults
        self.roundabouts = roundabouts
        arrive = modifierKeys.map { Variants(language.arrive[$0] ?? language.arrive["default"]) }
        ferry = Variants(language.ferry)
        ordinals = language.ordinals
        modifierWords = modifierKeys.map { language.modifiers[$0] ?? $0 }
        directions = language.directions
        nameAndRef = InstructionTemplates.parse(language.nameAndRef, token: { name in
            name == "name" ? NameAndRefPart.name : (name == "ref" ? .ref : nil)
        }, text: NameAndRefPart.text)
        lanePhrases = language.lanes
    }

    static func parse(_ template: String) -> Template {
        parse(template, token: { Token($0).map(Part.token) }, text: Part.text)
    }

    /// A template split into literal bytes and the parts `token` knows (`{name}` → its part; an
    /// unknown `{…}` stays literal).
    private static func parse<P>(_ template: String, token: (Substring) -> P?, text makeText: ([UInt8]) -> P) -> [P] {
        var parts: [P] = []
        var text: [UInt8] = []
        let t = Array(template.utf8)
        var i = 0
        while i < t.count {
            if t[i] == UInt8(ascii: "{"), let close = t[i...].firstIndex(of: UInt8(ascii: "}")) {
                if let part = token(Substring(decoding: t[(i + 1)..<close], as: UTF8.self)) {
                    if !text.isEmpty { parts.append(makeText(text)) }
                    text = []
                    parts.append(part)
                } else {
                    text.append(contentsOf: t[i...close])
                }
                i = close + 1
            } else {
                text.append(t[i])
                i += 1
            }
        }
        if !text.isEmpty { parts.append(makeText(text)) }
        return parts
    }

    private static func slot(_ type: ManeuverType) -> Int { type.storedNumber }

    /// A modifier's stored number; one past them for none.
    private static func slot(_ modifier: ManeuverModifier?) -> Int {
        modifier?.storedNumber ?? ManeuverModifier.allCases.count
    }

    /// The sentence for a step (``InstructionLanguage/instruction(for:legIndex:legCount:waypointName:)``).
    public func instruction(for step: RouteStep, legIndex: Int, legCount: Int, waypointName: String? = nil) -> String {
        var buffer: [UInt8] = []
        return withUnsafePointer(to: step) {
            instruction(at: $0, legIndex: legIndex, legCount: legCount, waypointName: waypointName, buffer: &buffer)
        }
    }

    /// ``instruction(for:legIndex:legCount:waypointName:)`` of the step at `step`, read field by field
    /// where it lies (a step handed over by value from an array is copied whole first), the
    /// sentence put together in `buffer` (kept for the next: one allocation for a route's steps).
    package func instruction(at step: UnsafePointer<RouteStep>, legIndex: Int, legCount: Int,
                             waypointName: String? = nil, buffer out: inout [UInt8]) -> String {
        let type = step.pointee.maneuver.type, t = InstructionTemplates.slot(type)
        let m = InstructionTemplates.slot(step.pointee.maneuver.modifier)
        let variants: Variants
        if step.pointee.mode == .ferry && type != .arrive {
            variants = ferry
        } else if type == .arrive {
            variants = arrive[m]
        } else if let table = roundabouts[t] {
            let exit = step.pointee.maneuver.exit != nil
            variants = table[step.pointee.rotaryName != nil ? (exit ? 3 : 2) : (exit ? 1 : 0)]
        } else if type == .offRamp, let side = step.pointee.maneuver.modifier?.side,
            side == (step.pointee.drivingSide == .left ? "left" : "right") {
            variants = turnDefaults[t]
        } else {
            variants = turns[t * modifierSlots + m]
        }
        let wayName = wayName(at: step)
        let lanes = step.pointee.intersections.first?.lanes ?? []
        let keep = type == .useLane ? TurnLanes.keep(lanes).flatMap { lanePhrases[$0] } : nil
        let template: Template
        if keep != nil, let v = variants.lanes {
            template = v
        } else if !step.pointee.destinations.isEmpty && !step.pointee.exits.isEmpty,
                  let v = variants.exitDestination {
            template = v
        } else if !step.pointee.destinations.isEmpty, let v = variants.destination {
            template = v
        } else if !step.pointee.exits.isEmpty, let v = variants.exit {
            template = v
        } else if !wayName.isEmpty, let v = variants.name {
            template = v
        } else if waypointName != nil, let v = variants.named {
            template = v
        } else {
            template = variants.plain ?? []
        }
        out.removeAll(keepingCapacity: true)
        out.reserveCapacity(64)
        for part in template {
            switch part {
            case let .text(bytes): out.append(contentsOf: bytes)
            case let .token(token):
                switch token {
                case .wayName: InstructionTemplates.append(wayName, to: &out)
                case .destination: InstructionTemplates.appendFirstDestination(step.pointee.destinations, to: &out)
                case .exit: out.append(contentsOf: (step.pointee.exits.split(separator: ";").first ?? "").utf8)
                case .exitNumber: InstructionTemplates.append(ordinal(step.pointee.maneuver.exit ?? 1), to: &out)
                case .rotaryName: InstructionTemplates.append(step.pointee.rotaryName ?? "", to: &out)
                case .modifier: InstructionTemplates.append(modifierWords[m], to: &out)
                case .direction: InstructionTemplates.append(direction(step.pointee.maneuver.bearingAfter), to: &out)
                case .nth: if legIndex >= 0
                    && legIndex != legCount - 1 { InstructionTemplates.append(ordinal(legIndex + 1), to: &out) }
                case .waypointName: InstructionTemplates.append(waypointName ?? "", to: &out)
                case .laneInstruction: InstructionTemplates.append(keep ?? "", to: &out)
                }
            }
        }
        return InstructionTemplates.sentence(&out)
    }

    /// "ref: name" of the first destination, as osrm-text-instructions does: the first piece
    /// (between commas, not empty) of the text before the first ": " and of the text after it, up
    /// to the next ": ". Found in bytes (`:`, `,` and the space are ASCII).
    private static func appendFirstDestination(_ destinations: String, to out: inout [UInt8]) {
        let b = Array(destinations.utf8)
        let cut = separator(in: b, from: 0)
        let ref = firstPiece(of: b, in: 0..<cut)
        let name = cut < b.count ? firstPiece(of: b, in: (cut + 2)..<separator(in: b, from: cut + 2)) : cut..<cut
        out.append(contentsOf: b[ref])
        if !ref.isEmpty && !name.isEmpty { out.append(contentsOf: [UInt8(ascii: ":"), UInt8(ascii: " ")]) }
        out.append(contentsOf: b[name])
    }

    /// Where the first ": " at or after `start` begins (`b.count` when there is none).
    private static func separator(in b: [UInt8], from start: Int) -> Int {
        var i = start
        while i + 1 < b.count {
            if b[i] == UInt8(ascii: ":") && b[i + 1] == UInt8(ascii: " ") { return i }
            i += 1
        }
        return b.count
    }

    /// The first piece between commas in `range` that is not empty (empty at its end when none is).
    private static func firstPiece(of b: [UInt8], in range: Range<Int>) -> Range<Int> {
        var start = range.lowerBound
        while start < range.upperBound {
            var end = start
            while end < range.upperBound && b[end] != UInt8(ascii: ",") { end += 1 }
            if end > start { return start..<end }
            start = end + 1
        }
        return range.upperBound..<range.upperBound
    }

    /// The road as a driver reads it (``InstructionLanguage/wayName(_:)``).
    public func wayName(_ step: RouteStep) -> String { withUnsafePointer(to: step) { wayName(at: $0) } }

    private func wayName(at step: UnsafePointer<RouteStep>) -> String {
        if step.pointee.ref.isEmpty { return step.pointee.name }
        // The first ref of the list without leading spaces, found in bytes (`;` and spaces are ASCII;
        // read from the string's own storage, not through its index type).
        var whole = step.pointee.ref
        let ref = whole.withUTF8 { bytes in
            let end = bytes.firstIndex(of: UInt8(ascii: ";")) ?? bytes.count
            var start = 0
            while start < end && bytes[start] == UInt8(ascii: " ") { start += 1 }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        }
        var name = step.pointee.name
        if name == step.pointee.ref { name = "" }
        if name.utf8.last == UInt8(ascii: ")"), name.hasSuffix(" (\(step.pointee.ref))") {
            name = String(name.dropLast(step.pointee.ref.count + 3))
        }
        let motorway = step.pointee.highway == .motorway
        if !name.isEmpty && !ref.isEmpty && name != ref && !motorway {
            var out: [UInt8] = []
            out.reserveCapacity(name.utf8.count + ref.utf8.count + 8)
            for part in nameAndRef {
                switch part {
                case let .text(bytes): out.append(contentsOf: bytes)
                case .name: InstructionTemplates.append(name, to: &out)
                case .ref: InstructionTemplates.append(ref, to: &out)
                }
            }
            return InstructionTemplates.sentence(&out)
        }
        if !name.isEmpty && !ref.isEmpty && motorway && InstructionTemplates.hasNumber(ref) { return ref }
        if name.isEmpty && !ref.isEmpty { return ref }
        return name
    }

    /// Whether `text` holds a number (`Character.isNumber`): an ASCII digit answers at once, and
    /// text of ASCII only has no other (reading characters costs far more than reading bytes).
    static func hasNumber(_ text: String) -> Bool {
        var ascii = true
        for byte in text.utf8 {
            if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") { return true }
            if byte >= 0x80 { ascii = false }
        }
        return !ascii && text.contains(where: \.isNumber)
    }

    func ordinal(_ n: Int) -> String {
        n >= 1 && n <= ordinals.count ? ordinals[n - 1] : "\(n)."
    }

    /// osrm-text-instructions' compass sectors (north is 340°–20°, east 70°–110°, …).
    func direction(_ degrees: Int) -> String {
        let d = ((degrees % 360) + 360) % 360
        let sector: Int
        switch d {
        case 0...20, 340...360: sector = 0
        case 21..<70: sector = 1
        case 70...110: sector = 2
        case 111..<160: sector = 3
        case 160...200: sector = 4
        case 201..<250: sector = 5
        case 250...290: sector = 6
        default: sector = 7
        }
        return directions[sector]
    }

    /// Appends `text`'s bytes, copied from its storage at once (through its UTF-8 view's generic
    /// sequence, byte by byte, each cost a couple of hundred instructions).
    @inline(__always)
    static func append(_ text: String, to out: inout [UInt8]) {
        var text = text
        text.withUTF8 { out.append(contentsOf: $0) }
    }

    /// Whether two spaces follow each other in `b`.
    private static func hasDoubleSpace(_ b: UnsafeMutableBufferPointer<UInt8>) -> Bool {
        guard let base = UnsafeRawPointer(b.baseAddress) else { return false }
        let space = SIMD16<UInt8>(repeating: 32)
        var i = 0
        while i + 17 <= b.count {
            let here = base.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self)
            let next = base.loadUnaligned(fromByteOffset: i + 1, as: SIMD16<UInt8>.self)
            if any((here .== space) .& (next .== space)) { return true }
            i += 16
        }
        while i + 1 < b.count {
            if b[i] == 32 && b[i + 1] == 32 { return true }
            i += 1
        }
        return false
    }

    /// The filled bytes as a sentence: one space at most between words, none at either end (an
    /// empty token leaves one), the first letter capitalised.
    private static func sentence(_ out: inout [UInt8]) -> String {
        // (Made from the buffer in place: trimming the array first copied it through the
        // standard library's generic range replacement.)
        out.withUnsafeMutableBufferPointer { b in
            var kept = b.count
            // Most sentences have no space to drop: found sixteen bytes at a time.
            if b.count > 0 && (b[0] == 32 || b[b.count - 1] == 32 || hasDoubleSpace(b)) {
                kept = 0
                for i in b.indices where !(b[i] == 32 && (kept == 0 || b[kept - 1] == 32)) {
                    b[kept] = b[i]
                    kept += 1
                }
                if kept > 0 && b[kept - 1] == 32 { kept -= 1 }
            }
            guard kept > 0 else { return "" }
            let first = b[0]
            if first >= UInt8(ascii: "a"), first <= UInt8(ascii: "z") { b[0] = first - 32 }
            let text = String(decoding: UnsafeBufferPointer(rebasing: b[..<kept]), as: UTF8.self)
            if first >= 0x80, let letter = text.first, letter.isLowercase {
                return letter.uppercased() + text.dropFirst()
            }
            return text
        }
    }
}


extension InstructionLanguage {
    private static func turnTable(_ verb: String, onto: String = "onto") -> Variants {
        ["default": verb, "name": "\(verb) \(onto) {way_name}", "destination": "\(verb) towards {destination}"]
    }

    /// English, worded as osrm-text-instructions' v5 table, with two phrasings the issue asked for
    /// ("At the roundabout, take the 2nd exit onto …", "Continue left to stay on …").
    public static let english: InstructionLanguage = {
        let sides = ["left", "right"]
        var turns: [String: [String: Variants]] = [:]
        turns["depart"] = ["default": ["default": "Head {direction}", "name": "Head {direction} on {way_name}"]]
        turns["turn"] = [
            "default": turnTable("Make a {modifier}"),
            "left": turnTable("Turn left"), "right": turnTable("Turn right"), "straight": turnTable("Go straight"),
            "uturn": turnTable("Make a U-turn"),
        ]
        // "… to stay on {way_name}": continuing on the road already driven.
        func stay(_ verb: String) -> Variants {
            ["default": verb, "name": "\(verb) to stay on {way_name}", "destination": "\(verb) towards {destination}"]
        }
        turns["continue"] = [
            "default": stay("Continue {modifier}"),
            "straight": stay("Continue straight").merging(["destination": "Continue towards {destination}"]) { $1 },
            "uturn": ["default": "Make a U-turn", "name": "Make a U-turn and continue on {way_name}",
                      "destination": "Make a U-turn towards {destination}"],
        ]
        for side in sides {
            for m in ["sharp \(side)", "slight \(side)"] { turns["continue"]![m] = stay("Make a \(m)") }
        }
        turns["new name"] = [
            "default": turnTable("Continue {modifier}"),
            "straight": ["default": "Continue straight", "name": "Continue onto {way_name}",
                         "destination": "Continue towards {destination}"],
            "sharp left": turnTable("Take a sharp left"), "sharp right": turnTable("Take a sharp right"),
            "slight left": turnTable("Continue slightly left"), "slight right": turnTable("Continue slightly right"),
            "uturn": turnTable("Make a U-turn"),
        ]
        turns["notification"] = ["default": turnTable("Continue {modifier}"), "uturn": turnTable("Make a U-turn")]
        turns["end of road"] = [
            "default": turnTable("Turn {modifier}"),
            "straight": turnTable("Continue straight"),
            "uturn": ["default": "Make a U-turn at the end of the road",
                      "name": "Make a U-turn onto {way_name} at the end of the road",
                      "destination": "Make a U-turn towards {destination} at the end of the road"],
        ]
        turns["fork"] = [
            "default": turnTable("Keep {modifier} at the fork")
                .merging(["name": "Keep {modifier} onto {way_name}",
                          "destination": "Keep {modifier} towards {destination}"]) { $1 },
            "slight left": ["default": "Keep left at the fork", "name": "Keep left onto {way_name}",
                            "destination": "Keep left towards {destination}"],
            "slight right": ["default": "Keep right at the fork", "name": "Keep right onto {way_name}",
                             "destination": "Keep right towards {destination}"],
            "sharp left": turnTable("Take a sharp left").merging(["default": "Take a sharp left at the fork"]) { $1 },
            "sharp right": turnTable("Take a sharp right")
                .merging(["default": "Take a sharp right at the fork"]) { $1 },
            "uturn": turnTable("Make a U-turn"),
        ]
        turns["merge"] = [
            "default": turnTable("Merge {modifier}"), "straight": turnTable("Merge"),
            "slight left": turnTable("Merge left"), "slight right": turnTable("Merge right"),
            "sharp left": turnTable("Merge left"), "sharp right": turnTable("Merge right"),
            "uturn": turnTable("Make a U-turn"),
        ]
        var onRamp: [String: Variants] = ["default": turnTable("Take the ramp")]
        var offRamp: [String: Variants] = [
            "default": turnTable("Take the ramp").merging([
                "exit": "Take exit {exit}",
                "exit_destination": "Take exit {exit} towards {destination}"
            ]) { $1 }
        ]
        for side in sides {
            for m in [side, "sharp \(side)", "slight \(side)"] {
                onRamp[m] = turnTable("Take the ramp on the \(side)")
                offRamp[m] = turnTable("Take the ramp on the \(side)").merging([
                    "exit": "Take exit {exit} on the \(side)",
                    "exit_destination": "Take exit {exit} on the \(side) towards {destination}"
                ]) { $1 }
            }
        }
        turns["on ramp"] = onRamp
        turns["off ramp"] = offRamp
        turns["roundabout turn"] = [
            "default": turnTable("Make a {modifier}"),
            "left": turnTable("Turn left"), "right": turnTable("Turn right"),
            "straight": turnTable("Continue straight"),
        ]
        turns["exit roundabout"] = ["default": turnTable("Exit the roundabout")]
        turns["exit rotary"] = ["default": turnTable("Exit the roundabout")]
        turns["use lane"] = ["default": ["default": "Continue straight", "lanes": "{lane_instruction}"]]
        let roundabout: [String: Variants] = [
            "default": ["default": "Enter the roundabout", "name": "Enter the roundabout and exit onto {way_name}",
                        "destination": "Enter the roundabout and exit towards {destination}"],
            "exit": ["default": "At the roundabout, take the {exit_number} exit",
                     "name": "At the roundabout, take the {exit_number} exit onto {way_name}",
                     "destination": "At the roundabout, take the {exit_number} exit towards {destination}"],
            "name": ["default": "Enter {rotary_name}", "name": "Enter {rotary_name} and exit onto {way_name}",
                     "destination": "Enter {rotary_name} and exit towards {destination}"],
            "name_exit": ["default": "At {rotary_name}, take the {exit_number} exit",
                          "name": "At {rotary_name}, take the {exit_number} exit onto {way_name}",
                          "destination": "At {rotary_name}, take the {exit_number} exit towards {destination}"],
        ]
        var arrive: [String: Variants] = [
            "default": ["default": "You have arrived at your {nth} destination",
                        "named": "You have arrived at {waypoint_name}"],
            "straight": ["default": "You have arrived at your {nth} destination, straight ahead",
                         "named": "You have arrived at {waypoint_name}, straight ahead"],
        ]
        for side in sides {
            for m in [side, "sharp \(side)", "slight \(side)"] {
                arrive[m] = ["default": "You have arrived at your {nth} destination, on the \(side)",
                             "named": "You have arrived at {waypoint_name}, on the \(side)"]
            }
        }
        var english = InstructionLanguage(
            code: "en", turns: turns, roundabouts: ["roundabout": roundabout, "rotary": roundabout], arrive: arrive,
            ferry: ["default": "Take the ferry", "name": "Take the ferry {way_name}",
                    "destination": "Take the ferry towards {destination}"],
            ordinals: ["1st", "2nd", "3rd", "4th", "5th", "6th", "7th", "8th", "9th", "10th"],
            modifiers: ["left": "left", "right": "right", "sharp left": "sharp left", "sharp right": "sharp right",
                        "slight left": "slight left", "slight right": "slight right",
                        "straight": "straight", "uturn": "U-turn"],
            directions: ["north", "northeast", "east", "southeast", "south", "southwest", "west", "northwest"],
            nameAndRef: "{name} ({ref})")
        english.lanes = ["left": "Keep left", "right": "Keep right", "middle": "Keep in the middle",
                         "left or right": "Keep left or right"]
        return english
    }()
}
