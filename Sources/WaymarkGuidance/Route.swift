import Foundation
import WaymarkGeo
import WaymarkGraph
import WaymarkQueries
import WaymarkPreparation

/// What a maneuver does, in OSRM's words (the raw values are OSRM's `maneuver.type` strings).
public enum ManeuverType: String, Sendable, CaseIterable {
    case depart
    case arrive
    case turn
    case newName = "new name"
    case `continue`
    case merge
    case onRamp = "on ramp"
    case offRamp = "off ramp"
    case fork
    case endOfRoad = "end of road"
    case roundabout
    case rotary
    case roundaboutTurn = "roundabout turn"
    case exitRoundabout = "exit roundabout"
    case exitRotary = "exit rotary"
    case useLane = "use lane"
    case notification
}

/// Which way a maneuver goes, in OSRM's words (the raw values are OSRM's `maneuver.modifier`).
public enum ManeuverModifier: String, Sendable, CaseIterable {
    case uturn
    case sharpRight = "sharp right"
    case right
    case slightRight = "slight right"
    case straight
    case slightLeft = "slight left"
    case left
    case sharpLeft = "sharp left"

    /// Whether the maneuver bears left (slight, plain or sharp) or right; nil for straight and U-turns.
    public var side: String? {
        switch self {
        case .sharpRight, .right, .slightRight: "right"
        case .sharpLeft, .left, .slightLeft: "left"
        case .straight, .uturn: nil
        }
    }
}

// Each maneuver's number: graph files store it (in their turn verdicts) and instruction tables are
// laid out by it. Fixed, whatever order the cases are declared in: a new case takes the next
// unused number; none is ever renumbered.
extension ManeuverType {
    var storedNumber: Int {
        switch self {
        case .depart: 0
        case .arrive: 1
        case .turn: 2
        case .newName: 3
        case .continue: 4
        case .merge: 5
        case .onRamp: 6
        case .offRamp: 7
        case .fork: 8
        case .endOfRoad: 9
        case .roundabout: 10
        case .rotary: 11
        case .roundaboutTurn: 12
        case .exitRoundabout: 13
        case .exitRotary: 14
        case .useLane: 15
        case .notification: 16
        }
    }

    /// Every type at its stored number.
    static let byStoredNumber = allCases.sorted { $0.storedNumber < $1.storedNumber }
}

extension ManeuverModifier {
    var storedNumber: Int {
        switch self {
        case .uturn: 0
        case .sharpRight: 1
        case .right: 2
        case .slightRight: 3
        case .straight: 4
        case .slightLeft: 5
        case .left: 6
        case .sharpLeft: 7
        }
    }

    /// Every modifier at its stored number.
    static let byStoredNumber = allCases.sorted { $0.storedNumber < $1.storedNumber }
}

/// How a step is travelled (OSRM's `mode`).
public enum TravelMode: String, Sendable {
    case driving
    case cycling
    case walking
    case ferry
    case pushingBike = "pushing bike"
    case train

    /// The mode of a road travelled `mode`-wise on a graph for `travel`.
    public init(_ mode: WayMode, travel: TravelProfile) {
        switch mode {
        case .travel: self = travel == .car ? .driving : travel == .bicycle ? .cycling : .walking
        case .ferry: self = .ferry
        case .pushingBike: self = .pushingBike
        case .train: self = .train
        }
    }
}

/// A maneuver at the start of a step (OSRM's vocabulary).
public struct Maneuver: Sendable, Equatable {
    public var type: ManeuverType
    /// Nil for depart and arrive.
    public var modifier: ManeuverModifier?
    public var location: Coordinate
    /// Degrees clockwise from north, 0…359: the direction of travel before and after the maneuver.
    public var bearingBefore: Int
    public var bearingAfter: Int
    /// For roundabouts: the exit taken (1 = first).
    public var exit: Int?
}

/// OSRM's car classes of a road (car.lua's `classes`), as a set; ``names`` in the profile's order.
public struct TravelClasses: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let toll = TravelClasses(rawValue: 1 << 0)
    public static let motorway = TravelClasses(rawValue: 1 << 1)
    public static let ferry = TravelClasses(rawValue: 1 << 2)
    public static let restricted = TravelClasses(rawValue: 1 << 3)
    public static let tunnel = TravelClasses(rawValue: 1 << 4)

    /// Each class and its name, in the profile's order.
    public static let all: [(TravelClasses, StaticString)] = [(.toll, "toll"),
                                                              (.motorway, "motorway"), (.ferry, "ferry"),
                                                              (.restricted, "restricted"), (.tunnel, "tunnel")]
    /// The classes' names (`toll`, `motorway`, `ferry`, `restricted`, `tunnel`, in that order).
    public var names: [String] { TravelClasses.all.filter { contains($0.0) }.map { $0.1.description } }
}

/// A junction a step passes (its first is the maneuver's), as OSRM's `intersections` entries:
/// every road there by bearing, which may be entered, the road arrived by and the road taken.
public struct StepIntersection: Sendable, Equatable {
    /// One road at the junction: its bearing and whether the car may enter it.
    public struct Road: Sendable, Equatable {
        /// Degrees clockwise from north, measured a little way along the road.
        public var bearing: Int
        public var entry: Bool

        public init(bearing: Int, entry: Bool) {
            self.bearing = bearing
            self.entry = entry
        }
    }

    public var location: Coordinate
    /// The roads by bearing, ascending.
    public var roads: IntersectionRoads
    /// Degrees clockwise from north, ascending, measured a little way along each road (OSRM's
    /// `bearings`). Setting it keeps each road's `entry` by position (true for roads added).
    public var bearings: [Int] {
        get { roads.map(\.bearing) }
        set {
            roads = IntersectionRoads(newValue.enumerated().map {
                Road(bearing: $1, entry: $0 < roads.count ? roads[$0].entry : true)
            })
        }
    }
    /// Which roads may be entered (OSRM's `entry`). Setting it keeps each road's bearing by
    /// position (0 for roads added).
    public var entry: [Bool] {
        get { roads.map(\.entry) }
        set {
            roads = IntersectionRoads(newValue.enumerated().map {
                Road(bearing: $0 < roads.count ? roads[$0].bearing : 0, entry: $1)
            })
        }
    }
    /// Index into `bearings` of the road arrived by (nil where the route departs).
    public var inIndex: Int?
    /// Index into `bearings` of the road taken (nil where the route arrives).
    public var outIndex: Int?
    /// The lanes of the road arrived by, left to right, where it has turn lanes (else empty).
    public var lanes: [Lane] = []
    /// The classes of the road the route leaves by (OSRM's `classes`; empty where it has none,
    /// or where the route arrives).
    public var classes: TravelClasses = []

    /// An intersection from OSRM's two lists (`bearings` and `entry`, one entry per bearing).
    public init(location: Coordinate, bearings: [Int], entry: [Bool], inIndex: Int?, outIndex: Int?) {
        precondition(bearings.count == entry.count, "one entry flag per bearing")
        self.init(location: location, roads: zip(bearings, entry).map { Road(bearing: $0, entry: $1) },
                  inIndex: inIndex, outIndex: outIndex)
    }

    public init(location: Coordinate, roads: [Road], inIndex: Int?, outIndex: Int?, classes: TravelClasses = []) {
        self.init(location: location, roads: IntersectionRoads(roads), inIndex: inIndex, outIndex: outIndex,
                  classes: classes)
    }

    public init(location: Coordinate, roads: IntersectionRoads, inIndex: Int?, outIndex: Int?,
                classes: TravelClasses = []) {
        self.location = location
        self.roads = roads
        self.inIndex = inIndex
        self.outIndex = outIndex
        self.classes = classes
    }
}

/// An intersection's roads, in order: up to eight held in the value itself (bearings in 16 bits,
/// entry flags in a byte), more in an array. A route lists about a hundred intersections, and an
/// array of its own for each was an allocation each, and a reference counted at every copy.
public struct IntersectionRoads: RandomAccessCollection, MutableCollection, ExpressibleByArrayLiteral,
                                 Sendable, Equatable {
    public typealias Road = StepIntersection.Road
    package static let inlineCapacity = 8
    private var bearings = SIMD8<UInt16>()
    private var entries: UInt8 = 0
    private var inlineCount: UInt8 = 0
    /// Every road, once there are more than fit inline (or a bearing outside 0...65535).
    private var spilled: [Road]?

    public init() {}

    public init<S: Sequence>(_ roads: S) where S.Element == Road {
        for road in roads { append(road) }
    }

    public init(arrayLiteral roads: Road...) { self.init(roads) }

    public var startIndex: Int { 0 }
    public var endIndex: Int { spilled?.count ?? Int(inlineCount) }

    public subscript(i: Int) -> Road {
        get {
            if let spilled { return spilled[i] }
            precondition(i >= 0 && i < Int(inlineCount), "index out of range")
            return Road(bearing: Int(bearings[i]), entry: entries & (1 << UInt8(i)) != 0)
        }
        set {
            precondition(i >= 0 && i < count, "index out of range")
            if spilled == nil, let bearing = UInt16(exactly: newValue.bearing) {
                bearings[i] = bearing
                entries = newValue.entry ? entries | (1 << UInt8(i)) : entries & ~(1 << UInt8(i))
            } else {
                spill()
                spilled![i] = newValue
            }
        }
    }

    public mutating func append(_ road: Road) {
        if spilled == nil, Int(inlineCount) < Self.inlineCapacity, let bearing = UInt16(exactly: road.bearing) {
            bearings[Int(inlineCount)] = bearing
            if road.entry { entries |= 1 << inlineCount }
            inlineCount += 1
        } else {
            spill()
            spilled!.append(road)
        }
    }

    /// `count` roads (at most eight), each then set by ``setInline(_:bearing:entry:)`` in any order:
    /// an intersection listed from records that give each road's place.
    package init(inlineCount count: Int) {
        precondition(count <= Self.inlineCapacity, "more roads than fit inline")
        inlineCount = UInt8(count)
    }

    /// Sets road `i` of those ``init(inlineCount:)`` made room for.
    @inline(__always)
    package mutating func setInline(_ i: Int, bearing: UInt16, entry: Bool) {
        assert(spilled == nil && i < Int(inlineCount), "road \(i) outside the room made")
        bearings[i] = bearing
        if entry { entries |= 1 << UInt8(i) }
    }

    /// The roads moved to the array (kept there from then on).
    private mutating func spill() {
        if spilled == nil { spilled = (0..<Int(inlineCount)).map { self[$0] } }
    }

    public static func == (a: IntersectionRoads, b: IntersectionRoads) -> Bool { a.elementsEqual(b) }
}

/// One stretch of a route on one road, with the maneuver that starts it.
public struct RouteStep: Sendable, Equatable {
    public var name: String
    public var ref: String
    /// Metres.
    public var distance: Double
    /// Seconds, the turns passed included.
    public var duration: Double
    /// The routing weight of the stretch (OSRM's "routability"), turns included.
    public var weight: Double
    /// The stretch's line, from the maneuver on; the arrive step's is its one point, as OSRM's.
    public var geometry: [Coordinate]
    public var maneuver: Maneuver
    /// A sentence a driver can follow ("Turn left onto Castle Street").
    public var instruction: String
    public var mode: TravelMode = .driving
    /// The junctions passed, the maneuver's first.
    public var intersections: [StepIntersection] = []
    /// The name of a rotary (a large named roundabout) entered by this step.
    public var rotaryName: String?
    public var drivingSide: DrivingSide = .right
    /// The class of the road the step is on (motorway refs read alone).
    public var highway: HighwayClass = .residential
    /// Signposted destinations (OSRM's `destinations`, "ref: names"); empty when unsigned.
    public var destinations: String = ""
    /// Exit numbers (OSRM's `exits`, `;`-separated); empty when none.
    public var exits: String = ""
}

/// The part of a route between two consecutive waypoints.
public struct RouteLeg: Sendable, Equatable {
    /// Metres.
    public var distance: Double
    /// Seconds, turn costs included.
    public var duration: Double
    /// The routing weight the search minimised (OSRM's "routability"), in seconds.
    public var weight: Double
    /// The names of the two longest roads of the leg.
    public var summary: String
    /// The maneuvers, the arrival last; none where steps were not asked for (OSRM's `steps=false`).
    public var steps: [RouteStep]
    /// Values along the leg's line, when asked for (``LegAnnotation``).
    public var annotation: LegAnnotation?

    public init(distance: Double, duration: Double, weight: Double, summary: String, steps: [RouteStep],
                annotation: LegAnnotation? = nil) {
        self.distance = distance
        self.duration = duration
        self.weight = weight
        self.summary = summary
        self.steps = steps
        self.annotation = annotation
    }
}

/// OSRM's leg annotation: values for each stretch between consecutive points of the leg's full
/// line (its start, every vertex and shape point passed, its end), turn costs left out as OSRM
/// leaves them out.
public struct LegAnnotation: Sendable, Equatable {
    /// What an annotation holds, by OSRM's names.
    public enum Kind: String, Sendable, CaseIterable {
        case duration, distance, speed, weight, nodes, datasources
    }

    /// Metres of each stretch.
    public var distance: [Double]
    /// Seconds of each stretch.
    public var duration: [Double]
    /// Routing weight of each stretch.
    public var weight: [Double]
    /// The OpenStreetMap ids of the points: the node before the start, each node passed, the node
    /// after the end (one more than the stretches); nil when the map keeps no node ids.
    public var nodes: [Int64]?
    /// Where each stretch's speed came from: an index into ``datasourceNames`` (empty: all from
    /// the profile, OSRM's "lua profile").
    public var datasources: [Int] = []
    public var datasourceNames: [String] = []

    public init(distance: [Double], duration: [Double], weight: [Double], nodes: [Int64]?) {
        self.distance = distance
        self.duration = duration
        self.weight = weight
        self.nodes = nodes
    }

    /// The kinds OSRM's `annotations` value asks for: `true` (all), `false` (none) or a list of
    /// kinds; nil when it is none of these (`true` and `false` stand alone).
    public static func kinds(parsing text: String) -> Set<Kind>? {
        switch text {
        case "true": return Set(Kind.allCases)
        case "false": return []
        default:
            let kinds = text.split(separator: ",", omittingEmptySubsequences: false).map { Kind(rawValue: String($0)) }
            return kinds.contains(nil) ? nil : Set(kinds.compactMap { $0 })
        }
    }

    /// Metres per second of each stretch, to a tenth (0 where it takes no time), as OSRM.
    public var speed: [Double] {
        zip(distance, duration).map { d, t in t > 0 ? (d / t * 10).rounded() / 10 : 0 }
    }
}

/// A whole route: legs between waypoints, total distance and duration, full geometry.
public struct Route: Sendable, Equatable {
    /// Metres.
    public var distance: Double
    /// Seconds, turn costs included.
    public var duration: Double
    /// The routing weight the search minimised (OSRM's "routability"), in seconds.
    public var weight: Double
    public var geometry: [Coordinate]
    public var legs: [RouteLeg]
    /// The snapped waypoints, in order.
    public var waypoints: [Snap]
    /// What the route arrives at when it is a place rather than a coordinate (a point of interest's
    /// title): the last step then says "You have arrived at …".
    public var destinationName: String?
    /// The name of the road each waypoint snapped to (OSRM's waypoint `name`); empty when not known.
    public var snappedNames: [String] = []

    public init(distance: Double, duration: Double, weight: Double, geometry: [Coordinate],
                legs: [RouteLeg], waypoints: [Snap],
                destinationName: String?) {
        self.distance = distance
        self.duration = duration
        self.weight = weight
        self.geometry = geometry
        self.legs = legs
        self.waypoints = waypoints
        self.destinationName = destinationName
    }

    /// Names the destination: the final arrive step becomes "You have arrived at `name`", in
    /// `language` (the one the route was told in).
    public mutating func arrive(at name: String, language: InstructionTemplates = .english) {
        destinationName = name
        guard let leg = legs.indices.last, let step = legs[leg].steps.indices.last,
              legs[leg].steps[step].maneuver.type == .arrive else { return }
        legs[leg].steps[step].instruction = language.instruction(for: legs[leg].steps[step],
                                                                 legIndex: leg, legCount: legs.count,
                                                                 waypointName: name)
    }
}

extension RouteLeg {
    /// The steps as a reader wants them: OSRM's separate `exit roundabout` / `exit rotary` step,
    /// which says again what the roundabout step said ("take the 2nd exit onto …"), folded into
    /// that step (its distance, duration and geometry added). Text directions and maps use these;
    /// OSRM JSON keeps every step.
    public var readableSteps: [RouteStep] {
        var result: [RouteStep] = []
        for step in steps {
            if [.exitRoundabout, .exitRotary].contains(step.maneuver.type), let last = result.last,
               [.roundabout, .rotary].contains(last.maneuver.type) {
                result[result.count - 1].distance += step.distance
                result[result.count - 1].duration += step.duration
                result[result.count - 1].weight += step.weight
                result[result.count - 1].geometry += step.geometry.dropFirst()
                result[result.count - 1].intersections += step.intersections
                continue
            }
            result.append(step)
        }
        return result
    }
}
