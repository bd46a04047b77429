import Foundation
import WaymarkGeo
import WaymarkGraph
import WaymarkQueries
import WaymarkPreparation

/// Tells a found path as steps the way OSRM does: a maneuver where the driver must act, nothing
/// where the road simply goes on; roundabouts with their exit; short connecting pieces collapsed
/// into the turn they belong to. Works on the path only, after the search.
package struct StepAssembler {
    let data: RoutingData
    let guidance: GuidanceTables
    // Held once: a computed `data.graph` would copy the graph's arrays' references at every use.
    // The per-junction helpers (`cut`, `intersection`, `roundabout`) take it as a `borrowing`
    // parameter instead: calling a graph method on this stored property copies the whole graph
    // (865 bytes) to the stack first, once per call.
    let graph: RoadGraph
    let classifier: TurnClassifier
    /// What is kept between routes (the caller's, one thread's).
    let kept: Kept
    /// The map's junction records. A router keeping classes off reads them too: OSRM lists a
    /// junction as its map has it (a road of a class kept off still enterable), as it decides
    /// every turn's instruction when the map is made.
    let records: JunctionRecords

    package init(data: RoutingData, guidance: GuidanceTables, kept: Kept = Kept()) {
        self.data = data
        self.guidance = guidance
        self.kept = kept
        records = guidance.records
        graph = data.graph
        classifier = TurnClassifier(graph: data.graph, names: guidance.names)
    }

    /// One driven piece: an edge from `from` to `to` metres along it.
    struct Piece {
        var edge: Int
        var from: Double
        var to: Double
        /// The seconds of the turn into the edge from the path's edge before it (0 for the first).
        var turn: Double = 0
        var length: Double { to - from }
    }

    /// A step before it is measured and worded: a run of the leg's pieces, by index.
    struct Draft {
        var pieces: Range<Int>
        var type: ManeuverType
        var modifier: ManeuverModifier?
        /// OSRM angle of the maneuver (180 straight), for combining turns.
        var angle: Double = 180
        var exit: Int?
        var nameEdge: Int
        var rotaryName: String?
        var bearingBefore: Double = 0
        var bearingAfter: Double = 0
        var intersections: [StepIntersection] = []
        /// How many of the intersections the maneuver's own junction holds: two where it joins
        /// the ends of a segregated crossing (``joinSegregated``), else one. Those after them were
        /// passed unsaid (OSRM's suppressed steps, apart until it collapses its steps).
        var ownIntersections = 1
        func distance(_ all: [Piece]) -> Double { StepAssembler.length(of: pieces, in: all) }
        /// Whether a junction was passed unsaid since the maneuver.
        var passesJunctions: Bool { intersections.count > ownIntersections }

        /// A step's intersections from its first, with room for a few more: the junctions a step
        /// passes are appended one at a time.
        static func starting(_ first: StepIntersection) -> [StepIntersection] {
            var list: [StepIntersection] = []
            list.reserveCapacity(8)
            list.append(first)
            return list
        }

        /// Takes in the next piece of the leg (the road goes on).
        mutating func takeIn(piece i: Int) { pieces = pieces.lowerBound..<(i + 1) }

        /// Takes in the road and junctions of the step after it.
        mutating func absorb(_ other: Draft) {
            pieces = pieces.lowerBound..<other.pieces.upperBound
            intersections += other.intersections
        }
    }

    /// Metres along pieces `range` of `all` (a draft's distance, read without the draft).
    static func length(of range: Range<Int>, in all: [Piece]) -> Double { all[range].reduce(0) { $0 + $1.length } }

    /// A junction the road went on through where OSRM keeps a (suppressed) step: the piece after
    /// it and its bearings (its intersection is the last of its step's).
    struct PassedJunction {
        var piece: Int
        var bearingBefore: Double
        var bearingAfter: Double
    }

    /// `notARing`: OSRM's `RoundaboutType::None`, a ring it does not tell as one (see
    /// ``roundaboutKind(at:entering:)``).
    enum RoundaboutKind { case roundabout, rotary, intersection, notARing }

    package func assemble(_ path: RoutePath, from origin: Snap, to destination: Snap, input: (Coordinate, Coordinate),
                  legIndex: Int, legCount: Int, drivingSide: DrivingSide, language: InstructionTemplates) -> RouteLeg {
        kept.readAheadSum &+= readAhead(path)
        let pieces = pieces(of: path)
        let drafts = drafts(pieces)
        var steps: [RouteStep] = []
        steps.reserveCapacity(drafts.count + 1)
        for g in drafts.indices { steps.append(step(g, of: drafts, pieces, origin: origin, drivingSide: drivingSide)) }
        if let start = steps.first?.geometry.first, let next = steps[0].geometry.first(where: { $0 != start }) {
            steps[0].maneuver.modifier = RelativeLocation.departure(from: input.0, snapped: start, next: next)
        }
        steps.append(arrival(after: steps, at: destination, input: input, drivingSide: drivingSide))
        var text: [UInt8] = []
        steps.withUnsafeMutableBufferPointer { steps in
            // Each step worded where it lies: handed over by value, each would be copied whole.
            for k in steps.indices {
                let sentence = language.instruction(at: steps.baseAddress! + k, legIndex: legIndex, legCount: legCount,
                                                    buffer: &text)
                steps[k].instruction = sentence
            }
        }

        // (By index: iterating the steps would copy each one.)
        var distance = 0.0
        for k in steps.indices { distance += steps[k].distance }
        return RouteLeg(distance: distance, duration: path.duration, weight: path.weight,
                        summary: summary(drafts, steps), steps: steps)
    }

    /// The leg without its guidance, for an answer that shows no steps (OSRM's `steps=false`): no
    /// steps, and the leg's line beside it. Its line, length, time and weight are
    /// ``assemble(_:from:to:input:legIndex:legCount:drivingSide:language:)``'s; no junction is
    /// looked at and nothing is worded.
    package func assembleLine(_ path: RoutePath) -> (leg: RouteLeg, line: [Coordinate]) {
        let pieces = pieces(of: path)
        let leg = RouteLeg(distance: StepAssembler.length(of: pieces.indices, in: pieces), duration: path.duration,
                           weight: path.weight, summary: "", steps: [])
        let line = StepAssembler.cut(pieces[...], start: data.snapIndex.source(ofEdge: pieces[0].edge), graph: graph,
                                     kept: kept)
        return (leg, line)
    }

    /// Reads what the junctions along `path` will look up (each vertex's flags, place and road
    /// count, each junction's record, turn row, the turns' costs and verdicts) in one loop of loads
    /// that do not wait on each other: the processor then waits for many cache misses at once, not
    /// for each in turn inside guidance's branches. The sum only keeps the loads (``Kept`` stores it).
    private func readAhead(_ path: RoutePath) -> UInt32 {
        var sum: UInt32 = 0
        let table = data.transitions
        let recorded = !records.start.isEmpty
        for e in path.edges {
            let v = Int(graph.edgeTarget[e])
            let row = Int(table.start[e])
            sum &+= UInt32(graph.nodeFlags[v]) &+ graph.edgeSegment[e] &+ UInt32(bitPattern: graph.latitudes[v])
                &+ UInt32(data.turns.roads[v])
            if recorded {
                let first = Int(records.start[e])
                if first < records.roads.count { sum &+= records.roads[first].bearing.bitPattern }
            } else {
                let out = Int(graph.firstEdge[v]), into = Int(graph.firstIncoming[v])
                if out < graph.edgeCount {
                    sum &+= graph.edgeSegment[out] &+ guidance.departBearing[out].bitPattern
                }
                if into < graph.incomingEdge.count { sum &+= graph.incomingEdge[into] }
            }
            if row < table.cost.count { sum &+= table.cost[row].bitPattern }
            if row < guidance.decisions.count { sum &+= UInt32(guidance.decisions[row]) }
        }
        return sum
    }

    /// The path as pieces of edges: the first from the start offset, the last up to the end's.
    private func pieces(of path: RoutePath) -> [Piece] {
        var pieces: [Piece] = []
        pieces.reserveCapacity(path.edges.count)
        for (i, e) in path.edges.enumerated() {
            let length = Double(graph.edgeLength[e])
            let start = i == 0 ? path.startOffset : 0
            let end = i == path.edges.count - 1 ? path.endOffset : length
            pieces.append(Piece(edge: e, from: start, to: max(start, end), turn: path.turnDurations[i]))
        }
        // A first or last piece under a metre (a waypoint snapped onto a vertex) would make an
        // empty step; short pieces inside the route are real road and stay.
        if pieces.count > 1, let last = pieces.last, last.length < 1 { pieces.removeLast() }
        if pieces.count > 1, let first = pieces.first, first.length < 1 { pieces.removeFirst() }

        return pieces
    }

    /// The steps before they are measured and worded: a maneuver where a junction calls for one,
    /// roundabouts told as a whole, then OSRM's collapsing.
    private func drafts(_ pieces: [Piece]) -> [Draft] {
        var drafts = [Draft(pieces: 0..<1, type: .depart, modifier: nil, nameEdge: pieces[0].edge)]
        drafts.reserveCapacity(pieces.count / 4 + 8) // (about a step per four pieces; grown, it was copied often)
        var roadStorage: [JunctionRoad] = [] // (each junction's roads, one at a time)
        roadStorage.reserveCapacity(16) // (grown from empty, a route's first junctions reallocated it)
        // The last junction passed without a step where OSRM has a suppressed one (three roads or more).
        var passed: PassedJunction? = nil
        // A route that starts on a roundabout: the exits passed on it before leaving (OSRM tells
        // the ring as part of the depart step, then one exit step).
        var startRing = startRingKind(pieces)
        var exitsPassed = 0
        var i = 1
        while i < pieces.count {
            let e = pieces[i - 1].edge, f = pieces[i].edge
            // Where the road only goes on (two roads meet, nothing to choose), there is nothing to
            // say unless the name or the mode changes, or the road becomes a ramp (OSRM's `on ramp`
            // there): no junction to analyse.
            let v = graph.edgeTarget[e]
            // (The names last: most vertices of a route are junctions, and comparing names costs the most.)
            let becomesRamp = !graph.highway(of: e).isMotorwayRamp && graph.highway(of: f).isMotorwayRamp
            if !graph.isUTurn(e, f)
                && graph.flags(of: e).contains(.roundabout) == graph.flags(of: f).contains(.roundabout)
                && !graph.changesMode(e, f) && !becomesRamp && isPlainPassage(v, e, f) && !classifier.announces(e, f) {
                drafts[drafts.count - 1].takeIn(piece: i)
                if osrmHasVertex(v, e, f) {
                    // Two ways OSRM does not join (a tunnel begins, destinations change…): its
                    // silent step there is listed, and keeps the steps either side apart.
                    let junction = self.junction(arrival: e, next: f, reusing: &roadStorage)
                    drafts[drafts.count - 1].intersections.append(StepAssembler.intersection(
                        junction, arrival: e, records: records, graph: graph))
                }
                i += 1
                continue
            }
            let junction = self.junction(arrival: e, next: f, reusing: &roadStorage)
            let intersection = StepAssembler.intersection(junction, arrival: e, records: records, graph: graph)
            let inRing = graph.flags(of: e).contains(.roundabout), toRing = graph.flags(of: f).contains(.roundabout)
            if startRing != nil && inRing && toRing {
                if passesExit(at: v, onto: f, graph: graph) { exitsPassed += 1 }
                drafts[drafts.count - 1].takeIn(piece: i)
                i += 1
                continue
            }
            if !inRing && toRing, case let kind = roundaboutKind(at: v, entering: f), kind != .notARing {
                i = roundabout(entering: i, kind: kind, pieces: pieces, junction: junction, at: intersection,
                               drafts: &drafts, graph: graph)
                continue
            }
            if inRing && !toRing, let kind = startRing {
                // Leaving the roundabout the route started on: the exit taken counts too.
                drafts.append(Self.ringExit(kind, exit: exitsPassed + 1, piece: i, onto: f, junction: junction,
                                            intersection: intersection))
                startRing = nil
                i += 1
                continue
            }
            // Decided when the map was made (``GuidanceTables/decisions``), else here.
            let verdict = TurnVerdict(code: guidance.decision(arrival: e, next: f, graph: graph,
                                                              table: data.transitions))
                ?? classifier.verdict(arrival: e, junction: junction)
            guard case let .decided(decision) = verdict else {
                // OSRM's `DrivewayHandler`: past minor roads on a road of one name, no turn at
                // all (not even a silent step: the junction is not listed).
                drafts[drafts.count - 1].takeIn(piece: i)
                i += 1
                continue
            }
            /// A step starting here, onto the road taken.
            func draft(_ type: ManeuverType, _ modifier: ManeuverModifier?, taken t: Int) -> Draft {
                let road = junction.roads[t]
                return Draft(pieces: i..<(i + 1), type: type, modifier: modifier, angle: road.angle, nameEdge: f,
                             bearingBefore: junction.arrivalBearing, bearingAfter: road.bearing,
                             intersections: Draft.starting(intersection))
            }
            switch decision {
            case .silent:
                // A maneuver just before at the start of a segregated edge takes in OSRM's
                // suppressed step at its end (the draft's type stands for none).
                if junction.roads.count > 2, let t = junction.taken, drafts.last?.pieces == (i - 1)..<i,
                   joinSegregated(draft(.turn, ManeuverModifier(angle: junction.roads[t].angle), taken: t),
                                  silent: true, passed: nil, drafts: &drafts, pieces) {
                    break
                }
                // (Straight on where only some lanes go on too: OSRM has deprecated `use lane` and only
                // lists the lanes on the junction's intersection.)
                drafts[drafts.count - 1].takeIn(piece: i)
                if junction.roads.count > 2 {
                    drafts[drafts.count - 1].intersections.append(intersection)
                    // OSRM keeps a (suppressed) step here until it collapses its steps.
                    passed = PassedJunction(piece: i, bearingBefore: junction.arrivalBearing,
                                            bearingAfter: junction.roads[junction.taken!].bearing)
                }
            case let .maneuver(type, modifier):
                let made = draft(type, modifier, taken: junction.taken!)
                if !joinSegregated(made, silent: false, passed: passed, drafts: &drafts, pieces) {
                    drafts.append(made)
                }
            }
            i += 1
        }
        collapse(&drafts, pieces)
        return drafts
    }

    /// The exit step off the roundabout a route started on.
    private static func ringExit(_ kind: RoundaboutKind, exit: Int, piece i: Int, onto f: Int,
                                 junction: Junction, intersection: StepIntersection) -> Draft {
        let road = junction.roads[junction.taken!]
        return Draft(pieces: i..<(i + 1), type: kind == .rotary ? .exitRotary : .exitRoundabout,
                     modifier: ManeuverModifier(angle: road.angle), angle: road.angle, exit: exit,
                     nameEdge: f, bearingBefore: junction.arrivalBearing,
                     bearingAfter: road.bearing, intersections: [intersection])
    }

    /// Draft `g` as a step: its line, travel time and weight (turns included), maneuver and
    /// intersections.
    private func step(_ g: Int, of drafts: [Draft], _ pieces: [Piece], origin: Snap,
                      drivingSide: DrivingSide) -> RouteStep {
        // (Read field by field: the draft taken whole would be copied, its arrays retained.)
        let range = drafts[g].pieces
        // A step after the first starts where the one before it ends.
        let start = g == 0 ? nil : graph.edgeTarget[pieces[range.lowerBound - 1].edge]
        let geometry = StepAssembler.cut(pieces[range], start: start ?? data.snapIndex.source(ofEdge: pieces[0].edge),
                                         graph: graph, kept: kept)
        var duration = 0.0, weight = 0.0
        for k in range {
            let p = pieces[k]
            let part = graph.part(p.edge, from: p.from, to: p.to)
            duration += part.duration
            weight += part.weight
            // The turn into this piece (the maneuver's own, or one passed silently).
            let previous = k > 0 ? pieces[k - 1].edge : -1
            if previous >= 0, let w = graph.turnWeight(previous, p.edge, table: data.transitions) {
                weight += w
                duration += p.turn
            }
        }
        let location: Coordinate
        if let start { location = graph.coordinate(of: start) } else { location = geometry.first ?? origin.coordinate }
        var intersections = drafts[g].intersections
        let bearingAfter = g == 0 ? Double(bearing(startOfGeometry: geometry)) : drafts[g].bearingAfter
        if g == 0 {
            let road = StepIntersection.Road(bearing: Int(bearingAfter.rounded()) % 360, entry: true)
            let departure = StepIntersection(location: location, roads: [road], inIndex: nil, outIndex: 0,
                                             classes: graph.travelClasses(of: pieces[0].edge))
            // (Made whole where the draft has none: an insertion goes through a generic path.)
            if intersections.isEmpty { intersections = [departure] } else { intersections.insert(departure, at: 0) }
        }
        let maneuver = Maneuver(type: drafts[g].type, modifier: drafts[g].modifier, location: location,
                                bearingBefore: g == 0 ? 0 : Int(drafts[g].bearingBefore.rounded()) % 360,
                                bearingAfter: Int(bearingAfter.rounded()) % 360, exit: drafts[g].exit)
        let edge = drafts[g].nameEdge
        return RouteStep(name: graph.name(of: edge), ref: graph.ref(of: edge),
                         distance: StepAssembler.length(of: range, in: pieces),
                         duration: duration, weight: weight, geometry: geometry,
                         maneuver: maneuver, instruction: "",
                         mode: TravelMode(graph.mode(of: pieces[range.lowerBound].edge), travel: graph.travel),
                         intersections: intersections, rotaryName: drafts[g].rotaryName, drivingSide: drivingSide,
                         highway: graph.highway(of: edge), destinations: graph.destinations(of: edge),
                         exits: graph.exits(of: edge))
    }

    /// The arrive step after `steps` (a leg's, the departure first): where the destination lies
    /// beside the road, if it is not on it.
    private func arrival(after steps: [RouteStep], at destination: Snap, input: (Coordinate, Coordinate),
                         drivingSide: DrivingSide) -> RouteStep {
        // (The last step read field by field where it lies: taken whole, it would be copied.)
        let k = steps.count - 1
        precondition(k >= 0, "an arrival follows the departure")
        let end = steps[k].geometry.last ?? destination.coordinate
        let before = bearing(endOfGeometry: steps[k].geometry)
        var side: ManeuverModifier? = nil
        if let previous = steps[k].geometry.last(where: { $0 != end }) {
            side = RelativeLocation.arrival(at: input.1, snapped: end, previous: previous)
        }
        let behind = StepIntersection.Road(bearing: (before + 180) % 360, entry: true)
        return RouteStep(name: steps[k].name, ref: steps[k].ref, distance: 0, duration: 0, weight: 0, geometry: [end],
                         maneuver: Maneuver(type: .arrive, modifier: side, location: end, bearingBefore: before,
                                            bearingAfter: 0, exit: nil),
                         instruction: "", mode: steps[k].mode,
                         intersections: [StepIntersection(location: end, roads: [behind], inIndex: 0, outIndex: nil)],
                         rotaryName: nil, drivingSide: drivingSide, highway: steps[k].highway)
    }

    /// The leg's summary: its two longest named roads, in route order.
    private func summary(_ drafts: [Draft], _ steps: [RouteStep]) -> String {
        // (By name id, in order of first appearance: a step's name is its name edge's.)
        var totals: [(name: UInt32, length: Double)] = []
        totals.reserveCapacity(drafts.count)
        for k in drafts.indices where !steps[k].name.isEmpty {
            let name = graph.segmentName[graph.segment(of: drafts[k].nameEdge)]
            if let i = totals.firstIndex(where: { $0.name == name }) {
                totals[i].length += steps[k].distance
            } else {
                totals.append((name, steps[k].distance))
            }
        }
        // The two longest (ties by name), found in one pass: no sort, no closure holding the graph.
        let strings = graph.strings
        func longer(_ a: (name: UInt32, length: Double), than b: (name: UInt32, length: Double)) -> Bool {
            a.length > b.length || (a.length == b.length && strings[Int(a.name)] < strings[Int(b.name)])
        }
        var first: (name: UInt32, length: Double)?, second: (name: UInt32, length: Double)?
        for total in totals {
            if first == nil || longer(total, than: first!) {
                second = first
                first = total
            } else if second == nil || longer(total, than: second!) {
                second = total
            }
        }
        return totals.filter { $0.name == first?.name
            || $0.name == second?.name }.map { strings[Int($0.name)] }.joined(separator: ", ")
    }

    /// ``TurnClassifier/isSegregated(_:from:)``, for edge `e` from its source `a`: read where the
    /// map's records store it.
    private func isSegregated(_ e: Int, from a: UInt32) -> Bool {
        records.segregated.isEmpty ? classifier.isSegregated(e, from: a) : records.segregated[e] != 0
    }

    /// The junction at the end of edge `e`, `f` taken (-1: none): its record where there is one.
    private func junction(arrival e: Int, next f: Int, reusing storage: inout [JunctionRoad]) -> Junction {
        if records.has(e) {
            return records.junction(arrival: e, next: f, vertex: graph.edgeTarget[e], reusing: &storage)
        }
        return Junction(graph: graph, tables: guidance, arrival: e, next: f, table: data.transitions,
                        reusing: &storage)
    }

    /// The junction (``junction(arrival:next:reusing:)``) as OSRM's `intersections` entry, with the
    /// lanes of the road arrived by.
    private static func intersection(_ junction: Junction, arrival e: Int, records: borrowing JunctionRecords,
                                     graph: borrowing RoadGraph) -> StepIntersection {
        var classes: TravelClasses = []
        if let t = junction.taken { classes = graph.travelClasses(of: junction.roads[t].out) }
        let location = graph.coordinate(of: junction.vertex)
        let lanes = graph.turnLanes(of: e)
        guard lanes.isEmpty else {
            var intersection = records.has(e)
                ? records.intersection(arrival: e, taken: junction.taken, location: location, classes: classes)
                : junction.intersection(location: location, classes: classes)
            intersection.lanes = TurnLanes.lanes(lanes, at: junction)
            return intersection
        }
        if records.has(e) {
            return records.intersection(arrival: e, taken: junction.taken, location: location, classes: classes)
        }
        return junction.intersection(location: location, classes: classes)
    }

    /// Whether OSRM's graph has vertex `v`, where the road arrived by (`e`) and the road taken
    /// (`f`), two different segments, meet alone: a vertex it keeps whatever meets there, or two
    /// ways its compressor does not join.
    private func osrmHasVertex(_ v: UInt32, _ e: Int, _ f: Int) -> Bool {
        let s = graph.segment(of: e), t = graph.segment(of: f)
        guard s != t else { return false }
        return graph.osrmKeepsVertex(v)
            || !graph.joinAsOneRoad(s, t, aligned: graph.edgeSegment[e] & 1 == graph.edgeSegment[f] & 1)
    }

    /// Whether vertex `v` joins only the road arrived by and the road taken (a bend, a signal, a
    /// way boundary): every edge there belongs to one of the two. Two different roads: the
    /// per-map count of roads at `v` says it; one road looping back to `v` needs the edges.
    private func isPlainPassage(_ v: UInt32, _ e: Int, _ f: Int) -> Bool {
        let a = graph.segment(of: e), b = graph.segment(of: f)
        if a != b { return data.turns.roads[Int(v)] <= 2 }
        for g in graph.edges(from: v) where graph.segment(of: g) != a && graph.segment(of: g) != b { return false }
        for slot in graph.incoming(to: v) {
            let s = graph.segment(of: Int(graph.incomingEdge[slot]))
            if s != a && s != b { return false }
        }
        return true
    }

    // MARK: - Roundabouts

    /// Adds the steps for a roundabout entered at piece `i` and returns the index after them.
    private func roundabout(entering i: Int, kind: RoundaboutKind, pieces: [Piece], junction: Junction,
                            at entryIntersection: StepIntersection,
                            drafts: inout [Draft], graph: borrowing RoadGraph) -> Int {
        var k = i
        // Exits counted as OSRM counts them: an exit beside the entry, each ring vertex passed that
        // a road leaves by, and the exit taken.
        var exits = canExitBesideEntry(junction, arrival: pieces[i - 1].edge, graph: graph) ? 1 : 0
        var intersections = [entryIntersection]
        while k < pieces.count && graph.flags(of: pieces[k].edge).contains(.roundabout) {
            let v = graph.edgeTarget[pieces[k].edge]
            if k + 1 < pieces.count {
                let next = pieces[k + 1].edge
                if !graph.flags(of: next).contains(.roundabout) || passesExit(at: v, onto: next, graph: graph) {
                    exits += 1
                }
            }
            k += 1
        }
        let ringEdge = pieces[i].edge
        let ringName = graph.name(of: ringEdge)
        var draft = Draft(pieces: i..<k,
                          type: kind == .rotary ? .rotary : (kind == .intersection ? .roundaboutTurn : .roundabout),
                          modifier: nil, exit: k < pieces.count ? max(1, exits) : nil, nameEdge: ringEdge,
                          rotaryName: kind == .rotary && !ringName.isEmpty ? ringName : nil,
                          bearingBefore: junction.arrivalBearing, bearingAfter: junction.roads[junction.taken!].bearing)
        guard k < pieces.count else {
            // Ending on the ring: OSRM's `roundabout` (or `rotary`) step without an exit, its
            // modifier the turn onto the ring, even where the ring is told as a turn.
            if kind == .intersection { draft.type = .roundabout }
            draft.modifier = ManeuverModifier(angle: junction.roads[junction.taken!].angle)
            draft.intersections = intersections
            drafts.append(draft)
            return k
        }
        var exitStorage: [JunctionRoad] = []
        exitStorage.reserveCapacity(8) // (grown from empty a road at a time, it was made three times)
        let exitJunction = self.junction(arrival: pieces[k - 1].edge, next: pieces[k].edge, reusing: &exitStorage)
        let exitBearing = exitJunction.roads[exitJunction.taken!].bearing
        let overall = Junction.turnAngle(arriving: junction.arrivalBearing, leaving: exitBearing)
        let exitIntersection = StepAssembler.intersection(exitJunction, arrival: pieces[k - 1].edge, records: records,
                                                          graph: graph)
        // OSRM: a roundabout or rotary step keeps the direction of the turn onto the ring; a
        // roundabout told as a turn takes the direction from the road arrived by to the exit, as
        // the two intersections list them (in 15° steps where the roads stay apart).
        draft.modifier = ManeuverModifier(angle: junction.roads[junction.taken!].angle)
        if kind == .intersection, let entry = entryIntersection.inIndex, let exit = exitIntersection.outIndex {
            draft.modifier = ManeuverModifier(angle: Junction.turnAngle(
                arriving: Double(entryIntersection.roads[entry].bearing) + 180,
                leaving: Double(exitIntersection.roads[exit].bearing)))
        }
        draft.angle = overall
        draft.nameEdge = pieces[k].edge
        if kind == .intersection {
            // A small roundabout told as a turn: one step through it and onto the exit road.
            intersections.append(exitIntersection)
            draft.pieces = i..<(k + 1)
            draft.intersections = intersections
            drafts.append(draft)
            return k + 1
        }
        draft.intersections = intersections
        drafts.append(draft)
        let exitRoad = exitJunction.roads[exitJunction.taken!]
        drafts.append(Draft(pieces: k..<(k + 1), type: kind == .rotary ? .exitRotary : .exitRoundabout,
                            modifier: ManeuverModifier(angle: exitRoad.angle), angle: exitRoad.angle,
                            exit: draft.exit, nameEdge: pieces[k].edge,
                            bearingBefore: exitJunction.arrivalBearing, bearingAfter: exitRoad.bearing,
                            intersections: [exitIntersection]))
        return k + 1
    }

    /// The kind of roundabout the route starts on (its first piece on the ring), if it is one
    /// OSRM tells as a roundabout.
    private func startRingKind(_ pieces: [Piece]) -> RoundaboutKind? {
        let first = pieces[0].edge
        guard pieces.count > 1, graph.flags(of: first).contains(.roundabout) else { return nil }
        let kind = roundaboutKind(at: graph.source(of: first), entering: first)
        return kind == .notARing ? nil : kind
    }

    /// OSRM's `can_exit_roundabout_separately`: at the entry, a road the car may leave by lies on
    /// the near side of the ring road (before it in the driving side's order) and leads elsewhere
    /// than back where the car came from; entering there counts as passing an exit.
    private func canExitBesideEntry(_ junction: Junction, arrival e: Int, graph: borrowing RoadGraph) -> Bool {
        let from = graph.source(of: e), n = junction.roads.count
        for k in 0..<n {
            let road = junction.roads[graph.drivingSide == .left ? n - 1 - k : k]
            guard road.out >= 0, road.entry else { continue }
            if graph.flags(of: road.out).contains(.roundabout) { return false }
            if graph.edgeTarget[road.out] != from { return true }
        }
        return false
    }

    /// OSRM's `StayOnRoundabout` (a counted exit) at a ring vertex the route goes on from by
    /// `ring`: some road leaves there (whatever the turn rules), and it is not a service road or
    /// the like (`may_be_ignored`), unless the ring is one itself.
    private func passesExit(at v: UInt32, onto ring: Int, graph: borrowing RoadGraph) -> Bool {
        let ringIgnored = graph.highway(of: ring).mayBeIgnored
        for g in graph.edges(from: v) where !graph.flags(of: g).contains(.roundabout) {
            if ringIgnored || !graph.highway(of: g).mayBeIgnored { return true }
        }
        return false
    }

    /// OSRM's roundabout types: a rotary is large (radius over 15 m) and has one name of its own
    /// (not one of the roads meeting it); a small one (radius under 15 m) with at most four
    /// junctions, one road at each and their bearings 60° or more apart, reads as a turn. A ring
    /// OSRM does not take for one (`getRoundaboutType`'s `None`: somewhere on it a third ring road
    /// meets, it splits, or it does not close) is told turn by turn like any road.
    func roundaboutKind(at v: UInt32, entering first: Int) -> RoundaboutKind {
        if let kind = kept.rings[first] { return kind }
        let kind = walkRing(at: v, entering: first)
        kept.rings[first] = kind
        return kind
    }

    /// ``roundaboutKind(at:entering:)`` found by going round the ring.
    private func walkRing(at v: UInt32, entering first: Int) -> RoundaboutKind {
        let tables = guidance
        var length = 0.0
        var junctions = 0
        var simple = true
        var exitBearings: [Float] = []
        // Name ids (0 is no name): the ring's own, and those of the roads meeting it.
        var ringName: UInt32? = 0, connected: [UInt32] = []
        var roads: [Int] = []
        var e = first
        var count = 0
        var w = v
        repeat {
            length += Double(graph.edgeLength[e])
            let name = graph.segmentName[graph.segment(of: e)]
            if name != 0 { ringName = ringName == 0 || ringName == name ? name : nil }
            w = graph.edgeTarget[e]
            var next = -1, ringRoads = 1, onward = 0 // (ringRoads: the one arrived by)
            roads.removeAll(keepingCapacity: true)
            for g in graph.edges(from: w) {
                if graph.flags(of: g).contains(.roundabout) {
                    // (A ring drivable both ways has two ways on at each vertex: no ring for OSRM.)
                    onward += 1
                    if !graph.isUTurn(e, g) {
                        next = g
                        ringRoads += 1
                    }
                } else {
                    roads.append(graph.segment(of: g))
                    connected.append(graph.segmentName[graph.segment(of: g)])
                    exitBearings.append(tables.departBearing[g])
                }
            }
            for slot in graph.incoming(to: w) {
                let h = Int(graph.incomingEdge[slot])
                if graph.flags(of: h).contains(.roundabout) {
                    // Another ring road coming in (not the one arrived by, nor a two-way one out).
                    if h != e && !graph.edges(from: w).contains(where: { graph.isUTurn(h, $0) }) { ringRoads += 1 }
                    continue
                }
                guard !roads.contains(graph.segment(of: h)) else { continue }
                roads.append(graph.segment(of: h))
                connected.append(graph.segmentName[graph.segment(of: h)])
                exitBearings.append(tables.arrivalBearing[h])
            }
            if !roads.isEmpty { junctions += 1 }
            if roads.count > 1 { simple = false }
            guard next >= 0, onward == 1, ringRoads == 2 else { return .notARing }
            e = next
            count += 1
        } while w != v && count < 500 // (w is where the next edge round starts)
        guard w == v else { return .notARing }
        let radius = length / (2 * Double.pi)
        if let name = ringName, name != 0, !connected.contains(name), radius > 15 { return .rotary }
        guard junctions <= 4 && simple && radius < 15 else { return .roundabout }
        // OSRM's `qualifiesAsRoundaboutIntersection`: the exits' bearings, sorted, each more than
        // 40° from the next (the last against the first by plain difference, as OSRM compares).
        exitBearings.sort()
        let n = exitBearings.count
        let distinct = exitBearings.indices.allSatisfy { i in
            abs(exitBearings[(i + 1) % n] - exitBearings[i]) > Float(TurnClassifier.narrowTurnAngle)
        }
        return distinct ? .intersection : .roundabout
    }

    // MARK: - Collapsing

    /// OSRM's collapsing of turns that belong together: a maneuver onto a piece shorter than
    /// 30 m followed by another becomes one (a U-turn across a median, a staggered crossing,
    /// a turn through a short connector, a name that comes back at once).
    /// OSRM's `collapseSegregatedTurnInstructions`: a maneuver at the end of a segregated edge
    /// (``TurnClassifier/isSegregated(_:from:)``) is told at the edge's start, as one with the
    /// step there (a maneuver, or the road going on where OSRM keeps a suppressed step): a U-turn
    /// where the two turn back, else by the direction from before the one to after the other
    /// (OSRM's `SegregatedTurnStrategy`). False when `draft` (the maneuver) is not such a one.
    /// `silent`: `draft` stands for OSRM's suppressed step at the edge's end (its modifier the
    /// turn's there), joined only to a maneuver at the start.
    private func joinSegregated(_ draft: Draft, silent: Bool, passed: PassedJunction?,
                                drafts: inout [Draft], _ pieces: [Piece]) -> Bool {
        let k = draft.pieces.lowerBound - 1 // the piece along the edge arrived by
        guard k >= 1, pieces[k].from == 0 else { return false }
        let e = pieces[k].edge
        guard isSegregated(e, from: graph.edgeTarget[pieces[k - 1].edge]),
              !isSegregated(draft.nameEdge, from: graph.edgeTarget[e]) else { return false }
        var current: Draft
        var suppressedStart = false // OSRM's suppressed step where the road went on
        if let last = drafts.last, last.pieces == k..<(k + 1), drafts.count >= 2 {
            switch last.type {
            case .turn, .newName, .continue, .endOfRoad, .fork, .merge, .onRamp, .offRamp: break
            default: return false
            }
            current = drafts.removeLast()
        } else if !silent, let passed, passed.piece == k, let last = drafts.last, last.pieces.upperBound == k + 1,
            last.pieces.lowerBound < k,
                  let intersection = last.intersections.last {
            // The road went on at the edge's start: that junction becomes the step's place.
            drafts[drafts.count - 1].pieces = last.pieces.lowerBound..<k
            drafts[drafts.count - 1].intersections.removeLast()
            current = Draft(pieces: k..<(k + 1), type: .newName, modifier: nil, nameEdge: e,
                            bearingBefore: passed.bearingBefore,
                            bearingAfter: passed.bearingAfter, intersections: [intersection])
            suppressedStart = true
        } else {
            return false
        }
        let angle = Junction.turnAngle(arriving: current.bearingBefore, leaving: draft.bearingAfter)
        let direction = ManeuverModifier(angle: angle)
        var type = draft.type, modifier: ManeuverModifier? = direction
        if PerceivedBearing.deviation(angle, 0) < TurnClassifier.narrowTurnAngle {
            type = .continue
            modifier = .uturn
        } else if (current.type == .endOfRoad && !suppressedStart) || draft.type == .endOfRoad {
            type = .endOfRoad
        } else if current.type == .fork && !suppressedStart {
            type = .fork
            modifier = current.modifier
        } else if direction == .straight && (silent || [.newName, .continue, .turn].contains(draft.type))
                    && [.straight, .slightLeft, .slightRight].contains(draft.modifier)
                    || (125...235).contains(angle) && current.intersections.count == 1
                    && takesStraightest(current.intersections[0]) && takesStraightest(draft.intersections[0]) {
            // Straight through (or nearly, taking the straightest road at both ends): a new
            // name, or nothing where the name is the one before.
            let before = graph.segment(of: drafts[drafts.count - 1].nameEdge), after = graph.segment(of: draft.nameEdge)
            if !classifier.hasNoName(before) && !classifier.hasNoName(after)
                && !classifier.announcesSegments(before, after) {
                current.absorb(draft)
                drafts[drafts.count - 1].absorb(current)
                return true
            }
            type = .newName
            modifier = .straight
        } else if direction != .straight && (silent || [.turn, .continue, .newName].contains(draft.type)) {
            type = .turn
        } else if silent {
            type = current.type
        }
        current.absorb(draft)
        current.type = type
        current.modifier = modifier
        current.angle = angle
        current.nameEdge = draft.nameEdge
        current.ownIntersections = current.intersections.count
        drafts.append(current)
        return true
    }

    /// OSRM's `hasStraightestTurn`: the road taken turns within 55° of straight on, and no other
    /// road that may be entered is straighter by more than 10°.
    private func takesStraightest(_ x: StepIntersection) -> Bool {
        guard let inIndex = x.inIndex, let outIndex = x.outIndex else { return false }
        let arriving = Junction.normalized(Double(x.roads[inIndex].bearing) + 180)
        let path = Junction.turnAngle(arriving: arriving, leaving: Double(x.roads[outIndex].bearing))
        guard (125...235).contains(path) else { return false }
        var other = 360.0, otherDelta = 360.0
        for (i, road) in x.roads.enumerated() where i != inIndex && i != outIndex && road.entry {
            let turn = Junction.turnAngle(arriving: arriving, leaving: Double(road.bearing))
            if abs(turn - 180) < otherDelta {
                otherDelta = abs(turn - 180)
                other = turn
            }
        }
        return PerceivedBearing.deviation(path, other) > 10 ? abs(path - 180) <= otherDelta : true
    }

    // MARK: - Geometry

    /// The pieces' geometry joined, each cut to its driven part. `start` is the vertex the first
    /// piece leaves from (``SnapIndex/source(ofEdge:)``, or the piece before it: the graph would
    /// look it up by a binary search).
    static func cut(_ pieces: ArraySlice<Piece>, start: UInt32, graph: borrowing RoadGraph,
                    kept: Kept) -> [Coordinate] {
        var points: [Coordinate] = []
        points.reserveCapacity(pieces.reduce(1) { $0 + graph.interiorPointCount(of: $1.edge) + 1 })
        // The vertex the next piece leaves from: the one before it ends there.
        var source = start
        for p in pieces {
            defer { source = graph.edgeTarget[p.edge] }
            // Whole edges (all but the first and last of a route) need no measuring: their points
            // go straight from the graph into the line.
            if p.from <= 0 && p.to >= Double(graph.edgeLength[p.edge]) {
                if points.isEmpty { points.append(graph.coordinate(of: source)) }
                graph.appendGeometry(of: p.edge, to: &points, skippingSource: true)
                continue
            }
            appendSlice(of: p.edge, leaving: source, from: p.from, to: p.to, to: &points, graph: graph, kept: kept)
        }
        return points.count >= 2 ? points : points + points
    }

    /// The part of an edge's line between two distances along it, appended to `points` (without
    /// its first point when `points` already ends there); read from the graph in place. `source`:
    /// the vertex the edge leaves; `kept`, the stretches of the edge last measured.
    private static func appendSlice(of edge: Int, leaving source: UInt32, from a: Double, to b: Double,
                                    to points: inout [Coordinate], graph: borrowing RoadGraph, kept: Kept) {
        let count = graph.interiorPointCount(of: edge) + 2
        func point(_ k: Int) -> Coordinate {
            k == 0 ? graph.coordinate(of: source)
                : k == count - 1 ? graph.coordinate(of: graph.edgeTarget[edge]) : graph.interiorPoint(of: edge, k - 1)
        }
        let skipsFirst = !points.isEmpty
        var taken = 0, last = Coordinate(latitude: 0, longitude: 0)
        func take(_ c: Coordinate) {
            if taken > 0 || !skipsFirst { points.append(c) }
            last = c
            taken += 1
        }
        // (Taken out of `kept` while in use: each access to it would be checked.)
        var cosines: [Double] = [], stretches: [Double] = []
        swap(&cosines, &kept.cosines)
        swap(&stretches, &kept.stretches)
        defer {
            swap(&cosines, &kept.cosines)
            swap(&stretches, &kept.stretches)
        }
        if kept.measuredEdge != edge {
            kept.measuredEdge = edge
            cosines.removeAll(keepingCapacity: true)
            stretches.removeAll(keepingCapacity: true)
        }
        var travelled = 0.0
        var p = point(0)
        if cosines.isEmpty {
            cosines.append(p.cosLatitude)
            stretches.append(0)
        }
        for k in 1..<count {
            // (Past b nothing more is taken; each point's cosine is worked out once, each stretch
            // measured once while the edge is cut again and again.)
            if travelled > b { break }
            let q = point(k)
            if k == stretches.count {
                let next = q.cosLatitude
                stretches.append(p.distance(to: q, cosines: (cosines[k - 1], next)))
                cosines.append(next)
            }
            let d = stretches[k]
            let s = travelled, e = travelled + d
            func at(_ x: Double) -> Coordinate {
                return p.interpolated(to: q, fraction: d > 0 ? max(0, min(1, (x - s) / d)) : 0)
            }
            if e >= a && s <= b {
                if taken == 0 { take(at(max(a, s))) }
                // A cut beside a shape point (a waypoint snapped onto it, its offset measured a few
                // centimetres differently) would give two points closer than the output's 6
                // decimals tell apart: keep the first. (Points more than 10⁻⁶° of latitude apart
                // are farther than 0.11 m: not measured.)
                let cut = at(min(b, e))
                if abs(cut.latitude - last.latitude) > 1e-6 || last.distance(to: cut) >= 0.1 { take(cut) }
            }
            travelled = e
            p = q
        }
        if taken == 0 { take(point(count - 1)) }
    }

    /// The bearing leaving a step's first point, measured as OSRM measures it (on its 10⁻⁶° grid,
    /// with its ruler).
    private func bearing(startOfGeometry g: [Coordinate]) -> Int {
        guard g.count >= 2 else { return 0 }
        let a = OSRMGrid.rounded(g[0]), ruler = LocalRuler.osrm(latitude: a.latitude)
        let b = g.dropFirst().lazy.map(OSRMGrid.rounded).first { ruler.distance(from: a, to: $0) > 1 }
            ?? OSRMGrid.rounded(g[1])
        return Int(ruler.bearing(from: a, to: b).rounded()) % 360
    }

    /// The bearing reaching a step's last point, as ``bearing(startOfGeometry:)``.
    private func bearing(endOfGeometry g: [Coordinate]) -> Int {
        guard g.count >= 2 else { return 0 }
        let b = OSRMGrid.rounded(g[g.count - 1]), ruler = LocalRuler.osrm(latitude: b.latitude)
        let a = g.dropLast().reversed().lazy.map(OSRMGrid.rounded).first { ruler.distance(from: $0, to: b) > 1 }
            ?? OSRMGrid.rounded(g[g.count - 2])
        return Int(ruler.bearing(from: a, to: b).rounded()) % 360
    }
}

extension RoadGraph {
    /// OSRM's car classes of driving along `edge` (car.lua's `classes`: `motorway` for motorways
    /// and their links, `restricted` where access is restricted this way).
    @inline(__always)
    func travelClasses(of edge: Int) -> TravelClasses {
        let flags = flags(of: edge), highway = highway(of: edge)
        var classes: TravelClasses = []
        if flags.contains(.toll) { classes.insert(.toll) }
        if highway == .motorway || highway == .motorwayLink { classes.insert(.motorway) }
        if flags.contains(.ferry) { classes.insert(.ferry) }
        if flags.contains(isReversed(edge) ? .restrictedBackward : .restrictedForward) { classes.insert(.restricted) }
        if flags.contains(.tunnel) { classes.insert(.tunnel) }
        return classes
    }
}

extension StepAssembler {
    /// What guidance keeps between routes, held by a router (one thread's).
    package final class Kept {
        /// The kinds of the rings walked (``roundaboutKind(at:entering:)``), by the ring edge
        /// entered: a ring's kind is the map's, the same at every visit, and finding it reads every
        /// junction round the ring.
        var rings: [Int: RoundaboutKind] = [:]
        /// What ``readAhead(_:)`` read, stored so that its loads are made.
        var readAheadSum: UInt32 = 0
        /// The edge last cut point by point (``appendSlice(of:leaving:from:to:to:graph:kept:)``):
        /// its points' cosines of latitude and its stretches' lengths, as far as they were measured
        /// (stretch k ends at point k; the first is 0). A matched trace's next leg often starts on
        /// the edge the last one ended on, and is measured from the edge's start again.
        var measuredEdge = -1
        var cosines: [Double] = []
        var stretches: [Double] = []

        package init() {}
    }
}
