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

/// How route and step geometries are written (OSRM's `geometries` option).
public enum GeometryFormat: String, Sendable, CaseIterable {
    /// Encoded polyline, 5 decimals (OSRM's default).
    case polyline
    /// Encoded polyline, 6 decimals.
    case polyline6
    /// A GeoJSON LineString.
    case geojson
}

/// How much of the route's own geometry is written (OSRM's `overview` option).
public enum OverviewFormat: String, Sendable, CaseIterable {
    /// Every point.
    case full
    /// Douglas–Peucker at the zoom the route fills a screen (OSRM's default).
    case simplified
    /// No route geometry.
    case `false`
}

extension Route {
    /// OSRM's route response (`code`, `routes`, `waypoints`) with every key an OSRM client reads:
    /// steps with `intersections`, `driving_side`, `weight`, `mode`, `ref`, `destinations`,
    /// `exits` and `rotary_name` where they apply; legs and routes with `weight` and `weight_name`;
    /// waypoints with `name` and `distance` (no `hint`). Geometries as OSRM's `geometries` option
    /// says (default polyline), the route's own as `overview` says (default simplified).
    /// `steps: false` leaves each leg's steps empty and its summary blank, as OSRM's `steps=false`
    /// (the HTTP API's default); `waypoints: false` leaves the waypoints out (`skip_waypoints`).
    public func osrmJSON(geometries: GeometryFormat = .polyline, overview: OverviewFormat = .simplified, decimals: Int = 6,
                         steps withSteps: Bool = true, waypoints withWaypoints: Bool = true) -> JSONValue {
        func line(_ coordinates: [Coordinate]) -> JSONValue {
            switch geometries {
            case .polyline: .string(Polyline.encode(coordinates, precision: 5))
            case .polyline6: .string(Polyline.encode(coordinates, precision: 6))
            case .geojson: lineString(coordinates, decimals)
            }
        }
        var legs: [JSONValue] = []
        for leg in self.legs {
            let steps: [JSONValue] = (withSteps ? leg.steps : []).map { step in
                var maneuver: JSONObject = ["type": .string(step.maneuver.type.rawValue), "location": rounded(step.maneuver.location, decimals),
                                            "bearing_before": .number(Double(step.maneuver.bearingBefore)),
                                            "bearing_after": .number(Double(step.maneuver.bearingAfter))]
                if let modifier = step.maneuver.modifier { maneuver["modifier"] = .string(modifier.rawValue) }
                if let exit = step.maneuver.exit { maneuver["exit"] = .number(Double(exit)) }
                maneuver["instruction"] = .string(step.instruction)
                let intersections: [JSONValue] = step.intersections.map { x in
                    var object: JSONObject = ["location": rounded(x.location, decimals),
                                              "bearings": .array(x.bearings.map { .number(Double($0)) }),
                                              "entry": .array(x.entry.map { .bool($0) })]
                    if let i = x.inIndex { object["in"] = .number(Double(i)) }
                    if let o = x.outIndex { object["out"] = .number(Double(o)) }
                    if !x.lanes.isEmpty {
                        object["lanes"] = .array(x.lanes.map { lane in
                            var l: JSONObject = ["indications": .array(lane.indications.map { .string($0) }), "valid": .bool(lane.valid)]
                            if let v = lane.validIndication { l["valid_indication"] = .string(v) }
                            return .object(l)
                        })
                    }
                    return .object(object)
                }
                var object: JSONObject = ["name": .string(step.name), "distance": r1(step.distance), "duration": r1(step.duration),
                                          "weight": r1(step.weight), "geometry": line(step.geometry), "mode": .string(step.mode.rawValue),
                                          "driving_side": .string(step.drivingSide == .left ? "left" : "right"),
                                          "maneuver": .object(maneuver), "intersections": .array(intersections)]
                if !step.ref.isEmpty { object["ref"] = .string(step.ref) }
                if !step.destinations.isEmpty { object["destinations"] = .string(step.destinations) }
                if !step.exits.isEmpty { object["exits"] = .string(step.exits) }
                if let rotary = step.rotaryName { object["rotary_name"] = .string(rotary) }
                return .object(object)
            }
            legs.append(["distance": r1(leg.distance), "duration": r1(leg.duration), "weight": r1(leg.weight),
                         "summary": .string(withSteps ? leg.summary : ""), "steps": .array(steps)])
        }
        var route: JSONObject = ["distance": r1(distance), "duration": r1(duration), "legs": .array(legs),
                                 "weight_name": "routability", "weight": r1(weight)]
        switch overview {
        case .full: route["geometry"] = line(geometry)
        case .simplified:
            let zoom = (try? BoundingBox.enclosing(geometry)).map(Simplification.fittedZoom) ?? 18
            route["geometry"] = line(Simplification.douglasPeucker(geometry, zoom: zoom))
        case .false: break
        }
        guard withWaypoints else { return ["code": "Ok", "routes": [.object(route)]] }
        let names = waypointNames
        let waypoints: [JSONValue] = zip(self.waypoints, names).map { snap, name in
            ["name": .string(name), "location": rounded(snap.coordinate, decimals), "distance": r1(snap.distance)]
        }
        return ["code": "Ok", "routes": [.object(route)], "waypoints": .array(waypoints)]
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
            for step in leg.readableSteps {
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

extension DistanceTable {
    /// OSRM's table response: `durations` (seconds, times `scale`) and/or `distances` (metres)
    /// as rows of columns, 1 decimal, `null` where unreachable; `sources` and `destinations` as
    /// waypoints (road name, snapped location, distance from the input).
    public func osrmJSON(on map: RoadMap, durations withDurations: Bool = true, distances withDistances: Bool = false,
                         scale: Double = 1) -> JSONValue {
        let columns = destinations.count
        func matrix(_ values: [Double?], _ factor: Double) -> JSONValue {
            .array((0..<sources.count).map { i in
                .array((0..<columns).map { j in values[i * columns + j].map { .number(($0 * factor * 10).rounded() / 10) } ?? .null })
            })
        }
        var result: JSONObject = ["code": "Ok"]
        if withDurations { result["durations"] = matrix(durations, scale) }
        if withDistances { result["distances"] = matrix(distances, 1) }
        result["sources"] = .array(sources.map { $0.osrmWaypoint(name: map.roadName(of: $0)) })
        result["destinations"] = .array(destinations.map { $0.osrmWaypoint(name: map.roadName(of: $0)) })
        return .object(result)
    }

    /// One line per source, the durations (seconds, 1 decimal) to each destination separated by
    /// commas, empty where unreachable.
    public var durationsCSV: String {
        (0..<sources.count).map { i in
            (0..<destinations.count).map { j in duration(from: i, to: j).map { String(($0 * 10).rounded() / 10) } ?? "" }.joined(separator: ",")
        }.joined(separator: "\n") + "\n"
    }
}

extension Snap {
    /// OSRM's waypoint object: `name`, `location` [lon, lat] (6 decimals), `distance` from the input.
    public func osrmWaypoint(name: String) -> JSONValue {
        ["name": .string(name), "location": rounded(coordinate, 6), "distance": r1(distance)]
    }
}
