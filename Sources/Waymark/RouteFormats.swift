import Foundation
import WaymarkGeo
import WaymarkGeoJSON
import WaymarkRouting

private func rounded(_ c: Coordinate, _ decimals: Int) -> JSONValue {
    let f = pow(10, Double(decimals))
    return [.number((c.longitude * f).rounded() / f), .number((c.latitude * f).rounded() / f)]
}

private func lineString(_ coordinates: [Coordinate], _ decimals: Int) -> JSONValue {
    ["type": "LineString", "coordinates": .array(coordinates.map { rounded($0, decimals) })]
}

private func r1(_ x: Double) -> JSONValue { .number((x * 10).rounded() / 10) }

extension Route {
    /// OSRM's route response (`code`, `routes`, `waypoints`), geometries as GeoJSON LineStrings,
    /// so OSRM clients read it unchanged. `names` gives each waypoint's road.
    public func osrmJSON(decimals: Int = 6) -> JSONValue {
        var legs: [JSONValue] = []
        for leg in self.legs {
            let steps: [JSONValue] = leg.steps.map { step in
                var maneuver: JSONObject = ["type": .string(step.maneuver.type.rawValue), "location": rounded(step.maneuver.location, decimals),
                                            "bearing_before": .number(Double(step.maneuver.bearingBefore)),
                                            "bearing_after": .number(Double(step.maneuver.bearingAfter))]
                if let modifier = step.maneuver.modifier { maneuver["modifier"] = .string(modifier.rawValue) }
                if let exit = step.maneuver.exit { maneuver["exit"] = .number(Double(exit)) }
                maneuver["instruction"] = .string(step.instruction)
                return ["name": .string(step.name), "ref": .string(step.ref), "distance": r1(step.distance), "duration": r1(step.duration),
                        "geometry": lineString(step.geometry, decimals), "mode": .string(step.mode.rawValue), "maneuver": .object(maneuver)]
            }
            legs.append(["distance": r1(leg.distance), "duration": r1(leg.duration), "weight": r1(leg.weight), "summary": .string(leg.summary),
                         "steps": .array(steps)])
        }
        let route: JSONValue = ["distance": r1(distance), "duration": r1(duration), "geometry": lineString(geometry, decimals),
                                "legs": .array(legs), "weight_name": "routability", "weight": r1(weight)]
        let names = waypointNames
        let waypoints: [JSONValue] = zip(self.waypoints, names).map { snap, name in
            ["name": .string(name), "location": rounded(snap.coordinate, decimals), "distance": r1(snap.distance)]
        }
        return ["code": "Ok", "routes": [route], "waypoints": .array(waypoints)]
    }

    /// The road name of each waypoint (from the steps that start and end legs).
    private var waypointNames: [String] {
        var names = legs.map { $0.steps.first?.name ?? "" }
        names.append(legs.last?.steps.last?.name ?? "")
        return names
    }

    /// A GeoJSON FeatureCollection: the route (LineString; distance, duration, summary), one Point
    /// per maneuver (instruction, type, modifier, step distance) and the waypoints.
    public var featureCollection: FeatureCollection {
        var routeProperties: JSONObject = ["kind": "route", "distance": r1(distance), "duration": r1(duration),
                                           "summary": .string(legs.map(\.summary).joined(separator: "; "))]
        if let destinationName { routeProperties["destination"] = .string(destinationName) }
        var features = [Feature(geometry: .lineString(geometry), properties: routeProperties)]
        for (l, leg) in legs.enumerated() {
            for (i, step) in leg.steps.enumerated() {
                var properties: JSONObject = ["kind": "maneuver", "leg": .number(Double(l)), "step": .number(Double(i)),
                                              "instruction": .string(step.instruction), "type": .string(step.maneuver.type.rawValue),
                                              "distance": r1(step.distance), "duration": r1(step.duration)]
                if let modifier = step.maneuver.modifier { properties["modifier"] = .string(modifier.rawValue) }
                if let exit = step.maneuver.exit { properties["exit"] = .number(Double(exit)) }
                features.append(Feature(geometry: .point(step.maneuver.location), properties: properties))
            }
        }
        for (i, (snap, name)) in zip(waypoints, waypointNames).enumerated() {
            var properties: JSONObject = ["kind": "waypoint", "index": .number(Double(i)), "name": .string(name), "distance": r1(snap.distance)]
            if i == waypoints.count - 1, let destinationName { properties["destination"] = .string(destinationName) }
            features.append(Feature(geometry: .point(snap.coordinate), properties: properties))
        }
        return FeatureCollection(features: features, bbox: try? BoundingBox.enclosing(geometry))
    }

    /// Numbered turn-by-turn directions with distances, then the total.
    public var text: String {
        var lines: [String] = []
        var n = 1
        for (l, leg) in legs.enumerated() {
            if legs.count > 1 { lines.append("Leg \(l + 1): \(Route.distanceText(leg.distance)), \(Route.durationText(leg.duration)) — \(leg.summary)") }
            for step in leg.steps {
                let suffix = step.maneuver.type == .arrive ? "" : " — \(Route.distanceText(step.distance))"
                lines.append("\(n). \(step.instruction)\(suffix)")
                n += 1
            }
        }
        lines.append("Total: \(Route.distanceText(distance)), \(Route.durationText(duration))")
        return lines.joined(separator: "\n") + "\n"
    }

    static func distanceText(_ metres: Double) -> String {
        metres < 1000 ? "\(Int((metres / 10).rounded()) * 10) m" : String(format: "%.1f km", metres / 1000)
    }

    static func durationText(_ seconds: Double) -> String {
        let minutes = Int((seconds / 60).rounded())
        if minutes < 1 { return "\(Int(seconds.rounded())) s" }
        return minutes < 60 ? "\(minutes) min" : "\(minutes / 60) h \(minutes % 60) min"
    }
}

extension RouteError {
    /// OSRM's error shape: `{"code": "NoRoute"|"NoSegment"|"InvalidInput", "message": …}`.
    public var osrmJSON: JSONValue { ["code": .string(code), "message": .string(description)] }
}
