import Foundation
import WaymarkGeo
import WaymarkGeoJSON
import WaymarkRouting

private func rounded(_ c: Coordinate, _ decimals: Int) -> JSONValue {
    let f = pow(10, Double(decimals))
    return [.number((c.longitude * f).rounded() / f), .number((c.latitude * f).rounded() / f)]
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
    public func osrmJSON(geometries: GeometryFormat = .polyline,
                         overview: OverviewFormat = .simplified, decimals: Int = 6,
                         steps withSteps: Bool = true, waypoints withWaypoints: Bool = true) -> JSONValue {
        var writer = JSONWriter()
        writeOSRMJSON(into: &writer, geometries: geometries, overview: overview, decimals: decimals, steps: withSteps,
                      waypoints: withWaypoints)
        return try! JSONValue(parsing: writer.bytes) // our own output: always valid JSON
    }

    /// ``osrmJSON(geometries:overview:decimals:steps:waypoints:)`` written straight into `writer`
    /// (compact), without building the value first: what a server sends.
    public func writeOSRMJSON(into w: inout JSONWriter, geometries: GeometryFormat = .polyline,
                              overview: OverviewFormat = .simplified,
                              decimals: Int = 6, steps withSteps: Bool = true, waypoints withWaypoints: Bool = true) {
        // Rounded numbers are written digit by digit (`writeNumber(_:decimals:)`), the same text
        // as the shortest form of the rounded value, without formatting a Double.
        func key(_ k: StaticString) { w.writeKey(k) }
        func comma() { w.writeByte(UInt8(ascii: ",")) }
        func integer(_ x: Int) { w.writeInteger(Int64(x)) }
        func tenths(_ x: Double) { w.writeNumber(x, decimals: 1) }
        func point(_ c: Coordinate) {
            w.beginArray()
            w.writeNumber(c.longitude, decimals: decimals)
            comma()
            w.writeNumber(c.latitude, decimals: decimals)
            w.endArray()
        }
        func line(_ coordinates: [Coordinate]) {
            switch geometries {
            case .polyline: w.writePolyline(coordinates, precision: 5)
            case .polyline6: w.writePolyline(coordinates, precision: 6)
            case .geojson:
                // A LineString needs two points: the arrive step's one point is written twice, as OSRM does.
                w.writeRaw("{\"type\":\"LineString\",\"coordinates\":[" as StaticString)
                for (i, c) in (coordinates.count == 1 ? coordinates + coordinates : coordinates).enumerated() {
                    if i > 0 { comma() }
                    point(c)
                }
                w.writeRaw("]}" as StaticString)
            }
        }
        func list<T>(_ items: [T], _ body: (T) -> Void) {
            w.beginArray()
            for (i, item) in items.enumerated() {
                if i > 0 { comma() }
                body(item)
            }
            w.endArray()
        }
        func step(_ step: RouteStep) {
            w.writeByte(UInt8(ascii: "{"))
            key("name"); w.writeString(step.name); comma()
            key("distance"); tenths(step.distance); comma()
            key("duration"); tenths(step.duration); comma()
            key("weight"); tenths(step.weight); comma()
            key("geometry"); line(step.geometry); comma()
            key("mode"); w.writeString(step.mode.rawValue); comma()
            key("driving_side"); w.writeString(step.drivingSide == .left ? "left" : "right"); comma()
            key("maneuver"); w.writeByte(UInt8(ascii: "{"))
            key("type"); w.writeString(step.maneuver.type.rawValue); comma()
            key("location"); point(step.maneuver.location); comma()
            key("bearing_before"); integer(step.maneuver.bearingBefore); comma()
            key("bearing_after"); integer(step.maneuver.bearingAfter); comma()
            if let modifier = step.maneuver.modifier { key("modifier"); w.writeString(modifier.rawValue); comma() }
            if let exit = step.maneuver.exit { key("exit"); integer(exit); comma() }
            key("instruction"); w.writeString(step.instruction)
            w.writeByte(UInt8(ascii: "}")); comma()
            key("intersections")
            list(step.intersections) { x in
                w.writeByte(UInt8(ascii: "{"))
                key("location"); point(x.location); comma()
                key("bearings"); list(x.roads) { integer($0.bearing) }; comma()
                key("entry"); list(x.roads) { w.writeRaw($0.entry ? "true" as StaticString : "false") }
                if let i = x.inIndex { comma(); key("in"); integer(i) }
                if let o = x.outIndex { comma(); key("out"); integer(o) }
                if !x.lanes.isEmpty {
                    comma(); key("lanes")
                    list(x.lanes) { lane in
                        w.writeByte(UInt8(ascii: "{"))
                        key("indications"); list(lane.indications) { w.writeString($0) }; comma()
                        key("valid"); w.writeRaw(lane.valid ? "true" as StaticString : "false")
                        if let v = lane.validIndication { comma(); key("valid_indication"); w.writeString(v) }
                        w.writeByte(UInt8(ascii: "}"))
                    }
                }
                if !x.classes.isEmpty {
                    comma(); key("classes"); w.writeByte(UInt8(ascii: "["))
                    var first = true
                    for (c, name) in TravelClasses.all where x.classes.contains(c) {
                        if !first { comma() }
                        first = false
                        w.writeByte(UInt8(ascii: "\"")); w.writeRaw(name); w.writeByte(UInt8(ascii: "\""))
                    }
                    w.writeByte(UInt8(ascii: "]"))
                }
                w.writeByte(UInt8(ascii: "}"))
            }
            if !step.ref.isEmpty { comma(); key("ref"); w.writeString(step.ref) }
            if !step.destinations.isEmpty { comma(); key("destinations"); w.writeString(step.destinations) }
            if !step.exits.isEmpty { comma(); key("exits"); w.writeString(step.exits) }
            if let rotary = step.rotaryName { comma(); key("rotary_name"); w.writeString(rotary) }
            w.writeByte(UInt8(ascii: "}"))
        }

        w.writeByte(UInt8(ascii: "{"))
        key("code"); w.writeString("Ok"); comma()
        key("routes"); w.writeRaw("[{" as StaticString)
        key("distance"); tenths(distance); comma()
        key("duration"); tenths(duration); comma()
        key("legs")
        list(legs) { leg in
            w.writeByte(UInt8(ascii: "{"))
            key("distance"); tenths(leg.distance); comma()
            key("duration"); tenths(leg.duration); comma()
            key("weight"); tenths(leg.weight); comma()
            key("summary"); w.writeString(withSteps ? leg.summary : ""); comma()
            key("steps"); list(withSteps ? leg.steps : [], step)
            w.writeByte(UInt8(ascii: "}"))
        }
        comma()
        key("weight_name"); w.writeString("routability"); comma()
        key("weight"); tenths(weight)
        switch overview {
        case .full:
            comma(); key("geometry"); line(geometry)
        case .simplified:
            let zoom = (try? BoundingBox.enclosing(geometry)).map(Simplification.fittedZoom) ?? 18
            comma(); key("geometry"); line(Simplification.douglasPeucker(geometry, zoom: zoom))
        case .false: break
        }
        w.writeRaw("}]" as StaticString)
        if withWaypoints {
            comma(); key("waypoints")
            list(Array(zip(waypoints, waypointNames))) { snap, name in
                w.writeByte(UInt8(ascii: "{"))
                key("name"); w.writeString(name); comma()
                key("location"); point(snap.coordinate); comma()
                key("distance"); tenths(snap.distance)
                w.writeByte(UInt8(ascii: "}"))
            }
        }
        w.writeByte(UInt8(ascii: "}"))
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
                                              "instruction": .string(step.instruction),
                                              "type": .string(step.maneuver.type.rawValue),
                                              "distance": r1(step.distance), "duration": r1(step.duration)]
                if let modifier = step.maneuver.modifier { properties["modifier"] = .string(modifier.rawValue) }
                if let exit = step.maneuver.exit { properties["exit"] = .number(Double(exit)) }
                features.append(Feature(geometry: .point(step.maneuver.location), properties: properties))
            }
        }
        for (i, (snap, name)) in zip(waypoints, waypointNames).enumerated() {
            var properties: JSONObject = ["kind": "waypoint", "index": .number(Double(i)), "name": .string(name),
                                          "distance": r1(snap.distance)]
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
            if legs.count > 1 {
                lines.append(
                    "Leg \(l + 1): \(Route.distanceText(leg.distance)), \(Route.durationText(leg.duration)) — "
                        + "\(leg.summary)"
                )
            }
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
        // (Rounded first: 996 m is "1.0 km", never "1000 m".)
        let tens = Int((metres / 10).rounded())
        return tens < 100 ? "\(tens * 10) m" : String(format: "%.1f km", metres / 1000)
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
                .array(
                    (0..<columns).map { j in
                        values[i * columns + j].map { .number(($0 * factor * 10).rounded() / 10) } ?? .null
                    })
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
            (0..<destinations.count).map { j in duration(from: i, to: j).map { String(($0 * 10).rounded() / 10) }
                ?? "" }.joined(separator: ",")
        }.joined(separator: "\n") + "\n"
    }
}

extension Snap {
    /// OSRM's waypoint object: `name`, `location` [lon, lat] (6 decimals), `distance` from the input.
    public func osrmWaypoint(name: String) -> JSONValue {
        ["name": .string(name), "location": rounded(coordinate, 6), "distance": r1(distance)]
    }
}

extension Isochrone {
    /// The Mapbox Isochrone API's response: a FeatureCollection with one feature per time, the
    /// longest first, each a Polygon (MultiPolygon when the area falls apart) — or, with
    /// `polygons: false`, its outline as a LineString (MultiLineString) — with the properties
    /// `contour` (minutes), `metric` ("time"), `color`, `opacity`, `fill`, `fill-opacity`,
    /// `fillColor`, `fillOpacity`. `colors` (hex without '#', one per time in the order given)
    /// replaces the default palette.
    public func featureCollection(polygons: Bool = true, colors: [String]? = nil) -> FeatureCollection {
        let palette = ["4286f4", "6a9ff5", "90b7f7", "b5cff9"]
        var features: [Feature] = []
        for (k, contour) in contours.enumerated().reversed() {
            let color = "#" + (colors.map { $0[k] } ?? palette[min(k, palette.count - 1)])
            let geometry: Geometry
            if polygons {
                geometry = contour.polygons.count == 1 ? .polygon(contour.polygons[0]) : .multiPolygon(contour.polygons)
            } else {
                let rings = contour.polygons.flatMap { $0 }
                geometry = rings.count == 1 ? .lineString(rings[0]) : .multiLineString(rings)
            }
            var properties: JSONObject = ["contour": .number(contour.minutes), "metric": "time",
                                          "color": .string(color), "opacity": 0.33]
            if polygons {
                properties["fill"] = .string(color)
                properties["fill-opacity"] = 0.33
                properties["fillColor"] = .string(color)
                properties["fillOpacity"] = 0.33
            }
            features.append(Feature(geometry: contour.polygons.isEmpty ? nil : geometry, properties: properties))
        }
        return FeatureCollection(features: features)
    }
}
