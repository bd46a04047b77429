import WaymarkGraph

/// Steps joined as OSRM joins them after assembling (`collapseTurnInstructions`,
/// `suppressShortNameSegments`): a short piece between two maneuvers becomes part of the turn it
/// belongs to, and a name change that says nothing new joins the step before.
extension StepAssembler {
    /// Which of OSRM's collapsing scenarios two steps in a row fit, and the angle they make together.
    struct CollapseScenario {
        /// A turn and a turn back within a few metres: a staggered crossing.
        var staggered: Bool
        /// A U-turn through a short piece or a short unnamed link, back onto the named road.
        var uTurn: Bool
        /// A name change just before a maneuver.
        var preceded: Bool
        /// The merged maneuver's angle (OSRM's `findTotalTurnAngle`).
        var angle: Double
    }

    static func collapsible(_ type: ManeuverType) -> Bool {
        switch type {
        case .turn, .newName, .continue, .endOfRoad, .fork, .merge, .onRamp, .offRamp: true
        default: false
        }
    }

    func collapse(_ drafts: inout [Draft], _ pieces: [Piece]) {
        var i = 1
        while i < drafts.count {
            if Self.collapsible(drafts[i].type) && drafts[i].passesJunctions {
                if oscillatesIntoSilence(drafts, at: i, pieces) {
                    drafts[i - 1].absorb(drafts[i])
                    drafts.remove(at: i)
                    continue
                }
                takeInSilentBend(&drafts[i], pieces)
                i += 1
            } else if i + 1 >= drafts.count {
                break
            } else if !Self.collapsible(drafts[i].type) || !Self.collapsible(drafts[i + 1].type)
                        || !collapsePair(&drafts, at: i, pieces) {
                i += 1
            }
        }
        // OSRM's order: ends of road are judged by the step before them (`buildIntersections`)
        // before short name changes join the steps before them.
        tellPlainEndsOfRoad(&drafts)
        suppressShortNameSegments(&drafts, pieces)
    }

    /// OSRM's `isNameOszillation` with a suppressed step after: a name change (a new name, or a
    /// turn straight on), then a junction passed unsaid onto a road without any name, ref or
    /// sign, after a step on such a road too. OSRM's name ids match there (both empty), so the
    /// name change is nothing to say, however far apart the three are.
    private func oscillatesIntoSilence(_ drafts: [Draft], at i: Int, _ pieces: [Piece]) -> Bool {
        // (The type first, read in place: most steps are no name change, and a copy retains arrays.)
        guard i >= 1, drafts[i].type == .newName || drafts[i].type == .turn && drafts[i].modifier == .straight
        else { return false }
        let s = drafts[i]
        guard !Self.endsOnRing(drafts[i - 1].type, passingJunctions: drafts[i - 1].passesJunctions),
              let after = edgeAfterFirstSilentJunction(s, pieces)
        else { return false }
        func unnamed(_ e: Int) -> Bool {
            let segment = graph.segment(of: e)
            return classifier.hasNoName(segment) && graph.segmentSigns[segment] == 0
        }
        let before = pieces[drafts[i - 1].pieces.upperBound - 1].edge
        return unnamed(before) && unnamed(after)
            && !graph.changesMode(before, after)
    }

    /// The edge a step drives on from the first junction it passes unsaid.
    private func edgeAfterFirstSilentJunction(_ d: Draft, _ pieces: [Piece]) -> Int? {
        firstSilentJunctionPiece(d, pieces).map { pieces[$0 + 1].edge }
    }

    /// The piece of a step that ends at the first junction it passes unsaid.
    private func firstSilentJunctionPiece(_ d: Draft, _ pieces: [Piece]) -> Int? {
        guard d.passesJunctions else { return nil }
        let location = d.intersections[d.ownIntersections].location
        return d.pieces.dropLast().first { graph.coordinate(of: graph.edgeTarget[pieces[$0].edge]) == location }
    }

    /// OSRM's `maneuverSucceededBySuppressedDirection`: a maneuver, then within 30 m a junction
    /// the road bends through unsaid to the same side (OSRM's next step is that silent one, even
    /// before an arrival): one turn, by the angle of both.
    private func takeInSilentBend(_ s: inout Draft, _ pieces: [Piece]) {
        guard let bend = silentBend(s, pieces), bend.distance <= TurnClassifier.maxCollapseDistance,
              ManeuverModifier(angle: bend.angle) != .straight, s.modifier != .uturn,
              sameSide(s.modifier, ManeuverModifier(angle: bend.angle)),
              let first = s.intersections.first, let inIndex = first.inIndex else { return }
        let total = Junction.turnAngle(arriving: Double(first.roads[inIndex].bearing) + 180, leaving: bend.leaving)
        if PerceivedBearing.deviation(total, 180) >= 0.5 * TurnClassifier.narrowTurnAngle {
            s.angle = total
            if s.type != .fork && s.type != .merge { s.modifier = ManeuverModifier(angle: total) }
        }
        // OSRM's `AdjustToCombinedTurnStrategy` with a suppressed step to take in: a new name
        // that now bends is a turn.
        if s.type == .newName && s.modifier != .straight { s.type = .turn }
    }

    /// Joins the step at `i` with the one after it where OSRM would; whether anything changed.
    private func collapsePair(_ drafts: inout [Draft], at i: Int, _ pieces: [Piece]) -> Bool {
        // (Fields read in place until a pair may join: copies of the two would retain their arrays.
        // The names are compared last: most pairs are neither a name that comes and goes nor short.)
        let before = pieces[drafts[i - 1].pieces.upperBound - 1].edge
        let after = drafts[i + 1].nameEdge
        // OSRM's scenarios that read the step before (a U-turn, a name coming and going, a name
        // change before a maneuver) never follow a roundabout's step.
        let afterRing = Self.endsOnRing(drafts[i - 1].type, passingJunctions: drafts[i - 1].passesJunctions)
        func newNameOrStraight(_ k: Int) -> Bool {
            drafts[k].type == .newName || drafts[k].type == .turn && drafts[k].modifier == .straight
        }
        // OSRM's `isNameOszillation`, at any distance: a name that comes and goes, both steps
        // name changes (a new name, or a turn straight on), is nothing to say. (Not past a
        // junction between them: OSRM has a silent step there, and the two are not next.)
        let comesAndGoes = !afterRing && drafts[i].intersections.count <= 1 && newNameOrStraight(i)
            && newNameOrStraight(i + 1)
        let length = StepAssembler.length(of: drafts[i].pieces, in: pieces)
        let short = length <= 2 * TurnClassifier.maxCollapseDistance
        guard comesAndGoes || short else { return false }
        let sameRoad = !classifier.announces(before, after)
        if comesAndGoes && sameRoad {
            let s = drafts[i], next = drafts[i + 1]
            drafts[i - 1].absorb(s)
            drafts[i - 1].absorb(next)
            drafts.removeSubrange(i...(i + 1))
            return true
        }
        guard short else { return false }
        let s = drafts[i], next = drafts[i + 1]
        guard let scenario = collapseScenario(s, next, before: before, after: after, sameRoad: sameRoad,
                                              afterRing: afterRing, length: length) else { return false }
        if scenario.preceded && !scenario.staggered && !scenario.uTurn {
            // The name change joins the road before; the maneuver stays where it is.
            drafts[i - 1].absorb(s)
            drafts[i + 1] = adjusted(next, from: s, angle: scenario.angle, before: before)
            drafts.remove(at: i)
            return true
        }
        var merged: Draft
        if scenario.uTurn {
            merged = s
            merged.type = .continue
            merged.modifier = .uturn
            merged.angle = 0
        } else if scenario.staggered {
            // Across and on: a new name, or nothing where the road is the one before.
            if continuesPrior(next.nameEdge, before: before) {
                drafts[i - 1].absorb(s)
                drafts[i - 1].absorb(next)
                drafts.removeSubrange(i...(i + 1))
                return true
            }
            merged = s
            merged.type = .newName
            merged.modifier = .straight
            merged.angle = 180
        } else {
            merged = adjusted(s, from: next, angle: scenario.angle, before: before)
        }
        merged.absorb(next)
        merged.nameEdge = after
        merged.bearingAfter = next.bearingAfter
        drafts[i] = merged
        drafts.remove(at: i + 1)
        return true
    }

    /// OSRM's collapsing scenarios, each with its own reach; nil for anything else, such as two
    /// real turns in a row, which stay two steps.
    private func collapseScenario(_ s: Draft, _ next: Draft, before: Int, after: Int, sameRoad: Bool,
                                  afterRing: Bool, length: Double) -> CollapseScenario? {
        let limit = TurnClassifier.maxCollapseDistance
        // Signed deviations (positive to the right) add up.
        let total = (180 - s.angle) + (180 - next.angle)
        let undisturbed = s.intersections.count <= 1
        let short = length <= limit && undisturbed
        var ways = 0
        for road in next.intersections.first?.roads ?? [] where road.entry { ways += 1 }
        let choiceless = ways == 1
        // A staggered crossing: a turn and a turn back within a few metres.
        let staggered = length < 3 && undisturbed && (180 - s.angle) * (180 - next.angle) < 0
        // A U-turn through a short piece, a short unnamed link between named roads, or into
        // the only way on; back on a road with a name (unnamed roads are not "the same").
        let named = !classifier.hasNoName(graph.segment(of: before))
            && !classifier.hasNoName(graph.segment(of: after))
        let link = undisturbed && classifier.hasNoName(graph.segment(of: s.nameEdge)) && named
        let uTurn = !afterRing && abs(total) > 150 && sameRoad && named
            && [.turn, .continue, .endOfRoad].contains(s.type)
            && (short || link || choiceless && undisturbed)
        // A name change just before a maneuver, or just after one (a straight new name, or
        // one without a choice, from a little further).
        let preceded = !afterRing && short && Self.nameChange(s)
        // (A straight or choiceless new name joins past a junction too, as OSRM's.)
        let succeeded = Self.nameChange(next)
            && (short
                || next.type == .newName && (next.modifier == .straight || choiceless) && length <= 1.5 * limit)
        // A turn, then a road that leaves no choice: close after a turn, or a little further
        // after going straight on.
        let choicelessAfter = choiceless && (short && s.modifier != .straight || Self.straightOn(s) && undisturbed)
        guard staggered || uTurn || preceded || succeeded || choicelessAfter else { return nil }
        // OSRM's `findTotalTurnAngle`: both turns' deviations together, unless that is nearly
        // straight on or the first is long and the two bend different ways (then the first's).
        let totalAngle = min(359, max(1, 180 - total))
        let useTotal = PerceivedBearing.deviation(totalAngle, 180) >= 0.5 * TurnClassifier.narrowTurnAngle
            && (length < limit || s.angle <= 185 && next.angle <= 185 || s.angle >= 175 && next.angle >= 175)
        return CollapseScenario(staggered: staggered, uTurn: uTurn, preceded: preceded,
                                angle: useTotal ? totalAngle : s.angle)
    }

    private static func straightOn(_ d: Draft) -> Bool {
        (d.type == .turn || d.type == .continue) && d.modifier == .straight
    }

    private static func nameChange(_ d: Draft) -> Bool { d.type == .newName || straightOn(d) }

    /// Whether OSRM's step before the next one has a roundabout type: a step onto, along or off
    /// a ring, unless it passes a junction after leaving the ring (OSRM's step before the next is
    /// then the suppressed one there).
    private static func endsOnRing(_ type: ManeuverType, passingJunctions: Bool) -> Bool {
        isRoundabout(type) && !((type == .exitRoundabout || type == .exitRotary) && passingJunctions)
    }

    /// OSRM's `hasRoundaboutType`: a step onto, along or off a roundabout or rotary.
    private static func isRoundabout(_ type: ManeuverType) -> Bool {
        switch type {
        case .roundabout, .rotary, .roundaboutTurn, .exitRoundabout, .exitRotary: true
        default: false
        }
    }

    /// The prior road's name against another step's road (OSRM's `haveSameName`: unnamed roads
    /// are never the same).
    private func continuesPrior(_ nameEdge: Int, before: Int) -> Bool {
        let a = graph.segment(of: before), b = graph.segment(of: nameEdge)
        return !classifier.hasNoName(a) && !classifier.hasNoName(b) && !classifier.announcesSegments(a, b)
    }

    /// OSRM's `AdjustToCombinedTurnStrategy`: the maneuver at `at` takes in `from`.
    private func adjusted(_ at: Draft, from: Draft, angle: Double, before: Int) -> Draft {
        var step = at
        let modifier = at.type == .fork || at.type == .merge ? at.modifier : ManeuverModifier(angle: angle)
        if Self.nameChange(from) || Self.nameChange(at) {
            if at.type == .continue && !continuesPrior(from.nameEdge, before: before) { step.type = .turn }
            else if at.type == .turn && continuesPrior(from.nameEdge, before: before) { step.type = .continue }
        } else if from.type == .onRamp {
            step.type = .onRamp
        } else if at.type == .turn && from.type == .turn && continuesPrior(from.nameEdge, before: before) {
            step.type = .continue
        } else if at.type == .continue && from.type == .turn && !continuesPrior(from.nameEdge, before: before) {
            step.type = .turn
        }
        step.modifier = modifier
        step.angle = angle
        return step
    }

    /// OSRM's `buildIntersections`: an end of the road met with no junction passed since the
    /// maneuver before says nothing the turn does not: it is told as a turn, or as continuing
    /// where the name stays.
    private func tellPlainEndsOfRoad(_ drafts: inout [Draft]) {
        for k in drafts.indices.dropFirst() where drafts[k].type == .endOfRoad {
            let passed = drafts[k - 1].intersections.count + (k - 1 == 0 ? 1 : 0)
            guard passed < 2 else { continue }
            let s = graph.segment(of: drafts[k].nameEdge), p = graph.segment(of: drafts[k - 1].nameEdge)
            drafts[k].type = !classifier.hasNoName(s) && !classifier.announcesSegments(p, s) ? .continue : .turn
        }
    }

    /// A new name that says nothing new (the same road after all; OSRM's `haveSameName`, never
    /// between unnamed roads), or that would be read for under 105 m, joins the step before
    /// (OSRM's `suppressShortNameSegments`); not where it carries lanes to keep to.
    private func suppressShortNameSegments(_ drafts: inout [Draft], _ pieces: [Piece]) {
        var k = 1
        while k < drafts.count {
            // (Fields read in place: most steps are no new name, and a copy of each would retain its arrays.)
            if drafts[k].type == .newName, drafts[k].intersections.first?.lanes.isEmpty ?? true,
               continuesPrior(drafts[k].nameEdge, before: drafts[k - 1].nameEdge)
                || StepAssembler.length(of: drafts[k].pieces, in: pieces) < 105 {
                drafts[k - 1].absorb(drafts[k])
                drafts.remove(at: k)
                continue
            }
            k += 1
        }
    }

    /// The first junction a step passes without a word: how far along the step it is, the turn
    /// angle there and the bearing leaving it.
    private func silentBend(_ d: Draft, _ pieces: [Piece]) -> (distance: Double, angle: Double, leaving: Double)? {
        guard let end = firstSilentJunctionPiece(d, pieces) else { return nil }
        let x = d.intersections[d.ownIntersections]
        guard let inIndex = x.inIndex, let outIndex = x.outIndex else { return nil }
        let distance = pieces[d.pieces.lowerBound...end].reduce(0) { $0 + $1.length }
        let leaving = Double(x.roads[outIndex].bearing)
        let angle = Junction.turnAngle(arriving: Double(x.roads[inIndex].bearing) + 180, leaving: leaving)
        return (distance, angle, leaving)
    }

    /// OSRM's `areSameSide`: both to the left or both to the right (straight on is either).
    private func sameSide(_ a: ManeuverModifier?, _ b: ManeuverModifier) -> Bool {
        func left(_ m: ManeuverModifier?) -> Bool { m == .straight || m == .slightLeft || m == .left
            || m == .sharpLeft }
        func right(_ m: ManeuverModifier?) -> Bool { m == .straight || m == .slightRight || m == .right
            || m == .sharpRight }
        return (left(a) && left(b)) || (right(a) && right(b))
    }

}
