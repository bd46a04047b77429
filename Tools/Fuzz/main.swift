import Foundation

// `waymark-fuzz TARGET FILE…` runs each file through a fuzz target once (the regression fixtures
// in Tests/Fixtures/fuzz replay this way). Built with libFuzzer (Tools/fuzz.sh:
// `-sanitize=fuzzer,address -DWAYMARK_FUZZ`), `waymark-fuzz TARGET [libFuzzer options] [CORPUS…]`
// fuzzes the target.

let usage = "usage: waymark-fuzz (\(FuzzTarget.allCases.map(\.rawValue).joined(separator: "|"))) [FILE…]\n"
guard CommandLine.arguments.count >= 2, let target = FuzzTarget(rawValue: CommandLine.arguments[1]) else {
    FileHandle.standardError.write(Data(usage.utf8))
    exit(64)
}

#if WAYMARK_FUZZ
nonisolated(unsafe) var selected = target

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    selected.run(size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}

@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzer(_ argc: UnsafeMutablePointer<CInt>,
               _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
               _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt

// libFuzzer gets the arguments after the target's name.
var arguments: [UnsafeMutablePointer<CChar>?] =
    [strdup(CommandLine.arguments[0])] + CommandLine.arguments.dropFirst(2).map { strdup($0) } + [nil]
var count = CInt(arguments.count - 1)
let status = arguments.withUnsafeMutableBufferPointer { buffer in
    var pointer = buffer.baseAddress
    return runFuzzer(&count, &pointer, fuzzOne)
}
exit(status)
#else
for path in CommandLine.arguments.dropFirst(2) {
    guard let data = FileManager.default.contents(atPath: path) else {
        FileHandle.standardError.write(Data("waymark-fuzz: \(path): cannot be read\n".utf8))
        exit(1)
    }
    target.run(Array(data))
}
#endif
