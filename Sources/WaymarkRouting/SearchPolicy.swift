import WaymarkGraph
import WaymarkPreparation
import WaymarkGuidance
import WaymarkQueries
// Which search a map uses for the work it is given, and the limits and notes every front end
// (the command line, the server, an app) takes from the library rather than deciding for itself.

extension RoadMap {
    /// What a map will be asked: the library chooses its search from it (``searchMethod(for:)``).
    public enum Workload: Sendable, Equatable {
        /// One route, or a few.
        case fewRoutes
        /// Many queries over the one map: a batch of routes, a server.
        case manyQueries
        /// One table of this many source–destination pairs.
        case table(pairs: Int)
    }

    /// The most source–destination pairs a map without a hierarchy routes one by one (A*, a few
    /// milliseconds each on a city, a tenth of a second across a region) rather than contracting
    /// a hierarchy first (seconds on a city, minutes on a country).
    public static let pairsWithoutHierarchy = 100

    /// The search for a workload. Every search is exact; they differ in what they prepare. A few
    /// routes use a stored hierarchy or else A*, which prepares nothing; many queries, or a table
    /// past ``pairsWithoutHierarchy`` pairs, contract a hierarchy where none is stored, as it
    /// answers in a fraction of a millisecond once made.
    public static func searchMethod(for workload: Workload) -> SearchMethod {
        switch workload {
        case .fewRoutes: .automatic
        case .manyQueries: .hierarchy
        case let .table(pairs): pairs <= pairsWithoutHierarchy ? .automatic : .hierarchy
        }
    }

    /// How a graph file is held for a workload: read whole into large pages for many queries,
    /// whose searches and guidance jump across the whole map (faster answers, for tens of
    /// milliseconds more at the start); mapped for a route or a table, which touch little of it.
    public static func memory(for workload: Workload) -> FileMemory {
        workload == .manyQueries ? .resident : .mapped
    }
}

extension RoadMap.SearchMethod: CustomStringConvertible {
    /// The search's name as a person reads it ("hierarchy", "landmarks", "A*").
    public var description: String {
        switch self {
        case .automatic: "automatic"
        case .hierarchy: "hierarchy"
        case .landmarks: "landmarks"
        case .aStar: "A*"
        }
    }
}

extension RoadMap.Preparation {
    /// What a person using the map should be told about its preparation, one line each (empty
    /// when all went as asked).
    public var notes: [String] {
        guard let hierarchyRefused else { return [] }
        return ["note: no contraction hierarchy (\(hierarchyRefused)); routing with landmarks"]
    }
}

extension Isochrone {
    /// The times a request may ask for, in minutes: the Mapbox Isochrone API's, which the command
    /// line and the server both take.
    public static let minutesRange: ClosedRange<Double> = 1...60
    /// The most times a request may ask for (the Mapbox Isochrone API's four contours).
    public static let maximumContours = 4
    /// The times the search itself takes, for an app that wants shorter or longer ones: over 0
    /// and at most a day, any number of them.
    public static let searchMinutes: ClosedRange<Double> = Double.leastNonzeroMagnitude...(24 * 60)

    /// Why `minutes` cannot be asked for, or nil: at least one time and at most `maximumCount`,
    /// each within `range`, each once.
    public static func problem(minutes: [Double], within range: ClosedRange<Double> = minutesRange,
                               maximumCount: Int = maximumContours) -> String? {
        if minutes.isEmpty { return "an isochrone needs at least one time" }
        if minutes.count > maximumCount { return "at most \(maximumCount) times" }
        if let bad = minutes.first(where: { !range.contains($0) }) {
            let (low, high) = (range.lowerBound.minutesText, range.upperBound.minutesText)
            return "\(bad.minutesText) is not a time from \(low) to \(high) minutes"
        }
        if Set(minutes).count != minutes.count { return "each time once" }
        return nil
    }
}

private extension Double {
    /// Whole minutes without a decimal point (any other value as Swift prints it: NaN, infinity,
    /// huge ones); 0 for the search's open lower end.
    var minutesText: String {
        if self == Double.leastNonzeroMagnitude { return "0" }
        return abs(self) < 1e15 && self == rounded() ? String(Int(self)) : String(self)
    }
}
