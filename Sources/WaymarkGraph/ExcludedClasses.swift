/// Classes of road a route may be asked to keep off, as car.lua makes them excludable and OSRM's
/// `exclude` names them: `toll` (toll=yes), `motorway` (motorways and their links), `ferry`.
public struct ExcludedClasses: OptionSet, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let toll = ExcludedClasses(rawValue: 1 << 0)
    public static let motorway = ExcludedClasses(rawValue: 1 << 1)
    public static let ferry = ExcludedClasses(rawValue: 1 << 2)

    /// Each class and its name, in car.lua's order.
    public static let named: [(ExcludedClasses, String)] = [(.toll, "toll"), (.motorway, "motorway"), (.ferry, "ferry")]

    /// The names as OSRM's `exclude` takes them (comma-separated: `toll,motorway`), or the first
    /// name that is no excludable class.
    public static func parse(_ text: String) -> Result<ExcludedClasses, UnknownClass> {
        var classes: ExcludedClasses = []
        for name in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard let (c, _) = named.first(where: { $0.1 == name }) else {
                return .failure(UnknownClass(name: String(name)))
            }
            classes.insert(c)
        }
        return .success(classes)
    }

    /// A name `exclude` does not know.
    public struct UnknownClass: Error, Sendable, CustomStringConvertible {
        public var name: String
        public var description: String {
            "'\(name)' is not a class that can be excluded (toll, motorway, ferry)"
        }
    }

    /// How many classes the set holds.
    public var count: Int { rawValue.nonzeroBitCount }

    /// The names, comma-separated, in car.lua's order.
    public var description: String { Self.named.filter { contains($0.0) }.map(\.1).joined(separator: ",") }
}

extension RoadGraph {
    /// Whether driving along `edge` is of one of `classes` (car.lua's `classes`).
    @inlinable
    public func isOf(_ classes: ExcludedClasses, edge: Int) -> Bool {
        if classes.isEmpty { return false }
        let flags = flags(of: edge)
        if classes.contains(.toll) && flags.contains(.toll) { return true }
        if classes.contains(.ferry) && flags.contains(.ferry) { return true }
        if classes.contains(.motorway) {
            let highway = highway(of: edge)
            if highway == .motorway || highway == .motorwayLink { return true }
        }
        return false
    }

    /// The excludable classes some edge of the map is of.
    public var excludableClassesPresent: ExcludedClasses {
        var present: ExcludedClasses = []
        for e in 0..<edgeCount {
            for (c, _) in ExcludedClasses.named where !present.contains(c) && isOf(c, edge: e) { present.insert(c) }
            if present.count == ExcludedClasses.named.count { break }
        }
        return present
    }
}
