import Foundation
import Waymark

/// What went wrong on the command line, and how `waymark` exits for it.
enum CLIError: Error {
    /// Bad usage: exit 64 (EX_USAGE), message plus a pointer to `--help`.
    case usage(String)
    /// The command ran and failed: exit 1.
    case failure(String)
}

/// One option a command accepts.
struct OptionSpec {
    /// The long name without dashes, e.g. `viewport` for `--viewport`.
    var name: String
    /// The placeholder for its value in help (`WIDTHxHEIGHT`); `nil` for a flag without a value.
    var value: String?
    var help: String
    var repeatable = false
    /// A one-letter alias, e.g. `o` for `-o`.
    var short: Character? = nil
    /// Its value names a file the command writes (checked before the command's work).
    var writes = false
}

/// A subcommand's interface: how help describes it and what it accepts.
struct CommandSpec {
    var name: String
    var summary: String
    /// Positional arguments as help shows them, e.g. `<annotations.geojson|.csv>`.
    var positionals: [String]
    var options: [OptionSpec]
    /// Extra paragraphs for `--help`.
    var discussion: String = ""

    var usageLine: String {
        var parts = ["waymark", name]
        parts += positionals
        parts.append("[options]")
        return parts.joined(separator: " ")
    }

    var help: String {
        var lines = ["\(summary)", "", "Usage: \(usageLine)", "", "Options:"]
        let all = options + [OptionSpec(name: "help", value: nil, help: "Show this help.")]
        let labels = all.map { o in
            "  " + (o.short.map { "-\($0), " } ?? "") + "--\(o.name)" + (o.value.map { " \($0)" } ?? "")
        }
        let width = (labels.map(\.count).max() ?? 0) + 2
        for (label, option) in zip(labels, all) {
            lines.append(label.padding(toLength: width, withPad: " ", startingAt: 0) + option.help)
        }
        if !discussion.isEmpty { lines += ["", discussion] }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// The parsed command line of one subcommand.
struct ParsedArguments {
    var positionals: [String] = []
    private(set) var values: [String: [String]] = [:]
    private(set) var flags: Set<String> = []
    var helpRequested = false

    /// Parses `arguments` against `spec`.
    ///
    /// - `--name value` and `--name=value` both work; the token after an option that takes a value
    ///   is always its value, even when it starts with a minus sign (`--from -33.9,151.2`).
    /// - `--` ends options; everything after it is positional.
    /// - A lone `-` is a positional (standard input); so is a token that reads as a number.
    init(_ arguments: [String], spec: CommandSpec) throws(CLIError) {
        var i = 0
        var onlyPositionals = false
        while i < arguments.count {
            let token = arguments[i]
            i += 1
            if onlyPositionals || !token.hasPrefix("-") || token == "-" || Double(token) != nil {
                positionals.append(token)
                continue
            }
            if token == "--" {
                onlyPositionals = true
                continue
            }
            if token == "--help" || token == "-h" {
                helpRequested = true
                continue
            }
            var body = token.dropFirst(2)
            if !token.hasPrefix("--") {
                // A short alias: -o FILE or -oFILE.
                let letter = token[token.index(after: token.startIndex)]
                guard let option = spec.options.first(where: { $0.short == letter }) else {
                    throw .usage("unknown option '\(token)'")
                }
                let rest = token.dropFirst(2)
                body = Substring(option.name + (rest.isEmpty ? "" : "=" + rest))
            }
            let name: String, inlineValue: String?
            if let eq = body.firstIndex(of: "=") {
                name = String(body[..<eq])
                inlineValue = String(body[body.index(after: eq)...])
            } else {
                name = String(body)
                inlineValue = nil
            }
            guard let option = spec.options.first(where: { $0.name == name }) else {
                let known = spec.options.map { "--\($0.name)" }.joined(separator: ", ")
                throw .usage("unknown option '--\(name)' for '\(spec.name)' (known: \(known))")
            }
            if let placeholder = option.value {
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else {
                    guard i < arguments.count else { throw .usage("--\(name) needs a value \(placeholder)") }
                    value = arguments[i]
                    i += 1
                }
                if values[name] != nil && !option.repeatable {
                    throw .usage("--\(name) given more than once")
                }
                values[name, default: []].append(value)
            } else {
                guard inlineValue == nil else { throw .usage("--\(name) takes no value") }
                flags.insert(name)
            }
        }
    }

    /// The option's value, if given.
    func value(_ name: String) -> String? { values[name]?.last }

    /// Every value of a repeatable option, in order.
    func allValues(_ name: String) -> [String] { values[name] ?? [] }

    func flag(_ name: String) -> Bool { flags.contains(name) }

    /// A finite number option, with `range` checked.
    func number(_ name: String, default fallback: Double,
                in range: ClosedRange<Double>? = nil) throws(CLIError) -> Double {
        guard let text = value(name) else { return fallback }
        guard let number = Double(text), number.isFinite else {
            throw .usage("--\(name) must be a number, not '\(text)'")
        }
        if let range, !range.contains(number) {
            throw .usage(
                "--\(name) must be within \(format(range.lowerBound))…\(format(range.upperBound)), not \(text)")
        }
        return number
    }

    /// One of a fixed set of words.
    /// A `LAT,LON` option (nil when absent); a bad one is a usage error naming the option.
    func coordinate(_ name: String) throws(CLIError) -> Coordinate? {
        guard let text = value(name) else { return nil }
        return try Self.coordinate(text, name)
    }

    /// Every value of a repeatable `LAT,LON` option, in order.
    func coordinates(_ name: String) throws(CLIError) -> [Coordinate] {
        var result: [Coordinate] = []
        for text in allValues(name) { result.append(try Self.coordinate(text, name)) }
        return result
    }

    private static func coordinate(_ text: String, _ name: String) throws(CLIError) -> Coordinate {
        do { return try Coordinate(parsing: text) } catch { throw .usage("--\(name): \(error)") }
    }

    func choice(_ name: String, _ choices: [String], default fallback: String) throws(CLIError) -> String {
        guard let text = value(name) else { return fallback }
        guard choices.contains(text) else {
            throw .usage("--\(name) must be one of \(choices.joined(separator: ", ")), not '\(text)'")
        }
        return text
    }

    /// Exactly `count` positionals, named in the error when missing.
    func requirePositionals(_ names: [String]) throws(CLIError) -> [String] {
        if positionals.count < names.count {
            throw .usage("missing \(names[positionals.count...].joined(separator: " "))")
        }
        if positionals.count > names.count {
            throw .usage("unexpected argument '\(positionals[names.count])'")
        }
        return positionals
    }
}

private func format(_ v: Double) -> String {
    v == v.rounded() && v.magnitude < 1e15 ? String(Int64(v)) : String(v)
}
