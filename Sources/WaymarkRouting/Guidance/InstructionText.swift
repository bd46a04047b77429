import Foundation
import WaymarkGraph

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
    /// carrying `destinations` or `exits` uses them as osrm-text-instructions does.
    public func instruction(for step: RouteStep, legIndex: Int, legCount: Int, waypointName: String? = nil) -> String {
        let type = step.maneuver.type.rawValue
        let modifier = step.maneuver.modifier?.rawValue ?? "default"
        var variants: Variants
        if step.mode == .ferry && step.maneuver.type != .arrive {
            variants = ferry
        } else if step.maneuver.type == .arrive {
            variants = arrive[modifier] ?? arrive["default"]!
        } else if let table = roundabouts[type] {
            let key = step.rotaryName != nil ? (step.maneuver.exit != nil ? "name_exit" : "name") : (step.maneuver.exit != nil ? "exit" : "default")
            variants = table[key] ?? table["default"]!
        } else {
            let table = turns[type] ?? turns["turn"]!
            let omitSide = step.maneuver.type == .offRamp && modifier.hasSuffix(step.drivingSide == .left ? "left" : "right")
            variants = (!omitSide ? table[modifier] : nil) ?? table["default"]!
        }
        let wayName = self.wayName(step)
        let keep = step.maneuver.type == .useLane ? TurnLanes.keep(step.intersections.first?.lanes ?? []).flatMap { lanes[$0] } : nil
        let template: String
        if keep != nil, let t = variants["lanes"] {
            template = t
        } else if !step.destinations.isEmpty && !step.exits.isEmpty, let t = variants["exit_destination"] {
            template = t
        } else if !step.destinations.isEmpty, let t = variants["destination"] {
            template = t
        } else if !step.exits.isEmpty, let t = variants["exit"] {
            template = t
        } else if !wayName.isEmpty, let t = variants["name"] {
            template = t
        } else if waypointName != nil, let t = variants["named"] {
            template = t
        } else {
            template = variants["default"] ?? ""
        }
        // "ref: name" of the first destination, as osrm-text-instructions does.
        let parts = step.destinations.isEmpty ? [] : step.destinations.split(separator: ": ", omittingEmptySubsequences: false)
        let destinationRef = parts.first.map { String($0.split(separator: ",").first ?? "") } ?? ""
        let destinationName = parts.count > 1 ? String(parts[1].split(separator: ",").first ?? "") : ""
        let destination = !destinationRef.isEmpty && !destinationName.isEmpty ? "\(destinationRef): \(destinationName)"
            : (destinationRef.isEmpty ? destinationName : destinationRef)
        let nth = legIndex >= 0 && legIndex != legCount - 1 ? ordinal(legIndex + 1) : ""
        // A nested function, not a closure value: a closure would copy the whole language (its
        // tables) into its context on every step.
        func tokens(_ key: String) -> String? {
            switch key {
            case "way_name": wayName
            case "destination": destination
            case "exit": String(step.exits.split(separator: ";").first ?? "")
            case "exit_number": ordinal(step.maneuver.exit ?? 1)
            case "rotary_name": step.rotaryName ?? ""
            case "modifier": modifiers[modifier] ?? modifier
            case "direction": direction(step.maneuver.bearingAfter)
            case "nth": nth
            case "waypoint_name": waypointName ?? ""
            case "lane_instruction": keep ?? ""
            default: nil
            }
        }
        return fill(template, tokens)
    }

    /// The road as a driver reads it: "Name (ref)", the ref alone on motorways or unnamed roads,
    /// the first ref of a list ("IC 1;IC 23" → "IC 1").
    public func wayName(_ step: RouteStep) -> String {
        let firstRef = step.ref.firstIndex(of: ";").map { step.ref[..<$0] } ?? Substring(step.ref)
        let ref = String(firstRef.drop { $0 == " " })
        var name = step.name
        if name == step.ref { name = "" }
        if !step.ref.isEmpty, name.utf8.last == UInt8(ascii: ")"), name.hasSuffix(" (\(step.ref))") { name = String(name.dropLast(step.ref.count + 3)) }
        let motorway = step.highway == .motorway
        if !name.isEmpty && !ref.isEmpty && name != ref && !motorway {
            return fill(nameAndRef) { $0 == "name" ? name : ($0 == "ref" ? ref : nil) }
        }
        if !name.isEmpty && !ref.isEmpty && motorway && ref.contains(where: \.isNumber) { return ref }
        if name.isEmpty && !ref.isEmpty { return ref }
        return name
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

    /// The template with its tokens replaced (unknown tokens stay), double spaces made single
    /// (an empty token leaves one), the first letter capitalised.
    private func fill(_ template: String, _ tokens: (String) -> String?) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(template.utf8.count + 48)
        var template = template
        template.withUTF8 { t in
            var i = 0
            while i < t.count {
                if t[i] == UInt8(ascii: "{"), let close = t[i...].firstIndex(of: UInt8(ascii: "}")) {
                    if let value = tokens(String(decoding: t[(i + 1)..<close], as: UTF8.self)) {
                        out.append(contentsOf: value.utf8)
                    } else {
                        out.append(contentsOf: t[i...close])
                    }
                    i = close + 1
                } else {
                    out.append(t[i])
                    i += 1
                }
            }
        }
        // One space at most between words, none at either end (an empty token leaves one).
        var kept = 0
        for i in out.indices where !(out[i] == 32 && (kept == 0 || out[kept - 1] == 32)) {
            out[kept] = out[i]
            kept += 1
        }
        if kept > 0 && out[kept - 1] == 32 { kept -= 1 }
        out.removeSubrange(kept...)
        if let first = out.first, first >= UInt8(ascii: "a"), first <= UInt8(ascii: "z") {
            out[0] = first - 32
            return String(decoding: out, as: UTF8.self)
        }
        let text = String(decoding: out, as: UTF8.self)
        if let first = text.first, first.utf8.count > 1, first.isLowercase { return first.uppercased() + text.dropFirst() }
        return text
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
            "straight": ["default": "Continue straight", "name": "Continue onto {way_name}", "destination": "Continue towards {destination}"],
            "sharp left": turnTable("Take a sharp left"), "sharp right": turnTable("Take a sharp right"),
            "slight left": turnTable("Continue slightly left"), "slight right": turnTable("Continue slightly right"),
            "uturn": turnTable("Make a U-turn"),
        ]
        turns["notification"] = ["default": turnTable("Continue {modifier}"), "uturn": turnTable("Make a U-turn")]
        turns["end of road"] = [
            "default": turnTable("Turn {modifier}"),
            "straight": turnTable("Continue straight"),
            "uturn": ["default": "Make a U-turn at the end of the road", "name": "Make a U-turn onto {way_name} at the end of the road",
                      "destination": "Make a U-turn towards {destination} at the end of the road"],
        ]
        turns["fork"] = [
            "default": turnTable("Keep {modifier} at the fork").merging(["name": "Keep {modifier} onto {way_name}",
                                                                          "destination": "Keep {modifier} towards {destination}"]) { $1 },
            "slight left": ["default": "Keep left at the fork", "name": "Keep left onto {way_name}", "destination": "Keep left towards {destination}"],
            "slight right": ["default": "Keep right at the fork", "name": "Keep right onto {way_name}", "destination": "Keep right towards {destination}"],
            "sharp left": turnTable("Take a sharp left").merging(["default": "Take a sharp left at the fork"]) { $1 },
            "sharp right": turnTable("Take a sharp right").merging(["default": "Take a sharp right at the fork"]) { $1 },
            "uturn": turnTable("Make a U-turn"),
        ]
        turns["merge"] = [
            "default": turnTable("Merge {modifier}"), "straight": turnTable("Merge"),
            "slight left": turnTable("Merge left"), "slight right": turnTable("Merge right"),
            "sharp left": turnTable("Merge left"), "sharp right": turnTable("Merge right"), "uturn": turnTable("Make a U-turn"),
        ]
        var onRamp: [String: Variants] = ["default": turnTable("Take the ramp")]
        var offRamp: [String: Variants] = ["default": turnTable("Take the ramp").merging(["exit": "Take exit {exit}",
                                                                                         "exit_destination": "Take exit {exit} towards {destination}"]) { $1 }]
        for side in sides {
            for m in [side, "sharp \(side)", "slight \(side)"] {
                onRamp[m] = turnTable("Take the ramp on the \(side)")
                offRamp[m] = turnTable("Take the ramp on the \(side)").merging(["exit": "Take exit {exit} on the \(side)",
                                                                                "exit_destination": "Take exit {exit} on the \(side) towards {destination}"]) { $1 }
            }
        }
        turns["on ramp"] = onRamp
        turns["off ramp"] = offRamp
        turns["roundabout turn"] = [
            "default": turnTable("Make a {modifier}"),
            "left": turnTable("Turn left"), "right": turnTable("Turn right"), "straight": turnTable("Continue straight"),
        ]
        turns["exit roundabout"] = ["default": turnTable("Exit the roundabout")]
        turns["exit rotary"] = ["default": turnTable("Exit the roundabout")]
        turns["use lane"] = ["default": ["default": "Continue straight", "lanes": "{lane_instruction}"]]
        let roundabout: [String: Variants] = [
            "default": ["default": "Enter the roundabout", "name": "Enter the roundabout and exit onto {way_name}",
                        "destination": "Enter the roundabout and exit towards {destination}"],
            "exit": ["default": "At the roundabout, take the {exit_number} exit", "name": "At the roundabout, take the {exit_number} exit onto {way_name}",
                     "destination": "At the roundabout, take the {exit_number} exit towards {destination}"],
            "name": ["default": "Enter {rotary_name}", "name": "Enter {rotary_name} and exit onto {way_name}",
                     "destination": "Enter {rotary_name} and exit towards {destination}"],
            "name_exit": ["default": "At {rotary_name}, take the {exit_number} exit", "name": "At {rotary_name}, take the {exit_number} exit onto {way_name}",
                          "destination": "At {rotary_name}, take the {exit_number} exit towards {destination}"],
        ]
        var arrive: [String: Variants] = [
            "default": ["default": "You have arrived at your {nth} destination", "named": "You have arrived at {waypoint_name}"],
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
            ferry: ["default": "Take the ferry", "name": "Take the ferry {way_name}", "destination": "Take the ferry towards {destination}"],
            ordinals: ["1st", "2nd", "3rd", "4th", "5th", "6th", "7th", "8th", "9th", "10th"],
            modifiers: ["left": "left", "right": "right", "sharp left": "sharp left", "sharp right": "sharp right",
                        "slight left": "slight left", "slight right": "slight right", "straight": "straight", "uturn": "U-turn"],
            directions: ["north", "northeast", "east", "southeast", "south", "southwest", "west", "northwest"],
            nameAndRef: "{name} ({ref})")
        english.lanes = ["left": "Keep left", "right": "Keep right", "middle": "Keep in the middle", "left or right": "Keep left or right"]
        return english
    }()
}
