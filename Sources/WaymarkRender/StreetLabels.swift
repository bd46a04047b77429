import Foundation
import WaymarkGeo
import WaymarkGraph
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Street names along the roads, placed the way a map app places them: main roads named from
/// zoom 13, streets from 15; each name on a straight enough stretch of its road (the road's
/// pieces with the same name joined end to end), read left to right (never upside down), centred
/// on the stretch, and left out where it would run into a label already placed or something
/// the picture must not hide (pins, the route's ends, the callout), or repeat its name nearby.
struct StreetLabels {
    struct Label {
        var name: String
        /// The stretch the text runs along, left to right, in picture points.
        var path: [(Double, Double)]
        var fontSize: Double
    }

    /// The zoom from which a class's names are shown (nil: never, e.g. service roads).
    static func minimumZoom(_ highway: HighwayClass) -> Double? {
        switch highway {
        case .motorway, .trunk, .primary, .secondary, .tertiary: 13
        case .unclassified, .residential, .livingStreet: 15
        default: nil
        }
    }

    /// Estimated text width: about 0.58 em per character (DejaVu Sans).
    static func textWidth(_ text: String, fontSize: Double) -> Double { Double(text.count) * fontSize * 0.58 }

    /// An axis-aligned box in picture points.
    typealias Box = (minX: Double, minY: Double, maxX: Double, maxY: Double)

    /// The box around points (at least one), widened by `by` across and down each side.
    static func bounds(_ points: [(Double, Double)], widenedBy by: (Double, Double) = (0, 0)) -> Box {
        var box: Box = (.infinity, .infinity, -.infinity, -.infinity)
        for p in points {
            box = (min(box.minX, p.0), min(box.minY, p.1), max(box.maxX, p.0), max(box.maxY, p.1))
        }
        return (box.minX - by.0, box.minY - by.1, box.maxX + by.0, box.maxY + by.1)
    }

    /// Boxes covering a line `halfHeight` either side, one per `every` points of its length.
    static func strip(_ line: [(Double, Double)], halfHeight: Double, every: Double) -> [Box] {
        let total = length(line)
        let count = max(1, Int((total / every).rounded(.up)))
        return (0..<count).map { k in
            let piece = cut(line, from: total * Double(k) / Double(count), to: total * Double(k + 1) / Double(count))
            return bounds(piece.isEmpty ? [line[0]] : piece, widenedBy: (halfHeight, halfHeight))
        }
    }

    /// Length of a line in picture points.
    static func length(_ line: [(Double, Double)]) -> Double {
        zip(line, line.dropFirst()).reduce(0) { $0 + hypot($1.1.0 - $1.0.0, $1.1.1 - $1.0.1) }
    }

    static func overlaps(_ a: Box, _ b: Box) -> Bool { a.minX < b.maxX && b.minX < a.maxX && a.minY < b.maxY
        && b.minY < a.maxY }

    /// The labels for the roads in view at `zoom`, avoiding `keepClear` and the route's line
    /// (`route`: boxes along it). A name with no room clear of the route may still cross it away
    /// from the name's middle, where the route (drawn above) hides only a letter or two.
    static func place(graph: RoadGraph, edges: [Int]? = nil, zoom: Double, width: Double,
                      height: Double, keepClear: [Box], route: [Box] = [],
                      project: (Coordinate) -> (Double, Double)) -> [Label] {
        let stretches = StreetLabels.stretches(graph: graph, edges: edges, width: width,
                                               height: height, project: project) { s, highway in
            let name = graph.segmentName[s]
            guard name != 0, let from = minimumZoom(highway), zoom >= from else { return nil }
            return name
        }
        // Main roads first, then the longest.
        let ordered = stretches.map { ($0, length($0.points)) }.sorted {
            $0.0.highway.labelRank != $1.0.highway.labelRank
                ? $0.0.highway.labelRank < $1.0.highway.labelRank : $0.1 > $1.1
        }
        var placed: [Box] = keepClear
        var labels: [Label] = []
        var named: [(name: UInt32, at: (Double, Double))] = []
        var left: [Int] = []
        for pass in 0..<2 {
            for k in pass == 0 ? Array(ordered.indices) : left {
                let (stretch, total) = ordered[k]
                let text = graph.strings[Int(stretch.name)]
                let fontSize = stretch.highway.labelRank <= 2 ? 12.0 : 11
                let needed = textWidth(text, fontSize: fontSize) + 12
                guard total >= needed else { continue }
                let spot = room(along: stretch.points, length: total, needed: needed, fontSize: fontSize,
                                width: width, height: height, clearOf: pass == 0 ? [placed, route] : [placed]) { path in
                    let middle = path[path.count / 2]
                    let clear = pass == 0 || !strip(cut(path, from: length(path) / 3, to: length(path) * 2 / 3),
                                                    halfHeight: fontSize * 0.7, every: fontSize)
                        .contains { box in route.contains { overlaps($0, box) } }
                    return clear && !named.contains {
                        $0.name == stretch.name && hypot($0.at.0 - middle.0, $0.at.1 - middle.1) < 250
                    }
                }
                guard let (path, boxes) = spot else {
                    if pass == 0 { left.append(k) }
                    continue
                }
                placed += boxes
                named.append((stretch.name, path[path.count / 2]))
                labels.append(Label(name: text, path: path, fontSize: fontSize))
            }
        }
        return labels
    }

    /// Where a name `needed` points long fits along a line of `length` points: windows straight
    /// enough (their ends 90 % of their length apart), inside the picture, clear of the boxes in
    /// `clearOf` and where `apart` allows the path (no repeat of the name nearby), nearest the
    /// line's middle first. The path reads left to right; the boxes are the strip it covers.
    static func room(along points: [(Double, Double)], length total: Double, needed: Double, fontSize: Double,
                     width: Double, height: Double, clearOf placed: [[Box]],
                     apart: ([(Double, Double)]) -> Bool) -> (path: [(Double, Double)], boxes: [Box])? {
        let step = max(4, needed / 6)
        let starts = stride(from: 0, through: total - needed, by: step).sorted {
            abs($0 + needed / 2 - total / 2) < abs($1 + needed / 2 - total / 2)
        }
        for from in starts {
            var path = cut(points, from: from, to: from + needed)
            guard let first = path.first, let last = path.last,
                  hypot(last.0 - first.0, last.1 - first.1) >= 0.9 * needed else { continue }
            if last.0 < first.0 { path.reverse() } // read left to right
            guard apart(path) else { continue }
            let whole = bounds(path, widenedBy: (fontSize * 0.7, fontSize * 0.7))
            guard whole.minX >= 0, whole.minY >= 0, whole.maxX <= width, whole.maxY <= height else { continue }
            // (Boxes along the text, not one around it: a slanted name blocks only its own strip.)
            let boxes = strip(path, halfHeight: fontSize * 0.7, every: fontSize)
            if boxes.contains(where: { box in placed.contains { $0.contains { overlaps($0, box) } } }) { continue }
            return (path, boxes)
        }
        return nil
    }

    /// Stretches of road in view: the pieces (segments) `key` gives a key, each joined end to end
    /// with the pieces of the same key that continue it (where exactly one does), as projected lines.
    static func stretches(graph: RoadGraph, edges: [Int]?, width: Double, height: Double,
                          project: (Coordinate) -> (Double, Double),
                          key: (Int, HighwayClass) -> UInt32?
                      ) -> [(name: UInt32, highway: HighwayClass, points: [(Double, Double)])] {
        struct Piece {
            var key: UInt32
            var highway: HighwayClass
            var from: UInt32
            var to: UInt32
            var points: [(Double, Double)]
        }
        var pieces: [Piece] = []
        // One directed edge per piece: the ones given (those that may show), or all.
        for e in edges ?? PictureIndex.edgePerSegment(graph) {
            let s = graph.segment(of: e)
            guard let highway = HighwayClass(rawValue: graph.segmentHighway[s]), let k = key(s, highway) else {
                continue
            }
            let points = graph.geometry(of: e).map(project)
            guard points.contains(where: { $0.0 >= 0 && $0.0 <= width && $0.1 >= 0 && $0.1 <= height }) else {
                continue
            }
            pieces.append(Piece(key: k, highway: highway, from: graph.source(of: e),
                                to: graph.edgeTarget[e], points: points))
        }
        var atVertex: [UInt64: [Int]] = [:]
        for (i, p) in pieces.enumerated() {
            atVertex[UInt64(p.from) << 32 | UInt64(p.key), default: []].append(i)
            atVertex[UInt64(p.to) << 32 | UInt64(p.key), default: []].append(i)
        }
        var used = [Bool](repeating: false, count: pieces.count)
        var stretches: [(name: UInt32, highway: HighwayClass, points: [(Double, Double)])] = []
        for start in pieces.indices where !used[start] {
            used[start] = true
            var line = pieces[start].points
            // Onward from each end while exactly one other piece of the key continues there.
            for forward in [true, false] {
                var end = forward ? pieces[start].to : pieces[start].from
                while let next = atVertex[UInt64(end) << 32 | UInt64(pieces[start].key)], next.count == 2,
                      let k = next.first(where: { !used[$0] }) {
                    used[k] = true
                    let piece = pieces[k]
                    let along = piece.from == end ? piece.points : piece.points.reversed()
                    if forward { line += along.dropFirst() } else { line = along.dropLast() + line }
                    end = piece.from == end ? piece.to : piece.from
                }
            }
            stretches.append((pieces[start].key, pieces[start].highway, line))
        }
        return stretches
    }

    /// A road number in a shield: its first ref, where it is drawn (the centre), the class.
    struct Shield {
        var ref: String
        var center: (Double, Double)
        var highway: HighwayClass
        var width: Double { StreetLabels.textWidth(ref, fontSize: 10) + 8 }
    }

    /// Shields with the refs of motorways, trunks and primaries from zoom 10: one at the middle of
    /// each long enough stretch of a ref, none overlapping another, a label or `keepClear`, none
    /// repeating its ref within 300 points.
    static func shields(graph: RoadGraph, edges: [Int]? = nil, zoom: Double, width: Double,
                        height: Double, keepClear: [Box],
                        project: (Coordinate) -> (Double, Double)) -> [Shield] {
        guard zoom >= 10 else { return [] }
        let stretches = StreetLabels.stretches(graph: graph, edges: edges, width: width,
                                               height: height, project: project) { s, highway in
            let ref = graph.segmentRef[s]
            guard ref != 0, highway == .motorway || highway == .trunk || highway == .primary else { return nil }
            return ref
        }
        var placed = keepClear, shields: [Shield] = []
        for stretch in stretches.sorted(by: { $0.highway.labelRank < $1.highway.labelRank }) {
            let full = graph.strings[Int(stretch.name)]
            let ref = String(full.split(separator: ";").first ?? "").trimmingCharacters(in: .whitespaces)
            guard !ref.isEmpty, ref.count <= 12 else { continue }
            let total = length(stretch.points)
            guard total >= 80 else { continue }
            // At the middle, else a quarter or three quarters along (the name may be at the middle).
            for share in [0.5, 0.25, 0.75] {
                guard let center = cut(stretch.points, from: total * share, to: total * share).first else { continue }
                let shield = Shield(ref: ref, center: center, highway: stretch.highway)
                let box: Box = (center.0 - shield.width / 2 - 2, center.1 - 9,
                                center.0 + shield.width / 2 + 2, center.1 + 9)
                guard box.minX >= 0, box.minY >= 0, box.maxX <= width, box.maxY <= height else { continue }
                if placed.contains(where: { overlaps($0, box) }) { continue }
                if shields.contains(where: {
                    $0.ref == ref && hypot($0.center.0 - center.0, $0.center.1 - center.1) < 300
                }) {
                    break
                }
                placed.append(box)
                shields.append(shield)
                break
            }
        }
        return shields
    }

    /// The part of a polyline between two distances along it.
    static func cut(_ line: [(Double, Double)], from a: Double, to b: Double) -> [(Double, Double)] {
        var out: [(Double, Double)] = []
        var travelled = 0.0
        for (p, q) in zip(line, line.dropFirst()) {
            let d = hypot(q.0 - p.0, q.1 - p.1)
            let s = travelled, e = travelled + d
            func at(_ x: Double) -> (Double, Double) {
                let t = d > 0 ? max(0, min(1, (x - s) / d)) : 0
                return (p.0 + (q.0 - p.0) * t, p.1 + (q.1 - p.1) * t)
            }
            if e >= a && s <= b {
                if out.isEmpty { out.append(at(max(a, s))) }
                out.append(at(min(b, e)))
            }
            travelled = e
            if travelled > b { break }
        }
        return out
    }
}

extension HighwayClass {
    /// Which names go first when labels compete (lower first).
    var labelRank: Int {
        switch self {
        case .motorway, .trunk: 0
        case .primary: 1
        case .secondary: 2
        case .tertiary: 3
        default: 4
        }
    }
}
