import Foundation
import WaymarkGraph

/// What turning costs, after OSRM's car profile (`process_turn`): time for the turn by its angle, a
/// U-turn, the signals or gate at the junction; and the routing weight of entering a road with
/// restricted access from one without, which keeps through traffic out.
public struct TurnCosts: Sendable, Hashable {
    /// Seconds for turning back onto the road just travelled (OSRM uses 20).
    public var uTurnPenalty: Double = 20
    /// Seconds for passing a vertex with traffic signals.
    public var trafficSignalDelay: Double
    /// Scale of the turn penalty in seconds (OSRM: 7.5): a sharp turn costs nearly this much.
    public var turnPenalty: Double = 7.5
    /// How much cheaper turns towards the kerb side are (OSRM: 1.075).
    public var turnBias: Double = 1.075
    /// Traffic keeps left (Britain, Japan, …): left turns are the cheap ones (on the sigmoid).
    public var leftHandTraffic = false
    /// How the turn penalty grows with the angle.
    public var curve = TurnCurve.sigmoid
    /// Whether turning costs also where only two roads meet, at a vertex OSRM keeps (two ways it
    /// does not join into one road): bicycle.lua's turn function counts no roads, car.lua's
    /// charges only where three or more meet.
    public var chargesBends = false
    /// Seconds for passing signals where two roads meet that OSRM joins into one (the profile's
    /// ``RoutingProfile/trafficSignalDelay`` and ``RoutingProfile/signalPassingDelay``).
    public var signalAlongRoad: Double
    /// Seconds added to a sharp turn across oncoming traffic (OSRM's `oncoming_turn_penalty`: 2),
    /// less as the turn is gentler: the wait for a gap, which the turn penalty's sigmoid leaves out
    /// at the sharp end.
    public var oncomingTurnPenalty = 2.0
    /// Seconds for passing a gate at a junction (OSRM's `barrier_penalties`).
    public var gateDelay: Double = CarProfile().barrierPenalties["gate"] ?? 60
    /// The weight, in seconds, of turning from a road without access restrictions onto one with
    /// them (OSRM's `max_turn_weight`: the largest turn weight it stores, 32767 × 0.1 s).
    public var restrictedEntryWeight = 3276.7

    /// The costs for a graph: its profile's, right- or left-hand traffic as the graph records.
    public init(for graph: RoadGraph) {
        switch graph.travel {
        case .car: self.init(leftHandTraffic: graph.drivingSide == .left)
        case .bicycle:
            // bicycle.lua's `process_turn`: (angle / 90°)² × 6 s, right turns 1.4 times cheaper
            // and left ones dearer whichever side traffic keeps to; 20 s more to turn back, 2 s
            // at a light. (Its 30 s for leaving the saddle is a weight, and with the duration
            // as weight OSRM keeps the duration only: it never applies.)
            let profile = BicycleProfile()
            self.init(uTurnPenalty: 20, trafficSignalDelay: profile.trafficSignalDelay,
                      turnPenalty: profile.turnPenalty, leftHandTraffic: graph.drivingSide == .left)
            turnBias = profile.turnBias
            curve = .quadratic
            chargesBends = true
            signalAlongRoad = profile.trafficSignalDelay + profile.signalPassingDelay
            oncomingTurnPenalty = 0
            gateDelay = 0
        case .foot:
            // foot.lua's `process_turn`: no cost for turning, 2 s for turning back or a light.
            self.init(uTurnPenalty: 2, trafficSignalDelay: FootProfile().trafficSignalDelay, turnPenalty: 0,
                      leftHandTraffic: graph.drivingSide == .left)
            oncomingTurnPenalty = 0
            gateDelay = 0
        }
    }

    public init(uTurnPenalty: Double = 20, trafficSignalDelay: Double = CarProfile().trafficSignalDelay,
                turnPenalty: Double = 7.5, leftHandTraffic: Bool = false) {
        self.uTurnPenalty = uTurnPenalty
        self.trafficSignalDelay = trafficSignalDelay
        signalAlongRoad = trafficSignalDelay
        self.turnPenalty = turnPenalty
        self.leftHandTraffic = leftHandTraffic
    }

    /// Seconds for turning by `angle` degrees (positive = right) at a junction: OSRM's sigmoid,
    /// near 0 for going straight, about 2 s for a right and 5.4 s for a left turn at 90° in
    /// right-hand traffic (mirrored in left-hand traffic).
    @inline(__always)
    public func turn(_ angle: Double) -> Double {
        if curve == .quadratic {
            let share = angle / 90
            return share * share * turnPenalty * (angle >= 0 ? 1 / turnBias : turnBias)
        }
        let bias = leftHandTraffic ? 1 / turnBias : turnBias
        let x: Double
        if angle >= 0 {
            x = (13 / bias) * angle / 180 - 6.5 * bias
        } else {
            x = (13 * bias) * -angle / 180 - 6.5 / bias
        }
        return turnPenalty / (1 + exp(-x))
    }

    /// Seconds for waiting to turn by `angle` degrees (positive = right) across oncoming traffic
    /// (a left turn in right-hand traffic): OSRM's term, tapering like the turn penalty, so a
    /// turn that is nearly straight on pays almost nothing. Zero for a turn away from it.
    @inline(__always)
    public func oncoming(_ angle: Double) -> Double {
        guard leftHandTraffic ? angle > 0 : angle < 0 else { return 0 }
        return oncomingTurnPenalty / (1 + exp(-(13 * abs(angle) / 180 - 3.25)))
    }
}

/// The shape of the turn penalty over the angle.
public enum TurnCurve: UInt8, Sendable, Hashable {
    /// car.lua's: near nothing going straight, rising steeply around a right angle to
    /// ``TurnCosts/turnPenalty`` for a sharp turn.
    case sigmoid
    /// bicycle.lua's: the angle's square, ``TurnCosts/turnPenalty`` at a right angle.
    case quadratic
}
