import Foundation
import Waymark

// `waymark`: a thin command line over the Waymark library. It parses arguments, calls the
// library and prints. Exit codes: 0 success, 1 failure, 64 usage error (EX_USAGE).

let commands: [(spec: CommandSpec, run: (ParsedArguments) throws(CLIError) -> Void)] = [
    (FitCommand.spec, FitCommand.run),
    (AnnotationsCommand.spec, AnnotationsCommand.run),
    (ClusterCommand.spec, ClusterCommand.run),
    (RouteCommand.spec, RouteCommand.run),
    (BuildCommand.spec, BuildCommand.run),
    (CustomizeCommand.spec, CustomizeCommand.run),
    (InspectCommand.spec, InspectCommand.run),
    (CalloutCommand.spec, CalloutCommand.run),
    (RenderCommand.spec, RenderCommand.run),
    (PlaceCommand.spec, PlaceCommand.run),
    (TableCommand.spec, TableCommand.run),
    (TripCommand.spec, TripCommand.run),
    (MatchCommand.spec, MatchCommand.run),
    (IsochroneCommand.spec, IsochroneCommand.run),
    (ServeCommand.spec, ServeCommand.run),
]

let commandLines = commands.map {
    "  " + $0.spec.name.padding(toLength: 13, withPad: " ", startingAt: 0) + $0.spec.summary
}

let generalHelp = """
waymark \(waymarkVersion) — a Swift geospatial engine: viewport fitting, GeoJSON, OpenStreetMap.

Usage: waymark <command> [arguments] [options]

Commands:
\(commandLines.joined(separator: "\n"))

Options:
  --help       Show this help; 'waymark <command> --help' shows a command's.
  --version    Print the version.

Exit status: 0 success, 1 failure, 64 usage error.

"""

func exitWithUsageError(_ message: String, command: String?) -> Never {
    let prefix = command.map { "waymark \($0)" } ?? "waymark"
    let hint = command.map { "see 'waymark \($0) --help'" } ?? "see 'waymark --help'"
    Output.error("\(prefix): error: \(message.escapingControlCharacters) (\(hint))")
    exit(64)
}

/// Where results go (`-o` and every other file a command writes) is checked before the work.
func checkOutputs(_ parsed: ParsedArguments, _ spec: CommandSpec) throws(CLIError) {
    for option in spec.options where option.writes {
        guard let path = parsed.value(option.name) else { continue }
        do { try AtomicFile.checkWritable(path) } catch { throw .failure("\(error)") }
    }
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard let first = arguments.first else {
    Output.error(generalHelp)
    exit(64)
}
switch first {
case "--help", "-h", "help":
    if first == "help", arguments.count > 1, let command = commands.first(where: { $0.spec.name == arguments[1] }) {
        Output.write(command.spec.help)
    } else {
        Output.write(generalHelp)
    }
    exit(0)
case "--version":
    Output.write("waymark \(waymarkVersion)\n")
    exit(0)
default:
    break
}
guard let command = commands.first(where: { $0.spec.name == first }) else {
    let names = commands.map(\.spec.name).joined(separator: ", ")
    exitWithUsageError("unknown command '\(first)' (commands: \(names))", command: nil)
}
do {
    let parsed = try ParsedArguments(Array(arguments.dropFirst()), spec: command.spec)
    if parsed.helpRequested {
        Output.write(command.spec.help)
        exit(0)
    }
    try checkOutputs(parsed, command.spec)
    try command.run(parsed)
    exit(0)
} catch {
    switch error {
    case let .usage(message): exitWithUsageError(message, command: command.spec.name)
    case let .failure(message):
        Output.error("waymark \(command.spec.name): error: \(message.escapingControlCharacters)")
        exit(1)
    }
}
