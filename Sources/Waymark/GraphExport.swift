import WaymarkGeo
import WaymarkGeoJSON
import WaymarkGraph

extension RoadGraph {
    /// Every directed edge as CSV, with a header:
    /// `from,to,from_lat,from_lon,to_lat,to_lon,length_m,duration_s,name,highway`.
    /// Names are quoted when they contain a comma, quote or line break (RFC 4180).
    public func edgesCSV() -> [UInt8] {
        var w = JSONWriter() // for its number formatting
        w.writeRaw("from,to,from_lat,from_lon,to_lat,to_lon,length_m,duration_s,name,highway\n")
        for v in 0..<UInt32(nodeCount) {
            let a = coordinate(of: v)
            for e in edges(from: v) {
                let t = edgeTarget[e]
                let b = coordinate(of: t)
                w.writeRaw("\(v),\(t),")
                for value in [a.latitude, a.longitude, b.latitude, b.longitude] {
                    w.writeNumber(value, decimals: 7)
                    w.writeByte(UInt8(ascii: ","))
                }
                w.writeNumber(Double(edgeLength[e]), decimals: 2)
                w.writeByte(UInt8(ascii: ","))
                w.writeNumber(Double(edgeDuration[e]), decimals: 2)
                w.writeByte(UInt8(ascii: ","))
                let name = self.name(of: e)
                if name.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) {
                    w.writeRaw("\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\"")
                } else {
                    w.writeRaw(name)
                }
                w.writeRaw(",\(highway(of: e).tag)\n")
            }
        }
        return w.bytes
    }

    /// Every directed edge as a LineString feature with its full shape; properties `from`, `to`,
    /// `length_m`, `duration_s`, `name`, `ref`, `highway`, `oneway`, `way_id`.
    public func edgesFeatureCollection() -> FeatureCollection {
        var features: [Feature] = []
        features.reserveCapacity(edgeCount)
        for v in 0..<UInt32(nodeCount) {
            for e in edges(from: v) {
                let s = segment(of: e)
                let properties: JSONObject = [
                    "from": .number(Double(v)), "to": .number(Double(edgeTarget[e])),
                    "length_m": .number((Double(edgeLength[e]) * 100).rounded() / 100),
                    "duration_s": .number((Double(edgeDuration[e]) * 100).rounded() / 100),
                    "name": .string(name(of: e)), "ref": .string(ref(of: e)), "highway": .string(highway(of: e).tag),
                    "oneway": .bool(flags(of: e).contains(.oneway)), "way_id": .number(Double(segmentWayID[s])),
                ]
                features.append(Feature(geometry: .lineString(geometry(of: e)), properties: properties))
            }
        }
        return FeatureCollection(features: features)
    }
}
