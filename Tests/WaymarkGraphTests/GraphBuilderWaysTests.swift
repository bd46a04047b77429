import Testing
@testable import WaymarkGraph
import WaymarkProfiles
import WaymarkSupport

/// ``GraphBuilder/Ways`` holds ways as columns but reads and writes like an array of ways: random
/// appends and inserts (fixed seed) give, way by way, what an array given the same does.
@Test func waysInColumnsActLikeAnArray() {
    var random = SplitMix64(seed: 7)
    let rules = ["residential", "primary", "service"].map { CarProfile().way(["highway": $0, "name": "Road \($0)"])! }
    var model: [GraphBuilder.Way] = [], ways = GraphBuilder.Ways()
    for id in 0..<200 {
        let nodes = (0..<Int.random(in: 0...6, using: &random)).map { _ in UInt32.random(in: 0..<50, using: &random) }
        let way = GraphBuilder.Way(nodes: nodes, rule: rules.randomElement(using: &random)!, id: Int64(id))
        if model.isEmpty || Bool.random(using: &random) {
            model.append(way)
            ways.append(way)
        } else {
            let at = Int.random(in: 0...model.count, using: &random)
            model.insert(way, at: at)
            ways.insert(way, at: at)
        }
    }
    #expect(ways.count == model.count)
    #expect(ways.nodes == model.flatMap(\.nodes))
    #expect(ways.ends.last == ways.nodes.count)
    for w in model.indices {
        #expect(ways[w].nodes == model[w].nodes && ways[w].id == model[w].id && ways[w].rule == model[w].rule)
        #expect(Array(ways.nodes[ways.range(w)]) == model[w].nodes)
    }
    let columns = GraphBuilder.Ways(nodes: ways.nodes, ends: ways.ends, rules: ways.rules, ids: ways.ids)
    #expect(columns.map(\.id) == model.map(\.id))
    let literal: GraphBuilder.Ways = [model[0], model[1]]
    #expect(literal.nodes == model[0].nodes + model[1].nodes && literal.ids == [model[0].id, model[1].id])
}

/// A stored class read without a call (``HighwayClass/init(stored:)``) is the class its raw value
/// names, and a number no class has reads as `.service`, as `HighwayClass(rawValue:) ?? .service` does.
@Test func storedHighwayClassesReadAsTheirRawValues() {
    #expect(Int(HighwayClass.storedCount) == HighwayClass.allCases.count)
    for raw in UInt8.min...UInt8.max {
        #expect(HighwayClass(stored: raw) == HighwayClass(rawValue: raw) ?? .service)
    }
}
