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
        Route.writeOSRMJSON([self], into: &w, geometries: geometries, overview: overview, decimals: decimals,
                            steps: withSteps, waypoints: withWaypoints)
    }

    /// OSRM's response for `routes` (the best first, then alternatives; the waypoints are the
    /// first's): each leg with the `annotation` values `annotations` names, each waypoint with
    /// its `hint` where `hints` are given (one per waypoint).
    public static func writeOSRMJSON(_ routes: [Route], into w: inout JSONWriter,
                                     geometries: GeometryFormat = .polyline, overview: OverviewFormat = .simplified,
                                     decimals: Int = 6, steps withSteps: Bool = true,
                                     annotations: Set<LegAnnotation.Kind> = [], waypoints withWaypoints: Bool = true,
                                     hints: [String]? = nil) {
        let out = OSRMRouteWriter(geometries: geometries, decimals: decimals)
        w.writeByte(UInt8(ascii: "{"))
        out.key("code", &w); w.writeString("Ok"); out.comma(&w)
        out.key("routes", &w)
        out.list(routes, &w) { route, w in
            route.writeOSRMRoute(into: &w, out, overview: overview, steps: withSteps, annotations: annotations)
        }
        if withWaypoints, let first = routes.first {
            out.comma(&w); out.key("waypoints", &w)
            let names = first.waypointNames
            out.list(Array(first.waypoints.indices), &w) { i, w in
                out.waypoint(first.waypoints[i], name: i < names.count ? names[i] : "", hint: hints?[i], &w) { _ in }
            }
        }
        w.writeByte(UInt8(ascii: "}"))
    }

    /// One route object of OSRM's response.
    fileprivate func writeOSRMRoute(into w: inout JSONWriter, _ out: OSRMRouteWriter, overview: OverviewFormat,
                                steps withSteps: Bool, annotations: Set<LegAnnotation.Kind>,
                                confidence: Double? = nil) {
        w.writeByte(UInt8(ascii: "{"))
        if let confidence { out.key("confidence", &w); w.writeNumber(confidence); out.comma(&w) }
        out.key("distance", &w); out.tenths(distance, &w); out.comma(&w)
        out.key("duration", &w); out.tenths(duration, &w); out.comma(&w)
        out.key("legs", &w)
        out.list(legs, &w) { leg, w in out.leg(leg, steps: withSteps, annotations: annotations, &w) }
        out.comma(&w)
        out.key("weight_name", &w); w.writeString("routability"); out.comma(&w)
        out.key("weight", &w); out.tenths(weight, &w)
        switch overview {
        case .full:
            out.comma(&w); out.key("geometry", &w); out.line(geometry, &w)
        case .simplified:
            let zoom = (try? BoundingBox.enclosing(geometry)).map(Simplification.fittedZoom) ?? 18
            out.comma(&w); out.key("geometry", &w); out.line(Simplification.douglasPeucker(geometry, zoom: zoom), &w)
        case .false: break
        }
        w.writeByte(UInt8(ascii: "}"))
    }

    /// The road name of each waypoint: the names the router gave, else those of the steps that
    /// start and end legs.
    fileprivate var waypointNames: [String] {
        if snappedNames.count == waypoints.count { return snappedNames }
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

    /// The route as ``text`` tells it, for a page to list: one row per instruction (a roundabout's
    /// exit in its entry's row), each with its sentence, distance (m) and time (s) with their
    /// words as the text has them (`figures`), mode, road and where its maneuver is
    /// (`maneuver.location`, `[lon, lat]`); the totals and the whole line as GeoJSON.
    public var directionsJSON: JSONValue {
        let rows: [JSONValue] = legs.flatMap(\.readableSteps).map { step in
            let at = step.maneuver.location
            return .object(["instruction": .string(step.instruction), "distance": r1(step.distance),
                            "duration": r1(step.duration), "mode": .string(step.mode.rawValue),
                            "figures": .string(Route.figures(step.distance, step.duration)),
                            "name": .string(step.name),
                            "maneuver": .object(["type": .string(step.maneuver.type.rawValue),
                                                 "location": .array([.number(at.longitude), .number(at.latitude)])])])
        }
        let line: [JSONValue] = geometry.map { .array([.number($0.longitude), .number($0.latitude)]) }
        return .object(["distance": r1(distance), "duration": r1(duration), "steps": .array(rows),
                        "figures": .string(Route.figures(distance, duration)),
                        "geometry": .object(["type": "LineString", "coordinates": .array(line)])])
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

    static func figures(_ metres: Double, _ seconds: Double) -> String {
        "\(distanceText(metres)) · \(durationText(seconds))"
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
        if !estimated.isEmpty {
            result["fallback_speed_cells"] = .array(estimated.map {
                [.number(Double($0.row)), .number(Double($0.column))]
            })
        }
        return .object(result)
    }

    /// A header (`source`, then each destination's label) and one line per source: its label, then
    /// the durations (seconds, 1 decimal) to each destination, empty where unreachable. Labels
    /// (one per point; its number from 1 where empty) are quoted as RFC 4180 says where needed.
    public func durationsCSV(sourceLabels: [String] = [], destinationLabels: [String] = []) -> String {
        func label(_ labels: [String], _ i: Int) -> String {
            let text = i < labels.count && !labels[i].isEmpty ? labels[i] : String(i + 1)
            guard text.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) else { return text }
            return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }
        let header = (["source"] + destinations.indices.map { label(destinationLabels, $0) }).joined(separator: ",")
        let rows = sources.indices.map { i in
            ([label(sourceLabels, i)] + destinations.indices.map { j in
                duration(from: i, to: j).map { String(($0 * 10).rounded() / 10) } ?? ""
            }).joined(separator: ",")
        }
        return ([header] + rows).joined(separator: "\n") + "\n"
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

/// The parts of OSRM's route JSON, written straight into a ``JSONWriter``. Rounded numbers are
/// written digit by digit (`writeNumber(_:decimals:)`), the same text as the shortest form of
/// the rounded value, without formatting a Double.
private struct OSRMRouteWriter {
    let geometries: GeometryFormat
    let decimals: Int

    func key(_ k: StaticString, _ w: inout JSONWriter) { w.writeKey(k) }
    func comma(_ w: inout JSONWriter) { w.writeByte(UInt8(ascii: ",")) }
    func integer(_ x: Int, _ w: inout JSONWriter) { w.writeInteger(Int64(x)) }
    func tenths(_ x: Double, _ w: inout JSONWriter) { w.writeNumber(x, decimals: 1) }

    func point(_ c: Coordinate, _ w: inout JSONWriter) {
        w.beginArray()
        w.writeNumber(c.longitude, decimals: decimals)
        comma(&w)
        w.writeNumber(c.latitude, decimals: decimals)
        w.endArray()
    }

    func line(_ coordinates: [Coordinate], _ w: inout JSONWriter) {
        switch geometries {
        case .polyline: w.writePolyline(coordinates, precision: 5)
        case .polyline6: w.writePolyline(coordinates, precision: 6)
        case .geojson:
            // A LineString needs two points: the arrive step's one point is written twice, as OSRM does.
            w.writeRaw("{\"type\":\"LineString\",\"coordinates\":[" as StaticString)
            for (i, c) in (coordinates.count == 1 ? coordinates + coordinates : coordinates).enumerated() {
                if i > 0 { comma(&w) }
                point(c, &w)
            }
            w.writeRaw("]}" as StaticString)
        }
    }

    /// A waypoint object: `extra`'s keys (each followed by a comma), then `hint`, `name`,
    /// `location` and `distance`.
    func waypoint(_ snap: Snap, name: String, hint: String?, _ w: inout JSONWriter,
                  _ extra: (inout JSONWriter) -> Void) {
        w.writeByte(UInt8(ascii: "{"))
        extra(&w)
        if let hint { key("hint", &w); w.writeString(hint); comma(&w) }
        key("name", &w); w.writeString(name); comma(&w)
        key("location", &w); point(snap.coordinate, &w); comma(&w)
        key("distance", &w); tenths(snap.distance, &w)
        w.writeByte(UInt8(ascii: "}"))
    }

    func list<C: Collection>(_ items: C, _ w: inout JSONWriter, _ body: (C.Element, inout JSONWriter) -> Void) {
        w.beginArray()
        for (i, item) in items.enumerated() {
            if i > 0 { comma(&w) }
            body(item, &w)
        }
        w.endArray()
    }

    func leg(_ leg: RouteLeg, steps withSteps: Bool, annotations: Set<LegAnnotation.Kind>, _ w: inout JSONWriter) {
        w.writeByte(UInt8(ascii: "{"))
        if !annotations.isEmpty, let a = leg.annotation {
            key("annotation", &w); annotation(a, annotations, &w); comma(&w)
        }
        key("distance", &w); tenths(leg.distance, &w); comma(&w)
        key("duration", &w); tenths(leg.duration, &w); comma(&w)
        key("weight", &w); tenths(leg.weight, &w); comma(&w)
        key("summary", &w); w.writeString(withSteps ? leg.summary : ""); comma(&w)
        key("steps", &w); list(withSteps ? leg.steps : [], &w) { step, w in self.step(step, &w) }
        w.writeByte(UInt8(ascii: "}"))
    }

    /// OSRM's `annotation` object with the values `kinds` names (`nodes` where the map has ids).
    func annotation(_ a: LegAnnotation, _ kinds: Set<LegAnnotation.Kind>, _ w: inout JSONWriter) {
        w.writeByte(UInt8(ascii: "{"))
        var first = true
        func values(_ name: StaticString, _ xs: [Double], decimals: Int) {
            if !first { comma(&w) }
            first = false
            key(name, &w)
            list(xs, &w) { x, w in w.writeNumber(x, decimals: decimals) }
        }
        if kinds.contains(.distance) { values("distance", a.distance, decimals: 6) }
        if kinds.contains(.duration) { values("duration", a.duration, decimals: 1) }
        if kinds.contains(.weight) { values("weight", a.weight, decimals: 1) }
        if kinds.contains(.speed) { values("speed", a.speed, decimals: 1) }
        if kinds.contains(.nodes), let nodes = a.nodes {
            if !first { comma(&w) }
            first = false
            key("nodes", &w); list(nodes, &w) { id, w in w.writeInteger(id) }
        }
        if kinds.contains(.datasources) {
            // Without speed files, one source: the profile's speeds (OSRM's "lua profile").
            let sources = a.datasources.count == a.distance.count ? a.datasources : a.distance.map { _ in 0 }
            values("datasources", sources.map(Double.init), decimals: 0)
            comma(&w)
            key("metadata", &w)
            w.writeRaw("{\"datasource_names\":" as StaticString)
            list(a.datasourceNames.isEmpty ? ["lua profile"] : a.datasourceNames, &w) { name, w in w.writeString(name) }
            w.writeByte(UInt8(ascii: "}"))
        }
        w.writeByte(UInt8(ascii: "}"))
    }

    func step(_ step: RouteStep, _ w: inout JSONWriter) {
        w.writeByte(UInt8(ascii: "{"))
        key("name", &w); w.writeString(step.name); comma(&w)
        key("distance", &w); tenths(step.distance, &w); comma(&w)
        key("duration", &w); tenths(step.duration, &w); comma(&w)
        key("weight", &w); tenths(step.weight, &w); comma(&w)
        key("geometry", &w); line(step.geometry, &w); comma(&w)
        key("mode", &w); w.writeString(step.mode.rawValue); comma(&w)
        key("driving_side", &w); w.writeString(step.drivingSide == .left ? "left" : "right"); comma(&w)
        key("maneuver", &w); maneuver(step, &w); comma(&w)
        key("intersections", &w)
        list(step.intersections, &w) { x, w in intersection(x, &w) }
        if !step.ref.isEmpty { comma(&w); key("ref", &w); w.writeString(step.ref) }
        if !step.destinations.isEmpty { comma(&w); key("destinations", &w); w.writeString(step.destinations) }
        if !step.exits.isEmpty { comma(&w); key("exits", &w); w.writeString(step.exits) }
        if let rotary = step.rotaryName { comma(&w); key("rotary_name", &w); w.writeString(rotary) }
        w.writeByte(UInt8(ascii: "}"))
    }

    func maneuver(_ step: RouteStep, _ w: inout JSONWriter) {
        let m = step.maneuver
        w.writeByte(UInt8(ascii: "{"))
        key("type", &w); w.writeString(m.type.rawValue); comma(&w)
        key("location", &w); point(m.location, &w); comma(&w)
        key("bearing_before", &w); integer(m.bearingBefore, &w); comma(&w)
        key("bearing_after", &w); integer(m.bearingAfter, &w); comma(&w)
        if let modifier = m.modifier { key("modifier", &w); w.writeString(modifier.rawValue); comma(&w) }
        if let exit = m.exit { key("exit", &w); integer(exit, &w); comma(&w) }
        key("instruction", &w); w.writeString(step.instruction)
        w.writeByte(UInt8(ascii: "}"))
    }

    func intersection(_ x: StepIntersection, _ w: inout JSONWriter) {
        w.writeByte(UInt8(ascii: "{"))
        key("location", &w); point(x.location, &w); comma(&w)
        key("bearings", &w); list(x.roads, &w) { road, w in integer(road.bearing, &w) }; comma(&w)
        key("entry", &w); list(x.roads, &w) { road, w in w.writeRaw(road.entry ? "true" as StaticString : "false") }
        if let i = x.inIndex { comma(&w); key("in", &w); integer(i, &w) }
        if let o = x.outIndex { comma(&w); key("out", &w); integer(o, &w) }
        if !x.lanes.isEmpty {
            comma(&w); key("lanes", &w)
            list(x.lanes, &w) { lane, w in
                w.writeByte(UInt8(ascii: "{"))
                key("indications", &w); list(lane.indications, &w) { text, w in w.writeString(text) }; comma(&w)
                key("valid", &w); w.writeRaw(lane.valid ? "true" as StaticString : "false")
                if let v = lane.validIndication { comma(&w); key("valid_indication", &w); w.writeString(v) }
                w.writeByte(UInt8(ascii: "}"))
            }
        }
        if !x.classes.isEmpty {
            comma(&w); key("classes", &w); w.writeByte(UInt8(ascii: "["))
            var first = true
            for (c, name) in TravelClasses.all where x.classes.contains(c) {
                if !first { comma(&w) }
                first = false
                w.writeByte(UInt8(ascii: "\"")); w.writeRaw(name); w.writeByte(UInt8(ascii: "\""))
            }
            w.writeByte(UInt8(ascii: "]"))
        }
        w.writeByte(UInt8(ascii: "}"))
    }
}

extension Trip {
    /// OSRM's trip response: the trip's route as `trips[0]`, and the stops in the order given,
    /// each with its place in the trip (`waypoint_index`) and its trip (`trips_index`, 0).
    public func writeOSRMJSON(into w: inout JSONWriter, geometries: GeometryFormat = .polyline,
                              overview: OverviewFormat = .simplified, steps withSteps: Bool = false,
                              annotations: Set<LegAnnotation.Kind> = []) {
        let out = OSRMRouteWriter(geometries: geometries, decimals: 6)
        w.writeByte(UInt8(ascii: "{"))
        out.key("code", &w); w.writeString("Ok"); out.comma(&w)
        out.key("trips", &w)
        out.list([route], &w) { route, w in
            route.writeOSRMRoute(into: &w, out, overview: overview, steps: withSteps, annotations: annotations)
        }
        out.comma(&w); out.key("waypoints", &w)
        let names = route.waypointNames
        out.list(Array(placeOfStop.indices), &w) { stop, w in
            let k = placeOfStop[stop]
            out.waypoint(route.waypoints[k], name: k < names.count ? names[k] : "", hint: nil, &w) { w in
                out.key("waypoint_index", &w); w.writeInteger(Int64(k)); out.comma(&w)
                out.key("trips_index", &w); w.writeInteger(0); out.comma(&w)
            }
        }
        w.writeByte(UInt8(ascii: "}"))
    }
}

extension MapMatch {
    /// OSRM's match response: `matchings` (each a route with its `confidence`) and, unless
    /// `waypoints` is false (`skip_waypoints`), one `tracepoints` entry per fix given (null where
    /// it was not matched) with `matchings_index`, `waypoint_index` and `alternatives_count`, and
    /// its `hint` where `hints` are given (one per fix).
    public func writeOSRMJSON(into w: inout JSONWriter, geometries: GeometryFormat = .polyline,
                              overview: OverviewFormat = .simplified, steps withSteps: Bool = false,
                              annotations: Set<LegAnnotation.Kind> = [], waypoints withWaypoints: Bool = true,
                              hints: [String?]? = nil) {
        writeOSRMJSON(into: &w, geometries: geometries, overview: overview, steps: withSteps,
                      annotations: annotations, waypoints: withWaypoints) { i, out, w in
            if let hint = hints?[i] { out.key("hint", &w); w.writeString(hint); out.comma(&w) }
        }
    }

    /// ``writeOSRMJSON(into:geometries:overview:steps:annotations:waypoints:hints:)`` with each
    /// matched fix's hint made by `router` for its input among `inputs` and written as it is made
    /// (no string made of each: a trace has one per fix).
    package func writeOSRMJSON(into w: inout JSONWriter, geometries: GeometryFormat, overview: OverviewFormat,
                               steps withSteps: Bool, annotations: Set<LegAnnotation.Kind>,
                               waypoints withWaypoints: Bool, hintsBy router: Router, inputs: [Coordinate]) {
        writeOSRMJSON(into: &w, geometries: geometries, overview: overview, steps: withSteps,
                      annotations: annotations, waypoints: withWaypoints) { i, out, w in
            guard let point = tracepoints[i] else { return }
            out.key("hint", &w)
            router.withHint(for: point.snap, input: inputs[i]) { w.writeString(utf8: $0) }
            out.comma(&w)
        }
    }

    /// The response, `hint` writing fix i's `"hint":…,` where it has one.
    private func writeOSRMJSON(into w: inout JSONWriter, geometries: GeometryFormat, overview: OverviewFormat,
                               steps withSteps: Bool, annotations: Set<LegAnnotation.Kind>,
                               waypoints withWaypoints: Bool,
                               hint: (_ fix: Int, OSRMRouteWriter, inout JSONWriter) -> Void) {
        let out = OSRMRouteWriter(geometries: geometries, decimals: 6)
        w.writeByte(UInt8(ascii: "{"))
        out.key("code", &w); w.writeString("Ok"); out.comma(&w)
        out.key("matchings", &w)
        out.list(matchings, &w) { matching, w in
            matching.route.writeOSRMRoute(into: &w, out, overview: overview, steps: withSteps,
                                          annotations: annotations, confidence: matching.confidence)
        }
        if withWaypoints {
            out.comma(&w); out.key("tracepoints", &w)
            out.list(Array(tracepoints.indices), &w) { i, w in
                guard let point = tracepoints[i] else { return w.writeRaw("null" as StaticString) }
                out.waypoint(point.snap, name: point.name, hint: nil, &w) { w in
                    out.key("matchings_index", &w); out.integer(point.matchingIndex, &w); out.comma(&w)
                    out.key("waypoint_index", &w)
                    if let k = point.waypointIndex { out.integer(k, &w) } else { w.writeRaw("null" as StaticString) }
                    out.comma(&w)
                    out.key("alternatives_count", &w); out.integer(point.alternativesCount, &w); out.comma(&w)
                    // (The hint last of these: where ``OSRMRouteWriter/waypoint`` puts one.)
                    hint(i, out, &w)
                }
            }
        }
        w.writeByte(UInt8(ascii: "}"))
    }
}

extension MapMatch {
    /// Per matching: the fixes it covers, its length and time, OSRM's confidence, and the roads
    /// it follows in order (read from its steps: matched with `steps` off, none are named); then
    /// the fixes left unmatched.
    public var text: String {
        let matched = tracepoints.compactMap { $0 }.count
        var lines = ["Matched \(matched) of \(tracepoints.count) fixes in \(matchings.count) "
                     + (matchings.count == 1 ? "matching." : "matchings.")]
        for (m, matching) in matchings.enumerated() {
            let fixes = tracepoints.indices.filter { tracepoints[$0]?.matchingIndex == m }
            let route = matching.route
            var roads: [String] = []
            for step in route.legs.flatMap(\.steps) where !step.name.isEmpty && roads.last != step.name {
                roads.append(step.name)
            }
            lines.append("")
            lines.append("Matching \(m + 1): fixes \(fixes.first! + 1)–\(fixes.last! + 1), "
                         + "\(Route.distanceText(route.distance)), \(Route.durationText(route.duration)), "
                         + "confidence \(String(format: "%.2f", matching.confidence))")
            lines.append(roads.isEmpty ? "(unnamed roads)" : roads.joined(separator: " → "))
        }
        let unmatched = tracepoints.indices.filter { tracepoints[$0] == nil }
        if !unmatched.isEmpty {
            lines.append("")
            lines.append("Not matched: fixes " + unmatched.map { String($0 + 1) }.joined(separator: ", "))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A GeoJSON FeatureCollection: each matching's line (confidence, distance, duration) and
    /// each matched fix's point on the road (fix, matching, distance from the fix).
    public var featureCollection: FeatureCollection {
        var features: [Feature] = []
        for (m, matching) in matchings.enumerated() {
            let route = matching.route
            features.append(Feature(geometry: .lineString(route.geometry),
                                    properties: ["kind": "matching", "matching": .number(Double(m)),
                                                 "confidence": .number(matching.confidence),
                                                 "distance": r1(route.distance), "duration": r1(route.duration)]))
        }
        for (i, point) in tracepoints.enumerated() {
            guard let point else { continue }
            features.append(Feature(geometry: .point(point.snap.coordinate),
                                    properties: ["kind": "tracepoint", "fix": .number(Double(i)),
                                                 "matching": .number(Double(point.matchingIndex)),
                                                 "name": .string(point.name), "distance": r1(point.snap.distance)]))
        }
        return FeatureCollection(features: features,
                                 bbox: try? BoundingBox.enclosing(matchings.flatMap(\.route.geometry)))
    }
}
